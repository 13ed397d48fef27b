"""``benchmarks/bench_cpu_kind.py``'s arithmetic on hand-made records with a known answer: the comparison of two
records (and its refusal when they differ in more than the CPU), the seed, fold and paired spreads (unavailable,
not an error, while seeds are missing), the ratios of the summary, and the refusal of stale references. The
benchmark's run itself (minutes of training on another kind of kernels) is not run here."""

from __future__ import annotations

import importlib.util
import math
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from cffair.errors import DataError
from cffair.experiments import ExperimentConfig, ResultsStore

BENCH = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_cpu_kind.py"


@pytest.fixture(scope="module")
def bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_cpu_kind", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _record(
    setting: str, fold: int, metrics: dict[str, float], *, code: str = "1", pretrained: str = "p0"
) -> dict[str, Any]:
    """A record as the store holds it, with only what the comparison reads."""
    producer = {"code": {"cffair.causal._flow": "f"}, "data": "d", "config": {"seed": 0}, "packages": {"torch": "2"}}
    return {
        "config": ExperimentConfig("compas", fold, setting).to_dict(),
        "fingerprint": {
            "code": {"cffair.learners._training": code},
            "data": "d",
            "config": {"setting": setting, "fold": fold},
            "packages": {"torch": "2"},
            "inputs": {
                "counterfactuals": {"content": "twins", "producer": producer},
                "pretrained": {"content": pretrained, "producer": {**producer, "config": {"fold": fold}}},
            },
        },
        "metrics": metrics,
    }


def test_compare_gives_each_metrics_absolute_and_relative_difference_and_the_inputs_that_changed(bench) -> None:
    ref = _record("ltn_acc_cf", 0, {"accuracy": 0.70, "cf_mse": 0.020, "cf_flip_rate": 0.0})
    other = _record("ltn_acc_cf", 0, {"accuracy": 0.69, "cf_mse": 0.025, "cf_flip_rate": 0.0}, pretrained="p1")
    row = bench.compare(ref, other)
    assert row["key"] == "full/compas/ltn_acc_cf/fold0"
    assert row["metrics"]["accuracy"]["abs_diff"] == pytest.approx(0.01)
    assert row["metrics"]["accuracy"]["rel_diff"] == pytest.approx(0.01 / 0.70)
    assert row["metrics"]["cf_mse"]["abs_diff"] == pytest.approx(0.005)
    assert row["metrics"]["cf_mse"]["rel_diff"] == pytest.approx(0.25)
    assert row["metrics"]["cf_flip_rate"] == {"reference": 0.0, "other": 0.0, "abs_diff": 0.0, "rel_diff": 0.0}
    # metrics neither record has are left out, not reported as a difference
    assert "cf_mse_worst_subgroup" not in row["metrics"] and not row["identical"]
    # the twins' content is equal, the pre-trained model's is what the other CPU changed
    assert row["inputs_equal"] == {"counterfactuals": True, "pretrained": False}
    assert bench.compare(ref, ref)["identical"]


def test_compare_refuses_records_that_differ_in_more_than_the_cpu(bench) -> None:
    ref = _record("ltn_acc_cf", 0, {"accuracy": 0.70})
    with pytest.raises(DataError, match=r"differ in more than the CPU \(code of cffair.learners._training changed"):
        bench.compare(ref, _record("ltn_acc_cf", 0, {"accuracy": 0.70}, code="2"))
    other_stage = _record("ltn_acc_cf", 0, {"accuracy": 0.70})
    other_stage["fingerprint"]["inputs"]["counterfactuals"]["producer"]["config"] = {"seed": 1}
    with pytest.raises(DataError, match="input counterfactuals was made by a changed stage"):
        bench.compare(ref, other_stage)
    with pytest.raises(DataError, match="two configs"):
        bench.compare(ref, _record("ltn_acc_cf", 1, {"accuracy": 0.70}))


def test_the_seed_sd_averages_the_folds_with_every_seed_and_is_unavailable_without_them(bench) -> None:
    assert bench.sample_sd([1.0, 2.0, 3.0]) == pytest.approx(1.0) and bench.sample_sd([5.0]) is None
    values = {("s", 0, seed): {"m": v} for seed, v in enumerate([1.0, 2.0, 3.0])}  # sd 1
    values |= {("s", 1, seed): {"m": v} for seed, v in enumerate([2.0, 4.0, 6.0])}  # sd 2
    values |= {("s", 2, 0): {"m": 9.0}, ("s", 2, 1): {"m": 0.0}}  # seed 2 missing: left out
    assert bench.seed_sd(values, "s", "m", [0, 1, 2], [0, 1, 2]) == {"sd": pytest.approx(1.5), "folds": 2}
    seed0 = {k: v for k, v in values.items() if k[2] == 0}
    assert bench.seed_sd(seed0, "s", "m", [0, 1, 2], [0, 1, 2]) == {"sd": None, "folds": 0}
    # the fold sd: seed 0's values over the folds (1, 2, 9)
    assert bench.fold_sd(values, "s", "m", [0, 1, 2]) == {"sd": pytest.approx(math.sqrt(19.0)), "folds": 3}


