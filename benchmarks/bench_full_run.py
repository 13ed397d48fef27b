"""What the full reproduction costs: wall time against the targets (the paper's protocol within
1 hour, the whole full mode within 4 hours, on 2 cores), and where the core-seconds go.

The measurement itself is ``cffair reproduce --mode full --jobs 2`` (``make reproduce
MODE=full``), which writes ``results/full/provenance.json`` (wall time per stage) and one record
per dataset × fold × setting (its own seconds). This script reads them and summarises:

* wall-clock seconds per stage (counterfactuals, experiments, notebooks) and in total, against
  the target of 4 hours on 2 cores for the whole full mode. A regeneration may run in parts
  (one ``cffair reproduce`` invocation each, at one commit; the provenance lists them): when its
  parts together computed the whole grid, the sum of their wall times is the run's, measured;
  otherwise no wall time is claimed and the whole run's is projected from the task graph below
  (``projected_seconds``);
* the paper's protocol apart (its chapters Q1–Q4 and appendices A and B, one partition of
  cross-validation, one training seed, the paper's twins): its makespan projected from its records
  against the 1-hour target, and the
  measured wall time of the part that ran the paper's chapters (with their investigations and
  repetitions) when one did;
* core-seconds per dataset and part: LTN pre-training (counted once per fold: every LTN
  setting of a fold continues from it), the LTN fairness settings, the CKE settings, and each
  baseline; and per group of the grid (a chapter or one of its studies), which says what
  dropping a study would save;
* the quick reproduction's wall time against its 10-minute target, when
  ``results/quick/provenance.json`` exists (``cffair reproduce --mode quick``);
* the task graph of the run (:func:`cffair.experiments._tasks.task_graph`: the pre-training, each
  fairness and CKE setting, the GAN and each other baseline of a fold, each task after those it
  continues from) with each task's core-seconds from its records: the critical path (the
  longest chain of dependencies), the parallel efficiency of the two workers of the run
  (core-seconds ÷ (workers × experiment wall time)), and the makespan projected for 1–64
  workers by replaying the scheduler's policy (a free worker takes the first ready task,
  :func:`cffair.experiments._tasks.simulate`); the same for the task groups of before
  (``task_graph_groups``: one task per LTN group with its GAN), and for the whole grid of today's
  checkout (``task_graph_grid``: a config without a record takes its twin's seconds on the paper's
  partition);
* with ``--measure``: the same small real grid (COMPAS, quick profile) run on 1 and on 2 local
  workers, wall-clock seconds and the measured speed-up.

Writes ``benchmarks/results/full_run.json`` atomically.

Run: ``python benchmarks/bench_full_run.py [--results results] [--quick path/to/provenance.json]``.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import pandas as pd

from cffair._support.utils import project_root, write_json_atomic
from cffair.experiments import ResultsStore, paper_grid

RESULTS = Path(__file__).resolve().parent / "results" / "full_run.json"
#: The whole full mode (the paper's protocol, its investigations, the replication and the studies) on 2 cores.
TARGET_FULL_S = 4 * 3600
#: The paper's protocol itself (its chapters, one partition of cross-validation, one seed, the paper's twins).
TARGET_PAPER_S = 1 * 3600
#: What each record of the grid is, for :func:`protocol_seconds` (the first that applies).
KINDS = ("the paper's protocol", "the sound twins", "more seeds", "more partitions", "studies and the rest")
TARGET_QUICK_S = 10 * 60


def paper_groups() -> tuple[str, ...]:
    """The question groups of the paper's own chapters (Q1–Q4, appendices A and B)."""
    from cffair.experiments import groups

    return groups(paper=True)


