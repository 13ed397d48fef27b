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
import toy_grid
from toy_grid import toy_fingerprint

from cffair import experiments as E
from cffair._support.utils import atomic_path
from cffair.workflows import _reproduce as R

# workers get the toy runner and its fingerprint by value
cloudpickle.register_pickle_by_value(sys.modules[__name__])
cloudpickle.register_pickle_by_value(toy_grid)


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
    with pytest.raises(Exception):  # noqa: B017 - joblib reports the dead worker with a type of its own
        _run(grid, store, jobs=2)
    done_before = {p.name: p.stat().st_mtime_ns for p in (store.root / "records").glob("*.json")}
    assert 0 < len(done_before) < len(grid)
    assert not store.corrupt()  # nothing half-written
    # A worker the pool kills while it writes cannot remove its temporary file (the other worker may be stopped
    # mid-write when joblib sees the dead one, by chance): such a file is hidden, named after its writer, which is
    # gone, and never read as a record; the next write of that record removes it (cffair._support.io.atomic_path).
    assert len(list(store.records())) == len(done_before)  # the store reads the finished records, no temporary file
    _run(grid, store, jobs=2)
    after = {p.name: p.stat().st_mtime_ns for p in (store.root / "records").glob("*.json")}
    assert len(after) == len(grid)
    assert not list((store.root / "records").glob(".*.tmp"))  # the resume left no temporary file
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


@pytest.mark.parametrize(
    "how,reason",
    [
        ("list", "a JSON list, not an object"),
        ("utf8", "not UTF-8"),
        ("no-metrics", "no 'metrics' field"),
        ("hand-edit", "checksum does not match"),
        ("truncated", "not JSON (line"),
    ],
)
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
    for changed in (
        {**base, "config": replace(cfg, fold=1).to_dict()},
        {**base, "data": "other"},
        {**base, "code": {"toy": "2"}},
    ):
        assert E.make_record(cfg, changed, {}, {})["hash"] != h


def test_atomic_write_leaves_nothing_on_failure(tmp_path):
    target = tmp_path / "r.json"
    target.write_text("old")
    with pytest.raises(RuntimeError), atomic_path(target) as tmp:
        tmp.write_text("half")
        raise RuntimeError("killed")
    assert target.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["r.json"]


# ---------------------------------------------------------------------------- configs and grid
@pytest.mark.parametrize(
    "kwargs,message",
    [
        ({"dataset": "adult", "fold": 0, "setting": "ltn_ac"}, "unknown setting 'ltn_ac'"),
        ({"dataset": "adult", "fold": 0, "setting": "ltn_acc", "profile": "fulll"}, "unknown profile 'fulll'"),
        ({"dataset": "adult", "fold": 5, "setting": "ltn_acc"}, "fold must be an integer in 0..4"),
        (
            {"dataset": "adult", "fold": 0, "setting": "ltn_acc", "weights": (("acc", 1.0), ("foo", 2.0))},
            "unknown axiom-group weight",
        ),
        ({"dataset": "adult", "fold": 0, "setting": "ltn_acc", "seed": -1}, "seed must be a non-negative integer"),
    ],
)
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
        ("ltn_acc", "cnf"),
        ("ltn_acc_cf", "cnf"),
        ("ltn_acc_cf_sg", "cnf"),
        ("gan", "cnf"),
        ("ltn_acc_cf", "gan"),
    }
    others = [g for g in groups if g is not ltn[0]]
    assert all(len(g) == 1 for g in others)
    # the paper's baselines come before the extra ones
    order = [g[0].setting for g in groups]
    assert max(order.index("cnf"), order.index("dcevae")) < min(order.index(s) for s in ("unaware", "level3", "pcf"))


def test_full_grid_ordered_by_fold():
    groups = R._task_groups(E.paper_grid("full"))
    # the paper's partition first, then each repetition; within one, seed 0 (the paper's) by fold, then each other seed
    order = [(g[0].repeat, g[0].seed, g[0].fold) for g in groups]
    assert order == sorted(order) and order[0] == (0, 0, 0)


