"""The grid runner on real runs: Dask equals joblib, workers die with their parent, the spot check."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import machines
import pytest

from cffair._support.utils import project_root
from cffair.errors import OptionError, RunError
from cffair.experiments import ExperimentConfig, ResultsStore, diff, paper_grid
from cffair.workflows import _reproduce as R

pytestmark = pytest.mark.slow


def _metrics(store: ResultsStore) -> dict[str, dict]:
    return {ExperimentConfig.from_dict(r["config"]).key: r["metrics"] for r in store.records()}


def test_a_real_grid_on_a_dask_local_cluster_equals_the_joblib_run(tmp_path, monkeypatch):
    pytest.importorskip("distributed")
    from cffair.experiments._pipeline import prepare_counterfactuals

    monkeypatch.setenv("CFFAIR_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv("CFFAIR_DASK_SCHEDULER", raising=False)
    grid = [
        c
        for c in paper_grid("quick", ["compas"], ["q1", "q2"])
        if c.setting in ("ltn_acc", "ltn_acc_cf", "cnf", "unaware")
    ]
    known = {d: {"counterfactuals": h} for d, h in prepare_counterfactuals("quick", ["compas"]).items()}
    local, dask = ResultsStore(tmp_path / "joblib"), ResultsStore(tmp_path / "dask")
    R.run_grid(grid, local, jobs=1, progress=False, known_inputs=known)
    R.run_grid(grid, dask, jobs=2, backend="dask", progress=False, known_inputs=known)
    assert len(_metrics(local)) == len(grid) == 4
    assert _metrics(dask) == _metrics(local)
    assert {r["hash"] for r in dask.records()} == {r["hash"] for r in local.records()}


SLOW_GRID = """
import os, sys, time
sys.path.insert(0, {tests!r})
from cffair.workflows import _reproduce as R
from cffair.experiments import ExperimentConfig, ResultsStore
from toy_grid import toy_fingerprint

def sleeper(group, store):
    (store.root / f"worker-{{os.getpid()}}.pid").write_text(str(os.getpid()))
    time.sleep(120)
    return []

grid = [ExperimentConfig("compas", f, "cnf", profile="quick") for f in range(1)] + \\
       [ExperimentConfig("compas", 0, s, profile="quick") for s in ("dcevae", "pcf")]
