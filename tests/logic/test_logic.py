"""Semantics (section 2.4), axioms A1–A5 and the knowledge base, against hand-computed values and ltntorch."""

from __future__ import annotations

import math

import ltn
import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from cffair._support.utils import torch_cpu_setup
from cffair.errors import DataError
from cffair.learners._networks import make_mlp
from cffair.logic._axioms import (
    EmptyDomainWarning,
    KnowledgeBase,
    Semantics,
    accuracy_axioms,
    cf_axiom,
    cke_axiom,
    eq_score,
    subgroup_cf_axioms,
    weighted_sat,
)

torch_cpu_setup()
EPS = 1e-4  # ltntorch's stable projection
EXACT = Semantics(stable=False)


def t(*v):
    return torch.tensor(v, dtype=torch.float32)


# ------------------------------------------------------------------ connectives & quantifiers
def test_connectives_hand_values_unstable():
    s = EXACT
    assert float(s.and_(t(0.5), t(0.4))) == pytest.approx(0.2)
    assert float(s.not_(t(0.3))) == pytest.approx(0.7)
    assert float(s.implies(t(0.5), t(0.4))) == pytest.approx(1 - 0.5 + 0.2)  # 1 - u + uv
    assert float(s.implies(t(1.0), t(0.0))) == pytest.approx(0.0)
    # u <-> v = (1 - u + uv)(1 - v + uv)
    assert float(s.equiv(t(0.5), t(0.5))) == pytest.approx(0.75 * 0.75)  # 0.5625, not 1
    assert float(s.equiv(t(1.0), t(1.0))) == pytest.approx(1.0)
    assert float(s.equiv(t(1.0), t(0.0))) == pytest.approx(0.0)


def test_stable_connectives_project_by_eps():
    s = Semantics()  # stable
    assert float(s.and_(t(0.0), t(0.0))) == pytest.approx(EPS * EPS, abs=1e-10)
    # Reichenbach with pi_0 on the antecedent and pi_1 on the consequent
    assert float(s.implies(t(0.0), t(0.0))) == pytest.approx(1 - EPS, abs=1e-7)
    assert float(s.implies(t(1.0), t(1.0))) == pytest.approx(1 - EPS, abs=1e-7)
    assert float(s.equiv(t(1.0), t(1.0))) == pytest.approx(1 - 2 * EPS, abs=1e-6)


def test_quantifiers_hand_values():
    u = t(0.2, 0.8, 0.5)
    assert float(Semantics(p_forall=1, stable=False).forall(u)) == pytest.approx(0.5)
    assert float(Semantics(p_exists=1, stable=False).exists(u)) == pytest.approx(0.5)
    v = t(0.0, 1.0)
    assert float(Semantics(p_forall=2, stable=False).forall(v)) == pytest.approx(1 - math.sqrt(0.5))
    assert float(Semantics(p_exists=2, stable=False).exists(v)) == pytest.approx(math.sqrt(0.5))


def test_quantifier_over_empty_set_is_nan_and_semantics_validated():
    assert torch.isnan(Semantics().forall(torch.empty(0)))
    with pytest.raises(ValueError, match="p_forall"):
        Semantics(p_forall=0.5)


def test_eq_score_hand_values():
    assert float(eq_score(t(1.0), t(1.0))) == pytest.approx(1.0)
    assert float(eq_score(t(2.0), t(0.0))) == pytest.approx(1 / (1 + 0.5 * 4))
    # vector outputs sum over the last dimension
    assert float(eq_score(torch.tensor([[1.0, 2.0]]), torch.tensor([[0.0, 0.0]]))) == pytest.approx(1 / (1 + 0.5 * 5))


# ------------------------------------------------------------------ weighted aggregation
def test_weighted_sat_known_answers():
    s = t(1.0, 0.5)
    assert float(weighted_sat(s, [3.0, 1.0], p=1, stable=False)) == pytest.approx(1 - 0.5 / 4)
    assert float(weighted_sat(s, [3.0, 1.0], p=2, stable=False)) == pytest.approx(1 - math.sqrt(0.25 / 4))
    # weights scale the error, never the truth values: a perfect base is 1 whatever the weights
    assert float(weighted_sat(t(1.0, 1.0), [5.0, 0.1], p=1, stable=False)) == pytest.approx(1.0)
    # zero weight ignores an axiom
    assert float(weighted_sat(t(0.9, 0.0), [1.0, 0.0], p=1, stable=False)) == pytest.approx(0.9)


