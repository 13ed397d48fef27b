"""``cffair fit``, ``cffair predict`` and ``cffair twins`` end to end on a small CSV: the saved model
answers the same after its training CSV is edited or deleted, and bad input is one line, exit 2."""

from __future__ import annotations

import io
import shutil

import numpy as np
import pandas as pd
import pytest
import yaml

from cffair.cli import main

FIT = ["--pretrain-epochs", "80", "--fair-epochs", "40", "--flow-epochs", "15", "--quiet"]


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("fit")
    rng = np.random.default_rng(0)
    n = 240
    s = rng.integers(0, 2, n)
    a = 1.5 * s + rng.normal(size=n)
    b = rng.normal(size=n)
    pd.DataFrame({"s": np.where(s == 1, "f", "m"), "a": a, "b": b, "y": (a + b > 0.7).astype(int)}).to_csv(
        tmp / "toy.csv", index=False
    )
    (tmp / "spec.yaml").write_text(
        yaml.safe_dump(
            {
                "name": "toy",
                "target": "y",
                "target_kind": "binary",
                "sensitive": "s",
                "features": {"s": "binary", "a": "continuous", "b": "continuous"},
                "graph": "graph.yaml",
            }
        )
    )
    (tmp / "graph.yaml").write_text(yaml.safe_dump({"name": "toy", "edges": {"s": ["a"]}, "nodes": ["b"]}))
    assert (
        main(
            [
                "fit",
                "--data",
                str(tmp / "toy.csv"),
                "--spec",
                str(tmp / "spec.yaml"),
                "--out",
                str(tmp / "toy.cffair"),
                *FIT,
            ]
        )
        == 0
    )
    return tmp


def test_predict_and_twins_of_new_rows(trained, capsys) -> None:
    tmp = trained
    pd.read_csv(tmp / "toy.csv").head(5).drop(columns="y").to_csv(tmp / "new.csv", index=False)
    code, out, err = run(capsys, "predict", "--model", str(tmp / "toy.cffair"), "--data", str(tmp / "new.csv"))
    assert code == 0, err
    pred = pd.read_csv(io.StringIO(out))
    assert list(pred.columns) == ["row", "decision", "p_1"] and len(pred) == 5
    assert ((pred["p_1"] >= 0.5).astype(int) == pred["decision"]).all()
    code, out, err = run(
        capsys, "twins", "--model", str(tmp / "toy.cffair"), "--data", str(tmp / "new.csv"), "--out", str(tmp / "t.csv")
    )
    assert code == 0, err
    twins = pd.read_csv(tmp / "t.csv")
    assert list(twins["kind"]) == ["factual", "twin"] * 5
    for _, pair in twins.groupby("row"):
        f, t = pair.iloc[0], pair.iloc[1]
        assert f["s"] != t["s"] and f["b"] == pytest.approx(t["b"], abs=1e-4)  # S flipped, b (not caused by S) kept
    # the factual rows' outputs are the predictions
    np.testing.assert_allclose(twins.loc[twins["kind"] == "factual", "p_1"].to_numpy(), pred["p_1"].to_numpy())


def test_the_model_answers_the_same_after_its_csv_is_edited_or_deleted(trained, capsys, tmp_path) -> None:
    model = tmp_path / "m.cffair"
    shutil.copy(trained / "toy.cffair", model)
    rows = pd.read_csv(trained / "toy.csv").head(8)
    rows.to_csv(tmp_path / "new.csv", index=False)
    _, before, _ = run(capsys, "predict", "--model", str(model), "--data", str(tmp_path / "new.csv"))
    data = tmp_path / "train.csv"
    shutil.copy(trained / "toy.csv", data)
    shuffled = pd.read_csv(data).sample(frac=1, random_state=1)
    shuffled.to_csv(data, index=False)  # edited (shuffled) ...
    data.unlink()  # ... and gone
    _, after, _ = run(capsys, "predict", "--model", str(model), "--data", str(tmp_path / "new.csv"))
    assert after == before


@pytest.mark.parametrize(
    ("edit", "needle"),
    [
        (lambda f: f.drop(columns="b"), "['b'] are named in the spec but missing from"),
        (lambda f: f.assign(s="x"), "not seen in training"),
        (lambda f: f.assign(a="high"), "non-numeric value"),
    ],
)
def test_bad_new_rows_are_one_line_and_exit_2(trained, capsys, tmp_path, edit, needle) -> None:
    edit(pd.read_csv(trained / "toy.csv").head(3)).to_csv(tmp_path / "bad.csv", index=False)
    code, _, err = run(capsys, "predict", "--model", str(trained / "toy.cffair"), "--data", str(tmp_path / "bad.csv"))
    assert code == 2 and len(err.strip().splitlines()) == 1 and needle in err and "Traceback" not in err


def test_a_missing_or_crafted_model_is_one_line(trained, capsys, tmp_path) -> None:
    code, _, err = run(capsys, "predict", "--model", str(tmp_path / "none.cffair"), "--data", str(trained / "toy.csv"))
    assert code == 2 and "cffair fit" in err
    (tmp_path / "bad.cffair").write_bytes(b"not a model at all")
    code, _, err = run(capsys, "predict", "--model", str(tmp_path / "bad.cffair"), "--data", str(trained / "toy.csv"))
    assert code == 2 and len(err.strip().splitlines()) == 1 and "damaged" in err
