"""The pre-registered protocol's projected cost (``cffair/data/protocol.yaml``): how many records the full
mode's grid asks for, and their core-seconds and makespans from the committed records' per-task costs.

A config without a committed record takes the seconds of the nearest one that exists: the same config on
the paper's partition (repetition 0), then also seed 0, then its fold 0 (appendix C's twins study ran Adult
on folds 0 and 1 only), then the plain setting (no option, tag or seed) on the same fold. No run: this reads
``results/full`` and writes ``benchmarks/results/protocol_projection.json``.

Run: ``python benchmarks/bench_protocol.py``.
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from dataclasses import replace
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))


def main() -> dict[str, Any]:
    from bench_full_run import projection, task_seconds

    from cffair.experiments import ExperimentConfig, ResultsStore, paper_grid
    from cffair.experiments._protocol import protocol, protocol_commit

    records = ResultsStore(ROOT / "results" / "full").records()
    have = {ExperimentConfig.from_dict(r["config"]).key: r for r in records}
    grid = paper_grid("full")
    how: Counter[str] = Counter()
    stand_in = []
    for c in grid:
        chain = [
            ("measured", c),
            ("repetition 0", replace(c, repeat=0)),
            ("repetition 0, seed 0", replace(c, repeat=0, seed=0)),
            ("repetition 0, seed 0, fold 0", replace(c, repeat=0, seed=0, fold=0)),
            ("plain setting", replace(c, repeat=0, seed=0, options=(), tag="")),
        ]
        for name, k in chain:
            if k.key in have:
                how[name] += 1
                stand_in.append({**have[k.key], "config": c.to_dict()})
                break
        else:
            how["left out"] += 1
    new = projection(*task_seconds(stand_in), workers=(1, 2, 4, 16, 64))
    old = projection(*task_seconds(records), workers=(1, 2, 4, 16, 64))
    kinds: Counter[str] = Counter()
    for c in grid:
        kinds[
            ("seed 0" if not c.seed or c.tag else "other seeds")
            + (", sound twins" if c.option_map.get("twins") == "default" else "")
            + (", repetition > 0" if c.repeat else "")
        ] += 1
    p = protocol()
    out = {
        "benchmark": "protocol_projection",
        "protocol_file": str(p.path.relative_to(ROOT)),
        "protocol_commit": protocol_commit(ROOT),
        "records_committed": len(records),
        "records_wanted": len(grid),
        "records_by_kind": dict(sorted(kinds.items())),
        "stand_ins": dict(how),
        "committed_grid": old,
        "protocol_grid": new,
        "added_core_seconds": round(new["core_seconds"] - old["core_seconds"], 1),
    }
    (ROOT / "benchmarks" / "results" / "protocol_projection.json").write_text(json.dumps(out, indent=2) + "\n")
    return out


if __name__ == "__main__":
    o = main()
    print(json.dumps({k: v for k, v in o.items() if k not in ("committed_grid", "protocol_grid")}, indent=2))
    for name in ("committed_grid", "protocol_grid"):
        g = o[name]
        print(
            name,
            g["tasks"],
            "tasks",
            g["core_seconds"],
            "core-s",
            "makespan",
            g["makespan_seconds"],
            "critical path",
            g["critical_path"]["seconds"],
        )
