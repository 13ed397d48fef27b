"""The check of appendix B (the weights of the axioms), registered with :func:`~.registry.claim_check`
(:mod:`.claims`)."""

from __future__ import annotations

import math
from typing import Any

from cffair.reporting import (
    DATASET_ORDER,
    dataset_name,
    fine_weight_frame,
    fold_trend,
    holm,
    performance_metric,
    weight_grid_frame,
)
from cffair.reporting._verdicts import (
    ALPHA,
    FAILS,
    HOLDS,
    INCONCLUSIVE,
    MIN_TREND_POINTS,
    PENDING,
    SHARED_DATASETS,
    Basis,
    Evidence,
    combine,
    current_rules,
)
from cffair.reporting._verdicts import p_text as _p
from cffair_book.claim_tools import _UNCOUNTED
from cffair_book.registry import claim_check
from cffair_book.wording import note


# ---------------------------------------------------------------------------- appendix B
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
        points = g["log2_ratio"].nunique()
        sign = 1 if perf == "accuracy" else -1
        # the fold is the unit: Spearman's ρ within each fold, then the corrected t-test over the folds' ρ
        t_perf = fold_trend(g["log2_ratio"], sign * g[perf].astype(float), g["fold"])
        t_cf = fold_trend(g["log2_ratio"], g["cf_mse"].astype(float), g["fold"])
        trends[d] = (t_perf, t_cf, points)
        parts.append(
            note(
                "b_dataset",
                dataset=dataset_name(d),
                points=points,
                folds=note("b_folds", "one" if t_perf.n_folds == 1 else "many", count=t_perf.n_folds),
                few=note("b_few") if points < MIN_TREND_POINTS else "",
                trends=", ".join(
                    note("b_trend", what=what, rho=t.rho, low=t.rho_min, high=t.rho_max, p=_p(t.p))
                    for what, t in (("performance", t_perf), ("CF-MSE", t_cf))
                ),
                uncounted=_UNCOUNTED if d in shown else "",
            )
        )
    datasets = [d for d in trends if d not in shown]
    tested = [d for d in datasets if trends[d][2] >= MIN_TREND_POINTS and trends[d][0].n_folds >= 2]
    ps = [t.p for d in tested for t in trends[d][:2]]
    rejected = iter(holm(ps, ALPHA) if current_rules().holm else [p < ALPHA for p in ps])
    per: dict[str, str] = {}
    for d in tested:
        sides = []
        for t in trends[d][:2]:
            sides.append(
                (HOLDS if t.rho > 0 else FAILS)
                if next(rejected) and not math.isnan(t.rho) and t.rho != 0
                else INCONCLUSIVE
            )
        per[d] = combine(sides)
    n, shows, against = len(datasets), sum(v == HOLDS for v in per.values()), sum(v == FAILS for v in per.values())
    verdict = HOLDS if shows > n / 2 else FAILS if n and against >= n / 2 else INCONCLUSIVE
    decided = ", ".join(note("b_decided", v, dataset=dataset_name(d)) for d, v in per.items()) or note("b_none")
    return (
        verdict,
        note(
            "b_summary",
            shows=shows,
            datasets=n,
            against=against,
            decided=decided,
            parts="; ".join(parts),
            shared="".join(
                note("b_shared", dataset=dataset_name(d), base=dataset_name(SHARED_DATASETS[d])) for d in shown
            ),
        ),
        Basis(
            note("b_test", "holm" if len(ps) > 1 else "one", count=len(ps)),
            "; ".join(
                note(
                    "b_basis",
                    points=trends[d][2],
                    folds=note("b_folds", "one" if trends[d][0].n_folds == 1 else "many", count=trends[d][0].n_folds),
                    dataset=dataset_name(d),
                )
                for d in datasets
            ),
        ),
    )
