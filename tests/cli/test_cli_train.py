"""``cffair train``, ``cke`` and ``query`` end to end on COMPAS (short schedules, a private cache).

Pre-training is shared across settings through its cache, a corrupt cache file is reported and
recomputed, and ``--categorical`` reaches the counterfactual generator from every command.
"""

from __future__ import annotations

import json

import pytest

from cffair.cli import main

pytestmark = pytest.mark.slow

SHORT = ["--flow-epochs", "1", "--pretrain-epochs", "30", "--fair-epochs", "10", "--quiet"]


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    return tmp_path_factory.mktemp("cache")


def _json(argv, capsys):
    rc = main([*argv, "--json"])
    out, err = capsys.readouterr()
    assert rc == 0, err
    return json.loads(out), err


def _train(setting, cache, capsys, *extra):
    return _json(
        ["train", "--dataset", "compas", "--setting", setting, *SHORT, "--cache-dir", str(cache), *extra], capsys
    )


def _metrics(res):
    return {k: res[k] for k in ("accuracy", "cf_mse", "cf_mse_worst_subgroup", "cf_mse_by_subgroup", "n_pairs")}


def test_train_pretrains_once_for_every_setting(cache, capsys):
    first, _ = _train("acc_cf", cache, capsys)
    again, _ = _train("acc_cf", cache, capsys)
    sg, _ = _train("acc_cf_sg", cache, capsys)
    acc, _ = _train("acc", cache, capsys)
    assert not first["pretraining"]["from_cache"]
    assert again["pretraining"]["from_cache"] and sg["pretraining"]["from_cache"] and acc["pretraining"]["from_cache"]
    assert len({first["pretraining"]["path"], again["pretraining"]["path"], sg["pretraining"]["path"]}) == 1
    assert len(list((cache / "pretrained").glob("*.pt"))) == 1
    assert _metrics(again) == _metrics(first)  # the cached pre-training is the same model
    assert first["lr"] == 1e-3  # the library's default learning rate
    # without any cache (flow, counterfactuals, pre-training all recomputed) the numbers are the same
    fresh, _ = _json(["train", "--dataset", "compas", "--setting", "acc_cf", *SHORT, "--no-cache"], capsys)
    assert fresh["pretraining"]["path"] is None and _metrics(fresh) == _metrics(first)
    # another learning rate is another pre-training
    other, _ = _train("acc_cf", cache, capsys, "--lr", "0.01")
    assert not other["pretraining"]["from_cache"] and other["lr"] == 0.01
    assert len(list((cache / "pretrained").glob("*.pt"))) == 2


def test_train_fair_p_reaches_the_fairness_axioms_and_p_1_is_the_default(cache, capsys):
    """``--fair-p`` (generated from the hyperparameters' home) trains the same pre-training's fairness
    stage with another ∀ exponent: p = 1 restates the paper's default (the same model), p = 6 does not."""
    default, _ = _train("acc_cf", cache, capsys)
    one, _ = _train("acc_cf", cache, capsys, "--fair-p", "1")
    six, _ = _train("acc_cf", cache, capsys, "--fair-p", "6")
    assert default["fair_p"] is None and one["fair_p"] == 1.0 and six["fair_p"] == 6.0
    assert six["pretraining"]["from_cache"] and six["pretraining"]["path"] == default["pretraining"]["path"]
    assert _metrics(one) == _metrics(default)
    assert _metrics(six) != _metrics(default)


