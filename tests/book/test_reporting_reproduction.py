"""cffair_book.reproduction: the Reproducing page's tables and quoted numbers."""

from __future__ import annotations

import json

import pytest

import cffair_book as book
from cffair.errors import DataError

PROVENANCE = {
    "commit": "0123456789abcdef",
    "dirty": False,
    "finished": "2026-01-01T00:00:00Z",
    "machine": {"cpus": 2},
    "stage_seconds": {"counterfactuals": 30.0, "experiments": 7200.0, "notebooks": 45.0},
}
FULL_RUN = {
    "commit": "fedcba9876543210",
    "records": 260,
    "records_wanted": 264,
    "wall_seconds": 7260.0,
    "target_seconds": 7200,
    "target_met": False,
    "machine": {"cpus": 2},
    "core_seconds_total": 14400.0,
    "core_seconds": {"adult": {"GAN": 10.4, "LTN": 5.0}, "compas": {"GAN": 1.0, "LTN": 0.6}},
    "quick": {"wall_seconds": 90.0, "target_seconds": 600},
}
LTN = {
    "rows": 36000,
    "features": 101,
    "ratio_acc_to_bound": 1.01,
    "ratio_acc_cf_to_bound": 1.11,
    "target_ratio": 1.5,
    "seconds_per_epoch": {"acc": 0.115, "acc_cf": 0.305},
}


def test_load_provenance_and_benchmarks(tmp_path):
    assert book.load_provenance(tmp_path) is None
    (tmp_path / "provenance.json").write_text(json.dumps(PROVENANCE))
    assert book.load_provenance(tmp_path) == PROVENANCE
    (tmp_path / "ltn.json").write_text(json.dumps(LTN))
    (tmp_path / "full_run.json").write_text(json.dumps(FULL_RUN))
    assert set(book.load_benchmarks(tmp_path)) == {"ltn", "full_run", "provenance"}
    (tmp_path / "broken.json").write_text('{"a": 1,\n "b": }')
    with pytest.raises(DataError, match=r"broken\.json is not valid JSON \(line 2, column 7\)"):
        book.load_benchmarks(tmp_path)


def test_stage_seconds_frame_in_minutes():
    frame = book.stage_seconds_frame(PROVENANCE)
    assert frame.loc["experiments"].tolist() == [7200.0, 120.0]
    assert frame.loc["notebooks", "minutes"] == 0.8  # 45 s, one decimal


def test_provenance_notes_only_when_there_is_something_to_say():
    assert book.provenance_notes(PROVENANCE) == ""
    dirty = book.provenance_notes({**PROVENANCE, "dirty": True})
    assert dirty.startswith("The provenance says *dirty*")
    partial = book.provenance_notes(
        {**PROVENANCE, "complete": False, "note": "Stopped at 2 h.", "records_per_fold": {"0": 55, "1": 33}}
    )
    assert "**The committed run is incomplete.** Stopped at 2 h." in partial and "fold 0: 55, fold 1: 33" in partial


def test_core_seconds_frame_adds_totals():
    cs = book.core_seconds_frame(FULL_RUN)
    assert cs.loc["adult"].tolist() == [10, 5, 15]  # 10.4 rounds to 10; total 15.4 → 15
    assert cs.loc["total"].tolist() == [11, 6, 17]  # 11.4, 5.6, 17.0
    assert list(cs.columns) == ["GAN", "LTN", "total"]


def test_flow_ltn_and_baseline_frames():
    cf = {
        "datasets": {
            "adult": {
                "fit_seconds": 64.9,
                "config": {"x": 1},
                "immutable_interventions": [1, 2],
                "husband_sex_flip": {"flow": {"Wife": 0.9, "Husband": 0.1}, "women": {"Wife": 0.5}},
            },
            "compas_age": {"same_as": "compas"},
        }
    }
    flows = book.flow_benchmark_frame(cf)
    assert flows.loc["adult", "fit_seconds"] == 64.9 and "config" not in flows.columns
    assert flows.loc["compas_age", "same_as"] == "compas"
    flip = book.husband_flip_frame(cf)
    assert flip.loc["Husband", "women"] == 0 and flip.loc["Wife", "flow"] == 0.9
    assert book.husband_flip_frame({"datasets": {}}).empty
    assert book.ltn_seconds_frame(LTN)["seconds per epoch"].tolist() == [0.115, 0.305]
    base = {
        "totals": {
            "gan": {"s_per_fold": {"adult": 100.4, "compas": 9.6}},
            "dcevae": {"s_per_fold": {"adult": 50.0, "compas": 5.0}},
        }
    }
    frame = book.baseline_seconds_frame(base)
    assert frame.loc["gan"].tolist() == [100.0, 10.0] and list(frame.index) == ["gan", "dcevae"]


