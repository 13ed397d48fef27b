"""Causal normalising flows for counterfactuals (paper sections 2.2 and 6.2; Javaloy et al. 2023).

A causal normalising flow is a masked autoregressive flow ``u = T(x)`` whose masks follow the
causal graph: with one transform, ``u_i`` depends only on ``x_i`` and the parents of ``i``, so
``T`` is a learned structural causal model with exogenous noise ``u``. A counterfactual for
``do(x_j := v)`` is computed in the three classic steps:

1. *abduction*: ``u = T(x)``;
2. *action*: set ``x_j := v`` (in the single-transform flow this equals replacing ``u_j`` by
   the ``j``-th output of ``T`` applied to a copy of ``x`` with ``x_j = v``);
3. *prediction*: ``x' = T^{-1}(u)`` with the new ``x_j``; non-descendants of ``j`` are copied
   from ``x`` exactly and ``x'_j = v``.

Choices (each a :class:`FlowConfig` field, shown again on the book's method page):

* **Target outside the flow.** The flow models the features only, so it can be fitted once per
  dataset on every row without any label leakage (our recommended default, used by
  :func:`generate`): the counterfactuals of a fold's test rows then come from a model that has
  seen those rows' features but never any target.
* **Discrete columns** (``integer``, ``binary``, ``ordinal``, ``categorical``) are integer codes
  with uniform dequantisation ``c + U(0, 1)`` in training; abduction reads the bin midpoint
  ``c + 0.5``, interventions are placed at ``v + 0.5`` (a bin edge would double the error) and
  decoding floors and clips to the observed range. Every column is standardised inside the
  model; non-negative, strongly skewed continuous columns (Adult's capital gain/loss) are
  modelled as ``log1p`` (``log_skewed``).
* **Root nodes as context** (``root_context=True``, default): parentless nodes are not
  transformed but condition the flow (nominal roots one-hot), which was more accurate on a
  synthetic SCM (see ``tests/test_causal_flow.py`` and the report in the book).
* **Nominal categoricals** (``categorical="gumbel"``): integer codes impose an order on
  nominal values, so that a counterfactual moves to "neighbouring" codes (a sex flip turns
  "Husband" into "Not-in-family" rather than "Wife"). With ``"gumbel"`` each non-root nominal
  node gets its own conditional categorical model (an MLP on its parents with a softmax) and a
  Gumbel-max counterfactual: Gumbel noise consistent with the observed category is abducted
  (``cf_samples`` draws per row) and the counterfactual category is
  ``argmax_k(logit'_k + g_k)``. The flow is kept for every other node. Default: ``"flow"``,
  the paper's (faithful) treatment.
* **Training**: Adam, the paper's 1000 epochs of batch 256 and hidden layers [32, 32, 32]
  (Javaloy et al.'s settings), a learning rate halved when the validation loss stalls,
  best-by-validation checkpoint; early stopping after ``patience`` epochs without improvement
  (``patience=None`` runs every epoch, as the paper).
"""

from __future__ import annotations

import copy
import hashlib
import math
import os
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

import numpy as np
import pandas as pd
import torch
from torch import nn

from cffair.causal.cfset import CounterfactualSet
from cffair.causal.graph import CausalGraph
from cffair.causal.interventions import Intervention, resolve
from cffair.errors import CounterfactualError

#: Bumped whenever a change here changes generated counterfactuals (part of the cache key).
GENERATOR_VERSION = "cnf-1"


