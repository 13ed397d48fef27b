"""Model selection a researcher can trust: accurate enough first, then the fairest, never a collapsed model.

Choosing the model with the best fairness score alone picks a model that is fair because it
says the same thing to everyone (a constant predictor flips nothing), and choosing between
candidates whose scores differ by less than their fold-to-fold spread picks noise. The rule
here (:func:`select`) avoids both:

1. **Screen.** A candidate is dropped when it collapsed (:func:`cffair.scores.screen_folds`):
   constant or near-constant decisions on any fold, or a mean accuracy over the folds at or below
   the mean majority-class rate (no better than always predicting the commoner label). One fold
   below the majority rate alone drops nothing: a fold's accuracy moves by a few points by chance.
2. **Accurate enough.** Of the others, those whose mean accuracy (over the folds) is within
   ``tolerance`` of the best mean accuracy are kept. ``tolerance="se"`` (the default) is one
   standard error of the best candidate's fold accuracies (sd / √k; the "one-standard-error
   rule" of Breiman et al. 1984): candidates the folds cannot tell apart from the best on
   accuracy. A number is an absolute tolerance (``0.01``: one point of accuracy).
3. **Fairest.** Of the kept candidates, the one with the lowest mean of the chosen fairness
   score (the flip rate by default) is chosen; a tie goes to the more accurate one.

The result (:class:`Selection`) shows every candidate with the mean ± sd over folds of each
score and why it was kept or dropped, and says whether the choice is beyond fold noise: the
chosen candidate is compared with the runner-up (the next fairest kept one) on the same folds by
the corrected resampled t-test the report uses (:func:`cffair.reporting.paired`); when
the difference is within noise, the note says so, and the choice between them is a toss-up.

Two sources of candidates:

* **A scikit-learn search** (:class:`~sklearn.model_selection.GridSearchCV`,
  ``RandomizedSearchCV``, or their ``cv_results_``) with multi-metric scoring, e.g. the
  dictionary :func:`scoring` returns: ``accuracy``, ``cf_flip_rate``, ``cf_mse`` (cffair's scorers,
  minus the metric; shown here as the metric), ``collapsed`` (:func:`collapsed_scorer`, 1 on a
  fold where the model's decisions are constant or near-constant) and ``majority_rate``
  (:func:`majority_rate_scorer`). The rule is also a ``refit`` callable
  (:class:`FairestWithinTolerance`), so the search refits the chosen candidate. (The fairness
  scorers of :func:`scoring` do not screen, as the rule does; to refit by a fairness score alone,
  use :func:`cffair.learners.cf_flip_rate_scorer`, which scores a collapsed fold as the worst.)
* **Own-data records** (:func:`cffair.workflows.run`'s ``records`` or an :class:`~cffair.workflows.OwnRun`):
  one candidate per method (and options), the folds of the run.

Example::

    from sklearn.model_selection import GridSearchCV
    from cffair import CounterfactualFairClassifier
    from cffair.reporting._model_selection import FairestWithinTolerance, scoring, select

    search = GridSearchCV(CounterfactualFairClassifier(spec), {"setting": ["acc", "acc_cf"], "lr": [1e-3, 1e-2]},
                          scoring=scoring(), refit=FairestWithinTolerance(), cv=5).fit(X, y)
    print(select(search))   # the candidates, mean ± sd per score, kept or dropped and why; the choice and its noise
"""

from __future__ import annotations

__all__ = [
    "Candidate",
    "FairestWithinTolerance",
    "Selection",
    "collapsed_scorer",
    "majority_rate_scorer",
    "scoring",
    "select",
]

import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from cffair.errors import ParameterError, SelectionError

if TYPE_CHECKING:  # pragma: no cover
    from cffair.experiments._store import Record

FINGERPRINT_EXEMPT = True  # chooses among finished runs: no reproduction record runs it

#: Scores whose scikit-learn value is minus the metric (cffair's scorers): shown as the metric.
NEGATED_SCORES: tuple[str, ...] = ("cf_flip_rate", "cf_mse", "calibrated_cf_mse", "cf_mse_worst_subgroup")
#: The scoring key of :func:`collapsed_scorer` in :func:`scoring`.
COLLAPSED = "collapsed"
#: The scoring key of :func:`majority_rate_scorer` in :func:`scoring`.
MAJORITY = "majority_rate"


