"""The checks of Q3 (knowledge extraction), registered with :func:`~.registry.claim_check` (:mod:`.claims`)."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from cffair.reporting import axiom_label, dataset_name, explanation_frame, method_name
from cffair.reporting._records import cke_candidates, find_record, run_label
from cffair.reporting._verdicts import FAILS, HOLDS, PENDING, VACUOUS, Basis, Evidence, decide, paired_series
from cffair.reporting._verdicts import fmt as _fmt
from cffair.reporting._verdicts import p_text as _p
from cffair_book.claim_tools import _investigation
from cffair_book.investigations import cke_finding
from cffair_book.registry import claim_check
from cffair_book.why import cke_steps_finding, cke_threshold_finding
from cffair_book.wording import note, value_range

if TYPE_CHECKING:  # reading records loads no store (a Record comes from as_records)
    from cffair.experiments import Record


# ---------------------------------------------------------------------------- Q3
def _cke_runs(e: Evidence, dataset: str, setting: str = "ltn_acc_cf_cke") -> list[Record]:
    """The protocol's CKE records of ``dataset`` that hold CKE results."""
    return [
        r
        for r in e.records
        if r.config.dataset == dataset
        and r.config.setting == setting
        and "cke" in r
        and not r.config.options
        and not r.config.tag
        and not r.config.repeat
    ]


def _added(rec: Record) -> list[str]:
    """The A5 axioms a CKE record added."""
    return [s["axiom"] for s in rec["cke"]["steps"] if int(s["step"]) > 0]


_COUNT = Basis("count over runs, no test")


def _runs(n: int) -> str:
    return f"{n} run{'s' if n != 1 else ''}"


@claim_check("Q3.1")
def _q3_compas_age_imbalance(e: Evidence) -> tuple[str, str, Basis]:
    runs = _cke_runs(e, "compas")
    if not runs:
        return PENDING, "", Basis()
    cands = cke_candidates(e.records)
    compas_c = (
        cands[(cands["dataset"] == "compas") & (cands["setting"] == "ltn_acc_cf_cke")] if not cands.empty else cands
    )
    found = compas_c[(compas_c["feature"] == "age") & (compas_c["group"] == "Non-Caucasian") & compas_c["candidate"]]
    below = found["imbalance_after"] < found["threshold"]
    holds = bool(len(found) > len(runs) / 2 and below.all())
    top = compas_c.sort_values("imbalance", ascending=False).head(1)
    finding = cke_finding(explanation_frame(e.records), e.records)
    return (
        (HOLDS if holds else FAILS),
        (
            f"(Non-Caucasian, age) above the threshold in {len(found)} of {len(runs)} runs"
            + (f", below it after A5 in {int(below.sum())}" if len(found) else "")
            + (
                f"; largest imbalance {top['group'].iloc[0]}/{top['feature'].iloc[0]} {_fmt(top['imbalance'].iloc[0])}"
                if len(top)
                else ""
            )
            + (f". Investigation: {finding['axiom']}" if finding else "")
        ),
        Basis(_COUNT.test, _runs(len(runs))),
    )


def _compas_cke_runs(e: Evidence) -> list[Record]:
    """COMPAS's CKE runs, each counted once: COMPAS(age)'s acc+CF+CKE runs are COMPAS's (no subgroups), its
    acc+CF_sg+CKE runs are its own (unless the rules count COMPAS(age) everywhere)."""
    out = []
    for d in ("compas", "compas_age"):
        for s in ("ltn_acc_cf_cke", "ltn_acc_cf_sg_cke"):
            if e.counts(d, (s,)):
                out += _cke_runs(e, d, s)
    return out


def _no_axiom_note(e: Evidence) -> str:
    runs = _compas_cke_runs(e)
    shared = not e.counts("compas_age", ("ltn_acc_cf_cke",))
    counted_once = shared and any(r.config.dataset == "compas_age" for r in _compas_cke_runs(e))
    return note("no_axiom", runs=len(runs), shared=note("no_axiom_shared") if counted_once else "")


def _compas_cke_datasets(e: Evidence) -> list[str]:
    return [
        d
        for d in e.have("ltn_acc_cf", "ltn_acc_cf_cke", "ltn_acc_cf_sg", "ltn_acc_cf_sg_cke")
        if d in ("compas", "compas_age")
    ]


def _any_axiom(e: Evidence) -> bool:
    return any(
        _added(r)
        for d in _compas_cke_datasets(e)
        for s in ("ltn_acc_cf_cke", "ltn_acc_cf_sg_cke")
        for r in _cke_runs(e, d, s)
    )


