"""The checks of Q1 (the CF and subgroup axioms), registered with :func:`~.registry.claim_check`
(:mod:`.claims`)."""

from __future__ import annotations

import pandas as pd

from cffair.reporting import Q1_SETTINGS, dataset_name, subgroup_frame
from cffair.reporting._verdicts import FAILS, HOLDS, PENDING, Basis, Evidence
from cffair.reporting._verdicts import fmt as _fmt
from cffair.reporting._verdicts import p_text as _p
from cffair_book.claim_tools import _change, _flips, _investigation, _per_dataset
from cffair_book.registry import claim_check
from cffair_book.why import frontier_finding, subgroup_drop_finding
from cffair_book.wording import note


# ---------------------------------------------------------------------------- Q1
@claim_check("Q1.1")
def _q1_cf_axiom_lowers_cf_mse(e: Evidence) -> tuple[str, str, Basis]:
    ds = e.have("ltn_acc", "ltn_acc_cf")
    verdict, note, basis = _per_dataset(
        e, ds, "ltn_acc_cf", "ltn_acc", "cf_mse", False, _change(e, e.cf, "ltn_acc", "ltn_acc_cf")
    )
    return (
        verdict,
        note
        + "".join(
            f"; {dataset_name(d)}{_flips(e, d, ('ltn_acc', 'ltn_acc_cf'))}"
            for d in ds
            if _flips(e, d, ("ltn_acc", "ltn_acc_cf")) and e.counts(d, ("ltn_acc", "ltn_acc_cf"))
        ),
        basis,
    )


@claim_check("Q1.2")
def _q1_subgroup_axioms_lower_cf_mse(e: Evidence) -> tuple[str, str, Basis]:
    ds = e.have("ltn_acc_cf", "ltn_acc_cf_sg")
    return _per_dataset(
        e, ds, "ltn_acc_cf_sg", "ltn_acc_cf", "cf_mse", False, _change(e, e.cf, "ltn_acc_cf", "ltn_acc_cf_sg")
    )


@claim_check("Q1.3")
def _q1_subgroup_axioms_lower_worst(e: Evidence) -> tuple[str, str, Basis]:
    pair = ("ltn_acc_cf", "ltn_acc_cf_sg")
    ds = [d for d in e.have(*pair) if d in ("compas", "lawschool") and e.measured(d, pair, "cf_mse_worst_subgroup")]
    if not ds and any(d in ("compas", "lawschool") for d in e.have(*pair)):
        return PENDING, note("not_measured", what="the worst subgroup"), Basis()
    return _per_dataset(
        e,
        ds,
        "ltn_acc_cf_sg",
        "ltn_acc_cf",
        "cf_mse_worst_subgroup",
        False,
        _change(e, e.worst, "ltn_acc_cf", "ltn_acc_cf_sg"),
    )


@claim_check("Q1.4")
def _q1_subgroup_axioms_raise_accuracy(e: Evidence) -> tuple[str, str, Basis]:
    ds = [d for d in e.have("ltn_acc_cf", "ltn_acc_cf_sg") if d in ("adult", "compas", "compas_age")]
    verdict, note, basis = _per_dataset(
        e,
        ds,
        "ltn_acc_cf_sg",
        "ltn_acc_cf",
        "perf",
        True,
        lambda d, r: f"{dataset_name(d)} {e.perf_text(d, 'ltn_acc_cf')} → {e.perf_text(d, 'ltn_acc_cf_sg')} ({_p(r)})",
    )
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
    return (
        (HOLDS if holds else FAILS),
        (
            f"largest drop acc → acc+CF: {drop.index[0]} "
            f"({_fmt(drop.iloc[0])}; white males {_fmt(drop.get('Male, White'))}); "
            f"acc+CF_sg below acc+CF in {better} of {len(others)} other subgroups"
            + _investigation(None if holds else subgroup_drop_finding(e.records))
        ),
        _ranking_basis(e, "adult"),
    )


@claim_check("Q1.6")
def _q1_lawschool_every_subgroup(e: Evidence) -> tuple[str, str, Basis]:
    m = _subgroup_means(e, "lawschool")
    if m is None:
        return PENDING, "", Basis()
    improved = int((m["ltn_acc_cf"] < m["ltn_acc"]).sum())
    spread = m.max() - m.min()
    holds = bool(improved == len(m) and spread["ltn_acc_cf_sg"] < spread["ltn_acc_cf"])
    return (
        (HOLDS if holds else FAILS),
        (
            f"acc+CF below acc in {improved} of {len(m)} subgroups; spread "
            f"(max − min) of subgroup CF-MSE: acc+CF {_fmt(spread['ltn_acc_cf'])}, "
            f"acc+CF_sg {_fmt(spread['ltn_acc_cf_sg'])}"
        ),
        _ranking_basis(e, "lawschool"),
    )