# ============================================================================ scorers
def collapsed_scorer(estimator: Any, X: pd.DataFrame, y: Any = None) -> float:
    """1.0 if the fitted ``estimator``'s outputs on these rows are constant or its decisions
    near-constant (:func:`cffair.scores._screen.screen` without the labels), else 0.0.

    A scikit-learn scorer for a search's multi-metric ``scoring``: :func:`select` drops a
    candidate that collapsed on any fold. It reads a cffair estimator (also as a
    :class:`~sklearn.pipeline.Pipeline`'s last step) or any estimator with ``predict_proba``
    (``predict`` for a score target).
    """
    from cffair.learners._estimator import _scoring_step
    from cffair.scores._screen import screen

    steps = getattr(estimator, "steps", None)
    if hasattr(estimator, "cf_decisions") or (steps and hasattr(steps[-1][1], "cf_decisions")):
        step, rows = _scoring_step(estimator, X)
        kind = step.spec_.target_kind
        out = step._d(rows)
    else:
        step, kind = estimator, "binary" if hasattr(estimator, "predict_proba") else "score"
        out = (
            np.asarray(estimator.predict_proba(X))[:, 1]
            if kind == "binary"
            else np.asarray(estimator.predict(X), dtype=np.float64)
        )
    del y, step  # accuracy against the majority rate is judged over the folds (majority_rate_scorer)
    return 1.0 if screen(out, target_kind=kind).collapsed else 0.0


def majority_rate_scorer(estimator: Any, X: pd.DataFrame, y: Any = None) -> float:
    """The share of the commonest label among ``y``: the accuracy of always predicting it, which
    :func:`select` compares a candidate's mean accuracy with (the estimator is not used).

    >>> majority_rate_scorer(None, None, ["no", "yes", "no", "no"])
    0.75
    """
    labels = pd.Series(np.asarray(y).ravel())
    return float(labels.value_counts(normalize=True).iloc[0]) if len(labels) else math.nan


def scoring(
    fairness: Sequence[str] = ("cf_flip_rate", "cf_mse"),
    *,
    counterfactuals: Callable[[pd.DataFrame], pd.DataFrame] | None = None,
    performance: str = "accuracy",
) -> dict[str, Any]:
    """The multi-metric ``scoring`` of a search that :func:`select` reads.

    Args:
        fairness: cffair's fairness scorers to include, by metric: ``cf_flip_rate``, ``cf_mse``.
        counterfactuals: the twins of any rows, for estimators without twins of their own
            (:func:`cffair.learners.cf_scorer`).
        performance: scikit-learn's scoring name of the performance score (``"accuracy"``; for a
            regressor ``"neg_mean_squared_error"``).

    Returns:
        The scorers by name (the performance score under its own name, the chosen fairness
        scorers ``cf_flip_rate`` and ``cf_mse``, :func:`collapsed_scorer` as ``collapsed`` and, for
        ``accuracy``, :func:`majority_rate_scorer` as ``majority_rate``). The fairness scorers do not
        screen (``screen_collapsed=False``), since :func:`select` does, over the folds.

    >>> sorted(scoring())
    ['accuracy', 'cf_flip_rate', 'cf_mse', 'collapsed', 'majority_rate']
    """
    from cffair.learners._estimator import cf_scorer

    known = {"cf_flip_rate": "flip_rate", "cf_mse": "cf_mse"}
    bad = [f for f in fairness if f not in known]
    if bad:
        raise ParameterError(f"unknown fairness score(s) {bad}; choose from {', '.join(known)}.")
    out: dict[str, Any] = {performance: performance}
    out.update({f: cf_scorer(known[f], counterfactuals, screen_collapsed=False) for f in fairness})  # type: ignore[arg-type]
    out[COLLAPSED] = collapsed_scorer
    if performance == "accuracy":
        out[MAJORITY] = majority_rate_scorer
    return out


