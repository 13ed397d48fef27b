"""The synthetic structural causal models (exact twins, oracle), the scores against the truth,
and the bounds the default counterfactual treatment must meet on them (issue 12)."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
import torch

from cffair.causal import _synthetic as synthetic
from cffair.causal._cnf import CausalFlow
from cffair.causal._config import PAPER_TREATMENT
from cffair.causal._flow import generate_from
from cffair.causal._scores import compare_with_truth, table_gap, transition_table
from cffair.errors import CounterfactualError, CounterfactualWarning

torch.set_num_threads(1)

N = 600
FIT = {"epochs": 60, "batch_size": 256}


@pytest.fixture(scope="module", params=list(synthetic.MODELS))
def data(request):
    return synthetic.load(request.param, n=N, seed=3)


def _same(a: pd.Series, b: pd.Series) -> np.ndarray:
    if isinstance(a.dtype, pd.CategoricalDtype):
        return a.astype(str).to_numpy() == b.astype(str).to_numpy()
    return a.to_numpy() == b.to_numpy()


# ------------------------------------------------------------------ the models' true twins
def test_factual_rows_are_the_mechanisms_applied_to_the_noise(data):
    again = data.scm.propagate(data.noise, N)
    for name, x in data.values.items():
        np.testing.assert_array_equal(again[name], x)
    assert list(data.frame.columns) == [*data.spec.features, "y"] and set(data.frame["y"]) == {0, 1}
    assert data.spec.sensitive in data.graph.roots
    for col, kind in data.spec.features.items():
        assert kind == synthetic.MODELS[data.scm.name]().node(col).kind


def test_sensitive_twins_flip_s_and_keep_non_descendants(data):
    S = data.spec.sensitive
    twins = data.sensitive_twins
    assert twins["row_id"].tolist() == list(range(N))
    assert (twins[S].astype(str).to_numpy() != data.frame[S].astype(str).to_numpy()).all()
    desc = set(data.graph.descendants(S))
    assert desc, "S must have descendants"
    for col in data.spec.features:
        assert twins[col].dtype == data.frame[col].dtype, col
        if col != S and col not in desc:
            assert _same(twins[col], data.frame[col]).all(), f"non-descendant {col} changed"
    # some descendant changes in some row (the flip has an effect)
    assert any((~_same(twins[c], data.frame[c])).any() for c in desc)


def test_intervening_at_the_factual_value_returns_the_row(data):
    S = data.spec.sensitive
    twins = data.twins(S, data.frame[S].astype(str).to_numpy())
    for col in data.spec.features:
        assert _same(twins[col], data.frame[col]).all(), col


def test_feature_twins_set_the_value_and_keep_non_descendants(data):
    feature, value = data.scm.intervention
    twins = data.feature_twins
    assert feature != data.spec.sensitive
    rows = twins["row_id"].to_numpy()
    assert (data.frame[feature].astype(str).to_numpy()[rows] != str(value)).all()
    assert len(rows) >= N // 2
    assert (twins[feature].astype(str) == str(value)).all()
    desc = set(data.graph.descendants(feature))
    fact = data.frame.iloc[rows].reset_index(drop=True)
    for col in data.spec.features:
        if col != feature and col not in desc:
            assert _same(twins[col], fact[col]).all(), f"non-descendant {col} changed"


def test_oracle_noise_is_consistent_with_the_row(data):
    """Each oracle draw reproduces the factual row when the intervention keeps S as it is."""
    S = data.spec.sensitive
    draws = data.oracle(S, data.values[S], samples=3, seed=1)
    fact = data.frame.iloc[draws["row_id"].to_numpy()].reset_index(drop=True)
    for col, kind in data.spec.features.items():
        if kind == "continuous":
            np.testing.assert_allclose(draws[col].to_numpy(), fact[col].to_numpy(), rtol=1e-9, atol=1e-9)
        else:
            assert _same(draws[col], fact[col]).all(), col


def test_oracle_draws_have_the_true_transition_table():
    data = synthetic.load("adult_like", n=4000, seed=5)
    S = data.spec.sensitive
    draws = data.oracle(S, 1 - data.values[S], samples=1, seed=2)
    for col in ("education", "marital", "relationship", "occupation"):
        cats = list(data.frame[col].cat.categories)
        true = transition_table(data.frame[col], data.sensitive_twins[col], cats)
        drawn = transition_table(data.frame[col].to_numpy()[draws["row_id"]], draws[col], cats)
        counts = data.frame[col].astype(str).value_counts()
        assert table_gap(drawn, true, counts, min_count=200) < 0.06, col


def test_unknown_model_and_value_are_refused():
    with pytest.raises(CounterfactualError, match="unknown synthetic model 'nope'"):
        synthetic.load("nope")
    data = synthetic.load("nominal_child", n=50)
    with pytest.raises(CounterfactualError, match="not values of 'c'"):
        data.twins("c", "c9")


def test_simulate_scm_is_kept_with_its_known_answer():
    (frame, spec), info = synthetic.simulate_scm(200, seed=0)
    rows = np.arange(200)
    same = info["truth"]("s", frame["s"].astype(str).iloc[0])(rows[:1])
    np.testing.assert_allclose(same[["x2", "x3"]].to_numpy()[0], frame[["x2", "x3"]].to_numpy()[0], rtol=1e-12)
    from cffair.causal import simulate_scm

    assert simulate_scm is synthetic.simulate_scm


# ------------------------------------------------------------------ scores
def test_transition_tables_and_gap_known_answer():
    t = transition_table(["a", "a", "a", "b"], ["a", "b", "b", "b"], ["a", "b", "c"])
    np.testing.assert_allclose(t.loc["a"].to_numpy(), [1 / 3, 2 / 3, 0])
    assert t.loc["c"].isna().all()
    ident = transition_table(["a", "a", "a", "b"], ["a", "a", "a", "b"], ["a", "b", "c"])
    assert table_gap(ident, t) == pytest.approx(2 / 3)
    assert table_gap(ident, t, pd.Series({"a": 3, "b": 1}), min_count=2) == pytest.approx(2 / 3)
    assert table_gap(ident, t, pd.Series({"a": 1, "b": 1}), min_count=2) != table_gap(ident, t)


def test_scores_of_the_truth_and_of_leaving_rows_unchanged():
    data = synthetic.load("adult_like", n=800, seed=0)
    S = data.spec.sensitive
    nodes = {c: data.spec.features[c] for c in data.graph.descendants(S)}
    perfect = compare_with_truth(data.frame, data.sensitive_twins, data.sensitive_twins, nodes).set_index(
        ["node", "metric"]
    )["value"]
    for node, kind in nodes.items():
        if kind != "continuous":
            assert perfect[(node, "agreement")] == 1.0 and perfect[(node, "changed")] == perfect[(node, "changed_true")]
        if kind in ("continuous", "integer"):
            assert perfect[(node, "rmse")] == 0.0
        if kind in ("binary", "ordinal", "categorical"):
            assert perfect[(node, "table_gap")] == 0.0
    unchanged = data.frame[data.spec.feature_names].assign(row_id=np.arange(800))
    still = compare_with_truth(data.frame, unchanged, data.sensitive_twins, nodes).set_index(["node", "metric"])[
        "value"
    ]
    for node, kind in nodes.items():
        if kind != "continuous":
            assert still[(node, "changed")] == 0.0 and still[(node, "agreement_moved")] == 0.0
            assert still[(node, "agreement")] == pytest.approx(1 - still[(node, "changed_true")])
        if kind in ("continuous", "integer"):
            assert still[(node, "rmse")] == pytest.approx(still[(node, "rmse_unchanged")])


# ------------------------------------------------------------------ the default treatment's bounds
def _flip(data, config, seed=0):
    S = data.spec.sensitive
    model = CausalFlow(data.spec, data.graph, {**FIT, **config}).fit(data.frame, seed=seed)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", CounterfactualWarning)
        cfs = generate_from(model, data.dataset, {S: list(data.frame[S].cat.categories)}, seed=seed)
    nodes = {c: data.spec.features[c] for c in data.graph.descendants(S)}
    oracle = data.oracle(S, 1 - data.values[S], samples=8, seed=seed)
    scores = compare_with_truth(data.frame, cfs.frame, data.sensitive_twins, nodes, oracle)
    warned = [str(w.message) for w in caught if issubclass(w.category, CounterfactualWarning)]
    return scores.set_index(["node", "metric"])["value"], warned


@pytest.fixture(scope="module")
def nominal():
    return synthetic.load("nominal_child", n=2000, seed=0)


def test_default_treatment_recovers_the_nominal_child(nominal):
    default, warned = _flip(nominal, {})
    paper, paper_warned = _flip(nominal, PAPER_TREATMENT)
    # the default: the true transition table, as many changed rows as the truth, near-oracle agreement
    assert default[("c", "table_gap")] < 0.1
    assert abs(default[("c", "changed")] - default[("c", "changed_true")]) < 0.06
    assert default[("c", "agreement_moved")] > default[("c", "agreement_moved_oracle")] - 0.06
    assert default[("g", "rmse")] < 0.9 * default[("g", "rmse_unchanged")]
    # the paper's integer codes: the child (almost) never moves where the truth moves a third of the rows
    assert default[("c", "changed_true")] > 0.25
    assert paper[("c", "table_gap")] > 0.25
    assert default[("c", "agreement_moved")] > paper[("c", "agreement_moved")] + 0.2
    # ... and the library says so, naming the frozen columns, for the paper's treatment only
    assert not warned
    assert (
        len(paper_warned) == 1
        and "do(s := ·) leaves 'c' (" in paper_warned[0]
        and "categorical='flow'" in paper_warned[0]
    )


@pytest.mark.parametrize("name, node", [("binary_child", "b"), ("ordinal_child", "o")])
def test_default_treatment_recovers_binary_and_ordinal_children(name, node):
    data = synthetic.load(name, n=2000, seed=0)
    default, warned = _flip(data, {})
    assert default[(node, "table_gap")] < 0.1
    assert abs(default[(node, "changed")] - default[(node, "changed_true")]) < 0.06
    assert not warned
    paper, paper_warned = _flip(data, PAPER_TREATMENT)
    assert paper[(node, "table_gap")] > 2 * default[(node, "table_gap")] + 0.1
    if name == "binary_child":  # at its bin midpoint the binary child never moves
        assert paper[(node, "changed")] < 0.01 < default[(node, "changed_true")] - 0.2
        assert len(paper_warned) == 1 and "leaves 'b' (" in paper_warned[0] and "ordered='midpoint'" in paper_warned[0]
