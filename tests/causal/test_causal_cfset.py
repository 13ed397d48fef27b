"""CounterfactualSet: round trips, selection, pairs and validation of outside files."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from cffair.causal._cfset import CFPairs, CounterfactualSet
from cffair.datasets import DatasetSpec, prepare
from cffair.datasets._encoding import Encoder
from cffair.errors import CounterfactualError


@pytest.fixture()
def toy():
    spec = DatasetSpec(
        name="toy",
        target="y",
        target_kind="binary",
        sensitive="s",
        features={"s": "binary", "a": "integer", "b": "continuous", "c": "categorical", "e": "ordinal"},
    )
    rng = np.random.default_rng(0)
    n = 40
    frame = pd.DataFrame(
        {
            "s": rng.choice(["F", "M"], n),
            "a": rng.integers(18, 70, n),
            "b": rng.normal(size=n),
            "c": rng.choice(["x", "y", "z"], n),
            "e": pd.Categorical(rng.choice(["lo", "mid", "hi"], n), categories=["lo", "mid", "hi"], ordered=True),
            "y": rng.integers(0, 2, n),
        }
    )
    return prepare(frame, spec), spec


def _flip(frame):
    cf = frame.copy()
    cf["s"] = cf["s"].map({"F": "M", "M": "F"}).astype(frame["s"].dtype)
    cf["b"] = cf["b"] + 1.0
    return cf


def test_from_frames_dtypes_and_values(toy):
    frame, spec = toy
    cfs = CounterfactualSet.from_frames(frame, _flip(frame), spec, "s", meta={"generator": "test"})
    assert list(cfs.frame.columns[:4]) == ["row_id", "feature", "value", "sample"]
    assert cfs.frame["row_id"].dtype == np.int64 and cfs.frame["sample"].dtype == np.int64
    for c in spec.features:
        assert cfs.frame[c].dtype == frame[c].dtype, c
    # default value label: each row's counterfactual value of the intervened feature
    assert (cfs.frame["value"].to_numpy() == cfs.frame["s"].astype(str).to_numpy()).all()
    assert set(cfs.values("s")) == {"F", "M"}


def test_save_load_round_trip_is_exact(toy, tmp_path):
    frame, spec = toy
    a = CounterfactualSet.from_frames(frame, _flip(frame), spec, "s", meta={"seed": 3, "config": {"hidden": (32, 32)}})
    b = CounterfactualSet.from_frames(frame, frame.assign(c="z").astype({"c": frame["c"].dtype}), spec, "c", value="z")
    cfs = CounterfactualSet.concat([a, b])
    cfs.save(tmp_path / "cf.parquet")
    back = CounterfactualSet.load(tmp_path / "cf.parquet")
    assert back.frame.equals(cfs.frame)
    assert (back.frame.dtypes == cfs.frame.dtypes).all()
    assert back.meta == cfs.meta == {"generator": "external", "seed": 3, "config": {"hidden": [32, 32]}}
    assert not list(tmp_path.glob(".*tmp"))  # atomic write leaves no temporary file


def test_select_and_pairs_align(toy):
    frame, spec = toy
    cfs = CounterfactualSet.concat(
        [
            CounterfactualSet.from_frames(frame, _flip(frame), spec, "s"),
            CounterfactualSet.from_frames(
                frame, frame.assign(c="x").astype({"c": frame["c"].dtype}), spec, "c", value="x"
            ),
        ]
    )
    enc = Encoder(spec).fit(frame)
    rows = np.array([3, 5, 7, 11])
    p = cfs.pairs(frame, enc, "s", rows=rows)
    assert isinstance(p, CFPairs) and len(p) == 4
    assert p.x.dtype == np.float32 and p.x_cf.dtype == np.float32
    np.testing.assert_array_equal(p.row_id, rows)
    np.testing.assert_allclose(p.x, enc.transform(frame.iloc[rows]))
    # the factual and counterfactual rows differ exactly in s and b
    changed = np.flatnonzero(np.any(p.x != p.x_cf, axis=0))
    expected = sorted(enc.columns_of("s") + enc.columns_of("b"))
    assert changed.tolist() == expected
    assert (p.feature == "s").all()
    assert len(cfs.select(feature="c", value="x")) == len(frame)
    assert len(cfs.select(value="nope")) == 0


def test_several_samples_repeat_factual_rows(toy):
    frame, spec = toy
    cf = pd.concat([_flip(frame), _flip(frame)], ignore_index=True)
    ids = np.r_[np.arange(len(frame)), np.arange(len(frame))]
    cfs = CounterfactualSet.from_frames(frame, cf, spec, "s", row_id=ids, sample=np.repeat([0, 1], len(frame)))
    p = cfs.pairs(frame, Encoder(spec).fit(frame), "s")
    assert len(p) == 2 * len(frame)
    np.testing.assert_array_equal(p.x[: len(frame)], p.x[len(frame) :])


@pytest.mark.parametrize(
    "mutate, message",
    [
        (lambda f: f.drop(columns=["b"]), "misses the feature column(s) ['b']"),
        (lambda f: f.iloc[:-1], "length mismatch"),
        (lambda f: f.assign(c=f["c"].astype(str).replace("x", "w")), "unknown categories ['w']"),
        (lambda f: f.assign(b=f["b"].where(f.index != 2)), "missing values (NaN) in 'b'"),
        (lambda f: f.assign(a=f["a"] + 0.5), "fractional values in the integer feature 'a'"),
        (lambda f: f.assign(row_id=np.arange(len(f)) + 5), "row ids out of range"),
    ],
)
def test_malformed_external_frames_give_clear_errors(toy, mutate, message):
    frame, spec = toy
    with pytest.raises(CounterfactualError) as err:
        CounterfactualSet.from_frames(frame, mutate(frame.copy()), spec, "s")
    assert message in str(err.value)


def test_from_long_and_files(toy, tmp_path):
    frame, spec = toy
    cfs = CounterfactualSet.from_frames(frame, _flip(frame), spec, "s")
    long = cfs.frame.astype({c: str for c in ["s", "c", "e"]})  # as a CSV from elsewhere would read
    long.to_csv(tmp_path / "long.csv", index=False)
    back = CounterfactualSet.from_files(frame, tmp_path / "long.csv", spec)
    pd.testing.assert_frame_equal(back.frame[spec.feature_names], cfs.frame[spec.feature_names], check_exact=False)
    assert back.frame["e"].dtype == frame["e"].dtype
    bad = long.assign(feature="zzz")
    with pytest.raises(CounterfactualError, match="not features of 'toy'"):
        CounterfactualSet.from_long(bad, frame, spec)
    with pytest.raises(CounterfactualError, match="misses the column"):
        CounterfactualSet.from_long(long.drop(columns=["value"]), frame, spec)
    with pytest.raises(CounterfactualError, match="no interventions on 'c'"):
        cfs.pairs(frame, Encoder(spec).fit(frame), "c")
    with pytest.raises(CounterfactualError, match="does not exist"):
        CounterfactualSet.load(tmp_path / "none.parquet")


def test_from_long_refuses_permuted_row_ids_as_train_does():
    """A long frame whose row ids were permuted pairs people with others' twins; with a causal
    graph in the spec, from_long refuses it (the check of ``cffair train --counterfactuals``),
    so ``from_long(...).pairs()`` never hands such pairs to a learner."""
    from cffair.causal._integrity import check_belongs

    spec = DatasetSpec.from_dict(
        {
            "name": "toy",
            "target": "y",
            "target_kind": "binary",
            "sensitive": "s",
            "features": {"s": "binary", "a": "continuous", "b": "continuous"},
            "graph": {"name": "toy", "edges": {"s": ["a"]}, "nodes": ["b"]},
        }
    )
    rng = np.random.default_rng(0)
    n = 30
    s = rng.choice(["F", "M"], n)
    raw = pd.DataFrame(
        {"s": s, "a": (s == "F") + rng.normal(size=n), "b": rng.normal(size=n), "y": rng.integers(0, 2, n)}
    )
    frame = prepare(raw, spec)
    twin = frame.assign(s=frame["s"].map({"F": "M", "M": "F"}).astype(frame["s"].dtype), a=frame["a"] + 1.0)
    good = CounterfactualSet.from_frames(frame, twin, spec, "s").frame  # s flipped, its descendant a moved
    enc = Encoder(spec).fit(frame)
    pairs = CounterfactualSet.from_long(good, frame, spec).pairs(frame, enc, "s")
    np.testing.assert_allclose(pairs.x, enc.transform(frame))  # accepted as it is: each twin beside its row
    permuted = good.assign(row_id=rng.permutation(good["row_id"].to_numpy()))
    with pytest.raises(CounterfactualError, match="row ids do not point at the rows") as err:
        CounterfactualSet.from_long(permuted, frame, spec)
    assert "\n" not in str(err.value)
    with pytest.raises(CounterfactualError) as same:  # the one validator train uses, the same message
        check_belongs(CounterfactualSet(permuted, {"generator": "external"}), frame, spec)
    assert str(same.value) == str(err.value)
    # a generator that reconstructs every column (a GAN) keeps no column to compare: not refused
    assert len(CounterfactualSet.from_long(permuted, frame, spec, meta={"generator": "gan"})) == n
