"""Flushing denormals to zero: the LTN's time on Adult fold 0 with and without it.

Adam drives many of the MLP's weights, activations and gradients into float32's denormal
range (|x| < 1.2e-38) after a few hundred epochs; CPU arithmetic on denormals is many times
slower. :func:`cffair.utils.torch_cpu_setup` flushes them to zero. This benchmark runs the
real schedule on Adult fold 0 of the full profile (1500 pre-training epochs on the accuracy
axioms, then 500 epochs of acc+CF, lr 1e-3, one torch thread) twice, in two processes at the
same time (as the experiment workers run), one with ``torch.set_flush_denormal(False)`` and one
with ``True``, and reports the seconds of each stage and the test metrics of both models.

Writes ``benchmarks/results/denormals.json`` atomically.

Run: ``python benchmarks/bench_denormals.py [--pretrain 1500] [--fair 500]``.
"""

from __future__ import annotations

import argparse
import platform
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

from cffair.utils import write_json_atomic

RESULTS = Path(__file__).resolve().parent / "results" / "denormals.json"


def run(flush: bool, pretrain: int, fair: int) -> dict[str, Any]:
    """Pre-train + acc+CF on Adult fold 0 with denormal flushing on or off."""
    import torch

    from cffair.experiments import ExperimentConfig
    from cffair.pipeline import FoldData
    from cffair.training import LTNLearner
    from cffair.utils import torch_cpu_setup

    torch_cpu_setup()
    torch.set_flush_denormal(flush)
    fd = FoldData.build(ExperimentConfig("adult", 0, "ltn_acc_cf"))
    pairs = fd.pairs_train
    t = time.perf_counter()
    base = LTNLearner(setting="acc", lr=1e-3, pretrain_epochs=pretrain, progress=False, sensitive="sex").fit(fd.X_train, fd.y_train)
    t_pre = time.perf_counter() - t
    t = time.perf_counter()
    fair_model = LTNLearner.load(base.state_dict(), setting="acc_cf", fair_epochs=fair, progress=False)
    fair_model.fit(fd.X_train, fd.y_train, pairs=pairs)
    t_fair = time.perf_counter() - t
    m = fd.evaluate(fair_model.predict_d)
    return {
        "flush_denormal": flush,
        "pretrain_s": round(t_pre, 1),
        "fair_s": round(t_fair, 1),
        "acc_cf_accuracy": round(float(m["accuracy"]), 4),
        "acc_cf_cf_mse": round(float(m["cf_mse"]), 5),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pretrain", type=int, default=1500)
    ap.add_argument("--fair", type=int, default=500)
    args = ap.parse_args()
    with ProcessPoolExecutor(2) as ex:
        runs = list(ex.map(run, (False, True), (args.pretrain,) * 2, (args.fair,) * 2))
    off, on = runs
    out = {
        "benchmark": "denormals",
        "setup": f"Adult fold 0, {args.pretrain} pre-training + {args.fair} acc+CF epochs, lr 1e-3, 1 thread, 2 processes at once",
        "runs": runs,
        "speedup_pretrain": round(off["pretrain_s"] / on["pretrain_s"], 2),
        "speedup_fair": round(off["fair_s"] / on["fair_s"], 2),
        "machine": {"platform": platform.platform(), "processor": platform.processor()},
        "finished": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }
    write_json_atomic(RESULTS, out)
    print(out)


if __name__ == "__main__":
    main()
