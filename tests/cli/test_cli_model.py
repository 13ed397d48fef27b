"""``cffair fit``, ``cffair predict`` and ``cffair twins`` end to end on a small CSV: the saved model
answers the same after its training CSV is edited or deleted, and bad input is one line, exit 2."""

from __future__ import annotations

import io
import json
import shutil
import zipfile
from pathlib import Path

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
    calibrated = "p_1_calibrated (sigmoid on a 20 % calibration split)"
    assert list(pred.columns) == ["row", "decision", "favourable", "p_1", calibrated] and len(pred) == 5
    assert ((pred["p_1"] >= 0.5).astype(int) == pred["decision"]).all()
    assert (pred["favourable"] == (pred["decision"] == 1)).all()  # the spec's favourable label, default 1
    assert "favourable: y = 1" in err and len(err.strip().splitlines()) == 1  # the labels named, the CSV kept clean
    # the calibrated column is the stored map (monotone: it never reorders two rows)
    order = np.argsort(pred["p_1"].to_numpy())
    assert (np.diff(pred[calibrated].to_numpy()[order]) >= 0).all()
    assert ((pred[calibrated] >= 0) & (pred[calibrated] <= 1)).all()
    code, out, err = run(
        capsys, "twins", "--model", str(tmp / "toy.cffair"), "--data", str(tmp / "new.csv"), "--out", str(tmp / "t.csv")
    )
    assert code == 0, err
    # s is a root whose one descendant a is continuous: one point twin per row, and the header says so
    assert out.startswith("twins: 1 twin per row (1 other value of s, one draw): no descendant of s is drawn")
    twins = pd.read_csv(tmp / "t.csv")
    assert list(twins["kind"]) == ["factual", "twin"] * 5 and (twins["draw"] == 0).all()
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


# ---------------------------------------------------------------------------- outputs and inputs
@pytest.mark.parametrize(
    ("link", "target", "outcome"),
    [
        ("symlink", "toy.cffair", "error"),
        ("hardlink", "toy.cffair", "error"),
        ("symlink", "new.csv", "error"),
        ("symlink", "other.csv", "accepted"),
    ],
)
def test_an_output_linked_to_an_input_is_refused(trained, capsys, tmp_path, link, target, outcome) -> None:
    """outcome class as given: an --out that is the model or the data through a link is refused and
    both stay as they were; a link to another file is written through (the link stays a link)."""
    import os

    shutil.copy(trained / "toy.cffair", tmp_path / "toy.cffair")
    pd.read_csv(trained / "toy.csv").head(4).to_csv(tmp_path / "new.csv", index=False)
    (tmp_path / "other.csv").write_text("old\n")
    out = tmp_path / "out.csv"
    (os.symlink if link == "symlink" else os.link)(tmp_path / target, out)
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir() if p.name != "out.csv"}
    argv = ["predict", "--model", str(tmp_path / "toy.cffair"), "--data", str(tmp_path / "new.csv"), "--out", str(out)]
    code, _, err = run(capsys, *argv)
    if outcome == "error":
        assert code == 2 and len(err.strip().splitlines()) == 1 and "the same file" in err and "Traceback" not in err
        assert {p.name: p.read_bytes() for p in tmp_path.iterdir() if p.name != "out.csv"} == before
        return
    assert code == 0, err
    assert out.is_symlink() and len(pd.read_csv(tmp_path / "other.csv")) == 4  # written through the link


def test_a_category_spelled_na_is_a_category_in_training_and_in_new_rows(trained, capsys, tmp_path) -> None:
    """outcome class: warned at fit (one line), accepted at predict/twins: ``NA`` is the region's label there
    (it used to be read as a missing value at fit and as "[nan] not seen in training" at predict)."""
    rows = pd.read_csv(trained / "toy.csv")
    rows["region"] = np.array(["NA", "EU", "AS"])[np.arange(len(rows)) % 3]
    rows.to_csv(tmp_path / "na.csv", index=False)
    spec = yaml.safe_load((trained / "spec.yaml").read_text())
    spec["features"]["region"] = "categorical"
    (tmp_path / "graph.yaml").write_text(
        yaml.safe_dump({"name": "toy", "edges": {"s": ["a"]}, "nodes": ["b", "region"]})
    )
    spec["graph"] = "graph.yaml"
    (tmp_path / "spec.yaml").write_text(yaml.safe_dump(spec))
    quick = ["--pretrain-epochs", "5", "--fair-epochs", "2", "--flow-epochs", "3", "--quiet"]
    model = str(tmp_path / "na.cffair")
    code, _, err = run(
        capsys, "fit", "--data", str(tmp_path / "na.csv"), "--spec", str(tmp_path / "spec.yaml"), "--out", model, *quick
    )
    assert code == 0 and err.count("cffair: warning:") == 1 and "['NA']" in err and "kept as categories" in err
    rows.head(6).to_csv(tmp_path / "new.csv", index=False)
    code, out, err = run(capsys, "twins", "--model", model, "--data", str(tmp_path / "new.csv"))
    assert code == 0, err
    twins = pd.read_csv(io.StringIO(out), keep_default_na=False)
    assert list(twins["region"]) == [r for r in rows["region"].head(6) for _ in range(2)]  # kept in every twin
    rows.head(3).assign(region=["NA", "", "EU"]).to_csv(tmp_path / "missing.csv", index=False)
    code, _, err = run(capsys, "predict", "--model", model, "--data", str(tmp_path / "missing.csv"))
    assert code == 2 and "missing values (NaN) in column(s) {'region': 1}" in err and "line 3" in err


def _flip_in_largest_tensor(model: Path, out: Path) -> Path:
    """``model`` with one byte flipped in the middle of its largest tensor's bytes."""
    raw = bytearray(model.read_bytes())
    with zipfile.ZipFile(model) as archive:
        info = max((i for i in archive.infolist() if "/data/" in i.filename), key=lambda i: i.compress_size)
    start = info.header_offset + 30
    start += int.from_bytes(raw[start - 4 : start - 2], "little") + int.from_bytes(raw[start - 2 : start], "little")
    raw[start + info.compress_size // 2] ^= 0x10
    out.write_bytes(bytes(raw))
    return out


def _classes_swapped(model: Path, out: Path) -> Path:
    """``model`` with its classes swapped and its checksums recomputed, as an editor would."""
    import torch

    from cffair._support.integrity import seal

    payload = torch.load(model, weights_only=True)
    meta = json.loads(payload["meta"])
    meta["classes"] = meta["classes"][::-1]
    torch.save(seal({**payload, "meta": json.dumps(meta)}), out)
    return out


@pytest.mark.parametrize("command", ["predict", "twins"])
def test_a_damaged_or_edited_model_is_one_line_and_exit_2(trained, capsys, tmp_path, command) -> None:
    model = trained / "toy.cffair"
    flipped = _flip_in_largest_tensor(model, tmp_path / "flipped.cffair")
    edited = _classes_swapped(model, tmp_path / "edited.cffair")
    for path, needle in (
        (flipped, "is damaged or was edited: its member 'tensors/"),
        (edited, "contradicts itself: its classes [1, 0] are not two distinct labels in sorted order"),
    ):
        code, out, err = run(capsys, command, "--model", str(path), "--data", str(trained / "toy.csv"))
        assert code == 2 and out == "" and "Traceback" not in err, err
        assert len(err.strip().splitlines()) == 1 and needle in err and "cffair fit" in err, err
    code, _, err = run(capsys, command, "--model", str(model), "--data", str(trained / "toy.csv"))
    assert code == 0, err  # the intact file still answers
