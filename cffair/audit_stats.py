"""The audit's intervals: a bootstrap that resamples factual rows with all their twins.

An audit (:mod:`cffair.audit`) scores person–twin *pairs*, but the pairs are not independent:
a row with several twins (a categorical sensitive attribute with k values gives k − 1, a drawing
treatment ``cf_samples`` per value) contributes several pairs that share the row's prediction
``D(x)``. Resampling pairs as if independent (fairlearn's ``MetricFrame(n_boot=...)`` does)
ignores that shared part and gives intervals too narrow; in one trial 1.2–1.85 times, measured
against a row bootstrap. So the audit resamples the **factual rows** (the clusters), each drawn
row bringing all its pairs (a *cluster bootstrap*), and draws the same rows for every number,
so that accuracy, CF-MSE, flip rate and the group-fairness differences of one resample describe
one resampled data set.

Every number is a ratio of sums over rows: the CF-MSE of a subgroup is the sum of its rows'
squared differences over the number of its rows' pairs, the accuracy the number of correct rows
over the number of rows, a group's selection rate its rows decided 1 over its rows. With the
multiplicity ``w_r`` of row ``r`` in a resample, each is ``Σ w_r num_r / Σ w_r den_r``
(:func:`ratio_bootstrap`), so one matrix product per batch of resamples gives them all. A ratio
whose denominator is 0 in a resample (a subgroup not drawn) is NaN there and left out of the
quantiles.

The interval is the percentile interval of the resampled values (:data:`cffair.audit.CI_QUANTILES`,
95 % by default). A group-fairness difference is a largest minus a smallest rate, which a
resample can only push away from 0: near 0 its interval sits above the point value, and its
lower end is no evidence that the groups differ. ``tests/test_audit_stats.py`` checks the standard error against the analytic one
where every row's twins share a row effect, and the coverage of the 95 % interval by simulation.
"""

from __future__ import annotations

__all__ = ["cluster_sums", "percentile_interval", "ratio_bootstrap"]

from collections.abc import Sequence

import numpy as np

FINGERPRINT_EXEMPT = True  # intervals of an audit a user runs; no reproduction record runs it

#: Resamples per matrix product (bounds the memory: ``_BATCH × n_rows`` floats).
_BATCH = 64


def cluster_sums(values: np.ndarray, cluster: np.ndarray, n_clusters: int) -> np.ndarray:
    """Per cluster, the sum of each column of ``values`` over its items (``(n_clusters, k)``).

    Example:
        >>> cluster_sums(np.array([[1.0], [2.0], [4.0]]), np.array([0, 0, 2]), 3)[:, 0].tolist()
        [3.0, 0.0, 4.0]
    """
    v = np.asarray(values, dtype=np.float64)
    v = v[:, None] if v.ndim == 1 else v
    c = np.asarray(cluster, dtype=np.int64)
    return np.column_stack([np.bincount(c, weights=v[:, j], minlength=n_clusters) for j in range(v.shape[1])])


def ratio_bootstrap(num: np.ndarray, den: np.ndarray, n_boot: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Point values and cluster-bootstrap resamples of ratios of sums over clusters.

    Args:
        num: ``(n_clusters, k)``: each cluster's numerator of each of ``k`` ratios.
        den: ``(n_clusters, k)``: each cluster's denominator.
        n_boot: resamples; each draws ``n_clusters`` clusters with replacement
            (``numpy.random.default_rng(seed)``).
        seed: the resamples' seed.

    Returns:
        ``(point, samples)``: ``point[j] = Σ num[:, j] / Σ den[:, j]`` and ``samples``, of shape
        ``(n_boot, k)``, the same ratio in each resample (NaN where the denominator is 0).

    Example:
        >>> point, samples = ratio_bootstrap(np.array([[1.0], [3.0]]), np.ones((2, 1)), 4, seed=0)
        >>> point.tolist(), samples.shape, bool(((samples >= 1) & (samples <= 3)).all())
        ([2.0], (4, 1), True)
    """
    num, den = np.asarray(num, dtype=np.float64), np.asarray(den, dtype=np.float64)
    n, k = num.shape
    with np.errstate(invalid="ignore", divide="ignore"):
        point = num.sum(axis=0) / den.sum(axis=0)
    rng = np.random.default_rng(seed)
    out = np.empty((n_boot, k))
    for start in range(0, n_boot, _BATCH):
        b = min(_BATCH, n_boot - start)
        draws = rng.integers(0, n, size=(b, n))
        weights = np.stack([np.bincount(row, minlength=n) for row in draws]).astype(np.float64)
        with np.errstate(invalid="ignore", divide="ignore"):
            out[start : start + b] = (weights @ num) / (weights @ den)
    return point, out


def percentile_interval(samples: np.ndarray, ci: Sequence[float]) -> tuple[np.ndarray, np.ndarray]:
    """The ``ci`` quantiles of each column of ``samples`` over the resamples, NaN resamples left out
    (all NaN: NaN).

    Example:
        >>> low, high = percentile_interval(np.arange(101.0)[:, None], (0.025, 0.975))
        >>> float(low[0]), float(high[0])
        (2.5, 97.5)
    """
    s = np.asarray(samples, dtype=np.float64)
    s = s[:, None] if s.ndim == 1 else s
    low = np.full(s.shape[1], np.nan)
    high = np.full(s.shape[1], np.nan)
    for j in range(s.shape[1]):
        col = s[:, j][~np.isnan(s[:, j])]
        if len(col):
            low[j], high[j] = np.quantile(col, [ci[0], ci[1]])
    return low, high
