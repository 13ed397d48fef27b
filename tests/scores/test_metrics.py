"""Metrics of section 6.5 and the shared evaluate function."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
import pytest

from cffair.errors import DataError
from cffair.scores._metrics import (
    accuracy,
    cf_flip_rate,
    cf_flip_rate_by_subgroup,
    cf_mse,
    cf_mse_by_subgroup,
    decision_threshold,
    evaluate,
    mse,
    undesirable_explanation_ratio,
    worst_subgroup,
)


@dataclass
class Pairs:  # stand-in for cffair.causal._cfset.CFPairs
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
    res = evaluate(prob, X, y, pairs, ["g1", "g1", "g2", "g2"], target_kind="binary")
    assert res["accuracy"] == pytest.approx(1.0)
    expected = np.minimum((X[:, 0] + 1) / 3, 1) - X[:, 0] / 3
    assert res["cf_mse"] == pytest.approx(np.mean(expected**2))
    assert res["cf_mse_by_subgroup"] == pytest.approx(
        {"g1": np.mean(expected[:2] ** 2), "g2": np.mean(expected[2:] ** 2)}
    )
    assert res["worst_subgroup"] == "g1" and res["n_pairs"] == 4
    assert res["cf_mse_worst_subgroup"] == pytest.approx(max(res["cf_mse_by_subgroup"].values()))
    score = evaluate(lambda Z: np.asarray(Z)[:, 0] * 2, X, X[:, 0] * 2 + 1, (X, X), ["a"] * 4, target_kind="score")
    assert score["mse"] == pytest.approx(1.0) and score["cf_mse"] == 0.0 and "accuracy" not in score
    with pytest.raises(DataError, match="probabilities"):
        evaluate(lambda Z: np.asarray(Z)[:, 0] * 5, X, y, pairs, ["a"] * 4, target_kind="binary")


def test_flip_rate_counts_changed_decisions_not_distances():
    # a soft classifier: four small shifts across 0.5 flip four decisions at a tiny CF-MSE;
    # a confident one: one flip from 1 to 0 costs a CF-MSE of 1/4 but flips one decision in four
    soft_x, soft_cf = [0.51, 0.52, 0.49, 0.48], [0.49, 0.48, 0.51, 0.52]
    hard_x, hard_cf = [1.0, 1.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0]
    assert cf_flip_rate(soft_x, soft_cf) == 1.0 and cf_mse(soft_x, soft_cf) == pytest.approx(0.0010, abs=1e-4)
    assert cf_flip_rate(hard_x, hard_cf) == 0.25 and cf_mse(hard_x, hard_cf) == pytest.approx(0.25)
    # a decision is D >= t: exactly t counts as positive
    assert cf_flip_rate([0.5], [0.4999]) == 1.0 and cf_flip_rate([0.5], [0.5]) == 0.0
    by = cf_flip_rate_by_subgroup(hard_x, hard_cf, ["a", "a", "b", "b"])
    assert by.to_dict() == {"a": 0.5, "b": 0.0}
    with pytest.raises(DataError, match="lengths"):
        cf_flip_rate([1.0], [1.0, 0.0])
    with pytest.raises(DataError, match="one subgroup label per pair"):
        cf_flip_rate_by_subgroup([1.0], [1.0], ["a", "b"])


def test_decision_threshold_of_a_score_is_the_top_fraction():
    d = np.arange(10, dtype=float)  # the best 40 % are 6, 7, 8, 9
    t = decision_threshold(d, "score")
    assert np.sum(d >= t) == 4
    assert decision_threshold(d, "binary") == 0.5
    with pytest.raises(ValueError, match="strictly between 0 and 1"):
        decision_threshold(d, "score", top_fraction=1.0)


def test_evaluate_reports_flip_rates_beside_cf_mse():
    X = np.array([[0.0], [1.0], [2.0], [3.0]], dtype=np.float32)
    prob = lambda Z: np.clip(np.asarray(Z)[:, 0] / 3, 0, 1)  # noqa: E731
    pairs = Pairs(np.arange(4), X, X + 1)  # decisions 0, 0, 1, 1 become 0, 1, 1, 1
    res = evaluate(prob, X, np.array([0, 0, 1, 1]), pairs, ["g1", "g1", "g2", "g2"], target_kind="binary")
    assert res["cf_flip_rate"] == pytest.approx(0.25)
    assert res["cf_flip_rate_by_subgroup"] == {"g1": 0.5, "g2": 0.0}
    # a score target decides at the best 40 % of the factual test predictions (scores 4 and 6 of 0, 2, 4, 6)
    score = evaluate(lambda Z: np.asarray(Z)[:, 0] * 2, X, X[:, 0], (X, X[::-1]), ["a"] * 4, target_kind="score")
    assert score["cf_flip_rate"] == pytest.approx(1.0)  # 0↔6 and 2↔4 swap sides of the threshold


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


def test_evaluate_reports_spread_saturation_majority_and_calibrated_cf_mse() -> None:
    """A hard model (outputs 0/1) on known rows: every new number by hand."""
    from cffair.scores._metrics import evaluate

    # one input column; D(x) = 1 if x > 0 else 0
    def hard(X):
        return (np.asarray(X)[:, 0] > 0).astype(float)

    X_test = np.array([[1.0], [-1.0], [2.0], [-2.0]], dtype=np.float32)
    y_test = np.array([1, 0, 0, 0])
    pairs = (
        np.array([[1.0], [-1.0]], dtype=np.float32),
        np.array([[-1.0], [-1.0]], dtype=np.float32),
    )  # one flip of two
    # training rows: D = 1 on 4 rows (3 positive), D = 0 on 4 rows (1 positive) -> calibrated 0.75 and 0.25
    X_train = np.array([[1.0]] * 4 + [[-1.0]] * 4, dtype=np.float32)
    y_train = np.array([1, 1, 1, 0, 1, 0, 0, 0])
    m = evaluate(hard, X_test, y_test, pairs, ["a", "b"], target_kind="binary", train=(X_train, y_train))
    assert m["accuracy"] == 0.75 and m["cf_mse"] == 0.5 and m["cf_flip_rate"] == 0.5
    assert m["prediction_sd"] == pytest.approx(0.5) and m["positive_rate"] == 0.5
    assert m["majority_rate"] == 0.75 and m["saturation"] == 1.0
    assert m["calibrated_cf_mse"] == pytest.approx((0.75 - 0.25) ** 2 / 2, abs=1e-3)
    # per subgroup: a's pair flips (0.75 vs 0.25), b's does not; the calibrated score's worst subgroup is a
    assert m["calibrated_cf_mse_by_subgroup"] == pytest.approx({"a": 0.25, "b": 0.0}, abs=1e-3)
    no_train = evaluate(hard, X_test, y_test, pairs, ["a", "b"], target_kind="binary")
    assert "calibrated_cf_mse" not in no_train


def test_a_training_fold_of_one_class_leaves_the_calibrated_cf_mse_not_computable() -> None:
    """A fold whose training rows hold one class: no calibrator can be fitted, so the calibrated
    CF-MSE is recorded as not computable (None) with a warning, and every other number is as with
    two classes; the evaluation never raises (a run goes on, as for a constant predictor)."""
    import warnings

    from cffair.errors import MetricWarning
    from cffair.scores._metrics import calibrator, evaluate

    def soft(X):
        return 1 / (1 + np.exp(-np.asarray(X)[:, 0]))

    X_test = np.array([[1.0], [-1.0], [2.0], [-2.0]], dtype=np.float32)
    y_test = np.array([1, 0, 0, 0])
    pairs = (np.array([[1.0], [-1.0]], dtype=np.float32), np.array([[-1.0], [-1.0]], dtype=np.float32))
    X_train = np.array([[0.5], [-0.5], [1.5]], dtype=np.float32)
    both = evaluate(soft, X_test, y_test, pairs, ["a", "b"], target_kind="binary", train=(X_train, np.array([1, 0, 0])))
    assert np.isfinite(both["calibrated_cf_mse"])
    for label in (0, 1):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            one = evaluate(
                soft, X_test, y_test, pairs, ["a", "b"], target_kind="binary", train=(X_train, np.full(3, label))
            )
        assert one["calibrated_cf_mse"] is None and one["calibrated_cf_mse_by_subgroup"] is None
        calibrated = ("calibrated_cf_mse", "calibrated_cf_mse_by_subgroup")
        assert {k: v for k, v in one.items() if k not in calibrated} == {
            k: v for k, v in both.items() if k not in calibrated
        }
        said = [w for w in caught if issubclass(w.category, MetricWarning)]
        assert len(said) == 1 and "not computable" in str(said[0].message) and f"label {label}" in str(said[0].message)
        # the calibrator itself, asked directly, says why in one line instead of scikit-learn's error
        with pytest.raises(DataError, match="needs both labels"):
            calibrator([0.2, 0.4, 0.9], np.full(3, label))
