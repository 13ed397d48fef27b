"""How far a CPU of another kind moves the records: one dataset's LTN records re-run with another
instruction set's kernels, beside the seed spread and the fold spread of the same records.

The same code on the same inputs gives the same numbers on one kind of CPU and may differ in the last
digits on another (:func:`cffair.experiments.make_record`); training can amplify such digits. This
measures how much, on the records the claims compare:

* **the other kind**: the configs of Table 1's LTN settings (``ltn_acc``, ``ltn_acc_cf``,
  ``ltn_acc_cf_sg``; the paper's twins, repetition 0, seed 0) of one dataset and its folds, built into
  tasks (:func:`cffair.experiments._tasks.task_graph`) and run one after another
  (:func:`cffair.experiments._pipeline.run_task`) in a subprocess whose kernels are forced to another kind
  (:data:`KINDS`: PyTorch's ``ATEN_CPU_CAPABILITY``, as ``make test-portable`` does, and the same cap for
  MKL, oneDNN, OpenBLAS and NumPy's own dispatch), with one thread each, into a fresh temporary store
  and a fresh cache: the flows, the twins and the rulers are fitted again there too, so the whole chain
  runs on the other kind. The subprocess is given nothing of the reference store; it reports the kernels
  it actually ran (:func:`effective_kernels`), and a run whose PyTorch did not take the forced kind is
  refused.
* **the control**: the same run on this CPU's own kernels (nothing forced): it must give the reference's
  numbers to the bit, or a difference of the other kind would not be the CPU's (``--no-control`` skips it).
* **the comparison** (:func:`compare`): per config, each metric of :data:`METRICS` there and in the
  reference store (``--reference``, default the checkout's ``results/full``): absolute and relative
  differences. The two records must have equal fingerprints apart from the *content* of their inputs
  (same code, data, config, packages, and inputs made by the same stages); the content of the twins and
  of the pre-trained model is exactly what another CPU may change, so it is reported, not required. A
  pair that differs otherwise is refused (:class:`~cffair.errors.DataError`), and so are references
  that today's code would not make (stale or missing) before anything runs.
* **the spread** (reference store only, fresh records only): the seed sd of each metric (the sd over the
  protocol's seeds within a fold, averaged over the folds that have every seed; unavailable, not an
  error, while seeds 1 and 2 are missing), the fold sd (the sd over folds of the seed-0 values), and for
  each paired difference that a Q1 claim tests (:data:`CLAIM_PAIRS`) the sd of that difference over
  folds and over seeds. The summary divides the CPU kind's effect by each: "another CPU moves a number
  by about X % of the seed spread". Each claim's 5-fold test (corrected resampled t-test of
  :func:`cffair.reporting.paired`, repetition 0 and seed 0 only: the book's verdicts pool
  3 repetitions of seed means) is run on both sets of numbers, to show whether the other kind moves it.

Writes ``benchmarks/results/cpu_kind.json`` atomically: this machine
(:func:`~cffair.experiments._store.machine`), the kind forced and the kernels it ran, the per-config table,
the spreads, the summary ratios, and the wall and CPU seconds of the run on the other kind.

Run: ``python benchmarks/bench_cpu_kind.py [--reference results/full] [--dataset compas]
[--settings ltn_acc ltn_acc_cf ltn_acc_cf_sg] [--folds 0 1 2 3 4] [--kind avx2] [--no-control]`` (90 s for
COMPAS folds 0-1 with the control, on two shared cores; most of it fits the three flows, once per run).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from cffair._support.utils import project_root, write_json_atomic
from cffair.errors import DataError
from cffair.experiments import ExperimentConfig, ResultsStore

RESULTS = Path(__file__).resolve().parent / "results" / "cpu_kind.json"
#: Table 1's LTN settings: the records the Q1 claims compare.
SETTINGS: tuple[str, ...] = ("ltn_acc", "ltn_acc_cf", "ltn_acc_cf_sg")
#: The metrics compared (``perf``: the dataset's performance metric, accuracy on COMPAS).
METRICS: tuple[str, ...] = ("perf", "cf_mse", "cf_mse_worst_subgroup", "cf_flip_rate", "calibrated_cf_mse")
#: The paired differences the Q1 claims test (``cffair_book/claims_q1.py``): claim, ``a``, ``b``, metric,
#: and whether the claim is "a is larger" (the performance metric: larger accuracy, smaller MSE).
CLAIM_PAIRS: tuple[tuple[str, str, str, str], ...] = (
    ("Q1.1", "ltn_acc_cf", "ltn_acc", "cf_mse"),
    ("Q1.2", "ltn_acc_cf_sg", "ltn_acc_cf", "cf_mse"),
    ("Q1.3", "ltn_acc_cf_sg", "ltn_acc_cf", "cf_mse_worst_subgroup"),
    ("Q1.4", "ltn_acc_cf_sg", "ltn_acc_cf", "perf"),
)
#: The environment that makes this CPU compute as a CPU of another kind: PyTorch's own kernels
#: (``ATEN_CPU_CAPABILITY``), MKL's and oneDNN's (PyTorch's matrix products), OpenBLAS's and NumPy's
#: dispatch (NumPy's and scikit-learn's numbers). ``avx2``: a server CPU without AVX-512; ``default``:
#: no vector kernels of PyTorch's own (no real CPU of today, a bound).
KINDS: Mapping[str, Mapping[str, str]] = {
    "avx2": {
        "ATEN_CPU_CAPABILITY": "avx2",
        "MKL_ENABLE_INSTRUCTIONS": "AVX2",
        "ONEDNN_MAX_CPU_ISA": "AVX2",
        "OPENBLAS_CORETYPE": "Haswell",
        "NPY_DISABLE_CPU_FEATURES": "X86_V4 AVX512_ICL AVX512_SPR",
    },
    "default": {
        "ATEN_CPU_CAPABILITY": "default",
        "MKL_ENABLE_INSTRUCTIONS": "SSE4_2",
        "ONEDNN_MAX_CPU_ISA": "SSE41",
        "OPENBLAS_CORETYPE": "Nehalem",
        "NPY_DISABLE_CPU_FEATURES": "X86_V3 X86_V4 AVX512_ICL AVX512_SPR",
    },
}
#: One thread per library, as a grid worker runs (loky's workers and :func:`cffair._support.utils.torch_cpu_setup`).
ONE_THREAD: Mapping[str, str] = {"OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1"}


# ============================================================================ configs and references
def metric_name(metric: str, dataset: str) -> str:
    """The record's metric for ``metric`` (``perf``: the dataset's performance metric)."""
    from cffair.reporting import performance_metric

    return performance_metric(dataset) if metric == "perf" else metric


def metric_names(dataset: str) -> list[str]:
    """:data:`METRICS` as ``dataset``'s records name them."""
    return [metric_name(m, dataset) for m in METRICS]


