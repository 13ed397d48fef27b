"""What a run on one's own data costs: the estimate ``cffair run`` prints before the work starts.

The estimate is a sum over the plan's folds and methods of per-method seconds measured by
``benchmarks/bench_own_small.py`` (the default 5-fold run on 1,000 rows of ``examples/credit``,
800 training rows per fold, one worker, the CPU time of the run divided among its stages),
scaled linearly to the training rows and epochs of the plan (every stage trains on the whole
training set each epoch), divided among the workers, and stretched by the machine's current
load when the load exceeds its cores. It is a rough guide (within a factor of about 2), not a
promise: early stopping ends a stage when the data says so, and other processes share the CPU.
"""

from __future__ import annotations

__all__ = ["SECONDS_PER_FOLD", "estimate_seconds", "estimate_text"]

import os
from collections.abc import Mapping
from typing import Any

FINGERPRINT_EXEMPT = True  # an estimate printed before a run: no number of a record

#: Seconds per fold of each stage at 800 training rows on one idle core, in the full profile with
#: early stopping: ``benchmarks/results/own_small.json``'s wall seconds per stage scaled by the
#: run's CPU seconds over its wall seconds (148 of 494 under a load of 10). The baselines with no
#: measurement there (unaware, level3, pcf) are guesses of the CNF's order. ``counterfactuals``: the
#: causal flow and its twins, once per run, per 1,000 rows.
SECONDS_PER_FOLD: Mapping[str, float] = {
    "counterfactuals": 5.0,
    "ltn_pretraining": 1.5,
    "ltn_acc": 0.15,
    "ltn_acc_cf": 1.1,
    "ltn_acc_cf_sg": 1.2,
    "ltn_acc_cf_cke": 4.2,
    "ltn_acc_cf_sg_cke": 3.3,
    "cnf": 3.9,
    "gan": 6.6,
    "dcevae": 4.5,
    "unaware": 1.0,
    "level3": 3.9,
    "pcf": 3.9,
}
_ROWS = 800  # training rows per fold of the measurement
_QUICK = 0.06  # the quick profile's epochs relative to the full one's (60 / 1,500 of pre-training)


def estimate_seconds(plan: Any, rows: int) -> float:
    """Seconds of compute the plan needs on one idle core: its folds × methods, at ``rows`` rows
    of data (the training rows of a fold are ``rows × (folds − 1) / folds``)."""
    per_row = rows * (plan.folds - 1) / plan.folds / _ROWS
    if plan.profile == "quick":
        per_row = min(per_row, 1500 / _ROWS) * _QUICK
    fair = dict(plan.ltn_options).get("fair_epochs")
    fair_scale = 1.0 if fair is None else fair / 500
    folds = plan.folds
    total = SECONDS_PER_FOLD["counterfactuals"] * rows / 1000
    if plan.settings:
        total += folds * per_row * SECONDS_PER_FOLD["ltn_pretraining"]
    for m in plan.methods:
        cost = SECONDS_PER_FOLD.get(m, SECONDS_PER_FOLD["cnf"]) * per_row
        total += folds * cost * (fair_scale if m.startswith("ltn_") and m != "ltn_acc" else 1.0)
    return total


def estimate_text(plan: Any, rows: int) -> str:
    """One line: the estimate for the plan's workers and the machine's load now."""
    cores = os.cpu_count() or 1
    seconds = estimate_seconds(plan, rows) / min(plan.jobs, cores)
    try:
        load = os.getloadavg()[0]
    except OSError:  # no load average on this system
        load = 0.0
    stretch = max(1.0, load / cores)

    def minutes(s: float) -> str:
        return f"{s / 60:.1f} min" if s >= 90 else f"{s:.0f} s"

    text = f"estimate: about {minutes(seconds)} with {plan.jobs} worker(s) on an idle machine"
    if stretch > 1.2:
        text += f", about {minutes(seconds * stretch)} at its load now ({load:.1f} on {cores} cores)"
    return text + " (a rough guide: cffair.workflows._own_cost)"
