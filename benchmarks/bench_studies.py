"""What appendix C's studies add to the full mode: one measured COMPAS fold of each new kind of
record, scaled to every dataset and fold of :func:`cffair.experiments.study_grid`.

The full mode must stay within 3 h 30 min on 2 cores (about 25,000 core-seconds, issue #29). The
studies' records do not exist until the final regeneration, so their cost is *estimated*:

1. ``--measure`` runs the full profile's study configs of COMPAS fold 0 (the fold's shared
   pre-training included once, as the grid runs it) into a temporary store and keeps each
   record's own seconds and each task group's wall time;
2. each study config of the full grid is costed from the committed records (``results/full``): the
   mean seconds of the same plain setting on its dataset (``ltn_acc_cf`` for an LTN fairness variant,
   ``cnf``, ``gan``, ``ltn_acc_cf@gan``), times, for the released GAN, its cost against the
   re-implemented GAN measured in step 1 under the same load;
3. the total is put beside the rest of the grid: the committed run's core-seconds
   (``benchmarks/results/full_run.json``) and the configs it has no record of yet.

Writes ``benchmarks/results/studies_cost.json`` atomically.

Run: ``python benchmarks/bench_studies.py --measure`` (about 10 min on a loaded 2-core machine:
COMPAS's three full-profile flows are fitted first unless cached), then without ``--measure`` to
re-estimate from the saved measurement.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

from cffair._support.utils import project_root, write_json_atomic
from cffair.experiments import GROUPS, STUDY_GROUPS, ExperimentConfig, ResultsStore, paper_grid

RESULTS = Path(__file__).resolve().parent / "results" / "studies_cost.json"
BUDGET_CORE_S = 25_000  # 3 h 30 min on 2 cores, less scheduling slack


def base_kind(cfg: ExperimentConfig) -> str:
    """The plain setting whose committed seconds scale a study config from COMPAS to its dataset."""
    if cfg.setting == "gan":
        return "gan"
    if cfg.setting == "cnf":
        return "cnf"
    if cfg.cf_source == "gan":
        return "ltn_acc_cf@gan"
    return "ltn_acc" if cfg.setting == "ltn_acc" else "ltn_acc_cf"


def study_of(cfg: ExperimentConfig) -> str:
    """The study a config belongs to (:data:`cffair.experiments.STUDIES`)."""
    opts = cfg.option_map
    if "semantics" in opts:
        return "semantics"
    if "twins" in opts:
        return "twins"
    if "a4_body" in opts:
        return "diagnostics"
    return "gan"


def record_seconds(rec: dict[str, Any]) -> float:
    """A record's own seconds: a fairness stage without the shared pre-training, a baseline's fit."""
    t = rec.get("timings") or {}
    return float(t["setting"]) if "setting" in t else float(t.get("total", 0.0))


def committed_seconds(results: Path) -> dict[tuple[str, str], float]:
    """Mean own seconds per (dataset, plain setting) in the committed full records."""
    sums: dict[tuple[str, str], list[float]] = defaultdict(list)
    for path in (results / "full" / "records").glob("*.json"):
        rec = json.loads(path.read_text())
        c = rec["config"]
        if c.get("options") or c.get("tag") or c.get("repeat"):
            continue
        kind = c["setting"] + ("@gan" if c.get("cf_source") == "gan" else "")
        sums[(c["dataset"], kind)].append(record_seconds(rec))
    return {k: sum(v) / len(v) for k, v in sums.items()}


def measure() -> dict[str, Any]:
    """Run the full profile's study configs of COMPAS fold 0; own seconds per record, wall per group."""
    from cffair.workflows._reproduce import _task_groups, run_grid

    cfgs = [c for c in paper_grid("full", ["compas"], only=["appendix_c_studies"]) if c.fold == 0]
    out: dict[str, Any] = {"records": {}, "groups": []}
    with tempfile.TemporaryDirectory() as tmp:
        store = ResultsStore(Path(tmp))
        for group in _task_groups(cfgs):
            t0 = time.perf_counter()
            run_grid(group, store, jobs=1, backend="sequential", progress=False)  # the task graph, the one route
            recs = [r for r in (store.get(c) for c in group) if r is not None]
            out["groups"].append({"configs": [c.key for c in group], "wall_s": round(time.perf_counter() - t0, 2)})
            for rec in recs:
                key = ExperimentConfig.from_dict(rec["config"]).key
                out["records"][key] = {"own_s": round(record_seconds(rec), 2), "timings": rec.get("timings", {})}
    return out


