"""cffair.datasets._expressions: the --where grammar agrees with pandas' query where both accept a text,
and refuses code (nothing executed) with one-line errors naming the position."""

from __future__ import annotations

import argparse

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cffair.datasets._expressions import MAX_DEPTH, Comparison, Logical, Membership, Not, parse, select
from cffair.errors import ExpressionError


def _frame() -> pd.DataFrame:
    rng = np.random.default_rng(0)
    n = 60
    return pd.DataFrame(
        {
            "age": rng.integers(18, 80, n),
            "income": rng.normal(50.0, 20.0, n).round(2),
            "sex": pd.Categorical(rng.choice(["Female", "Male"], n)),
            "race": pd.Categorical(rng.choice(["Black", "White", "Asian"], n)),
            "education": pd.Categorical(
                rng.choice(["HS", "BSc", "MSc"], n), categories=["HS", "BSc", "MSc"], ordered=True
            ),
            "hours-per-week": rng.integers(10, 60, n),
        }
    )


FRAME = _frame()

SAFE = [
    "age <= 30",
    "age > 30 and income < 40.5",
    "age > 30 or income < 40.5 and sex == 'Male'",
    "(age > 30 or income < 40.5) and sex == 'Male'",
    "not age < 50",
    "not (sex == 'Female' or race == 'Black')",
    "sex != 'Female'",
    "race in ['Black', 'Asian']",
    "race not in ('Black',)",
    "30 < age",
    "40 >= age and -1e3 < income",
    "`hours-per-week` >= 40",
    "education >= 'BSc'",
    "education < 'MSc' and education != 'HS'",
    "age == 44.0",
    "income >= 1.5e1",
    'age >= 20 and age <= 40 and race == "White"',
    "age < `hours-per-week`",
    "age in [20, 30, 40, 50]",
]


@pytest.mark.parametrize("text", SAFE)
def test_known_answers_equal_pandas_query(text):
    expected = FRAME.eval(text).to_numpy(dtype=bool)  # a trusted text, written here
    assert select(FRAME, text).tolist() == expected.tolist()


_NUM = st.sampled_from(["age", "income", "`hours-per-week`"])
_OPS = st.sampled_from(["==", "!=", "<", "<=", ">", ">="])


@st.composite
def _atoms(draw):
    if draw(st.booleans()):
        return f"{draw(_NUM)} {draw(_OPS)} {draw(st.integers(-10, 90))}"
    col, values = draw(st.sampled_from([("sex", ["Female", "Male"]), ("race", ["Black", "White", "Asian"])]))
    if draw(st.booleans()):
        return f"{col} {draw(st.sampled_from(['==', '!=']))} {draw(st.sampled_from(values))!r}"
    picked = draw(st.lists(st.sampled_from(values), min_size=1, max_size=3))
    return f"{col} {draw(st.sampled_from(['in', 'not in']))} {picked!r}"


_EXPR = st.recursive(
    _atoms(),
    lambda inner: st.one_of(
        st.tuples(inner, st.sampled_from(["and", "or"]), inner).map(lambda t: f"({t[0]} {t[1]} {t[2]})"),
        inner.map(lambda e: f"not ({e})"),
    ),
    max_leaves=6,
)


@settings(max_examples=80, deadline=None)
@given(_EXPR)
def test_random_expressions_equal_pandas_query(text):
    assert select(FRAME, text).tolist() == FRAME.eval(text).to_numpy(dtype=bool).tolist()


def test_precedence_and_tree_shape():
    tree = parse("a == 1 or b == 2 and not c == 3")
    assert isinstance(tree, Logical) and tree.op == "or"
    right = tree.operands[1]
    assert isinstance(right, Logical) and right.op == "and" and isinstance(right.operands[1], Not)
    assert isinstance(parse("x not in [1, 2]"), Membership) and parse("x not in [1, 2]").negated
    assert isinstance(parse("`a b` < 3"), Comparison) and parse("`a b` < 3").left.name == "a b"


def test_case_insensitive_value_when_unambiguous():
    assert select(FRAME, "sex == 'female'").tolist() == (FRAME["sex"] == "Female").tolist()
    frame = pd.DataFrame({"g": pd.Categorical(["ab", "AB", "c", "c"])})
    assert select(frame, "g == 'C'").tolist() == [False, False, True, True]
    assert select(frame, "g == 'AB'").tolist() == [False, True, False, False]  # an exact match wins
    with pytest.raises(
        ExpressionError, match=r"'Ab' is not a value of column 'g': matches \['AB', 'ab'\] when case is ignored"
    ):
        select(frame, "g == 'Ab'")


def test_unknown_value_lists_the_values():
    with pytest.raises(ExpressionError) as e:
        select(FRAME, "race == 'Martian'")
    msg = str(e.value)
    assert "'Martian' is not a value of column 'race'" in msg and "['Asian', 'Black', 'White']" in msg
    assert "character 9" in msg and "\n" not in msg