def regeneration_parts(prov: dict[str, Any], grid_size: int) -> dict[str, Any]:
    """What the provenance's ``parts`` say about the run: how many invocations made it, their wall
    times and their sum, whether together they computed the whole grid (then the sum is the whole
    run's measured wall time), and the paper's chapters' share, if they were run together.

    ``paper_part`` sums the parts that ran the paper's chapters as one ``--only`` list (a first
    invocation and the ones that resumed it), once their records cover that list's grid; ``parts``
    is how many invocations that took and ``interrupted`` how many of them were killed before the
    end (:func:`cffair.workflows.with_parts` closes those at their last record).

    >>> prov = {"parts": [
    ...     {"groups": ["q1", "q2", "q3", "q4", "appendix_a", "appendix_b", "q2_why"], "wall_s": 100.0,
    ...      "records_computed": 2, "records_in_grid": 6, "interrupted": True},
    ...     {"groups": ["q1", "q2", "q3", "q4", "appendix_a", "appendix_b", "q2_why"], "wall_s": 50.0,
    ...      "records_computed": 4, "records_in_grid": 6},
    ...     {"groups": ["beyond"], "wall_s": 40.0, "records_computed": 4, "records_in_grid": 4}]}
    >>> out = regeneration_parts(prov, 10)
    >>> out["count"], out["wall_seconds"], out["whole"], out["paper_part"]["wall_seconds"], out["paper_part"]["parts"]
    (3, 190.0, True, 150.0, 2)
    >>> regeneration_parts(prov, 12)["whole"]
    False
    """
    parts = list(prov.get("parts") or [])
    computed = sum(int(p.get("records_computed") or 0) for p in parts)
    paper = set(paper_groups())
    runs = [p for p in parts if p.get("groups") is not None and paper <= set(p["groups"])]
    same = [p for p in runs if runs and p["groups"] == runs[-1]["groups"]]
    records = sum(int(p.get("records_computed") or 0) for p in same)
    covered = bool(same) and records >= int(same[-1].get("records_in_grid") or 0)
    return {
        "count": len(parts),
        "wall_seconds": round(sum(float(p.get("wall_s") or 0.0) for p in parts), 1),
        "records_computed": computed,
        "whole": bool(parts) and computed >= grid_size,
        "interrupted": sum(bool(p.get("interrupted")) for p in parts),
        "parts": [
            {
                k: p.get(k)
                for k in (
                    "groups",
                    "wall_s",
                    "records_computed",
                    "records_in_grid",
                    "started",
                    "finished",
                    "interrupted",
                )
            }
            for p in parts
        ],
        "paper_part": None
        if not covered
        else {
            "groups": same[-1]["groups"],
            "wall_seconds": round(sum(float(p.get("wall_s") or 0.0) for p in same), 1),
            "records": records,
            "parts": len(same),
            "interrupted": sum(bool(p.get("interrupted")) for p in same),
        },
    }


def part_of(setting: str) -> str:
    """The part of the protocol a setting's seconds belong to."""
    if setting.endswith("_cke"):
        return "LTN CKE"
    if setting.startswith("ltn"):
        return "LTN fairness" if setting != "ltn_acc" else "LTN acc"
    parts = {
        "cnf": "CNF-augmented MLP",
        "gan": "GAN",
        "dcevae": "DCEVAE",
        "unaware": "unaware / level 3 / PCF",
        "level3": "unaware / level 3 / PCF",
        "pcf": "unaware / level 3 / PCF",
        "beyond": "beyond the paper",
    }
    return parts.get(setting, setting)


def core_seconds(records: list[dict[str, Any]]) -> pd.DataFrame:
    """Core-seconds per dataset × part; a pre-training that several LTN settings continue from is
    counted once (:func:`cffair.experiments._tasks.pretrain_config`: one per fold, partition, seed and
    pre-training option), with the longest time its records report, as :func:`task_seconds` does."""
    from cffair.experiments import ExperimentConfig
    from cffair.experiments._tasks import pretrain_config

    rows = []
    pretrain: dict[str, tuple[str, float]] = {}
    for rec in records:
        cfg, t = rec["config"], rec.get("timings", {})
        if cfg["setting"].startswith("ltn"):
            key = pretrain_config(ExperimentConfig.from_dict(cfg)).key
            seconds = max(pretrain.get(key, ("", 0.0))[1], float(t.get("pretrain", 0.0)))
            pretrain[key] = (cfg["dataset"], seconds)
            rows.append(
                {"dataset": cfg["dataset"], "part": part_of(cfg["setting"]), "seconds": float(t.get("setting", 0.0))}
            )
        else:
            rows.append(
                {"dataset": cfg["dataset"], "part": part_of(cfg["setting"]), "seconds": float(t.get("total", 0.0))}
            )
    rows += [{"dataset": ds, "part": "LTN pre-training", "seconds": v} for ds, v in pretrain.values()]
    df = pd.DataFrame(rows)
    return df.pivot_table(index="dataset", columns="part", values="seconds", aggfunc="sum", fill_value=0.0)


