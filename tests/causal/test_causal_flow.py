"""The causal normalising flow: invertibility, graph-shaped Jacobian, interventions, known answers."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from cffair.causal._config import PAPER_TREATMENT
from cffair.causal._flow import CausalFlow, FlowConfig
from cffair.causal._synthetic import simulate_scm
from cffair.datasets import DatasetSpec, prepare
from cffair.errors import CounterfactualError

torch.set_num_threads(1)

FAST = {"epochs": 4, "patience": None, "batch_size": 128}


def mixed_dataset(n: int = 600, seed: int = 0):
    """Roots s (binary), a (integer), r (nominal); c (nominal child), e (ordinal), x (continuous);
    iso is an isolated continuous node."""
    rng = np.random.default_rng(seed)
    s = rng.integers(0, 2, n)
    a = rng.integers(18, 70, n)
    r = rng.integers(0, 3, n)
    c = (s + (a > 40) + rng.integers(0, 2, n)) % 4
    e = np.clip(c + rng.integers(-1, 2, n), 0, 3)
    x = 0.3 * c + e - s + rng.normal(size=n)
    frame = pd.DataFrame(
        {
            "s": np.where(s == 1, "M", "F"),
            "a": a,
            "r": np.array(["red", "green", "blue"])[r],
            "c": np.array(["w", "x", "y", "z"])[c],
            "e": pd.Categorical(
                np.array(["lo", "mid", "hi", "top"])[e], categories=["lo", "mid", "hi", "top"], ordered=True
            ),
            "x": x,
            "iso": rng.normal(size=n),
            "y": rng.integers(0, 2, n),
        }
    )
    spec = DatasetSpec(
        name="mixed",
        target="y",
        target_kind="binary",
        sensitive="s",
        features={
            "s": "binary",
            "a": "integer",
            "r": "categorical",
            "c": "categorical",
            "e": "ordinal",
            "x": "continuous",
            "iso": "continuous",
        },
        graph={
            "name": "mixed",
            "edges": {"s": ["c", "x"], "a": ["c"], "r": ["x"], "c": ["e", "x"], "e": ["x"]},
            "nodes": ["iso"],
        },
    )
    return prepare(frame, spec), spec


@pytest.fixture(scope="module")
def mixed():
    return mixed_dataset()


TREATMENTS = {
    "ctx-paper": {"root_context": True, **PAPER_TREATMENT},
    "noctx-paper": {"root_context": False, **PAPER_TREATMENT},
    "ctx-default": {"root_context": True},
    "noctx-default": {"root_context": False},
    "ctx-sample": {"root_context": True, "categorical": "gumbel", "ordered": "sample", "integer": "sample"},
}


@pytest.fixture(scope="module", params=list(TREATMENTS), ids=list(TREATMENTS))
def fitted(request, mixed):
    frame, spec = mixed
    return CausalFlow(spec, config={**FAST, **TREATMENTS[request.param], "cf_samples": 3}).fit(frame, seed=0)


@pytest.fixture(scope="module")
def synthetic():
    return simulate_scm(3000, seed=1)


# ------------------------------------------------------------------ the map T
@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 10_000), scale=st.floats(0.1, 3.0))
def test_inverse_of_transform_is_identity(fitted, seed, scale):
    if fitted.flow is None:
        return
    g = torch.Generator().manual_seed(seed)
    z = torch.randn((16, len(fitted.flow_nodes)), generator=g) * scale
    c = None if not fitted.context_width else torch.randn((16, fitted.context_width), generator=g)
    with torch.no_grad():
        back = fitted.inverse(fitted.transform(z, c), c)
    torch.testing.assert_close(back, z, atol=1e-4, rtol=1e-4)


def test_jacobian_has_exactly_the_graph_sparsity(fitted, mixed):
    frame, _ = mixed
    z, c = fitted.encode(frame.head(6))
    adj = fitted.adjacency()
    F = len(fitted.flow_nodes)
    for i in range(len(z)):
        zi = z[i : i + 1]
        ci = None if c is None else c[i : i + 1]
        jz = torch.autograd.functional.jacobian(lambda v, ci=ci: fitted.transform(v, ci), zi)[0, :, 0, :]
        assert torch.all(jz[torch.as_tensor(~adj[:, :F])] == 0), "T depends on a non-parent"
        assert torch.all(jz.diagonal() != 0)
        if ci is not None:
            jc = torch.autograd.functional.jacobian(lambda v, zi=zi: fitted.transform(zi, v), ci)[0, :, 0, :]
            assert torch.all(jc[torch.as_tensor(~adj[:, F:])] == 0), "T depends on a root that is not a parent"
    # the mask is the graph's: an entry is set iff it is the diagonal or a parent edge
    g = fitted.graph
    for a, child in enumerate(fitted.flow_nodes):
        for b, parent in enumerate(fitted.flow_nodes):
            assert adj[a, b] == (a == b or parent in g.parents(child))


# ------------------------------------------------------------------ interventions
@pytest.mark.parametrize("feature, value", [("s", "M"), ("a", 30), ("c", "z"), ("e", "top"), ("x", 1.5), ("iso", 0.0)])
def test_intervention_keeps_non_descendants_and_sets_value(fitted, mixed, feature, value):
    frame, spec = mixed
    cf, pos, sample = fitted.counterfactual(frame, feature, value)
    factual = frame.iloc[pos].reset_index(drop=True)
    desc = set(fitted.graph.descendants(feature))
    for col in spec.features:
        assert cf[col].dtype == frame[col].dtype, col
        if col == feature:
            assert (
                (cf[col].astype(str) == str(value)).all()
                if spec.features[col] != "continuous"
                else (cf[col] == value).all()
            )
        elif col not in desc:
            assert cf[col].equals(factual[col]), f"non-descendant {col} changed"
    assert sorted(set(sample)) == list(range(fitted.draws(feature)))
    drawing = set(fitted.gumbel_nodes) | set(fitted.threshold_nodes) | set(fitted.sampled_nodes)
    assert fitted.draws(feature) == (fitted.config.cf_samples if drawing & desc else 1)


def test_decoded_discrete_values_lie_in_their_sets(fitted, mixed):
    frame, spec = mixed
    cf, _, _ = fitted.counterfactual(frame, "s", "F")
    for col, kind in spec.features.items():
        if kind in ("binary", "ordinal", "categorical"):
            assert not cf[col].isna().any()
            assert set(cf[col].astype(str)) <= set(frame[col].cat.categories)
        elif kind == "integer":
            assert cf[col].dtype == np.int64
            assert cf[col].between(frame[col].min(), frame[col].max()).all()


def test_intervening_at_the_factual_value_returns_the_row(fitted, mixed):
    frame, _ = mixed
    males = frame[frame["s"] == "M"]
    cf, _, _ = fitted.counterfactual(males, "s", "M")
    for col in ["c", "e", "a", "r", "s"]:
        assert (
            cf[col].astype(str).to_numpy() == np.tile(males[col].astype(str).to_numpy(), len(cf) // len(males))
        ).all(), col
    np.testing.assert_allclose(cf["x"].to_numpy(), np.tile(males["x"].to_numpy(), len(cf) // len(males)), atol=1e-4)


def test_gumbel_noise_reproduces_the_observed_category(mixed):
    frame, spec = mixed
    m = CausalFlow(spec, config={**FAST, "categorical": "gumbel"}).fit(frame, seed=0)
    R = m._r_state(frame)
    g = m._gumbel_noise("c", R, torch.Generator().manual_seed(0))
    with torch.no_grad():
        logits = m.classifiers["c"](m._classifier_input("c", R)).double()
    observed = R[:, m.nodes.index("c")].astype(int)
    np.testing.assert_array_equal(torch.argmax(logits + g, dim=1).numpy(), observed)
    # the noise is not degenerate: another category wins for some rows under other logits
    assert (torch.argmax(logits.roll(1, dims=1) + g, dim=1).numpy() != observed).any()


def test_threshold_noise_reproduces_the_observed_value(mixed):
    frame, spec = mixed
    m = CausalFlow(spec, config=FAST).fit(frame, seed=0)
    assert m.threshold_nodes == ["e"] and m.gumbel_nodes == ["c"]
    R = m._r_state(frame)
    head, x = m.thresholds["e"], m._classifier_input("e", R)
    observed = torch.as_tensor(R[:, m.nodes.index("e")], dtype=torch.int64)
    with torch.no_grad():
        noise = head.posterior(x, observed, torch.Generator().manual_seed(0))
        np.testing.assert_array_equal(head.decode(x, noise).numpy(), observed.numpy())
        cuts = head.cuts()
        assert torch.all(cuts[1:] > cuts[:-1])
        # the noise is not degenerate: shifting the location moves some rows to another value
        assert (head.decode(x, noise + 1.0).numpy() != observed.numpy()).any()


def test_paper_alias_and_treatment_names():
    assert FlowConfig(categorical="paper").categorical == "flow"
    assert FlowConfig.from_dict({**PAPER_TREATMENT}).to_dict() == {**FlowConfig().to_dict(), **PAPER_TREATMENT}
    # the defaults draw nominal and binary/ordinal nodes; integers stay at the paper's midpoints
    assert (FlowConfig().categorical, FlowConfig().ordered, FlowConfig().integer) == ("gumbel", "threshold", "midpoint")


def test_with_config_switches_only_prediction_settings(mixed):
    frame, spec = mixed
    m = CausalFlow(spec, config={**FAST, **PAPER_TREATMENT}).fit(frame, seed=0)
    assert not m.stochastic
    s = m.with_config(ordered="sample", integer="sample", cf_samples=2)
    assert s.sampled_nodes == ["e"] and s.stochastic and s.flow is m.flow and not m.sampled_nodes
    cf, _, sample = s.counterfactual(frame, "s", "M")
    assert sorted(set(sample)) == [0, 1]
    with pytest.raises(CounterfactualError, match="needs another fitted flow"):
        m.with_config(ordered="threshold")


def test_fit_is_deterministic(mixed):
    frame, spec = mixed
    a = CausalFlow(spec, config=FAST).fit(frame, seed=3).abduct(frame)
    b = CausalFlow(spec, config=FAST).fit(frame, seed=3).abduct(frame)
    np.testing.assert_array_equal(a, b)


def test_bad_interventions_are_refused(fitted, mixed):
    frame, _ = mixed
    with pytest.raises(CounterfactualError, match="not a value of 'c'"):
        fitted.counterfactual(frame, "c", "purple")
    with pytest.raises(CounterfactualError, match="not a feature"):
        fitted.counterfactual(frame, "nope", 1)
    with pytest.raises(CounterfactualError, match="transforms=2 needs the paper's treatments"):
        FlowConfig(transforms=2)
    with pytest.raises(CounterfactualError, match="ordered must be one of"):
        FlowConfig(ordered="bins")
    with pytest.raises(CounterfactualError, match=r"changing \['categorical'\] needs another fitted flow"):
        fitted.with_config(categorical="flow")


# ------------------------------------------------------------------ known answers
def test_flip_then_flip_back_returns_x(synthetic):
    (frame, spec), _ = synthetic
    m = CausalFlow(spec, config={**FAST, "epochs": 10}).fit(frame, seed=0)
    a = frame[frame["s"] == "a"]
    there, _, _ = m.counterfactual(a, "s", "b")
    back, _, _ = m.counterfactual(there, "s", "a")
    for col in ["x1", "x2", "x3"]:
        np.testing.assert_allclose(back[col].to_numpy(), a[col].to_numpy(), atol=1e-3)
    assert (back["s"].astype(str) == "a").all()


@pytest.mark.parametrize("root_context", [True, False])
def test_counterfactual_rmse_beats_unchanged_baseline(synthetic, root_context):
    (frame, spec), info = synthetic
    m = CausalFlow(spec, config={"epochs": 100, "patience": 10, "root_context": root_context}).fit(frame, seed=0)
    for feature, value in [("s", "b"), ("x1", 1.0)]:
        rows = np.flatnonzero(frame["s"].astype(str) != "b") if feature == "s" else np.arange(len(frame))
        cf, _, _ = m.counterfactual(frame.iloc[rows], feature, value)
        true = info["truth"](feature, value)(rows)
        for col in ["x2", "x3"]:
            rmse = np.sqrt(np.mean((cf[col].to_numpy() - true[col].to_numpy()) ** 2))
            base = np.sqrt(np.mean((frame[col].to_numpy()[rows] - true[col].to_numpy()) ** 2))
            assert rmse <= base / 3, f"do({feature}={value}) -> {col}: rmse {rmse:.3f} vs unchanged {base:.3f}"


def test_a_graph_given_to_the_flow_is_checked_against_the_spec():
    """A graph passed directly (not loaded through the spec) must still name S and leave out the target."""
    from cffair.datasets import load
    from cffair.datasets._graph import CausalGraph
    from cffair.errors import GraphError

    frame, spec = load("lawschool")
    no_s = CausalGraph.from_edges([("race", "LSAT"), ("race", "UGPA")], name="law-without-sex")
    with pytest.raises(GraphError, match="sensitive attribute"):
        CausalFlow(spec, no_s)
    with_target = CausalGraph.from_edges(
        [("race", "LSAT"), ("sex", "UGPA"), ("LSAT", spec.target)], name="law-with-target"
    )
    with pytest.raises(GraphError, match="target"):
        CausalFlow(spec, with_target)
