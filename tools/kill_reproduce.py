"""kill -9 at random points of ``cffair reproduce --mode quick``, then a resumed run: nothing lost.

The quick grid (no notebooks) runs into a fresh results folder; the whole process group is
killed with SIGKILL at a random moment until ``KILLS`` runs have been killed mid-way (each run
resumes from what the last one stored; a run that finishes before its moment sets a shorter
span for the next, since resumed runs are shorter), then a run finishes. Its records are compared with those of an uninterrupted
run into another folder: the same records, the same metrics, no corrupt or partial file, no
temporary file left behind. Writes ``benchmarks/results/kill_reproduce.json``.

    python tools/kill_reproduce.py [--kills 15] [--seed 0]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "benchmarks" / "results" / "kill_reproduce.json"


def reproduce(results: Path, env: dict[str, str]) -> subprocess.Popen:
    cmd = [sys.executable, "-m", "cffair", "reproduce", "--mode", "quick", "--no-notebooks", "--jobs", "2"]
    return subprocess.Popen(
        cmd,
        env={**env, "CFFAIR_RESULTS": str(results)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )


def records(store: Path) -> dict[str, dict]:
    out = {}
    for f in sorted((store / "records").glob("*.json")):
        rec = json.loads(f.read_text())
        out[rec["hash"]] = rec["metrics"]
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kills", type=int, default=15)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    env = dict(os.environ)
    with tempfile.TemporaryDirectory(prefix="cffair-kill-") as tmp:
        tmp = Path(tmp)
        t0 = time.perf_counter()
        assert reproduce(tmp / "reference", env).wait() == 0, "the uninterrupted run failed"
        full = time.perf_counter() - t0
        kills = []
        span = 0.3 * full  # the next kill lands within this many seconds of the start
        attempts = 0
        while sum(not k["finished_first"] for k in kills) < args.kills and attempts < 4 * args.kills:
            attempts += 1
            delay = rng.uniform(0.2, max(0.5, span))
            p = reproduce(tmp / "killed", env)
            t_start = time.perf_counter()
            try:
                p.wait(timeout=delay)
                finished = True
                span = 0.9 * (time.perf_counter() - t_start)  # a resumed run is shorter: aim inside it next time
            except subprocess.TimeoutExpired:
                finished = False
                os.killpg(p.pid, signal.SIGKILL)
                p.wait()
            stored = (
                len(list((tmp / "killed" / "quick" / "records").glob("*.json")))
                if (tmp / "killed" / "quick").exists()
                else 0
            )
            kills.append({"after_s": round(delay, 1), "finished_first": finished, "records_stored": stored})
        assert reproduce(tmp / "killed", env).wait() == 0, "the resumed run failed"
        ref, got = records(tmp / "reference" / "quick"), records(tmp / "killed" / "quick")
        leftovers = [
            str(p.relative_to(tmp))
            for p in (tmp / "killed").rglob("*")
            if p.name.endswith(".tmp") or ".corrupt" in p.name
        ]
        result = {
            "kills": kills,
            "uninterrupted_s": round(full, 1),
            "records": len(ref),
            "same_records": set(ref) == set(got),
            "equal_metrics": sum(ref[h] == got.get(h) for h in ref),
            "leftover_or_corrupt_files": leftovers,
        }
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(result, indent=2) + "\n")
    ok = result["same_records"] and result["equal_metrics"] == result["records"] and not leftovers
    killed = sum(not k["finished_first"] for k in kills)
    print(
        f"kill -9: {killed} of {args.kills} runs killed mid-way; after resuming {result['equal_metrics']} of "
        f"{result['records']} records equal to an uninterrupted run; {len(leftovers)} leftover or corrupt files"
    )
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
