"""The quick grid on a Dask ``LocalCluster`` of 4 workers against 1 worker: wall times, equal records.

Both runs start from the same prepared inputs (the twins and the rulers, made once before either
run and not timed, as ``cffair reproduce`` does) into two empty temporary stores; the records of
the two runs are compared field by field, leaving out only what a rerun changes (wall-clock
seconds and the checksum over them). The machine's load (``os.getloadavg``) is recorded before
and after each run beside its cores: on a machine shared with other work, 4 workers on fewer
than 4 free cores measure the machine as much as the graph.

Writes ``benchmarks/results/workers.json`` atomically.

Run: ``python benchmarks/bench_workers.py [--workers 4] [--datasets adult,compas,...]``.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from pathlib import Path
from typing import Any

from cffair._support.utils import write_json_atomic
from cffair.experiments import DATASETS, ExperimentConfig, ResultsStore, paper_grid

RESULTS = Path(__file__).resolve().parent / "results" / "workers.json"
#: What differs between two runs of the same records: wall-clock seconds, and the checksum over them.
RERUN_FIELDS = ("timings", "timings_detail", "seconds", "checksum")


def record_bodies(store: ResultsStore) -> dict[str, Any]:
    """Each record of ``store`` by key, without :data:`RERUN_FIELDS` (at any depth)."""

    def strip(x: Any) -> Any:
        if isinstance(x, dict):
            return {k: strip(v) for k, v in x.items() if k not in RERUN_FIELDS}
        if isinstance(x, list):
            return [strip(v) for v in x]
        return x

    return {ExperimentConfig.from_dict(r["config"]).key: strip(r) for r in store.records()}


def _load() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


def measure(workers: tuple[int, ...] = (1, 4), datasets: tuple[str, ...] = DATASETS) -> dict[str, Any]:
    """Run the quick grid of ``datasets`` once per worker count on a Dask LocalCluster."""
    from cffair.experiments._pipeline import prepare_inputs
    from cffair.experiments._tasks import task_graph
    from cffair.workflows import run_grid

    grid = paper_grid("quick", list(datasets))
    known = prepare_inputs("quick", list(datasets), jobs=1)
    out: dict[str, Any] = {
        "benchmark": "workers",
        "grid": f"quick profile, every group, {', '.join(datasets)}",
        "records": len(grid),
        "tasks": len(task_graph(grid)),
        "cores": os.cpu_count(),
        "backend": "dask LocalCluster (one process per worker, one thread each)",
        "runs": {},
    }
    bodies = {}
    with tempfile.TemporaryDirectory() as tmp:
        for n in workers:
            store = ResultsStore(Path(tmp) / f"w{n}")
            before = _load()
            t0 = time.perf_counter()
            run_grid(grid, store, jobs=n, backend="dask", progress=False, known_inputs=known)
            wall = time.perf_counter() - t0
            bodies[n] = record_bodies(store)
            out["runs"][str(n)] = {
                "wall_seconds": round(wall, 1),
                "load_before": before,
                "load_after": _load(),
                "records": len(bodies[n]),
            }
    first, *rest = workers
    out["records_equal"] = all(bodies[n] == bodies[first] for n in rest) and len(bodies[first]) == len(grid)
    if len(workers) == 2:
        out["speedup"] = round(out["runs"][str(first)]["wall_seconds"] / out["runs"][str(rest[0])]["wall_seconds"], 2)
    out["finished"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--workers", type=int, default=4, help="the worker count measured against 1 (default 4)")
    ap.add_argument("--datasets", default=",".join(DATASETS), help="comma-separated datasets of the quick grid")
    args = ap.parse_args()
    out = measure((1, args.workers), tuple(args.datasets.split(",")))
    write_json_atomic(RESULTS, out)
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
