"""Counterfactual knowledge extraction (CKE), sections 4.3 and 7.3.

For every negatively predicted row (not favourable: Adult ``>50K`` is favourable, COMPAS's
favourable label is 0 = no re-arrest, Lawschool's the best 40 % of predicted scores) and every
intervention ``F := f`` on an immutable, non-sensitive feature, the counterfactual explanation
*holds* when the counterfactual's prediction flips to favourable. Frequencies of such
(undesirable) explanations are aggregated per sensitive group; the **imbalance** of
``(s′, F)`` is the frequency of group ``s′`` minus the largest frequency of any other group
(for a binary attribute, simply the difference between the two groups). Pairs with an
imbalance of at least the threshold (0.1 for COMPAS, 0.01 for Adult and Lawschool) become
candidate axioms A5 ``∀x∈T̂⁻_{S=s′}, x′∈cf(x, F): D(x) ↔ D(x′)``, ordered by imbalance, for a
person to accept or reject; :func:`cke_loop` adds them one at a time (500 epochs each) and
records accuracy, CF-MSE and worst-subgroup CF-MSE after each (the paper's Table 3).

Frequency of ``(s, F)``: the share of group ``s``'s negatively predicted rows for which at
least one value ``f`` of ``F`` is an explanation (the mean prediction over a row's
counterfactual samples for ``F := f`` is favourable).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, cast

import numpy as np
import pandas as pd

from cffair._support.validation import TargetKind
from cffair.datasets import DatasetSpec
from cffair.errors import DataError, ParameterError
from cffair.logic._axioms import Axiom, cke_axiom
from cffair.scores._metrics import undesirable_explanation_ratio

__all__ = [
    "DEFAULT_THRESHOLDS",
    "CKEReport",
    "Candidate",
    "cke_features",
    "cke_loop",
    "default_threshold",
    "explanations",
    "extract",
    "favourable",
    "frequencies",
    "imbalances",
    "pairs_from_cfset",
    "score_threshold_of",
    "top_candidates",
]

#: Imbalance thresholds of section 7.3, keyed by dataset name.
DEFAULT_THRESHOLDS: dict[str, float] = {"compas": 0.1, "compas_age": 0.1, "adult": 0.01, "lawschool": 0.01}


def default_threshold(dataset: str) -> float:
    """The paper's imbalance threshold for ``dataset`` (0.01 for a dataset it does not name)."""
    return DEFAULT_THRESHOLDS.get(dataset, 0.01)


def cke_features(spec: DatasetSpec) -> list[str]:
    """Immutable, non-sensitive features: the interventions whose explanations are undesirable."""
    return [f for f in spec.immutable if f != spec.sensitive]


def favourable(d: np.ndarray, spec: DatasetSpec, score_threshold: float | None = None) -> np.ndarray:
    """Whether predictions ``d`` are favourable.

    Binary target: the predicted label ``D(x) ≥ 0.5`` equals ``spec.favourable``. Score target:
    ``d ≥ score_threshold`` (required; see :func:`score_threshold_of`).
    """
    d = np.asarray(d, dtype=np.float64)
    if spec.target_kind == "binary":
        return cast(np.ndarray, (d >= 0.5).astype(int) == int(spec.favourable))  # type: ignore[arg-type]
    if score_threshold is None:
        raise ParameterError("a score target needs score_threshold (the score of the best favourable_top_fraction).")
    return d >= score_threshold


def score_threshold_of(d_factual: np.ndarray, spec: DatasetSpec) -> float:
    """The score above which a prediction counts as favourable: the best
    ``spec.favourable_top_fraction`` (40 % for Lawschool, section 7.3) of factual predictions."""
    return float(np.quantile(np.asarray(d_factual, dtype=np.float64), 1 - spec.favourable_top_fraction))


def _groups_of(row_ids: np.ndarray, groups: pd.Series) -> np.ndarray:
    try:
        return groups.loc[row_ids].astype(str).to_numpy()
    except KeyError:
        missing = np.setdiff1d(row_ids, groups.index.to_numpy())[:5]
        raise DataError(
            f"row ids {missing.tolist()} of the counterfactual pairs have no sensitive group; pass groups indexed by row_id."
        ) from None