# ---------------------------------------------------------------------------- config
@dataclass(frozen=True)
class FlowConfig:
    """Hyper-parameters of the causal normalising flow (paper section 6.2).

    Attributes:
        flow: ``"maf"`` (affine masked autoregressive) or ``"nsf"`` (rational-quadratic spline).
        transforms: number of autoregressive transforms (paper: 1; more than one loses the
            one-to-one link between ``u_i`` and node ``i`` and disables ``"gumbel"``).
        hidden: hidden layers of the masked MLP (paper: [32, 32, 32]).
        batch_size: paper: 256.
        epochs: maximum epochs (paper: 1000).
        lr: initial Adam learning rate, multiplied by ``lr_factor`` after ``lr_patience``
            epochs without a better validation loss.
        patience: stop after this many epochs without a better validation loss; ``None``
            trains all ``epochs`` (the paper). The best-by-validation weights are kept either way.
        min_delta: an improvement smaller than this does not reset ``patience``.
        val_fraction: share of rows held out for validation (seeded).
        root_context: condition on root nodes instead of transforming them.
        categorical: ``"flow"`` (integer codes, the paper) or ``"gumbel"`` (a conditional
            categorical with Gumbel-max counterfactuals for non-root nominal nodes).
        cf_samples: counterfactual draws per row and intervention with ``"gumbel"``
            (the flow alone is deterministic and always draws one).
        log_skewed: model non-negative continuous columns with skewness above 5 as ``log1p``.
        nsf_bins: spline bins for ``flow="nsf"``.
    """

    flow: Literal["maf", "nsf"] = "maf"
    transforms: int = 1
    hidden: tuple[int, ...] = (32, 32, 32)
    batch_size: int = 256
    epochs: int = 1000
    lr: float = 1e-3
    lr_factor: float = 0.5
    lr_patience: int = 8
    patience: int | None = 20
    min_delta: float = 1e-4
    val_fraction: float = 0.1
    root_context: bool = True
    categorical: Literal["flow", "gumbel"] = "flow"
    cf_samples: int = 4
    log_skewed: bool = True
    nsf_bins: int = 8

    def __post_init__(self) -> None:
        if self.flow not in ("maf", "nsf"):
            raise CounterfactualError(f"flow must be 'maf' or 'nsf', got {self.flow!r}.")
        if self.categorical not in ("flow", "gumbel"):
            raise CounterfactualError(f"categorical must be 'flow' or 'gumbel', got {self.categorical!r}.")
        if self.transforms < 1:
            raise CounterfactualError(f"transforms must be at least 1, got {self.transforms}.")
        if self.categorical == "gumbel" and self.transforms != 1:
            raise CounterfactualError("categorical='gumbel' needs transforms=1 (one noise variable per node).")
        if not 0 < self.val_fraction < 1:
            raise CounterfactualError(f"val_fraction must lie in (0, 1), got {self.val_fraction}.")
        if self.epochs < 1 or self.batch_size < 1 or self.cf_samples < 1:
            raise CounterfactualError("epochs, batch_size and cf_samples must be positive.")

    @classmethod
    def from_dict(cls, raw: Mapping[str, Any] | FlowConfig | None) -> FlowConfig:
        """From a mapping (unknown keys are an error) or a config; ``None`` gives the defaults."""
        if raw is None:
            return cls()
        if isinstance(raw, FlowConfig):
            return raw
        unknown = set(raw) - set(cls.__dataclass_fields__)
        if unknown:
            raise CounterfactualError(f"unknown flow config key(s) {sorted(unknown)}; allowed: {sorted(cls.__dataclass_fields__)}.")
        args = dict(raw)
        if "hidden" in args:
            args["hidden"] = tuple(int(h) for h in args["hidden"])
        return cls(**args)

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["hidden"] = list(self.hidden)
        return d


# ---------------------------------------------------------------------------- columns
@dataclass
class _Column:
    """How one node is read into the flow's real space ``r`` and written back.

    ``r`` is the integer code of a discrete node (category index, or the integer itself) and
    the (optionally ``log1p``-ed) value of a continuous one.
    """

    name: str
    kind: str
    discrete: bool
    nominal: bool  # one-hot where it is an input (categorical kind with >= 3 values)
    log: bool = False
    categories: list[str] | None = None
    lo: float = 0.0
    hi: float = 0.0
    mean: float = 0.0
    std: float = 1.0

    @property
    def width(self) -> int:
        return len(self.categories) if self.nominal and self.categories else 1

    def to_r(self, col: pd.Series) -> np.ndarray:
        if self.categories is not None:
            return pd.Categorical(col.astype(str), categories=self.categories).codes.astype(np.float64)
        v = col.to_numpy(dtype=np.float64)
        return np.log1p(v) if self.log else v

    def value_to_r(self, value: Any) -> float:
        if self.categories is not None:
            return float(self.categories.index(str(value)))
        v = float(value)
        return float(np.log1p(v)) if self.log else v

    def from_r(self, r: np.ndarray, dtype: Any) -> Any:
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


def _skew(v: np.ndarray) -> float:
    s = v.std()
    return 0.0 if s == 0 else float(np.mean(((v - v.mean()) / s) ** 3))