def test_gan_mmd_frame_in_milliseconds_by_batch_size():
    bench = {
        "batches": {
            "2048": {"seconds": {"autograd": 0.115, "cffair": 0.033}, "speedup": 3.48, "max_abs_diff_grad": 2e-9},
            "512": {"seconds": {"autograd": 0.004, "cffair": 0.002}, "speedup": 2.0, "max_abs_diff_grad": 1e-9},
        }
    }
    frame = book.gan_mmd_frame(bench)
    assert list(frame.index) == [512, 2048]  # numeric order, not the JSON's string order
    assert frame.loc[2048, "autograd (ms)"] == pytest.approx(115.0) and frame.loc[2048, "cffair (ms)"] == pytest.approx(
        33.0
    )
    assert frame.loc[512, "speed-up"] == 2.0
    with pytest.raises(DataError, match="bench_gan_mmd.py"):
        book.gan_mmd_frame({})


def test_reproduction_facts():
    facts = book.reproduction_facts(PROVENANCE, {"ltn": LTN, "full_run": FULL_RUN})
    assert facts["run_commit"] == "0123456789" and facts["run_cpus"] == 2
    assert facts["ltn_rows"] == "36,000" and facts["ltn_ratio_acc_cf"] == 1.11
    assert facts["full_minutes"] == pytest.approx(121.0) and facts["full_verdict"] == "over"
    assert facts["full_target_hours"] == 2.0 and facts["full_core_hours"] == 4.0
    assert facts["quick_minutes"] == 1.5 and facts["quick_target_minutes"] == 10.0
    # a missing input leaves its facts out (a page quoting them then fails to build)
    assert book.reproduction_facts(None, {}) == {}


def test_a_resumed_run_says_so_and_its_whole_run_is_projected():
    resumed = {**PROVENANCE, "records_computed": 45, "records_in_grid": 368}
    note = book.provenance_notes(resumed)
    assert "**This run resumed a regeneration:** it computed 45 of the grid's 368 records" in note
    assert book.provenance_notes({**PROVENANCE, "records_computed": 368, "records_in_grid": 368}) == ""
    projected = {
        **FULL_RUN,
        "wall_seconds": None,
        "projected_seconds": 9000.0,
        "task_graph": {
            "tasks": 3,
            "critical_path": {"task": "adult/fold0/ltn+gan", "seconds": 600.0},
            "makespan_seconds": {"1": 1500.0, "2": 900.0, "4": 600.0},
            "lower_bound_seconds": {"1": 1500.0, "2": 750.0, "4": 600.0},
        },
    }
    facts = book.reproduction_facts(PROVENANCE, {"full_run": projected})
    assert facts["full_minutes"] == 150.0 and facts["full_wall_kind"].startswith("projected")
    assert facts["full_critical_task"] == "adult/fold0/ltn+gan" and facts["full_critical_minutes"] == 10.0
    assert book.reproduction_facts(PROVENANCE, {"full_run": FULL_RUN})["full_wall_kind"] == "measured"
    scaling = book.scaling_frame(projected)
    assert list(scaling.index) == [1, 2, 4]
    assert scaling.loc[2].tolist() == pytest.approx([0.25, 750 / 3600])
    with pytest.raises(DataError, match="no task graph"):
        book.scaling_frame(FULL_RUN)


