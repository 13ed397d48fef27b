"""How long it takes to regenerate one chapter: the "Regenerate" box at the end of each chapter.

For each question group (``q1`` … ``appendix_b``):

* **quick** — measured: ``cffair reproduce --mode quick --only <group> --jobs 2`` run cold, in a
  fresh results folder and a fresh cache (so the causal flows and the pre-training are
  computed, as on a first run): wall-clock seconds of the whole command and of each stage,
  the CPU seconds of all its processes, and the machine's load average before and after (on a
  shared machine other work stretches the wall-clock time, not the CPU seconds);
* **full** — estimated from the committed full run (``results/full``): the core-seconds of the
  group's records (the LTN pre-training counted once per dataset and fold, as the run shares
  it) divided by the 2 workers, plus the run's counterfactual stage and the group's notebook
  (its quick-mode notebook seconds: a notebook only reads records). Running the full mode
  here would take hours and overwrite the committed results, so it is not re-measured.

Writes ``benchmarks/results/regenerate.json`` atomically.

Run: ``python benchmarks/bench_regenerate.py [--groups q1 q2 ...] [--jobs 2]``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from cffair._support.utils import project_root, write_json_atomic
from cffair.experiments import ResultsStore, paper_grid

RESULTS = Path(__file__).resolve().parent / "results" / "regenerate.json"
#: The groups that have a chapter of their own.
CHAPTER_GROUPS = ("q1", "q2", "q3", "q4", "appendix_a", "appendix_b", "appendix_c")


def full_core_seconds(store: ResultsStore, group: str) -> tuple[float, int]:
    """Core-seconds of the committed records of ``group`` (pre-training once per dataset × fold)."""
    seconds, found, pretrain = 0.0, 0, {}
    for cfg in paper_grid("full", only=[group]):
        rec = store.get(cfg)
        if rec is None:
            continue
        found += 1
        t = rec.get("timings", {})
        if "pretrain" in t:
            key = (cfg.dataset, cfg.fold)
            pretrain[key] = max(pretrain.get(key, 0.0), float(t["pretrain"]))
            seconds += float(t.get("setting", 0.0))
        else:
            seconds += float(t.get("total", 0.0))
    return seconds + sum(pretrain.values()), found


class RunFailed(RuntimeError):
    """``cffair reproduce`` failed for a group; the message holds the end of its error output."""


def quick_run(group: str, jobs: int) -> dict[str, Any]:
    """``cffair reproduce --mode quick --only group`` in fresh folders: its wall and CPU time and stages.

    Raises:
        RunFailed: if the command fails.
    """
    cli = Path(sys.executable).parent / "cffair"
    with tempfile.TemporaryDirectory(prefix="cffair-regen-") as tmp:
        env = {**os.environ, "CFFAIR_RESULTS": str(Path(tmp) / "results"), "CFFAIR_CACHE": str(Path(tmp) / "cache")}
        env.pop("CFFAIR_MODE", None)
        load_before = os.getloadavg()[0]
        cpu_before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        proc = subprocess.run(
            [str(cli), "reproduce", "--mode", "quick", "--only", group, "--jobs", str(jobs)],
            env=env,
            cwd=project_root(),
            capture_output=True,
            text=True,
        )
        wall = time.perf_counter() - start
        load_after = os.getloadavg()[0]
        cpu_after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (cpu_after.ru_utime - cpu_before.ru_utime) + (cpu_after.ru_stime - cpu_before.ru_stime)
    if proc.returncode != 0:
        raise RunFailed(
            f"cffair reproduce --only {group} failed (exit {proc.returncode}): {proc.stderr.strip()[-1500:]}"
        )
    stages = json.loads(proc.stdout[proc.stdout.index("{") :])
    # CPU seconds of the command and every process it waited for (workers, the notebook's kernel)
    # do not grow with the load.
    return {
        "wall_seconds": round(wall, 1),
        "cpu_seconds": round(cpu, 1),
        "stage_seconds": stages,
        "load_average": [round(load_before, 2), round(load_after, 2)],
    }


def _write(groups: dict[str, Any], root: Path) -> None:
    commit = subprocess.run(["git", "rev-parse", "HEAD"], cwd=root, capture_output=True, text=True).stdout.strip()
    write_json_atomic(
        RESULTS,
        {
            "benchmark": "regenerate",
            "commit": commit,
            "finished": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "machine": {"cpus": os.cpu_count(), "platform": platform.platform()},
            "groups": groups,
            "note": "quick: measured cold (fresh results and cache folders), with the CPU seconds of its processes and the "
            "machine's load average; full: estimated from the committed run's per-record timings "
            "(core-seconds / jobs + counterfactual stage + notebook).",
        },
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--groups", nargs="*", default=list(CHAPTER_GROUPS), choices=list(CHAPTER_GROUPS))
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument(
        "--full-only",
        action="store_true",
        help="only re-estimate full mode from the committed records (after a regeneration); keep the quick measurements",
    )
    args = parser.parse_args(argv)
    root = project_root()
    store = ResultsStore(root / "results" / "full")
    provenance = json.loads((root / "results" / "full" / "provenance.json").read_text())
    cf_seconds = float(provenance["stage_seconds"]["counterfactuals"])
    old = json.loads(RESULTS.read_text()) if RESULTS.is_file() else {}
    groups: dict[str, Any] = dict(old.get("groups", {}))
    failed = []
    for group in args.groups:
        try:
            quick = groups[group]["quick"] if args.full_only and group in groups else quick_run(group, args.jobs)
        except RunFailed as exc:  # keep the other groups' measurements
            print(exc, file=sys.stderr, flush=True)
            failed.append(group)
            continue
        core, found = full_core_seconds(store, group)
        notebook = float(quick["stage_seconds"].get("notebooks", 0.0))
        groups[group] = {
            "quick": quick,
            "full": {
                "records": found,
                "core_seconds": round(core, 1),
                "jobs": args.jobs,
                "counterfactual_seconds": cf_seconds,
                "notebook_seconds": notebook,
                "estimate_seconds": round(core / args.jobs + cf_seconds + notebook, 1),
            },
        }
        _write(groups, root)  # after every group, so that a later failure loses nothing
        print(
            f"{group}: quick {quick['wall_seconds']:.0f} s ({quick['cpu_seconds']:.0f} CPU-s, load {max(quick['load_average']):.1f}); "
            f"full ≈ {groups[group]['full']['estimate_seconds'] / 60:.0f} min",
            flush=True,
        )
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
