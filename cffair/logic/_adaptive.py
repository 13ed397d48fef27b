r"""Axiom weights adjusted during training (section 8), against the fixed weights of appendix B.

The paper trains with fixed axiom-group weights and suggests "dynamically adjusting axiom
weights based on performance and fairness considerations". Two schedules, each a callable
``schedule(epoch, sats)`` for :meth:`cffair.learners.LTNLearner.train_stage`, which calls it
after every optimiser step with the per-formula satisfactions of that step:

* :class:`RaiseLeastSatisfied` — multiplicative weights over a set of fairness axioms (e.g. the
  subgroup axioms A4_1..n): after each step every adjusted weight is multiplied by
  ``exp(η (rᵢ − 1))`` with ``rᵢ = (1 − sᵢ) / mean_j (1 − s_j)`` its relative dissatisfaction,
  then the weights are rescaled to keep their sum. The least satisfied axiom's weight rises
  fastest; the total fairness weight stays that of the fixed schedule, so the comparison with
  fixed weights is at equal total weight. With η → 0 it is the fixed schedule.
* :class:`CFBudget` — a Lagrangian on a CF-MSE budget: maximise the accuracy axioms subject to
  ``CF-MSE(train pairs) ≤ b``. The CF axiom's weight λ is the multiplier, updated by
  multiplicative dual ascent every ``every`` steps: ``λ ← clip(λ · exp(η (c/b − 1)))`` with
  ``c`` the training pairs' CF-MSE measured on the current model: λ rises while the budget is
  exceeded and falls once it is met.

A weight lives where the knowledge base reads it: :attr:`cffair.logic._axioms.Axiom.weight` for axioms,
:attr:`cffair.logic.Term.weight` for terms (:func:`set_weight`). Each schedule keeps its
weights every ``record_every`` steps in ``history`` (epoch, name → weight).

References:
    | The Multiplicative Weights Update Method (Arora, Hazan & Kale, 2012) :cite:p:`arora2012`
    | Constrained optimization with Lagrangian multipliers for fairness: e.g. Cotter et al.
      (2019), Optimization with Non-Differentiable Constraints, https://arxiv.org/abs/1809.04198 :cite:p:`cotter2019`
"""

from __future__ import annotations

__all__ = ["CFBudget", "RaiseLeastSatisfied", "get_weight", "set_weight", "train_pair_cf_mse"]

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import torch

from cffair.errors import DataError, ParameterError
from cffair.logic._axioms import KnowledgeBase


def _formula(kb: KnowledgeBase, name: str) -> Any:
    for a in kb.axioms:
        if a.name == name:
            return a
    for t in getattr(kb, "terms", []):
        if t.name == name:
            return t
    raise KeyError(f"no axiom or term named {name!r}; the knowledge base has {kb.names}.")


def get_weight(kb: KnowledgeBase, name: str) -> float:
    """The own weight of the axiom or term ``name`` (before its group weight)."""
    return float(_formula(kb, name).weight)


def set_weight(kb: KnowledgeBase, name: str, weight: float) -> None:
    """Set the own weight of the axiom or term ``name``; read by the next evaluation."""
    if not (math.isfinite(weight) and weight >= 0):
        raise ParameterError(f"a weight must be a finite number >= 0, got {weight!r}.")
    _formula(kb, name).weight = float(weight)


def _positions(kb: KnowledgeBase, names: Sequence[str]) -> list[int]:
    where = {n: i for i, n in enumerate(kb.names)}
    missing = [n for n in names if n not in where]
    if missing:
        raise KeyError(f"formula(s) {missing} are not in the knowledge base; it has {kb.names}.")
    return [where[n] for n in names]