def _shared_pretrain(task: list[Any], timings: list[dict[str, Any]]) -> float:
    """The LTN pre-training a task's LTN settings share, once (a record that is not an LTN
    setting, e.g. the chapter beyond the paper, counts its own pre-training in its total)."""
    return max(
        (float(t.get("pretrain", 0.0)) for c, t in zip(task, timings) if c.setting.startswith("ltn")), default=0.0
    )


def group_seconds(records: list[dict[str, Any]]) -> dict[str, float]:
    """Core-seconds per group of the grid (chapter or study), each record counted in the first
    group that asks for it (in :data:`cffair.experiments._config.GROUPS` order); a task's LTN
    pre-training (once per task, as in :func:`task_seconds`) in the first group among its records'."""
    from cffair.experiments import ExperimentConfig
    from cffair.experiments._config import GROUPS
    from cffair.workflows._reproduce import _task_groups

    group_of: dict[str, str] = {}
    for group in GROUPS:
        for cfg in paper_grid("full", only=[group]):
            group_of.setdefault(cfg.key, group)
    by_key = {_key(r): r for r in records}
    out = dict.fromkeys(GROUPS, 0.0)
    for task in _task_groups([ExperimentConfig.from_dict(r["config"]) for r in records]):
        timings = [by_key[c.key].get("timings", {}) for c in task]
        groups = [group_of.get(c.key, "other") for c in task]
        first = min(groups, key=lambda g: GROUPS.index(g) if g in GROUPS else len(GROUPS))
        out[first] = out.get(first, 0.0) + _shared_pretrain(task, timings)
        for g, t in zip(groups, timings):
            out[g] = out.get(g, 0.0) + float(t.get("setting", t.get("total", 0.0)))
    return {g: round(v, 1) for g, v in out.items() if v}


def kind_of(config: Any, paper_keys: set[str]) -> str:
    """Which part of the protocol a config belongs to (:data:`KINDS`): in the paper's chapters, its
    protocol (first partition, seed 0, the paper's twins) or what the replication adds to it (the
    sound twins, more seeds, more partitions, the first that applies); else the studies and the rest.

    >>> from cffair.experiments import ExperimentConfig
    >>> c = ExperimentConfig("compas", 0, "ltn_acc_cf", profile="full")
    >>> kind_of(c, {c.key}), kind_of(ExperimentConfig("compas", 0, "ltn_acc_cf", profile="full", seed=1), {c.key})
    ("the paper's protocol", 'studies and the rest')
    """
    if config.key not in paper_keys:
        return KINDS[-1]
    if ("twins", "default") in tuple(config.options):
        return KINDS[1]
    if config.seed:
        return KINDS[2]
    if config.repeat:
        return KINDS[3]
    return KINDS[0]


def paper_protocol(config: Any) -> bool:
    """Whether a config of the paper's chapters is the paper's own protocol (first partition, seed 0, its twins)."""
    return kind_of(config, {config.key}) == KINDS[0]


def protocol_seconds(records: list[dict[str, Any]]) -> dict[str, float]:
    """Core-seconds per :data:`KINDS`: what the paper's protocol costs and what the replication adds
    (a task's LTN pre-training, once per task as in :func:`group_seconds`, in its first record's kind)."""
    from cffair.experiments import ExperimentConfig
    from cffair.workflows._reproduce import _task_groups

    paper_keys = {c.key for c in paper_grid("full", only=list(paper_groups()))}
    by_key = {_key(r): r for r in records}
    out = dict.fromkeys(KINDS, 0.0)
    for task in _task_groups([ExperimentConfig.from_dict(r["config"]) for r in records]):
        timings = [by_key[c.key].get("timings", {}) for c in task]
        kinds = [kind_of(c, paper_keys) for c in task]
        out[min(kinds, key=KINDS.index)] += _shared_pretrain(task, timings)
        for k, t in zip(kinds, timings):
            out[k] += float(t.get("setting", t.get("total", 0.0)))
    return {k: round(v, 1) for k, v in out.items()}


