"""Counterfactual knowledge extraction (sections 4.3, 7.3) on data with a planted imbalance."""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd
import pytest

from cffair._support.utils import torch_cpu_setup
from cffair.datasets import DatasetSpec
from cffair.evaluation import _cke as cke
from cffair.learners._training import LTNLearner
from cffair.scores._metrics import evaluate

torch_cpu_setup()


@dataclass
class Pairs:  # stand-in for cffair.causal._cfset.CFPairs
    row_id: np.ndarray
    x: np.ndarray
    x_cf: np.ndarray
    feature: np.ndarray
    value: np.ndarray


def spec(target_kind="binary", favourable=1, name="toy"):
    return DatasetSpec(
        name=name,
        target="y",
        target_kind=target_kind,
        sensitive="s",
        features={"s": "binary", "m": "binary", "a": "continuous"},
        immutable=("s", "m"),
        favourable=favourable if target_kind == "binary" else None,
    )


def planted(n=400, seed=0):
    """Columns [s, m, a]. Intervening m := 1 helps only rows with s = 1."""
    r = np.random.default_rng(seed)
    s = r.integers(0, 2, n)
    m = np.zeros(n, dtype=int)
    a = r.normal(size=n)
    X = np.column_stack([s, m, a]).astype(np.float32)
    rows = np.arange(n)
    x_cf = X.copy()
    x_cf[:, 1] = 1
    pairs = Pairs(rows, X, x_cf, np.full(n, "m"), np.full(n, "1"))
    groups = pd.Series(np.where(s == 1, "one", "zero"), index=rows)
    return X, pairs, groups


def biased_model(X):
    X = np.asarray(X)
    return np.where((X[:, 1] == 1) & (X[:, 0] == 1), 0.9, np.where(X[:, 2] > 1.0, 0.8, 0.2))


def test_planted_imbalance_is_found_with_its_group_and_ordered():
    X, pairs, groups = planted()
    rep = cke.extract(biased_model, {"m": pairs}, groups, spec(), threshold=0.1)
    assert rep.frequencies.loc["one", "m"] == pytest.approx(1.0)
    assert rep.frequencies.loc["zero", "m"] == pytest.approx(0.0)
    assert [(c.group, c.feature) for c in rep.candidates] == [("one", "m")]
    assert rep.candidates[0].imbalance == pytest.approx(1.0)
    assert rep.undesirable_ratio.to_dict() == {"one": 1.0, "zero": 0.0}
    # only negatively predicted rows are explained
    assert (rep.explanations["d_x"] < 0.5).all()
    (ax,) = rep.axioms("binary", "s")
    neg_one = (X[:, 0] == 1) & (X[:, 2] <= 1.0)
    assert ax.name == "A5[one, m]" and ax.group == "cke" and ax.size == neg_one.sum()
    assert ax.formula == "∀x∈T̂⁻_{s=one}, x′∈cf(x, m): D(x) ↔ D(x′)"


def test_no_candidate_below_threshold_and_favourable_label_zero():
    X, pairs, groups = planted()
    assert cke.extract(lambda Z: np.full(len(Z), 0.2), {"m": pairs}, groups, spec()).candidates == []
    # COMPAS-style: favourable label 0; the model lowers D (towards 0) for group one under m := 1
    inverted = lambda Z: 1 - biased_model(Z)  # noqa: E731
    rep = cke.extract(inverted, {"m": pairs}, groups, spec(favourable=0), threshold=0.1)
    assert [(c.group, c.feature) for c in rep.candidates] == [("one", "m")]
    assert cke.default_threshold("compas") == 0.1 and cke.default_threshold("adult") == 0.01
    assert cke.cke_features(spec()) == ["m"]


def test_score_target_uses_best_40_percent():
    X, pairs, groups = planted(500)
    score = lambda Z: np.asarray(Z)[:, 2] + 5 * np.asarray(Z)[:, 1] * np.asarray(Z)[:, 0]  # noqa: E731
    rep = cke.extract(score, {"m": pairs}, groups, spec("score"), threshold=0.01)
    thr = rep.explanations.attrs["score_threshold"]
    assert thr == pytest.approx(np.quantile(X[:, 2], 0.6))
    assert rep.explanations["d_x"].lt(thr).all()
    assert rep.candidates[0].group == "one"


