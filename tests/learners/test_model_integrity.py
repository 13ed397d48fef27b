"""A saved model detects damage and edits: every byte flip is refused or changes nothing it answers,
and an edited value whose checksums were recomputed is refused by the consistency checks.

The model is tiny (a few epochs, a 8-4 network) on a synthetic frame with every feature kind, so
that a flipped byte lands in the zip's bookkeeping, the pickled structure, the metadata and the
weights in proportions a real model file has too.
"""

from __future__ import annotations

import json
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
import torch

from cffair._support.integrity import artefact_checksums, seal, table_digest
from cffair.errors import ArtefactError
from cffair.learners._estimator import CounterfactualFairClassifier
from cffair.learners._model import MODEL_FORMAT, load_model, save_model

TINY = {"pretrain_epochs": 10, "fair_epochs": 5, "flow_config": {"epochs": 3}, "hidden": (8, 4)}
SPEC = {
    "name": "mixed",
    "target": "y",
    "target_kind": "binary",
    "sensitive": "s",
    "features": {
        "s": "binary",
        "a": "integer",
        "job": "categorical",
        "region": "categorical",
        "e": "ordinal",
        "x": "continuous",
    },
    "graph": {"name": "mixed", "edges": {"s": ["job", "x"], "a": ["job"], "job": ["e", "x"], "region": ["x"]}},
}


def _rows(n: int = 160, seed: int = 0) -> tuple[pd.DataFrame, np.ndarray]:
    rng = np.random.default_rng(seed)
    s = rng.integers(0, 2, n)
    a = rng.integers(18, 70, n)
    job = (s + (a > 40) + rng.integers(0, 2, n)) % 3
    region = rng.integers(0, 3, n)
    x = 0.3 * job - s + 0.2 * region + rng.normal(size=n)
    frame = pd.DataFrame(
        {
            "s": np.where(s == 1, "M", "F"),
            "a": a,
            "job": np.array(["u", "v", "w"])[job],
            "region": np.array(["north", "south", "west"])[region],
            "e": pd.Categorical(
                np.array(["lo", "mid", "hi"])[np.clip(job + rng.integers(-1, 2, n), 0, 2)],
                categories=["lo", "mid", "hi"],
                ordered=True,
            ),
            "x": x,
        }
    )
    return frame, (x + rng.normal(scale=0.5, size=n) > 0).astype(int)


@pytest.fixture(scope="module")
def saved(tmp_path_factory) -> tuple[Path, pd.DataFrame, np.ndarray, pd.DataFrame]:
    """``(path, rows, P(y = 1) of the rows, their twins)`` of a tiny saved classifier."""
    X, y = _rows()
    est = CounterfactualFairClassifier(SPEC, **TINY).fit(X, y)
    path = save_model(est, tmp_path_factory.mktemp("model") / "m.cffair", training_frame=X.assign(y=y))
    rows = X.head(12)
    return path, rows, est.predict_proba(rows)[:, 1], est.counterfactuals_of(rows)


def _answers(path: Path, rows: pd.DataFrame) -> tuple[np.ndarray, pd.DataFrame]:
    model = load_model(path)
    return model.predict_proba(rows)[:, 1], model.counterfactuals_of(rows)


def test_the_round_trip_is_bit_for_bit_and_every_member_is_checksummed(saved) -> None:
    path, rows, p, twins = saved
    got_p, got_twins = _answers(path, rows)
    np.testing.assert_array_equal(got_p, p)
    pd.testing.assert_frame_equal(got_twins, twins, check_exact=True)
    payload = torch.load(path, weights_only=True)
    assert payload["format_version"] == MODEL_FORMAT[1]
    table = payload["checksums"]
    assert artefact_checksums(payload) == table  # recomputed from what was read: the same
    meta = json.loads(payload["meta"])
    assert {f"meta/{k}" for k in meta} <= set(table) and {"meta", "cffair_format", "format_version"} <= set(table)
    tensors = [f"tensors/model/{k}" for k in payload["tensors"]["model"]]
    assert len(tensors) == 6 and set(tensors) <= set(table)
    assert any(k.startswith("tensors/flow/") for k in table) and any(k.startswith("tensors/optimizer/") for k in table)


def _record_data(path: Path) -> list[tuple[int, int]]:
    """Byte ranges of the zip records' contents (what torch reads and the zip's CRC-32s cover)."""
    raw = path.read_bytes()
    out = []
    with zipfile.ZipFile(path) as archive:
        for info in archive.infolist():
            start = info.header_offset + 30
            start += int.from_bytes(raw[start - 4 : start - 2], "little") + int.from_bytes(
                raw[start - 2 : start], "little"
            )
            out.append((start, start + info.compress_size))
    return out


