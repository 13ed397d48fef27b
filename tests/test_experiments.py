"""The experiment runner: resumable store, hashing, determinism, backend switch."""

from __future__ import annotations

import json
import os
import signal
import sys
from dataclasses import replace
from pathlib import Path

import cloudpickle
import numpy as np
import pytest

from cffair import experiments as E
from cffair.utils import atomic_path

cloudpickle.register_pickle_by_value(sys.modules[__name__])  # workers get the toy runner by value


@pytest.fixture(autouse=True)
def frozen_code(monkeypatch, request):
    """The library's files change while developing; pin the code hash except where it is tested."""
    if request.node.name != "test_code_version_tracks_source":
        monkeypatch.setenv("CFFAIR_CODE_VERSION", "test-code")


def toy_runner(group, store):
    """Stands in for the real pipeline: a seeded least-squares fit per config, one record each."""
    out = []
    for cfg in group:
        with open(store.root / "executions.log", "a") as fh:
            fh.write(cfg.key + "\n")
        if cfg.setting == "crash" and not (store.root / "crashed-once").exists():
            (store.root / "crashed-once").write_text("x")
            os.kill(os.getpid(), signal.SIGKILL)  # the worker dies mid-grid
        rng = np.random.default_rng([cfg.seed, cfg.fold, len(cfg.setting)])
        x = rng.normal(size=(200, 3))
        y = x @ np.array([1.0, -2.0, 0.5]) + rng.normal(scale=0.1, size=200)
        w, *_ = np.linalg.lstsq(x, y, rcond=None)
        metrics = {"mse": float(np.mean((x @ w - y) ** 2)), "w0": float(w[0])}
        rec = E.make_record(cfg, data_hash="toy", metrics=metrics, timings={"total": 0.0})
        store.put(rec)
        out.append(rec)
    return out


def _grid(settings=("ltn_acc", "ltn_acc_cf", "cnf", "gan")):
    return [E.ExperimentConfig("compas", f, s, profile="quick") for f in (0, 1) for s in settings]


def _metrics(store):
    return {r["config"]["setting"] + str(r["config"]["fold"]): r["metrics"] for r in store.records()}


def test_same_seed_same_metrics_and_resume_skips_done(tmp_path):
    a, b = E.ResultsStore(tmp_path / "a"), E.ResultsStore(tmp_path / "b")
    E.run_grid(_grid(), a, jobs=1, runner=toy_runner, progress=False)
    E.run_grid(_grid(), b, jobs=2, runner=toy_runner, progress=False)
    assert _metrics(a) == _metrics(b) and len(_metrics(a)) == 8
    n_before = len((tmp_path / "a" / "executions.log").read_text().splitlines())
    E.run_grid(_grid(), a, jobs=1, runner=toy_runner, progress=False)  # everything fresh: nothing runs
    assert len((tmp_path / "a" / "executions.log").read_text().splitlines()) == n_before


def test_killed_worker_then_resume_equals_uninterrupted(tmp_path):
    grid = _grid(("ltn_acc", "cnf", "crash", "gan"))
    store = E.ResultsStore(tmp_path / "killed")
    with pytest.raises(Exception):  # joblib reports the dead worker
        E.run_grid(grid, store, jobs=2, runner=toy_runner, progress=False)
    done_before = {p.name: p.stat().st_mtime_ns for p in (store.root / "records").glob("*.json")}
    assert 0 < len(done_before) < len(grid)
    for p in (store.root / "records").iterdir():  # nothing half-written: every file parses
        json.loads(p.read_text())
    assert not list((store.root / "records").glob(".*.tmp"))
    E.run_grid(grid, store, jobs=2, runner=toy_runner, progress=False)
    after = {p.name: p.stat().st_mtime_ns for p in (store.root / "records").glob("*.json")}
    assert len(after) == len(grid)
    assert all(after[name] == t for name, t in done_before.items())  # finished records were reused
    clean = E.ResultsStore(tmp_path / "clean")
    (clean.root / "crashed-once").write_text("x")
    E.run_grid(grid, clean, jobs=1, runner=toy_runner, progress=False)
    assert _metrics(store) == _metrics(clean)


