"""Verdicts on the paper's claims: five states, and the fold-paired rules that decide them.

A claim about our numbers gets one of five verdicts (:data:`VERDICTS`):

* **holds** — our numbers show what the paper claims, beyond fold noise;
* **does not hold** — they show the opposite, beyond fold noise (or, for a claim about
  counts or a single run, they do not show it);
* **inconclusive** — the difference is within fold noise;
* **vacuous** — the claim's precondition never occurred (e.g. a claim about what the A5 axiom
  does when no A5 axiom was ever added);
* **by construction** — our procedure makes the claim true whatever the model (e.g. a query
  person chosen so that the query finds an answer).

A claim whose records are missing stays ``pending`` (not a verdict).

**The rule for comparisons** (:func:`paired`): every method runs on the same five folds, so a
comparison of two methods is a comparison of their per-fold differences dᵢ. Its verdict is
decided by a two-sided paired t-test over the folds at level :data:`ALPHA` = 0.05: with
t = mean(d) / (sd(d) / √n) and n − 1 degrees of freedom, p < 0.05 in the claimed direction →
holds, in the other → does not hold, otherwise inconclusive. With 5 folds that asks for
|mean(d)| > 1.24 sd(d). A comparison available on one fold only (the paper's single-run Table
3, our Adult-only investigations) has no noise estimate: its sign decides, and the note says
"1 fold". A claim over several datasets or comparisons combines them with :func:`combine`:
any "does not hold" → does not hold; all "holds" → holds; otherwise inconclusive.

**The rule for trends** (:func:`spearman_exact`): Spearman's ρ between the weight ratio and a
metric over the means of the weight points, with the exact permutation p-value (all n!
orderings); fewer than :data:`MIN_TREND_POINTS` points cannot reach p < 0.05 and are
inconclusive.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import permutations
from typing import Any

import numpy as np
import pandas as pd

from cffair.reporting.names import DATASET_ORDER, performance_metric
from cffair.reporting.records import mean_by_method, records_frame, select_records

__all__ = [
    "ALPHA",
    "BY_CONSTRUCTION",
    "FAILS",
    "HOLDS",
    "INCONCLUSIVE",
    "MIN_TREND_POINTS",
    "PENDING",
    "VACUOUS",
    "VERDICTS",
    "VERDICT_RULE",
    "Evidence",
    "Paired",
    "Trend",
    "combine",
    "fmt",
    "p_text",
    "paired",
    "spearman_exact",
]

HOLDS = "holds"
FAILS = "does not hold"
INCONCLUSIVE = "inconclusive"
VACUOUS = "vacuous"
BY_CONSTRUCTION = "by construction"
#: The five verdicts, in the order a tally lists them.
VERDICTS: tuple[str, ...] = (HOLDS, FAILS, INCONCLUSIVE, VACUOUS, BY_CONSTRUCTION)
#: Not a verdict: the records for the claim are missing.
PENDING = "pending"
#: Level of the paired test over folds.
ALPHA = 0.05
#: The fewest weight points whose exact Spearman test can reach p < 0.05 (5! = 120 orderings).
MIN_TREND_POINTS = 5

#: How the verdicts are decided, shown below the claims table (:func:`claims_table`, ``rule=True``).
VERDICT_RULE = (
    "How a verdict is decided: a comparison of two methods uses the folds both ran on; it holds (or does not) when a paired "
    "t-test over those folds gives p < 0.05 in the claimed (or the opposite) direction, and is inconclusive otherwise; "
    "a comparison on one fold (the paper's single-run Table 3) is decided by its sign. A trend over weights is decided by an "
    "exact Spearman test over at least five weight points. Claims about counts and rankings are decided as their notes say. "
    "Vacuous: the claim's precondition never occurred (e.g. no A5 axiom was added). By construction: our procedure makes the "
    "claim true whatever the model."
)


@dataclass(frozen=True)
class Paired:
    """A fold-paired comparison ``a − b`` and its verdict for the claim "a is larger than b"
    (``larger=True``) or "a is smaller than b".

    Attributes:
        n: folds both have; mean, sd: of the per-fold differences a − b; p: two-sided p-value of
        the paired t-test (NaN for one fold); verdict: holds, does not hold or inconclusive.
    """

    n: int
    mean: float
    sd: float
    p: float
    verdict: str

    @property
    def text(self) -> str:
        """``"Δ −0.012 ± 0.004 over 5 folds, p 0.003"``."""
        sign = "−" if self.mean < 0 else "+"
        if self.n < 2:
            return f"Δ {sign}{abs(self.mean):.3f} (1 fold, no test)"
        return f"Δ {sign}{abs(self.mean):.3f} ± {self.sd:.3f} over {self.n} folds, p {self.p:.3f}"


def paired(a: Sequence[float], b: Sequence[float], *, larger: bool, alpha: float = ALPHA) -> Paired:
    """The verdict on "``a`` is larger (or smaller) than ``b``" from per-fold values paired by position.

    A pair with a missing value (NaN) is left out. Raises ``ValueError`` for no pair.

    >>> paired([0.70, 0.71, 0.69, 0.72, 0.70], [0.65, 0.66, 0.66, 0.67, 0.64], larger=True).verdict
    'holds'
    >>> paired([0.70, 0.66, 0.69, 0.65, 0.70], [0.69, 0.67, 0.68, 0.66, 0.69], larger=True).verdict
    'inconclusive'
    """
    x, y = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if x.shape != y.shape:
        raise ValueError(f"paired values need the same number of folds, got {x.shape} and {y.shape}.")
    keep = ~(np.isnan(x) | np.isnan(y))
    d = x[keep] - y[keep]
    n = int(len(d))
    if n == 0:
        raise ValueError("no fold has both values.")
    mean = float(d.mean())
    if n == 1:
        verdict = INCONCLUSIVE if mean == 0 else (HOLDS if (mean > 0) == larger else FAILS)
        return Paired(1, mean, float("nan"), float("nan"), verdict)
    sd = float(d.std(ddof=1))
    if sd == 0:
        p = 1.0 if mean == 0 else 0.0
    else:
        from scipy import stats

        p = float(2 * stats.t.sf(abs(mean) / (sd / math.sqrt(n)), n - 1))
    if p >= alpha:
        verdict = INCONCLUSIVE
    else:
        verdict = HOLDS if (mean > 0) == larger else FAILS
    return Paired(n, mean, sd, p, verdict)


def combine(verdicts: Iterable[str]) -> str:
    """One verdict from several (datasets, comparisons): any "does not hold" → does not hold;
    every one "holds" → holds; none at all → pending; otherwise inconclusive."""
    vs = list(verdicts)
    if not vs:
        return PENDING
    if FAILS in vs:
        return FAILS
    if all(v == HOLDS for v in vs):
        return HOLDS
    return INCONCLUSIVE


@dataclass(frozen=True)
class Trend:
    """Spearman's ρ of a metric against a covariate over ``n`` points and its exact two-sided p-value."""

    n: int
    rho: float
    p: float

    def verdict(self, rising: bool, alpha: float = ALPHA) -> str:
        """holds if the trend is significant in the ``rising`` (or falling) direction, does
        not hold if significant the other way, else inconclusive (always with fewer than
        :data:`MIN_TREND_POINTS` points)."""
        if self.n < MIN_TREND_POINTS or math.isnan(self.rho) or self.p >= alpha:
            return INCONCLUSIVE
        return HOLDS if (self.rho > 0) == rising else FAILS