def test_paper_grid_covers_tables():
    grid = E.paper_grid("full")
    keys = {(c.dataset, c.setting) for c in grid if c.cf_source == "cnf" and not c.tag}
    for ds in E.DATASETS:
        for s in (*E.LTN_SETTINGS, "cnf", "gan", "dcevae"):
            assert (ds, s) in keys
    assert {c.fold for c in grid} == {0, 1, 2, 3, 4}


# ---------------------------------------------------------------------------- options and investigations
def test_options_are_checked_sorted_and_absent_from_the_papers_configs():
    c = E.ExperimentConfig("compas", 0, "ltn_acc_cf", options={"lr": 0.1, "fair_p": 6})
    assert c.options == (("fair_p", 6.0), ("lr", 0.1)) and c.pretrain_options == (("lr", 0.1),)
    assert c.key == "full/compas/ltn_acc_cf(fair_p=6,lr=0.1)/fold0"
    assert c.to_dict()["options"] == {"fair_p": 6.0, "lr": 0.1}
    assert E.ExperimentConfig.from_dict(json.loads(json.dumps(c.to_dict()))) == c
    plain = E.ExperimentConfig("compas", 0, "ltn_acc_cf")
    # the paper's configs: same dict (so the same fingerprint) and key as before the field existed
    assert "options" not in plain.to_dict() and plain.key == "full/compas/ltn_acc_cf/fold0"
    assert E.ExperimentConfig.from_dict(plain.to_dict()) == plain
    assert E.ExperimentConfig("compas", 0, "ltn_acc_cf", options=(("fair_epochs", 2000.0),)).options == (
        ("fair_epochs", 2000),
    )


@pytest.mark.parametrize(
    "options,message",
    [
        ({"p": 2}, "unknown option 'p'; the options are lr, clip_grad"),
        ({"fair_p": 0.5}, r"option fair_p must be a finite number >= 1 \(section 2.4.*got 0.5"),
        ({"lr": 0}, "option lr must be positive, got 0"),
        ({"lr": "fast"}, "option lr must be a number, got 'fast'"),
        ({"fair_epochs": 2.5}, "option fair_epochs must be a whole number >= 1, got 2.5"),
        ({"x_hat": "best"}, "option x_hat must be one of nearest, random, got 'best'"),
        ({"explain": "some"}, "option explain must be one of all, got 'some'"),
        ((("lr", 0.1), ("lr", 0.2)), "an option is given twice"),
    ],
)
def test_bad_options_are_refused_with_a_clear_message(options, message):
    with pytest.raises(E.ConfigError, match=message):
        E.ExperimentConfig("compas", 0, "ltn_acc_cf", options=options)


def test_options_are_for_the_ltn_only():
    with pytest.raises(E.ConfigError, match="options fair_p=2 are LTN options; setting 'cnf' takes none"):
        E.ExperimentConfig("compas", 0, "cnf", options={"fair_p": 2})


