"""Datasets by name (cffair.datasets._registry), ExperimentConfig.n_folds, and the counterfactual
treatment of registered data: a user's CSV is loadable by name here and in fresh processes, its
records' data hash covers its spec and graph, and the paper grid's configs and fingerprints are
what they were before."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from cffair import datasets as D
from cffair.datasets import _registry as registry
from cffair.errors import DataError
from cffair.experiments import ConfigError, ExperimentConfig, paper_grid

SPEC = """name: {name}
target: approved
target_kind: binary
sensitive: sex
features: {{sex: binary, age: integer, income: continuous}}
subgroups: [{subgroups}]
immutable: [age]
graph: graph.yaml
description: {description}
"""
GRAPH = "edges:\n  sex: [income]\n  age: [income]\n"


def _write(
    folder: Path, name: str = "loans", subgroups: str = "sex", description: str = "toy loans", rows: int = 120
) -> tuple[Path, Path]:
    rng = np.random.default_rng(1)
    sex = rng.choice(["f", "m"], rows)
    age = rng.integers(20, 60, rows)
    income = (sex == "m") + 0.05 * age + rng.normal(0, 1, rows)
    pd.DataFrame({"sex": sex, "age": age, "income": income.round(4), "approved": (income > 2.5).astype(int)}).to_csv(
        folder / "loans.csv", index=False
    )
    (folder / "spec.yaml").write_text(SPEC.format(name=name, subgroups=subgroups, description=description))
    (folder / "graph.yaml").write_text(GRAPH)
    return folder / "loans.csv", folder / "spec.yaml"


@pytest.fixture(autouse=True)
def clean_registry(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(registry.ENV_VAR, raising=False)
    monkeypatch.setattr(registry, "_LOCAL", {})


def test_register_then_load_by_name_gives_the_csv_with_the_registered_name(tmp_path: Path) -> None:
    csv, spec = _write(tmp_path, name="custom")
    ds = D.register("my_loans", csv, spec)
    again = D.load("my_loans")
    direct = D.from_csv(csv, spec)
    pd.testing.assert_frame_equal(again.frame, direct.frame)
    assert again.spec.name == ds.spec.name == "my_loans"
    assert D.registration("my_loans").data == str(csv.resolve())
    assert "my_loans" in json.loads(os.environ[registry.ENV_VAR])


def test_a_fresh_process_loads_a_registered_dataset_from_the_environment(tmp_path: Path) -> None:
    csv, spec = _write(tmp_path)
    D.register("loans", csv, spec)
    code = "from cffair import datasets as D; ds = D.load('loans'); print(len(ds.frame), ds.spec.name, D.data_hash('loans'))"
    out = subprocess.run(
        [sys.executable, "-c", code], env=dict(os.environ), capture_output=True, text=True, check=True
    ).stdout.split()
    assert out == ["120", "loans", D.data_hash("loans")]


def test_snapshot_and_restore_carry_registrations_to_a_process_without_them(tmp_path: Path) -> None:
    csv, spec = _write(tmp_path)
    D.register("loans", csv, spec)
    snap = registry.snapshot()
    registry._LOCAL.clear()
    os.environ.pop(registry.ENV_VAR)
    with pytest.raises(DataError, match="unknown dataset 'loans'"):
        D.load("loans")
    registry.restore(snap)
    assert len(D.load("loans").frame) == 120


def test_unregister_forgets_here_and_in_the_environment(tmp_path: Path) -> None:
    csv, spec = _write(tmp_path)
    D.register("loans", csv, spec)
    D.unregister("loans")
    assert D.registration("loans") is None and registry.ENV_VAR not in os.environ
    with pytest.raises(DataError, match=r"register your own with cffair.datasets.register\(name, csv, spec\)"):
        D.load("loans")


def test_unknown_name_lists_builtin_and_registered_datasets(tmp_path: Path) -> None:
    csv, spec = _write(tmp_path)
    D.register("loans", csv, spec)
    with pytest.raises(DataError) as err:
        D.load("lons")
    assert "'lons'" in str(err.value) and "'adult'" in str(err.value) and "['loans']" in str(err.value)


@pytest.mark.parametrize(
    ("name", "words"),
    [
        ("adult", ["'adult' is a built-in dataset", "my_adult"]),
        ("a/b", ["'a/b'", "letters, digits", "file names"]),
        ("", ["''", "start with a letter or digit"]),
    ],
)
def test_bad_names_are_refused(tmp_path: Path, name: str, words: list[str]) -> None:
    csv, spec = _write(tmp_path)
    with pytest.raises(DataError) as err:
        D.register(name, csv, spec)
    assert all(w in str(err.value) for w in words), str(err.value)
    assert registry.ENV_VAR not in os.environ


def test_registering_a_missing_file_names_it(tmp_path: Path) -> None:
    _, spec = _write(tmp_path)
    with pytest.raises(DataError, match=r"data file .*nope\.csv does not exist"):
        D.register("loans", tmp_path / "nope.csv", spec)


@pytest.mark.parametrize(
    ("flow", "words"),
    [
        ({"categorical": "bogus"}, "categorical must be one of"),
        ({"hiden": [8]}, "unknown flow config key(s) ['hiden']"),
    ],
)
def test_a_bad_flow_setting_is_refused_by_the_grid_before_any_work(tmp_path: Path, flow: dict, words: str) -> None:
    """The dataset registry keeps flow settings as given (it sits below the flow); the grid's option check reads
    them with the flow's config and refuses a bad one in one line naming the dataset, before the store is touched."""
    from cffair.experiments import ResultsStore
    from cffair.experiments._config import check_registered_flows
    from cffair.workflows._reproduce import run_grid

    csv, spec = _write(tmp_path)
    D.register("loans", csv, spec, flow=flow)
    assert D.registration("loans").flow == flow  # kept as given
    store = ResultsStore(tmp_path / "store")
    with pytest.raises(ConfigError, match=r"registered dataset 'loans' has flow settings") as err:
        run_grid([ExperimentConfig("loans", 0, "ltn_acc", profile="quick")], store, progress=False)
    assert words in str(err.value) and "\n" not in str(err.value)
    assert not any((store.root / "records").iterdir())  # nothing was computed or written
    check_registered_flows(["adult", "compas"])  # built-in datasets have no flow settings to check
    D.register("loans", csv, spec, flow={"categorical": "flow"})
    check_registered_flows(["loans"])  # a good setting passes


