"""The Reproducing page's robustness cell before and after issue 43's book changes, in one process.

The cell (``book/reproducing.md``, "How robust the verdicts are") reads the claims' records and
decides every claim under four rule sets, once for its summary line (``robustness_frame``) and once
for the table (``robustness_table``). Three variants of the *same cell source* (read from the page)
run in alternating rounds (each round in another order), each timed in wall-clock and CPU seconds
of this process, with the load average before and after:

* ``before`` — the code before the change (``--before``, default the commit this work started
  from): its ``spearman_exact`` (one ``np.corrcoef`` per ordering) and ``sign_flip_p`` (the
  ``itertools.product`` sign matrix), loaded from git and put where the checks call them; no
  claims cache (each rule set evaluated twice: 8 evaluations); Adult parsed at every call.
* ``after`` — today's code in a cold kernel: the vectorised tests, each rule set evaluated once
  (4 evaluations), Adult parsed once; no on-disk cache.
* ``after_disk`` — today's code when the build's on-disk claims cache already holds the four
  evaluations (a second build of unchanged inputs): no evaluation at all.

Before the rounds, one untimed run of ``after`` imports what the cell imports lazily. The outputs
(the frame and the table's HTML) of ``before`` and ``after`` must be equal (``same_output``). Beside
the cell, the two exact tests alone: ``spearman_exact`` on 7 points and ``sign_flip_p`` on 5 and 15
differences, old and new alternating.

Writes ``benchmarks/results/book_claims.json`` atomically.
Run: ``CFFAIR_MODE=render python benchmarks/bench_book_claims.py [--rounds 3] [--before <commit>]``
(about 3 minutes on an idle core).
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
import types
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any
from unittest import mock

import numpy as np

from cffair._support.utils import project_root, write_json_atomic

RESULTS = Path(__file__).resolve().parent / "results" / "book_claims.json"
#: The commit before issue 43's book changes (the tests' loops and no claims cache).
BEFORE = "5454cfb"
PAGE = "book/reproducing.md"
VARIANTS = ("before", "after", "after_disk")


def _git(*args: str) -> str:
    return subprocess.run(["git", *args], cwd=project_root(), capture_output=True, text=True, check=True).stdout


def module_at(commit: str, path: str) -> types.ModuleType:
    """The module ``path`` as it was at ``commit``, loaded under a name of its own, with its imports under today's
    module names (:func:`cffair._support.moves.as_today`)."""
    from cffair._support.moves import as_today

    try:
        moves_then = json.loads(_git("show", f"{commit}:cffair/data/fingerprint_ledger.json")).get("moves", {})
    except subprocess.CalledProcessError:  # before the ledger: nothing had moved
        moves_then = {}
    name = f"_bench_{commit}_{Path(path).stem}"
    mod = types.ModuleType(name)
    mod.__file__ = f"{commit}:{path}"
    sys.modules[name] = mod  # dataclasses look their module up while the class is made
    exec(compile(as_today(_git("show", f"{commit}:{path}"), moves_then), mod.__file__, "exec"), mod.__dict__)
    return mod


def robustness_cell() -> str:
    """The source of the page's robustness cell."""
    import jupytext

    cells = [
        c.source
        for c in jupytext.read(project_root() / PAGE).cells
        if c.cell_type == "code" and "robustness_table(" in c.source
    ]
    if len(cells) != 1:
        raise SystemExit(f"{PAGE} has {len(cells)} cells calling robustness_table; expected one.")
    return cells[0]


@contextmanager
def variant(name: str, old: dict[str, Any], disk: Path, counts: dict[str, int]) -> Iterator[None]:
    """The code and caches of one variant, counting evaluations and dataset parses."""
    import cffair_book
    from cffair.datasets import _memo as memo
    from cffair.datasets import _registry as registry
    from cffair.reporting import _verdicts as verdicts
    from cffair_book import claims_appendix_b, claims_cache, investigations
    from cffair_book import registry as claims_registry

    real_eval, real_load = claims_registry._evaluate, registry.load

    def evaluate(records: Any, rules: Any) -> Any:
        counts["evaluations"] += 1
        return real_eval(records, rules)

    def load(name: str) -> Any:
        counts["dataset_parses"] += 1
        return real_load(name)

    claims_cache.clear()
    memo.clear()
    with ExitStack() as stack:
        enter = stack.enter_context
        enter(mock.patch.object(claims_registry, "_evaluate", evaluate))
        enter(mock.patch.object(registry, "load", load))
        if name == "before":
            enter(claims_cache.disabled())
            enter(mock.patch.object(memo, "load", load))  # parsed at every call, as before
            enter(mock.patch.object(verdicts, "sign_flip_p", old["sign_flip_p"]))
            for mod in (verdicts, claims_appendix_b, investigations):
                if hasattr(mod, "spearman_exact"):  # B.1 now tests with the fold as the unit (stats.fold_trend)
                    enter(mock.patch.object(mod, "spearman_exact", old["spearman_exact"]))
        else:
            enter(mock.patch.dict(os.environ, {claims_cache.ENV_VAR: str(disk) if name == "after_disk" else "off"}))
        assert cffair_book.robustness_frame is claims_registry.robustness_frame
        yield


def run_cell(source: str) -> tuple[Any, str]:
    """Run the cell as a kernel does (its last expression is what it shows); return the frame it
    computes and the HTML of the table it shows."""
    ns: dict[str, Any] = {"display": lambda *a, **k: None}
    exec("from cffair import reporting\nimport cffair_book as book\n", ns)  # the page's first cell
    tree = ast.parse(source)
    last = tree.body.pop()
    if not isinstance(last, ast.Expr):
        raise SystemExit(f"the robustness cell of {PAGE} no longer ends with the table it shows.")
    exec(compile(tree, PAGE, "exec"), ns)
    table = eval(compile(ast.Expression(last.value), PAGE, "eval"), ns)
    return ns["robust"], table.html


