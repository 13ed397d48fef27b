"""The degenerate-model screen (cffair.scores._screen): each rule on a known case, and one verdict whether
it reads predictions or the metrics a record holds."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cffair.scores._metrics import evaluate
from cffair.scores._screen import CONSTANT_SD, NEAR_CONSTANT_SHARE, screen, screen_metrics


def test_each_binary_rule_on_a_known_case():
    y = np.array([1, 0, 1, 0, 1, 0, 0, 0])  # majority 0.625 (label 0)
    assert screen(np.full(8, 0.3), y).kind == "constant"
    assert screen(np.linspace(0.6, 0.9, 8), y).kind == "near_constant"  # varied scores, one decision
    wrong_half = np.array([0.9, 0.1, 0.2, 0.8, 0.9, 0.1, 0.8, 0.3])  # accuracy 0.625 = majority
    assert screen(wrong_half, y).kind == "below_majority"
    good = np.array([0.9, 0.1, 0.8, 0.2, 0.7, 0.3, 0.4, 0.1])  # accuracy 1
    assert screen(good, y).kind == "ok" and not screen(good, y).collapsed


def test_near_constant_is_decided_at_the_stated_share():
    n = 1000
    k = round(n * NEAR_CONSTANT_SHARE)
    at = np.r_[np.full(k, 0.9), np.linspace(0.0, 0.4, n - k)]
    under = np.r_[np.full(k - 1, 0.9), np.linspace(0.0, 0.4, n - k + 1)]
    assert screen(at).kind == "near_constant" and screen(under).kind == "ok"


def test_score_rules():
    y = np.linspace(0.0, 1.0, 50)
    assert screen(np.full(50, 0.5), y, target_kind="score").kind == "constant"
    assert screen(y[::-1], y, target_kind="score").kind == "no_better_than_mean"  # MSE 4/3 of the variance
    assert screen(y + 0.01, y, target_kind="score").kind == "ok"
    assert screen(np.full(3, 1.0) + np.array([0, CONSTANT_SD, 0]), target_kind="score").kind == "constant"


@settings(max_examples=60, deadline=None)
@given(
    pred=st.lists(st.floats(0, 1, allow_nan=False), min_size=4, max_size=40),
    seed=st.integers(0, 2**16),
)
def test_the_record_verdict_equals_the_prediction_verdict(pred, seed):
    """screen_metrics on evaluate()'s record metrics says what screen says on the predictions."""
    p = np.asarray(pred, dtype=np.float32)
    y = np.random.default_rng(seed).integers(0, 2, len(p))
    X = np.arange(len(p), dtype=np.float32)[:, None]
    metrics = evaluate(lambda x: p[x[:, 0].astype(int)], X, y, (X, X), ["g"] * len(p), target_kind="binary")
    assert screen_metrics(metrics) == screen(p, y)


def test_a_record_without_the_numbers_is_not_flagged():
    assert not screen_metrics({"accuracy": 0.8})
    assert not screen_metrics({"mse": 0.1})
    assert screen_metrics({"mse": 0.1, "prediction_sd": 0.0}).kind == "constant"


@pytest.mark.parametrize("y", [None, np.array([1, 1, 0])])
def test_an_empty_prediction_is_not_flagged(y):
    assert not screen(np.array([]), None)
