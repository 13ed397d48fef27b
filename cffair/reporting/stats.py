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
  ``|mean|`` is at least the observed one. It assumes no normality, and shows what the folds can say
  without it: with 5 folds no p-value can go below 2/32 = 0.0625 (:func:`min_sign_flip_p`).

:func:`holm` corrects several comparisons of one claim for their number (Holm 1979): sort the
p-values, compare the i-th smallest with α/(m − i + 1), and stop at the first that is not below.

>>> round(min_sign_flip_p(5), 4)
0.0625
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

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
    "min_sign_flip_p",
    "plain_t",
    "sign_flip_p",
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
        raise ValueError(f"cross-validation needs at least 2 folds, got {k}.")
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


def _diffs(d: Sequence[float]) -> np.ndarray:
    x = np.asarray(d, dtype=float)
    if x.ndim != 1:
        raise ValueError(f"differences must be 1-D, got shape {x.shape}.")
    if np.isnan(x).any():
        raise ValueError("differences contain NaN; leave out the folds a method lacks first.")
    if len(x) < 2:
        raise ValueError(f"a test over folds needs at least 2 differences, got {len(x)}.")
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


def corrected_t(d: Sequence[float], k: int = 5, repetitions: int | None = None) -> FoldTest:
    """The corrected resampled t-test of the differences ``d`` over ``repetitions`` × ``k``-fold CV.

    ``t = mean(d) / sqrt((1/n + 1/(k − 1)) · var(d))`` with n = len(d) (= k·r) and n − 1 degrees
    of freedom. ``repetitions`` is only checked: when given, ``len(d)`` must be ``k · repetitions``.

    >>> r = corrected_t([1.0, 2.0, 3.0, 4.0, 5.0])
    >>> round(r.t, 4), r.df, round(r.p, 4)
    (2.8284, 4, 0.0474)
    """
    x = _diffs(d)
    if repetitions is not None and len(x) != k * repetitions:
        raise ValueError(f"{repetitions} repetitions of {k}-fold CV give {k * repetitions} differences, got {len(x)}.")
    return _t_test(x, 1.0 / len(x) + holdout_ratio(k), "corrected")


def fold_test(d: Sequence[float], test: str = DEFAULT_TEST, k: int = 5) -> FoldTest:
    """:func:`corrected_t` (``test="corrected"``) or :func:`plain_t` (``"plain"``) of ``d``."""
    if test == "corrected":
        return corrected_t(d, k)
    if test == "plain":
        return plain_t(d)
    raise ValueError(f"unknown test {test!r}; choose one of {', '.join(TESTS)}.")


def sign_flip_p(d: Sequence[float], max_exact: int = MAX_EXACT) -> float:
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
        raise ValueError("sign_flip_p needs a non-empty 1-D array without NaN.")
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
    """The smallest p-value the exact sign-flip test can give over ``n`` differences: 2/2ⁿ."""
    return 2.0 / 2**n


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
