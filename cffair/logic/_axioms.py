"""The logic of the LTN pipeline: semantics (section 2.4), axioms A1–A5 (section 4) and the knowledge base.

Everything is built on ``ltntorch`` (``import ltn``) and its vocabulary:

* conjunction ``AndProd`` (u ∧ v = u·v), disjunction ``OrProbSum``, negation ``NotStandard``
  (¬u = 1 − u), implication ``ImpliesReichenbach`` (u → v = 1 − u + u·v), equivalence
  ``Equiv(AndProd, ImpliesReichenbach)`` (u ↔ v = (u → v) ∧ (v → u)): the paper's product logic;
  :attr:`Semantics.logic` picks another (Łukasiewicz, Gödel, Goguen: :mod:`cffair.logic._fuzzy`);
* universal quantifier ``AggregPMeanError`` (∀ = 1 − (mean (1 − uᵢ)^p)^(1/p)) and existential
  quantifier ``AggregPMean`` (∃ = (mean uᵢ^p)^(1/p)), with p = 1 by default (section 6.3); an
  axiom may carry its own ∀ exponent (:attr:`Axiom.p`, e.g. p = 2 or 6 for A4 alone), which
  weighs its least satisfied pairs more.

All operators are the *stable* ltntorch versions: they project truth values by ε = 1e-4, so a
perfect model scores ≈ 0.9997, never exactly 1, and ``u ↔ u`` is not 1 for u = 0.5 (it is
0.5625): axiom A4 also pushes outputs towards 0 or 1.

What ltntorch lacks and cffair adds (the first two in :mod:`cffair.logic._fuzzy`, beside :class:`Semantics`):

* :func:`~cffair.logic.eq_score`, the score equality predicate of section 4.1;
* :func:`~cffair.logic.weighted_sat`, a *weighted* p-mean-error aggregation of a knowledge base
  ``sat = 1 − (Σ wᵢ (1 − sᵢ)^p / Σ wᵢ)^(1/p)`` (weights enter the mean; truth values are never
  multiplied by weights, which would make sat = 1/w optimal);
* :class:`Axiom` objects that carry their name, readable formula, group, weight and the data they
  quantify over, and :class:`KnowledgeBase`, which evaluates every axiom in **one forward pass**
  over the stacked, de-duplicated inputs ``[x; x′]`` (the hot training loss) and, separately,
  through the full ``ltn.Variable`` / ``ltn.Predicate`` / ``ltn.diag`` machinery
  (:meth:`KnowledgeBase.satisfactions_ltn`, the test oracle; both agree to ~1e-6).

Pair axioms (A4, A4_i, A5) quantify over *diagonal* pairs (x, x′): the i-th factual row goes
with the i-th counterfactual row only, never the cross product. Several x′ per x are allowed
(one pair each); ∀x ∀x′ ∈ cf(x, S) is then the p-mean error over all pairs, which for p = 1 and
the same number of counterfactuals per row equals the nested quantifier exactly.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal, cast

import ltn
import numpy as np
import pandas as pd
import torch
from torch import nn

from cffair._support.validation import TargetKind, check_exponent, check_target_kind
from cffair.errors import DataError, EmptyDomainWarning, ParameterError
from cffair.logic._fuzzy import DEFAULT_SEMANTICS, Semantics, eq_score, logic, weighted_sat

AxiomGroup = Literal["acc", "cf", "cf_sg", "cke"]
AxiomKind = Literal["holds", "fails", "eq_target", "iff", "eq_pair"]

GROUPS: tuple[str, ...] = ("acc", "cf", "cf_sg", "cke")


# ---------------------------------------------------------------------------- axioms
def _as_tensor(x: np.ndarray | torch.Tensor, what: str, ndim: int) -> torch.Tensor:
    t = torch.as_tensor(np.asarray(x, dtype=np.float32) if not isinstance(x, torch.Tensor) else x).float()
    if t.ndim != ndim:
        raise DataError(f"{what} must be a {ndim}-D array, got shape {tuple(t.shape)}.")
    if not torch.isfinite(t).all():
        raise DataError(f"{what} contains NaN or infinite values; clean the data before building axioms.")
    return t


@dataclass(eq=False)
class Axiom:
    """One closed formula of the knowledge base and the data it quantifies over.

    Attributes:
        name: short identifier (``"A1"``, ``"A4_1[Female, White]"``, ``"A5[black, age]"``).
        formula: readable formula, e.g. ``"∀x∈T⁺: D(x)"``.
        group: ``"acc"`` (A1–A3), ``"cf"`` (A4), ``"cf_sg"`` (A4_1..n) or ``"cke"`` (A5); axiom
            group weights apply per group.
        kind: how the truth of one element is computed from the predicate ``D``:
            ``holds`` → D(x); ``fails`` → ¬D(x); ``eq_target`` → Eq(D(x), y);
            ``iff`` → D(x) ↔ D(x′); ``eq_pair`` → Eq(D(x), D(x′)).
        x: factual inputs (n × d).
        x_cf: counterfactual inputs for pair axioms (n × d, row i pairs with ``x[i]``).
        y: target scores for ``eq_target``.
        weight: the axiom's own weight (multiplied by its group's weight in the knowledge base).
        meta: free-form information (subgroup label, sensitive group, feature, ...).
        p: the exponent of this axiom's ∀ (``None``: the semantics' ``p_forall``, the paper's 1).
            A larger p weighs the least satisfied elements more (p → ∞ approaches the minimum).
    """

    name: str
    formula: str
    group: AxiomGroup
    kind: AxiomKind
    x: torch.Tensor
    x_cf: torch.Tensor | None = None
    y: torch.Tensor | None = None
    weight: float = 1.0
    meta: dict = field(default_factory=dict)
    p: float | None = None

    def __post_init__(self) -> None:
        if self.group not in GROUPS:
            raise ParameterError(f"axiom group must be one of {GROUPS}, got {self.group!r}.")
        if self.kind not in ("holds", "fails", "eq_target", "iff", "eq_pair"):
            raise ParameterError(f"unknown axiom kind {self.kind!r}.")
        if not (math.isfinite(self.weight) and self.weight >= 0):
            raise ParameterError(f"axiom weight must be a finite number >= 0, got {self.weight!r}.")
        check_exponent(self.p, f"{self.name}: the exponent p of ∀", optional=True)
        self.x = _as_tensor(self.x, f"{self.name}: x", 2)
        if self.is_pair:
            if self.x_cf is None:
                raise DataError(f"{self.name}: a pair axiom needs counterfactuals x_cf.")
            self.x_cf = _as_tensor(self.x_cf, f"{self.name}: x_cf", 2)
            if self.x_cf.shape != self.x.shape:
                raise DataError(
                    f"{self.name}: factual and counterfactual arrays must have the same shape (diagonal pairs), "
                    f"got {tuple(self.x.shape)} and {tuple(self.x_cf.shape)}."
                )
        if self.kind == "eq_target":
            if self.y is None:
                raise DataError(f"{self.name}: axiom A3 needs target scores y.")
            self.y = _as_tensor(self.y, f"{self.name}: y", 1)
            if len(self.y) != len(self.x):
                raise DataError(f"{self.name}: {len(self.x)} rows but {len(self.y)} targets.")

    @property
    def is_pair(self) -> bool:
        """Whether the axiom quantifies over (x, x′) pairs."""
        return self.kind in ("iff", "eq_pair")

    @property
    def size(self) -> int:
        """Number of elements (rows or pairs) in the quantifier's domain."""
        return int(self.x.shape[0])

    def truths(
        self, d_x: torch.Tensor, d_cf: torch.Tensor | None = None, semantics: Semantics = DEFAULT_SEMANTICS
    ) -> torch.Tensor:
        """Truth value of the quantified formula for each element, from predicate outputs.

        This is the single home of each axiom's body: D(x) (A1), ¬D(x) (A2), Eq(D(x), y) (A3),
        D(x) ↔ D(x′) (A4, A4_i, A5 for binary targets) and Eq(D(x), D(x′)) (their score form).
        """
        if self.kind == "holds":
            return d_x
        if self.kind == "fails":
            return semantics.not_(d_x)
        if self.kind == "eq_target":
            return eq_score(d_x, cast(torch.Tensor, self.y))  # __post_init__ requires y for A3
        if self.kind == "iff":
            return semantics.iff(d_x, cast(torch.Tensor, d_cf))  # a pair axiom's caller passes D(x′)
        return semantics.pair_eq(d_x, cast(torch.Tensor, d_cf))  # the logic's equality of scores

    def satisfaction(self, model: nn.Module, semantics: Semantics = DEFAULT_SEMANTICS) -> torch.Tensor:
        """∀ over the domain, evaluated directly with plain tensors (differentiable)."""
        if self.size == 0:
            return torch.tensor(float("nan"))
        d_x = model(self.x)
        d_cf = model(self.x_cf) if self.is_pair else None
        return semantics.forall(self.truths(d_x, d_cf, semantics), self.p)

    def satisfaction_ltn(self, model: nn.Module, semantics: Semantics = DEFAULT_SEMANTICS) -> torch.Tensor:
        """The same satisfaction through ltntorch's Variable / Predicate / Function / diag / Quantifier.

        Slow but literal: the test oracle for :meth:`KnowledgeBase.satisfactions`.
        """
        Forall = semantics.ltn_forall(self.p)
        x = ltn.Variable("x", self.x)
        if self.kind in ("holds", "fails") or (self.kind == "iff" and semantics.pair_body == "equiv"):
            D = ltn.Predicate(model)
        else:
            D = ltn.Function(model)
        if self.kind == "holds":
            return Forall(x, D(x)).value
        if self.kind == "fails":
            Not = ltn.Connective(semantics.not_)
            return Forall(x, Not(D(x))).value
        if self.kind == "eq_target":
            y = ltn.Variable("y", cast(torch.Tensor, self.y)[:, None])
            Eq = ltn.Predicate(func=lambda a, b: eq_score(a.reshape(-1), b.reshape(-1)))
            return Forall(ltn.diag(x, y), Eq(D(x), y)).value
        x_cf = ltn.Variable("x_cf", self.x_cf)
        if self.kind == "iff" and semantics.pair_body == "equiv":
            Equiv = ltn.Connective(semantics.equiv)
            return Forall(ltn.diag(x, x_cf), Equiv(D(x), D(x_cf))).value
        eq = semantics.pair_eq if self.kind == "eq_pair" else eq_score  # a score's Eq is the logic's
        Eq = ltn.Predicate(func=lambda a, b: eq(a.reshape(-1), b.reshape(-1)))
        return Forall(ltn.diag(x, x_cf), Eq(D(x), D(x_cf))).value