@claim_check("Q3.2")
def _q3_other_features_widen(e: Evidence) -> tuple[str, str, Basis]:
    finding = cke_finding(explanation_frame(e.records), e.records)
    if not _compas_cke_datasets(e):
        return PENDING, "", Basis()
    basis = Basis(_COUNT.test, _runs(len(_compas_cke_runs(e))))
    if _any_axiom(e):
        return (
            PENDING,
            note("axiom_unexplained"),
            basis,
        )
    return (
        VACUOUS,
        note(
            "never_discouraged",
            no_axiom=_no_axiom_note(e),
            investigation=note("investigation", finding=finding["others"]) if finding else "",
        ),
        basis,
    )


@claim_check("Q3.3")
def _q3_cke_lowers_cf_mse(e: Evidence) -> tuple[str, str, Basis]:
    return _cke_effect(e, "cf_mse", larger=False, what="cf")


@claim_check("Q3.4")
def _q3_cke_costs_accuracy(e: Evidence) -> tuple[str, str, Basis]:
    return _cke_effect(e, "accuracy", larger=False, what="accuracy")


def _cke_effect(e: Evidence, metric: str, larger: bool, what: str) -> tuple[str, str, Basis]:
    """Q3.3/Q3.4: the CKE setting against its parent, on the folds where an A5 axiom was added."""
    ds = _compas_cke_datasets(e)
    if not ds:
        return PENDING, "", Basis()
    finding = cke_finding(explanation_frame(e.records), e.records)
    if not _any_axiom(e):
        return (
            VACUOUS,
            _no_axiom_note(e)
            + ", so every CKE setting equals its parent"
            + (f". Investigation: {finding['axiom']}; {finding[what]}" if finding.get(what) else ""),
            Basis(_COUNT.test, _runs(len(_compas_cke_runs(e)))),
        )
    tests, labels, notes = [], [], []
    for d in ds:
        for parent in ("ltn_acc_cf", "ltn_acc_cf_sg"):
            if not e.counts(d, (parent, parent + "_cke"), metric):
                continue
            folds = [(0, r.config.fold) for r in _cke_runs(e, d, parent + "_cke") if _added(r)]
            x, y = e.folds(d, parent + "_cke", metric), e.folds(d, parent, metric)
            folds = [f for f in folds if f in x.index and f in y.index]
            if not folds:
                continue
            r = paired_series(x.loc[folds], y.loc[folds], larger=larger)
            tests.append(r)
            labels.append(dataset_name(d))
            notes.append(
                f"{dataset_name(d)} {method_name(parent)} {_fmt(y.loc[folds].mean())} → "
                f"{_fmt(x.loc[folds].mean())} on the {len(folds)} folds with an A5 axiom ({_p(r)})"
            )
    dec = decide(tests, labels=labels)
    return dec.verdict, "; ".join(notes), dec.basis


@claim_check("Q3.5")
def _q3_adult_cke_steps(e: Evidence) -> tuple[str, str, Basis]:
    rec = find_record(e.records, "adult", "ltn_acc_cf_cke", 0)
    if rec is None or "cke" not in rec:
        return PENDING, "", Basis()
    one = Basis("one run, no test", "1 run")
    steps = rec["cke"]["steps"]
    if len(steps) < 3:
        return FAILS, note("cke_too_few", count=len(steps) - 1), one
    accs = [float(s["accuracy"]) for s in steps]
    cfs = [float(s["cf_mse"]) for s in steps]
    ws = [float(s["cf_mse_worst_subgroup"]) for s in steps]
    stable = max(accs) - min(accs) <= 0.02
    cf_better = min(cfs[1:]) < cfs[0]
    worse_after_first = all(ws[k] > ws[k - 1] for k in range(2, len(ws)))
    holds = stable and cf_better and worse_after_first
    return (
        (HOLDS if holds else FAILS),
        note(
            "cke_steps",
            low=min(accs),
            high=max(accs),
            cf_mse=" → ".join(_fmt(v) for v in cfs),
            worst=" → ".join(_fmt(v) for v in ws),
            axioms=", ".join(axiom_label(s["axiom"]) for s in steps[1:]),
            investigation=_investigation(None if holds else cke_steps_finding(e.records)),
        ),
        one,
    )


_LAW_CKE = ("ltn_acc_cf_cke", "ltn_acc_cf_sg_cke")