class RaiseLeastSatisfied:
    """Multiplicative weights on ``names``: the least satisfied axiom gains weight each step.

    Args:
        kb: the knowledge base being trained (its weights are changed in place).
        names: the axioms (or terms) whose weights adapt, e.g. every A4_i.
        eta: step size η (0: the fixed schedule).
        max_ratio: no weight exceeds ``max_ratio`` times the mean adjusted weight.
        record_every: keep the weights in ``history`` every this many steps.
    """

    def __init__(
        self,
        kb: KnowledgeBase,
        names: Sequence[str],
        eta: float = 0.02,
        max_ratio: float = 20.0,
        record_every: int = 10,
    ) -> None:
        if not names:
            raise ParameterError("RaiseLeastSatisfied needs at least one axiom name to adjust.")
        if not (math.isfinite(eta) and eta >= 0):
            raise ParameterError(f"eta must be a finite number >= 0, got {eta!r}.")
        if not max_ratio >= 1:
            raise ParameterError(f"max_ratio must be >= 1, got {max_ratio!r}.")
        self.kb, self.names, self.eta, self.max_ratio, self.record_every = (
            kb,
            list(names),
            float(eta),
            float(max_ratio),
            int(record_every),
        )
        self.total = sum(get_weight(kb, n) for n in self.names)
        self.history: list[dict[str, float]] = []

    def __call__(self, epoch: int, sats: torch.Tensor) -> None:
        pos = _positions(self.kb, self.names)
        err = np.clip(1.0 - sats[pos].double().numpy(), 1e-12, None)
        rel = err / err.mean()
        w = np.array([get_weight(self.kb, n) for n in self.names]) * np.exp(self.eta * (rel - 1.0))
        w = w / w.sum() * self.total
        w = np.minimum(w, self.max_ratio * self.total / len(w))
        w = w / w.sum() * self.total
        for n, wi in zip(self.names, w, strict=True):
            set_weight(self.kb, n, float(wi))
        if epoch % self.record_every == 0:
            self.history.append({"epoch": int(epoch), **{n: float(wi) for n, wi in zip(self.names, w, strict=True)}})


def train_pair_cf_mse(model: torch.nn.Module, x: Any, x_cf: Any) -> Callable[[], float]:
    """A function measuring the CF-MSE ``mean (D(x) − D(x′))²`` of the current model on fixed pairs."""
    xt = torch.as_tensor(np.asarray(x, dtype=np.float32))
    xc = torch.as_tensor(np.asarray(x_cf, dtype=np.float32))
    if xt.shape != xc.shape or len(xt) == 0:
        raise DataError(
            f"pairs must be two non-empty arrays of the same shape, got {tuple(xt.shape)} and {tuple(xc.shape)}."
        )

    def measure() -> float:
        with torch.no_grad():
            return float(((model(xt) - model(xc)) ** 2).mean())

    return measure


class CFBudget:
    """Multiplicative dual ascent on the weight λ of ``name`` for the constraint ``measure() ≤ budget``.

    Args:
        kb: the knowledge base being trained.
        name: the fairness axiom whose weight is the multiplier (``"A4"``).
        measure: returns the constrained quantity on the current model (:func:`train_pair_cf_mse`).
        budget: the bound b (> 0).
        eta: step size η of ``λ ← λ · exp(η (c/b − 1))``.
        every: measure and update every this many steps.
        bounds: λ stays within these.
        record_every: keep (epoch, λ, measured value) in ``history`` every this many steps.
    """

    def __init__(
        self,
        kb: KnowledgeBase,
        name: str,
        measure: Callable[[], float],
        budget: float,
        eta: float = 0.05,
        *,
        every: int = 5,
        bounds: tuple[float, float] = (1e-2, 1e2),
        record_every: int = 10,
    ) -> None:
        if not (math.isfinite(budget) and budget > 0):
            raise ParameterError(f"the budget must be a positive number, got {budget!r}.")
        if not (math.isfinite(eta) and eta >= 0):
            raise ParameterError(f"eta must be a finite number >= 0, got {eta!r}.")
        if not (0 < bounds[0] <= bounds[1]):
            raise ParameterError(f"bounds must satisfy 0 < low <= high, got {bounds!r}.")
        _positions(kb, [name])
        self.kb, self.name, self.measure, self.budget, self.eta = kb, name, measure, float(budget), float(eta)
        self.every, self.bounds, self.record_every = int(every), bounds, int(record_every)
        self.history: list[dict[str, float]] = []
        self.last: float | None = None

    @property
    def lam(self) -> float:
        """The current multiplier λ (the weight of the constrained axiom)."""
        return get_weight(self.kb, self.name)

    def __call__(self, epoch: int, sats: torch.Tensor) -> None:
        if epoch % self.every:
            return
        c = self.measure()
        self.last = c
        lam = float(np.clip(self.lam * math.exp(self.eta * (c / self.budget - 1.0)), *self.bounds))
        set_weight(self.kb, self.name, lam)
        if epoch % self.record_every == 0:
            self.history.append({"epoch": int(epoch), self.name: lam, "measured": c})
