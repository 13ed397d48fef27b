"""The GAN baseline's inner adversary update, written out: forward, backward and Adam in about 20 ops.

Stage 1 of the GAN method (:mod:`cffair.baselines._gan`) updates a small adversary
``a(z) = W₃ relu(W₂ tanh(W₁ z + b₁) + b₂) + b₃`` (5 → 32 → 16 → 1) 50 times per batch (300 in the
first epoch) on ``MSE(a(z), s)``. At a batch of 512 rows a step is 2 MFLOP; through ``nn.Sequential``,
autograd and ``torch.optim.Adam`` it was about 167 ATen calls, so the fixed cost per call was most
of the GAN's time. :class:`PackedAdversary` does the same update with:

* the weights of each layer and its bias as one block (``[Wᵀ; bᵀ]`` for the first two layers,
  ``[W, b]`` for the last: the faster product layouts of these shapes) and the inputs with a
  column of ones, so each layer is one (batched) matrix product, forward and backward;
* the backward written out: ``d = 2 (a(z) − s) / B``, ``∇[W₃, b₃] = dᵀ [h₂, 1]``,
  ``g₂ = relu'(·) ⊙ d W₃``, ``∇[W₂, b₂] = g₂ᵀ [h₁, 1]``, ``g₁ = (1 − h₁²) ⊙ g₂ W₂``,
  ``∇[W₁, b₁] = g₁ᵀ [z, 1]``;
* ``tanh(x)`` computed as ``2 σ(2x) − 1`` (the same function; torch's float32 ``tanh`` measured
  3–4x slower than its ``sigmoid`` on these sizes, and was the largest single cost left);
* one fused Adam call over one flat buffer that holds every weight (and one for the gradients,
  and Adam's two moments), so the optimiser is one kernel.

It holds ``K`` adversaries at once (the leading dimension of every block): ``K = 1`` for one
model, ``K > 1`` for seeds trained together (:mod:`cffair.baselines._gan_stacked`). Adam is
elementwise, so each member's slice of the moments is exactly that member's own Adam state.

The original's gradient leak (``leak_adversary_grad``: each inner step's ``backward`` also adds
``∂ loss_adv / ∂ z`` into the encoder) is linear in that cotangent, so :meth:`PackedAdversary.steps`
sums ``g₁ W₁`` over the steps (one more op per step, computed before that step's Adam update)
and the caller sends the sum back through ``z`` once instead of 50 times.

``tests/baselines/test_baselines_units.py`` checks the gradients against autograd's and a short training
against the ``torch.optim.Adam`` path (``GANConfig(adversary_update="autograd")``);
``benchmarks/bench_gan_adversary.py`` times both.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch
from torch import nn

__all__ = ["PackedAdversary"]


def _linears(module: nn.Sequential) -> list[nn.Linear]:
    layers = [m for m in module if isinstance(m, nn.Linear)]
    acts = [type(m) for m in module if not isinstance(m, nn.Linear)]
    if len(layers) != 3 or acts != [nn.Tanh, nn.ReLU] or layers[-1].out_features != 1:
        raise ValueError(
            f"PackedAdversary needs the GAN's adversary Linear-Tanh-Linear-ReLU-Linear with one output, got {module}."
        )  # internal invariant
    return layers


class PackedAdversary:
    """``K`` adversaries (Linear-Tanh-Linear-ReLU-Linear(·, 1)) with a written-out update and fused Adam.

    Args:
        modules: the ``K`` adversaries (same shapes); their current weights are copied in.
        lr, betas, eps: Adam's settings (``torch.optim.Adam``'s meaning; no weight decay).
    """

    def __init__(
        self,
        modules: Sequence[nn.Sequential],
        lr: float,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
    ):
        if not modules:
            raise ValueError("PackedAdversary needs at least one adversary.")  # internal invariant
        layers = [_linears(m) for m in modules]
        first = layers[0]
        self.widths = [first[0].in_features, first[0].out_features, first[1].out_features, 1]
        for other in layers[1:]:
            if [lin.weight.shape for lin in other] != [lin.weight.shape for lin in first]:
                raise ValueError("PackedAdversary needs adversaries of the same shapes.")  # internal invariant
        self.k = k = len(modules)
        ref = first[0].weight
        d0, h1, h2 = self.widths[:3]
        # layers 1 and 2 as [Wᵀ; bᵀ] (in + 1, out): x_aug @ block, and the gradient x_augᵀ @ g, are the
        # fast layouts of these shapes; layer 3 as [W, b] (1, in + 1): dᵀ @ h_aug is its fast one
        shapes = [(k, d0 + 1, h1), (k, h1 + 1, h2), (k, 1, h2 + 1)]
        sizes = [a * b * c for a, b, c in shapes]
        self.flat = torch.empty(sum(sizes), dtype=ref.dtype, device=ref.device)
        self.grad = torch.zeros_like(self.flat)
        self.exp_avg = torch.zeros_like(self.flat)
        self.exp_avg_sq = torch.zeros_like(self.flat)
        self.step_count = torch.zeros((), dtype=torch.float32, device=ref.device)
        self.lr, self.betas, self.eps = float(lr), (float(betas[0]), float(betas[1])), float(eps)
        bounds = [0, *torch.tensor(sizes).cumsum(0).tolist()]
        self.blocks = [self.flat[bounds[i] : bounds[i + 1]].view(shapes[i]) for i in range(3)]
        self.grads = [self.grad[bounds[i] : bounds[i + 1]].view(shapes[i]) for i in range(3)]
        with torch.no_grad():
            for m, member in enumerate(layers):
                for (w, b), lin in zip(self._weights(m), member):
                    w.copy_(lin.weight)
                    b.copy_(lin.bias)

    def _weights(self, m: int, blocks: Sequence[torch.Tensor] | None = None) -> list[tuple[torch.Tensor, torch.Tensor]]:
        """Views ``(W, b)`` of member ``m``'s three layers (of :attr:`blocks`, or of ``blocks``
        laid out alike, e.g. :attr:`grads`), in ``nn.Linear``'s orientation."""
        w1, w2, w3 = self.blocks if blocks is None else blocks
        return [(w1[m, :-1, :].T, w1[m, -1, :]), (w2[m, :-1, :].T, w2[m, -1, :]), (w3[m, :, :-1], w3[m, :, -1])]

    def member_gradients(self, m: int) -> list[tuple[torch.Tensor, torch.Tensor]]:
        """Member ``m``'s last gradients ``(∇W, ∇b)`` per layer, in ``nn.Linear``'s orientation."""
        return self._weights(m, self.grads)

    # ------------------------------------------------------------------ forward
    def forward(self, z: torch.Tensor) -> torch.Tensor:
        """``a(z)`` for ``z`` of shape ``(K, B, latent)``: ``(K, B, 1)``, differentiable in ``z`` (not in the weights)."""
        w1, w2, w3 = (b.detach() for b in self.blocks)
        h = torch.tanh(torch.baddbmm(w1[:, -1:, :], z, w1[:, :-1, :]))
        h = torch.relu(torch.baddbmm(w2[:, -1:, :], h, w2[:, :-1, :]))
        return torch.baddbmm(w3[:, :, -1:], h, w3[:, :, :-1].transpose(1, 2))

    def write_to(self, modules: Sequence[nn.Sequential]) -> None:
        """Copy the current weights back into the ``K`` adversary modules (the packed ones are the truth while training)."""
        dst, src = [], []
        for m, module in enumerate(modules):
            for (w, b), lin in zip(self._weights(m), _linears(module)):
                dst += [lin.weight.data, lin.bias.data]
                src += [w, b]
        torch._foreach_copy_(dst, src)

    # ------------------------------------------------------------------ update
    def _buffers(self, z: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """``[z, 1]`` and the two hidden layers' ``[h, 1]`` buffers for inputs ``z`` ``(K, B, latent)``."""
        k, n = z.shape[:2]
        za = torch.cat([z, z.new_ones(k, n, 1)], dim=2)
        h1 = z.new_ones(k, n, self.widths[1] + 1)
        h2 = z.new_ones(k, n, self.widths[2] + 1)
        return za, h1, h2

    @torch.no_grad()
    def gradients(self, z: torch.Tensor, s: torch.Tensor, leak: torch.Tensor | None = None) -> torch.Tensor:
        """Write ``∇ MSE(a(z), s)`` of every member into :attr:`grad`; return the members' losses ``(K,)``.

        Args:
            z: ``(K, B, latent)`` inputs (treated as constants).
            s: ``(K, B, 1)`` targets.
            leak: optional ``(K, B, latent)`` buffer to which ``∂ loss / ∂ z`` is added.
        """
        out = self._gradients(*self._buffers(z.detach()), s * (2.0 / z.shape[1]), leak)
        return ((out - s) ** 2).mean(dim=(1, 2))

    def _gradients(
        self, za: torch.Tensor, h1: torch.Tensor, h2: torch.Tensor, s2: torch.Tensor, leak: torch.Tensor | None
    ) -> torch.Tensor:
        """The written-out forward and backward (about 15 calls); returns ``a(z)``."""
        w1, w2, w3 = self.blocks
        g1w, g2w, g3w = self.grads
        t1, r2 = h1[:, :, :-1], h2[:, :, :-1]
        # tanh(x) = 2σ(2x) − 1: torch's float32 tanh measured 3-4x slower than its sigmoid here
        torch.sigmoid(torch.bmm(za, w1).mul_(2.0), out=t1)
        t1.mul_(2.0).sub_(1.0)
        pre2 = torch.bmm(h1, w2)
        torch.clamp_min(pre2, 0.0, out=r2)
        out = torch.bmm(h2, w3.transpose(1, 2))
        d = torch.add(-s2, out, alpha=2.0 / za.shape[1])  # 2 (a(z) − s) / B, with s2 = 2 s / B
        torch.bmm(d.transpose(1, 2), h2, out=g3w)
        g2 = torch.ops.aten.threshold_backward(torch.bmm(d, w3[:, :, :-1]), pre2, 0.0)
        torch.bmm(h1.transpose(1, 2), g2, out=g2w)
        g1 = torch.ops.aten.tanh_backward(torch.bmm(g2, w2[:, :-1, :].transpose(1, 2)), t1)
        torch.bmm(za.transpose(1, 2), g1, out=g1w)
        if leak is not None:
            leak.baddbmm_(g1, w1[:, :-1, :].transpose(1, 2))
        return out

    def adam_step(self) -> None:
        """One Adam update of every member from :attr:`grad` (one fused kernel)."""
        self.step_count += 1
        torch._fused_adam_(
            [self.flat],
            [self.grad],
            [self.exp_avg],
            [self.exp_avg_sq],
            [],
            [self.step_count],
            amsgrad=False,
            lr=self.lr,
            beta1=self.betas[0],
            beta2=self.betas[1],
            weight_decay=0.0,
            eps=self.eps,
            maximize=False,
        )

    @torch.no_grad()
    def steps(self, z: torch.Tensor, s: torch.Tensor, n_steps: int, leak: bool = False) -> torch.Tensor | None:
        """``n_steps`` Adam updates of every member on ``MSE(a(z), s)``, ``z`` ``(K, B, latent)`` fixed.

        Returns:
            With ``leak``, the sum over the steps of ``∂ loss_t / ∂ z`` (each at that step's
            weights), shape of ``z``: what the original's ``backward`` on a non-detached ``z``
            adds to the encoder, to be sent back through ``z`` once. Otherwise ``None``.
        """
        z = z.detach()
        buffers = self._buffers(z)
        s2 = s * (2.0 / z.shape[1])
        acc = torch.zeros_like(z) if leak else None
        for _ in range(n_steps):
            self._gradients(*buffers, s2, acc)
            self.adam_step()
        return acc
