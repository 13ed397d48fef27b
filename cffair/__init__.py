"""cffair: counterfactual fairness with Logic Tensor Networks.

The library behind the book companion of Heilmann, Manganini, Cerrato, Kestel and Belle,
*A Neurosymbolic Approach to Counterfactual Fairness*. Its parts follow the data::

    datasets -> causal (counterfactuals) -> logic (axioms) -> scores (metrics) -> learners, baselines
    -> evaluation (audits, CKE, queries) -> experiments -> reporting -> workflows

Each part's modules are private; import from the part (``from cffair.scores import cf_mse``).

The scikit-learn estimators are importable from the top level (loaded on first use, so that
``import cffair`` stays light): ``cffair.CounterfactualFairClassifier`` and
``cffair.CounterfactualFairRegressor`` (:mod:`cffair.learners._estimator`).
"""

from __future__ import annotations

__version__ = "0.2.0"

__all__ = ["CounterfactualFairClassifier", "CounterfactualFairRegressor", "__version__"]

_LAZY = {
    "CounterfactualFairClassifier": "cffair.learners._estimator",
    "CounterfactualFairRegressor": "cffair.learners._estimator",
}


def __getattr__(name: str) -> object:
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'cffair' has no attribute {name!r}")