def test_unknown_column_lists_the_columns():
    with pytest.raises(ExpressionError) as e:
        select(FRAME, "sex == 'Male' and agee > 3")
    assert (
        "unknown column 'agee'" in str(e.value)
        and "'hours-per-week'" in str(e.value)
        and "character 19" in str(e.value)
    )


@pytest.mark.parametrize(
    ("text", "where", "expected"),
    [
        ("age <= ", 8, "expected a column name or a value"),
        ("(age > 3", 9, "expected ')'"),
        ("age = 3", 5, "compare with =="),
        ("age > 3 & sex == 'Male'", 9, "write and"),
        ("age 3", 5, "expected a comparison operator"),
        ("1 == 1", 1, "one side must be a column"),
        ("18 < age < 30", 10, "chained comparisons"),
        ("race in 'Black'", 9, "a list of values"),
        ("", 1, "empty expression"),
        ("sex == 'Male", 8, "unclosed string"),
        ("`age > 3", 1, "unclosed backtick"),
        ("age > 3 sex == 'Male'", 9, "'and', 'or' or the end"),
        ("sex < 'Male'", 7, "categorical without an order"),
        ("age == 'old'", 8, "numeric but is compared with the string"),
    ],
)
def test_syntax_and_type_errors_name_the_position(text, where, expected):
    with pytest.raises(ExpressionError) as e:
        select(FRAME, text)
    msg = str(e.value)
    assert f"character {where}:" in msg and expected in msg and "\n" not in msg


CRAFTED = [
    "__import__('os').system('touch {marker}')",
    "__import__('os').system",
    "@pd.io.common.os.system('touch {marker}')",
    "age.__class__",
    "sex.str.lower() == 'female'",
    "open('{marker}', 'w')",
    "age > 3 and `age`.__class__.__mro__",
    "(lambda: __import__('os').system('touch {marker}'))()",
    "[x for x in ().__class__.__bases__]",
    "age > 3; import os",
]


@pytest.mark.parametrize("template", CRAFTED)
def test_crafted_strings_are_refused_and_nothing_runs(template, tmp_path):
    marker = tmp_path / "marker"
    text = template.format(marker=marker)
    with pytest.raises(ExpressionError) as e:
        select(FRAME, text)
    assert "\n" not in str(e.value) and "character" in str(e.value)
    assert not marker.exists()


# ---------------------------------------------------------------------------- nesting and a bounded fuzz
@pytest.mark.parametrize(
    ("depth", "wrap"),
    [
        (MAX_DEPTH, "paren"),
        (MAX_DEPTH, "not"),
        (MAX_DEPTH + 1, "paren"),
        (MAX_DEPTH + 1, "not"),
        (250, "paren"),
        (1000, "not"),
    ],
)
def test_nesting_is_limited_with_a_one_line_error(depth, wrap):
    """outcome class: accepted up to MAX_DEPTH levels (the known answer), one-line error beyond (no RecursionError)."""
    text = "(" * depth + "age > 30" + ")" * depth if wrap == "paren" else "not " * depth + "age > 30"
    if depth <= MAX_DEPTH:
        expected = (FRAME["age"] > 30).to_numpy()
        assert select(FRAME, text).tolist() == (expected if wrap == "paren" or depth % 2 == 0 else ~expected).tolist()
        return
    with pytest.raises(ExpressionError, match=rf"nest more than {MAX_DEPTH} deep") as e:
        select(FRAME, text)
    assert "\n" not in str(e.value) and len(str(e.value)) < 400  # one line; a long text is shortened


#: Pieces of --where texts: the grammar's tokens, the frame's columns and values, and what attacks use.
_PIECES = st.sampled_from(
    [
        "age",
        "income",
        "sex",
        "race",
        "education",
        "`hours-per-week`",
        "`age`",
        "agee",
        "(",
        ")",
        "[",
        "]",
        ",",
        "not",
        "and",
        "or",
        "in",
        "==",
        "!=",
        "<",
        "<=",
        ">",
        ">=",
        "=",
        "'Female'",
        "'female'",
        '"Male"',
        "'HS'",
        "'Martian'",
        "30",
        "-1e3",
        "4.5",
        ".5",
        "+",
        "-",
        "True",
        "False",
        "@",
        ".",
        "__import__",
        "'os'",
        "`",
        "'",
        '"',
        "\\",
        "~",
        "&",
        "|",
        "!",
        "1e999",
        "0x1F",
        "é",
        "\t",
    ]
)


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.lists(_PIECES, max_size=14).map(" ".join), st.text(max_size=40)))
def test_fuzzed_where_gives_a_mask_or_one_line_error(text):
    """outcome class: a boolean mask of one value per row, or ExpressionError on one line; never another exception."""
    from cffair.cli._options import where_expression

    try:
        mask = select(FRAME, text)
    except ExpressionError as exc:
        assert "\n" not in str(exc) and str(exc)
    else:
        assert mask.dtype == bool and mask.shape == (len(FRAME),)
    try:  # the command line's check of the syntax, before any data is read
        assert where_expression(text) == text
    except argparse.ArgumentTypeError as exc:
        assert "\n" not in str(exc) and str(exc)
