"""The investigations' options act in the LTN runner (quick profile, real COMPAS and Adult data)."""

from __future__ import annotations

import pytest

from cffair import experiments as E
from cffair.workflows import _reproduce as R

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def records(tmp_path_factory):
    store = E.ResultsStore(tmp_path_factory.mktemp("results"))
    grid = E.paper_grid("quick", ["compas"], only=["q1", "q2_why", "q3_why"])
    grid += E.paper_grid("quick", ["adult"], only=["q4_why"]) + [
        E.ExperimentConfig("adult", 0, "ltn_acc_cf", profile="quick")
    ]
    prof = E.PROFILES["quick"]
    # options equal to the profile's values: the same computation as the paper's setting
    same = [
        E.ExperimentConfig("compas", 0, "ltn_acc_cf", profile="quick", options={"fair_epochs": prof.fair_epochs}),
        E.ExperimentConfig("compas", 0, "ltn_acc_cf", profile="quick", options={"lr": prof.lr}),
    ]
    R.run_grid(grid + same, store, jobs=1, progress=False)
    return {E.ExperimentConfig.from_dict(r["config"]).key.split("/", 1)[1]: r for r in store.records()}


def _m(records, key):
    return records[key]["metrics"]


def test_options_that_restate_the_papers_values_give_the_papers_numbers(records):
    ref = _m(records, "compas/ltn_acc_cf/fold0")
    for key in (
        "compas/ltn_acc_cf(fair_p=1)/fold0",
        "compas/ltn_acc_cf(fair_epochs=40)/fold0",
        "compas/ltn_acc_cf(lr=0.01)/fold0",
    ):
        assert _m(records, key)["cf_mse"] == pytest.approx(ref["cf_mse"], abs=1e-12), key
        assert _m(records, key)["accuracy"] == ref["accuracy"], key
    # (the quick profile's lr is 0.01: an lr option with that value pre-trains alone, and alike)
    assert "cf_flip_rate" in ref and 0 <= ref["cf_flip_rate"] <= 1


def test_options_that_differ_change_the_model(records):
    ref = _m(records, "compas/ltn_acc_cf(fair_p=1)/fold0")
    for key in (
        "compas/ltn_acc_cf(fair_p=6)/fold0",
        "compas/ltn_acc_cf(fair_epochs=400)/fold0",
        "compas/ltn_acc_cf(lr=0.1)/fold0",
        "compas/ltn_acc_cf+w1-9(fair_p=1)/fold0",
    ):
        assert _m(records, key)["cf_mse"] != pytest.approx(ref["cf_mse"], abs=1e-9), key
    assert (
        records["compas/ltn_acc_cf(fair_epochs=400)/fold0"]["history"]["epoch"][-1]
        == E.PROFILES["quick"].pretrain_epochs + 400
    )
    # a heavier CF axiom lowers CF-MSE
    assert _m(records, "compas/ltn_acc_cf+w1-27(fair_p=1)/fold0")["cf_mse"] < ref["cf_mse"]


def test_explanations_on_every_attribute_and_a_forced_a5_axiom(records):
    rec = records["compas/ltn_acc_cf_cke(cke_top=1,explain=all)/fold0"]
    cke = rec["cke"]
    assert (
        set(cke["explain_all"]["features"]) >= {"age", "priors-count", "sex"}
        and "race" not in cke["explain_all"]["features"]
    )
    assert cke["explain_all"]["immutable"] == ["age"]
    # the largest immutable imbalance becomes an A5 axiom whatever the threshold
    (forced,) = cke["forced"]
    assert forced["feature"] == "age" and forced["imbalance"] > 0
    assert [s["axiom"] for s in cke["steps"]] == ["-", f"A5[{forced['group']}, age]"]
    before = {(r["group"], r["feature"]): r["imbalance"] for r in cke["explain_all"]["imbalances_before"]}
    assert before[(forced["group"], "age")] == pytest.approx(forced["imbalance"])
    assert "counterfactuals_all" in rec["fingerprint"]["inputs"]
    # the paper's records keep their inputs (with the rulers of appendix C)
    assert set(records["compas/ltn_acc_cf/fold0"]["fingerprint"]["inputs"]) == {
        "counterfactuals",
        "pretrained",
        "counterfactuals_default",
        "counterfactuals_independent",
    }


def test_the_query_person_is_drawn_as_the_paper_describes(records):
    drawn = records["adult/ltn_acc_cf(x_hat=random)/fold0"]["queries"]["eq2"]
    nearest = records["adult/ltn_acc_cf/fold0"]["queries"]["eq2"]
    assert drawn and {q["x_hat_rule"] for q in drawn} == {"random"}
    assert {q["x_hat_rule"] for q in nearest} == {"nearest"}
    for q in drawn + nearest:
        assert 0 <= q["witness_share"] <= 1 and q["n_negative"] >= 1
        assert q["query_row"][0]["D"] < 0.5  # always a person with an undesired outcome
    # the nearest rule makes the query true (a witness within β), the drawn person need not have one
    assert all(q["neighbours"] for q in nearest)