def configs(
    dataset: str, settings: Sequence[str], folds: Sequence[int], seed: int = 0, repeat: int = 0
) -> list[ExperimentConfig]:
    """The full profile's configs of ``settings`` on ``folds`` (the paper's twins: no option, no tag)."""
    return [ExperimentConfig(dataset, f, s, profile="full", seed=seed, repeat=repeat) for s in settings for f in folds]


def fresh_references(store: ResultsStore, cfgs: Sequence[ExperimentConfig]) -> dict[str, dict[str, Any]]:
    """The reference record of each config by key; every one must be fresh (what today's code makes).

    Raises:
        DataError: a record is missing, stale or corrupt: nothing is run against it.
    """
    from cffair.workflows._reproduce import check

    bad, out = [], {}
    for c in cfgs:
        state, reasons = check(store, c)
        if state != "fresh":
            bad.append(f"{c.key} ({state}{': ' + reasons[0] if reasons else ''})")
        else:
            out[c.key] = dict(store.get(c) or {})
    if bad:
        raise DataError(
            f"{len(bad)} reference record(s) in {store.root} are not what today's code makes: {'; '.join(bad[:4])}"
            f"{'; …' if len(bad) > 4 else ''}. Point --reference at a store a run of this checkout wrote "
            "(cffair reproduce --mode full), or pass --folds that it holds."
        )
    return out


