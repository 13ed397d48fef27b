"""How a reproduction was made and what it cost (the Reproducing page), as frames and facts.

The inputs are JSON files the project writes: ``results/<mode>/provenance.json`` (the run's
commit, machine and stage times, by ``cffair reproduce``) and ``benchmarks/results/*.json``
(by ``make bench``). :func:`reproduction_facts` gives the numbers the page quotes in its prose
(with myst-nb's ``glue``); the other functions give its tables.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pandas as pd

from cffair.errors import DataError
from cffair.reporting import dataset_name
from cffair_book.chapters import group_label
from cffair_book.wording import say, spoken, value_range

__all__ = [
    "STEP_NAMES",
    "efficiency_scope",
    "baseline_seconds_frame",
    "command_times_frame",
    "core_seconds_frame",
    "flow_benchmark_frame",
    "gan_mmd_frame",
    "group_seconds_frame",
    "paper_protocol_line",
    "parts_sentence",
    "protocol_cost_line",
    "husband_flip_frame",
    "load_benchmarks",
    "load_provenance",
    "ltn_seconds_frame",
    "measured_efficiency_line",
    "provenance_notes",
    "reproduction_facts",
    "scaling_frame",
    "stage_seconds_frame",
]


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        where = f" (line {exc.lineno}, column {exc.colno})" if isinstance(exc, json.JSONDecodeError) else ""
        raise DataError(
            f"{path} is not valid JSON{where}: {exc}; regenerate it (make bench, or cffair reproduce)."
        ) from exc


def load_provenance(results_dir: str | Path) -> dict[str, Any] | None:
    """The ``provenance.json`` of a results folder (``results/full``), or None if it has none.

    Raises:
        DataError: if the file is not valid JSON (naming the file, line and column).
    """
    path = Path(results_dir) / "provenance.json"
    return _read_json(path) if path.is_file() else None


def efficiency_scope(efficiency: Mapping[str, Any]) -> str:
    """Which run a parallel efficiency measures, for "In …, the two workers were busy for x %".

    >>> efficiency_scope({"efficiency": 0.9})
    'the committed full run'
    >>> efficiency_scope({"groups": ["appendix_c", "beyond"], "parts": 2, "records": 168, "exact": True})
    'the 2 invocations that computed the 168 records of Appendix C: three rulers; Beyond the paper'
    >>> efficiency_scope({"groups": None, "parts": 10, "records": 1852, "exact": True})
    "the 10 invocations that computed the full run's 1,852 records"
    >>> efficiency_scope({"groups": ["q1"], "parts": 1, "records": 5, "exact": False})[-69:]
    'fairness (it computed some records twice: the share is a lower bound)'
    """
    if "groups" not in efficiency:
        return say("reproduction.scope_full_run")
    n = int(efficiency["parts"])
    who = say("reproduction.who", "one" if n == 1 else "many", count=n)
    if efficiency["groups"] is None:
        return say("reproduction.scope_all", who=who, records=int(efficiency["records"]))
    groups = "; ".join(group_label(g) for g in efficiency["groups"])
    text = say("reproduction.scope_groups", who=who, records=int(efficiency["records"]), groups=groups)
    if not efficiency.get("exact", True):
        text += say("reproduction.lower_bound", "one" if n == 1 else "many")
    return text


def measured_efficiency_line(full_run: Mapping[str, Any]) -> str:
    """What the committed run's own wall time says of its workers' parallel efficiency (the Benchmarks
    page's sentence after the replay's table): one clause per measurement of
    ``parallel_efficiency_parts`` (:func:`efficiency_scope` names each), or that none was measured.

    >>> measured_efficiency_line({"parallel_efficiency_parts": [
    ...     {"groups": None, "parts": 10, "records": 1852, "exact": True, "efficiency": 0.955, "workers": 2}]})
    "The efficiencies above come from the replay, not from a measurement: in the 10 invocations that computed the full run's 1,852 records, the 2 workers were measured busy 95.5 % of the experiments' wall time."
    >>> measured_efficiency_line({}).endswith("; the committed run records no measurement of its workers.")
    True
    """
    parts = full_run.get("parallel_efficiency_parts") or []
    if not parts:
        return say("reproduction.efficiency", "none")
    clauses = [
        say(
            "reproduction.efficiency_clause",
            scope=efficiency_scope(e),
            workers=int(e.get("workers", 2)),
            busy=100 * float(e["efficiency"]),
        )
        for e in parts
    ]
    return say("reproduction.efficiency", "measured", clauses="; ".join(clauses))


def load_benchmarks(folder: str | Path) -> dict[str, dict[str, Any]]:
    """Every benchmark result of a folder (``benchmarks/results``), by file stem
    (``"ltn"`` for ``ltn.json``).

    Raises:
        DataError: if a file is not valid JSON (naming the file, line and column).
    """
    return {p.stem: _read_json(p) for p in sorted(Path(folder).glob("*.json"))}


def stage_seconds_frame(provenance: Mapping[str, Any]) -> pd.DataFrame:
    """Wall-clock seconds and minutes (one decimal) of each stage of the run."""
    stages = pd.Series(provenance["stage_seconds"], name="seconds", dtype=float).to_frame()
    stages.index.name = "stage"
    stages["minutes"] = (stages["seconds"] / 60).round(1)
    return stages


def provenance_notes(provenance: Mapping[str, Any]) -> str:
    """Markdown caveats about the run: a *dirty* work tree, and an incomplete run with its
    records per fold; ``""`` if there are none."""
    notes = []
    if provenance.get("dirty"):
        notes.append(say("reproduction.dirty"))
    computed, in_grid = provenance.get("records_computed"), provenance.get("records_in_grid")
    parts = provenance.get("parts") or []
    if computed is not None and in_grid and computed < in_grid and len(parts) > 1:
        hours = sum(float(p.get("wall_s") or 0.0) for p in parts) / 3600
        notes.append(
            say("reproduction.last_invocation", parts=len(parts), computed=computed, in_grid=in_grid, hours=hours)
        )
    elif computed is not None and in_grid and computed < in_grid:
        notes.append(say("reproduction.resumed", computed=computed, in_grid=in_grid))
    if not provenance.get("complete", True):
        per_fold = ", ".join(f"fold {f}: {n}" for f, n in provenance.get("records_per_fold", {}).items())
        notes.append(
            say(
                "reproduction.incomplete",
                note=provenance.get("note", ""),
                per_fold=per_fold or say("reproduction.per_fold_unknown"),
            )
        )
    return "\n\n".join(notes)


def flow_benchmark_frame(counterfactuals: Mapping[str, Any]) -> pd.DataFrame:
    """The causal flow's fit and counterfactual generation, one row per dataset, the scalar
    fields of ``counterfactuals.json`` as columns (a dataset that repeats another, such as
    COMPAS(age), shows only that)."""
    rows = {
        name: {k: v for k, v in d.items() if not isinstance(v, (dict, list))}
        for name, d in counterfactuals.get("datasets", {}).items()
    }
    return pd.DataFrame(rows).T


def husband_flip_frame(counterfactuals: Mapping[str, Any], dataset: str = "adult") -> pd.DataFrame:
    """Where the male "Husband" rows of Adult go when sex is flipped: the share of each
    relationship after the flip per flow variant (three decimals; 0 where a variant puts
    none), next to the real women's. Empty if the benchmark did not measure it."""
    flip = counterfactuals.get("datasets", {}).get(dataset, {}).get("husband_sex_flip")
    return pd.DataFrame(flip).fillna(0).round(3) if flip else pd.DataFrame()


