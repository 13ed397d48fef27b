"""Several training seeds of the GAN baseline trained together as one batched network.

The GAN's counterfactual inference (stage 1 of :class:`cffair.baselines.GANBaseline`) is
overhead-bound on CPU: at a batch of 512 rows most of a step is fixed cost per ATen call, not
arithmetic. :func:`fit_stacked` trains ``K`` models of one configuration that differ only in their
seed as one network whose every weight has a leading member dimension (each layer one
``torch.baddbmm``), so one call does the work of ``K``:

* **Initialisation**: member ``k``'s weights are those of ``GANBaseline(config with seed=seeds[k])``
  (built after ``torch.manual_seed(seeds[k])``, then stacked).
* **Random streams**: member ``k`` has its own ``torch.Generator`` seeded ``seeds[k]``, drawn in the
  single run's order (each epoch's permutation, then per batch the reparametrisation noise and the
  MMD's prior sample), so its minibatches and noise are the single run's.
* **Optimisers**: Adam is elementwise, so one fused Adam over the stacked weights is ``K``
  independent Adams; member ``k``'s moments are its slice. The adversary uses the written-out
  update (:class:`cffair.baselines._adversary.PackedAdversary`) for every member.
* **Losses**: each member's loss is computed per member (means over its own rows); their sum is
  differentiated, and no weight is shared, so each member gets exactly its own gradient.

What differs from ``K`` separate runs is only float rounding (batched products and reductions
summed in another order), which training amplifies slowly: ``tests/baselines/test_baselines_fit.py``
compares a stacked member with the single run at the same seed. The fair predictor (stage 2) is
then trained per member with :meth:`GANBaseline.fit_predictor`, the single run's own code: with
early stopping it is a small share of the GAN's time (``benchmarks/bench_gan_adversary.py``).

Each returned member is a :class:`GANBaseline` like a separately fitted one (``model_``,
``predictor_``, ``history_``, :meth:`~GANBaseline.predict_score`, :meth:`~GANBaseline.counterfactuals`);
``timings_["inference"]`` is the stacked stage's wall time divided by ``K`` and ``stacked_``
records the seeds trained together.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import numpy as np
import pandas as pd
import torch
import torch.nn.functional as F
from torch import nn

from cffair._support.devices import flushed_denormals, resolve_device
from cffair.baselines._adversary import PackedAdversary
from cffair.baselines._gan import AdversarialVAE, GANBaseline, GANConfig
from cffair.baselines._mixed import Block, encode_frame, minibatches
from cffair.errors import ParameterError

__all__ = ["fit_stacked", "stacked_mmd", "stacked_reconstruction_loss"]


class _StackedKernelMean(torch.autograd.Function):
    """Per member ``mean_ij exp(−max(‖u_i − v_j‖², 0) / dim²)`` for ``(K, n, dim)`` and ``(K, m, dim)``:
    :class:`cffair.baselines._gan._KernelMean` with batched products, result ``(K,)``."""

    @staticmethod
    def forward(ctx: Any, u: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
        scale = -1.0 / float(u.shape[2] ** 2)
        ones_u, ones_v = u.new_ones(*u.shape[:2], 1), v.new_ones(*v.shape[:2], 1)
        left = torch.cat([u, (u * u).sum(2, keepdim=True), ones_u], dim=2)
        right = torch.cat([-2.0 * v, ones_v, (v * v).sum(2, keepdim=True)], dim=2) * scale
        e = torch.bmm(left, right.transpose(1, 2)).clamp_max_(0.0).exp_()
        ctx.save_for_backward(u, v, e)
        ctx.scale = scale
        return e.mean(dim=(1, 2))

    @staticmethod
    def backward(ctx: Any, grad: torch.Tensor) -> tuple[torch.Tensor | None, torch.Tensor | None]:  # type: ignore[override]
        u, v, e = ctx.saved_tensors
        c = (grad * (2.0 * ctx.scale / (e.shape[1] * e.shape[2]))).view(-1, 1, 1)
        d = u.shape[2]
        gu = gv = None
        if ctx.needs_input_grad[0]:
            ev = torch.bmm(e, torch.cat([v, v.new_ones(*v.shape[:2], 1)], dim=2))
            gu = c * (u * ev[:, :, d:] - ev[:, :, :d])
        if ctx.needs_input_grad[1]:
            eu = torch.bmm(e.transpose(1, 2), torch.cat([u, u.new_ones(*u.shape[:2], 1)], dim=2))
            gv = c * (v * eu[:, :, d:] - eu[:, :, :d])
        return gu, gv


def stacked_mmd(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """:func:`cffair.baselines.mmd_rbf` of each member: ``(K, n, dim)``, ``(K, m, dim)`` → ``(K,)``."""
    k = _StackedKernelMean.apply
    return k(a, a) + k(b, b) - 2 * k(a, b)


def stacked_reconstruction_loss(logits: torch.Tensor, target: torch.Tensor, blocks: Sequence[Block]) -> torch.Tensor:
    """:func:`cffair.baselines._mixed.reconstruction_loss` of each member: ``(K, B, d)`` → ``(K,)``."""
    k, n = logits.shape[:2]
    total = logits.new_zeros(k)
    for b in blocks:
        lo, ta = logits[:, :, b.start : b.stop], target[:, :, b.start : b.stop]
        if b.kind == "numeric":
            total = total + 0.5 * ((lo - ta) ** 2).sum(dim=2).mean(dim=1)
        elif b.kind == "binary":
            total = total + F.binary_cross_entropy_with_logits(lo, ta, reduction="none").sum(dim=2).mean(dim=1)
        else:
            ce = F.cross_entropy(lo.reshape(k * n, b.width), ta.argmax(dim=2).reshape(k * n), reduction="none")
            total = total + ce.view(k, n).mean(dim=1)
    return total


def _linear(x: torch.Tensor, w: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """``x Wᵀ + b`` per member: ``(K, B, in)``, ``(K, out, in)``, ``(K, out)``."""
    return torch.baddbmm(b.unsqueeze(1), x, w.transpose(1, 2))


class _StackedVAE:
    """The ``K`` members' encoders and decoders as stacked parameters (leading dimension ``K``)."""

    def __init__(self, models: Sequence[AdversarialVAE]):
        self.names = [n for n, _ in models[0].named_parameters() if not n.startswith("adversary.")]
        with torch.no_grad():
            self.params = {
                n: nn.Parameter(torch.stack([dict(m.named_parameters())[n].detach() for m in models]))
                for n in self.names
            }
        self.n_encoder = sum(isinstance(m, nn.Linear) for m in models[0].encoder.modules())

    def _lin(self, prefix: str, x: torch.Tensor) -> torch.Tensor:
        return _linear(x, self.params[prefix + ".weight"], self.params[prefix + ".bias"])

    def encode(self, x: torch.Tensor, s: torch.Tensor, y: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        h = torch.cat([x, s, y], dim=2)
        for i in range(self.n_encoder):  # encoder.0 is the Linear/ReLU stack, every layer followed by a ReLU
            h = torch.relu(self._lin(f"encoder.0.{2 * i}", h))
        return self._lin("mu", h), self._lin("logvar", h)

    def decode(self, z: torch.Tensor, s: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        h = torch.relu(self._lin("decoder.0", torch.cat([z, s], dim=2)))
        return self._lin("head_x", h), self._lin("head_y", h)

    def write_to(self, models: Sequence[AdversarialVAE]) -> None:
        with torch.no_grad():
            for k, m in enumerate(models):
                own = dict(m.named_parameters())
                for n in self.names:
                    own[n].copy_(self.params[n][k])


def _members(config: GANConfig, seeds: Sequence[int], device: str) -> list[GANBaseline]:
    if len(seeds) == 0:
        raise ParameterError("fit_stacked needs at least one seed, e.g. seeds=[0, 1, 2].")
    bad = [s for s in seeds if isinstance(s, bool) or not isinstance(s, (int, np.integer)) or s < 0]
    if bad:
        raise ParameterError(f"fit_stacked's seeds must be non-negative integers, got {bad}.")
    return [GANBaseline(replace(config, seed=int(s)), device=device) for s in seeds]


@flushed_denormals()
def fit_stacked_inference(
    frame: pd.DataFrame,
    encoder,
    config: GANConfig,
    seeds: Sequence[int],
    *,
    device: str = "cpu",
    epochs: int | None = None,
) -> list[GANBaseline]:
    """Stage 1 (counterfactual inference) of one GAN per seed, trained together; see the module docstring.

    Args:
        frame: the readable training frame (features and target).
        encoder: a fitted :class:`~cffair.datasets._encoding.Encoder`.
        config: the shared settings (its ``seed`` is replaced by each of ``seeds``).
        seeds: one training seed per member.
        device: where to train (random draws come from CPU generators, as a single run's).
        epochs: override of ``config.inference_epochs``.

    Returns:
        One :class:`GANBaseline` per seed, in order, with stage 1 fitted (as after
        :meth:`GANBaseline.fit_inference`).
    """
    members = _members(config, seeds, device)
    c, dev = config, resolve_device(device)
    X, y = encode_frame(frame, encoder)
    for m in members:
        m.device_ = dev
        m.history_ = {"inference": [], "predictor": [], "penalty": []}
        m.timings_ = {}
        m.predictor_ = None
        m._setup(frame, encoder)
        m.y_mean_, m.y_std_ = float(y.mean()), float(y.std()) or 1.0
        m.num_range_ = {f: (float(frame[f].min()), float(frame[f].max())) for f in encoder.numeric}
        torch.manual_seed(m._c.seed)
        m.model_ = AdversarialVAE(len(m.rest_cols_), m._c).to(dev)
        m.vae_params_ = m.model_.vae_parameters()
        m.gen_ = torch.Generator().manual_seed(m._c.seed)
    first = members[0]
    models = [m.model_ for m in members]
    vae = _StackedVAE(models)  # type: ignore[arg-type]
    adversary = PackedAdversary([m.adversary for m in models], lr=c.adversary_lr)  # type: ignore[union-attr]
    opt = torch.optim.Adam(list(vae.params.values()), lr=c.inference_lr, fused=True)
    x, s, yt = first._split(X, y)
    assert yt is not None
    gens = [m.gen_ for m in members]
    blocks, binary = first.blocks_, first.target_kind_ == "binary"
    k, t0 = len(members), time.perf_counter()
    for epoch in range(c.inference_epochs if epochs is None else epochs):
        steps = c.first_epoch_inner_steps if epoch == 0 else c.inner_steps
        losses = []
        for idx in zip(*(minibatches(len(x), c.batch_size, g, drop_last=True) for g in gens)):
            rows = torch.stack(idx).to(dev)
            xb, sb, yb = x[rows], s[rows], yt[rows]
            opt.zero_grad()
            mu, logvar = vae.encode(xb, sb, yb)
            eps = torch.stack([torch.randn(mu.shape[1:], generator=g) for g in gens]).to(dev)
            z = mu + eps * torch.exp(0.5 * logvar)
            x_logits, y_out = vae.decode(z, sb)
            loss_x = stacked_reconstruction_loss(x_logits, xb, blocks)
            if binary:
                loss_y = F.binary_cross_entropy_with_logits(y_out, yb, reduction="none").mean(dim=(1, 2))
            else:
                loss_y = ((y_out - yb) ** 2).mean(dim=(1, 2))
            prior = torch.stack([torch.randn(z.shape[1:], generator=g) for g in gens]).to(dev)
            mmd = stacked_mmd(prior, z)
            leaked = adversary.steps(z, sb, steps, leak=c.leak_adversary_grad)
            loss_adv = ((adversary.forward(z) - sb) ** 2).mean(dim=(1, 2))
            loss = c.beta_x * loss_x + c.beta_y * loss_y + c.beta_mmd * mmd - c.beta_adv * loss_adv
            params = list(vae.params.values())
            if leaked is not None and steps:
                torch.autograd.backward([loss.sum(), z], [torch.ones(()), leaked], inputs=params)
            else:
                torch.autograd.backward(loss.sum(), inputs=params)
            opt.step()
            losses.append(loss.detach().cpu().tolist())
        per_member = np.asarray(losses, dtype=np.float64).mean(axis=0)
        for m, v in zip(members, per_member):
            m.history_["inference"].append(float(v))
    elapsed = time.perf_counter() - t0
    vae.write_to(models)  # type: ignore[arg-type]
    adversary.write_to([m.adversary for m in models])  # type: ignore[union-attr]
    for i, m in enumerate(members):
        m.model_.eval()  # type: ignore[union-attr]
        m.timings_["inference"] = elapsed / k
        m.stacked_ = {"seeds": [int(v) for v in seeds], "member": i}
    return members


def fit_stacked(
    frame: pd.DataFrame,
    encoder,
    config: GANConfig,
    seeds: Sequence[int],
    *,
    device: str = "cpu",
) -> list[GANBaseline]:
    """Fit one GAN baseline per training seed, stage 1 of all of them as one stacked network.

    Stage 1 (counterfactual inference) trains the ``K = len(seeds)`` members together
    (``cffair.baselines._gan_stacked.fit_stacked_inference``: block-batched weights, each member
    with its own initialisation, random stream and Adam state); stage 2 (the fair predictor) is
    :meth:`cffair.baselines.GANBaseline.fit_predictor` of each member. Each member is usable
    exactly like ``GANBaseline(replace(config, seed=seed)).fit(frame, encoder)`` and agrees with
    it up to float32 rounding amplified by training (``tests/baselines/test_baselines_fit.py`` bounds it).

    Args:
        frame: the readable training frame (features and target).
        encoder: a fitted :class:`cffair.datasets._encoding.Encoder`.
        config: the shared settings; its ``seed`` is replaced by each of ``seeds``.
        seeds: one training seed per member (non-negative integers; a repeated seed gives an
            identical member).
        device: where to train.

    Returns:
        One fitted :class:`cffair.baselines.GANBaseline` per seed, in the order of ``seeds``;
        ``timings_["inference"]`` is the stacked stage's time divided by ``K`` and ``stacked_``
        names the seeds trained together.

    Example::

        members = fit_stacked(train_frame, encoder, GANConfig(), seeds=[0, 1, 2])
        members[1].predict_score(X)  # the seed-1 model
    """
    members = fit_stacked_inference(frame, encoder, config, seeds, device=device)
    for m in members:
        m.fit_predictor(frame)
    return members