def reference_values(
    store: ResultsStore, dataset: str, settings: Sequence[str], folds: Sequence[int], metrics: Sequence[str]
) -> tuple[dict[tuple[str, int, int], dict[str, float]], dict[str, int]]:
    """``{(setting, fold, seed): {metric: value}}`` of the fresh records of every protocol seed
    (:func:`cffair.experiments._protocol.protocol`), and how many records were fresh, stale (left out),
    missing or corrupt."""
    from cffair.experiments._protocol import protocol
    from cffair.workflows._reproduce import check

    values: dict[tuple[str, int, int], dict[str, float]] = {}
    counts = {"fresh": 0, "stale": 0, "missing": 0, "corrupt": 0}
    for s in settings:
        for seed in protocol().seeds_for(s, dataset):
            for c in configs(dataset, [s], folds, seed=seed):
                state, _ = check(store, c)
                counts[state] += 1
                if state == "fresh":
                    rec: Mapping[str, Any] = store.get(c) or {}
                    values[(s, c.fold, seed)] = metric_values(rec, metrics)
    return values, counts


def metric_values(record: Mapping[str, Any], metrics: Sequence[str]) -> dict[str, float]:
    """The finite numbers among a record's ``metrics`` (a metric a record lacks, or NaN, is left out)."""
    got = record.get("metrics", {})
    out = {}
    for m in metrics:
        v = got.get(m)
        if isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v):
            out[m] = float(v)
    return out


# ============================================================================ the comparison
def comparable(reference: Mapping[str, Any], other: Mapping[str, Any]) -> list[str]:
    """Why two records' fingerprints differ apart from their inputs' content; ``[]`` when they may be compared.

    The content of an input (the twins, the pre-trained model) is what another CPU may change; its
    producer (the code, data, settings that made it) must be the same.
    """
    from cffair.experiments import diff

    return diff(reference["fingerprint"], other["fingerprint"])


def compare(
    reference: Mapping[str, Any], other: Mapping[str, Any], metrics: Sequence[str] | None = None
) -> dict[str, Any]:
    """One config's row: each metric in ``reference`` and ``other`` (default :data:`METRICS` of the record's
    dataset), their absolute and relative difference (to the reference), and which inputs have equal content.

    Raises:
        DataError: the records are of different configs, or their fingerprints differ apart from their
            inputs' content (other code, data, config or packages): then their numbers measure that, not the CPU.
    """
    key_r = ExperimentConfig.from_dict(reference["config"]).key
    key_o = ExperimentConfig.from_dict(other["config"]).key
    if key_r != key_o:
        raise DataError(f"cannot compare the records of two configs ({key_r} and {key_o}); pair them by key.")
    reasons = comparable(reference, other)
    if reasons:
        raise DataError(
            f"the records of {key_r} differ in more than the CPU ({'; '.join(reasons[:3])}"
            f"{'; …' if len(reasons) > 3 else ''}): the comparison would measure that difference. Run this "
            "benchmark from the checkout, data and packages that made the reference records."
        )
    if metrics is None:
        metrics = metric_names(ExperimentConfig.from_dict(reference["config"]).dataset)
    ref, oth = metric_values(reference, metrics), metric_values(other, metrics)
    rows: dict[str, Any] = {}
    for m in metrics:
        if m not in ref or m not in oth:
            continue
        d = abs(oth[m] - ref[m])
        rows[m] = {
            "reference": ref[m],
            "other": oth[m],
            "abs_diff": d,
            "rel_diff": 0.0 if d == 0 else (d / abs(ref[m]) if ref[m] else None),
        }
    inputs_r = reference["fingerprint"].get("inputs", {})
    inputs_o = other["fingerprint"].get("inputs", {})
    return {
        "key": key_r,
        "metrics": rows,
        "identical": all(r["abs_diff"] == 0 for r in rows.values()),
        "inputs_equal": {n: inputs_r[n].get("content") == inputs_o[n].get("content") for n in sorted(inputs_r)},
    }


