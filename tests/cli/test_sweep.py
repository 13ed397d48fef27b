"""A sweep of bad (and tricky but good) inputs through the ``cffair`` command line.

One table, :data:`CASES`, of inputs a user may give: CSV dialects, spec files, graph shapes,
options and ``--where`` expressions. Each case names its category and its outcome class:

* ``error``: a clear one-line error, exit status 2, no traceback, naming the offending thing;
* ``warned``: accepted, with exactly one one-line warning naming the thing, and a correct result;
* ``accepted``: accepted without a word, with a check that the result is right.

Every case runs ``cffair.cli.main`` in-process on small synthetic files in ``tmp_path``; the
``--where`` cases that need a model share one checkpoint trained for a few epochs on 160 rows,
and the ``predict``/``twins`` cases one model file (``cffair fit``) of the same rows. A case may
name files that must come out byte for byte unchanged (``kept``: an output refused because it is
one of the command's inputs), and a command whose output must equal its own (``same_as``: new
rows in another dialect give the same table).
``python tests/cli/test_sweep.py --table`` prints the table category -> cases -> outcomes as Markdown.
"""

from __future__ import annotations

import io
import json
import sys
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

# ---------------------------------------------------------------------------- files
_RNG = np.random.default_rng(7)
_N = 40
BASE = pd.DataFrame(
    {
        "gender": _RNG.choice(["F", "M"], _N),
        "age": _RNG.integers(18, 70, _N),
        "income": _RNG.normal(40.0, 10.0, _N).round(2),
        "approved": _RNG.integers(0, 2, _N),
    }
)


def _csv(frame: pd.DataFrame = BASE, sep: str = ",", index: bool = False) -> str:
    return frame.to_csv(sep=sep, index=index)


def _with(column: str, row: int, value: object) -> pd.DataFrame:
    frame = BASE.copy()
    frame[column] = frame[column].astype(object)
    frame.loc[row, column] = value
    return frame


def _not_utf8_line_3() -> bytes:
    lines = _csv().splitlines()
    lines[2] = "Jos\xe9" + lines[2][lines[2].index(",") :]
    return ("\n".join(lines) + "\n").encode("latin-1")


ONEHOT = BASE.drop(columns="income").assign(
    **{f"color_{c}": (np.arange(_N) % 3 == i).astype(int) for i, c in enumerate(["red", "blue", "green"])}
)

GRAPH = "graph:\n  edges:\n    gender: [income]\n    age: [income]\n"
SPEC = (
    "target: approved\ntarget_kind: binary\nsensitive: gender\n"
    "features: {gender: binary, age: integer, income: continuous}\n"
)
SPEC_INFERRED = "target: approved\ntarget_kind: binary\nsensitive: gender\n"

# the tiny dataset of the shared checkpoint
_T = np.random.default_rng(0)
_TN = 160
_sex = _T.choice(["Female", "Male"], _TN)
_edu = (_T.normal(12.0, 2.0, _TN) + 2.0 * (_sex == "Male")).round(2)
_hours = np.clip(2 * _edu + _T.normal(10, 5, _TN), 5, 80).round(1)
TINY = pd.DataFrame(
    {
        "sex": _sex,
        "age": _T.integers(18, 70, _TN),
        "education": _edu,
        "hours-per-week": _hours,
        "y": ((_hours + _T.normal(0, 5, _TN)) > 40).astype(int),
    }
)
TINY_SPEC = (
    "name: tiny\ntarget: y\ntarget_kind: binary\nsensitive: sex\n"
    "features: {sex: binary, age: integer, education: continuous, hours-per-week: continuous}\nimmutable: [age]\n"
    "graph:\n  edges:\n    sex: [education, hours-per-week]\n    age: [education]\n    education: [hours-per-week]\n"
)


#: TINY_SPEC with its graph in a file of its own (``graph.yaml``), which no output may overwrite.
TINY_SPEC_FILE = TINY_SPEC.split("graph:")[0] + "graph: graph.yaml\n"
TINY_GRAPH = "edges:\n  sex: [education, hours-per-week]\n  age: [education]\n  education: [hours-per-week]\n"
TINY_FILES: dict[str, str | bytes] = {
    "tiny.csv": TINY.to_csv(index=False),
    "tiny.yaml": TINY_SPEC_FILE,
    "graph.yaml": TINY_GRAPH,
}
NEW = TINY.head(5)


def _new(column: str | None = None, value: object = None, row: int = 0, **to_csv: object) -> str:
    """New rows for the model: the first five rows of TINY, one cell changed."""
    frame = NEW.copy()
    if column is not None:
        frame[column] = frame[column].astype(object)
        frame.loc[row, column] = value
    return frame.to_csv(index=False, **to_csv)  # type: ignore[arg-type]


