"""The command line's errors: one line on stderr, exit status 2, no traceback, before any work.

Every test runs ``cffair.cli.main([...])`` in-process. The data loaders of the commands are
replaced by a function that fails the test, so an option that is only rejected after the data
were loaded (let alone after counterfactuals were generated) is caught.
"""

from __future__ import annotations

import argparse
import importlib.util
import warnings

import pytest

from cffair.cli import _options, build_parser, main
from cffair.errors import DataError


@pytest.fixture
def no_work(monkeypatch):
    """Fail the test if a command starts loading data."""

    def boom(*args, **kwargs):
        raise AssertionError("the command started working before rejecting its options")

    import cffair.cli._common
    import cffair.cli._data

    for mod in (cffair.cli._common, cffair.cli._data):  # _common.load_data reads through _common.load_dataset
        monkeypatch.setattr(mod, "load_dataset", boom)


def _run(argv, capsys):
    rc = main(argv)
    out, err = capsys.readouterr()
    return rc, out, err


def assert_one_line_error(rc, out, err, *needles):
    assert rc == 2
    assert out == ""
    assert "Traceback" not in err
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("cffair: error: ")
    for needle in needles:
        assert needle in lines[0], (needle, lines[0])


@pytest.mark.parametrize(
    ("argv", "needles"),
    [
        (
            ["train", "--dataset", "compas", "--folds", "1"],
            ["argument --folds", "at least 2 folds", "got 1", "--folds 5"],
        ),
        (["train", "--dataset", "compas", "--seed", "-1"], ["argument --seed", ">= 0", "got -1", "--seed 0"]),
        (["train", "--dataset", "compas", "--lr", "0"], ["argument --lr", "in (0, 1]", "--lr 1e-3", "--lr 0.1"]),
        (["train", "--dataset", "compas", "--lr", "1e6"], ["argument --lr", "in (0, 1], got 1e6", "diverges"]),
        (["train", "--dataset", "compas", "--lr", "nan"], ["argument --lr", "not a finite number"]),
        (
            ["train", "--dataset", "compas", "--weights", "foo=2"],
            ["argument --weights", "'foo'", "acc, cf, cf_sg, cke", "acc=1,cf=2"],
        ),
        (["train", "--dataset", "compas", "--weights", "cf=-1"], ["argument --weights", "'cf'", ">= 0"]),
        (["train", "--dataset", "compas", "--weights", "cf"], ["argument --weights", "group=number"]),
        (["train", "--dataset", "compas", "--pretrain-epochs", "-5"], ["argument --pretrain-epochs", ">= 0"]),
        (["train", "--dataset", "compas", "--setting", "fair"], ["argument --setting", "invalid choice", "acc_cf_sg"]),
        (["train", "--dataset", "compas", "--categorical", "onehot"], ["argument --categorical", "gumbel"]),
        (["train", "--dataset", "compas", "--flow-epochs", "0"], ["argument --flow-epochs", ">= 1"]),
        (["cke", "--dataset", "compas", "--folds", "1"], ["argument --folds", "--folds 5"]),
        (["cke", "--dataset", "compas", "--threshold", "2"], ["argument --threshold", "between 0 and 1"]),
        (
            ["counterfactuals", "generate", "--dataset", "compas", "--patience", "-1"],
            ["argument --patience", "got -1", "--patience 0"],
        ),
        (["counterfactuals", "generate", "--dataset", "compas", "--seed", "x"], ["argument --seed", "'x'"]),
        (["query", "similar", "--checkpoint", "m.pt", "--row", "-1"], ["argument --row", ">= 0"]),
        (["query", "similar", "--checkpoint", "m.pt", "--row", "1", "--beta", "0"], ["argument --beta", "> 0"]),
        (["train"], ["--dataset", "--data", "required", "cffair train --help"]),
        (["train", "--dataset", "compas", "--bogus"], ["unrecognized arguments: --bogus"]),
        (["bogus"], ["invalid choice: 'bogus'", "cffair --help"]),
    ],
)
def test_bad_options_give_one_line_and_status_2(argv, needles, capsys, no_work):
    assert_one_line_error(*_run(argv, capsys), *needles)


