"""Interventions (section 6.2's rule), generate() with its cache, and the CLI."""

from __future__ import annotations

import time

import numpy as np
import pandas as pd
import pytest

from cffair.causal._cfset import CounterfactualSet
from cffair.causal._flow import generate
from cffair.causal._interventions import PERCENTILES, feature_interventions, resolve, sensitive_interventions
from cffair.causal._synthetic import simulate_scm
from cffair.errors import CacheWarning, CounterfactualError

FAST = {"epochs": 3, "patience": None}

# 3-epoch flows leave the integer child k frozen, which CounterfactualWarning rightly reports;
# that warning is tested on models with known counterfactuals (tests/causal/test_synthetic.py).
pytestmark = pytest.mark.filterwarnings("ignore:counterfactuals leave descendants:cffair.errors.CounterfactualWarning")


@pytest.fixture(scope="module")
def synthetic():
    return simulate_scm(800, seed=2, discrete_child=True)[0]


def test_sensitive_flip_and_multivalued():
    frame = pd.DataFrame({"s": pd.Categorical(["a", "b", "c", "a"])})
    spec = type("S", (), {"sensitive": "s", "features": {"s": "categorical"}, "name": "t"})()
    assert [i.value for i in sensitive_interventions(frame, spec)] == ["a", "b", "c"]


def test_paper_rule_for_categories_and_percentiles():
    rng = np.random.default_rng(0)
    cats = [f"c{i}" for i in range(14)]
    # c0..c11 frequent (one of them rare at 0.5 %), c12, c13 rare
    p = np.r_[np.full(12, 0.08), 0.005, 0.005]
    p[11] = 0.005
    p = p / p.sum()
    col = rng.choice(cats, 20_000, p=p)
    frame = pd.DataFrame(
        {"f": pd.Categorical(col, categories=cats), "n": rng.normal(size=20_000), "k": rng.integers(0, 100, 20_000)}
    )
    spec = type(
        "S", (), {"sensitive": "z", "features": {"f": "categorical", "n": "continuous", "k": "integer"}, "name": "t"}
    )()
    vals = [i.value for i in feature_interventions(frame, spec, "f")]
    share = pd.Series(col).value_counts(normalize=True)
    assert len(vals) == 10 and all(share[v] >= 0.01 for v in vals)
    assert set(vals) == set(share[share >= 0.01].index[:10])
    num = feature_interventions(frame, spec, "n")
    np.testing.assert_allclose([i.value for i in num], np.percentile(frame["n"], PERCENTILES))
    ints = feature_interventions(frame, spec, "k")
    assert all(isinstance(i.value, int) for i in ints) and [i.label for i in ints] == [str(i.value) for i in ints]


def test_resolve_user_values_and_errors(synthetic):
    frame, spec = synthetic
    ivs = resolve(frame, spec, {"x1": [0.5], "s": ["a"]})
    assert [(i.feature, i.value) for i in ivs] == [("x1", 0.5), ("s", "a")]
    with pytest.raises(CounterfactualError, match="not a value of 's'"):
        resolve(frame, spec, {"s": ["zzz"]})
    with pytest.raises(CounterfactualError, match="unknown interventions"):
        resolve(frame, spec, "everything")
    assert {i.feature for i in resolve(frame, spec, "all")} == set(spec.features)


def test_generate_skips_identity_rows_and_caches(synthetic, tmp_path):
    frame, spec = synthetic
    t0 = time.perf_counter()
    cfs = generate((frame, spec), interventions=["s", "x1"], config=FAST, cache_dir=tmp_path, progress=False)
    first = time.perf_counter() - t0
    assert isinstance(cfs, CounterfactualSet)
    flips = cfs.select(feature="s")
    # each row is flipped to the other value exactly once
    assert len(flips) == len(frame)
    assert (flips.frame["s"].astype(str).to_numpy() != frame["s"].astype(str).to_numpy()[flips.frame["row_id"]]).all()
    assert cfs.values("x1") == [f"{v:.6g}" for v in np.percentile(frame["x1"], PERCENTILES)]
    assert cfs.meta["generator"] == "causal_flow" and cfs.meta["seed"] == 0 and cfs.meta["dataset"] == "synthetic"
    t0 = time.perf_counter()
    again = generate((frame, spec), interventions=["s", "x1"], config=FAST, cache_dir=tmp_path, progress=False)
    assert time.perf_counter() - t0 < first
    assert again.frame.equals(cfs.frame) and again.meta == cfs.meta
    assert len(list((tmp_path / "counterfactuals").glob("*.parquet"))) == 1
    other = generate((frame, spec), interventions=["s"], config=FAST, seed=1, cache_dir=tmp_path, progress=False)
    assert not other.frame.equals(flips.frame)  # another seed, another flow