def _ragged_first_line() -> str:
    lines = _new().splitlines()
    lines[1] += ",7"
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------- checks of accepted results
def _described(expected_rows: int, features: dict[str, list[str]]) -> Callable[[str, Path], None]:
    """The ``data describe --json`` output has these rows and features by kind."""

    def check(out: str, d: Path) -> None:
        info = json.loads(out)
        assert info["rows"] == expected_rows
        got = {k: sorted(v) for k, v in info["features_by_kind"].items()}
        assert got == {k: sorted(v) for k, v in features.items()}, got

    return check


_BASE_KINDS = {"binary": ["gender"], "integer": ["age"], "continuous": ["income"]}


def _selected(expected: int) -> Callable[[str, Path], None]:
    """``query cf`` reports ``expected`` selected rows and a truth value in [0, 1]."""

    def check(out: str, d: Path) -> None:
        line = next(x for x in out.splitlines() if "pairs from" in x)
        rows = int(line.split("pairs from")[1].split("rows")[0].replace(",", ""))
        sat = float(line.split("sat =")[1])
        assert rows == expected and 0.0 <= sat <= 1.0, line

    return check


def _options_accepted(**expected: object) -> Callable[[str, Path], None]:
    def check(out: str, d: Path) -> None:
        got = json.loads(out)
        assert all(got[k] == v for k, v in expected.items()), got

    return check


# ---------------------------------------------------------------------------- the table
@dataclass(frozen=True)
class Case:
    """One input and the outcome it must have.

    ``argv`` may hold ``{d}`` (the case's folder, where ``files`` are written) and ``{ckpt}``
    (the shared checkpoint). ``mode="check"`` only parses the options and runs their check
    (for options that are accepted but would start long work). ``marker``: the folder's file
    ``marker`` must not exist afterwards (a crafted string tried to create it).
    """

    id: str
    category: str
    argv: tuple[str, ...]
    outcome: str  # "error" | "warned" | "accepted"
    needles: tuple[str, ...] = ()
    files: dict[str, str | bytes] = field(default_factory=dict)
    check: Callable[[str, Path], None] | None = None
    mode: str = "run"
    marker: bool = False
    kept: tuple[str, ...] = ()
    same_as: tuple[str, ...] = ()

    @property
    def needs_checkpoint(self) -> bool:
        return any("{ckpt}" in a for a in (*self.argv, *self.same_as))

    @property
    def needs_model(self) -> bool:
        return any("{model}" in a for a in (*self.argv, *self.kept, *self.same_as))


DESCRIBE = ("data", "describe", "{d}/data.csv", "--spec", "{d}/spec.yaml", "--json")
QUERY = ("query", "cf", "--checkpoint", "{ckpt}", "--quiet", "--where")
PREDICT = ("predict", "--model", "{model}", "--data", "{d}/new.csv")
TWINS = ("twins", "--model", "{model}", "--data", "{d}/new.csv")
FIT = ("fit", "--data", "{d}/tiny.csv", "--spec", "{d}/tiny.yaml")
TRAIN_OWN = ("train", "--data", "{d}/tiny.csv", "--spec", "{d}/tiny.yaml", "--quiet", "--no-cache")
PLAIN = {"plain.csv": _new()}