def ltn_seconds_frame(ltn: Mapping[str, Any]) -> pd.DataFrame:
    """Seconds per LTN epoch of each measured configuration (``ltn.json``)."""
    return pd.Series(ltn["seconds_per_epoch"], name="seconds per epoch", dtype=float).to_frame()


def gan_mmd_frame(gan_mmd: Mapping[str, Any]) -> pd.DataFrame:
    """Milliseconds per forward + backward of the GAN's MMD at each batch size (``gan_mmd.json``):
    autograd through the expression and cffair's backward, the speed-up, and the largest
    difference of the gradients; index: batch size (rows)."""
    batches = gan_mmd.get("batches")
    if not batches:
        raise DataError("gan_mmd.json has no batches; run benchmarks/bench_gan_mmd.py.")
    rows = {
        int(b): {
            "autograd (ms)": 1e3 * r["seconds"]["autograd"],
            "cffair (ms)": 1e3 * r["seconds"]["cffair"],
            "speed-up": r["speedup"],
            "largest gradient difference": r["max_abs_diff_grad"],
        }
        for b, r in batches.items()
    }
    frame = pd.DataFrame.from_dict(rows, orient="index").sort_index()
    frame.index.name = "batch rows"
    return frame


def core_seconds_frame(full_run: Mapping[str, Any]) -> pd.DataFrame:
    """Core-seconds of the full run per dataset (rows) and part (columns), with a total row
    and column, rounded to whole seconds (``full_run.json``)."""
    cs = pd.DataFrame(full_run["core_seconds"]).T
    cs["total"] = cs.sum(axis=1)
    cs.loc["total"] = cs.sum(axis=0)
    return cs.round(0).astype(int)


