"""DCEVAE, the Disentangled Causal Effect Variational AutoEncoder of Kim, Shin, Jang, Song,
Joo, Kang and Moon (2021), "Counterfactual fairness with disentangled causal effect
variational autoencoder", AAAI (paper section 6.4, "DCEVAE").

A clean re-implementation of the tabular model of the authors' release (``HyemiK1m/DCEVAE``,
``Tabular/DCEVAE_ours``):

* two encoders: ``q(u_r | x_r, a, y)`` from the features that are **not** descendants of the
  sensitive attribute ``a`` and ``q(u_d | x_d, a, y)`` from its **descendants** (read from
  the dataset's causal graph, :meth:`cffair.datasets.DatasetSpec.load_graph`);
* decoders ``p(x_r | u_r)``, ``p(x_d | u_d, a)`` and ``p(y | u_r, u_d, a)``, with one head per
  feature kind (softmax per categorical block, sigmoid for binary, Gaussian for numeric;
  the release's data was all-binary and used BCE everywhere);
* a discriminator on ``(u, a)`` that estimates the total correlation (FactorVAE-style, with
  the release's permutation: ``u_r`` and ``a`` permuted together, ``u_d`` separately), whose
  logit difference enters the ELBO with weight ``a_h``;
* an optional fairness term ``a_f · ‖σ(y(u, 1 − a)) − σ(y(u, a))‖`` (release default 0).

Fixes, each checked by a test:

* **KL.** The release builds a dense ``MultivariateNormal`` of dimension ``7 · B`` (a
  ``(7B)²`` covariance, ~113 s per batch at B = 1024) for a *diagonal* Gaussian; cffair uses
  the identical closed form ``½ Σ (μ² + σ² − 1 − log σ²) / B`` (:func:`kl_diag_std_normal`).
  The release's clamp of log-variances near 0 (to keep its Cholesky factorisation alive) is
  not needed and dropped.
* **The update.** The release steps the discriminator's optimiser *in place* and then calls
  ``backward`` on the ELBO, whose graph used the old discriminator weights (a version
  mismatch error since torch 1.5); the paper "slightly changed the parameter update logic".
  cffair computes each loss's gradient only for its own parameters
  (``torch.autograd.grad(D_tc, θ_D)`` and ``torch.autograd.grad(ELBO, θ_VAE)``) from the
  same forward pass, then steps both optimisers. So the discriminator's gradient is that of
  its own loss only, and the VAE's that of the ELBO only.

Counterfactuals (on a binary sensitive attribute, ``a' = 1 − a``): ``u`` is abducted from the
factual row (posterior mean by default), the non-descendants are copied from the factual row
(they cannot change under an intervention on ``a``), the descendants are decoded from
``(u_d, a')`` at their mode. (The release instead Bernoulli-samples reconstructions of both
parts; ``sample=True`` samples ``u`` instead of using its mean.)

The baseline of Table 1 then trains the paper's MLP on the factual rows plus DCEVAE's
counterfactual rows (:class:`cffair.baselines.AugmentedMLP`), section 6.4.
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass, field
from typing import Any, NamedTuple

import numpy as np
import pandas as pd
import torch
import torch.nn.functional as F
from sklearn.base import BaseEstimator
from torch import nn

from cffair._support.devices import flushed_denormals, resolve_device
from cffair.baselines._augmented import AugmentedMLP, MLPConfig
from cffair.baselines._mixed import (
    Block,
    binary_sensitive,
    check_encoded,
    check_fitted,
    decode,
    encode_frame,
    feature_blocks,
    minibatches,
    reconstruction_loss,
)
from cffair.errors import DataError, ParameterError
from cffair.learners._contract import PredictMixin


@dataclass(frozen=True)
class DCEVAEConfig:
    """Hyperparameters (defaults: the paper's best setting and the release's defaults).

    Attributes:
        ur_dim, ud_dim: latent sizes of ``u_r`` and ``u_d`` (release: 3, 4).
        h_dim: hidden width (release: 100).
        epochs, lr, batch_size: paper: 100, 1e-4, 1024.
        a_r, a_d, a_y: reconstruction weights (1, 1, 1).
        a_h: weight of the total-correlation term (release: 0.4).
        a_f: weight of the fairness term (release: 0).
        u_kl: weight of the KL term (1).
        seed: seed of initialisation, shuffling and sampling.
        mlp: how the predictor MLP(100, 50) on factual + counterfactual rows is trained.
    """

    ur_dim: int = 3
    ud_dim: int = 4
    h_dim: int = 100
    epochs: int = 100
    lr: float = 1e-4
    batch_size: int = 1024
    a_r: float = 1.0
    a_d: float = 1.0
    a_y: float = 1.0
    a_h: float = 0.4
    a_f: float = 0.0
    u_kl: float = 1.0
    seed: int = 0
    mlp: MLPConfig = field(default_factory=MLPConfig)

    def __post_init__(self) -> None:
        for name in ("ur_dim", "ud_dim", "h_dim", "batch_size"):
            if getattr(self, name) < 1:
                raise ParameterError(f"{name} must be at least 1, got {getattr(self, name)}.")
        if self.epochs < 0:
            raise ParameterError(f"epochs must be non-negative, got {self.epochs}.")
        if not self.lr > 0:
            raise ParameterError(f"lr must be positive, got {self.lr}.")


def kl_diag_std_normal(mu: torch.Tensor, logvar: torch.Tensor) -> torch.Tensor:
    """KL(N(μ, diag σ²) ‖ N(0, I)) summed over all entries and divided by the batch size.

    Equal to the release's ``kl(MultivariateNormal(μ.flatten(), diag(σ².flatten())),
    MultivariateNormal(0, I)) / B`` without building the ``(dB)²`` covariance.
    """
    return 0.5 * (mu.pow(2) + logvar.exp() - 1.0 - logvar).sum() / mu.shape[0]


class Losses(NamedTuple):
    """One forward pass: the VAE's objective, the discriminator's and their parts."""

    elbo: torch.Tensor
    d_tc: torch.Tensor
    recon: torch.Tensor
    kl: torch.Tensor
    vae_tc: torch.Tensor
    fair: torch.Tensor


class DCEVAENet(nn.Module):
    """The networks of DCEVAE (encoders, decoders, discriminator)."""

    def __init__(self, r_dim: int, d_dim: int, config: DCEVAEConfig):
        super().__init__()
        c, h = config, config.h_dim
        act = nn.LeakyReLU
        self.enc_r = nn.Sequential(nn.Linear(r_dim + 2, h), act(), nn.Linear(h, h), act())
        self.mu_r, self.logvar_r = nn.Linear(h, c.ur_dim), nn.Linear(h, c.ur_dim)
        self.enc_d = nn.Sequential(nn.Linear(d_dim + 2, h), act(), nn.Linear(h, h), act())
        self.mu_d, self.logvar_d = nn.Linear(h, c.ud_dim), nn.Linear(h, c.ud_dim)
        self.dec_r = nn.Sequential(nn.Linear(c.ur_dim, h), act(), nn.Linear(h, r_dim))
        self.dec_d = nn.Sequential(nn.Linear(c.ud_dim + 1, h), act(), nn.Linear(h, d_dim))
        self.dec_y = nn.Sequential(nn.Linear(c.ur_dim + c.ud_dim + 1, h), act(), nn.Linear(h, 1))
        u = c.ur_dim + c.ud_dim
        self.discriminator = nn.Sequential(
            nn.Linear(u + 1, h),
            nn.LeakyReLU(0.2),
            nn.Linear(h, h),
            nn.LeakyReLU(0.2),
            nn.Linear(h, h),
            nn.LeakyReLU(0.2),
            nn.Linear(h, 2),
        )
        for m in self.modules():
            if isinstance(m, nn.Linear):
                nn.init.xavier_normal_(m.weight)

    def vae_parameters(self) -> list[nn.Parameter]:
        return [p for n, p in self.named_parameters() if not n.startswith("discriminator.")]

    def disc_parameters(self) -> list[nn.Parameter]:
        return list(self.discriminator.parameters())

    def encode(
        self, r: torch.Tensor, d: torch.Tensor, a: torch.Tensor, y: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor]:
        hr = self.enc_r(torch.cat([r, a, y], 1))
        hd = self.enc_d(torch.cat([d, a, y], 1))
        mu = torch.cat([self.mu_r(hr), self.mu_d(hd)], 1)
        logvar = torch.cat([self.logvar_r(hr), self.logvar_d(hd)], 1)
        return mu, logvar


class DCEVAE(BaseEstimator):
    """The DCEVAE counterfactual generator (Kim et al. 2021) on a mixed-type table.

    ``fit(frame, encoder)`` trains it; :meth:`counterfactual_frame` / :meth:`counterfactuals`
    produce counterfactuals on the (binary) sensitive attribute.

    Args:
        config: hyperparameters (default :class:`DCEVAEConfig`).
        graph: the causal graph (default: the spec's).
        device: where to train and generate (:mod:`cffair._support.devices`).
    """

    model_: DCEVAENet | None = None

    def __init__(self, config: DCEVAEConfig | None = None, graph=None, *, device: str = "cpu"):
        self.config = config
        self.graph = graph
        self.device = device

    @property
    def _c(self) -> DCEVAEConfig:
        return self.config or DCEVAEConfig()

    # ------------------------------------------------------------------ layout
    def _setup(self, frame: pd.DataFrame, encoder) -> None:
        spec = encoder.spec
        self.encoder_, self.spec_ = encoder, spec
        self.a_col_ = binary_sensitive(frame, encoder, "DCEVAE (Kim et al. 2021)").start
        graph = self.graph if self.graph is not None else spec.load_graph()
        desc = set(graph.descendants(spec.sensitive))
        self.d_features_ = [f for f in spec.features if f in desc]
        self.r_features_ = [f for f in spec.features if f not in desc and f != spec.sensitive]
        if not self.d_features_:
            raise DataError(
                f"the causal graph gives {spec.sensitive!r} no descendants among the features; DCEVAE needs at least one "
                "(otherwise an intervention on it changes nothing but the attribute itself)."
            )
        self.r_cols_ = [j for f in self.r_features_ for j in encoder.columns_of(f)]
        self.d_cols_ = [j for f in self.d_features_ for j in encoder.columns_of(f)]
        self.r_blocks_: list[Block] = feature_blocks(
            encoder, self.r_features_, {j: i for i, j in enumerate(self.r_cols_)}
        )
        self.d_blocks_: list[Block] = feature_blocks(
            encoder, self.d_features_, {j: i for i, j in enumerate(self.d_cols_)}
        )
        self.n_features_ = encoder.n_features_out
        self.target_kind_ = spec.target_kind

    def _tensors(self, X: np.ndarray, y: np.ndarray) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
        """``(x_r, x_d, a, y)`` on the device (moved once per stage)."""
        dev = self.device_
        r = torch.from_numpy(np.ascontiguousarray(X[:, self.r_cols_])).to(dev)
        d = torch.from_numpy(np.ascontiguousarray(X[:, self.d_cols_])).to(dev)
        a = torch.from_numpy(np.ascontiguousarray(X[:, [self.a_col_]])).to(dev)
        yy = y if self.target_kind_ == "binary" else (y - self.y_mean_) / self.y_std_
        return r, d, a, torch.from_numpy(yy.astype(np.float32)).unsqueeze(1).to(dev)

    def _randn(self, shape: torch.Size, gen: torch.Generator) -> torch.Tensor:
        """Standard normal draws from the CPU generator ``gen``, on the device (the CPU run's stream)."""
        return torch.randn(shape, generator=gen).to(self.device_)

    # ------------------------------------------------------------------ objective
    def _permute(self, ua: torch.Tensor, gen: torch.Generator) -> torch.Tensor:
        """The release's permutation: ``u_r`` and ``a`` share one permutation, ``u_d`` another."""
        c, n = self._c, ua.shape[0]
        p_r, p_d = torch.randperm(n, generator=gen).to(ua.device), torch.randperm(n, generator=gen).to(ua.device)
        ur, ud, a = torch.split(ua, [c.ur_dim, c.ud_dim, 1], 1)
        return torch.cat([ur[p_r], ud[p_d], a[p_r]], 1)

    def _y_loss(self, out: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        if self.target_kind_ == "binary":
            return F.binary_cross_entropy_with_logits(out, y, reduction="sum") / out.shape[0]
        return 0.5 * F.mse_loss(out, y, reduction="sum") / out.shape[0]

    def losses(self, batch: tuple[torch.Tensor, ...], batch2: tuple[torch.Tensor, ...], gen: torch.Generator) -> Losses:
        """The ELBO (to minimise) and the discriminator's loss on one batch.

        ``batch2`` is an independent batch for the discriminator's permuted ("product of
        marginals") samples, as the release's second loader.
        """
        c, m = self._c, self.model_
        r, d, a, y = batch
        mu, logvar = m.encode(r, d, a, y)  # type: ignore[union-attr]
        u = mu + self._randn(mu.shape, gen) * torch.exp(0.5 * logvar)
        ur, ud = torch.split(u, [c.ur_dim, c.ud_dim], 1)
        y_out = m.dec_y(torch.cat([u, a], 1))  # type: ignore[union-attr]
        recon = (
            c.a_r * reconstruction_loss(m.dec_r(ur), r, self.r_blocks_)  # type: ignore[union-attr]
            + c.a_d * reconstruction_loss(m.dec_d(torch.cat([ud, a], 1)), d, self.d_blocks_)  # type: ignore[union-attr]
            + c.a_y * self._y_loss(y_out, y)
        )
        kl = kl_diag_std_normal(mu, logvar)
        logits = m.discriminator(torch.cat([u, a], 1))  # type: ignore[union-attr]
        vae_tc = (logits[:, 0] - logits[:, 1]).mean()
        r2, d2, a2, y2 = batch2
        mu2, logvar2 = m.encode(r2, d2, a2, y2)  # type: ignore[union-attr]
        u2 = mu2 + self._randn(mu2.shape, gen) * torch.exp(0.5 * logvar2)
        perm = self._permute(torch.cat([u2, a2], 1), gen).detach()
        logits_perm = m.discriminator(perm)  # type: ignore[union-attr]
        zeros = torch.zeros(len(logits), dtype=torch.long, device=logits.device)
        ones = torch.ones(len(logits_perm), dtype=torch.long, device=logits.device)
        d_tc = 0.5 * (F.cross_entropy(logits, zeros) + F.cross_entropy(logits_perm, ones))
        if c.a_f:
            y_cf = m.dec_y(torch.cat([u, 1.0 - a], 1))  # type: ignore[union-attr]
            if self.target_kind_ == "binary":
                y_out, y_cf = torch.sigmoid(y_out), torch.sigmoid(y_cf)
            fair = torch.linalg.vector_norm(y_cf - y_out, dim=1).sum() / len(y_out)
        else:
            fair = torch.zeros((), device=y_out.device)
        elbo = recon + c.u_kl * kl + c.a_h * vae_tc + c.a_f * fair
        return Losses(elbo, d_tc, recon, kl, vae_tc, fair)

    def update(self, losses: Losses) -> None:
        """The fixed update: each loss's gradient for its own parameters, then both steps."""
        m = self.model_
        disc, vae = m.disc_parameters(), m.vae_parameters()  # type: ignore[union-attr]
        g_disc = torch.autograd.grad(losses.d_tc, disc, retain_graph=True)
        g_vae = torch.autograd.grad(losses.elbo, vae, allow_unused=True)
        for p, g in zip(disc, g_disc):
            p.grad = g
        for p, g in zip(vae, g_vae):
            p.grad = torch.zeros_like(p) if g is None else g
        self.opt_disc_.step()
        self.opt_vae_.step()

    # ------------------------------------------------------------------ training
    @flushed_denormals()
    def fit(self, frame: pd.DataFrame, encoder, *, epochs: int | None = None) -> DCEVAE:
        """Train on the readable training ``frame`` (features and target) with a fitted ``encoder``."""
        c = self._c
        self.device_ = resolve_device(self.device)
        self.history_: dict[str, list[float]] = {"elbo": [], "d_tc": []}
        self.timings_: dict[str, float] = {}
        self._setup(frame, encoder)
        X, y = encode_frame(frame, encoder)
        self.y_mean_, self.y_std_ = float(y.mean()), float(y.std()) or 1.0
        self.num_range_ = {f: (float(frame[f].min()), float(frame[f].max())) for f in encoder.numeric}
        torch.manual_seed(c.seed)
        self.model_ = DCEVAENet(len(self.r_cols_), len(self.d_cols_), c).to(self.device_)
        self.opt_vae_ = torch.optim.Adam(self.model_.vae_parameters(), lr=c.lr)
        self.opt_disc_ = torch.optim.Adam(self.model_.disc_parameters(), lr=c.lr)
        self.gen_ = torch.Generator().manual_seed(c.seed)
        data = self._tensors(X, y)
        n = len(X)
        t0 = time.perf_counter()
        self.model_.train()
        for _ in range(c.epochs if epochs is None else epochs):
            elbos, dtcs = [], []
            for idx in minibatches(n, c.batch_size, self.gen_):
                idx2 = torch.randint(0, n, (len(idx),), generator=self.gen_).to(self.device_)
                idx = idx.to(self.device_)
                losses = self.losses(tuple(t[idx] for t in data), tuple(t[idx2] for t in data), self.gen_)
                self.update(losses)
                elbos.append(float(losses.elbo.detach()))
                dtcs.append(float(losses.d_tc.detach()))
            self.history_["elbo"].append(float(np.mean(elbos)))
            self.history_["d_tc"].append(float(np.mean(dtcs)))
        self.model_.eval()
        self.timings_["generator"] = time.perf_counter() - t0
        return self

    # ------------------------------------------------------------------ counterfactuals
    def counterfactual_encoded(self, X: np.ndarray, y: np.ndarray, sample: bool = False) -> np.ndarray:
        """Encoded counterfactuals: non-descendants copied, descendants decoded from ``(u_d, 1 − a)``."""
        check_fitted(self)
        X = check_encoded(X, self.n_features_)
        c = self._c
        r, d, a, yt = self._tensors(X, np.asarray(y, dtype=np.float32))
        gen = torch.Generator().manual_seed(c.seed + 3)
        with torch.no_grad():
            mu, logvar = self.model_.encode(r, d, a, yt)  # type: ignore[union-attr]
            u = mu + self._randn(mu.shape, gen) * torch.exp(0.5 * logvar) if sample else mu
            ud = u[:, c.ur_dim :]
            d_cf = decode(self.model_.dec_d(torch.cat([ud, 1.0 - a], 1)), self.d_blocks_, hard=True)  # type: ignore[union-attr]
        out = X.copy()
        out[:, self.d_cols_] = d_cf.cpu().numpy()
        out[:, self.a_col_] = 1.0 - X[:, self.a_col_]
        return out

    def counterfactual_frame(self, frame: pd.DataFrame, sample: bool = False) -> pd.DataFrame:
        """Readable counterfactuals of the rows of ``frame`` (same order, index reset); numeric
        values clipped to the training range."""
        check_fitted(self)
        X, y = encode_frame(frame, self.encoder_)
        out = self.encoder_.inverse_transform(self.counterfactual_encoded(X, y, sample))
        for f, (lo, hi) in self.num_range_.items():
            if f in self.d_features_:
                out[f] = out[f].clip(lo, hi)
        for f in self.r_features_:  # copied exactly, not through the scaler's round trip
            out[f] = frame[f].reset_index(drop=True)
        return out

    def counterfactuals(self, frame: pd.DataFrame, rows: np.ndarray | None = None, sample: bool = False):
        """The counterfactuals on the sensitive attribute as a :class:`CounterfactualSet`
        (``meta["generator"] == "dcevae"``); ``frame`` is the whole dataset frame."""
        from cffair.causal._cfset import CounterfactualSet

        rows = np.arange(len(frame)) if rows is None else np.asarray(rows, dtype=np.int64)
        cf = self.counterfactual_frame(frame.iloc[rows], sample=sample)
        cf["row_id"] = rows
        meta = {
            "generator": "dcevae",
            "method": "Kim et al. 2021",
            "config": _jsonable(asdict(self._c)),
            "sample": sample,
        }
        return CounterfactualSet.from_frames(frame, cf, self.spec_, self.spec_.sensitive, meta=meta)


class DCEVAEBaseline(PredictMixin, BaseEstimator):
    """The DCEVAE column of Table 1: DCEVAE's counterfactuals of the training rows, then the
    paper's MLP(100, 50) on factual + counterfactual rows (section 6.4).

    Args:
        config: DCEVAE's and the MLP's settings (default :class:`DCEVAEConfig`).
        graph: the causal graph (default: the spec's).
        device: where both train (:mod:`cffair._support.devices`).

    Attributes after :meth:`fit`:
        ``generator_``: the fitted :class:`DCEVAE` (also ``generator``).
        ``predictor_``: the MLP (:class:`~cffair.baselines.AugmentedMLP`).
    """

    predictor_: AugmentedMLP | None = None

    def __init__(self, config: DCEVAEConfig | None = None, graph=None, *, device: str = "cpu"):
        self.config = config
        self.graph = graph
        self.device = device

    @property
    def generator(self) -> DCEVAE:
        """The fitted DCEVAE generator."""
        check_fitted(self, "generator_")
        return self.generator_

    def _target_kind(self) -> str:
        check_fitted(self, "predictor_")
        return self.predictor_.target_kind  # type: ignore[union-attr]

    def fit(self, frame: pd.DataFrame, encoder, *, epochs: int | None = None) -> DCEVAEBaseline:
        """Train DCEVAE on ``frame``, generate its training counterfactuals, train the MLP."""
        config = self.config or DCEVAEConfig()
        self.generator_ = DCEVAE(config, self.graph, device=self.device).fit(frame, encoder, epochs=epochs)
        X, y = encode_frame(frame, encoder)
        X_cf = encoder.transform(self.generator_.counterfactual_frame(frame))
        t0 = time.perf_counter()
        self.predictor_ = AugmentedMLP(encoder.spec.target_kind, config.mlp, device=self.device).fit(X, y, X_cf, y)
        self.generator_.timings_["predictor"] = time.perf_counter() - t0
        return self

    def predict_score(self, X: np.ndarray) -> np.ndarray:
        """P(y = 1) or the score, from the MLP trained on factual + DCEVAE counterfactual rows."""
        check_fitted(self, "predictor_")
        return self.predictor_.predict_score(X)  # type: ignore[union-attr]

    def counterfactuals(self, frame: pd.DataFrame, rows: np.ndarray | None = None, sample: bool = False):
        """See :meth:`DCEVAE.counterfactuals`."""
        return self.generator.counterfactuals(frame, rows, sample)


def _jsonable(d: dict[str, Any]) -> dict[str, Any]:
    return {k: (_jsonable(v) if isinstance(v, dict) else list(v) if isinstance(v, tuple) else v) for k, v in d.items()}