def test_the_investigations_add_configs_without_touching_the_papers():
    paper = E.paper_grid("full", only=["q1", "q2", "q3", "q4", "appendix_a", "appendix_b"])
    everything = E.paper_grid("full")
    # round 1's 264 configs less the extra baselines on folds 1-4 (3 baselines x 4 folds x 4 datasets), on the
    # paper's partition; the repetitions of cross-validation come on top (tests below)
    first = [c for c in paper if not c.repeat and not c.seed and not c.options]  # the protocol's seeds and twins aside
    assert len(first) == 264 - 48 and set(paper) < set(everything)
    from cffair import reporting

    assert reporting.EXTRA_BASELINES == E.EXTRA_BASELINES  # the tables' copy names the same baselines
    extras = [c for c in paper if c.setting in E.EXTRA_BASELINES]
    assert {c.fold for c in extras} == {0} and len(extras) == 3 * len(E.DATASETS)
    new = [c for c in everything if c not in set(paper)]
    assert all(c.options or c.tag or c.method == "beyond" for c in new)  # every investigation or study config is marked
    assert all(set(c.option_map) <= {"twins"} for c in paper)  # the protocol's twin treatment, no other option
    assert len({c.key for c in everything}) == len(everything)
    by = lambda g: E.paper_grid("full", only=[g])  # noqa: E731
    # Q2: every COMPAS fold, Adult fold 0 only (the cut); the baselines are q2's own records
    q2 = by("q2_why")
    assert {c.fold for c in q2 if c.dataset == "compas"} == {0, 1, 2, 3, 4}
    assert {c.fold for c in q2 if c.dataset == "adult"} == {0} and {c.dataset for c in q2} == {"compas", "adult"}
    assert all(c.method == "ltn" for c in q2)
    p = {c.option_map.get("fair_p") for c in q2 if c.dataset == "compas"}
    assert {1.0, 2.0, 6.0} <= p
    assert {c.option_map["fair_epochs"] for c in q2 if "fair_epochs" in c.option_map and c.dataset == "compas"} == {
        2000,
        5000,
    }
    assert {c.weight_map["cf"] for c in q2 if c.dataset == "compas"} == {1.0, 3.0, 9.0, 27.0}
    assert len([c for c in q2 if c.dataset == "adult" and c.method == "ltn"]) == len(E.Q2_ADULT)
    # a quick profile scales the fairness stage with its own length
    assert {c.option_map.get("fair_epochs") for c in E.paper_grid("quick", only=["q2_why"])} >= {160, 400}
    # appendix B: seven weight points per COMPAS and Lawschool fold, all with today's code
    b = by("appendix_b_why")
    assert len(b) == 2 * 35 and len({(c.weight_map["acc"], c.weight_map["cf"]) for c in b}) == 7
    assert {c.dataset for c in b} == {"compas", "lawschool"}
    assert {c.dataset for c in E.paper_grid("quick", only=["appendix_b_why"])} == {"compas"}  # quick mode as before
    (q3,) = [c for c in by("q3_why") if c.fold == 0]
    assert q3.setting == "ltn_acc_cf_cke" and q3.option_map == {"cke_top": 1, "explain": "all"}
    (q4,) = by("q4_why")
    assert (q4.dataset, q4.fold, q4.option_map) == ("adult", 0, {"x_hat": "random"})
    assert {c.tag or "" for c in E.paper_grid("full", datasets=["lawschool"], only=E.INVESTIGATION_GROUPS)} == {
        "",
        "w27-1",
        "w9-1",
        "w3-1",
        "w1-3",
        "w1-9",
        "w1-27",
    }  # only appendix B's finer grid


def test_variants_that_change_pre_training_get_their_own_group():
    cfgs = E.paper_grid("full", ["compas"], only=["q1", "q2", "q2_why"])
    groups = [
        g
        for g in R._task_groups(cfgs)
        if g[0].fold == 0 and g[0].method in ("ltn", "gan") and not g[0].repeat and not g[0].seed
    ]
    by_pre = {g[0].pretrain_options: g for g in groups}
    assert set(by_pre) == {(), (("lr", 0.01),), (("lr", 0.1),), (("clip_grad", 0.1), ("lr", 0.1))}
    default = by_pre[()]
    # the paper's settings, the variants of later stages and the fold's GAN share one pre-training
    assert {"ltn_acc", "ltn_acc_cf", "ltn_acc_cf_sg"} <= {c.setting for c in default if not c.options}
    assert any(c.option_map.get("fair_p") == 6.0 for c in default) and any(c.setting == "gan" for c in default)
    assert all(len(g) == 1 for p, g in by_pre.items() if p)
    # groups holding only investigations come after the fold's paper groups
    order = [g for g in R._task_groups(cfgs) if g[0].fold == 0]
    first_inv = min(i for i, g in enumerate(order) if all(c.options for c in g))
    assert all(not all(c.options for c in g) for g in order[:first_inv])


