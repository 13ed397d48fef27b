"""What more workers buy: the full grid's task graph projected on N workers, and a measured run.

Inputs: ``benchmarks/results/full_run.json`` (``task_graph``: the split graph replayed by the
scheduler's policy; ``task_graph_groups``: the task groups of before; ``task_graph_grid``: the
whole grid of today's checkout) and ``benchmarks/results/workers.json`` (the quick grid on 4
Dask workers against 1), and ``benchmarks/results/devices.json`` (one Adult fold of every method
on an accelerator against the CPU). The sentences are chosen from the numbers, never written beside
them.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

import pandas as pd

from cffair.errors import DataError
from cffair.reporting import dataset_name, method_name

__all__ = [
    "TARGETS",
    "accelerator_summary",
    "devices_frame",
    "graph_scaling_frame",
    "graph_scaling_summary",
    "workers_summary",
]

#: The targets of issue #28: ``{workers: minutes}`` of the full grid's experiments, and the
#: parallel efficiency two workers must keep.
TARGETS: dict[str, Any] = {"minutes": {16: 15.0, 8: 30.0}, "efficiency_2": 0.95, "task_minutes": 10.0}


def _graph(full_run: Mapping[str, Any], key: str = "task_graph") -> Mapping[str, Any]:
    graph = full_run.get(key)
    if not graph or "efficiency" not in graph:
        raise DataError(f"full_run.json has no {key} with efficiencies; run benchmarks/bench_full_run.py.")
    return graph


def graph_scaling_frame(full_run: Mapping[str, Any]) -> pd.DataFrame:
    """Minutes of the full grid's experiments on N workers (index): the task graph replayed,
    its lower bound ``max(critical path, core-seconds / N)``, its parallel efficiency, and the
    task groups of before when the file has them."""
    graph = _graph(full_run)
    frame = pd.DataFrame(
        {
            "task graph (min)": pd.Series(graph["makespan_seconds"], dtype=float) / 60,
            "lower bound (min)": pd.Series(graph["lower_bound_seconds"], dtype=float) / 60,
            "efficiency": pd.Series(graph["efficiency"], dtype=float),
        }
    )
    before = full_run.get("task_graph_groups")
    if before:
        frame["groups of before (min)"] = pd.Series(before["makespan_seconds"], dtype=float) / 60
    frame.index = frame.index.astype(int)
    frame.index.name = "workers"
    return frame.sort_index()


#: Task kinds that are not a method's key, as a reader reads them.
_TASK_KINDS = {"pretrain": "LTN pre-training", "ltn+gan": "LTN settings and GAN"}


#: A task id's partition, seed and fold in words.
_STEP_WORDS = {"rep": "partition", "seed": "seed", "fold": "fold"}


def _short(task_id: str) -> str:
    """A task id in display names: ``full/adult/ltn_acc_cf/fold0`` → ``Adult LTN(acc+CF) fold 0``,
    ``full/compas/pretrain/fold2`` → ``COMPAS LTN pre-training fold 2``; an option in words (the sound
    twins), a repeated partition and a seed as words too.

    >>> _short("full/adult/ltn_acc_cf_cke/fold0"), _short("full/lawschool/pretrain/fold3")
    ('Adult LTN(acc+CF+CKE) fold 0', 'Lawschool LTN pre-training fold 3')
    >>> _short("full/adult/cnf(twins=default)/rep1/seed2/fold0")
    'Adult CNF on the sound twins, partition 1, seed 2, fold 0'
    """
    parts = task_id.split("/")[1:]
    if len(parts) < 3:
        return " ".join(parts)
    dataset, kind, *rest = parts
    kind, _, options = kind.partition("(")
    shown = [dataset_name(dataset), _TASK_KINDS.get(kind) or method_name(kind)]
    for option in filter(None, options.rstrip(")").split(",")):
        shown.append("on the sound twins" if option == "twins=default" else f"({option.replace('=', ' ')})")
    steps: list[str] = []
    others: list[str] = []
    for p in rest:
        m = re.fullmatch(r"(rep|seed|fold)(\d+)", p)
        (steps if m else others).append(f"{_STEP_WORDS[m.group(1)]} {m.group(2)}" if m else p)
    if len(steps) > 1:
        return " ".join(shown + others) + ", " + ", ".join(steps)
    return " ".join(shown + others + steps)


def _verdict(value: float, target: float) -> str:
    return "within" if value <= target else "over"


def graph_scaling_summary(full_run: Mapping[str, Any]) -> str:
    """The projection in a few sentences: the critical path, the targets met or missed, and
    what the split changed (Markdown)."""
    graph = _graph(full_run)
    span = {int(n): float(s) / 60 for n, s in graph["makespan_seconds"].items()}
    path = graph["critical_path"]
    chain = " → ".join(_short(t) for t in path.get("tasks") or [path["task"]])
    crit = float(path["seconds"]) / 60
    out = [
        f"The grid of the committed records is {graph['tasks']} tasks. Its critical path, {chain}, takes "
        f"{crit:.1f} min: no number of workers finishes sooner."
    ]
    targets = []
    for n, minutes in sorted(TARGETS["minutes"].items(), reverse=True):
        if n in span:
            targets.append(
                f"{span[n]:.1f} min on {n} workers, {_verdict(span[n], minutes)} the target of {minutes:.0f}"
            )
    eff2 = graph["efficiency"].get("2")
    if eff2 is not None:
        word = "at or above" if eff2 >= TARGETS["efficiency_2"] else "below"
        targets.append(
            f"two workers busy {eff2:.1%} of the time in the replay, {word} the target of {TARGETS['efficiency_2']:.0%}"
        )
    if targets:
        out.append("Projected: " + "; ".join(targets) + ".")
    if crit > min(TARGETS["minutes"].values()) and 16 in span and span[16] > TARGETS["minutes"][16]:
        out.append(
            f"More workers cannot close the gap: the 16-worker target needs a shorter critical path, "
            f"i.e. a faster {_short(path['tasks'][-1]) if path.get('tasks') else path['task']}."
        )
    elif 16 in span and span[16] > TARGETS["minutes"][16] and float(graph["core_seconds"]) / 16 / 60 > crit:
        out.append(
            f"On 16 workers the bound is the work, not the graph: {float(graph['core_seconds']):,.0f} core-seconds "
            f"÷ 16 is {float(graph['core_seconds']) / 16 / 60:.1f} min, longer than the critical path, so the "
            "target needs less work rather than smaller tasks."
        )
    longest = graph.get("longest_task")
    if longest:
        minutes = float(longest["seconds"]) / 60
        size = "within" if minutes <= TARGETS["task_minutes"] else "over"
        out.append(
            f"The longest single task, {_short(longest['task'])}, takes {minutes:.1f} min, {size} the "
            f"{TARGETS['task_minutes']:.0f} minutes a task should not exceed."
        )
    before = full_run.get("task_graph_groups")
    if before and "16" in before["makespan_seconds"] and 16 in span:
        old = float(before["makespan_seconds"]["16"]) / 60
        change = "down from" if span[16] < old else "up from" if span[16] > old else "the same as"
        out.append(f"On 16 workers that is {change} {old:.1f} min with the {before['tasks']} task groups of before.")
    grid = full_run.get("task_graph_grid")
    if grid and {"8", "16"} <= set(grid["makespan_seconds"]):
        plain = int(grid.get("imputed_plain", 0))
        kinds = (
            (int(grid["imputed"]), "without a record take their twin's seconds on the paper's partition"),
            (plain, "variants their plain setting's on the same fold"),
            (int(grid["left_out"]), "with neither are left out"),
        )
        borrowed = [f"{count} {text}" for count, text in kinds if count]
        how = "; " + ", ".join(borrowed) if borrowed else ", each timed by its own record"
        out.append(
            f"For the whole grid of today's checkout ({grid['records']} records{how}): "
            f"{float(grid['makespan_seconds']['8']) / 60:.1f} min on 8 workers, "
            f"{float(grid['makespan_seconds']['16']) / 60:.1f} min on 16."
        )
    return " ".join(out)


def workers_summary(workers: Mapping[str, Any] | None) -> str:
    """The measured run of the quick grid on N Dask workers against 1, in a few sentences."""
    if not workers:
        return (
            "The quick grid has not been measured on several workers on this checkout (`benchmarks/bench_workers.py`)."
        )
    runs = workers["runs"]
    one, *others = sorted(runs, key=int)
    if not others:
        raise DataError("workers.json holds a single run; run benchmarks/bench_workers.py.")
    n = others[-1]
    a, b = runs[one], runs[n]
    cores = int(workers["cores"])
    speed = float(a["wall_seconds"]) / float(b["wall_seconds"])
    gain = (
        f"a speed-up of {speed:.2f}"
        if speed >= 1
        else f"slower than one worker (time on one ÷ time on {n}: {speed:.2f})"
    )
    out = [
        f"The quick grid ({workers['records']} records, {workers['tasks']} tasks) took {a['wall_seconds']:.0f} s on "
        f"{one} Dask worker and {b['wall_seconds']:.0f} s on {n}, {gain}, on a machine with {cores} cores "
        f"whose load average (1 min) was {a['load_before'][0]:.1f} before the first run and {b['load_after'][0]:.1f} after the last."
    ]
    out.append(
        "The records of the two runs are equal."
        if workers.get("records_equal")
        else "The records of the two runs differ: see benchmarks/results/workers.json."
    )
    if cores < int(n):
        out.append(
            f"With {n} workers on {cores} cores the speed-up is bounded by the cores (at most {cores}), not by the graph."
        )
    busy = max(a["load_before"][0], b["load_after"][0])
    if busy >= cores:
        out.append(
            f"The machine was overloaded (load {busy:.1f} on {cores} cores, the run's own workers and other work "
            "together), so these times measure the machine as much as the scheduler."
        )
    return " ".join(out)


def devices_frame(devices: Mapping[str, Any]) -> pd.DataFrame:
    """One row per method of ``devices.json``: CPU and accelerator seconds, the speed-up, where the
    CPU time was measured, and the largest difference of the shared evaluation's numbers.

    >>> row = {"method": "cnf", "cpu_s": 150.0, "cuda_s": 3.0, "speedup": 50.0, "cpu_source": "record",
    ...        "largest_metric_difference": 0.02}
    >>> [str(v) for v in devices_frame({"methods": [row]}).loc["CNF"]]
    ['150.0', '3.0', '50.0', 'record', '0.02']
    """
    source = {"here": "beside", "record": "record", "none": "—"}
    rows = {
        method_name(r["method"]): {
            "CPU (s)": r.get("cpu_s"),
            "GPU (s)": r["cuda_s"],
            "speed-up": r.get("speedup"),
            "CPU time": source[r.get("cpu_source", "here")],
            "max Δ": r.get("largest_metric_difference"),
        }
        for r in devices["methods"]
    }
    frame = pd.DataFrame.from_dict(rows, orient="index")
    frame.index.name = "method"
    return frame


def accelerator_summary(devices: Mapping[str, Any] | None) -> str:
    """What the accelerator measurement found, or that there is none, in a few sentences.

    >>> accelerator_summary(None)[:44]
    'Accelerator speed is unmeasured on this chec'
    >>> d = {"machine": {"gpu": "G", "cpu_model": "C"}, "flow_fit_s": {"cpu": 20.0, "cuda": 30.0}, "methods": [
    ...     {"method": "cnf", "cpu_s": 150.0, "cuda_s": 3.0, "speedup": 50.0, "cpu_source": "record"},
    ...     {"method": "gan", "cpu_s": 180.0, "cuda_s": 150.0, "speedup": 1.2, "cpu_source": "here", "record_s": 120.0}]}
    >>> print(accelerator_summary(d))  # doctest: +NORMALIZE_WHITESPACE
    One Adult fold (fold 0) of each method trained on G: from 1.2× (GAN) to 50× (CNF) faster than on one CPU
    thread. The causal flow's fit is slower there (30 s against 20 s). For 1 of the 2 methods the CPU time
    is the committed record's (one thread of the machine that made it) rather than a run beside the accelerator.
    GAN, trained on both, took 180 s on a CPU thread of the accelerator's machine and 120 s in its record,
    so the accelerator machine's thread is 0.67 times as fast.
    >>> d["methods"][1]["record_s"] = 170.0
    >>> accelerator_summary(d).endswith("so their threads are about as fast (within 10 %).")
    True
    >>> d["flow_fit_s"]["cuda"] = 10.0
    >>> "The causal flow's fit is faster there (10 s against 20 s)." in accelerator_summary(d)
    True
    """
    if not devices or not devices.get("methods"):
        return (
            "Accelerator speed is unmeasured on this checkout: no accelerator was available where these benchmarks "
            "ran. `python benchmarks/bench_devices.py` times one Adult fold of every method on `cuda` against `cpu` "
            "where one is present."
        )
    rows = [r for r in devices["methods"] if r.get("speedup")]
    lo, hi = min(rows, key=lambda r: r["speedup"]), max(rows, key=lambda r: r["speedup"])

    def times(r: Mapping[str, Any]) -> str:
        return f"{r['speedup']:.2g}×" if r["speedup"] < 10 else f"{r['speedup']:.0f}×"

    out = [
        f"One Adult fold (fold 0) of each method trained on {devices['machine']['gpu']}: from {times(lo)} "
        f"({method_name(lo['method'])}) to {times(hi)} ({method_name(hi['method'])}) faster than on one CPU thread."
    ]
    flow = devices.get("flow_fit_s") or {}
    if flow.get("cpu") and flow.get("cuda"):
        cpu, acc = float(flow["cpu"]), float(flow["cuda"])
        word = "slower" if acc > cpu else "faster"
        out.append(f"The causal flow's fit is {word} there ({acc:.0f} s against {cpu:.0f} s).")
    recorded = [r for r in rows if r.get("cpu_source") == "record"]
    if recorded:
        out.append(
            f"For {len(recorded)} of the {len(rows)} methods the CPU time is the committed record's (one thread of "
            "the machine that made it) rather than a run beside the accelerator."
        )
        both = [r for r in rows if r.get("cpu_source") == "here" and r.get("record_s")]
        if both:
            r = both[0]
            ratio = float(r["cpu_s"]) / float(r["record_s"])
            alike = (
                "so their threads are about as fast (within 10 %)"
                if abs(ratio - 1) <= 0.1
                else f"so the accelerator machine's thread is {1 / ratio:.2f} times as fast"
            )
            out.append(
                f"{method_name(r['method'])}, trained on both, took {float(r['cpu_s']):.0f} s on a CPU thread of the "
                f"accelerator's machine and {float(r['record_s']):.0f} s in its record, {alike}."
            )
    return " ".join(out)
