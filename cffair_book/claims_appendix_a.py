"""The checks of appendix A (the GAN's own counterfactuals), registered with
:func:`~.registry.claim_check` (:mod:`.claims`)."""

from __future__ import annotations

import pandas as pd

from cffair.reporting import DATASET_ORDER, dataset_name, records_frame, select_records
from cffair.reporting._verdicts import HOLDS, Basis, Evidence, decide, fold_series, paired_series
from cffair.reporting._verdicts import fmt as _fmt
from cffair.reporting._verdicts import p_text as _p
from cffair_book.claim_tools import _UNCOUNTED, _investigation, _per_dataset, _shared_note
from cffair_book.registry import claim_check
from cffair_book.why import gan_twins_finding


# ---------------------------------------------------------------------------- appendix A
def _own_cf_folds(e: Evidence, d: str, m: str, metric: str = "cf_mse") -> pd.Series:
    """Per-fold ``metric`` on the GAN's own counterfactual test pairs, indexed by ``(repeat, fold)``: the
    seeds of a fold averaged and a collapsed model left out, as in every other test (:func:`fold_series`)."""
    own = select_records(records_frame(e.records, own_counterfactuals=True), repeats=True)
    return fold_series(own[(own["dataset"] == d) & (own["method"] == m)], metric)


@claim_check("A.1")
def _a_ltn_fairer_on_gan_counterfactuals(e: Evidence) -> tuple[str, str, Basis]:
    res, shown, collapsed = {}, [], []
    for d in DATASET_ORDER:
        x, y = _own_cf_folds(e, d, "ltn_acc_cf@gan"), _own_cf_folds(e, d, "gan")
        if not set(x.index) & set(y.index):
            continue
        if not (x.notna() & y.reindex(x.index).notna()).any():  # every shared fold holds a collapsed model
            collapsed.append(d)
            continue
        res[d] = (paired_series(x, y, larger=False), x, y)
        if not e.counts(d, ("ltn_acc_cf@gan", "gan"), "cf_mse"):
            shown.append(d)
    counted = [d for d in res if d not in shown]
    dec = decide([res[d][0] for d in counted], labels=[dataset_name(d) for d in counted])
    notes = [
        f"{dataset_name(d)} LTN {_fmt(x.mean())} vs GAN {_fmt(y.mean())} ({_p(r)})"
        + ("" if d in counted else _UNCOUNTED)
        for d, (r, x, y) in res.items()
    ]
    return (
        dec.verdict,
        "; ".join(notes)
        + "".join(f"; {dataset_name(d)}: a collapsed model on every fold, not counted" for d in collapsed)
        + _shared_note(shown, ("ltn_acc_cf@gan", "gan"))
        + _investigation(None if dec.verdict == HOLDS else gan_twins_finding(e.records)["flips"]),
        dec.basis,
    )


@claim_check("A.2")
def _a_accuracy_on_gan_counterfactuals(e: Evidence) -> tuple[str, str, Basis]:
    ds = [d for d in DATASET_ORDER if (d, "gan") in e.cf and (d, "ltn_acc_cf@gan") in e.cf]
    verdict, note, basis = _per_dataset(
        e,
        ds,
        "ltn_acc_cf@gan",
        "gan",
        "perf",
        {d: not d.startswith("compas") for d in ds},
        lambda d, r: (
            f"{dataset_name(d)} LTN {e.perf_text(d, 'ltn_acc_cf@gan')} vs GAN {e.perf_text(d, 'gan')} ({_p(r)})"
        ),
    )
    return verdict, note + _investigation(None if verdict == HOLDS else gan_twins_finding(e.records)["accuracy"]), basis