def _law_run_text(r: Record) -> str:
    """One Lawschool CKE run for Q3.6's note: what it detected and what the A5 axiom did."""
    c = r["cke"]
    name = run_label(r.config)
    t = float(c["threshold"])
    if not c["candidates"]:
        largest = max((abs(float(i["imbalance"])) for i in c.get("imbalances_before", [])), default=math.nan)
        return f"{name}: nothing detected (largest imbalance {_fmt(largest)} < {t:g})"
    top = max(c["candidates"], key=lambda i: abs(float(i["imbalance"])))
    steps = c["steps"]
    added = _added(r)
    change = (
        f"; {len(added)} A5 axiom{'s' if len(added) != 1 else ''} added, MSE {_fmt(float(steps[0]['mse']))} → "
        f"{_fmt(float(steps[-1]['mse']))}"
        if added and "mse" in steps[0]
        else ""
    )
    return f"{name}: {top['feature']} detected for {top['group']} at {_fmt(abs(float(top['imbalance'])))} (threshold {t:g}){change}"


def _law_setting_text(runs: list[Record]) -> str:
    """One fairness setting's Lawschool CKE runs for Q3.6's note: one run in full, several summarised.

    Several runs (folds, partitions, seeds) are summed up in one clause, so that the note stays a
    sentence on a phone: how many detected, which explanation, the imbalances' range, what the
    A5 axioms did to the MSE, and the largest imbalance of the runs that detected nothing.
    """
    if len(runs) == 1:
        return _law_run_text(runs[0])
    found = [r for r in runs if r["cke"]["candidates"]]
    text = f"{method_name(runs[0].config.setting)}, {len(runs)} runs: {len(found)} detected"
    if found:
        tops = [max(r["cke"]["candidates"], key=lambda i: abs(float(i["imbalance"]))) for r in found]
        what: dict[str, int] = {}
        for top in tops:
            key = f"{top['feature']} for {top['group']}"
            what[key] = what.get(key, 0) + 1
        thresholds = sorted({float(r["cke"]["threshold"]) for r in found})
        text += (
            f" ({', '.join(f'{k} in {n}' for k, n in what.items())}; imbalance "
            f"{value_range([abs(float(t['imbalance'])) for t in tops], _fmt)}, threshold {'/'.join(f'{t:g}' for t in thresholds)})"
        )
        moved = [
            float(r["cke"]["steps"][-1]["mse"]) - float(r["cke"]["steps"][0]["mse"])
            for r in found
            if _added(r) and "mse" in r["cke"]["steps"][0]
        ]
        if moved:
            text += f"; A5 added in {len(moved)}, MSE change {value_range(moved, '+.3f', ' to ')}"
    quiet = [r for r in runs if not r["cke"]["candidates"]]
    largest = [
        max((abs(float(i["imbalance"])) for i in r["cke"].get("imbalances_before", [])), default=math.nan)
        for r in quiet
    ]
    largest = [v for v in largest if not math.isnan(v)]
    if not found:
        t = "/".join(f"{v:g}" for v in sorted({float(r["cke"]["threshold"]) for r in runs}))
        return text.replace(": 0 detected", ": nothing detected") + (
            f" (largest imbalance {_fmt(max(largest))} < {t})" if largest else ""
        )
    if largest:
        text += f"; the other {len(quiet)}: largest imbalance {_fmt(max(largest))}"
    return text


@claim_check("Q3.6")
def _q3_lawschool_nothing_found(e: Evidence) -> tuple[str, str, Basis]:
    law = sorted(
        (r for s in _LAW_CKE for r in _cke_runs(e, "lawschool", s)),
        key=lambda r: (r.config.fold, r.config.setting),
    )
    if not law:
        return PENDING, "", Basis()
    found = [r for r in law if r["cke"]["candidates"]]
    settings = sorted({r.config.setting for r in law})
    per_setting = [[r for r in law if r.config.setting == s] for s in _LAW_CKE]
    return (
        (HOLDS if not found else FAILS),
        (
            f"detections in {len(found)} of {len(law)} runs "
            f"({'; '.join(_law_setting_text(runs) for runs in per_setting if runs)})"
            + (
                ""
                if len(settings) == len(_LAW_CKE)
                else "; only " + ", ".join(method_name(s) for s in settings) + " has records"
            )
            + "; the first half of the claim, after accuracy-only training, is not run"
            + _investigation(cke_threshold_finding(e.records) if found else None)
        ),
        Basis(_COUNT.test, _runs(len(law))),
    )
