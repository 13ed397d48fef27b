"""cffair.evaluation._diagnostics: saturation, CF-MSE per flip, calibrated CF-MSE and A4's gradient share,
each against a hand computation."""

from __future__ import annotations

import math

import numpy as np
import pytest

from cffair.errors import DataError
from cffair.evaluation._diagnostics import a4_gradient_share, calibrated_cf_mse, calibrator, cf_mse_per_flip, saturation
from cffair.logic._axioms import Semantics

EXACT = Semantics(stable=False)  # ltntorch's plain operators: the hand computation below has no ε


def test_saturation_counts_outputs_near_zero_and_one() -> None:
    assert saturation([0.0, 0.005, 0.5, 0.995, 1.0]) == pytest.approx(0.8)
    assert saturation([0.2, 0.8], eps=0.25) == 1.0
    with pytest.raises(ValueError):
        saturation([0.5], eps=0.6)


def test_cf_mse_per_flip_is_one_for_a_hard_model_and_small_for_a_soft_one() -> None:
    assert cf_mse_per_flip([1, 0, 1, 0], [0, 0, 1, 1]) == pytest.approx(1.0)
    soft = cf_mse_per_flip([0.55, 0.3], [0.45, 0.3])  # one flip of 0.1: CF-MSE 0.005, flip rate 0.5
    assert soft == pytest.approx(0.01)
    assert math.isnan(cf_mse_per_flip([0.2], [0.3]))


def test_isotonic_calibration_of_a_hard_model_maps_each_output_to_its_training_rate() -> None:
    # training: D = 1 on 10 rows of which 8 are positive; D = 0 on 10 rows of which 3 are positive
    d_train = np.r_[np.ones(10), np.zeros(10)]
    y_train = np.r_[np.ones(8), np.zeros(2), np.ones(3), np.zeros(7)]
    c = calibrator(d_train, y_train, "isotonic")
    np.testing.assert_allclose(c([1.0, 0.0]), [0.8, 0.3])
    # one flipped pair of two: calibrated CF-MSE = (0.8 − 0.3)² / 2
    assert calibrated_cf_mse(d_train, y_train, [1.0, 1.0], [0.0, 1.0], "isotonic") == pytest.approx(0.125)


def test_platt_calibration_is_monotone_and_agrees_with_the_rates_of_a_hard_model() -> None:
    d_train = np.r_[np.ones(10), np.zeros(10)]
    y_train = np.r_[np.ones(8), np.zeros(2), np.ones(3), np.zeros(7)]
    c = calibrator(d_train, y_train, "platt")
    np.testing.assert_allclose(c([1.0, 0.0]), [0.8, 0.3], atol=1e-3)
    grid = np.linspace(0, 1, 11)
    assert np.all(np.diff(c(grid)) >= 0)
    with pytest.raises(DataError, match="binary labels"):
        calibrator([0.1, 0.2, 0.3], [0.5, 1.0, 2.0])


def test_a4_gradient_share_by_hand() -> None:
    # pair 1 flipped (D = 1, D′ = 0): v = (1 − a + ab)(1 − b + ab) = 0, |∂v/∂a| = |∂v/∂b| = 1.
    # pair 2 agrees (0.9, 0.9): v = 0.91², ∂v/∂a = ∂v/∂b = −0.1·0.91 + 0.91·0.9 = 0.728.
    a, b = [1.0, 0.9], [0.0, 0.9]
    # p = 1: ∀ is the mean of v, so each pair's gradient is its own ∂v (÷ n).
    assert a4_gradient_share(a, b, p=1, semantics=EXACT) == pytest.approx(2 / (2 + 1.456))
    # p = 2: each pair weighs (1 − v): 1 for pair 1, 1 − 0.8281 = 0.1719 for pair 2.
    w2 = 1 - 0.91**2
    assert a4_gradient_share(a, b, p=2, semantics=EXACT) == pytest.approx(2 / (2 + 1.456 * w2))
    # the share grows with p towards 1
    shares = [a4_gradient_share(a, b, p=p) for p in (1, 2, 6)]
    assert shares[0] < shares[1] < shares[2] < 1


def test_a4_gradient_share_without_flips_is_zero_and_checks_its_input() -> None:
    assert a4_gradient_share([0.9, 0.2], [0.8, 0.3], p=2) == 0.0
    with pytest.raises(DataError):
        a4_gradient_share([0.9], [0.8, 0.3])
    with pytest.raises(ValueError):
        a4_gradient_share([0.9], [0.8], p=0.5)
