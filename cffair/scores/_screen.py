"""The degenerate-model screen: one test of whether a trained model is worth scoring for fairness.

A model that predicts (nearly) one outcome for everyone is trivially counterfactually fair: its
CF-MSE and flip rate are about 0 because nothing it says depends on anything. Counting such a
model as "the fairest" is the plausible wrong answer this screen exists to prevent. One function
decides it for every consumer: the scikit-learn scorers (:mod:`cffair.learners._estimator`, so that a grid
search never picks a collapsed model), the own-data report (:mod:`cffair.reporting._report`) and
the book's claims (a collapsed record enters no verdict).

A binary model is *collapsed* when

* its test outputs are constant: standard deviation below :data:`CONSTANT_SD`;
* its decisions are near-constant: at least :data:`NEAR_CONSTANT_SHARE` of the rows get one
  decision (a model can vary its probabilities and still say "yes" to everyone);
* or its accuracy is at or below the majority-class rate: no better than the constant predictor
  that always says the most common label.

A score model is collapsed when its outputs are constant, or (when the true scores are known) its
mean squared error is at least the variance of the true scores: no better than predicting the mean.

A *method* evaluated on several folds (:func:`screen_folds`, what the report's recommendation and
:mod:`cffair.reporting._model_selection` exclude) is collapsed when it is constant or near-constant on any
fold, or when its accuracy *averaged over the folds* is at or below the averaged majority-class
rate (its MSE at or above the averaged variance). One fold's accuracy on a few hundred test rows
moves by a few points by chance, so a fold below the majority rate is flagged but does not by
itself exclude a method that beats the majority class on average.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

__all__ = ["CONSTANT_SD", "NEAR_CONSTANT_SHARE", "Screen", "screen", "screen_folds", "screen_metrics"]

#: Test outputs whose standard deviation is below this are constant.
CONSTANT_SD = 1e-3
#: Decisions with at least this share of one outcome are near-constant.
NEAR_CONSTANT_SHARE = 0.99

Kind = Literal["ok", "constant", "near_constant", "below_majority", "no_better_than_mean"]


@dataclass(frozen=True)
class Screen:
    """The screen's verdict on one model.

    Attributes:
        kind: ``"ok"``, or why the model is collapsed: ``"constant"``, ``"near_constant"``,
            ``"below_majority"``, ``"no_better_than_mean"`` (the first rule that applies, in this order).
        reason: the verdict in words, with the numbers behind it (empty when ``ok``).
    """

    kind: Kind
    reason: str = ""

    @property
    def collapsed(self) -> bool:
        """Whether the model is degenerate (excluded from fairness comparisons)."""
        return self.kind != "ok"

    def __bool__(self) -> bool:  # ``if screen(...)`` reads "if collapsed"
        return self.collapsed


_OK = Screen("ok")


def _binary(sd: float | None, positive_rate: float | None, accuracy: float | None, majority: float | None) -> Screen:
    if sd is not None and sd < CONSTANT_SD:
        return Screen("constant", f"its outputs are constant (sd {sd:.2g} < {CONSTANT_SD:g})")
    if positive_rate is not None and max(positive_rate, 1 - positive_rate) >= NEAR_CONSTANT_SHARE:
        decision = "positive" if positive_rate >= 0.5 else "negative"
        share = max(positive_rate, 1 - positive_rate)
        return Screen("near_constant", f"it gives {share:.1%} of the rows one decision ({decision})")
    if accuracy is not None and majority is not None and accuracy <= majority + 1e-12:
        return Screen(
            "below_majority",
            f"its accuracy {accuracy:.3f} is at or below the majority-class rate {majority:.3f}",
        )
    return _OK


def _score(sd: float | None, mse: float | None, variance: float | None) -> Screen:
    if sd is not None and sd < CONSTANT_SD:
        return Screen("constant", f"its outputs are constant (sd {sd:.2g} < {CONSTANT_SD:g})")
    if mse is not None and variance is not None and variance > 0 and mse >= variance:
        return Screen(
            "no_better_than_mean",
            f"its MSE {mse:.4g} is at least the variance of the true scores {variance:.4g}",
        )
    return _OK


def screen(
    pred: Any, y: Any = None, *, target_kind: Literal["binary", "score"] = "binary", threshold: float = 0.5
) -> Screen:
    """Screen a model by its test outputs ``pred`` (probabilities of class 1, or scores) and,
    when known, the true labels or scores ``y``.

    Args:
        pred: the model's outputs on test rows.
        y: the true labels (0/1) or scores of those rows; without them only the constant and
            near-constant rules apply.
        target_kind: ``"binary"`` or ``"score"``.
        threshold: the decision threshold of a binary model.

    >>> screen([0.7, 0.8, 0.9, 0.6]).kind                     # says yes to everyone
    'near_constant'
    >>> screen([0.1, 0.9, 0.2, 0.8], [0, 1, 1, 1]).kind       # accuracy 0.75 = majority 0.75
    'below_majority'
    >>> bool(screen([0.1, 0.9, 0.2, 0.8], [0, 1, 0, 1]))
    False
    >>> screen([2.0, 2.0, 2.0], target_kind="score").kind
    'constant'
    """
    p = np.asarray(pred, dtype=np.float64).ravel()
    if p.size == 0:
        return _OK
    sd = float(np.std(p))
    if target_kind == "score":
        if y is None:
            return _score(sd, None, None)
        t = np.asarray(y, dtype=np.float64).ravel()
        return _score(sd, float(np.mean((p - t) ** 2)), float(np.var(t)))
    decisions = p >= threshold
    positive = float(np.mean(decisions))
    if y is None:
        return _binary(sd, positive, None, None)
    labels = np.asarray(y).ravel().astype(np.float64)
    accuracy = float(np.mean(decisions == (labels == 1)))
    majority = float(max(np.mean(labels == 1), np.mean(labels != 1)))
    return _binary(sd, positive, accuracy, majority)


def screen_metrics(metrics: Mapping[str, Any]) -> Screen:
    """Screen a model by the metrics a record holds (:func:`cffair.scores.evaluate`'s
    ``prediction_sd``, ``positive_rate``, ``accuracy``, ``majority_rate``; ``mse`` and
    ``target_variance`` for a score target): the same rules as :func:`screen`, read off a record.

    >>> screen_metrics({"accuracy": 0.455, "majority_rate": 0.545, "positive_rate": 1.0, "prediction_sd": 0.0}).kind
    'constant'
    >>> screen_metrics({"accuracy": 0.52, "majority_rate": 0.545, "positive_rate": 0.88, "prediction_sd": 0.1}).reason
    'its accuracy 0.520 is at or below the majority-class rate 0.545'
    """

    def num(key: str) -> float | None:
        v = metrics.get(key)
        return None if v is None or (isinstance(v, float) and np.isnan(v)) else float(v)

    if "accuracy" in metrics:
        return _binary(num("prediction_sd"), num("positive_rate"), num("accuracy"), num("majority_rate"))
    return _score(num("prediction_sd"), num("mse"), num("target_variance"))


def screen_folds(folds: Sequence[Mapping[str, Any]]) -> Screen:
    """Screen a method by the metrics of its folds (each as :func:`screen_metrics` reads them):
    collapsed when any fold is constant or near-constant (the first such fold's reason, with its
    position), or when the mean accuracy over the folds is at or below the mean majority-class rate
    (for a score target: the mean MSE at or above the mean variance of the true scores).

    >>> ok, low = {"accuracy": 0.80, "majority_rate": 0.78}, {"accuracy": 0.77, "majority_rate": 0.78}
    >>> screen_folds([ok, low, ok]).kind               # one fold below the majority rate: noise
    'ok'
    >>> screen_folds([low, low, ok]).reason
    'its mean accuracy 0.780 over 3 folds is at or below the mean majority-class rate 0.780'
    >>> screen_folds([ok, {"accuracy": 0.3, "majority_rate": 0.7, "positive_rate": 1.0}]).kind
    'near_constant'
    """
    for i, m in enumerate(folds):
        verdict = screen_metrics({k: v for k, v in m.items() if k not in ("majority_rate", "target_variance")})
        if verdict.kind in ("constant", "near_constant"):
            return Screen(verdict.kind, f"on fold {i} {verdict.reason}")

    def mean(key: str) -> float | None:
        vals = [float(m[key]) for m in folds if m.get(key) is not None and not np.isnan(float(m[key]))]
        return float(np.mean(vals)) if vals and len(vals) == len(folds) else None

    acc, majority = mean("accuracy"), mean("majority_rate")
    if acc is not None and majority is not None and acc <= majority + 1e-12:
        return Screen(
            "below_majority",
            f"its mean accuracy {acc:.3f} over {len(folds)} folds is at or below the mean majority-class rate {majority:.3f}",
        )
    mse, variance = mean("mse"), mean("target_variance")
    if acc is None and mse is not None and variance is not None and variance > 0 and mse >= variance:
        return Screen(
            "no_better_than_mean",
            f"its mean MSE {mse:.4g} over {len(folds)} folds is at least the mean variance of the true scores {variance:.4g}",
        )
    return _OK