@pytest.mark.slow
def test_every_single_byte_flip_is_refused_in_one_line_or_changes_no_answer(saved, tmp_path) -> None:
    """300 seeded flips anywhere in the file: an :class:`ArtefactError` of one line, or the same
    answers bit for bit; never another exception, never other answers. A flip in the content of
    a zip record (every byte torch reads) is always refused."""
    path, rows, p, twins = saved
    raw = path.read_bytes()
    inside = _record_data(path)
    rng = np.random.default_rng(40)
    bad = tmp_path / "bad.cffair"
    refused, loaded = 0, []
    for _ in range(300):
        offset, mask = int(rng.integers(len(raw))), int(rng.integers(1, 256))
        damaged = bytearray(raw)
        damaged[offset] ^= mask
        bad.write_bytes(bytes(damaged))
        try:
            got_p, got_twins = _answers(bad, rows)
        except ArtefactError as exc:
            refused += 1
            msg = str(exc)
            assert "\n" not in msg and str(bad) in msg and "cffair fit" in msg, msg
            continue
        loaded.append(offset)
        assert np.array_equal(got_p, p), f"a flip at byte {offset} changed the predictions"
        pd.testing.assert_frame_equal(got_twins, twins, check_exact=True)
    assert not [o for o in loaded if any(a <= o < b for a, b in inside)], "a flip in a record's content loaded"
    assert refused > len(loaded)


def _edited(path: Path, out: Path, edit: Callable[[dict[str, Any]], None], *, reseal: bool = True) -> Path:
    """``path`` with its metadata edited by ``edit`` and (``reseal``) its checksums recomputed, as an editor would."""
    payload = torch.load(path, weights_only=True)
    meta = json.loads(payload["meta"])
    edit(meta)
    payload["meta"] = json.dumps(meta)
    torch.save(seal(payload) if reseal else payload, out)
    return out


def _set(*keys: Any, value: Any) -> Callable[[dict[str, Any]], None]:
    def edit(meta: dict[str, Any]) -> None:
        node = meta
        for key in keys[:-1]:
            node = node[key]
        node[keys[-1]] = value(node[keys[-1]]) if callable(value) else value

    return edit


def _all(*edits: Callable[[dict[str, Any]], None]) -> Callable[[dict[str, Any]], None]:
    def edit(meta: dict[str, Any]) -> None:
        for one in edits:
            one(meta)

    return edit


def _add_category(meta: dict[str, Any]) -> None:
    """A fourth job everywhere the categories are kept: consistent, but one column wider than the network."""
    meta["encoder"]["categories"]["job"].append("z")
    for dtypes in (meta["dtypes"], meta["flow"]["dtypes"]):
        dtypes["job"]["categories"].append("z")
    for col in meta["flow"]["columns"]:
        if col["name"] == "job":
            col["categories"].append("z")
            col["hi"] += 1


def _scaler(key: str, j: int, value: Any) -> Callable[[dict[str, Any]], None]:
    return _set("encoder", "scaler", key, j, value=value)


EDITS = {
    "classes swapped": (
        _set("classes", value=[1, 0]),
        "its classes [1, 0] are not two distinct labels in sorted order",
    ),
    "classes dropped": (_set("classes", value=None), "its classes None are not two distinct labels"),
    "three classes": (_set("classes", value=[0, 1, 2]), "its classes [0, 1, 2] are not two distinct labels"),
    "target kind score": (
        _set("spec", "target_kind", value="score"),
        "it holds a CounterfactualFairClassifier (a binary target) but its spec's target is of kind 'score'",
    ),
    "a regressor in full": (
        _all(
            _set("estimator", value="CounterfactualFairRegressor"),
            _set("spec", "target_kind", value="score"),
            _set("classes", value=None),
        ),
        "its network was trained for a 'binary' target but its spec says 'score'",
    ),
    "sensitive swapped": (
        _set("spec", "sensitive", value="region"),
        "its network was trained with the sensitive attribute 's' but its spec names 'region'",
    ),
    "sensitive swapped for the network too": (
        _all(_set("spec", "sensitive", value="region"), _set("learner", "params", "sensitive", value="region")),
        "its spec says sensitive = 'region' but its flow was fitted with sensitive = 's'",
    ),
    "sensitive swapped everywhere": (
        _all(
            _set("spec", "sensitive", value="region"),
            _set("learner", "params", "sensitive", value="region"),
            _set("flow", "spec", "sensitive", value="region"),
        ),
        "its spec is not the one whose hash it keeps with the hashes of its training data",
    ),
    "categories reordered": (
        _set("encoder", "categories", "job", value=["w", "v", "u"]),
        "its encoder's categories of 'job' ['w', 'v', 'u'] are not those of its dtype ['u', 'v', 'w']",
    ),
    "categories and dtype reordered": (
        _all(
            _set("encoder", "categories", "job", value=["w", "v", "u"]),
            _set("dtypes", "job", "categories", value=["w", "v", "u"]),
        ),
        "its dtype of 'job' is not the one its flow was fitted with",
    ),
    "categories repeated": (
        _all(
            _set("encoder", "categories", "job", value=["u", "u", "w"]),
            _set("dtypes", "job", "categories", value=["u", "u", "w"]),
        ),
        "its encoder's categories of 'job' repeat ['u']",
    ),
    "a category added everywhere": (_add_category, "its encoder makes 13 columns but its network was built for 12"),
    "a feature gone from the encoder": (
        _set("encoder", "categories", value=lambda cats: {k: v for k, v in cats.items() if k != "job"}),
        "its encoder has categories of ['e', 'region', 's'] but its spec's category features are ['s', 'job', 'region', 'e']",
    ),
    "a feature gone from the dtypes": (
        _set("dtypes", value=lambda d: {k: v for k, v in d.items() if k != "x"}),
        "its feature dtypes are for ['s', 'a', 'job', 'region', 'e'] but its spec's features are",
    ),
    "scaler mean edited": (_scaler("mean", 1, lambda m: m + 0.5), "are not those of the rows its flow was fitted on"),
    "scaler scale edited": (_scaler("scale", 1, lambda s: s * 2), "not the square root of its variance"),
    "scaler scale zero": (
        _all(_scaler("scale", 1, 0.0), _scaler("var", 1, 0.0)),
        "its encoder's scale of 'x' is 0.0 and variance 0.0; a scale must be positive",
    ),
    "scaler mean not a number": (
        _scaler("mean", 0, float("nan")),
        "its encoder's scaler statistics of 'a' are not finite",
    ),
    "graph edited": (
        _set("spec", "graph", "edges", "s", value=["x"]),
        "its spec's causal graph is not the one its flow was fitted on",
    ),
}