def test_a_registered_file_that_disappears_is_reported(tmp_path: Path) -> None:
    csv, spec = _write(tmp_path)
    D.register("loans", csv, spec)
    csv.unlink()
    with pytest.raises(DataError, match=r"registered with .*loans\.csv, which no longer exists; register it again"):
        D.load("loans")


def test_env_var_that_is_not_json_is_reported(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(registry.ENV_VAR, "{not json")
    with pytest.raises(DataError, match=r"\$CFFAIR_DATASETS is not valid JSON"):
        D.load("anything")


# ---------------------------------------------------------------------------- data hash
def test_builtin_data_hash_is_the_rows_hash_as_before() -> None:
    frame = D.load("compas").frame
    assert D.data_hash("compas") == D.frame_hash(frame)


def test_registered_data_hash_follows_spec_and_graph_but_not_the_description(tmp_path: Path) -> None:
    csv, spec = _write(tmp_path)
    D.register("loans", csv, spec)
    first = D.data_hash("loans")
    _write(tmp_path, description="another description")
    os.utime(spec, ns=(1, 1))  # a new stamp, even within the file system's time resolution
    assert D.data_hash("loans") == first
    _write(tmp_path, subgroups="sex, {column: age, bins: [-.inf, 40, .inf]}")
    os.utime(spec, ns=(2, 2))
    changed_spec = D.data_hash("loans")
    assert changed_spec != first
    (tmp_path / "graph.yaml").write_text("edges:\n  sex: [income]\nnodes: [age]\n")
    os.utime(tmp_path / "graph.yaml", ns=(3, 3))
    assert D.data_hash("loans") not in (first, changed_spec)


def test_registered_data_hash_follows_the_rows(tmp_path: Path) -> None:
    csv, spec = _write(tmp_path)
    D.register("loans", csv, spec)
    first = D.data_hash("loans")
    frame = pd.read_csv(csv)
    frame.iloc[::-1].to_csv(csv, index=False)  # the same rows, reordered
    os.utime(csv, ns=(5, 5))
    assert D.data_hash("loans") != first


# ---------------------------------------------------------------------------- configs and treatment
def test_paper_grid_configs_carry_no_fold_count() -> None:
    for cfg in paper_grid("full"):
        assert "n_folds" not in cfg.to_dict() and cfg.fold_count == 5


def test_n_folds_of_the_profile_is_the_same_config() -> None:
    assert ExperimentConfig("x", 0, "ltn_acc", n_folds=5) == ExperimentConfig("x", 0, "ltn_acc")
    assert ExperimentConfig("x", 0, "ltn_acc", profile="quick", n_folds=5).n_folds is None


def test_n_folds_bounds_the_fold_and_round_trips() -> None:
    cfg = ExperimentConfig("x", 6, "cnf", n_folds=7)
    assert cfg.fold_count == 7 and ExperimentConfig.from_dict(cfg.to_dict()) == cfg
    with pytest.raises(ConfigError, match=r"fold must be an integer in 0\.\.2 for 3 folds"):
        ExperimentConfig("x", 3, "cnf", n_folds=3)
    with pytest.raises(ConfigError, match="n_folds must be a whole number >= 2"):
        ExperimentConfig("x", 0, "cnf", n_folds=1)


def test_paper_fingerprint_keeps_the_paper_treatment_and_no_fold_count() -> None:
    from cffair.causal._config import FlowConfig
    from cffair.experiments._pipeline.counterfactuals import PAPER_TREATMENT, flow_config
    from cffair.experiments._pipeline.keys import producer

    cfg = ExperimentConfig("compas", 0, "ltn_acc_cf")
    assert flow_config("full", "compas") == flow_config("full") == {"epochs": 1000, **PAPER_TREATMENT}
    pre = producer("pretrained", cfg, "h")
    assert pre["config"]["n_folds"] == 5
    cf = producer("counterfactuals", cfg, "h")
    assert cf["config"]["flow"] == {"epochs": 1000, **PAPER_TREATMENT}
    assert FlowConfig.from_dict(cf["config"]["flow"]).categorical == "flow"


def test_registered_data_uses_the_library_treatment_unless_chosen(tmp_path: Path) -> None:
    from cffair.causal._config import FlowConfig
    from cffair.experiments._pipeline.counterfactuals import flow_config

    csv, spec = _write(tmp_path)
    D.register("loans", csv, spec)
    assert flow_config("quick", "loans") == {"epochs": 20}
    assert FlowConfig.from_dict(flow_config("quick", "loans")).categorical == FlowConfig().categorical
    D.register("loans_paper", csv, spec, flow={"categorical": "flow"})
    assert flow_config("quick", "loans_paper") == {"epochs": 20, "categorical": "flow"}
