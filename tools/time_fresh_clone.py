"""Time the README's commands in a fresh clone: what a reader who clones the repository waits for.

Clones the repository (its committed ``HEAD``) into a temporary folder and runs, one after the
other, ``make book`` (which installs everything first), ``make reproduce MODE=quick JOBS=2`` and
``make test``, each from the clone's root with a private, empty ``$CFFAIR_CACHE``. Each step's
wall-clock seconds, exit status and the machine's load average before and after are written to
``benchmarks/results/fresh_clone.json`` (the Reproducing page and the chapters' quick-mode times
read it). A step that fails is recorded with its exit status and the steps after it still run.
The load average says how busy the machine was: a number measured beside another heavy job is
that job's as much as this one's.

    python tools/time_fresh_clone.py [--steps book quick test] [--keep]
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "benchmarks" / "results" / "fresh_clone.json"

#: The steps, in the order they run: (name, command).
STEPS: dict[str, list[str]] = {
    "book": ["make", "book"],
    "quick": ["make", "reproduce", "MODE=quick", "JOBS=2"],
    "test": ["make", "test"],
}

Runner = Callable[[Sequence[str], Path, dict[str, str]], int]


def _run(cmd: Sequence[str], cwd: Path, env: dict[str, str]) -> int:
    log = cwd / f".time-{cmd[1]}.log"
    with log.open("w") as out:
        return subprocess.run(list(cmd), cwd=cwd, env=env, stdout=out, stderr=subprocess.STDOUT).returncode


def time_steps(
    clone: Path, names: Sequence[str], *, run: Runner = _run, env: dict[str, str] | None = None
) -> list[dict]:
    """Run each named step in ``clone``; one record per step (seconds, exit status, load before/after).

    >>> import pathlib, tempfile
    >>> rows = time_steps(pathlib.Path(tempfile.gettempdir()), ["book", "test"], run=lambda c, d, e: 2 if "test" in c else 0)
    >>> [(r["step"], r["command"], r["exit"]) for r in rows]
    [('book', 'make book', 0), ('test', 'make test', 2)]
    """
    unknown = [n for n in names if n not in STEPS]
    if unknown:
        raise ValueError(f"unknown step(s) {unknown}; choose from {list(STEPS)}")
    env = dict(os.environ if env is None else env)
    rows = []
    for name in names:
        before = os.getloadavg()
        start = time.perf_counter()
        code = run(STEPS[name], clone, env)
        rows.append(
            {
                "step": name,
                "command": " ".join(STEPS[name]),
                "seconds": round(time.perf_counter() - start, 1),
                "exit": int(code),
                "load_before": [round(x, 2) for x in before[:2]],
                "load_after": [round(x, 2) for x in os.getloadavg()[:2]],
            }
        )
    return rows


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", nargs="+", default=list(STEPS), choices=list(STEPS))
    ap.add_argument("--keep", action="store_true", help="keep the clone (its path is printed)")
    args = ap.parse_args(argv)
    commit = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True).stdout.strip()
    tmp = Path(tempfile.mkdtemp(prefix="cffair-fresh-"))
    clone = tmp / "cffair"
    subprocess.run(["git", "clone", "-q", str(ROOT), str(clone)], check=True)
    env = {**os.environ, "CFFAIR_CACHE": str(tmp / "cache")}
    for name in ("CFFAIR_RESULTS", "CFFAIR_MODE", "VIRTUAL_ENV"):
        env.pop(name, None)
    rows = time_steps(clone, args.steps, env=env)
    result: dict[str, Any] = {
        "benchmark": "fresh_clone",
        "commit": commit,
        "finished": dt.datetime.now(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "machine": {"cpus": os.cpu_count()},
        "steps": rows,
    }
    OUT.parent.mkdir(parents=True, exist_ok=True)
    part = OUT.with_suffix(".json.part")
    part.write_text(json.dumps(result, indent=2) + "\n")
    part.replace(OUT)
    for r in rows:
        print(f"{r['command']}: {r['seconds']:.0f} s, exit {r['exit']}, load {r['load_before']} → {r['load_after']}")
    print(f"clone: {clone}" if args.keep else "", end="")
    if not args.keep:
        subprocess.run(["rm", "-rf", str(tmp)], check=False)
    return 0 if all(r["exit"] == 0 for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
