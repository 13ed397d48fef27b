"""The tests behind the verdicts: comparisons over cross-validation folds and their multiplicity.

Every comparison of two methods in this book is a set of per-fold differences dᵢ (the same
folds for both methods). Three tests read them:

* :func:`corrected_t` — the **corrected resampled t-test** (Nadeau & Bengio 2003; for r
  repetitions of k-fold cross-validation, Bouckaert & Frank 2004). The training sets of k-fold
  cross-validation overlap (by 75 % for k = 5), so the dᵢ are positively correlated and the plain
  t-test's variance sd²/n is too small: it rejects too often (Dietterich 1998). The corrected test
  inflates the variance by the ratio of test to training rows::

      t = mean(d) / sqrt((1/n + n_test/n_train) · var(d)),   n = k·r,   n − 1 degrees of freedom

  with ``var`` the sample variance (ddof = 1) and n_test/n_train = 1/(k − 1) = 1/4 for 5 folds.
  This is the default test of every verdict (:data:`DEFAULT_TEST`).
* :func:`plain_t` — the plain paired t-test (t = mean(d)/(sd(d)/√n)), kept for the robustness
  table that shows which verdicts depend on the correction.
* :func:`sign_flip_p` — the exact sign-flip (randomisation) test: under "no difference" each dᵢ is
  as likely positive as negative, so the p-value is the share of the 2ⁿ sign assignments whose
  ``|mean|`` is at least the observed one. It assumes no normality, but it assumes the dᵢ are
  exchangeable and independent, which folds of repeated cross-validation are not: r × k folds come
  from r partitions of the same rows, whose training sets overlap. Over 15 such folds it can print
  p < 0.001 where the corrected test gives 0.06–0.25. The verdicts therefore show
  :func:`partition_sign_flip_p` instead: the sign-flip test over the r **partition means** (each the
  mean of one partition's k differences). Partitions are drawn independently, so their means are the
  units a randomisation test may flip; what it cannot reach is any p below 2/2ʳ: 0.25 with 3
  partitions, 1 with one (:func:`min_sign_flip_p`). It is a check that needs no normal model, with
  little power; it never decides a verdict.
* :func:`min_detectable_difference` — the smallest true mean difference the corrected test detects
  with a given power (80 %) at level α, from the folds' sd: what an "inconclusive" could have seen.
* :func:`fold_trend` — a trend over a covariate (e.g. a weight grid) with the **fold** as the unit:
  Spearman's ρ within each fold, then the corrected resampled t-test of "mean ρ = 0" over the folds.

:func:`holm` corrects several comparisons of one claim for their number (Holm 1979): sort the
p-values, compare the i-th smallest with α/(m − i + 1), and stop at the first that is not below.

>>> round(min_sign_flip_p(5), 4)
0.0625
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

import numpy as np

from cffair.errors import DataError, ParameterError

__all__ = [
    "DEFAULT_TEST",
    "MAX_EXACT",
    "TESTS",
    "TEST_NAMES",
    "FoldTest",
    "corrected_t",
    "fold_test",
    "holdout_ratio",
    "holm",
    "holm_adjusted",
    "FoldTrend",
    "fold_trend",
    "min_detectable_difference",
    "min_sign_flip_p",
    "partition_means",
    "partition_sign_flip_p",
    "plain_t",
    "power_corrected",
    "sign_flip_p",
    "spearman_exact_test",
]

#: The tests :func:`fold_test` knows: ``"corrected"`` (Nadeau–Bengio) and ``"plain"``.
TESTS: tuple[str, ...] = ("corrected", "plain")
#: The test every verdict uses unless told otherwise.
DEFAULT_TEST = "corrected"
#: How a test is named in a table.
TEST_NAMES: dict[str, str] = {"corrected": "corrected resampled t-test (Nadeau–Bengio)", "plain": "plain paired t-test"}
#: The most differences whose 2ⁿ sign assignments :func:`sign_flip_p` enumerates (2²⁰ ≈ 10⁶).
MAX_EXACT = 20


def holdout_ratio(k: int) -> float:
    """n_test / n_train of ``k``-fold cross-validation: one fold against the other k − 1 (1/4 for 5 folds).

    >>> holdout_ratio(5)
    0.25
    """
    if k < 2:
        raise ParameterError(f"k-fold cross-validation needs k ≥ 2 folds, got k={k}.")
    return 1.0 / (k - 1)


@dataclass(frozen=True)
class FoldTest:
    """A test of "mean(d) = 0" over ``n`` per-fold differences.

    Attributes:
        n: differences; mean, sd: their mean and sample sd (ddof = 1); t: the statistic;
        df: its degrees of freedom; p: two-sided p-value; test: ``"corrected"`` or ``"plain"``.
    """

    n: int
    mean: float
    sd: float
    t: float
    df: int
    p: float
    test: str


def _diffs(d: Sequence[float] | np.ndarray) -> np.ndarray:
    x = np.asarray(d, dtype=float)
    if x.ndim != 1:
        raise DataError(f"the per-fold differences must be 1-D (one number per fold), got shape {x.shape}.")
    if np.isnan(x).any():
        raise DataError("the per-fold differences contain NaN; leave out the folds a method lacks first.")
    if len(x) < 2:
        raise DataError(f"a test over folds needs at least 2 per-fold differences, got {len(x)}.")
    return x


def _t_test(x: np.ndarray, factor: float, test: str) -> FoldTest:
    from scipy import stats

    n, mean = len(x), float(x.mean())
    sd = float(x.std(ddof=1))
    if sd == 0:
        t = 0.0 if mean == 0 else math.copysign(math.inf, mean)
        p = 1.0 if mean == 0 else 0.0
    else:
        t = mean / math.sqrt(factor * sd * sd)
        p = float(2 * stats.t.sf(abs(t), n - 1))
    return FoldTest(n, mean, sd, t, n - 1, p, test)


def plain_t(d: Sequence[float]) -> FoldTest:
    """The plain paired t-test of the differences ``d``: t = mean/(sd/√n), n − 1 degrees of freedom.

    >>> r = plain_t([1.0, 2.0, 3.0, 4.0])
    >>> round(r.t, 4), r.df, round(r.p, 4)
    (3.873, 3, 0.0305)
    """
    x = _diffs(d)
    return _t_test(x, 1.0 / len(x), "plain")


def corrected_t(d: Sequence[float] | np.ndarray, k: int = 5, repetitions: int | None = None) -> FoldTest:
    """The corrected resampled t-test of the differences ``d`` over ``repetitions`` × ``k``-fold CV.

    ``t = mean(d) / sqrt((1/n + 1/(k − 1)) · var(d))`` with n = len(d) (= k·r) and n − 1 degrees
    of freedom. ``repetitions`` is only checked: when given, ``len(d)`` must be ``k · repetitions``.

    >>> r = corrected_t([1.0, 2.0, 3.0, 4.0, 5.0])
    >>> round(r.t, 4), r.df, round(r.p, 4)
    (2.8284, 4, 0.0474)
    """
    x = _diffs(d)
    if repetitions is not None and len(x) != k * repetitions:
        raise DataError(
            f"{repetitions} repetitions of {k}-fold CV give {k * repetitions} differences, got {len(x)}; "
            "pass the repetitions and k the differences come from."
        )
    return _t_test(x, 1.0 / len(x) + holdout_ratio(k), "corrected")


def fold_test(d: Sequence[float], test: str = DEFAULT_TEST, k: int = 5) -> FoldTest:
    """:func:`corrected_t` (``test="corrected"``) or :func:`plain_t` (``"plain"``) of ``d``."""
    if test == "corrected":
        return corrected_t(d, k)
    if test == "plain":
        return plain_t(d)
    raise ParameterError(f"unknown test {test!r}; choose one of {', '.join(TESTS)}.")


def sign_flip_p(d: Sequence[float] | np.ndarray, max_exact: int = MAX_EXACT) -> float:
    """The exact two-sided sign-flip p-value of the differences ``d``: the share of the 2ⁿ sign
    assignments ε whose ``|mean(ε·|d|)|`` is at least ``|mean(d)|`` (ties count as at least).

    NaN for more than ``max_exact`` differences (2ⁿ assignments are too many to enumerate).

    >>> sign_flip_p([0.1, 0.2, 0.3, 0.4, 0.5])  # all positive: 2 of 32 (all +, all −)
    0.0625
    >>> sign_flip_p([1.0, -1.0])
    1.0
    """
    x = np.abs(np.asarray(d, dtype=float))
    if x.ndim != 1 or len(x) == 0 or np.isnan(x).any():
        raise DataError(
            f"sign_flip_p needs a non-empty 1-D array of differences without NaN, got shape {x.shape}"
            f"{' with NaN' if x.size and np.isnan(x).any() else ''}; leave out the folds a method lacks first."
        )
    n = len(x)
    if n > max_exact:
        return math.nan
    observed = abs(float(np.asarray(d, dtype=float).sum()))
    tol = 1e-12 * max(1.0, float(x.sum()))
    sums = np.zeros(1)
    for v in x:  # the sums of every sign assignment of the differences so far, each with +v and with −v
        sums = np.concatenate((sums + v, sums - v))
    # a sum's rounding (≲ n·2⁻⁵² of Σ|d|) is far below ``tol``: ties with the observed sum count whatever the order
    return int(np.count_nonzero(np.abs(sums) >= observed - tol)) / 2**n


def min_sign_flip_p(n: int) -> float:
    """The smallest p-value the exact sign-flip test can give over ``n`` differences: 2/2ⁿ (and 1
    for a single one: its two signs tie).

    >>> min_sign_flip_p(5), min_sign_flip_p(3), min_sign_flip_p(1)
    (0.0625, 0.25, 1.0)
    """
    return min(1.0, 2.0 / 2**n)


def partition_means(d: Sequence[float] | np.ndarray, partitions: Sequence[Any] | np.ndarray) -> np.ndarray:
    """The mean of the differences ``d`` within each partition (``partitions``: one label per
    difference, e.g. the repetition of cross-validation it comes from), in the labels' sorted order.

    >>> partition_means([1.0, 3.0, 10.0, 20.0], [0, 0, 1, 1]).tolist()
    [2.0, 15.0]
    """
    x = np.asarray(d, dtype=float)
    labels = np.asarray(partitions)
    if x.ndim != 1 or labels.shape != x.shape:
        raise DataError(f"one partition label per difference is needed, got {labels.shape} for {x.shape}.")
    return np.array([float(x[labels == lab].mean()) for lab in np.unique(labels)])


def partition_sign_flip_p(d: Sequence[float] | np.ndarray, partitions: Sequence[Any] | np.ndarray) -> float:
    """The exact sign-flip p-value over the partition means of ``d`` (:func:`partition_means`).

    Valid for r × k folds of repeated cross-validation where :func:`sign_flip_p` over all r·k folds is
    not (the folds of one partition share training rows; the partitions are drawn independently).
    What it can reach: no p below ``min_sign_flip_p(r)``, i.e. 0.25 with 3 partitions and 1 with one
    partition, so with fewer than 6 partitions it can never reject at 0.05. It shows whether the sign
    of the difference repeats from partition to partition, nothing more.

    >>> partition_sign_flip_p([0.1] * 5 + [0.2] * 5 + [0.3] * 5, [0] * 5 + [1] * 5 + [2] * 5)
    0.25
    >>> partition_sign_flip_p([0.1, 0.2, 0.3, 0.4, 0.5], [0] * 5)  # one partition: nothing to flip
    1.0
    """
    return sign_flip_p(partition_means(d, partitions))


def _ncp_factor(n: int, k: int) -> float:
    """sqrt(1/n + n_test/n_train): the corrected test's standard error of the mean per unit of sd."""
    return math.sqrt(1.0 / n + holdout_ratio(k))


