"""The GAN baseline's inner adversary update written out, and seeds trained together (issue 43).

Two measurements, each as alternating rounds in one process (every variant once per round, the
order rotated each round), wall time (``time.perf_counter``) beside CPU time
(``time.process_time``), the 1-minute load average before and after, one torch thread:

1. ``update``: one adversary update (5 → 32 → 16 → 1 on ``MSE(a(z), s)``, Adam) at ``--rows``
   rows (512: the paper's batch on COMPAS and Lawschool), timed over ``--steps`` consecutive
   updates as stage 1 runs them (50 per batch):

   * ``autograd``: ``nn.Sequential``, ``backward(inputs=...)``, fused ``torch.optim.Adam`` (the
     code before this change, kept as ``GANConfig(adversary_update="autograd")``);
   * ``written``: :class:`cffair.baselines._adversary.PackedAdversary` with one member;
   * ``written_stacked_K``: ``K`` members in one packed update (time per member);
   * ``released_*``: the same with the release's gradient leak into the encoder (the autograd
     version calls ``backward(retain_graph=True)`` through the encoder every step; the written one
     sums ``∂ loss / ∂ z`` and sends it through the encoder once per batch).

   ``update_adult_batch``: the same at Adult's batch of 2048 rows. Also written: the largest
   relative difference between the two updates' weights after the ``--steps`` updates (the same
   float32 arithmetic up to rounding).

2. ``stage1``: the whole counterfactual-inference stage on COMPAS fold 0's training rows for
   ``--epochs`` short epochs (``--inner-steps`` adversary updates per batch in every epoch),
   seconds per model: a single run with the autograd update (before), a single run with the
   written update (after, the default), and :func:`cffair.baselines._gan_stacked.fit_stacked_inference`
   with ``K`` = 1, 3, 5 seeds. The predictor (stage 2) is per member in both routes and not timed.

3. ``overhead``: whether stacking would pay for the other small networks, measured as the share
   of a training step that does not grow with the rows: seconds per step at the model's own batch
   against at ``TINY`` rows (same network, same number of ops). Stacking ``K`` models saves at
   most ``(1 − 1/K)`` of that share; a step that is mostly arithmetic gains little. For the GAN's
   stage 1 (written update), DCEVAE (batch 1024) and the CNF-augmented MLP (full batch on
   COMPAS's training rows and their copies with the sensitive column flipped, merged by
   ``train_mlp``; the real twins change the merged count, not the kind of cost).

Writes ``benchmarks/results/gan_adversary.json`` atomically.
Run: ``python benchmarks/bench_gan_adversary.py [--rounds 3]`` (about 3 minutes on an idle core).
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F

from cffair._support.devices import flushed_denormals
from cffair._support.utils import torch_cpu_setup, write_json_atomic
from cffair.baselines import PAPER_BATCH_SIZE, GANBaseline, paper_config
from cffair.baselines._adversary import PackedAdversary
from cffair.baselines._gan import AdversarialVAE, GANConfig
from cffair.baselines._gan_stacked import fit_stacked_inference
from cffair.datasets import load, make_folds
from cffair.datasets._encoding import Encoder

RESULTS = Path(__file__).resolve().parent / "results" / "gan_adversary.json"
STACK_SIZES = (1, 3, 5)


def _timed(fn: Callable[[], Any]) -> tuple[float, float]:
    w, c = time.perf_counter(), time.process_time()
    fn()
    return time.perf_counter() - w, time.process_time() - c


def _rounds(variants: dict[str, Callable[[], Any]], rounds: int) -> dict[str, dict[str, list[float]]]:
    """Each variant once per round (after one untimed warm-up), the order rotated every round."""
    names = list(variants)
    for name in names:
        variants[name]()
    out: dict[str, dict[str, list[float]]] = {n: {"wall_s": [], "cpu_s": []} for n in names}
    for r in range(rounds):
        for name in names[r % len(names) :] + names[: r % len(names)]:
            wall, cpu = _timed(variants[name])
            out[name]["wall_s"].append(wall)
            out[name]["cpu_s"].append(cpu)
    return out


def _summary(times: dict[str, dict[str, list[float]]], per: dict[str, float]) -> dict[str, Any]:
    """Median, min and max per unit (``per[name]``: how many units one timed call did)."""
    return {
        name: {
            kind: {
                "median": statistics.median(v) / per[name],
                "min": min(v) / per[name],
                "max": max(v) / per[name],
                "rounds": [x / per[name] for x in v],
            }
            for kind, v in t.items()
        }
        for name, t in times.items()
    }


def _ratio(summary: dict[str, Any], before: str, after: str) -> dict[str, float]:
    return {
        kind: round(summary[before][kind]["median"] / summary[after][kind]["median"], 3) for kind in ("wall_s", "cpu_s")
    }


# ----------------------------------------------------------------------------- 1. one update
def bench_update(rows: int, steps: int, rounds: int) -> dict[str, Any]:
    cfg = GANConfig()
    gen = torch.Generator().manual_seed(0)
    n_rest = 10
    torch.manual_seed(0)
    vae = AdversarialVAE(n_rest, cfg)
    x = torch.randn(rows, n_rest, generator=gen)
    s = (torch.rand(rows, 1, generator=gen) > 0.5).float()
    y = (torch.rand(rows, 1, generator=gen) > 0.5).float()
    vae_params = vae.vae_parameters()
    adv_params = list(vae.adversary.parameters())
    opt = torch.optim.Adam(adv_params, lr=cfg.adversary_lr, fused=True)
    packed = PackedAdversary([vae.adversary], lr=cfg.adversary_lr)
    stacks = {k: PackedAdversary([vae.adversary] * k, lr=cfg.adversary_lr) for k in STACK_SIZES if k > 1}
    z_fixed = vae.encode(x, s, y)[0].detach()

    def autograd(leak: bool) -> None:
        z = vae.encode(x, s, y)[0] if leak else z_fixed
        for _ in range(steps):
            opt.zero_grad()
            loss = F.mse_loss(vae.adversary(z), s)
            if leak:
                loss.backward(retain_graph=True)
            else:
                torch.autograd.backward(loss, inputs=adv_params)
            opt.step()

    def written(leak: bool, p: PackedAdversary = packed) -> None:
        z = vae.encode(x, s, y)[0] if leak else z_fixed
        zk, sk = z.unsqueeze(0).expand(p.k, -1, -1), s.unsqueeze(0).expand(p.k, -1, -1)
        gz = p.steps(zk, sk, steps, leak=leak)
        if gz is not None:
            torch.autograd.backward(zk, gz, inputs=vae_params)

    variants: dict[str, Callable[[], Any]] = {
        "autograd": lambda: autograd(False),
        "written": lambda: written(False),
        "released_autograd": lambda: autograd(True),
        "released_written": lambda: written(True),
    }
    per = {name: float(steps) for name in variants}
    for k, p in stacks.items():
        variants[f"written_stacked_{k}"] = lambda p=p: written(False, p)
        per[f"written_stacked_{k}"] = float(steps * k)

    # agreement: the same number of updates from the same start, both ways
    torch.manual_seed(1)
    a, b = AdversarialVAE(n_rest, cfg).adversary, AdversarialVAE(n_rest, cfg).adversary
    b.load_state_dict(a.state_dict())
    opt_a = torch.optim.Adam(a.parameters(), lr=cfg.adversary_lr, fused=True)
    for _ in range(steps):
        opt_a.zero_grad()
        F.mse_loss(a(z_fixed), s).backward()
        opt_a.step()
    pb = PackedAdversary([b], lr=cfg.adversary_lr)
    pb.steps(z_fixed.unsqueeze(0), s.unsqueeze(0), steps)
    pb.write_to([b])
    rel = max(
        float((p - q).abs().max() / p.abs().max()) for p, q in zip(a.state_dict().values(), b.state_dict().values())
    )

    with flushed_denormals():
        summary = _summary(_rounds(variants, rounds), per)
    out: dict[str, Any] = {
        "rows": rows,
        "steps_per_call": steps,
        "seconds_per_update": summary,
        "speedup_written": _ratio(summary, "autograd", "written"),
        "speedup_released": _ratio(summary, "released_autograd", "released_written"),
        "max_rel_weight_diff_after_steps": rel,
    }
    for k in stacks:
        out[f"speedup_stacked_{k}_per_member"] = _ratio(summary, "autograd", f"written_stacked_{k}")
    return out


# ----------------------------------------------------------------------------- 2. stage 1
def bench_stage1(epochs: int, inner_steps: int, rounds: int) -> dict[str, Any]:
    frame, spec = load("compas")
    fold = make_folds(frame, spec, 5, seed=0)[0]
    train = frame.iloc[fold.train]
    enc = Encoder(spec).fit(train)
    cfg = paper_config("compas", inference_epochs=epochs, inner_steps=inner_steps, first_epoch_inner_steps=inner_steps)
    autograd_cfg = paper_config(
        "compas",
        inference_epochs=epochs,
        inner_steps=inner_steps,
        first_epoch_inner_steps=inner_steps,
        adversary_update="autograd",
    )
    variants: dict[str, Callable[[], Any]] = {
        "single_autograd": lambda: GANBaseline(autograd_cfg).fit_inference(train, enc),
        "single_written": lambda: GANBaseline(cfg).fit_inference(train, enc),
    }
    per = {"single_autograd": 1.0, "single_written": 1.0}
    for k in STACK_SIZES:
        variants[f"stacked_{k}"] = lambda k=k: fit_stacked_inference(train, enc, cfg, seeds=list(range(k)))
        per[f"stacked_{k}"] = float(k)
    summary = _summary(_rounds(variants, rounds), per)
    out: dict[str, Any] = {
        "dataset": "compas",
        "fold": 0,
        "rows_train": len(train),
        "batch_size": cfg.batch_size,
        "epochs": epochs,
        "inner_steps": inner_steps,
        "seconds_per_model": summary,
        "speedup_written_single": _ratio(summary, "single_autograd", "single_written"),
    }
    for k in STACK_SIZES:
        out[f"speedup_stacked_{k}_vs_single_written"] = _ratio(summary, "single_written", f"stacked_{k}")
        out[f"speedup_stacked_{k}_vs_single_autograd"] = _ratio(summary, "single_autograd", f"stacked_{k}")
    return out


# ----------------------------------------------------------------------------- 3. overhead share
TINY = 8


def bench_overhead(rounds: int) -> dict[str, Any]:
    from cffair.baselines import DCEVAE, AugmentedMLP, DCEVAEConfig, MLPConfig

    frame, spec = load("compas")
    fold = make_folds(frame, spec, 5, seed=0)[0]
    train = frame.iloc[fold.train]
    enc = Encoder(spec).fit(train)
    X, y = enc.transform(train), train[spec.target].to_numpy().astype(np.float32)
    s_col = enc.slices[spec.sensitive].start
    X_cf = X.copy()
    X_cf[:, s_col] = 1.0 - X_cf[:, s_col]
    tiny = train.iloc[:TINY]
    n_gan = len(train) // 512
    n_dce = -(-len(train) // 1024)
    gan_cfg = paper_config("compas", inference_epochs=1, inner_steps=50, first_epoch_inner_steps=50)
    dce_cfg = DCEVAEConfig()
    graph = spec.load_graph()
    mlp = MLPConfig(epochs=20)
    variants: dict[str, Callable[[], Any]] = {
        "gan_stage1_batch": lambda: GANBaseline(gan_cfg).fit_inference(train, enc),
        "gan_stage1_tiny": lambda: GANBaseline(replace(gan_cfg, batch_size=TINY)).fit_inference(
            train.iloc[: TINY * n_gan], enc
        ),
        "dcevae_batch": lambda: DCEVAE(dce_cfg, graph).fit(train, enc, epochs=1),
        "dcevae_tiny": lambda: DCEVAE(replace(dce_cfg, batch_size=TINY), graph).fit(
            train.iloc[: TINY * n_dce], enc, epochs=1
        ),
        "augmented_full": lambda: AugmentedMLP("binary", mlp).fit(X, y, X_cf, y),
        "augmented_tiny": lambda: AugmentedMLP("binary", mlp).fit(X[:TINY], y[:TINY], X_cf[:TINY], y[:TINY]),
    }
    per = {
        "gan_stage1_batch": float(n_gan),
        "gan_stage1_tiny": float(n_gan),
        "dcevae_batch": float(n_dce),
        "dcevae_tiny": float(n_dce),
        "augmented_full": float(mlp.epochs),
        "augmented_tiny": float(mlp.epochs),
    }
    del tiny
    summary = _summary(_rounds(variants, rounds), per)
    out: dict[str, Any] = {"dataset": "compas", "tiny_rows": TINY, "seconds_per_step": summary}
    for a, b in (("gan_stage1", "batch"), ("dcevae", "batch"), ("augmented", "full")):
        out[f"{a}_fixed_share"] = {
            kind: round(summary[f"{a}_tiny"][kind]["median"] / summary[f"{a}_{b}"][kind]["median"], 3)
            for kind in ("wall_s", "cpu_s")
        }
    return out


def main(rounds: int = 3, rows: int = 512, steps: int = 50, epochs: int = 2, inner_steps: int = 50) -> dict[str, Any]:
    torch_cpu_setup()
    load_before = os.getloadavg()
    out: dict[str, Any] = {"benchmark": "gan_adversary", "rounds": rounds, "torch": torch.__version__}
    out["update"] = bench_update(rows, steps, rounds)
    print("update", {k: v for k, v in out["update"].items() if k.startswith(("speedup", "max"))})
    out["update_adult_batch"] = bench_update(PAPER_BATCH_SIZE["adult"], steps, rounds)
    print("update_adult_batch", {k: v for k, v in out["update_adult_batch"].items() if k.startswith("speedup")})
    out["stage1"] = bench_stage1(epochs, inner_steps, rounds)
    print("stage1", {k: v for k, v in out["stage1"].items() if k.startswith("speedup")})
    out["overhead"] = bench_overhead(rounds)
    print("overhead", {k: v for k, v in out["overhead"].items() if k.endswith("share")})
    out["machine"] = {"platform": platform.platform(), "cpus": os.cpu_count(), "torch_threads": torch.get_num_threads()}
    out["load_1min"] = {"before": round(load_before[0], 2), "after": round(os.getloadavg()[0], 2)}
    write_json_atomic(RESULTS, out, what="benchmark result")
    return out


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--rows", type=int, default=512)
    parser.add_argument("--steps", type=int, default=50)
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--inner-steps", type=int, default=50)
    a = parser.parse_args()
    main(a.rounds, a.rows, a.steps, a.epochs, a.inner_steps)