def _bench_full_run():
    import importlib.util

    from cffair._support.utils import project_root

    spec = importlib.util.spec_from_file_location("bench_full_run", project_root() / "benchmarks" / "bench_full_run.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("computed", [3, None])
def test_bench_full_run_claims_a_wall_time_only_for_a_whole_run(tmp_path, computed):
    import shutil

    from cffair._support.utils import project_root

    bench = _bench_full_run()
    assert [bench.part_of(s) for s in ("pcf", "beyond", "ltn_acc_cf_cke", "gan")] == [
        "unaware / level 3 / PCF",
        "beyond the paper",
        "LTN CKE",
        "GAN",
    ]
    src = project_root() / "results" / "full" / "records"
    (tmp_path / "full" / "records").mkdir(parents=True)
    # six records of the paper's own protocol (first partition, seed 0, its twins), so that its part is not empty
    plain = [
        p
        for p in sorted(src.glob("full__compas__*__fold0.json"))
        if not any(t in p.name for t in ("(", "__rep", "__seed"))
    ]
    for path in plain[:6]:
        shutil.copy(path, tmp_path / "full" / "records" / path.name)
    prov = {
        "commit": "abc",
        "machine": {"cpus": 2},
        "stage_seconds": {"counterfactuals": 10.0, "experiments": 50.0, "notebooks": 5.0},
    }
    if computed is not None:  # a resume; without the fields, an older provenance of a whole run
        prov.update(records_computed=computed, records_in_grid=368)
    (tmp_path / "full" / "provenance.json").write_text(json.dumps(prov))
    out = bench.summarise(tmp_path, tmp_path / "no_quick.json")
    graph = out["task_graph"]
    assert out["records"] == 6 and graph["core_seconds"] > 0
    # every record's seconds land in exactly one group (pre-training once per fold): the groups add up to the task graph
    assert sum(out["group_seconds"].values()) == pytest.approx(graph["core_seconds"], abs=0.5)
    assert out["projected_seconds"] == pytest.approx(graph["makespan_seconds"]["2"] + 15.0, abs=0.1)
    if computed is None:
        assert out["wall_seconds"] == 65.0 and out["parallel_efficiency"]["experiments_wall_seconds"] == 50.0
    else:
        assert out["wall_seconds"] is None and "parallel_efficiency" not in out
    assert 0 < out["paper_protocol"]["records"] <= out["records"] and out["paper_protocol"]["projected_seconds"] > 0
    assert out["paper_protocol"]["target_seconds"] == 3600 and out["target_seconds"] == 4 * 3600
    # the table per dataset and part counts a shared pre-training once, as the task graph does
    assert out["core_seconds_total"] == pytest.approx(graph["core_seconds"], abs=0.5)
    # the protocol's parts split the same seconds as the groups (pre-training once per task)
    assert sum(out["protocol_seconds"].values()) == pytest.approx(sum(out["group_seconds"].values()), abs=0.5)


def test_bench_full_run_tells_the_papers_protocol_from_what_the_replication_adds():
    from cffair.experiments import ExperimentConfig

    bench = _bench_full_run()
    base = ExperimentConfig("compas", 0, "ltn_acc_cf", profile="full")
    paper = {base.key}
    variants = {
        "the paper's protocol": base,
        "the sound twins": ExperimentConfig("compas", 0, "ltn_acc_cf", profile="full", options=(("twins", "default"),)),
        "more seeds": ExperimentConfig("compas", 0, "ltn_acc_cf", profile="full", seed=2, repeat=1),
        "more partitions": ExperimentConfig("compas", 0, "ltn_acc_cf", profile="full", repeat=1),
    }
    keys = paper | {c.key for c in variants.values()}
    assert {k: bench.kind_of(c, keys) for k, c in variants.items()} == {k: k for k in variants}
    assert bench.kind_of(variants["more seeds"], paper) == "studies and the rest"  # not in the paper's chapters
    assert [bench.paper_protocol(c) for c in variants.values()] == [True, False, False, False]
    # the committed grid: the paper's protocol is one partition, one seed, the paper's twins
    grid = [c for c in bench.paper_grid("full", only=list(bench.paper_groups())) if bench.paper_protocol(c)]
    assert grid and {(c.repeat, c.seed, dict(c.options).get("twins")) for c in grid} == {(0, 0, None)}


def test_bench_full_run_sums_the_parts_of_a_regeneration_that_covered_the_grid() -> None:
    bench = _bench_full_run()
    paper = list(bench.paper_groups())
    parts = [
        {"groups": [*paper, "q2_why"], "wall_s": 6000.0, "records_computed": 474, "records_in_grid": 474},
        {"groups": ["appendix_c", "beyond"], "wall_s": 5000.0, "records_computed": 168, "records_in_grid": 168},
    ]
    out = bench.regeneration_parts({"parts": parts}, 642)
    assert out["count"] == 2 and out["wall_seconds"] == 11000.0 and out["whole"]
    assert out["paper_part"] == {
        "groups": [*paper, "q2_why"],
        "wall_seconds": 6000.0,
        "records": 474,
        "parts": 1,
        "interrupted": 0,
    }
    assert not bench.regeneration_parts({"parts": parts[:1]}, 642)["whole"]  # part 2 still to run
    killed = {**parts[0], "records_computed": 100, "wall_s": 2000.0, "interrupted": True}
    assert bench.regeneration_parts({"parts": [killed]}, 474)["paper_part"] is None  # 100 of its 474 records
    resumed = bench.regeneration_parts({"parts": [killed, {**parts[0], "records_computed": 374}, parts[1]]}, 642)
    assert resumed["paper_part"]["wall_seconds"] == 8000.0 and resumed["paper_part"]["records"] == 474
    assert resumed["paper_part"]["parts"] == 2 and resumed["interrupted"] == 1 and resumed["whole"]


def test_group_seconds_frame_ranks_the_studies_by_cost():
    frame = book.group_seconds_frame({"group_seconds": {"q1": 100.0, "q2": 300.0, "q2_why": 100.0}})
    assert frame["--only"].iloc[0] == "q2" and set(frame["--only"]) == {"q1", "q2", "q2_why"}
    assert frame.index[0] == "Q2: baselines" and "Q2: baselines — why claims fail" in frame.index
    assert frame["share"].iloc[0] == pytest.approx(0.6) and frame["share"].sum() == pytest.approx(1.0)
    with pytest.raises(DataError, match="no group_seconds"):
        book.group_seconds_frame(FULL_RUN)


def _clone_run() -> dict:
    steps = [
        {"step": "book", "command": "make book", "seconds": 156.0, "exit": 0, "load_before": [0.2, 0.1],
         "load_after": [1.8, 1.0]},
        {"step": "quick", "command": "make reproduce MODE=quick JOBS=2", "seconds": 294.0, "exit": 0,
         "load_before": [1.8, 1.0], "load_after": [2.1, 1.9]},
        {"step": "test", "command": "make test", "seconds": 1500.0, "exit": 2, "load_before": [2.1, 1.9],
         "load_after": [2.0, 2.0]},
    ]  # fmt: skip
    return {"commit": "0123456789abcdef", "finished": "2026-12-03T14:00:00Z", "machine": {"cpus": 2}, "steps": steps}


def test_command_times_say_minutes_pass_or_fail_and_the_load() -> None:
    frame = book.command_times_frame(_clone_run())
    assert frame["minutes"].tolist() == [2.6, 4.9, 25.0]
    assert frame["passed"].tolist() == ["yes", "yes", "no (exit 2)"]
    assert frame["load"].tolist() == ["0.2 → 1.8", "1.8 → 2.1", "2.1 → 2.0"]
    assert frame["step"].iloc[1] == book.STEP_NAMES["quick"]


def test_reproduction_facts_quote_the_fresh_clone_only_when_it_was_timed() -> None:
    facts = book.reproduction_facts(None, {"fresh_clone": _clone_run()})
    assert facts["clone_quick_minutes"] == pytest.approx(4.9) and facts["clone_test_load"] == 2.1
    assert facts["clone_commit"] == "0123456789"
    assert not any(k.startswith("clone_") for k in book.reproduction_facts(None, {}))


@pytest.mark.parametrize(
    ("records", "seconds", "words"),
    [(216, 5789.0, "within its target"), (216, 7300.0, "over its target"), (200, 5000.0, "not yet comparable with")],
)
def test_the_paper_protocol_line_follows_its_numbers(records, seconds, words) -> None:
    run = {
        "machine": {"cpus": 2},
        "paper_protocol": {
            "records": records,
            "records_wanted": 216,
            "projected_seconds": seconds,
            "measured_part_seconds": None,
            "target_seconds": 7200,
        },
    }
    line = book.paper_protocol_line(run)
    assert words in line and "measured" not in line  # no part ran the paper's chapters whole
    assert book.paper_protocol_line({"machine": {"cpus": 2}}) == ""


def test_parts_efficiency_on_the_committed_run_counts_each_record_once_and_flags_recomputed_work() -> None:
    """Each list of groups run together owns the records no earlier list's grid holds: together they are
    the whole grid; a list whose parts computed more records than it owns is a lower bound (not exact)."""
    from cffair._support.utils import project_root
    from cffair.experiments import ResultsStore, paper_grid

    bench = _bench_full_run()
    full = project_root() / "results" / "full"
    prov = json.loads((full / "provenance.json").read_text())
    if len(prov.get("parts") or []) < 2:
        pytest.skip("the committed run is not in parts")
    records = list(ResultsStore(full, create=False).records())
    if len(records) < len({c.key for c in paper_grid("full")}):
        pytest.skip("the committed run predates today's grid (the pre-registered protocol's; issue 46 regenerates it)")
    lists = bench.parts_efficiency(prov["parts"], records, 2)
    assert sum(e["records"] for e in lists) == len({c.key for c in paper_grid("full")})
    for e in lists:
        computed = sum(int(p["records_computed"]) for p in prov["parts"] if p.get("groups") == e["groups"])
        assert e["exact"] == (computed == e["records"])
        assert 0 < e["efficiency"] <= 1.05 or not e["exact"]


def test_the_last_part_of_a_regeneration_says_so_and_sums_the_parts():
    parts = [{"wall_s": 5400.0}, {"wall_s": 1800.0}, {"wall_s": 1800.0}]
    note = book.provenance_notes({**PROVENANCE, "records_computed": 98, "records_in_grid": 288, "parts": parts})
    assert "**This run is the last of 3 invocations of one regeneration**" in note
    assert "computed 98 of its 288 records" in note and "sum to 2.5 h" in note and "resumed" not in note


def _cpu_kind(metric_ratio: float, claim_ratio: float, moved: bool) -> dict:
    metrics = {"cf_mse": {"cpu_abs_diff_mean": 0.001, "cpu_abs_diff_max": 0.002, "seed_sd": 0.01, "fold_sd": 0.02,
                          "ratio_to_seed_sd": metric_ratio, "ratio_to_fold_sd": metric_ratio / 2}}  # fmt: skip
    claims = {"Q1.1": {"ratio_to_paired_seed_sd": claim_ratio, "verdict_moved": moved}}
    summary = {"metrics": metrics, "claims": claims, "configs": 6, "configs_identical": 0}
    return {"dataset": "compas", "kind": "avx2", "folds": [0, 1, 2], "native_capability": "AVX512", "summary": summary}


@pytest.mark.parametrize(
    ("metric_ratio", "claim_ratio", "moved", "ending"),
    [
        (0.1, 0.3, False, "A difference of that size between two machines' records is the CPU's"),
        (0.1, 0.7, False, "That is comparable to a rerun with another seed: compare two machines' verdicts"),
        (0.1, 0.3, True, "That is comparable to a rerun with another seed: compare two machines' verdicts"),
    ],
)
def test_the_cpu_kind_line_is_worded_by_the_largest_ratio_and_the_verdicts(metric_ratio, claim_ratio, moved, ending):
    from cffair_book.reproduction import cpu_kind_line, reproduction_facts

    text = cpu_kind_line(_cpu_kind(metric_ratio, claim_ratio, moved))
    assert text.startswith("COMPAS's Table 1 LTN settings on folds 0–2, re-run with AVX2 kernels")
    assert f"the metrics move by {metric_ratio:.2f} of their spread over training seeds" in text
    assert f"the differences the Q1 claims test by {claim_ratio:.2f} of theirs," in text  # one claim: no range of one
    assert ending in text
    assert ("the 5-fold verdict of Q1.1 changes" in text) == moved
    assert reproduction_facts(None, {"cpu_kind": _cpu_kind(0.1, 0.3, False)})["cpu_kind"] == cpu_kind_line(
        _cpu_kind(0.1, 0.3, False)
    )