@settings(max_examples=30, deadline=None)
@given(st.lists(st.floats(0, 1), min_size=1, max_size=6), st.sampled_from([1.0, 2.0, 3.0]), st.floats(0.1, 10))
def test_weighted_sat_equal_weights_is_ltn_satagg_and_scale_invariant(values, p, scale):
    s = torch.tensor(values, dtype=torch.float32)
    ours = weighted_sat(s, None, p=p)
    ref = ltn.fuzzy_ops.SatAgg(ltn.fuzzy_ops.AggregPMeanError(p=p))(*[v for v in s])
    assert float(ours) == pytest.approx(float(ref), abs=1e-5)
    w = torch.linspace(0.5, 2.0, len(values))
    assert float(weighted_sat(s, w, p=p)) == pytest.approx(float(weighted_sat(s, w * scale, p=p)), abs=1e-5)


def test_weighted_sat_rejects_bad_weights():
    with pytest.raises(ValueError, match="weights"):
        weighted_sat(t(0.5, 0.5), [0.0, 0.0])
    with pytest.raises(ValueError, match="2 axioms"):
        weighted_sat(t(0.5, 0.5), [1.0])


# ------------------------------------------------------------------ axioms
class HardModel(torch.nn.Module):
    """D(x) = 1 if x[0] > 0 else 0: crisp predictions."""

    def forward(self, x):
        return (x[:, 0] > 0).float()


def test_a4_with_p1_and_hard_predictions_is_fraction_of_consistent_pairs():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(200, 3)).astype(np.float32)
    x_cf = x.copy()
    flip = rng.random(200) < 0.3
    x_cf[flip, 0] = -x_cf[flip, 0]
    ax = cf_axiom(x, x_cf, "binary")
    sat = float(ax.satisfaction(HardModel(), Semantics(p_forall=1)))
    assert sat == pytest.approx(1 - flip.mean(), abs=1e-3)  # up to the eps projection
    assert float(ax.satisfaction(HardModel(), EXACT)) == pytest.approx(1 - flip.mean(), abs=1e-6)


def test_a1_a2_a3_domains_and_formulas():
    x = np.arange(12, dtype=np.float32).reshape(6, 2)
    a1, a2 = accuracy_axioms(x, np.array([1, 0, 1, 1, 0, 0]), "binary")
    assert (a1.name, a1.formula, a1.size, a1.group) == ("A1", "∀x∈T⁺: D(x)", 3, "acc")
    assert (a2.name, a2.formula, a2.size) == ("A2", "∀x∈T⁻: ¬D(x)", 3)
    (a3,) = accuracy_axioms(x, np.linspace(-1, 1, 6), "score")
    assert a3.name == "A3" and a3.size == 6


def test_bad_inputs_raise_clear_errors():
    x = np.zeros((4, 2), dtype=np.float32)
    with pytest.raises(DataError, match="0/1"):
        accuracy_axioms(x, np.array([0, 1, 2, 1]), "binary")
    with pytest.raises(DataError, match="NaN"):
        accuracy_axioms(np.array([[np.nan, 0]] * 4, dtype=np.float32), np.array([0, 1, 0, 1]), "binary")
    with pytest.raises(DataError, match="4 targets"):
        accuracy_axioms(x, np.array([0, 1, 0]), "binary")
    with pytest.raises(DataError, match="same shape"):
        cf_axiom(x, np.zeros((3, 2)), "binary")
    with pytest.raises(DataError, match="numeric"):
        accuracy_axioms(x, np.array(["a", "b", "a", "b"]), "binary")


def test_subgroup_axioms_partition_masks_and_empty_subgroups():
    rng = np.random.default_rng(1)
    x = rng.normal(size=(10, 2)).astype(np.float32)
    labels = np.array(["a"] * 6 + ["b"] * 4)
    axs = subgroup_cf_axioms(x, x + 1, labels, "binary", "sex")
    assert [a.size for a in axs] == [6, 4] and all(a.group == "cf_sg" for a in axs)
    assert axs[0].formula == "∀x∈T_{a}, ∀x′∈cf(x, sex): D(x) ↔ D(x′)"
    with pytest.warns(EmptyDomainWarning, match="old"):
        axs = subgroup_cf_axioms(x, x + 1, {"young": x[:, 0] < 10, "old": np.zeros(10, bool)}, "score")
    assert [a.meta["subgroup"] for a in axs] == ["young"] and axs[0].kind == "eq_pair"
    with pytest.raises(DataError, match="boolean"):
        subgroup_cf_axioms(x, x, {"bad": np.ones(3, bool)}, "binary")