# ---------------------------------------------------------------------------- axiom factories
def _check_labels(y: np.ndarray | torch.Tensor, n: int, target_kind: TargetKind) -> np.ndarray:
    y = np.asarray(y.detach().cpu() if isinstance(y, torch.Tensor) else y)
    if y.ndim != 1 or len(y) != n:
        raise DataError(f"expected {n} targets in a 1-D array, got shape {y.shape}.")
    if not np.issubdtype(y.dtype, np.number) and y.dtype != bool:
        raise DataError(f"targets must be numeric, got dtype {y.dtype}.")
    y = y.astype(np.float64)
    if not np.isfinite(y).all():
        raise DataError("targets contain NaN or infinite values.")
    if target_kind == "binary":
        bad = np.setdiff1d(np.unique(y), [0.0, 1.0])
        if len(bad):
            raise DataError(
                f"a binary target needs labels 0/1, got value(s) {bad[:5].tolist()}; use target_kind='score' for a real-valued target."
            )
    return y


def accuracy_axioms(x: np.ndarray | torch.Tensor, y: np.ndarray | torch.Tensor, target_kind: TargetKind) -> list[Axiom]:
    """The accuracy axioms of section 4.1.

    * Axiom A1: ``∀x∈T⁺: D(x)`` and Axiom A2: ``∀x∈T⁻: ¬D(x)`` for a binary target;
    * Axiom A3: ``∀x∈T: Eq(D(x), y)`` for a score target.

    A class with no rows is skipped with an :class:`EmptyDomainWarning`.
    """
    xt = _as_tensor(x, "x", 2)
    yy = _check_labels(y, len(xt), target_kind)
    if target_kind == "score":
        return [Axiom("A3", "∀x∈T: Eq(D(x), y)", "acc", "eq_target", xt, y=torch.as_tensor(yy, dtype=torch.float32))]
    out = []
    pos = torch.as_tensor(yy == 1)
    for name, formula, kind, mask in (("A1", "∀x∈T⁺: D(x)", "holds", pos), ("A2", "∀x∈T⁻: ¬D(x)", "fails", ~pos)):
        if not bool(mask.any()):
            warnings.warn(
                f"axiom {name} ({formula}) has an empty domain (no such rows); skipped.",
                EmptyDomainWarning,
                stacklevel=2,
            )
            continue
        out.append(Axiom(name, formula, "acc", cast(AxiomKind, kind), xt[mask]))
    return out


