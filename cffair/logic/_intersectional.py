r"""Intersectionality: several sensitive attributes at once (section 8).

An *intersection* is a combination of the levels of several sensitive attributes (Adult: sex ×
race; COMPAS: race × age bin). For each factual row this module makes three kinds of twins with
the causal model (:class:`~cffair.causal.CausalFlow`, or any object with its
``counterfactual`` method):

* **single** twins for attribute ``A``: ``do(A := a′)`` for every other level ``a′`` of ``A``;
* **joint** twins: ``do(A₁ := a₁′, A₂ := a₂′, …)`` for every combination in which *every*
  attribute takes another level — composed as successive interventions in causal order (for
  root attributes, as Adult's sex and race and COMPAS's race and age are, this is the joint
  intervention exactly with a deterministic flow; a discrete node the flow re-abducts from the
  first twin gets a fresh draw consistent with it).

A numeric attribute is binned (``Attribute.bins``); intervening on a bin sets the value to the
bin's median in the reference rows.

The joint axiom (:func:`joint_cf_axiom`),
``A4∩: ∀x∈T, ∀x′∈cf(x, {A₁, A₂}): D(x) ↔ D(x′)``, asks the decision to survive changing every
attribute at once; the paper's subgroup axioms A4_i ask it per intersection for the single
sensitive attribute's twins. :func:`cf_mse_by_intersection` gives the per-intersection CF-MSE
table that compares them.

References:
    | Intersectional fairness: Kearns, Neel, Roth & Wu (2018), Preventing Fairness
      Gerrymandering, https://arxiv.org/abs/1711.05144 :cite:p:`kearns2018`
    | Counterfactual fairness with several attributes: Kusner, Loftus, Russell & Silva (2017),
      https://arxiv.org/abs/1703.06856 :cite:p:`kusner2017`
"""

from __future__ import annotations

__all__ = [
    "INTERSECTIONS",
    "Attribute",
    "Twins",
    "cf_mse_by_intersection",
    "intersection_labels",
    "intervene",
    "joint_cf_axiom",
    "levels",
    "make_twins",
]

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import pandas as pd

from cffair._support.validation import TargetKind, check_target_kind
from cffair.errors import DataError
from cffair.logic._axioms import Axiom

INF = float("inf")


@dataclass(frozen=True)
class Attribute:
    """A sensitive attribute of an intersection.

    Attributes:
        column: the feature.
        bins: for a numeric column, right-closed bin edges ``(a, b]`` covering every value.
        labels: one name per bin (default: the interval).
    """

    column: str
    bins: tuple[float, ...] | None = None
    labels: tuple[str, ...] | None = None

    def __post_init__(self) -> None:
        if self.bins is not None:
            b = np.asarray(self.bins, dtype=float)
            if len(b) < 2 or not np.all(np.diff(b) > 0):
                raise DataError(
                    f"bins of {self.column!r} must be at least two strictly increasing edges, got {self.bins}."
                )
            if self.labels is not None and len(self.labels) != len(b) - 1:
                raise DataError(f"{self.column!r} has {len(b) - 1} bins but {len(self.labels)} labels.")

    def level_of(self, frame: pd.DataFrame) -> pd.Series:
        """Each row's level (a category label, or its bin's label)."""
        if self.column not in frame.columns:
            raise DataError(f"attribute {self.column!r} is not a column; columns are {list(frame.columns)}.")
        col = frame[self.column]
        if self.bins is None:
            return col.astype(str).reset_index(drop=True)
        labels = list(self.labels) if self.labels is not None else None
        cut = pd.cut(col.astype(float), bins=list(self.bins), labels=labels, right=True)
        if cut.isna().any():
            bad = col[cut.isna()].iloc[0]
            raise DataError(
                f"value {bad!r} of {self.column!r} lies outside the bins {self.bins}; start with -inf and end with inf."
            )
        return cut.astype(str).reset_index(drop=True)


#: The intersections of section 8 on the paper's data.
INTERSECTIONS: dict[str, tuple[Attribute, ...]] = {
    "adult": (Attribute("sex"), Attribute("race")),
    "compas": (Attribute("race"), Attribute("age", (-INF, 30, 45, 60, INF), ("<=30", "31-45", "46-60", ">60"))),
}