R.run_grid(grid, ResultsStore({root!r}), jobs=2, runner=sleeper, expected=toy_fingerprint, progress=False)
"""


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    stat = Path(f"/proc/{pid}/stat")
    return not (stat.exists() and stat.read_text().split(")")[-1].split()[0] == "Z")


def test_workers_stop_when_the_main_process_is_killed(tmp_path):
    script = tmp_path / "grid.py"
    script.write_text(
        textwrap.dedent(SLOW_GRID.format(tests=str(project_root() / "tests"), root=str(tmp_path / "store")))
    )
    main = subprocess.Popen([sys.executable, str(script)], cwd=tmp_path, start_new_session=True)
    try:
        deadline = time.time() + 120
        while len(list((tmp_path / "store").glob("worker-*.pid"))) < 2 and time.time() < deadline:
            time.sleep(0.5)
        pids = [int(p.read_text()) for p in (tmp_path / "store").glob("worker-*.pid")]
        assert len(pids) == 2 and all(_alive(p) for p in pids)
        main.send_signal(signal.SIGKILL)
        main.wait()
        deadline = time.time() + 15
        while any(_alive(p) for p in pids) and time.time() < deadline:
            time.sleep(0.5)
        assert not any(_alive(p) for p in pids), "workers outlived the killed main process"
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(main.pid, signal.SIGKILL)


def test_spot_check_one_committed_record_recomputed_from_scratch(tmp_path, monkeypatch):
    """COMPAS fold 0, LTN(acc+CF), full profile, recomputed from nothing: if the committed record
    is fresh, its numbers must match; if they do not match, the record must read stale (the guard
    against a fingerprint that calls a changed result fresh). Match means to :data:`machines.ONE_CPU`
    when the record was made on a CPU of this kind, within :data:`machines.ACROSS_MACHINES` otherwise."""
    cfg = ExperimentConfig("compas", 0, "ltn_acc_cf", profile="full")
    committed_store = ResultsStore(project_root() / "results" / "full")
    committed = committed_store.get(cfg)
    assert committed is not None, "results/full has no COMPAS fold-0 LTN(acc+CF) record"
    state, reasons = R.check(committed_store, cfg)

    monkeypatch.setenv("CFFAIR_CACHE", str(tmp_path / "cache"))  # nothing cached: twins, flow, model
    scratch = ResultsStore(tmp_path / "scratch")
    R.run_grid([ExperimentConfig("compas", 0, "ltn_acc", profile="full"), cfg], scratch, jobs=1, progress=False)
    rec = scratch.get(cfg)
    assert rec is not None
    gaps = {
        m: abs(rec["metrics"][m] - committed["metrics"][m]) for m in ("accuracy", "cf_mse", "cf_mse_worst_subgroup")
    }
    one_cpu = machines.one_cpu(committed.get("machine"), rec["machine"])
    close = all(g <= machines.tolerance(committed.get("machine"), rec["machine"]) for g in gaps.values())
    print(json.dumps({"state": state, "reasons": reasons[:5], "gaps": gaps, "one_cpu": one_cpu}, indent=1))
    if state == "fresh":
        assert close, f"the committed record reads fresh but recomputing it differs by {gaps}"
        # the same fingerprint, up to modules declared exempt since the record was made
        assert diff(committed["fingerprint"], rec["fingerprint"]) == []
    else:
        assert reasons, "a record that is not fresh must say why"
    if not close:
        assert state != "fresh"


def test_provenance_counts_the_records_a_run_computed(tmp_path, monkeypatch):
    """A run that resumes a regeneration says how many of the grid's records it computed, so no
    one reads its stage times as a whole run's."""
    import cffair.experiments._pipeline

    cfgs = paper_grid("quick", only=["q1"])
    stale = {c.key for c in cfgs[:2]}
    ran = []
    monkeypatch.setattr(cffair.experiments._pipeline, "prepare_inputs", lambda *a, **k: {})
    monkeypatch.setattr(
        R, "check", lambda store, cfg, expected=None, known_inputs=None: ("stale" if cfg.key in stale else "fresh", [])
    )
    monkeypatch.setattr(R, "run_grid", lambda cfgs, store, **kw: ran.append(len(cfgs)))
    prov = R.reproduce("quick", ["q1"], jobs=1, results_dir=tmp_path, steps=False)
    assert prov["records_computed"] == 2 and prov["records_in_grid"] == len(cfgs) == ran[0]
    assert json.loads((tmp_path / "provenance.json").read_text())["records_computed"] == 2


def test_the_installed_steps_run_after_the_grid_with_the_mode_and_groups(tmp_path, monkeypatch):
    """``cffair reproduce`` runs each step installed under the entry-point group after the grid, with
    the run's mode and groups, and times it under the step's name; ``steps=False`` runs none. The
    installed one is the book's notebooks (the library never imports the book)."""
    import cffair.experiments._pipeline

    order: list[object] = []
    monkeypatch.setattr(cffair.experiments._pipeline, "prepare_inputs", lambda *a, **k: {})
    monkeypatch.setattr(R, "check", lambda store, cfg, expected=None, known_inputs=None: ("fresh", []))
    monkeypatch.setattr(R, "run_grid", lambda cfgs, store, **kw: order.append("grid"))
    step = lambda mode, only, root: order.append((mode, only, root))  # noqa: E731
    monkeypatch.setattr(R, "reproduce_steps", lambda: {"pages": step})
    prov = R.reproduce("quick", ["q1", "q2_why"], jobs=1, results_dir=tmp_path / "quick")
    assert order == ["grid", ("quick", ["q1", "q2_why"], tmp_path)] and "pages" in prov["stage_seconds"]
    order.clear()
    R.reproduce("quick", ["q1"], jobs=1, results_dir=tmp_path / "b", steps=False)
    assert order == ["grid"]
    order.clear()
    # a step reads root/mode: a folder named otherwise is refused before any work (the grid never runs)
    with pytest.raises(OptionError, match=r"read the store named after the mode; name it \.\.\./quick"):
        R.reproduce("quick", ["q1"], jobs=1, results_dir=tmp_path / "b")
    assert order == []
    monkeypatch.undo()
    installed = R.reproduce_steps()
    assert [(n, f.__module__, f.__name__) for n, f in installed.items()] == [
        ("notebooks", "cffair_book.execute", "reproduce_step")
    ]


def test_a_step_that_cannot_be_loaded_is_a_clear_error(monkeypatch):
    """A half-installed package's step stops the run with its name and what to do, not a traceback."""
    import importlib.metadata as md

    broken = md.EntryPoint("notebooks", "cffair_book.no_such_module:step", R.STEP_GROUP)
    monkeypatch.setattr(md, "entry_points", lambda group: [broken] if group == R.STEP_GROUP else [])
    with pytest.raises(RunError, match="the step 'notebooks' of `cffair reproduce` .*install the package again"):
        R.reproduce_steps()


