"""How each node is read into the flow's real space and written back, and the per-kind noise
posteriors of the discrete treatments (:class:`~cffair.causal.FlowConfig`).

* :class:`Column`: the codec of one node: integer codes for discrete kinds (category index or
  the integer itself), ``log1p`` for strongly skewed non-negative continuous columns, the
  standardisation used inside the flow.
* :func:`gumbel_posterior`: exogenous Gumbel noise consistent with an observed category
  (treatment ``categorical="gumbel"``).
* :func:`bin_point`: the abduction point of a discrete value inside its bin: the midpoint
  (treatments ``"midpoint"``, the paper's) or a uniform draw (``"sample"``).
* :func:`categorical_mlp`: the conditional categorical model of a nominal node.
* :class:`ThresholdHead`: the cumulative-logit model of a binary or ordinal node and its
  counterfactual (treatment ``ordered="threshold"``).

References:
    | A* Sampling (Maddison, Tarlow & Minka, 2014) https://arxiv.org/abs/1411.0030 :cite:p:`maddison2014`
    | Counterfactual Off-Policy Evaluation with Gumbel-Max Structural Causal Models
      (Oberst & Sontag, 2019) https://arxiv.org/abs/1905.05824 :cite:p:`oberst2019`
"""

from __future__ import annotations

__all__ = ["Column", "ThresholdHead", "bin_point", "categorical_mlp", "gumbel_posterior", "skewness"]

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
import torch
from torch import nn

from cffair.errors import ParameterError


@dataclass
class Column:
    """How one node is read into the flow's real space ``r`` and written back.

    ``r`` is the integer code of a discrete node (category index, or the integer itself) and
    the (optionally ``log1p``-ed) value of a continuous one.

    Attributes:
        name: the feature.
        kind: its ``FeatureKind`` (:mod:`cffair.datasets._spec`).
        discrete: every kind but ``continuous``.
        nominal: one-hot where it is an input (``categorical`` kind with at least 3 values).
        log: modelled as ``log1p``.
        categories: category labels of category kinds (their codes are the positions).
        lo, hi: the smallest and largest code of a discrete node (decoding clips to them).
        mean, std: standardisation of the flow input.
    """

    name: str
    kind: str
    discrete: bool
    nominal: bool
    log: bool = False
    categories: list[str] | None = None
    lo: float = 0.0
    hi: float = 0.0
    mean: float = 0.0
    std: float = 1.0

    @property
    def width(self) -> int:
        """Number of input columns (one-hot width of a nominal node, else 1)."""
        return len(self.categories) if self.nominal and self.categories else 1

    def to_r(self, col: pd.Series) -> np.ndarray:
        """Real-space values of a data column."""
        if self.categories is not None:
            return pd.Categorical(col.astype(str), categories=self.categories).codes.astype(np.float64)
        v = col.to_numpy(dtype=np.float64)
        return np.log1p(v) if self.log else v

    def value_to_r(self, value: Any) -> float:
        """Real-space value of one intervention value (a label or a number)."""
        if self.categories is not None:
            return float(self.categories.index(str(value)))
        v = float(value)
        return float(np.log1p(v)) if self.log else v

    def from_r(self, r: np.ndarray, dtype: Any) -> Any:
        """Data-space values with ``dtype``: discrete codes are floored and clipped to [lo, hi]."""
        if self.discrete:
            codes = np.clip(np.floor(r), self.lo, self.hi)
            if self.categories is not None:
                return pd.Categorical.from_codes(codes.astype(np.int64), dtype=dtype)
            return codes.astype(dtype)
        v = np.expm1(r) if self.log else r
        if self.log:
            v = np.maximum(v, 0.0)
        return v.astype(dtype)

    def midpoint(self, r: np.ndarray) -> np.ndarray:
        """Standardised flow input at the bin midpoint (discrete) or the value (continuous)."""
        return ((r + 0.5 if self.discrete else r) - self.mean) / self.std

    def standardise(self, r: np.ndarray) -> np.ndarray:
        """Standardised flow input at real-space point ``r`` (no bin offset)."""
        return (r - self.mean) / self.std


def skewness(v: np.ndarray) -> float:
    """Sample skewness ``E[((v - mean) / std)^3]`` (0 for a constant).

    Example:
        >>> round(skewness(np.array([0.0, 0.0, 0.0, 1.0])), 4)
        1.1547
    """
    s = v.std()
    return 0.0 if s == 0 else float(np.mean(((v - v.mean()) / s) ** 3))


def bin_point(codes: np.ndarray, how: str, gen: torch.Generator | None = None, edge: float = 0.0) -> np.ndarray:
    """Where inside its bin ``[c, c + 1)`` a discrete value is abducted.

    ``"midpoint"`` gives ``c + 0.5`` (the paper's deterministic choice). ``"sample"`` gives
    ``c + v`` with ``v ~ U(edge, 1 - edge)``: the flow is fitted on ``c + U(0, 1)``
    (dequantisation), so at the optimum its map is the conditional CDF, linear inside each
    bin; a uniform point of the bin is then a uniform quantile of the observed value's
    probability mass, which is the exact noise posterior of a monotone (threshold) mechanism.
    ``edge`` keeps draws off the bin's edges, where a float32 round trip could decode into the
    neighbouring bin.

    Example:
        >>> bin_point(np.array([0.0, 2.0]), "midpoint").tolist()
        [0.5, 2.5]
    """
    if how == "midpoint":
        return codes + 0.5
    if how == "sample":
        if gen is None:
            raise ParameterError("bin_point(..., 'sample') needs a torch.Generator")
        return codes + edge + (1 - 2 * edge) * torch.rand(codes.shape, generator=gen, dtype=torch.float64).numpy()
    raise ParameterError(f"unknown bin point {how!r}; use 'midpoint' or 'sample'")


