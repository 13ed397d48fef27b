"""The experiment runner: configs, resumable store, corrupt records, determinism, task groups."""

from __future__ import annotations

import json
import os
import signal
import sys
from dataclasses import replace

import cloudpickle
import numpy as np
import pytest

from cffair import experiments as E
from cffair import reproduce as R
from cffair.utils import atomic_path

cloudpickle.register_pickle_by_value(sys.modules[__name__])  # workers get the toy runner by value


def toy_fingerprint(cfg):
    """Stands in for a real fingerprint: the config and a fixed code hash (``$TOY_CODE`` changes it)."""
    return {"code": {"toy": os.environ.get("TOY_CODE", "1")}, "data": "toy", "config": cfg.to_dict(), "packages": {}, "inputs": {}}


def toy_runner(group, store):
    """Stands in for the real pipeline: a seeded least-squares fit per config, one record each."""
    out = []
    for cfg in group:
        with open(store.root / "executions.log", "a") as fh:
            fh.write(cfg.key + "\n")
        if cfg.setting == "pcf" and not (store.root / "crashed-once").exists():
            (store.root / "crashed-once").write_text("x")
            os.kill(os.getpid(), signal.SIGKILL)  # the worker dies mid-grid
        rng = np.random.default_rng([cfg.seed, cfg.fold, len(cfg.setting)])
        x = rng.normal(size=(200, 3))
        y = x @ np.array([1.0, -2.0, 0.5]) + rng.normal(scale=0.1, size=200)
        w, *_ = np.linalg.lstsq(x, y, rcond=None)
        metrics = {"mse": float(np.mean((x @ w - y) ** 2)), "w0": float(w[0])}
        rec = E.make_record(cfg, toy_fingerprint(cfg), metrics, {"total": 0.0})
        store.put(rec)
        out.append(rec)
    return out


def _grid(settings=("ltn_acc", "ltn_acc_cf", "cnf", "gan")):
    return [E.ExperimentConfig("compas", f, s, profile="quick") for f in (0, 1) for s in settings]


def _run(grid, store, jobs=1):
    return R.run_grid(grid, store, jobs=jobs, runner=toy_runner, expected=toy_fingerprint, progress=False)


def _metrics(store):
    return {r["config"]["setting"] + str(r["config"]["fold"]): r["metrics"] for r in store.records()}


def _executions(store):
    p = store.root / "executions.log"
    return p.read_text().splitlines() if p.exists() else []


def test_same_seed_same_metrics_and_resume_skips_done(tmp_path):
    a, b = E.ResultsStore(tmp_path / "a"), E.ResultsStore(tmp_path / "b")
    _run(_grid(), a, jobs=1)
    _run(_grid(), b, jobs=2)
    assert _metrics(a) == _metrics(b) and len(_metrics(a)) == 8
    n_before = len(_executions(a))
    _run(_grid(), a)  # everything fresh: nothing runs
    assert len(_executions(a)) == n_before


def test_killed_worker_then_resume_equals_uninterrupted(tmp_path):
    grid = _grid(("ltn_acc", "cnf", "pcf", "gan"))
    store = E.ResultsStore(tmp_path / "killed")
    with pytest.raises(Exception):  # joblib reports the dead worker
        _run(grid, store, jobs=2)
    done_before = {p.name: p.stat().st_mtime_ns for p in (store.root / "records").glob("*.json")}
    assert 0 < len(done_before) < len(grid)
    assert not store.corrupt()  # nothing half-written
    assert not list((store.root / "records").glob(".*.tmp"))
    _run(grid, store, jobs=2)
    after = {p.name: p.stat().st_mtime_ns for p in (store.root / "records").glob("*.json")}
    assert len(after) == len(grid)
    assert all(after[name] == t for name, t in done_before.items())  # finished records were reused
    clean = E.ResultsStore(tmp_path / "clean")
    (clean.root / "crashed-once").write_text("x")
    _run(grid, clean)
    assert _metrics(store) == _metrics(clean)


def test_stale_record_is_rerun_and_says_why(tmp_path, monkeypatch):
    store = E.ResultsStore(tmp_path)
    grid = _grid(("ltn_acc",))
    _run(grid, store)
    assert set(R.status(store, grid, toy_fingerprint)["state"]) == {"fresh"}
    monkeypatch.setenv("TOY_CODE", "2")
    st = R.status(store, grid, toy_fingerprint)
    assert st["state"].tolist() == ["stale", "stale"]
    assert st["reasons"].tolist()[0] == ["code of toy changed"]
    _run(grid, store)
    assert set(R.status(store, grid, toy_fingerprint)["state"]) == {"fresh"}
    assert len(_executions(store)) == 4


# ---------------------------------------------------------------------------- corrupt records
def _corrupt(path, how):
    rec = json.loads(path.read_text())
    if how == "list":
        path.write_text("[1, 2, 3]")
    elif how == "utf8":
        path.write_bytes(b'{"config": "\xff\xfe"}')
    elif how == "no-metrics":
        del rec["metrics"]
        path.write_text(json.dumps(rec))
    elif how == "hand-edit":
        rec["metrics"]["mse"] = 0.0
        path.write_text(json.dumps(rec, indent=2))
    elif how == "truncated":
        path.write_text(path.read_text()[:40])


