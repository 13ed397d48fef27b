"""Weight schedules (cffair.logic._adaptive): the update rules on known satisfactions, and on a toy the
Lagrangian meets a CF-MSE budget that the fixed weights of appendix B miss."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from cffair.learners._training import LTNLearner
from cffair.logic._adaptive import CFBudget, RaiseLeastSatisfied, get_weight, set_weight, train_pair_cf_mse
from cffair.logic._axioms import KnowledgeBase, accuracy_axioms, cf_axiom, subgroup_cf_axioms


def _kb_with_subgroups() -> KnowledgeBase:
    X = np.random.default_rng(0).normal(size=(30, 2)).astype(np.float32)
    y = (X[:, 0] > 0).astype(float)
    labels = np.array(["g1", "g2", "g3"] * 10)
    return KnowledgeBase(accuracy_axioms(X, y, "binary") + subgroup_cf_axioms(X, X[::-1].copy(), labels, "binary"))


def test_raise_least_satisfied_follows_its_rule() -> None:
    kb = _kb_with_subgroups()
    names = [n for n in kb.names if n.startswith("A4_")]
    sched = RaiseLeastSatisfied(kb, names, eta=0.1, record_every=1)
    sats = torch.tensor([0.9, 0.9, 0.95, 0.80, 0.99])  # A1, A2, then A4_1..3: errors 0.05, 0.2, 0.01
    sched(1, sats)
    err = np.array([0.05, 0.20, 0.01])
    w = np.exp(0.1 * (err / err.mean() - 1))
    w = w / w.sum() * 3
    np.testing.assert_allclose([get_weight(kb, n) for n in names], w, rtol=1e-6)
    assert get_weight(kb, "A1") == 1.0  # only the named axioms adapt
    assert names[1] == max(names, key=lambda n: get_weight(kb, n))  # the least satisfied gains most
    assert len(sched.history) == 1 and sched.history[0]["epoch"] == 1
    np.testing.assert_allclose([sched.history[0][n] for n in names], w, rtol=1e-6)
    # many steps: the total is kept and no weight exceeds max_ratio × the mean
    for e in range(2, 500):
        sched(e, sats)
    ws = np.array([get_weight(kb, n) for n in names])
    assert ws.sum() == pytest.approx(3.0) and ws.max() <= 20.0 * 1.0 + 1e-9
    # eta = 0 is the fixed schedule
    kb2 = _kb_with_subgroups()
    RaiseLeastSatisfied(kb2, names, eta=0.0)(1, sats)
    assert [get_weight(kb2, n) for n in names] == [1.0, 1.0, 1.0]


def test_cf_budget_multiplier_rises_above_the_budget_and_falls_below() -> None:
    kb = _kb_with_subgroups()
    values = iter([0.2, 0.2, 0.05, 0.05])
    sched = CFBudget(
        kb, "A4_1[g1]", lambda: next(values), budget=0.1, eta=0.5, every=1, bounds=(0.5, 2.0), record_every=1
    )
    sched(1, torch.ones(5))
    assert sched.lam == pytest.approx(math.exp(0.5))  # c/b − 1 = 1
    sched(2, torch.ones(5))
    assert sched.lam == pytest.approx(2.0)  # clipped at the upper bound
    sched(3, torch.ones(5))
    assert sched.lam == pytest.approx(2.0 * math.exp(-0.25))
    assert [h["measured"] for h in sched.history] == [0.2, 0.2, 0.05]
    sched.every = 2
    sched(5, torch.ones(5))  # not a multiple of every: nothing measured
    assert sched.lam == pytest.approx(2.0 * math.exp(-0.25))


def test_lagrangian_meets_the_cf_budget_that_fixed_weights_miss() -> None:
    rng = np.random.default_rng(0)
    n = 300
    s = rng.integers(0, 2, n)
    z = rng.normal(size=n)
    y = (z + 1.5 * s + 0.3 * rng.normal(size=n) > 0.75).astype(float)
    X = np.column_stack([s, z]).astype(np.float32)
    X_cf = X.copy()
    X_cf[:, 0] = 1 - X_cf[:, 0]  # the twin: the group flipped (no descendants in this toy)
    base = LTNLearner(pretrain_epochs=150, lr=1e-2, progress=False, seed=0).fit(X, y)
    start = train_pair_cf_mse(base.model_, X, X_cf)()
    budget = 0.1 * start
    results = {}
    for name in ("fixed", "lagrangian"):
        learner = LTNLearner.load(base.state_dict(), lr=1e-2, progress=False)
        kb = KnowledgeBase(accuracy_axioms(X, y, "binary") + [cf_axiom(X, X_cf, "binary")])
        measure = train_pair_cf_mse(learner.model_, X, X_cf)
        sched = CFBudget(kb, "A4", measure, budget, eta=0.1, every=1) if name == "lagrangian" else None
        learner.train_stage(kb, 200, name, on_epoch=sched)
        results[name] = (measure(), max([h["A4"] for h in sched.history] if sched else [1.0]))
    assert start > 0.2
    assert results["fixed"][0] > 1.5 * budget  # weight 1 leaves the CF-MSE above the budget
    assert results["lagrangian"][0] <= 1.1 * budget  # the multiplier rose until the budget held
    assert results["lagrangian"][1] > 1.5  # ... the multiplier rose above the fixed weight on the way


def test_weights_are_checked_and_found_by_name() -> None:
    kb = _kb_with_subgroups()
    set_weight(kb, "A1", 2.5)
    assert get_weight(kb, "A1") == 2.5 and kb.weights()[0] == 2.5
    with pytest.raises(KeyError, match="no axiom or term named 'A9'"):
        get_weight(kb, "A9")
    with pytest.raises(ValueError, match="finite number >= 0"):
        set_weight(kb, "A1", -1.0)
    with pytest.raises(KeyError, match="no axiom or term named 'A4_9'; the knowledge base has"):
        RaiseLeastSatisfied(kb, ["A4_9"])
    with pytest.raises(KeyError, match=r"formula\(s\) \['A9'\] are not in the knowledge base"):
        CFBudget(kb, "A9", lambda: 0.0, budget=1.0)
    with pytest.raises(ValueError, match="budget must be a positive number"):
        CFBudget(kb, "A1", lambda: 0.0, budget=0.0)
