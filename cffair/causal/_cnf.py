"""The causal normalising flow model :class:`CausalFlow`: fitting and counterfactuals.

The method, its choices and references are described in :mod:`cffair.causal._flow`; settings
in :mod:`cffair.causal._config`; the per-kind codecs and noise posteriors in
:mod:`cffair.causal._discrete`.
"""

from __future__ import annotations

__all__ = ["CausalFlow"]

import copy
import dataclasses
import math
import time
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import numpy as np
import pandas as pd
import torch
from torch import nn

from cffair.causal._config import FlowConfig
from cffair.causal._discrete import Column, ThresholdHead, bin_point, categorical_mlp, gumbel_posterior, skewness
from cffair.datasets._graph import CausalGraph
from cffair.errors import ArtefactError, CounterfactualError

if TYPE_CHECKING:
    from zuko.lazy import Flow  # zuko ships no type information: Any to mypy

    from cffair.datasets import DatasetSpec

#: Kinds treated by ``FlowConfig.ordered``.
ORDERED_KINDS = frozenset({"binary", "ordinal"})
#: ``ordered="sample"`` draws the point inside the bin from ``U(EDGE, 1 - EDGE)``: a point on a
#: bin edge could decode into the neighbouring bin after a float32 round trip.
EDGE = 1e-3


