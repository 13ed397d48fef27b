"""The shared input checks of cffair._validation: canonical results and exact messages."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from cffair._validation import check_labels, check_matrix, check_target_kind, check_vector, load_yaml
from cffair.errors import CounterfactualError, DataError, GraphError, SpecError


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
