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

**The rule for comparisons** (:func:`paired`, :func:`decide`): every method runs on the same
folds, so a comparison of two methods is a comparison of their per-fold differences dᵢ. Each
comparison is tested with the corrected resampled t-test of :mod:`._stats` (Nadeau & Bengio 2003;
the training sets of 5-fold cross-validation overlap by 75 %, which makes the plain t-test
anti-conservative), over every repetition of cross-validation the records hold (r × 5 paired
folds, Bouckaert & Frank 2004). Beside it, where the folds come from two or more partitions, the
exact sign-flip p over the partition means (:func:`~.stats.partition_sign_flip_p`: the partitions,
not the overlapping folds, are the units it flips; with 3 partitions it cannot go below 0.25, so it
never decides anything); and beside an inconclusive comparison the smallest difference the
corrected test would detect with 80 % power (:func:`~.stats.min_detectable_difference`). A claim's comparisons (datasets, baselines) form one family, corrected
with Holm's procedure at :data:`ALPHA` = 0.05 (:func:`decide`): every comparison rejected in the
claimed direction → holds; any rejected in the opposite direction → does not hold; otherwise
inconclusive. A comparison available on one fold only (the paper's single-run Table 3, our
Adult-only investigations) has no noise estimate: its sign decides, and the note says "1 fold".
:func:`combine` joins verdicts that are not tests (counts, trends) by the same rule: any "does not
hold" → does not hold; all "holds" → holds; otherwise inconclusive.

**Evidence counted once**: COMPAS(age) is COMPAS with other subgroups, the same rows, folds and
runs; a comparison on it counts only when it can differ from COMPAS's (a method that uses the
subgroups, or a metric over subgroups: :meth:`Evidence.counts`); otherwise it is shown, not counted.

**Which rules** (:class:`Rules`, :func:`rules`): the test (``corrected`` or ``plain``), Holm's correction, and
whether COMPAS(age) is counted everywhere; the defaults are the book's verdicts, the others are the robustness table's.

**The rule for trends** (:func:`spearman_exact`): Spearman's ρ between the weight ratio and a metric over the means
of the weight points, with the exact permutation p-value (all n! orderings); fewer than :data:`MIN_TREND_POINTS`
points cannot reach p < 0.05 and are inconclusive.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from cffair.errors import DataError, ParameterError
from cffair.experiments._protocol import protocol as _protocol
from cffair.experiments._protocol import seed_means
from cffair.experiments._registry import DATASETS
from cffair.reporting._names import DATASET_ORDER, performance_metric
from cffair.reporting._records import as_records, mean_by_method, records_frame, select_records
from cffair.reporting._stats import (
    DEFAULT_TEST,
    TESTS,
    fold_test,
    holm,
    holm_adjusted,
    min_detectable_difference,
    partition_means,
    sign_flip_p,
    spearman_exact_test,
)

if TYPE_CHECKING:  # reading records loads no store (a Record comes from as_records)
    from cffair.experiments._store import Record

