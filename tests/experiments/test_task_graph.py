"""The grid as a task graph: its shape, the scheduler's order, and records equal to one process's."""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace

import pytest

from cffair.experiments import ExperimentConfig, ResultsStore, paper_grid
from cffair.experiments import _scheduler as scheduler
from cffair.experiments._tasks import Task, critical_path, dependencies, simulate, task_graph
from cffair.workflows import _reproduce as R


def _by_id(tasks):
    return {t.id: t for t in tasks}


# ---------------------------------------------------------------------------- the graph
def test_every_record_is_written_by_one_task_after_its_dependencies():
    grid = paper_grid("full")
    tasks = task_graph(grid)
    written = [c.key for t in tasks for c in t.configs]
    assert sorted(written) == sorted(c.key for c in grid)  # each record once
    seen = set()
    for t in tasks:
        assert set(t.deps) <= seen, t.id
        seen.add(t.id)
    assert len(seen) == len(tasks)


def test_the_gan_the_ltn_on_its_twins_and_each_cke_setting_are_tasks_of_their_own():
    tasks = _by_id(task_graph(paper_grid("full", ["adult"])))
    pre, gan = "full/adult/pretrain/fold0", "full/adult/gan/fold0"
    assert tasks[pre].stage == "pretrain" and {c.setting for c in tasks[pre].configs} == {
        "ltn_acc"
    }  # the paper's, the twins study's
    assert ExperimentConfig("adult", 0, "ltn_acc") in tasks[pre].configs
    assert tasks[gan].stage == "gan" and tasks[gan].deps == ()
    assert set(tasks["full/adult/ltn_acc_cf@gan/fold0"].deps) == {pre, gan}
    assert tasks["full/adult/ltn_acc_cf/fold0"].deps == (pre,)
    assert tasks["full/adult/ltn_acc_cf_cke/fold0"].deps == ("full/adult/ltn_acc_cf/fold0",)
    assert tasks["full/adult/ltn_acc_cf_sg_cke/fold0"].deps == ("full/adult/ltn_acc_cf_sg/fold0",)
    assert all(len(t.configs) <= 1 for t in tasks.values() if t.stage != "pretrain")
    assert dependencies(list(tasks.values()))["full/adult/ltn_acc_cf_cke/fold0"] == ("full/adult/ltn_acc_cf/fold0",)


def test_a_fresh_parent_becomes_a_producer_that_writes_no_record():
    """Only the CKE setting is pending: its parent and the pre-training still run (or are found
    in the stage folder), but write nothing; the GAN's twins likewise for the LTN trained on them."""
    cke = ExperimentConfig("compas", 0, "ltn_acc_cf_cke")
    on_gan = ExperimentConfig("compas", 0, "ltn_acc_cf", cf_source="gan")
    tasks = _by_id(task_graph([cke, on_gan]))
    assert set(tasks) == {
        "full/compas/pretrain/fold0",
        "full/compas/ltn_acc_cf/fold0",
        "full/compas/gan/fold0",
        cke.key,
        on_gan.key,
    }
    assert tasks["full/compas/ltn_acc_cf/fold0"].configs == () and tasks["full/compas/gan/fold0"].configs == ()
    assert tasks["full/compas/pretrain/fold0"].configs == ()
    # a variant of the fairness stage trains its own parent: it waits for the pre-training only
    own = ExperimentConfig("compas", 0, "ltn_acc_cf_cke", options={"fair_p": 6})
    assert _by_id(task_graph([own]))[own.key].deps == ("full/compas/pretrain/fold0",)


def test_tasks_keep_whole_folds_first_and_the_unsplit_graph_is_the_old_groups():
    grid = paper_grid("full")
    tasks = task_graph(grid)
    order = [(t.target.repeat, t.target.seed, t.target.fold) for t in tasks]
    assert order == sorted(order)
    groups = task_graph(grid, split=False)
    assert [list(t.configs) for t in groups] == R._task_groups(grid) and all(not t.deps for t in groups)


# ---------------------------------------------------------------------------- schedules
def _toy(n_chain=3):
    base = ExperimentConfig("compas", 0, "cnf")
    chain = [Task(f"c{i}", "run", base, deps=(f"c{i - 1}",) if i else ()) for i in range(n_chain)]
    free = [Task(f"f{i}", "run", base) for i in range(4)]
    return chain + free


def test_simulated_schedule_respects_dependencies_and_its_bounds():
    tasks = _toy()
    secs = {"c0": 3.0, "c1": 2.0, "c2": 4.0, "f0": 1.0, "f1": 5.0, "f2": 2.0, "f3": 2.0}
    path, longest = critical_path(tasks, secs)
    assert path == ["c0", "c1", "c2"] and longest == 9.0
    total = sum(secs.values())
    for n in (1, 2, 3, 8):
        end = simulate(tasks, secs, n)
        for t in tasks:
            for d in t.deps:
                assert end[t.id] - secs[t.id] >= end[d] - 1e-12  # starts after its dependencies end
        assert max(longest, total / n) - 1e-12 <= max(end.values()) <= total + 1e-12
    assert max(simulate(tasks, secs, 1).values()) == total
    assert max(simulate(tasks, secs, 8).values()) == longest  # enough workers: the critical path