def test_empty_class_skipped_explicitly():
    with pytest.warns(EmptyDomainWarning, match="A2"):
        axs = accuracy_axioms(np.zeros((3, 2)), np.ones(3), "binary")
    assert [a.name for a in axs] == ["A1"]


# ------------------------------------------------------------------ knowledge base vs ltn oracle
def _kb(target_kind, p_kb=1.0, group_weights=None):
    rng = np.random.default_rng(2)
    n, d = 120, 5
    x = rng.normal(size=(n, d)).astype(np.float32)
    y = (rng.random(n) < 0.4).astype(float) if target_kind == "binary" else rng.normal(size=n)
    # two counterfactuals per row, stacked as diagonal pairs
    xf = np.concatenate([x, x])
    xc = xf + rng.normal(scale=0.5, size=xf.shape).astype(np.float32)
    lab = np.where(xf[:, 1] > 0, "hi", "lo")
    axioms = (
        accuracy_axioms(x, y, target_kind)
        + [cf_axiom(xf, xc, target_kind)]
        + subgroup_cf_axioms(xf, xc, lab, target_kind)
    )
    sel = xf[:, 2] > 0.5
    axioms.append(cke_axiom(xf[sel], xc[sel], target_kind, "g", "F"))
    return KnowledgeBase(axioms, Semantics(p_kb=p_kb), group_weights), n, len(xc)


@pytest.mark.parametrize("target_kind", ["binary", "score"])
@pytest.mark.parametrize("p_kb", [1.0, 2.0])
def test_one_pass_evaluation_matches_ltn_machinery(target_kind, p_kb):
    kb, n, m = _kb(target_kind, p_kb, {"cf": 2.0, "cke": 0.5})
    torch.manual_seed(0)
    model = make_mlp(5, target_kind)
    with torch.no_grad():
        sat, sats = kb.sat(model)
    oracle = kb.satisfactions_ltn(model)
    assert list(oracle) == kb.names
    np.testing.assert_allclose(sats.numpy(), list(oracle.values()), atol=1e-6)
    assert float(sat) == pytest.approx(kb.sat_ltn(model), abs=1e-6)
    # one forward pass over the de-duplicated rows: n factual rows + m counterfactuals
    assert kb.n_inputs == n + m


def test_knowledge_base_weights_and_contents():
    kb, *_ = _kb("binary", group_weights={"cf": 3.0})
    w = dict(zip(kb.names, kb.weights().tolist()))
    assert w["A1"] == 1.0 and w["A4"] == 3.0 and w["A5[g, F]"] == 1.0
    with pytest.raises(ValueError, match="already"):
        kb.add(kb.axioms[0])
    removed = kb.remove("A4")
    assert removed.name == "A4" and "A4" not in kb.names
    with pytest.raises(ValueError, match="unknown axiom group"):
        KnowledgeBase([], group_weights={"fairness": 1.0})
    assert set(kb.describe().columns) == {"name", "group", "formula", "weight", "size", "p"}


def test_an_axiom_can_carry_its_own_forall_exponent():
    """A4 with p = 2 is 1 − sqrt(mean (1 − uᵢ)²) while A1 keeps the semantics' p = 1; the one-pass
    evaluation and the ltntorch oracle agree on it."""
    x = np.array([[1.0], [-1.0], [2.0], [-2.0]], dtype=np.float32)
    x_cf = x.copy()
    x_cf[:2] = -x[:2]  # HardModel decides by the sign: the first two pairs disagree, the last two agree
    a4 = cf_axiom(x, x_cf, "binary", p=2.0)
    (a1,) = accuracy_axioms(x[:1], np.ones(1), "binary")
    kb = KnowledgeBase([a1, a4], EXACT)
    with torch.no_grad():
        sats = kb.satisfactions(HardModel())
    # truths of A4: 0, 0, 1, 1 -> p = 1 would give 0.5; p = 2 gives 1 − sqrt(0.5)
    assert float(sats[1]) == pytest.approx(1 - math.sqrt(0.5), abs=1e-6)
    assert float(sats[0]) == pytest.approx(1.0)
    assert kb.satisfactions_ltn(HardModel())["A4"] == pytest.approx(1 - math.sqrt(0.5), abs=1e-6)
    assert kb.describe()["p"].tolist() == [1.0, 2.0]
    # subgroup axioms take the exponent too, and a larger p weighs the worst pairs more
    sg = subgroup_cf_axioms(x, x_cf, ["a", "a", "b", "b"], "binary", p=6.0)
    assert [a.p for a in sg] == [6.0, 6.0]
    assert float(cf_axiom(x, x_cf, "binary", p=6.0).satisfaction(HardModel(), EXACT)) < float(
        a4.satisfaction(HardModel(), EXACT)
    )
    for bad in (0.5, float("inf"), True):
        with pytest.raises(ValueError, match="exponent p of ∀ must be a finite number >= 1"):
            cf_axiom(x, x_cf, "binary", p=bad)


