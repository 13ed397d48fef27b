"""Time per LTN training epoch on Adult-sized data, next to the bare lower bound.

Adult-sized: 36,000 rows × 101 encoded features (random values; the time does not depend on
them), one counterfactual per row, full batch, one torch thread.

* ``acc``: the learner's real training loop (:meth:`LTNLearner._train`) on A1 + A2;
* ``acc_cf``: the same on A1 + A2 + A4 (inputs ``[x; x′]``, 72,000 rows per pass);
* ``bound_x`` / ``bound_x_xcf``: one forward + backward + Adam step of the same MLP on ``x``
  (resp. the stacked ``[x; x′]``) with a trivial loss, in plain torch: no logic at all.

Target: each LTN epoch within 1.5× its bound. Writes ``benchmarks/results/ltn.json`` atomically.

Run: ``python benchmarks/bench_ltn.py [--epochs 20] [--rows 36000]``.
"""

from __future__ import annotations

import argparse
import platform
import statistics
import time
from pathlib import Path

import numpy as np
import torch

from cffair._support.utils import torch_cpu_setup, write_json_atomic
from cffair.learners import LTNLearner
from cffair.learners._networks import make_mlp
from cffair.logic import accuracy_axioms, cf_axiom

RESULTS = Path(__file__).resolve().parent / "results" / "ltn.json"


def bound(x: torch.Tensor, epochs: int) -> list[float]:
    """Seconds per epoch of a bare forward + backward + Adam step on ``x``."""
    torch.manual_seed(0)
    model = make_mlp(x.shape[1])
    opt = torch.optim.Adam(model.parameters(), lr=0.1)
    times = []
    for _ in range(epochs):
        t = time.perf_counter()
        opt.zero_grad(set_to_none=True)
        model(x).mean().backward()
        opt.step()
        times.append(time.perf_counter() - t)
    return times


def ltn_epochs(X: np.ndarray, y: np.ndarray, Xc: np.ndarray | None, epochs: int) -> tuple[list[float], float]:
    """Seconds per epoch of the learner's training loop, and the one-off compile time."""
    learner = LTNLearner("binary", "acc", pretrain_epochs=0, progress=False)
    learner._init_model(X.shape[1])
    axioms = accuracy_axioms(X, y, "binary") + ([cf_axiom(X, Xc, "binary")] if Xc is not None else [])
    kb = learner._kb(axioms)
    t = time.perf_counter()
    kb.compile()
    compile_s = time.perf_counter() - t
    times = []
    for _ in range(epochs):  # one epoch per call, so each is timed with its own history bookkeeping
        t = time.perf_counter()
        learner._train(kb, 1, "bench")
        times.append(time.perf_counter() - t)
    return times, compile_s


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--epochs", type=int, default=20)
    ap.add_argument("--rows", type=int, default=36_000)
    ap.add_argument("--features", type=int, default=101)
    ap.add_argument("--out", type=Path, default=RESULTS)
    args = ap.parse_args()
    torch_cpu_setup()
    rng = np.random.default_rng(0)
    X = rng.normal(size=(args.rows, args.features)).astype(np.float32)
    y = (rng.random(args.rows) < 0.25).astype(np.int64)
    Xc = X.copy()
    Xc[:, 0] = -Xc[:, 0]  # a different counterfactual for every row
    xt, xxt = torch.from_numpy(X), torch.from_numpy(np.concatenate([X, Xc]))

    # interleave the four measurements so that load from other processes hits them alike
    res: dict[str, list[float]] = {"bound_x": [], "acc": [], "bound_x_xcf": [], "acc_cf": []}
    compile_s = {}
    rounds = 4
    per = max(1, args.epochs // rounds)
    for _ in range(rounds):
        res["bound_x"] += bound(xt, per)
        t, compile_s["acc"] = ltn_epochs(X, y, None, per)
        res["acc"] += t
        res["bound_x_xcf"] += bound(xxt, per)
        t, compile_s["acc_cf"] = ltn_epochs(X, y, Xc, per)
        res["acc_cf"] += t
    med = {k: statistics.median(v[1:] if len(v) > 2 else v) for k, v in res.items()}  # drop the first (warm-up)
    out = {
        "rows": args.rows,
        "features": args.features,
        "epochs_timed": per * rounds,
        "threads": torch.get_num_threads(),
        "torch": torch.__version__,
        "python": platform.python_version(),
        "seconds_per_epoch": med,
        "epochs_per_second": {k: 1 / v for k, v in med.items()},
        "ratio_acc_to_bound": med["acc"] / med["bound_x"],
        "ratio_acc_cf_to_bound": med["acc_cf"] / med["bound_x_xcf"],
        "target_ratio": 1.5,
        "compile_seconds": compile_s,
    }
    write_json_atomic(args.out, out)
    print(f"{'':12}{'s/epoch':>10}{'epochs/s':>10}")
    for k, v in med.items():
        print(f"{k:12}{v:10.4f}{1 / v:10.2f}")
    print(f"acc / bound(x)        = {out['ratio_acc_to_bound']:.2f}")
    print(f"acc+CF / bound([x;x']) = {out['ratio_acc_cf_to_bound']:.2f}   (target <= 1.5)")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
