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
* the ratio of undesirable counterfactual explanations per sensitive group (section 7.3,
  figure 4 bottom), from :func:`cffair.cke.explanations`.

:func:`evaluate` is the one function every method calls, so all numbers are computed alike.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Literal

import numpy as np
import pandas as pd
from fairlearn.metrics import MetricFrame
from sklearn.metrics import mean_squared_error

from cffair.errors import DataError

__all__ = [
    "accuracy",
    "cf_flip_rate",
    "cf_flip_rate_by_subgroup",
    "cf_mse",
    "cf_mse_by_subgroup",
    "decision_threshold",
    "evaluate",
    "mse",
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


def decision_threshold(d_x: Any, target_kind: Literal["binary", "score"], top_fraction: float = 0.4) -> float:
    """The threshold t of a decision ``D(x) ≥ t``: 0.5 for a binary target; for a score target
    the ``1 − top_fraction`` quantile of the factual predictions ``d_x`` (the best 40 % are
    favourable, as the paper maps Lawschool's scores in §7.3)."""
    if target_kind == "binary":
        return 0.5
    if not 0 < top_fraction < 1:
        raise ValueError(f"top_fraction must lie strictly between 0 and 1, got {top_fraction!r}.")
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
        explanations: the table of :func:`cffair.cke.explanations` (columns ``row_id``,
            ``group``, ``feature``, ``value``, ``flipped``).
    """
    need = {"row_id", "group", "flipped"}
    if not need <= set(explanations.columns):
        raise DataError(f"explanations need columns {sorted(need)}, got {list(explanations.columns)}.")
    per_row = explanations.groupby(["group", "row_id"], observed=True)["flipped"].any()
    return per_row.groupby(level="group", observed=True).mean().astype(float).rename("undesirable_ratio")


def evaluate(
    score_fn: Callable[[np.ndarray], np.ndarray],
    X_test: Any,
    y_test: Any,
    pairs_test: Any,
    pair_subgroups: Sequence[str] | np.ndarray | pd.Series,
    target_kind: Literal["binary", "score"],
) -> dict[str, Any]:
    """The shared evaluation of section 6.5 for any method.

    Args:
        score_fn: ``X → D(X)``: probabilities of class 1 (binary) or scores.
        X_test, y_test: encoded test rows and labels/scores.
        pairs_test: test counterfactual pairs (``CFPairs`` or anything with ``x`` and ``x_cf``).
        pair_subgroups: the subgroup label of each pair.
        target_kind: ``"binary"`` or ``"score"``.

    Returns:
        ``accuracy`` (binary) or ``mse`` (score), ``cf_mse`` (pooled over pairs),
        ``cf_mse_by_subgroup`` (dict), ``cf_mse_worst_subgroup``, ``worst_subgroup``,
        ``cf_flip_rate`` and ``cf_flip_rate_by_subgroup`` (dict; decisions at
        :func:`decision_threshold` of the factual test predictions), ``n_pairs``.
    """
    if target_kind not in ("binary", "score"):
        raise ValueError(f"target_kind must be 'binary' or 'score', got {target_kind!r}.")
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
    out["cf_flip_rate_by_subgroup"] = {str(k): float(v) for k, v in cf_flip_rate_by_subgroup(d_x, d_cf, pair_subgroups, t).items()}
    out["n_pairs"] = int(len(d_x))
    return out
