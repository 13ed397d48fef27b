"""Bring-your-own-data inputs that used to pass silently or crash with a traceback (issue 14).

Every case writes real files (CSV, YAML, parquet) into ``tmp_path`` and checks the message:
what is wrong, where (file, line, column) and how to fix it.
"""

from __future__ import annotations

import re
import warnings

import numpy as np
import pandas as pd
import pytest
import yaml

from cffair import datasets as D
from cffair.causal._cfset import CounterfactualSet
from cffair.datasets._encoding import Encoder
from cffair.datasets._graph import load_graph
from cffair.errors import CounterfactualError, DataError, GraphError, GraphWarning, SpecError

HEADER = "gender,age,income,score,approved"
GRAPH = {"name": "loans", "edges": {"gender": ["income", "score"], "age": ["income"]}}


def _lines(n: int = 24) -> list[str]:
    """Data lines (no header) of a small loans table; line k of the file is ``_lines()[k - 2]``."""
    rng = np.random.default_rng(0)
    out = []
    for i in range(n):
        g = "f" if i % 2 else "m"
        age = 20 + (i * 7) % 50
        income = round(40 + 5 * (g == "m") + 0.3 * age + rng.normal(0, 2), 2)
        out.append(f"{g},{age},{income},{rng.normal():.3f},{int(income > 52)}")
    return out


def _csv(tmp_path, lines: list[str], name: str = "loans.csv", header: str = HEADER):
    path = tmp_path / name
    path.write_text("\n".join([header, *lines]) + "\n", encoding="utf-8")
    return path


def _spec(**over):
    spec = {"name": "loans", "target": "approved", "target_kind": "binary", "sensitive": "gender", "graph": GRAPH}
    spec.update(over)
    return spec


