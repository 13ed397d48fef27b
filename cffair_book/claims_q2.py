"""The checks of Q2 (against the baselines), registered with :func:`~.registry.claim_check`
(:mod:`.claims`)."""

from __future__ import annotations

from cffair.experiments import paper_baselines
from cffair.reporting import dataset_name, method_name, variants_frame
from cffair.reporting._verdicts import HOLDS, INCONCLUSIVE, PENDING, SHARED_DATASETS, Basis, Evidence, decide
from cffair.reporting._verdicts import fmt as _fmt
from cffair.reporting._verdicts import p_text as _p
from cffair_book.claim_tools import _UNCOUNTED, _flips, _investigation, _shared_note, _side
from cffair_book.investigations import q2_finding
from cffair_book.registry import claim_check
from cffair_book.why import flip_ruler_finding, shared_runs_finding
from cffair_book.wording import note

# ---------------------------------------------------------------------------- Q2
_BASELINES = paper_baselines()


def _q2_keys(e: Evidence) -> set[str]:
    """The keys of the Q2 page's records (its groups ``q2`` and ``q2_why``), in the records' profiles."""
    from cffair.experiments import paper_grid  # here: cffair.experiments imports torch; the book package does not

    profiles = {r.config.profile for r in e.records}
    return {c.key for p in profiles for c in paper_grid(p, only=["q2", "q2_why"])}


@claim_check("Q2.1")
def _q2_ltn_fairer_than_baselines(e: Evidence) -> tuple[str, str, Basis]:
    ds = e.have("ltn_acc_cf", *_BASELINES)
    tests, labels, names, shown = [], [], [], []
    for d in ds:
        if not e.counts(d, ("ltn_acc_cf", *_BASELINES), "cf_mse"):
            shown.append(d)
            continue
        for b in _BASELINES:
            tests.append(e.compare(d, "ltn_acc_cf", b, "cf_mse", False))
            labels.append(dataset_name(d))
            names.append(f"{method_name(b)} on {dataset_name(d)}")
    dec = decide(tests, labels=labels, names=names)
    comp = iter(zip(tests, dec.components))
    parts = []
    for d in ds:
        if d in shown:
            parts.append(
                f"{dataset_name(d)} LTN {_fmt(e.cf[(d, 'ltn_acc_cf')])} vs "
                + "/".join(_fmt(e.cf[(d, b)]) for b in _BASELINES)
                + _UNCOUNTED
            )
            continue
        res = [next(comp) for _ in _BASELINES]
        parts.append(
            f"{dataset_name(d)} LTN {_fmt(e.cf[(d, 'ltn_acc_cf')])} vs "
            + "/".join(
                f"{method_name(b)} {_fmt(e.cf[(d, b)])} ({_p(t)}{'' if v == INCONCLUSIVE else ', ' + _side(v)})"
                for b, (t, v) in zip(_BASELINES, res)
            )
            + _flips(e, d, ("ltn_acc_cf", *_BASELINES))
        )
    keys = _q2_keys(e)
    # Q2's variants: the records of the Q2 page's groups, as the page counts them (appendix B's weight
    # points and appendix C's studies also vary LTN(acc+CF), but they are not Q2's variants)
    finding = q2_finding(variants_frame([r for r in e.records if r.config.key in keys]))
    return (
        dec.verdict,
        "; ".join(parts) + _shared_note(shown, ("ltn_acc_cf", *_BASELINES)) + (f". {finding}" if finding else ""),
        dec.basis,
    )