def summarise(results: Path, quick: Path | None = None) -> dict[str, Any]:
    """The summary written to ``full_run.json``."""
    full = results / "full"
    prov = json.loads((full / "provenance.json").read_text())
    store = ResultsStore(full)
    wanted = {c.key for c in paper_grid("full")}
    records = [r for r in store.records() if _key(r) in wanted]
    table = core_seconds(records)
    stages = {k: float(v) for k, v in prov["stage_seconds"].items()}
    graph = projection(*task_seconds(records))
    # the run's parts (one per invocation at one commit) together computed the whole grid: their
    # summed wall time is the whole run's, measured; a run that resumed a regeneration computed only
    # part of it: its wall time is not a whole run's, so the whole run's is projected from the
    # records' own seconds
    parts = regeneration_parts(prov, len(wanted))
    if parts["count"]:
        whole = parts["whole"]
        wall = parts["wall_seconds"] if whole else None
    else:
        whole = prov.get("records_computed", len(wanted)) >= prov.get("records_in_grid", len(wanted))
        wall = sum(stages.values()) if whole else None
    from cffair.experiments._registry import groups as registry_groups

    # the paper's chapters with their investigations and the replication: what the README counts as the paper's part
    chapter_groups = [*paper_groups(), *registry_groups(investigations=True)]
    chapter_keys = {c.key for c in paper_grid("full", only=chapter_groups)}
    paper_grid_0 = [c for c in paper_grid("full", only=list(paper_groups())) if paper_protocol(c)]
    paper_keys = {c.key for c in paper_grid_0}
    paper_records = [r for r in records if _key(r) in paper_keys]
    cpus = str(int((prov.get("machine") or {}).get("cpus") or 2))
    paper_projection = (
        projection(*task_seconds(paper_records), workers=(int(cpus),))["makespan_seconds"][cpus]
        if paper_records
        else None
    )
    projected = graph["makespan_seconds"].get(
        str(int((prov.get("machine") or {}).get("cpus") or 2)), graph["makespan_seconds"]["2"]
    ) + sum(v for k, v in stages.items() if k != "experiments")
    out: dict[str, Any] = {
        "benchmark": "full_run",
        "commit": prov.get("commit"),
        "code_version": prov.get("code_version"),
        "machine": prov.get("machine"),
        "finished": prov.get("finished"),
        "records": len(records),
        "records_wanted": len(wanted),
        "stage_seconds": stages,
        "records_computed": prov.get("records_computed"),
        "wall_seconds": None if wall is None else round(wall, 1),
        "projected_seconds": round(projected, 1),
        "target_seconds": TARGET_FULL_S,
        "target_met": bool((projected if wall is None else wall) <= TARGET_FULL_S and len(records) == len(wanted)),
        "parts": parts,
        "paper_chapters": {
            "groups": chapter_groups,
            "records": sum(_key(r) in chapter_keys for r in records),
            "records_wanted": len(chapter_keys),
        },
        "paper_protocol": {
            "groups": list(paper_groups()),
            "records": len(paper_records),
            "records_wanted": len(paper_keys),
            "projected_seconds": None if paper_projection is None else round(paper_projection, 1),
            "measured_part_seconds": None if parts.get("paper_part") is None else parts["paper_part"]["wall_seconds"],
            "target_seconds": TARGET_PAPER_S,
            "target_met": bool(
                paper_projection is not None
                and paper_projection <= TARGET_PAPER_S
                and len(paper_records) == len(paper_keys)
            ),
        },
        "core_seconds": {ds: {p: round(float(v), 1) for p, v in row.items()} for ds, row in table.iterrows()},
        "core_seconds_total": round(float(table.to_numpy().sum()), 1),
        "group_seconds": group_seconds(records),
        "protocol_seconds": protocol_seconds(records),
    }
    out["task_graph"] = graph
    out["task_graph_groups"] = projection(*task_seconds(records, split=False))  # the unsplit groups of before
    out["task_graph_grid"] = whole_grid(records)
    workers = int((prov.get("machine") or {}).get("cpus") or 2)
    exp_wall = stages.get("experiments")
    if parts["count"]:
        # a run in parts: each list of groups run together against the experiments' wall time of its parts
        per_list = parts_efficiency(prov["parts"], records, workers)
        if per_list:
            out["parallel_efficiency_parts"] = per_list
            # the measurement to show: an exact one first, then the longest
            out["parallel_efficiency"] = max(per_list, key=lambda e: (e["exact"], e["experiments_wall_seconds"]))
    elif exp_wall and whole:
        out["parallel_efficiency"] = {
            "workers": workers,
            "experiments_wall_seconds": exp_wall,
            "efficiency": round(out["task_graph"]["core_seconds"] / (workers * exp_wall), 3),
            "exact": True,
        }
    quick = quick or results / "quick" / "provenance.json"
    if quick.exists():
        q = json.loads(quick.read_text())
        q_wall = float(sum(q["stage_seconds"].values()))
        out["quick"] = {
            "stage_seconds": q["stage_seconds"],
            "wall_seconds": round(q_wall, 1),
            "target_seconds": TARGET_QUICK_S,
            "target_met": q_wall <= TARGET_QUICK_S,
            "finished": q.get("finished"),
        }
    return out