def group_seconds_frame(full_run: Mapping[str, Any]) -> pd.DataFrame:
    """Core-seconds and share of the full run per group of the grid (``full_run.json``), largest
    first: one row per group, named as a reader knows it (:func:`group_label`), with the
    ``--only`` argument that regenerates it."""
    groups = full_run.get("group_seconds")
    if not groups:
        raise DataError("full_run.json has no group_seconds; run benchmarks/bench_full_run.py.")
    seconds = pd.Series(groups, dtype=float).sort_values(ascending=False)
    frame = pd.DataFrame(
        {"--only": seconds.index, "core-seconds": seconds.to_numpy(), "share": (seconds / seconds.sum()).to_numpy()},
        index=pd.Index([group_label(g) for g in seconds.index], name="part of the book"),
    )
    return frame


def scaling_frame(full_run: Mapping[str, Any]) -> pd.DataFrame:
    """Hours of the full grid's experiments on N workers (``full_run.json``'s task graph): the
    scheduler replayed (a free worker takes the first ready task) and the lower bound
    ``max(critical path, core-seconds / N)``; index: workers."""
    graph = full_run.get("task_graph")
    if not graph:
        raise DataError("full_run.json has no task graph; run benchmarks/bench_full_run.py.")
    frame = pd.DataFrame(
        {
            "projected (h)": pd.Series(graph["makespan_seconds"], dtype=float) / 3600,
            "lower bound (h)": pd.Series(graph["lower_bound_seconds"], dtype=float) / 3600,
        }
    )
    frame.index = frame.index.astype(int)
    frame.index.name = "workers"
    return frame.sort_index()


def baseline_seconds_frame(baselines: Mapping[str, Any]) -> pd.DataFrame:
    """Seconds per fold of each baseline (rows) on each dataset (columns), rounded to whole
    seconds (``baselines.json``: extrapolated from a few epochs at the paper's settings)."""
    return pd.DataFrame({m: v["s_per_fold"] for m, v in baselines["totals"].items()}).T.round(0)


#: What each step of ``tools/time_fresh_clone.py`` does, for a reader.
STEP_NAMES = {
    "book": "install everything, then build the book (render mode)",
    "quick": "quick reproduction: every chapter's results and notebook, cold caches",
    "test": "the whole test suite (lint, types, tests, book build, browser check)",
}


def command_times_frame(fresh_clone: Mapping[str, Any]) -> pd.DataFrame:
    """The README's commands timed in a fresh clone (``benchmarks/results/fresh_clone.json``):
    one row per step with its command, wall-clock minutes, whether it passed, and the machine's
    1-minute load average before and after (how busy the machine was besides).

    >>> run = {"steps": [{"step": "book", "command": "make book", "seconds": 150.0, "exit": 0,
    ...                   "load_before": [0.1, 0.2], "load_after": [1.9, 1.5]}]}
    >>> row = command_times_frame(run).iloc[0]
    >>> row["command"], float(row["minutes"]), row["passed"], row["load"]
    ('make book', 2.5, 'yes', '0.1 → 1.9')
    """
    rows = [
        {
            "step": STEP_NAMES.get(s["step"], s["step"]),
            "command": s["command"],
            "minutes": round(float(s["seconds"]) / 60, 1),
            "passed": "yes" if int(s["exit"]) == 0 else f"no (exit {int(s['exit'])})",
            "load": f"{s['load_before'][0]:.1f} → {s['load_after'][0]:.1f}",
        }
        for s in fresh_clone["steps"]
    ]
    return pd.DataFrame(rows, columns=["step", "command", "minutes", "passed", "load"])


def _wall_kind(run: Mapping[str, Any], measured: bool) -> str:
    if not measured:
        return say("reproduction.wall_kind", "projected")
    count = int((run.get("parts") or {}).get("count") or 0)
    return (
        say("reproduction.wall_kind", "parts", count=count) if count > 1 else say("reproduction.wall_kind", "measured")
    )


