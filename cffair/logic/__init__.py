"""Logic: the axioms A1-A5 and their satisfaction (:mod:`cffair.logic.axioms`), the fuzzy logics (:mod:`cffair.logic.fuzzy`), and the axioms beyond the paper (other fairness notions, intersectional subgroups, adaptive weights).

Each name below is loaded from its module on first use, so that importing the part stays light and no
import cycle runs through this face; type checkers read the imports under ``TYPE_CHECKING``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from cffair._support.faces import lazy_face

FINGERPRINT_EXEMPT = True  # a face only re-exports: it cannot change a number

if TYPE_CHECKING:
    from cffair.logic.adaptive import (
        CFBudget,
        RaiseLeastSatisfied,
        get_weight,
        set_weight,
        train_pair_cf_mse,
    )
    from cffair.logic.fuzzy import (
        DEFAULT_LOGIC,
        DEFAULT_SEMANTICS,
        LOGICS,
        SCORE_EQ,
        Logic,
        Semantics,
        eq_score,
        logic,
        weighted_sat,
    )
    from cffair.logic.intersectional import (
        INTERSECTIONS,
        Attribute,
        Twins,
        cf_mse_by_intersection,
        intersection_labels,
        intervene,
        joint_cf_axiom,
        levels,
        make_twins,
    )
    from cffair.logic.notions import (
        LIPSCHITZ_BETA,
        LipschitzTerm,
        ParityTerm,
        Term,
        TermKnowledgeBase,
        demographic_parity_axiom,
        dp_gap,
        eo_gaps,
        eq_abs,
        equalised_odds_axiom,
        lipschitz_axiom,
        lipschitz_violation,
        similar_pairs,
    )

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
    "SCORE_EQ": "fuzzy",
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

__all__ = [
    "Attribute",
    "CFBudget",
    "DEFAULT_LOGIC",
    "DEFAULT_SEMANTICS",
    "INTERSECTIONS",
    "LIPSCHITZ_BETA",
    "LOGICS",
    "LipschitzTerm",
    "Logic",
    "ParityTerm",
    "RaiseLeastSatisfied",
    "SCORE_EQ",
    "Semantics",
    "Term",
    "TermKnowledgeBase",
    "Twins",
    "cf_mse_by_intersection",
    "demographic_parity_axiom",
    "dp_gap",
    "eo_gaps",
    "eq_abs",
    "eq_score",
    "equalised_odds_axiom",
    "get_weight",
    "intersection_labels",
    "intervene",
    "joint_cf_axiom",
    "levels",
    "lipschitz_axiom",
    "lipschitz_violation",
    "logic",
    "make_twins",
    "set_weight",
    "similar_pairs",
    "train_pair_cf_mse",
    "weighted_sat",
]

__getattr__, __dir__ = lazy_face(__name__, _EXPORTS, _SUBMODULES, __all__)
