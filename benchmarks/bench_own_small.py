"""Seconds on small data: the default 5-fold ``cffair run`` on 1,000 rows of the credit data.

The own-data protocol (:func:`cffair.workflows.run`: every LTN setting, Table 1's baselines CNF, GAN and
DCEVAE, 5 folds, the full profile, one worker) on the 1,000-row subsample that
``examples/credit/prepare.py --rows 1000`` writes (800 training rows per fold), with an empty
cache. Target: under 3 minutes on 2 cores.

Recorded: the wall time of each stage of the run (counterfactuals: the causal flow and its twins;
experiments: the grid; report), the grid broken down by stage from the records' timings (the LTN's
shared pre-training counted once per fold, each LTN setting's own stages, each baseline), the
epochs each LTN stage ran (early stopping: :data:`cffair.workflows.DEFAULT_PATIENCE`), the mean accuracy
and flip rate per method, the report's first line, and the machine's load (``os.getloadavg()``)
before and after: on the 2 shared cores of the development machine the load varies from 0 to 10,
and wall times with it (the same run took 7.6 min under a load of 3–8).

``--fixed-epochs`` measures the paper's fixed schedule instead (``patience=None``), the run before
early stopping.

Writes ``benchmarks/results/own_small.json`` atomically, one entry per schedule.

Run: ``python benchmarks/bench_own_small.py`` (``--fixed-epochs``, ``--rows 1000``, ``--folds 5``).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import runpy
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

from cffair._support.utils import write_json_atomic

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results" / "own_small.json"


def _load() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


def _breakdown(records: list[dict[str, Any]]) -> dict[str, float]:
    """Seconds of the grid by stage: the shared pre-training once per fold, then each method's own."""
    out: dict[str, float] = {"ltn_pretraining": 0.0}
    seen: set[int] = set()
    for r in records:
        setting, fold, t = r["config"]["setting"], int(r["config"]["fold"]), r.get("timings") or {}
        if setting.startswith("ltn_"):
            if fold not in seen and "pretrain" in t:
                out["ltn_pretraining"] += float(t["pretrain"])
                seen.add(fold)
            out[setting] = out.get(setting, 0.0) + float(t.get("setting", t.get("total", 0.0)))
        else:
            out[setting] = out.get(setting, 0.0) + float(t.get("total", 0.0))
    return {k: round(v, 1) for k, v in out.items()}


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1000)
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--fixed-epochs", action="store_true", help="the paper's fixed epochs (no early stopping)")
    args = parser.parse_args(argv)

    from cffair import workflows

    with tempfile.TemporaryDirectory() as tmp:
        os.environ["CFFAIR_CACHE"] = str(Path(tmp) / "cache")
        csv = runpy.run_path(str(ROOT / "examples" / "credit" / "prepare.py"))["main"](
            [str(Path(tmp) / "credit.csv"), "--rows", str(args.rows)]
        )
        load_before = _load()
        t0 = time.perf_counter()
        cpu0 = time.process_time()
        result = workflows.run(
            csv,
            ROOT / "examples" / "credit" / "spec.yaml",
            folds=args.folds,
            out=Path(tmp) / "out",
            progress=False,
            patience=None if args.fixed_epochs else workflows.DEFAULT_PATIENCE,
        )
        wall = time.perf_counter() - t0
        cpu = time.process_time() - cpu0
        load_after = _load()
        text = result.report.read_text(encoding="utf-8") if result.report else ""
        first = re.search(r'class="recommendation"><strong>(.*?)</strong>', text, re.S)
        records = result.records
        methods = list(result.plan.methods)
        summary = {
            m: {
                k: round(float(np.mean([r["metrics"][k] for r in records if r["config"]["setting"] == m])), 4)
                for k in ("accuracy", "cf_flip_rate", "cf_mse")
            }
            for m in methods
        }
        info = json.loads((Path(tmp) / "out" / "run.json").read_text())
    try:
        commit = subprocess.run(
            ["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=False
        ).stdout.strip()
    except OSError:
        commit = ""
    entry = {
        "what": f"cffair run, {args.folds} folds, full profile, default settings and baselines, 1 worker, "
        f"{args.rows} rows of examples/credit",
        "schedule": "paper's fixed epochs"
        if args.fixed_epochs
        else f"early stopping, patience {workflows.DEFAULT_PATIENCE}",
        "wall_seconds": round(wall, 1),
        "target_seconds": 180,
        "main_process_cpu_seconds": round(cpu, 1),
        "stage_seconds": info["stage_seconds"],
        "grid_by_stage_seconds": _breakdown(records),
        "methods": summary,
        "report_first_line": first.group(1) if first else None,
        "load_before": load_before,
        "load_after": load_after,
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version(), "platform": platform.platform()},
        "commit": commit,
        "written": time.strftime("%Y-%m-%d %H:%M"),
    }
    old = json.loads(RESULTS.read_text()) if RESULTS.exists() else {}
    old["fixed_epochs" if args.fixed_epochs else "early_stopping"] = entry
    write_json_atomic(RESULTS, old, what="benchmark result")
    print(json.dumps(entry, indent=2))
    return entry


if __name__ == "__main__":
    main()