# ============================================================================ candidates
@dataclass
class Candidate:
    """One candidate's per-fold numbers, in the orientation of the rule.

    Attributes:
        label: how the candidate is named in the frame (its parameters, or the method and options).
        params: its parameters (a search's) or ``{"method": ..., "options": ...}`` (records).
        performance: per-fold performance, larger is better (accuracy; minus the MSE).
        fairness: per-fold fairness score, smaller is fairer (the flip rate, the CF-MSE).
        collapsed: per fold, whether the model collapsed there.
        excluded: why the screen drops the candidate (empty: it is kept).
        scores: every score to show, per fold, as the metric (accuracy, flip rate, ...).
    """

    label: str
    params: dict[str, Any]
    performance: np.ndarray
    fairness: np.ndarray
    collapsed: np.ndarray
    excluded: str = ""
    scores: dict[str, np.ndarray] = field(default_factory=dict)


def _splits(results: Mapping[str, Any], key: str) -> np.ndarray:
    """``(n_candidates, n_folds)`` test scores of a scoring key in ``cv_results_``."""
    cols = sorted((int(m.group(1)), c) for c in results if (m := re.fullmatch(rf"split(\d+)_test_{re.escape(key)}", c)))
    if not cols:
        names = sorted({c.split("_test_", 1)[1] for c in results if re.fullmatch(r"split\d+_test_.+", c)})
        raise SelectionError(
            f"the search's results have no per-fold test score {key!r}; they have {names or 'none'}. "
            "Search with multi-metric scoring (scoring=cffair.reporting.scoring()) and name the keys here."
        )
    return np.column_stack([np.asarray(results[c], dtype=np.float64) for _, c in cols])


def _from_search(results: Mapping[str, Any], performance: str | None, fairness: str) -> tuple[list[Candidate], str]:
    names = sorted({c.split("_test_", 1)[1] for c in results if re.fullmatch(r"split\d+_test_.+", c)})
    if performance is None:
        performance = next((p for p in ("accuracy", "neg_mean_squared_error", "r2") if p in names), None)
        if performance is None:
            raise SelectionError(
                f"no performance score among the search's scores {names}; score 'accuracy' too, or name it (performance=...)."
            )
    perf, fair = _splits(results, performance), _splits(results, fairness)
    negated = fairness in NEGATED_SCORES
    if COLLAPSED in names:
        collapsed = _splits(results, COLLAPSED) >= 0.5
        how = "constant or near-constant decisions"
    else:  # cffair's own scorers give a collapsed fold their worst score
        collapsed = fair <= -1.0 if negated else np.zeros_like(fair, dtype=bool)
        how = f"its {fairness} score is the worst, which cffair's scorers give a collapsed model"
    majority = _splits(results, MAJORITY) if MAJORITY in names and performance == "accuracy" else None
    shown = {n: _splits(results, n) for n in names if n != COLLAPSED}
    shown = {n: (-v if n in NEGATED_SCORES else v) for n, v in shown.items()}
    out = []
    for i, params in enumerate(results["params"]):
        label = ", ".join(f"{k}={v}" for k, v in params.items()) or f"candidate {i}"
        folds = np.flatnonzero(collapsed[i])
        excluded = f"collapsed on fold(s) {', '.join(str(f) for f in folds)} ({how})" if len(folds) else ""
        if not excluded and majority is not None and np.nanmean(perf[i]) <= np.nanmean(majority[i]) + 1e-12:
            excluded = (
                f"its mean accuracy {np.nanmean(perf[i]):.3f} over {perf.shape[1]} folds is at or below the mean "
                f"majority-class rate {np.nanmean(majority[i]):.3f}"
            )
        out.append(
            Candidate(
                label,
                dict(params),
                perf[i],
                -fair[i] if negated else fair[i],
                collapsed[i],
                excluded,
                {n: v[i] for n, v in shown.items()},
            )
        )
    return out, performance