def explanations(
    score_fn: Callable[[np.ndarray], np.ndarray],
    pairs_by_feature: Mapping[str, Any],
    groups: pd.Series,
    spec: DatasetSpec,
    score_threshold: float | None = None,
) -> pd.DataFrame:
    """Counterfactual explanations of the negatively predicted rows (section 4.3).

    Args:
        score_fn: ``X → D(X)`` (probabilities or scores).
        pairs_by_feature: for each immutable feature F, the ``CFPairs`` of interventions on F
            (every value, every sample; ``pairs.value`` names the intervened value).
        groups: sensitive group of each row, indexed by ``row_id``.
        spec: the dataset spec (target kind, favourable outcome).
        score_threshold: favourable threshold for scores (default: best 40 % of the factual
            predictions of the rows in ``pairs_by_feature``).

    Returns:
        One row per (negative row, feature, value) with ``row_id``, ``group``, ``feature``,
        ``value``, ``d_x``, ``d_cf`` (mean over samples), ``flipped`` (the explanation holds).
    """
    if not pairs_by_feature:
        raise DataError("no counterfactual pairs given; CKE needs interventions on the immutable features.")
    preds = {}
    for feat, p in pairs_by_feature.items():
        if len(p.row_id) == 0:
            continue
        preds[feat] = (
            np.asarray(score_fn(np.asarray(p.x, np.float32)), float),
            np.asarray(score_fn(np.asarray(p.x_cf, np.float32)), float),
        )
    if spec.target_kind == "score" and score_threshold is None:
        ids, d = [], []
        for feat, (dx, _) in preds.items():
            ids.append(np.asarray(pairs_by_feature[feat].row_id))
            d.append(dx)
        allid, first = np.unique(np.concatenate(ids), return_index=True)
        score_threshold = score_threshold_of(np.concatenate(d)[first], spec)
    frames = []
    for feat, (dx, dcf) in preds.items():
        p = pairs_by_feature[feat]
        df = pd.DataFrame(
            {"row_id": np.asarray(p.row_id), "value": np.asarray(p.value).astype(str), "d_x": dx, "d_cf": dcf}
        )
        df = df.groupby(["row_id", "value"], sort=True, as_index=False).agg(d_x=("d_x", "first"), d_cf=("d_cf", "mean"))
        neg = ~favourable(df["d_x"].to_numpy(), spec, score_threshold)
        df = df[neg].copy()
        df["flipped"] = favourable(df["d_cf"].to_numpy(), spec, score_threshold)
        df["feature"] = feat
        df["group"] = _groups_of(df["row_id"].to_numpy(), groups)
        frames.append(df)
    out = (
        pd.concat(frames, ignore_index=True)
        if frames
        else pd.DataFrame(columns=["row_id", "value", "d_x", "d_cf", "flipped", "feature", "group"])
    )
    out.attrs["score_threshold"] = score_threshold
    return out[["row_id", "group", "feature", "value", "d_x", "d_cf", "flipped"]]


def frequencies(expl: pd.DataFrame) -> pd.DataFrame:
    """Share of each group's negative rows with at least one explanation per feature (groups × features)."""
    per_row = expl.groupby(["group", "feature", "row_id"], observed=True)["flipped"].any()
    return per_row.groupby(level=["group", "feature"], observed=True).mean().unstack("feature").astype(float)


def imbalances(freq: pd.DataFrame) -> pd.DataFrame:
    """Imbalance of each (group, feature): its frequency minus the largest frequency of the other
    groups; sorted from the largest imbalance."""
    rows = []
    for feat in freq.columns:
        col = freq[feat]
        for g, f in col.items():
            if np.isnan(f):
                continue
            others = col.drop(index=g).dropna()
            if len(others) == 0:
                continue
            rows.append(
                {
                    "group": str(g),
                    "feature": str(feat),
                    "frequency": float(f),
                    "others_max": float(others.max()),
                    "imbalance": float(f - others.max()),
                }
            )
    out = pd.DataFrame(rows, columns=["group", "feature", "frequency", "others_max", "imbalance"])
    return out.sort_values("imbalance", ascending=False, kind="stable").reset_index(drop=True)


@dataclass(frozen=True)
class Candidate:
    """A detected imbalance: explanations on ``feature`` are too frequent for sensitive ``group``."""

    group: str
    feature: str
    imbalance: float
    frequency: float


@dataclass
class CKEReport:
    """Result of :func:`extract`.

    Attributes:
        explanations: table of :func:`explanations`.
        frequencies: groups × features.
        imbalances: every (group, feature) with its imbalance, largest first.
        threshold: the imbalance threshold used.
        candidates: (group, feature) pairs at or above the threshold, largest imbalance first;
            accept or reject each, then build their axioms with :meth:`axioms`.
        undesirable_ratio: share of each group's negative rows with an undesirable explanation.
    """

    explanations: pd.DataFrame
    frequencies: pd.DataFrame
    imbalances: pd.DataFrame
    threshold: float
    candidates: list[Candidate]
    undesirable_ratio: pd.Series
    pairs_by_feature: Mapping[str, Any] = field(repr=False, default_factory=dict)

    def axioms(
        self, target_kind: TargetKind, sensitive: str = "S", accept: Sequence[Candidate] | None = None
    ) -> list[Axiom]:
        """Axioms A5 for the accepted candidates (default: all), in order of imbalance.

        Each quantifies over the group's negatively predicted rows (at extraction time) and
        all their counterfactuals under interventions on the feature.
        """
        out = []
        for c in self.candidates if accept is None else accept:
            neg_rows = self.explanations.loc[
                (self.explanations["group"] == c.group) & (self.explanations["feature"] == c.feature), "row_id"
            ].unique()
            p = self.pairs_by_feature[c.feature]
            sel = np.isin(np.asarray(p.row_id), neg_rows)
            out.append(
                cke_axiom(np.asarray(p.x)[sel], np.asarray(p.x_cf)[sel], target_kind, c.group, c.feature, sensitive)
            )
        return out