def test_the_paired_spread_is_the_spread_of_the_differences_the_claim_tests(bench) -> None:
    a = {0: [0.5, 0.6, 0.7], 1: [0.4, 0.4, 0.4]}
    b = {0: [0.1, 0.1, 0.1], 1: [0.2, 0.3, 0.4]}
    values = {("a", f, s): {"m": v} for f, vs in a.items() for s, v in enumerate(vs)}
    values |= {("b", f, s): {"m": v} for f, vs in b.items() for s, v in enumerate(vs)}
    spread = bench.paired_spread(values, "a", "b", "m", [0, 1], [0, 1, 2])
    # seed 0's differences are 0.4 and 0.2; within fold 0 the differences are 0.4, 0.5, 0.6 (sd 0.1), within
    # fold 1 they are 0.2, 0.1, 0.0 (sd 0.1)
    assert spread["mean"] == pytest.approx(0.3) and spread["fold_sd"] == pytest.approx(math.sqrt(0.02))
    assert spread["folds"] == 2 and spread["seed_sd"] == pytest.approx(0.1) and spread["seed_sd_folds"] == 2


def _summary(bench: ModuleType, seeds: int) -> dict[str, Any]:
    """Two settings on folds 0 and 1: the other kind moves every cf_mse of ltn_acc_cf up by 0.002 and
    leaves ltn_acc's alone; the seeds of the reference spread cf_mse by an sd of 0.01 in every fold."""
    ref = {("ltn_acc", f, s): {"cf_mse": 0.10 + 0.01 * s + 0.02 * f} for f in range(5) for s in range(seeds)}
    ref |= {("ltn_acc_cf", f, s): {"cf_mse": 0.03 + 0.01 * s + 0.01 * f} for f in range(5) for s in range(seeds)}
    rows, other = [], {}
    for s in ("ltn_acc", "ltn_acc_cf"):
        for f in (0, 1):
            moved = ref[(s, f, 0)]["cf_mse"] + (0.002 if s == "ltn_acc_cf" else 0.0)
            rows.append(bench.compare(_record(s, f, ref[(s, f, 0)]), _record(s, f, {"cf_mse": moved})))
            other[rows[-1]["key"]] = {"cf_mse": moved}
    return bench.summarise(
        rows,
        ref,
        other,
        dataset="compas",
        settings=["ltn_acc", "ltn_acc_cf"],
        folds=[0, 1],
        spread_folds=list(range(5)),
        seeds={"ltn_acc": [0, 1, 2], "ltn_acc_cf": [0, 1, 2]},
    )


def test_the_summary_divides_the_cpu_kinds_effect_by_the_seed_and_fold_spread(bench) -> None:
    out = _summary(bench, seeds=3)
    cf = out["metrics"]["cf_mse"]
    assert cf["configs"] == 4 and cf["cpu_abs_diff_mean"] == pytest.approx(0.001)
    assert cf["cpu_abs_diff_max"] == pytest.approx(0.002)
    assert cf["seed_sd"] == pytest.approx(0.01) and cf["ratio_to_seed_sd"] == pytest.approx(0.1)
    assert cf["max_ratio_to_seed_sd"] == pytest.approx(0.2)
    fold_sd = {"ltn_acc": 0.02 * math.sqrt(2.5), "ltn_acc_cf": 0.01 * math.sqrt(2.5)}  # sd of 0, 1, 2, 3, 4 is √2.5
    assert cf["by_setting"]["ltn_acc"]["fold_sd"] == pytest.approx(fold_sd["ltn_acc"])
    assert cf["fold_sd"] == pytest.approx(sum(fold_sd.values()) / 2)
    assert cf["by_setting"]["ltn_acc_cf"]["ratio_to_seed_sd"] == pytest.approx(0.2)
    assert out["configs"] == 4 and out["configs_identical"] == 2  # ltn_acc's two folds are unchanged
    # Q1.1 (ltn_acc_cf − ltn_acc on cf_mse): the other kind moves each fold's difference by 0.002; the
    # reference's differences are −0.07 − 0.01 f (fold sd 0.01 √2.5), with no spread over seeds
    q11 = out["claims"]["Q1.1"]
    assert q11["cpu_effect_mean"] == pytest.approx(0.002) and q11["folds"] == [0, 1]
    assert q11["reference_spread"]["fold_sd"] == pytest.approx(0.01 * math.sqrt(2.5))
    assert q11["ratio_to_paired_fold_sd"] == pytest.approx(0.002 / (0.01 * math.sqrt(2.5)))
    assert q11["reference_spread"]["seed_sd"] == pytest.approx(0.0, abs=1e-12)
    assert q11["reference"]["mean_diff"] == pytest.approx(-0.075) and q11["other"]["mean_diff"] == pytest.approx(-0.073)
    assert q11["verdict_moved"] is False
    assert set(out["claims"]) == {"Q1.1"}  # Q1.2–Q1.4 need ltn_acc_cf_sg


def test_the_summary_reports_the_seed_spread_unavailable_while_seeds_are_missing(bench) -> None:
    cf = _summary(bench, seeds=1)["metrics"]["cf_mse"]
    assert cf["seed_sd"] is None and cf["ratio_to_seed_sd"] is None and cf["max_ratio_to_seed_sd"] is None
    assert cf["ratio_to_fold_sd"] == pytest.approx(0.001 / cf["fold_sd"])  # the fold spread is there


def test_references_that_todays_code_would_not_make_are_refused_before_anything_runs(bench, tmp_path) -> None:
    store = ResultsStore(tmp_path / "full", create=False)
    with pytest.raises(DataError, match=r"full/compas/ltn_acc/fold0 \(missing\).*--reference"):
        bench.fresh_references(store, bench.configs("compas", ["ltn_acc"], [0, 1]))