def test_the_cache_key_holds_the_specs_reading_of_the_data(synthetic, tmp_path):
    """A spec that reads a column as another kind gets its own flow; a spec that differs only
    in what the flow never sees (its description, subgroups) reuses the cached one."""
    from dataclasses import replace

    from cffair.causal._flow import fit_flow

    frame, spec = synthetic
    first = fit_flow((frame, spec), FAST, cache=tmp_path, progress=False)
    as_real = replace(spec, features={**spec.features, "k": "continuous"})
    other = fit_flow((frame, as_real), FAST, cache=tmp_path, progress=False)
    assert not other.columns["k"].discrete and first.columns["k"].discrete
    assert len(list((tmp_path / "flows").glob("*.pt"))) == 2
    same = fit_flow((frame, replace(spec, description="another description")), FAST, cache=tmp_path, progress=False)
    assert len(list((tmp_path / "flows").glob("*.pt"))) == 2
    assert same.columns["k"].discrete and same.history == first.history


def test_cli_generate_writes_a_loadable_set(tmp_path, monkeypatch):
    from cffair.cli import main

    monkeypatch.setenv("CFFAIR_CACHE", str(tmp_path / "cache"))
    out = tmp_path / "cf.parquet"
    rc = main(["counterfactuals", "generate", "--dataset", "compas", "--epochs", "1", "--quiet", "--out", str(out)])
    assert rc == 0
    cfs = CounterfactualSet.load(out)
    assert cfs.features == ["race"] and cfs.meta["dataset"] == "compas"
    from cffair.datasets import load

    frame, _ = load("compas")
    # race's descendants include the binary c-charge-degree, whose default treatment draws: every
    # row is flipped once per draw
    draws = cfs.frame["sample"].nunique()
    assert draws == cfs.meta["config"]["cf_samples"]
    assert len(cfs) == draws * len(frame) and not cfs.frame[["row_id", "sample"]].duplicated().any()
    assert (tmp_path / "cache" / "flows").is_dir()


@pytest.mark.parametrize("damage", ["truncate", "garbage"])
def test_corrupt_cache_files_are_reported_removed_and_recomputed(synthetic, tmp_path, damage):
    frame, spec = synthetic
    first = generate((frame, spec), interventions=["s"], config=FAST, cache_dir=tmp_path, progress=False)
    files = [*(tmp_path / "counterfactuals").glob("*.parquet"), *(tmp_path / "flows").glob("*.pt")]
    assert len(files) == 2
    for f in files:
        raw = f.read_bytes()
        f.write_bytes(raw[: len(raw) // 3] if damage == "truncate" else b"not a cache file")
    with pytest.warns(CacheWarning) as record:
        again = generate((frame, spec), interventions=["s"], config=FAST, cache_dir=tmp_path, progress=False)
    messages = [str(w.message) for w in record if issubclass(w.category, CacheWarning)]
    assert len(messages) == 2
    assert any(
        "cached counterfactual set" in m and files[0].name in m and "removed and is being recomputed" in m
        for m in messages
    )
    assert any("cached fitted flow" in m and files[1].name in m for m in messages)
    assert again.frame.equals(first.frame)
    # the files were rewritten and now read back without a warning
    assert all(f.exists() and f.stat().st_size > 100 for f in files)
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error", CacheWarning)
        third = generate((frame, spec), interventions=["s"], config=FAST, cache_dir=tmp_path, progress=False)
    assert third.frame.equals(first.frame)