def test_the_local_scheduler_runs_each_task_after_its_deps_with_at_most_slots_at_once():
    tasks = _toy()
    lock = threading.Lock()
    log: list[tuple[str, str, float]] = []
    running = [0, 0]  # now, most at once

    def work(tid):
        with lock:
            running[0] += 1
            running[1] = max(running[1], running[0])
            log.append(("start", tid, time.perf_counter()))
        time.sleep(0.02)
        with lock:
            running[0] -= 1
            log.append(("end", tid, time.perf_counter()))
        return 1

    finished = []
    with ThreadPoolExecutor(max_workers=4) as ex:
        scheduler.run_local(tasks, lambda t: (work, (t.id,)), ex, 2, lambda t, n: finished.append(t.id))
    assert sorted(finished) == sorted(t.id for t in tasks) and running[1] == 2
    at = {(kind, tid): ts for kind, tid, ts in log}
    for t in tasks:
        for d in t.deps:
            assert at[("start", t.id)] >= at[("end", d)]
    # with one slot the order is the priority order among ready tasks: c0, then c1 is ready and first
    order = []
    scheduler.run_local(tasks, lambda t: (order.append, (t.id,)), scheduler.InlineExecutor(), 1, lambda t, n: None)
    assert order == ["c0", "c1", "c2", "f0", "f1", "f2", "f3"]


def test_a_failed_task_stops_the_run_and_its_dependents_never_start():
    tasks = _toy()
    ran = []

    def work(tid):
        ran.append(tid)
        if tid == "c0":
            raise RuntimeError("boom")

    with pytest.raises(RuntimeError, match="boom"):
        scheduler.run_local(tasks, lambda t: (work, (t.id,)), scheduler.InlineExecutor(), 1, lambda t, n: None)
    assert ran == ["c0"]


# ---------------------------------------------------------------------------- real runs
def _bodies(store):
    """Each record without what a rerun changes (wall times, and the checksum over them)."""

    def strip(x):
        if isinstance(x, dict):
            return {k: strip(v) for k, v in x.items() if k not in ("timings", "timings_detail", "seconds", "checksum")}
        if isinstance(x, list):
            return [strip(v) for v in x]
        return x

    return {ExperimentConfig.from_dict(r["config"]).key: strip(r) for r in store.records()}


@pytest.fixture(scope="module")
def compas_fold(tmp_path_factory):
    """The quick grid's LTN chain and GAN of COMPAS fold 0, run as the task graph in one worker and on 2 workers."""
    from cffair.experiments._pipeline import prepare_inputs

    root = tmp_path_factory.mktemp("split")
    mp = pytest.MonkeyPatch()
    mp.setenv("CFFAIR_CACHE", str(root / "cache"))
    grid = [
        ExperimentConfig("compas", 0, s, profile="quick")
        for s in ("ltn_acc", "ltn_acc_cf", "ltn_acc_cf_sg", "ltn_acc_cf_cke", "gan")
    ]
    grid += [ExperimentConfig("compas", 0, "ltn_acc_cf", profile="quick", cf_source="gan")]
    known = prepare_inputs("quick", ["compas"])
    one, split = ResultsStore(root / "one"), ResultsStore(root / "split")
    R.run_grid(grid, one, jobs=1, progress=False, known_inputs=known)
    R.run_grid(grid, split, jobs=2, progress=False, known_inputs=known)
    yield grid, known, one, split
    mp.undo()


@pytest.mark.slow
def test_records_do_not_depend_on_the_number_of_workers(compas_fold):
    grid, _, one, split = compas_fold
    a, b = _bodies(one), _bodies(split)
    assert len(a) == len(grid) and a == b
    assert {r["hash"] for r in one.records()} == {r["hash"] for r in split.records()}
    assert (
        sorted(p.suffix for p in (split.root / "stages").iterdir()) == [".ckpt"] * 4 + [".parquet"] * 2
    )  # pre-training, the 3 plain fairness settings; the GAN twins


@pytest.mark.slow
def test_a_cke_setting_whose_parent_is_gone_recomputes_it_to_the_same_record(compas_fold):
    """Resume after the stage folder was lost (or a file damaged): the CKE task trains its
    parent again from a recomputed pre-training and gives the same record."""
    grid, known, _, split = compas_fold
    cke = next(c for c in grid if c.setting == "ltn_acc_cf_cke")
    before = _bodies(split)[cke.key]
    stages = sorted((split.root / "stages").glob("*.ckpt"))
    stages[0].write_bytes(stages[0].read_bytes()[:100])  # one damaged checkpoint ...
    for p in stages[1:]:
        p.unlink()  # ... and the others gone
    split.path(cke).unlink()
    R.run_grid(grid, split, jobs=1, progress=False, known_inputs=known)
    assert _bodies(split)[cke.key] == before
    assert replace(cke, setting="ltn_acc_cf").key in _bodies(split)  # the parent's record untouched


