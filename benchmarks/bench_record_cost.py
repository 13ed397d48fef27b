"""Where one LTN record's seconds go: the fairness stage's training against the evaluation every record adds.

The regeneration's LTN records took 2.2x the seconds of the earlier run's on the same keys while other
methods took 1.0-1.3x (issue 43). Two suspects: the load the part ran under (a record's ``timings`` are
wall seconds) and the evaluation each record now adds (three rulers, the calibrated CF-MSE, the flip
rates per subgroup, group fairness through fairlearn's ``MetricFrame``). This separates them on one
task of the full profile, one torch thread, in a fresh temporary store:

* ``prerequisite_cpu_s``: CPU seconds of the tasks the record needs (the flows, when the cache is
  fresh, and the pre-training), run once;
* ``cpu_s``: CPU seconds (``time.process_time``, which a busy machine does not inflate) of the record's
  own task, unprofiled, the fastest of ``--repeats`` runs, and its wall seconds beside them;
* ``shares``: from one more run under ``cProfile``, the share of the task's time spent in each stage of
  :data:`STAGES` (the training epochs, the record's evaluation and its parts); ``estimated_cpu_s`` puts
  each share on ``cpu_s`` (profiling slows Python more than PyTorch's kernels, so these are estimates);
* ``reference``: the ``timings`` of the same key's record in ``--reference`` (the earlier run: wall
  seconds on the machine and load that made it) and the ratio of ``cpu_s`` to its ``setting`` seconds.

Writes ``benchmarks/results/record_cost.json`` atomically.
Run: ``python benchmarks/bench_record_cost.py [--dataset compas] [--setting ltn_acc_cf] [--fold 0]
[--repeats 3] [--reference results/full] [--cache DIR]`` (about 2 minutes of CPU on COMPAS with a fresh
cache, most of it the flows).
"""

from __future__ import annotations

import argparse
import cProfile
import json
import os
import platform
import pstats
import tempfile
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from cffair._support.utils import project_root, torch_cpu_setup, write_json_atomic

RESULTS = Path(__file__).resolve().parent / "results" / "record_cost.json"

#: The stages measured: name -> (the end of the defining file's path, the function's name).
STAGES: Mapping[str, tuple[str, str]] = {
    "training": ("cffair/learners/_training.py", "_epochs"),
    "evaluation": ("cffair/experiments/_pipeline/ltn.py", "_finish"),
    "evaluation: metrics (three rulers)": ("cffair/scores/_metrics.py", "evaluate"),
    "evaluation: per-subgroup CF-MSE": ("cffair/scores/_metrics.py", "cf_mse_by_subgroup"),
    "evaluation: fairlearn MetricFrame": ("fairlearn/metrics/_metric_frame.py", "__init__"),
    "evaluation: calibration (Platt)": ("cffair/scores/_metrics.py", "calibrator"),
}


def stage_shares(stats: pstats.Stats, stages: Mapping[str, tuple[str, str]], total: float) -> dict[str, float]:
    """The cumulative time of each stage's function over ``total`` (a share of the profiled task).

    A function that runs nested in itself counts once (``cProfile``'s cumulative time already does).

    Raises:
        LookupError: a stage's function never ran (renamed or moved: the benchmark must follow it).
    """
    if total <= 0:
        raise ValueError(f"the profiled total must be positive, got {total!r}.")  # internal invariant
    cumulative: dict[tuple[str, str], float] = {}
    for (filename, _line, name), row in stats.stats.items():  # type: ignore[attr-defined]
        key = (Path(filename).as_posix(), name)
        cumulative[key] = cumulative.get(key, 0.0) + float(row[3])
    out = {}
    for stage, (suffix, name) in stages.items():
        hits = [t for (f, n), t in cumulative.items() if n == name and f.endswith(suffix)]
        if not hits:
            raise LookupError(f"stage {stage!r}: {suffix}:{name} never ran; update STAGES to the code's names.")
        out[stage] = round(max(hits) / total, 4)
    return out


