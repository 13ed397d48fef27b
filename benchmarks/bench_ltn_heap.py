"""The LTN's epochs on Adult fold 0 and the critical path of the full mode, before and after this round.

What is measured (short runs, not whole trainings), on Adult fold 0 of the full profile (its
encoded rows, its CNF twins and the twins of the CKE interventions, from the counterfactual
cache), one torch thread, denormals flushed as in training:

* one full-batch epoch (forward, backward, Adam step) of each stage's knowledge base: the
  pre-training (A1, A2), the fairness stage of acc+CF_sg (A1, A2, A4_i) and the four CKE steps
  of that setting's record (its candidates, in its order; the A5 domains are each group's rows
  with label 0, a stand-in for the negatively predicted rows of the trained model, which this
  short run does not train), with glibc's default allocator and with
  :func:`cffair._support.devices.retained_heap`; the variants alternate within each round, ``--rounds``
  rounds (at least 3) of ``--epochs`` epochs each, in one process, after one warm-up epoch;
  CPU time (``time.process_time``) beside wall time, the machine's load before and after;
* the same epoch with the elements of each axiom merged (each distinct row or pair once,
  weighted by its count in the ∀'s mean): the issue's proposal for duplicate rows, measured
  against the one pass over unique rows the knowledge base already makes;
* compiling each CKE step's knowledge base from scratch against compiling it from the step
  before (:meth:`cffair.logic.KnowledgeBase.compile_from`).

Then the projection: the task graph of the committed full run (``results/full``, every task's
seconds its records' own, as ``benchmarks/bench_full_run.py``), and the same graph with each
LTN task's seconds divided by its stage's measured CPU-time ratio (pre-training, fairness, CKE:
the ratio of the summed epoch times of the four steps); every other task's seconds unchanged
(the GAN's adversary update is rewritten elsewhere and measured in its own benchmark). A task's
evaluation is not sped up, so the scaled seconds are a slight overestimate of the gain. The
makespan is the scheduler's policy replayed on 2, 4, 16 and 64 workers.

Writes ``benchmarks/results/ltn_heap.json`` atomically.

Run: ``python benchmarks/bench_ltn_heap.py [--rounds 3] [--epochs 3]`` (about 4 minutes on an idle core).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import torch

from cffair._support.devices import retained_heap
from cffair._support.utils import project_root, torch_cpu_setup, write_json_atomic
from cffair.learners._networks import make_mlp
from cffair.logic import KnowledgeBase, accuracy_axioms, cke_axiom, subgroup_cf_axioms

RESULTS = Path(__file__).resolve().parent / "results" / "ltn_heap.json"
WORKERS = (2, 4, 16, 64)
RECORD = "full__adult__ltn_acc_cf_sg_cke__fold0.json"


class MergedKB(KnowledgeBase):
    """The issue's proposal: each axiom's distinct elements once, weighted by their counts in the ∀."""

    def compile(self) -> Any:
        c = super().compile()
        if not hasattr(self, "_merged"):
            u = c.inputs.shape[0]
            self._merged = []
            for ix, icf in zip(c.index_x, c.index_cf):
                key, counts = torch.unique(ix if icf is None else ix * u + icf, return_counts=True)
                self._merged.append(
                    (key if icf is None else key // u, None if icf is None else key % u, counts.float())
                )
        return c

    def satisfactions(self, model: torch.nn.Module) -> torch.Tensor:
        import ltn

        c = self.compile()
        out = model(c.inputs)
        sats = []
        for a, (ix, icf, n) in zip(self.axioms, self._merged):
            truths = a.truths(out[ix], None if icf is None else out[icf], self.semantics)
            p = a.p or self.semantics.p_forall
            err = torch.pow(1.0 - (ltn.fuzzy_ops.pi_1(truths) if self.semantics.stable else truths), p)
            sats.append(1.0 - torch.pow((err * n).sum() / n.sum(), 1 / p))
        return torch.stack(sats)


def fold_axioms() -> tuple[list[Any], list[Any], list[Any], int]:
    """Adult fold 0: the accuracy axioms, the subgroup axioms A4_i and the record's four A5 axioms."""
    from cffair.evaluation import _cke as cke
    from cffair.experiments import ExperimentConfig, FoldData

    fd = FoldData.build(ExperimentConfig("adult", 0, "ltn_acc_cf_sg_cke"))
    pt = fd.pairs_train
    acc = accuracy_axioms(fd.X_train, fd.y_train, "binary")
    fair = subgroup_cf_axioms(pt.x, pt.x_cf, fd.pair_subgroups(pt), "binary", fd.spec.sensitive)
    record = json.loads((project_root() / "results" / "full" / "records" / RECORD).read_text())
    by_feature = cke.pairs_from_cfset(fd.cfset, fd.frame, fd.encoder, fd.spec, rows=fd.train)
    sensitive = fd.frame[fd.spec.sensitive].astype(str).to_numpy()
    label = fd.frame[fd.spec.target].to_numpy()
    a5 = []
    for cand in record["cke"]["candidates"]:
        negative = fd.train[(sensitive[fd.train] == cand["group"]) & (label[fd.train] == 0)]
        p = by_feature[cand["feature"]]
        sel = np.isin(np.asarray(p.row_id), negative)
        a5.append(cke_axiom(np.asarray(p.x)[sel], np.asarray(p.x_cf)[sel], "binary", cand["group"], cand["feature"]))
    return acc, fair, a5, fd.X_train.shape[1]