def test_explanations_on_every_attribute_are_an_input_of_their_own():
    from cffair.experiments._pipeline import keys

    cke_all = E.ExperimentConfig("compas", 0, "ltn_acc_cf_cke", options={"explain": "all", "cke_top": 1})
    rulers = ("counterfactuals_default", "counterfactuals_independent")  # appendix C's, on every paper dataset
    assert keys.input_names(cke_all) == ("counterfactuals", "pretrained", "counterfactuals_all", *rulers)
    assert keys.input_names(E.ExperimentConfig("compas", 0, "ltn_acc_cf_cke")) == (
        "counterfactuals",
        "pretrained",
        *rulers,
    )
    # the stage's code is its input's producer, never an LTN record's code
    from cffair._support.moves import MOVES

    explanations = MOVES["cffair.experiments._pipeline.explanations"]  # records key moved modules by ledger name
    assert explanations not in keys.code("ltn")
    prod = keys.producer("counterfactuals_all", cke_all, "d")
    assert explanations in prod["code"] and prod["config"]["interventions"] == "all"
    # a pre-training option reaches the checkpoint's producer; the paper's configs are unchanged
    lr = keys.producer("pretrained", E.ExperimentConfig("compas", 0, "ltn_acc_cf", options={"lr": 0.1}), "d")
    assert lr["config"]["lr"] == 0.1
    plain = keys.producer("pretrained", E.ExperimentConfig("compas", 0, "ltn_acc_cf"), "d")
    assert plain["config"]["lr"] == E.PROFILES["full"].lr and "clip_grad" not in plain["config"]


# ---------------------------------------------------------------------------- repeated cross-validation
def test_repetition_zero_is_the_papers_config_unchanged():
    c = E.ExperimentConfig("compas", 2, "cnf")
    assert c.repeat == 0 and c.partition_seed == 0 and "repeat" not in c.to_dict() and c.key == "full/compas/cnf/fold2"
    r = replace(c, repeat=2)
    assert r.key == "full/compas/cnf/rep2/fold2" and r.to_dict()["repeat"] == 2 and r.partition_seed == 2
    assert E.ExperimentConfig.from_dict(r.to_dict()) == r and E.ExperimentConfig.from_dict(c.to_dict()) == c
    for bad in (-1, 1.5, True):
        with pytest.raises(E.ConfigError, match="repeat must be a whole number >= 0"):
            E.ExperimentConfig("compas", 0, "cnf", repeat=bad)


def test_the_full_grid_repeats_cross_validation_on_every_dataset():
    grid = E.paper_grid("full")
    reps = [c for c in grid if c.repeat and not c.seed and not c.options]  # the protocol's seeds and twins aside
    assert {c.dataset for c in reps} == set(E.REPEATS) == {"adult", "compas", "compas_age", "lawschool"}
    assert {c.repeat for c in reps} == {1, 2} and {c.fold for c in reps} == {0, 1, 2, 3, 4}
    per = {(c.setting, c.cf_source) for c in reps}
    assert per == {(s, "cnf") for s in E.REPEAT_SETTINGS} | {("ltn_acc_cf", "gan")}
    assert len(reps) == 4 * 2 * 5 * 7 and not any(c.tag for c in reps)
    # every compared setting has its repetition-0 twin, so each comparison has 3 × 5 paired folds
    keys = {c.key for c in grid}
    assert all(replace(c, repeat=0).key in keys for c in reps)
    # the quick profile runs the paper's partition only, and the grid groups keep repetitions apart
    assert not any(c.repeat for c in E.paper_grid("quick"))
    groups = R._task_groups(
        [
            c
            for c in grid
            if c.dataset == "compas"
            and c.fold == 0
            and not c.options
            and not c.tag
            and not c.seed
            and c.method in ("ltn", "gan")
        ]
    )
    assert all(len({c.repeat for c in g}) == 1 for g in groups) and len(groups) == 3


def test_a_repetition_partitions_the_rows_anew_and_repetition_zero_keeps_the_papers_folds():
    from cffair import datasets as D

    frame, spec = D.load("compas")
    paper = D.make_folds(frame, spec, n_splits=5, seed=0)
    tests = {}
    for r in (0, 1, 2):
        parts = [E.ExperimentConfig("compas", f, "cnf", repeat=r).split.rows(frame, spec) for f in range(5)]
        test_rows = np.concatenate([te for _, te in parts])
        assert sorted(test_rows) == list(range(len(frame)))  # each repetition is a partition of the rows
        assert all(len(set(tr) & set(te)) == 0 for tr, te in parts)
        tests[r] = parts[0][1]
    assert np.array_equal(tests[0], paper[0].test)  # repetition 0: the paper's folds, as before
    assert not np.array_equal(tests[1], tests[0]) and not np.array_equal(tests[2], tests[1])