# ---------------------------------------------------------------------------- the model
class CausalFlow:
    """A causal normalising flow over a dataset's features, with counterfactuals (section 2.2).

    Args:
        spec: the :class:`~cffair.datasets.DatasetSpec` (feature kinds; the target is ignored).
        graph: the causal graph; default ``spec.load_graph()``.
        config: a :class:`FlowConfig` or mapping.

    Example:
        >>> frame, spec = cffair.datasets.load("lawschool")          # doctest: +SKIP
        >>> cnf = CausalFlow(spec).fit(frame, seed=0)                 # doctest: +SKIP
        >>> cf = cnf.counterfactual(frame, "sex", "Male")             # doctest: +SKIP
    """

    def __init__(self, spec: Any, graph: CausalGraph | None = None, config: FlowConfig | Mapping[str, Any] | None = None):
        self.spec = spec
        self.graph = (graph if graph is not None else spec.load_graph()).with_isolated(spec.features)
        self.graph.validate(spec.features)
        self.config = FlowConfig.from_dict(config)
        self.nodes: list[str] = list(self.graph.topological_order)
        has_children = {a for a, _ in self.graph.edges}
        if self.config.root_context:
            roots = set(self.graph.roots)
            self.context_nodes = [n for n in self.nodes if n in roots and n in has_children]
            self.passive_nodes = [n for n in self.nodes if n in roots and n not in has_children]
            self.flow_nodes = [n for n in self.nodes if n not in roots]
        else:
            self.context_nodes, self.passive_nodes, self.flow_nodes = [], [], list(self.nodes)
        self.gumbel_nodes = [
            n for n in self.flow_nodes if self.config.categorical == "gumbel" and spec.features[n] == "categorical"
        ]
        self.columns: dict[str, _Column] = {}
        self.flow: nn.Module | None = None
        self.classifiers: nn.ModuleDict = nn.ModuleDict()
        self.history: list[dict[str, float]] = []
        self.best_epoch: int = -1
        self.fit_seconds: float = 0.0
        self._dtypes: dict[str, Any] = {}

    # ------------------------------------------------------------------ layout
    def _fit_columns(self, frame: pd.DataFrame) -> None:
        for n in self.nodes:
            kind = self.spec.features[n]
            col = frame[n]
            discrete = kind != "continuous"
            cats = [str(c) for c in col.cat.categories] if isinstance(col.dtype, pd.CategoricalDtype) else None
            c = _Column(n, kind, discrete, nominal=(kind == "categorical" and cats is not None and len(cats) >= 3), categories=cats)
            if kind == "continuous" and self.config.log_skewed:
                v = col.to_numpy(dtype=np.float64)
                c.log = bool(v.min() >= 0 and _skew(v) > 5)
            r = c.to_r(col)
            if discrete:
                c.lo, c.hi = (0.0, float(len(cats) - 1)) if cats is not None else (float(r.min()), float(r.max()))
            mid = r + 0.5 if discrete else r
            c.mean, c.std = float(mid.mean()), float(mid.std()) or 1.0
            self.columns[n] = c
            self._dtypes[n] = col.dtype

    def _r_state(self, frame: pd.DataFrame) -> np.ndarray:
        """``(n, n_nodes)`` real-space values in topological node order."""
        return np.column_stack([self.columns[n].to_r(frame[n]) for n in self.nodes]).astype(np.float64)

    def _rep(self, name: str, r: np.ndarray) -> np.ndarray:
        """A node as an input (context or classifier): one-hot if nominal, else standardised midpoint."""
        c = self.columns[name]
        if c.nominal:
            out = np.zeros((len(r), c.width), dtype=np.float64)
            out[np.arange(len(r)), np.clip(r, c.lo, c.hi).astype(np.int64)] = 1.0
            return out
        return c.midpoint(r)[:, None]

    def _context(self, R: np.ndarray) -> torch.Tensor | None:
        if not self.context_nodes:
            return None
        idx = {n: i for i, n in enumerate(self.nodes)}
        return torch.as_tensor(np.concatenate([self._rep(n, R[:, idx[n]]) for n in self.context_nodes], axis=1), dtype=torch.float32)

    def _flow_input(self, R: np.ndarray) -> torch.Tensor:
        idx = {n: i for i, n in enumerate(self.nodes)}
        return torch.as_tensor(np.column_stack([self.columns[n].midpoint(R[:, idx[n]]) for n in self.flow_nodes]), dtype=torch.float32)

    def _classifier_input(self, node: str, R: np.ndarray) -> torch.Tensor:
        idx = {n: i for i, n in enumerate(self.nodes)}
        parts = [self._rep(p, R[:, idx[p]]) for p in self.graph.parents(node)]
        if not parts:
            return torch.zeros((len(R), 1), dtype=torch.float32)
        return torch.as_tensor(np.concatenate(parts, axis=1), dtype=torch.float32)

    def adjacency(self) -> np.ndarray:
        """The flow's mask: ``(F, F + C)`` booleans, rows = flow nodes (outputs), columns = flow
        nodes then context columns (inputs); the diagonal is set (zuko's convention)."""
        a = self.graph.adjacency(self.nodes, diagonal=True)
        idx = {n: i for i, n in enumerate(self.nodes)}
        f_idx = [idx[n] for n in self.flow_nodes]
        blocks = [a[np.ix_(f_idx, f_idx)]]
        for n in self.context_nodes:
            col = a[f_idx, idx[n]][:, None]
            blocks.append(np.repeat(col, self.columns[n].width, axis=1))
        return np.concatenate(blocks, axis=1)

    @property
    def context_width(self) -> int:
        return sum(self.columns[n].width for n in self.context_nodes)

    def _build(self) -> None:
        import zuko
        from zuko.flows.autoregressive import MaskedAutoregressiveTransform
        from zuko.flows.gaussianization import ElementWiseTransform
        from zuko.transforms import MonotonicRQSTransform

        F, C = len(self.flow_nodes), self.context_width
        if F == 0:
            self.flow = None
        else:
            if self.config.flow == "nsf":
                b = self.config.nsf_bins
                uni: dict[str, Any] = {"univariate": MonotonicRQSTransform, "shapes": [(b,), (b,), (b - 1,)]}
            else:
                uni = {}
            adj = torch.as_tensor(self.adjacency())
            transforms = []
            for _ in range(self.config.transforms):
                if F == 1:
                    transforms.append(ElementWiseTransform(1, C, hidden_features=self.config.hidden, **uni))
                else:
                    transforms.append(
                        MaskedAutoregressiveTransform(F, C, adjacency=adj, hidden_features=self.config.hidden, **uni)
                    )
            base = zuko.lazy.UnconditionalDistribution(
                zuko.distributions.DiagNormal, loc=torch.zeros(F), scale=torch.ones(F), buffer=True
            )
            self.flow = zuko.lazy.Flow(transforms, base)
        self.classifiers = nn.ModuleDict()
        for n in self.gumbel_nodes:
            width = sum(self.columns[p].width for p in self.graph.parents(n)) or 1
            layers: list[nn.Module] = []
            for h in self.config.hidden[:2]:
                layers += [nn.Linear(width, h), nn.ReLU()]
                width = h
            layers.append(nn.Linear(width, self.columns[n].width))
            self.classifiers[n] = nn.Sequential(*layers)

    # ------------------------------------------------------------------ fitting
    def fit(self, frame: pd.DataFrame, seed: int = 0, progress: bool = False) -> CausalFlow:
        """Fit by maximum likelihood on ``frame``'s features (section 6.2's settings).

        Deterministic for a given frame, config and seed (one torch thread).
        """
        from cffair.utils import seed_everything, torch_cpu_setup

        torch_cpu_setup()
        seed_everything(seed)
        t0 = time.perf_counter()
        self._fit_columns(frame)
        self._build()
        R = self._r_state(frame)
        n = len(R)
        gen = torch.Generator().manual_seed(seed)
        perm = torch.randperm(n, generator=gen).numpy()
        n_val = max(1, int(round(n * self.config.val_fraction)))
        val, train = perm[:n_val], perm[n_val:]
        idx = {nm: i for i, nm in enumerate(self.nodes)}
        f_idx = [idx[nm] for nm in self.flow_nodes]
        dmask = torch.tensor([self.columns[nm].discrete for nm in self.flow_nodes], dtype=torch.float32)
        mean = torch.tensor([self.columns[nm].mean for nm in self.flow_nodes], dtype=torch.float32)
        std = torch.tensor([self.columns[nm].std for nm in self.flow_nodes], dtype=torch.float32)
        Rf = torch.as_tensor(R[:, f_idx], dtype=torch.float32)
        ctx = self._context(R)
        clf_in = {nm: self._classifier_input(nm, R) for nm in self.gumbel_nodes}
        clf_y = {nm: torch.as_tensor(R[:, idx[nm]], dtype=torch.int64) for nm in self.gumbel_nodes}
        val_noise = torch.rand((len(val), len(self.flow_nodes)), generator=gen)

        params = list(self.classifiers.parameters()) + (list(self.flow.parameters()) if self.flow is not None else [])
        if not params:  # nothing to learn (every node is a root)
            self.fit_seconds = time.perf_counter() - t0
            return self
        opt = torch.optim.Adam(params, lr=self.config.lr)
        sched = torch.optim.lr_scheduler.ReduceLROnPlateau(opt, factor=self.config.lr_factor, patience=self.config.lr_patience)

        def loss_on(rows: np.ndarray, noise: torch.Tensor) -> torch.Tensor:
            loss = torch.zeros(())
            if self.flow is not None:
                z = (Rf[rows] + noise * dmask - mean) / std
                c = None if ctx is None else ctx[rows]
                loss = loss - self.flow(c).log_prob(z).mean()
            for nm in self.gumbel_nodes:
                loss = loss + nn.functional.cross_entropy(self.classifiers[nm](clf_in[nm][rows]), clf_y[nm][rows])
            return loss

        best, best_state, stale = math.inf, None, 0
        bar = _progress(range(self.config.epochs), progress, desc=f"flow {self.spec.name}")
        for epoch in bar:
            self._train_mode(True)
            order = train[torch.randperm(len(train), generator=gen).numpy()]
            total = 0.0
            for start in range(0, len(order), self.config.batch_size):
                rows = order[start : start + self.config.batch_size]
                noise = torch.rand((len(rows), len(self.flow_nodes)), generator=gen)
                loss = loss_on(rows, noise)
                opt.zero_grad()
                loss.backward()
                opt.step()
                total += float(loss.detach()) * len(rows)
            self._train_mode(False)
            with torch.no_grad():
                v = float(loss_on(val, val_noise))
            sched.step(v)
            self.history.append({"epoch": epoch, "train": total / len(order), "val": v, "lr": opt.param_groups[0]["lr"]})
            if hasattr(bar, "set_postfix"):
                bar.set_postfix(val=f"{v:.4f}", best=f"{min(best, v):.4f}")
            if v < best - self.config.min_delta:
                best, stale, self.best_epoch = v, 0, epoch
                best_state = self._state()
            else:
                stale += 1
                if self.config.patience is not None and stale >= self.config.patience:
                    break
        if best_state is not None:
            self._load_state(best_state)
        self._train_mode(False)
        self.fit_seconds = time.perf_counter() - t0
        return self

    def _train_mode(self, on: bool) -> None:
        for m in ([self.flow] if self.flow is not None else []) + [self.classifiers]:
            m.train(on)

    def _state(self) -> dict[str, Any]:
        return {
            "flow": copy.deepcopy(self.flow.state_dict()) if self.flow is not None else None,
            "clf": copy.deepcopy(self.classifiers.state_dict()),
        }

    def _load_state(self, state: dict[str, Any]) -> None:
        if self.flow is not None:
            self.flow.load_state_dict(state["flow"])
        self.classifiers.load_state_dict(state["clf"])

    # ------------------------------------------------------------------ the flow's map
    def _check_fitted(self) -> None:
        if not self.columns:
            raise CounterfactualError("the causal flow is not fitted yet; call fit(frame) first.")

    def transform(self, z: torch.Tensor, context: torch.Tensor | None = None) -> torch.Tensor:
        """``u = T(z)`` on standardised flow inputs (rows = samples, columns = flow nodes)."""
        assert self.flow is not None
        return self.flow.transform(context)(z)

    def inverse(self, u: torch.Tensor, context: torch.Tensor | None = None) -> torch.Tensor:
        """``z = T^{-1}(u)``."""
        assert self.flow is not None
        return self.flow.transform(context).inv(u)

    def encode(self, frame: pd.DataFrame) -> tuple[torch.Tensor, torch.Tensor | None]:
        """Standardised flow inputs (discrete values at their bin midpoints) and the context."""
        self._check_fitted()
        R = self._r_state(frame)
        return self._flow_input(R), self._context(R)

    def abduct(self, frame: pd.DataFrame) -> np.ndarray:
        """The exogenous noise ``u = T(x)`` of each row (columns = :attr:`flow_nodes`)."""
        self._check_fitted()
        if self.flow is None:
            return np.zeros((len(frame), 0), dtype=np.float32)
        z, c = self.encode(frame)
        with torch.no_grad():
            return self.transform(z, c).numpy()

    def log_prob(self, frame: pd.DataFrame) -> float:
        """Mean log-density of the rows' flow inputs (at bin midpoints) under the fitted flow."""
        z, c = self.encode(frame)
        with torch.no_grad():
            return float(self.flow(c).log_prob(z).mean()) if self.flow is not None else 0.0

    # ------------------------------------------------------------------ counterfactuals
    def _gumbel_noise(self, node: str, R: np.ndarray, gen: torch.Generator) -> torch.Tensor:
        """Gumbel noise ``g`` with ``argmax(logits + g)`` equal to the observed category
        (top-down truncated-Gumbel sampling, Oberst & Sontag 2019)."""
        idx = self.nodes.index(node)
        with torch.no_grad():
            logits = self.classifiers[node](self._classifier_input(node, R)).double()
        obs = torch.as_tensor(R[:, idx], dtype=torch.int64)
        g = -torch.log(-torch.log(torch.rand(logits.shape, generator=gen, dtype=torch.float64).clamp_min(1e-300)))
        top = torch.logsumexp(logits, dim=1) + g[:, 0]  # the max of logits + noise
        others = logits + -torch.log(-torch.log(torch.rand(logits.shape, generator=gen, dtype=torch.float64).clamp_min(1e-300)))
        trunc = -torch.logaddexp(-top[:, None], -others)  # Gumbel(logit_k) truncated below top
        trunc[torch.arange(len(obs)), obs] = top
        return trunc - logits

    def counterfactual(
        self,
        frame: pd.DataFrame,
        feature: str,
        value: Any,
        samples: int | None = None,
        seed: int = 0,
    ) -> tuple[pd.DataFrame, np.ndarray, np.ndarray]:
        """Counterfactual rows for ``do(feature := value)`` (section 2.2), in data space.

        Args:
            frame: factual rows (readable, with the dataset's dtypes).
            feature: the intervened feature.
            value: a category label or a number.
            samples: draws per row (``"gumbel"`` only; default ``config.cf_samples``).
            seed: seed of the Gumbel draws.

        Returns:
            ``(counterfactual_frame, row_index, sample)``: the frame has the spec's feature
            columns with ``frame``'s dtypes; ``row_index`` are positions in ``frame``.
            Non-descendants of ``feature`` are copied exactly and ``feature`` equals ``value``.
        """
        self._check_fitted()
        if feature not in self.columns:
            raise CounterfactualError(f"cannot intervene on {feature!r}: it is not a feature of {self.spec.name!r} ({self.nodes}).")
        col = self.columns[feature]
        if col.categories is not None and str(value) not in col.categories:
            raise CounterfactualError(f"{value!r} is not a value of {feature!r}; its values are {col.categories}.")
        S = (samples or self.config.cf_samples) if self.gumbel_nodes else 1
        n = len(frame)
        row_index = np.tile(np.arange(n), S)
        sample = np.repeat(np.arange(S), n)
        R = np.tile(self._r_state(frame), (S, 1))
        idx = {nm: i for i, nm in enumerate(self.nodes)}
        desc = list(self.graph.descendants(feature))
        Rn = R.copy()
        Rn[:, idx[feature]] = col.value_to_r(value)
        if desc:
            gen = torch.Generator().manual_seed(int(seed))
            noise = {nm: self._gumbel_noise(nm, R, gen) for nm in self.gumbel_nodes if nm in desc}
            with torch.no_grad():
                Rn = self._predict(R, Rn, feature, desc, noise)
        out = {}
        factual = frame.iloc[row_index].reset_index(drop=True)
        for nm in self.spec.features:
            if nm in desc:
                out[nm] = self.columns[nm].from_r(Rn[:, idx[nm]], self._dtypes[nm])
            elif nm == feature:
                out[nm] = _constant(factual[nm], value)
            else:
                out[nm] = factual[nm].to_numpy() if not isinstance(factual[nm].dtype, pd.CategoricalDtype) else factual[nm].array
        return pd.DataFrame(out)[list(self.spec.features)], row_index, sample

    def _predict(self, R: np.ndarray, Rn: np.ndarray, feature: str, desc: list[str], noise: Mapping[str, torch.Tensor]) -> np.ndarray:
        """Prediction step: recompute the descendants of ``feature`` in topological order."""
        idx = {nm: i for i, nm in enumerate(self.nodes)}
        f_pos = {nm: i for i, nm in enumerate(self.flow_nodes)}
        u = self.transform(self._flow_input(R), self._context(R))  # abduction at bin midpoints
        ctx_new = self._context(Rn)
        if self.config.transforms > 1:
            # general path: u_j from T(copy with x_j = v), x' = T^{-1}(u), then re-quantise
            if feature in f_pos:
                u = u.clone()
                u[:, f_pos[feature]] = self.transform(self._flow_input(Rn), self._context(R))[:, f_pos[feature]]
            z = self.inverse(u, ctx_new).double().numpy()
            for nm in desc:
                c = self.columns[nm]
                Rn[:, idx[nm]] = self._quantise(c, z[:, f_pos[nm]] * c.std + c.mean)
            return Rn
        t = self.flow.transform.transforms[0] if self.flow is not None else None
        for nm in desc:  # topological order: every parent is final before its child
            c = self.columns[nm]
            if nm in noise:
                logits = self.classifiers[nm](self._classifier_input(nm, Rn)).double()
                Rn[:, idx[nm]] = torch.argmax(logits + noise[nm], dim=1).numpy().astype(np.float64)
                continue
            z_cur = self._flow_input(Rn)
            step = t.meta(ctx_new, z_cur) if hasattr(t, "meta") else t(ctx_new)
            zi = step.inv(u)[:, f_pos[nm]].double().numpy()
            Rn[:, idx[nm]] = self._quantise(c, zi * c.std + c.mean)
        return Rn

    @staticmethod
    def _quantise(c: _Column, r: np.ndarray) -> np.ndarray:
        return np.clip(np.floor(r), c.lo, c.hi) if c.discrete else r

    # ------------------------------------------------------------------ persistence
    def save(self, path: str | Path) -> None:
        """Pickle the fitted model (torch format) atomically."""
        from cffair.utils import atomic_path

        with atomic_path(path) as tmp:
            torch.save(self, tmp)

    @staticmethod
    def load(path: str | Path) -> CausalFlow:
        """Read a model written by :meth:`save` (a trusted file of your own cache)."""
        return torch.load(path, weights_only=False)


