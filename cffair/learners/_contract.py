"""The estimator contract that the LTN learner and every baseline follow.

scikit-learn's conventions (its *developer's guide*, "APIs of scikit-learn objects"), so that
:func:`sklearn.base.clone`, ``get_params(deep=True)`` / ``set_params`` and model selection work
on every method alike:

* ``__init__`` only stores its parameters, unchanged; ``fit`` checks them
  (:class:`~cffair.errors.ParameterError`) and the data, and returns the fitted model;
* attributes learnt by ``fit`` end in ``_``; a method that needs them raises
  :class:`NotFittedError` before ``fit`` (it is scikit-learn's
  :class:`sklearn.exceptions.NotFittedError` and a :class:`~cffair.errors.CffairError`);
* the outputs mean the same for every method (:class:`FairModel`):

  ==================  ==========================================  =============================
  method              binary target                               score target
  ==================  ==========================================  =============================
  ``predict_score``   P(y = 1), float64 ``(n,)``                  the predicted value
  ``predict``         labels 0/1, int64 (P(y = 1) ≥ 0.5)          the predicted value
  ``predict_proba``   ``[P(y = 0), P(y = 1)]``, ``(n, 2)``        raises :class:`~cffair.errors.TargetKindError`
  ==================  ==========================================  =============================

  ``predict_score`` is what the shared evaluation (:func:`cffair.scores.evaluate`) scores.
* ``device`` (``"cpu"``, ``"cuda"``, ``"auto"``; :mod:`cffair._support.devices`) says where ``fit`` trains.

``fit``'s data arguments differ with what a method learns from (encoded rows and labels, their
counterfactual pairs, or a readable frame and its encoder); everything else is a keyword.
``tests/learners/test_contract.py`` holds every method to this contract in one parametrised test.
"""

from __future__ import annotations

__all__ = ["FairModel", "NotFittedError", "PredictMixin", "check_fitted"]

from typing import Any, Protocol, runtime_checkable

import numpy as np
from sklearn.exceptions import NotFittedError as _SklearnNotFittedError

from cffair.errors import CffairError, TargetKindError


class NotFittedError(CffairError, _SklearnNotFittedError):
    """A model used before ``fit`` (also :class:`sklearn.exceptions.NotFittedError`, so
    scikit-learn's tools recognise it)."""


def check_fitted(estimator: Any, attribute: str = "model_") -> None:
    """Raise :class:`NotFittedError` (also scikit-learn's) unless ``estimator``
    has a fitted ``attribute`` (not ``None``)."""
    if getattr(estimator, attribute, None) is None:
        raise NotFittedError(
            f"this {type(estimator).__name__} is not fitted yet; call fit(...) first (or load a fitted one)."
        )


@runtime_checkable
class FairModel(Protocol):
    """What every method of cffair offers once fitted (the LTN learner and every baseline)."""

    def fit(self, *args: Any, **kwargs: Any) -> Any: ...

    def predict_score(self, X: Any) -> np.ndarray: ...

    def predict(self, X: Any) -> np.ndarray: ...

    def predict_proba(self, X: Any) -> np.ndarray: ...

    def get_params(self, deep: bool = True) -> dict[str, Any]: ...

    def set_params(self, **params: Any) -> Any: ...


class PredictMixin:
    """``predict`` and ``predict_proba`` from ``predict_score`` and ``_target_kind()``, the same
    for every method (the table of the module docstring)."""

    def _target_kind(self) -> str:  # pragma: no cover - every method defines it
        raise NotImplementedError

    def predict_score(self, X: Any) -> np.ndarray:  # pragma: no cover - every method defines it
        raise NotImplementedError

    def predict_proba(self, X: Any) -> np.ndarray:
        """``[P(y = 0), P(y = 1)]`` per row, ``(n, 2)`` (binary targets only).

        Raises:
            TargetKindError: for a model of a score target (use ``predict`` for its value).
        """
        kind = self._target_kind()
        if kind != "binary":
            raise TargetKindError(
                f"predict_proba is for a binary target; this {type(self).__name__} predicts a {kind} target: "
                "use predict(X) (or predict_score(X)) for its value."
            )
        p = self.predict_score(X)
        return np.column_stack([1.0 - p, p])

    def predict(self, X: Any) -> np.ndarray:
        """Labels 0/1 (``P(y = 1) ≥ 0.5``, int64) for a binary target, the value for a score target."""
        s = self.predict_score(X)
        return (s >= 0.5).astype(np.int64) if self._target_kind() == "binary" else s
