r"""More fairness notions as axioms of the same knowledge base, each with its metric (section 8).

The paper's conclusion names the notions its knowledge base lacks: **equalised odds** (Hardt et
al. 2016) and the **Lipschitz condition** of Dwork et al. (2012); **demographic parity** was
formalised in LTN before (Wagner & d'Avila Garcez 2021). Here each is a formula over the same
predicate ``D`` and the same fuzzy operators as axioms A1–A5 (:mod:`cffair.logic._axioms`), so it can
join any knowledge base with a weight:

* **Demographic parity** (DP): ``∀(a, b): Eq(M_a, M_b)`` with ``M_g = mean_{x∈T_{S=g}} D(x)``
  (the existential quantifier ``∃`` with p = 1 is this mean) over every pair of values ``(a, b)``
  of ``S``; ``Eq(u, v) = 1 − |u − v|`` is the Łukasiewicz biresiduum, so the axiom is satisfied
  to degree ``1 − |gap|``.
* **Equalised odds** (EO): the same parity, within each class of the true label:
  ``∀y ∀(a, b): Eq(M_{a,y}, M_{b,y})`` with ``M_{g,y} = mean_{x∈T_{S=g, Y=y}} D(x)`` (y = 1: the
  true-positive rates, y = 0: the false-positive rates).
* **Lipschitz** (individual fairness): over pairs of similar people ``(x, x̃)`` (each row's
  nearest neighbours, :func:`similar_pairs`),
  ``∀(x, x̃): |D(x) − D(x̃)| ≤ L·d(x, x̃)``, true to degree ``1 − max(0, |D(x) − D(x̃)| − L·d)``.
  ``d(x, x̃) = min(1, ‖x − x̃‖₂ / β)`` on the encoded rows *without* the sensitive attribute's
  columns, with β the similarity radius of the paper's equation (2) (Table 4: 3 and 5); L = 1.
  This is Dwork et al.'s condition with the total variation distance of two Bernoulli
  outcomes, ``|D(x) − D(x̃)|``.

The group terms are not ``∀`` over elements like A1–A5: their truth comes from all rows of a
domain at once. :class:`TermKnowledgeBase` evaluates them from the *same* forward pass as the
knowledge base's axioms (their rows are training rows, which A1/A2 already hold), so adding one
costs no extra pass through ``D``. Train with :meth:`cffair.learners.LTNLearner.train_stage`.

Metrics (hard decisions ``D(x) ≥ 0.5`` unless said otherwise): :func:`dp_gap`, :func:`eo_gaps`,
:func:`lipschitz_violation`.

References:
    | Equality of Opportunity in Supervised Learning (Hardt, Price & Srebro, 2016)
      https://arxiv.org/abs/1610.02413 :cite:p:`hardt2016`
    | Fairness through Awareness (Dwork, Hardt, Pitassi, Reingold & Zemel, 2012)
      https://arxiv.org/abs/1104.3913 :cite:p:`dwork2012`
    | Neural-symbolic integration for fairness in AI (Wagner & d'Avila Garcez, 2021) :cite:p:`wagner2021`
"""

from __future__ import annotations

__all__ = [
    "LIPSCHITZ_BETA",
    "LipschitzTerm",
    "ParityTerm",
    "Term",
    "TermKnowledgeBase",
    "demographic_parity_axiom",
    "dp_gap",
    "eo_gaps",
    "equalised_odds_axiom",
    "eq_abs",
    "lipschitz_axiom",
    "lipschitz_violation",
    "similar_pairs",
]

import itertools
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
import torch
from torch import nn

from cffair.errors import DataError, ParameterError
from cffair.logic._axioms import DEFAULT_SEMANTICS, Axiom, KnowledgeBase, Semantics

#: β of the Lipschitz metric: the similarity radius of equation (2) in the paper's Table 4.
LIPSCHITZ_BETA = 3.0


