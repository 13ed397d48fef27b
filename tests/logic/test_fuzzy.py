"""The fuzzy logics of the knowledge base: known truth tables, the paper's default unchanged, clear errors."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from cffair.errors import SemanticsError
from cffair.logic import _fuzzy as fuzzy
from cffair.logic._axioms import DEFAULT_SEMANTICS, KnowledgeBase, Semantics, accuracy_axioms, cf_axiom

T = torch.tensor
GRID = torch.linspace(0.0, 1.0, 11, dtype=torch.float64)


def _op(name: str, which: str):
    # stable=False: the exact operators (the stable ones project inputs by 1e-4)
    return getattr(fuzzy.logic(name), which)(stable=False)


def _v(op, a: float, b: float) -> float:
    return float(op(T(a, dtype=torch.float64), T(b, dtype=torch.float64)))


@pytest.mark.parametrize("name", list(fuzzy.LOGICS))
def test_every_t_norm_has_one_as_unit_and_zero_as_absorbing_element(name):
    and_ = _op(name, "and_")
    for a in GRID.tolist():
        assert _v(and_, a, 1.0) == pytest.approx(a, abs=1e-12)
        assert _v(and_, a, 0.0) == pytest.approx(0.0, abs=1e-12)
        assert _v(and_, a, 0.3) == pytest.approx(_v(and_, 0.3, a), abs=1e-12)  # commutative


@pytest.mark.parametrize("name", list(fuzzy.LOGICS))
def test_every_implication_is_boolean_at_the_corners_and_true_when_the_premise_is_not_larger(name):
    imp = _op(name, "implies")
    assert [_v(imp, a, b) for a, b in ((0, 0), (0, 1), (1, 0), (1, 1))] == pytest.approx([1, 1, 0, 1], abs=1e-12)
    or_ = _op(name, "or_")
    assert [_v(or_, a, b) for a, b in ((0, 0), (0, 1), (1, 0), (1, 1))] == pytest.approx([0, 1, 1, 1], abs=1e-12)
    if name != "product":  # the residuated implications: u → v = 1 exactly when u <= v
        for a in GRID.tolist():
            assert _v(imp, a, min(1.0, a + 0.1)) == pytest.approx(1.0)


def test_known_interior_values_of_each_logic():
    checks = {
        ("product", "and_", 0.6, 0.7): 0.42,
        ("product", "or_", 0.6, 0.7): 0.88,
        ("product", "implies", 0.6, 0.7): 1 - 0.6 + 0.42,
        ("lukasiewicz", "and_", 0.6, 0.7): 0.3,
        ("lukasiewicz", "and_", 0.2, 0.7): 0.0,
        ("lukasiewicz", "or_", 0.6, 0.7): 1.0,
        ("lukasiewicz", "or_", 0.2, 0.3): 0.5,
        ("lukasiewicz", "implies", 0.8, 0.3): 0.5,
        ("godel", "and_", 0.6, 0.7): 0.6,
        ("godel", "or_", 0.6, 0.7): 0.7,
        ("godel", "implies", 0.8, 0.3): 0.3,
        ("godel", "implies", 0.3, 0.8): 1.0,
        ("goguen", "implies", 0.8, 0.4): 0.5,
        ("goguen", "and_", 0.5, 0.4): 0.2,
    }
    for (name, which, a, b), want in checks.items():
        assert _v(_op(name, which), a, b) == pytest.approx(want, abs=1e-12), (name, which, a, b)


def test_the_equivalence_of_each_logic_in_closed_form():
    u = torch.rand(200, dtype=torch.float64, generator=torch.Generator().manual_seed(0))
    v = torch.rand(200, dtype=torch.float64, generator=torch.Generator().manual_seed(1))
    eq = {n: fuzzy.logic(n).equiv(stable=False)(u, v) for n in fuzzy.LOGICS}
    assert torch.allclose(eq["product"], (1 - u + u * v) * (1 - v + u * v))
    assert torch.allclose(eq["lukasiewicz"], 1 - (u - v).abs())
    assert torch.allclose(eq["godel"], torch.minimum(u, v))  # u ≠ v almost surely
    assert torch.allclose(eq["goguen"], torch.minimum(u, v) / torch.maximum(u, v))
    half = T(0.5, dtype=torch.float64)
    # only the product logic fails u ↔ u in the middle (the push towards 0 or 1 of the method page)
    assert float(fuzzy.logic("product").equiv(stable=False)(half, half)) == pytest.approx(0.5625)
    for n in ("lukasiewicz", "godel", "goguen"):
        assert float(fuzzy.logic(n).equiv(stable=False)(half, half)) == pytest.approx(1.0)


def test_an_unknown_logic_is_refused_with_the_choices():
    with pytest.raises(
        ValueError, match="unknown fuzzy logic 'boolean'; choose one of product, lukasiewicz, godel, goguen"
    ):
        fuzzy.logic("boolean")
    with pytest.raises(ValueError, match="unknown fuzzy logic 'luk'"):
        Semantics(logic="luk")
    with pytest.raises(ValueError, match="pair_body must be 'equiv' or 'eq'"):
        Semantics(pair_body="iff")


def test_the_default_semantics_is_the_papers_product_logic():
    s = Semantics()
    assert s == DEFAULT_SEMANTICS and s.logic == "product" and s.pair_body == "equiv"
    assert isinstance(s.and_, fuzzy.ltn.fuzzy_ops.AndProd) and isinstance(
        s.implies, fuzzy.ltn.fuzzy_ops.ImpliesReichenbach
    )
    assert isinstance(s.or_, fuzzy.ltn.fuzzy_ops.OrProbSum)


def _model(seed: int = 0) -> torch.nn.Module:
    torch.manual_seed(seed)
    return torch.nn.Sequential(
        torch.nn.Linear(3, 4), torch.nn.Tanh(), torch.nn.Linear(4, 1), torch.nn.Sigmoid(), torch.nn.Flatten(0)
    )


@pytest.mark.parametrize("name", list(fuzzy.LOGICS))
@pytest.mark.parametrize("body", ["equiv", "eq"])
def test_the_fast_path_agrees_with_the_ltn_oracle_in_every_logic(name, body):
    rng = np.random.default_rng(0)
    x, x_cf = rng.normal(size=(40, 3)).astype(np.float32), rng.normal(size=(40, 3)).astype(np.float32)
    y = (rng.random(40) > 0.5).astype(float)
    sem = Semantics(logic=name, pair_body=body)
    kb = KnowledgeBase([*accuracy_axioms(x, y, "binary"), cf_axiom(x, x_cf, "binary")], sem)
    model = _model()
    fast = kb.satisfactions(model).detach().numpy()
    oracle = np.array(list(kb.satisfactions_ltn(model).values()))
    assert fast == pytest.approx(oracle, abs=1e-5)


def test_the_logic_acts_on_the_pair_axioms_only():
    """A1/A2 read the same in every logic (one pre-training serves all); A4 does not."""
    rng = np.random.default_rng(1)
    x, x_cf = rng.normal(size=(30, 3)).astype(np.float32), rng.normal(size=(30, 3)).astype(np.float32)
    y = (rng.random(30) > 0.5).astype(float)
    model = _model(1)
    sats = {}
    for name in fuzzy.LOGICS:
        kb = KnowledgeBase([*accuracy_axioms(x, y, "binary"), cf_axiom(x, x_cf, "binary")], Semantics(logic=name))
        sats[name] = kb.satisfactions(model).detach().numpy()
    for name in fuzzy.LOGICS:
        assert sats[name][:2] == pytest.approx(sats["product"][:2], abs=1e-7)
    assert len({round(float(s[2]), 5) for s in sats.values()}) == len(fuzzy.LOGICS)


def test_an_eq_bodied_a4_equals_one_over_one_plus_half_the_squared_gap():
    d_x, d_cf = T([0.9, 0.2, 0.5]), T([0.1, 0.2, 0.7])
    got = Semantics(pair_body="eq").iff(d_x, d_cf)
    assert torch.allclose(got, 1 / (1 + 0.5 * (d_x - d_cf) ** 2))
    assert float(Semantics(pair_body="eq").iff(T(0.5), T(0.5))) == 1.0  # no push to 0 or 1


# ---------------------------------------------------------------------------- score targets (Lawschool)
def test_each_logic_reads_a_score_equality_from_its_t_norms_generator():
    """Eq(a, b) at δ = ½ (a − b)²: product (the paper's) 1/(1 + δ); Łukasiewicz max(0, 1 − δ); Goguen exp(−δ)."""
    a = torch.linspace(-2.0, 2.0, 21, dtype=torch.float64)
    b = torch.zeros_like(a)
    d = 0.5 * a**2
    want = {"product": 1 / (1 + d), "lukasiewicz": torch.clamp(1 - d, min=0.0), "goguen": torch.exp(-d)}
    for name, w in want.items():
        assert torch.allclose(fuzzy.logic(name).score_eq(a, b), w), name
        assert torch.allclose(Semantics(logic=name).pair_eq(a, b), w), name
    assert torch.equal(Semantics().pair_eq(a, b), fuzzy.eq_score(a, b))  # the paper's, bit for bit
    # every equality is 1 on equal scores and falls with the distance
    for name in want:
        e = fuzzy.logic(name).score_eq(a, b)
        assert float(e[10]) == 1.0 and bool(torch.all(e[11:].diff() <= 0))


def test_goedel_logic_is_refused_on_a_score_targets_pair_axioms_and_says_why():
    rng = np.random.default_rng(2)
    x, x_cf = rng.normal(size=(20, 3)).astype(np.float32), rng.normal(size=(20, 3)).astype(np.float32)
    y = rng.normal(size=20)
    assert not fuzzy.logic("godel").acts_on_scores
    assert all(fuzzy.logic(n).acts_on_scores for n in ("product", "lukasiewicz", "goguen"))
    with pytest.raises(SemanticsError, match="Gödel logic cannot act on a score target's pair axioms"):
        KnowledgeBase([*accuracy_axioms(x, y, "score"), cf_axiom(x, x_cf, "score")], Semantics(logic="godel"))
    # the accuracy axiom alone has no connective: Gödel reads it as every logic does
    assert len(KnowledgeBase(accuracy_axioms(x, y, "score"), Semantics(logic="godel"))) == 1
    # a binary target's pair axiom is an equivalence, which Gödel logic has
    yb = (y > 0).astype(float)
    assert len(
        KnowledgeBase([*accuracy_axioms(x, yb, "binary"), cf_axiom(x, x_cf, "binary")], Semantics(logic="godel"))
    )


@pytest.mark.parametrize("name", ["product", "lukasiewicz", "goguen"])
def test_a_score_targets_fast_path_agrees_with_the_ltn_oracle_in_each_logic(name):
    rng = np.random.default_rng(3)
    x, x_cf = rng.normal(size=(40, 3)).astype(np.float32), rng.normal(size=(40, 3)).astype(np.float32)
    kb = KnowledgeBase(
        [*accuracy_axioms(x, rng.normal(size=40), "score"), cf_axiom(x, x_cf, "score")], Semantics(logic=name)
    )
    model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Tanh(), torch.nn.Linear(4, 1), torch.nn.Flatten(0))
    fast = kb.satisfactions(model).detach().numpy()
    oracle = np.array(list(kb.satisfactions_ltn(model).values()))
    assert fast == pytest.approx(oracle, abs=1e-5)