@pytest.mark.parametrize("how,reason", [
    ("list", "a JSON list, not an object"),
    ("utf8", "not UTF-8"),
    ("no-metrics", "no 'metrics' field"),
    ("hand-edit", "checksum does not match"),
    ("truncated", "not JSON (line"),
])
def test_a_corrupt_record_never_blocks_the_store(tmp_path, how, reason):
    store = E.ResultsStore(tmp_path)
    grid = _grid(("ltn_acc", "cnf"))
    _run(grid, store)
    good = _metrics(store)
    bad_path = store.path(grid[1])
    _corrupt(bad_path, how)
    # reading and status go on, naming the file and what is wrong with it
    assert len(store.records()) == len(grid) - 1
    [bad] = store.corrupt()
    assert bad.path == bad_path and reason in bad.reason
    st = R.status(store, grid, toy_fingerprint)
    assert st.loc[st["key"] == grid[1].key, "state"].item() == "corrupt"
    assert reason in st.loc[st["key"] == grid[1].key, "reasons"].item()[0]
    # the next run moves it aside and recomputes it
    _run(grid, store)
    assert (store.quarantine_dir / bad_path.name).exists()
    assert not store.corrupt() and _metrics(store) == good
    assert _executions(store).count(grid[1].key) == 2


def test_results_command_shows_corrupt_records_by_path(tmp_path, monkeypatch, capsys):
    from cffair.cli import main

    monkeypatch.setenv("CFFAIR_RESULTS", str(tmp_path))
    store = E.ResultsStore(tmp_path / "quick")
    grid = E.paper_grid("quick", ["compas"], ["q1"])
    _run(grid, store)
    _corrupt(store.path(grid[0]), "list")
    assert main(["results", "--mode", "quick", "--only", "q1"]) == 0
    out = capsys.readouterr().out
    assert f"corrupt: {store.path(grid[0])}: a JSON list, not an object" in out


def test_record_hash_changes_with_config_data_and_code():
    cfg = E.ExperimentConfig("adult", 0, "ltn_acc_cf")
    base = toy_fingerprint(cfg)
    h = E.make_record(cfg, base, {}, {})["hash"]
    assert h == E.make_record(cfg, toy_fingerprint(E.ExperimentConfig("adult", 0, "ltn_acc_cf")), {}, {})["hash"]
    for changed in ({**base, "config": replace(cfg, fold=1).to_dict()}, {**base, "data": "other"}, {**base, "code": {"toy": "2"}}):
        assert E.make_record(cfg, changed, {}, {})["hash"] != h


def test_atomic_write_leaves_nothing_on_failure(tmp_path):
    target = tmp_path / "r.json"
    target.write_text("old")
    with pytest.raises(RuntimeError):
        with atomic_path(target) as tmp:
            tmp.write_text("half")
            raise RuntimeError("killed")
    assert target.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["r.json"]


# ---------------------------------------------------------------------------- configs and grid
@pytest.mark.parametrize("kwargs,message", [
    ({"dataset": "adult", "fold": 0, "setting": "ltn_ac"}, "unknown setting 'ltn_ac'"),
    ({"dataset": "adult", "fold": 0, "setting": "ltn_acc", "profile": "fulll"}, "unknown profile 'fulll'"),
    ({"dataset": "adult", "fold": 5, "setting": "ltn_acc"}, "fold must be an integer in 0..4"),
    ({"dataset": "adult", "fold": 0, "setting": "ltn_acc", "weights": (("acc", 1.0), ("foo", 2.0))}, "unknown axiom-group weight"),
    ({"dataset": "adult", "fold": 0, "setting": "ltn_acc", "seed": -1}, "seed must be a non-negative integer"),
])
def test_bad_configs_are_refused_with_a_clear_message(kwargs, message):
    with pytest.raises(E.ConfigError, match=message):
        E.ExperimentConfig(**kwargs)


def test_grid_refuses_unknown_groups_and_profiles():
    with pytest.raises(E.ConfigError, match=r"unknown question group\(s\) \['q5'\]"):
        E.paper_grid("full", only=["q5"])
    with pytest.raises(E.ConfigError, match="unknown profile 'fulll'"):
        E.paper_grid("fulll")


def test_ltn_settings_and_gan_share_one_task_per_fold():
    groups = R._task_groups(E.paper_grid("quick", ["compas"], only=["q1", "q2", "appendix_a"]))
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
    groups = R._task_groups(E.paper_grid("full"))
    folds = [g[0].fold for g in groups]
    assert folds == sorted(folds)


def test_paper_grid_covers_tables():
    grid = E.paper_grid("full")
    keys = {(c.dataset, c.setting) for c in grid if c.cf_source == "cnf" and not c.tag}
    for ds in E.DATASETS:
        for s in (*E.LTN_SETTINGS, "cnf", "gan", "dcevae"):
            assert (ds, s) in keys
    assert {c.fold for c in grid} == {0, 1, 2, 3, 4}


def test_every_group_has_a_notebook():
    assert set(R.NOTEBOOKS) == set(E.GROUPS)