def eq_abs(u: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    """Łukasiewicz equality ``Eq(u, v) = 1 − |u − v|`` of two truth values (or rates)."""
    return 1.0 - torch.abs(u - v)


def _rows(x: Any, what: str) -> torch.Tensor:
    t = torch.as_tensor(np.asarray(x, dtype=np.float32)) if not isinstance(x, torch.Tensor) else x.float()
    if t.ndim != 2:
        raise DataError(f"{what} must be a 2-D array of encoded rows, got shape {tuple(t.shape)}.")
    if not torch.isfinite(t).all():
        raise DataError(f"{what} contains NaN or infinite values.")
    return t


def _labels(groups: Any, n: int, what: str) -> np.ndarray:
    g = np.asarray(pd.Series(groups).astype(str))
    if g.shape != (n,):
        raise DataError(f"{what}: expected one group label per row ({n}), got {g.shape[0]}.")
    return g


# ---------------------------------------------------------------------------- terms
@dataclass(eq=False)
class Term:
    """A closed formula whose truth is computed from ``D`` on all rows of its domain at once.

    Attributes:
        name: short identifier (``"DP[sex]"``).
        formula: readable formula.
        group: ``"dp"``, ``"eo"`` or ``"lip"`` (a term's own weight group, outside A1–A5's).
        x: the rows ``D`` is evaluated on (n × d).
        weight: the term's weight in the knowledge base (a schedule may change it).
        meta: free-form information.
    """

    name: str
    formula: str
    group: str
    x: torch.Tensor
    weight: float = 1.0
    meta: dict = field(default_factory=dict)

    def satisfaction(self, d: torch.Tensor, semantics: Semantics = DEFAULT_SEMANTICS) -> torch.Tensor:
        """The term's truth from ``d = D(self.x)`` (differentiable)."""
        raise NotImplementedError

    def evaluate(self, model: nn.Module, semantics: Semantics = DEFAULT_SEMANTICS) -> torch.Tensor:
        """The term's truth with its own forward pass."""
        return self.satisfaction(model(self.x), semantics)


@dataclass(eq=False)
class ParityTerm(Term):
    """``∀ cells ∀(a, b): Eq(mean_{cell, a} D, mean_{cell, b} D)``: DP (one cell) or EO (one per label).

    ``cells`` maps a cell name to ``{group: row indices}``; groups with no row in a cell are
    left out of that cell's comparisons.
    """

    cells: dict[str, dict[str, torch.Tensor]] = field(default_factory=dict)

    def satisfaction(self, d: torch.Tensor, semantics: Semantics = DEFAULT_SEMANTICS) -> torch.Tensor:
        truths = []
        for groups in self.cells.values():
            means = [d[idx].mean() for idx in groups.values()]
            truths += [eq_abs(a, b) for a, b in itertools.combinations(means, 2)]
        return semantics.forall(torch.stack(truths))


@dataclass(eq=False)
class LipschitzTerm(Term):
    """``∀(x, x̃) ∈ Near: |D(x) − D(x̃)| ≤ L·d(x, x̃)`` over index pairs ``(i, j)`` into ``x``."""

    i: torch.Tensor = field(default_factory=lambda: torch.zeros(0, dtype=torch.long))
    j: torch.Tensor = field(default_factory=lambda: torch.zeros(0, dtype=torch.long))
    dist: torch.Tensor = field(default_factory=lambda: torch.zeros(0))
    lipschitz: float = 1.0

    def satisfaction(self, d: torch.Tensor, semantics: Semantics = DEFAULT_SEMANTICS) -> torch.Tensor:
        excess = torch.relu(torch.abs(d[self.i] - d[self.j]) - self.lipschitz * self.dist)
        return semantics.forall(1.0 - excess)


def _group_index(groups: np.ndarray, rows: np.ndarray | None = None) -> dict[str, torch.Tensor]:
    sel = np.arange(len(groups)) if rows is None else rows
    out = {}
    for g in sorted(set(groups[sel].tolist())):
        out[g] = torch.as_tensor(sel[groups[sel] == g], dtype=torch.long)
    return out


def demographic_parity_axiom(x: Any, groups: Any, sensitive: str = "S", weight: float = 1.0) -> ParityTerm:
    """Demographic parity as an axiom: ``∀(a, b): Eq(mean_{T_{S=a}} D, mean_{T_{S=b}} D)``.

    Args:
        x: encoded rows (the training fold).
        groups: each row's value of the sensitive attribute (at least two distinct values).
    """
    xt = _rows(x, "x")
    g = _labels(groups, len(xt), "demographic parity")
    cells = {"all": _group_index(g)}
    if len(cells["all"]) < 2:
        raise DataError(f"demographic parity compares groups, but every row has {sensitive} = {g[0]!r}.")
    return ParityTerm(
        f"DP[{sensitive}]",
        f"∀(a, b): Eq(mean_{{x∈T_{{{sensitive}=a}}}} D(x), mean_{{x∈T_{{{sensitive}=b}}}} D(x))",
        "dp",
        xt,
        weight,
        {"groups": sorted(cells["all"])},
        cells=cells,
    )


def equalised_odds_axiom(x: Any, y: Any, groups: Any, sensitive: str = "S", weight: float = 1.0) -> ParityTerm:
    """Equalised odds as an axiom: ``∀y ∀(a, b): Eq(mean_{T_{S=a,Y=y}} D, mean_{T_{S=b,Y=y}} D)``.

    Args:
        x: encoded rows; y: their true labels 0/1; groups: their values of the sensitive attribute.
    """
    xt = _rows(x, "x")
    g = _labels(groups, len(xt), "equalised odds")
    yy = np.asarray(y, dtype=float)
    if yy.shape != (len(xt),) or len(np.setdiff1d(np.unique(yy), [0.0, 1.0])):
        raise DataError(
            f"equalised odds needs one 0/1 label per row ({len(xt)}), got shape {yy.shape} "
            f"with values {np.unique(yy)[:5].tolist()}."
        )
    cells = {}
    for label in (1.0, 0.0):
        rows = np.flatnonzero(yy == label)
        idx = _group_index(g, rows)
        if len(idx) >= 2:
            cells[f"y={int(label)}"] = idx
    if not cells:
        raise DataError("equalised odds compares groups within a label, but no label has rows from two groups.")
    return ParityTerm(
        f"EO[{sensitive}]",
        f"∀y ∀(a, b): Eq(mean_{{x∈T_{{{sensitive}=a, Y=y}}}} D(x), mean_{{x∈T_{{{sensitive}=b, Y=y}}}} D(x))",
        "eo",
        xt,
        weight,
        {"cells": sorted(cells)},
        cells=cells,
    )


def similar_pairs(
    x: Any, exclude: Sequence[int] = (), k: int = 1, beta: float = LIPSCHITZ_BETA, chunk: int = 1024
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each row's ``k`` nearest other rows: ``(i, j, d)`` with ``d = min(1, ‖x_i − x_j‖₂ / β)``.

    Distances leave out the encoded columns ``exclude`` (the sensitive attribute's): two people
    who differ only in S are at distance 0 and must get the same outcome. Exact search in
    chunks (no approximation); among rows at the same distance the choice is arbitrary but
    deterministic.
    """
    xt = _rows(x, "x").numpy()
    if not beta > 0:
        raise ParameterError(f"beta must be positive, got {beta!r}.")
    if not isinstance(k, int) or k < 1 or k >= len(xt):
        raise ParameterError(f"k must be a whole number in 1..{len(xt) - 1} (rows - 1), got {k!r}.")
    keep = np.setdiff1d(np.arange(xt.shape[1]), np.asarray(exclude, dtype=int))
    z = xt[:, keep]
    sq = (z**2).sum(axis=1)
    ii, jj, dd = [], [], []
    for start in range(0, len(z), chunk):
        block = z[start : start + chunk]
        d2 = np.maximum(sq[start : start + chunk, None] + sq[None, :] - 2.0 * block @ z.T, 0.0)
        d2[np.arange(len(block)), np.arange(start, start + len(block))] = np.inf  # not itself
        part = np.argpartition(d2, k - 1, axis=1)[:, :k] if k < len(z) - 1 else np.argsort(d2, axis=1)[:, :k]
        nn_idx = np.take_along_axis(
            part, np.argsort(np.take_along_axis(d2, part, axis=1), axis=1, kind="stable"), axis=1
        )
        ii.append(np.repeat(np.arange(start, start + len(block)), k))
        jj.append(nn_idx.ravel())
        dd.append(np.sqrt(np.take_along_axis(d2, nn_idx, axis=1)).ravel())
    d = np.minimum(1.0, np.concatenate(dd) / beta)
    return np.concatenate(ii), np.concatenate(jj), d


def lipschitz_axiom(
    x: Any,
    exclude: Sequence[int] = (),
    k: int = 1,
    beta: float = LIPSCHITZ_BETA,
    lipschitz: float = 1.0,
    weight: float = 1.0,
) -> LipschitzTerm:
    """Dwork et al.'s Lipschitz condition on each row's ``k`` nearest neighbours (:func:`similar_pairs`)."""
    xt = _rows(x, "x")
    i, j, d = similar_pairs(xt, exclude, k, beta)
    return LipschitzTerm(
        "Lip",
        f"∀(x, x̃)∈Near_{k}: |D(x) − D(x̃)| ≤ {lipschitz:g}·min(1, ‖x − x̃‖/{beta:g})",
        "lip",
        xt,
        weight,
        {"k": k, "beta": beta, "pairs": len(i)},
        i=torch.as_tensor(i),
        j=torch.as_tensor(j),
        dist=torch.as_tensor(d, dtype=torch.float32),
        lipschitz=float(lipschitz),
    )


# ---------------------------------------------------------------------------- knowledge base
class _Tap:
    """Calls the model and remembers each output (to reuse the knowledge base's forward pass)."""

    def __init__(self, model: nn.Module) -> None:
        self.model = model
        self.calls: list[tuple[torch.Tensor, torch.Tensor]] = []

    def __call__(self, x: torch.Tensor) -> torch.Tensor:
        out = self.model(x)
        self.calls.append((x, out))
        return out


class TermKnowledgeBase(KnowledgeBase):
    """A :class:`~cffair.logic.KnowledgeBase` with terms (group and individual notions) besides axioms.

    ``sat(K)`` aggregates the axioms' and the terms' satisfactions with the same weighted
    p-mean error; a term's weight is its own :attr:`Term.weight`. A term whose rows all appear
    in the axioms' stacked inputs reads ``D`` from the axioms' forward pass.
    """

    def __init__(
        self,
        axioms: Iterable[Axiom] = (),
        terms: Iterable[Term] = (),
        semantics: Semantics = DEFAULT_SEMANTICS,
        group_weights: Mapping[str, float] | None = None,
    ) -> None:
        super().__init__(axioms, semantics, group_weights)
        self.terms: list[Term] = []
        self._term_index: tuple[int, list[torch.Tensor | None]] | None = None
        for t in terms:
            self.add_term(t)

    def add_term(self, term: Term) -> None:
        """Add a term (names are unique across axioms and terms)."""
        if term.name in self.names:
            raise ParameterError(f"the knowledge base already has a formula named {term.name!r}.")
        if self.axioms and term.x.shape[1] != self.axioms[0].x.shape[1]:
            raise DataError(
                f"term {term.name} has {term.x.shape[1]} input columns, the axioms {self.axioms[0].x.shape[1]}."
            )
        self.terms.append(term)
        self._term_index = None

    @property
    def names(self) -> list[str]:
        return [a.name for a in self.axioms] + [t.name for t in getattr(self, "terms", [])]

    def __len__(self) -> int:
        return len(self.axioms) + len(self.terms)

    def weights(self) -> torch.Tensor:
        w = super().weights()
        return torch.cat([w, torch.tensor([t.weight for t in self.terms], dtype=torch.float32)])

    def describe(self) -> pd.DataFrame:
        rows = super().describe()
        extra = pd.DataFrame(
            [
                {"name": t.name, "group": t.group, "formula": t.formula, "weight": t.weight, "size": int(t.x.shape[0])}
                for t in self.terms
            ]
        )
        return pd.concat([rows, extra], ignore_index=True) if len(extra) else rows

    def _index(self) -> list[torch.Tensor | None]:
        """For each term, the positions of its rows in the compiled inputs (None if some are missing)."""
        compiled = self.compile()
        if self._term_index is not None and self._term_index[0] == id(compiled):
            return self._term_index[1]
        inputs = compiled.inputs
        out: list[torch.Tensor | None] = []
        for t in self.terms:
            both = torch.cat([inputs, t.x])
            uniq, inv = torch.unique(both, dim=0, return_inverse=True)
            pos = torch.full((len(uniq),), -1, dtype=torch.long)
            pos[inv[: len(inputs)]] = torch.arange(len(inputs))
            idx = pos[inv[len(inputs) :]]
            out.append(None if bool((idx < 0).any()) else idx)
        self._term_index = (id(compiled), out)
        return out

    def satisfactions(self, model: nn.Module) -> torch.Tensor:
        tap = _Tap(model)
        base = super().satisfactions(tap)  # type: ignore[arg-type]
        if not self.terms:
            return base
        inputs = self.compile().inputs
        shared = tap.calls[0][1] if len(tap.calls) == 1 and tap.calls[0][0] is inputs else None
        sats = []
        for t, idx in zip(self.terms, self._index(), strict=True):
            d = shared[idx] if (shared is not None and idx is not None) else model(t.x)
            sats.append(t.satisfaction(d, self.semantics))
        return torch.cat([base, torch.stack(sats)])

    def satisfactions_ltn(self, model: nn.Module) -> dict[str, float]:
        out = super().satisfactions_ltn(model)
        with torch.no_grad():
            out.update({t.name: float(t.evaluate(model, self.semantics)) for t in self.terms})
        return out


# ---------------------------------------------------------------------------- metrics
def _decisions(d: Any, threshold: float | None) -> np.ndarray:
    v = np.asarray(d, dtype=np.float64).reshape(-1)
    if not np.isfinite(v).all():
        raise DataError("predictions contain NaN or infinite values.")
    return v if threshold is None else (v >= threshold).astype(np.float64)


def dp_gap(d: Any, groups: Any, threshold: float | None = 0.5) -> float:
    """Largest difference of positive-decision rates between two groups (``threshold=None``: of mean ``D``)."""
    v = _decisions(d, threshold)
    g = _labels(groups, len(v), "dp_gap")
    rates = pd.Series(v).groupby(g).mean()
    if len(rates) < 2:
        raise DataError("dp_gap needs at least two groups.")
    return float(rates.max() - rates.min())


def eo_gaps(d: Any, y: Any, groups: Any, threshold: float | None = 0.5) -> dict[str, float]:
    """Equalised-odds gaps: ``tpr_gap`` (label 1), ``fpr_gap`` (label 0) and their maximum ``eo_gap``."""
    v = _decisions(d, threshold)
    g = _labels(groups, len(v), "eo_gaps")
    yy = np.asarray(y, dtype=float).reshape(-1)
    if len(yy) != len(v):
        raise DataError(f"eo_gaps: {len(v)} predictions but {len(yy)} labels.")
    out = {}
    for label, key in ((1.0, "tpr_gap"), (0.0, "fpr_gap")):
        m = yy == label
        rates = pd.Series(v[m]).groupby(g[m]).mean()
        out[key] = float(rates.max() - rates.min()) if len(rates) >= 2 else float("nan")
    out["eo_gap"] = float(np.nanmax([out["tpr_gap"], out["fpr_gap"]]))
    return out


def lipschitz_violation(
    d: Any, i: Any, j: Any, dist: Any, lipschitz: float = 1.0, tol: float = 1e-3
) -> dict[str, float]:
    """On pairs ``(i, j)`` with metric ``dist``: the share with ``|D_i − D_j| > L·d + tol`` and the mean excess."""
    v = np.asarray(d, dtype=np.float64).reshape(-1)
    i, j = np.asarray(i, dtype=int), np.asarray(j, dtype=int)
    dd = np.asarray(dist, dtype=np.float64)
    if not (len(i) == len(j) == len(dd)) or len(i) == 0:
        raise DataError(
            f"lipschitz_violation needs as many pairs as distances (got {len(i)}, {len(j)}, {len(dd)}), at least one."
        )
    excess = np.maximum(0.0, np.abs(v[i] - v[j]) - lipschitz * dd)
    return {"lip_violation": float(np.mean(excess > tol)), "lip_excess": float(np.mean(excess))}
