"""The paper's qualitative claims, checked on our records.

Each claim is one small check function, registered with :func:`~.registry.claim_check` together
with the claim's key, its sentence, where the paper makes it, the book page that shows the
evidence and the rule that decides its verdict. A check reads the :class:`Evidence` (the
records, their means and per-fold values, over every repetition of cross-validation) and
returns ``(verdict, note, basis)``: one of the five verdicts of :mod:`.verdicts` (or ``pending``
when its records are missing), the numbers behind it, and what it rests on (the test and the
paired folds). Comparisons of methods are decided by :func:`~cffair.reporting.verdicts.decide`:
the corrected resampled t-test per comparison, Holm over the claim's comparisons; COMPAS(age)
counts only where its subgroups make it differ from COMPAS (:meth:`Evidence.counts`). The table,
the tally, :func:`evaluate_claims` and the robustness table are in :mod:`.registry` (re-exported here).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from cffair.registry import paper_baselines
from cffair.reporting.names import DATASET_ORDER, Q1_SETTINGS, dataset_name, method_name, performance_metric
from cffair.reporting.paper import TABLE4_PAPER_SAT
from cffair.reporting.investigation_frames import explanation_frame, fine_weight_frame, query_frame, variants_frame
from cffair.reporting.records import (cke_candidates, find_record, records_frame, select_records, subgroup_frame,
                                      weight_grid_frame)
from cffair.reporting.stats import holm
from cffair.reporting.chapter_tables import axiom_label
from cffair.reporting.verdicts import (ALPHA, BY_CONSTRUCTION, FAILS, HOLDS, INCONCLUSIVE, MIN_TREND_POINTS, PENDING,
                                       SHARED_DATASETS, VACUOUS, Basis, Evidence, Paired, combine, current_rules,
                                       decide, paired_series, spearman_exact)
from cffair.reporting.verdicts import fmt as _fmt
from cffair.reporting.verdicts import p_text as _p
from cffair_book.investigations import cke_finding, q2_finding, query_finding
from cffair_book.registry import (CLAIM_CHECKS, ROBUSTNESS_RULES, Claim, ClaimCheck, ClaimsTally, claim_check,
                                  claim_status, claims_table, claims_tally, evaluate_claims, robustness_frame,
                                  robustness_table)
from cffair_book.wording import note
from cffair_book.why import (cke_steps_finding, cke_threshold_finding, flip_ruler_finding, frontier_finding,
                             gan_twins_finding, shared_runs_finding, subgroup_drop_finding)

__all__ = ["CLAIM_CHECKS", "ROBUSTNESS_RULES", "Claim", "ClaimCheck", "ClaimsTally", "claim_check", "claim_status", "claims_table",
           "claims_tally", "evaluate_claims", "robustness_frame", "robustness_table"]


def _flips(e: Evidence, d: str, methods: Sequence[str]) -> str:
    """``" (flip rate 2.9 % vs 7.7 %)"``: the methods' flip rates on ``d`` when every one has one."""
    if not all((d, m) in e.flips for m in methods):
        return ""
    return " (flip rate " + " vs ".join(f"{100 * e.flips[(d, m)]:.1f} %" for m in methods) + ")"


# ---------------------------------------------------------------------------- comparisons
_UNCOUNTED = note("uncounted")


def _shared_note(shown: Iterable[str], methods: Sequence[str]) -> str:
    """``"; COMPAS(age) is shown, not counted: LTN(acc) and LTN(acc+CF) run the same there as on COMPAS"``."""
    shown = list(dict.fromkeys(shown))
    if not shown:
        return ""
    from cffair.reporting.names import method_name

    names = [method_name(m.split("@")[0]) + (" on the GAN's twins" if m.endswith("@gan") else "") for m in dict.fromkeys(methods)]
    who = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
    return "; " + "; ".join(note("shared", dataset=dataset_name(d), who=who, base=dataset_name(SHARED_DATASETS[d]))
                            for d in shown)