def _pair_kind(target_kind: TargetKind) -> AxiomKind:
    check_target_kind(target_kind)
    return "iff" if target_kind == "binary" else "eq_pair"


def _body(target_kind: TargetKind) -> str:
    return "D(x) ↔ D(x′)" if target_kind == "binary" else "Eq(D(x), D(x′))"


def cf_axiom(
    x: np.ndarray | torch.Tensor,
    x_cf: np.ndarray | torch.Tensor,
    target_kind: TargetKind,
    sensitive: str = "S",
    p: float | None = None,
) -> Axiom:
    """Axiom A4, section 4.2: ``∀x∈T, ∀x′∈cf(x, S): D(x) ↔ D(x′)`` (``Eq`` for scores).

    ``x`` and ``x_cf`` are diagonal pairs: row i of ``x_cf`` is a counterfactual of row i of
    ``x`` (repeat a factual row for each of its counterfactuals). ``p`` is the exponent of its
    ∀ (default: the knowledge base's ``p_forall``, the paper's 1).
    """
    return Axiom(
        "A4",
        f"∀x∈T, ∀x′∈cf(x, {sensitive}): {_body(target_kind)}",
        "cf",
        _pair_kind(target_kind),
        cast(torch.Tensor, x),  # Axiom converts arrays to tensors
        cast(torch.Tensor, x_cf),
        p=p,
    )