# ============================================================================ the spread
def sample_sd(values: Sequence[float]) -> float | None:
    """The sample standard deviation (n − 1); ``None`` for fewer than two values.

    >>> sample_sd([1.0, 2.0, 3.0]), sample_sd([4.0])
    (1.0, None)
    """
    n = len(values)
    if n < 2:
        return None
    mean = sum(values) / n
    return math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1))


def _mean(values: Sequence[float]) -> float | None:
    return sum(values) / len(values) if values else None


def seed_sd(
    values: Mapping[tuple[str, int, int], Mapping[str, float]],
    setting: str,
    metric: str,
    folds: Sequence[int],
    seeds: Sequence[int],
) -> dict[str, Any]:
    """The sd over ``seeds`` within a fold, averaged over the folds that have a value for every seed:
    ``{"sd": … or None, "folds": how many folds it averages}`` (``None`` while no fold has every seed)."""
    sds = []
    for f in folds:
        got = [values.get((setting, f, s), {}).get(metric) for s in seeds]
        if all(v is not None for v in got):
            sd = sample_sd([float(v) for v in got if v is not None])
            if sd is not None:
                sds.append(sd)
    return {"sd": _mean(sds), "folds": len(sds)}


def fold_sd(
    values: Mapping[tuple[str, int, int], Mapping[str, float]],
    setting: str,
    metric: str,
    folds: Sequence[int],
    seed: int = 0,
) -> dict[str, Any]:
    """The sd over ``folds`` of ``seed``'s values: ``{"sd": … or None, "folds": how many have a value}``."""
    got = [values[(setting, f, seed)][metric] for f in folds if metric in values.get((setting, f, seed), {})]
    return {"sd": sample_sd(got), "folds": len(got)}


def paired_spread(
    values: Mapping[tuple[str, int, int], Mapping[str, float]],
    a: str,
    b: str,
    metric: str,
    folds: Sequence[int],
    seeds: Sequence[int],
) -> dict[str, Any]:
    """The spread of the paired difference ``a − b`` of ``metric``: its mean and sd over folds (seed 0, as
    the claims' folds are paired) and its sd over seeds within a fold (averaged over the folds with every
    seed of both settings; ``None`` while none has)."""
    diffs: dict[tuple[str, int, int], dict[str, float]] = {}
    for f in folds:
        for s in seeds:
            va, vb = values.get((a, f, s), {}).get(metric), values.get((b, f, s), {}).get(metric)
            if va is not None and vb is not None:
                diffs[("d", f, s)] = {metric: va - vb}
    over_folds = fold_sd(diffs, "d", metric, folds)
    zero = [diffs[("d", f, 0)][metric] for f in folds if ("d", f, 0) in diffs]
    return {
        "mean": _mean(zero),
        "fold_sd": over_folds["sd"],
        "folds": over_folds["folds"],
        "seed_sd": (within := seed_sd(diffs, "d", metric, folds, seeds))["sd"],
        "seed_sd_folds": within["folds"],
    }


def _ratio(effect: float | None, spread: float | None) -> float | None:
    if effect is None or spread is None:
        return None
    if spread == 0:
        return None if effect else 0.0
    return effect / spread


