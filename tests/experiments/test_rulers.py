"""The rulers of appendix C: other twin sets the shared evaluation also scores every model on.

* :meth:`FoldData.evaluate` scores a model on each ruler's test pairs without changing the
  top-level metrics; on the ruler that is the fold's own twins it gives exactly the top-level
  numbers; on twins identical to the factual rows every CF metric is 0 (known answer).
* The ruler sets are generated with the treatments :data:`RULERS` declares (each set's meta
  config), enter every record of a paper dataset as inputs by content, and a record made by the
  dispatcher holds the three rulers' metrics (quick profile, real COMPAS data).
"""

from __future__ import annotations

import numpy as np
import pytest

from cffair.causal import _synthetic as synthetic
from cffair.causal._cfset import CounterfactualSet
from cffair.causal._config import PAPER_TREATMENT, FlowConfig
from cffair.experiments import ExperimentConfig, ResultsStore
from cffair.experiments._pipeline import keys
from cffair.experiments._pipeline.counterfactuals import RULERS, ruler_config, ruler_inputs
from cffair.experiments._pipeline.fold import RULER_METRICS, FoldData


# ---------------------------------------------------------------------------- the evaluation (no flow fitted)
@pytest.fixture(scope="module")
def fold() -> tuple[FoldData, FoldData, CounterfactualSet, CounterfactualSet]:
    """A fold of a synthetic SCM scored on its exact twins, with and without two rulers: the
    exact twins themselves and twins identical to the factual rows."""
    data = synthetic.load("adult_like", n=800, seed=0)
    frame, spec = data.frame, data.spec
    exact = CounterfactualSet.from_frames(frame, data.sensitive_twins, spec, spec.sensitive)
    same = frame[list(spec.features)].copy()
    identical = CounterfactualSet.from_frames(frame, same, spec, spec.sensitive)
    cfg = ExperimentConfig("compas", 0, "cnf", profile="quick")
    rng = np.random.default_rng(0)
    train = np.sort(rng.permutation(len(frame))[:500])
    test = np.setdiff1d(np.arange(len(frame)), train)
    plain = FoldData(cfg, frame, spec, train, test, exact)
    copy = CounterfactualSet(exact.frame.copy(), exact.meta)  # the same twins, another object: scored, not copied
    ruled = FoldData(cfg, frame, spec, train, test, exact, {"paper": exact, "copy": copy, "identical": identical})
    return plain, ruled, exact, identical


def _model(fd: FoldData):
    """A fixed logistic model of every encoded column (the sensitive one too)."""
    w = np.random.default_rng(1).normal(size=fd.X_train.shape[1])
    return lambda X: 1.0 / (1.0 + np.exp(-(np.asarray(X, dtype=np.float64) @ w)))


def test_the_paper_ruler_gives_exactly_the_top_level_metrics(fold):
    _, ruled, _, _ = fold
    m = ruled.evaluate(_model(ruled))
    assert set(m["rulers"]) == {"paper", "copy", "identical"}
    for k in RULER_METRICS:
        assert m["rulers"]["paper"][k] == m[k], k
        assert m["rulers"]["copy"][k] == m[k], k  # evaluated afresh on its own pairs: the same numbers


def test_rulers_leave_the_top_level_metrics_as_they_were(fold):
    plain, ruled, _, _ = fold
    without, with_rulers = plain.evaluate(_model(plain)), ruled.evaluate(_model(ruled))
    assert "rulers" not in without
    assert {k: v for k, v in with_rulers.items() if k != "rulers"} == without
    # explicit pairs (a method's own twins, appendix A) are one evaluation, without rulers
    assert "rulers" not in ruled.evaluate(_model(ruled), ruled.pairs_test)


def test_twins_identical_to_the_factual_rows_give_a_cf_mse_of_zero(fold):
    _, ruled, _, identical = fold
    m = ruled.evaluate(_model(ruled))
    same = m["rulers"]["identical"]
    assert m["cf_mse"] > 1e-3 and m["cf_flip_rate"] > 0  # the exact twins do move this model
    assert same["cf_mse"] == 0.0 and same["cf_mse_worst_subgroup"] == 0.0 and same["cf_flip_rate"] == 0.0
    assert set(same["cf_mse_by_subgroup"].values()) == {0.0}
    assert same["n_pairs"] == len(ruled.test)  # one twin per test row, taken from the ruler's own set