def _ranks(v: np.ndarray) -> np.ndarray:
    from scipy.stats import rankdata

    return rankdata(v)


def spearman_exact(x: Sequence[float], y: Sequence[float], max_points: int = 9) -> Trend:
    """Spearman's ρ with its exact permutation p-value (two-sided: the share of the n! orderings
    of ``y`` whose |ρ| is at least the observed one).

    >>> t = spearman_exact([1, 2, 3, 4, 5, 6, 7], [0.1, 0.2, 0.25, 0.3, 0.5, 0.55, 0.9])
    >>> (t.rho, round(t.p, 4))
    (1.0, 0.0004)
    """
    xs, ys = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if xs.shape != ys.shape or xs.ndim != 1:
        raise ValueError(f"x and y must be 1-D of the same length, got {xs.shape} and {ys.shape}.")
    n = len(xs)
    if n > max_points:
        raise ValueError(f"the exact test enumerates n! orderings; at most {max_points} points, got {n}.")
    if n < 2 or np.ptp(xs) == 0 or np.ptp(ys) == 0:
        return Trend(n, float("nan"), float("nan"))
    rx, ry = _ranks(xs), _ranks(ys)

    def rho(r: np.ndarray) -> float:
        return float(np.corrcoef(rx, r)[0, 1])

    observed = rho(ry)
    hits = total = 0
    for perm in permutations(ry):
        total += 1
        hits += abs(rho(np.asarray(perm))) >= abs(observed) - 1e-12
    return Trend(n, observed, hits / total)