CASES: list[Case] = [
    # ------------------------------------------------------------------ CSV dialects
    Case(
        "semicolon CSV, separator sniffed",
        "CSV dialects",
        DESCRIBE,
        "accepted",
        files={"data.csv": _csv(sep=";"), "spec.yaml": SPEC_INFERRED},
        check=_described(_N, _BASE_KINDS),
    ),
    Case(
        "tab CSV with --sep tab",
        "CSV dialects",
        (*DESCRIBE, "--sep", "tab"),
        "accepted",
        files={"data.csv": _csv(sep="\t"), "spec.yaml": SPEC},
        check=_described(_N, _BASE_KINDS),
    ),
    Case(
        "semicolon CSV read with --sep ','",
        "CSV dialects",
        (*DESCRIBE, "--sep", ","),
        "error",
        ("missing from", "separator ',' (comma)", "';' (semicolon)", "--sep semicolon"),
        files={"data.csv": _csv(sep=";"), "spec.yaml": SPEC},
    ),
    Case(
        "pandas index column Unnamed: 0, features inferred",
        "CSV dialects",
        DESCRIBE,
        "error",
        ("'Unnamed: 0'", "index=False", "model input"),
        files={"data.csv": _csv(index=True), "spec.yaml": SPEC_INFERRED},
    ),
    Case(
        "pandas index column Unnamed: 0, features listed",
        "CSV dialects",
        DESCRIBE,
        "accepted",
        files={"data.csv": _csv(index=True), "spec.yaml": SPEC},
        check=_described(_N, _BASE_KINDS),
    ),
    Case(
        "a single 1e308",
        "CSV dialects",
        DESCRIBE,
        "error",
        ("'income'", "1e+308", "line 7", "float32"),
        files={"data.csv": _csv(_with("income", 5, 1e308)), "spec.yaml": SPEC},
    ),
    Case(
        "infinity",
        "CSV dialects",
        DESCRIBE,
        "error",
        ("'income'", "infinite", "line 5"),
        files={"data.csv": _csv(_with("income", 3, "inf")), "spec.yaml": SPEC},
    ),
    Case(
        "missing value",
        "CSV dialects",
        DESCRIBE,
        "error",
        ("NaN", "'age'", "line 4"),
        files={"data.csv": _csv(_with("age", 2, "")), "spec.yaml": SPEC},
    ),
    Case(
        "one-hot group as binary features",
        "CSV dialects",
        DESCRIBE,
        "warned",
        ("['color_red', 'color_blue', 'color_green']", "one-hot", "decode_onehot(frame, 'color')"),
        files={"data.csv": _csv(ONEHOT), "spec.yaml": SPEC_INFERRED},
        check=_described(_N, {"binary": ["gender", "color_red", "color_blue", "color_green"], "integer": ["age"]}),
    ),
    Case(
        "column named twice in the header",
        "CSV dialects",
        DESCRIBE,
        "error",
        ("more than once", "'income'"),
        files={"data.csv": _csv(BASE.assign(dup=BASE["income"])).replace(",dup", ",income", 1), "spec.yaml": SPEC},
    ),
    Case(
        "empty file",
        "CSV dialects",
        DESCRIBE,
        "error",
        ("is empty", "header line"),
        files={"data.csv": "", "spec.yaml": SPEC},
    ),
    Case(
        "not UTF-8",
        "CSV dialects",
        DESCRIBE,
        "error",
        ("not UTF-8", "line 3"),
        files={"data.csv": _not_utf8_line_3(), "spec.yaml": SPEC},
    ),
    Case(
        "a ragged first line (a stray separator)",
        "CSV dialects",
        DESCRIBE,
        "error",
        ("line 2", "5 fields", "names 4 columns"),
        files={"data.csv": _csv().replace("\n", ",x\n", 2).replace(",x\n", "\n", 1), "spec.yaml": SPEC},
    ),
    Case(
        "a trailing space in a binary column",
        "CSV dialects",
        DESCRIBE,
        "error",
        ("'gender' is declared binary but has 3 values", "only by spaces at its ends: strip"),
        files={"data.csv": _csv(_with("gender", 0, BASE["gender"][0] + " ")), "spec.yaml": SPEC},
    ),
    Case(
        "decimal commas with --decimal ,",
        "CSV dialects",
        (*DESCRIBE, "--decimal", ","),
        "accepted",
        files={"data.csv": BASE.to_csv(sep=";", decimal=",", index=False), "spec.yaml": SPEC},
        check=_described(_N, _BASE_KINDS),
    ),
    Case(
        "a category literally NA",
        "CSV dialects",
        DESCRIBE,
        "warned",
        ("'gender'", "['NA']", "kept as categories"),
        files={"data.csv": _csv(BASE.assign(gender=BASE["gender"].replace("F", "NA"))), "spec.yaml": SPEC},
        check=_described(_N, _BASE_KINDS),
    ),
    # ------------------------------------------------------------------ spec/YAML
    Case(
        "valid spec",
        "spec/YAML",
        DESCRIBE,
        "accepted",
        files={"data.csv": _csv(), "spec.yaml": SPEC + GRAPH},
        check=_described(_N, _BASE_KINDS),
    ),
    Case(
        "key 'sensitive' given twice",
        "spec/YAML",
        DESCRIBE,
        "error",
        ("'sensitive' is given twice", "lines 3 and 4"),
        files={
            "data.csv": _csv(),
            "spec.yaml": SPEC.replace("sensitive: gender\n", "sensitive: gender\nsensitive: age\n"),
        },
    ),
    Case(
        "feature listed twice with two kinds",
        "spec/YAML",
        DESCRIBE,
        "error",
        ("feature 'age' is listed twice", "'integer' and as 'continuous'"),
        files={
            "data.csv": _csv(),
            "spec.yaml": SPEC.replace(
                "features: {gender: binary, age: integer, income: continuous}",
                "features:\n  gender: binary\n  age: integer\n  income: continuous\n  age: continuous",
            ),
        },
    ),
    Case(
        "feature listed twice in a list",
        "spec/YAML",
        DESCRIBE,
        "error",
        ("lists ['age'] more than once",),
        files={"data.csv": _csv(), "spec.yaml": SPEC_INFERRED + "features: [gender, age, income, age]\n"},
    ),
    Case(
        "unknown key",
        "spec/YAML",
        DESCRIBE,
        "error",
        ("unknown spec key(s) ['sensitve']",),
        files={"data.csv": _csv(), "spec.yaml": SPEC + "sensitve: age\n"},
    ),
    Case(
        "invalid YAML",
        "spec/YAML",
        DESCRIBE,
        "error",
        ("not valid YAML", "line 4"),
        files={"data.csv": _csv(), "spec.yaml": SPEC.replace("sensitive: gender", "sensitive: [gender")},
    ),
    Case(
        "sensitive attribute not a feature",
        "spec/YAML",
        DESCRIBE,
        "error",
        ("'gender' must be one of the features",),
        files={"data.csv": _csv(), "spec.yaml": SPEC.replace("gender: binary, ", "")},
    ),
    Case(
        "a column named no, unquoted",
        "spec/YAML",
        DESCRIBE,
        "error",
        ("line 3, column 12", "the unquoted 'no'", "boolean False", "quotes ('no')"),
        files={"data.csv": _csv(BASE.rename(columns={"gender": "no"})), "spec.yaml": SPEC.replace("gender", "no")},
    ),
    Case(
        "a column named no, quoted",
        "spec/YAML",
        DESCRIBE,
        "accepted",
        files={"data.csv": _csv(BASE.rename(columns={"gender": "no"})), "spec.yaml": SPEC.replace("gender", "'no'")},
        check=_described(_N, {**_BASE_KINDS, "binary": ["no"]}),
    ),
    Case(
        "a feature named on, unquoted",
        "spec/YAML",
        DESCRIBE,
        "error",
        ("the unquoted 'on'", "boolean True"),
        files={"data.csv": _csv(BASE.rename(columns={"age": "on"})), "spec.yaml": SPEC.replace("age:", "on:")},
    ),
    Case(
        "a feature named null, unquoted",
        "spec/YAML",
        DESCRIBE,
        "error",
        ("the unquoted 'null'", "nothing (null)"),
        files={"data.csv": _csv(BASE.rename(columns={"age": "null"})), "spec.yaml": SPEC.replace("age:", "null:")},
    ),
    # ------------------------------------------------------------------ graph shapes
    Case(
        "edge into the sensitive attribute",
        "graph shapes",
        DESCRIBE,
        "error",
        ("age -> gender", "into the sensitive attribute 'gender'", "must be a root"),
        files={
            "data.csv": _csv(),
            "spec.yaml": SPEC + "graph:\n  edges:\n    age: [gender, income]\n    gender: [income]\n",
        },
    ),
    Case(
        "parent given twice under edges",
        "graph shapes",
        DESCRIBE,
        "error",
        ("parent 'gender' is given twice under 'edges'",),
        files={"data.csv": _csv(), "spec.yaml": SPEC + GRAPH + "    gender: [age]\n"},
    ),
    Case(
        "graph leaves a feature out",
        "graph shapes",
        DESCRIBE,
        "warned",
        ("leaves out the feature(s) ['age']",),
        files={"data.csv": _csv(), "spec.yaml": SPEC + "graph:\n  edges:\n    gender: [income]\n"},
        check=_described(_N, _BASE_KINDS),
    ),
    Case(
        "edge into an immutable feature",
        "graph shapes",
        DESCRIBE,
        "accepted",
        files={"data.csv": _csv(), "spec.yaml": SPEC + "immutable: [income]\n" + GRAPH},
        check=_described(_N, _BASE_KINDS),
    ),
    Case(
        "cycle",
        "graph shapes",
        DESCRIBE,
        "error",
        ("cycle",),
        files={"data.csv": _csv(), "spec.yaml": SPEC + GRAPH + "    income: [age]\n"},
    ),
    Case(
        "target in the graph",
        "graph shapes",
        DESCRIBE,
        "error",
        ("target 'approved' is a node",),
        files={"data.csv": _csv(), "spec.yaml": SPEC + GRAPH + "    income: [approved]\n"},
    ),
    Case(
        "graph node that is no column",
        "graph shapes",
        DESCRIBE,
        "error",
        ("['height']", "not columns of the data"),
        files={"data.csv": _csv(), "spec.yaml": SPEC + GRAPH + "    height: [income]\n"},
    ),
    # ------------------------------------------------------------------ options
    Case("--lr 1e6", "options", ("train", "--dataset", "compas", "--lr", "1e6"), "error", ("--lr", "(0, 1]", "1e6")),
    Case("--lr 0", "options", ("train", "--dataset", "compas", "--lr", "0"), "error", ("--lr", "(0, 1]")),
    Case(
        "--pretrain-epochs 0 with a fairness setting",
        "options",
        ("train", "--dataset", "compas", "--setting", "acc_cf", "--pretrain-epochs", "0"),
        "error",
        ("--pretrain-epochs 0", "constant predictor", "--allow-no-pretrain"),
    ),
    Case(
        "--pretrain-epochs 0 --allow-no-pretrain",
        "options",
        ("train", "--dataset", "compas", "--setting", "acc_cf", "--pretrain-epochs", "0", "--allow-no-pretrain"),
        "accepted",
        mode="check",
        check=_options_accepted(pretrain_epochs=0, allow_no_pretrain=True, setting="acc_cf"),
    ),
    Case(
        "--pretrain-epochs 0 with --setting acc",
        "options",
        ("train", "--dataset", "compas", "--setting", "acc", "--pretrain-epochs", "0", "--allow-no-pretrain"),
        "error",
        ("untrained",),
    ),
    Case(
        "--fair-epochs 0 with a fairness setting",
        "options",
        ("train", "--dataset", "compas", "--setting", "acc_cf_sg", "--fair-epochs", "0"),
        "error",
        ("--fair-epochs 0", "--setting acc"),
    ),
    Case(
        "cke --cke-epochs 0",
        "options",
        ("cke", "--dataset", "compas", "--cke-epochs", "0"),
        "error",
        ("--cke-epochs", ">= 1"),
    ),
    Case(
        "reproduce with an empty --datasets", "options", ("reproduce", "--datasets"), "error", ("--datasets", "adult")
    ),
    Case("reproduce with an empty --only", "options", ("reproduce", "--only"), "error", ("--only", "q1")),
    Case(
        "--sep with a built-in dataset",
        "options",
        ("train", "--dataset", "compas", "--sep", ";"),
        "error",
        ("--sep", "--data"),
    ),
    Case(
        "--sep of two characters",
        "options",
        (*DESCRIBE, "--sep", ";;"),
        "error",
        ("--sep", "';;'", "semicolon"),
        files={"data.csv": _csv(), "spec.yaml": SPEC},
    ),
    Case(
        "--fold outside --folds",
        "options",
        ("train", "--dataset", "compas", "--fold", "5", "--folds", "5"),
        "error",
        ("--fold 5", "--folds 5"),
    ),
    Case("--folds 1", "options", ("train", "--dataset", "compas", "--folds", "1"), "error", ("--folds", "at least 2")),
    # ------------------------------------------------------------------ expressions
    Case(
        "__import__('os').system(...)",
        "expressions",
        (*QUERY, "__import__('os').system('touch {d}/marker')"),
        "error",
        ("--where", "not part of the grammar", "character 17"),
        marker=True,
    ),
    Case("__import__ call alone", "expressions", (*QUERY, "__import__('os')"), "error", ("function and method calls",)),
    Case(
        "@pd.io... local variable",
        "expressions",
        ("recourse", "--checkpoint", "{d}/none.pt", "--where", "@pd.io.common.os.system('touch {d}/marker')"),
        "error",
        ("--where", "'@'", "local variables"),
        marker=True,
    ),
    Case(
        "attribute chain x.__class__", "expressions", (*QUERY, "age.__class__.__base__"), "error", ("'.'", "attributes")
    ),
    Case("method call", "expressions", (*QUERY, "sex.str.lower() == 'female'"), "error", ("'.'", "character 4")),
    Case(
        "truncated comparison",
        "expressions",
        (*QUERY, "age <= "),
        "error",
        ("character 8", "expected a column name or a value"),
    ),
    Case(
        "unknown column", "expressions", (*QUERY, "agee > 30"), "error", ("unknown column 'agee'", "'hours-per-week'")
    ),
    Case("unknown value", "expressions", (*QUERY, "sex == 'Martian'"), "error", ("'Martian'", "['Female', 'Male']")),
    Case(
        "lower-case value",
        "expressions",
        (*QUERY, "sex == 'female'"),
        "accepted",
        check=_selected(int((TINY["sex"] == "Female").sum())),
    ),
    Case(
        "backticks, not, in",
        "expressions",
        (*QUERY, "`hours-per-week` >= 40 and not sex in ['Male'] or age < 20"),
        "accepted",
        check=_selected(int(TINY.eval("`hours-per-week` >= 40 and not sex in ['Male'] or age < 20").sum())),
    ),
    Case(
        "250 nested parentheses",
        "expressions",
        (*QUERY, "(" * 250 + "age > 30" + ")" * 250),
        "error",
        ("--where", "nest more than 100 deep", "character 101"),
    ),
    Case("1,000 not", "expressions", (*QUERY, "not " * 1000 + "age > 30"), "error", ("nest more than 100 deep",)),
    # ------------------------------------------------------------------ new rows (predict, twins)
    Case(
        "30.7 in an integer feature",
        "new rows",
        PREDICT,
        "error",
        ("'age'", "fractional", "30.7", "line 2", "whole numbers"),
        files={"new.csv": _new("age", 30.7)},
    ),
    Case(
        "True in an integer feature",
        "new rows",
        PREDICT,
        "error",
        ("'age'", "non-numeric", "['True']", "line 2"),
        files={"new.csv": _new("age", True)},
    ),
    Case(
        "30.0 in an integer feature",
        "new rows",
        PREDICT,
        "accepted",
        files={"new.csv": _new("age", float(NEW["age"][0])), **PLAIN},
        same_as=("predict", "--model", "{model}", "--data", "{d}/plain.csv"),
    ),
    Case(
        "semicolon CSV, separator sniffed",
        "new rows",
        PREDICT,
        "accepted",
        files={"new.csv": _new(sep=";"), **PLAIN},
        same_as=("predict", "--model", "{model}", "--data", "{d}/plain.csv"),
    ),
    Case(
        "twins of a semicolon CSV, separator sniffed",
        "new rows",
        TWINS,
        "accepted",
        files={"new.csv": _new(sep=";"), **PLAIN},
        same_as=("twins", "--model", "{model}", "--data", "{d}/plain.csv"),
    ),
    Case(
        "decimal commas with --decimal ,",
        "new rows",
        (*PREDICT, "--decimal", ","),
        "accepted",
        files={"new.csv": _new(sep=";", decimal=","), **PLAIN},
        same_as=("predict", "--model", "{model}", "--data", "{d}/plain.csv"),
    ),
    Case(
        "decimal commas without --decimal",
        "new rows",
        PREDICT,
        "error",
        ("'education'", "non-numeric", "--decimal ,"),
        files={"new.csv": _new(sep=";", decimal=",")},
    ),
    Case(
        "a category with a trailing space",
        "new rows",
        PREDICT,
        "error",
        ("['Male ']", "not seen in training", "line 2", "only by spaces"),
        files={"new.csv": _new("sex", "Male ")},
    ),
    Case(
        "a category literally NA, unseen in training",
        "new rows",
        PREDICT,
        "error",
        ("['NA'] not seen in training", "line 2"),
        files={"new.csv": _new("sex", "NA")},
    ),
    Case(
        "an empty category field",
        "new rows",
        PREDICT,
        "error",
        ("missing values (NaN)", "'sex'", "line 3"),
        files={"new.csv": _new("sex", None, row=1)},
    ),
    Case(
        "1e39 in a continuous feature",
        "new rows",
        PREDICT,
        "error",
        ("'education'", "too large", "1e+39", "line 2"),
        files={"new.csv": _new("education", 1e39)},
    ),
    Case(
        "a ragged first line",
        "new rows",
        PREDICT,
        "error",
        ("line 2", "6 fields", "names 5 columns", "shift"),
        files={"new.csv": _ragged_first_line()},
    ),
    Case(
        "header only",
        "new rows",
        PREDICT,
        "error",
        ("no data rows",),
        files={"new.csv": _new()[: _new().index("\n") + 1]},
    ),
    Case(
        "twins --limit 0",
        "new rows",
        (*TWINS, "--limit", "0"),
        "error",
        ("--limit", ">= 1"),
        files={"new.csv": _new()},
    ),
    # ------------------------------------------------------------------ outputs never destroy inputs
    Case(
        "fit --out the training CSV",
        "outputs",
        (*FIT, "--out", "{d}/tiny.csv"),
        "error",
        ("--out", "is the --data file", "give --out another path"),
        files=TINY_FILES,
        kept=("{d}/tiny.csv",),
    ),
    Case(
        "fit --out the spec",
        "outputs",
        (*FIT, "--out", "{d}/tiny.yaml"),
        "error",
        ("is the --spec file",),
        files=TINY_FILES,
        kept=("{d}/tiny.yaml",),
    ),
    Case(
        "fit --out the graph file the spec names",
        "outputs",
        (*FIT, "--out", "{d}/graph.yaml"),
        "error",
        ("is the graph file that --spec names",),
        files=TINY_FILES,
        kept=("{d}/graph.yaml",),
    ),
    Case("fit --out ''", "outputs", (*FIT, "--out", ""), "error", ("--out is empty",), files=TINY_FILES),
    Case("fit --out a folder", "outputs", (*FIT, "--out", "{d}"), "error", ("is a folder",), files=TINY_FILES),
    Case("fit --out -", "outputs", (*FIT, "--out", "-"), "error", ("standard output",), files=TINY_FILES),
    Case(
        "predict --out the model",
        "outputs",
        (*PREDICT, "--out", "{model}"),
        "error",
        ("is the --model file",),
        files={"new.csv": _new()},
        kept=("{model}",),
    ),
    Case(
        "predict --out its --data",
        "outputs",
        (*PREDICT, "--out", "{d}/new.csv"),
        "error",
        ("is the --data file",),
        files={"new.csv": _new()},
        kept=("{d}/new.csv",),
    ),
    Case(
        "predict --out /dev/null",
        "outputs",
        (*PREDICT, "--out", "/dev/null"),
        "error",
        ("/dev/null", "character device", "--out -"),
        files={"new.csv": _new()},
    ),
    Case(
        "predict --out /dev/stdout",
        "outputs",
        (*PREDICT, "--out", "/dev/stdout"),
        "error",
        ("/dev/stdout", "special file", "--out -"),
        files={"new.csv": _new()},
    ),
    Case(
        "predict --out -",
        "outputs",
        (*PREDICT, "--out", "-"),
        "accepted",
        files={"new.csv": _new()},
        same_as=PREDICT,
    ),
    Case(
        "twins --out the model",
        "outputs",
        (*TWINS, "--out", "{model}"),
        "error",
        ("is the --model file",),
        files={"new.csv": _new()},
        kept=("{model}",),
    ),
    Case(
        "train --save the training CSV",
        "outputs",
        (*TRAIN_OWN, "--save", "{d}/tiny.csv"),
        "error",
        ("--save", "is the --data file"),
        files=TINY_FILES,
        kept=("{d}/tiny.csv",),
    ),
    Case("train --save ''", "outputs", (*TRAIN_OWN, "--save", ""), "error", ("--save is empty",), files=TINY_FILES),
    Case(
        "counterfactuals generate --out the spec",
        "outputs",
        ("counterfactuals", "generate", "--data", "{d}/tiny.csv", "--spec", "{d}/tiny.yaml", "--out", "{d}/tiny.yaml"),
        "error",
        ("is the --spec file",),
        files=TINY_FILES,
        kept=("{d}/tiny.yaml",),
    ),
    Case(
        "audit --out the training CSV",
        "outputs",
        ("audit", "--data", "{d}/tiny.csv", "--spec", "{d}/tiny.yaml", "--model", "{model}", "--out", "{d}/tiny.csv"),
        "error",
        ("is the --data file",),
        files=TINY_FILES,
        kept=("{d}/tiny.csv",),
    ),
    Case(
        "run --out ''",
        "outputs",
        ("run", "--data", "{d}/tiny.csv", "--spec", "{d}/tiny.yaml", "--out", ""),
        "error",
        ("--out", "is empty"),
        files=TINY_FILES,
    ),
    # ------------------------------------------------------------------ options naming what is absent
    Case(
        "fit --weights cf_sg=2 with --setting acc_cf",
        "options",
        (*FIT, "--out", "{d}/m.cffair", "--weights", "cf_sg=2"),
        "error",
        ("['cf_sg']", "--setting 'acc_cf' does not have", "acc_cf_sg"),
        files=TINY_FILES,
    ),
    Case(
        "train --weights cke=5 with --setting acc",
        "options",
        ("train", "--dataset", "compas", "--setting", "acc", "--weights", "cke=5"),
        "error",
        ("['cke']", "--setting 'acc' does not have", "drop it"),
    ),
    Case(
        "run --weights cf_sg=2 with --settings acc_cf",
        "options",
        ("run", "--data", "{d}/tiny.csv", "--spec", "{d}/tiny.yaml", "--settings", "acc_cf", "--weights", "cf_sg=2"),
        "error",
        ("['cf_sg']", "--settings 'acc_cf' does not have"),
        files=TINY_FILES,
    ),
    Case(
        "--decimal with a built-in dataset",
        "options",
        ("train", "--dataset", "compas", "--decimal", ","),
        "error",
        ("--decimal", "--data"),
    ),
    Case(
        "--sep , with --decimal ,",
        "options",
        (*DESCRIBE, "--sep", ",", "--decimal", ","),
        "error",
        ("both the separator and the decimal mark", "--sep ';'"),
        files={"data.csv": _csv(), "spec.yaml": SPEC},
    ),
    Case(
        "a CSV given as --counterfactuals",
        "options",
        (*TRAIN_OWN, "--counterfactuals", "{d}/tiny.csv"),
        "error",
        ("not a parquet file", "a CSV file by its first line", "counterfactuals generate"),
        files=TINY_FILES,
    ),
]


