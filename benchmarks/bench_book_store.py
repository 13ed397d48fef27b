"""The book's pages before and after they read the store once per file (issue 43), each page in a kernel of its own.

A page's kernel reads the committed store many times: the front page's regeneration table asks
``reproduce.results_for`` for each of 14 chapters, and each call had scanned the whole store (1,852
records, each parsed and its checksum checked); the freshness box computes the code fingerprint of
every record. Two variants of the same page source run in alternating rounds (each round in another
order), every run a fresh Python process that executes the page's code cells as the book's kernel
does:

* ``before`` — the code this change replaced: every read of a record parses and checks it again
  (``store._read_verified`` without its memory), ``results_for`` scans the whole store and keeps the
  chapters' records, and the source tree neither remembers which modules are exempt nor the code
  fingerprints it computed (their code from ``--before``, loaded from git);
* ``after`` — today's code.

Each run's CPU seconds (its process's, from ``getrusage``) and wall seconds, with the 1-minute load
average before and after; each page's shown output (the text of what its cells display, pandas' random
table ids and objects' addresses left out) must be the same in every run of both variants (``same_output``).

Writes ``benchmarks/results/book_store.json`` atomically.
Run: ``python benchmarks/bench_book_store.py [--rounds 3] [--pages intro.md book/reproducing.md ...]``
(about 8 minutes on an idle core).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from cffair._support.utils import project_root, write_json_atomic

RESULTS = Path(__file__).resolve().parent / "results" / "book_store.json"
#: The commit before the change (each read parsed and checked, one scan per chapter).
BEFORE = "06357a3"
PAGES = ("intro.md", "book/reproducing.md", "notebooks/q1_counterfactual_fairness.md")
VARIANTS = ("before", "after")

#: What a child process runs: the page's code cells in order, in the page's folder, with the variant's code.
CHILD = r"""
import io, json, os, sys, types, subprocess, hashlib, contextlib
variant, page, before = sys.argv[1:4]
os.environ["CFFAIR_MODE"] = "render"
os.environ["MPLBACKEND"] = "Agg"
root = os.getcwd()
if variant == "before":
    from cffair.experiments import _store as store
    from cffair.workflows import _reproduce as reproduce
    from cffair._support import codehash

    from cffair._support.moves import as_today

    def show(path):
        run = subprocess.run(["git", "show", f"{before}:{path}"], cwd=root, capture_output=True, text=True)
        return run.stdout if run.returncode == 0 else None

    moves_then = json.loads(show("cffair/data/fingerprint_ledger.json") or "{}").get("moves", {})

    def old(path):  # the module as it was, its imports under today's module names
        mod = types.ModuleType("_before_" + path.replace("/", "_")[:-3])
        sys.modules[mod.__name__] = mod
        exec(compile(as_today(show(path), moves_then), f"{before}:{path}", "exec"), mod.__dict__)
        return mod

    store._read_verified = lambda path: store._validate(path.read_bytes(), path)
    reproduce.results_for = old("cffair/workflows/reproduce.py").results_for
    old_tree = old("cffair/_support/codehash.py").SourceTree
    codehash.SourceTree.exempt = old_tree.exempt
    codehash.SourceTree.code_fingerprint = old_tree.code_fingerprint
import ast
import jupytext
import IPython.display
nb = jupytext.read(page)
os.chdir(os.path.dirname(os.path.abspath(page)))
shown = []
def display(*objs, **kw):  # what a kernel would show: text, or a table's data (a Styler's ids differ per run)
    for o in objs:
        shown.append(str(getattr(o, "data", o)) if o is not None else "")
IPython.display.display = display
g = {"__name__": "__main__", "display": display}
for cell in nb.cells:
    if cell.cell_type != "code":
        continue
    tree = ast.parse("\n".join(l for l in cell.source.splitlines() if not l.lstrip().startswith(("%", "!"))))
    last = tree.body.pop() if tree.body and isinstance(tree.body[-1], ast.Expr) else None
    with contextlib.redirect_stdout(io.StringIO()) as out:
        exec(compile(tree, page, "exec"), g)
        if last is not None:
            value = eval(compile(ast.Expression(last.value), page, "eval"), g)
            if value is not None:
                display(value)
    shown.append(out.getvalue())
