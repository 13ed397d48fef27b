"""Metrics of section 6.5 and the shared evaluate function."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
import pytest

from cffair.errors import DataError
from cffair.metrics import accuracy, cf_mse, cf_mse_by_subgroup, evaluate, mse, undesirable_explanation_ratio, worst_subgroup


@dataclass
class Pairs:  # stand-in for cffair.causal.cfset.CFPairs
    row_id: np.ndarray
    x: np.ndarray
    x_cf: np.ndarray


def test_accuracy_and_mse_hand_values():
    assert accuracy([1, 0, 1, 0], [0.9, 0.6, 0.4, 0.1]) == pytest.approx(0.5)
    assert mse([0.0, 1.0], [1.0, 1.0]) == pytest.approx(0.5)
    with pytest.raises(DataError, match="0/1"):
        accuracy([0.3, 1.0], [0.5, 0.5])
    with pytest.raises(DataError, match="lengths"):
        mse([1.0], [1.0, 2.0])
    with pytest.raises(DataError, match="NaN"):
        cf_mse([np.nan], [1.0])


def test_cf_mse_is_pooled_over_pairs_not_rows():
    # row A has 3 pairs with difference 1, row B one pair with difference 0
    d_x = [1.0, 1.0, 1.0, 0.0]
    d_cf = [0.0, 0.0, 0.0, 0.0]
    assert cf_mse(d_x, d_cf) == pytest.approx(3 / 4)  # per-row average would give 1/2


def test_cf_mse_by_subgroup_and_worst():
    by = cf_mse_by_subgroup([1.0, 0.0, 0.5, 0.5], [0.0, 0.0, 0.0, 0.5], ["a", "a", "b", "b"])
    assert by.to_dict() == pytest.approx({"a": 0.5, "b": 0.125})
    assert worst_subgroup(by) == ("a", pytest.approx(0.5))
    with pytest.raises(DataError, match="one subgroup label per pair"):
        cf_mse_by_subgroup([1.0], [1.0], ["a", "b"])


def test_evaluate_binary_and_score():
    X = np.array([[0.0], [1.0], [2.0], [3.0]], dtype=np.float32)
    y = np.array([0, 0, 1, 1])
    prob = lambda Z: np.clip(np.asarray(Z)[:, 0] / 3, 0, 1)  # noqa: E731
    pairs = Pairs(np.arange(4), X, X + 1)
    res = evaluate(prob, X, y, pairs, ["g1", "g1", "g2", "g2"], "binary")
    assert res["accuracy"] == pytest.approx(1.0)
    expected = np.minimum((X[:, 0] + 1) / 3, 1) - X[:, 0] / 3
    assert res["cf_mse"] == pytest.approx(np.mean(expected**2))
    assert res["cf_mse_by_subgroup"] == pytest.approx({"g1": np.mean(expected[:2] ** 2), "g2": np.mean(expected[2:] ** 2)})
    assert res["worst_subgroup"] == "g1" and res["n_pairs"] == 4
    assert res["cf_mse_worst_subgroup"] == pytest.approx(max(res["cf_mse_by_subgroup"].values()))
    score = evaluate(lambda Z: np.asarray(Z)[:, 0] * 2, X, X[:, 0] * 2 + 1, (X, X), ["a"] * 4, "score")
    assert score["mse"] == pytest.approx(1.0) and score["cf_mse"] == 0.0 and "accuracy" not in score
    with pytest.raises(DataError, match="probabilities"):
        evaluate(lambda Z: np.asarray(Z)[:, 0] * 5, X, y, pairs, ["a"] * 4, "binary")


def test_undesirable_explanation_ratio():
    expl = pd.DataFrame(
        {
            "row_id": [1, 1, 2, 3, 4],
            "group": ["a", "a", "a", "b", "b"],
            "feature": ["F", "G", "F", "F", "F"],
            "flipped": [False, True, False, False, False],
        }
    )
    assert undesirable_explanation_ratio(expl).to_dict() == {"a": 0.5, "b": 0.0}
