"""Accelerator against CPU: one Adult fold of every method, and the Adult flow's fit, on each.

For each method of the grid (the LTN's acc and acc+CF settings, the CNF-augmented MLP, the
GAN, DCEVAE and the cheap baselines) the same fold (Adult fold 0 of the profile) is trained
and scored once with ``device="cpu"`` and once with ``device="cuda"`` (:mod:`cffair._support.devices`);
the causal flow of Adult is fitted on each too. It records the wall seconds of each, their
ratio, and the largest difference of the shared evaluation's numbers between the two (the
device path follows the CPU's random stream, so only floating-point rounding should differ).

Where device time is short, ``--cpu-methods`` names the methods also trained on the CPU there;
every other method's CPU side is the committed full record of Adult fold 0 (``results/full``: its
seconds, on the CPU the record names, one thread as in the grid, and its numbers), and the row
says so (``cpu_source``). One method trained on both CPUs (the record's and this machine's) tells
how far the two CPUs' speeds differ. The file is rewritten after each method, so a run stopped at a
time limit keeps what it measured.

Without a CUDA device it says so and exits 0 (``make bench`` runs it everywhere): the
accelerator's speed then stays unmeasured. Writes ``benchmarks/results/devices.json``
atomically where one is present.

Run: ``python benchmarks/bench_devices.py [--profile full|quick] [--methods ltn_acc cnf ...]
[--cpu-methods ltn_acc] [--out devices.json]``.
"""

from __future__ import annotations

import argparse
import importlib
import platform
import sys
import time
from pathlib import Path
from typing import Any

import torch

from cffair._support.devices import current_device, use_device
from cffair._support.utils import torch_cpu_setup, write_json_atomic

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results" / "devices.json"
METHODS = ("ltn_acc", "ltn_acc_cf", "cnf", "gan", "dcevae", "unaware", "level3", "pcf")
DEVICES = ("cpu", "cuda")


def _ltn(setting: str, fd: Any, profile_name: str) -> dict[str, Any]:
    from cffair.experiments import profile
    from cffair.learners import LTNLearner

    prof = profile(profile_name)
    learner = LTNLearner(
        fd.spec.target_kind,
        setting,
        lr=prof.lr,
        pretrain_epochs=prof.pretrain_epochs,
        fair_epochs=prof.fair_epochs,
        progress=False,
        sensitive=fd.spec.sensitive,
        device=current_device(),
    )
    pairs = fd.pairs_train if setting != "acc" else None
    learner.fit(fd.X_train, fd.y_train, pairs=pairs)
    return fd.evaluate(learner.predict_d)


def run_method(method: str, fd: Any, profile_name: str) -> dict[str, Any]:
    """The shared evaluation's numbers of ``method`` trained on fold ``fd`` on the current device."""
    from cffair.experiments import ExperimentConfig
    from cffair.experiments._pipeline.keys import RUNNERS

    if method.startswith("ltn_"):
        return _ltn(method.removeprefix("ltn_"), fd, profile_name)
    runner = importlib.import_module(RUNNERS[method])
    if method == "gan":
        importlib.import_module("cffair.experiments._pipeline.gan")._CACHE.clear()  # fit again on this device
    metrics, _, _ = runner.run(ExperimentConfig("adult", 0, method, profile=profile_name), fd)
    return metrics


def _largest_difference(a: dict[str, Any], b: dict[str, Any]) -> float:
    keys = [k for k, v in a.items() if isinstance(v, float) and isinstance(b.get(k), float)]
    return max((abs(a[k] - b[k]) for k in keys), default=0.0)


def committed_record(method: str, profile_name: str, root: Path = ROOT / "results") -> dict[str, Any] | None:
    """The committed record of ``method`` on Adult fold 0 of the profile (``None`` if there is none).

    >>> committed_record("no_such_method", "full") is None
    True
    """
    from cffair.experiments import ExperimentConfig, ResultsStore

    store = ResultsStore(root / profile_name, create=False)
    try:
        return store.get(ExperimentConfig("adult", 0, method, profile=profile_name))
    except Exception:  # an unknown method or no store: nothing committed to compare with
        return None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--profile", choices=["full", "quick"], default="full")
    parser.add_argument("--methods", nargs="+", choices=METHODS, default=list(METHODS))
    parser.add_argument(
        "--cpu-methods", nargs="*", choices=METHODS, default=None, help="also trained on the CPU (default: all)"
    )
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args(argv)
    cpu_methods = set(args.methods if args.cpu_methods is None else args.cpu_methods)
    if not torch.cuda.is_available():
        print(
            f"bench_devices: no CUDA device on this machine (torch {torch.__version__}); the accelerator's speed "
            "stays unmeasured. Run it where one is present."
        )
        return 0
    torch_cpu_setup()
    from cffair import datasets as D
    from cffair.causal import CausalFlow
    from cffair.experiments import ExperimentConfig
    from cffair.experiments._pipeline import FoldData, counterfactual_set, flow_config

    frame, spec = D.load("adult")
    flow = {}
    for dev in DEVICES:
        t0 = time.perf_counter()
        CausalFlow(spec, config=flow_config(args.profile, "adult")).fit(frame, seed=0, device=dev)
        flow[dev] = round(time.perf_counter() - t0, 2)
    fd = FoldData.build(
        ExperimentConfig("adult", 0, "cnf", profile=args.profile), counterfactual_set("adult", args.profile)
    )
    from cffair.experiments._store import machine

    out: dict[str, Any] = {
        "profile": args.profile,
        "fold": "adult/fold0",
        "flow_fit_s": flow,
        "methods": [],
        "machine": {
            "cpu": platform.processor() or platform.machine(),
            **machine(),
            "gpu": torch.cuda.get_device_name(0),
            "torch": torch.__version__,
            "cpu_threads": torch.get_num_threads(),
        },
    }
    for method in args.methods:
        seconds, metrics = {}, {}
        record = committed_record(method, args.profile)
        for dev in DEVICES:
            if dev == "cpu" and method not in cpu_methods:
                if record is None:
                    continue
                seconds[dev], metrics[dev] = record["timings"]["total"], record["metrics"]
                continue
            with use_device(dev):
                t0 = time.perf_counter()
                metrics[dev] = run_method(method, fd, args.profile)
                seconds[dev] = round(time.perf_counter() - t0, 2)
        row: dict[str, Any] = {
            "method": method,
            "cpu_source": "here" if method in cpu_methods else ("record" if record is not None else "none"),
            "cpu_s": seconds.get("cpu"),
            "cuda_s": seconds["cuda"],
            "speedup": round(seconds["cpu"] / max(seconds["cuda"], 1e-9), 2) if "cpu" in seconds else None,
            "largest_metric_difference": _largest_difference(metrics["cpu"], metrics["cuda"])
            if "cpu" in metrics
            else None,
        }
        if record is not None:
            row["record_s"] = record["timings"]["total"]
            row["record_machine"] = record.get("machine")
        out["methods"].append(row)
        print(row, file=sys.stderr)
        write_json_atomic(args.out, out, what="benchmark results")  # after each method: a time limit keeps these
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