__all__ = [
    "ALPHA",
    "BY_CONSTRUCTION",
    "FAILS",
    "HOLDS",
    "INCONCLUSIVE",
    "MIN_TREND_POINTS",
    "PENDING",
    "SHARED_DATASETS",
    "SUBGROUP_METHODS",
    "SUBGROUP_METRICS",
    "VACUOUS",
    "VERDICTS",
    "Basis",
    "Decision",
    "Evidence",
    "Paired",
    "Rules",
    "Trend",
    "combine",
    "current_rules",
    "decide",
    "fmt",
    "fold_series",
    "folds_text",
    "p_text",
    "paired",
    "paired_series",
    "rules",
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
#: Family-wise level of a claim's tests: the pre-registered protocol's (``cffair/data/protocol.yaml``).
ALPHA = _protocol().rules.alpha
#: The fewest weight points whose exact Spearman test can reach p < 0.05 (5! = 120 orderings).
MIN_TREND_POINTS = 5
#: Datasets that are another dataset with other subgroups: ``{variant: base}``. Their runs of a
#: method that does not use subgroups are the base's runs (the same rows, folds and seeds).
SHARED_DATASETS: dict[str, str] = {k: d.shares_runs_with for k, d in DATASETS.items() if d.shares_runs_with}
#: The settings whose training uses the subgroups (A4₁ … A4ₙ): on a shared dataset their runs differ.
SUBGROUP_METHODS: tuple[str, ...] = ("ltn_acc_cf_sg", "ltn_acc_cf_sg_cke")
#: The metrics computed over subgroups: on a shared dataset they differ for every method.
SUBGROUP_METRICS: tuple[str, ...] = ("cf_mse_worst_subgroup",)


# ---------------------------------------------------------------------------- the rules in force
@dataclass(frozen=True)
class Rules:
    """Which rules decide the verdicts. The defaults are the pre-registered protocol's
    (:attr:`cffair.experiments._protocol.Protocol.rules`, read from ``cffair/data/protocol.yaml``): the book's verdicts.

    Attributes:
        test: ``"corrected"`` (Nadeau–Bengio, the book's) or ``"plain"`` (paired t-test).
        holm: correct a claim's comparisons with Holm's procedure (the book's) or test each at 0.05.
        count_shared: count COMPAS(age) in every claim (``True``: as before issue 24) or only where
            its subgroups make it differ from COMPAS (``False``, the book's).
    """

    test: str = _protocol().rules.test
    holm: bool = _protocol().rules.holm
    count_shared: bool = _protocol().rules.count_shared

    def __post_init__(self) -> None:
        if self.test not in TESTS:
            raise ParameterError(f"Rules: unknown test {self.test!r}; choose one of {', '.join(TESTS)}.")


_BOOK_RULES = Rules()
_RULES: ContextVar[Rules] = ContextVar("cffair_verdict_rules")


def current_rules() -> Rules:
    """The rules in force (:func:`rules` changes them for a block; the book's outside any)."""
    return _RULES.get(_BOOK_RULES)


@contextmanager
def rules(r: Rules) -> Iterator[Rules]:
    """Decide every verdict inside the block by ``r`` (the robustness table's other rules)."""
    token = _RULES.set(r)
    try:
        yield r
    finally:
        _RULES.reset(token)


# ---------------------------------------------------------------------------- paired comparisons
@dataclass(frozen=True)
class Paired:
    """A fold-paired comparison ``a − b`` and its verdict, on its own, for the claim "a is larger
    than b" (``larger=True``) or "a is smaller than b".

    Attributes:
        n: paired folds (over every repetition).
        mean: the mean of the per-fold differences a − b.
        sd: their standard deviation.
        p: two-sided p-value of ``test`` (NaN for one fold).
        verdict: holds, does not hold or inconclusive at level 0.05 (before any correction across
            a claim's comparisons).
        larger: the claimed direction.
        test: ``"corrected"`` or ``"plain"``.
        p_plain: the plain t-test's p-value.
        p_corrected: the corrected resampled t-test's p-value.
        p_sign: the exact sign-flip p-value over the partition means (:func:`~.stats.partition_sign_flip_p`;
            NaN for folds from one partition, where it is 1 whatever the folds say).
        repetitions: how many partitions (repetitions of cross-validation) the folds come from.
        collapsed: folds left out because a model collapsed there (:meth:`Evidence.collapsed`);
            ``n`` is 0 when every fold was, and the comparison is then inconclusive.
        mdd: the smallest true difference the corrected test detects with 80 % power at 0.05 on these
            folds (:func:`~.stats.min_detectable_difference`); NaN for one fold.
    """

    n: int
    mean: float
    sd: float
    p: float
    verdict: str
    larger: bool = True
    test: str = DEFAULT_TEST
    p_plain: float = math.nan
    p_corrected: float = math.nan
    p_sign: float = math.nan
    repetitions: int = 1
    collapsed: int = 0
    mdd: float = math.nan

    @property
    def direction(self) -> str:
        """The verdict its sign alone would give: holds, does not hold, or inconclusive for Δ = 0
        (and for no fold at all)."""
        if self.n == 0 or math.isnan(self.mean) or self.mean == 0:
            return INCONCLUSIVE
        return HOLDS if (self.mean > 0) == self.larger else FAILS

    @property
    def folds(self) -> str:
        """``"5 folds"`` or ``"15 folds (3 × 5)"``."""
        return folds_text(self.n, self.repetitions)

    @property
    def text(self) -> str:
        """``"Δ −0.012 ± 0.004 over 15 folds (3 × 5), p 0.003, sign-flip over 3 partitions 0.250"``."""
        if self.n == 0:
            return f"no comparison: the model collapsed on all {self.collapsed} folds"
        sign = "−" if self.mean < 0 else "+"
        if self.n < 2:
            return f"Δ {sign}{abs(self.mean):.3f} (1 fold, no test)"
        return f"Δ {sign}{abs(self.mean):.3f} ± {self.sd:.3f} over {self.folds}, {p_text(self)}"


def folds_text(n: int, repetitions: int = 1) -> str:
    """``"1 fold"``, ``"5 folds"`` or ``"15 folds (3 × 5)"``."""
    if n == 1:
        return "1 fold"
    if repetitions > 1 and n % repetitions == 0:
        return f"{n} folds ({repetitions} × {n // repetitions})"
    return f"{n} folds"


def paired(
    a: Sequence[float],
    b: Sequence[float],
    *,
    larger: bool,
    alpha: float = ALPHA,
    test: str | None = None,
    repetitions: int = 1,
    k: int = 5,
    partitions: Sequence[int] | None = None,
) -> Paired:
    """The verdict on "``a`` is larger (or smaller) than ``b``" from per-fold values paired by position.

    ``test`` defaults to the rules in force (:func:`current_rules`, the corrected test);
    ``repetitions`` says how many partitions of ``k``-fold cross-validation the pairs come from
    (the corrected test uses n = all pairs and test/train = 1/(k − 1)); ``partitions`` (one label
    per pair: its repetition) lets the sign-flip p read the partition means, which it needs from two
    partitions on. A pair with a missing value (NaN) is left out. Raises :class:`~cffair.errors.DataError`
    (a ``ValueError``) for no pair.

    >>> paired([0.70, 0.71, 0.69, 0.72, 0.70], [0.65, 0.66, 0.66, 0.67, 0.64], larger=True).verdict
    'holds'
    >>> paired([0.70, 0.66, 0.69, 0.65, 0.70], [0.69, 0.67, 0.68, 0.66, 0.69], larger=True).verdict
    'inconclusive'
    """
    test = test or current_rules().test
    x, y = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if x.shape != y.shape:
        raise DataError(f"paired values need one value per fold on both sides, got {x.shape} and {y.shape}.")
    keep = ~(np.isnan(x) | np.isnan(y))
    d = x[keep] - y[keep]
    n = len(d)
    if n == 0:
        raise DataError(f"no fold has both values (all {len(x)} pairs have a NaN): compute the missing folds.")
    mean = float(d.mean())
    if n == 1:
        verdict = INCONCLUSIVE if mean == 0 else (HOLDS if (mean > 0) == larger else FAILS)
        return Paired(1, mean, math.nan, math.nan, verdict, larger, test, repetitions=1)
    plain, corrected = fold_test(d, "plain"), fold_test(d, "corrected", k=k)
    p = corrected.p if test == "corrected" else plain.p
    if p >= alpha:
        verdict = INCONCLUSIVE
    else:
        verdict = HOLDS if (mean > 0) == larger else FAILS
    if partitions is not None and len(partitions) != len(x):
        raise DataError(f"one partition label per pair is needed, got {len(partitions)} for {len(x)} pairs.")
    labels = np.asarray(partitions)[keep] if partitions is not None else np.zeros(n, dtype=int)
    if partitions is not None:
        repetitions = len(np.unique(labels))
    p_sign = sign_flip_p(partition_means(d, labels)) if len(np.unique(labels)) >= 2 else math.nan
    mdd = min_detectable_difference(plain.sd, n, k) if math.isfinite(plain.sd) else math.nan
    return Paired(n, mean, plain.sd, p, verdict, larger, test, plain.p, corrected.p, p_sign, repetitions, mdd=mdd)


@dataclass(frozen=True)
class Basis:
    """What a claim's verdict rests on: the test (``"corrected t-test, Holm over 6"``, ``"count
    over runs"``), the paired folds (``"5 per comparison"``, ``"15 (3 × 5) on COMPAS, …"``) and
    which comparisons went against the claim and which for it."""

    test: str = ""
    folds: str = ""
    #: the comparisons rejected against the claim, by name (``"CNF on Adult"``), in the tests' order
    against: tuple[str, ...] = ()
    #: the comparisons rejected in the claimed direction, by name, in the tests' order
    supports: tuple[str, ...] = ()


_TEST_SHORT = {"corrected": "corrected t-test", "plain": "plain t-test"}


@dataclass(frozen=True)
class Decision:
    """A claim's verdict from its comparisons (:func:`decide`).

    Attributes:
        verdict: the claim's verdict.
        components: each comparison's verdict after the correction (``holds`` / ``does not hold``
            when rejected, else ``inconclusive``).
        adjusted: each one's Holm-adjusted p-value (its p-value without the correction; NaN for
            one fold).
        basis: the test and the paired folds.
    """

    verdict: str
    components: tuple[str, ...]
    adjusted: tuple[float, ...]
    basis: Basis


def decide(
    tests: Sequence[Paired],
    alpha: float = ALPHA,
    labels: Sequence[str] | None = None,
    *,
    names: Sequence[str] | None = None,
) -> Decision:
    """A claim's verdict from its comparisons, by the rules in force.

    With Holm (the default rules) the comparisons with a p-value (two or more folds) are one
    family: a comparison is rejected when Holm's procedure rejects it at ``alpha``, and then
    counts in the direction of its sign. A comparison on one fold counts by its sign. Then: every
    comparison rejected in the claimed direction → holds; any rejected in the opposite direction →
    does not hold; none at all → pending; otherwise inconclusive. ``labels`` (one per test, e.g.
    the dataset) name the folds in :attr:`Decision.basis` when they differ; ``names`` (one per test,
    default ``labels``) name the comparisons rejected against the claim (:attr:`Basis.against`) and
    those rejected for it (:attr:`Basis.supports`; both empty when the tests have neither).

    >>> t = [paired([1, 2, 3, 4, 5.5], [0, 0, 0, 0, 0], larger=True), paired([1, -1, 1, -1, 0.5], [0] * 5, larger=True)]
    >>> decide(t).verdict
    'inconclusive'
    >>> against = [paired([0.0] * 5, [10, 10.5, 11, 9.5, 10.2], larger=True), t[1]]
    >>> d = decide(against, names=["A vs B", "A vs C"])
    >>> d.verdict, d.basis.against
    ('does not hold', ('A vs B',))
    """
    tests = list(tests)
    if not tests:
        return Decision(PENDING, (), (), Basis())
    r = current_rules()
    tested = [i for i, t in enumerate(tests) if t.n >= 2]
    ps = [tests[i].p for i in tested]
    if r.holm:
        rejected = dict(zip(tested, holm(ps, alpha)))
        adjusted = dict(zip(tested, holm_adjusted(ps)))
    else:
        rejected = {i: tests[i].p < alpha for i in tested}
        adjusted = {i: tests[i].p for i in tested}
    comps = []
    for i, t in enumerate(tests):
        if t.n < 2:
            comps.append(t.direction)
        else:
            comps.append(t.direction if rejected[i] else INCONCLUSIVE)
    verdict = combine(comps)
    name = _TEST_SHORT[tests[tested[0]].test] if tested else "sign of one fold"
    if tested and len(tested) > 1:
        name += f", Holm over {len(tested)}" if r.holm else f", {len(tested)} tests, no correction"
    called = names if names is not None else labels
    against = tuple(dict.fromkeys(called[i] for i, c in enumerate(comps) if c == FAILS)) if called else ()
    supports = tuple(dict.fromkeys(called[i] for i, c in enumerate(comps) if c == HOLDS)) if called else ()
    return Decision(
        verdict,
        tuple(comps),
        tuple(adjusted.get(i, math.nan) for i in range(len(tests))),
        Basis(name, _folds_basis(tests, labels), against, supports),
    )


def _folds_basis(tests: Sequence[Paired], labels: Sequence[str] | None) -> str:
    """``"5 per comparison"``, or ``"15 (3 × 5) on COMPAS, Lawschool; 5 on Adult"``."""
    by: dict[str, list[str]] = {}
    for i, t in enumerate(tests):
        n = str(t.n) if t.n < 2 else t.folds.replace(" folds", "")
        labs = by.setdefault(n, [])
        if labels is not None and labels[i] not in labs:
            labs.append(labels[i])
    if len(by) == 1:
        (n,) = by
        return f"{n} per comparison" if len(tests) > 1 else n
    return "; ".join(f"{n} on {', '.join(labs)}" if labs else n for n, labs in by.items())


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


def spearman_exact(x: Sequence[float], y: Sequence[float], max_points: int = 9) -> Trend:
    """Spearman's ρ with its exact permutation p-value (:func:`~.stats.spearman_exact_test`: the share
    of the n! orderings of ``y`` whose ``|ρ|`` is at least the observed one), as a :class:`Trend`.

    >>> t = spearman_exact([1, 2, 3, 4, 5, 6, 7], [0.1, 0.2, 0.25, 0.3, 0.5, 0.55, 0.9])
    >>> (t.rho, round(t.p, 4))
    (1.0, 0.0004)
    """
    n, rho, p = spearman_exact_test(x, y, max_points)
    return Trend(n, rho, p)


# ---------------------------------------------------------------------------- the evidence
def fmt(v: float | None) -> str:
    """``"0.123"``, or ``"—"`` for a missing value."""
    return "—" if v is None or (isinstance(v, float) and math.isnan(v)) else f"{v:.3f}"


@dataclass
class Evidence:
    """What the claim checks read: the records; the paper's protocol as a frame (``main``: CNF counterfactuals, no
    weight-grid tag, no investigation) with means over folds per ``(dataset, method)`` (method keys carry ``@gan`` for
    the runs on the GAN's counterfactuals); and the investigations' records (options, or a ``ref`` baseline)."""

    records: list[Record]
    main: pd.DataFrame = field(default_factory=pd.DataFrame)
    cf: dict[tuple[str, str], float] = field(default_factory=dict)
    worst: dict[tuple[str, str], float] = field(default_factory=dict)
    acc: dict[tuple[str, str], float] = field(default_factory=dict)
    mse: dict[tuple[str, str], float] = field(default_factory=dict)
    flips: dict[tuple[str, str], float] = field(default_factory=dict)

    @classmethod
    def of(cls, records: Iterable[Record]) -> Evidence:
        """The evidence of some records (plain mappings are read as :class:`~cffair.experiments.Record` s)."""
        recs = as_records(records)
        main = select_records(records_frame(recs), repeats=True)
        return cls(
            recs,
            main,
            mean_by_method(main, "cf_mse"),
            mean_by_method(main, "cf_mse_worst_subgroup"),
            mean_by_method(main, "accuracy"),
            mean_by_method(main, "mse"),
            mean_by_method(main, "cf_flip_rate"),
        )

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
        """Per-fold values of ``metric`` for method ``m`` on dataset ``d`` (``"perf"``: accuracy or
        −MSE), indexed by ``(repeat, fold)``: every repetition of cross-validation the records hold.

        A fold whose model collapsed (:func:`cffair.scores.screen_metrics`: constant or
        near-constant decisions, or accuracy at or below the majority rate) is NaN, so that no
        verdict counts it (:func:`paired` leaves out a pair with a missing value); :meth:`collapsed`
        names those folds for the page that would have used them. A fold trained with several seeds gives
        the mean over its seeds (:func:`fold_series`): a collapsed seed is left out of its fold's mean, and
        the fold is NaN only when every seed collapsed."""
        rows = self.main[(self.main["dataset"] == d) & (self.main["method"] == m)]
        col = performance_metric(d) if metric == "perf" else metric
        return fold_series(rows, col, sign=-1.0 if metric == "perf" and col != "accuracy" else 1.0)

    def measured(self, d: str, methods: Iterable[str], metric: str) -> bool:
        """Whether every one of ``methods`` has ``metric`` on some fold of ``d`` (a score's worst
        subgroup has no value where the records lack its per-subgroup values:
        :mod:`cffair.reporting._scores`)."""
        if metric not in self.main:
            return False
        rows = self.main[self.main["dataset"] == d]
        return all(rows.loc[rows["method"] == m, metric].astype(float).notna().any() for m in methods)

    def collapsed(self, d: str, m: str) -> list[tuple[int, int]]:
        """The ``(repeat, fold)`` pairs where method ``m`` collapsed on dataset ``d`` (left out of every verdict)."""
        rows = self.main[(self.main["dataset"] == d) & (self.main["method"] == m)]
        if "collapsed" not in rows:
            return []
        hit = rows[rows["collapsed"].fillna(False).astype(bool)]
        return sorted(zip(hit["repeat"].astype(int), hit["fold"].astype(int)))

    def compare(self, d: str, a: str, b: str, metric: str, larger: bool) -> Paired:
        """The fold-paired verdict on "``a`` has a larger (smaller) ``metric`` than ``b`` on ``d``",
        over the folds of every repetition both have."""
        x, y = self.folds(d, a, metric), self.folds(d, b, metric)
        shared = sorted(set(x.index) & set(y.index))
        both = [f for f in shared if not (np.isnan(x.loc[f]) or np.isnan(y.loc[f]))]
        gone = {f for f in shared if f not in both} & (set(self.collapsed(d, a)) | set(self.collapsed(d, b)))
        if shared and not both and gone:
            return Paired(0, math.nan, math.nan, math.nan, INCONCLUSIVE, larger, collapsed=len(gone))
        result = paired_series(x, y, larger=larger)
        return replace(result, collapsed=len(gone)) if gone else result

    def counts(self, d: str, methods: Iterable[str], metric: str = "") -> bool:
        """Whether a comparison of ``methods`` on ``metric`` on ``d`` is evidence of its own.

        A shared dataset (:data:`SHARED_DATASETS`, COMPAS(age)) runs the same rows, folds and
        models as its base: a comparison on it counts only when a method uses the subgroups
        (:data:`SUBGROUP_METHODS`) or the metric is computed over them (:data:`SUBGROUP_METRICS`);
        otherwise it repeats the base's comparison. With ``Rules(count_shared=True)`` everything counts.
        """
        if d not in SHARED_DATASETS or current_rules().count_shared or metric in SUBGROUP_METRICS:
            return True
        return any(m.split("@")[0] in SUBGROUP_METHODS for m in methods)


def fold_series(rows: pd.DataFrame, column: str, sign: float = 1.0) -> pd.Series:
    """``sign`` × ``column`` per fold of ``rows`` (:func:`~cffair.reporting.records_frame` rows of one
    dataset and method), indexed by ``(repeat, fold)``: a collapsed model's value NaN, the seeds of a fold
    averaged (:func:`cffair.experiments._protocol.seed_means`), so that the fold is the unit of every test."""
    values = rows[column].astype(float) * sign
    if "collapsed" in rows:
        values = values.mask(rows["collapsed"].fillna(False).astype(bool))
    return seed_means(rows.assign(**{column: values}), column).droplevel(["dataset", "method"])


def paired_series(x: pd.Series, y: pd.Series, *, larger: bool) -> Paired:
    """:func:`paired` of two per-fold series indexed by ``(repeat, fold)``, on the folds both have."""
    folds = sorted(set(x.index) & set(y.index))
    if not folds:
        raise DataError(
            f"no fold has both values ({len(x)} and {len(y)} folds, none shared): compute the missing folds."
        )
    parts = [f[0] if isinstance(f, tuple) else 0 for f in folds]
    return paired(
        x.loc[folds].to_numpy(), y.loc[folds].to_numpy(), larger=larger, repetitions=len(set(parts)), partitions=parts
    )


def _p(p: float) -> str:
    return "p —" if math.isnan(p) else "p < 0.001" if p < 0.001 else f"p {p:.3f}"


def p_text(p: Paired | float) -> str:
    """``"p 0.003"`` or ``"p < 0.001"`` for a p-value. For a comparison: its test's p-value; beside
    it, for folds from two or more partitions, the sign-flip p over the partition means (``"p 0.003,
    sign-flip over 3 partitions 0.250"``); and for a comparison not significant at 0.05 the smallest
    difference its test detects with 80 % power (``"p 0.137, detects |Δ| ≥ 0.027 at 80 % power"``);
    ``"1 fold"`` for a comparison on one fold.

    >>> p_text(paired([0.1, 0.2, 0.3, 0.2, 0.1, 0.0], [0.1] * 6, larger=True, partitions=[0, 0, 0, 1, 1, 1]))
    'p 0.493, sign-flip over 2 partitions 1.000, detects |Δ| ≥ 0.238 at 80 % power'
    """
    if isinstance(p, Paired):
        if p.n < 2:
            return "1 fold"
        parts = _p(p.p)
        if not math.isnan(p.p_sign):
            parts += f", sign-flip over {p.repetitions} partitions {p.p_sign:.3f}"
        if p.verdict == INCONCLUSIVE and math.isfinite(p.mdd):
            parts += f", detects |Δ| ≥ {p.mdd:.3f} at 80 % power"
        return parts
    return _p(p)
