"""Evaluation metrics of section 6.5, shared by the LTN pipeline and every baseline.

* accuracy (Adult, COMPAS) and MSE (Lawschool);
* CF-MSE, **pooled over pairs** as in the paper's formula
  ``CF-MSE = 1/n Σ_{x∈T, x′∈cf(x,S)} |D(x) − D(x′)|²`` with n the number of (x, x′) pairs;
* CF-MSE per subgroup (fairlearn ``MetricFrame`` with ``D(x)`` as ``y_true``, ``D(x′)`` as
  ``y_pred`` and each pair's subgroup as the sensitive feature) and the worst subgroup;
* the **counterfactual flip rate** (not in the paper): the share of (x, x′) pairs whose
  *decision* changes, ``1/n Σ [D(x) ≥ t] ≠ [D(x′) ≥ t]`` with t = 0.5 for a binary target (for
  a score target, t is the score of the best 40 % of the factual predictions, the paper's
  Lawschool mapping of §7.3), overall and per subgroup. CF-MSE weighs a confident classifier's
  flips (each costs up to 1) and a soft classifier's small shifts differently: a model with
  outputs near 0 and 1 can flip fewer decisions and still have the larger CF-MSE;
* the **calibrated CF-MSE** (not in the paper): CF-MSE after mapping the outputs through a
  Platt calibrator fitted on the model's training rows (:func:`calibrated_cf_mse`), so that a
  saturated and a soft model are compared on one probability scale; and the **saturation**,
  the share of outputs within 0.01 of 0 or 1 (:func:`saturation`);
* the ratio of undesirable counterfactual explanations per sensitive group (section 7.3,
  figure 4 bottom), from :func:`cffair.evaluation.explanations`.

:func:`evaluate` is the one function every method calls, so all numbers are computed alike.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from typing import Any, Literal

import numpy as np
import pandas as pd
from fairlearn.metrics import MetricFrame
from sklearn.metrics import mean_squared_error

from cffair._support.validation import TargetKind, check_target_kind
from cffair.errors import DataError, MetricWarning, ParameterError

#: Outputs closer than this to 0 or 1 count as saturated (:func:`saturation`).
SATURATION_EPS = 0.01

__all__ = [
    "accuracy",
    "cf_flip_rate",
    "cf_flip_rate_by_subgroup",
    "cf_mse",
    "cf_mse_by_subgroup",
    "decision_threshold",
    "evaluate",
    "calibrated_cf_mse",
    "calibrator",
    "mse",
    "saturation",
    "undesirable_explanation_ratio",
    "worst_subgroup",
]


def _vec(a: Any, what: str) -> np.ndarray:
    arr = np.asarray(a, dtype=np.float64)
    if arr.ndim == 2 and arr.shape[1] == 1:
        arr = arr[:, 0]
    if arr.ndim != 1:
        raise DataError(f"{what} must be one value per row (1-D), got shape {arr.shape}.")
    if not np.isfinite(arr).all():
        raise DataError(f"{what} contains NaN or infinite values.")
    return arr


def _same_len(a: np.ndarray, b: np.ndarray, what: str) -> None:
    if len(a) != len(b):
        raise DataError(f"{what}: lengths differ ({len(a)} vs {len(b)}).")


def accuracy(y_true: Any, prob: Any, threshold: float = 0.5) -> float:
    """Share of rows whose predicted class ``prob ≥ threshold`` equals the 0/1 label."""
    y = _vec(y_true, "y_true")
    p = _vec(prob, "predictions")
    _same_len(y, p, "accuracy")
    if len(np.setdiff1d(np.unique(y), [0.0, 1.0])):
        raise DataError("accuracy needs 0/1 labels; use mse for a score target.")
    return float(np.mean((p >= threshold).astype(float) == y))


def mse(y_true: Any, score: Any) -> float:
    """Mean squared error of predicted scores."""
    y = _vec(y_true, "y_true")
    s = _vec(score, "predictions")
    _same_len(y, s, "mse")
    return float(np.mean((s - y) ** 2))


def cf_mse(d_x: Any, d_cf: Any) -> float:
    """CF-MSE of section 6.5, pooled over pairs: ``1/n Σ (D(x) − D(x′))²``, n = number of pairs.

    A row with k counterfactuals contributes k pairs (it is not first averaged per row).
    """
    a = _vec(d_x, "D(x)")
    b = _vec(d_cf, "D(x')")
    _same_len(a, b, "cf_mse")
    if len(a) == 0:
        raise DataError("cf_mse needs at least one (x, x') pair.")
    return float(np.mean((a - b) ** 2))


def decision_threshold(d_x: Any, target_kind: TargetKind, top_fraction: float = 0.4) -> float:
    """The threshold t of a decision ``D(x) ≥ t``: 0.5 for a binary target; for a score target
    the ``1 − top_fraction`` quantile of the factual predictions ``d_x`` (the best 40 % are
    favourable, as the paper maps Lawschool's scores in §7.3)."""
    if target_kind == "binary":
        return 0.5
    if not 0 < top_fraction < 1:
        raise ParameterError(f"top_fraction must lie strictly between 0 and 1, got {top_fraction!r}.")
    return float(np.quantile(_vec(d_x, "D(x)"), 1 - top_fraction))


def cf_flip_rate(d_x: Any, d_cf: Any, threshold: float = 0.5) -> float:
    """Share of (x, x′) pairs whose decision changes: ``1/n Σ [D(x) ≥ t] ≠ [D(x′) ≥ t]``.

    >>> cf_flip_rate([0.9, 0.2, 0.51, 0.4], [0.6, 0.7, 0.49, 0.1])
    0.5
    """
    a = _vec(d_x, "D(x)")
    b = _vec(d_cf, "D(x')")
    _same_len(a, b, "cf_flip_rate")
    if len(a) == 0:
        raise DataError("cf_flip_rate needs at least one (x, x') pair.")
    return float(np.mean((a >= threshold) != (b >= threshold)))


def cf_flip_rate_by_subgroup(d_x: Any, d_cf: Any, subgroups: Any, threshold: float = 0.5) -> pd.Series:
    """:func:`cf_flip_rate` of each subgroup's pairs (label of each pair's factual row)."""
    a = _vec(d_x, "D(x)")
    b = _vec(d_cf, "D(x')")
    _same_len(a, b, "cf_flip_rate_by_subgroup")
    labels = pd.Series(np.asarray(subgroups)).astype(str)
    if len(labels) != len(a):
        raise DataError(f"expected one subgroup label per pair ({len(a)}), got {len(labels)}.")
    flipped = pd.Series((a >= threshold) != (b >= threshold), index=labels.index, dtype=float)
    return flipped.groupby(labels.rename("subgroup")).mean().astype(float).rename("cf_flip_rate")


def cf_mse_by_subgroup(d_x: Any, d_cf: Any, subgroups: Any) -> pd.Series:
    """CF-MSE of each subgroup (pooled over its pairs) via fairlearn's ``MetricFrame``.

    ``D(x)`` is passed as ``y_true``, ``D(x′)`` as ``y_pred`` and the subgroup label of each
    pair (its factual row's subgroup) as ``sensitive_features``.
    """
    a = _vec(d_x, "D(x)")
    b = _vec(d_cf, "D(x')")
    _same_len(a, b, "cf_mse_by_subgroup")
    labels = pd.Series(np.asarray(subgroups)).astype(str)
    if len(labels) != len(a):
        raise DataError(f"expected one subgroup label per pair ({len(a)}), got {len(labels)}.")
    mf = MetricFrame(metrics=mean_squared_error, y_true=a, y_pred=b, sensitive_features=labels.rename("subgroup"))
    return mf.by_group.astype(float).rename("cf_mse")


def worst_subgroup(by_group: pd.Series) -> tuple[str, float]:
    """The subgroup with the largest CF-MSE and its value."""
    if len(by_group) == 0:
        raise DataError("no subgroups to compare.")
    name = by_group.idxmax()
    return str(name), float(by_group.loc[name])


def undesirable_explanation_ratio(explanations: pd.DataFrame) -> pd.Series:
    """Share of each sensitive group's negatively predicted rows with at least one undesirable
    counterfactual explanation (an intervention on an immutable feature that flips the outcome
    to favourable), section 7.3 / figure 4.

    Args:
        explanations: the table of :func:`cffair.evaluation.explanations` (columns ``row_id``,
            ``group``, ``feature``, ``value``, ``flipped``).
    """
    need = {"row_id", "group", "flipped"}
    if not need <= set(explanations.columns):
        raise DataError(f"explanations need columns {sorted(need)}, got {list(explanations.columns)}.")
    per_row = explanations.groupby(["group", "row_id"], observed=True)["flipped"].any()
    return per_row.groupby(level="group", observed=True).mean().astype(float).rename("undesirable_ratio")


def _finite_vector(a: Any, what: str) -> np.ndarray:
    out = np.asarray(a, dtype=np.float64).ravel()
    if out.size == 0:
        raise DataError(f"{what} is empty.")
    if not np.isfinite(out).all():
        raise DataError(f"{what} holds NaN or infinite values.")
    return out


def saturation(d: Any, eps: float = SATURATION_EPS) -> float:
    """The share of outputs ``d`` below ``eps`` or above ``1 − eps``.

    >>> saturation([0.0, 0.005, 0.5, 0.995, 1.0])
    0.8
    """
    if not 0 < eps < 0.5:
        raise ParameterError(f"eps must lie in (0, 0.5), got {eps!r}.")
    v = _finite_vector(d, "the outputs")
    return float(np.mean((v < eps) | (v > 1 - eps)))


def calibrator(d_train: Any, y_train: Any, method: Literal["platt", "isotonic"] = "platt") -> Any:
    """A function ``d ↦ calibrated P(y = 1)`` fitted on a model's training outputs and labels.

    ``platt``: a logistic regression on the log-odds of ``d`` (clipped to [1e-6, 1 − 1e-6]);
    ``isotonic``: scikit-learn's :class:`~sklearn.isotonic.IsotonicRegression`, clipped outside
    the training range. Fit it on the training folds only, never on the rows it scores.
    """
    d = _finite_vector(d_train, "the training outputs")
    y = _finite_vector(y_train, "the training labels")
    if len(d) != len(y):
        raise DataError(f"{len(d)} training outputs but {len(y)} labels.")
    if not set(np.unique(y)) <= {0.0, 1.0}:
        raise DataError("calibration needs binary labels 0/1; a score target has no probability to calibrate.")
    if len(np.unique(y)) < 2:
        raise DataError(f"calibration needs both labels among the training rows, but all {len(y)} are {int(y[0])}.")
    if method == "isotonic":
        from sklearn.isotonic import IsotonicRegression

        iso = IsotonicRegression(y_min=0.0, y_max=1.0, out_of_bounds="clip").fit(d, y)
        return lambda v: iso.predict(_finite_vector(v, "the outputs"))
    if method == "platt":
        from sklearn.linear_model import LogisticRegression

        def logit(v: Any) -> np.ndarray:
            c = np.clip(_finite_vector(v, "the outputs"), 1e-6, 1 - 1e-6)
            return np.log(c / (1 - c)).reshape(-1, 1)

        lr = LogisticRegression(C=1e6).fit(logit(d), y.astype(int))
        return lambda v: lr.predict_proba(logit(v))[:, 1]
    raise ParameterError(f"method must be 'platt' or 'isotonic', got {method!r}.")


def calibrated_cf_mse(
    d_train: Any, y_train: Any, d_x: Any, d_cf: Any, method: Literal["platt", "isotonic"] = "platt"
) -> float:
    """CF-MSE of the calibrated outputs: ``mean((c(D(x)) − c(D(x′)))²)`` with ``c`` from :func:`calibrator`."""
    c = calibrator(d_train, y_train, method)
    return cf_mse(c(d_x), c(d_cf))


def evaluate(
    score_fn: Callable[[np.ndarray], np.ndarray],
    X_test: Any,
    y_test: Any,
    pairs_test: Any,
    pair_subgroups: Sequence[str] | np.ndarray | pd.Series,
    *,
    target_kind: TargetKind,
    train: tuple[Any, Any] | None = None,
    groups: Sequence[str] | np.ndarray | pd.Series | None = None,
) -> dict[str, Any]:
    """The shared evaluation of section 6.5 for any method.

    Args:
        score_fn: ``X → D(X)``: probabilities of class 1 (binary) or scores.
        X_test, y_test: encoded test rows and labels/scores.
        pairs_test: test counterfactual pairs (``CFPairs`` or anything with ``x`` and ``x_cf``).
        pair_subgroups: the subgroup label of each pair.
        target_kind: ``"binary"`` or ``"score"``.
        train: ``(X_train, y_train)``, the encoded training rows and labels: for a binary
            target, the calibrated CF-MSE is computed with a Platt calibrator fitted on them.
        groups: the sensitive attribute's value of each test row: with it, the group fairness
            of the decisions (:func:`cffair.scores.group_fairness`, fairlearn's ``MetricFrame``)
            is recorded too.

    Returns:
        ``accuracy`` (binary) or ``mse`` (score), ``cf_mse`` (pooled over pairs),
        ``cf_mse_by_subgroup`` (dict), ``cf_mse_worst_subgroup``, ``worst_subgroup``,
        ``cf_flip_rate`` and ``cf_flip_rate_by_subgroup`` (dict; decisions at
        :func:`decision_threshold` of the factual test predictions), ``n_pairs``,
        ``prediction_sd`` (sd of the test predictions: 0 for a constant predictor); for a
        binary target also ``positive_rate`` (share of test rows predicted 1),
        ``majority_rate`` (share of the test rows' majority label: the accuracy of a constant
        predictor), ``saturation`` (:func:`saturation` of the test predictions) and, with
        ``train``, ``calibrated_cf_mse`` (:func:`calibrated_cf_mse`, Platt) and
        ``calibrated_cf_mse_by_subgroup`` (dict: the calibrated score's worst subgroup; ``None``, not
        computable, with a :class:`~cffair.errors.MetricWarning` when the training rows hold one
        class: the run goes on, as it does for a constant predictor); with ``groups``,
        ``demographic_parity_difference`` and (binary target) ``equalized_odds_difference`` of
        the decisions at the threshold between the groups.
    """
    check_target_kind(target_kind)
    X = np.asarray(X_test, dtype=np.float32)
    pred = _vec(score_fn(X), "score_fn(X_test)")
    if target_kind == "binary" and (pred.min() < 0 or pred.max() > 1):
        raise DataError("for a binary target score_fn must return probabilities in [0, 1].")
    out: dict[str, Any] = {}
    if target_kind == "binary":
        out["accuracy"] = accuracy(y_test, pred)
    else:
        out["mse"] = mse(y_test, pred)
    try:
        x, x_cf = pairs_test.x, pairs_test.x_cf
    except AttributeError:
        x, x_cf = pairs_test
    d_x = _vec(score_fn(np.asarray(x, dtype=np.float32)), "score_fn(pairs.x)")
    d_cf = _vec(score_fn(np.asarray(x_cf, dtype=np.float32)), "score_fn(pairs.x_cf)")
    out["cf_mse"] = cf_mse(d_x, d_cf)
    by = cf_mse_by_subgroup(d_x, d_cf, pair_subgroups)
    out["cf_mse_by_subgroup"] = {str(k): float(v) for k, v in by.items()}
    out["worst_subgroup"], out["cf_mse_worst_subgroup"] = worst_subgroup(by)
    t = decision_threshold(pred, target_kind)
    out["cf_flip_rate"] = cf_flip_rate(d_x, d_cf, t)
    out["cf_flip_rate_by_subgroup"] = {
        str(k): float(v) for k, v in cf_flip_rate_by_subgroup(d_x, d_cf, pair_subgroups, t).items()
    }
    out["n_pairs"] = int(len(d_x))
    out["prediction_sd"] = float(np.std(pred))
    if groups is not None:
        from cffair.scores._groupfair import group_fairness

        labels = None if target_kind != "binary" else _vec(y_test, "y_test")
        out.update(group_fairness((pred >= t).astype(int), np.asarray(groups), labels))
    if target_kind == "binary":
        y = _vec(y_test, "y_test")
        out["positive_rate"] = float(np.mean(pred >= 0.5))
        out["majority_rate"] = float(max(np.mean(y == 1), np.mean(y == 0)))
        out["saturation"] = saturation(pred)
        if train is not None:
            X_train, y_train = train
            labels = np.unique(_vec(y_train, "y_train"))
            if len(labels) < 2:  # nothing to calibrate against: not computable, as the run goes on
                held = f"all have the label {labels[0]:g}" if len(labels) else "are none"
                warnings.warn(
                    f"the calibrated CF-MSE is not computable on this fold: its training rows {held} and a calibrator "
                    "needs both labels; it is recorded as None. Give every training fold both classes (more rows of "
                    "the rare class, or fewer folds).",
                    MetricWarning,
                    stacklevel=2,
                )
                out["calibrated_cf_mse"] = out["calibrated_cf_mse_by_subgroup"] = None
            else:
                d_train = _vec(score_fn(np.asarray(X_train, dtype=np.float32)), "score_fn(X_train)")
                c = calibrator(d_train, y_train, "platt")  # the one calibrator of calibrated_cf_mse
                c_x, c_cf = c(d_x), c(d_cf)
                out["calibrated_cf_mse"] = cf_mse(c_x, c_cf)
                out["calibrated_cf_mse_by_subgroup"] = {
                    str(k): float(v) for k, v in cf_mse_by_subgroup(c_x, c_cf, pair_subgroups).items()
                }
    return out
