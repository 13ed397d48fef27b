"""Group fairness beside counterfactual fairness: demographic parity and equalized odds (fairlearn).

Counterfactual fairness (:mod:`cffair.scores._metrics`) compares each person with their twin; group
fairness compares *groups* of the sensitive attribute ``S``:

* the **demographic-parity difference**: the largest minus the smallest share of rows decided
  ``1`` among the groups of ``S`` (``max_a P(D = 1 | S = a) − min_a P(D = 1 | S = a)``);
* the **equalized-odds difference**: the larger of the true-positive-rate difference and the
  false-positive-rate difference between the groups of ``S`` (Hardt et al. 2016), each a
  largest minus smallest rate; it needs the true labels.

Both are 0 for a model that treats the groups alike and at most 1. A model can be
counterfactually fair and still differ between groups (the groups differ in features that are
not descendants of ``S``), and the other way round. Both are computed from one
fairlearn :class:`~fairlearn.metrics.MetricFrame` of ``selection_rate``, ``true_positive_rate``
and ``false_positive_rate`` by group (:func:`group_rates`), so they equal fairlearn's
``demographic_parity_difference`` and ``equalized_odds_difference``
(``tests/evaluation/test_groupfair.py`` compares them). Decisions are 0/1 (a binary target's ``D ≥ 0.5``;
a score target's best ``favourable_top_fraction``), so the
label called favourable does not change either number.
"""

from __future__ import annotations

__all__ = ["GROUP_METRICS", "group_fairness", "group_rates"]

from typing import Any

import numpy as np
import pandas as pd

from cffair.errors import DataError

#: The group-fairness numbers :func:`group_fairness` returns, in display order.
GROUP_METRICS: tuple[str, ...] = ("demographic_parity_difference", "equalized_odds_difference")


def _decisions(values: Any, n: int | None, what: str) -> np.ndarray:
    out = np.asarray(values, dtype=np.float64).ravel()
    if n is not None and len(out) != n:
        raise DataError(f"{what}: expected {n} values (one per row), got {len(out)}.")
    if len(np.setdiff1d(np.unique(out), [0.0, 1.0])):
        raise DataError(f"{what} must be 0/1 (decisions or labels), got values such as {np.unique(out)[:4]}.")
    return out.astype(int)


def group_rates(decisions: Any, groups: Any, y_true: Any = None) -> pd.DataFrame:
    """Per group of ``groups``: ``n_rows``, ``selection_rate`` (share decided 1) and, with
    ``y_true``, ``true_positive_rate`` and ``false_positive_rate``, from a fairlearn
    :class:`~fairlearn.metrics.MetricFrame`.

    A group without a row of label 1 (0) has no true-positive (false-positive) rate: NaN.

    Example:
        >>> group_rates([1, 0, 1, 1], ["a", "a", "b", "b"])["selection_rate"].to_dict()
        {'a': 0.5, 'b': 1.0}

    Raises:
        DataError: decisions or labels that are not 0/1, or lengths that differ.
    """
    from fairlearn.metrics import MetricFrame, count, selection_rate

    d = _decisions(decisions, None, "the decisions")
    g = pd.Series(np.asarray(groups).astype(str), name="group")
    if len(g) != len(d):
        raise DataError(f"expected one group per decision ({len(d)}), got {len(g)}.")
    if len(d) == 0:
        raise DataError("group fairness needs at least one row.")
    metrics: dict[str, Any] = {"n_rows": count, "selection_rate": selection_rate}
    y = d if y_true is None else _decisions(y_true, len(d), "the labels")
    if y_true is not None:
        metrics["true_positive_rate"] = _rate(1)
        metrics["false_positive_rate"] = _rate(0)
    frame = MetricFrame(metrics=metrics, y_true=y, y_pred=d, sensitive_features=g).by_group
    return frame.astype({"n_rows": int})


def _rate(label: int) -> Any:
    """The share decided 1 among the rows of true label ``label`` (NaN when there are none):
    the true-positive rate for 1, the false-positive rate for 0."""

    def rate(y_true: Any, y_pred: Any) -> float:
        yt, yp = np.asarray(y_true), np.asarray(y_pred)
        m = yt == label
        return float(yp[m].mean()) if m.any() else float("nan")

    rate.__name__ = "true_positive_rate" if label == 1 else "false_positive_rate"
    return rate


def group_fairness(decisions: Any, groups: Any, y_true: Any = None) -> dict[str, float | None]:
    """The demographic-parity and equalized-odds differences of 0/1 ``decisions`` between the
    groups of ``groups`` (the sensitive attribute's values), from :func:`group_rates`.

    The equalized-odds difference needs ``y_true`` (``None`` without it, or when fewer than two
    groups have rows of a label). A single group gives 0 for both.

    Example:
        >>> group_fairness([1, 0, 1, 1], ["a", "a", "b", "b"], y_true=[1, 0, 1, 0])
        {'demographic_parity_difference': 0.5, 'equalized_odds_difference': 1.0}
    """
    rates = group_rates(decisions, groups, y_true)
    out: dict[str, float | None] = {"demographic_parity_difference": _spread(rates["selection_rate"])}
    eo = None
    if y_true is not None:
        parts = [_spread(rates[c]) for c in ("true_positive_rate", "false_positive_rate")]
        known = [p for p in parts if p is not None]
        eo = max(known) if known else None
    out["equalized_odds_difference"] = eo
    return out


def _spread(column: pd.Series) -> float | None:
    """Largest minus smallest of the groups' values (NaN groups left out; ``None`` when none is known)."""
    v = column.dropna().to_numpy(dtype=np.float64)
    return float(v.max() - v.min()) if len(v) else None
