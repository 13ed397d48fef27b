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

#: public name -> the module of this part that defines it
_EXPORTS: dict[str, str] = {
    "AUDIT_FLOW": "audit",
    "Action": "recourse",
    "AuditResult": "audit",
    "CKEReport": "cke",
    "Candidate": "cke",
    "CostModel": "recourse",
    "DEFAULT_THRESHOLDS": "cke",
    "QueryResult": "queries",
    "RECOURSE_ACTIONS": "recourse",
    "ROW_ID": "alignment",
    "RecourseSearch": "recourse",
    "RecourseTable": "recourse",
    "SATURATION_EPS": "diagnostics",
    "SIDECAR": "alignment",
    "TWIN_KEYS": "alignment",
    "X_HAT_RULES": "queries",
    "a4_gradient_share": "diagnostics",
    "align": "alignment",
    "audit_flow_config": "audit",
    "audit_scores": "audit",
    "audit_tables": "audit_stats",
    "bootstrap_indices": "audit",
    "by_subgroup": "audit",
    "calibrated_cf_mse": "diagnostics",
    "calibrator": "diagnostics",
    "cf_mse_per_flip": "diagnostics",
    "check_actions": "recourse",
    "check_range": "audit",
    "cke_features": "cke",
    "cke_loop": "cke",
    "cluster_sums": "audit_stats",
    "default_actions": "recourse",
    "default_threshold": "cke",
    "explanations": "cke",
    "extract": "cke",
    "factual_keys": "alignment",
    "favourable": "cke",
    "frequencies": "cke",
    "imbalances": "cke",
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
    "similar_different": "queries",
    "subgroup_cf": "queries",
    "top_candidates": "cke",
    "witness_share": "queries",
}
_SUBMODULES = (
    "alignment",
    "audit",
    "audit_stats",
    "cke",
    "diagnostics",
    "queries",
    "recourse",
)

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

__getattr__, __dir__ = lazy_face(__name__, _EXPORTS, _SUBMODULES, __all__)
