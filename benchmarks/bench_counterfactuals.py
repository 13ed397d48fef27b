"""Time and peak memory of the causal flows and their counterfactuals (paper section 6.2 settings).

For each dataset (adult, compas, lawschool; compas_age shares compas's features and graph, so
its flow and counterfactuals are the same) one subprocess fits the flow with the paper's
treatment (``PAPER_TREATMENT``, what the reproduction uses) on all rows (no cache) and generates
the sensitive and the immutable-feature counterfactuals; peak memory is the subprocess's maximum
resident set size. For Adult it also fits the library's default treatment (Gumbel-max nominal
nodes, threshold binary/ordinal nodes) and tabulates where "Husband" goes when male rows have
their sex flipped, under each treatment.

Usage::

    python benchmarks/bench_counterfactuals.py            # all datasets -> benchmarks/results/counterfactuals.json
    python benchmarks/bench_counterfactuals.py --datasets adult   # re-measure adult, keep the others' results
    python benchmarks/bench_counterfactuals.py --one compas   # one dataset, JSON on stdout
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

DATASETS = ("adult", "compas", "lawschool")
OUT = Path(__file__).parent / "results" / "counterfactuals.json"


def _husband_table(frame: Any, cfs: Any) -> dict[str, float]:
    import pandas as pd

    flips = cfs.select(feature="sex").frame
    fact = frame.iloc[flips["row_id"].to_numpy()].reset_index(drop=True)
    mask = (fact["sex"].astype(str) == "Male") & (fact["relationship"].astype(str) == "Husband")
    share = flips.loc[mask.to_numpy(), "relationship"].astype(str).value_counts(normalize=True)
    return {k: round(float(v), 4) for k, v in pd.Series(share).items()}


def run_one(name: str, seed: int = 0) -> dict[str, Any]:
    """Fit and generate for one dataset in this process; return timings and counts."""
    from cffair import datasets
    from cffair._support.utils import torch_cpu_setup
    from cffair.causal import PAPER_TREATMENT, CounterfactualSet
    from cffair.causal._flow import CausalFlow, FlowConfig, _one_intervention
    from cffair.causal._interventions import resolve

    torch_cpu_setup()
    frame, spec = datasets.load(name)
    cfg = FlowConfig.from_dict(PAPER_TREATMENT)
    result: dict[str, Any] = {"rows": len(frame), "config": cfg.to_dict()}
    t0 = time.perf_counter()
    model = CausalFlow(spec, config=cfg).fit(frame, seed=seed)
    result["fit_seconds"] = round(time.perf_counter() - t0, 2)
    result["epochs_run"] = len(model.history)
    result["best_epoch"] = model.best_epoch
    result["best_val_loss"] = round(min(h["val"] for h in model.history), 4) if model.history else None
    result["seconds_per_epoch"] = round(result["fit_seconds"] / max(1, len(model.history)), 3)
    sets = {}
    for which in ("sensitive", "immutable"):
        t0 = time.perf_counter()
        todo = resolve(frame, spec, which)
        parts = [_one_intervention(model, frame, spec, iv, seed * 1_000_003 + k) for k, iv in enumerate(todo)]
        cfs = CounterfactualSet.concat(parts, meta={})
        result[f"{which}_seconds"] = round(time.perf_counter() - t0, 2)
        result[f"{which}_interventions"] = [[i.feature, i.label] for i in todo]
        result[f"{which}_cf_rows"] = len(cfs)
        sets[which] = cfs
    if name == "adult":
        result["husband_sex_flip"] = {"paper": _husband_table(frame, sets["sensitive"])}
        t0 = time.perf_counter()
        dmodel = CausalFlow(spec, config=FlowConfig()).fit(frame, seed=seed)
        result["default_fit_seconds"] = round(time.perf_counter() - t0, 2)
        todo = resolve(frame, spec, "sensitive")
        dparts = [_one_intervention(dmodel, frame, spec, iv, seed * 1_000_003 + k) for k, iv in enumerate(todo)]
        result["husband_sex_flip"]["default"] = _husband_table(frame, CounterfactualSet.concat(dparts, meta={}))
        result["default_fit_and_sensitive_seconds"] = round(time.perf_counter() - t0, 2)
        result["default_epochs_run"] = len(dmodel.history)
        result["default_config"] = FlowConfig().to_dict()
        # the factual distribution of relationship among women, for comparison
        women = frame.loc[frame["sex"].astype(str) == "Female", "relationship"].astype(str).value_counts(normalize=True)
        result["husband_sex_flip"]["factual_women"] = {k: round(float(v), 4) for k, v in women.items()}
    result["peak_rss_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--one", choices=DATASETS)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--datasets", nargs="*", default=list(DATASETS))
    args = parser.parse_args()
    if args.one:
        print(json.dumps(run_one(args.one, args.seed)))
        return 0
    from cffair._support.utils import write_json_atomic

    results: dict[str, Any] = {"machine": "1 torch thread; 2 shared cores", "seed": args.seed, "datasets": {}}
    partial = set(args.datasets) < set(DATASETS) and OUT.exists()
    if partial:  # re-measure some datasets, keep the others' results (and the last full run's total)
        old = json.loads(OUT.read_text())
        results["datasets"] = {k: v for k, v in old.get("datasets", {}).items() if k not in args.datasets}
        results["total_seconds"] = old.get("total_seconds")
    total = time.perf_counter()
    for name in args.datasets:
        t0 = time.perf_counter()
        proc = subprocess.run(
            [sys.executable, __file__, "--one", name, "--seed", str(args.seed)],
            capture_output=True,
            text=True,
            check=True,
        )
        res = json.loads(proc.stdout.strip().splitlines()[-1])
        res["wall_seconds"] = round(time.perf_counter() - t0, 2)
        results["datasets"][name] = res
        print(name, {k: v for k, v in res.items() if "seconds" in k or k in ("epochs_run", "peak_rss_mb")}, flush=True)
        write_json_atomic(OUT, results)
    results["datasets"]["compas_age"] = {"same_as": "compas"}
    if partial:
        results["remeasured"] = {"datasets": list(args.datasets), "seconds": round(time.perf_counter() - total, 2)}
    else:
        results["total_seconds"] = round(time.perf_counter() - total, 2)
    write_json_atomic(OUT, results)
    print("total", round(time.perf_counter() - total, 2), "s ->", OUT)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