def _task(dataset: str, setting: str, fold: int) -> tuple[list[Any], Any]:
    from cffair.experiments import ExperimentConfig
    from cffair.experiments._tasks import task_graph

    tasks = list(task_graph([ExperimentConfig(dataset, fold, setting, profile="full", seed=0)]))
    return tasks[:-1], tasks[-1]


def _run(task: Any, store: Any) -> tuple[float, float]:
    """CPU and wall seconds of ``task``, run afresh (its record removed first)."""
    from cffair.experiments._pipeline import run_task

    for f in (store.root / "records").glob("*.json"):
        if f"__{task.id.split('/')[2]}__" in f.name:
            f.unlink()
    cpu, wall = time.process_time(), time.perf_counter()
    run_task(task, store)
    return time.process_time() - cpu, time.perf_counter() - wall


def reference_timings(reference: Path, dataset: str, setting: str, fold: int) -> dict[str, float] | None:
    """The ``timings`` of the paper-twins, seed-0 record of the key in the store ``reference`` (None if absent)."""
    path = reference / "records" / f"full__{dataset}__{setting}__fold{fold}.json"
    if not path.is_file():
        return None
    return dict(json.loads(path.read_text(encoding="utf-8")).get("timings") or {}) or None


def main(
    dataset: str = "compas",
    setting: str = "ltn_acc_cf",
    fold: int = 0,
    repeats: int = 3,
    reference: Path | None = None,
    cache: Path | None = None,
) -> dict[str, Any]:
    if repeats < 1:
        raise SystemExit(f"--repeats must be at least 1, got {repeats}.")
    reference = reference or project_root() / "results" / "full"
    with tempfile.TemporaryDirectory(prefix="cffair-record-cost-") as tmp:
        os.environ["CFFAIR_CACHE"] = str(cache or Path(tmp) / "cache")
        from cffair.experiments import ResultsStore

        torch_cpu_setup()
        store = ResultsStore(Path(tmp) / "store")
        before, task = _task(dataset, setting, fold)
        load = os.getloadavg()[0]
        cpu0 = time.process_time()
        from cffair.experiments._pipeline import run_task

        for t in before:
            run_task(t, store)
        prerequisite = time.process_time() - cpu0
        runs = [_run(task, store) for _ in range(repeats)]
        cpu, wall = min(runs)
        profile = cProfile.Profile()
        profile.enable()
        profiled = time.perf_counter()
        _run(task, store)
        profiled = time.perf_counter() - profiled
        profile.disable()
        shares = stage_shares(pstats.Stats(profile), STAGES, profiled)
    ref = reference_timings(reference, dataset, setting, fold)
    out: dict[str, Any] = {
        "benchmark": "record_cost",
        "dataset": dataset,
        "setting": setting,
        "fold": fold,
        "profile": "full",
        "prerequisite_cpu_s": round(prerequisite, 1),
        "cpu_s": round(cpu, 2),
        "wall_s": round(wall, 2),
        "runs": [[round(c, 2), round(w, 2)] for c, w in runs],
        "shares": shares,
        "estimated_cpu_s": {k: round(v * cpu, 2) for k, v in shares.items()},
        "reference": {
            "store": os.path.relpath(reference, project_root()),
            "timings": ref,
            "cpu_over_reference_setting": round(cpu / ref["setting"], 2) if ref and ref.get("setting") else None,
        },
        "machine": {"platform": platform.platform(), "cpus": os.cpu_count()},
        "load": [round(load, 2), round(os.getloadavg()[0], 2)],
    }
    write_json_atomic(RESULTS, out, what="benchmark result")
    return out


def _parse(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--dataset", default="compas")
    parser.add_argument("--setting", default="ltn_acc_cf")
    parser.add_argument("--fold", type=int, default=0)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--reference", type=Path, default=None)
    parser.add_argument("--cache", type=Path, default=None, help="a flow cache to reuse (default: a fresh one)")
    return parser.parse_args(argv)


if __name__ == "__main__":
    a = _parse()
    print(json.dumps(main(a.dataset, a.setting, a.fold, a.repeats, a.reference, a.cache), indent=2))