def parts_sentence(run: Mapping[str, Any]) -> str:
    """What the full run's wall time is, worded by its parts (the benchmark's ``parts``).

    >>> parts_sentence({"wall_seconds": 9.0, "parts": {"count": 9, "interrupted": 8}})
    "That wall time is the sum of the regeneration's 9 parts, 8 of them stopped and resumed: it is neither a clean nor a cold run"
    >>> parts_sentence({"wall_seconds": 9.0, "parts": {"count": 1, "interrupted": 0}})
    'That wall time is one invocation'
    >>> parts_sentence({"wall_seconds": None, "parts": {"count": 3}})
    "No invocations at one code computed the whole grid, so that time is projected from the records' own seconds"
    """
    parts = run.get("parts") or {}
    count, stopped = int(parts.get("count") or 0), int(parts.get("interrupted") or 0)
    if run.get("wall_seconds") is None:
        return say("reproduction.parts", "projected")
    branch = ("one" if count <= 1 else "many") + ("_resumed" if stopped else "")
    return say("reproduction.parts", branch, count=count, stopped=stopped)


def paper_protocol_line(full_run: Mapping[str, Any]) -> str:
    """The paper's protocol apart from the rest of the full mode, in one or two sentences worded by
    the numbers: its projected makespan against its target, and the measured wall time of the
    part of the regeneration that ran the paper's chapters, when one did (Markdown; empty without
    the benchmark's ``paper_protocol``).

    >>> run = {"machine": {"cpus": 2}, "paper_protocol": {"records": 216, "records_wanted": 216,
    ...        "projected_seconds": 5789.0, "measured_part_seconds": 8400.0, "target_seconds": 7200},
    ...        "parts": {"paper_part": {"groups": ["q1", "q2_why"], "records": 474}}}
    >>> print(paper_protocol_line(run))
    The paper's protocol alone (its chapters, one partition of cross-validation, one seed, its twins; 216 of 216 records) takes 96 min on 2 cores, projected from its records' own seconds: within its target of 2.0 h. The part of the regeneration that ran its chapters with their investigations and repetitions (474 records) took 140 min, measured.
    >>> by_dataset = {**run, "parts": {}, "paper_chapters": {"records": 1600}}
    >>> print(paper_protocol_line(by_dataset).split(". ")[-1])
    Its chapters with their investigations and the replication (1600 records) ran in parts by dataset together with the rest, so no measured wall time is theirs alone.
    >>> run["parts"]["paper_part"].update(parts=2, interrupted=1)
    >>> print(paper_protocol_line(run).split(". ")[-1])
    The parts of the regeneration that ran its chapters with their investigations and repetitions (474 records) took 140 min, measured, the sum of 2 invocations (1 of them stopped before the end and resumed).
    """
    paper = full_run.get("paper_protocol")
    if not paper or paper.get("projected_seconds") is None:
        return ""
    minutes = float(paper["projected_seconds"]) / 60
    complete = int(paper["records"]) == int(paper["records_wanted"])
    verdict = "within" if complete and float(paper["projected_seconds"]) <= float(paper["target_seconds"]) else "over"
    if not complete:
        verdict = "incomplete"
    text = say(
        "reproduction.paper_protocol",
        records=paper["records"],
        wanted=paper["records_wanted"],
        minutes=minutes,
        cpus=int((full_run.get("machine") or {}).get("cpus") or 2),
        verdict=say("reproduction.protocol_verdict", verdict),
        target_hours=float(paper["target_seconds"]) / 3600,
    )
    part = (full_run.get("parts") or {}).get("paper_part")
    chapters = full_run.get("paper_chapters")
    if not part and chapters:  # a run in parts by dataset: no wall time is the chapters' alone
        text = spoken(text, say("reproduction.chapters_in_parts", records=chapters["records"]))
    if paper.get("measured_part_seconds") is not None and part:
        count = int(part.get("parts") or 1)
        killed = int(part.get("interrupted") or 0)
        how = say("reproduction.chapters_how", "one" if count == 1 else "many", count=count)
        if killed:
            how += say("reproduction.chapters_stopped", stopped=killed)
        grid = max(
            (
                int(p.get("records_in_grid") or 0)
                for p in (full_run.get("parts") or {}).get("parts", ())
                if set(p.get("groups") or ()) == set(part.get("groups") or ())
            ),
            default=0,
        )
        computed = int(part["records"])
        records = (
            say("reproduction.chapters_records", "twice", grid=grid, computed=computed, twice=computed - grid)
            if grid and computed > grid
            else say("reproduction.chapters_records", "plain", computed=computed)
        )
        text = spoken(
            text,
            say(
                "reproduction.chapters_part",
                "one" if count == 1 else "many",
                records=records,
                minutes=float(paper["measured_part_seconds"]) / 60,
                how=how,
            ),
        )
    return text


