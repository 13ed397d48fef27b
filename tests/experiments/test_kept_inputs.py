"""The flows and twins a reproduction keeps beside its records (cffair.experiments._kept_inputs)."""

from __future__ import annotations

import os
import time

import numpy as np
import pandas as pd
import pytest

from cffair.causal._cfset import CounterfactualSet
from cffair.datasets import DatasetSpec, prepare
from cffair.experiments import _kept_inputs as K
from cffair.experiments._pipeline.counterfactuals import content_hash


def _twins(shift: float) -> CounterfactualSet:
    spec = DatasetSpec(
        name="toy", target="y", target_kind="binary", sensitive="s", features={"s": "binary", "b": "continuous"}
    )
    rng = np.random.default_rng(0)
    frame = prepare(
        pd.DataFrame({"s": rng.choice(["F", "M"], 20), "b": rng.normal(size=20), "y": np.arange(20) % 2}), spec
    )
    cf = frame.copy()
    cf["s"] = cf["s"].map({"F": "M", "M": "F"}).astype(frame["s"].dtype)
    cf["b"] = cf["b"] + shift
    return CounterfactualSet.from_frames(frame, cf, spec, "s", meta={"seed": 0})


def _old(path, seconds=3600.0):
    t = time.time() - seconds
    os.utime(path, (t, t))


def test_keep_chooses_twins_by_content_keeps_flows_and_prunes_only_the_runs_twins(tmp_path):
    cache, store = tmp_path / "cache", tmp_path / "store"
    used, other = _twins(1.0), _twins(2.0)
    for name, cfs in {"toy-aaa": used, "toy-bbb": other, "adult-ccc": other}.items():
        cfs.save(cache / "counterfactuals" / f"{name}.parquet")
    (cache / "flows").mkdir()
    for name in ("toy-new", "toy-old", "toy-back", "toy-hit", "adult-new"):
        (cache / "flows" / f"{name}.pt").write_bytes(name.encode())
    for name in ("toy-old", "toy-back", "toy-hit"):
        _old(cache / "flows" / f"{name}.pt")
    # the store holds twins of an older run of toy, a flow of a dataset this run does not touch, and a
    # flow of toy that the cache also holds unchanged (a cache hit: the run may have read it)
    for name in ("counterfactuals/toy-stale.parquet", "flows/lawschool-zzz.pt", "flows/toy-hit.pt"):
        (store / name).parent.mkdir(parents=True, exist_ok=True)
        (store / name).write_bytes(b"x")
    since = time.time() - 60
    kept = K.keep(
        store, cache, {"toy": {"counterfactuals": content_hash(used)}}, since=since, restored={"flows/toy-back.pt"}
    )
    assert sorted(kept.kept) == [
        "counterfactuals/toy-aaa.parquet",
        "flows/toy-back.pt",
        "flows/toy-hit.pt",
        "flows/toy-new.pt",
    ]
    assert kept.removed == ("counterfactuals/toy-stale.parquet",)
    on_disk = sorted(str(p.relative_to(store)) for p in store.rglob("*") if p.is_file())
    assert on_disk == [
        "counterfactuals/toy-aaa.parquet",
        "flows/lawschool-zzz.pt",
        "flows/toy-back.pt",
        "flows/toy-hit.pt",
        "flows/toy-new.pt",
    ]
    # what is kept reads back as the very twins the run used
    assert content_hash(CounterfactualSet.load(store / "counterfactuals" / "toy-aaa.parquet")) == content_hash(used)


def test_restore_fills_only_what_the_cache_lacks(tmp_path):
    cache, store = tmp_path / "cache", tmp_path / "store"
    (store / "flows").mkdir(parents=True)
    (store / "flows" / "toy-a.pt").write_bytes(b"stored")
    (store / "flows" / "toy-b.pt").write_bytes(b"stored")
    (cache / "flows").mkdir(parents=True)
    (cache / "flows" / "toy-b.pt").write_bytes(b"cached")
    assert K.restore(store, cache) == {"flows/toy-a.pt"}
    assert (cache / "flows" / "toy-a.pt").read_bytes() == b"stored"
    assert (cache / "flows" / "toy-b.pt").read_bytes() == b"cached"
    assert K.restore(tmp_path / "nothing", cache) == set()


@pytest.mark.slow
def test_a_resumed_reproduction_with_a_cold_cache_fits_nothing_and_finds_every_record_fresh(tmp_path, monkeypatch):
    """The round trip a regeneration in parts relies on: after one invocation, a second one on a machine
    with an empty cache restores the kept flows and twins, fits no flow and computes no record."""
    from cffair.causal import _cnf as cnf
    from cffair.workflows import _reproduce as R

    results = tmp_path / "results"
    monkeypatch.setenv("CFFAIR_CACHE", str(tmp_path / "cache1"))
    first = R.reproduce("quick", ["q1"], jobs=1, datasets=["compas"], results_dir=results, steps=False)
    assert first["records_computed"] > 0
    kept = sorted(p.name for p in (results / "inputs").rglob("*") if p.is_file())
    assert any(n.endswith(".pt") for n in kept) and any(n.endswith(".parquet") for n in kept)

    monkeypatch.setenv("CFFAIR_CACHE", str(tmp_path / "cache2"))  # another machine: nothing cached

    def no_fit(*args, **kwargs):
        raise AssertionError("a flow was fitted although its kept copy was there")

    monkeypatch.setattr(cnf.CausalFlow, "fit", no_fit)
    second = R.reproduce("quick", ["q1"], jobs=1, datasets=["compas"], results_dir=results, steps=False)
    assert second["records_computed"] == 0
    assert sorted(p.name for p in (results / "inputs").rglob("*") if p.is_file()) == kept
