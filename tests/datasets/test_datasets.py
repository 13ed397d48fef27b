"""Datasets, specs, encoding, folds and the errors on bad input (issue: foundation)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import yaml

from cffair import datasets as D
from cffair.datasets._encoding import Encoder
from cffair.errors import DataError, GraphError, SpecError


@pytest.fixture(scope="module")
def adult():
    return D.load("adult")


@pytest.fixture(scope="module")
def compas():
    return D.load("compas")


@pytest.fixture(scope="module")
def law():
    return D.load("lawschool")


# ----------------------------------------------------------------------------- row counts and specs
@pytest.mark.parametrize(
    "name, rows, n_features",
    [("adult", 45_222, 12), ("compas", 6_167, 8), ("compas_age", 6_167, 8), ("lawschool", 21_791, 4)],
)
def test_row_counts_and_columns(name, rows, n_features):
    frame, spec = D.load(name)
    assert len(frame) == rows
    assert list(frame.columns) == [*spec.features, spec.target]
    assert len(spec.features) == n_features
    assert not frame.isna().any().any()


def test_adult_spec_matches_paper(adult):
    frame, spec = adult
    assert (spec.target, spec.target_kind, spec.sensitive) == ("income", "binary", "sex")
    assert [s.column for s in spec.subgroups] == ["sex", "race"]
    assert set(spec.immutable) == {"marital-status", "relationship", "race", "native-country"}
    assert spec.favourable == 1
    # the one-hot groups were decoded back to readable categories
    assert set(frame["sex"].cat.categories) == {"Female", "Male"}
    assert "Husband" in set(frame["relationship"].cat.categories)
    assert frame["education"].cat.ordered and frame["education"].cat.categories[0] == "Preschool"
    assert frame["education"].cat.categories[-1] == "Doctorate"
    # >50K share of the 45,222 complete rows (UCI: 11,208 positives)
    assert int(frame["income"].sum()) == 11_208
    assert int((frame["sex"] == "Male").sum()) == 30_527
    assert len(spec.subgroup_labels(frame).unique()) == 10  # 2 sexes x 5 races


def test_compas_spec_drops_leaky_columns(compas):
    frame, spec = compas
    assert (spec.target, spec.sensitive, spec.immutable, spec.favourable) == ("two-year-recid", "race", ("age",), 0)
    for leaky in ("decile-score", "score-text", "age-cat"):
        assert not any(c.startswith(leaky) for c in frame.columns)
    assert int((frame["race"] == "Caucasian").sum()) == 2_100


def test_compas_age_bins():
    frame, spec = D.load("compas_age")
    labels = spec.subgroup_labels(frame)
    assert set(labels.str.split(", ").str[1]) == {"<=30", "31-45", "46-60", ">60"}
    # boundaries: 30 is in the first bin, 31 in the second, 60 in the third, 61 in the last
    by_age = dict(zip(frame["age"], labels.str.split(", ").str[1]))
    assert (by_age[30], by_age[31], by_age[45], by_age[46], by_age[60], by_age[61]) == (
        "<=30",
        "31-45",
        "31-45",
        "46-60",
        "46-60",
        ">60",
    )


def test_lawschool_spec(law):
    frame, spec = law
    assert (spec.target, spec.target_kind, spec.sensitive, spec.immutable) == ("ZFYA", "score", "sex", ("race",))
    assert frame["ZFYA"].dtype == np.float64
    assert int((frame["sex"] == "Female").sum()) == 9_537  # Sex_1 = female in Kusner's coding
    assert len(frame["race"].cat.categories) == 8
    fav = spec.favourable_mask(frame["ZFYA"])
    assert abs(fav.mean() - 0.4) < 0.01  # the best 40 % are favourable (section 7.3)


@pytest.mark.parametrize("name", ["adult", "compas", "lawschool"])
def test_graphs_cover_features_and_are_acyclic(name):
    _, spec = D.load(name)
    g = spec.load_graph()
    assert set(g.nodes) == set(spec.features)
    a = g.adjacency()
    order = list(g.nodes)
    # topological order: every parent comes before its child
    for child, parent in zip(*np.nonzero(a)):
        assert parent < child, (order[parent], order[child])
    assert spec.sensitive in g.roots


def test_spec_round_trip(adult):
    _, spec = adult
    again = D.DatasetSpec.from_dict(spec.to_dict())
    assert again == spec


# ----------------------------------------------------------------------------- encoding
@pytest.mark.parametrize("name", ["adult", "compas", "lawschool"])
def test_encode_decode_round_trip(name):
    frame, spec = D.load(name)
    folds = D.make_folds(frame, spec, seed=0)
    train = frame.iloc[folds[0].train]
    test = frame.iloc[folds[0].test]
    enc = Encoder(spec).fit(train)
    x = enc.transform(test)
    assert x.dtype == np.float32 and x.shape == (len(test), enc.n_features_out)
    back = enc.inverse_transform(x)
    for col, kind in spec.features.items():
        if kind in D.CATEGORY_KINDS:
            assert (back[col].astype(str).to_numpy() == test[col].astype(str).to_numpy()).all(), col
        else:
            np.testing.assert_allclose(
                back[col].to_numpy(float), test[col].to_numpy(float), rtol=1e-5, atol=1e-3 * (1 + test[col].abs().max())
            )
    # numeric columns are standardised on the training fold
    xt = enc.transform(train)
    for col in enc.numeric:
        j = enc.columns_of(col)[0]
        assert abs(xt[:, j].mean()) < 1e-3 and abs(xt[:, j].std() - 1) < 1e-2


def test_binary_feature_is_one_column(adult):
    frame, spec = adult
    enc = Encoder(spec).fit(frame)
    assert len(enc.columns_of("sex")) == 1
    assert len(enc.columns_of("race")) == 5


def test_unknown_category_at_transform_time(compas):
    frame, spec = compas
    enc = Encoder(spec).fit(frame)
    bad = frame.head(3).copy()
    bad["race"] = bad["race"].astype(str)
    bad.loc[bad.index[0], "race"] = "Martian"
    with pytest.raises(DataError, match=r"'race'.*'Martian'.*did not see"):
        enc.transform(bad)


# ----------------------------------------------------------------------------- folds
def test_folds_are_deterministic_partitions(compas):
    frame, spec = compas
    a = D.make_folds(frame, spec, seed=3)
    b = D.make_folds(frame, spec, seed=3)
    c = D.make_folds(frame, spec, seed=4)
    assert all(np.array_equal(x.test, y.test) for x, y in zip(a, b))
    assert not all(np.array_equal(x.test, y.test) for x, y in zip(a, c))
    tests = np.concatenate([f.test for f in a])
    assert np.array_equal(np.sort(tests), np.arange(len(frame)))  # every row tested exactly once
    for f in a:
        assert np.intersect1d(f.train, f.test).size == 0


def test_folds_are_stratified(adult):
    frame, spec = adult
    strata = D.strata(frame, spec)
    overall = strata.value_counts(normalize=True)
    for f in D.make_folds(frame, spec, seed=0):
        share = strata.iloc[f.test].value_counts(normalize=True)
        assert (share - overall).abs().max() < 0.002


def test_score_target_folds_stratify_on_quantiles(law):
    frame, spec = law
    for f in D.make_folds(frame, spec):
        assert abs(frame["ZFYA"].iloc[f.test].mean() - frame["ZFYA"].mean()) < 0.03


# ----------------------------------------------------------------------------- a user's own data
GRAPH = {"edges": {"gender": ["income", "score"], "age": ["income"]}}


def _toy(n=60, seed=0):
    rng = np.random.default_rng(seed)
    return pd.DataFrame(
        {
            "gender": rng.choice(["f", "m"], n),
            "age": rng.integers(18, 70, n),
            "income": rng.normal(50, 10, n).round(2),
            "score": rng.normal(size=n),
            "approved": rng.integers(0, 2, n),
        }
    )


def _spec(**over):
    spec = {
        "name": "loans",
        "target": "approved",
        "target_kind": "binary",
        "sensitive": "gender",
        "subgroups": ["gender", {"column": "age", "bins": [-np.inf, 30, np.inf], "labels": ["young", "older"]}],
        "immutable": ["age"],
        "graph": GRAPH,
    }
    spec.update(over)
    return spec


def test_from_csv_with_yaml_spec_infers_kinds(tmp_path):
    _toy().to_csv(tmp_path / "loans.csv", index=False)
    (tmp_path / "graph.yaml").write_text(yaml.safe_dump(GRAPH))
    spec = _spec(graph="graph.yaml")
    spec["subgroups"][1]["bins"] = [-1e9, 30, 1e9]
    (tmp_path / "spec.yaml").write_text(yaml.safe_dump(spec))
    frame, s = D.from_csv(tmp_path / "loans.csv", tmp_path / "spec.yaml")
    assert s.features == {"gender": "binary", "age": "integer", "income": "continuous", "score": "continuous"}
    assert set(s.subgroup_labels(frame)) <= {"f, young", "f, older", "m, young", "m, older"}
    assert s.load_graph().descendants("gender") == ("income", "score")


def test_from_csv_dict_spec(tmp_path):
    _toy().to_csv(tmp_path / "d.csv", index=False)
    frame, spec = D.from_csv(tmp_path / "d.csv", _spec())
    assert spec.name == "loans" and len(frame) == 60


@pytest.mark.parametrize(
    "change, error, message",
    [
        (lambda df: df.drop(columns="income"), DataError, r"\['income'\] are named in the spec but missing"),
        (
            lambda df: df.assign(income=df["income"].where(df.index != 4)),
            DataError,
            r"missing values \(NaN\).*'income'.*line 6 of .*bad\.csv",
        ),
        (
            lambda df: df.assign(approved=np.where(df.index % 2, "yes", "no")),
            DataError,
            r"declared binary.*labels 0 and 1",
        ),
        (lambda df: df.assign(approved=df["approved"] * 2), DataError, r"declared binary.*labels 0 and 1"),
        (lambda df: df.assign(gender="f"), DataError, r"'gender' is declared binary but has only one value"),
        (
            lambda df: df.assign(age=df["age"].astype(str) + "y"),
            DataError,
            r"'age' is declared integer but holds non-numeric",
        ),
    ],
)
def test_bad_data_errors(tmp_path, change, error, message):
    change(_toy()).to_csv(tmp_path / "bad.csv", index=False)
    features = {"gender": "binary", "age": "integer", "income": "continuous", "score": "continuous"}
    with pytest.raises(error, match=message):
        D.from_csv(tmp_path / "bad.csv", _spec(features=features))


@pytest.mark.parametrize(
    "over, error, message",
    [
        ({"sensitve": "gender"}, SpecError, r"unknown spec key\(s\) \['sensitve'\]"),
        ({"target_kind": "ordinal"}, SpecError, r"target_kind must be 'binary' or 'score'"),
        ({"immutable": ["height"]}, SpecError, r"immutable feature 'height' is not a feature"),
        (
            {"graph": {"edges": {"gender": ["income"], "income": ["age"], "age": ["gender"]}}},
            GraphError,
            r"not acyclic.*cycle",
        ),
        ({"graph": {"edges": {"gender": ["salary"]}}}, GraphError, r"\['salary'\], which are not columns"),
        ({"target_kind": "score"}, DataError, r"declared score but has only 2 distinct values"),
    ],
)
def test_bad_spec_errors(tmp_path, over, error, message):
    _toy().to_csv(tmp_path / "d.csv", index=False)
    with pytest.raises(error, match=message):
        D.from_csv(tmp_path / "d.csv", _spec(**over))


def test_multivalued_sensitive_rejected_where_binary_required(law):
    frame, spec = law
    spec_race = D.with_spec(spec, sensitive="race", subgroups=["race"])
    with pytest.raises(DataError, match=r"needs a binary sensitive attribute.*'race' has 8 values"):
        D.require_binary_sensitive(frame, spec_race, "the GAN baseline")


def test_empty_subgroup_in_fold(compas):
    frame, spec = compas
    rows = np.flatnonzero(frame["race"] == "Caucasian")
    with pytest.raises(DataError, match=r"\['Non-Caucasian'\] have no rows in fold 2"):
        D.check_subgroups(frame, spec, rows, what="fold 2")


def test_unknown_dataset_name():
    with pytest.raises(DataError, match=r"unknown dataset 'adlut'.*from_csv"):
        D.load("adlut")


def test_frame_hash_changes_with_data(compas):
    frame, _ = compas
    h = D.frame_hash(frame)
    assert h == D.frame_hash(frame.copy())
    changed = frame.copy()
    changed.loc[0, "age"] += 1
    assert D.frame_hash(changed) != h
