"""The first line of an own-data report: which method to prefer, chosen by the numbers.

Every method of a run is screened by the one degenerate-model screen (:mod:`cffair.scores._screen`):
each collapsed fold is flagged (:func:`collapsed_runs`), and a method is left out of the
recommendation (:func:`excluded_methods`) when it is constant or near-constant on a fold or no
more accurate than the majority class on average over the folds. Among the others,
:func:`recommendation` names the most accurate and the fairest on each fairness score, and says
whether an LTN fairness setting pays off. :mod:`cffair.reporting._report` puts the line first.
"""

from __future__ import annotations

__all__ = ["FAIRNESS_SCORES", "collapsed_runs", "excluded_methods", "recommendation"]

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from cffair.reporting._names import method_name, metric_name
from cffair.reporting._records import as_records, record_method, records_frame

if TYPE_CHECKING:  # reading records loads no store (a Record comes from as_records)
    from cffair.experiments._store import Record

FINGERPRINT_EXEMPT = True  # reads finished records: no record runs it


def collapsed_runs(records: Sequence[Record], majority: Mapping[int, float]) -> list[tuple[str, str]]:
    """``("method fold k", why)`` for every record of a collapsed model, whatever the method, by the one
    degenerate-model screen (:func:`cffair.scores.screen_metrics`: constant or near-constant
    decisions, or accuracy at or below the majority rate). A record made before the majority rate
    was recorded reads it from ``majority`` (fold → share of the majority class in its test rows)."""
    from cffair.scores._screen import screen_metrics

    out = []
    for r in as_records(records):
        m, fold = dict(r["metrics"]), r.config.fold
        if "accuracy" in m and "majority_rate" not in m and fold in majority:
            m["majority_rate"] = float(majority[fold])
        verdict = screen_metrics(m)
        if verdict.collapsed:
            out.append((f"{method_name(r.config.setting)} fold {fold}", verdict.reason))
    return out


#: The fairness scores the recommendation reads, in this order (lower is fairer).
FAIRNESS_SCORES: tuple[str, ...] = ("cf_mse", "cf_flip_rate", "calibrated_cf_mse", "cf_mse_worst_subgroup")


def excluded_methods(
    records: Sequence[Record], methods: Sequence[str], majority: Mapping[int, float] | None = None
) -> dict[str, Any]:
    """``{method: screen}`` for every method the recommendation leaves out, by
    :func:`cffair.scores.screen_folds` over its folds: constant or near-constant on any fold, or
    no more accurate than the majority class on average over the folds (a single fold below the
    majority rate is flagged by :func:`collapsed_runs` but excludes nothing: one fold's accuracy
    moves by a few points by chance). A record made before the majority rate was recorded reads it
    from ``majority`` (fold → share of the majority class in its test rows)."""
    from cffair.scores._screen import screen_folds

    folds: dict[str, list[dict[str, Any]]] = {}
    for r in as_records(records):
        m, fold = dict(r["metrics"]), r.config.fold
        if "accuracy" in m and "majority_rate" not in m and fold in (majority or {}):
            m["majority_rate"] = float((majority or {})[fold])
        folds.setdefault(record_method(r), []).append(m)
    verdicts = {m: screen_folds(folds[m]) for m in methods if m in folds}
    return {m: v for m, v in verdicts.items() if v.collapsed}


