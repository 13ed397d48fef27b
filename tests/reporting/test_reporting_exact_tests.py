"""The exact tests' vectorised enumerations give exactly what enumerating one case at a time gives.

:func:`cffair.reporting._verdicts.spearman_exact` counts the n! orderings and
:func:`cffair.reporting._stats.sign_flip_p` the 2ⁿ sign assignments with whole arrays at once. The
oracles below are the library's earlier implementations, kept here verbatim: one ``np.corrcoef``
per ordering of ``itertools.permutations``, and one matrix of ``itertools.product`` signs. Both
functions must return the *same* floats (``==``, not approximately) on random cases: ties, zeros,
small n, and values that make many orderings tie with the observed statistic.
"""

from __future__ import annotations

import math
from itertools import permutations, product

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import rankdata

from cffair.errors import DataError
from cffair.reporting import _stats as S
from cffair.reporting import _verdicts as V


# ---------------------------------------------------------------------------- the oracles (the loops)
def spearman_by_loop(x, y, max_points: int = 9) -> V.Trend:
    """The earlier ``spearman_exact``: one ``np.corrcoef`` per ordering of ``itertools.permutations``."""
    xs, ys = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    n = len(xs)
    if n < 2 or np.ptp(xs) == 0 or np.ptp(ys) == 0:
        return V.Trend(n, float("nan"), float("nan"))
    rx, ry = rankdata(xs), rankdata(ys)

    def rho(r: np.ndarray) -> float:
        return float(np.corrcoef(rx, r)[0, 1])

    observed = rho(ry)
    hits = total = 0
    for perm in permutations(ry):
        total += 1
        hits += abs(rho(np.asarray(perm))) >= abs(observed) - 1e-12
    return V.Trend(n, observed, hits / total)


def sign_flip_by_product(d) -> float:
    """The earlier ``sign_flip_p``: the whole ``itertools.product`` sign matrix at once."""
    x = np.abs(np.asarray(d, dtype=float))
    observed = abs(float(np.asarray(d, dtype=float).sum()))
    signs = np.array(list(product((1.0, -1.0), repeat=len(x))))
    sums = np.abs(signs @ x)
    tol = 1e-12 * max(1.0, float(x.sum()))
    return float(np.mean(sums >= observed - tol))


def _same_trend(a: V.Trend, b: V.Trend) -> bool:
    def same(u: float, v: float) -> bool:
        return (math.isnan(u) and math.isnan(v)) or u == v

    return a.n == b.n and same(a.rho, b.rho) and same(a.p, b.p)


# ---------------------------------------------------------------------------- Spearman
# few distinct values: ties in x, in y, in both, and constant columns
_values = st.sampled_from([0.0, 1.0, 1.0, 2.0, 2.5, -3.0, 0.1, 0.2, 7.0])


@settings(max_examples=80, deadline=None, derandomize=True)
@given(
    st.integers(min_value=1, max_value=6).flatmap(
        lambda n: st.tuples(st.lists(_values, min_size=n, max_size=n), st.lists(_values, min_size=n, max_size=n))
    )
)
def test_spearman_equals_the_loop_on_small_cases_with_ties(xy):
    x, y = xy
    assert _same_trend(V.spearman_exact(x, y), spearman_by_loop(x, y))


def test_spearman_equals_the_loop_on_seeded_cases_of_seven_points():
    rng = np.random.default_rng(20240611)
    cases = []
    for n in (7, 7, 7):
        cases.append((rng.normal(size=n), rng.normal(size=n)))  # no ties
    cases.append((np.arange(7), np.round(rng.normal(size=7), 0)))  # ties in y
    cases.append((np.array([1, 1, 2, 3, 3, 3, 9.0]), np.array([0.5, 0.1, 0.1, 0.7, 0.2, 0.2, 0.9])))  # ties in both
    cases.append((np.array([1, 3, 9, 27, 81, 243, 729.0]), np.array([0.7, 0.69, 0.71, 0.66, 0.65, 0.66, 0.6])))
    for x, y in cases:
        new, old = V.spearman_exact(x, y), spearman_by_loop(x, y)
        assert _same_trend(new, old), (x, y, new, old)


def test_spearman_at_eight_and_nine_points_counts_every_ordering():
    assert V.spearman_exact(np.arange(8.0), np.arange(8.0)).p == 2 / math.factorial(8)
    # ρ = ±1 is reached by 2 of the 9! orderings, ρ = 0 by every one, whatever the ties in x
    assert V.spearman_exact(range(9), range(9)) == V.Trend(9, 1.0, 2 / math.factorial(9))
    assert V.spearman_exact(range(9), range(9, 0, -1)) == V.Trend(9, -1.0, 2 / math.factorial(9))
    flat = V.spearman_exact([1, 2, 3, 4, 5, 6, 7, 8, 9], [1, 0, 0, 0, 0, 0, 0, 0, 1])
    assert flat.rho == pytest.approx(0.0, abs=1e-12) and flat.p == 1.0
    with pytest.raises(DataError, match="at most 9 points, got 10: average the points into fewer"):
        V.spearman_exact(range(10), range(10))


def test_the_orderings_are_every_permutation_once():
    for n in range(0, 7):
        rows = S._orderings(n)
        assert rows.shape == (math.factorial(n), n)
        assert sorted(map(tuple, rows.tolist())) == sorted(permutations(range(n)))
    assert not S._orderings(5).flags.writeable


# ---------------------------------------------------------------------------- sign flips
_diffs = st.lists(
    st.one_of(
        st.sampled_from([0.0, 0.01, -0.01, 0.02, -0.03, 0.05, 1.0, -1.0]),
        st.floats(min_value=-1.0, max_value=1.0, allow_nan=False, allow_subnormal=False),
    ),
    min_size=1,
    max_size=12,
)


@settings(max_examples=150, deadline=None, derandomize=True)
@given(_diffs)
def test_sign_flip_equals_the_product_matrix(d):
    assert S.sign_flip_p(d) == sign_flip_by_product(d)


def test_sign_flip_equals_the_product_matrix_on_seeded_cases_up_to_eighteen_differences():
    rng = np.random.default_rng(7)
    cases = [rng.normal(size=n) for n in (1, 2, 5, 10, 15, 15, 18)]
    cases += [np.round(rng.normal(size=15), 1), np.full(15, 0.01), np.r_[np.full(7, 0.02), np.full(8, -0.02)]]
    cases += [np.r_[0.03, np.zeros(14)], np.linspace(-0.05, 0.05, 15)]  # zeros; exactly symmetric differences
    assert [S.sign_flip_p(d) for d in cases] == [sign_flip_by_product(d) for d in cases]
