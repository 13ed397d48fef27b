"""Demographic parity, equalised odds and the Lipschitz condition as axioms (cffair.logic._notions):
known answers for the formulas and metrics, one shared forward pass, and on toys each axiom
drives its own metric to about zero where the accuracy axioms alone leave it large."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from cffair.errors import DataError
from cffair.learners._training import LTNLearner
from cffair.logic._axioms import DEFAULT_SEMANTICS, Semantics, accuracy_axioms
from cffair.logic._notions import (
    TermKnowledgeBase,
    demographic_parity_axiom,
    dp_gap,
    eo_gaps,
    equalised_odds_axiom,
    lipschitz_axiom,
    lipschitz_violation,
    similar_pairs,
)


def _biased(n: int = 600, seed: int = 0, noise: float = 0.3) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Group b has far more positive labels; the group is an input column. With noisy labels
    the model leans on the group within each label too (unequal odds)."""
    rng = np.random.default_rng(seed)
    s = rng.integers(0, 2, n)
    z = rng.normal(size=n)
    y = (z + 1.5 * s + noise * rng.normal(size=n) > 0.75).astype(float)
    X = np.column_stack([s, z, rng.normal(size=n)]).astype(np.float32)
    return X, y, np.where(s == 1, "b", "a")


def _pretrained(X: np.ndarray, y: np.ndarray) -> LTNLearner:
    return LTNLearner(pretrain_epochs=300, lr=1e-2, progress=False, seed=0).fit(X, y)


def test_parity_terms_have_their_known_truth_values() -> None:
    X = np.zeros((4, 2), dtype=np.float32)
    d = torch.tensor([0.9, 0.7, 0.2, 0.4])
    dp = demographic_parity_axiom(X, ["a", "a", "b", "b"], "S")
    # 1 − |mean(0.9, 0.7) − mean(0.2, 0.4)| = 1 − 0.5, through the stable ∀ of one element
    assert float(dp.satisfaction(d, Semantics(stable=False))) == pytest.approx(0.5)
    eo = equalised_odds_axiom(X, [1, 0, 1, 0], ["a", "a", "b", "b"], "S")
    # label 1: |0.9 − 0.2| = 0.7; label 0: |0.7 − 0.4| = 0.3; ∀ with p = 1: mean of 0.3 and 0.7
    assert float(eo.satisfaction(d, Semantics(stable=False))) == pytest.approx(0.5)
    eo2 = float(eo.satisfaction(d, Semantics(p_forall=2, stable=False)))
    assert eo2 == pytest.approx(1 - np.sqrt((0.7**2 + 0.3**2) / 2))


def test_metrics_have_their_known_values() -> None:
    d = np.array([0.9, 0.7, 0.2, 0.6, 0.1, 0.8])
    g = np.array(["a", "a", "a", "b", "b", "b"])
    y = np.array([1, 0, 1, 1, 0, 0])
    assert dp_gap(d, g) == pytest.approx(abs(2 / 3 - 2 / 3))
    assert dp_gap(d, g, threshold=None) == pytest.approx(abs(0.6 - 0.5))
    gaps = eo_gaps(d, y, g)
    # label 1: a → (0.9, 0.2) → rate 0.5; b → (0.6) → 1.0.  label 0: a → (0.7) → 1; b → (0.1, 0.8) → 0.5
    assert gaps == {"tpr_gap": pytest.approx(0.5), "fpr_gap": pytest.approx(0.5), "eo_gap": pytest.approx(0.5)}
    lip = lipschitz_violation([0.0, 0.5, 0.52], [0, 1], [1, 2], [0.1, 0.1])
    assert lip == {"lip_violation": 0.5, "lip_excess": pytest.approx(0.2)}


def test_similar_pairs_are_the_nearest_neighbours_without_the_excluded_columns() -> None:
    rng = np.random.default_rng(3)
    X = rng.normal(size=(50, 4)).astype(np.float32)
    i, j, d = similar_pairs(X, exclude=[0], k=2, beta=2.0, chunk=7)
    Z = X[:, 1:].astype(np.float64)
    full = np.linalg.norm(Z[:, None] - Z[None], axis=2)
    np.fill_diagonal(full, np.inf)
    want = np.sort(full, axis=1)[:, :2].ravel()
    np.testing.assert_array_equal(i, np.repeat(np.arange(50), 2))
    np.testing.assert_allclose(full[i, j], want, rtol=1e-4)
    np.testing.assert_allclose(d, np.minimum(1.0, want / 2.0), rtol=1e-4)
    # two rows that differ only in the excluded column are at distance 0
    X[1] = X[0]
    X[1, 0] += 5
    i, j, d = similar_pairs(X, exclude=[0], k=1)
    assert j[0] == 1 and d[0] == pytest.approx(0.0, abs=1e-3)