import re
text = re.sub(r"T_[0-9a-f]{5}| at 0x[0-9a-f]+", "", json.dumps([str(s) for s in shown]))  # random table ids, addresses
digest = hashlib.sha256(text.encode()).hexdigest()[:16]
print(json.dumps({"output": digest}))
"""


def run_page(variant: str, page: str, before: str) -> dict[str, Any]:
    """One fresh process running ``page``'s cells with ``variant``'s code: its CPU and wall seconds, load, output hash."""
    load = os.getloadavg()[0]
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    wall = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-c", CHILD, variant, page, before],
        cwd=project_root(),
        capture_output=True,
        text=True,
        check=False,
    )
    wall = time.perf_counter() - wall
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode:
        raise SystemExit(f"{page} ({variant}) failed:\n{proc.stderr[-2000:]}")
    return {
        "wall_s": round(wall, 2),
        "cpu_s": round(after.ru_utime + after.ru_stime - used.ru_utime - used.ru_stime, 2),
        "load": [round(load, 2), round(os.getloadavg()[0], 2)],
        "output": json.loads(proc.stdout.strip().splitlines()[-1])["output"],
    }


def summary(values: list[float]) -> dict[str, float]:
    """The median and the spread (min, max) of a variant's rounds."""
    return {k: round(f(values), 2) for k, f in (("median", statistics.median), ("min", min), ("max", max))}


def main(rounds: int, pages: tuple[str, ...], before: str) -> dict[str, Any]:
    runs: dict[str, dict[str, list[dict[str, Any]]]] = {p: {v: [] for v in VARIANTS} for p in pages}
    for r in range(rounds):
        order = VARIANTS if r % 2 == 0 else VARIANTS[::-1]
        for page in pages:
            for v in order:
                runs[page][v].append(run_page(v, page, before))
                print(page, v, runs[page][v][-1], flush=True)
    commit = subprocess.run(["git", "rev-parse", "HEAD"], cwd=project_root(), capture_output=True, text=True).stdout
    per_page: dict[str, Any] = {}
    for page, by in runs.items():
        entry: dict[str, Any] = {
            v: {"wall": summary([x["wall_s"] for x in xs]), "cpu": summary([x["cpu_s"] for x in xs]), "runs": xs}
            for v, xs in by.items()
        }
        entry["same_output"] = len({x["output"] for xs in by.values() for x in xs}) == 1
        entry["ratio_cpu"] = round(entry["before"]["cpu"]["median"] / entry["after"]["cpu"]["median"], 2)
        entry["ratio_wall"] = round(entry["before"]["wall"]["median"] / entry["after"]["wall"]["median"], 2)
        per_page[page] = entry
    result = {
        "benchmark": "book_store",
        "before_commit": subprocess.run(
            ["git", "rev-parse", before], cwd=project_root(), capture_output=True, text=True
        ).stdout.strip(),
        "commit": commit.strip(),
        "rounds": rounds,
        "pages": per_page,
        "cpu_s_total": {v: round(sum(p[v]["cpu"]["median"] for p in per_page.values()), 1) for v in VARIANTS},
        "machine": {"platform": platform.platform(), "cpus": os.cpu_count()},
        "finished": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }
    write_json_atomic(RESULTS, result, what="benchmark result")
    return result


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--pages", nargs="+", default=list(PAGES))
    parser.add_argument("--before", default=BEFORE, help="the commit whose store reading is 'before'")
    args = parser.parse_args()
    res = main(args.rounds, tuple(args.pages), args.before)
    print(
        json.dumps({p: {k: e[k] for k in ("ratio_cpu", "ratio_wall", "same_output")} for p, e in res["pages"].items()})
    )