# ---------------------------------------------------------------------------- the page's wording
def _full_run(span16=900.0, span8=1700.0, crit=800.0, eff2=0.99, longest=500.0):
    graph = {
        "tasks": 5,
        "core_seconds": 3000.0,
        "critical_path": {
            "task": "full/adult/pretrain/fold0 → full/adult/ltn_acc_cf_cke/fold0",
            "tasks": ["full/adult/pretrain/fold0", "full/adult/ltn_acc_cf_cke/fold0"],
            "seconds": crit,
        },
        "longest_task": {"task": "full/adult/ltn_acc_cf_cke/fold0", "seconds": longest},
        "makespan_seconds": {"1": 3000.0, "2": 1520.0, "8": span8, "16": span16},
        "lower_bound_seconds": {"1": 3000.0, "2": 1500.0, "8": 800.0, "16": 800.0},
        "efficiency": {"1": 1.0, "2": eff2, "8": 0.22, "16": 0.21},
    }
    before = {**graph, "tasks": 3, "makespan_seconds": {"1": 3000.0, "2": 1500.0, "8": 2700.0, "16": 2700.0}}
    return {"task_graph": graph, "task_graph_groups": before}


def test_the_scaling_summary_says_what_the_numbers_say():
    import cffair_book as book

    ok = book.graph_scaling_summary(_full_run())
    assert (
        "15.0 min on 16 workers, within the target of 15" in ok
        and "28.3 min on 8 workers, within the target of 30" in ok
    )
    assert "at or above the target of 95%" in ok and "More workers cannot" not in ok
    assert "8.3 min, within the 10 minutes" in ok and "down from 45.0 min with the 3 task groups" in ok
    bad = book.graph_scaling_summary(_full_run(span16=1100.0, span8=1900.0, crit=1100.0, eff2=0.9, longest=900.0))
    assert "over the target of 15" in bad and "over the target of 30" in bad and "below the target of 95%" in bad
    assert (
        "More workers cannot close the gap" in bad
        and "Adult LTN(acc+CF+CKE) fold 0" in bad
        and "15.0 min, over the 10" in bad
    )
    # more work than 16 workers finish in 15 min, on a short critical path: the work is the bound
    heavy = _full_run(span16=1100.0, crit=600.0)
    heavy["task_graph"]["core_seconds"] = 16 * 1000.0
    text = book.graph_scaling_summary(heavy)
    assert "On 16 workers the bound is the work, not the graph: 16,000 core-seconds ÷ 16 is 16.7 min" in text
    assert "More workers cannot" not in text
    # the whole grid: counts of borrowed timings only where there are any
    grid = {"records": 10, "imputed": 0, "imputed_plain": 0, "left_out": 0, "makespan_seconds": {"8": 600, "16": 300}}
    assert "(10 records, each timed by its own record): 10.0 min on 8 workers" in book.graph_scaling_summary(
        {**_full_run(), "task_graph_grid": grid}
    )
    some = book.graph_scaling_summary({**_full_run(), "task_graph_grid": {**grid, "imputed": 2}})
    assert "(10 records; 2 without a record take their twin's seconds on the paper's partition)" in some
    frame = book.graph_scaling_frame(_full_run())
    assert list(frame.index) == [1, 2, 8, 16] and frame.loc[16, "task graph (min)"] == 15.0
    assert frame.loc[16, "groups of before (min)"] == 45.0 and frame.loc[2, "efficiency"] == 0.99


def test_the_workers_summary_says_when_the_cores_or_the_load_bound_the_run():
    import cffair_book as book

    run = {
        "records": 77,
        "tasks": 80,
        "cores": 8,
        "records_equal": True,
        "runs": {
            "1": {"wall_seconds": 100.0, "load_before": [0.5, 0, 0], "load_after": [1.0, 0, 0]},
            "4": {"wall_seconds": 30.0, "load_before": [1.0, 0, 0], "load_after": [3.0, 0, 0]},
        },
    }
    calm = book.workers_summary(run)
    assert (
        "a speed-up of 3.33" in calm
        and "are equal" in calm
        and "bounded by the cores" not in calm
        and "overloaded" not in calm
    )
    busy = book.workers_summary({**run, "cores": 2, "records_equal": False})
    assert "bounded by the cores (at most 2)" in busy and "overloaded (load 3.0 on 2 cores" in busy and "differ" in busy
    assert "not been measured" in book.workers_summary(None)
    slow = book.workers_summary({**run, "runs": {**run["runs"], "4": {**run["runs"]["4"], "wall_seconds": 200.0}}})
    assert "slower than one worker (time on one ÷ time on 4: 0.50)" in slow and "speed-up" not in slow
