"""``cffair audit --model M.cffair`` and ``--training-data``: twins from the training data's flow, said in one line.

A model of cffair's own is audited on held-out rows with the twins of the flow stored in its
file, which the test makes again by hand (:func:`cffair.causal.generate_from`) to check the
numbers; a scikit-learn model with ``--training-data`` gets the twins of a flow fitted on the
training rows, not on the audited ones.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
import yaml
from sklearn.compose import make_column_transformer
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import OneHotEncoder
from skops.io import dump

from cffair.cli import main

FIT = ["--pretrain-epochs", "60", "--fair-epochs", "30", "--flow-epochs", "10", "--quiet"]


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("audit_model")
    rng = np.random.default_rng(0)
    n = 300
    s = rng.integers(0, 2, n)
    a = 1.5 * s + rng.normal(size=n)
    b = rng.normal(size=n)
    frame = pd.DataFrame({"s": np.where(s == 1, "f", "m"), "a": a, "b": b, "y": (a + b > 0.7).astype(int)})
    frame.head(220).to_csv(tmp / "train.csv", index=False)
    frame.tail(80).to_csv(tmp / "held_out.csv", index=False)
    spec = {
        "name": "toy",
        "target": "y",
        "target_kind": "binary",
        "sensitive": "s",
        "features": {"s": "binary", "a": "continuous", "b": "continuous"},
        "subgroups": ["s"],
        "graph": {"name": "toy", "edges": {"s": ["a"]}, "nodes": ["b"]},
    }
    (tmp / "spec.yaml").write_text(yaml.safe_dump(spec), encoding="utf-8")
    argv = ["fit", "--data", str(tmp / "train.csv"), "--spec", str(tmp / "spec.yaml"), "--out", str(tmp / "m.cffair")]
    assert main([*argv, *FIT]) == 0
    train = frame.head(220)
    pre = make_column_transformer((OneHotEncoder(), ["s"]), ("passthrough", ["a", "b"]))
    dump(make_pipeline(pre, LogisticRegression()).fit(train, train["y"]), tmp / "lr.skops")
    return tmp


def test_a_cffair_model_is_audited_on_the_twins_of_its_own_flow(files, capsys) -> None:
    from cffair import datasets
    from cffair.causal import generate_from
    from cffair.learners._model import load_model

    tmp = files
    code, out, err = run(
        capsys,
        "audit",
        "--model",
        str(tmp / "m.cffair"),
        "--data",
        str(tmp / "held_out.csv"),  # no --spec: the model file's
        "--n-boot",
        "50",
        "--out",
        str(tmp / "audit.json"),
        "--quiet",
    )
    assert code == 0, err
    assert "twins: from the flow stored in m.cffair (fitted on its training data)" in out.splitlines()
    result = json.loads((tmp / "audit.json").read_text())
    # the same numbers by hand: the model's flow applied to the held-out rows
    model = load_model(tmp / "m.cffair")
    frame, spec = datasets.from_csv(tmp / "held_out.csv", model.spec_)
    twins = generate_from(model.flow_, (frame, spec), "sensitive", seed=0)
    d = model.predict_proba(frame[list(spec.features)])[:, 1][twins.frame["row_id"].to_numpy()]
    d_cf = model.predict_proba(twins.frame[list(spec.features)])[:, 1]
    assert result["cf_mse"] == pytest.approx(np.mean((d - d_cf) ** 2))
    assert result["accuracy"] == pytest.approx(np.mean(model.predict(frame[list(spec.features)]) == frame["y"]))
    overall = {r["metric"]: r for r in result["overall"]}
    assert set(overall) == {
        "accuracy",
        "cf_mse",
        "cf_flip_rate",
        "demographic_parity_difference",
        "equalized_odds_difference",
    }
    assert all(r["low"] <= r["value"] <= r["high"] for r in overall.values())
    assert [g["s"] for g in result["groups"]] == ["f", "m"]


def test_training_data_gives_the_twins_of_a_flow_fitted_on_it(files, capsys) -> None:
    tmp = files
    base = ["audit", "--data", str(tmp / "held_out.csv"), "--spec", str(tmp / "spec.yaml"), "--model"]
    base += [str(tmp / "lr.skops"), "--flow-epochs", "3", "--cache-dir", str(tmp / "cache"), "--n-boot", "0", "--quiet"]
    code, out, err = run(capsys, *base, "--training-data", str(tmp / "train.csv"))
    assert code == 0, err
    assert "twins: from the training data's flow (fitted on its 220 rows)" in out.splitlines()
    code, out, err = run(capsys, *base)
    assert code == 0, err
    assert "twins: from a fresh flow fitted on the 80 audited rows" in out.splitlines()


@pytest.mark.parametrize(
    ("extra", "needle"),
    [
        (["--model", "{tmp}/m.cffair", "--training-data", "{tmp}/train.csv"], "brings its training data's flow"),
        (["--model", "{tmp}/lr.skops", "--training-data", "{tmp}/none.csv"], "--training-data {tmp}/none.csv: no such"),
        (["--model", "{tmp}/none.cffair"], "no such file; write a model with `cffair fit"),
        (["--model", "{tmp}/train.csv"], "train.csv"),  # not a model file of either kind: one line
    ],
)
def test_bad_input_is_one_line_and_exit_2(files, capsys, extra, needle) -> None:
    tmp = files
    argv = ["audit", "--data", str(tmp / "held_out.csv"), "--spec", str(tmp / "spec.yaml")]
    code, out, err = run(capsys, *argv, *[e.format(tmp=tmp) for e in extra])
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1 and "Traceback" not in err, err
    assert needle.format(tmp=tmp) in err, err
