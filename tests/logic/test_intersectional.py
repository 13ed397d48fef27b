"""Intersections of several sensitive attributes (cffair.logic._intersectional): single and joint twins
against a model with exact counterfactuals, bins and their medians, the per-intersection table."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from exact_scm import ExactSCM, skill_mean

from cffair.errors import DataError
from cffair.logic._intersectional import (
    Attribute,
    cf_mse_by_intersection,
    intersection_labels,
    intervene,
    joint_cf_axiom,
    levels,
    make_twins,
)

ATTRS = (Attribute("s"), Attribute("m"))


@pytest.fixture(scope="module")
def scm() -> tuple[ExactSCM, pd.DataFrame]:
    model = ExactSCM()
    return model, model.sample(600, seed=1)


def _u(frame: pd.DataFrame) -> np.ndarray:
    return frame["skill"].to_numpy() - skill_mean(frame["s"], frame["m"], frame["train"])


def test_joint_twins_change_every_attribute_and_are_exact(scm) -> None:
    model, frame = scm
    tw = make_twins(model, frame, ATTRS, "joint", frame)
    assert len(tw) == 2 * len(frame)  # s has 1 other level, m has 2: 1 × 2 joint twins per row
    fact = frame.iloc[tw.row_id].reset_index(drop=True)
    assert (tw.rows["s"].astype(str) != fact["s"].astype(str)).all()
    assert (tw.rows["m"].astype(str) != fact["m"].astype(str)).all()
    assert (tw.rows["train"].astype(str) == fact["train"].astype(str)).all()  # a non-descendant is kept
    # the descendant is recomputed with each row's own noise: the exact counterfactual
    want = skill_mean(tw.rows["s"], tw.rows["m"], tw.rows["train"]) + _u(fact)
    np.testing.assert_allclose(tw.rows["skill"].to_numpy(), want, atol=1e-12)
    assert set(tw.target) == {f"{s}, {m}" for s in "ab" for m in "pqr"}
    np.testing.assert_array_equal(tw.target, (tw.rows["s"].astype(str) + ", " + tw.rows["m"].astype(str)).to_numpy())


def test_single_twins_move_one_attribute(scm) -> None:
    model, frame = scm
    tw = make_twins(model, frame, ATTRS, "m", frame)
    assert len(tw) == 2 * len(frame)
    fact = frame.iloc[tw.row_id].reset_index(drop=True)
    assert (tw.rows["s"].astype(str) == fact["s"].astype(str)).all()
    assert (tw.rows["m"].astype(str) != fact["m"].astype(str)).all()
    assert np.bincount(tw.row_id).tolist() == [2] * len(frame)


def test_one_twin_per_row_is_drawn_uniformly(scm) -> None:
    model, frame = scm
    tw = make_twins(model, frame, ATTRS, "joint", frame, one_per_row=True, seed=3)
    assert sorted(tw.row_id.tolist()) == list(range(len(frame)))
    # each row has two joint targets; each is drawn about half of the time
    first = np.array([LEVELS_M.index(m) for m in tw.rows["m"].astype(str)])
    own = np.array([LEVELS_M.index(m) for m in frame["m"].astype(str).to_numpy()[tw.row_id]])
    lower = np.mean(first == np.where(own == 0, 1, 0))
    assert 0.4 < lower < 0.6
    again = make_twins(model, frame, ATTRS, "joint", frame, one_per_row=True, seed=3)
    assert again.rows.equals(tw.rows)


LEVELS_M = ["p", "q", "r"]


def test_interventions_apply_in_causal_order(scm) -> None:
    model, frame = scm
    rows = frame.iloc[:20]
    # skill is a child of train: do(train), then do(skill) sets skill whatever the order given
    a, pa = intervene(model, rows, [("skill", 7.0), ("train", "yes")])
    b, pb = intervene(model, rows, [("train", "yes"), ("skill", 7.0)])
    assert a.equals(b) and (pa == pb).all() and (a["skill"] == 7.0).all()
    with pytest.raises(DataError, match="not nodes of the causal graph"):
        intervene(model, rows, [("age", 3)])
    with pytest.raises(DataError, match="sets each feature once"):
        intervene(model, rows, [("train", "yes"), ("train", "no")])


def test_bins_their_medians_and_labels(scm) -> None:
    _, frame = scm
    age = Attribute("skill", (-np.inf, 1.0, 3.0, np.inf), ("low", "mid", "high"))
    lv = levels(age, frame)
    sk = frame["skill"]
    assert lv == {
        "low": pytest.approx(float(np.median(sk[sk <= 1]))),
        "mid": pytest.approx(float(np.median(sk[(sk > 1) & (sk <= 3)]))),
        "high": pytest.approx(float(np.median(sk[sk > 3]))),
    }
    labels = intersection_labels(frame, (Attribute("s"), age))
    assert (
        labels.iloc[0] == f"{frame['s'].iloc[0]}, {'low' if sk.iloc[0] <= 1 else 'mid' if sk.iloc[0] <= 3 else 'high'}"
    )
    with pytest.raises(DataError, match="outside the bins"):
        Attribute("skill", (0.0, 1.0)).level_of(frame)
    with pytest.raises(DataError, match="2 bins but 3 labels"):
        Attribute("skill", (0.0, 1.0, 2.0), ("a", "b", "c"))


def test_cf_mse_table_and_joint_axiom() -> None:
    table = cf_mse_by_intersection([1.0, 0.0, 0.5, 0.5], [0.0, 0.0, 0.0, 1.0], ["x", "x", "y", "y"])
    assert table.loc["x", "cf_mse"] == pytest.approx(0.5) and table.loc["y", "cf_mse"] == pytest.approx(0.25)
    assert table["n_pairs"].tolist() == [2, 2]
    kinds = cf_mse_by_intersection(
        [1.0, 0.0, 0.5],
        [0.0, 0.0, 0.0],
        ["x", "x", "y"],
        kinds={"joint": [True, False, True], "single": [False, True, False]},
    )
    assert kinds.loc["x", "joint"] == 1.0 and kinds.loc["x", "single"] == 0.0 and np.isnan(kinds.loc["y", "single"])
    assert kinds.loc["y", "n_single"] == 0
    ax = joint_cf_axiom(np.zeros((3, 2)), np.ones((3, 2)), "binary", ["sex", "race"])
    assert ax.name == "A4∩" and ax.group == "cf" and ax.kind == "iff"
    assert ax.formula == "∀x∈T, ∀x′∈cf(x, {sex, race}): D(x) ↔ D(x′)"
