"""The audit's intervals: a bootstrap that resamples factual rows with all their twins.

An audit (:mod:`cffair.evaluation._audit`) scores person–twin *pairs*, but the pairs are not independent:
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

The interval is the percentile interval of the resampled values (``cffair.evaluation._audit.CI_QUANTILES``,
95 % by default). A group-fairness difference is a largest minus a smallest rate, which a
resample can only push away from 0: near 0 its interval sits above the point value, and its
lower end is no evidence that the groups differ. ``tests/evaluation/test_audit_stats.py`` checks the standard error against the analytic one
where every row's twins share a row effect, and the coverage of the 95 % interval by simulation.
"""

from __future__ import annotations

__all__ = ["audit_tables", "cluster_sums", "percentile_interval", "ratio_bootstrap"]

import warnings
from collections.abc import Sequence

import numpy as np
import pandas as pd

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


def audit_tables(
    d_rows: np.ndarray,
    d_cf: np.ndarray,
    row_id: np.ndarray,
    row_labels: np.ndarray,
    sensitive: np.ndarray,
    y: np.ndarray | None,
    *,
    threshold: float,
    target_kind: str,
    n_boot: int,
    seed: int,
    ci: Sequence[float],
    bootstrap: str = "rows",
) -> tuple[pd.DataFrame, pd.DataFrame, float | None]:
    """The audit's numbers with their intervals, every one a ratio of sums over the factual rows.

    Args:
        d_rows: ``D(x)`` of each factual row; d_cf: ``D(x′)`` of each twin, whose row is ``row_id``.
        row_labels: each factual row's subgroup; sensitive: its sensitive attribute's value.
        y: each row's label (or score), ``None`` when the data has none.
        threshold: the decision threshold; target_kind: ``"binary"`` or ``"score"``.
        n_boot, seed, ci: the resamples, their seed and the interval's quantiles.
        bootstrap: ``"rows"``: one draw of the rows, each with all its twins, for every number;
            ``"pairs"``: the counterfactual numbers from a draw of the pairs as if independent.

    Returns:
        ``(by_subgroup, overall, accuracy)``: see :class:`cffair.evaluation.AuditResult`.
    """
    from cffair.scores._groupfair import group_fairness

    n = len(d_rows)
    d = d_rows[row_id]
    values = np.column_stack([(d - d_cf) ** 2, ((d >= threshold) != (d_cf >= threshold)).astype(np.float64)])
    groups, g_row = np.unique(row_labels, return_inverse=True)
    one_hot = (g_row[:, None] == np.arange(len(groups))[None, :]).astype(np.float64)  # (rows, subgroups)
    # counterfactual ratios: overall and per subgroup, CF-MSE then flip rate; units rows (or pairs)
    if bootstrap == "rows":
        cf_num_unit, cf_den_unit, cf_hot = (
            cluster_sums(values, row_id, n),
            np.bincount(row_id, minlength=n) * 1.0,
            one_hot,
        )
    else:
        cf_num_unit, cf_den_unit, cf_hot = values, np.ones(len(values)), one_hot[row_id]
    cf_num = np.column_stack(
        [cf_num_unit[:, j : j + 1] * np.column_stack([np.ones(len(cf_hot)), cf_hot]) for j in (0, 1)]
    )
    cf_den = np.tile(cf_den_unit[:, None] * np.column_stack([np.ones(len(cf_hot)), cf_hot]), 2)
    # row ratios: accuracy (or MSE) overall and per subgroup; each sensitive group's selection, TPR and FPR
    decided = (d_rows >= threshold).astype(np.float64)
    s_values, s_row = np.unique(np.asarray(sensitive).astype(str), return_inverse=True)
    s_hot = (s_row[:, None] == np.arange(len(s_values))[None, :]).astype(np.float64)
    row_num, row_den = [], []
    if y is not None:
        per_row = (decided == y).astype(np.float64) if target_kind == "binary" else (d_rows - y) ** 2
        row_num += [per_row[:, None], per_row[:, None] * one_hot]
        row_den += [np.ones((n, 1)), one_hot]
    row_num.append(decided[:, None] * s_hot)
    row_den.append(s_hot)
    eo_labels = y if (y is not None and target_kind == "binary") else None
    if eo_labels is not None:
        for positive in (eo_labels, 1 - eo_labels):  # TPR, then FPR
            row_num.append((decided * positive)[:, None] * s_hot)
            row_den.append(positive[:, None] * s_hot)
    num, den = np.column_stack(row_num), np.column_stack(row_den)
    k_cf, k = cf_num.shape[1], len(s_values)
    if bootstrap == "rows":  # one draw of rows for every number
        point_all, samples_all = ratio_bootstrap(np.hstack([cf_num, num]), np.hstack([cf_den, den]), n_boot, seed)
        cf_point, cf_samples = point_all[:k_cf], samples_all[:, :k_cf]
        point, samples = point_all[k_cf:], samples_all[:, k_cf:]
    else:
        cf_point, cf_samples = ratio_bootstrap(cf_num, cf_den, n_boot, seed)
        point, samples = ratio_bootstrap(num, den, n_boot, seed)
    cf_low, cf_high = percentile_interval(cf_samples, ci)
    m = len(groups) + 1  # overall, then each subgroup
    by = pd.DataFrame(
        {"n_pairs": np.bincount(g_row[row_id], minlength=len(groups)), "cf_mse": cf_point[1:m]},
        index=pd.Index(groups, name="subgroup"),
    )
    if n_boot:
        by["cf_mse_low"], by["cf_mse_high"] = cf_low[1:m], cf_high[1:m]
    by["cf_flip_rate"] = cf_point[m + 1 :]
    if n_boot:
        by["cf_flip_rate_low"], by["cf_flip_rate_high"] = cf_low[m + 1 :], cf_high[m + 1 :]
    perf = "accuracy" if target_kind == "binary" else "mse"
    overall: dict[str, tuple[float, np.ndarray]] = {}
    j = 0
    if y is not None:
        overall[perf] = (float(point[0]), samples[:, 0])
        by["n_rows"] = np.bincount(g_row, minlength=len(groups))
        by[perf] = point[1 : 1 + len(groups)]
        if n_boot:
            by[f"{perf}_low"], by[f"{perf}_high"] = percentile_interval(samples[:, 1 : 1 + len(groups)], ci)
        j = 1 + len(groups)
    overall["cf_mse"] = (float(cf_point[0]), cf_samples[:, 0])
    overall["cf_flip_rate"] = (float(cf_point[m]), cf_samples[:, m])
    fair = group_fairness(decided, s_values[s_row], eo_labels)  # fairlearn's MetricFrame
    with np.errstate(invalid="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # a resample without a group: NaN, left out
        spreads = [
            np.nanmax(samples[:, j + i * k : j + (i + 1) * k], axis=1)
            - np.nanmin(samples[:, j + i * k : j + (i + 1) * k], axis=1)
            for i in range(3 if eo_labels is not None else 1)
        ]
    overall["demographic_parity_difference"] = (float(fair["demographic_parity_difference"] or 0.0), spreads[0])
    if fair["equalized_odds_difference"] is not None:
        overall["equalized_odds_difference"] = (
            float(fair["equalized_odds_difference"]),
            np.fmax(spreads[1], spreads[2]),
        )
    low, high = (
        percentile_interval(np.column_stack([v[1] for v in overall.values()]), ci)
        if n_boot
        else (
            np.full(len(overall), np.nan),
            np.full(len(overall), np.nan),
        )
    )
    table = pd.DataFrame(
        {"value": [v[0] for v in overall.values()], "low": low, "high": high},
        index=pd.Index(list(overall), name="metric"),
    )
    return (
        by.sort_values("cf_mse", ascending=False, kind="stable"),
        table,
        float(point[0]) if y is not None and perf == "accuracy" else None,
    )