def parts_efficiency(parts: list[dict[str, Any]], records: list[dict[str, Any]], workers: int) -> list[dict[str, Any]]:
    """The parallel efficiency of a run in parts, per list of groups run together: the core-seconds of
    that list's records (pre-training once per fold) ÷ (workers × the experiments' wall seconds of its
    parts). A list's records are those of its grid that no earlier list's grid holds (a study's
    ``--only`` list also names records the paper's chapters computed before it), and its core-seconds
    what they add to the earlier lists' (a fold's pre-training, reused, counts once). Only lists whose
    parts computed at least those records count. ``exact`` is false when they computed more (some
    were computed again, e.g. after their twins changed): the wall time then holds work no record
    shows, and the efficiency is a lower bound. A run whose every part ran the whole grid (``groups``
    None: resumed, or restricted to some datasets) that together computed every record is measured as
    one, with ``groups`` None.

    >>> parts_efficiency([{"groups": ["q1"], "stage_seconds": {"experiments": 10.0}, "records_computed": 1,
    ...                    "records_in_grid": 2}], [], 2)
    []
    """

    def measured(
        groups: list[str] | None, same: list[dict[str, Any]], n: int, core: float, wanted: int
    ) -> dict[str, Any]:
        """One measurement: ``same`` parts computed ``wanted`` records (``n`` of them counted, ``core`` seconds)."""
        wall = sum(float((p.get("stage_seconds") or {}).get("experiments") or 0.0) for p in same)
        computed = sum(int(p.get("records_computed") or 0) for p in same)
        return {
            "groups": groups,
            "parts": len(same),
            "workers": workers,
            "records": n,
            "experiments_wall_seconds": round(wall, 1),
            "core_seconds": round(core, 1),
            "efficiency": round(core / (workers * wall), 3) if wall else 0.0,
            "exact": computed == wanted,
            "_usable": bool(wall) and computed >= wanted,
        }

    out = []
    whole = [p for p in parts if p.get("groups") is None]
    if whole and len(whole) == len(parts) and records:
        # the whole grid in parts (by dataset, resumed): one measurement over all of them
        e = measured(None, whole, len(records), sum(task_seconds(records)[1].values()), len(records))
        return [{k: v for k, v in e.items() if k != "_usable"}] if e.pop("_usable") else []
    lists: list[list[str]] = []
    for p in parts:
        if p.get("groups") is not None and p["groups"] not in lists:
            lists.append(p["groups"])
    earlier: set[str] = set()
    for groups in lists:
        keys = {c.key for c in paper_grid("full", only=groups)} - earlier
        earlier |= keys
        mine = [r for r in records if _key(r) in keys]
        before = [r for r in records if _key(r) in earlier - keys]
        if not mine:
            continue
        # what this list added: work an earlier list did (a fold's shared pre-training) is not counted again
        core = sum(task_seconds(before + mine)[1].values()) - sum(task_seconds(before)[1].values())
        e = measured(groups, [p for p in parts if p.get("groups") == groups], len(mine), core, len(keys))
        if e.pop("_usable"):
            out.append(e)
    return out