def _per_dataset(e: Evidence, datasets: Iterable[str], a: str, b: str, metric: str, larger: bool | Mapping[str, bool],
                 text: Callable[[str, Paired], str]) -> tuple[str, str, Basis]:
    """Compare ``a`` with ``b`` on each dataset (fold-paired) and decide on the datasets that count:
    ``(verdict, note, basis)``. ``larger`` may differ per dataset (a mapping)."""
    results = {d: e.compare(d, a, b, metric, larger[d] if isinstance(larger, Mapping) else larger) for d in datasets}
    counted = [d for d in results if e.counts(d, (a, b), metric)]
    dec = decide([results[d] for d in counted], labels=[dataset_name(d) for d in counted])
    note = "; ".join(text(d, r) + ("" if d in counted else _UNCOUNTED) for d, r in results.items())
    return dec.verdict, note + _shared_note([d for d in results if d not in counted], (a, b)), dec.basis


def _change(e: Evidence, values: Mapping[tuple[str, str], float], before: str, after: str) -> Callable[[str, Paired], str]:
    """A note part: ``"Adult 0.160 → 0.065 (p < 0.001, sign-flip 0.062)"``."""
    return lambda d, r: f"{dataset_name(d)} {_fmt(values[(d, before)])} → {_fmt(values[(d, after)])} ({_p(r)})"


# ---------------------------------------------------------------------------- Q1
@claim_check("Q1.1")
def _q1_cf_axiom_lowers_cf_mse(e: Evidence) -> tuple[str, str, Basis]:
    ds = e.have("ltn_acc", "ltn_acc_cf")
    verdict, note, basis = _per_dataset(e, ds, "ltn_acc_cf", "ltn_acc", "cf_mse", False, _change(e, e.cf, "ltn_acc", "ltn_acc_cf"))
    return verdict, note + "".join(f"; {dataset_name(d)}{_flips(e, d, ('ltn_acc', 'ltn_acc_cf'))}" for d in ds
                                   if _flips(e, d, ("ltn_acc", "ltn_acc_cf")) and e.counts(d, ("ltn_acc", "ltn_acc_cf"))), basis


@claim_check("Q1.2")
def _q1_subgroup_axioms_lower_cf_mse(e: Evidence) -> tuple[str, str, Basis]:
    ds = e.have("ltn_acc_cf", "ltn_acc_cf_sg")
    return _per_dataset(e, ds, "ltn_acc_cf_sg", "ltn_acc_cf", "cf_mse", False, _change(e, e.cf, "ltn_acc_cf", "ltn_acc_cf_sg"))


@claim_check("Q1.3")
def _q1_subgroup_axioms_lower_worst(e: Evidence) -> tuple[str, str, Basis]:
    ds = [d for d in e.have("ltn_acc_cf", "ltn_acc_cf_sg") if d in ("compas", "lawschool")]
    return _per_dataset(e, ds, "ltn_acc_cf_sg", "ltn_acc_cf", "cf_mse_worst_subgroup", False,
                        _change(e, e.worst, "ltn_acc_cf", "ltn_acc_cf_sg"))


@claim_check("Q1.4")
def _q1_subgroup_axioms_raise_accuracy(e: Evidence) -> tuple[str, str, Basis]:
    ds = [d for d in e.have("ltn_acc_cf", "ltn_acc_cf_sg") if d in ("adult", "compas", "compas_age")]
    verdict, note, basis = _per_dataset(e, ds, "ltn_acc_cf_sg", "ltn_acc_cf", "perf", True,
                                        lambda d, r: f"{dataset_name(d)} {e.perf_text(d, 'ltn_acc_cf')} → "
                                                     f"{e.perf_text(d, 'ltn_acc_cf_sg')} ({_p(r)})")
    return verdict, note + _investigation(None if verdict == HOLDS else frontier_finding(e.records, ds)), basis


