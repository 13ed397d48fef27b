"""Post-hoc queries (section 4.4): equation (2) finds a planted neighbour; equation (3) is A4_i."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import torch

from cffair.datasets import DatasetSpec
from cffair.datasets._encoding import Encoder
from cffair.errors import DataError
from cffair.evaluation import _queries as queries
from cffair.evaluation._queries import similar_different, subgroup_cf
from cffair.logic._axioms import Semantics, cf_axiom


class Threshold(torch.nn.Module):
    """D(x) = sigmoid(20 x₀): positive iff the first column is > 0."""

    def forward(self, x):
        return torch.sigmoid(20 * x[:, 0])


def test_query_2_returns_the_planted_neighbour_and_its_satisfaction():
    r = np.random.default_rng(0)
    x_hat = np.array([-0.2, 0.0, 0.0], dtype=np.float32)
    far = r.normal(size=(50, 3)).astype(np.float32) + np.array([0, 5, 5], dtype=np.float32)  # outside β
    same = np.tile(x_hat, (5, 1)) + np.array(
        [[-0.3, 0.1 * i, 0] for i in range(5)], dtype=np.float32
    )  # close, same outcome
    planted = np.array([[0.3, 0.1, 0.0]], dtype=np.float32)  # close, different outcome
    second = np.array([[0.6, 0.5, 0.0]], dtype=np.float32)
    X = np.concatenate([far, same, planted, second, x_hat[None]])
    model = Threshold()
    res = similar_different(model, X, x_hat, beta=1.5, semantics=Semantics(p_exists=1))
    assert list(res.rows["index"]) == [55, 56]
    assert res.rows["distance"].iloc[0] == pytest.approx(np.linalg.norm(planted[0] - x_hat))
    # hand computation: mean over x ≠ x̂ of ¬(D(x) ↔ D(x̂)) ∧ close(x), stable operators
    s = Semantics(p_exists=1)
    xt = torch.from_numpy(X[:-1])
    d, dh = model(xt), model(torch.from_numpy(x_hat[None]))
    close = (torch.linalg.vector_norm(xt - torch.from_numpy(x_hat), dim=1) < 1.5).float()
    expected = s.exists(s.and_(s.not_(s.equiv(d, dh)), close))
    assert res.sat == pytest.approx(float(expected), abs=1e-6)
    # a wider p makes the existential closer to a max
    assert similar_different(model, X, x_hat, beta=1.5, semantics=Semantics(p_exists=6)).sat > res.sat


def test_query_2_decodes_rows_with_the_encoder():
    spec = DatasetSpec(
        name="t",
        target="y",
        target_kind="binary",
        sensitive="sex",
        features={"age": "integer", "sex": "binary", "job": "categorical"},
    )
    frame = pd.DataFrame(
        {
            "age": [20, 21, 60, 61, 40],
            "sex": pd.Categorical(["F", "M", "F", "M", "F"]),
            "job": pd.Categorical(["a", "b", "c", "a", "b"]),
            "y": [0, 1, 0, 1, 0],
        }
    )
    enc = Encoder(spec).fit(frame)
    X = enc.transform(frame)
    col = enc.columns_of("age")[0]

    class AgeModel(torch.nn.Module):
        def forward(self, x):
            return torch.sigmoid(50 * (x[:, col] - float(X[1, col] - 0.01)))  # positive from age 21

    res = similar_different(AgeModel(), X, X[0], beta=3.0, encoder=enc)
    assert res.rows["age"].iloc[0] == 21 and res.query_row["age"].iloc[0] == 20
    assert str(res.rows["job"].iloc[0]) == "b"
    # no neighbour within a tiny β: no witness, satisfaction ~0, an empty table with the real columns
    none = similar_different(AgeModel(), X, X[0], beta=1e-3, encoder=enc)
    assert len(none.rows) == 0 and {"age", "sex", "job", "distance"} <= set(none.rows.columns)
    assert none.sat < 1e-3


def test_query_3_equals_subgroup_axiom_and_counts_fair_pairs():
    r = np.random.default_rng(1)
    x = r.normal(size=(100, 3)).astype(np.float32)
    x_cf = x.copy()
    flip = r.random(100) < 0.25
    x_cf[flip, 0] = -x_cf[flip, 0]
    young = x[:, 1] < 0
    hard = lambda z: (z[:, 0] > 0).float()  # noqa: E731

    class Hard(torch.nn.Module):
        def forward(self, z):
            return hard(z)

    sat = subgroup_cf(Hard(), x, x_cf, young, semantics=Semantics(stable=False), name="young")
    assert sat == pytest.approx(1 - flip[young].mean(), abs=1e-6)
    model = Threshold()
    direct = cf_axiom(x[young], x_cf[young], "binary").satisfaction(model)
    assert subgroup_cf(model, x, x_cf, young) == pytest.approx(float(direct), abs=1e-6)
    with pytest.raises(DataError, match="no counterfactual pairs"):
        subgroup_cf(model, x, x_cf, np.zeros(100, bool))


def test_query_input_errors():
    with pytest.raises(DataError, match="other than"):
        similar_different(Threshold(), np.zeros((2, 3)), np.zeros(3), beta=1.0)
    with pytest.raises(DataError, match="like x_hat"):
        similar_different(Threshold(), np.zeros((2, 4)), np.zeros(3), beta=1.0)


def test_nearest_different_and_witness_share_by_hand():
    X = np.array([[0.0, 0.0], [1.0, 0.0], [5.0, 0.0], [9.0, 0.0]])
    d = np.array([0.9, 0.1, 0.2, 0.8])  # decisions 1, 0, 0, 1
    dist = queries.nearest_different(X, d >= 0.5)
    np.testing.assert_allclose(dist, [1.0, 1.0, 4.0, 4.0])
    # negatives are rows 1 (nearest positive at 1.0) and 2 (at 4.0): one of two within β = 2
    assert queries.witness_share(X, d, beta=2.0) == (0.5, 2)
    assert queries.witness_share(X, d, beta=5.0) == (1.0, 2)
    share, n = queries.witness_share(X, np.ones(4), beta=5.0)
    assert np.isnan(share) and n == 0
    assert np.isinf(queries.nearest_different(X, np.zeros(4, dtype=bool))).all()  # nobody decided otherwise


def test_query_person_rules():
    X = np.array([[0.0], [1.0], [5.0], [9.0], [20.0]])
    d = np.array([0.9, 0.1, 0.2, 0.8, 0.3])
    # nearest: the negative whose nearest positive is closest (row 1, at distance 1)
    assert queries.query_person(X, d, "nearest") == 1
    # random: always a negatively predicted row, reproducible by seed, and not always the nearest one
    picks = {queries.query_person(X, d, "random", seed=s) for s in range(30)}
    assert picks == {1, 2, 4}
    assert queries.query_person(X, d, "random", seed=3) == queries.query_person(X, d, "random", seed=3)
    with pytest.raises(DataError, match="no person of the subgroup is negatively predicted"):
        queries.query_person(X, np.ones(5), "random")
    with pytest.raises(ValueError, match="rule must be one of random, nearest"):
        queries.query_person(X, d, "closest")