def _power_at(ncp: float, df: int, alpha: float) -> float:
    """The two-sided t-test's power at noncentrality ``ncp`` with ``df`` degrees of freedom."""
    from scipy import stats

    crit = float(stats.t.ppf(1 - alpha / 2, df))
    upper, lower = float(stats.nct.sf(crit, df, abs(ncp))), float(stats.nct.cdf(-crit, df, abs(ncp)))
    return upper + (0.0 if math.isnan(lower) else lower)  # the far tail underflows to NaN for a large ncp


def power_corrected(delta: float, sd: float, n: int, k: int = 5, alpha: float = 0.05) -> float:
    """The power of the two-sided corrected resampled t-test (:func:`corrected_t`) at level ``alpha``
    against a true mean difference ``delta``, for ``n`` folds whose differences have sample sd ``sd``.

    Under the test's own variance model (Nadeau & Bengio 2003: the folds' differences share a
    correlation ρ = n_test/n, so Var(mean) = (1/n + n_test/n_train)·E[s²]) and normal differences,
    its statistic is a noncentral t with n − 1 degrees of freedom and noncentrality
    ``delta / (sd · sqrt(1/n + 1/(k − 1)))``.

    >>> round(power_corrected(0.0, 1.0, 15), 3)  # no difference: the level itself
    0.05
    """
    if n < 2 or sd <= 0 or not math.isfinite(sd):
        raise ParameterError(f"power needs n ≥ 2 folds and a positive finite sd, got n={n}, sd={sd}.")
    return _power_at(delta / (sd * _ncp_factor(n, k)), n - 1, alpha)