def _subgroup_means(e: Evidence, dataset: str) -> pd.DataFrame | None:
    """Mean CF-MSE per subgroup (rows) and Q1 setting (columns) on ``dataset``; None without all three settings."""
    sg = subgroup_frame(e.records, Q1_SETTINGS, dataset)
    if sg.empty or not set(Q1_SETTINGS) <= set(sg["method"]):
        return None
    return sg.groupby(["subgroup", "method"])["cf_mse"].mean().unstack("method").dropna()


def _ranking_basis(e: Evidence, dataset: str) -> Basis:
    n = int(subgroup_frame(e.records, Q1_SETTINGS, dataset)["fold"].nunique())
    return Basis("ranking of fold means, no test", f"{n} fold{'s' if n != 1 else ''}, means")


@claim_check("Q1.5")
def _q1_adult_white_males(e: Evidence) -> tuple[str, str, Basis]:
    m = _subgroup_means(e, "adult")
    if m is None:
        return PENDING, "", Basis()
    drop = (m["ltn_acc"] - m["ltn_acc_cf"]).sort_values(ascending=False)
    others = m.drop(index="Male, White", errors="ignore")
    better = int((others["ltn_acc_cf_sg"] < others["ltn_acc_cf"]).sum())
    holds = bool(len(drop) and drop.index[0] == "Male, White" and better > len(others) / 2)
    return (HOLDS if holds else FAILS), (f"largest drop acc → acc+CF: {drop.index[0]} "
                                         f"({_fmt(drop.iloc[0])}; white males {_fmt(drop.get('Male, White'))}); "
                                         f"acc+CF_sg below acc+CF in {better} of {len(others)} other subgroups"
                                         + _investigation(None if holds else subgroup_drop_finding(e.records))), _ranking_basis(e, "adult")


@claim_check("Q1.6")
def _q1_lawschool_every_subgroup(e: Evidence) -> tuple[str, str, Basis]:
    m = _subgroup_means(e, "lawschool")
    if m is None:
        return PENDING, "", Basis()
    improved = int((m["ltn_acc_cf"] < m["ltn_acc"]).sum())
    spread = m.max() - m.min()
    holds = bool(improved == len(m) and spread["ltn_acc_cf_sg"] < spread["ltn_acc_cf"])
    return (HOLDS if holds else FAILS), (f"acc+CF below acc in {improved} of {len(m)} subgroups; spread "
                                         f"(max − min) of subgroup CF-MSE: acc+CF {_fmt(spread['ltn_acc_cf'])}, "
                                         f"acc+CF_sg {_fmt(spread['ltn_acc_cf_sg'])}"), _ranking_basis(e, "lawschool")


# ---------------------------------------------------------------------------- Q2
_BASELINES = paper_baselines()


@claim_check("Q2.1")
def _q2_ltn_fairer_than_baselines(e: Evidence) -> tuple[str, str, Basis]:
    ds = e.have("ltn_acc_cf", *_BASELINES)
    tests, labels, shown = [], [], []
    for d in ds:
        if not e.counts(d, ("ltn_acc_cf", *_BASELINES), "cf_mse"):
            shown.append(d)
            continue
        for b in _BASELINES:
            tests.append(e.compare(d, "ltn_acc_cf", b, "cf_mse", False))
            labels.append(dataset_name(d))
    dec = decide(tests, labels=labels)
    comp = iter(zip(tests, dec.components))
    parts = []
    for d in ds:
        if d in shown:
            parts.append(f"{dataset_name(d)} LTN {_fmt(e.cf[(d, 'ltn_acc_cf')])} vs " + "/".join(_fmt(e.cf[(d, b)]) for b in _BASELINES)
                         + _UNCOUNTED)
            continue
        res = [next(comp) for _ in _BASELINES]
        parts.append(f"{dataset_name(d)} LTN {_fmt(e.cf[(d, 'ltn_acc_cf')])} vs "
                     + "/".join(f"{method_name(b)} {_fmt(e.cf[(d, b)])} ({_p(t)}{'' if v == INCONCLUSIVE else ', ' + _side(v)})"
                                for b, (t, v) in zip(_BASELINES, res))
                     + _flips(e, d, ("ltn_acc_cf", *_BASELINES)))
    # Q2's variants (the Q2 page's twelve); appendix B's accuracy-weighted grid points are not Q2 variants
    finding = q2_finding(variants_frame([r for r in e.records if float((r["config"].get("weights") or {}).get("acc", 1.0)) == 1.0]))
    return dec.verdict, "; ".join(parts) + _shared_note(shown, ("ltn_acc_cf", *_BASELINES)) + (f". {finding}" if finding else ""), dec.basis