def test_terms_read_d_from_the_knowledge_base_forward_pass() -> None:
    X, y, g = _biased(200)
    learner = _pretrained(X, y)
    kb = TermKnowledgeBase(accuracy_axioms(X, y, "binary"), [demographic_parity_axiom(X, g), lipschitz_axiom(X, [0])])
    calls = []

    def counting(x: torch.Tensor) -> torch.Tensor:
        calls.append(len(x))
        return learner.model_(x)

    sats = kb.satisfactions(counting)  # type: ignore[arg-type]
    assert len(calls) == 1 and calls[0] == kb.n_inputs  # one pass, shared by A1, A2 and both terms
    separate = kb.satisfactions_ltn(learner.model_)
    np.testing.assert_allclose(sats.detach().numpy(), list(separate.values()), atol=1e-6)
    assert kb.names == ["A1", "A2", "DP[S]", "Lip"] and len(kb) == 4
    assert kb.weights().tolist() == [1.0, 1.0, 1.0, 1.0]


def test_demographic_parity_axiom_drives_the_gap_to_about_zero() -> None:
    X, y, g = _biased()
    learner = _pretrained(X, y)
    before = dp_gap(learner.predict_d(X), g)
    kb = TermKnowledgeBase(accuracy_axioms(X, y, "binary"), [demographic_parity_axiom(X, g, weight=5.0)])
    learner.train_stage(kb, 300, "dp")
    after = dp_gap(learner.predict_d(X), g)
    assert before > 0.3
    assert after < 0.05


def test_equalised_odds_axiom_drives_both_label_gaps_to_about_zero() -> None:
    X, y, g = _biased(seed=1, noise=1.2)
    learner = _pretrained(X, y)
    before = eo_gaps(learner.predict_d(X), y, g)
    kb = TermKnowledgeBase(accuracy_axioms(X, y, "binary"), [equalised_odds_axiom(X, y, g, weight=5.0)])
    learner.train_stage(kb, 300, "eo")
    after = eo_gaps(learner.predict_d(X), y, g)
    assert before["tpr_gap"] > 0.2 and before["fpr_gap"] > 0.2
    # about zero, on any CPU kind: the last digits of training differ across vector instruction sets
    # (measured after 300 epochs: FPR gap 0.05x with AVX-512 kernels, 0.069 with ATEN_CPU_CAPABILITY=avx2),
    # so the property is a shrink to under a quarter of the gap and below 0.1, not a bound tuned to one CPU
    for gap in ("tpr_gap", "fpr_gap"):
        assert after[gap] < min(0.1, before[gap] / 4), (gap, before[gap], after[gap])


def test_lipschitz_axiom_bounds_output_differences_on_close_pairs() -> None:
    X, y, g = _biased(seed=2)  # column 0 is the group: excluded from the metric
    learner = _pretrained(X, y)
    term = lipschitz_axiom(X, exclude=[0], k=1, beta=1.0, weight=5.0)
    i, j, d = term.i.numpy(), term.j.numpy(), term.dist.numpy()
    before = lipschitz_violation(learner.predict_d(X), i, j, d)
    learner.train_stage(TermKnowledgeBase(accuracy_axioms(X, y, "binary"), [term]), 400, "lip")
    after = lipschitz_violation(learner.predict_d(X), i, j, d)
    assert before["lip_violation"] > 0.1
    assert after["lip_violation"] < 0.03 and after["lip_excess"] < min(0.005, before["lip_excess"] / 10)


def test_bad_inputs_raise_clear_errors() -> None:
    X = np.zeros((3, 2), dtype=np.float32)
    with pytest.raises(DataError, match="compares groups, but every row has sex = 'a'"):
        demographic_parity_axiom(X, ["a", "a", "a"], "sex")
    with pytest.raises(DataError, match="one 0/1 label per row"):
        equalised_odds_axiom(X, [0, 2, 1], ["a", "b", "a"])
    with pytest.raises(DataError, match="one group label per row"):
        demographic_parity_axiom(X, ["a", "b"])
    with pytest.raises(ValueError, match="k must be a whole number in 1..2"):
        similar_pairs(X, k=3)
    kb = TermKnowledgeBase(accuracy_axioms(X, [0, 1, 1], "binary"), [demographic_parity_axiom(X, ["a", "b", "a"])])
    with pytest.raises(ValueError, match="already has a formula named 'DP\\[S\\]'"):
        kb.add_term(demographic_parity_axiom(X, ["a", "b", "a"]))
    assert DEFAULT_SEMANTICS.p_forall == 1.0