def _from_records(
    records: Sequence[Record], performance: str | None, fairness: str, majority: Mapping[int, float]
) -> tuple[list[Candidate], str]:
    from cffair.reporting._names import method_name
    from cffair.reporting._records import records_frame
    from cffair.scores._screen import screen_folds, screen_metrics

    frame = records_frame(records)
    if frame.empty:
        raise SelectionError("no records to choose from.")
    if performance is None:
        performance = "accuracy" if frame["accuracy"].notna().any() else "mse"
    for key in (performance, fairness):
        if key not in frame.columns or frame[key].isna().all():
            raise SelectionError(
                f"the records have no {key!r}; choose a score they hold (accuracy, cf_mse, cf_flip_rate)."
            )
    # each fold's metrics with the majority rate a record made before it was recorded lacks
    metrics = []
    for r in records:
        m = dict(r["metrics"])
        fold = r.config.fold
        if "accuracy" in m and "majority_rate" not in m and fold in majority:
            m["majority_rate"] = float(majority[fold])
        metrics.append(m)
    frame["_metrics"] = metrics
    frame["collapsed"] = [
        screen_metrics({k: v for k, v in m.items() if k not in ("majority_rate", "target_variance")}).collapsed
        for m in metrics
    ]
    frame["candidate"] = [
        method_name(m) + (f" [{o}]" if o else "") + (f" ({t})" if t else "")
        for m, o, t in zip(frame["method"], frame["options"], frame["tag"], strict=True)
    ]
    folds = sorted(set(frame["fold"]))
    shown = [k for k in ("accuracy", "mse", "cf_mse", "cf_flip_rate", "calibrated_cf_mse") if frame[k].notna().any()]
    out = []
    for label, g in frame.groupby("candidate", sort=False):
        verdict = screen_folds(list(g.sort_values("fold")["_metrics"]))
        g = g.set_index("fold").reindex(folds)
        perf = g[performance].to_numpy(np.float64)
        out.append(
            Candidate(
                str(label),
                {"method": g["method"].dropna().iloc[0], "options": g["options"].dropna().iloc[0]},
                perf if performance == "accuracy" else -perf,
                g[fairness].to_numpy(np.float64),
                g["collapsed"].fillna(False).to_numpy(bool),
                verdict.reason,
                {k: g[k].to_numpy(np.float64) for k in shown},
            )
        )
    return out, performance


# ============================================================================ the rule
@dataclass(frozen=True)
class Selection:
    """What :func:`select` chose, and why.

    Attributes:
        index: the chosen candidate's position (in ``cv_results_["params"]`` for a search).
        label: its name in :attr:`frame`.
        params: its parameters.
        frame: one row per candidate: ``mean`` and ``sd`` over folds of every score (as the metric:
            the flip rate, not minus it), ``collapsed folds``, ``status`` (``chosen``, ``kept``,
            ``dropped``) and ``why``.
        tolerance: the accuracy tolerance used (an absolute number).
        tolerance_rule: how it was set (``"one standard error of the best (0.0123)"``).
        within_noise: whether the chosen candidate's fairness is within fold noise of the
            runner-up's (``None`` when only one candidate was kept).
        note: the choice in one paragraph (the rule, the choice, the runner-up and the noise).
    """

    index: int
    label: str
    params: dict[str, Any]
    frame: pd.DataFrame
    tolerance: float
    tolerance_rule: str
    within_noise: bool | None
    note: str

    def shown(self, decimals: int = 3) -> pd.DataFrame:
        """:attr:`frame` with ``mean ± sd`` cells, for display."""
        scores = [c[: -len(" mean")] for c in self.frame.columns if c.endswith(" mean")]
        out = pd.DataFrame(index=self.frame.index)
        for s in scores:
            mean, sd = self.frame[f"{s} mean"], self.frame[f"{s} sd"]
            out[s] = [
                f"{m:.{decimals}f} ± {d:.{decimals}f}" if np.isfinite(m) else "—" for m, d in zip(mean, sd, strict=True)
            ]
        for c in ("collapsed folds", "status", "why"):
            out[c] = self.frame[c]
        return out

    def __str__(self) -> str:
        with pd.option_context("display.max_colwidth", 120, "display.width", 200):
            return f"{self.note}\n{self.shown().to_string()}"