def _side(v: str) -> str:
    """A rejected comparison's side, for a note: ``"as claimed"`` or ``"against the claim"``."""
    return "as claimed" if v == HOLDS else "against the claim"


@claim_check("Q2.2")
def _q2_fairness_costs_accuracy(e: Evidence) -> tuple[str, str, Basis]:
    ds = e.have("ltn_acc_cf", "ltn_acc_cf_sg", "cnf")
    best = {d: "ltn_acc_cf" if e.perf(d, "ltn_acc_cf") >= e.perf(d, "ltn_acc_cf_sg") else "ltn_acc_cf_sg" for d in ds}
    res = {d: e.compare(d, best[d], "cnf", "perf", larger=(d == "compas")) for d in ds}
    counted = [d for d in ds if e.counts(d, (best[d], "cnf"), "perf")]
    dec = decide([res[d] for d in counted], labels=[dataset_name(d) for d in counted])
    shown = [d for d in ds if d not in counted]
    note = "; ".join(f"{dataset_name(d)} best fair LTN {e.perf_text(d, best[d])} vs CNF {e.perf_text(d, 'cnf')} ({_p(r)})"
                     + ("" if d in counted else _UNCOUNTED) for d, r in res.items())
    note += "".join(f"; {dataset_name(d)} is shown, not counted: its best fair LTN, {method_name(best[d])}, and CNF are the same "
                    f"runs as on {dataset_name(SHARED_DATASETS[d])}, so it would test {dataset_name(SHARED_DATASETS[d])}'s gap "
                    "again, against the opposite hypothesis" for d in shown)
    return dec.verdict, note + _investigation(None if dec.verdict == HOLDS or not shown else shared_runs_finding(e.records)), dec.basis


@claim_check("Q2.3")
def _q2_gan_accurate_but_unfair(e: Evidence) -> tuple[str, str, Basis]:
    if "compas" not in e.have("ltn_acc_cf", "gan"):
        return PENDING, "", Basis()
    d = "compas"
    acc, cf, worst = (e.compare(d, "gan", "ltn_acc_cf", m, True) for m in ("perf", "cf_mse", "cf_mse_worst_subgroup"))
    dec = decide([acc, cf, worst])
    return dec.verdict, (
        f"COMPAS accuracy GAN {_fmt(e.acc.get((d, 'gan')))} vs LTN {_fmt(e.acc.get((d, 'ltn_acc_cf')))} ({_p(acc)}), CF-MSE "
        f"{_fmt(e.cf[(d, 'gan')])} vs {_fmt(e.cf[(d, 'ltn_acc_cf')])} ({_p(cf)}), worst {_fmt(e.worst[(d, 'gan')])} vs "
        f"{_fmt(e.worst[(d, 'ltn_acc_cf')])} ({_p(worst)})" + _flips(e, d, ("gan", "ltn_acc_cf"))
        + _investigation(None if dec.components[1] == HOLDS else flip_ruler_finding(e.records, d))), dec.basis