@claim_check("Q2.2")
def _q2_fairness_costs_accuracy(e: Evidence) -> tuple[str, str, Basis]:
    ds = e.have("ltn_acc_cf", "ltn_acc_cf_sg", "cnf")
    best = {d: "ltn_acc_cf" if e.perf(d, "ltn_acc_cf") >= e.perf(d, "ltn_acc_cf_sg") else "ltn_acc_cf_sg" for d in ds}
    res = {d: e.compare(d, best[d], "cnf", "perf", larger=(d == "compas")) for d in ds}
    counted = [d for d in ds if e.counts(d, (best[d], "cnf"), "perf")]
    dec = decide([res[d] for d in counted], labels=[dataset_name(d) for d in counted])
    shown = [d for d in ds if d not in counted]
    text = "; ".join(
        note(
            "q2_costs",
            dataset=dataset_name(d),
            ltn=e.perf_text(d, best[d]),
            cnf=e.perf_text(d, "cnf"),
            p=_p(r),
            uncounted="" if d in counted else _UNCOUNTED,
        )
        for d, r in res.items()
    )
    text += "".join(
        note(
            "q2_costs_shared",
            dataset=dataset_name(d),
            method=method_name(best[d]),
            base=dataset_name(SHARED_DATASETS[d]),
        )
        for d in shown
    )
    return (
        dec.verdict,
        text + _investigation(None if dec.verdict == HOLDS or not shown else shared_runs_finding(e.records)),
        dec.basis,
    )


@claim_check("Q2.3")
def _q2_gan_accurate_but_unfair(e: Evidence) -> tuple[str, str, Basis]:
    if "compas" not in e.have("ltn_acc_cf", "gan"):
        return PENDING, "", Basis()
    d = "compas"
    parts = ["perf", "cf_mse"]
    if e.measured(d, ("gan", "ltn_acc_cf"), "cf_mse_worst_subgroup"):  # not on a score without per-subgroup values
        parts.append("cf_mse_worst_subgroup")
    tests = [e.compare(d, "gan", "ltn_acc_cf", m, True) for m in parts]
    acc, cf = tests[:2]
    names = ["accuracy on COMPAS", "CF-MSE on COMPAS", "worst-subgroup CF-MSE on COMPAS"]
    dec = decide(tests, names=names[: len(tests)])
    worst_text = (
        f"worst {_fmt(e.worst[(d, 'gan')])} vs {_fmt(e.worst[(d, 'ltn_acc_cf')])} ({_p(tests[2])})"
        if len(tests) == 3
        else note("not_measured", what="the worst subgroup")
    )
    return (
        dec.verdict,
        (
            f"COMPAS accuracy GAN {_fmt(e.acc.get((d, 'gan')))} vs LTN {_fmt(e.acc.get((d, 'ltn_acc_cf')))} ({_p(acc)}), CF-MSE "
            f"{_fmt(e.cf[(d, 'gan')])} vs {_fmt(e.cf[(d, 'ltn_acc_cf')])} ({_p(cf)}), {worst_text}"
            + _flips(e, d, ("gan", "ltn_acc_cf"))
            + _investigation(None if dec.components[1] == HOLDS else flip_ruler_finding(e.records, d))
        ),
        dec.basis,
    )


@claim_check("Q2.4")
def _q2_dcevae_unfair(e: Evidence) -> tuple[str, str, Basis]:
    ds = e.have("dcevae", "cnf", "ltn_acc_cf")
    counted = [d for d in ds if e.counts(d, ("dcevae", "cnf", "ltn_acc_cf"), "cf_mse")]
    tests = {(d, b): e.compare(d, "dcevae", b, "cf_mse", True) for d in counted for b in ("cnf", "ltn_acc_cf")}
    dec = decide(list(tests.values()), labels=[dataset_name(d) for d, _ in tests])
    return (
        dec.verdict,
        "; ".join(
            f"{dataset_name(d)} CF-MSE {_fmt(e.cf[(d, 'dcevae')])} ({e.perf_text(d, 'dcevae')}; CNF {_fmt(e.cf[(d, 'cnf')])}"
            + (f" ({_p(tests[(d, 'cnf')])})" if d in counted else "")
            + f", LTN {_fmt(e.cf[(d, 'ltn_acc_cf')])}"
            + (f" ({_p(tests[(d, 'ltn_acc_cf')])})" if d in counted else "")
            + ")"
            + ("" if d in counted else _UNCOUNTED)
            for d in ds
        )
        + _shared_note([d for d in ds if d not in counted], ("dcevae", "cnf", "ltn_acc_cf")),
        dec.basis,
    )
