"""cffair.datasets._checks: YAML without duplicate keys, CSV separators, index columns, magnitudes, one-hot groups."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from cffair._support import yaml_files
from cffair.datasets import _checks as checks
from cffair.datasets import from_csv
from cffair.errors import DataError, DataWarning, SpecError

# ---------------------------------------------------------------------------- YAML
_keys = st.text("abcdefgh_", min_size=1, max_size=6)
_scalars = st.one_of(st.integers(-5, 5), st.booleans(), st.text("xyz", max_size=3), st.none())
_docs = st.recursive(
    _scalars,
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(_keys, inner, max_size=4)),
    max_leaves=10,
)


@settings(max_examples=60, deadline=None)
@given(_docs)
def test_documents_without_duplicates_load_as_safe_load(doc):
    text = yaml.safe_dump(doc)
    assert yaml_files.safe_load_unique(text) == yaml.safe_load(text)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "target: y\nsensitive: a\nsensitive: b\n",
            "line 3, column 1: the key 'sensitive' is given twice (lines 2 and 3, values 'a' and 'b')",
        ),
        (
            "features:\n  age: integer\n  age: continuous\n",
            "the feature 'age' is listed twice under 'features' (lines 2 and 3) as 'integer' and as 'continuous'",
        ),
        (
            "features: {age: integer, age: integer}\n",
            "the feature 'age' is listed twice under 'features' (lines 1 and 1);",
        ),
        ("edges:\n  s: [a]\n  s: [b]\n", "the parent 's' is given twice under 'edges'"),
        ("a:\n  - {k: 1, k: 2}\n", "the key 'k' is given twice in 'a'"),
    ],
)
def test_duplicate_keys_are_refused_with_both_lines(text, expected):
    with pytest.raises(yaml_files.DuplicateKeyError) as e:
        yaml_files.safe_load_unique(text)
    assert expected in str(e.value)


def test_same_key_in_different_mappings_is_fine():
    text = "a: {k: 1}\nb: {k: 2}\n"
    assert yaml_files.safe_load_unique(text) == {"a": {"k": 1}, "b": {"k": 2}}


def test_spec_file_with_duplicate_key_is_a_spec_error(tmp_path):
    from cffair.datasets import read_spec

    path = tmp_path / "spec.yaml"
    path.write_text("target: y\ntarget_kind: binary\nsensitive: a\nsensitive: b\n")
    with pytest.raises(SpecError, match=rf"spec file {path}, line 4, column 1: the key 'sensitive' is given twice"):
        read_spec(path)


# ---------------------------------------------------------------------------- CSV
FRAME = pd.DataFrame({"g": ["F", "M"] * 10, "x": np.arange(20) * 1.5, "z": np.arange(20) % 7, "y": [0, 1, 1, 0] * 5})
SPEC = {"target": "y", "target_kind": "binary", "sensitive": "g"}


@pytest.mark.parametrize("sep", [",", ";", "\t", "|"])
def test_separator_is_sniffed_and_the_data_round_trips(tmp_path, sep):
    path = tmp_path / "d.csv"
    FRAME.to_csv(path, sep=sep, index=False)
    assert checks.sniff_separator(path) == sep
    frame, _spec = from_csv(path, SPEC)
    assert list(frame.columns) == ["g", "x", "z", "y"]
    np.testing.assert_allclose(frame["x"].to_numpy(), FRAME["x"].to_numpy())
    assert frame["g"].astype(str).tolist() == FRAME["g"].tolist()


def test_a_comma_in_a_quoted_field_does_not_fool_the_sniffer(tmp_path):
    path = tmp_path / "d.csv"
    FRAME.assign(g=[f'"F, {i}"' if i % 2 else "M" for i in range(20)]).to_csv(
        path, sep=";", index=False, quoting=3, escapechar="\\"
    )
    assert checks.sniff_separator(path) == ";"


def test_given_separator_wins_and_is_named_in_the_error(tmp_path):
    path = tmp_path / "d.csv"
    FRAME.to_csv(path, sep=";", index=False)
    with pytest.raises(
        DataError, match=r"read with the separator ',' \(comma\) into 1 column\(s\).*splits at ';' \(semicolon\) into 4"
    ):
        from_csv(path, SPEC, sep=",")


def test_index_column_refused_when_features_are_inferred(tmp_path):
    path = tmp_path / "d.csv"
    FRAME.to_csv(path)  # with the index
    with pytest.raises(
        DataError, match=r"column 'Unnamed: 0' .* \(column 1, with an empty name in the header\).*index=False"
    ):
        from_csv(path, SPEC)
    _frame, spec = from_csv(path, {**SPEC, "features": ["g", "x", "z"]})
    assert spec.feature_names == ["g", "x", "z"]
    assert checks.index_columns(["Unnamed: 0", "Unnamed: x", "a", "Unnamed: 12"]) == ["Unnamed: 0", "Unnamed: 12"]


def test_huge_number_named_with_line_and_column(tmp_path):
    path = tmp_path / "d.csv"
    FRAME.assign(x=FRAME["x"].where(FRAME.index != 4, 1e308)).to_csv(path, index=False)
    with pytest.raises(DataError, match=rf"column 'x' holds 1 value\(s\) too large .* \(1e\+308\) at line 6 of {path}"):
        from_csv(path, SPEC)
    FRAME.assign(x=FRAME["x"].where(FRAME.index != 4, 3e38)).to_csv(path, index=False)
    assert from_csv(path, SPEC).frame["x"].max() == 3e38  # within float32: accepted


def test_onehot_groups_known_answer():
    frame = pd.DataFrame(
        {
            "c_a": [1, 0, 0, 1],
            "c_b": [0, 1, 0, 0],
            "c_c": [0, 0, 1, 0],  # one-hot
            "m-x": [1, 1, 0, 0],
            "m-y": [0, 1, 1, 0],  # multi-hot: rows sum to 2 and 0
            "solo_1": [0, 1, 0, 1],  # a group of one
            "p=1": [1, 0, 1, 0],
            "p=2": [0, 1, 0, 1],
        }
    )
    assert checks.onehot_groups(frame, list(frame.columns)) == {
        ("c", "_"): ["c_a", "c_b", "c_c"],
        ("p", "="): ["p=1", "p=2"],
    }


def test_onehot_group_warns_with_the_fix(tmp_path):
    path = tmp_path / "d.csv"
    FRAME.assign(k_1=(np.arange(20) % 2 == 0).astype(int), k_2=(np.arange(20) % 2 == 1).astype(int)).to_csv(
        path, index=False
    )
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        _frame, spec = from_csv(path, SPEC)
    msgs = [str(w.message) for w in caught if issubclass(w.category, DataWarning)]
    assert len(msgs) == 1 and "['k_1', 'k_2']" in msgs[0] and "decode_onehot(frame, 'k')" in msgs[0]
    assert spec.features["k_1"] == "binary"  # still loaded: a warning, not a refusal


def test_graph_edge_into_sensitive_is_refused():
    from cffair.datasets._graph import CausalGraph
    from cffair.errors import GraphError

    g = CausalGraph.from_edges([("a", "s"), ("s", "b")])
    with pytest.raises(
        GraphError, match=r"the edge\(s\) a -> s into the sensitive attribute 's'; it must be a root.*s: \[a\]"
    ):
        g.validate(["a", "s", "b"], sensitive="s")
    assert CausalGraph.from_edges([("s", "a"), ("a", "b")]).validate(["a", "s", "b"], sensitive="s") == []


def test_own_plan_reads_with_the_given_separator(tmp_path):
    from cffair import datasets
    from cffair.experiments._config import ConfigError
    from cffair.workflows import _own as own

    path = tmp_path / "d.csv"
    FRAME.to_csv(path, sep="|", index=False)
    spec = {**SPEC, "name": "sepcheck", "graph": {"edges": {"g": ["x", "z"]}}}
    try:
        with pytest.raises(ConfigError, match=r"sep must be one character .* got ';;'"):
            own.plan(path, spec, options=own.RunOptions(sep=";;", folds=2, quick=True, out=tmp_path / "out"))
        plan, (frame, ds_spec) = own.plan(
            path, spec, options=own.RunOptions(sep="|", folds=2, quick=True, out=tmp_path / "out")
        )
        assert ds_spec.feature_names == ["g", "x", "z"] and len(frame) == len(FRAME)
        assert datasets.registration("sepcheck").read_csv == {"sep": "|"}
        with pytest.raises(DataError, match=r"read with the separator ';' \(semicolon\) into 1 column"):
            own.plan(path, spec, options=own.RunOptions(sep=";", folds=2, quick=True, out=tmp_path / "out"))
    finally:
        datasets.unregister("sepcheck")
