"""The co-primary scores of counterfactual fairness: each a full ruler, overall and worst subgroup.

Every claim about counterfactual fairness is decided on three scores (:data:`SCORES`), each put in
CF-MSE's place everywhere a claim reads it (:func:`score_records`):

* **CF-MSE** (the paper's): ``mean((D(x) − D(x′))²)`` over the test pairs; its worst subgroup is
  the largest per-subgroup CF-MSE. It measures *scores*: a soft model that moves its output by 0.1
  pays 0.01, a saturated one that flips its decision pays about 1.
* **flip rate**: the share of pairs whose *decision* differs (``cf_flip_rate``); its worst subgroup
  is the largest per-subgroup flip rate (``cf_flip_rate_by_subgroup``), so a claim about the worst
  subgroup is measured in flips too, never a CF-MSE relabelled.
* **calibrated CF-MSE**: CF-MSE after a Platt calibrator fitted on the model's training rows
  (``calibrated_cf_mse``), which puts soft and saturated models on one probability scale; its worst
  subgroup needs ``calibrated_cf_mse_by_subgroup``, which records made before it existed lack: a
  claim about the worst subgroup then has no value on this score (its check leaves it out, or
  stays pending), never filled in from another score.

A score's world keeps everything else of a record (accuracy, MSE, the screen's inputs), so a
collapsed model is collapsed on every score.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from cffair.errors import ParameterError

if TYPE_CHECKING:  # reading records loads no store (a Record comes from as_records)
    from cffair.experiments._store import Record

__all__ = ["SCORES", "Score", "score_metrics", "score_records"]


@dataclass(frozen=True)
class Score:
    """One score of counterfactual fairness.

    Attributes:
        key: its metric key in a record (``"cf_mse"``, ``"cf_flip_rate"``, ``"calibrated_cf_mse"``).
        label: its name on a page (``"CF-MSE"``).
        by_subgroup: the record's per-subgroup metric (a mapping subgroup → value) whose largest value
            is the score's worst subgroup.
        measures: what it measures, for a sentence: ``"scores"`` or ``"decisions"``.
    """

    key: str
    label: str
    by_subgroup: str
    measures: str


#: The co-primary scores, the paper's first.
SCORES: dict[str, Score] = {
    s.key: s
    for s in (
        Score("cf_mse", "CF-MSE", "cf_mse_by_subgroup", "scores"),
        Score("cf_flip_rate", "flip rate", "cf_flip_rate_by_subgroup", "decisions"),
        Score("calibrated_cf_mse", "calibrated CF-MSE", "calibrated_cf_mse_by_subgroup", "calibrated probabilities"),
    )
}

#: The keys a score replaces in a record's metrics (CF-MSE's own).
_REPLACED = ("cf_mse", "cf_mse_by_subgroup", "cf_mse_worst_subgroup", "worst_subgroup")


def _score(key: str) -> Score:
    try:
        return SCORES[key]
    except KeyError:
        raise ParameterError(f"unknown score {key!r}; the scores are {', '.join(SCORES)}.") from None


def score_metrics(metrics: Mapping[str, Any], score: str) -> dict[str, Any] | None:
    """``metrics`` with ``score`` in CF-MSE's place: its overall value as ``cf_mse``, its per-subgroup
    values as ``cf_mse_by_subgroup`` and their largest as ``cf_mse_worst_subgroup`` (with its subgroup
    as ``worst_subgroup``); without per-subgroup values the worst subgroup is left out (no value).
    ``None`` when the metrics lack the score itself.

    >>> m = {"cf_mse": 0.02, "cf_flip_rate": 0.1, "cf_flip_rate_by_subgroup": {"a": 0.05, "b": 0.3},
    ...      "cf_mse_worst_subgroup": 0.04, "accuracy": 0.8}
    >>> s = score_metrics(m, "cf_flip_rate")
    >>> s["cf_mse"], s["cf_mse_worst_subgroup"], s["worst_subgroup"], s["accuracy"]
    (0.1, 0.3, 'b', 0.8)
    >>> "cf_mse_worst_subgroup" in score_metrics({"calibrated_cf_mse": 0.01, "cf_mse_worst_subgroup": 0.04}, "calibrated_cf_mse")
    False
    """
    s = _score(score)
    if s.key == "cf_mse":
        return dict(metrics)
    value = metrics.get(s.key)
    if value is None:
        return None
    out = {k: v for k, v in metrics.items() if k not in _REPLACED and k != "rulers"}
    out["cf_mse"] = value
    groups = metrics.get(s.by_subgroup)
    if isinstance(groups, Mapping) and groups:
        worst = max(groups, key=lambda g: groups[g])
        out["cf_mse_by_subgroup"] = dict(groups)
        out["cf_mse_worst_subgroup"], out["worst_subgroup"] = float(groups[worst]), str(worst)
    return out


def score_records(records: Iterable[Record], score: str) -> list[Record]:
    """The records as measured with ``score`` (:func:`score_metrics` of their metrics and of their
    metrics on their own counterfactuals), new :class:`~cffair.experiments.Record` s; a record without
    the score is left out. ``"cf_mse"`` returns the records unchanged."""
    from cffair.experiments._store import Record  # here: reading records loads no store until one is read

    _score(score)
    out = []
    for rec in records:
        metrics = score_metrics(rec.get("metrics") or {}, score)
        if metrics is None:
            continue
        new = Record({**rec, "metrics": metrics})
        own = rec.get("metrics_own_counterfactuals")
        if own is not None:
            scored_own = score_metrics(own, score)
            if scored_own is None:
                new.pop("metrics_own_counterfactuals")
            else:
                new["metrics_own_counterfactuals"] = scored_own
        out.append(new)
    return out