def min_detectable_difference(sd: float, n: int, k: int = 5, alpha: float = 0.05, power: float = 0.8) -> float:
    """The smallest true mean difference that the corrected resampled t-test over ``n`` folds of
    ``k``-fold cross-validation detects with probability ``power`` at two-sided level ``alpha``, when
    the per-fold differences have sample sd ``sd`` (:func:`power_corrected` solved for the difference).

    An "inconclusive" comparison states it: a true difference below it would usually be missed, so
    "inconclusive" says little about differences that small. For many folds it approaches the normal
    answer (z₁₋α/₂ + z_power) · sd · sqrt(1/n + 1/(k − 1)); for few folds it is larger. The test's
    own floor, sqrt(1/(k − 1)) · sd, does not shrink with more folds: more repetitions of the same
    5-fold partitioning cannot make the corrected test see differences much below about 1.4 sd.

    >>> round(min_detectable_difference(1.0, 10**6), 4)  # (1.95996 + 0.84162) · 0.5
    1.4008
    """
    from scipy import optimize

    if not 0 < power < 1 or not 0 < alpha < 1:
        raise ParameterError(f"power and alpha must lie in (0, 1), got power={power}, alpha={alpha}.")
    if n < 2 or sd < 0 or not math.isfinite(sd):
        raise ParameterError(f"a detectable difference needs n ≥ 2 folds and a finite sd ≥ 0, got n={n}, sd={sd}.")
    if sd == 0:
        return 0.0
    # solved on the noncentrality, which does not depend on sd: the same few steps for any scale
    hi = 4.0
    while _power_at(hi, n - 1, alpha) < power:
        hi *= 2
    ncp = optimize.brentq(lambda x: _power_at(x, n - 1, alpha) - power, 0.0, hi, xtol=1e-10)
    return float(ncp * sd * _ncp_factor(n, k))