def summarise(
    rows: Sequence[Mapping[str, Any]],
    values: Mapping[tuple[str, int, int], Mapping[str, float]],
    other: Mapping[str, Mapping[str, float]],
    *,
    dataset: str,
    settings: Sequence[str],
    folds: Sequence[int],
    spread_folds: Sequence[int],
    seeds: Mapping[str, Sequence[int]],
) -> dict[str, Any]:
    """The CPU kind's effect beside the spreads, per metric (and per setting) and per claim's paired difference.

    Args:
        rows: :func:`compare`'s rows (keys ``full/{dataset}/{setting}/fold{f}``).
        values: the reference store's fresh values (:func:`reference_values`).
        other: the other kind's values by key (:func:`metric_values` of its records).
        folds: the folds compared; ``spread_folds``: the folds the spreads are read from.
        seeds: each setting's protocol seeds.
    """
    from cffair.reporting import paired

    by_key = {r["key"]: r for r in rows}
    metrics = metric_names(dataset)

    def key(s: str, f: int) -> str:
        return configs(dataset, [s], [f])[0].key

    per_metric: dict[str, Any] = {}
    for m in metrics:
        diffs_all: list[float] = []
        rels_all: list[float] = []
        by_setting: dict[str, Any] = {}
        for s in settings:
            cells = [
                by_key[key(s, f)]["metrics"][m] for f in folds if m in by_key.get(key(s, f), {}).get("metrics", {})
            ]
            diffs = [c["abs_diff"] for c in cells]
            diffs_all += diffs
            rels_all += [c["rel_diff"] for c in cells if c["rel_diff"] is not None]
            sd_seed = seed_sd(values, s, m, spread_folds, seeds[s])
            sd_fold = fold_sd(values, s, m, spread_folds)
            by_setting[s] = {
                "cpu_abs_diff_mean": _mean(diffs),
                "cpu_abs_diff_max": max(diffs) if diffs else None,
                "seed_sd": sd_seed["sd"],
                "seed_sd_folds": sd_seed["folds"],
                "fold_sd": sd_fold["sd"],
                "fold_sd_folds": sd_fold["folds"],
                "ratio_to_seed_sd": _ratio(_mean(diffs), sd_seed["sd"]),
                "ratio_to_fold_sd": _ratio(_mean(diffs), sd_fold["sd"]),
            }
        seed_sds = [v["seed_sd"] for v in by_setting.values() if v["seed_sd"] is not None]
        fold_sds = [v["fold_sd"] for v in by_setting.values() if v["fold_sd"] is not None]
        per_metric[m] = {
            "configs": len(diffs_all),
            "cpu_abs_diff_mean": _mean(diffs_all),
            "cpu_abs_diff_max": max(diffs_all) if diffs_all else None,
            "cpu_rel_diff_mean": _mean(rels_all),
            "cpu_rel_diff_max": max(rels_all) if rels_all else None,
            # the settings' spreads averaged; unavailable when a setting lacks one
            "seed_sd": _mean(seed_sds) if len(seed_sds) == len(settings) else None,
            "fold_sd": _mean(fold_sds) if len(fold_sds) == len(settings) else None,
            "by_setting": by_setting,
        }
        per_metric[m]["ratio_to_seed_sd"] = _ratio(per_metric[m]["cpu_abs_diff_mean"], per_metric[m]["seed_sd"])
        per_metric[m]["max_ratio_to_seed_sd"] = _ratio(per_metric[m]["cpu_abs_diff_max"], per_metric[m]["seed_sd"])
        per_metric[m]["ratio_to_fold_sd"] = _ratio(per_metric[m]["cpu_abs_diff_mean"], per_metric[m]["fold_sd"])

    claims: dict[str, Any] = {}
    for claim, a, b, m in CLAIM_PAIRS:
        if a not in settings or b not in settings:
            continue
        name = metric_name(m, dataset)
        larger = name == "accuracy"  # the performance metric: larger accuracy, smaller MSE; CF-MSEs smaller
        both = [s for s in seeds[a] if s in seeds[b]]
        spread = paired_spread(values, a, b, name, spread_folds, both)
        # per fold with all four numbers: (reference a, reference b, other a, other b)
        quads: list[tuple[int, tuple[float, float, float, float]]] = []
        for f in folds:
            ra, rb = values.get((a, f, 0), {}).get(name), values.get((b, f, 0), {}).get(name)
            oa, ob = other.get(key(a, f), {}).get(name), other.get(key(b, f), {}).get(name)
            if ra is not None and rb is not None and oa is not None and ob is not None:
                quads.append((f, (ra, rb, oa, ob)))
        effect = [abs((q[2] - q[3]) - (q[0] - q[1])) for _, q in quads]
        entry: dict[str, Any] = {
            "a": a,
            "b": b,
            "metric": name,
            "claim": f"{a} {'larger' if larger else 'smaller'} than {b}",
            "reference_spread": spread,
            "cpu_effect_mean": _mean(effect),
            "cpu_effect_max": max(effect) if effect else None,
            "ratio_to_paired_fold_sd": _ratio(_mean(effect), spread["fold_sd"]),
            "ratio_to_paired_seed_sd": _ratio(_mean(effect), spread["seed_sd"]),
            "folds": [f for f, _ in quads],
        }
        if len(quads) >= 2:
            tests = {
                "reference": paired([q[0] for _, q in quads], [q[1] for _, q in quads], larger=larger),
                "other": paired([q[2] for _, q in quads], [q[3] for _, q in quads], larger=larger),
            }
            for which, t in tests.items():
                entry[which] = {"mean_diff": t.mean, "sd": t.sd, "p": _finite(t.p), "verdict": t.verdict}
            entry["verdict_moved"] = tests["reference"].verdict != tests["other"].verdict
        claims[claim] = entry

    diffs_everywhere = [r["metrics"][m]["abs_diff"] for r in rows for m in r["metrics"]]
    return {
        "metrics": per_metric,
        "claims": claims,
        "configs_identical": sum(bool(r["identical"]) for r in rows),
        "configs": len(rows),
        "largest_abs_diff": max(diffs_everywhere) if diffs_everywhere else None,
    }


