"""Evaluation: the metrics (accuracy, CF-MSE, flip rates), the degenerate-model screen, audits of a model's decisions, counterfactual knowledge extraction (CKE), post-hoc queries, recourse and diagnostics.

Each name below is loaded from its module on first use, so importing the part stays light and no
import cycle runs through this face.
"""

from __future__ import annotations

import importlib

FINGERPRINT_EXEMPT = True  # a face only re-exports: it cannot change a number

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
    "NEAR_CONSTANT_SHARE": "screen",
    "QueryResult": "queries",
    "RECOURSE_ACTIONS": "recourse",
    "ROW_ID": "alignment",
    "RecourseError": "recourse",
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
    "audit": "audit",
    "audit_flow_config": "audit",
    "audit_scores": "audit",
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
    "decision_threshold": "metrics",
    "default_actions": "recourse",
    "default_threshold": "cke",
    "evaluate": "metrics",
    "explanations": "cke",
    "extract": "cke",
    "factual_keys": "alignment",
    "favourable": "cke",
    "frequencies": "cke",
    "imbalances": "cke",
    "mse": "metrics",
    "nearest_different": "queries",
    "pairs_from_cfset": "cke",
    "query_person": "queries",
    "rows_hash": "alignment",
    "saturation": "diagnostics",
    "save_predictions": "alignment",
    "score_threshold_of": "cke",
    "scores_of": "audit",
    "screen": "screen",
    "screen_metrics": "screen",
    "similar_different": "queries",
    "subgroup_cf": "queries",
    "top_candidates": "cke",
    "undesirable_explanation_ratio": "metrics",
    "witness_share": "queries",
    "worst_subgroup": "metrics",
}
_SUBMODULES = ("alignment", "audit", "cke", "diagnostics", "metrics", "queries", "recourse", "screen")

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> object:
    if name in _EXPORTS:
        return getattr(importlib.import_module(f"{__name__}.{_EXPORTS[name]}"), name)
    if name in _SUBMODULES:
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*__all__, *_SUBMODULES})