def _constant(like: pd.Series, value: Any) -> Any:
    if isinstance(like.dtype, pd.CategoricalDtype):
        return pd.Categorical([str(value)] * len(like), dtype=like.dtype)
    return np.full(len(like), value, dtype=like.dtype)


def _progress(it: Iterable[Any], on: bool, **kw: Any) -> Any:
    if not on:
        return it
    from tqdm.auto import tqdm

    return tqdm(it, **kw)


# ---------------------------------------------------------------------------- generation
def cache_dir(path: str | Path | None = None) -> Path:
    """The cache folder: ``path``, else ``$CFFAIR_CACHE``, else ``~/.cache/cffair``."""
    if path is not None:
        return Path(path)
    return Path(os.environ.get("CFFAIR_CACHE") or Path.home() / ".cache" / "cffair")


_cache_root = cache_dir  # generate() has a parameter of the same name


def _source_version() -> str:
    """Hash of this module's source and the interventions module (so edits invalidate caches)."""
    from cffair.causal import cfset, interventions

    h = hashlib.sha256()
    for mod in (__file__, interventions.__file__, cfset.__file__):
        h.update(Path(mod).read_bytes())
    return f"{GENERATOR_VERSION}-{h.hexdigest()[:10]}"


def fit_flow(
    dataset: Any,
    config: FlowConfig | Mapping[str, Any] | None = None,
    seed: int = 0,
    cache: str | Path | None | Literal[False] = None,
    progress: bool = True,
) -> CausalFlow:
    """Fit (or load from the cache) the causal flow of a dataset on all its rows' features.

    The flow never sees the target, so fitting it once per dataset on every row leaks no label
    (the recommended default; see the module docstring). ``cache=False`` disables the cache.
    """
    from cffair import __version__
    from cffair.datasets import frame_hash
    from cffair.utils import stable_hash

    frame, spec = _as_dataset(dataset)
    cfg = FlowConfig.from_dict(config)
    graph = spec.load_graph()
    key = stable_hash("flow", frame_hash(frame[spec.feature_names]), graph.to_dict(), cfg.to_dict(), seed, _source_version(), __version__)
    path = None if cache is False else cache_dir(cache) / "flows" / f"{spec.name}-{key}.pt"
    if path is not None and path.exists():
        return CausalFlow.load(path)
    model = CausalFlow(spec, graph, cfg).fit(frame, seed=seed, progress=progress)
    if path is not None:
        model.save(path)
    return model


