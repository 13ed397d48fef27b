"""Statistics for r × k repeated cross-validation: the sign-flip test over partition means, the
minimum detectable difference of the corrected test, and trends with the fold as the unit."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps

from cffair.errors import DataError, ParameterError
from cffair.reporting import _stats as S
from cffair.reporting import _verdicts as V

THREE = [0] * 5 + [1] * 5 + [2] * 5


# ---------------------------------------------------------------------------- sign flips over partitions
def test_the_partition_sign_flip_reads_partition_means_and_cannot_go_below_two_over_two_to_the_r():
    d = np.full(15, 0.01)
    assert S.sign_flip_p(d) == pytest.approx(2 / 2**15)  # the 15 folds as if independent: p < 0.001
    assert S.partition_sign_flip_p(d, THREE) == 0.25 == S.min_sign_flip_p(3)  # 3 partition means: 2 of 8
    # the p equals the plain sign-flip test over the partition means
    rng = np.random.default_rng(0)
    for _ in range(20):
        x = rng.normal(size=15)
        assert S.partition_sign_flip_p(x, THREE) == S.sign_flip_p(S.partition_means(x, THREE))
        assert S.partition_sign_flip_p(x, THREE) >= 0.25
    assert S.partition_sign_flip_p(np.full(5, 0.3), [0] * 5) == 1.0 == S.min_sign_flip_p(1)


def test_a_comparison_over_three_partitions_prints_the_partition_sign_flip_and_one_partition_none():
    a, b = np.linspace(0.70, 0.72, 15), np.linspace(0.60, 0.63, 15)
    r = V.paired(a, b, larger=True, partitions=THREE)
    assert r.repetitions == 3 and r.p_sign == 0.25 and "sign-flip over 3 partitions 0.250" in V.p_text(r)
    one = V.paired(a[:5], b[:5], larger=True)
    assert math.isnan(one.p_sign) and "sign-flip" not in V.p_text(one)
    with pytest.raises(DataError, match="partition label per pair is needed, got 2 for 15 pairs"):
        V.paired(a, b, larger=True, partitions=[0, 1])


def test_values_that_cannot_be_paired_are_data_errors_that_say_why():
    with pytest.raises(DataError, match=r"one value per fold on both sides, got \(5,\) and \(4,\)"):
        V.paired(np.ones(5), np.ones(4), larger=True)
    with pytest.raises(DataError, match=r"all 3 pairs have a NaN\): compute the missing folds"):
        V.paired([0.7, math.nan, 0.6], [math.nan, 0.5, math.nan], larger=True)
    x = pd.Series([0.7, 0.71], index=pd.MultiIndex.from_tuples([(0, 0), (0, 1)]))
    y = pd.Series([0.6, 0.61], index=pd.MultiIndex.from_tuples([(1, 0), (1, 1)]))
    with pytest.raises(DataError, match=r"\(2 and 2 folds, none shared\)"):
        V.paired_series(x, y, larger=True)
    with pytest.raises(ParameterError, match="Rules: unknown test 'exact'"):
        V.Rules(test="exact")


# ---------------------------------------------------------------------------- minimum detectable difference
def test_the_minimum_detectable_difference_has_the_normal_answer_for_many_folds():
    z = sps.norm.ppf(0.975) + sps.norm.ppf(0.8)
    assert S.min_detectable_difference(1.0, 10**6) == pytest.approx(z * math.sqrt(1e-6 + 0.25), rel=1e-3)
    assert S.min_detectable_difference(0.02, 10**6) == pytest.approx(0.02 * z * 0.5, rel=1e-3)  # linear in sd
    assert S.min_detectable_difference(0.0, 15) == 0.0


@pytest.mark.parametrize("n", [3, 5, 15])
def test_the_test_has_eighty_percent_power_at_the_minimum_detectable_difference(n):
    delta = S.min_detectable_difference(0.01, n)
    assert S.power_corrected(delta, 0.01, n) == pytest.approx(0.8, abs=1e-6)
    assert S.power_corrected(0.9 * delta, 0.01, n) < 0.8 < S.power_corrected(1.1 * delta, 0.01, n)
    assert S.power_corrected(0.0, 0.01, n) == pytest.approx(0.05, abs=1e-9)


def test_fewer_folds_need_a_larger_difference():
    mdd = [S.min_detectable_difference(0.01, n) for n in (3, 5, 10, 15, 30)]
    assert mdd == sorted(mdd, reverse=True) and mdd[-1] > 0.01 * math.sqrt(0.25) * 2.8  # the 1/4 floor stays


def test_the_power_holds_in_a_simulation_of_the_tests_own_correlated_model():
    # Nadeau–Bengio's model: differences with variance σ², pairwise correlation ρ = 1/k (here 0.2), so the
    # sample variance estimates (1 − ρ)σ²; at the difference its formula gives, 80 % of runs reject
    n, rho, sigma, runs = 15, 0.2, 1.0, 4000
    sd_s = sigma * math.sqrt(1 - rho)  # what the folds' sample sd estimates
    delta = S.min_detectable_difference(sd_s, n)
    rng = np.random.default_rng(1)
    shared = rng.normal(size=(runs, 1)) * sigma * math.sqrt(rho)
    d = delta + shared + rng.normal(size=(runs, n)) * sigma * math.sqrt(1 - rho)
    rejected = np.mean([S.corrected_t(row).p < 0.05 for row in d])
    assert rejected == pytest.approx(0.8, abs=0.025)


def test_an_inconclusive_comparison_states_what_it_could_have_detected():
    a, b = [0.70, 0.66, 0.69, 0.65, 0.70], [0.69, 0.67, 0.68, 0.66, 0.69]
    r = V.paired(a, b, larger=True)
    assert r.verdict == V.INCONCLUSIVE and r.mdd == pytest.approx(S.min_detectable_difference(r.sd, 5))
    assert f"detects |Δ| ≥ {r.mdd:.3f} at 80 % power" in V.p_text(r)
    clear = V.paired([0.70, 0.71, 0.69, 0.72, 0.70], [0.65, 0.66, 0.66, 0.67, 0.64], larger=True)
    assert clear.verdict == V.HOLDS and "detects" not in V.p_text(clear)


# ---------------------------------------------------------------------------- trends with the fold as the unit
def test_a_trend_in_the_means_that_changes_sign_between_folds_is_not_a_trend_over_folds():
    x = [1, 2, 3, 4, 5] * 3
    up = [1, 2, 3, 4, 5]
    y = [10 * v for v in up] + [-v for v in up] + [-v for v in up]  # fold means rise; 2 of 3 folds fall
    means = np.mean(np.reshape(y, (3, 5)), axis=0)
    assert V.spearman_exact([1, 2, 3, 4, 5], means).rho == pytest.approx(1.0)
    t = S.fold_trend(x, y, [f for f in range(3) for _ in range(5)])
    assert t.n_folds == 3 and t.rho == pytest.approx(-1 / 3) and (t.rho_min, t.rho_max) == pytest.approx((-1.0, 1.0))
    assert t.p > 0.05


def test_a_trend_every_fold_shows_is_significant_and_the_labels_may_be_tuples():
    rng = np.random.default_rng(2)
    x = np.tile(np.arange(7.0), 5)
    y = x * 0.01 + rng.normal(scale=0.001, size=35)
    folds = [(0, f) for f in range(5) for _ in range(7)]
    t = S.fold_trend(x, y, folds)
    assert t.n_folds == 5 and t.n_points == 7 and t.rho > 0.9 and t.p < 0.01
    assert S.fold_trend(x, np.ones(35), folds).n_folds == 0  # a flat metric has no ρ