def protocol_cost_line(full_run: Mapping[str, Any]) -> str:
    """What the replication adds to the paper's protocol, in core-hours and shares of the full mode
    (the benchmark's ``protocol_seconds``; Markdown; empty without it).

    >>> print(protocol_cost_line({"protocol_seconds": {"the paper's protocol": 3600.0, "the sound twins": 7200.0,
    ...     "more seeds": 3600.0, "more partitions": 0.0, "studies and the rest": 3600.0}}))
    Of the full mode's 5.0 core-hours, the paper's protocol takes 1.0 (20%); the replication adds 3.0 (60%): the sound twins 2.0, more seeds 1.0; the studies and the rest take 1.0 (20%).
    """
    parts = {k: float(v) / 3600 for k, v in (full_run.get("protocol_seconds") or {}).items()}
    total = sum(parts.values())
    if not total:
        return ""
    paper, rest = parts.pop("the paper's protocol", 0.0), parts.pop("studies and the rest", 0.0)
    added = sum(parts.values())
    return say(
        "reproduction.protocol_cost",
        total=total,
        paper=paper,
        paper_share=paper / total,
        added=added,
        added_share=added / total,
        additions=", ".join(f"{k} {v:.1f}" for k, v in parts.items() if round(v, 1)),
        rest=rest,
        rest_share=rest / total,
    )


def cpu_kind_line(cpu_kind: Mapping[str, Any]) -> str:
    """What another CPU kind does to the records (``cpu_kind.json``, ``benchmarks/bench_cpu_kind.py``), in
    words the numbers choose: how far the metrics move against their spread over training seeds, how far
    the paired differences the Q1 claims test move against theirs, and whether a verdict moved.

    >>> summary = {"metrics": {"cf_mse": {"cpu_abs_diff_mean": 0.0005, "cpu_abs_diff_max": 0.003, "seed_sd": 0.0046,
    ...                                   "fold_sd": 0.0137, "ratio_to_seed_sd": 0.11, "ratio_to_fold_sd": 0.04}},
    ...            "claims": {"Q1.2": {"ratio_to_paired_seed_sd": 0.36, "verdict_moved": False},
    ...                       "Q1.3": {"ratio_to_paired_seed_sd": 0.67, "verdict_moved": False}},
    ...            "configs": 15, "configs_identical": 1}
    >>> print(cpu_kind_line({"dataset": "compas", "kind": "avx2", "folds": [0, 1], "summary": summary,
    ...                      "native_capability": "AVX512"}))
    COMPAS's Table 1 LTN settings on folds 0–1, re-run with AVX2 kernels on this AVX512 machine: 1 of 15 records identical; the metrics move by 0.11 of their spread over training seeds (CF-MSE by 0.0005 on average), the differences the Q1 claims test by 0.36–0.67 of theirs, and no 5-fold verdict changes. That is comparable to a rerun with another seed: compare two machines' verdicts, not their digits.
    """
    summary = cpu_kind["summary"]
    folds = cpu_kind.get("folds") or []
    span = (
        say("reproduction.cpu_folds", "many", first=min(folds), last=max(folds))
        if len(folds) > 1
        else say("reproduction.cpu_folds", "one", fold=folds[0])
        if folds
        else say("reproduction.cpu_folds", "none")
    )
    metrics = summary["metrics"]
    seeds = [m["ratio_to_seed_sd"] for m in metrics.values() if m.get("ratio_to_seed_sd") is not None]
    cf = metrics.get("cf_mse") or next(iter(metrics.values()))
    spread = (
        say("reproduction.cpu_spread", "seeds", ratios=value_range(seeds, ".2f"))
        if seeds
        else say("reproduction.cpu_spread", "none")
    )
    claims = summary.get("claims") or {}
    ratios = [c["ratio_to_paired_seed_sd"] for c in claims.values() if c.get("ratio_to_paired_seed_sd") is not None]
    moved = [k for k, c in claims.items() if c.get("verdict_moved")]
    largest = max([*seeds, *ratios, 0.0])
    return say(
        "reproduction.cpu_kind",
        dataset=dataset_name(str(cpu_kind["dataset"])),
        span=span,
        kind=str(cpu_kind["kind"]).upper(),
        native=cpu_kind.get("native_capability", "other"),
        identical=summary["configs_identical"],
        configs=summary["configs"],
        spread=spread,
        cf_mse=cf["cpu_abs_diff_mean"],
        claims=say("reproduction.cpu_claims", ratios=value_range(ratios, ".2f")) if ratios else "",
        verdicts=say("reproduction.cpu_verdicts", "moved", claims=", ".join(moved))
        if moved
        else say("reproduction.cpu_verdicts", "none"),
        close=say("reproduction.cpu_close", "cpu" if largest < 0.5 and not moved else "seed"),
    )