def generate(
    dataset: Any,
    interventions: str | Sequence[str] | Mapping[str, Iterable[Any]] = "sensitive",
    config: FlowConfig | Mapping[str, Any] | None = None,
    seed: int = 0,
    cache_dir: str | Path | None | Literal[False] = None,
    progress: bool = True,
) -> CounterfactualSet:
    """Counterfactuals of every row of a dataset from its causal normalising flow (section 6.2).

    Args:
        dataset: a dataset name (``"adult"``) or a :class:`~cffair.datasets.Dataset`.
        interventions: ``"sensitive"``, ``"immutable"``, ``"all"``, a list of features, or
            ``{feature: [values]}`` (see :func:`cffair.causal.interventions.resolve`).
        config: :class:`FlowConfig` or mapping.
        seed: seeds the flow's training and the Gumbel draws.
        cache_dir: cache folder (default ``$CFFAIR_CACHE`` or ``~/.cache/cffair``); ``False``
            disables caching. The key hashes the data, graph, config, seed, interventions and
            this module's source, so a repeated call returns instantly from disk.
        progress: show tqdm progress bars.

    Returns:
        A :class:`CounterfactualSet`; rows whose factual value already equals the
        intervention value are left out.
    """
    from cffair import __version__
    from cffair.datasets import frame_hash
    from cffair.utils import stable_hash

    frame, spec = _as_dataset(dataset)
    cfg = FlowConfig.from_dict(config)
    todo = resolve(frame, spec, interventions)
    graph = spec.load_graph()
    data_hash = frame_hash(frame[spec.feature_names])
    key = stable_hash(
        "cfset", data_hash, graph.to_dict(), cfg.to_dict(), seed, [(i.feature, i.label) for i in todo], _source_version(), __version__
    )
    root = None if cache_dir is False else _cache_root(cache_dir)
    path = None if root is None else root / "counterfactuals" / f"{spec.name}-{key}.parquet"
    if path is not None and path.exists():
        return CounterfactualSet.load(path)
    model = fit_flow((frame, spec), cfg, seed=seed, cache=False if root is None else root, progress=progress)
    parts = []
    for k, iv in enumerate(_progress(todo, progress, desc=f"counterfactuals {spec.name}")):
        parts.append(_one_intervention(model, frame, spec, iv, seed * 1_000_003 + k))
    meta = {
        "generator": "causal_flow",
        "generator_version": _source_version(),
        "config": cfg.to_dict(),
        "data_hash": data_hash,
        "seed": seed,
        "dataset": spec.name,
        "graph": graph.name,
        "interventions": [[i.feature, i.label] for i in todo],
        "cffair_version": __version__,
        "flow_best_epoch": model.best_epoch,
        "flow_epochs_run": len(model.history),
        "flow_val_loss": min((h["val"] for h in model.history), default=None),
        "fit_on": "all rows, features only (no target)",
    }
    cfs = CounterfactualSet.concat(parts, meta=meta) if parts else CounterfactualSet(_empty_long(frame, spec), meta)
    if path is not None:
        cfs.save(path)
    return cfs