def test_the_pretraining_and_gan_inputs_of_a_repetition_are_its_own():
    from cffair.experiments._pipeline.keys import producer

    c = E.ExperimentConfig("compas", 1, "ltn_acc_cf", cf_source="gan")
    r = replace(c, repeat=1)
    assert (
        "repeat" not in producer("pretrained", c, "h")["config"]
        and producer("pretrained", r, "h")["config"]["repeat"] == 1
    )
    assert producer("gan_counterfactuals", r, "h")["config"]["repeat"] == 1
    assert "repeat" not in producer("gan_counterfactuals", c, "h")["config"]


# ---------------------------------------------------------------------------- appendix C's studies
def test_study_options_restating_the_default_are_the_papers_config():
    """The default of each study option leaves the config, its key and its fingerprint's config part unchanged."""
    from cffair.experiments._pipeline.keys import record_fingerprint

    for setting, opts in (
        ("ltn_acc_cf", {"semantics": "product"}),
        ("ltn_acc_cf", {"a4_body": "equiv"}),
        ("cnf", {"twins": "paper"}),
        ("gan", {"gan_variant": "reimplemented"}),
    ):
        plain = E.ExperimentConfig("compas", 1, setting)
        given = E.ExperimentConfig("compas", 1, setting, options=opts)
        assert given == plain and given.key == plain.key and given.to_dict() == plain.to_dict()
        assert record_fingerprint(given, "h", {})["config"] == record_fingerprint(plain, "h", {})["config"]
    other = E.ExperimentConfig("compas", 1, "ltn_acc_cf", options={"semantics": "lukasiewicz"})
    assert other.key == "full/compas/ltn_acc_cf(semantics=lukasiewicz)/fold1" and other.to_dict()["options"] == {
        "semantics": "lukasiewicz"
    }
    assert E.ExperimentConfig.from_dict(json.loads(json.dumps(other.to_dict()))) == other


@pytest.mark.parametrize(
    "setting,kwargs,message",
    [
        (
            "ltn_acc_cf",
            {"options": {"semantics": "boolean"}},
            "option semantics must be one of lukasiewicz, godel, goguen, got 'boolean'",
        ),
        (
            "gan",
            {"options": {"twins": "default"}},
            "option twins is for the settings ltn_acc, ltn_acc_cf, ltn_acc_cf_sg and cnf",
        ),
        ("ltn_acc_cf_cke", {"options": {"twins": "default"}}, "option twins is for"),
        (
            "cnf",
            {"options": {"gan_variant": "released"}},
            "option gan_variant is for the GAN baseline and the LTN trained on the GAN's twins",
        ),
        (
            "ltn_acc_cf",
            {"options": {"gan_variant": "released"}},
            r"setting 'ltn_acc_cf' \(twins from 'cnf'\) takes none",
        ),
        (
            "cnf",
            {"options": {"semantics": "godel"}},
            "options semantics=godel are LTN options; setting 'cnf' takes none",
        ),
    ],
)
def test_study_options_are_refused_where_they_mean_nothing(setting, kwargs, message):
    with pytest.raises(E.ConfigError, match=message):
        E.ExperimentConfig("compas", 0, setting, **kwargs)