def _finite(x: float) -> float | None:
    return x if math.isfinite(x) else None


# ============================================================================ the run on the other kind
def effective_kernels() -> dict[str, Any]:
    """What this process's libraries dispatch to: PyTorch's kernel capability, NumPy's dispatched
    features, the BLAS libraries' core types (threadpoolctl)."""
    import numpy as np
    import torch

    try:
        from numpy._core._multiarray_umath import __cpu_features__ as features
    except ImportError:  # pragma: no cover - another NumPy
        features = {}
    try:
        from threadpoolctl import threadpool_info

        blas = [
            {"library": i.get("internal_api"), "architecture": i.get("architecture"), "threads": i.get("num_threads")}
            for i in threadpool_info()
        ]
    except ImportError:  # pragma: no cover - threadpoolctl comes with scikit-learn
        blas = []
    return {
        "torch_cpu_capability": torch.backends.cpu.get_cpu_capability(),
        "torch_threads": torch.get_num_threads(),
        "numpy": np.__version__,
        "numpy_x86_v4": bool(features.get("X86_V4", False)),
        "numpy_x86_v3": bool(features.get("X86_V3", False)),
        "blas": blas,
    }


def _child(folder: Path) -> None:
    """The subprocess: run the tasks of ``folder/configs.json`` into ``folder/store``; write ``folder/child.json``."""
    import cffair
    from cffair._support.utils import torch_cpu_setup
    from cffair.experiments._pipeline import run_task
    from cffair.experiments._tasks import task_graph

    torch_cpu_setup()
    cfgs = [ExperimentConfig.from_dict(d) for d in json.loads((folder / "configs.json").read_text())]
    store = ResultsStore(folder / "store")
    start = time.perf_counter()
    seconds = {}
    for task in task_graph(cfgs):
        t = time.perf_counter()
        run_task(task, store)
        seconds[task.id] = round(time.perf_counter() - t, 1)
    cache = Path(os.environ["CFFAIR_CACHE"])
    out = {
        "kernels": effective_kernels(),
        "cffair": str(Path(cffair.__file__).resolve()),
        "seconds": round(time.perf_counter() - start, 1),
        "task_seconds": seconds,
        "flows_fitted": len(list((cache / "flows").glob("*"))) if (cache / "flows").is_dir() else 0,
    }
    write_json_atomic(folder / "child.json", out, what="benchmark result")


class RunFailed(RuntimeError):
    """The run on the other kind failed, or did not run on the kind asked for."""