def recommendation(
    records: Sequence[Record], methods: Sequence[str], majority: Mapping[int, float] | None = None
) -> str:
    """The report's first line, chosen by the numbers: among the methods that neither collapsed
    nor are no more accurate than the majority class on average (:func:`excluded_methods`), the
    most accurate one (lowest MSE for a score target) and the fairest on each fairness score
    (mean over folds), and whether an LTN fairness setting is the fairest on any score, i.e.
    whether the LTN pays off on this data.

    >>> runs = (("ltn_acc", 0.8, 0.1), ("ltn_acc_cf", 0.78, 0.01), ("cnf", 0.79, 0.05))
    >>> recs = [{"config": {"dataset": "d", "setting": s, "fold": f}, "metrics": {"accuracy": a, "cf_mse": c}}
    ...         for f in (0, 1) for s, a, c in runs]
    >>> recommendation(recs, ["ltn_acc", "ltn_acc_cf", "cnf"])
    'Among the 3 methods that did not collapse, LTN(acc) is the most accurate (accuracy 0.800) and LTN(acc+CF) the fairest on CF-MSE (0.0100): here the LTN pays off on every fairness score.'
    """
    from cffair.experiments import _registry as registry

    def plain(metric: str) -> str:  # the display name without the paper's arrow
        return metric_name(metric).rstrip(" ↑↓")

    def names(ms: Sequence[str]) -> str:
        shown = [method_name(m) for m in ms]
        return shown[0] if len(shown) == 1 else ", ".join(shown[:-1]) + " and " + shown[-1]

    records = as_records(records)
    excluded = excluded_methods(records, methods, majority)
    frame = records_frame(records)
    frame = frame[frame["method"].isin(methods)]
    present = [m for m in methods if m in set(frame["method"])]
    kept = [m for m in present if m not in excluded]
    collapsed = [m for m in present if m in excluded and excluded[m].kind in ("constant", "near_constant")]
    weak = [m for m in present if m in excluded and m not in collapsed]
    tail = ""
    if collapsed:
        tail += f" ({names(collapsed)} collapsed and {'is' if len(collapsed) == 1 else 'are'} left out)"
    if weak:
        are = "is" if len(weak) == 1 else "are"
        tail += f" ({names(weak)} {are} no more accurate than the majority class on average and {are} left out)"
    if not kept:
        if not weak:
            return f"Every method collapsed{tail}: no recommendation; lower the learning rate or the fairness weights."
        return (
            f"No method is more accurate than always predicting the majority class on average over the folds{tail}: "
            "no recommendation; the features may carry too little signal for this many rows, or the models need "
            "another learning rate or more epochs."
        )
    means = frame[frame["method"].isin(kept)].groupby("method").mean(numeric_only=True)
    perf = "accuracy" if "accuracy" in means and means["accuracy"].notna().any() else "mse"
    best = means[perf].idxmax() if perf == "accuracy" else means[perf].idxmin()
    beat = " and beat the majority class on average" if weak else ""
    words = [
        f"Among the {len(kept)} method{'s' if len(kept) != 1 else ''} that did not collapse{beat}{tail}, "
        f"{method_name(best)} is the most accurate ({plain(perf)} {means.at[best, perf]:.3f})"
    ]
    fairest: dict[str, list[str]] = {}
    scores = [m for m in FAIRNESS_SCORES if m in means and means[m].notna().any()]
    for metric in scores:
        winner = str(means[metric].idxmin())
        fairest.setdefault(winner, []).append(f"{plain(metric)} ({means.at[winner, metric]:.4f})")
    if list(fairest) == [best]:
        words.append(f" and the fairest on {', '.join(fairest[best])}")
    else:
        words.append(" and " + "; ".join(f"{method_name(m)} the fairest on {', '.join(v)}" for m, v in fairest.items()))
    ltn_fair = {m for m in fairest if m in registry.ltn_settings() and m != "ltn_acc"}
    won = [s for s in scores if str(means[s].idxmin()) in ltn_fair]
    if not scores:
        verdict = ""
    elif len(won) == len(scores):
        verdict = ": here the LTN pays off on every fairness score"
    elif won:
        verdict = f": here the LTN pays off on {', '.join(plain(s) for s in won)} only"
    elif not any(m in registry.ltn_settings() and m != "ltn_acc" for m in kept):
        verdict = ": no LTN fairness setting is left to compare, so the LTN does not pay off on this data"
    else:
        verdict = ": here no LTN fairness setting is the fairest on any score, so the LTN does not pay off on this data"
    return "".join(words) + verdict + "."