@pytest.mark.parametrize("name", list(EDITS))
def test_an_edited_value_is_refused_by_its_checksum_and_again_when_the_checksums_are_recomputed(
    saved, tmp_path, name
) -> None:
    path, *_ = saved
    edit, needle = EDITS[name]
    plain = _edited(path, tmp_path / "plain.cffair", edit, reseal=False)
    with pytest.raises(ArtefactError, match=r"was edited: its member 'meta/\w+' does not match the checksum") as err:
        load_model(plain)
    assert "\n" not in str(err.value) and "get an intact copy of the file" in str(err.value)
    forged = _edited(path, tmp_path / "forged.cffair", edit)
    with pytest.raises(ArtefactError) as err:
        load_model(forged)
    msg = str(err.value)
    assert "\n" not in msg and f"saved model {forged} contradicts itself: " in msg and needle in msg, msg
    assert "get an intact copy of the file, or write it again with `cffair fit" in msg


def test_a_resealed_file_without_an_edit_still_loads(saved, tmp_path) -> None:
    """The consistency checks refuse the edits above, not the re-sealing itself."""
    path, rows, p, _ = saved
    again = _edited(path, tmp_path / "same.cffair", lambda meta: None)
    np.testing.assert_array_equal(_answers(again, rows)[0], p)


def test_a_file_without_checksums_or_of_the_first_layout_is_refused(saved, tmp_path) -> None:
    path, *_ = saved
    payload = {k: v for k, v in torch.load(path, weights_only=True).items() if not k.startswith("checksums")}
    torch.save(payload, tmp_path / "bare.cffair")
    with pytest.raises(ArtefactError, match="carries no checksums, so damage or edits to it cannot be detected"):
        load_model(tmp_path / "bare.cffair")
    torch.save({**payload, "format_version": 1}, tmp_path / "v1.cffair")  # as cffair 0.2.0 wrote models
    with pytest.raises(ArtefactError) as err:
        load_model(tmp_path / "v1.cffair")
    msg = str(err.value)
    assert "has layout 1" in msg and "which carries no checksums" in msg and "write it again with `cffair fit" in msg


def test_a_damaged_table_of_checksums_is_named(saved, tmp_path) -> None:
    path, *_ = saved
    payload = torch.load(path, weights_only=True)
    name = next(iter(payload["checksums"]))
    payload["checksums"][name] = "0" * 64
    torch.save(payload, tmp_path / "table.cffair")
    with pytest.raises(ArtefactError, match="its table of checksums does not match its own checksum"):
        load_model(tmp_path / "table.cffair")
    table = {**payload["checksums"], name: "0" * 64}  # the table's own checksum recomputed: its entry is now wrong
    torch.save({**payload, "checksums": table, "checksums_digest": table_digest(table)}, tmp_path / "entry.cffair")
    with pytest.raises(ArtefactError, match=f"its member {name!r} does not match the checksum"):
        load_model(tmp_path / "entry.cffair")
