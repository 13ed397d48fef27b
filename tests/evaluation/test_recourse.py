"""Recourse (cffair.evaluation._recourse): the cheapest intervention on a model with exact counterfactuals and a
known answer, the actions it refuses, the LTN query by hand, and the causal flow as the model."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from exact_scm import ExactSCM

from cffair.datasets._encoding import Encoder
from cffair.evaluation._recourse import (
    RECOURSE_ACTIONS,
    Action,
    RecourseError,
    RecourseSearch,
    RecourseTable,
    check_actions,
    default_actions,
)
from cffair.logic._axioms import Semantics

T = 2.0  # D(x) is favourable iff skill > T
GRID = (0.5, 1.0, 1.5, 2.5, 3.5, 5.0)
ACTIONS = (Action("train"), Action("skill", "increase", values=GRID))


@pytest.fixture(scope="module")
def world() -> tuple[ExactSCM, pd.DataFrame, Encoder]:
    model = ExactSCM()
    frame = model.sample(400, seed=0)
    return model, frame, Encoder(model.spec).fit(frame)


def _decide(encoder: Encoder):
    def d(X: np.ndarray) -> np.ndarray:
        return (encoder.inverse_transform(X)["skill"].to_numpy() > T).astype(float)

    return d


def _expected(people: pd.DataFrame, sd: float) -> list[float]:
    """The cheapest working intervention, worked out by hand from the structural equation."""
    out = []
    for _, r in people.iterrows():
        costs = []
        if r["train"] == "no" and r["skill"] + 3.0 > T:  # do(train := yes) adds 3 to skill, costs 1
            costs.append(1.0)
        above = [g for g in GRID if g > max(r["skill"], T)]
        if above:  # do(skill := g): the smallest grid value that works
            costs.append((min(above) - r["skill"]) / sd)
        out.append(min(costs) if costs else np.nan)
    return out


def test_the_cheapest_intervention_is_found_with_its_cost(world) -> None:
    model, frame, enc = world
    people = frame[frame["skill"] <= T].head(120).reset_index(drop=True)
    table = RecourseSearch(model, model.spec, enc, frame, ACTIONS).run(people, {"D": _decide(enc)})
    best = table.best("D")
    assert len(best) == len(people)  # everyone here is decided unfavourably
    want = _expected(people, float(np.std(frame["skill"])))
    np.testing.assert_allclose(best["cost"].to_numpy(), want, rtol=1e-9)
    assert (best["found"] == ~np.isnan(want)).all()
    # both kinds of answers occur: acting on the cause (train) and on skill itself
    acts = best.loc[best["found"], "action"]
    assert acts.str.startswith("train: no → yes").any() and acts.str.startswith("skill:").any()
    assert (best.loc[best["found"], "n_features"] == 1).all()  # a pair is never cheaper here
    # the intervention works: D after it is favourable; the sensitive and immutable features never move
    assert (best.loc[best["found"], "d_after"] == 1.0).all()
    assert not table.candidates or all(f not in ("s", "m") for c in table.candidates for f, _ in c)


def test_acting_on_a_cause_changes_its_descendants(world) -> None:
    model, frame, enc = world
    person = (
        frame[(frame["train"] == "no") & (frame["skill"] > 0.5) & (frame["skill"] < 1.0)].head(1).reset_index(drop=True)
    )
    table = RecourseSearch(model, model.spec, enc, frame, ACTIONS, max_features=1).run(person, {"D": _decide(enc)})
    k = table.candidates.index((("train", "yes"),))
    hit = np.flatnonzero(table.candidate == k)
    assert table.d["D"][hit].tolist() == [1.0]  # skill rose by 3 through the graph: favourable


def test_refused_actions_and_settings(world) -> None:
    model, frame, enc = world
    spec = model.spec
    with pytest.raises(RecourseError, match="'m' is immutable in the spec of 'exact'"):
        check_actions(spec, [Action("m")])
    with pytest.raises(RecourseError, match="'s' is the sensitive attribute of 'exact'"):
        check_actions(spec, [Action("s")])
    with pytest.raises(RecourseError, match="'age' is not a feature of 'exact'"):
        check_actions(spec, [Action("age")])
    with pytest.raises(RecourseError, match="'train' is binary: it has no order"):
        check_actions(spec, [Action("train", "increase")])
    with pytest.raises(RecourseError, match="direction of 'x' must be"):
        Action("x", "up")  # type: ignore[arg-type]
    with pytest.raises(RecourseError, match=r"\['maybe'\] are not values of 'train'"):
        RecourseSearch(model, spec, enc, frame, [Action("train", values=("maybe",))])
    with pytest.raises(RecourseError, match="max_features must be 1 or 2"):
        RecourseSearch(model, spec, enc, frame, ACTIONS, max_features=3)
    assert [a.feature for a in default_actions(spec)] == ["train", "skill"]  # neither s nor the immutable m
    for name, actions in RECOURSE_ACTIONS.items():  # the paper's datasets: every action is allowed by the spec
        from cffair import datasets

        check_actions(datasets.load(name)[1], actions)


def test_recourse_query_by_hand() -> None:
    people = pd.DataFrame({"x": [0.0, 0.0]})
    table = RecourseTable(
        people,
        {"D": np.array([0.2, 0.9])},
        [(("x", 1),), (("x", 2),)],
        np.array([0, 0]),
        np.array([0, 1]),
        np.array([0.5, 0.0]),
        {"D": np.array([0.9, 0.2])},
    )
    sem = Semantics(stable=False)
    # person 1 is decided favourably: the domain is person 0; ∃ over two actions with p = 2:
    # Fav ∧ Cheap = 0.9 · (1 − 0.5/1) = 0.45 and 0.2 · 1 = 0.2
    assert table.query("D", budget=1.0, semantics=sem, p_exists=2) == pytest.approx(np.sqrt((0.45**2 + 0.2**2) / 2))
    assert table.query("D", budget=0.25, semantics=sem, p_exists=2) == pytest.approx(np.sqrt((0.0 + 0.2**2) / 2))
    best = table.best("D")
    assert best.to_dict("records")[0] | {"action": ""} == {
        "person": 0,
        "found": True,
        "cost": 0.5,
        "n_features": 1,
        "action": "",
        "d_before": 0.2,
        "d_after": 0.9,
    }
    with pytest.raises(RecourseError, match="empty set"):
        table.query("D", people=[1])
    by = table.by_group("D", ["g", "h"])
    assert by.loc["g", "recourse_rate"] == 1.0 and by.loc["g", "n_negative"] == 1


def test_with_the_causal_flow_twins_come_from_the_flow() -> None:
    from cffair import datasets
    from cffair.causal import PAPER_TREATMENT, CausalFlow, FlowConfig

    frame, spec = datasets.load("adult")
    frame = frame.sample(600, random_state=0).reset_index(drop=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        flow = CausalFlow(spec, spec.load_graph(), FlowConfig(epochs=2, **PAPER_TREATMENT)).fit(frame, seed=0)
    enc = Encoder(spec).fit(frame)
    rng = np.random.default_rng(0)
    w = rng.normal(size=enc.n_features_out)

    def d(X: np.ndarray) -> np.ndarray:
        return 1.0 / (1.0 + np.exp(-(X @ w)))

    people = frame.head(5)
    actions = (Action("education", "increase", values=("Bachelors", "Masters")), Action("hours-per-week", values=(50,)))
    table = RecourseSearch(flow, spec, enc, frame, actions).run(people, {"D": d}, only=np.ones(5, bool))
    for cand in [(("education", "Masters"),), (("education", "Bachelors"), ("hours-per-week", 50))]:
        k = table.candidates.index(cand)
        who = table.person[table.candidate == k]
        rows = people.iloc[who].reset_index(drop=True)
        for f, v in cand:  # by hand: the flow's counterfactual, one intervention after the other
            rows = flow.counterfactual(rows, f, v, samples=1)[0]
        np.testing.assert_allclose(table.d["D"][table.candidate == k], d(enc.transform(rows)), rtol=1e-6)
        # age, sex, race and native country are not descendants of education or hours: never moved
        for col in ("age", "sex", "race", "native-country"):
            assert (rows[col].astype(str).to_numpy() == people[col].iloc[who].astype(str).to_numpy()).all()