def subgroup_cf_axioms(
    x: np.ndarray | torch.Tensor,
    x_cf: np.ndarray | torch.Tensor,
    subgroups: pd.Series | np.ndarray | Sequence[str] | Mapping[str, np.ndarray],
    target_kind: TargetKind,
    sensitive: str = "S",
    p: float | None = None,
) -> list[Axiom]:
    """Axioms A4_1..A4_n, section 4.2: ``∀x∈T_Cᵢ, ∀x′∈cf(x, S): D(x) ↔ D(x′)``, one per subgroup.

    Args:
        x, x_cf: diagonal (factual, counterfactual) pairs.
        subgroups: either one label per pair (e.g. ``spec.subgroup_labels`` of each pair's
            factual row: columns × bins from the :class:`~cffair.datasets.DatasetSpec`), giving
            a partition; or a mapping ``name → boolean mask over pairs`` for any subgroups
            (overlapping, or only some rows such as ``{"young": age < 30}``).
        p: the exponent of each axiom's ∀ (default: the knowledge base's ``p_forall``).

    Subgroups without pairs are skipped explicitly (a quantifier over an empty set is NaN) with
    an :class:`EmptyDomainWarning`.
    """
    xt = _as_tensor(x, "x", 2)
    xc = _as_tensor(x_cf, "x_cf", 2)
    n = len(xt)
    if isinstance(subgroups, Mapping):
        masks = {}
        for name, m in subgroups.items():
            m = np.asarray(m)
            if m.dtype != bool or m.shape != (n,):
                raise DataError(
                    f"subgroup mask {name!r} must be a boolean array with one entry per pair ({n}), got {m.dtype} {m.shape}."
                )
            masks[str(name)] = m
    else:
        labels = np.asarray(pd.Series(subgroups).astype(str))
        if labels.shape != (n,):
            raise DataError(f"expected one subgroup label per pair ({n}), got {labels.shape[0]}.")
        masks = {lab: labels == lab for lab in sorted(set(labels.tolist()))}
    out = []
    for i, (name, m) in enumerate(masks.items(), start=1):
        if not m.any():
            warnings.warn(
                f"subgroup {name!r} has no counterfactual pairs; its axiom A4_{i} is skipped.",
                EmptyDomainWarning,
                stacklevel=2,
            )
            continue
        idx = torch.as_tensor(np.flatnonzero(m))
        out.append(
            Axiom(
                f"A4_{i}[{name}]",
                f"∀x∈T_{{{name}}}, ∀x′∈cf(x, {sensitive}): {_body(target_kind)}",
                "cf_sg",
                _pair_kind(target_kind),
                xt[idx],
                xc[idx],
                meta={"subgroup": name},
                p=p,
            )
        )
    return out


