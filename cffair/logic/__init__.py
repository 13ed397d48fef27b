"""Logic: the axioms A1-A5 and their satisfaction (:mod:`cffair.logic._axioms`), the fuzzy logics (:mod:`cffair.logic._fuzzy`), and the axioms beyond the paper (other fairness notions, intersectional subgroups, adaptive weights).

Each name below is loaded from its module on first use, so that importing the part stays light and no
import cycle runs through this face; type checkers read the imports under ``TYPE_CHECKING``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from cffair._support.faces import lazy_face

FINGERPRINT_EXEMPT = True  # a face only re-exports: it cannot change a number

if TYPE_CHECKING:
    from cffair.logic._adaptive import (
        CFBudget,
        RaiseLeastSatisfied,
        get_weight,
        set_weight,
        train_pair_cf_mse,
    )
    from cffair.logic._axioms import KnowledgeBase, accuracy_axioms, cf_axiom, cke_axiom, subgroup_cf_axioms
    from cffair.logic._fuzzy import (
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
    from cffair.logic._intersectional import (
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
    from cffair.logic._notions import (
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
    "Attribute": "_intersectional",
    "CFBudget": "_adaptive",
    "DEFAULT_LOGIC": "_fuzzy",
    "DEFAULT_SEMANTICS": "_fuzzy",
    "INTERSECTIONS": "_intersectional",
    "KnowledgeBase": "_axioms",
    "LIPSCHITZ_BETA": "_notions",
    "LOGICS": "_fuzzy",
    "LipschitzTerm": "_notions",
    "Logic": "_fuzzy",
    "ParityTerm": "_notions",
    "RaiseLeastSatisfied": "_adaptive",
    "SCORE_EQ": "_fuzzy",
    "Semantics": "_fuzzy",
    "Term": "_notions",
    "TermKnowledgeBase": "_notions",
    "Twins": "_intersectional",
    "accuracy_axioms": "_axioms",
    "cf_axiom": "_axioms",
    "cf_mse_by_intersection": "_intersectional",
    "cke_axiom": "_axioms",
    "demographic_parity_axiom": "_notions",
    "dp_gap": "_notions",
    "eo_gaps": "_notions",
    "eq_abs": "_notions",
    "eq_score": "_fuzzy",
    "equalised_odds_axiom": "_notions",
    "get_weight": "_adaptive",
    "intersection_labels": "_intersectional",
    "intervene": "_intersectional",
    "joint_cf_axiom": "_intersectional",
    "levels": "_intersectional",
    "lipschitz_axiom": "_notions",
    "lipschitz_violation": "_notions",
    "logic": "_fuzzy",
    "make_twins": "_intersectional",
    "set_weight": "_adaptive",
    "similar_pairs": "_notions",
    "subgroup_cf_axioms": "_axioms",
    "train_pair_cf_mse": "_adaptive",
    "weighted_sat": "_fuzzy",
}

__all__ = [
    "Attribute",
    "CFBudget",
    "DEFAULT_LOGIC",
    "DEFAULT_SEMANTICS",
    "INTERSECTIONS",
    "KnowledgeBase",
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
    "accuracy_axioms",
    "cf_axiom",
    "cf_mse_by_intersection",
    "cke_axiom",
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
    "subgroup_cf_axioms",
    "train_pair_cf_mse",
    "weighted_sat",
]

__getattr__, __dir__ = lazy_face(__name__, _EXPORTS, __all__)