@claim_check("Q2.4")
def _q2_dcevae_unfair(e: Evidence) -> tuple[str, str, Basis]:
    ds = e.have("dcevae", "cnf", "ltn_acc_cf")
    counted = [d for d in ds if e.counts(d, ("dcevae", "cnf", "ltn_acc_cf"), "cf_mse")]
    tests = {(d, b): e.compare(d, "dcevae", b, "cf_mse", True) for d in counted for b in ("cnf", "ltn_acc_cf")}
    dec = decide(list(tests.values()), labels=[dataset_name(d) for d, _ in tests])
    return dec.verdict, "; ".join(
        f"{dataset_name(d)} CF-MSE {_fmt(e.cf[(d, 'dcevae')])} ({e.perf_text(d, 'dcevae')}; CNF {_fmt(e.cf[(d, 'cnf')])}"
        + (f" ({_p(tests[(d, 'cnf')])})" if d in counted else "") + f", LTN {_fmt(e.cf[(d, 'ltn_acc_cf')])}"
        + (f" ({_p(tests[(d, 'ltn_acc_cf')])})" if d in counted else "") + ")" + ("" if d in counted else _UNCOUNTED) for d in ds
    ) + _shared_note([d for d in ds if d not in counted], ("dcevae", "cnf", "ltn_acc_cf")), dec.basis


# ---------------------------------------------------------------------------- Q3
def _investigation(finding: str | None) -> str:  # for a claim that failed; nothing without a finding
    return note("investigation", finding=finding) if finding else ""


def _cke_runs(e: Evidence, dataset: str, setting: str = "ltn_acc_cf_cke") -> list[Mapping[str, Any]]:
    """The protocol's CKE records of ``dataset`` that hold CKE results."""
    return [r for r in e.records if r["config"]["dataset"] == dataset and r["config"]["setting"] == setting and "cke" in r
            and not r["config"].get("options") and not r["config"].get("tag") and not r["config"].get("repeat")]


def _added(rec: Mapping[str, Any]) -> list[str]:
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
    compas_c = cands[(cands["dataset"] == "compas") & (cands["setting"] == "ltn_acc_cf_cke")] if not cands.empty else cands
    found = compas_c[(compas_c["feature"] == "age") & (compas_c["group"] == "Non-Caucasian") & compas_c["candidate"]]
    below = found["imbalance_after"] < found["threshold"]
    holds = bool(len(found) > len(runs) / 2 and below.all())
    top = compas_c.sort_values("imbalance", ascending=False).head(1)
    finding = cke_finding(explanation_frame(e.records), e.records)
    return (HOLDS if holds else FAILS), (
        f"(Non-Caucasian, age) above the threshold in {len(found)} of {len(runs)} runs"
        + (f", below it after A5 in {int(below.sum())}" if len(found) else "")
        + (f"; largest imbalance {top['group'].iloc[0]}/{top['feature'].iloc[0]} {_fmt(top['imbalance'].iloc[0])}" if len(top) else "")
        + (f". Investigation: {finding['axiom']}" if finding else "")), Basis(_COUNT.test, _runs(len(runs)))


def _compas_cke_runs(e: Evidence) -> list[Mapping[str, Any]]:
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
    return (f"no A5 axiom was added in any of the {len(runs)} distinct COMPAS CKE runs (no imbalance reached the threshold 0.1"
            + ("; COMPAS(age)'s acc+CF+CKE runs are COMPAS's and count once" if shared and any(
                r["config"]["dataset"] == "compas_age" for r in _compas_cke_runs(e)) else "") + ")")


def _compas_cke_datasets(e: Evidence) -> list[str]:
    return [d for d in e.have("ltn_acc_cf", "ltn_acc_cf_cke", "ltn_acc_cf_sg", "ltn_acc_cf_sg_cke") if d in ("compas", "compas_age")]


def _any_axiom(e: Evidence) -> bool:
    return any(_added(r) for d in _compas_cke_datasets(e) for s in ("ltn_acc_cf_cke", "ltn_acc_cf_sg_cke") for r in _cke_runs(e, d, s))


