"""Post-hoc queries of section 4.4, evaluated with ltntorch's Variables, Predicates and Quantifiers.

* Equation (2), :func:`similar_different`: "is there a similar point in my subgroup with a
  different outcome?"  ``∃x∈T_C, x≠x̂: ¬(D(x) = D(x̂)) ∧ ‖x − x̂‖₂ < β``;
* Equation (3), :func:`subgroup_cf`: subgroup counterfactual fairness
  ``∀x∈T_C, ∀x′∈cf(x, S): D(x) ↔ D(x′)`` for any subgroup mask (the body of axioms A4_i).

For a binary target ``D(x) = D(x̂)`` is the equivalence ``D(x) ↔ D(x̂)``; for a score it is the
``Eq`` predicate of section 4.1. ``‖x − x̂‖₂ < β`` is a crisp predicate (1 inside the ball, 0
outside) on the encoded rows; ``x ≠ x̂`` is a guard (ltntorch's guarded quantification) that
leaves out rows identical to x̂. The existential quantifier is the p-mean with
``semantics.p_exists`` (p = 1: the mean over the subgroup).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import ltn
import numpy as np
import pandas as pd
import torch
from torch import nn

from cffair._support.validation import TargetKind
from cffair.errors import DataError, ParameterError
from cffair.logic._axioms import DEFAULT_SEMANTICS, Semantics, eq_score, subgroup_cf_axioms

__all__ = [
    "X_HAT_RULES",
    "QueryResult",
    "nearest_different",
    "query_person",
    "similar_different",
    "subgroup_cf",
    "witness_share",
]

#: How the person x̂ of query (2) is chosen: ``"random"``, a negatively predicted person drawn
#: at random (the user "that has received some undesired outcome" of §7.4), or ``"nearest"``,
#: the negatively predicted person whose nearest differently decided neighbour is closest
#: (which makes the query find a witness: true by construction).
X_HAT_RULES: tuple[str, ...] = ("random", "nearest")


@dataclass
class QueryResult:
    """Satisfaction of a query and, for equation (2), the closest witnesses.

    Attributes:
        sat: the query's truth value.
        rows: the closest rows of the subgroup with a different (hard) outcome within β, nearest
            first, decoded to readable values when an encoder was given (columns ``distance``,
            ``D``, ``index`` (position in the subgroup array), then the features).
        query_row: x̂ (decoded when possible) with its ``D``.
    """

    sat: float
    rows: pd.DataFrame
    query_row: pd.DataFrame


def _model_output(model: nn.Module, x: torch.Tensor) -> np.ndarray:
    with torch.no_grad():
        return model(x).double().numpy()


def similar_different(
    model: nn.Module,
    X_subgroup: Any,
    x_hat: Any,
    *,
    beta: float,
    target_kind: TargetKind = "binary",
    semantics: Semantics = DEFAULT_SEMANTICS,
    encoder: Any = None,
    k: int = 5,
    score_tolerance: float = 0.5,
) -> QueryResult:
    """Equation (2), section 4.4: ``∃x∈T_C, x≠x̂: ¬(D(x) = D(x̂)) ∧ ‖x − x̂‖₂ < β``.

    Args:
        model: the predicate network ``D``.
        X_subgroup: encoded rows of the subgroup T_C (may contain x̂ itself).
        x_hat: the encoded query row x̂.
        beta: similarity radius β in the encoded space (the paper's Table 4 uses 3 and 5).
        encoder: a fitted :class:`~cffair.datasets._encoding.Encoder` to decode rows for display.
        k: number of witnesses to return.
        score_tolerance: for a score target, a witness must differ by at least this much.
    """
    X = np.asarray(X_subgroup, dtype=np.float32)
    xh = np.asarray(x_hat, dtype=np.float32).reshape(-1)
    if X.ndim != 2 or X.shape[1] != xh.shape[0]:
        raise DataError(f"X_subgroup must be (n, {xh.shape[0]}) like x_hat, got {X.shape}.")
    if not (np.isfinite(X).all() and np.isfinite(xh).all()):
        raise DataError("the query rows contain NaN or infinite values.")
    if not beta > 0:
        raise ParameterError(f"beta must be positive, got {beta!r}.")
    xt, xht = torch.from_numpy(X), torch.from_numpy(xh)
    others = (xt != xht).any(dim=1)
    if not bool(others.any()):
        raise DataError("the subgroup has no row other than x̂; the existential query (2) has an empty domain.")

    x = ltn.Variable("x", xt)
    c = ltn.Constant(xht)
    And = ltn.Connective(semantics.and_)
    Not = ltn.Connective(semantics.not_)
    Close = ltn.Predicate(func=lambda a, b: (torch.linalg.vector_norm(a - b, dim=-1) < beta).float())
    if target_kind == "binary":
        D = ltn.Predicate(model)
        Equiv = ltn.Connective(semantics.equiv)
        same = Equiv(D(x), D(c))
    else:
        D = ltn.Function(model)
        Eq = ltn.Predicate(func=lambda a, b: eq_score(a.reshape(-1), b.reshape(-1)))
        same = Eq(D(x), D(c))
    Exists = semantics.ltn_exists()
    with torch.no_grad():
        sat = Exists(
            x, And(Not(same), Close(x, c)), cond_vars=[x], cond_fn=lambda v: (v.value != xht).any(dim=-1)
        ).value

    d = _model_output(model, xt)
    dh = float(_model_output(model, xht[None, :])[0])
    dist = torch.linalg.vector_norm(xt - xht, dim=1).double().numpy()
    differs = (d >= 0.5) != (dh >= 0.5) if target_kind == "binary" else np.abs(d - dh) >= score_tolerance
    hit = np.flatnonzero(differs & (dist < beta) & others.numpy())
    hit = hit[np.argsort(dist[hit], kind="stable")][:k]
    rows = _decoded(X[hit], encoder)
    rows.insert(0, "D", d[hit])
    rows.insert(0, "distance", dist[hit])
    rows.insert(0, "index", hit)
    q = _decoded(xh[None, :], encoder)
    q.insert(0, "D", [dh])
    return QueryResult(float(sat), rows.reset_index(drop=True), q)


def _decoded(x: np.ndarray, encoder: Any) -> pd.DataFrame:
    if encoder is None:
        return pd.DataFrame(x, columns=[f"x{i}" for i in range(x.shape[1])])
    if len(x):
        return encoder.inverse_transform(x)
    # no witness: an empty frame with the decoded columns (sklearn refuses to decode 0 rows)
    return encoder.inverse_transform(np.zeros((1, x.shape[1]), dtype=np.float32)).iloc[0:0]


def subgroup_cf(
    model: nn.Module,
    x: Any,
    x_cf: Any,
    mask: Any,
    target_kind: TargetKind = "binary",
    semantics: Semantics = DEFAULT_SEMANTICS,
    *,
    name: str = "C",
    sensitive: str = "S",
) -> float:
    """Equation (3), section 4.4: ``∀x∈T_C, ∀x′∈cf(x, S): D(x) ↔ D(x′)`` (``Eq`` for scores).

    Args:
        x, x_cf: diagonal (factual, counterfactual) pairs.
        mask: boolean mask over pairs selecting T_C (e.g. "young", "teachers").

    Evaluated through ``ltn.diag`` and ``Forall`` (the same formula as axiom A4_i).

    Raises:
        DataError: if no pair is in the subgroup (the quantifier would be NaN).
    """
    m = np.asarray(mask)
    if m.dtype != bool or m.shape != (len(np.asarray(x)),):
        raise DataError(
            f"mask must be a boolean array with one entry per pair ({len(np.asarray(x))}), got {m.dtype} {m.shape}."
        )
    if not m.any():
        raise DataError(f"subgroup {name!r} has no counterfactual pairs; query (3) over an empty set is undefined.")
    (ax,) = subgroup_cf_axioms(x, x_cf, {name: m}, target_kind, sensitive)
    with torch.no_grad():
        return float(ax.satisfaction_ltn(model, semantics))


def nearest_different(X: Any, decided: Any, chunk: int = 1024) -> np.ndarray:
    """For every row of ``X``, the Euclidean distance to the nearest row with the other
    decision (``decided`` boolean per row); ``inf`` when no row has the other decision."""
    X = np.asarray(X, dtype=np.float64)
    decided = np.asarray(decided, dtype=bool)
    if X.ndim != 2 or decided.shape != (len(X),):
        raise DataError(f"X must be (n, d) with one decision per row, got {X.shape} and {decided.shape}.")
    out = np.full(len(X), np.inf)
    for side in (True, False):
        here, there = np.flatnonzero(decided == side), X[decided != side]
        if len(here) == 0 or len(there) == 0:
            continue
        sq_there = (there**2).sum(axis=1)
        for start in range(0, len(here), chunk):
            rows = X[here[start : start + chunk]]
            d2 = (rows**2).sum(axis=1)[:, None] + sq_there[None, :] - 2 * rows @ there.T
            out[here[start : start + chunk]] = np.sqrt(np.maximum(d2.min(axis=1), 0.0))
    return out


def query_person(X_subgroup: Any, d: Any, rule: str = "random", seed: int = 0) -> int:
    """Position in ``X_subgroup`` of the person x̂ to ask query (2) for: a negatively predicted
    row (``d < 0.5``), chosen by ``rule`` (:data:`X_HAT_RULES`).

    Raises:
        DataError: if no row of the subgroup is negatively predicted.
    """
    if rule not in X_HAT_RULES:
        raise ParameterError(f"rule must be one of {', '.join(X_HAT_RULES)}, got {rule!r}.")
    d = np.asarray(d, dtype=np.float64)
    neg = np.flatnonzero(d < 0.5)
    if len(neg) == 0:
        raise DataError("no person of the subgroup is negatively predicted; query (2) needs one.")
    if rule == "random":
        return int(np.random.default_rng(seed).choice(neg))
    dist = nearest_different(X_subgroup, d >= 0.5)
    return int(neg[np.argmin(dist[neg])])


def witness_share(X_subgroup: Any, d: Any, beta: float) -> tuple[float, int]:
    """How often query (2) finds an answer: the share of the subgroup's negatively predicted
    rows that have a positively predicted row of the subgroup within β, and their number."""
    d = np.asarray(d, dtype=np.float64)
    dist = nearest_different(X_subgroup, d >= 0.5)
    neg = d < 0.5
    n = int(neg.sum())
    return (float(np.mean(dist[neg] < beta)) if n else float("nan")), n
