"""Evaluation: the metrics (accuracy, CF-MSE, flip rates, group fairness), the degenerate-model screen, audits of a model's decisions, counterfactual knowledge extraction (CKE), post-hoc queries, recourse and diagnostics.

Each name below is loaded from its module on first use, so that importing the part stays light and no
import cycle runs through this face; type checkers read the imports under ``TYPE_CHECKING``.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

FINGERPRINT_EXEMPT = True  # a face only re-exports: it cannot change a number

if TYPE_CHECKING:
    from cffair.evaluation.alignment import (
        ROW_ID,
        SIDECAR,
        TWIN_KEYS,
        align,
        factual_keys,
        rows_hash,
        save_predictions,
    )
    from cffair.evaluation.audit import (
        AUDIT_FLOW,
        AuditResult,
        audit_flow_config,
        audit_scores,
        bootstrap_indices,
        by_subgroup,
        check_range,
        scores_of,
    )
    from cffair.evaluation.audit_stats import (
        audit_tables,
        cluster_sums,
        percentile_interval,
        ratio_bootstrap,
    )
    from cffair.evaluation.cke import (
        DEFAULT_THRESHOLDS,
        Candidate,
        CKEReport,
        cke_features,
        cke_loop,
        default_threshold,
        explanations,
        extract,
        favourable,
        frequencies,
        imbalances,
        pairs_from_cfset,
        score_threshold_of,
        top_candidates,
    )
    from cffair.evaluation.diagnostics import (
        SATURATION_EPS,
        a4_gradient_share,
        calibrated_cf_mse,
        calibrator,
        cf_mse_per_flip,
        saturation,
    )
    from cffair.evaluation.groupfair import (
        GROUP_METRICS,
        group_fairness,
        group_rates,
    )
    from cffair.evaluation.metrics import (
        accuracy,
        cf_flip_rate,
        cf_flip_rate_by_subgroup,
        cf_mse,
        cf_mse_by_subgroup,
        decision_threshold,
        evaluate,
        mse,
        undesirable_explanation_ratio,
        worst_subgroup,
    )
    from cffair.evaluation.queries import (
        X_HAT_RULES,
        QueryResult,
        nearest_different,
        query_person,
        similar_different,
        subgroup_cf,
        witness_share,
    )
    from cffair.evaluation.recourse import (
        RECOURSE_ACTIONS,
        Action,
        CostModel,
        RecourseSearch,
        RecourseTable,
        check_actions,
        default_actions,
    )
    from cffair.evaluation.screen import (
        CONSTANT_SD,
        NEAR_CONSTANT_SHARE,
        Screen,
        screen_folds,
        screen_metrics,
    )

#: public name -> the module of this part that defines it
_EXPORTS: dict[str, str] = {
    "AUDIT_FLOW": "audit",
    "Action": "recourse",
    "AuditResult": "audit",
    "CKEReport": "cke",
    "CONSTANT_SD": "screen",
    "Candidate": "cke",
    "CostModel": "recourse",
    "DEFAULT_THRESHOLDS": "cke",
    "GROUP_METRICS": "groupfair",
    "NEAR_CONSTANT_SHARE": "screen",
    "QueryResult": "queries",
    "RECOURSE_ACTIONS": "recourse",
    "ROW_ID": "alignment",
    "RecourseSearch": "recourse",
    "RecourseTable": "recourse",
    "SATURATION_EPS": "diagnostics",
    "SIDECAR": "alignment",
    "Screen": "screen",
    "TWIN_KEYS": "alignment",
    "X_HAT_RULES": "queries",
    "a4_gradient_share": "diagnostics",
    "accuracy": "metrics",
    "align": "alignment",
    "audit_flow_config": "audit",
    "audit_scores": "audit",
    "audit_tables": "audit_stats",
    "bootstrap_indices": "audit",
    "by_subgroup": "audit",
    "calibrated_cf_mse": "diagnostics",
    "calibrator": "diagnostics",
    "cf_flip_rate": "metrics",
    "cf_flip_rate_by_subgroup": "metrics",
    "cf_mse": "metrics",
    "cf_mse_by_subgroup": "metrics",
    "cf_mse_per_flip": "diagnostics",
    "check_actions": "recourse",
    "check_range": "audit",
    "cke_features": "cke",
    "cke_loop": "cke",
    "cluster_sums": "audit_stats",
    "decision_threshold": "metrics",
    "default_actions": "recourse",
    "default_threshold": "cke",
    "evaluate": "metrics",
    "explanations": "cke",
    "extract": "cke",
    "factual_keys": "alignment",
    "favourable": "cke",
    "frequencies": "cke",
    "group_fairness": "groupfair",
    "group_rates": "groupfair",
    "imbalances": "cke",
    "mse": "metrics",
    "nearest_different": "queries",
    "pairs_from_cfset": "cke",
    "percentile_interval": "audit_stats",
    "query_person": "queries",
    "ratio_bootstrap": "audit_stats",
    "rows_hash": "alignment",
    "saturation": "diagnostics",
    "save_predictions": "alignment",
    "score_threshold_of": "cke",
    "scores_of": "audit",
    "screen_folds": "screen",
    "screen_metrics": "screen",
    "similar_different": "queries",
    "subgroup_cf": "queries",
    "top_candidates": "cke",
    "undesirable_explanation_ratio": "metrics",
    "witness_share": "queries",
    "worst_subgroup": "metrics",
}
_SUBMODULES = (
    "alignment",
    "audit",
    "audit_stats",
    "cke",
    "diagnostics",
    "groupfair",
    "metrics",
    "queries",
    "recourse",
    "screen",
)

__all__ = [
    "AUDIT_FLOW",
    "Action",
    "AuditResult",
    "CKEReport",
    "CONSTANT_SD",
    "Candidate",
    "CostModel",
    "DEFAULT_THRESHOLDS",
    "GROUP_METRICS",
    "NEAR_CONSTANT_SHARE",
    "QueryResult",
    "RECOURSE_ACTIONS",
    "ROW_ID",
    "RecourseSearch",
    "RecourseTable",
    "SATURATION_EPS",
    "SIDECAR",
    "Screen",
    "TWIN_KEYS",
    "X_HAT_RULES",
    "a4_gradient_share",
    "accuracy",
    "align",
    "audit_flow_config",
    "audit_scores",
    "audit_tables",
    "bootstrap_indices",
    "by_subgroup",
    "calibrated_cf_mse",
    "calibrator",
    "cf_flip_rate",
    "cf_flip_rate_by_subgroup",
    "cf_mse",
    "cf_mse_by_subgroup",
    "cf_mse_per_flip",
    "check_actions",
    "check_range",
    "cke_features",
    "cke_loop",
    "cluster_sums",
    "decision_threshold",
    "default_actions",
    "default_threshold",
    "evaluate",
    "explanations",
    "extract",
    "factual_keys",
    "favourable",
    "frequencies",
    "group_fairness",
    "group_rates",
    "imbalances",
    "mse",
    "nearest_different",
    "pairs_from_cfset",
    "percentile_interval",
    "query_person",
    "ratio_bootstrap",
    "rows_hash",
    "saturation",
    "save_predictions",
    "score_threshold_of",
    "scores_of",
    "screen_folds",
    "screen_metrics",
    "similar_different",
    "subgroup_cf",
    "top_candidates",
    "undesirable_explanation_ratio",
    "witness_share",
    "worst_subgroup",
]


def __getattr__(name: str) -> object:
    if name in _EXPORTS:
        return getattr(importlib.import_module(f"{__name__}.{_EXPORTS[name]}"), name)
    if name in _SUBMODULES:
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*__all__, *_SUBMODULES})