def cke_axiom(
    x: np.ndarray | torch.Tensor,
    x_cf: np.ndarray | torch.Tensor,
    target_kind: TargetKind,
    group: str,
    feature: str,
    sensitive: str = "S",
) -> Axiom:
    """Axiom A5, section 4.3: ``∀x∈T̂⁻_{S=s′}, x′∈cf(x, F): D(x) ↔ D(x′)``.

    ``x`` are the negatively predicted rows of sensitive group ``s′ = group`` (repeated per
    counterfactual) and ``x_cf`` their counterfactuals under interventions on the immutable
    feature ``F = feature``: the feature must not matter for this group's outcome.
    """
    if len(x) == 0:
        raise DataError(
            f"axiom A5 for ({group}, {feature}) has an empty domain: no negatively predicted rows with counterfactuals."
        )
    return Axiom(
        f"A5[{group}, {feature}]",
        f"∀x∈T̂⁻_{{{sensitive}={group}}}, x′∈cf(x, {feature}): {_body(target_kind)}",
        "cke",
        _pair_kind(target_kind),
        cast(torch.Tensor, x),  # Axiom converts arrays to tensors
        cast(torch.Tensor, x_cf),
        meta={"group": group, "feature": feature},
    )


# ---------------------------------------------------------------------------- knowledge base
@dataclass
class _Compiled:
    inputs: torch.Tensor  # unique rows of every axiom's x and x_cf
    index_x: list[torch.Tensor]
    index_cf: list[torch.Tensor | None]