def levels(attr: Attribute, reference: pd.DataFrame) -> dict[str, Any]:
    """``{level: intervention value}``: each category itself, or each bin's median in ``reference``."""
    lv = attr.level_of(reference)
    col = reference[attr.column].reset_index(drop=True)
    if attr.bins is None:
        cats = col.cat.categories if isinstance(col.dtype, pd.CategoricalDtype) else sorted(col.astype(str).unique())
        return {str(c): str(c) for c in cats}
    out = {}
    names = list(attr.labels) if attr.labels is not None else sorted(set(lv))
    for name in names:
        vals = col[lv == name]
        if len(vals) == 0:
            continue
        med = float(np.median(vals.astype(float)))
        out[name] = int(round(med)) if pd.api.types.is_integer_dtype(col.dtype) else med
    return out


def intersection_labels(frame: pd.DataFrame, attrs: Sequence[Attribute]) -> pd.Series:
    """Each row's intersection, e.g. ``"Female, Black"``."""
    if not attrs:
        raise DataError("an intersection needs at least one attribute.")
    parts = [a.level_of(frame) for a in attrs]
    out = parts[0]
    for p in parts[1:]:
        out = out + ", " + p
    return out.rename("intersection")


def intervene(
    engine: Any, frame: pd.DataFrame, assignment: Sequence[tuple[str, Any]], *, samples: int | None = 1, seed: int = 0
) -> tuple[pd.DataFrame, np.ndarray]:
    """Counterfactual rows for ``do(f₁ := v₁, f₂ := v₂, …)``, applied in causal order.

    ``engine.counterfactual(frame, feature, value, samples=, seed=)`` must return
    ``(rows, row_index, sample)`` (a :class:`~cffair.causal.CausalFlow` does); ``engine.graph``
    orders the features. Returns the twins and, for each, the position of its factual row.
    """
    order = {n: i for i, n in enumerate(engine.graph.topological_order)}
    unknown = [f for f, _ in assignment if f not in order]
    if unknown:
        raise DataError(f"cannot intervene on {unknown}: not nodes of the causal graph ({list(order)}).")
    feats = [f for f, _ in assignment]
    if len(set(feats)) != len(feats):
        raise DataError(f"an intervention sets each feature once, got {feats}.")
    rows = frame.reset_index(drop=True)
    pos = np.arange(len(rows))
    for k, (f, v) in enumerate(sorted(assignment, key=lambda fv: order[fv[0]])):
        cf, idx, _ = engine.counterfactual(rows, f, v, samples=samples, seed=seed * 7919 + k)
        rows, pos = cf.reset_index(drop=True), pos[np.asarray(idx)]
    return rows, pos


@dataclass
class Twins:
    """Twins of factual rows: ``rows`` (readable), ``row_id`` (position of the factual row in the
    frame given to :func:`make_twins`), ``kind`` (``joint`` or the attribute's column) and
    ``target`` (the intersection each twin was moved to)."""

    rows: pd.DataFrame
    row_id: np.ndarray
    kind: str
    target: np.ndarray

    def __len__(self) -> int:
        return len(self.row_id)