@claim_check("Q3.2")
def _q3_other_features_widen(e: Evidence) -> tuple[str, str, Basis]:
    finding = cke_finding(explanation_frame(e.records), e.records)
    if not _compas_cke_datasets(e):
        return PENDING, "", Basis()
    basis = Basis(_COUNT.test, _runs(len(_compas_cke_runs(e))))
    if _any_axiom(e):
        return PENDING, "an A5 axiom was added, but the protocol's CKE records explain immutable features only; see the investigation", basis
    return VACUOUS, _no_axiom_note(e) + "; age was never discouraged" + (f". Investigation: {finding['others']}" if finding else ""), basis


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
        return VACUOUS, _no_axiom_note(e) + ", so every CKE setting equals its parent" + (
            f". Investigation: {finding['axiom']}; {finding[what]}" if finding.get(what) else ""), Basis(
            _COUNT.test, _runs(len(_compas_cke_runs(e))))
    tests, labels, notes = [], [], []
    for d in ds:
        for parent in ("ltn_acc_cf", "ltn_acc_cf_sg"):
            if not e.counts(d, (parent, parent + "_cke"), metric):
                continue
            folds = [(0, int(r["config"]["fold"])) for r in _cke_runs(e, d, parent + "_cke") if _added(r)]
            x, y = e.folds(d, parent + "_cke", metric), e.folds(d, parent, metric)
            folds = [f for f in folds if f in x.index and f in y.index]
            if not folds:
                continue
            r = paired_series(x.loc[folds], y.loc[folds], larger=larger)
            tests.append(r)
            labels.append(dataset_name(d))
            notes.append(f"{dataset_name(d)} {parent.removeprefix('ltn_')} {_fmt(y.loc[folds].mean())} → "
                         f"{_fmt(x.loc[folds].mean())} on the {len(folds)} folds with an A5 axiom ({_p(r)})")
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
        return FAILS, f"only {len(steps) - 1} CKE axiom(s) extracted on Adult fold 0 (the paper adds 3)", one
    accs = [float(s["accuracy"]) for s in steps]
    cfs = [float(s["cf_mse"]) for s in steps]
    ws = [float(s["cf_mse_worst_subgroup"]) for s in steps]
    stable = max(accs) - min(accs) <= 0.02
    cf_better = min(cfs[1:]) < cfs[0]
    worse_after_first = all(ws[k] > ws[k - 1] for k in range(2, len(ws)))
    holds = stable and cf_better and worse_after_first
    return (HOLDS if holds else FAILS), (
        f"accuracy {min(accs):.3f}–{max(accs):.3f}; CF-MSE {' → '.join(_fmt(v) for v in cfs)}; "
        f"worst subgroup {' → '.join(_fmt(v) for v in ws)}; axioms: " + ", ".join(axiom_label(s['axiom']) for s in steps[1:])
        + _investigation(None if holds else cke_steps_finding(e.records))), one


_LAW_CKE = ("ltn_acc_cf_cke", "ltn_acc_cf_sg_cke")


def _law_run_text(r: Mapping[str, Any]) -> str:
    """One Lawschool CKE run for Q3.6's note: what it detected and what the A5 axiom did."""
    c, cfg = r["cke"], r["config"]
    name = f"{cfg['setting'].removeprefix('ltn_').removesuffix('_cke')} fold {cfg['fold']}"
    t = float(c["threshold"])
    if not c["candidates"]:
        largest = max((abs(float(i["imbalance"])) for i in c.get("imbalances_before", [])), default=math.nan)
        return f"{name}: nothing detected (largest imbalance {_fmt(largest)} < {t:g})"
    top = max(c["candidates"], key=lambda i: abs(float(i["imbalance"])))
    steps = c["steps"]
    added = _added(r)
    change = (f"; {len(added)} A5 axiom{'s' if len(added) != 1 else ''} added, MSE {_fmt(float(steps[0]['mse']))} → "
              f"{_fmt(float(steps[-1]['mse']))}" if added and "mse" in steps[0] else "")
    return f"{name}: {top['feature']} detected for {top['group']} at {_fmt(abs(float(top['imbalance'])))} (threshold {t:g}){change}"