def test_the_studies_grid_adds_marked_configs_within_the_cuts_it_records():
    full = E.paper_grid("full", only=["appendix_c_studies"])
    assert all(c.options or c.tag for c in full) and len({c.key for c in full}) == len(full)
    # the twins study's configs are also the protocol's (its twin treatment, seed 0): every other study config is its own
    others = set(E.paper_grid("full", only=[g for g in E.GROUPS if g != "appendix_c_studies"]))
    assert {c for c in full if c in others} == {c for c in full if c.option_map.get("twins")}
    by = lambda key, value: [c for c in full if c.option_map.get(key) == value]  # noqa: E731
    # semantics: Q1/Q2's LTN settings under each other logic, COMPAS and Lawschool, every fold; no Gödel
    # on Lawschool (a score target: Gödel logic has no equality of scores, its model would be the product's)
    for name in E.STUDY_LOGICS:
        got = {(c.dataset, c.setting, c.fold) for c in by("semantics", name)}
        datasets = ("compas",) if name == "godel" else ("compas", "lawschool")
        assert got == {(d, s, f) for d in datasets for s in ("ltn_acc_cf", "ltn_acc_cf_sg") for f in range(5)}
    # sound twins: Table 1's LTN settings and CNF; all folds of COMPAS and Lawschool, 2 of Adult
    twins = by("twins", "default")
    assert {c.setting for c in twins} == {"ltn_acc", "ltn_acc_cf", "ltn_acc_cf_sg", "cnf"}
    assert {(c.dataset, c.fold) for c in twins} == {(d, f) for d in ("compas", "lawschool") for f in range(5)} | {
        ("adult", 0),
        ("adult", 1),
    }
    # the GAN as released (3 seeds) and re-implemented (seeds 1, 2 beside the grid's 0); Adult one fold, one seed
    released = [c for c in by("gan_variant", "released") if c.setting == "gan"]
    assert {(c.dataset, c.seed) for c in released} == {("compas", s) for s in (0, 1, 2)} | {
        ("lawschool", 0),
        ("lawschool", 1),
        ("adult", 0),
    }
    assert {c.fold for c in released if c.dataset == "adult"} == {0} and all(
        c.tag == (f"seed{c.seed}" if c.seed else "") for c in released
    )
    reimpl = [c for c in full if c.setting == "gan" and not c.options]
    assert {(c.dataset, c.seed, c.tag) for c in reimpl} == {
        ("compas", 1, "seed1"),
        ("compas", 2, "seed2"),
        ("lawschool", 1, "seed1"),
    }
    on_released = [c for c in by("gan_variant", "released") if c.method == "ltn"]
    assert (
        all(c.cf_source == "gan" and c.seed == 0 and c.setting == "ltn_acc_cf" for c in on_released)
        and len(on_released) == 11
    )
    # the Eq-bodied A4: one fold of each binary dataset
    assert {(c.dataset, c.fold) for c in by("a4_body", "eq")} == {("adult", 0), ("compas", 0)}
    # the cuts are recorded beside the grid
    assert E.STUDIES["gan"].cut and "one fold" in E.STUDIES["gan"].cut and "two GAN seeds" in E.STUDIES["gan"].cut
    quick = E.paper_grid("quick", only=["appendix_c_studies"])
    assert {(c.dataset, c.fold) for c in quick} == {("compas", 0)}


def test_the_studies_share_the_folds_pre_training_and_their_gans_twins_are_their_own():
    from cffair.experiments._pipeline.keys import input_names, producer

    cfgs = E.paper_grid("full", ["compas"], only=["q1", "q2", "appendix_a", "appendix_c_studies"])
    groups = [
        g
        for g in R._task_groups(cfgs)
        if g[0].fold == 0 and not g[0].repeat and not g[0].seed and g[0].method in ("ltn", "gan")
    ]
    (default,) = [g for g in groups if not g[0].pretrain_options]
    assert any(c.option_map.get("semantics") for c in default) and any(c.option_map.get("twins") for c in default)
    on_released = E.ExperimentConfig("compas", 0, "ltn_acc_cf", cf_source="gan", options={"gan_variant": "released"})
    assert "gan_counterfactuals" in input_names(on_released)
    assert producer("gan_counterfactuals", on_released, "h")["config"]["options"] == {"gan_variant": "released"}
    plain = E.ExperimentConfig("compas", 0, "ltn_acc_cf", cf_source="gan")
    assert "options" not in producer("gan_counterfactuals", plain, "h")["config"]