def task_seconds(records: list[dict[str, Any]], *, split: bool = True) -> tuple[list[Any], dict[str, float]]:
    """The task graph of the records' configs (:func:`cffair.experiments._tasks.task_graph`) and
    each task's core-seconds from its records: a pre-training task its fold's pre-training (once)
    and the ``ltn_acc`` evaluation, every other task its records' own seconds. ``split=False``:
    the task groups of before (one per LTN group with its GAN), pre-training counted once each."""
    from cffair.experiments import ExperimentConfig
    from cffair.experiments._tasks import pretrain_config, task_graph

    by_key = {_key(r): r for r in records}
    cfgs = [ExperimentConfig.from_dict(r["config"]) for r in records]
    pretrain: dict[str, float] = {}
    for c in cfgs:
        if c.method == "ltn":
            k = pretrain_config(c).key
            pretrain[k] = max(pretrain.get(k, 0.0), float(by_key[c.key].get("timings", {}).get("pretrain", 0.0)))

    def own(c: Any) -> float:
        t = by_key[c.key].get("timings", {}) if c.key in by_key else {}
        return float(t.get("setting", t.get("total", 0.0)))

    tasks = task_graph(cfgs, split=split)
    seconds = {}
    for t in tasks:
        if t.stage == "group":
            seconds[t.id] = _shared_pretrain(
                list(t.configs), [by_key[c.key].get("timings", {}) for c in t.configs]
            ) + sum(own(c) for c in t.configs)
        elif t.stage == "pretrain":
            seconds[t.id] = pretrain.get(t.target.key, 0.0) + sum(own(c) for c in t.configs)
        else:  # a producer task without records of its own costs what its target's record took
            seconds[t.id] = sum(own(c) for c in t.configs) if t.configs else own(t.target)
    return tasks, seconds


def makespan(durations: list[float], workers: int) -> float:
    """Wall time of running independent ``durations`` in order on ``workers``, each free worker
    taking the next task (:func:`cffair.experiments._tasks.simulate` without dependencies).

    >>> makespan([4, 1, 1, 1, 1], 2)
    4.0
    >>> makespan([1, 1, 1, 1], 1)
    4.0
    """
    from cffair.experiments import ExperimentConfig
    from cffair.experiments._tasks import Task, simulate

    cfg = ExperimentConfig("compas", 0, "cnf")
    tasks = [Task(str(i), "run", cfg) for i in range(len(durations))]
    return float(
        max(simulate(tasks, {str(i): float(d) for i, d in enumerate(durations)}, workers).values(), default=0.0)
    )


WORKERS = (1, 2, 4, 8, 16, 32, 64)


def projection(tasks: list[Any], seconds: dict[str, float], workers: tuple[int, ...] = WORKERS) -> dict[str, Any]:
    """Critical path, projected makespans (the scheduler's policy replayed by
    :func:`cffair.experiments._tasks.simulate`), lower bounds ``max(critical path, core-seconds / N)``
    and parallel efficiency ``core-seconds / (N × makespan)`` of a task graph."""
    from cffair.experiments._tasks import critical_path, simulate

    path, longest = critical_path(tasks, seconds)
    total = sum(seconds.values())
    spans = {n: max(simulate(tasks, seconds, n).values(), default=0.0) for n in workers}
    return {
        "tasks": len(tasks),
        "core_seconds": round(total, 1),
        "critical_path": {"task": " → ".join(path), "tasks": path, "seconds": round(longest, 1)},
        "longest_task": {"task": max(seconds, key=seconds.get), "seconds": round(max(seconds.values()), 1)},
        "makespan_seconds": {str(n): round(v, 1) for n, v in spans.items()},
        "lower_bound_seconds": {str(n): round(max(longest, total / n), 1) for n in workers},
        "efficiency": {str(n): round(total / (n * v), 3) if v else None for n, v in spans.items()},
    }