def _tolerance(tolerance: str | float, best: np.ndarray) -> tuple[float, str]:
    if isinstance(tolerance, str):
        if tolerance != "se":
            raise ParameterError(
                f"tolerance must be 'se' (one standard error of the best) or a number >= 0, got {tolerance!r}."
            )
        k = int(np.isfinite(best).sum())
        se = float(np.nanstd(best, ddof=1) / math.sqrt(k)) if k > 1 else 0.0
        return se, f"one standard error of the best candidate's {k} fold scores ({se:.4f})"
    if isinstance(tolerance, bool) or not isinstance(tolerance, int | float) or not tolerance >= 0:
        raise ParameterError(f"tolerance must be 'se' or a number >= 0 (e.g. 0.01), got {tolerance!r}.")
    return float(tolerance), f"the given absolute tolerance ({float(tolerance):g})"


def _choose(candidates: list[Candidate], tolerance: str | float, performance: str, fairness: str) -> Selection:
    from cffair.reporting._verdicts import paired

    ok = [i for i, c in enumerate(candidates) if not c.excluded]
    if not ok:
        table = _frame(
            candidates,
            {i: "dropped" for i in range(len(candidates))},
            {i: "screened out: " + c.excluded for i, c in enumerate(candidates)},
        )
        shown = Selection(-1, "", {}, table, math.nan, "", None, "").shown()
        with pd.option_context("display.max_colwidth", 120, "display.width", 250):
            text = shown.to_string()
        raise SelectionError(
            f"every one of the {len(candidates)} candidates collapsed (cffair.scores.screen_folds: constant or "
            "near-constant decisions, or no more accurate than the majority class on average), so none can be "
            "chosen; a model no better than always predicting the commoner label is fair for nothing. Try other "
            "learning rates or fairness weights, longer training, or more rows.\n" + text
        )
    perf_mean = {i: float(np.nanmean(candidates[i].performance)) for i in ok}
    best = max(ok, key=lambda i: perf_mean[i])
    tol, rule = _tolerance(tolerance, candidates[best].performance)
    kept = [i for i in ok if perf_mean[i] >= perf_mean[best] - tol - 1e-12]
    fair_mean = {i: float(np.nanmean(candidates[i].fairness)) for i in kept}
    order = sorted(kept, key=lambda i: (round(fair_mean[i], 12), -perf_mean[i], i))
    chosen = order[0]
    status, why = {}, {}
    for i, c in enumerate(candidates):
        if c.excluded:
            status[i], why[i] = "dropped", "screened out: " + c.excluded
        elif i not in kept:
            status[i] = "dropped"
            why[i] = f"{performance} {perf_mean[i]:.4f} is more than {tol:.4f} below the best ({perf_mean[best]:.4f})"
        else:
            status[i] = "chosen" if i == chosen else "kept"
            rank = order.index(i) + 1
            why[i] = (
                f"{performance} within {tol:.4f} of the best; {_ordinal(rank)} fairest of {len(kept)} on {fairness}"
            )
    k = len(candidates[chosen].fairness)
    name = candidates[chosen].label
    note = (
        f"Rule: drop collapsed candidates, keep those whose mean {performance} is within {rule} of the best, "
        f"then choose the lowest mean {fairness}. Chosen: {name} ({performance} {perf_mean[chosen]:.4f}, "
        f"{fairness} {fair_mean[chosen]:.4f}; {len(kept)} of {len(candidates)} candidates kept)."
    )
    within: bool | None = None
    if len(order) > 1:
        runner = order[1]
        test = paired(
            candidates[chosen].fairness.tolist(), candidates[runner].fairness.tolist(), larger=False, k=max(k, 2)
        )
        within = test.verdict != "holds"
        d = fair_mean[chosen] - fair_mean[runner]
        note += (
            f" The runner-up {candidates[runner].label} has {fairness} {fair_mean[runner]:.4f}: a difference of "
            f"{d:+.4f} over {k} folds (p {test.p:.3f}, corrected resampled t-test), "
            + (
                "within fold noise: the two are not told apart by these folds, and either is as good a choice."
                if within
                else "beyond fold noise."
            )
        )
    frame = _frame(candidates, status, why)
    return Selection(chosen, name, candidates[chosen].params, frame, tol, rule, within, note)