@dataclass(frozen=True)
class FoldTrend:
    """A trend tested with the fold as the unit (:func:`fold_trend`).

    Attributes:
        n_folds: the folds with a ρ (at least two distinct covariate and metric values).
        n_points: the covariate's points per fold (the most any fold has).
        rho: the mean over folds of the within-fold Spearman ρ.
        rho_min, rho_max: the smallest and largest within-fold ρ.
        p: the two-sided p-value of the corrected resampled t-test of "mean ρ = 0" over the folds
            (NaN with fewer than two folds).
    """

    n_folds: int
    n_points: int
    rho: float
    rho_min: float
    rho_max: float
    p: float


def fold_trend(x: Sequence[float], y: Sequence[float], folds: Sequence[Any], k: int = 5) -> FoldTrend:
    """Spearman's ρ of ``y`` against ``x`` within each fold (``folds``: one label per point), then the
    corrected resampled t-test of "the mean ρ is 0" over the folds (:func:`corrected_t`).

    The unit is the fold, not the fold mean: a trend that shows in the means of the points but
    changes sign from fold to fold is not significant here. Folds share training rows, so the test
    over them is the corrected one.

    >>> t = fold_trend([1, 2, 3] * 4, [1, 2, 3, 1, 2, 4, 2, 3, 5, 0, 1, 2], [0] * 3 + [1] * 3 + [2] * 3 + [3] * 3)
    >>> t.n_folds, t.rho, t.p
    (4, 1.0, 0.0)
    """
    from scipy.stats import spearmanr

    names = list(folds)  # labels may be tuples, e.g. (repeat, fold)
    codes = {lab: i for i, lab in enumerate(dict.fromkeys(names))}
    xs, ys, labels = np.asarray(x, dtype=float), np.asarray(y, dtype=float), np.array([codes[f] for f in names])
    if not xs.shape == ys.shape == labels.shape or xs.ndim != 1:
        raise DataError(f"x, y and folds must be 1-D of one length, got {xs.shape}, {ys.shape} and {labels.shape}.")
    rhos, points = [], 0
    for lab in codes.values():
        keep = (labels == lab) & ~(np.isnan(xs) | np.isnan(ys))
        points = max(points, int(keep.sum()))
        if keep.sum() < 2 or np.ptp(xs[keep]) == 0 or np.ptp(ys[keep]) == 0:
            continue
        rhos.append(float(spearmanr(xs[keep], ys[keep]).statistic))
    if not rhos:
        return FoldTrend(0, points, math.nan, math.nan, math.nan, math.nan)
    r = np.asarray(rhos)
    p = corrected_t(r, k).p if len(r) >= 2 else math.nan
    return FoldTrend(len(r), points, float(r.mean()), float(r.min()), float(r.max()), p)