def reproduction_facts(
    provenance: Mapping[str, Any] | None, benchmarks: Mapping[str, Mapping[str, Any]]
) -> dict[str, Any]:
    """The numbers the Reproducing page quotes, by name (for ``glue``).

    ``run_*``: the committed run's provenance; ``ltn_*``: ``ltn.json``; ``full_*`` and
    ``quick_*``: ``full_run.json``; ``clone_*``: ``fresh_clone.json`` (``clone_quick_minutes``,
    ``clone_test_load``, … per step). A missing input leaves its names out, so a page that
    quotes them fails to build rather than showing a stale number.
    """
    facts: dict[str, Any] = {}
    if provenance is not None:
        facts.update(
            run_commit=str(provenance.get("commit") or "")[:10],
            run_cpus=int(provenance["machine"]["cpus"]),
            run_finished=str(provenance.get("finished", "")),
        )
    ltn = benchmarks.get("ltn")
    if ltn is not None:
        facts.update(
            ltn_rows=f"{int(ltn['rows']):,}",
            ltn_features=int(ltn["features"]),
            ltn_ratio_acc=float(ltn["ratio_acc_to_bound"]),
            ltn_ratio_acc_cf=float(ltn["ratio_acc_cf_to_bound"]),
            ltn_target_ratio=float(ltn["target_ratio"]),
        )
    run = benchmarks.get("full_run")
    if run is not None:
        measured = run.get("wall_seconds") is not None
        wall = float(run["wall_seconds"] if measured else run["projected_seconds"])
        facts.update(
            full_commit=str(run.get("commit") or "")[:10],
            full_records=int(run["records"]),
            full_records_wanted=int(run["records_wanted"]),
            full_minutes=wall / 60,
            full_hours=wall / 3600,
            full_wall_kind=_wall_kind(run, measured),
            full_parts=parts_sentence(run),
            full_cpus=int(run["machine"]["cpus"]),
            full_verdict="within" if run["target_met"] else "over",
            full_target_hours=float(run["target_seconds"]) / 3600,
            full_core_hours=float(run["core_seconds_total"]) / 3600,
        )
        graph = run.get("task_graph")
        if graph:
            facts.update(
                full_tasks=int(graph["tasks"]),
                full_critical_task=str(graph["critical_path"]["task"]),
                full_critical_minutes=float(graph["critical_path"]["seconds"]) / 60,
            )
        if run.get("parallel_efficiency"):
            facts.update(
                full_efficiency=float(run["parallel_efficiency"]["efficiency"]),
                full_efficiency_scope=efficiency_scope(run["parallel_efficiency"]),
            )
        local = run.get("local_workers")
        if local and "speedup_2_over_1" in local:
            facts.update(
                local_grid=str(local["grid"]),
                local_records=int(local["records"]),
                local_1=float(local["wall_seconds"]["1"]),
                local_2=float(local["wall_seconds"]["2"]),
                local_speedup=float(local["speedup_2_over_1"]),
            )
        if "quick" in run:
            facts.update(
                quick_minutes=float(run["quick"]["wall_seconds"]) / 60,
                quick_target_minutes=float(run["quick"]["target_seconds"]) / 60,
            )
    cpu_kind = benchmarks.get("cpu_kind")
    if cpu_kind is not None:
        facts["cpu_kind"] = cpu_kind_line(cpu_kind)
    clone = benchmarks.get("fresh_clone")
    if clone is not None:
        facts.update(clone_commit=str(clone.get("commit") or "")[:10], clone_finished=str(clone.get("finished", "")))
        for step in clone["steps"]:
            facts[f"clone_{step['step']}_minutes"] = float(step["seconds"]) / 60
            facts[f"clone_{step['step']}_load"] = float(step["load_before"][0])
    return facts
