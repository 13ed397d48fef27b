"""cffair.datasets._memo: a paper dataset is parsed once per process, and every caller gets its own copy."""

from __future__ import annotations

import pandas as pd
import pytest

from cffair import datasets as D
from cffair.datasets import _memo as memo
from cffair.datasets import _registry as registry
from cffair.errors import DataError


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every call of the registry's loader, by name (the memo starts empty)."""
    calls: list[str] = []
    real = registry.load

    def load(name: str) -> D.Dataset:
        calls.append(name)
        return real(name)

    monkeypatch.setattr(registry, "load", load)
    memo.clear()
    yield calls
    memo.clear()


def test_a_paper_dataset_is_parsed_once_and_equals_the_loaders(counted: list[str]) -> None:
    first, second = memo.load("compas"), memo.load("compas")
    assert counted == ["compas"]
    fresh = D.load("compas")
    pd.testing.assert_frame_equal(first.frame, fresh.frame)
    pd.testing.assert_frame_equal(second.frame, fresh.frame)
    assert first.spec == second.spec == fresh.spec
    memo.load("compas_age")
    memo.clear()
    memo.load("compas")
    assert counted == ["compas", "compas_age", "compas"]


def test_what_a_caller_changes_never_reaches_the_next_caller(counted: list[str]) -> None:
    frame, spec = memo.load("compas")
    pristine = D.load("compas")
    frame.loc[frame.index[0], "age"] = -1
    frame["extra"] = 1.0
    race = spec.sensitive
    frame[race] = frame[race].cat.rename_categories({c: f"x{c}" for c in frame[race].cat.categories})
    spec.features["age"] = "continuous"  # the spec's mapping is mutable: it is copied too
    again = memo.load("compas")
    assert counted == ["compas"]
    pd.testing.assert_frame_equal(again.frame, pristine.frame)
    assert again.spec == pristine.spec and again.spec.features["age"] == "integer"
    assert again.frame is not frame and again.spec.features is not spec.features


def test_a_registered_dataset_is_read_again_when_its_file_changes(tmp_path, counted: list[str]) -> None:
    csv = tmp_path / "toy.csv"
    pd.DataFrame({"s": [0, 1] * 10, "x": range(20), "y": [0, 0, 1, 1] * 5}).to_csv(csv, index=False)
    spec = {"name": "toy", "target": "y", "target_kind": "binary", "sensitive": "s"}
    D.register("toy_memo", csv, spec)
    try:
        frame, got = memo.load("toy_memo")
        frame["x"] = 0
        got.features["x"] = "continuous"
        again = memo.load("toy_memo")
        assert again.frame["x"].tolist() == list(range(20)) and again.spec.features["x"] == "integer"
        pd.DataFrame({"s": [0, 1] * 10, "x": range(100, 120), "y": [0, 0, 1, 1] * 5}).to_csv(csv, index=False)
        assert memo.load("toy_memo").frame["x"].tolist() == list(range(100, 120))
    finally:
        D.unregister("toy_memo")
    with pytest.raises(DataError, match="unknown dataset 'toy_memo'"):
        memo.load("toy_memo")
