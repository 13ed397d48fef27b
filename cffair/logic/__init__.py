"""Logic: the axioms A1-A5 and their satisfaction (:mod:`cffair.logic.axioms`), the fuzzy logics (:mod:`cffair.logic.fuzzy`), and the axioms beyond the paper (other fairness notions, intersectional subgroups, adaptive weights).

Each name below is loaded from its module on first use, so importing the part stays light and no
import cycle runs through this face.
"""

from __future__ import annotations

import importlib

FINGERPRINT_EXEMPT = True  # a face only re-exports: it cannot change a number

#: public name -> the module of this part that defines it
_EXPORTS: dict[str, str] = {
    "Attribute": "intersectional",
    "CFBudget": "adaptive",
    "DEFAULT_LOGIC": "fuzzy",
    "DEFAULT_SEMANTICS": "fuzzy",
    "INTERSECTIONS": "intersectional",
    "LIPSCHITZ_BETA": "notions",
    "LOGICS": "fuzzy",
    "LipschitzTerm": "notions",
    "Logic": "fuzzy",
    "ParityTerm": "notions",
    "RaiseLeastSatisfied": "adaptive",
    "Semantics": "fuzzy",
    "Term": "notions",
    "TermKnowledgeBase": "notions",
    "Twins": "intersectional",
    "cf_mse_by_intersection": "intersectional",
    "demographic_parity_axiom": "notions",
    "dp_gap": "notions",
    "eo_gaps": "notions",
    "eq_abs": "notions",
    "eq_score": "fuzzy",
    "equalised_odds_axiom": "notions",
    "get_weight": "adaptive",
    "intersection_labels": "intersectional",
    "intervene": "intersectional",
    "joint_cf_axiom": "intersectional",
    "levels": "intersectional",
    "lipschitz_axiom": "notions",
    "lipschitz_violation": "notions",
    "logic": "fuzzy",
    "make_twins": "intersectional",
    "set_weight": "adaptive",
    "similar_pairs": "notions",
    "train_pair_cf_mse": "adaptive",
    "weighted_sat": "fuzzy",
}
_SUBMODULES = ("adaptive", "axioms", "fuzzy", "intersectional", "notions")

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> object:
    if name in _EXPORTS:
        return getattr(importlib.import_module(f"{__name__}.{_EXPORTS[name]}"), name)
    if name in _SUBMODULES:
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*__all__, *_SUBMODULES})