def run_other_kind(
    cfgs: Sequence[ExperimentConfig], kind: str | None
) -> tuple[dict[str, dict[str, Any]], dict[str, Any]]:
    """Run ``cfgs``'s tasks in a subprocess forced to ``kind`` (:data:`KINDS`; ``None``: this CPU's own
    kernels, the control), in a fresh store and cache: its records by key, and what ran (kernels, wall and
    CPU seconds).

    Raises:
        RunFailed: the subprocess failed, or its PyTorch did not take the forced kind.
    """
    import cffair

    package = Path(cffair.__file__).resolve().parents[1]
    with tempfile.TemporaryDirectory(prefix="cffair-cpukind-") as tmp:
        folder = Path(tmp)
        (folder / "configs.json").write_text(json.dumps([c.to_dict() for c in cfgs]))
        forced = {name for k in KINDS.values() for name in k}
        env = {
            **{k: v for k, v in os.environ.items() if k not in forced},
            **(KINDS[kind] if kind is not None else {}),
            **ONE_THREAD,
            "CFFAIR_CACHE": str(folder / "cache"),
            "CFFAIR_RESULTS": str(folder / "results"),
            "PYTHONPATH": os.pathsep.join([str(package), *filter(None, [os.environ.get("PYTHONPATH")])]),
        }
        cpu_before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        proc = subprocess.run(
            [sys.executable, str(Path(__file__).resolve()), "--child", str(folder)],
            env=env,
            capture_output=True,
            text=True,
        )
        wall = time.perf_counter() - start
        cpu_after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if proc.returncode != 0:
            raise RunFailed(f"the run on kind {kind} failed (exit {proc.returncode}): {proc.stderr.strip()[-1500:]}")
        child = json.loads((folder / "child.json").read_text())
        records = {
            ExperimentConfig.from_dict(r["config"]).key: dict(r) for r in ResultsStore(folder / "store").records()
        }
    wanted = KINDS[kind]["ATEN_CPU_CAPABILITY"].upper() if kind is not None else native_capability()
    if child["kernels"]["torch_cpu_capability"] != wanted:
        raise RunFailed(
            f"the subprocess's PyTorch ran {child['kernels']['torch_cpu_capability']} kernels, not {wanted}: "
            "this PyTorch does not honour ATEN_CPU_CAPABILITY, so the run is not on another kind."
        )
    if child["cffair"] != str(Path(cffair.__file__).resolve()):
        raise RunFailed(f"the subprocess imported cffair from {child['cffair']}, not {cffair.__file__}.")
    child["wall_seconds"] = round(wall, 1)
    child["cpu_seconds"] = round(
        (cpu_after.ru_utime - cpu_before.ru_utime) + (cpu_after.ru_stime - cpu_before.ru_stime), 1
    )
    return records, child


def native_capability() -> str:
    """The kernels PyTorch picks on this CPU when nothing forces them (asked of a clean subprocess)."""
    forced = {name for k in KINDS.values() for name in k}
    proc = subprocess.run(
        [sys.executable, "-c", "import torch; print(torch.backends.cpu.get_cpu_capability())"],
        env={k: v for k, v in os.environ.items() if k not in forced},
        capture_output=True,
        text=True,
        check=True,
    )
    return proc.stdout.strip()