def whole_grid(records: list[dict[str, Any]]) -> dict[str, Any]:
    """The projection for the whole full grid of today's checkout: a config without a record
    takes the seconds of its twin on the paper's partition (a repetition of cross-validation runs
    the same stages on other folds), else those of its plain setting on the same fold (a variant:
    a study's option, seed or tag; an estimate, since a variant may cost more, e.g. the released
    GAN about 1.4 times); configs with neither are left out and counted."""
    from dataclasses import replace

    have = {_key(r): r for r in records}
    grid = paper_grid("full")
    stand_in, imputed, plain, left_out = [], 0, 0, 0
    for c in grid:
        if c.key in have:
            stand_in.append(have[c.key])
            continue
        twin = have.get(replace(c, repeat=0).key)
        if twin is None:  # a variant (a study's option, seed or tag): its plain setting's seconds on the same fold
            twin = have.get(replace(c, repeat=0, options=(), tag="", seed=0).key)
            if twin is None:
                left_out += 1
                continue
            plain += 1
        else:
            imputed += 1
        stand_in.append({**twin, "config": c.to_dict()})
    tasks, seconds = task_seconds(stand_in)
    return {
        "records": len(grid),
        "measured": len(grid) - imputed - plain - left_out,
        "imputed": imputed,
        "imputed_plain": plain,
        "left_out": left_out,
        **projection(tasks, seconds),
    }


def measure_local(
    jobs: tuple[int, ...] = (1, 2), datasets: tuple[str, ...] = ("compas", "lawschool")
) -> dict[str, Any]:
    """A small real grid (every group on ``datasets``, quick profile) on 1 and 2 local workers.

    Enough tasks (17 on COMPAS and Lawschool) for two workers to have work to share; its inputs
    (twins, rulers) are prepared once before either run, as ``cffair reproduce`` does.
    """
    import tempfile
    import time

    from cffair.experiments import paper_grid
    from cffair.experiments._pipeline import prepare_inputs
    from cffair.experiments._tasks import task_graph
    from cffair.workflows import run_grid

    grid = paper_grid("quick", list(datasets))
    known = prepare_inputs("quick", list(datasets), jobs=1)
    out: dict[str, Any] = {
        "grid": f"quick profile, every group, {' and '.join(datasets)}",
        "records": len(grid),
        "tasks": len(task_graph(grid)),
        "wall_seconds": {},
    }
    for n in jobs:
        with tempfile.TemporaryDirectory() as tmp:
            t0 = time.perf_counter()
            run_grid(grid, ResultsStore(tmp), jobs=n, progress=False, known_inputs=known)
            out["wall_seconds"][str(n)] = round(time.perf_counter() - t0, 1)
    if {"1", "2"} <= set(out["wall_seconds"]):
        out["speedup_2_over_1"] = round(out["wall_seconds"]["1"] / out["wall_seconds"]["2"], 2)
    return out


def _key(rec: dict[str, Any]) -> str:
    from cffair.experiments import ExperimentConfig

    return ExperimentConfig.from_dict(rec["config"]).key


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--results", type=Path, default=project_root() / "results")
    ap.add_argument(
        "--quick", type=Path, default=None, help="provenance.json of a quick reproduction (default: RESULTS/quick/)"
    )
    ap.add_argument("--measure", action="store_true", help="also run a small real grid on 1 and 2 local workers")
    args = ap.parse_args()
    out = summarise(args.results, args.quick)
    if args.measure:
        out["local_workers"] = measure_local()
    elif RESULTS.exists() and "local_workers" in json.loads(RESULTS.read_text()):
        out["local_workers"] = json.loads(RESULTS.read_text())["local_workers"]  # kept until measured again
    write_json_atomic(RESULTS, out)
    print(json.dumps({k: v for k, v in out.items() if k != "core_seconds"}, indent=2, default=str))
    print(pd.DataFrame(out["core_seconds"]).T.round(0).to_string())


if __name__ == "__main__":
    main()