def test_a_method_whose_scores_use_the_twins_gets_each_rulers_own(fold):
    """The plug-in PCF looks a row's twins up in the pairs it is given: on a ruler it is given that ruler's."""
    _, ruled, _, _ = fold
    base = _model(ruled)
    given: list = []

    def score_for(pairs):
        given.append(pairs)
        known = {r.tobytes() for r in np.asarray(np.vstack([pairs.x, pairs.x_cf]), dtype=np.float32)}

        def fn(X):
            X = np.asarray(X, dtype=np.float32)
            if not all(r.tobytes() in known for r in X):
                raise ValueError("a row outside the twins this score function was given")
            return base(X)

        return fn

    m = ruled.evaluate(score_for(ruled.pairs_test), score_for=score_for)
    # each other ruler's own pairs, once (the paper ruler's numbers are the top level's)
    assert len(given) == 3 and given[1] is ruled.ruler_pairs_test["copy"]
    assert given[2] is ruled.ruler_pairs_test["identical"]

    # this score does not depend on the twins: the same numbers, except that a method whose scores need the
    # twins (score_for) gets no calibrated CF-MSE (it cannot score the training rows)
    def uncalibrated(rulers):
        return {name: {k: v for k, v in d.items() if k != "calibrated_cf_mse"} for name, d in rulers.items()}

    assert uncalibrated(m["rulers"]) == uncalibrated(ruled.evaluate(base)["rulers"])
    assert all("calibrated_cf_mse" not in d for d in m["rulers"].values())
    assert all("calibrated_cf_mse" in d for d in ruled.evaluate(base)["rulers"].values())


# ---------------------------------------------------------------------------- declarations (no flow fitted)
def test_each_ruler_declares_a_valid_flow_and_the_producer_says_the_same():
    assert RULERS["paper"].input == "counterfactuals" and dict(RULERS["paper"].flow) == PAPER_TREATMENT
    cfg = ExperimentConfig("adult", 0, "ltn_acc_cf", profile="quick")
    assert keys.input_names(cfg) == ("counterfactuals", "pretrained", *ruler_inputs("adult"))
    assert ruler_inputs("adult") == ("counterfactuals_default", "counterfactuals_independent")
    for name in ("default", "independent"):
        flow = ruler_config(name, "quick")
        FlowConfig.from_dict(flow)  # a valid config
        prod = keys.producer(RULERS[name].input, cfg, "d")
        assert prod["config"] == {
            "dataset": "adult",
            "flow": flow,
            "seed": RULERS[name].seed,
            "interventions": "sensitive",
        }
    assert FlowConfig.from_dict(ruler_config("default", "quick")).categorical == "gumbel"
    independent = FlowConfig.from_dict(ruler_config("independent", "full"))
    assert (independent.categorical, independent.transforms, independent.hidden) == ("flow", 2, (64, 64))
    assert RULERS["independent"].seed == 1 and RULERS["default"].seed == RULERS["paper"].seed == 0
    with pytest.raises(KeyError, match="unknown ruler 'nope'; the rulers are paper, default, independent"):
        ruler_config("nope", "quick")


# ---------------------------------------------------------------------------- real flows (quick profile, COMPAS)
@pytest.mark.slow
def test_ruler_sets_follow_their_declared_treatments_and_reach_the_records(tmp_path, monkeypatch):
    from cffair.experiments._pipeline import prepare_inputs
    from cffair.experiments._pipeline.counterfactuals import content_hash, ruler_set
    from cffair.workflows import _reproduce as R

    monkeypatch.setenv("CFFAIR_CACHE", str(tmp_path / "cache"))
    known = prepare_inputs("quick", ["compas"])
    assert set(known["compas"]) == {"counterfactuals", "counterfactuals_default", "counterfactuals_independent"}
    for name, ruler in RULERS.items():
        twins = ruler_set("compas", "quick", name)
        declared = FlowConfig.from_dict(ruler_config(name, "quick")).to_dict()
        assert twins.meta["config"] == declared, name
        assert twins.meta["seed"] == ruler.seed
        assert content_hash(twins) == known["compas"][ruler.input]  # read back from the cache
        if name != "paper":
            assert twins.meta["interventions"] == [["race", "Caucasian"], ["race", "Non-Caucasian"]]
    assert len(set(known["compas"].values())) == 3  # three different sets

    store = ResultsStore(tmp_path / "results")
    cfg = ExperimentConfig("compas", 0, "unaware", profile="quick")
    R.run_grid([cfg], store, progress=False, known_inputs=known)
    rec = store.get(cfg)
    assert set(rec["metrics"]["rulers"]) == set(RULERS)
    assert rec["metrics"]["rulers"]["paper"]["cf_mse"] == rec["metrics"]["cf_mse"]
    assert {n: v["content"] for n, v in rec["fingerprint"]["inputs"].items()} == known["compas"]
    assert set(R.status(store, [cfg], known_inputs=known)["state"]) == {"fresh"}