def _one_intervention(model: CausalFlow, frame: pd.DataFrame, spec: Any, iv: Intervention, seed: int) -> CounterfactualSet:
    col = frame[iv.feature]
    if isinstance(col.dtype, pd.CategoricalDtype):
        keep = np.flatnonzero(col.astype(str).to_numpy() != str(iv.value))
    else:
        keep = np.flatnonzero(col.to_numpy(dtype=float) != float(iv.value))
    sub = frame.iloc[keep]
    cf, pos, sample = model.counterfactual(sub, iv.feature, iv.value, seed=seed)
    return CounterfactualSet.from_frames(frame, cf, spec, iv.feature, value=iv.label, row_id=keep[pos], sample=sample)


def _empty_long(frame: pd.DataFrame, spec: Any) -> pd.DataFrame:
    head = pd.DataFrame({"row_id": np.zeros(0, np.int64), "feature": pd.array([], dtype="str"), "value": pd.array([], dtype="str"), "sample": np.zeros(0, np.int64)})
    return pd.concat([head, frame.iloc[:0][spec.feature_names].reset_index(drop=True)], axis=1)


def _as_dataset(dataset: Any) -> tuple[pd.DataFrame, Any]:
    if isinstance(dataset, str):
        from cffair.datasets import load

        return tuple(load(dataset))  # type: ignore[return-value]
    try:
        frame, spec = dataset
    except (TypeError, ValueError):
        raise CounterfactualError("dataset must be a name ('adult') or a Dataset (frame, spec).") from None
    return frame, spec


