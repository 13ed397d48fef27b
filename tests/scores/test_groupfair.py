"""Group fairness beside counterfactual fairness: fairlearn's numbers, in every record of a run."""

from __future__ import annotations

import numpy as np
import pytest
from fairlearn.metrics import MetricFrame, demographic_parity_difference, equalized_odds_difference, selection_rate

from cffair.scores._groupfair import group_fairness, group_rates
from cffair.scores._metrics import evaluate


def test_group_fairness_equals_fairlearns_functions() -> None:
    rng = np.random.default_rng(0)
    n = 600
    g = rng.choice(["a", "b", "c"], size=n)
    y = rng.integers(0, 2, n)
    d = (rng.uniform(size=n) < 0.3 + 0.25 * (g == "a") + 0.2 * y).astype(int)
    ours = group_fairness(d, g, y)
    assert ours["demographic_parity_difference"] == pytest.approx(
        demographic_parity_difference(y, d, sensitive_features=g)
    )
    assert ours["equalized_odds_difference"] == pytest.approx(equalized_odds_difference(y, d, sensitive_features=g))
    rates = group_rates(d, g, y)
    by = MetricFrame(metrics=selection_rate, y_true=y, y_pred=d, sensitive_features=g).by_group
    np.testing.assert_allclose(rates["selection_rate"].to_numpy(), by.to_numpy())
    assert list(rates["n_rows"]) == [int((g == k).sum()) for k in ("a", "b", "c")]
    assert group_fairness(d, np.full(n, "x"), y) == {
        "demographic_parity_difference": 0.0,
        "equalized_odds_difference": 0.0,
    }  # one group: nothing to differ
    assert group_fairness(d, g)["equalized_odds_difference"] is None  # no labels, no equalized odds
    with pytest.raises(Exception, match="must be 0/1"):
        group_fairness([0.2, 0.7], ["a", "b"])


def test_evaluate_records_group_fairness_of_the_decisions_when_given_the_groups() -> None:
    X = np.arange(8, dtype=np.float32)[:, None]
    y = np.array([0, 1, 0, 1, 0, 1, 1, 1])
    prob = lambda Z: np.asarray(Z)[:, 0] / 7  # noqa: E731  decisions: rows 4..7 (D >= 0.5)
    groups = np.array(["a", "a", "a", "a", "b", "b", "b", "b"])
    out = evaluate(prob, X, y, (X, X), ["g"] * 8, target_kind="binary", groups=groups)
    decided = (X[:, 0] / 7 >= 0.5).astype(int)
    assert out["demographic_parity_difference"] == pytest.approx(1.0)  # group a: none decided 1, group b: all
    assert out["equalized_odds_difference"] == pytest.approx(
        equalized_odds_difference(y, decided, sensitive_features=groups)
    )
    assert "demographic_parity_difference" not in evaluate(prob, X, y, (X, X), ["g"] * 8, target_kind="binary")
    score = evaluate(lambda Z: np.asarray(Z)[:, 0], X, X[:, 0], (X, X), ["g"] * 8, target_kind="score", groups=groups)
    # a score target: decisions are the best 40 % (rows 5, 6, 7, at or above the 0.6 quantile 4.2), no labels to compare
    assert score["demographic_parity_difference"] == pytest.approx(0.75) and score["equalized_odds_difference"] is None