def _std_gumbel(shape: Sequence[int], gen: torch.Generator) -> torch.Tensor:
    return -torch.log(-torch.log(torch.rand(tuple(shape), generator=gen, dtype=torch.float64).clamp_min(1e-300)))


def gumbel_posterior(logits: torch.Tensor, observed: torch.Tensor, gen: torch.Generator) -> torch.Tensor:
    """Gumbel noise ``g`` drawn from its posterior given ``argmax(logits + g) = observed``.

    Top-down sampling (Maddison et al. 2014): the maximum ``M`` of ``logits + g`` is
    ``Gumbel(logsumexp(logits))`` and independent of the argmax; the observed category takes
    ``M``, every other ``k`` a ``Gumbel(logits_k)`` truncated below ``M``
    (``-log(exp(-M) + exp(-G_k))``). Returns ``g`` with ``argmax(logits + g) == observed``.

    Args:
        logits: ``(n, K)`` float64.
        observed: ``(n,)`` int64 category indices.
        gen: the random generator.
    """
    g = _std_gumbel(logits.shape, gen)
    top = torch.logsumexp(logits, dim=1) + g[:, 0]
    others = logits + _std_gumbel(logits.shape, gen)
    trunc = -torch.logaddexp(-top[:, None], -others)
    trunc[torch.arange(len(observed)), observed] = top
    return trunc - logits


def categorical_mlp(width_in: int, n_categories: int, hidden: Sequence[int]) -> nn.Module:
    """An MLP from a node's parents (one-hot nominal, standardised others) to category logits."""
    layers: list[nn.Module] = []
    width = width_in
    for h in hidden:
        layers += [nn.Linear(width, h), nn.ReLU()]
        width = h
    layers.append(nn.Linear(width, n_categories))
    return nn.Sequential(*layers)


class ThresholdHead(nn.Module):
    """A cumulative-logit (threshold) model of an ordered discrete node with ``K`` values.

    ``x = k`` iff ``theta_{k-1} <= eta(pa) + e < theta_k`` with ``e ~ Logistic(0, 1)``, cuts
    ``theta_0 < ... < theta_{K-2}`` (``theta_{-1} = -inf``, ``theta_{K-1} = inf``) and the location
    ``eta`` an MLP of the parents, so ``P(x <= k | pa) = sigmoid(theta_k - eta(pa))``. The
    counterfactual keeps ``e``: it is drawn from its posterior given the observed value, a
    logistic truncated to ``[theta_{k-1} - eta, theta_k - eta)`` (:meth:`posterior`), and
    ``x' = #{k : theta_k <= eta(pa') + e}`` (:meth:`decode`). With two values this is logistic
    regression, and its counterfactual equals the Gumbel-max one.
    """

    def __init__(self, width_in: int, n_values: int, hidden: Sequence[int]) -> None:
        super().__init__()
        self.eta = categorical_mlp(width_in, 1, hidden)
        self.first = nn.Parameter(torch.tensor(-(n_values - 2) / 2.0))
        self.gaps = nn.Parameter(torch.zeros(max(n_values - 2, 0)))

    def cuts(self) -> torch.Tensor:
        """The increasing cuts ``theta`` (``K - 1`` of them)."""
        steps = nn.functional.softplus(self.gaps) + 1e-3
        return torch.cat([self.first.reshape(1), self.first + torch.cumsum(steps, 0)])

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """The location ``eta`` of each row, ``(n,)``."""
        return self.eta(x)[:, 0]

    def _bounds(self, eta: torch.Tensor, y: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        inf = torch.full((1,), math.inf, dtype=eta.dtype)
        edges = torch.cat([-inf, self.cuts().to(eta.dtype), inf])
        return edges[y] - eta, edges[y + 1] - eta

    def nll(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        """Mean negative log-likelihood of the values ``y`` (int64 codes)."""
        lo, hi = self._bounds(self(x), y)
        # log(sigmoid(hi) - sigmoid(lo)), stable: log sigmoid(hi) + log(1 - exp(logsig(lo) - logsig(hi)))
        ls_hi, ls_lo = nn.functional.logsigmoid(hi), nn.functional.logsigmoid(lo)
        return -(ls_hi + torch.log1p(-torch.exp(ls_lo - ls_hi).clamp(max=1 - 1e-7))).mean()

    def posterior(self, x: torch.Tensor, y: torch.Tensor, gen: torch.Generator) -> torch.Tensor:
        """Logistic noise ``e`` drawn from its posterior given the observed values ``y``."""
        lo, hi = self._bounds(self(x).double(), y)
        p_lo, p_hi = torch.sigmoid(lo), torch.sigmoid(hi)
        p = p_lo + (p_hi - p_lo) * torch.rand(p_lo.shape, generator=gen, dtype=torch.float64)
        return torch.logit(p.clamp(1e-15, 1 - 1e-15))

    def decode(self, x: torch.Tensor, noise: torch.Tensor) -> torch.Tensor:
        """Codes ``#{k : theta_k <= eta(pa) + e}`` for parents ``x`` and noise ``e``."""
        latent = self(x).double() + noise
        return (latent[:, None] >= self.cuts().double()[None, :]).sum(dim=1)
