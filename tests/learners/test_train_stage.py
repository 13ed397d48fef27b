"""LTNLearner.train_stage: the extension point that trains on any knowledge base with an
optional per-epoch callback (used by cffair.logic._notions and cffair.logic._adaptive)."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from sklearn.exceptions import NotFittedError

from cffair.learners._training import LTNLearner
from cffair.logic._axioms import KnowledgeBase, accuracy_axioms


def _toy(n: int = 200, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3)).astype(np.float32)
    y = (X[:, 0] + 0.3 * rng.normal(size=n) > 0).astype(float)
    return X, y


def test_on_epoch_sees_every_step_and_its_weight_changes_act() -> None:
    X, y = _toy()
    learner = LTNLearner(pretrain_epochs=20, lr=1e-2, progress=False, seed=0).fit(X, y)
    kb = KnowledgeBase(accuracy_axioms(X, y, "binary"))
    seen: list[tuple[int, list[float]]] = []

    def drop_a2(epoch: int, sats: torch.Tensor) -> None:
        seen.append((epoch, sats.tolist()))
        kb.axioms[1].weight = 0.0  # from the second step on, only A1 counts

    learner.train_stage(kb, 150, "only A1", on_epoch=drop_a2)
    hist = learner.history_
    stage = hist[hist["stage"] == "only A1"]
    # called once per step, with the epoch numbers and satisfactions the history records
    assert [e for e, _ in seen] == stage["epoch"].tolist() == list(range(21, 171))
    np.testing.assert_allclose([s for _, s in seen], stage[["A1", "A2"]].to_numpy(), rtol=0, atol=0)
    # with A2's weight at 0 the predicate drifts towards "always positive": A1 up, A2 down
    assert stage["A1"].iloc[-1] > stage["A1"].iloc[0] + 0.05
    assert stage["A2"].iloc[-1] < stage["A2"].iloc[0] - 0.05
    assert learner.kb_ is kb


def test_train_stage_needs_a_fitted_learner_and_whole_epochs() -> None:
    X, y = _toy(50)
    kb = KnowledgeBase(accuracy_axioms(X, y, "binary"))
    with pytest.raises(NotFittedError, match="not fitted"):
        LTNLearner(progress=False).train_stage(kb, 5, "x")
    learner = LTNLearner(pretrain_epochs=2, progress=False).fit(X, y)
    with pytest.raises(ValueError, match="non-negative integer"):
        learner.train_stage(kb, -1, "x")