class CausalFlow:
    """A causal normalising flow over a dataset's features, with counterfactuals (section 2.2).

    Args:
        spec: the :class:`~cffair.datasets.DatasetSpec` (feature kinds; the target is ignored).
        graph: the causal graph; default ``spec.load_graph()``.
        config: a :class:`~cffair.causal.FlowConfig` or mapping.

    Attributes:
        nodes: every feature in topological order.
        context_nodes: roots with children, conditioning the flow (``root_context=True``).
        flow_nodes: the nodes the flow transforms.
        gumbel_nodes: nominal flow nodes with a conditional categorical (``categorical="gumbel"``).
        threshold_nodes: binary and ordinal flow nodes with a cumulative-logit model
            (``ordered="threshold"``).
        sampled_nodes: discrete flow nodes abducted at a uniform point of their bin (``ordered``
            or ``integer`` set to ``"sample"``).

    Example:
        >>> frame, spec = cffair.datasets.load("lawschool")          # doctest: +SKIP
        >>> cnf = CausalFlow(spec).fit(frame, seed=0)                 # doctest: +SKIP
        >>> cf = cnf.counterfactual(frame, "sex", "Male")             # doctest: +SKIP
    """

    def __init__(
        self, spec: DatasetSpec, graph: CausalGraph | None = None, config: FlowConfig | Mapping[str, Any] | None = None
    ) -> None:
        self.spec = spec
        if graph is not None:  # a graph given here was not checked against the spec when it was loaded
            graph.validate(spec.features, target=spec.target, sensitive=spec.sensitive)
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
        self.threshold_nodes = [
            n for n in self.flow_nodes if self.config.ordered == "threshold" and spec.features[n] in ORDERED_KINDS
        ]
        self.sampled_nodes = _sampled_nodes(self.flow_nodes, spec.features, self.config)
        self.columns: dict[str, Column] = {}
        self.flow: Flow | None = None
        self.classifiers: nn.ModuleDict = nn.ModuleDict()
        self.thresholds: nn.ModuleDict = nn.ModuleDict()
        self.history: list[dict[str, float]] = []
        self.best_epoch: int = -1
        self.fit_seconds: float = 0.0
        #: :func:`cffair.datasets.frame_hash` of the feature columns it was fitted on (None before fit).
        self.data_hash: str | None = None
        self._dtypes: dict[str, Any] = {}

    # ------------------------------------------------------------------ layout
    def _fit_columns(self, frame: pd.DataFrame) -> None:
        for n in self.nodes:
            kind = self.spec.features[n]
            col = frame[n]
            discrete = kind != "continuous"
            cats = [str(c) for c in col.cat.categories] if isinstance(col.dtype, pd.CategoricalDtype) else None
            c = Column(
                n,
                kind,
                discrete,
                nominal=(kind == "categorical" and cats is not None and len(cats) >= 3),
                categories=cats,
            )
            if kind == "continuous" and self.config.log_skewed:
                v = col.to_numpy(dtype=np.float64)
                c.log = bool(v.min() >= 0 and skewness(v) > 5)
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
        return torch.as_tensor(
            np.concatenate([self._rep(n, R[:, idx[n]]) for n in self.context_nodes], axis=1), dtype=torch.float32
        )

    def _flow_input(self, R: np.ndarray) -> torch.Tensor:
        idx = {n: i for i, n in enumerate(self.nodes)}
        return torch.as_tensor(
            np.column_stack([self.columns[n].midpoint(R[:, idx[n]]) for n in self.flow_nodes]), dtype=torch.float32
        )

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
            self.classifiers[n] = categorical_mlp(width, self.columns[n].width, self.config.hidden[:2])
        self.thresholds = nn.ModuleDict()
        for n in self.threshold_nodes:
            width = sum(self.columns[p].width for p in self.graph.parents(n)) or 1
            self.thresholds[n] = ThresholdHead(width, int(self.columns[n].hi) + 1, self.config.hidden[:2])

    # ------------------------------------------------------------------ fitting
    def fit(self, frame: pd.DataFrame, seed: int = 0, progress: bool = False, *, device: str = "cpu") -> CausalFlow:
        """Fit by maximum likelihood on ``frame``'s features (section 6.2's settings).

        Deterministic for a given frame, config and seed (one torch thread). ``device``
        (:mod:`cffair._support.devices`) is where the training runs: the networks are initialised on the
        CPU, moved there with the training data once, and the noise is drawn by the same CPU
        generator; the fitted flow comes back to the CPU (counterfactuals are computed there).
        """
        from cffair._support.devices import resolve_device
        from cffair._support.utils import seed_everything, torch_cpu_setup

        dev = resolve_device(device)
        torch_cpu_setup()
        seed_everything(seed)
        from cffair.datasets import frame_hash

        t0 = time.perf_counter()
        self.data_hash = frame_hash(frame[self.spec.feature_names])
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
        self._move(dev)
        dmask = torch.tensor([self.columns[nm].discrete for nm in self.flow_nodes], dtype=torch.float32).to(dev)
        mean = torch.tensor([self.columns[nm].mean for nm in self.flow_nodes], dtype=torch.float32).to(dev)
        std = torch.tensor([self.columns[nm].std for nm in self.flow_nodes], dtype=torch.float32).to(dev)
        Rf = torch.as_tensor(R[:, f_idx], dtype=torch.float32).to(dev)
        ctx = self._context(R)
        ctx = None if ctx is None else ctx.to(dev)
        heads = self.gumbel_nodes + self.threshold_nodes
        clf_in = {nm: self._classifier_input(nm, R) for nm in heads}
        clf_y = {nm: torch.as_tensor(R[:, idx[nm]], dtype=torch.int64) for nm in heads}
        val_noise = torch.rand((len(val), len(self.flow_nodes)), generator=gen).to(dev)

        params = list(self.classifiers.parameters()) + (list(self.flow.parameters()) if self.flow is not None else [])
        params += list(self.thresholds.parameters())
        if not params:  # nothing to learn (every node is a root)
            self._move(torch.device("cpu"))
            self.fit_seconds = time.perf_counter() - t0
            return self
        opt = torch.optim.Adam(params, lr=self.config.lr)
        sched = torch.optim.lr_scheduler.ReduceLROnPlateau(
            opt, factor=self.config.lr_factor, patience=self.config.lr_patience
        )

        # every head's inputs side by side, so that a batch is gathered once (spans: column ranges)
        H = torch.cat([clf_in[nm] for nm in heads], dim=1).to(dev) if heads else None
        Y = torch.stack([clf_y[nm] for nm in heads], dim=1).to(dev) if heads else None
        widths = np.cumsum([0] + [clf_in[nm].shape[1] for nm in heads])
        spans = {nm: (int(widths[i]), int(widths[i + 1]), i) for i, nm in enumerate(heads)}

        def loss_on(rows: np.ndarray, noise: torch.Tensor) -> torch.Tensor:
            loss = torch.zeros((), device=dev)
            index = torch.as_tensor(rows).to(dev)
            if self.flow is not None:
                z = (Rf[index] + noise * dmask - mean) / std
                c = None if ctx is None else ctx[index]
                loss = loss - self.flow(c).log_prob(z).mean()
            if H is not None and Y is not None:
                hb, yb = H[index], Y[index]
                for nm in self.gumbel_nodes:
                    a, b, k = spans[nm]
                    loss = loss + nn.functional.cross_entropy(self.classifiers[nm](hb[:, a:b]), yb[:, k])
                for nm in self.threshold_nodes:
                    a, b, k = spans[nm]
                    loss = loss + cast(ThresholdHead, self.thresholds[nm]).nll(hb[:, a:b], yb[:, k])
            return loss

        best, best_state, stale = math.inf, None, 0
        bar = _progress(range(self.config.epochs), progress, desc=f"flow {self.spec.name}")
        for epoch in bar:
            self._train_mode(True)
            order = train[torch.randperm(len(train), generator=gen).numpy()]
            total = 0.0
            for start in range(0, len(order), self.config.batch_size):
                rows = order[start : start + self.config.batch_size]
                noise = torch.rand((len(rows), len(self.flow_nodes)), generator=gen).to(dev)
                loss = loss_on(rows, noise)
                opt.zero_grad()
                loss.backward()
                opt.step()
                total += float(loss.detach()) * len(rows)
            self._train_mode(False)
            with torch.no_grad():
                v = float(loss_on(val, val_noise))
            sched.step(v)
            self.history.append(
                {"epoch": epoch, "train": total / len(order), "val": v, "lr": opt.param_groups[0]["lr"]}
            )
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
        self._move(torch.device("cpu"))
        self.fit_seconds = time.perf_counter() - t0
        return self

    def _move(self, device: torch.device) -> None:
        """Move the networks (weights and buffers) to ``device``."""
        for m in ([self.flow] if self.flow is not None else []) + [self.classifiers, self.thresholds]:
            m.to(device)

    def _train_mode(self, on: bool) -> None:
        for m in ([self.flow] if self.flow is not None else []) + [self.classifiers, self.thresholds]:
            m.train(on)

    def _state(self) -> dict[str, Any]:
        return {
            "flow": copy.deepcopy(self.flow.state_dict()) if self.flow is not None else None,
            "clf": copy.deepcopy(self.classifiers.state_dict()),
            "thr": copy.deepcopy(self.thresholds.state_dict()),
        }

    def _load_state(self, state: dict[str, Any]) -> None:
        if self.flow is not None:
            self.flow.load_state_dict(state["flow"])
        self.classifiers.load_state_dict(state["clf"])
        self.thresholds.load_state_dict(state["thr"])

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
        """The exogenous noise ``u = T(x)`` of each row (columns = ``flow_nodes``)."""
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
    def with_config(self, **changes: Any) -> CausalFlow:
        """The same fitted model with other prediction-time settings: ``cf_samples``, ``integer``,
        and ``ordered`` between ``"midpoint"`` and ``"sample"`` (both use the flow), e.g.
        ``model.with_config(integer="sample")``: a shallow copy sharing the weights.

        Raises:
            CounterfactualError: for a change that needs another fitted model.
        """
        new = FlowConfig.from_dict({**self.config.to_dict(), **changes})
        refit = [k for k in changes if k not in ("cf_samples", "integer", "ordered")]
        if "threshold" in (self.config.ordered, new.ordered) and new.ordered != self.config.ordered:
            refit.append("ordered")
        if refit:
            raise CounterfactualError(
                f"changing {sorted(set(refit))} needs another fitted flow; fit one with the new config instead."
            )
        other = copy.copy(self)
        other.config = new
        other.sampled_nodes = _sampled_nodes(self.flow_nodes, self.spec.features, new)
        return other

    @property
    def stochastic(self) -> bool:
        """Whether some counterfactuals are draws (``config.cf_samples`` per row) rather than one point."""
        return bool(self.gumbel_nodes or self.threshold_nodes or self.sampled_nodes)

    def draws(self, feature: str, samples: int | None = None) -> int:
        """Draws per row for ``do(feature := v)``: ``samples`` (default ``config.cf_samples``) if a
        descendant of ``feature`` has a drawing treatment, else 1 (the counterfactual is a point)."""
        random = set(self.gumbel_nodes) | set(self.threshold_nodes) | set(self.sampled_nodes)
        return (samples or self.config.cf_samples) if random & set(self.graph.descendants(feature)) else 1

    def _gumbel_noise(self, node: str, R: np.ndarray, gen: torch.Generator) -> torch.Tensor:
        """Gumbel noise ``g`` with ``argmax(logits + g)`` equal to the observed category
        (:func:`~cffair.causal._discrete.gumbel_posterior`, Oberst & Sontag 2019)."""
        with torch.no_grad():
            logits = self.classifiers[node](self._classifier_input(node, R)).double()
        observed = torch.as_tensor(R[:, self.nodes.index(node)], dtype=torch.int64)
        return gumbel_posterior(logits, observed, gen)

    def _sampled_noise(self, R: np.ndarray, nodes: list[str], gen: torch.Generator) -> dict[str, torch.Tensor]:
        """``u_j`` of each ordered node in ``nodes`` abducted at a uniform point of its bin
        (``ordered="sample"``; parents stay at their midpoints, as in prediction)."""
        if not nodes:
            return {}
        idx = {nm: i for i, nm in enumerate(self.nodes)}
        f_pos = {nm: i for i, nm in enumerate(self.flow_nodes)}
        z0, ctx = self._flow_input(R), self._context(R)
        out = {}
        for nm in nodes:
            c = self.columns[nm]
            r = bin_point(R[:, idx[nm]], "sample", gen, edge=EDGE)
            z = z0.clone()
            z[:, f_pos[nm]] = torch.as_tensor(c.standardise(r), dtype=torch.float32)
            out[nm] = self.transform(z, ctx)[:, f_pos[nm]]  # u_j depends only on x_j and its parents
        return out

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
            samples: draws per row when a descendant's treatment draws (:meth:`draws`;
                default ``config.cf_samples``).
            seed: seed of the draws (Gumbel noise, points inside bins).

        Returns:
            The triple ``(counterfactual_frame, row_index, sample)``. The frame has the spec's feature
            columns with ``frame``'s dtypes; ``row_index`` are positions in ``frame``.
            Non-descendants of ``feature`` are copied exactly and ``feature`` equals ``value``.
        """
        self._check_fitted()
        if feature not in self.columns:
            raise CounterfactualError(
                f"cannot intervene on {feature!r}: it is not a feature of {self.spec.name!r} ({self.nodes})."
            )
        col = self.columns[feature]
        if col.categories is not None and str(value) not in col.categories:
            raise CounterfactualError(f"{value!r} is not a value of {feature!r}; its values are {col.categories}.")
        S = self.draws(feature, samples)
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
                for nm in self.threshold_nodes:
                    if nm in desc:
                        observed = torch.as_tensor(R[:, idx[nm]], dtype=torch.int64)
                        noise[nm] = cast(ThresholdHead, self.thresholds[nm]).posterior(
                            self._classifier_input(nm, R), observed, gen
                        )
                sampled = self._sampled_noise(R, [nm for nm in self.sampled_nodes if nm in desc], gen)
                Rn = self._predict(R, Rn, feature, desc, noise, sampled)
        out = {}
        factual = frame.iloc[row_index].reset_index(drop=True)
        for nm in self.spec.features:
            if nm in desc:
                out[nm] = self.columns[nm].from_r(Rn[:, idx[nm]], self._dtypes[nm])
            elif nm == feature:
                out[nm] = _constant(factual[nm], value)
            else:
                out[nm] = (
                    factual[nm].to_numpy()
                    if not isinstance(factual[nm].dtype, pd.CategoricalDtype)
                    else factual[nm].array
                )
        return pd.DataFrame(out)[list(self.spec.features)], row_index, sample

    def _predict(
        self,
        R: np.ndarray,
        Rn: np.ndarray,
        feature: str,
        desc: list[str],
        noise: Mapping[str, torch.Tensor],
        sampled: Mapping[str, torch.Tensor],
    ) -> np.ndarray:
        """Prediction step: recompute the descendants of ``feature`` in topological order.

        ``noise`` holds the Gumbel noise of nominal nodes (``"gumbel"``) and the logistic noise of
        threshold nodes (``"threshold"``), ``sampled`` the flow noise of discrete nodes abducted
        inside their bins (``"sample"``); every other node is abducted at its value or bin midpoint.
        """
        idx = {nm: i for i, nm in enumerate(self.nodes)}
        f_pos = {nm: i for i, nm in enumerate(self.flow_nodes)}
        u = self.transform(self._flow_input(R), self._context(R))  # abduction at bin midpoints
        for nm, u_nm in sampled.items():
            u[:, f_pos[nm]] = u_nm
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
        t: Any = self.flow.transform.transforms[0] if self.flow is not None else None  # a zuko lazy transform
        for nm in desc:  # topological order: every parent is final before its child
            c = self.columns[nm]
            if nm in self.thresholds and nm in noise:
                Rn[:, idx[nm]] = (
                    cast(ThresholdHead, self.thresholds[nm])
                    .decode(self._classifier_input(nm, Rn), noise[nm])
                    .numpy()
                    .astype(np.float64)
                )
                continue
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
    def _quantise(c: Column, r: np.ndarray) -> np.ndarray:
        return np.clip(np.floor(r), c.lo, c.hi) if c.discrete else r

    # ------------------------------------------------------------------ persistence
    def to_payload(self) -> tuple[dict[str, Any], dict[str, Any]]:
        """``(meta, tensors)``: settings, codecs, history and data hash as JSON values, the networks as
        state dicts (what :meth:`save` writes, an artefact embedding a flow stores, :meth:`from_payload` reads)."""
        from cffair.causal._flow_file import dtype_to_json

        meta = {
            "spec": self.spec.to_dict(),
            "graph": self.graph.to_dict(),
            "config": self.config.to_dict(),
            "columns": [dataclasses.asdict(self.columns[n]) for n in self.nodes if n in self.columns],
            "dtypes": {n: dtype_to_json(t) for n, t in self._dtypes.items()},
            "history": list(self.history),
            "best_epoch": int(self.best_epoch),
            "fit_seconds": float(self.fit_seconds),
            "data_hash": getattr(self, "data_hash", None),
        }
        return meta, (self._state() if self.columns else {"flow": None, "clf": {}, "thr": {}})

    @classmethod
    def from_payload(
        cls, meta: Mapping[str, Any], tensors: Mapping[str, Any], *, path: str | Path, what: str, fix: str
    ) -> CausalFlow:
        """The flow of :meth:`to_payload`'s ``(meta, tensors)``: networks built from the stored settings (under
        a forked RNG: torch's global random state never moves), then given their weights; ``path``, ``what``
        and ``fix`` name the file in messages. Raises ArtefactError for content that does not fit."""
        from cffair.causal._flow_file import dtype_from_json, not_fitting, require_meta
        from cffair.datasets import DatasetSpec

        require_meta(meta, path, what, fix)
        try:
            model = cls(DatasetSpec.from_dict(meta["spec"]), CausalGraph.from_dict(meta["graph"]), meta["config"])
            if meta["columns"]:
                model.columns.update({c.name: c for c in [Column(**raw) for raw in meta["columns"]]})
                if set(model.columns) != set(model.nodes):
                    raise ArtefactError(f"codecs for {sorted(model.columns)} but the graph has {sorted(model.nodes)}")
                model._dtypes = {n: dtype_from_json(v) for n, v in meta["dtypes"].items()}
                with torch.random.fork_rng(devices=[]):
                    model._build()
                model._load_state({k: tensors.get(k) for k in ("flow", "clf", "thr")})
                model._train_mode(False)
            model.history = [dict(h) for h in meta["history"]]
            model.best_epoch, model.fit_seconds = int(meta["best_epoch"]), float(meta["fit_seconds"])
            model.data_hash = None if meta.get("data_hash") is None else str(meta["data_hash"])
        except Exception as exc:
            raise not_fitting(exc, path, what, fix) from None
        return model

    def save(self, path: str | Path) -> None:
        """Write the fitted model atomically: :meth:`to_payload` in a file that runs no code when loaded
        (:mod:`cffair.causal._flow_file`; nothing is pickled)."""
        from cffair.causal._flow_file import write_flow

        write_flow(path, *self.to_payload())

    @classmethod
    def load(cls, path: str | Path) -> CausalFlow:
        """Rebuild a model written by :meth:`save` (:meth:`from_payload`), running no code from the file;
        ArtefactError for a missing, damaged, old-format (pickled) or crafted file, or one that does not fit."""
        from cffair.causal._flow_file import FLOW_FIX, read_flow

        return cls.from_payload(*read_flow(path), path=path, what="fitted flow", fix=FLOW_FIX)


def _sampled_nodes(flow_nodes: list[str], kinds: Mapping[str, str], config: FlowConfig) -> list[str]:
    """Flow nodes abducted at a uniform point of their bin (treatment ``"sample"``)."""
    return [
        n
        for n in flow_nodes
        if (kinds[n] in ORDERED_KINDS and config.ordered == "sample")
        or (kinds[n] == "integer" and config.integer == "sample")
    ]


def _constant(like: pd.Series, value: Any) -> Any:
    if isinstance(like.dtype, pd.CategoricalDtype):
        return pd.Categorical([str(value)] * len(like), dtype=like.dtype)
    return np.full(len(like), value, dtype=like.dtype)


def _progress(it: Iterable[Any], on: bool, **kw: Any) -> Any:
    if not on:
        return it
    from tqdm.auto import tqdm

    return tqdm(it, **kw)