def test_provenance_lists_the_parts_of_a_regeneration_run_group_by_group(tmp_path, monkeypatch):
    """Two invocations at the same clean commit are two parts of one regeneration: the provenance keeps
    both, with the groups each ran and the sum of their wall times; a run at another commit starts anew."""
    import cffair.experiments._pipeline

    monkeypatch.setattr(cffair.experiments._pipeline, "prepare_inputs", lambda *a, **k: {})
    monkeypatch.setattr(R, "check", lambda store, cfg, expected=None, known_inputs=None: ("stale", []))
    monkeypatch.setattr(R, "run_grid", lambda cfgs, store, **kw: None)
    monkeypatch.setattr(
        R,
        "provenance",
        lambda times, **kw: {
            "commit": "c1",
            "dirty": False,
            "stage_seconds": {"experiments": 10.0},
            "finished": "t",
            **{"records_computed": kw["computed"], "records_in_grid": kw["in_grid"]},
        },
    )
    first = R.reproduce("quick", ["q1"], jobs=1, results_dir=tmp_path, steps=False)
    second = R.reproduce("quick", ["q2"], jobs=2, results_dir=tmp_path, steps=False)
    stored = json.loads((tmp_path / "provenance.json").read_text())
    assert [p["groups"] for p in stored["parts"]] == [["q1"], ["q2"]] and [p["jobs"] for p in stored["parts"]] == [1, 2]
    assert stored["wall_seconds"] == 20.0 == 2 * first["wall_seconds"]
    n1, n2 = len(paper_grid("quick", only=["q1"])), len(paper_grid("quick", only=["q2"]))
    assert stored["records_computed_total"] == n1 + n2 == second["records_computed_total"]
    monkeypatch.setattr(
        R,
        "provenance",
        lambda times, **kw: {"commit": "c2", "dirty": False, "stage_seconds": {"experiments": 3.0}, "finished": "t"},
    )
    third = R.reproduce("quick", None, jobs=2, results_dir=tmp_path, steps=False)
    assert len(third["parts"]) == 1 and third["parts"][0]["groups"] is None and third["wall_seconds"] == 3.0


def test_a_killed_invocation_leaves_its_part_closed_at_its_last_record(tmp_path, monkeypatch):
    """An invocation killed after two of its tasks leaves a part that counts the records it stored,
    up to its last one; the next invocation closes that part (``interrupted``) and adds its own, and
    the regeneration's wall time is the sum of both."""
    import itertools

    import cffair.experiments._pipeline

    clock = itertools.count()
    monkeypatch.setattr(cffair.experiments._pipeline, "prepare_inputs", lambda *a, **k: {})
    monkeypatch.setattr(R, "check", lambda store, cfg, expected=None, known_inputs=None: ("stale", []))
    monkeypatch.setattr(
        R,
        "provenance",
        lambda times, **kw: {
            "commit": "c1",
            "records_code": "same code",
            "dirty": False,
            "stage_seconds": dict(times),
            "finished": f"t{next(clock)}",
            "records_computed": kw["computed"],
        },
    )

    def killed(cfgs, store, *, on_stored, **kw):
        R.time.sleep(0.1)
        on_stored(3, 1.25)
        on_stored(4, 2.5)
        raise KeyboardInterrupt

    monkeypatch.setattr(R, "run_grid", killed)
    with pytest.raises(KeyboardInterrupt):
        R.reproduce("quick", ["q1"], jobs=2, results_dir=tmp_path, steps=False)
    left = json.loads((tmp_path / "provenance.json").read_text())
    [part] = left["parts"]
    assert part["finished"] is None and part["records_computed"] == 7 and part["last_record"] == "t2"
    assert part["task_cpu_s"] == 3.8  # the workers' CPU seconds so far (1.25 + 2.5, one decimal)
    assert part["stage_seconds"]["experiments"] > 0 and part["wall_s"] >= part["stage_seconds"]["experiments"]

    monkeypatch.setattr(R, "run_grid", lambda cfgs, store, *, on_stored, **kw: on_stored(5, 4.0))
    # another commit with the same records' code continues the regeneration
    monkeypatch.setattr(
        R,
        "provenance",
        lambda times, **kw: {
            "commit": "c2",
            "records_code": "same code",
            "dirty": False,
            "stage_seconds": {"experiments": 2.0},
            "finished": f"t{next(clock)}",
            "records_computed": kw["computed"],
        },
    )
    final = R.reproduce("quick", ["q1"], jobs=2, results_dir=tmp_path, steps=False)
    first, second = final["parts"]
    assert first["interrupted"] and first["finished"] == "t2" and first["records_computed"] == 7
    assert not second.get("interrupted") and second["finished"] is not None and second["commit"] == "c2"
    assert final["wall_seconds"] == round(first["wall_s"] + second["wall_s"], 1)
    assert (first["task_cpu_s"], second["task_cpu_s"]) == (3.8, 4.0)  # each part its own
    assert json.loads((tmp_path / "provenance.json").read_text()) == json.loads(json.dumps(final))