@claim_check("Q3.6")
def _q3_lawschool_nothing_found(e: Evidence) -> tuple[str, str, Basis]:
    law = sorted((r for s in _LAW_CKE for r in _cke_runs(e, "lawschool", s)),
                 key=lambda r: (int(r["config"]["fold"]), r["config"]["setting"]))
    if not law:
        return PENDING, "", Basis()
    found = [r for r in law if r["cke"]["candidates"]]
    settings = sorted({r["config"]["setting"] for r in law})
    return (HOLDS if not found else FAILS), (
        f"detections in {len(found)} of {len(law)} runs ({', '.join(_law_run_text(r) for r in law)})"
        + ("" if len(settings) == len(_LAW_CKE) else "; only " + ", ".join(s.removeprefix("ltn_") for s in settings) + " has records")
        + "; the first half of the claim, after accuracy-only training, is not run"
        + _investigation(cke_threshold_finding(e.records) if found else None)), Basis(_COUNT.test, _runs(len(law)))


# ---------------------------------------------------------------------------- Q4
@claim_check("Q4.1")
def _q4_existence_query(e: Evidence) -> tuple[str, str, Basis]:
    q = query_frame(e.records)
    q = q[q["dataset"] == "adult"]
    if q.empty:
        return PENDING, "", Basis()
    drawn = q[q["rule"] == "random"]
    if drawn.empty:
        first = q[q["fold"] == q["fold"].min()]
        return BY_CONSTRUCTION, (f"x̂ is the negatively predicted person whose nearest differently decided neighbour is closest, "
                                 f"so the query finds a witness whenever anyone lies within β (fold {int(first['fold'].iloc[0])}): "
                                 + "; ".join(f"{r.subgroup}: sat {_fmt(r.sat)} (paper {_fmt(TABLE4_PAPER_SAT.get(r.subgroup, np.nan))})"
                                             for r in first.itertuples())), Basis("by construction, no test", "1 fold")
    found = int(drawn["found"].sum())
    return (HOLDS if found == len(TABLE4_PAPER_SAT) and len(drawn) == len(TABLE4_PAPER_SAT) else FAILS), (
        "x̂ drawn at random among each subgroup's negatively predicted people (§7.4). "
        + query_finding(q)), Basis("count over subgroups, no test", f"{len(drawn)} subgroups, 1 fold")


# ---------------------------------------------------------------------------- appendices
def _own_cf_folds(e: Evidence, d: str, m: str, metric: str = "cf_mse") -> pd.Series:
    """Per-fold ``metric`` on the GAN's own counterfactual test pairs, indexed by ``(repeat, fold)``."""
    own = select_records(records_frame(e.records, own_counterfactuals=True), repeats=True)
    rows = own[(own["dataset"] == d) & (own["method"] == m)]
    index = pd.MultiIndex.from_arrays([rows["repeat"].astype(int), rows["fold"].astype(int)], names=["repeat", "fold"])
    return pd.Series(rows[metric].astype(float).to_numpy(), index=index)


@claim_check("A.1")
def _a_ltn_fairer_on_gan_counterfactuals(e: Evidence) -> tuple[str, str, Basis]:
    res, shown = {}, []
    for d in DATASET_ORDER:
        x, y = _own_cf_folds(e, d, "ltn_acc_cf@gan"), _own_cf_folds(e, d, "gan")
        if not set(x.index) & set(y.index):
            continue
        res[d] = (paired_series(x, y, larger=False), x, y)
        if not e.counts(d, ("ltn_acc_cf@gan", "gan"), "cf_mse"):
            shown.append(d)
    counted = [d for d in res if d not in shown]
    dec = decide([res[d][0] for d in counted], labels=[dataset_name(d) for d in counted])
    notes = [f"{dataset_name(d)} LTN {_fmt(x.mean())} vs GAN {_fmt(y.mean())} ({_p(r)})" + ("" if d in counted else _UNCOUNTED)
             for d, (r, x, y) in res.items()]
    return dec.verdict, "; ".join(notes) + _shared_note(shown, ("ltn_acc_cf@gan", "gan")) + _investigation(
        None if dec.verdict == HOLDS else gan_twins_finding(e.records)["flips"]), dec.basis