def extract(
    score_fn: Callable[[np.ndarray], np.ndarray],
    pairs_by_feature: Mapping[str, Any],
    groups: pd.Series,
    spec: DatasetSpec,
    threshold: float | None = None,
    score_threshold: float | None = None,
) -> CKEReport:
    """Detect imbalances of undesirable counterfactual explanations between sensitive groups.

    ``threshold`` defaults to the paper's value for ``spec.name`` (:data:`DEFAULT_THRESHOLDS`).
    """
    thr = default_threshold(spec.name) if threshold is None else float(threshold)
    expl = explanations(score_fn, pairs_by_feature, groups, spec, score_threshold)
    freq = frequencies(expl) if len(expl) else pd.DataFrame()
    imb = (
        imbalances(freq)
        if len(freq)
        else pd.DataFrame(columns=["group", "feature", "frequency", "others_max", "imbalance"])
    )
    cands = [
        Candidate(r.group, r.feature, float(r.imbalance), float(r.frequency))
        for r in imb.itertuples()
        if r.imbalance >= thr
    ]
    ratio = undesirable_explanation_ratio(expl) if len(expl) else pd.Series(dtype=float)
    return CKEReport(expl, freq, imb, thr, cands, ratio, dict(pairs_by_feature))


def pairs_from_cfset(
    cfset: Any,
    factual_frame: pd.DataFrame,
    encoder: Any,
    spec: DatasetSpec,
    rows: Any = None,
    features: Sequence[str] | str | None = None,
) -> dict[str, Any]:
    """``CFPairs`` per feature present in a ``CounterfactualSet``.

    Args:
        features: the features to take: default the immutable non-sensitive ones (the
            undesirable explanations of §4.3); ``"all"`` every non-sensitive feature of the set
            (the paper's explanations on every attribute, §6.2 and Figure 4); or a list.
    """
    feats = set(cfset.frame["feature"].unique())
    if features is None:
        wanted = cke_features(spec)
    elif isinstance(features, str):
        if features != "all":
            raise ParameterError(f"features must be None, 'all' or a list of features, got {features!r}.")
        wanted = [f for f in spec.feature_names if f != spec.sensitive]
    else:
        wanted = list(features)
    out = {}
    for f in wanted:
        if f in feats:
            out[f] = cfset.pairs(factual_frame, encoder, f, rows=rows)
    if not out:
        raise DataError(
            f"the counterfactual set has no interventions on the features {wanted}; generate it with interventions='all'."
        )
    return out


def top_candidates(report: CKEReport, k: int, features: Sequence[str] | None = None) -> list[Candidate]:
    """The ``k`` largest positive imbalances of a report as candidates, whatever the threshold
    (optionally only on ``features``): to make the A5 mechanism visible where no imbalance
    reaches the paper's threshold."""
    if k < 1:
        raise ParameterError(f"k must be at least 1, got {k!r}.")
    imb = report.imbalances
    if features is not None:
        imb = imb[imb["feature"].isin(list(features))]
    imb = imb[imb["imbalance"] > 0].head(k)
    return [Candidate(r.group, r.feature, float(r.imbalance), float(r.frequency)) for r in imb.itertuples()]


def cke_loop(
    learner: Any,
    X_train: np.ndarray,
    pairs_by_feature: Mapping[str, Any],
    groups: pd.Series,
    spec: DatasetSpec,
    *,
    evaluate_fn: Callable[[Any], Mapping[str, Any]],
    threshold: float | None = None,
    epochs: int | None = None,
    max_axioms: int | None = None,
    accept: Callable[[Candidate], bool] | None = None,
    top: int | None = None,
) -> tuple[pd.DataFrame, CKEReport]:
    """Add CKE axioms one by one (section 7.3, Table 3).

    Extraction runs once on the training rows with the current model; the candidates are then
    added in order of imbalance (optionally filtered by ``accept``, the human in the loop), each
    followed by ``epochs`` (default ``learner.cke_epochs`` = 500) of training. ``evaluate_fn(learner)``
    (e.g. a closure over :func:`cffair.scores.evaluate` on the test fold) is recorded before
    the first and after every added axiom.

    ``top=k`` adds the k largest positive imbalances whatever the threshold
    (:func:`top_candidates`), instead of those at or above it.

    Returns:
        A table with one row per step (``step``, ``axiom``, and the evaluation's scalar
        metrics) and the extraction report.
    """
    report = extract(learner.predict_d, pairs_by_feature, groups, spec, threshold)
    pool = report.candidates if top is None else top_candidates(report, top)
    chosen = [c for c in pool if accept is None or accept(c)]
    if max_axioms is not None:
        chosen = chosen[:max_axioms]
    axioms = report.axioms(learner.target_kind, spec.sensitive, chosen)

    def record(step: int, name: str) -> dict[str, Any]:
        res = evaluate_fn(learner)
        return {"step": step, "axiom": name, **{k: v for k, v in res.items() if np.isscalar(v)}}

    rows = [record(0, "-")]
    for i, ax in enumerate(axioms, start=1):
        learner.add_axioms(ax, X_train, epochs=epochs)
        rows.append(record(i, ax.name))
    return pd.DataFrame(rows), report