def test_record_hash_changes_with_config_data_and_code():
    cfg = E.ExperimentConfig("adult", 0, "ltn_acc_cf")
    h = E.record_hash(cfg, "data1", "code1")
    assert h == E.record_hash(E.ExperimentConfig("adult", 0, "ltn_acc_cf"), "data1", "code1")
    assert h != E.record_hash(replace(cfg, fold=1), "data1", "code1")
    assert h != E.record_hash(E.with_weights(cfg, cf=2.0), "data1", "code1")
    assert h != E.record_hash(cfg, "data2", "code1")
    assert h != E.record_hash(cfg, "data1", "code2")


def test_code_version_tracks_source(tmp_path, monkeypatch):
    import cffair

    v1 = E.code_version()
    fake = tmp_path / "cffair"
    fake.mkdir()
    (fake / "a.py").write_text("x = 1\n")
    monkeypatch.setattr(E, "__file__", str(fake / "experiments.py"))
    v2 = E.code_version()
    (fake / "a.py").write_text("x = 2\n")
    assert v1 != v2 != E.code_version()
    assert Path(cffair.__file__).exists()


def test_stale_record_is_rerun(tmp_path):
    store = E.ResultsStore(tmp_path)
    grid = _grid(("ltn_acc",))
    E.run_grid(grid, store, jobs=1, runner=toy_runner, progress=False)
    assert set(E.status(store, grid)["state"]) == {"fresh"}
    p = store.path(grid[0])
    rec = json.loads(p.read_text())
    rec["code_version"] = "old"
    p.write_text(json.dumps(rec))
    assert E.status(store, grid)["state"].tolist()[0] == "stale"
    E.run_grid(grid, store, jobs=1, runner=toy_runner, progress=False)
    assert set(E.status(store, grid)["state"]) == {"fresh"}


def test_atomic_write_leaves_nothing_on_failure(tmp_path):
    target = tmp_path / "r.json"
    target.write_text("old")
    with pytest.raises(RuntimeError):
        with atomic_path(target) as tmp:
            tmp.write_text("half")
            raise RuntimeError("killed")
    assert target.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["r.json"]


def test_ltn_settings_and_gan_share_one_task_per_fold():
    groups = E._task_groups(E.paper_grid("quick", ["compas"], only=["q1", "q2", "appendix_a"]))
    ltn = [g for g in groups if g[0].setting.startswith("ltn")]
    assert len(ltn) == 1
    assert {(c.setting, c.cf_source) for c in ltn[0]} == {
        ("ltn_acc", "cnf"), ("ltn_acc_cf", "cnf"), ("ltn_acc_cf_sg", "cnf"), ("gan", "cnf"), ("ltn_acc_cf", "gan")}
    others = [g for g in groups if g is not ltn[0]]
    assert all(len(g) == 1 for g in others)
    # the paper's baselines come before the extra ones
    order = [g[0].setting for g in groups]
    assert max(order.index("cnf"), order.index("dcevae")) < min(order.index(s) for s in ("unaware", "level3", "pcf"))


def test_full_grid_ordered_by_fold():
    groups = E._task_groups(E.paper_grid("full"))
    folds = [g[0].fold for g in groups]
    assert folds == sorted(folds)


def test_paper_grid_covers_tables():
    grid = E.paper_grid("full")
    keys = {(c.dataset, c.setting) for c in grid if c.cf_source == "cnf" and not c.tag}
    for ds in E.DATASETS:
        for s in (*E.LTN_SETTINGS, "cnf", "gan", "dcevae"):
            assert (ds, s) in keys
    assert {c.fold for c in grid} == {0, 1, 2, 3, 4}


@pytest.mark.slow
def test_dask_backend_runs_a_tiny_grid(tmp_path):
    pytest.importorskip("distributed")
    store = E.ResultsStore(tmp_path)
    df = E.run_grid(_grid(("ltn_acc", "cnf")), store, jobs=2, backend="dask", runner=toy_runner, progress=False)
    local = E.ResultsStore(tmp_path / "local")
    E.run_grid(_grid(("ltn_acc", "cnf")), local, jobs=1, runner=toy_runner, progress=False)
    assert len(df) == 4
    assert _metrics(store) == _metrics(local)
