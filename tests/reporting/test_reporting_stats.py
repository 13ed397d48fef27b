"""Known answers for the tests behind the verdicts (cffair.reporting._stats)."""

from __future__ import annotations

import math
from itertools import product

import numpy as np
import pytest
from scipy import stats as sps

from cffair.errors import DataError, ParameterError
from cffair.reporting import _stats as S

A = np.array([0.70, 0.71, 0.69, 0.72, 0.70])
B = np.array([0.65, 0.66, 0.66, 0.67, 0.64])


def test_plain_t_is_scipys_paired_t_test():
    r = S.plain_t(A - B)
    ref = sps.ttest_rel(A, B)
    assert r.t == pytest.approx(ref.statistic) and r.p == pytest.approx(ref.pvalue) and r.df == 4 and r.test == "plain"
    rng = np.random.default_rng(3)
    for n in (3, 5, 15):
        x, y = rng.normal(size=n), rng.normal(size=n)
        assert S.plain_t(x - y).p == pytest.approx(sps.ttest_rel(x, y).pvalue)


def test_corrected_t_by_hand_for_one_and_three_repetitions_of_five_folds():
    d = A - B  # 0.05, 0.05, 0.03, 0.05, 0.06: mean 0.048, var 0.00012
    t = 0.048 / math.sqrt((1 / 5 + 1 / 4) * 0.00012)
    r = S.corrected_t(d)
    assert r.t == pytest.approx(t) and r.df == 4 and r.p == pytest.approx(2 * sps.t.sf(t, 4)) and r.test == "corrected"
    assert r.mean == pytest.approx(0.048) and r.sd == pytest.approx(math.sqrt(0.00012))
    # 3 × 5 folds: n = 15, factor 1/15 + 1/4, 14 degrees of freedom
    d15 = np.concatenate([d, d + 0.01, d - 0.01])
    r15 = S.corrected_t(d15, k=5, repetitions=3)
    t15 = d15.mean() / math.sqrt((1 / 15 + 1 / 4) * d15.var(ddof=1))
    assert r15.t == pytest.approx(t15) and r15.df == 14 and r15.p == pytest.approx(2 * sps.t.sf(abs(t15), 14))
    with pytest.raises(DataError, match="give 15 differences, got 5; pass the repetitions and k"):
        S.corrected_t(d, k=5, repetitions=3)
    # 10 folds: test/train = 1/9
    assert S.holdout_ratio(10) == pytest.approx(1 / 9) and S.holdout_ratio(5) == 0.25


def test_the_correction_only_ever_widens_the_interval():
    rng = np.random.default_rng(0)
    for _ in range(50):
        d = rng.normal(0.01, 0.02, size=int(rng.integers(2, 16)))
        plain, corr = S.plain_t(d), S.corrected_t(d)
        # corrected t = plain t / sqrt(1 + n · 1/4)
        assert corr.t == pytest.approx(plain.t / math.sqrt(1 + len(d) / 4))
        assert corr.p >= plain.p


def test_degenerate_differences():
    assert S.plain_t([0.0, 0.0, 0.0]).p == 1.0
    assert S.corrected_t([0.5, 0.5, 0.5]).p == 0.0 and S.corrected_t([0.5, 0.5, 0.5]).t == math.inf  # no spread: exact
    with pytest.raises(DataError, match="at least 2 per-fold differences, got 1"):
        S.plain_t([0.1])
    with pytest.raises(DataError, match="contain NaN; leave out the folds a method lacks"):
        S.corrected_t([0.1, math.nan])
    with pytest.raises(DataError, match=r"must be 1-D \(one number per fold\), got shape \(2, 2\)"):
        S.plain_t([[0.1, 0.2], [0.3, 0.4]])
    with pytest.raises(ParameterError, match="unknown test 'wilcoxon'; choose one of"):
        S.fold_test([0.1, 0.2], "wilcoxon")
    with pytest.raises(ParameterError, match=r"needs k ≥ 2 folds, got k=1"):
        S.corrected_t([0.1, 0.2], k=1)
    with pytest.raises(ParameterError, match=r"power and alpha must lie in \(0, 1\), got power=1"):
        S.min_detectable_difference(1.0, 15, power=1)
    with pytest.raises(DataError, match=r"got shape \(2,\) with NaN"):
        S.sign_flip_p([0.1, math.nan])


def _sign_flip_by_enumeration(d):
    obs = abs(sum(d))
    sums = [abs(sum(s * abs(x) for s, x in zip(signs, d))) for signs in product((1, -1), repeat=len(d))]
    return sum(v >= obs - 1e-12 for v in sums) / len(sums)


def test_sign_flip_known_answers():
    # five folds all one way: only all + and all − reach the observed |mean|: 2/32
    assert S.sign_flip_p([0.05, 0.05, 0.03, 0.05, 0.06]) == 0.0625 == S.min_sign_flip_p(5)
    assert S.sign_flip_p([-0.05, -0.05, -0.03, -0.05, -0.06]) == 0.0625
    # ±3 ±1 ±1: |sums| 5, 3, 3, 1, 1, 3, 3, 5
    assert S.sign_flip_p([3, 1, 1]) == pytest.approx(2 / 8)
    assert S.sign_flip_p([3, -1, 1]) == pytest.approx(6 / 8)
    assert S.sign_flip_p([1.0, -1.0]) == 1.0
    # fifteen folds all one way: 2/2¹⁵
    assert S.sign_flip_p(np.full(15, 0.01)) == pytest.approx(2 / 2**15)
    assert math.isnan(S.sign_flip_p(np.ones(21)))
    rng = np.random.default_rng(1)
    for _ in range(20):
        d = list(rng.normal(size=int(rng.integers(1, 8))))
        assert S.sign_flip_p(d) == pytest.approx(_sign_flip_by_enumeration(d))


def test_no_five_fold_sign_flip_p_below_0_0625():
    rng = np.random.default_rng(2)
    for _ in range(100):
        assert S.sign_flip_p(rng.normal(size=5)) >= 0.0625


def _holm_by_hand(p, alpha=0.05):
    order = sorted(range(len(p)), key=lambda i: p[i])
    out, m = [False] * len(p), len(p)
    for rank, i in enumerate(order):
        if p[i] < alpha / (m - rank):
            out[i] = True
        else:
            break
    return out


def test_holm_known_answers():
    assert S.holm([0.01, 0.04, 0.03]) == [True, False, False]  # 0.01 < 0.05/3, then 0.03 ≥ 0.05/2
    assert S.holm([0.001, 0.02, 0.04]) == [True, True, True]  # 0.001 < 0.0167, 0.02 < 0.025, 0.04 < 0.05
    assert S.holm([0.022, 0.749, 0.176]) == [False, False, False]  # Q1.4's plain p-values: 0.022 ≥ 0.05/3
    assert S.holm([0.04]) == [True] and S.holm([]) == []
    assert S.holm([math.nan, 0.001]) == [False, True]  # a NaN counts in m and is never rejected
    assert S.holm_adjusted([0.01, 0.04, 0.03]) == pytest.approx([0.03, 0.06, 0.06])
    rng = np.random.default_rng(4)
    for _ in range(200):
        p = list(rng.uniform(0, 0.1, size=int(rng.integers(1, 10))))
        rejected = S.holm(p)
        assert rejected == _holm_by_hand(p)
        assert rejected == [a < 0.05 for a in S.holm_adjusted(p)]  # adjusted p < α ⇔ rejected
        assert sum(rejected) >= sum(v < 0.05 / len(p) for v in p)  # at least Bonferroni's
        assert sum(rejected) <= sum(v < 0.05 for v in p)  # at most the uncorrected