def _frame(candidates: list[Candidate], status: Mapping[int, str], why: Mapping[int, str]) -> pd.DataFrame:
    """:attr:`Selection.frame`: mean and sd over folds of every score, collapsed folds, status and why."""
    rows = []
    for i, c in enumerate(candidates):
        row: dict[str, Any] = {"candidate": c.label}
        for s, v in c.scores.items():
            row[f"{s} mean"] = float(np.nanmean(v)) if np.isfinite(v).any() else math.nan
            row[f"{s} sd"] = float(np.nanstd(v, ddof=1)) if np.isfinite(v).sum() > 1 else math.nan
        row["collapsed folds"] = int(c.collapsed.sum())
        row["status"], row["why"] = status[i], why[i]
        rows.append(row)
    return pd.DataFrame(rows).set_index("candidate")


def _ordinal(n: int) -> str:
    return {1: "the", 2: "2nd", 3: "3rd"}.get(n, f"{n}th")


def select(
    source: Any,
    *,
    fairness: str = "cf_flip_rate",
    performance: str | None = None,
    tolerance: str | float = "se",
    majority: Mapping[int, float] | None = None,
) -> Selection:
    """Choose among candidates: drop the collapsed ones, keep those within ``tolerance`` of the best
    performance, then choose the fairest (see the module docstring).

    Args:
        source: a fitted search (``GridSearchCV``, ``RandomizedSearchCV``), its ``cv_results_``, own-data
            records (:attr:`cffair.workflows.OwnRun.records`) or an :class:`~cffair.workflows.OwnRun`.
        fairness: the fairness score: a search's scoring key (cffair's scorers are minus the metric,
            which is taken into account), or a record metric (``cf_flip_rate``, ``cf_mse``,
            ``calibrated_cf_mse``); lower is fairer.
        performance: the performance score (default ``accuracy``; a search's
            ``neg_mean_squared_error`` or records' ``mse`` for a score target).
        tolerance: ``"se"`` (one standard error of the best candidate's fold scores) or an absolute
            number.
        majority: for records made before the majority-class rate was recorded: fold → the share
            of the majority class among its test rows (``run.json``'s ``majority``).

    Returns:
        A :class:`Selection`.

    Raises:
        SelectionError: every candidate collapsed, or a score is missing.
        ParameterError: a tolerance that is neither ``"se"`` nor a number >= 0.
    """
    results = getattr(source, "cv_results_", None)
    if results is None and isinstance(source, Mapping) and "params" in source:
        results = source
    if results is not None:
        candidates, perf_name = _from_search(results, performance, fairness)
    else:
        records = getattr(source, "records", source)
        if not isinstance(records, Sequence) or not all(isinstance(r, Mapping) and "config" in r for r in records):
            raise SelectionError(
                f"select() takes a fitted search, its cv_results_, or own-data records; got {type(source).__name__}."
            )
        from cffair.reporting._records import as_records

        candidates, perf_name = _from_records(as_records(records), performance, fairness, majority or {})
    return _choose(candidates, tolerance, perf_name, fairness)


class FairestWithinTolerance:
    """:func:`select` as a search's ``refit``: ``GridSearchCV(..., scoring=scoring(), refit=FairestWithinTolerance())``
    refits the candidate the rule chooses (``best_index_``).

    Args:
        fairness: as :func:`select`.
        performance: as :func:`select`.
        tolerance: as :func:`select`.
    """

    def __init__(
        self, fairness: str = "cf_flip_rate", performance: str | None = None, tolerance: str | float = "se"
    ) -> None:
        self.fairness = fairness
        self.performance = performance
        self.tolerance = tolerance

    def __call__(self, cv_results: Mapping[str, Any]) -> int:
        """The chosen candidate's index in ``cv_results["params"]``. The results are kept as
        ``cv_results_`` first: when the rule can choose nothing (:class:`~cffair.errors.SelectionError`,
        which stops the search before it stores them), the search's work is not lost."""
        self.cv_results_ = cv_results
        return select(cv_results, fairness=self.fairness, performance=self.performance, tolerance=self.tolerance).index

    def __repr__(self) -> str:
        return f"FairestWithinTolerance(fairness={self.fairness!r}, performance={self.performance!r}, tolerance={self.tolerance!r})"