def test_each_logic_changes_a_regression_model_trained_with_the_cf_axiom():
    """Lawschool's case: on a score target the logic must reach A4 (it did not: every logic trained
    the product logic's model, bit for bit). Tiny synthetic regression data whose twins differ in the
    sensitive column; the same pre-training, then a few fairness epochs in each logic."""
    from cffair.learners._training import LTNLearner

    rng = np.random.default_rng(4)
    n = 120
    s = rng.integers(0, 2, n).astype(np.float32)
    x = np.column_stack([s, rng.normal(size=(n, 2))]).astype(np.float32)
    y = (1.5 * s + x[:, 1] + 0.1 * rng.normal(size=n)).astype(np.float32)
    x_cf = x.copy()
    x_cf[:, 0] = 1.0 - s
    preds = {}
    for name in ("product", "lukasiewicz", "goguen"):
        learner = LTNLearner(
            "score",
            "acc_cf",
            pretrain_epochs=30,
            fair_epochs=15,
            lr=1e-2,
            hidden=(8,),
            seed=0,
            progress=False,
            semantics=Semantics(logic=name),
        ).fit(x, y, pairs=(x, x_cf))
        preds[name] = learner.predict_score(x)
    assert not np.allclose(preds["lukasiewicz"], preds["product"], atol=1e-4)
    assert not np.allclose(preds["goguen"], preds["product"], atol=1e-4)
    assert not np.allclose(preds["goguen"], preds["lukasiewicz"], atol=1e-4)
    with pytest.raises(SemanticsError):
        LTNLearner(
            "score",
            "acc_cf",
            pretrain_epochs=2,
            fair_epochs=1,
            hidden=(8,),
            progress=False,
            semantics=Semantics(logic="godel"),
        ).fit(x, y, pairs=(x, x_cf))
