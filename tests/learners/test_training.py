"""The LTN learner: schedule, fairness effect, collapse guard, determinism, checkpoints."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch
from sklearn.exceptions import NotFittedError

from cffair._support.utils import torch_cpu_setup
from cffair.errors import DataError
from cffair.learners._training import CollapseRiskWarning, ConstantPredictorWarning, LTNLearner, is_constant
from cffair.scores._metrics import cf_mse, cf_mse_by_subgroup

torch_cpu_setup()


def causal_data(n=1000, seed=0, threshold=1.0, noise_cols=0):
    """s → a (a = u + 2s), b independent; y = [a + b + noise > threshold]. x′ flips s and a."""
    r = np.random.default_rng(seed)
    s = r.integers(0, 2, n)
    u = r.normal(size=n)
    b = r.normal(size=n)
    y = ((u + 2 * s + b + 0.3 * r.normal(size=n)) > threshold).astype(int)
    N = r.normal(size=(n, noise_cols))
    X = np.column_stack([s, u + 2 * s, b, N]).astype(np.float32)
    Xc = np.column_stack([1 - s, u + 2 * (1 - s), b, N]).astype(np.float32)
    return X, y, Xc


def subgroup_data(n=1200, seed=0):
    """A small subgroup (10 %) in which S has a 6× larger effect than in the big one."""
    r = np.random.default_rng(seed)
    g = (r.random(n) < 0.1).astype(int)
    s = r.integers(0, 2, n)
    u, b = r.normal(size=n), r.normal(size=n)
    eff = np.where(g == 1, 3.0, 0.5)
    y = ((u + eff * s + b + 0.3 * r.normal(size=n)) > 0.5).astype(int)
    X = np.column_stack([s, g, u + eff * s, b]).astype(np.float32)
    Xc = np.column_stack([1 - s, g, u + eff * (1 - s), b]).astype(np.float32)
    return X, y, Xc, np.where(g == 1, "small", "big")


def fit(setting, X, y, Xc, **kw):
    kw.setdefault("pretrain_epochs", 200)
    kw.setdefault("fair_epochs", 200)
    return LTNLearner("binary", setting, progress=False, **kw).fit(
        X, y, pairs=(X, Xc), pair_subgroups=kw.pop("labels", None)
    )


def test_cf_axiom_at_least_halves_cf_mse():
    X, y, Xc = causal_data()
    acc = fit("acc", X, y, Xc)
    cf = fit("acc_cf", X, y, Xc)
    before = cf_mse(acc.predict_d(X), acc.predict_d(Xc))
    after = cf_mse(cf.predict_d(X), cf.predict_d(Xc))
    assert before > 0.2  # the label depends on S through a, so the accurate model is unfair
    assert after <= 0.5 * before
    assert (acc.predict(X) == y).mean() > 0.9
    hist = cf.history_
    assert {"pretrain", "fair"} == set(hist["stage"]) and len(hist) == 400
    assert hist.loc[hist.stage == "pretrain", "A4"].isna().all()
    assert hist.loc[hist.stage == "fair", "A4"].iloc[-1] > hist.loc[hist.stage == "fair", "A4"].iloc[0]


def test_subgroup_axioms_lower_worst_subgroup_cf_mse():
    X, y, Xc, lab = subgroup_data()
    pre = LTNLearner("binary", "acc", pretrain_epochs=200, progress=False).fit(X, y).state_dict()
    worst = {}
    for setting in ("acc_cf", "acc_cf_sg"):
        learner = LTNLearner.load(pre, setting=setting, fair_epochs=200).fit(X, y, pairs=(X, Xc), pair_subgroups=lab)
        worst[setting] = cf_mse_by_subgroup(learner.predict_d(X), learner.predict_d(Xc), lab).max()
        if setting == "acc_cf_sg":
            assert [a.name for a in learner.kb_.axioms] == ["A1", "A2", "A4_1[big]", "A4_2[small]"]
    assert worst["acc_cf_sg"] < 0.5 * worst["acc_cf"]


def test_fairness_without_pretraining_is_refused():
    X, y, Xc = causal_data(200)
    with pytest.raises(ValueError, match="collapse"):
        LTNLearner("binary", "acc_cf", pretrain_epochs=0, progress=False).fit(X, y, pairs=(X, Xc))


def test_collapse_without_pretraining_is_detected_and_pretraining_avoids_it():
    # imbalanced labels, 20 noise columns: A1 + A2 + A4 without pre-training end at a constant
    X, y, Xc = causal_data(1000, seed=2, threshold=2.5, noise_cols=20)
    learner = LTNLearner(
        "binary", "acc_cf", pretrain_epochs=0, fair_epochs=200, seed=2, lr=0.1, progress=False, allow_no_pretrain=True
    )
    with pytest.warns(CollapseRiskWarning), pytest.warns(ConstantPredictorWarning):
        learner.fit(X, y, pairs=(X, Xc))
    assert learner.constant_
    assert learner.satisfactions()["sat"] == pytest.approx(2 / 3, abs=0.01)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConstantPredictorWarning)
        ok = LTNLearner("binary", "acc_cf", pretrain_epochs=200, fair_epochs=200, seed=2, lr=0.1, progress=False).fit(
            X, y, pairs=(X, Xc)
        )
    assert not ok.constant_ and (ok.predict(X) == y).mean() > 0.8


def test_is_constant():
    assert is_constant(np.array([0.7, 0.9, 0.51]), "binary")
    assert not is_constant(np.array([0.2, 0.9]), "binary")
    assert is_constant(np.full(5, 3.2), "score") and not is_constant(np.array([1.0, 2.0]), "score")


def test_same_seed_same_weights_and_checkpoint_continuation_is_exact(tmp_path):
    X, y, Xc = causal_data(300)
    a = fit("acc_cf", X, y, Xc, pretrain_epochs=50, fair_epochs=30, seed=7)
    b = fit("acc_cf", X, y, Xc, pretrain_epochs=50, fair_epochs=30, seed=7)
    c = fit("acc_cf", X, y, Xc, pretrain_epochs=50, fair_epochs=30, seed=8)
    np.testing.assert_array_equal(a.predict_d(X), b.predict_d(X))
    assert not np.array_equal(a.predict_d(X), c.predict_d(X))
    # shared pre-training: save after stage 1, load as acc_cf, continue — identical to one go
    pre = LTNLearner("binary", "acc", pretrain_epochs=50, seed=7, progress=False).fit(X, y)
    pre.save(tmp_path / "pre.pt")
    cont = LTNLearner.load(tmp_path / "pre.pt", setting="acc_cf", fair_epochs=30).fit(X, y, pairs=(X, Xc))
    for p, q in zip(a.model_.parameters(), cont.model_.parameters()):
        assert torch.equal(p, q)
    assert len(cont.history_) == 80 and list(cont.history_["epoch"]) == list(range(1, 81))
    with pytest.raises(DataError, match="different data"):
        LTNLearner.load(tmp_path / "pre.pt", setting="acc_cf").fit(X[:-1], y[:-1], pairs=(X, Xc))


def test_one_in_memory_checkpoint_branches_into_independent_settings():
    # the runner loads one pre-trained state into every fairness setting of a fold: training one
    # branch must not touch the state (Adam's moments) that the next branch starts from
    X, y, Xc = causal_data(300)
    state = LTNLearner("binary", "acc", pretrain_epochs=50, seed=7, progress=False).fit(X, y).state_dict()
    first = LTNLearner.load(state, setting="acc_cf", fair_epochs=30).fit(X, y, pairs=(X, Xc))
    LTNLearner.load(state, setting="acc_cf_sg", fair_epochs=30).fit(
        X, y, pairs=(X, Xc), pair_subgroups=(X[:, 0] > 0).astype(str)
    )
    again = LTNLearner.load(state, setting="acc_cf", fair_epochs=30).fit(X, y, pairs=(X, Xc))
    np.testing.assert_array_equal(first.predict_d(X), again.predict_d(X))


def test_score_target_learns_and_predicts_scores():
    r = np.random.default_rng(0)
    X = r.normal(size=(400, 3)).astype(np.float32)
    y = X @ np.array([1.0, -0.5, 0.0]) + 0.1 * r.normal(size=400)
    learner = LTNLearner("score", "acc_cf", lr=0.01, pretrain_epochs=300, fair_epochs=50, progress=False)
    learner.fit(X, y, pairs=(X, X * np.float32(1.01)))
    assert np.mean((learner.predict_score(X) - y) ** 2) < 0.1 * np.var(y)
    assert set(learner.satisfactions()) == {"sat", "A3", "A4"}
    with pytest.raises(ValueError, match="binary"):
        learner.predict_proba(X)


def test_predict_proba_and_input_validation():
    X, y, Xc = causal_data(200)
    learner = fit("acc", X, y, Xc, pretrain_epochs=20)
    proba = learner.predict_proba(X)
    assert proba.shape == (200, 2) and np.allclose(proba.sum(1), 1)
    np.testing.assert_array_equal(learner.predict(X), (proba[:, 1] >= 0.5).astype(int))
    with pytest.raises(DataError, match="columns"):
        learner.predict_d(X[:, :2])
    with pytest.raises(DataError, match="NaN"):
        learner.predict_d(np.full_like(X, np.nan))
    with pytest.raises(DataError, match="0/1"):
        LTNLearner("binary", progress=False, pretrain_epochs=1).fit(X, y * 2.5)
    with pytest.raises(DataError, match="pair_subgroups"):
        LTNLearner("binary", "acc_cf_sg", progress=False).fit(X, y, pairs=(X, Xc))
    with pytest.raises(NotFittedError, match="not fitted"):
        LTNLearner().predict(X)


def test_group_weights_change_the_trade_off():
    X, y, Xc = causal_data(600)
    pre = LTNLearner("binary", "acc", pretrain_epochs=150, progress=False).fit(X, y).state_dict()
    res = {}
    for w in (0.2, 2.0):
        m = LTNLearner.load(pre, setting="acc_cf", fair_epochs=150, group_weights={"cf": w}).fit(X, y, pairs=(X, Xc))
        assert not m.constant_
        res[w] = cf_mse(m.predict_d(X), m.predict_d(Xc))
    assert res[2.0] < res[0.2]


def test_a4_exponent_reaches_the_axiom_and_weighs_the_worst_pairs():
    """fair_p sets the ∀ exponent of A4 (not of A1/A2), survives a checkpoint, and a larger p,
    which weighs the pairs that disagree most, leaves fewer decisions flipped than the mean."""
    from cffair.scores._metrics import cf_flip_rate

    X, y, Xc = causal_data(600)
    pre = LTNLearner("binary", "acc", pretrain_epochs=150, progress=False).fit(X, y).state_dict()
    flips = {}
    for p in (1.0, 6.0):
        m = LTNLearner.load(pre, setting="acc_cf", fair_epochs=150, fair_p=p).fit(X, y, pairs=(X, Xc))
        assert {a.name: a.p for a in m.kb_.axioms} == {"A1": None, "A2": None, "A4": p}
        flips[p] = cf_flip_rate(m.predict_d(X), m.predict_d(Xc))
        assert LTNLearner.load(m.state_dict()).fair_p == p
    assert flips[6.0] < flips[1.0]
    with pytest.raises(ValueError, match="fair_p must be a finite number >= 1"):
        LTNLearner(fair_p=0.5, progress=False).fit(X, y)  # checked by fit (the constructor only stores it)


def test_gradient_clipping_bounds_each_step():
    """With clip_grad every Adam step sees a gradient of norm at most clip_grad (and some steps
    were clipped); without it the norms exceed that bound."""
    X, y, _ = causal_data(400)
    norms: dict[float | None, list[float]] = {}
    for clip in (0.01, None):
        learner = LTNLearner("binary", "acc", lr=0.1, pretrain_epochs=20, progress=False, clip_grad=clip)
        learner._init_model(X.shape[1])
        opt, seen = learner.optimizer_, []
        step = opt.step

        def recording_step(*args, _step=step, _seen=seen, _model=learner.model_, **kwargs):
            _seen.append(float(torch.norm(torch.stack([p.grad.norm() for p in _model.parameters()]))))
            return _step(*args, **kwargs)

        opt.step = recording_step
        learner.fit(X, y)
        norms[clip] = seen
        assert np.isfinite(learner.predict_d(X)).all()
    assert len(norms[0.01]) == 20 and max(norms[0.01]) <= 0.01 * (1 + 1e-5)
    assert max(norms[None]) > 0.01
    with pytest.raises(ValueError, match="clip_grad must be None or a positive number"):
        LTNLearner(clip_grad=0.0, progress=False).fit(X, y)  # checked by fit (the constructor only stores it)


def test_early_stopping_stops_a_plateaued_stage_and_is_off_by_default():
    """With ``patience`` a stage stops at the first check (every 10 epochs) where the satisfaction
    gained less than ``min_delta`` over ``patience`` epochs; the history shows it. Without it the
    fixed epochs run, and the weights are those of a learner that never heard of early stopping."""
    torch_cpu_setup()
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 3)).astype(np.float32)
    y = (X[:, 0] > 0).astype(int)  # separable: the satisfaction plateaus early
    fixed = LTNLearner("binary", "acc", pretrain_epochs=600, seed=0, progress=False, lr=1e-2).fit(X, y)
    assert len(fixed.history_) == 600 and "patience" not in fixed._config()
    early = LTNLearner("binary", "acc", pretrain_epochs=600, seed=0, progress=False, lr=1e-2, patience=50).fit(X, y)
    sat = fixed.history_["sat"].to_numpy()
    # the first multiple of 10 (at least 51) whose gain over the 50 epochs before is below 0.001
    expected = next(n for n in range(60, 601, 10) if sat[n - 1] - sat[n - 51] < 1e-3)
    assert expected < 600 and len(early.history_) == expected
    np.testing.assert_array_equal(early.history_["sat"].to_numpy(), sat[:expected])  # the same steps until then
    assert early._config()["patience"] == 50
    with pytest.raises(ValueError, match="patience"):
        LTNLearner("binary", "acc", patience=0, progress=False).fit(X, y)