@pytest.mark.parametrize(
    ("argv", "needles"),
    [
        (["train", "--dataset", "compas", "--fold", "5"], ["--fold 5", "--folds 5", "--fold 0 .. 4"]),
        (["train", "--dataset", "compas", "--fold", "2", "--folds", "2"], ["--fold 2", "--fold 0 .. 1"]),
        (["train", "--data", "mine.csv"], ["--data mine.csv", "needs --spec"]),
        (["cke", "--data", "mine.csv", "--spec", "nowhere.yaml"], ["--spec nowhere.yaml", "no such file"]),
        (
            ["train", "--dataset", "compas", "--counterfactuals", "nowhere.parquet"],
            ["--counterfactuals nowhere.parquet", "cffair counterfactuals generate"],
        ),
        (["data", "describe", "mine.csv", "--spec", "nowhere.yaml"], ["--spec nowhere.yaml", "no such file"]),
    ],
)
def test_options_wrong_together_are_rejected_before_any_work(argv, needles, capsys, no_work, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert_one_line_error(*_run(argv, capsys), *needles)


def test_a_csv_with_a_spec_needs_the_csv(tmp_path, capsys, no_work, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "spec.yaml").write_text("name: tiny\ntarget: y\ntarget_kind: binary\nsensitive: s\n")
    rc, out, err = _run(["train", "--data", "missing.csv", "--spec", "spec.yaml"], capsys)
    assert_one_line_error(rc, out, err, "--data missing.csv", "no such file")


# ---------------------------------------------------------------------------- reproduce (the lead's module)
def _commands() -> set[str]:
    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    return set(sub.choices)


def test_every_command_group_is_registered():
    assert {"data", "counterfactuals", "train", "query", "cke"} <= _commands()
    if importlib.util.find_spec("cffair.cli._reproduce") is not None:
        assert {"reproduce", "results"} <= _commands()


def test_a_command_group_comes_from_the_first_module_that_has_it(monkeypatch):
    import cffair.cli

    # a module that does not exist and one without ``register`` are passed over
    monkeypatch.setattr(
        cffair.cli, "COMMAND_MODULES", (("cffair.cli.no_such_group", "cffair.errors", "cffair.cli._data"),)
    )
    assert _commands() == {"data"}
    monkeypatch.setattr(cffair.cli, "COMMAND_MODULES", (("cffair.cli.no_such_group",),))
    assert _commands() == set()


@pytest.mark.parametrize(
    ("argv", "needles"),
    [
        (["reproduce", "--jobs", "0"], ["argument --jobs", ">= 1", "got 0"]),
        (["reproduce", "--backend", "bogus"], ["argument --backend", "'bogus'", "loky"]),
    ],
)
def test_reproduce_options_are_checked_at_parse_time(argv, needles, capsys, monkeypatch):
    pytest.importorskip(
        "cffair.cli._reproduce", reason="reproduce still lives in cffair.experiments, without validators"
    )
    assert_one_line_error(*_run(argv, capsys), *needles)


# ---------------------------------------------------------------------------- errors deep in a command
@pytest.fixture
def tiny(tmp_path, monkeypatch):
    """A small CSV of one's own and its spec, in the working directory."""
    monkeypatch.chdir(tmp_path)
    rows = ["y,s,x"] + [f"{i % 2},{'ab'[i % 3 == 0]},{i * 0.5}" for i in range(30)]
    (tmp_path / "tiny.csv").write_text("\n".join(rows) + "\n")
    (tmp_path / "spec.yaml").write_text("name: tiny\ntarget: y\ntarget_kind: binary\nsensitive: s\n")
    return tmp_path


def test_describe_a_csv_of_ones_own(tiny, capsys):
    rc, out, err = _run(["data", "describe", "tiny.csv", "--spec", "spec.yaml", "--json"], capsys)
    assert rc == 0, err
    import json

    info = json.loads(out)
    assert info["rows"] == 30 and info["target"] == "y" and info["sensitive"] == "s"
    assert info["groups"] == {"a": 20, "b": 10}  # s = b exactly for i % 3 == 0
    assert info["target_balance"]["positive_rate"] == pytest.approx(0.5)


def test_missing_csv_deep_in_a_command_is_one_line(tiny, capsys):
    rc, out, err = _run(["data", "describe", "my.csv", "--spec", "spec.yaml"], capsys)
    assert_one_line_error(rc, out, err, "my.csv")


def test_yaml_syntax_error_is_one_line(tiny, capsys):
    (tiny / "bad.yaml").write_text("name: tiny\ntarget: [y\nsensitive: s\n")
    rc, out, err = _run(["data", "describe", "tiny.csv", "--spec", "bad.yaml"], capsys)
    assert_one_line_error(rc, out, err, "line")


def test_non_utf8_csv_is_one_line(tiny, capsys):
    (tiny / "latin.csv").write_bytes("y,s,x\n1,caf\xe9,0.5\n0,th\xe9,1.5\n".encode("latin-1"))
    rc, out, err = _run(["data", "describe", "latin.csv", "--spec", "spec.yaml"], capsys)
    assert_one_line_error(rc, out, err, "UTF-8")


def test_unreadable_checkpoint_is_one_line(tiny, capsys):
    (tiny / "m.pt").write_bytes(b"not a checkpoint")
    rc, out, err = _run(["query", "similar", "--checkpoint", "m.pt", "--row", "0"], capsys)
    assert_one_line_error(rc, out, err, "m.pt", "cffair train --save")


#: For every command, a command line whose input passes the option checks and makes the library
#: raise one of its own errors inside (outcome class: error), and the class it raises.
CYCLE = "name: tiny\ntarget: y\ntarget_kind: binary\nsensitive: s\nfeatures: {s: binary, x: continuous}\n"
CYCLE += "graph:\n  edges:\n    s: [x]\n    x: [s]\n"
OWN = ["--data", "tiny.csv", "--spec", "cycle.yaml"]
LIBRARY_ERRORS: dict[str, tuple[list[str], str]] = {
    "data": (["data", "describe", "tiny.csv", "--spec", "cycle.yaml"], "GraphError"),
    "counterfactuals": (["counterfactuals", "generate", *OWN, "--out", "cf.parquet", "--no-cache"], "GraphError"),
    "train": (["train", *OWN, "--no-cache", "--quiet"], "GraphError"),
    "cke": (["cke", *OWN, "--no-cache", "--quiet"], "GraphError"),
    "query": (["query", "cf", "--checkpoint", "garbage.pt", "--where", "x > 1"], "ArtefactError"),
    "recourse": (["recourse", "--checkpoint", "garbage.pt", "--row", "0"], "ArtefactError"),
    "run": (["run", *OWN, "--out", "runs"], "GraphError"),
    "audit": (["audit", *OWN, "--model", "garbage.skops", "--out", "audit.json"], "GraphError"),
    "fit": (["fit", *OWN, "--out", "m.cffair"], "GraphError"),
    "predict": (["predict", "--model", "garbage.cffair", "--data", "tiny.csv"], "ArtefactError"),
    "twins": (["twins", "--model", "garbage.cffair", "--data", "tiny.csv", "--out", "-"], "ArtefactError"),
    "reproduce": (["reproduce", "--only", "q1", "--datasets", "compas", "--no-notebooks"], "StorageError"),
    "results": (["results"], "ResultsMissingError"),
    "study": (["study", "baseline-gap", "--profile", "quick", "--out", "garbage.json"], "DataError"),
}


@pytest.mark.parametrize("command", sorted(LIBRARY_ERRORS))
def test_every_command_turns_a_library_error_into_one_line(command, tiny, capsys, monkeypatch):
    """outcome class: error (one line, exit 2, no traceback); with CFFAIR_DEBUG=1 the same input
    raises the library's own error class, so the line came from inside the library."""
    import cffair.errors

    (tiny / "cycle.yaml").write_text(CYCLE)
    for name in ("garbage.pt", "garbage.cffair", "garbage.skops", "garbage.json"):
        (tiny / name).write_bytes(b"not a file cffair wrote")
    (tiny / "results-file").write_text("a file where the results folder should be")
    (tiny / "empty-results").mkdir()
    monkeypatch.setenv("CFFAIR_RESULTS", str(tiny / ("empty-results" if command == "results" else "results-file")))
    monkeypatch.setenv("CFFAIR_CACHE", str(tiny / "cache"))
    argv, error = LIBRARY_ERRORS[command]
    before = sorted(p.name for p in tiny.iterdir())
    assert_one_line_error(*_run(argv, capsys))
    monkeypatch.setenv("CFFAIR_DEBUG", "1")
    with pytest.raises(getattr(cffair.errors, error)):
        main(argv)
    assert sorted(p.name for p in tiny.iterdir()) == before  # no output written, no folder made


def test_the_library_error_table_covers_every_command():
    assert set(LIBRARY_ERRORS) == _commands()


@pytest.mark.parametrize(
    ("argv", "needles"),
    [
        (["fit", "--data", "tiny.csv", "--spec", "spec.yaml", "--out", ""], ["--out is empty"]),
        (["fit", "--data", "tiny.csv", "--spec", "spec.yaml", "--out", "."], ["it is a folder"]),
        (["fit", "--data", "tiny.csv", "--spec", "spec.yaml", "--out", "tiny.csv"], ["is the --data file"]),
        (["fit", "--data", "tiny.csv", "--spec", "spec.yaml", "--out", "/dev/full"], ["character device"]),
        (["train", "--data", "tiny.csv", "--spec", "spec.yaml", "--save", "spec.yaml"], ["is the --spec file"]),
        (["cke", "--data", "tiny.csv", "--spec", "spec.yaml", "--save", ""], ["--save is empty"]),
        (["counterfactuals", "generate", "--data", "tiny.csv", "--spec", "spec.yaml", "--out", ""], ["is empty"]),
        (["predict", "--model", "m.cffair", "--data", "tiny.csv", "--out", "m.cffair"], ["is the --model file"]),
        (["twins", "--model", "m.cffair", "--data", "tiny.csv", "--out", "/dev/null"], ["--out -"]),
        (["audit", "--data", "tiny.csv", "--spec", "spec.yaml", "--model", "m.cffair", "--out", ""], ["is empty"]),
    ],
)
def test_outputs_are_checked_before_any_work(argv, needles, tiny, capsys, monkeypatch):
    """outcome class: error, before the data, the model or the counterfactuals are read (``fit --out ''``
    used to train the whole run and then fail on the path)."""
    import cffair.cli._common
    import cffair.datasets
    import cffair.learners._model

    def boom(*args, **kwargs):
        raise AssertionError("the command started working before checking its output")

    (tiny / "m.cffair").write_bytes(b"a model")
    for module, name in (
        (cffair.datasets, "from_csv"),
        (cffair.cli._common, "load_dataset"),
        (cffair.learners._model, "load_model"),
    ):
        monkeypatch.setattr(module, name, boom)
    before = {p.name: p.read_bytes() for p in tiny.iterdir() if p.is_file()}
    assert_one_line_error(*_run(argv, capsys), *needles)
    assert {p.name: p.read_bytes() for p in tiny.iterdir() if p.is_file()} == before


def test_value_errors_are_one_line_and_bugs_keep_their_traceback(monkeypatch, capsys):
    import cffair.cli._data

    def multi_line_data_error(args):
        raise DataError("column 'x' has 3 NaN values\nat rows 4, 7, 9; drop or fill them")

    monkeypatch.setattr(cffair.cli._data, "_describe", multi_line_data_error)
    rc, out, err = _run(["data", "describe", "adult"], capsys)
    assert_one_line_error(rc, out, err, "column 'x' has 3 NaN values; at rows 4, 7, 9; drop or fill them")

    monkeypatch.setenv("CFFAIR_DEBUG", "1")  # a traceback on request
    with pytest.raises(DataError):
        main(["data", "describe", "adult"])
    monkeypatch.delenv("CFFAIR_DEBUG")

    def bug(args):
        raise RuntimeError("a bug, not the user's mistake")

    monkeypatch.setattr(cffair.cli._data, "_describe", bug)
    with pytest.raises(RuntimeError, match="a bug"):
        main(["data", "describe", "adult"])


def test_warnings_print_as_one_line(monkeypatch, capsys):
    import cffair.cli._data

    def warns(args):
        warnings.warn("the predictor is constant\nafter pre-training", UserWarning, stacklevel=1)
        return 0

    monkeypatch.setattr(cffair.cli._data, "_describe", warns)
    rc, out, err = _run(["data", "describe", "adult"], capsys)
    assert rc == 0
    assert err == "cffair: warning: the predictor is constant; after pre-training\n"


def test_help_exits_0(capsys):
    assert main(["train", "--help"]) == 0
    out = capsys.readouterr().out
    assert "--lr" in out and "0.1" in out and "1e-3" in out  # the paper's value is one flag away, and documented


# ---------------------------------------------------------------------------- the validators themselves
@pytest.mark.parametrize(
    ("fn", "text", "value"),
    [
        (_options.positive_int, "3", 3),
        (_options.non_negative_int, "0", 0),
        (_options.seed, "42", 42),
        (_options.folds, "2", 2),
        (_options.patience, "0", None),
        (_options.patience, "none", None),
        (_options.patience, "7", 7),
        (_options.positive_float, "1e-3", 1e-3),
        (_options.non_negative_float, "0", 0.0),
        (_options.probability, "1", 1.0),
        (_options.learning_rate, "0.1", 0.1),
        (_options.backend_name, "dask", "dask"),
        (_options.weights, "acc=1, cf=2.5", {"acc": 1.0, "cf": 2.5}),
        (_options.weights, "", {}),
    ],
)
def test_validators_accept_good_values(fn, text, value):
    assert fn(text) == value


@pytest.mark.parametrize(
    ("fn", "text", "needle"),
    [
        (_options.positive_int, "0", ">= 1"),
        (_options.positive_int, "1.5", "whole number"),
        (_options.non_negative_int, "-1", ">= 0"),
        (_options.folds, "1", "--folds 5"),
        (_options.patience, "-1", "--patience 0"),
        (_options.positive_float, "-0.5", "> 0"),
        (_options.positive_float, "inf", "finite"),
        (_options.probability, "-0.1", "between 0 and 1"),
        (_options.learning_rate, "0", "--lr 0.1"),
        (_options.backend_name, "bogus", "loky, multiprocessing, threading, sequential, dask"),
        (_options.weights, "acc=1,acc=2", "given twice"),
        (_options.weights, "cke=x", "must be a number"),
    ],
)
def test_validators_reject_bad_values_with_the_fix(fn, text, needle):
    with pytest.raises(argparse.ArgumentTypeError, match=None) as info:
        fn(text)
    assert needle in str(info.value)


def test_flow_options_reach_the_flow_config():
    from cffair.causal._config import PAPER_TREATMENT, FlowConfig
    from cffair.cli import build_parser
    from cffair.cli._common import flow_config

    parse = build_parser().parse_args
    assert flow_config(parse(["counterfactuals", "generate", "--dataset", "compas"])) == {}
    cfg = flow_config(
        parse(["counterfactuals", "generate", "--dataset", "compas", "--ordered", "midpoint", "--integer", "sample"])
    )
    assert cfg == {"ordered": "midpoint", "integer": "sample"}
    paper = flow_config(parse(["train", "--dataset", "compas", "--paper-treatment", "--flow-epochs", "5"]))
    assert {k: paper[k] for k in PAPER_TREATMENT} == PAPER_TREATMENT and paper["epochs"] == 5
    assert FlowConfig.from_dict(paper).categorical == "flow"


def test_a_warning_reached_along_several_paths_prints_once(tmp_path, capsys) -> None:
    """The graph is read by the loader and again by the flow: its GraphWarning shows once."""
    import numpy as np
    import pandas as pd
    import yaml

    rng = np.random.default_rng(0)
    s = rng.integers(0, 2, 120)
    a = s + rng.normal(size=120)
    pd.DataFrame(
        {"s": np.where(s == 1, "f", "m"), "a": a, "b": rng.normal(size=120), "y": (a > 0.5).astype(int)}
    ).to_csv(tmp_path / "d.csv", index=False)
    (tmp_path / "g.yaml").write_text(yaml.safe_dump({"name": "g", "edges": {"s": ["a"]}}))  # leaves out b
    (tmp_path / "s.yaml").write_text(
        yaml.safe_dump(
            {
                "name": "d",
                "target": "y",
                "target_kind": "binary",
                "sensitive": "s",
                "features": {"s": "binary", "a": "continuous", "b": "continuous"},
                "graph": "g.yaml",
            }
        )
    )
    code = main(
        [
            "counterfactuals",
            "generate",
            "--data",
            str(tmp_path / "d.csv"),
            "--spec",
            str(tmp_path / "s.yaml"),
            "--epochs",
            "2",
            "--no-cache",
            "--quiet",
            "--out",
            str(tmp_path / "cf.parquet"),
        ]
    )
    err = capsys.readouterr().err
    assert code == 0 and err.count("leaves out the feature(s) ['b']") == 1