# ---------------------------------------------------------------------------- a known answer
def simulate_scm(n: int, seed: int = 0, discrete_child: bool = False) -> tuple[Any, dict[str, Any]]:
    """A nonlinear additive-noise SCM with exact counterfactuals, to validate the flow.

    ``s`` binary root, ``x1`` continuous root, ``x2 = sin(x1) + s + u2``,
    ``x3 = 0.5 x1 x2 + tanh(x2) - s + u3`` with Gaussian ``u``; with ``discrete_child`` an
    integer node ``k = floor(2 + x2 + u_k)`` clipped to [0, 5] is added (child of ``x2``).

    Returns:
        ``(Dataset(frame, spec), truth)`` where ``truth[(feature, value)]`` is a function of the
        factual frame giving the exact counterfactual frame for ``do(feature := value)``.
    """
    from cffair.datasets import Dataset, DatasetSpec, prepare

    rng = np.random.default_rng(seed)
    s = rng.integers(0, 2, n)
    x1 = rng.normal(size=n)
    u2, u3 = rng.normal(scale=0.5, size=n), rng.normal(scale=0.5, size=n)
    uk = rng.uniform(0, 1, n)

    def f2(x1: np.ndarray, s: np.ndarray) -> np.ndarray:
        return np.sin(x1) + s

    def f3(x1: np.ndarray, x2: np.ndarray, s: np.ndarray) -> np.ndarray:
        return 0.5 * x1 * x2 + np.tanh(x2) - s

    x2 = f2(x1, s) + u2
    x3 = f3(x1, x2, s) + u3
    cols: dict[str, Any] = {"s": np.where(s == 1, "b", "a"), "x1": x1, "x2": x2, "x3": x3}
    features: dict[str, Any] = {"s": "binary", "x1": "continuous", "x2": "continuous", "x3": "continuous"}
    edges: dict[str, list[str]] = {"s": ["x2", "x3"], "x1": ["x2", "x3"], "x2": ["x3"]}
    if discrete_child:
        cols["k"] = np.clip(np.floor(2 + x2 + uk), 0, 5).astype(int)
        features["k"] = "integer"
        edges["x2"].append("k")
    cols["y"] = (x3 > 0).astype(int)
    spec = DatasetSpec(name="synthetic", target="y", target_kind="binary", sensitive="s", features=features,
                       graph={"name": "synthetic", "edges": edges})
    frame = prepare(pd.DataFrame(cols), spec)
    noise = pd.DataFrame({"u2": u2, "u3": u3})

    def truth(feature: str, value: Any) -> Any:
        def cf(rows: np.ndarray) -> pd.DataFrame:
            f = frame.iloc[rows].reset_index(drop=True)
            u = noise.iloc[rows].reset_index(drop=True)
            s_ = (f["s"].astype(str) == "b").to_numpy().astype(float)
            x1_ = f["x1"].to_numpy()
            if feature == "s":
                s_ = np.full(len(f), 1.0 if value == "b" else 0.0)
            elif feature == "x1":
                x1_ = np.full(len(f), float(value))
            x2_ = f2(x1_, s_) + u["u2"].to_numpy() if feature != "x2" else np.full(len(f), float(value))
            x3_ = f3(x1_, x2_, s_) + u["u3"].to_numpy()
            return pd.DataFrame({"x1": x1_, "x2": x2_, "x3": x3_})
        return cf

    return Dataset(frame, spec), {"truth": truth, "noise": noise}
