"""What the full reproduction costs: wall time per stage against the 2-hour target, and where
the core-seconds go.

The measurement itself is ``cffair reproduce --mode full --jobs 2`` (``make reproduce
MODE=full``), which writes ``results/full/provenance.json`` (wall time per stage) and one record
per dataset × fold × setting (its own seconds). This script reads them and summarises:

* wall-clock seconds per stage (counterfactuals, experiments, notebooks) and in total, against
  the target of 2 hours on 2 cores;
* core-seconds per dataset and part: LTN pre-training (counted once per fold: every LTN
  setting of a fold continues from it), the LTN fairness settings, the CKE settings, and each
  baseline;
* the quick reproduction's wall time against its 10-minute target, when
  ``results/quick/provenance.json`` exists (``cffair reproduce --mode quick``).

Writes ``benchmarks/results/full_run.json`` atomically.

Run: ``python benchmarks/bench_full_run.py [--results results] [--quick path/to/provenance.json]``.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import pandas as pd

from cffair.experiments import ResultsStore, paper_grid
from cffair.utils import project_root, write_json_atomic

RESULTS = Path(__file__).resolve().parent / "results" / "full_run.json"
TARGET_FULL_S = 2 * 3600
TARGET_QUICK_S = 10 * 60


def part_of(setting: str) -> str:
    """The part of the protocol a setting's seconds belong to."""
    if setting.endswith("_cke"):
        return "LTN CKE"
    if setting.startswith("ltn"):
        return "LTN fairness" if setting != "ltn_acc" else "LTN acc"
    return {"cnf": "CNF-augmented MLP", "gan": "GAN", "dcevae": "DCEVAE"}.get(setting, "unaware / level 3 / PCF")


def core_seconds(records: list[dict[str, Any]]) -> pd.DataFrame:
    """Core-seconds per dataset × part; the shared pre-training is counted once per fold."""
    rows = []
    pretrain_seen: set[tuple[str, int]] = set()
    for rec in records:
        cfg, t = rec["config"], rec.get("timings", {})
        if cfg["setting"].startswith("ltn"):
            key = (cfg["dataset"], cfg["fold"])
            if key not in pretrain_seen:
                pretrain_seen.add(key)
                rows.append({"dataset": cfg["dataset"], "part": "LTN pre-training", "seconds": float(t.get("pretrain", 0.0))})
            rows.append({"dataset": cfg["dataset"], "part": part_of(cfg["setting"]), "seconds": float(t.get("setting", 0.0))})
        else:
            rows.append({"dataset": cfg["dataset"], "part": part_of(cfg["setting"]), "seconds": float(t.get("total", 0.0))})
    df = pd.DataFrame(rows)
    return df.pivot_table(index="dataset", columns="part", values="seconds", aggfunc="sum", fill_value=0.0)


def summarise(results: Path, quick: Path | None = None) -> dict[str, Any]:
    """The summary written to ``full_run.json``."""
    full = results / "full"
    prov = json.loads((full / "provenance.json").read_text())
    store = ResultsStore(full)
    wanted = {c.key for c in paper_grid("full")}
    records = [r for r in store.records() if _key(r) in wanted]
    table = core_seconds(records)
    stages = {k: float(v) for k, v in prov["stage_seconds"].items()}
    wall = sum(stages.values())
    out: dict[str, Any] = {
        "benchmark": "full_run",
        "commit": prov.get("commit"),
        "code_version": prov.get("code_version"),
        "machine": prov.get("machine"),
        "finished": prov.get("finished"),
        "records": len(records),
        "records_wanted": len(wanted),
        "stage_seconds": stages,
        "wall_seconds": round(wall, 1),
        "target_seconds": TARGET_FULL_S,
        "target_met": bool(wall <= TARGET_FULL_S and len(records) == len(wanted)),
        "core_seconds": {ds: {p: round(float(v), 1) for p, v in row.items()} for ds, row in table.iterrows()},
        "core_seconds_total": round(float(table.to_numpy().sum()), 1),
    }
    quick = quick or results / "quick" / "provenance.json"
    if quick.exists():
        q = json.loads(quick.read_text())
        q_wall = float(sum(q["stage_seconds"].values()))
        out["quick"] = {"stage_seconds": q["stage_seconds"], "wall_seconds": round(q_wall, 1), "target_seconds": TARGET_QUICK_S,
                        "target_met": q_wall <= TARGET_QUICK_S, "finished": q.get("finished")}
    return out


def _key(rec: dict[str, Any]) -> str:
    from cffair.experiments import ExperimentConfig

    return ExperimentConfig.from_dict(rec["config"]).key


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--results", type=Path, default=project_root() / "results")
    ap.add_argument("--quick", type=Path, default=None, help="provenance.json of a quick reproduction (default: RESULTS/quick/)")
    args = ap.parse_args()
    out = summarise(args.results, args.quick)
    write_json_atomic(RESULTS, out)
    print(json.dumps({k: v for k, v in out.items() if k != "core_seconds"}, indent=2))
    print(pd.DataFrame(out["core_seconds"]).T.round(0).to_string())


if __name__ == "__main__":
    main()