def test_cke_loop_adds_axiom_and_reduces_the_imbalance():
    # label depends on m for group one only; counterfactuals flip m
    r = np.random.default_rng(1)
    n = 800
    s = r.integers(0, 2, n)
    m = r.integers(0, 2, n)
    a = r.normal(size=n)
    y = ((a + 2.5 * m * s + 0.2 * r.normal(size=n)) > 1.0).astype(int)
    X = np.column_stack([s, m, a]).astype(np.float32)
    Xc = X.copy()
    Xc[:, 1] = 1 - X[:, 1]
    rows = np.arange(n)
    pairs = Pairs(rows, X, Xc, np.full(n, "m"), np.where(m == 1, "0", "1"))
    groups = pd.Series(np.where(s == 1, "one", "zero"), index=rows)
    learner = LTNLearner("binary", "acc", lr=0.01, pretrain_epochs=200, cke_epochs=200, progress=False).fit(X, y)
    before = cke.extract(learner.predict_d, {"m": pairs}, groups, spec()).frequencies.loc["one", "m"]
    ev = lambda L: evaluate(L.predict_d, X, y, pairs, groups.to_numpy(), target_kind="binary")  # noqa: E731
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        table, rep = cke.cke_loop(learner, X, {"m": pairs}, groups, spec(), evaluate_fn=ev, threshold=0.1)
    assert rep.candidates[0].group == "one" and rep.candidates[0].feature == "m"
    assert list(table["axiom"]) == ["-", "A5[one, m]"]
    assert {"accuracy", "cf_mse", "cf_mse_worst_subgroup"} <= set(table.columns)
    after = cke.extract(learner.predict_d, {"m": pairs}, groups, spec()).frequencies.loc["one", "m"]
    assert after < 0.5 * before
    assert "A5[one, m]" in learner.history_.columns


def test_top_candidates_ignore_the_threshold_and_cke_loop_adds_them():
    """A planted imbalance of 1.0 under a threshold of 1.5 gives no candidate, but top=1 turns
    it into an A5 axiom anyway (the investigation of Q3); non-positive imbalances never count."""
    X, pairs, groups = planted()
    rep = cke.extract(biased_model, {"m": pairs}, groups, spec(), threshold=1.5)
    assert rep.candidates == []
    (top,) = cke.top_candidates(rep, 3)  # the other side of the pair has imbalance −1: left out
    assert (top.group, top.feature, top.imbalance) == ("one", "m", pytest.approx(1.0))
    assert cke.top_candidates(rep, 1, features=["a"]) == []
    with pytest.raises(ValueError, match="k must be at least 1"):
        cke.top_candidates(rep, 0)

    class Stub:  # the biased model, recording the axioms it is asked to add
        target_kind = "binary"
        added: list[str] = []

        def predict_d(self, Z):
            return biased_model(Z)

        def add_axioms(self, axiom, X, epochs=None):
            self.added.append(axiom.name)

    ev = lambda L: {"accuracy": 1.0}  # noqa: E731
    none, _ = cke.cke_loop(Stub(), X, {"m": pairs}, groups, spec(), evaluate_fn=ev, threshold=1.5)
    assert list(none["axiom"]) == ["-"] and Stub.added == []
    forced, _ = cke.cke_loop(Stub(), X, {"m": pairs}, groups, spec(), evaluate_fn=ev, threshold=1.5, top=1)
    assert list(forced["axiom"]) == ["-", "A5[one, m]"] and Stub.added == ["A5[one, m]"]


def test_pairs_from_cfset_takes_immutable_features_or_all():
    class FakeSet:
        frame = pd.DataFrame({"feature": ["m", "a", "s"]})

        def pairs(self, frame, encoder, feature, rows=None):
            return feature

    s = spec()
    assert cke.pairs_from_cfset(FakeSet(), None, None, s) == {"m": "m"}
    assert cke.pairs_from_cfset(FakeSet(), None, None, s, features="all") == {
        "m": "m",
        "a": "a",
    }  # never the sensitive s
    with pytest.raises(ValueError, match="features must be None, 'all' or a list"):
        cke.pairs_from_cfset(FakeSet(), None, None, s, features="some")