def test_parts_continue_on_the_same_records_code_even_from_a_dirty_checkout():
    """A checkout edited outside the records' code (a notebook, the book) is ``dirty`` but computes
    the same records: its part continues the regeneration (part 7 of round 4's regeneration, run
    while notebooks were edited, started a new list and dropped parts 1–6). Without the records'
    code the commit decides, and a dirty checkout starts anew."""
    first = R.with_parts(
        None,
        {
            "commit": "c1",
            "records_code": "k",
            "dirty": False,
            "stage_seconds": {"experiments": 5.0},
            "records_computed": 3,
        },
        groups=None,
        jobs=2,
        started="t0",
    )
    dirty = {
        "commit": "c2",
        "records_code": "k",
        "dirty": True,
        "stage_seconds": {"experiments": 4.0},
        "records_computed": 2,
    }
    second = R.with_parts(first, dirty, groups=None, jobs=2, started="t1")
    assert len(second["parts"]) == 2 and second["wall_seconds"] == 9.0 and second["records_computed_total"] == 5
    third = R.with_parts(second, {**dirty, "dirty": False}, groups=None, jobs=2, started="t2")
    assert len(third["parts"]) == 3  # a dirty part does not cut the list for the next one either
    changed = R.with_parts(third, {**dirty, "records_code": "other"}, groups=None, jobs=2, started="t3")
    assert len(changed["parts"]) == 1  # other records' code: a new regeneration
    old = {k: v for k, v in first.items() if k != "records_code"}
    assert len(R.with_parts(old, {**old, "dirty": True}, groups=None, jobs=2, started="t4")["parts"]) == 1
    assert len(R.with_parts(old, {**old}, groups=None, jobs=2, started="t4")["parts"]) == 2


def test_a_worker_reports_the_cpu_seconds_of_its_task_not_its_wall_seconds(tmp_path):
    """A task's CPU seconds come back with its record count: busy work counts, sleeping does not."""
    from cffair.experiments import ExperimentConfig
    from cffair.experiments._tasks import Task

    def runner(configs, store):
        end = R.time.process_time() + 0.3
        while R.time.process_time() < end:
            pass
        R.time.sleep(0.5)
        return [object(), object()]

    cfg = ExperimentConfig("compas", 0, "cnf", profile="quick")
    task = Task("t", "group", cfg, (cfg,))
    n, cpu = R._run_in_worker(runner, task, tmp_path, os.getpid())
    assert n == 2 and 0.25 <= cpu < 0.6  # the 0.3 s of work, not the 0.5 s of sleep


def test_a_relative_results_folder_is_pinned_to_where_the_command_started(tmp_path, monkeypatch):
    """A notebook's kernel runs in notebooks/: a relative $CFFAIR_RESULTS must name the folder the user
    meant (from where the build or the command started), not one under notebooks/."""
    from cffair.workflows._reproduce import pin_results_root, results_root

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("CFFAIR_RESULTS", "results/regeneration")
    pin_results_root()
    monkeypatch.chdir(tmp_path.parent)  # where a kernel would run: elsewhere
    assert results_root() == tmp_path / "results" / "regeneration"
    pin_results_root()  # twice: still the same folder
    assert results_root() == tmp_path / "results" / "regeneration"
    monkeypatch.delenv("CFFAIR_RESULTS")
    pin_results_root()  # unset stays unset: the working folder's results/
    assert "CFFAIR_RESULTS" not in os.environ
    assert results_root() == tmp_path.parent / "results" and results_root(tmp_path / "r") == tmp_path / "r"
    pin_results_root(Path("x"))  # a folder the caller names: pinned, absolute, for the kernels
    assert results_root() == tmp_path.parent / "x" == results_root(tmp_path / "r")