def holm(p: Sequence[float], alpha: float = 0.05) -> list[bool]:
    """Holm's step-down procedure: which hypotheses are rejected at family-wise level ``alpha``.

    Sort the p-values ascending; reject the i-th smallest (i = 1 … m) while p₍ᵢ₎ < α/(m − i + 1),
    and none after the first that is not. NaN p-values are never rejected (they count in m).

    >>> holm([0.01, 0.04, 0.03])  # 0.01 < 0.05/3; then 0.03 ≥ 0.05/2 stops
    [True, False, False]
    >>> holm([0.001, 0.02, 0.04])
    [True, True, True]
    """
    ps = [math.inf if (v is None or math.isnan(v)) else float(v) for v in p]
    m = len(ps)
    out = [False] * m
    for rank, i in enumerate(sorted(range(m), key=lambda j: ps[j])):
        if ps[i] < alpha / (m - rank):
            out[i] = True
        else:
            break
    return out


def holm_adjusted(p: Sequence[float]) -> list[float]:
    """Holm-adjusted p-values: p̃₍ᵢ₎ = max over j ≤ i of min(1, (m − j + 1) p₍ⱼ₎); a hypothesis is
    rejected by :func:`holm` at level α exactly when its adjusted p-value is below α.

    >>> [round(v, 3) for v in holm_adjusted([0.01, 0.04, 0.03])]
    [0.03, 0.06, 0.06]
    """
    ps = [math.inf if (v is None or math.isnan(v)) else float(v) for v in p]
    m = len(ps)
    out = [math.nan] * m
    running = 0.0
    for rank, i in enumerate(sorted(range(m), key=lambda j: ps[j])):
        running = max(running, min(1.0, (m - rank) * ps[i]))
        out[i] = running if math.isfinite(ps[i]) else math.nan
    return out


# ---------------------------------------------------------------------------- exact Spearman
def _ranks(v: np.ndarray) -> np.ndarray:
    from scipy.stats import rankdata

    return rankdata(v)


def spearman_exact_test(x: Sequence[float], y: Sequence[float], max_points: int = 9) -> tuple[int, float, float]:
    """``(n, ρ, p)``: Spearman's ρ over ``n`` points with its exact permutation p-value (two-sided: the
    share of the n! orderings of ``y`` whose ``|ρ|`` is at least the observed one); ρ and p are NaN
    for fewer than two points or a constant side.

    >>> n, rho, p = spearman_exact_test([1, 2, 3, 4, 5, 6, 7], [0.1, 0.2, 0.25, 0.3, 0.5, 0.55, 0.9])
    >>> (n, rho, round(p, 4))
    (7, 1.0, 0.0004)
    """
    xs, ys = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if xs.shape != ys.shape or xs.ndim != 1:
        raise DataError(f"x and y must be 1-D of the same length, got {xs.shape} and {ys.shape}.")
    n = len(xs)
    if n > max_points:
        raise DataError(
            f"the exact test enumerates n! orderings; at most {max_points} points, got {n}: "
            "average the points into fewer, or raise max_points (n! grows fast)."
        )
    if n < 2 or np.ptp(xs) == 0 or np.ptp(ys) == 0:
        return n, math.nan, math.nan
    rx, ry = _ranks(xs), _ranks(ys)
    observed = float(np.corrcoef(rx, ry)[0, 1])
    # Every ordering of ry has ry's mean and spread, so its ρ is Σ a·b_π / √(Σa² Σb²) with a, b the
    # centred ranks. Ranks are multiples of 1/2, so each Σ a·b_π is exact; distinct values of ρ lie
    # at least 1/(4 √(Σa² Σb²)) ≥ 0.004 apart (n ≤ 9), far beyond the 1e-12 that decides a tie.
    a, b = rx - rx.mean(), ry - ry.mean()
    rhos = (b[_orderings(n)] @ a) / math.sqrt(float(a @ a) * float(b @ b))
    hits = int(np.count_nonzero(np.abs(rhos) >= abs(observed) - 1e-12))
    return n, observed, hits / math.factorial(n)


@cache
def _orderings(n: int) -> np.ndarray:
    """The n! orderings of ``range(n)`` as rows of an ``(n!, n)`` array (read-only, kept per ``n``).

    >>> sorted(map(tuple, _orderings(3).tolist()))
    [(0, 1, 2), (0, 2, 1), (1, 0, 2), (1, 2, 0), (2, 0, 1), (2, 1, 0)]
    """
    out = np.zeros((1, 0), dtype=np.int8)
    for k in range(n):  # insert k at each of the k + 1 places of every ordering of range(k)
        m = len(out)
        grown = np.empty((m * (k + 1), k + 1), dtype=np.int8)
        for place in range(k + 1):
            block = grown[place * m : (place + 1) * m]
            block[:, :place] = out[:, :place]
            block[:, place] = k
            block[:, place + 1 :] = out[:, place:]
        out = grown
    out.setflags(write=False)
    return out