def epoch_seconds(
    kb: KnowledgeBase, model: torch.nn.Module, opt: torch.optim.Optimizer, epochs: int
) -> tuple[float, float]:
    """(CPU seconds, wall seconds) per epoch, over ``epochs`` epochs after one warm-up epoch."""

    def step() -> None:
        opt.zero_grad(set_to_none=True)
        sat, _ = kb.sat(model)
        (1.0 - sat).backward()
        opt.step()

    step()
    cpu, wall = time.process_time(), time.perf_counter()
    for _ in range(epochs):
        step()
    return (time.process_time() - cpu) / epochs, (time.perf_counter() - wall) / epochs


def alternate(variants: dict[str, Callable[[], tuple[float, float]]], rounds: int) -> dict[str, Any]:
    """Each variant once per round, in the same order, ``rounds`` times: median, min and max of each's
    CPU and wall seconds, and the ratio of the first variant's medians to each other's."""
    got: dict[str, list[tuple[float, float]]] = {k: [] for k in variants}
    for _ in range(rounds):
        for name, fn in variants.items():
            got[name].append(fn())
    out: dict[str, Any] = {}
    first = next(iter(variants))
    for name, vals in got.items():
        cpu, wall = [v[0] for v in vals], [v[1] for v in vals]
        out[name] = {
            "cpu_s": {"median": statistics.median(cpu), "min": min(cpu), "max": max(cpu)},
            "wall_s": {"median": statistics.median(wall), "min": min(wall), "max": max(wall)},
        }
    for name in variants:
        out[name]["ratio_cpu"] = out[first]["cpu_s"]["median"] / out[name]["cpu_s"]["median"]
        out[name]["ratio_wall"] = out[first]["wall_s"]["median"] / out[name]["wall_s"]["median"]
    return out


def measure(rounds: int, epochs: int) -> dict[str, Any]:
    """The epoch and compile measurements of the module docstring."""
    import contextlib

    acc, fair, a5, width = fold_axioms()
    torch.manual_seed(0)
    model = make_mlp(width)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    stages = {"pretrain": acc, "fair": acc + fair, **{f"cke{k}": acc + fair + a5[:k] for k in range(1, len(a5) + 1)}}
    out: dict[str, Any] = {"stages": {}, "compile": {}}
    for name, axioms in stages.items():
        kb, merged = KnowledgeBase(axioms), MergedKB(axioms)
        kb.compile(), merged.compile()
        elements = sum(
            len(i) + (0 if j is None else len(j)) for i, j in zip(kb.compile().index_x, kb.compile().index_cf)
        )
        with torch.no_grad():
            gap = float((kb.satisfactions(model) - merged.satisfactions(model)).abs().max())

        def run(k: KnowledgeBase, heap: bool) -> Callable[[], tuple[float, float]]:
            return lambda: _in(retained_heap() if heap else contextlib.nullcontext(), k, model, opt, epochs)

        res = alternate(
            {"default": run(kb, False), "retained_heap": run(kb, True), "merged_elements": run(merged, False)},
            rounds,
        )
        out["stages"][name] = {
            "unique_rows": kb.n_inputs,
            "elements": elements,
            "merged_elements": sum(len(m[0]) + (0 if m[1] is None else len(m[1])) for m in merged._merged),
            "merged_max_sat_gap": gap,
            **res,
        }
        print(name, kb.n_inputs, {k: round(v["ratio_cpu"], 2) for k, v in res.items()}, flush=True)
    for k in range(1, len(a5) + 1):
        before, axioms = KnowledgeBase(acc + fair + a5[: k - 1]), acc + fair + a5[:k]
        before.compile()

        def scratch(axioms: list[Any] = axioms) -> tuple[float, float]:
            cpu, wall = time.process_time(), time.perf_counter()
            KnowledgeBase(axioms).compile()
            return time.process_time() - cpu, time.perf_counter() - wall

        def reuse(axioms: list[Any] = axioms, before: KnowledgeBase = before) -> tuple[float, float]:
            cpu, wall = time.process_time(), time.perf_counter()
            KnowledgeBase(axioms).compile_from(before)
            return time.process_time() - cpu, time.perf_counter() - wall

        out["compile"][f"cke{k}"] = alternate({"scratch": scratch, "from_step_before": reuse}, rounds)
    return out


