"""The shared input checks of cffair._support.validation: canonical results and exact messages."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

from cffair._support.validation import (
    check_group_weights,
    check_labels,
    check_learning_rate,
    check_matrix,
    check_target_kind,
    check_vector,
)
from cffair._support.yaml_files import load_yaml
from cffair.errors import CounterfactualError, DataError, GraphError, ParameterError, SpecError


def test_check_target_kind():
    assert check_target_kind("score") == "score"
    for bad in ("ordinal", None, 1):
        with pytest.raises(SpecError, match=rf"target_kind must be 'binary' or 'score' .*got {bad!r}"):
            check_target_kind(bad)
    assert issubclass(SpecError, ValueError)  # except ValueError keeps working


def test_check_vector_canonical_forms():
    np.testing.assert_array_equal(check_vector([[1], [2], [3]], "y"), [1.0, 2.0, 3.0])  # a column is flattened
    out = check_vector(pd.Series([1, 2], dtype="int64"), "ids", dtype=np.int64)
    assert out.dtype == np.int64 and out.tolist() == [1, 2]
    assert np.isnan(check_vector([1.0, np.nan], "y", finite=False)[1])


@pytest.mark.parametrize(
    "a, kwargs, message",
    [
        (np.zeros((3, 2)), {}, r"^y must be one value per row \(1-D\), got shape \(3, 2\)\.$"),
        ([1.0, 2.0], {"length": 3}, r"^y has 2 values but there are 3 rows; give one value per row\.$"),
        (["a", "b"], {}, r"^y must be numeric, got dtype <U1 \(e\.g\. \['a', 'b'\]\)\.$"),
        (
            [0.0, 1.0, np.inf, np.nan],
            {},
            r"^y contains 2 NaN or infinite value\(s\), the first \(infinite\) at row 2; drop or fill them first\.$",
        ),
    ],
)
def test_check_vector_messages(a, kwargs, message):
    with pytest.raises(DataError, match=message):
        check_vector(a, "y", **kwargs)


def test_check_vector_raises_the_callers_error_class():
    with pytest.raises(CounterfactualError, match=r"'row_id' contains 1 NaN"):
        check_vector([0.0, np.nan], "'row_id'", error=CounterfactualError)


def test_check_matrix():
    x = check_matrix([[1, 2], [3, 4]], "X")
    assert x.dtype == np.float32 and x.shape == (2, 2)
    with pytest.raises(DataError, match=r"^X must be a 2-D array \(rows x encoded features\), got shape \(3,\)\.$"):
        check_matrix([1, 2, 3], "X")
    with pytest.raises(DataError, match=r"^X has 2 columns but 3 are expected; encode it with the same Encoder\.$"):
        check_matrix(np.zeros((4, 2)), "X", n_columns=3)
    with pytest.raises(
        DataError, match=r"X contains 1 NaN or infinite value\(s\), the first \(NaN\) at row 1, column 0"
    ):
        check_matrix([[0.0, 1.0], [np.nan, 2.0]], "X")


def test_check_labels():
    np.testing.assert_array_equal(check_labels([0, 1, 1], "binary"), [0.0, 1.0, 1.0])
    assert check_labels([0.5, 2.0], "score").tolist() == [0.5, 2.0]
    with pytest.raises(
        DataError, match=r"y: a binary target needs labels 0/1, got value\(s\) \[2\.0\]; use target_kind='score'"
    ):
        check_labels([0, 2], "binary")


def test_load_yaml_errors(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("a: 1\nb: [x, y\n")
    with pytest.raises(
        GraphError, match=r"graph file .*bad\.yaml is not valid YAML at line 3, column 1: .*starts on line 2"
    ):
        load_yaml(bad, what="graph file", error=GraphError)
    binary = tmp_path / "bin.yaml"
    binary.write_bytes(b"a: 1\nb: caf\xe9\n")
    with pytest.raises(SpecError, match=r"spec file .*bin\.yaml is not UTF-8 text: byte 0xe9 on line 2"):
        load_yaml(binary, what="spec file", error=SpecError)
    with pytest.raises(SpecError, match=r"spec file .*none\.yaml does not exist"):
        load_yaml(tmp_path / "none.yaml", what="spec file", error=SpecError)
    ok = tmp_path / "ok.yaml"
    ok.write_text("edges:\n  s: [a, b]\n")
    assert load_yaml(ok, what="graph file", error=GraphError) == {"edges": {"s": ["a", "b"]}}


@pytest.mark.parametrize(
    ("text", "outcome", "needle"),
    [
        (
            "sensitive: no\nfeatures: {no: binary}\n",
            "error",
            "line 1, column 12: the unquoted 'no' is read by YAML as the boolean False",
        ),
        (
            "features: {on: binary, age: integer}\n",
            "error",
            "line 1, column 12: the unquoted 'on' is read by YAML as the boolean True",
        ),
        (
            "features:\n  null: categorical\n",
            "error",
            "line 2, column 3: the unquoted 'null' is read by YAML as nothing (null)",
        ),
        ("immutable: [age, ~]\n", "error", "line 1, column 18: the unquoted '~' is read by YAML as nothing"),
        (
            "sensitive: 'no'\nfeatures: {'no': binary, 'null': categorical}\n",
            "accepted",
            {"sensitive": "no", "features": {"no": "binary", "null": "categorical"}},
        ),
        (
            "features: {age: null, sex: binary}\ngraph: null\n",
            "accepted",
            {"features": {"age": None, "sex": "binary"}, "graph": None},
        ),
    ],
    ids=["no", "on", "null key", "~ item", "quoted", "null values (kinds inferred)"],
)
def test_load_yaml_refuses_unquoted_words_where_names_belong(tmp_path, text, outcome, needle):
    """outcome class: error naming the line and the quotes to add; quoted words and null values are accepted."""
    spec = tmp_path / "spec.yaml"
    spec.write_text(text)
    if outcome == "accepted":
        assert load_yaml(spec, what="spec file", error=SpecError) == needle
        return
    with pytest.raises(SpecError, match=re.escape(f"spec file {spec}, {needle}")) as e:
        load_yaml(spec, what="spec file", error=SpecError)
    assert "put it in quotes" in str(e.value)


@pytest.mark.parametrize(
    ("value", "outcome"),
    [
        (1e-3, "accepted"),
        (0.1, "accepted"),
        (1, "accepted"),
        (np.float32(0.5), "accepted"),
        (1e6, "error"),
        (0, "error"),
        (-0.1, "error"),
        (float("nan"), "error"),
        (float("inf"), "error"),
        (True, "error"),
        ("0.1", "error"),
    ],
)
def test_check_learning_rate(value, outcome):
    """The one check of a learning rate: (0, 1], as --lr, the estimators and LTNLearner."""
    if outcome == "accepted":
        assert check_learning_rate(value) == float(value)
        return
    with pytest.raises(ParameterError, match=r"^lr must be a number in \(0, 1\], got .*use 1e-3 \(the default\)"):
        check_learning_rate(value)


@pytest.mark.filterwarnings("ignore:the predictor is constant")  # one epoch on four rows
def test_ltn_learner_refuses_a_learning_rate_out_of_range():
    """outcome class: error, as `cffair train --lr 1e6` and the estimators (it used to train and diverge)."""
    from cffair.learners._training import LTNLearner

    X, y = np.zeros((4, 2), dtype=np.float32), np.array([0.0, 1.0, 0.0, 1.0])
    learner = LTNLearner(lr=1e6, pretrain_epochs=1, progress=False)
    with pytest.raises(ParameterError, match=r"lr must be a number in \(0, 1\], got 1000000.0 \(Adam moves"):
        learner.fit(X, y)
    assert learner.model_ is None  # refused before a model was made
    assert LTNLearner(lr=1.0, pretrain_epochs=1, progress=False).fit(X, y).model_ is not None


@pytest.mark.parametrize(
    ("weights", "settings", "outcome", "needle"),
    [
        ({"acc": 1, "cf": 2}, ["acc_cf"], "accepted", {"acc": 1.0, "cf": 2.0}),
        ({"cf_sg": 2}, ["acc_cf_sg"], "accepted", {"cf_sg": 2.0}),
        ({"cke": 3}, ["ltn_acc_cf_cke"], "accepted", {"cke": 3.0}),
        ({"cf_sg": 2}, ["ltn_acc", "ltn_acc_cf_sg"], "accepted", {"cf_sg": 2.0}),
        (None, ["acc"], "accepted", {}),
        ({"cf_sg": 2}, ["acc_cf"], "error", "['cf_sg'], which setting 'acc_cf' does not have (its groups: acc, cf)"),
        ({"cf": 2}, ["acc_cf_sg"], "error", "['cf'], which setting 'acc_cf_sg' does not have (its groups: acc, cf_sg)"),
        ({"cke": 5}, ["acc"], "error", "['cke'], which setting 'acc' does not have (its groups: acc)"),
        ({"cke": 5}, ["acc", "acc_cf"], "error", "none of setting 'acc', 'acc_cf' has (their groups: acc, cf)"),
        ({"fair": 1}, ["acc"], "error", "unknown axiom group 'fair'"),
        ({"cf": -1}, ["acc_cf"], "error", "the weight of 'cf' in group_weights must be a finite number >= 0"),
        ({"cf": 1}, ["acc_fair"], "error", "setting must be one of acc, acc_cf"),
    ],
)
def test_check_group_weights(weights, settings, outcome, needle):
    """Weights of a group no chosen setting trains would change nothing: refused with the groups it has."""
    if outcome == "accepted":
        assert check_group_weights(weights, settings) == needle
        return
    with pytest.raises(ParameterError, match=re.escape(needle)):
        check_group_weights(weights, settings)
