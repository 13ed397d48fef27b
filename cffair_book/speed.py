"""What the Benchmarks page says about speed: the LTN's epochs and the critical path
(``ltn_heap.json``), flushing denormals (``denormals.json``), the GAN's adversary (``gan_adversary.json``), the
claims engine (``book_claims.json``) and the book's reading of the store (``book_store.json``).

The numbers come from ``benchmarks/bench_ltn_heap.py``: short, alternating measurements on Adult
fold 0 (CPU time beside wall time, the machine's load, the spread over the rounds), and the task
graph of the committed full run projected before and after with the measured ratios.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd

from cffair_book.wording import say, sentences, spoken

__all__ = [
    "claims_speed_line",
    "critical_path_summary",
    "denormals_line",
    "gan_adversary_frame",
    "ltn_epoch_frame",
    "projection_frame",
    "record_cost_line",
    "store_speed_line",
]

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
        return say("speed.not_run", bench="bench_ltn_heap.py")
    proj = result["projection"]
    ratios = result["stage_ratios_cpu"]
    path = proj["critical_path_tasks"]
    chain = proj["before"]["critical_path"].get("tasks") or list(path)  # in the chain's order
    before = float(proj["before"]["critical_path"]["seconds"]) / 60
    after = float(proj["after"]["critical_path"]["seconds"]) / 60
    steps = ", then ".join(
        say("speed.critical_path_step", stage=t.split("/")[-2], before=path[t]["before"], after=path[t]["after"])
        for t in chain
    )
    return say(
        "speed.critical_path",
        rounds=result["rounds"],
        epochs=result["epochs_per_round"],
        load_before=result["load_before"][0],
        load_after=result["load_after"][0],
        cpus=result["cpus"],
        pretrain=ratios["pretrain"],
        fair=ratios["fair"],
        cke=ratios["cke"],
        before=before,
        after=after,
        steps=steps,
        target=say("speed.target", "within" if after <= 10 else "over"),
        longest=proj["after"]["critical_path"]["task"],
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
    from cffair.reporting import dataset_name, method_name

    shares = dict(cost["shares"])
    parts = [f"{k.split(': ', 1)[1]} {100 * v:.0f} %" for k, v in shares.items() if k.startswith("evaluation: ")]
    head = say(
        "speed.record_cost",
        dataset=dataset_name(str(cost["dataset"])),
        fold=cost["fold"],
        method=method_name(str(cost["setting"])),
        cpu=float(cost["cpu_s"]),
        training=100 * shares["training"],
        evaluation=100 * shares["evaluation"],
        parts=say("speed.record_cost_parts", parts=", ".join(parts)) if parts else "",
    )
    ref = cost.get("reference") or {}
    ratio = ref.get("cpu_over_reference_setting")
    reference = (
        say(
            "speed.reference",
            "no slower" if ratio <= 1.05 else "slower",
            then=float(ref["timings"]["setting"]),
            ratio=ratio,
        )
        if ratio is not None
        else ""
    )
    load = cost.get("load") or [None, None]
    wall, cpu = float(cost["wall_s"]), float(cost["cpu_s"])
    inflated = ""
    if wall > 1.2 * cpu:
        load_words = say("speed.wall_load", before=load[0], after=load[1]) if load[0] is not None else ""
        inflated = say("speed.wall", wall=wall, cpu=cpu, load=load_words)
    return spoken(head, reference, inflated)


def denormals_line(denormals: Mapping[str, Any]) -> str:
    """What flushing denormal floats saves while the LTN trains (``bench_denormals.py``), worded by
    its numbers (Markdown).

    >>> print(denormals_line({"pretrain_s": {"flush": 80.0, "denormals": 140.0}, "fair_s": {"flush": 12.0,
    ...       "denormals": 30.0}, "speedup": {"pretrain_s": 1.75, "fair_s": 2.5}, "fair_epochs": 100,
    ...       "max_abs_diff": 0.0, "saturation": 0.967, "load": [0.1, 1.0]}))
    On Adult fold 0, where 96.7 % of the pre-trained predicate's test outputs are below 0.01 or above 0.99, the 1500 pre-training epochs take 80 s with the learner's flush and 140 s computing with denormals (1.75× faster flushed); 100 acc+CF epochs from that pre-training 12 s against 30 s (2.50× faster flushed). The two pre-trained models give identical outputs on the test rows. (Load average 0.1 before, 1.0 after.)
    >>> print(denormals_line({"pretrain_s": {"flush": 80.0, "denormals": 79.0}, "fair_s": {"flush": 12.0,
    ...       "denormals": 12.1}, "speedup": {"pretrain_s": 0.99, "fair_s": 1.01}, "fair_epochs": 100,
    ...       "max_abs_diff": 2e-7, "saturation": 0.5, "load": [0.1, 1.0]}).split("; ")[0][-56:])
    computing with denormals (no faster flushed, within 5 %)
    """

    def faster(ratio: float) -> str:
        if abs(ratio - 1.0) <= 0.05:
            return say("speed.flushed", "same")
        return (
            say("speed.flushed", "faster", ratio=ratio)
            if ratio > 1
            else say("speed.flushed", "slower", ratio=1 / ratio)
        )

    pre, fair, speed = denormals["pretrain_s"], denormals["fair_s"], denormals["speedup"]
    diff = float(denormals["max_abs_diff"])
    load = denormals.get("load") or [None, None]
    return spoken(
        say(
            "speed.denormals",
            saturation=100 * float(denormals["saturation"]),
            pretrain_flush=pre["flush"],
            pretrain_denormals=pre["denormals"],
            pretrain_speed=faster(float(speed["pretrain_s"])),
            fair_epochs=denormals["fair_epochs"],
            fair_flush=fair["flush"],
            fair_denormals=fair["denormals"],
            fair_speed=faster(float(speed["fair_s"])),
        ),
        say("speed.same_models", "identical", diff=diff)
        if diff == 0.0
        else say("speed.same_models", "differ", diff=diff),
        say("speed.load", before=load[0], after=load[1]) if load[0] is not None else "",
    )


#: The GAN adversary benchmark's comparisons: (row, its part of the file, the variant before, the one after, the
#: file's ratio of the two). Each compares the code before issue 43 (autograd) with the written update.
_GAN_ROWS = (
    ("update, 512 rows (COMPAS)", "update", "autograd", "written", "speedup_written"),
    ("update, 5 stacked, per member", "update", "autograd", "written_stacked_5", "speedup_stacked_5_per_member"),
    ("update, 2048 rows (Adult)", "update_adult_batch", "autograd", "written", "speedup_written"),
    (
        "update, 2048 rows, 5 stacked, per member",
        "update_adult_batch",
        "autograd",
        "written_stacked_5",
        "speedup_stacked_5_per_member",
    ),
    ("released variant's update, 512 rows", "update", "released_autograd", "released_written", "speedup_released"),
    ("stage 1, one model (COMPAS)", "stage1", "single_autograd", "single_written", "speedup_written_single"),
    ("stage 1, 5 stacked, per model", "stage1", "single_autograd", "stacked_5", "speedup_stacked_5_vs_single_autograd"),
)


def gan_adversary_frame(result: Mapping[str, Any]) -> pd.DataFrame:
    """One row per comparison of ``bench_gan_adversary.py``: CPU milliseconds before (autograd's update) and
    after (the written update, alone or stacked), median (min–max) over the rounds, and the ratio of the
    medians in CPU and in wall time (the file's own ratios). A comparison the file lacks is left out.

    >>> e = lambda cpu: {"cpu_s": {"median": cpu, "min": cpu, "max": cpu}, "wall_s": {"median": cpu, "min": cpu,
    ...     "max": cpu}}
    >>> r = {"update": {"seconds_per_update": {"autograd": e(0.0006), "written": e(0.0002)},
    ...      "speedup_written": {"cpu_s": 3.0, "wall_s": 2.5}}}
    >>> gan_adversary_frame(r).iloc[0].to_dict()
    {'before: CPU ms': '0.600 (0.600–0.600)', 'after: CPU ms': '0.200 (0.200–0.200)', 'ratio (CPU)': 3.0, 'ratio (wall)': 2.5}
    """
    rows = []
    for label, part, before, after, ratio in _GAN_ROWS:
        got = result.get(part) or {}
        times = got.get("seconds_per_update") or got.get("seconds_per_model") or {}
        if before not in times or after not in times or ratio not in got:
            continue
        ms = {
            k: {q: 1000 * float(v) for q, v in times[k]["cpu_s"].items() if q in ("median", "min", "max")}
            for k in (before, after)
        }
        rows.append(
            {
                "comparison": label,
                "before: CPU ms": _spread({"x": ms[before]}, "x"),
                "after: CPU ms": _spread({"x": ms[after]}, "x"),
                "ratio (CPU)": float(got[ratio]["cpu_s"]),
                "ratio (wall)": float(got[ratio]["wall_s"]),
            }
        )
    return pd.DataFrame(rows).set_index("comparison") if rows else pd.DataFrame()


def claims_speed_line(result: Mapping[str, Any]) -> str:
    """What the Reproducing page's robustness cell costs before and after the claims cache and the
    vectorised exact tests (``bench_book_claims.py``), worded by its numbers (Markdown).

    >>> r = {"rounds": 3, "same_output": True, "variants": {
    ...     "before": {"cpu": {"median": 22.0, "min": 21.0, "max": 23.0}, "wall": {"median": 35.0, "min": 29.0,
    ...                "max": 39.0}, "evaluations": 8, "dataset_parses": 16, "load": [[4.2, 4.9], [5.5, 4.8]]},
    ...     "after": {"cpu": {"median": 2.7, "min": 2.6, "max": 3.0}, "wall": {"median": 4.1, "min": 3.3, "max": 5.5},
    ...               "evaluations": 4, "dataset_parses": 2, "load": [[4.8, 4.9]]},
    ...     "after_disk": {"cpu": {"median": 0.6, "min": 0.59, "max": 0.6}, "wall": {"median": 1.0, "min": 0.8,
    ...                    "max": 1.2}, "evaluations": 0, "dataset_parses": 0, "load": [[4.1, 4.2]]}},
    ...     "exact_tests": {"spearman_exact_7": {"ratio_cpu": 418.0, "same_value": True},
    ...                     "sign_flip_p_15": {"ratio_cpu": 260.0, "same_value": True}}, "machine": {"cpus": 2}}
    >>> print(claims_speed_line(r))  # doctest: +NORMALIZE_WHITESPACE
    The Reproducing page's robustness cell decided the claims 8 times and parsed the datasets 16 times: 22.0 s of
    CPU (21.0–23.0 over 3 rounds; 35.0 s wall, 29.0–39.0). Today it decides each of its 4 rule sets once and
    parses 2 datasets once: 2.7 s of CPU (2.6–3.0; 4.1 s wall, 3.3–5.5), 8.1× less; with the evaluations already in the build's
    claims cache (a second build of the same inputs) 0.6 s (37×). Both give the same table. Alone, Spearman's
    exact test on 7 points is 418× faster and the sign-flip test on 15 differences 260×, with the same values.
    (Load average 4.1–5.5 on 2 cores.)
    """
    v = result["variants"]
    before, after, disk = v["before"], v["after"], v["after_disk"]

    def cpu(x: Mapping[str, Any], rounds: bool = False) -> str:
        c, w = x["cpu"], x["wall"]
        return say(
            "speed.claims_cpu",
            "rounds" if rounds else "plain",
            cpu=c["median"],
            cpu_min=c["min"],
            cpu_max=c["max"],
            rounds=result["rounds"],
            wall=w["median"],
            wall_min=w["min"],
            wall_max=w["max"],
        )

    tests = result.get("exact_tests", {})
    exact = ""
    if "spearman_exact_7" in tests and "sign_flip_p_15" in tests:
        sp, sf = tests["spearman_exact_7"], tests["sign_flip_p_15"]
        exact = say(
            "speed.exact_tests",
            spearman=sp["ratio_cpu"],
            sign_flip=sf["ratio_cpu"],
            values=say("speed.exact_values", "same" if sp["same_value"] and sf["same_value"] else "other"),
        )
    loads = [x for name in ("before", "after", "after_disk") for pair in v[name].get("load", []) for x in pair]
    return spoken(
        say(
            "speed.claims",
            evaluations=before["evaluations"],
            parses=before["dataset_parses"],
            before=cpu(before, True),
            rule_sets=after["evaluations"],
            datasets=after["dataset_parses"],
            after=cpu(after),
            ratio=before["cpu"]["median"] / after["cpu"]["median"],
            disk=disk["cpu"]["median"],
            ratio_disk=before["cpu"]["median"] / disk["cpu"]["median"],
        ),
        say("speed.same_table", "same" if result.get("same_output") else "differ"),
        exact,
        _load_range(loads, result),
    )


def store_speed_line(result: Mapping[str, Any] | None) -> str:
    """What the pages that read the store most cost before and after each record is read once per file
    (``bench_book_store.py``), worded by its numbers (Markdown).

    >>> page = lambda b, a, same=True: {"before": {"cpu": {"median": b, "min": b - 1, "max": b + 1}},
    ...     "after": {"cpu": {"median": a, "min": a - 0.5, "max": a + 0.5}}, "ratio_cpu": round(b / a, 2),
    ...     "same_output": same, "load": [0.2, 1.1]}
    >>> r = {"rounds": 3, "pages": {"intro.md": page(30.0, 8.0), "book/reproducing.md": page(40.0, 20.0)},
    ...      "machine": {"cpus": 2}}
    >>> print(store_speed_line(r))  # doctest: +NORMALIZE_WHITESPACE
    Each page in a fresh process, 3 alternating rounds, CPU seconds (median, min–max): the front page 30.0 s
    (29.0–31.0) before, 8.0 s (7.5–8.5) after, 3.75× less; the Reproducing page 40.0 s (39.0–41.0) before,
    20.0 s (19.5–20.5) after, 2.00× less. Every page shows the same output with both. (Load average 0.2–1.1 on
    2 cores.)
    >>> "**The outputs differ.**" in store_speed_line({**r, "pages": {"intro.md": page(30.0, 8.0, same=False)}})
    True
    >>> "1.25× more" in store_speed_line({**r, "pages": {"intro.md": page(8.0, 10.0)}})  # slower after: says so
    True
    >>> store_speed_line(None)
    '`benchmarks/bench_book_store.py` has not been run on this checkout.'
    """
    if result is None:
        return say("speed.not_run", bench="bench_book_store.py")

    def part(path: str, e: Mapping[str, Any]) -> str:
        b, a = e["before"]["cpu"], e["after"]["cpu"]
        ratio = float(e["ratio_cpu"])
        return say(
            "speed.store_page",
            page=_page_name(path),
            before=b["median"],
            before_min=b["min"],
            before_max=b["max"],
            after=a["median"],
            after_min=a["min"],
            after_max=a["max"],
            change=say("speed.store_change", "less", ratio=ratio)
            if ratio >= 1
            else say("speed.store_change", "more", ratio=1 / ratio),
        )

    same = all(e["same_output"] for e in result["pages"].values())
    return spoken(
        say("speed.store", rounds=result["rounds"], pages="; ".join(part(p, e) for p, e in result["pages"].items())),
        say("speed.same_output", "same" if same else "differ"),
        _load_range([x for e in result["pages"].values() for x in _loads(e)], result),
    )


def _load_range(loads: list[float], result: Mapping[str, Any]) -> str:
    """The load averages a benchmark noted, as one parenthesis ("" when it noted none)."""
    if not loads:
        return ""
    return say(
        "speed.load_range", low=min(loads), high=max(loads), cores=result.get("machine", {}).get("cpus") or "its"
    )


def _page_name(path: str) -> str:
    """A page's name: the two pages the benchmark times by name, a chapter by its notebook
    (``notebooks/q1_counterfactual_fairness.md`` → ``chapter Q1``).

    >>> _page_name("notebooks/q1_counterfactual_fairness.md"), _page_name("book/claims.md")
    ('chapter Q1', 'the page claims')
    """
    if path in sentences()["speed"]["page"]:
        return say("speed.page", path)
    stem = path.rsplit("/", 1)[-1].removesuffix(".md")
    head = stem.split("_", 1)[0]
    if head[:1] == "q" and head[1:].isdigit():
        return say("speed.page", "chapter", name=head.upper())
    return say("speed.page", "other", name=stem)


def _loads(entry: Mapping[str, Any]) -> list[float]:
    """Every load average a page's runs noted (a run keeps ``[before, after]``; a summary may keep one pair)."""
    if "load" in entry:
        return [float(x) for x in entry["load"]]
    return [float(x) for v in ("before", "after") for run in entry[v].get("runs", []) for x in run["load"]]