def _in(
    ctx: Any, kb: KnowledgeBase, model: torch.nn.Module, opt: torch.optim.Optimizer, epochs: int
) -> tuple[float, float]:
    from cffair._support.devices import flushed_denormals

    with flushed_denormals(), ctx:
        return epoch_seconds(kb, model, opt, epochs)


def stage_ratios(measured: dict[str, Any], cke_epochs: int = 500) -> dict[str, float]:
    """CPU-time ratio (default ÷ retained heap) per LTN task stage; CKE's over its four steps, with
    each step's compile (from scratch before, from the step before after)."""
    st = measured["stages"]
    cke = [k for k in st if k.startswith("cke")]
    before = sum(
        cke_epochs * st[k]["default"]["cpu_s"]["median"] + measured["compile"][k]["scratch"]["cpu_s"]["median"]
        for k in cke
    )
    after = sum(
        cke_epochs * st[k]["retained_heap"]["cpu_s"]["median"]
        + measured["compile"][k]["from_step_before"]["cpu_s"]["median"]
        for k in cke
    )
    return {
        "pretrain": st["pretrain"]["retained_heap"]["ratio_cpu"],
        "fair": st["fair"]["retained_heap"]["ratio_cpu"],
        "cke": before / after,
    }


def project(ratios: dict[str, float]) -> dict[str, Any]:
    """The task graph of the committed full run, before (records' own seconds) and after (LTN tasks scaled)."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from bench_full_run import _key, projection, task_seconds

    from cffair.experiments import ResultsStore, paper_grid

    wanted = {c.key for c in paper_grid("full")}
    records = [r for r in ResultsStore(project_root() / "results" / "full").records() if _key(r) in wanted]
    tasks, seconds = task_seconds(records)
    after = {
        t.id: seconds[t.id] / ratios[t.stage] if t.stage in ratios and t.target.method == "ltn" else seconds[t.id]
        for t in tasks
    }
    out = {
        "records": len(records),
        "before": projection(tasks, seconds, WORKERS),
        "after": projection(tasks, after, WORKERS),
    }
    pre: dict[str, dict[str, float]] = {}
    for t in tasks:  # what the core-seconds table's "LTN pre-training" row counts once per fold
        if t.stage == "pretrain":
            row = pre.setdefault(t.target.dataset, {"tasks": 0, "core_seconds": 0.0})
            row["tasks"] += 1
            row["core_seconds"] = round(row["core_seconds"] + seconds[t.id], 1)
    out["pretrain_tasks"] = pre
    path = out["before"]["critical_path"]["tasks"]
    out["critical_path_tasks"] = {t: {"before": round(seconds[t], 1), "after": round(after[t], 1)} for t in path}
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--epochs", type=int, default=3)
    ap.add_argument("--out", type=Path, default=RESULTS)
    ap.add_argument(
        "--project-only", action="store_true", help="recompute the projection from the measured ratios in --out"
    )
    args = ap.parse_args()
    if args.project_only:
        out = json.loads(args.out.read_text())
        out["projection"] = project(out["stage_ratios_cpu"])
        write_json_atomic(args.out, out)
        print(f"wrote {args.out}")
        return
    if args.rounds < 3:
        raise SystemExit("bench_ltn_heap: --rounds must be at least 3 (the spread needs three rounds).")
    torch_cpu_setup()
    load_before = os.getloadavg()
    t0 = time.perf_counter()
    measured = measure(args.rounds, args.epochs)
    load_after = os.getloadavg()
    ratios = stage_ratios(measured)
    out = {
        "benchmark": "ltn_heap",
        "dataset": "adult",
        "fold": 0,
        "rounds": args.rounds,
        "epochs_per_round": args.epochs,
        "threads": torch.get_num_threads(),
        "torch": torch.__version__,
        "python": platform.python_version(),
        "cpus": os.cpu_count(),
        "load_before": [round(x, 2) for x in load_before],
        "load_after": [round(x, 2) for x in load_after],
        "seconds": round(time.perf_counter() - t0, 1),
        **measured,
        "stage_ratios_cpu": ratios,
        "projection": project(ratios),
    }
    write_json_atomic(args.out, out)
    print(
        json.dumps(
            {
                "stage_ratios_cpu": ratios,
                "critical_path": {
                    k: v["critical_path"]["seconds"]
                    for k, v in out["projection"].items()
                    if isinstance(v, dict) and "critical_path" in v
                },
            },
            indent=1,
        )
    )
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
