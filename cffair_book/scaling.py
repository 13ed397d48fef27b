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
from cffair_book.wording import say, spoken

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
        shown.append(say("scaling.sound_twins") if option == "twins=default" else f"({option.replace('=', ' ')})")
    steps: list[str] = []
    others: list[str] = []
    for p in rest:
        m = re.fullmatch(r"(rep|seed|fold)(\d+)", p)
        (steps if m else others).append(f"{_STEP_WORDS[m.group(1)]} {m.group(2)}" if m else p)
    if len(steps) > 1:
        return " ".join(shown + others) + ", " + ", ".join(steps)
    return " ".join(shown + others + steps)


def graph_scaling_summary(full_run: Mapping[str, Any]) -> str:
    """The projection in a few sentences: the critical path, the targets met or missed, and
    what the split changed (Markdown)."""
    graph = _graph(full_run)
    span = {int(n): float(s) / 60 for n, s in graph["makespan_seconds"].items()}
    path = graph["critical_path"]
    chain = " → ".join(_short(t) for t in path.get("tasks") or [path["task"]])
    crit = float(path["seconds"]) / 60
    out = [say("scaling.graph", tasks=graph["tasks"], chain=chain, minutes=crit)]
    targets = [
        say(
            "scaling.workers_target",
            "within" if span[n] <= minutes else "over",
            minutes=span[n],
            workers=n,
            target=minutes,
        )
        for n, minutes in sorted(TARGETS["minutes"].items(), reverse=True)
        if n in span
    ]
    eff2 = graph["efficiency"].get("2")
    if eff2 is not None:
        met = "met" if eff2 >= TARGETS["efficiency_2"] else "missed"
        targets.append(say("scaling.efficiency_target", met, efficiency=eff2, target=TARGETS["efficiency_2"]))
    if targets:
        out.append(say("scaling.projected", targets="; ".join(targets)))
    core_seconds = float(graph["core_seconds"])
    if crit > min(TARGETS["minutes"].values()) and 16 in span and span[16] > TARGETS["minutes"][16]:
        out.append(say("scaling.bound_by_path", task=_short(path["tasks"][-1]) if path.get("tasks") else path["task"]))
    elif 16 in span and span[16] > TARGETS["minutes"][16] and core_seconds / 16 / 60 > crit:
        out.append(say("scaling.bound_by_work", core_seconds=core_seconds, minutes=core_seconds / 16 / 60))
    longest = graph.get("longest_task")
    if longest:
        minutes = float(longest["seconds"]) / 60
        size = "within" if minutes <= TARGETS["task_minutes"] else "over"
        out.append(
            say(
                "scaling.longest_task",
                size,
                task=_short(longest["task"]),
                minutes=minutes,
                target=TARGETS["task_minutes"],
            )
        )
    before = full_run.get("task_graph_groups")
    if before and "16" in before["makespan_seconds"] and 16 in span:
        old = float(before["makespan_seconds"]["16"]) / 60
        change = "down" if span[16] < old else "up" if span[16] > old else "same"
        out.append(say("scaling.groups_before", change, minutes=old, groups=before["tasks"]))
    grid = full_run.get("task_graph_grid")
    if grid and {"8", "16"} <= set(grid["makespan_seconds"]):
        counts = {
            "imputed": int(grid["imputed"]),
            "plain": int(grid.get("imputed_plain", 0)),
            "left_out": int(grid["left_out"]),
        }
        borrowed = [say("scaling.borrowed", kind, count=count) for kind, count in counts.items() if count]
        out.append(
            say(
                "scaling.whole_grid",
                records=grid["records"],
                how="; " + ", ".join(borrowed) if borrowed else say("scaling.own_times"),
                eight=float(grid["makespan_seconds"]["8"]) / 60,
                sixteen=float(grid["makespan_seconds"]["16"]) / 60,
            )
        )
    return spoken(*out)


def workers_summary(workers: Mapping[str, Any] | None) -> str:
    """The measured run of the quick grid on N Dask workers against 1, in a few sentences."""
    if not workers:
        return say("scaling.workers_unmeasured")
    runs = workers["runs"]
    one, *others = sorted(runs, key=int)
    if not others:
        raise DataError("workers.json holds a single run; run benchmarks/bench_workers.py.")
    n = others[-1]
    a, b = runs[one], runs[n]
    cores = int(workers["cores"])
    speed = float(a["wall_seconds"]) / float(b["wall_seconds"])
    out = [
        say(
            "scaling.workers",
            records=workers["records"],
            tasks=workers["tasks"],
            one_s=a["wall_seconds"],
            one=one,
            n_s=b["wall_seconds"],
            n=n,
            gain=say("scaling.gain", "faster" if speed >= 1 else "slower", speed=speed, n=n),
            cores=cores,
            load_before=a["load_before"][0],
            load_after=b["load_after"][0],
        ),
        say("scaling.workers_records", "equal" if workers.get("records_equal") else "differ"),
    ]
    if cores < int(n):
        out.append(say("scaling.bounded_by_cores", n=n, cores=cores))
    busy = max(a["load_before"][0], b["load_after"][0])
    if busy >= cores:
        out.append(say("scaling.overloaded", load=busy, cores=cores))
    return spoken(*out)


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
        return say("scaling.no_accelerator")
    rows = [r for r in devices["methods"] if r.get("speedup")]
    lo, hi = min(rows, key=lambda r: r["speedup"]), max(rows, key=lambda r: r["speedup"])

    def times(r: Mapping[str, Any]) -> str:
        return f"{r['speedup']:.2g}×" if r["speedup"] < 10 else f"{r['speedup']:.0f}×"

    out = [
        say(
            "scaling.accelerator",
            gpu=devices["machine"]["gpu"],
            low=times(lo),
            low_method=method_name(lo["method"]),
            high=times(hi),
            high_method=method_name(hi["method"]),
        )
    ]
    flow = devices.get("flow_fit_s") or {}
    if flow.get("cpu") and flow.get("cuda"):
        cpu, acc = float(flow["cpu"]), float(flow["cuda"])
        out.append(say("scaling.flow_fit", "slower" if acc > cpu else "faster", accelerator=acc, cpu=cpu))
    recorded = [r for r in rows if r.get("cpu_source") == "record"]
    if recorded:
        out.append(say("scaling.recorded_cpu", recorded=len(recorded), methods=len(rows)))
        both = [r for r in rows if r.get("cpu_source") == "here" and r.get("record_s")]
        if both:
            r = both[0]
            ratio = float(r["cpu_s"]) / float(r["record_s"])
            alike = (
                say("scaling.alike", "alike")
                if abs(ratio - 1) <= 0.1
                else say("scaling.alike", "unlike", ratio=1 / ratio)
            )
            out.append(
                say(
                    "scaling.both_threads",
                    method=method_name(r["method"]),
                    here=float(r["cpu_s"]),
                    record=float(r["record_s"]),
                    alike=alike,
                )
            )
    return spoken(*out)
