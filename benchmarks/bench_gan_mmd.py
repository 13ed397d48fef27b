"""The GAN baseline's MMD term: autograd through the kernel expression versus cffair's
hand-written backward (:class:`cffair.baselines._gan._KernelMean`).

Stage 1 of the GAN method (Grari et al. 2023) adds ``MMD²(prior sample, z)`` to every batch's
loss; on Adult the batches have 2048 rows, so each of the three kernel means is a 2048 × 2048
matrix. Measured, per forward + backward of the whole MMD, on one torch thread:

* ``autograd``: the expression ``exp(−max(‖u‖² + ‖v‖² − 2 u·v, 0) / dim²)`` with autograd's
  backward (cffair's implementation until round 2);
* ``cffair``: :func:`cffair.baselines.mmd_rbf` as it is now.

Also written: the largest absolute difference between the two in the value and in the gradient
(float32), so the speed-up is shown to compute the same thing. Target: at least 2× faster at
Adult's batch size. Writes ``benchmarks/results/gan_mmd.json`` atomically.

Run: ``python benchmarks/bench_gan_mmd.py [--repeats 30]``.
"""

from __future__ import annotations

import argparse
import platform
import statistics
import time
from pathlib import Path

import torch

from cffair._support.utils import torch_cpu_setup, write_json_atomic
from cffair.baselines import PAPER_BATCH_SIZE, GANConfig, mmd_rbf

RESULTS = Path(__file__).resolve().parent / "results" / "gan_mmd.json"


def mmd_autograd(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """The same MMD², differentiated by autograd through every intermediate."""
    scale = -1.0 / float(a.shape[1] ** 2)

    def k(u: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
        sq = torch.addmm((u * u).sum(1, keepdim=True) + (v * v).sum(1), u, v.T, alpha=-2.0)
        return torch.exp(sq.clamp_min(0.0) * scale).mean()

    return k(a, a) + k(b, b) - 2 * k(a, b)


def seconds(fn, a: torch.Tensor, z: torch.Tensor, repeats: int) -> list[float]:
    """Seconds of each forward + backward of ``fn(a, z)`` (after one warm-up)."""
    times = []
    for i in range(repeats + 1):
        zz = z.detach().requires_grad_()
        t = time.perf_counter()
        fn(a, zz).backward()
        if i:
            times.append(time.perf_counter() - t)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=30)
    args = parser.parse_args()
    torch_cpu_setup()
    out: dict = {"machine": platform.processor() or platform.machine(), "torch": torch.__version__, "batches": {}}
    dim = GANConfig().latent_dim
    for batch in sorted(set(PAPER_BATCH_SIZE.values())):
        gen = torch.Generator().manual_seed(0)
        prior, z = torch.randn(batch, dim, generator=gen), torch.randn(batch, dim, generator=gen) * 1.5 + 0.3
        za, zc = z.clone().requires_grad_(), z.clone().requires_grad_()
        va, vc = mmd_autograd(prior, za), mmd_rbf(prior, zc)
        va.backward()
        vc.backward()
        res = {
            name: statistics.median(seconds(fn, prior, z, args.repeats))
            for name, fn in (("autograd", mmd_autograd), ("cffair", mmd_rbf))
        }
        out["batches"][str(batch)] = {
            "seconds": res,
            "speedup": res["autograd"] / res["cffair"],
            "max_abs_diff_value": abs(float(va.detach()) - float(vc.detach())),
            "max_abs_diff_grad": float((za.grad - zc.grad).abs().max()),
            "max_abs_grad": float(za.grad.abs().max()),
        }
        print(batch, out["batches"][str(batch)])
    write_json_atomic(RESULTS, out)


if __name__ == "__main__":
    main()