def make_twins(
    engine: Any,
    frame: pd.DataFrame,
    attrs: Sequence[Attribute],
    kind: str,
    reference: pd.DataFrame,
    *,
    one_per_row: bool = False,
    seed: int = 0,
    samples: int | None = 1,
) -> Twins:
    """Single twins (``kind`` = an attribute's column) or joint twins (``kind="joint"``) of ``frame``'s rows.

    Args:
        reference: rows that define the levels of binned attributes (the training fold).
        one_per_row: draw one target combination per row uniformly (seeded) instead of all of
            them: an unbiased sample for training an axiom at the cost of one twin per row.
    """
    cols = [a.column for a in attrs]
    if kind != "joint" and kind not in cols:
        raise DataError(f"kind must be 'joint' or one of the attributes {cols}, got {kind!r}.")
    frame = frame.reset_index(drop=True)
    lv = {a.column: levels(a, reference) for a in attrs}
    current = {a.column: a.level_of(frame).to_numpy() for a in attrs}
    moved = attrs if kind == "joint" else [a for a in attrs if a.column == kind]
    combos = list(itertools.product(*[list(lv[a.column]) for a in moved]))
    # for each row, the combinations where every moved attribute takes another level
    allowed = np.stack(
        [np.all([current[a.column] != c[k] for k, a in enumerate(moved)], axis=0) for c in combos], axis=1
    )
    if one_per_row:
        rng = np.random.default_rng(seed)
        pick = np.full(len(frame), -1)
        for r in np.flatnonzero(allowed.any(axis=1)):
            pick[r] = rng.choice(np.flatnonzero(allowed[r]))
        allowed = np.zeros_like(allowed)
        ok = pick >= 0
        allowed[np.flatnonzero(ok), pick[ok]] = True
    parts, ids, targets = [], [], []
    for k, combo in enumerate(combos):
        rows = np.flatnonzero(allowed[:, k])
        if len(rows) == 0:
            continue
        assignment = [(a.column, lv[a.column][combo[m]]) for m, a in enumerate(moved)]
        cf, pos = intervene(engine, frame.iloc[rows], assignment, samples=samples, seed=seed * 101 + k)
        parts.append(cf)
        ids.append(rows[pos])
        fixed = {a.column: current[a.column][rows[pos]] for a in attrs}
        for m, a in enumerate(moved):
            fixed[a.column] = np.full(len(pos), combo[m], dtype=object)
        targets.append(np.array([", ".join(str(fixed[c][i]) for c in cols) for i in range(len(pos))], dtype=object))
    if not parts:
        raise DataError(f"no row of the {len(frame)} given has a {kind} twin (every level combination equals its own).")
    return Twins(pd.concat(parts, ignore_index=True), np.concatenate(ids), kind, np.concatenate(targets))


def joint_cf_axiom(x: Any, x_cf: Any, target_kind: TargetKind, attributes: Sequence[str]) -> Axiom:
    """The joint axiom ``A4∩: ∀x∈T, ∀x′∈cf(x, {A₁, A₂, …}): D(x) ↔ D(x′)`` (``Eq`` for scores),
    on diagonal (factual, joint twin) pairs; it belongs to the CF group (weight ``cf``)."""
    check_target_kind(target_kind)
    names = ", ".join(attributes)
    kind: Literal["iff", "eq_pair"]
    body, kind = ("D(x) ↔ D(x′)", "iff") if target_kind == "binary" else ("Eq(D(x), D(x′))", "eq_pair")
    return Axiom(
        "A4∩", f"∀x∈T, ∀x′∈cf(x, {{{names}}}): {body}", "cf", kind, x, x_cf, meta={"attributes": list(attributes)}
    )


def cf_mse_by_intersection(
    d_x: Any, d_cf: Any, intersections: Any, kinds: Mapping[str, Any] | None = None
) -> pd.DataFrame:
    """CF-MSE per intersection (pooled over its pairs), with the pair count.

    Args:
        d_x, d_cf: ``D`` of each pair's factual row and twin.
        intersections: each pair's factual intersection.
        kinds: optional ``{name: mask over pairs}`` giving one column per twin kind; without it,
            one column ``cf_mse``.

    Returns:
        One row per intersection, with ``n_pairs`` (per kind) and the CF-MSE (per kind).
    """
    a = np.asarray(d_x, dtype=np.float64).reshape(-1)
    b = np.asarray(d_cf, dtype=np.float64).reshape(-1)
    g = np.asarray(pd.Series(intersections).astype(str))
    if not (len(a) == len(b) == len(g)):
        raise DataError(
            f"cf_mse_by_intersection: {len(a)} factual, {len(b)} twin outputs and {len(g)} labels must agree."
        )
    masks = {"cf_mse": np.ones(len(a), bool)} if kinds is None else {k: np.asarray(m, bool) for k, m in kinds.items()}
    cols = {}
    for name, m in masks.items():
        sq = pd.Series((a[m] - b[m]) ** 2).groupby(g[m])
        cols[name] = sq.mean()
        cols[f"n_{name}" if kinds is not None else "n_pairs"] = sq.size()
    return pd.DataFrame(cols).fillna({c: 0 for c in cols if c.startswith("n_")})
