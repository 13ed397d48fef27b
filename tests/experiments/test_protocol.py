"""The pre-registered protocol (cffair/data/protocol.yaml): read by the grid and the claims engine, checked
on load; its seeds and twins keep the configs of before; a fold's seeds enter a test as their mean."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml

from cffair import experiments as E
from cffair.errors import ProtocolError
from cffair.experiments._grid import replicate
from cffair.experiments._protocol import PROTOCOL_FILE, load_protocol, protocol, seed_means, seed_spread
from cffair.experiments._tasks import task_graph
from cffair.reporting import _verdicts as V

RAW = yaml.safe_load(PROTOCOL_FILE.read_text(encoding="utf-8"))


def test_the_claims_engine_and_the_grid_read_the_committed_file():
    p = protocol()
    assert (V.ALPHA, V.Rules().test, V.Rules().holm, V.Rules().count_shared) == (
        RAW["rules"]["alpha"],
        RAW["rules"]["test"],
        RAW["rules"]["holm"],
        RAW["rules"]["count_shared"],
    )
    assert {d: n for d, n in RAW["cross_validation"]["repetitions"].items() if n > 1} == E.REPEATS
    # issue 44: every dataset in 3 × 5 folds, Adult included; 3 seeds; both twin treatments
    assert p.folds == 5 and all(p.repeats(d) == 3 for d in ("adult", "compas", "compas_age", "lawschool"))
    assert p.seeds == 3 and set(p.twins) == {"paper", "default"} and p.answer == "default"


def _write(tmp_path: Path, change) -> Path:
    raw = yaml.safe_load(PROTOCOL_FILE.read_text(encoding="utf-8"))
    change(raw)
    path = tmp_path / "protocol.yaml"
    path.write_text(yaml.safe_dump(raw), encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda r: r.pop("rules"), "needs 'rules'"),
        (lambda r: r["rules"].update(alpha=1.5), r"rules.alpha must be a number in \(0, 1\), got 1.5"),
        (lambda r: r["rules"].update(test="welch"), "rules.test must be one of corrected, plain, got 'welch'"),
        (lambda r: r["rules"].update(holm="yes"), "rules.holm must be true or false"),
        (lambda r: r["twins"].update(treatments=["paper", "gumbel"]), "twin treatment 'gumbel' is unknown"),
        (lambda r: r["seeds"].update(count=0), "seeds.count must be a whole number >= 1, got 0"),
        (lambda r: r["cross_validation"]["repetitions"].update(adult=2.5), "repetitions.adult must be a whole number"),
        (lambda r: r["seeds"].update(within_fold="median"), "within_fold must be 'mean'"),
    ],
)
def test_a_wrong_entry_is_refused_with_what_is_wrong_and_where(tmp_path, change, message):
    with pytest.raises(ProtocolError, match=message):
        load_protocol(_write(tmp_path, change))


def test_a_changed_file_changes_what_the_protocol_says(tmp_path):
    p = load_protocol(_write(tmp_path, lambda r: r["seeds"].update(count=5, baselines={"gan": ["lawschool"]})))
    assert p.seeds_for("ltn_acc_cf", "adult") == (0, 1, 2, 3, 4)
    assert p.seeds_for("gan", "lawschool") == (0, 1, 2, 3, 4) and p.seeds_for("gan", "compas") == (0,)
    assert p.seeds_for("dcevae", "compas") == (0,)


def test_seed_zero_and_the_papers_twins_keep_every_config_and_key_of_before():
    before = [
        E.ExperimentConfig("compas", 0, "ltn_acc_cf"),
        E.ExperimentConfig("compas", 2, "cnf", repeat=1),
        E.ExperimentConfig("adult", 0, "gan"),
        E.ExperimentConfig("compas", 0, "gan", seed=1, tag="seed1", options={"gan_variant": "released"}),
    ]
    keys = [c.key for c in before]
    assert keys == [
        "full/compas/ltn_acc_cf/fold0",
        "full/compas/cnf/rep1/fold2",
        "full/adult/gan/fold0",
        "full/compas/gan+seed1(gan_variant=released)/fold0",  # appendix C's GAN seed: its tag names the seed
    ]
    after = replicate(before)
    assert after[: len(before)] == before and len({c.key for c in after}) == len(after)
    extra = {c.key for c in after[len(before) :]}
    assert extra == {
        "full/compas/ltn_acc_cf/seed1/fold0",
        "full/compas/ltn_acc_cf/seed2/fold0",
        "full/compas/ltn_acc_cf(twins=default)/fold0",
        "full/compas/ltn_acc_cf(twins=default)/seed1/fold0",
        "full/compas/ltn_acc_cf(twins=default)/seed2/fold0",
        "full/compas/cnf/rep1/seed1/fold2",  # CNF: seeded on COMPAS
        "full/compas/cnf/rep1/seed2/fold2",
        *(f"full/compas/cnf(twins=default)/rep1/{s}fold2" for s in ("", "seed1/", "seed2/")),
    }  # the GAN on Adult: one seed there, and no twins of the flow to train on
    for c in after[len(before) :]:  # the key's seed is the config's (the seed the run trains with)
        assert c.to_dict()["seed"] == (int(c.key.split("/seed")[1][0]) if "/seed" in c.key else 0)


def test_the_full_grid_crosses_every_table1_setting_with_seeds_repetitions_and_twins():
    grid = E.paper_grid("full")
    got: dict[tuple, set] = {}
    for c in grid:
        if not c.tag and set(c.option_map) <= {"twins"} and c.cf_source == "cnf":
            got.setdefault((c.dataset, c.setting), set()).add((c.repeat, c.fold, c.seed, c.option_map.get("twins")))
    every = {(r, f) for r in range(3) for f in range(5)}
    for ds in ("adult", "compas", "compas_age", "lawschool"):
        for s in ("ltn_acc", "ltn_acc_cf", "ltn_acc_cf_sg", "cnf"):
            seeds = (0, 1, 2) if s != "cnf" or ds == "compas" else (0,)
            assert got[(ds, s)] == {(r, f, sd, t) for r, f in every for sd in seeds for t in (None, "default")}, (ds, s)
        for s in ("gan", "dcevae"):  # scored on both twins in one record; seeded on COMPAS
            seeds = (0, 1, 2) if ds == "compas" else (0,)
            assert got[(ds, s)] == {(r, f, sd, None) for r, f in every for sd in seeds}, (ds, s)
    assert len(E.paper_grid("quick")) == len(
        [c for c in E.paper_grid("quick") if not c.seed or c.tag]
    )  # the quick profile: one seed


def test_each_seed_pre_trains_on_its_own_and_its_settings_continue_from_it():
    cfgs = [
        E.ExperimentConfig("compas", 0, s, seed=sd)
        for sd in (0, 1)
        for s in ("ltn_acc", "ltn_acc_cf", "ltn_acc_cf_cke")
    ]
    tasks = {t.id: t for t in task_graph(cfgs)}
    assert {i for i, t in tasks.items() if t.stage == "pretrain"} == {
        "full/compas/pretrain/fold0",
        "full/compas/pretrain/seed1/fold0",
    }
    assert tasks["full/compas/ltn_acc_cf/seed1/fold0"].deps == ("full/compas/pretrain/seed1/fold0",)
    assert tasks["full/compas/ltn_acc_cf_cke/seed1/fold0"].deps == ("full/compas/ltn_acc_cf/seed1/fold0",)
    assert tasks["full/compas/pretrain/seed1/fold0"].target.seed == 1
    assert [c.key for c in tasks["full/compas/pretrain/seed1/fold0"].configs] == ["full/compas/ltn_acc/seed1/fold0"]


def _frame(values: dict[tuple[int, int], list[float]]) -> pd.DataFrame:
    rows = [
        {"dataset": "compas", "method": "m", "repeat": r, "fold": f, "seed": s, "cf_mse": v}
        for (r, f), vs in values.items()
        for s, v in enumerate(vs)
    ]
    return pd.DataFrame(rows)


def test_seeds_are_averaged_within_a_fold_and_their_sd_pooled_beside_the_fold_sd():
    vals = {(0, 0): [0.10, 0.14, 0.12], (0, 1): [0.20, 0.20, 0.26], (1, 0): [0.30, np.nan, 0.34]}
    f = _frame(vals)
    means = seed_means(f, "cf_mse")
    assert means.to_numpy() == pytest.approx([0.12, 0.22, 0.32])
    row = seed_spread(f, "cf_mse").loc[("compas", "m")]
    assert row["folds"] == 3 and row["seeds"] == 3
    assert row["mean"] == pytest.approx(np.mean([0.12, 0.22, 0.32]))
    assert row["fold_sd"] == pytest.approx(np.std([0.12, 0.22, 0.32], ddof=1))
    pooled = math.sqrt(np.mean([np.var(v, ddof=1) for v in ([0.10, 0.14, 0.12], [0.20, 0.20, 0.26], [0.30, 0.34])]))
    assert row["seed_sd"] == pytest.approx(pooled) and row["seed_to_fold"] == pytest.approx(pooled / row["fold_sd"])
    one = seed_spread(_frame({(0, 0): [0.1], (0, 1): [0.2]}), "cf_mse").iloc[0]
    assert math.isnan(one["seed_sd"]) and one["fold_sd"] == pytest.approx(np.std([0.1, 0.2], ddof=1))


def _rec(setting: str, fold: int, seed: int, cf: float, repeat: int = 0) -> dict:
    cfg = {"dataset": "compas", "fold": fold, "setting": setting, "profile": "full", "cf_source": "cnf", "seed": seed}
    cfg["tag"], cfg["weights"] = "", {"acc": 1.0, "cf": 1.0, "cf_sg": 1.0, "cke": 1.0}
    if repeat:
        cfg["repeat"] = repeat
    metrics = {"accuracy": 0.7 + 0.01 * seed, "cf_mse": cf, "cf_mse_worst_subgroup": cf, "cf_flip_rate": 0.1}
    metrics |= {"prediction_sd": 0.2, "positive_rate": 0.45, "majority_rate": 0.55}
    return {"config": cfg, "metrics": metrics}


def test_the_claims_test_one_value_per_fold_the_mean_of_its_seeds():
    recs = [_rec("ltn_acc_cf", f, s, 0.10 + 0.01 * f + 0.02 * s) for f in range(5) for s in range(3)]
    recs += [_rec("ltn_acc", f, 0, 0.30 + 0.013 * f) for f in range(5)]
    e = V.Evidence.of(recs)
    x = e.folds("compas", "ltn_acc_cf", "cf_mse")
    assert len(x) == 5 and list(x.index) == [(0, f) for f in range(5)]
    assert x.to_numpy() == pytest.approx([0.12 + 0.01 * f for f in range(5)])
    cmp = e.compare("compas", "ltn_acc_cf", "ltn_acc", "cf_mse", larger=False)
    assert cmp.n == 5 and cmp.mean == pytest.approx(np.mean([0.12 + 0.01 * f - 0.30 - 0.013 * f for f in range(5)]))
