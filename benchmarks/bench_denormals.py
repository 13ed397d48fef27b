"""What flushing float32 denormals to zero while the LTN trains saves, on the data that needs it.

Random data (``bench_ltn.py``) never saturates the predicate; Adult does (about 97 % of its
outputs below 0.01 or above 0.99 after pre-training), and the gradients of saturated outputs are
denormal floats, which x86 CPUs compute with many times slower. On Adult fold 0 of the full
profile, one torch thread:

* ``pretrain``: the 1500 pre-training epochs, with the learner's flush
  (:func:`cffair.learners._training.flushed_denormals`) and without it;
* ``fair``: ``--fair-epochs`` acc+CF epochs continued from that pre-training, both ways;
* ``max_abs_diff``: the largest difference between the two pre-trained models' outputs on the
  test rows (0 means the flush changed nothing that the float32 model computes).

Writes ``benchmarks/results/denormals.json`` atomically.
Run: ``python benchmarks/bench_denormals.py [--fair-epochs 100]`` (about 5 minutes).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import platform
import time
from pathlib import Path
from typing import Any
from unittest import mock

import numpy as np

from cffair import learners
from cffair._support.utils import torch_cpu_setup, write_json_atomic
from cffair.experiments import ExperimentConfig
from cffair.learners import _training as training

RESULTS = Path(__file__).resolve().parent / "results" / "denormals.json"


def _timed(flush: bool, fn: Any) -> tuple[Any, float]:
    off = mock.patch.object(training, "flushed_denormals", lambda device="cpu": contextlib.nullcontext())
    with contextlib.nullcontext() if flush else off:
        t = time.perf_counter()
        out = fn()
        return out, time.perf_counter() - t


def main(fair_epochs: int = 100) -> dict[str, Any]:
    from cffair.experiments._pipeline import _fold

    torch_cpu_setup()
    fd, _ = _fold(ExperimentConfig("adult", 0, "ltn_acc_cf"), cache=False)
    pairs = fd.pairs_train
    load = os.getloadavg()[0]
    out: dict[str, Any] = {"benchmark": "denormals", "dataset": "adult", "fold": 0, "fair_epochs": fair_epochs}
    models = {}
    for flush in (True, False):
        learner, seconds = _timed(
            flush, lambda: learners.LTNLearner("binary", "acc", progress=False).fit(fd.X_train, fd.y_train)
        )
        models[flush] = learner
        out.setdefault("pretrain_s", {})["flush" if flush else "denormals"] = round(seconds, 1)
    state = models[True].state_dict()
    for flush in (True, False):
        fair = learners.LTNLearner.load(state, setting="acc_cf", fair_epochs=fair_epochs, progress=False)
        _, seconds = _timed(flush, lambda f=fair: f.fit(fd.X_train, fd.y_train, pairs=pairs))
        out.setdefault("fair_s", {})["flush" if flush else "denormals"] = round(seconds, 1)
    d = {k: m.predict_d(fd.X_test) for k, m in models.items()}
    out["max_abs_diff"] = float(np.abs(d[True] - d[False]).max())
    out["saturation"] = round(float(((d[True] < 0.01) | (d[True] > 0.99)).mean()), 4)
    out["speedup"] = {k: round(out[k]["denormals"] / out[k]["flush"], 2) for k in ("pretrain_s", "fair_s")}
    out["machine"] = {"platform": platform.platform(), "cpus": os.cpu_count()}
    out["load"] = [round(load, 2), round(os.getloadavg()[0], 2)]
    write_json_atomic(RESULTS, out, what="benchmark result")
    return out


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fair-epochs", type=int, default=100)
    print(main(parser.parse_args().fair_epochs))