class KnowledgeBase:
    """A set of axioms with weights and their aggregated satisfaction (section 2.4).

    ``sat(K) = 1 − (Σ wᵢ (1 − sᵢ)^p / Σ wᵢ)^(1/p)`` with ``wᵢ = axiom.weight × group_weights[group]``
    and ``p = semantics.p_kb`` (:func:`weighted_sat`).

    Evaluation for training (:meth:`satisfactions`) stacks the inputs of all axioms, removes
    exact duplicate rows (A1/A2 and A4 share their factual rows; A4 and A4_i share all rows),
    runs the predicate **once** on the result and gathers each axiom's truths from it.
    """

    def __init__(
        self,
        axioms: Iterable[Axiom] = (),
        semantics: Semantics = DEFAULT_SEMANTICS,
        group_weights: Mapping[str, float] | None = None,
    ):
        self.semantics = semantics
        self.group_weights = {g: 1.0 for g in GROUPS}
        if group_weights:
            unknown = set(group_weights) - set(GROUPS)
            if unknown:
                raise ParameterError(f"unknown axiom group(s) {sorted(unknown)}; groups are {GROUPS}.")
            for g, w in group_weights.items():
                if not (math.isfinite(w) and w >= 0):
                    raise ParameterError(f"group weight for {g!r} must be >= 0, got {w!r}.")
                self.group_weights[g] = float(w)
        self.axioms: list[Axiom] = []
        self._compiled: _Compiled | None = None
        for a in axioms:
            self.add(a)

    # ----------------------------------------------------------------- contents
    def add(self, axiom: Axiom) -> None:
        """Add an axiom; an axiom with an empty domain is skipped with a warning."""
        if axiom.name in self.names:
            raise ParameterError(f"the knowledge base already has an axiom named {axiom.name!r}.")
        if axiom.size == 0:
            warnings.warn(
                f"axiom {axiom.name} has an empty domain (its satisfaction is NaN); skipped.",
                EmptyDomainWarning,
                stacklevel=2,
            )
            return
        if axiom.kind == "eq_pair":
            logic(self.semantics.logic).require_scores()  # Gödel logic cannot read Eq(D(x), D(x′)): it says why
        if self.axioms and axiom.x.shape[1] != self.axioms[0].x.shape[1]:
            raise DataError(
                f"axiom {axiom.name} has {axiom.x.shape[1]} input columns, the others {self.axioms[0].x.shape[1]}."
            )
        self.axioms.append(axiom)
        self._compiled = None

    def extend(self, axioms: Iterable[Axiom]) -> None:
        for a in axioms:
            self.add(a)

    def remove(self, name: str) -> Axiom:
        """Remove and return the axiom called ``name``."""
        for i, a in enumerate(self.axioms):
            if a.name == name:
                self._compiled = None
                return self.axioms.pop(i)
        raise KeyError(f"no axiom named {name!r}; axioms are {self.names}.")

    @property
    def names(self) -> list[str]:
        return [a.name for a in self.axioms]

    @property
    def groups(self) -> set[str]:
        return {a.group for a in self.axioms}

    def weights(self) -> torch.Tensor:
        """Effective weight of each axiom: its own weight times its group's weight."""
        return torch.tensor([a.weight * self.group_weights[a.group] for a in self.axioms], dtype=torch.float32)

    def describe(self) -> pd.DataFrame:
        """One row per axiom: name, group, formula, weight, domain size, exponent p of its ∀."""
        w = self.weights().tolist()
        return pd.DataFrame(
            [
                {
                    "name": a.name,
                    "group": a.group,
                    "formula": a.formula,
                    "weight": wi,
                    "size": a.size,
                    "p": a.p if a.p is not None else self.semantics.p_forall,
                }
                for a, wi in zip(self.axioms, w)
            ]
        )

    def __len__(self) -> int:
        return len(self.axioms)

    def __repr__(self) -> str:
        return f"KnowledgeBase({self.names}, p_kb={self.semantics.p_kb})"

    # ----------------------------------------------------------------- fast evaluation
    def compile(self) -> _Compiled:
        """Stack every axiom's inputs, de-duplicate exact rows, and remember where each came from."""
        if self._compiled is not None:
            return self._compiled
        if not self.axioms:
            raise ParameterError("the knowledge base is empty; add axioms first.")
        parts = []
        for a in self.axioms:
            parts.append(a.x)
            if a.is_pair:
                parts.append(cast(torch.Tensor, a.x_cf))  # a pair axiom has x_cf (__post_init__)
        stacked = torch.cat(parts)
        unique, inverse = torch.unique(stacked, dim=0, return_inverse=True)
        index_x: list[torch.Tensor] = []
        index_cf: list[torch.Tensor | None] = []
        pos = 0
        for a in self.axioms:
            index_x.append(inverse[pos : pos + a.size])
            pos += a.size
            if a.is_pair:
                index_cf.append(inverse[pos : pos + a.size])
                pos += a.size
            else:
                index_cf.append(None)
        self._compiled = _Compiled(unique.contiguous(), index_x, index_cf)
        return self._compiled

    def compile_from(self, base: KnowledgeBase) -> _Compiled:
        """:meth:`compile`, reusing ``base``'s compiled rows when this base is ``base`` plus more axioms.

        A CKE step adds one axiom to the base of the step before (:meth:`cffair.learners.LTNLearner.add_axioms`):
        only the new axioms' rows are de-duplicated against ``base``'s unique rows, instead of every
        axiom's rows again. The unique rows come out sorted, as :meth:`compile` sorts them, so the
        forward pass sees the same rows in the same order: the same bits. Falls back to
        :meth:`compile` when ``base`` is not compiled or its axioms are not this base's first ones.
        """
        old = base._compiled
        n = len(base.axioms)
        if (
            self._compiled is not None
            or old is None
            or [id(a) for a in self.axioms[:n]] != [id(a) for a in base.axioms]
        ):
            return self.compile()
        if old.inputs.device != self.axioms[0].x.device:
            return self.compile()
        parts = [old.inputs]
        for a in self.axioms[n:]:
            parts.append(a.x)
            if a.is_pair:
                parts.append(cast(torch.Tensor, a.x_cf))
        unique, inverse = torch.unique(torch.cat(parts), dim=0, return_inverse=True)
        moved = inverse[: len(old.inputs)]  # where each of base's unique rows went
        index_x = [moved[i] for i in old.index_x]
        index_cf = [None if i is None else moved[i] for i in old.index_cf]
        pos = len(old.inputs)
        for a in self.axioms[n:]:
            index_x.append(inverse[pos : pos + a.size])
            pos += a.size
            if a.is_pair:
                index_cf.append(inverse[pos : pos + a.size])
                pos += a.size
            else:
                index_cf.append(None)
        self._compiled = _Compiled(unique.contiguous(), index_x, index_cf)
        return self._compiled

    @property
    def n_inputs(self) -> int:
        """Rows in one forward pass (after de-duplication)."""
        return int(self.compile().inputs.shape[0])

    def satisfactions(self, model: nn.Module) -> torch.Tensor:
        """Satisfaction of each axiom (1-D tensor, differentiable), from one forward pass."""
        c = self.compile()
        out = model(c.inputs)
        sats = []
        for a, ix, icf in zip(self.axioms, c.index_x, c.index_cf):
            d_x = out[ix]
            d_cf = out[icf] if icf is not None else None
            sats.append(self.semantics.forall(a.truths(d_x, d_cf, self.semantics), a.p))
        return torch.stack(sats)

    def aggregate(self, sats: torch.Tensor) -> torch.Tensor:
        """:func:`weighted_sat` of per-axiom satisfactions with this base's weights and p."""
        return weighted_sat(sats, self.weights(), p=self.semantics.p_kb, stable=self.semantics.stable)

    def sat(self, model: nn.Module) -> tuple[torch.Tensor, torch.Tensor]:
        """``(sat(K), per-axiom satisfactions)``; training minimises ``1 − sat(K)``."""
        sats = self.satisfactions(model)
        return self.aggregate(sats), sats

    # ----------------------------------------------------------------- oracle
    def satisfactions_ltn(self, model: nn.Module) -> dict[str, float]:
        """Each axiom's satisfaction through the full ltntorch machinery (slow; the oracle)."""
        with torch.no_grad():
            return {a.name: float(a.satisfaction_ltn(model, self.semantics)) for a in self.axioms}

    def sat_ltn(self, model: nn.Module) -> float:
        """sat(K) from :meth:`satisfactions_ltn`."""
        sats = self.satisfactions_ltn(model)
        return float(self.aggregate(torch.tensor(list(sats.values()))))