def _released_factor(measured: dict[str, Any]) -> float:
    """How much a released GAN costs against a re-implemented one, both measured in the same run (same load)."""
    own = measured["records"]
    rel = [v["own_s"] for k, v in own.items() if "/gan" in k and "gan_variant=released" in k]
    re = [v["own_s"] for k, v in own.items() if "/gan" in k and "gan_variant" not in k]
    return (sum(rel) / len(rel)) / (sum(re) / len(re)) if rel and re else float("nan")


def own_kind(cfg: ExperimentConfig) -> str:
    """A plain config's kind in :func:`committed_seconds`."""
    return cfg.setting + ("@gan" if cfg.cf_source == "gan" else "")


def estimate(measured: dict[str, Any], results: Path) -> dict[str, Any]:
    """Core-seconds of every study config of the full grid, per study and in total, and of the rest of the grid.

    A study config costs its plain kind's mean committed seconds on its dataset (the COMPAS measurement
    ran on a loaded machine, so its absolute seconds are not used), times the released GAN's measured
    factor for a released GAN; the other study kinds do the same work as their plain kind (same epochs,
    same rows; the logic or the twins change the numbers, not the work). The rest of the grid is the
    committed run's core-seconds plus, for each config without a committed record, its kind's mean.
    """
    committed = committed_seconds(results)
    factor = _released_factor(measured)
    per_study: dict[str, float] = defaultdict(float)
    for cfg in paper_grid("full", only=["appendix_c_studies"]):
        cost = committed.get((cfg.dataset, base_kind(cfg)), 0.0)
        if cfg.setting == "gan" and cfg.option_map.get("gan_variant") == "released":
            cost *= factor
        per_study[study_of(cfg)] += cost
    done = {
        ExperimentConfig.from_dict(json.loads(p.read_text())["config"]).key
        for p in (results / "full" / "records").glob("*.json")
    }
    rest = [c for c in paper_grid("full", only=[g for g in GROUPS if g not in STUDY_GROUPS]) if c.key not in done]
    pre = {d: committed.get((d, "ltn_acc"), 0.0) for d in {c.dataset for c in rest}}
    not_committed = sum(committed.get((c.dataset, own_kind(c)), 0.0) for c in rest)
    not_committed += sum(
        pre[c.dataset] for c in rest if c.setting == "ltn_acc" and not c.options and not c.tag
    )  # pre-training
    full_run = json.loads((Path(__file__).resolve().parent / "results" / "full_run.json").read_text())
    present = float(full_run.get("core_seconds_total", 0.0)) + not_committed
    studies = sum(per_study.values())
    return {
        "released_gan_cost_factor": round(factor, 2),
        "per_study_core_s": {k: round(v, 1) for k, v in sorted(per_study.items())},
        "studies_core_s": round(studies, 1),
        "committed_run_core_s": float(full_run.get("core_seconds_total", 0.0)),
        "grid_without_studies_core_s": round(present, 1),
        "records_not_committed": len(rest),
        "full_mode_core_s": round(present + studies, 1),
        "budget_core_s": BUDGET_CORE_S,
        "within_budget": present + studies <= BUDGET_CORE_S,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--measure", action="store_true", help="run COMPAS fold 0 of every study kind (minutes)")
    ap.add_argument("--results", default=str(project_root() / "results"))
    args = ap.parse_args()
    old = json.loads(RESULTS.read_text()) if RESULTS.exists() else {}
    measured = measure() if args.measure else old.get("measured")
    if not measured:
        raise SystemExit("no measurement yet: run with --measure first.")
    out = {"benchmark": "studies_cost", "measured": measured, **estimate(measured, Path(args.results))}
    write_json_atomic(RESULTS, out)
    print(json.dumps({k: v for k, v in out.items() if k != "measured"}, indent=2))


if __name__ == "__main__":
    main()
