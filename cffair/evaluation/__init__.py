"""Evaluation of a trained model: audits of its decisions, counterfactual knowledge extraction (CKE), post-hoc queries, recourse and diagnostics.

The scores themselves (accuracy, CF-MSE, flip rates, group fairness, the degenerate-model screen)
are :mod:`cffair.scores`, the part below the learners that scores them.

Each name below is loaded from its module on first use, so that importing the part stays light and no
import cycle runs through this face; type checkers read the imports under ``TYPE_CHECKING``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from cffair._support.faces import lazy_face

FINGERPRINT_EXEMPT = True  # a face only re-exports: it cannot change a number

if TYPE_CHECKING:
    from cffair.evaluation._alignment import (
        ROW_ID,
        SIDECAR,
        TWIN_KEYS,
        align,
        factual_keys,
        rows_hash,
        save_predictions,
    )
    from cffair.evaluation._audit import (
        AUDIT_FLOW,
        AuditResult,
        audit,
        audit_flow_config,
        audit_scores,
        bootstrap_indices,
        by_subgroup,
        check_range,
        scores_of,
    )
    from cffair.evaluation._audit_stats import (
        audit_tables,
        cluster_sums,
        percentile_interval,
        ratio_bootstrap,
    )
    from cffair.evaluation._cke import (
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
    from cffair.evaluation._diagnostics import (
        SATURATION_EPS,
        a4_gradient_share,
        calibrated_cf_mse,
        calibrator,
        cf_mse_per_flip,
        saturation,
    )
    from cffair.evaluation._queries import (
        X_HAT_RULES,
        QueryResult,
        nearest_different,
        query_person,
        similar_different,
        subgroup_cf,
        witness_share,
    )
    from cffair.evaluation._recourse import (
        RECOURSE_ACTIONS,
        Action,
        CostModel,
        RecourseSearch,
        RecourseTable,
        check_actions,
        default_actions,
    )

#: public name -> the module of this part that defines it
_EXPORTS: dict[str, str] = {
    "AUDIT_FLOW": "_audit",
    "Action": "_recourse",
    "AuditResult": "_audit",
    "CKEReport": "_cke",
    "Candidate": "_cke",
    "CostModel": "_recourse",
    "DEFAULT_THRESHOLDS": "_cke",
    "QueryResult": "_queries",
    "RECOURSE_ACTIONS": "_recourse",
    "ROW_ID": "_alignment",
    "RecourseSearch": "_recourse",
    "RecourseTable": "_recourse",
    "SATURATION_EPS": "_diagnostics",
    "SIDECAR": "_alignment",
    "TWIN_KEYS": "_alignment",
    "X_HAT_RULES": "_queries",
    "a4_gradient_share": "_diagnostics",
    "align": "_alignment",
    "audit": "_audit",
    "audit_flow_config": "_audit",
    "audit_scores": "_audit",
    "audit_tables": "_audit_stats",
    "bootstrap_indices": "_audit",
    "by_subgroup": "_audit",
    "calibrated_cf_mse": "_diagnostics",
    "calibrator": "_diagnostics",
    "cf_mse_per_flip": "_diagnostics",
    "check_actions": "_recourse",
    "check_range": "_audit",
    "cke_features": "_cke",
    "cke_loop": "_cke",
    "cluster_sums": "_audit_stats",
    "default_actions": "_recourse",
    "default_threshold": "_cke",
    "explanations": "_cke",
    "extract": "_cke",
    "factual_keys": "_alignment",
    "favourable": "_cke",
    "frequencies": "_cke",
    "imbalances": "_cke",
    "nearest_different": "_queries",
    "pairs_from_cfset": "_cke",
    "percentile_interval": "_audit_stats",
    "query_person": "_queries",
    "ratio_bootstrap": "_audit_stats",
    "rows_hash": "_alignment",
    "saturation": "_diagnostics",
    "save_predictions": "_alignment",
    "score_threshold_of": "_cke",
    "scores_of": "_audit",
    "similar_different": "_queries",
    "subgroup_cf": "_queries",
    "top_candidates": "_cke",
    "witness_share": "_queries",
}

__all__ = [
    "AUDIT_FLOW",
    "Action",
    "AuditResult",
    "CKEReport",
    "Candidate",
    "CostModel",
    "DEFAULT_THRESHOLDS",
    "QueryResult",
    "RECOURSE_ACTIONS",
    "ROW_ID",
    "RecourseSearch",
    "RecourseTable",
    "SATURATION_EPS",
    "SIDECAR",
    "TWIN_KEYS",
    "X_HAT_RULES",
    "a4_gradient_share",
    "align",
    "audit",
    "audit_flow_config",
    "audit_scores",
    "audit_tables",
    "bootstrap_indices",
    "by_subgroup",
    "calibrated_cf_mse",
    "calibrator",
    "cf_mse_per_flip",
    "check_actions",
    "check_range",
    "cke_features",
    "cke_loop",
    "cluster_sums",
    "default_actions",
    "default_threshold",
    "explanations",
    "extract",
    "factual_keys",
    "favourable",
    "frequencies",
    "imbalances",
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
    "similar_different",
    "subgroup_cf",
    "top_candidates",
    "witness_share",
]

__getattr__, __dir__ = lazy_face(__name__, _EXPORTS, __all__)
