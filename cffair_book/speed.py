"""What the Benchmarks page says about the LTN's epochs and the critical path (``ltn_heap.json``).

The numbers come from ``benchmarks/bench_ltn_heap.py``: short, alternating measurements on Adult
fold 0 (CPU time beside wall time, the machine's load, the spread over the rounds), and the task
graph of the committed full run projected before and after with the measured ratios.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd

__all__ = ["critical_path_summary", "ltn_epoch_frame", "projection_frame", "record_cost_line"]

#: What each measured knowledge base is, for the table's rows.
_STAGES = {
    "pretrain": "pre-training (A1, A2)",
    "fair": "acc+CF_sg (A1, A2, A4_i)",
    "cke1": "CKE step 1 (+ A5)",
    "cke2": "CKE step 2 (+ A5)",
    "cke3": "CKE step 3 (+ A5)",
    "cke4": "CKE step 4 (+ A5)",
}


def _spread(entry: Mapping[str, Any], what: str) -> str:
    s = entry[what]
    return f"{s['median']:.3f} ({s['min']:.3f}–{s['max']:.3f})"


def ltn_epoch_frame(result: Mapping[str, Any]) -> pd.DataFrame:
    """One row per stage: unique rows, the seconds of one epoch with glibc's default allocator and
    with the heap retained (CPU, median with min–max over the rounds), their CPU and wall ratios,
    and the ratio of the merged-elements variant (the issue's proposal)."""
    rows = []
    order = [k for k in _STAGES if k in result["stages"]] + [k for k in result["stages"] if k not in _STAGES]
    for key in order:  # the stages in training order (the file's keys are sorted)
        st = result["stages"][key]
        rows.append(
            {
                "stage": _STAGES.get(key, key),
                "unique rows": int(st["unique_rows"]),
                "default CPU s": _spread(st["default"], "cpu_s"),
                "heap kept CPU s": _spread(st["retained_heap"], "cpu_s"),
                "ratio (CPU)": float(st["retained_heap"]["ratio_cpu"]),
                "ratio (wall)": float(st["retained_heap"]["ratio_wall"]),
                "merged elements (CPU)": float(st["merged_elements"]["ratio_cpu"]),
            }
        )
    return pd.DataFrame(rows).set_index("stage")


def projection_frame(result: Mapping[str, Any]) -> pd.DataFrame:
    """Projected minutes of the committed full run's task graph on 2, 4, 16 and 64 workers, before and
    after this round's LTN changes, and the critical path."""
    proj = result["projection"]
    before, after = proj["before"], proj["after"]
    rows = {
        str(n): {
            "before (min)": float(before["makespan_seconds"][n]) / 60,
            "after (min)": float(after["makespan_seconds"][n]) / 60,
        }
        for n in sorted(before["makespan_seconds"], key=int)
    }
    rows["critical path"] = {
        "before (min)": float(before["critical_path"]["seconds"]) / 60,
        "after (min)": float(after["critical_path"]["seconds"]) / 60,
    }
    out = pd.DataFrame.from_dict(rows, orient="index")
    out["ratio"] = out["before (min)"] / out["after (min)"]
    return out


def critical_path_summary(result: Mapping[str, Any] | None) -> str:
    """The measurement's conditions and the critical path before and after, in a few sentences (Markdown)."""
    if result is None:
        return "`benchmarks/bench_ltn_heap.py` has not been run on this checkout."
    proj = result["projection"]
    ratios = result["stage_ratios_cpu"]
    path = proj["critical_path_tasks"]
    chain = proj["before"]["critical_path"].get("tasks") or list(path)  # in the chain's order
    before = float(proj["before"]["critical_path"]["seconds"]) / 60
    after = float(proj["after"]["critical_path"]["seconds"]) / 60
    steps = ", then ".join(f"{t.split('/')[-2]} {path[t]['before']:.0f} s → {path[t]['after']:.0f} s" for t in chain)
    lb, la = result["load_before"][0], result["load_after"][0]
    verdict = "within" if after <= 10 else "over"
    return (
        f"Measured on Adult fold 0, {result['rounds']} alternating rounds of {result['epochs_per_round']} epochs "
        f"per variant in one process, one torch thread, with the machine's 1-minute load at {lb:.1f} before and "
        f"{la:.1f} after on its {result['cpus']} cores (other work shared them, so wall times are longer than CPU "
        f"times and the ratios are taken on CPU time). The CPU time of an epoch, glibc's default allocator ÷ the "
        f"heap kept, is {ratios['pretrain']:.2f} in pre-training (its 31,244 rows' blocks are small enough for "
        f"glibc's own dynamic threshold), {ratios['fair']:.2f} in the fairness stage and {ratios['cke']:.2f} over "
        f"the four CKE steps (with each step's knowledge base compiled from the step before). Projected from the committed run's own task seconds (measured), with the LTN tasks' "
        f"seconds divided by these ratios (scaled): the critical path goes from {before:.1f} to {after:.1f} min "
        f"({steps}), {verdict} the target of 10 minutes; the longest chain after is "
        f"{proj['after']['critical_path']['task']}."
    )


def record_cost_line(cost: Mapping[str, Any]) -> str:
    """Where one LTN record's seconds go (``bench_record_cost.py``), worded by its numbers (Markdown).

    >>> cost = {"dataset": "compas", "setting": "ltn_acc_cf", "fold": 0, "cpu_s": 2.9, "wall_s": 11.0,
    ...         "shares": {"training": 0.83, "evaluation": 0.14, "evaluation: fairlearn MetricFrame": 0.08},
    ...         "reference": {"timings": {"setting": 3.4}, "cpu_over_reference_setting": 0.85}, "load": [2.9, 3.6]}
    >>> print(record_cost_line(cost))
    One record's own task (COMPAS fold 0, LTN(acc+CF), the pre-trained model loaded) takes 2.9 CPU seconds: 83 % training, 14 % the record's evaluation (its parts, each with what it calls: fairlearn MetricFrame 8 %). The earlier run recorded 3.4 s for it: the code is no slower (0.85×). A record's seconds are wall seconds, which load inflates: this run took 11.0 s of wall time for its 2.9 CPU seconds (load average 2.9 before, 3.6 after).
    >>> cost["reference"]["cpu_over_reference_setting"] = 1.4
    >>> print(record_cost_line(cost).split(". ")[1][:59])
    The earlier run recorded 3.4 s for it: the code takes 1.40×
    >>> "wall seconds" in record_cost_line(cost | {"wall_s": 3.0})      # an idle run: nothing inflated
    False
    """
    from cffair.reporting.names import dataset_name, method_name

    shares = dict(cost["shares"])
    parts = [f"{k.split(': ', 1)[1]} {100 * v:.0f} %" for k, v in shares.items() if k.startswith("evaluation: ")]
    head = (
        f"One record's own task ({dataset_name(str(cost['dataset']))} fold {cost['fold']}, "
        f"{method_name(str(cost['setting']))}, the pre-trained model loaded) takes {float(cost['cpu_s']):.1f} CPU "
        f"seconds: {100 * shares['training']:.0f} % training, {100 * shares['evaluation']:.0f} % the record's "
        f"evaluation" + (f" (its parts, each with what it calls: {', '.join(parts)})" if parts else "") + "."
    )
    ref = cost.get("reference") or {}
    ratio = ref.get("cpu_over_reference_setting")
    if ratio is not None:
        then = float(ref["timings"]["setting"])
        verdict = (
            f"the code is no slower ({ratio:.2f}×)" if ratio <= 1.05 else f"the code takes {ratio:.2f}× the CPU time"
        )
        head += f" The earlier run recorded {then:.1f} s for it: {verdict}."
    load = cost.get("load") or [None, None]
    wall, cpu = float(cost["wall_s"]), float(cost["cpu_s"])
    if wall > 1.2 * cpu:
        head += (
            f" A record's seconds are wall seconds, which load inflates: this run took {wall:.1f} s of wall time "
            f"for its {cpu:.1f} CPU seconds"
            + (f" (load average {load[0]:.1f} before, {load[1]:.1f} after)." if load[0] is not None else ".")
        )
    return head