# ============================================================================ main
def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--reference",
        type=Path,
        default=project_root() / "results" / "full",
        help="the results store to compare with (default: the checkout's results/full); only read",
    )
    parser.add_argument("--dataset", default="compas")
    parser.add_argument("--settings", nargs="+", default=list(SETTINGS), choices=list(SETTINGS))
    parser.add_argument("--folds", nargs="+", type=int, default=[0, 1, 2, 3, 4])
    parser.add_argument("--kind", default="avx2", choices=list(KINDS), help="the CPU kind to force")
    parser.add_argument(
        "--no-control",
        dest="control",
        action="store_false",
        help="skip the control: the same run on this CPU's own kernels, which must give the reference's numbers",
    )
    parser.add_argument("--child", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child is not None:
        _child(args.child)
        return {}

    from cffair.experiments._protocol import protocol
    from cffair.experiments._store import machine

    started = time.perf_counter()
    store = ResultsStore(args.reference, create=False)
    cfgs = configs(args.dataset, args.settings, args.folds)
    references = fresh_references(store, cfgs)  # before any work: refuse stale references at once
    native = native_capability()
    if native == KINDS[args.kind]["ATEN_CPU_CAPABILITY"].upper():
        raise DataError(
            f"this machine's PyTorch already runs {native} kernels: forcing --kind {args.kind} would not be "
            "another kind. Pick another --kind."
        )
    control: dict[str, Any] | None = None
    if args.control:  # the same run on this CPU's own kernels: any difference there is not the CPU kind's
        same, same_run = run_other_kind(cfgs, None)
        same_rows = [compare(references[c.key], same[c.key]) for c in cfgs]
        control = {
            "kernels": same_run["kernels"],
            "configs": len(same_rows),
            "configs_identical": sum(bool(r["identical"]) for r in same_rows),
            "largest_abs_diff": max((v["abs_diff"] for r in same_rows for v in r["metrics"].values()), default=None),
            "inputs_equal": all(all(r["inputs_equal"].values()) for r in same_rows),
            "wall_seconds": same_run["wall_seconds"],
            "cpu_seconds": same_run["cpu_seconds"],
        }
    others, run = run_other_kind(cfgs, args.kind)
    rows = [compare(references[c.key], others[c.key]) for c in cfgs]
    spread_folds = list(range(protocol().folds))
    names = metric_names(args.dataset)
    values, counts = reference_values(store, args.dataset, args.settings, spread_folds, names)
    other_values = {k: metric_values(r, names) for k, r in others.items()}
    seeds = {s: list(protocol().seeds_for(s, args.dataset)) for s in args.settings}
    summary = summarise(
        rows,
        values,
        other_values,
        dataset=args.dataset,
        settings=args.settings,
        folds=args.folds,
        spread_folds=spread_folds,
        seeds=seeds,
    )
    ref_machines = sorted({json.dumps(r.get("machine"), sort_keys=True) for r in references.values()})
    out: dict[str, Any] = {
        "benchmark": "cpu_kind",
        "finished": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "commit": subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=project_root(), capture_output=True, text=True
        ).stdout.strip(),
        "machine": {**machine(), "cpus": os.cpu_count()},
        "reference_machines": [json.loads(m) for m in ref_machines],
        "reference": str(args.reference),
        "reference_records": counts,
        "dataset": args.dataset,
        "settings": args.settings,
        "folds": args.folds,
        "spread_folds": spread_folds,
        "seeds": seeds,
        "kind": args.kind,
        "environment": {**KINDS[args.kind], **ONE_THREAD},
        "native_capability": native,
        "kernels": run["kernels"],
        "control": control,
        "flows_fitted": run["flows_fitted"],
        "wall_seconds": run["wall_seconds"],
        "cpu_seconds": run["cpu_seconds"],
        "task_seconds": run["task_seconds"],
        "total_wall_seconds": round(time.perf_counter() - started, 1),
        "load_average": [round(x, 2) for x in os.getloadavg()],
        "fingerprints": "equal apart from the inputs' content (code, data, config, packages, the inputs' producers)",
        "table": rows,
        "summary": summary,
    }
    write_json_atomic(RESULTS, out, what="benchmark result")
    return out


if __name__ == "__main__":
    result = main()
    if result:
        s = result["summary"]
        c = result["control"]
        if c is not None:
            print(
                f"control (own kernels): {c['configs_identical']} of {c['configs']} configs identical to the reference"
            )
        print(f"{s['configs_identical']} of {s['configs']} configs identical; largest |diff| {s['largest_abs_diff']}")
        for m, v in s["metrics"].items():
            print(
                f"{m}: |diff| mean {v['cpu_abs_diff_mean']} max {v['cpu_abs_diff_max']}; "
                f"seed sd {v['seed_sd']}, fold sd {v['fold_sd']}; ratio to seed sd {v['ratio_to_seed_sd']}"
            )
