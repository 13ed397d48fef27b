"""Appendix C's studies end to end (COMPAS, quick profile): sound twins, other logics, GAN seeds and variants, diagnostics."""

from __future__ import annotations

import pytest

from cffair import experiments as E
from cffair.workflows import _reproduce as R

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def records(tmp_path_factory):
    store = E.ResultsStore(tmp_path_factory.mktemp("results"))
    grid = E.paper_grid("quick", ["compas"], only=["q1", "appendix_a", "appendix_c_studies"])
    grid += [
        E.ExperimentConfig("compas", 0, "gan", profile="quick", seed=1, tag="seed1"),
        E.ExperimentConfig("compas", 0, "cnf", profile="quick"),
    ]
    R.run_grid(grid, store, jobs=1, progress=False)
    return {
        E.ExperimentConfig.from_dict(r["config"]).key.removeprefix("quick/compas/").removesuffix("/fold0"): r
        for r in store.records()
    }


def test_sound_twins_train_and_score_on_the_default_ruler(records):
    for name in (
        "ltn_acc(twins=default)",
        "ltn_acc_cf(twins=default)",
        "ltn_acc_cf_sg(twins=default)",
        "cnf(twins=default)",
    ):
        m = records[name]["metrics"]
        assert m["cf_mse"] == pytest.approx(m["rulers"]["default"]["cf_mse"], abs=1e-12)  # scored on the sound twins
        assert set(m["rulers"]) == {"paper", "default", "independent"}
    # LTN(acc) never sees twins: the sound-twin record is the plain one re-scored
    plain, sound = records["ltn_acc"]["metrics"], records["ltn_acc(twins=default)"]["metrics"]
    assert sound["accuracy"] == plain["accuracy"] and sound["cf_mse"] == pytest.approx(
        plain["rulers"]["default"]["cf_mse"]
    )
    # the LTN trained on the sound twins is another model than the one trained on the paper's
    assert (
        records["ltn_acc_cf(twins=default)"]["metrics"]["rulers"]["paper"]["cf_mse"]
        != records["ltn_acc_cf"]["metrics"]["cf_mse"]
    )


def test_another_logic_shares_the_pre_training_and_changes_the_fairness_stage(records):
    plain = records["ltn_acc_cf"]
    pre = plain["fingerprint"]["inputs"]["pretrained"]["content"]
    for name in E.STUDY_LOGICS:
        r = records[f"ltn_acc_cf(semantics={name})"]
        assert r["fingerprint"]["inputs"]["pretrained"]["content"] == pre
        assert r["metrics"]["cf_mse"] != plain["metrics"]["cf_mse"]
    eq = records["ltn_acc_cf(a4_body=eq)"]
    assert (
        eq["fingerprint"]["inputs"]["pretrained"]["content"] == pre
        and eq["metrics"]["cf_mse"] != plain["metrics"]["cf_mse"]
    )


def test_each_gan_seed_and_variant_is_its_own_model_and_the_ltn_trains_on_its_twins(records):
    gans = {k: records[k]["metrics"]["cf_mse"] for k in ("gan", "gan+seed1", "gan(gan_variant=released)")}
    assert len(set(gans.values())) == 3
    on = {
        k: records[k]["fingerprint"]["inputs"]["gan_counterfactuals"]
        for k in ("ltn_acc_cf@gan", "ltn_acc_cf@gan(gan_variant=released)")
    }
    assert on["ltn_acc_cf@gan"]["content"] != on["ltn_acc_cf@gan(gan_variant=released)"]["content"]
    assert on["ltn_acc_cf@gan(gan_variant=released)"]["producer"]["config"]["options"] == {"gan_variant": "released"}


def test_the_pre_trained_models_diagnostics_are_recorded(records):
    d = records["ltn_acc"]["diagnostics"]
    shares = d["a4_gradient_share"]
    assert set(shares) == {"1", "2", "6"} and all(0 <= v <= 1 for v in shares.values())
    assert shares["6"] >= shares["1"]  # a larger p weighs the disagreeing pairs more
    assert set(d["a4_gradient_share_by_logic"]) == {"product", "lukasiewicz", "godel", "goguen"}
    assert d["a4_gradient_share_by_logic"]["product"] == pytest.approx(shares["1"])
    assert 0 <= d["saturation_train_pairs"] <= 1
    assert "diagnostics" not in records["ltn_acc(twins=default)"]