def timed(fn: Callable[[], Any]) -> tuple[Any, float, float, list[float]]:
    load = os.getloadavg()[0]
    wall, cpu = time.perf_counter(), time.process_time()
    out = fn()
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    return out, wall, cpu, [round(load, 2), round(os.getloadavg()[0], 2)]


def summary(values: list[float], digits: int = 3) -> dict[str, float]:
    """The median and the spread (min, max) of a variant's rounds."""
    return {k: round(f(values), digits) for k, f in (("median", statistics.median), ("min", min), ("max", max))}


def exact_tests(old: dict[str, Any], rounds: int) -> dict[str, Any]:
    """Old and new ``spearman_exact`` (7 points) and ``sign_flip_p`` (5 and 15 differences), alternating."""
    from cffair.reporting import sign_flip_p, spearman_exact

    rng = np.random.default_rng(0)
    cases: dict[str, tuple[Callable[..., Any], Callable[..., Any], tuple[Any, ...], int]] = {
        "spearman_exact_7": (old["spearman_exact"], spearman_exact, (rng.normal(size=7), rng.normal(size=7)), 10),
        "sign_flip_p_5": (old["sign_flip_p"], sign_flip_p, (rng.normal(size=5),), 1000),
        "sign_flip_p_15": (old["sign_flip_p"], sign_flip_p, (rng.normal(size=15),), 50),
    }
    out: dict[str, Any] = {}
    for key, (before, after, args, calls) in cases.items():
        got = {"before": before(*args), "after": after(*args)}
        same = (
            (got["before"].rho, got["before"].p) == (got["after"].rho, got["after"].p)
            if "spearman" in key
            else (got["before"] == got["after"])
        )
        cpu: dict[str, list[float]] = {"before": [], "after": []}
        for r in range(rounds):
            for which in ("before", "after") if r % 2 == 0 else ("after", "before"):
                fn = before if which == "before" else after
                t = time.process_time()
                for _ in range(calls):
                    fn(*args)
                cpu[which].append((time.process_time() - t) / calls)
        med = {k: statistics.median(v) for k, v in cpu.items()}
        out[key] = {
            "calls_per_round": calls,
            "cpu_s_per_call": {k: summary(v, 7) for k, v in cpu.items()},
            "ratio_cpu": round(med["before"] / med["after"], 1),
            "same_value": bool(same),
        }
    return out


def main(rounds: int = 3, before: str = BEFORE) -> dict[str, Any]:
    os.environ.setdefault("CFFAIR_MODE", "render")
    before = _git("rev-parse", before).strip()
    old = {
        "spearman_exact": module_at(before, "cffair/reporting/verdicts.py").spearman_exact,
        "sign_flip_p": module_at(before, "cffair/reporting/stats.py").sign_flip_p,
    }
    source = robustness_cell()
    runs: dict[str, dict[str, Any]] = {v: {"wall_s": [], "cpu_s": [], "load": []} for v in VARIANTS}
    outputs: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="cffair-claims-cache-") as tmp:
        disk = Path(tmp)
        counts = {"evaluations": 0, "dataset_parses": 0}
        with variant("after_disk", old, disk, counts):
            run_cell(source)  # imports what the cell imports lazily; fills the on-disk cache
        for r in range(rounds):
            order = VARIANTS[r % len(VARIANTS) :] + VARIANTS[: r % len(VARIANTS)]
            for name in order:
                counts = {"evaluations": 0, "dataset_parses": 0}
                with variant(name, old, disk, counts):
                    out, wall, cpu, load = timed(lambda: run_cell(source))
                runs[name]["wall_s"].append(round(wall, 2))
                runs[name]["cpu_s"].append(round(cpu, 2))
                runs[name]["load"].append(load)
                runs[name].update(counts)
                outputs.setdefault(name, out)
                print(f"round {r}: {name:10s} wall {wall:6.2f} s  cpu {cpu:6.2f} s  load {load}  {counts}", flush=True)
    frame_b, html_b = outputs["before"]
    frame_a, html_a = outputs["after"]
    result: dict[str, Any] = {
        "benchmark": "book_claims",
        "cell": f"{PAGE}: the robustness table's cell (records read, 4 rule sets, summary line and table)",
        "commit": _git("rev-parse", "HEAD").strip(),
        "before_commit": before,
        "rounds": rounds,
        "variants": {
            name: {
                **{k: v for k, v in r.items()},
                "wall": summary(r["wall_s"]),
                "cpu": summary(r["cpu_s"]),
            }
            for name, r in runs.items()
        },
        "same_output": bool(frame_b.equals(frame_a) and html_b == html_a),
        "exact_tests": exact_tests(old, rounds),
        "machine": {"platform": platform.platform(), "cpus": os.cpu_count()},
    }
    base = result["variants"]["before"]
    result["ratios"] = {
        name: {
            "wall": round(base["wall"]["median"] / result["variants"][name]["wall"]["median"], 1),
            "cpu": round(base["cpu"]["median"] / result["variants"][name]["cpu"]["median"], 1),
        }
        for name in VARIANTS[1:]
    }
    write_json_atomic(RESULTS, result, what="benchmark result")
    return result


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--before", default=BEFORE, help="the commit whose exact tests are 'before'")
    args = parser.parse_args()
    res = main(args.rounds, args.before)
    print({k: res[k] for k in ("ratios", "same_output")}, res["exact_tests"])