# ---------------------------------------------------------------------------- the evidence
def fmt(v: float | None) -> str:
    """``"0.123"``, or ``"—"`` for a missing value."""
    return "—" if v is None or (isinstance(v, float) and math.isnan(v)) else f"{v:.3f}"


@dataclass
class Evidence:
    """What the claim checks read: the records; the paper's protocol as a frame (``main``: CNF
    counterfactuals, no weight-grid tag, no investigation) with means over folds per
    ``(dataset, method)`` (method keys carry ``@gan`` for the runs on the GAN's
    counterfactuals); and the investigations' records (options, or a ``ref`` baseline)."""

    records: list[Mapping[str, Any]]
    main: pd.DataFrame = field(default_factory=pd.DataFrame)
    cf: dict[tuple[str, str], float] = field(default_factory=dict)
    worst: dict[tuple[str, str], float] = field(default_factory=dict)
    acc: dict[tuple[str, str], float] = field(default_factory=dict)
    mse: dict[tuple[str, str], float] = field(default_factory=dict)
    flips: dict[tuple[str, str], float] = field(default_factory=dict)

    @classmethod
    def of(cls, records: Iterable[Mapping[str, Any]]) -> Evidence:
        """The evidence of some records."""
        recs = list(records)
        main = select_records(records_frame(recs))
        return cls(recs, main, mean_by_method(main, "cf_mse"), mean_by_method(main, "cf_mse_worst_subgroup"),
                   mean_by_method(main, "accuracy"), mean_by_method(main, "mse"), mean_by_method(main, "cf_flip_rate"))

    def have(self, *methods: str) -> list[str]:
        """The datasets (in the paper's order) with a CF-MSE for every one of ``methods``."""
        return [d for d in DATASET_ORDER if all((d, m) in self.cf for m in methods)]

    def perf(self, d: str, m: str) -> float:
        """Higher is better: accuracy, or −MSE for Lawschool."""
        return self.acc.get((d, m), np.nan) if performance_metric(d) == "accuracy" else -self.mse.get((d, m), np.nan)

    def perf_text(self, d: str, m: str) -> str:
        """The performance of ``m`` on ``d`` as text: ``"0.812"`` or ``"MSE 0.880"``."""
        return fmt(self.acc.get((d, m))) if performance_metric(d) == "accuracy" else f"MSE {fmt(self.mse.get((d, m)))}"

    def folds(self, d: str, m: str, metric: str) -> pd.Series:
        """Per-fold values of ``metric`` for method ``m`` on dataset ``d`` (``"perf"``: accuracy or −MSE)."""
        rows = self.main[(self.main["dataset"] == d) & (self.main["method"] == m)]
        if metric == "perf":
            col = performance_metric(d)
            return rows.set_index("fold")[col].astype(float) * (1 if col == "accuracy" else -1)
        return rows.set_index("fold")[metric].astype(float)

    def compare(self, d: str, a: str, b: str, metric: str, larger: bool) -> Paired:
        """The fold-paired verdict on "``a`` has a larger (smaller) ``metric`` than ``b`` on ``d``"."""
        x, y = self.folds(d, a, metric), self.folds(d, b, metric)
        folds = sorted(set(x.index) & set(y.index))
        return paired(x.loc[folds].to_numpy(), y.loc[folds].to_numpy(), larger=larger)


def p_text(p: Paired | float) -> str:
    """``"p 0.003"``, ``"p < 0.001"``, or ``"1 fold"`` for a comparison on one fold."""
    if isinstance(p, Paired):
        if p.n < 2:
            return "1 fold"
        p = p.p
    return "p —" if math.isnan(p) else "p < 0.001" if p < 0.001 else f"p {p:.3f}"