def test_the_clean_file_loads(tmp_path):
    """The baseline every other case breaks: the file and spec load without warning."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        frame, spec = D.from_csv(_csv(tmp_path, _lines()), _spec())
    assert len(frame) == 24 and spec.features == {
        "gender": "binary",
        "age": "integer",
        "income": "continuous",
        "score": "continuous",
    }


# ----------------------------------------------------------------------------- the causal graph
def test_sensitive_attribute_missing_from_graph(tmp_path):
    graph = {"edges": {"age": ["income", "score"]}}
    with pytest.raises(GraphError) as err:
        D.from_csv(_csv(tmp_path, _lines()), _spec(graph=graph))
    msg = str(err.value)
    assert "the sensitive attribute 'gender' is not in the causal graph" in msg
    assert "flip only the 'gender' column" in msg and "look fair" in msg
    assert (
        "Add 'gender' to the graph with arrows to the features it causes, e.g. edges: {gender: [income, score, age]}"
        in msg
    )


def test_features_left_out_of_graph_warn_and_become_roots(tmp_path):
    graph = {"edges": {"gender": ["income"]}}
    with pytest.warns(GraphWarning, match=r"leaves out the feature\(s\) \['age', 'score'\]: they become roots"):
        _, spec = D.from_csv(_csv(tmp_path, _lines()), _spec(graph=graph))
    with pytest.warns(GraphWarning, match=r"\['age', 'score'\]"):
        g = spec.load_graph()
    assert g.parents("age") == () and g.parents("score") == () and "score" not in g.descendants("gender")


def test_roots_declared_under_nodes_do_not_warn(tmp_path):
    graph = {"edges": {"gender": ["income"]}, "nodes": ["age", "score"]}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _, spec = D.from_csv(_csv(tmp_path, _lines()), _spec(graph=graph))
        assert set(spec.load_graph().roots) == {"gender", "age", "score"}


def test_sensitive_attribute_without_children_warns(tmp_path):
    graph = {"edges": {"age": ["income", "score"]}, "nodes": ["gender"]}
    with pytest.warns(GraphWarning, match=r"'gender' has no children.*change only that column"):
        D.from_csv(_csv(tmp_path, _lines()), _spec(graph=graph))


def test_target_in_graph_says_it_must_stay_out(tmp_path):
    graph = {"edges": {"gender": ["income", "score"], "income": ["approved"]}}
    with pytest.raises(GraphError) as err:
        D.from_csv(_csv(tmp_path, _lines()), _spec(graph=graph))
    msg = str(err.value)
    assert "the target 'approved' is a node of the causal graph" in msg
    assert "in the edge(s) income -> approved" in msg and "must stay out of the graph" in msg
    assert "not a column of the data" not in msg


def test_graph_yaml_syntax_error_names_file_line_and_column(tmp_path):
    path = tmp_path / "graph.yaml"
    path.write_text("name: loans\nedges:\n  gender: [income, score\n  age: [income]\n")
    with pytest.raises(
        GraphError,
        match=rf"graph file {re.escape(str(path))} is not valid YAML at line 4, column 6: expected ',' or '\]'.*starts on line 3",
    ):
        load_graph(path)
    spec = tmp_path / "spec.yaml"
    spec.write_text(yaml.safe_dump(_spec(graph="graph.yaml")))
    with pytest.raises(GraphError, match=r"graph.yaml is not valid YAML"):
        D.from_csv(_csv(tmp_path, _lines()), spec)


@pytest.mark.parametrize(
    "graph, message",
    [
        (
            {"edges": "gender -> income"},
            r"'edges' must be a mapping parent: \[children\] or a list of \[parent, child\] pairs",
        ),
        ({"edges": {"gender": {"income": 1}}}, r"children of 'gender' .* must be a list of column names"),
        ({"edges": {"gender": ["income"]}, "nodes": "age"}, r"'nodes' must be a list of column names"),
        ({"edges": {"gender": ["income"]}, "verified": "no"}, r"'verified' must be true or false"),
    ],
)
def test_graph_file_of_wrong_shape(tmp_path, graph, message):
    path = tmp_path / "g.yaml"
    path.write_text(yaml.safe_dump(graph))
    with pytest.raises(GraphError, match=rf"graph file {re.escape(str(path))}: .*{message}"):
        load_graph(path)


# ----------------------------------------------------------------------------- values in the CSV
@pytest.mark.parametrize("value", ["inf", "-inf"])
def test_infinity_names_column_and_line(tmp_path, value):
    lines = _lines()
    lines[5] = lines[5].replace(lines[5].split(",")[2], value, 1)  # file line 7
    path = _csv(tmp_path, lines)
    with pytest.raises(
        DataError,
        match=rf"column 'income' has 1 infinite value\(s\), the first \({value}\) at line 7 of {re.escape(str(path))}.*replace",
    ):
        D.from_csv(path, _spec())


def test_line_numbers_count_blank_lines_and_quoted_newlines(tmp_path):
    lines = _lines()
    lines.insert(2, "")  # a blank line (pandas skips it): file line 4
    lines[0] = 'f,"30",41.0,0.5,0'  # quoted, still one line
    lines[4] = lines[4] + "\n"  # another blank line after file line 6
    bad = lines[9].split(",")
    lines[9] = ",".join([bad[0], bad[1], "", bad[3], bad[4]])  # NaN income on file line 12
    path = _csv(tmp_path, lines)
    assert path.read_text().splitlines()[11].split(",")[2] == ""
    with pytest.raises(
        DataError,
        match=rf"missing values \(NaN\) in column\(s\) {{'income': 1}} \(the first in 'income' at line 12 of {re.escape(str(path))}\)",
    ):
        D.from_csv(path, _spec())


def test_nan_names_column_and_line(tmp_path):
    lines = _lines()
    g, a, inc, s, y = lines[3].split(",")
    lines[3] = f"{g},,{inc},{s},{y}"  # missing age on file line 5
    with pytest.raises(DataError, match=r"missing values \(NaN\) .*'age'.* at line 5 of .*loans\.csv.*does not impute"):
        D.from_csv(_csv(tmp_path, lines), _spec())


def test_fraction_in_integer_feature_names_line(tmp_path):
    lines = _lines()
    parts = lines[2].split(",")
    lines[2] = ",".join([parts[0], "33.5", *parts[2:]])  # file line 4
    with pytest.raises(
        DataError,
        match=r"'age' is declared integer but has fractional values \(the first, 33.5, at line 4 of .*declare it 'continuous'",
    ):
        D.from_csv(
            _csv(tmp_path, lines),
            _spec(features={"gender": "binary", "age": "integer", "income": "continuous", "score": "continuous"}),
        )


# ----------------------------------------------------------------------------- subgroup bins
def test_bins_that_do_not_cover_the_data(tmp_path):
    spec = _spec(subgroups=["gender", {"column": "age", "bins": [20, 40, 60], "labels": ["young", "older"]}])
    with pytest.raises(DataError) as err:
        D.from_csv(_csv(tmp_path, _lines()), spec)
    msg = str(err.value)
    ages = np.array([20 + (i * 7) % 50 for i in range(24)])
    uncovered = sorted(set(ages[(ages <= 20) | (ages > 60)].tolist()))
    assert (
        f"the subgroup bins of 'age' (edges [20.0, 40.0, 60.0]) do not cover {int(((ages <= 20) | (ages > 60)).sum())} row(s)"
        in msg
    )
    assert f"with the value(s) {uncovered}" in msg
    assert "the first edge 20 itself is outside" in msg  # right-closed bins exclude the first edge
    assert "-.inf" in msg and ".inf" in msg


def test_covering_bins_give_every_row_a_subgroup(tmp_path):
    spec = _spec(subgroups=["gender", {"column": "age", "bins": [-np.inf, 40, np.inf], "labels": ["young", "older"]}])
    frame, s = D.from_csv(_csv(tmp_path, _lines()), spec)
    labels = s.subgroup_labels(frame)
    expected = np.where(frame["age"] <= 40, "young", "older")
    assert (labels.str.split(", ").str[1].to_numpy() == expected).all()


def test_subgroup_labels_refuse_rows_outside_the_bins():
    spec = D.DatasetSpec(
        name="t",
        target="y",
        target_kind="binary",
        sensitive="s",
        features={"s": "binary", "a": "integer"},
        subgroups=(D.SubgroupColumn("a", bins=(0.0, 10.0)),),
    )
    frame = pd.DataFrame({"s": ["x", "y"], "a": [5, 11], "y": [0, 1]})
    with pytest.raises(DataError, match=r"do not cover 1 row\(s\) with the value\(s\) \[11\]"):
        spec.subgroup_labels(frame)


@pytest.mark.parametrize(
    "subgroup, message",
    [
        ({"column": "age", "bins": "0,30,60"}, r"the bins of subgroup 'age' must be a list of numbers, got '0,30,60'"),
        (
            {"column": "age", "bins": ["-inf", "30", "inf"]},
            r"the bins of subgroup 'age' must be numbers, but \['-inf', '30', 'inf'\] are str; write the edges unquoted",
        ),
        ({"column": "age", "bins": [0, "thirty", 100]}, r"must be numbers, but \['thirty'\] is a str"),
        (
            {"column": "gender", "bins": [0, 1, 2]},
            r"subgroup 'gender' has bins, but 'gender' is binary: bins split a numeric",
        ),
        (
            {"column": "age", "bins": [-np.inf, 30, np.inf], "labels": "young"},
            r"labels of subgroup 'age' must be a list",
        ),
    ],
)
def test_bad_bins_in_a_spec_file(tmp_path, subgroup, message):
    path = tmp_path / "spec.yaml"
    path.write_text(yaml.safe_dump(_spec(subgroups=["gender", subgroup])))
    with pytest.raises(SpecError, match=message):
        D.from_csv(_csv(tmp_path, _lines()), path)


# ----------------------------------------------------------------------------- the file itself
def test_duplicated_header_names(tmp_path):
    path = _csv(tmp_path, [line + ",1" for line in _lines()], header=HEADER + ",income")
    with pytest.raises(
        DataError,
        match=rf"the header of {re.escape(str(path))} .* names a column more than once: 'income' in columns \[3, 6\].*'income.1'",
    ):
        D.from_csv(path, _spec())


@pytest.mark.parametrize("content", [b"", b"\n\n  \n"])
def test_empty_csv(tmp_path, content):
    path = tmp_path / "empty.csv"
    path.write_bytes(content)
    with pytest.raises(DataError, match=rf"{re.escape(str(path))} is empty: a CSV file needs a header line"):
        D.from_csv(path, _spec())


def test_header_only_csv(tmp_path):
    path = _csv(tmp_path, [])
    with pytest.raises(DataError, match=rf"{re.escape(str(path))} has a header \(5 columns: .*\) but no data rows"):
        D.from_csv(path, _spec())


def test_non_utf8_csv_names_line_and_byte(tmp_path):
    lines = _lines()
    lines = [line.replace("m,", "m,", 1) for line in lines]
    text = "\n".join([HEADER.replace("gender", "genre"), *lines]).replace("\nm,", "\nm\xe9,", 1)  # first 'm' row
    path = tmp_path / "latin.csv"
    path.write_bytes(text.encode("latin-1"))
    line_no = next(i for i, line in enumerate(text.split("\n"), start=1) if "\xe9" in line)
    with pytest.raises(
        DataError,
        match=rf"{re.escape(str(path))} is not UTF-8 text: line {line_no}, byte 2 is 0xe9.*encoding='latin-1'",
    ):
        D.from_csv(path, _spec(sensitive="genre"))
    frame, _ = D.from_csv(
        path,
        _spec(sensitive="genre", graph={"edges": {"genre": ["income", "score"], "age": ["income"]}}),
        encoding="latin-1",
    )
    assert set(frame["genre"].astype(str)) == {"f", "m", "m\xe9"}


def test_missing_csv_file(tmp_path):
    with pytest.raises(DataError, match=r"data file .*nope\.csv does not exist"):
        D.from_csv(tmp_path / "nope.csv", _spec())


# ----------------------------------------------------------------------------- the spec file
def test_spec_yaml_syntax_error_names_file_line_and_column(tmp_path):
    path = tmp_path / "spec.yaml"
    path.write_text("name: loans\ntarget: approved\ntarget_kind: binary\nsensitive: gender: f\n")
    with pytest.raises(
        SpecError,
        match=rf"spec file {re.escape(str(path))} is not valid YAML at line 4, column 18: mapping values are not allowed here",
    ):
        D.from_csv(_csv(tmp_path, _lines()), path)


def test_spec_file_that_is_not_a_mapping(tmp_path):
    path = tmp_path / "spec.yaml"
    path.write_text("- target\n- approved\n")
    with pytest.raises(SpecError, match=r"spec file .*spec.yaml must hold a mapping .* got list"):
        D.from_csv(_csv(tmp_path, _lines()), path)


@pytest.mark.parametrize(
    "over, message",
    [
        (
            {"features": "gender, age, income"},
            r"'features' must be a mapping \{column: kind\} or a list of column names, got the string 'gender, age, income'",
        ),
        ({"features": 3}, r"'features' must be a mapping .* got int 3"),
        ({"features": ["age", "age", "gender"]}, r"'features' lists \['age'\] more than once"),
        ({"immutable": "age"}, r"'immutable' must be a list of column names, got the string 'age'.*immutable: \[age\]"),
        ({"subgroups": "gender"}, r"'subgroups' must be a list .* got 'gender'"),
        ({"target": 3}, r"'target' must be a column name \(text\), got 3"),
        ({"graph": 3}, r"'graph' must be a packaged graph name, a path to a YAML file or a mapping, got 3"),
        ({"favourable_top_fraction": "0.4"}, r"favourable_top_fraction must be a number in \(0, 1\), got '0.4'"),
    ],
)
def test_spec_values_of_the_wrong_type(tmp_path, over, message):
    path = tmp_path / "spec.yaml"
    path.write_text(yaml.safe_dump(_spec(**over)))
    with pytest.raises(SpecError, match=message):
        D.from_csv(_csv(tmp_path, _lines()), path)


def test_spec_round_trip_keeps_bins_without_labels():
    spec = D.DatasetSpec.from_dict(
        {
            "target": "y",
            "target_kind": "binary",
            "sensitive": "s",
            "features": {"s": "binary", "a": "integer"},
            "subgroups": [{"column": "a", "bins": [-np.inf, 30, np.inf]}],
        }
    )
    assert D.DatasetSpec.from_dict(spec.to_dict()) == spec


def test_one_fold_is_refused(tmp_path):
    frame, spec = D.from_csv(_csv(tmp_path, _lines()), _spec())
    with pytest.raises(DataError, match=r"n_splits must be a whole number of at least 2.*got 1"):
        D.make_folds(frame, spec, n_splits=1)


def test_encoder_names_infinite_feature_and_row(tmp_path):
    frame, spec = D.from_csv(_csv(tmp_path, _lines()), _spec())
    enc = Encoder(spec).fit(frame)
    bad = frame.copy()
    bad.loc[7, "score"] = np.inf
    with pytest.raises(
        DataError, match=r"feature 'score' contains 1 NaN or infinite value\(s\), the first \(infinite\) at row 7"
    ):
        enc.transform(bad)
    with pytest.raises(DataError, match=r"feature 'score' contains 1 NaN"):
        Encoder(spec).fit(bad)


# ----------------------------------------------------------------------------- counterfactual files
@pytest.fixture()
def generated(tmp_path):
    """Counterfactuals generated (a few flow epochs) from loans.csv and saved to parquet."""
    from cffair.causal import generate

    path = _csv(tmp_path, _lines(60))
    ds = D.from_csv(path, _spec())
    cfs = generate(ds, config={"epochs": 3}, cache_dir=False, progress=False)
    cfs.save(tmp_path / "cf.parquet")
    return ds, tmp_path


def test_counterfactuals_of_a_reordered_csv_are_refused(generated):
    (frame, spec), tmp = generated
    lines = (tmp / "loans.csv").read_text().splitlines()
    reordered = tmp / "reordered.csv"
    reordered.write_text("\n".join([lines[0], *lines[1:][::-1]]) + "\n")
    frame2, spec2 = D.from_csv(reordered, _spec())
    assert sorted(map(tuple, frame2.astype(str).to_numpy())) == sorted(
        map(tuple, frame.astype(str).to_numpy())
    )  # same people
    cfs = CounterfactualSet.load(tmp / "cf.parquet")
    enc = Encoder(spec2).fit(frame2)
    stored, actual = cfs.meta["data_hash"], D.frame_hash(frame2[spec2.feature_names])
    assert stored == D.frame_hash(frame[spec.feature_names]) != actual
    with pytest.raises(CounterfactualError) as err:
        cfs.pairs(frame2, enc, "gender")
    msg = str(err.value)
    assert f"stores the data hash {stored}" in msg and f"hashes to {actual}" in msg
    assert "rows reordered" in msg and "Regenerate the counterfactuals" in msg and "check_data=False" in msg
    # the frame they were made from pairs each row with its own counterfactual
    p = cfs.pairs(frame, enc, "gender")
    np.testing.assert_array_equal(p.x, enc.transform(frame.iloc[p.row_id]))
    assert (frame["gender"].astype(str).to_numpy()[p.row_id] != p.value).all()
    # the explicit opt-out
    assert len(cfs.pairs(frame2, enc, "gender", check_data=False)) == len(p)


def test_counterfactuals_without_a_data_hash_are_accepted(generated):
    (frame, spec), tmp = generated
    flipped = frame.copy()
    flipped["gender"] = flipped["gender"].map({"f": "m", "m": "f"}).astype(frame["gender"].dtype)
    outside = CounterfactualSet.from_frames(frame, flipped, spec, "gender", meta={"generator": "elsewhere"})
    assert "data_hash" not in outside.meta
    reordered = frame.iloc[::-1].reset_index(drop=True)
    enc = Encoder(spec).fit(frame)
    assert len(outside.pairs(reordered, enc, "gender")) == len(frame)  # the method is agnostic to the source
    with pytest.raises(CounterfactualError, match=r"row ids reach 59 but the factual frame has 30 rows"):
        outside.pairs(frame.iloc[:30], enc, "gender")


def test_corrupt_counterfactual_parquet(generated):
    _, tmp = generated
    good = (tmp / "cf.parquet").read_bytes()
    truncated = tmp / "truncated.parquet"
    truncated.write_bytes(good[: len(good) // 2])
    garbage = tmp / "garbage.parquet"
    garbage.write_bytes(b"not a parquet file at all\n" * 10)
    with pytest.raises(
        CounterfactualError,
        match=rf"counterfactual file {re.escape(str(truncated))} is not a readable parquet file .*corrupt",
    ):
        CounterfactualSet.load(truncated)  # a parquet file, damaged
    with pytest.raises(
        CounterfactualError,
        match=rf"counterfactual file {re.escape(str(garbage))} is not a parquet file: it is text \(its first line",
    ):
        CounterfactualSet.load(garbage)  # no parquet file at all: said so, not "corrupt"
    as_csv = tmp / "cf.csv"
    as_csv.write_bytes((tmp / "loans.csv").read_bytes())  # a CSV given as --counterfactuals
    with pytest.raises(CounterfactualError, match=r"is not a parquet file: it is text, a CSV file by its first line"):
        CounterfactualSet.load(as_csv)
    frame, spec = D.from_csv(tmp / "loans.csv", _spec())
    with pytest.raises(CounterfactualError, match=rf"{re.escape(str(garbage))} is not a readable parquet file"):
        CounterfactualSet.from_files(frame, garbage, spec)
