"""The GAN-based baseline of Grari, Lamprier and Detyniecki (2023), "Adversarial learning for
counterfactual fairness", Machine Learning 112 (paper section 6.4, "GAN-based method").

A clean re-implementation of the method in the authors' release (``fairml-research/
Counterfactual_Fairness``), in two stages:

1. **Counterfactual inference** — an MMD-VAE with an adversary. The encoder
   ``q(z | x, s, y)`` (128-64-32, latent 5) is pushed towards the prior N(0, I) by a maximum
   mean discrepancy term and away from the sensitive attribute by an adversary on ``z``
   (32-16, weight 100, ``inner_steps`` adversary updates per batch, more in the first epoch);
   the decoder ``p(x, y | z, s)`` (60 hidden units) reconstructs the row and its label.
   A counterfactual of ``x`` is the reconstruction with the sensitive attribute flipped,
   ``x̂(z, s')``.
2. **The counterfactually fair predictor** ``h(x, s)`` (64-32-16) minimises
   ``loss(h(x, s), y) + λ · E[(h(x̂(z, s'), s') − h(x̂(z, s), s))²]``.

Quirks of the original and what cffair does (each is a constructor option):

* **Binary sensitive attribute.** The original samples ``s'`` uniformly in
  ``[min s, max s]`` (it was written for continuous attributes), so for a 0/1 attribute most
  "counterfactuals" use an ``s'`` between the groups. cffair uses ``s' = 1 − s`` and requires a
  binary attribute (:func:`cffair.datasets.require_binary_sensitive`).
* **Binary target.** The original regresses every target with an MSE and a linear output.
  For a binary target cffair's decoder and predictor use a logit / sigmoid with binary
  cross-entropy, so :meth:`GANBaseline.predict_score` is a probability and the CF-MSE is on
  the same scale as the other methods'. Score targets are standardised for training and
  mapped back by :meth:`~GANBaseline.predict_score`.
* **What the encoder sees for a counterfactual.** The original's counterfactual pass feeds
  ``s'`` to the encoder *and* the decoder (``model(x, s', y)``), so the latent is not abducted
  from the factual row. cffair abducts ``z`` from ``(x, s, y)`` and decodes with ``s'``
  (``encoder_sees_counterfactual=False``, the default); ``True`` reproduces the original.
  Factual and counterfactual reconstructions share the same ``z`` sample.
* **The adversary's gradient leak.** The original's inner adversary loop calls
  ``loss_adv.backward()`` on a non-detached ``z``, so each of the 50 (first epoch: 300) inner
  steps *adds* the adversary's gradient (helping it predict ``s``) to the encoder's gradient,
  opposing the ``−100 · loss_adv`` term. ``leak_adversary_grad=False`` (default) detaches ``z``
  in the inner loop; ``True`` reproduces the leak.
* **The inner adversary update** is written out (``adversary_update="written"``, the default):
  forward as three matrix products, a hand-written backward and one fused Adam kernel over one
  flat buffer (``cffair.baselines._adversary``), about 15 ATen calls per update instead of about
  167, the same arithmetic up to float rounding (tested against autograd); the leak above is
  the steps' summed ``∂ loss_adv / ∂ z`` sent back through ``z`` once per batch.
  ``cffair.baselines._gan_stacked`` trains several seeds of one configuration together.
* **MMD.** The original tiles ``(B, B, dim)`` tensors; the same kernel
  ``k(a, b) = exp(−‖a − b‖² / dim²)`` is computed with :func:`torch.cdist`.
* **Mixed-type features.** The original decodes every column with a sigmoid and BCE
  (min-max scaled data). cffair uses one head per feature (softmax per categorical block,
  sigmoid for binary, Gaussian/MSE for standard-scaled numeric; :mod:`cffair.baselines._mixed`);
  the predictor's penalty uses the soft reconstructions (probabilities), as the original.
* **Learning rates.** The paper reports lr 1e-4: in the release that is the predictor's; the
  inference stage's Adam optimisers use a hard-coded 1e-3 (kept as the defaults).
* The sensitive column stays inside the predictor's input (``h`` takes the full encoded
  row, which contains ``s``), which is the original's ``h(x, s)``.
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
import pandas as pd
import torch
import torch.nn.functional as F
from sklearn.base import BaseEstimator
from torch import nn

from cffair._support.devices import flushed_denormals, resolve_device
from cffair.baselines._adversary import PackedAdversary
from cffair.baselines._augmented import predict_mlp, predictor_loss
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

#: The paper's batch sizes (section 6.4): 2048 for Adult, 512 for COMPAS and Lawschool.
PAPER_BATCH_SIZE: dict[str, int] = {"adult": 2048, "compas": 512, "compas_age": 512, "lawschool": 512}


@dataclass(frozen=True)
class GANConfig:
    """Hyperparameters of Grari et al.'s method (defaults: the paper / the authors' release).

    Attributes:
        latent_dim: size of ``z`` (5).
        encoder_hidden: encoder widths (128, 64, 32).
        decoder_hidden: decoder width (60).
        adversary_hidden: adversary widths (32, 16).
        predictor_hidden: fair predictor widths (64, 32, 16).
        beta_x, beta_y, beta_mmd, beta_adv: loss weights (1, 1, 1, 100).
        inner_steps: adversary updates per batch (50); ``first_epoch_inner_steps`` in epoch 0 (300).
        inference_epochs: epochs of stage 1 (paper: 100).
        inference_lr, adversary_lr: Adam learning rates of stage 1 (release: 1e-3).
        predictor_epochs: epochs of stage 2 (paper: 1000).
        predictor_lr: Adam learning rate of stage 2 (paper: 1e-4).
        cf_weight: λ, the weight of the counterfactual penalty (release: 1).
        n_cf_samples: latent samples per row in the penalty (release: 20).
        predictor_patience: ``None`` (the paper: all ``predictor_epochs``), or stop the predictor
            when its validation objective has not improved for this many epochs and keep the
            best weights (a cheaper variant, see ``benchmarks/bench_baselines.py``).
        validation_fraction: share of the training rows held out for that early stopping.
        batch_size: paper: 2048 (Adult), 512 (others); see ``PAPER_BATCH_SIZE``.
        leak_adversary_grad: reproduce the original's gradient leak (default off).
        encoder_sees_counterfactual: feed ``s'`` to the encoder for counterfactuals (original) or ``s`` (default).
        adversary_update: ``"written"`` (default): the inner adversary updates with the written-out
            backward and one fused Adam kernel (``cffair.baselines._adversary.PackedAdversary``,
            about 3x faster); ``"autograd"``: ``nn.Sequential``, autograd and ``torch.optim.Adam``
            (the reference it is tested against; equal up to float rounding).
        seed: seed of initialisation, shuffling and sampling.
    """

    latent_dim: int = 5
    encoder_hidden: tuple[int, ...] = (128, 64, 32)
    decoder_hidden: int = 60
    adversary_hidden: tuple[int, int] = (32, 16)
    predictor_hidden: tuple[int, ...] = (64, 32, 16)
    beta_x: float = 1.0
    beta_y: float = 1.0
    beta_mmd: float = 1.0
    beta_adv: float = 100.0
    inner_steps: int = 50
    first_epoch_inner_steps: int = 300
    inference_epochs: int = 100
    inference_lr: float = 1e-3
    adversary_lr: float = 1e-3
    predictor_epochs: int = 1000
    predictor_lr: float = 1e-4
    cf_weight: float = 1.0
    n_cf_samples: int = 20
    predictor_patience: int | None = None
    validation_fraction: float = 0.1
    batch_size: int = 512
    leak_adversary_grad: bool = False
    encoder_sees_counterfactual: bool = False
    seed: int = 0
    adversary_update: str = "written"

    def __post_init__(self) -> None:
        for name in ("latent_dim", "decoder_hidden", "batch_size", "n_cf_samples"):
            if getattr(self, name) < 1:
                raise ParameterError(f"{name} must be at least 1, got {getattr(self, name)}.")
        for name in ("inner_steps", "first_epoch_inner_steps", "inference_epochs", "predictor_epochs"):
            if getattr(self, name) < 0:
                raise ParameterError(f"{name} must be non-negative, got {getattr(self, name)}.")
        if self.predictor_patience is not None and self.predictor_patience < 1:
            raise ParameterError(f"predictor_patience must be None or at least 1, got {self.predictor_patience}.")
        if not 0 < self.validation_fraction < 1:
            raise ParameterError(f"validation_fraction must lie in (0, 1), got {self.validation_fraction}.")
        if self.adversary_update not in ("written", "autograd"):
            raise ParameterError(f"adversary_update must be 'written' or 'autograd', got {self.adversary_update!r}.")
        for name in ("inference_lr", "adversary_lr", "predictor_lr"):
            if not getattr(self, name) > 0:
                raise ParameterError(f"{name} must be positive, got {getattr(self, name)}.")


class _KernelMean(torch.autograd.Function):
    """``mean_ij exp(−max(‖u_i − v_j‖², 0) / dim²)`` with a hand-written backward.

    The forward builds the scaled squared distances with one matrix product of augmented rows,
    ``[u, ‖u‖², 1] · [−2v, 1, ‖v‖²]ᵀ / −dim²``, and keeps only the kernel matrix ``E``; the
    backward is two more products with it: ``∂/∂u_i = c (u_i Σ_j E_ij − Σ_j E_ij v_j)`` with
    ``c = −2 / (dim² · n · m)``, symmetrically for ``v`` (each product also yields the sums).
    Autograd's own backward of the same expression walks five ``n × m`` intermediates; on
    Adult's batches of 2048 rows that made the MMD 90 % of a stage-1 step
    (``benchmarks/bench_gan_mmd.py`` times the two).
    """

    @staticmethod
    def forward(ctx: Any, u: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
        scale = -1.0 / float(u.shape[1] ** 2)
        left = torch.cat([u, (u * u).sum(1, keepdim=True), u.new_ones(len(u), 1)], dim=1)
        right = torch.cat([-2.0 * v, v.new_ones(len(v), 1), (v * v).sum(1, keepdim=True)], dim=1) * scale
        e = torch.mm(left, right.T).clamp_max_(0.0).exp_()  # scale < 0: clamping the distance at 0
        ctx.save_for_backward(u, v, e)
        ctx.scale = scale
        return e.mean()

    @staticmethod
    def backward(ctx: Any, grad: torch.Tensor) -> tuple[torch.Tensor | None, torch.Tensor | None]:  # type: ignore[override]
        u, v, e = ctx.saved_tensors
        c = grad * (2.0 * ctx.scale / e.numel())
        d = u.shape[1]
        gu = gv = None
        if ctx.needs_input_grad[0]:  # [E v, E 1] as one product; the layouts below are the fast ones
            ev = torch.mm(torch.cat([v, v.new_ones(len(v), 1)], dim=1).T, e.T).T
            gu = c * (u * ev[:, d:] - ev[:, :d])
        if ctx.needs_input_grad[1]:  # [Eᵀ u, Eᵀ 1]
            eu = torch.mm(torch.cat([u, u.new_ones(len(u), 1)], dim=1).T, e).T
            gv = c * (v * eu[:, d:] - eu[:, :d])
        return gu, gv


def mmd_rbf(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """Biased MMD² estimate with the original's kernel ``exp(−‖a − b‖² / dim²)``.

    Each of the three kernel means is a :class:`_KernelMean` (one matrix product forward, one
    backward per argument that needs a gradient), not the original's tiled ``(B, B, dim)``
    tensors nor autograd through the expression: the same values and gradients to float
    rounding (``tests/baselines/test_baselines_units.py`` checks both against the tiled kernel).
    """
    if a.shape[1] != b.shape[1]:
        raise DataError(f"mmd_rbf needs rows of the same width, got {a.shape[1]} and {b.shape[1]}.")
    k = _KernelMean.apply
    return k(a, a) + k(b, b) - 2 * k(a, b)


def _mlp(widths: list[int], act: type[nn.Module] = nn.ReLU) -> nn.Sequential:
    layers: list[nn.Module] = []
    for i in range(len(widths) - 1):
        layers.append(nn.Linear(widths[i], widths[i + 1]))
        if i < len(widths) - 2:
            layers.append(act())
    return nn.Sequential(*layers)


class AdversarialVAE(nn.Module):
    """Encoder ``q(z | x_rest, s, y)``, decoder ``p(x_rest, y | z, s)`` and adversary ``a(z) ≈ s``."""

    def __init__(self, n_rest: int, config: GANConfig):
        super().__init__()
        c = config
        self.encoder = nn.Sequential(_mlp([n_rest + 2, *c.encoder_hidden]), nn.ReLU())
        self.mu = nn.Linear(c.encoder_hidden[-1], c.latent_dim)
        self.logvar = nn.Linear(c.encoder_hidden[-1], c.latent_dim)
        self.decoder = nn.Sequential(nn.Linear(c.latent_dim + 1, c.decoder_hidden), nn.ReLU())
        self.head_x = nn.Linear(c.decoder_hidden, n_rest)
        self.head_y = nn.Linear(c.decoder_hidden, 1)
        h1, h2 = c.adversary_hidden
        self.adversary = nn.Sequential(
            nn.Linear(c.latent_dim, h1), nn.Tanh(), nn.Linear(h1, h2), nn.ReLU(), nn.Linear(h2, 1)
        )

    def vae_parameters(self) -> list[nn.Parameter]:
        return [p for n, p in self.named_parameters() if not n.startswith("adversary.")]

    def encode(self, x: torch.Tensor, s: torch.Tensor, y: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        h = self.encoder(torch.cat([x, s, y], dim=1))
        return self.mu(h), self.logvar(h)

    def decode(self, z: torch.Tensor, s: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        h = self.decoder(torch.cat([z, s], dim=1))
        return self.head_x(h), self.head_y(h)


class GANBaseline(PredictMixin, BaseEstimator):
    """Grari et al. (2023): adversarial counterfactual inference + counterfactually fair predictor.

    Common interface (:mod:`cffair.learners._contract`): :meth:`fit` (readable training frame and a fitted
    :class:`~cffair.datasets._encoding.Encoder`), :meth:`predict_score` (encoded rows → P(y = 1) or a
    score), :meth:`counterfactuals` (a :class:`~cffair.causal.CounterfactualSet` with
    ``meta["generator"] == "gan"``).

    Args:
        config: hyperparameters (default :class:`GANConfig`).
        device: where both stages train (:mod:`cffair._support.devices`); random draws come from the
            same CPU generators on every device.
    """

    model_: AdversarialVAE | None = None
    predictor_: nn.Module | None = None

    def __init__(self, config: GANConfig | None = None, *, device: str = "cpu"):
        self.config = config
        self.device = device

    @property
    def _c(self) -> GANConfig:
        return self.config or GANConfig()

    def _target_kind(self) -> str:
        check_fitted(self)
        return self.target_kind_

    def _randn(self, shape: torch.Size, gen: torch.Generator) -> torch.Tensor:
        """Standard normal draws from the CPU generator ``gen``, on the device (the CPU run's stream)."""
        return torch.randn(shape, generator=gen).to(self.device_)

    # ------------------------------------------------------------------ layout
    def _setup(self, frame: pd.DataFrame, encoder) -> None:
        self.encoder_ = encoder
        self.spec_ = encoder.spec
        self.s_col_ = binary_sensitive(frame, encoder, "the GAN baseline (Grari et al. 2023)").start
        d = encoder.n_features_out
        self.rest_cols_ = [j for j in range(d) if j != self.s_col_]
        offset = {j: i for i, j in enumerate(self.rest_cols_)}
        others = [f for f in self.spec_.features if f != self.spec_.sensitive]
        self.blocks_: list[Block] = feature_blocks(encoder, others, offset)
        self.target_kind_ = self.spec_.target_kind
        self.n_features_ = d

    def _split(
        self, X: np.ndarray, y: np.ndarray | None = None
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor | None]:
        """``(x without s, s, y)`` on the device (moved once per stage)."""
        dev = self.device_
        xt = torch.from_numpy(np.ascontiguousarray(X[:, self.rest_cols_])).to(dev)
        st = torch.from_numpy(np.ascontiguousarray(X[:, [self.s_col_]])).to(dev)
        yt = None if y is None else torch.from_numpy(self._y_in(y)).unsqueeze(1).to(dev)
        return xt, st, yt

    def _y_in(self, y: np.ndarray) -> np.ndarray:
        if self.target_kind_ == "binary":
            return y.astype(np.float32)
        return ((y - self.y_mean_) / self.y_std_).astype(np.float32)

    def _assemble(self, x_rest: torch.Tensor, s: torch.Tensor) -> torch.Tensor:
        out = torch.empty(x_rest.shape[0], self.n_features_, dtype=x_rest.dtype, device=x_rest.device)
        out[:, self.rest_cols_] = x_rest
        out[:, [self.s_col_]] = s
        return out

    # ------------------------------------------------------------------ stage 1
    def _y_loss(self, out: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        if self.target_kind_ == "binary":
            return F.binary_cross_entropy_with_logits(out, y)
        return F.mse_loss(out, y)

    def _adversary_steps(self, z: torch.Tensor, s: torch.Tensor, steps: int) -> None:
        """``steps`` Adam updates of the adversary on ``MSE(a(z), s)``.

        Clean (default): ``z`` is detached, only the adversary gets gradients. With
        ``leak_adversary_grad`` the original's behaviour: each backward also adds
        ``∂ loss_adv / ∂ θ_VAE`` into the encoder's ``.grad`` (written-out update: the steps'
        ``∂ loss_adv / ∂ z`` summed, then sent back through ``z`` once; the same sum).
        """
        model, leak = self.model_, self._c.leak_adversary_grad
        if self._c.adversary_update == "written":
            gz = self.adv_.steps(z.unsqueeze(0), s.unsqueeze(0), steps, leak=leak)
            self.adv_.write_to([model.adversary])  # type: ignore[union-attr]
            if gz is not None and steps:
                torch.autograd.backward(z, gz[0], inputs=self.vae_params_, retain_graph=True)
            return
        zz = z if leak else z.detach()
        adv_params = list(model.adversary.parameters())  # type: ignore[union-attr]
        for _ in range(steps):
            self.adv_opt_.zero_grad()
            loss = F.mse_loss(model.adversary(zz), s)  # type: ignore[union-attr]
            if leak:
                loss.backward(retain_graph=True)
            else:
                torch.autograd.backward(loss, inputs=adv_params)
            self.adv_opt_.step()

    def _inference_step(
        self, x: torch.Tensor, s: torch.Tensor, y: torch.Tensor, inner_steps: int, gen: torch.Generator
    ) -> float:
        c, model = self._c, self.model_
        self.vae_opt_.zero_grad()
        mu, logvar = model.encode(x, s, y)  # type: ignore[union-attr]
        z = mu + self._randn(mu.shape, gen) * torch.exp(0.5 * logvar)
        x_logits, y_out = model.decode(z, s)  # type: ignore[union-attr]
        loss_x = reconstruction_loss(x_logits, x, self.blocks_)
        loss_y = self._y_loss(y_out, y)
        mmd = mmd_rbf(self._randn(z.shape, gen), z)
        self._adversary_steps(z, s, inner_steps)
        loss_adv = F.mse_loss(model.adversary(z), s)  # type: ignore[union-attr]
        loss = c.beta_x * loss_x + c.beta_y * loss_y + c.beta_mmd * mmd - c.beta_adv * loss_adv
        torch.autograd.backward(loss, inputs=self.vae_params_)
        self.vae_opt_.step()
        return float(loss.detach())

    @flushed_denormals()
    def fit_inference(self, frame: pd.DataFrame, encoder, *, epochs: int | None = None) -> GANBaseline:
        """Stage 1: train the adversarial MMD-VAE on the readable training ``frame``."""
        c = self._c
        self.device_ = resolve_device(self.device)
        self.history_: dict[str, list[float]] = {"inference": [], "predictor": [], "penalty": []}
        self.timings_: dict[str, float] = {}
        self.predictor_ = None
        self._setup(frame, encoder)
        X, y = encode_frame(frame, encoder)
        self.y_mean_ = float(y.mean())
        self.y_std_ = float(y.std()) or 1.0
        self.num_range_ = {f: (float(frame[f].min()), float(frame[f].max())) for f in encoder.numeric}
        torch.manual_seed(c.seed)
        self.model_ = AdversarialVAE(len(self.rest_cols_), c).to(self.device_)
        self.vae_params_ = self.model_.vae_parameters()
        # fused: one kernel per step instead of a Python loop over parameters (the adversary's
        # 50 updates per batch are dominated by per-step overhead, not arithmetic)
        self.vae_opt_ = torch.optim.Adam(self.vae_params_, lr=c.inference_lr, fused=True)
        if c.adversary_update == "written":
            self.adv_ = PackedAdversary([self.model_.adversary], lr=c.adversary_lr)
        else:
            self.adv_opt_ = torch.optim.Adam(self.model_.adversary.parameters(), lr=c.adversary_lr, fused=True)
        self.gen_ = torch.Generator().manual_seed(c.seed)
        x, s, yt = self._split(X, y)
        t0 = time.perf_counter()
        self.model_.train()
        for epoch in range(c.inference_epochs if epochs is None else epochs):
            steps = c.first_epoch_inner_steps if epoch == 0 else c.inner_steps
            losses = [
                self._inference_step(x[idx], s[idx], yt[idx], steps, self.gen_)  # type: ignore[index]
                for idx in (i.to(self.device_) for i in minibatches(len(x), c.batch_size, self.gen_, drop_last=True))
            ]
            self.history_["inference"].append(float(np.mean(losses)))
        self.model_.eval()
        self.timings_["inference"] = time.perf_counter() - t0
        return self

    # ------------------------------------------------------------------ counterfactual reconstructions
    def _reconstruct_pair(
        self, x: torch.Tensor, s: torch.Tensor, y: torch.Tensor, sample: bool, hard: bool, gen: torch.Generator | None
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """Encoded factual and counterfactual reconstructions ``x̂(z, s)``, ``x̂(z, s')`` (full width)."""
        model = self.model_
        s_cf = 1.0 - s
        mu, logvar = model.encode(x, s, y)  # type: ignore[union-attr]
        eps = self._randn(mu.shape, gen) if sample else torch.zeros_like(mu)  # type: ignore[arg-type]
        z = mu + eps * torch.exp(0.5 * logvar)
        if self._c.encoder_sees_counterfactual:
            mu_c, logvar_c = model.encode(x, s_cf, y)  # type: ignore[union-attr]
            z_cf = mu_c + eps * torch.exp(0.5 * logvar_c)
        else:
            z_cf = z
        xf = decode(model.decode(z, s)[0], self.blocks_, hard=hard)  # type: ignore[union-attr]
        xc = decode(model.decode(z_cf, s_cf)[0], self.blocks_, hard=hard)  # type: ignore[union-attr]
        return self._assemble(xf, s), self._assemble(xc, s_cf)

    # ------------------------------------------------------------------ stage 2
    @flushed_denormals()
    def fit_predictor(self, frame: pd.DataFrame, *, epochs: int | None = None) -> GANBaseline:
        """Stage 2: the counterfactually fair predictor ``h`` on the same training ``frame``.

        With ``predictor_patience`` set, ``validation_fraction`` of the rows are held out and
        the epoch with the best validation objective ``loss + λ · penalty`` (posterior-mean
        reconstructions) is kept.
        """
        check_fitted(self)
        c, dev = self._c, self.device_
        X, y = encode_frame(frame, self.encoder_)
        x, s, yt = self._split(X, y)
        assert yt is not None  # y was given
        xfull = torch.from_numpy(X).to(dev)
        target = yt.squeeze(1)
        torch.manual_seed(c.seed + 1)
        layers: list[nn.Module] = [_mlp([X.shape[1], *c.predictor_hidden, 1]), nn.Flatten(0)]
        if self.target_kind_ == "binary":
            layers.insert(1, nn.Sigmoid())
        self.predictor_ = h = nn.Sequential(*layers).to(dev)
        opt = torch.optim.Adam(h.parameters(), lr=c.predictor_lr, fused=True)
        gen = torch.Generator().manual_seed(c.seed + 2)
        train_rows = torch.arange(len(x))
        val_rows = None
        if c.predictor_patience is not None:
            perm = torch.randperm(len(x), generator=gen)
            n_val = max(1, int(round(c.validation_fraction * len(x))))
            val_rows, train_rows = perm[:n_val].to(dev), perm[n_val:]
            with torch.no_grad():
                vf, vc = self._reconstruct_pair(
                    x[val_rows], s[val_rows], yt[val_rows], sample=False, hard=False, gen=None
                )
        best, best_state, since = float("inf"), None, 0
        t0 = time.perf_counter()
        k = c.n_cf_samples
        self.stopped_epoch_ = None
        for epoch in range(c.predictor_epochs if epochs is None else epochs):
            h.train()
            tot, pen_tot, nb = 0.0, 0.0, 0
            for sub in minibatches(len(train_rows), c.batch_size, gen, drop_last=True):
                idx = train_rows[sub].to(dev)
                with torch.no_grad():
                    rep = idx.repeat_interleave(k)
                    xf, xc = self._reconstruct_pair(x[rep], s[rep], yt[rep], sample=True, hard=False, gen=gen)
                opt.zero_grad()
                loss_y = predictor_loss(h(xfull[idx]), target[idx], self.target_kind_)
                penalty = ((h(xc) - h(xf)) ** 2).mean()
                loss = loss_y + c.cf_weight * penalty
                loss.backward()
                opt.step()
                tot, pen_tot, nb = tot + float(loss_y.detach()), pen_tot + float(penalty.detach()), nb + 1
            self.history_["predictor"].append(tot / nb)
            self.history_["penalty"].append(pen_tot / nb)
            if val_rows is not None:
                h.eval()
                with torch.no_grad():
                    v = float(
                        predictor_loss(h(xfull[val_rows]), target[val_rows], self.target_kind_)
                        + c.cf_weight * ((h(vc) - h(vf)) ** 2).mean()
                    )
                self.history_.setdefault("validation", []).append(v)
                if v < best - 1e-6:
                    best, since = v, 0
                    best_state = {key: t.detach().clone() for key, t in h.state_dict().items()}
                else:
                    since += 1
                    if since >= c.predictor_patience:  # type: ignore[operator]
                        self.stopped_epoch_ = epoch
                        break
        if best_state is not None:
            h.load_state_dict(best_state)
        h.eval()
        self.timings_["predictor"] = time.perf_counter() - t0
        return self

    def fit(self, frame: pd.DataFrame, encoder) -> GANBaseline:
        """Both stages on the readable training ``frame`` (features and target) with a fitted ``encoder``
        (on ``device``; :meth:`predict_score` and the counterfactuals run there too)."""
        return self.fit_inference(frame, encoder).fit_predictor(frame)

    # ------------------------------------------------------------------ prediction
    def predict_score(self, X: np.ndarray) -> np.ndarray:
        """P(y = 1) (binary target) or the score in the target's units; float64 ``(n,)``."""
        check_fitted(self, "predictor_")
        out = predict_mlp(self.predictor_, check_encoded(X, self.n_features_))  # type: ignore[arg-type]
        if self.target_kind_ == "score":
            out = out * self.y_std_ + self.y_mean_
        return out

    # ------------------------------------------------------------------ counterfactuals
    def counterfactual_frame(self, frame: pd.DataFrame, sample: bool = False) -> pd.DataFrame:
        """Readable counterfactuals ``x̂(z, s')`` of the rows of ``frame`` (same order, index reset).

        ``z`` is the posterior mean (``sample=False``, deterministic) or a sample. Numeric
        values are clipped to the training range (a reconstruction may leave it, e.g. a
        negative count).
        """
        check_fitted(self)
        X, y = encode_frame(frame, self.encoder_)
        x, s, yt = self._split(X, y)
        gen = torch.Generator().manual_seed(self._c.seed + 3)
        with torch.no_grad():
            _, xc = self._reconstruct_pair(x, s, yt, sample=sample, hard=True, gen=gen)  # type: ignore[arg-type]
        out = self.encoder_.inverse_transform(xc.cpu().numpy())
        for f, (lo, hi) in self.num_range_.items():
            out[f] = out[f].clip(lo, hi)
        return out

    def counterfactuals(self, frame: pd.DataFrame, rows: np.ndarray | None = None, sample: bool = False):
        """The counterfactuals on the sensitive attribute as a :class:`CounterfactualSet`.

        Args:
            frame: the whole dataset frame (row ids are positional into it).
            rows: positional rows to generate for (default: all).
        """
        from cffair.causal._cfset import CounterfactualSet

        rows = np.arange(len(frame)) if rows is None else np.asarray(rows, dtype=np.int64)
        cf = self.counterfactual_frame(frame.iloc[rows], sample=sample)
        cf["row_id"] = rows
        meta = {"generator": "gan", "method": "Grari et al. 2023", "config": asdict(self._c), "sample": sample}
        return CounterfactualSet.from_frames(frame, cf, self.spec_, self.spec_.sensitive, meta=meta)


def paper_config(dataset: str, **changes: Any) -> GANConfig:
    """The paper's GAN settings for a dataset (batch 2048 for Adult, 512 otherwise)."""
    if dataset not in PAPER_BATCH_SIZE:
        raise DataError(
            f"no paper batch size for {dataset!r}; known: {sorted(PAPER_BATCH_SIZE)}. Pass batch_size yourself."
        )
    return GANConfig(batch_size=PAPER_BATCH_SIZE[dataset], **changes)