def test_a_truncated_pretraining_cache_file_is_reported_and_recomputed(tmp_path, capsys):
    first, _ = _train("acc_cf", tmp_path, capsys)
    path = tmp_path / "pretrained" / first["pretraining"]["path"].rsplit("/", 1)[-1]
    raw = path.read_bytes()
    path.write_bytes(raw[: len(raw) // 3])
    again, err = _train("acc_cf", tmp_path, capsys)
    warning = [line for line in err.splitlines() if line.startswith("cffair: warning:") and "pre-trained model" in line]
    assert (
        len(warning) == 1
        and str(path) in warning[0]
        and "unreadable" in warning[0]
        and "pre-training again" in warning[0]
    )
    assert "Traceback" not in err
    assert not again["pretraining"]["from_cache"] and _metrics(again) == _metrics(first)
    third, err = _train("acc_cf", tmp_path, capsys)
    assert third["pretraining"]["from_cache"] and "pre-trained model" not in err  # the rewritten file is whole


@pytest.mark.parametrize("categorical", ["flow", "gumbel"])
def test_categorical_reaches_generation_from_train_and_cke(categorical, cache, capsys):
    res, _ = _train("acc_cf", cache, capsys, "--categorical", categorical)
    assert res["counterfactuals"]["categorical"] == categorical
    cke, _ = _json(
        ["cke", "--dataset", "compas", *SHORT, "--cache-dir", str(cache), "--dry-run", "--categorical", categorical],
        capsys,
    )
    assert cke["counterfactuals"]["categorical"] == categorical


def test_without_categorical_the_library_default_is_used(cache, capsys):
    from cffair.causal import FlowConfig

    res, _ = _train("acc_cf", cache, capsys)
    assert res["counterfactuals"]["categorical"] == FlowConfig().categorical


def test_query_regenerates_counterfactuals_as_at_training_time(tmp_path, capsys):
    cache = tmp_path / "cache"
    ckpt = tmp_path / "m.pt"
    _train("acc_cf", cache, capsys, "--categorical", "gumbel", "--save", str(ckpt))
    before = sorted((cache / "counterfactuals").glob("*.parquet"))
    assert len(before) == 1
    assert main(["query", "cf", "--checkpoint", str(ckpt), "--where", "age <= 30", "--quiet"]) == 0
    out, _ = capsys.readouterr()
    assert "sat = " in out and "age <= 30" in out
    assert (
        sorted((cache / "counterfactuals").glob("*.parquet")) == before
    )  # the training's (gumbel) set, from the cache
    assert (
        main(["query", "cf", "--checkpoint", str(ckpt), "--where", "age <= 30", "--quiet", "--categorical", "flow"])
        == 0
    )
    capsys.readouterr()
    assert (
        len(sorted((cache / "counterfactuals").glob("*.parquet"))) == len(before) + 1
    )  # the override made another set
    assert main(["query", "similar", "--checkpoint", str(ckpt), "--row", "3", "--k", "2"]) == 0
    assert "β = 3.0" in capsys.readouterr().out


def test_cke_dry_run_proposes_and_the_loop_adds_the_axioms(cache, capsys):
    args = ["cke", "--dataset", "compas", *SHORT, "--cache-dir", str(cache), "--threshold", "0"]
    dry, _ = _json([*args, "--dry-run"], capsys)
    imb = dry["imbalances"]
    # a binary sensitive attribute: each feature's two imbalances are opposite
    by_feature = {}
    for r in imb:
        by_feature.setdefault(r["feature"], []).append(r["imbalance"])
    assert by_feature and all(len(v) == 2 and v[0] == pytest.approx(-v[1]) for v in by_feature.values())
    proposed = [(a["group"], a["feature"]) for a in dry["axioms"]]
    assert proposed == [(r["group"], r["feature"]) for r in imb if r["imbalance"] >= 0]
    assert not dry["added"] and len(dry["steps"]) == 1
    added, _ = _json([*args, "--max-axioms", "1", "--cke-epochs", "3"], capsys)
    assert (
        added["added"]
        and len(added["axioms"]) == 1
        and added["axioms"][0]["name"] == f"A5[{proposed[0][0]}, {proposed[0][1]}]"
    )
    assert [s["axiom"] for s in added["steps"]] == ["-", added["axioms"][0]["name"]]
    assert added["steps"][0]["accuracy"] == dry["steps"][0]["accuracy"]  # the same starting model
    assert main([*args, "--max-axioms", "1", "--cke-epochs", "3"]) == 0
    out = capsys.readouterr().out
    assert "imbalance" in out and added["axioms"][0]["name"] in out and "added" in out


def test_cke_needs_an_immutable_feature_besides_the_sensitive_one(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "d.csv").write_text("y,s,x\n" + "".join(f"{i % 2},{'ab'[i % 3 == 0]},{i}\n" for i in range(40)))
    (tmp_path / "spec.yaml").write_text("name: d\ntarget: y\ntarget_kind: binary\nsensitive: s\nimmutable: [s]\n")
    rc = main(["cke", "--data", "d.csv", "--spec", "spec.yaml", *SHORT, "--cache-dir", str(tmp_path)])
    out, err = capsys.readouterr()
    assert rc == 2 and out == "" and len(err.splitlines()) == 1
    assert "no immutable feature other than the sensitive attribute 's'" in err and "immutable:" in err
    assert not (tmp_path / "flows").exists()  # rejected before fitting a flow