def test_gradient_flows_through_one_pass_loss():
    kb, *_ = _kb("binary")
    model = make_mlp(5)
    sat, _ = kb.sat(model)
    (1 - sat).backward()
    assert all(p.grad is not None and torch.isfinite(p.grad).all() for p in model.parameters())


def test_duplicate_rows_are_evaluated_once_with_the_same_satisfactions_and_gradients():
    """Planted duplicates (rows repeated inside A1/A2, pairs repeated inside A4 and A5, the factual
    rows shared by every axiom): the one pass over the unique rows gives each axiom's satisfaction
    and the gradient of sat(K) of the direct computation over every element (each axiom's own
    rows through the model, duplicates included) to float32 rounding (1e-6)."""
    rng = np.random.default_rng(5)
    base = rng.normal(size=(30, 4)).astype(np.float32)
    x = base[rng.integers(0, 30, size=90)]  # 90 rows, at most 30 distinct
    y = (x[:, 0] > 0).astype(float)
    x_cf = x.copy()
    x_cf[:, 1] = -x_cf[:, 1]  # a row's twin is a function of the row: duplicate rows give duplicate pairs
    axioms = (
        accuracy_axioms(x, y, "binary")
        + [cf_axiom(x, x_cf, "binary")]
        + [cke_axiom(np.repeat(x[:20], 3, 0), np.repeat(x_cf[:20], 3, 0), "binary", "g", "F")]
    )
    kb = KnowledgeBase(axioms, Semantics(p_kb=2.0), {"cf": 2.0})
    assert kb.n_inputs == len(np.unique(np.concatenate([x, x_cf]), axis=0)) <= 60  # each row once

    def grads(fn):
        torch.manual_seed(0)
        model = make_mlp(4)
        sats = fn(model)
        kb.aggregate(sats).backward()
        return sats.detach(), [p.grad.clone() for p in model.parameters()]

    one_pass, g_one = grads(kb.satisfactions)
    direct, g_direct = grads(lambda m: torch.stack([a.satisfaction(m, kb.semantics) for a in kb.axioms]))
    torch.testing.assert_close(one_pass, direct, atol=1e-6, rtol=0)
    for a, b in zip(g_one, g_direct):
        torch.testing.assert_close(a, b, atol=1e-6, rtol=1e-5)


def test_a_base_extended_by_an_axiom_compiles_from_the_step_before_to_the_same_bits():
    """What a CKE step does (:meth:`KnowledgeBase.compile_from`): the new axiom's rows are
    de-duplicated against the compiled rows of the base before; the rows, their order and every
    satisfaction equal those of compiling the extended base from scratch, bit for bit."""
    kb, *_ = _kb("binary")
    before = KnowledgeBase(kb.axioms[:-1], kb.semantics)
    before.compile()
    rng = np.random.default_rng(3)
    x = kb.axioms[0].x.numpy()[:25]
    extra = cke_axiom(x, x + rng.normal(size=x.shape).astype(np.float32), "binary", "h", "G")
    extended = KnowledgeBase([*before.axioms, kb.axioms[-1], extra], kb.semantics)
    fresh = KnowledgeBase(extended.axioms, kb.semantics)
    reused, scratch = extended.compile_from(before), fresh.compile()
    assert torch.equal(reused.inputs, scratch.inputs)
    assert all(torch.equal(a, b) for a, b in zip(reused.index_x, scratch.index_x))
    assert all((a is None and b is None) or torch.equal(a, b) for a, b in zip(reused.index_cf, scratch.index_cf))
    torch.manual_seed(0)
    model = make_mlp(5)
    with torch.no_grad():
        assert torch.equal(extended.satisfactions(model), fresh.satisfactions(model))
    other = KnowledgeBase(list(reversed(extended.axioms)), kb.semantics)  # not an extension: compiled afresh
    assert torch.equal(other.compile_from(before).inputs, scratch.inputs)