@claim_check("A.2")
def _a_accuracy_on_gan_counterfactuals(e: Evidence) -> tuple[str, str, Basis]:
    ds = [d for d in DATASET_ORDER if (d, "gan") in e.cf and (d, "ltn_acc_cf@gan") in e.cf]
    verdict, note, basis = _per_dataset(e, ds, "ltn_acc_cf@gan", "gan", "perf", {d: not d.startswith("compas") for d in ds},
                                        lambda d, r: f"{dataset_name(d)} LTN {e.perf_text(d, 'ltn_acc_cf@gan')} vs GAN "
                                                     f"{e.perf_text(d, 'gan')} ({_p(r)})")
    return verdict, note + _investigation(None if verdict == HOLDS else gan_twins_finding(e.records)["accuracy"]), basis


@claim_check("B.1")
def _b_weight_trend(e: Evidence) -> tuple[str, str, Basis]:
    fine, coarse = fine_weight_frame(e.records), weight_grid_frame(e.records)
    if fine.empty and (coarse.empty or coarse["log2_ratio"].nunique() <= 2):
        return PENDING, "", Basis()
    trends: dict[str, tuple[Any, Any, int]] = {}
    parts, shown = [], []
    for d in DATASET_ORDER:
        gf, gc = fine[fine["dataset"] == d], coarse[coarse["dataset"] == d]  # the grid with more weight points
        g = gf if gf["log2_ratio"].nunique() >= gc["log2_ratio"].nunique() and not gf.empty else gc
        if g.empty:
            continue
        if not e.counts(d, ("ltn_acc_cf",), "perf"):
            shown.append(d)
        perf = performance_metric(d)
        m = g.groupby("log2_ratio")[[perf, "cf_mse"]].mean()
        sign = 1 if perf == "accuracy" else -1
        t_perf = spearman_exact(m.index.to_numpy(), sign * m[perf].to_numpy())
        t_cf = spearman_exact(m.index.to_numpy(), m["cf_mse"].to_numpy())
        trends[d] = (t_perf, t_cf, int(g["fold"].nunique()))
        parts.append(f"{dataset_name(d)} ({len(m)} weight points{', too few to test' if len(m) < MIN_TREND_POINTS else ''}) "
                     f"ρ(performance) {t_perf.rho:+.2f} ({_p(t_perf.p)}), ρ(CF-MSE) {t_cf.rho:+.2f} ({_p(t_cf.p)})"
                     + (_UNCOUNTED if d in shown else ""))
    datasets = [d for d in trends if d not in shown]
    tested = [d for d in datasets if trends[d][0].n >= MIN_TREND_POINTS]
    ps = [t.p for d in tested for t in trends[d][:2]]
    rejected = iter(holm(ps, ALPHA) if current_rules().holm else [p < ALPHA for p in ps])
    per: dict[str, str] = {}
    for d in tested:
        sides = []
        for t in trends[d][:2]:
            sides.append((HOLDS if t.rho > 0 else FAILS) if next(rejected) and not math.isnan(t.rho) else INCONCLUSIVE)
        per[d] = combine(sides)
    n, shows, against = len(datasets), sum(v == HOLDS for v in per.values()), sum(v == FAILS for v in per.values())
    verdict = HOLDS if shows > n / 2 else FAILS if n and against >= n / 2 else INCONCLUSIVE
    words = {HOLDS: "both trends", FAILS: "against", INCONCLUSIVE: "undecided"}
    decided = ", ".join(f"{dataset_name(d)} {words[v]}" for d, v in per.items()) or "none"
    return verdict, (f"both trends on {shows} of {n} datasets, against them on {against} (tested: {decided}); "
                     + "; ".join(parts) + "".join(f"; {dataset_name(d)} is shown, not counted: its weight-grid runs are "
                                                 f"{dataset_name(SHARED_DATASETS[d])}'s" for d in shown)), Basis(
        "exact Spearman, Holm over " + str(len(ps)) if len(ps) > 1 else "exact Spearman",
        "; ".join(f"{trends[d][0].n} points on {dataset_name(d)}" for d in datasets))