# ---------------------------------------------------------------------------- running a case
@pytest.fixture(scope="module")
def checkpoint(tmp_path_factory) -> Path:
    """A learner trained for a few epochs on 160 rows (flow 3 epochs, pre-training 3, fairness 2).

    Its descendants of ``sex`` are continuous, so that the short flow's counterfactuals move them
    (an integer one stays put after 3 epochs, which the flow rightly warns about)."""
    from cffair.cli import main

    d = tmp_path_factory.mktemp("tiny")
    (d / "tiny.csv").write_text(TINY.to_csv(index=False))
    (d / "tiny.yaml").write_text(TINY_SPEC)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rc = main(
            [
                "train",
                "--data",
                str(d / "tiny.csv"),
                "--spec",
                str(d / "tiny.yaml"),
                "--folds",
                "2",
                "--pretrain-epochs",
                "3",
                "--fair-epochs",
                "2",
                "--flow-epochs",
                "3",
                "--cache-dir",
                str(d / "cache"),
                "--save",
                str(d / "m.pt"),
                "--quiet",
            ]
        )
    assert rc == 0
    return d / "m.pt"


@pytest.fixture(scope="module")
def model(tmp_path_factory) -> Path:
    """A model file of the same 160 rows (``cffair fit``: flow 3 epochs, pre-training 3, fairness 2)."""
    from cffair.cli import main

    d = tmp_path_factory.mktemp("tiny-model")
    _write(d, TINY_FILES)
    fit = ["--pretrain-epochs", "3", "--fair-epochs", "2", "--flow-epochs", "3", "--quiet"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rc = main([*(a.replace("{d}", str(d)) for a in FIT), "--out", str(d / "m.cffair"), *fit])
    assert rc == 0
    return d / "m.cffair"


def _write(d: Path, files: dict[str, str | bytes]) -> None:
    for name, content in files.items():
        (d / name).write_bytes(content if isinstance(content, bytes) else content.encode())


def _argv(argv: tuple[str, ...], d: Path, ckpt: Path | None, model: Path | None = None) -> list[str]:
    return [a.replace("{d}", str(d)).replace("{ckpt}", str(ckpt)).replace("{model}", str(model)) for a in argv]


def _check_only(argv: list[str]) -> tuple[int, str, str]:
    from cffair.cli import build_parser

    args = build_parser().parse_args(argv)
    args.check(args)
    shown = {k: v for k, v in vars(args).items() if isinstance(v, (str, int, float, bool, type(None)))}
    return 0, json.dumps(shown), ""


@pytest.mark.parametrize("case", CASES, ids=[f"{c.category}: {c.id}" for c in CASES])
def test_sweep(case: Case, tmp_path, capsys, request) -> None:
    from cffair.cli import main

    ckpt = request.getfixturevalue("checkpoint") if case.needs_checkpoint else None
    model = request.getfixturevalue("model") if case.needs_model else None
    capsys.readouterr()  # what building the model said (the first case that needs it builds it) is not the case's
    _write(tmp_path, case.files)
    argv = _argv(case.argv, tmp_path, ckpt, model)
    kept = {path: Path(path).read_bytes() for path in _argv(case.kept, tmp_path, ckpt, model)}
    with warnings.catch_warnings():
        warnings.simplefilter("always")  # every warning reaches the command's one-line printer
        if case.mode == "check":
            rc, out, err = _check_only(argv)
        else:
            rc = main(argv)
            out, err = capsys.readouterr()
    # what a command says to the person on stderr: its problems ("cffair: error: …", "cffair: warning: …") and,
    # beside a table written to stdout, what the table holds (predict's and twins' header, fit's summary line)
    lines = [x for x in err.strip().splitlines() if x.startswith("cffair: ")]
    assert "Traceback" not in err
    if case.outcome == "error":
        assert rc == 2, (rc, out, err)
        assert len(lines) == 1 and lines[0].startswith("cffair: error: "), err
        assert err.strip().splitlines()[-1] == lines[0], err  # the error is the last thing said
    else:
        assert rc == 0, err
        expected = 1 if case.outcome == "warned" else 0
        assert len(lines) == expected, err
        if expected:
            assert lines[0].startswith("cffair: warning: "), err
    for needle in case.needles:
        assert needle in err, (needle, err)
    if case.check is not None:
        case.check(out, tmp_path)
    if case.marker:
        assert not (tmp_path / "marker").exists()
    for path, content in kept.items():
        assert Path(path).read_bytes() == content, f"{path} was changed"
    if case.same_as:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            assert main(_argv(case.same_as, tmp_path, ckpt, model)) == 0
        assert capsys.readouterr().out == out  # the same table


# ---------------------------------------------------------------------------- the table
def table(cases: list[Case] = CASES) -> str:
    """Markdown: per category, the number of cases and of each outcome, then every case."""
    order = list(dict.fromkeys(c.category for c in cases))
    out = io.StringIO()
    out.write(
        "| category | cases | clear error (exit 2) | accepted with one warning | accepted |\n|---|---:|---:|---:|---:|\n"
    )
    for cat in order:
        cs = [c for c in cases if c.category == cat]
        n = {o: sum(c.outcome == o for c in cs) for o in ("error", "warned", "accepted")}
        out.write(f"| {cat} | {len(cs)} | {n['error']} | {n['warned']} | {n['accepted']} |\n")
    n = {o: sum(c.outcome == o for c in cases) for o in ("error", "warned", "accepted")}
    out.write(f"| **all** | **{len(cases)}** | **{n['error']}** | **{n['warned']}** | **{n['accepted']}** |\n\n")
    out.write("| category | case | outcome |\n|---|---|---|\n")
    words = {"error": "clear error", "warned": "accepted, one warning", "accepted": "accepted"}
    for c in cases:
        out.write(f"| {c.category} | {c.id.replace('|', '&#124;')} | {words[c.outcome]} |\n")
    return out.getvalue()


if __name__ == "__main__":
    if "--table" in sys.argv[1:]:
        print(table(), end="")
    else:
        sys.exit(pytest.main([__file__, *sys.argv[1:]]))
