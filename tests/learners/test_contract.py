"""One estimator contract for every method (cffair.learners._contract), looped over the LTN learner and
every baseline, for a binary and a score target, as zuko loops one test over every transform.

Each method is fitted on the same small synthetic table (tests/baselines_synth.py) with a few
epochs; the checks are what scikit-learn's conventions promise: ``__init__`` stores only its
parameters, :func:`sklearn.base.clone` gives an unfitted twin with equal parameters,
``get_params``/``set_params`` round-trip, an unfitted model raises ``NotFittedError``, outputs
mean the same everywhere, and a seed fixes the result.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest
import sklearn.exceptions
from baselines_synth import synth
from sklearn.base import clone

from cffair._support.utils import torch_cpu_setup
from cffair.baselines import (
    AugmentedMLP,
    DCEVAEBaseline,
    DCEVAEConfig,
    GANBaseline,
    GANConfig,
    MLPConfig,
    PlugInCF,
    ResidualMLP,
    UnawareMLP,
)
from cffair.errors import CffairError, ParameterError, TargetKindError
from cffair.learners._contract import FairModel, NotFittedError
from cffair.learners._training import LTNLearner

torch_cpu_setup()

MLP = MLPConfig(epochs=8, lr=0.01)
GAN = GANConfig(
    batch_size=64, inference_epochs=1, inner_steps=2, first_epoch_inner_steps=2, predictor_epochs=2, n_cf_samples=2
)
DCEVAE = DCEVAEConfig(batch_size=64, epochs=2, mlp=MLP)


@dataclass
class Data:
    frame: Any
    enc: Any
    X: np.ndarray
    y: np.ndarray
    X_cf: np.ndarray
    kind: str


def _data(kind: str) -> Data:
    frame, spec, enc = synth(160, seed=3, target_kind=kind)
    X = enc.transform(frame)
    s = enc.slices[spec.sensitive].start
    X_cf = X.copy()
    X_cf[:, s] = 1.0 - X_cf[:, s]  # the sensitive flip, enough to exercise the pair paths
    return Data(frame, enc, X, frame["y"].to_numpy(dtype=np.float64), X_cf, kind)


@dataclass(frozen=True)
class Case:
    """How to build and fit one method (its data arguments differ; the contract does not)."""

    name: str
    make: Callable[[Data], Any]
    fit: Callable[[Any, Data], Any]


def _fit_pcf(m: PlugInCF, d: Data) -> PlugInCF:
    m.fit(d.X, d.y)
    return m.set_counterfactuals(SimpleNamespace(x=d.X, x_cf=d.X_cf))


CASES = [
    Case(
        "ltn",
        lambda d: LTNLearner(d.kind, "acc_cf", pretrain_epochs=6, fair_epochs=3, progress=False, seed=1),
        lambda m, d: m.fit(d.X, d.y, pairs=(d.X, d.X_cf)),
    ),
    Case("cnf", lambda d: AugmentedMLP(d.kind, MLP), lambda m, d: m.fit(d.X, d.y, d.X_cf, d.y)),
    Case("unaware", lambda d: UnawareMLP(d.enc, MLP), lambda m, d: m.fit(d.X, d.y)),
    Case("level3", lambda d: ResidualMLP(d.enc, config=MLP), lambda m, d: m.fit(d.X, d.y)),
    Case("pcf", lambda d: PlugInCF(d.enc, MLP), _fit_pcf),
    Case("gan", lambda d: GANBaseline(GAN), lambda m, d: m.fit(d.frame, d.enc)),
    Case("dcevae", lambda d: DCEVAEBaseline(DCEVAE), lambda m, d: m.fit(d.frame, d.enc)),
]
KINDS = ("binary", "score")


@pytest.fixture(scope="module")
def data() -> dict[str, Data]:
    return {k: _data(k) for k in KINDS}


@pytest.fixture(scope="module")
def fitted(data: dict[str, Data]) -> dict[tuple[str, str], Any]:
    """Every method fitted once per target kind (shared by the checks below)."""
    return {(c.name, k): c.fit(c.make(data[k]), data[k]) for c in CASES for k in KINDS}


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_init_stores_only_parameters_and_clone_round_trips(case: Case, data: dict[str, Data]) -> None:
    fresh = case.make(data["binary"])
    assert isinstance(fresh, FairModel)
    params = fresh.get_params(deep=False)
    assert "device" in params and params["device"] == "cpu"
    assert set(vars(fresh)) == set(params)  # nothing computed in __init__
    twin = clone(fresh)  # clone itself checks that every parameter is stored unchanged
    assert twin is not fresh and set(twin.get_params(deep=True)) == set(fresh.get_params(deep=True))
    for key, value in params.items():
        other = twin.get_params(deep=False)[key]
        assert type(other) is type(value)
        if value is None or isinstance(value, (str, int, float, tuple)) or hasattr(value, "__dataclass_fields__"):
            assert other == value, key
    assert twin.set_params(device="auto") is twin and twin.get_params()["device"] == "auto"
    assert fresh.get_params()["device"] == "cpu"  # the clone is independent
    with pytest.raises(ValueError, match="Invalid parameter"):
        fresh.set_params(no_such_parameter=1)


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_unfitted_model_raises_not_fitted(case: Case, data: dict[str, Data]) -> None:
    d = data["binary"]
    for method in ("predict_score", "predict"):
        with pytest.raises(NotFittedError, match="not fitted") as info:
            getattr(case.make(d), method)(d.X)
        assert isinstance(info.value, sklearn.exceptions.NotFittedError) and isinstance(info.value, CffairError)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_outputs_mean_the_same_everywhere(case: Case, kind: str, data: dict[str, Data], fitted: dict) -> None:
    d, model = data[kind], fitted[(case.name, kind)]
    score = model.predict_score(d.X)
    assert score.dtype == np.float64 and score.shape == (len(d.X),) and np.isfinite(score).all()
    pred = model.predict(d.X)
    if kind == "binary":
        assert ((score >= 0) & (score <= 1)).all()
        assert pred.dtype == np.int64 and set(np.unique(pred)) <= {0, 1}
        np.testing.assert_array_equal(pred, (score >= 0.5).astype(np.int64))
        proba = model.predict_proba(d.X)
        assert proba.shape == (len(d.X), 2)
        np.testing.assert_allclose(proba.sum(axis=1), 1.0)
        np.testing.assert_array_equal(proba[:, 1], score)
    else:
        np.testing.assert_array_equal(pred, score)
        assert np.std(score) > 0  # a value per row, not one constant
        with pytest.raises(TargetKindError, match="predict_proba is for a binary target"):
            model.predict_proba(d.X)


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_a_seed_fixes_the_result_and_a_clone_refits_the_same(case: Case, data: dict[str, Data], fitted: dict) -> None:
    d = data["binary"]
    first = fitted[(case.name, "binary")]
    twin = clone(first)
    with pytest.raises(NotFittedError):
        twin.predict_score(d.X)  # a clone of a fitted model is unfitted
    again = case.fit(twin, d)
    np.testing.assert_array_equal(again.predict_score(d.X), first.predict_score(d.X))


def test_the_learner_checks_its_parameters_in_fit_not_in_the_constructor(data: dict[str, Data]) -> None:
    d = data["binary"]
    for bad, match in [
        ({"lr": -1.0}, r"lr must be a number in \(0, 1\]"),
        ({"setting": "acc_cf_x"}, "setting must be one of"),
        ({"pretrain_epochs": 1.5}, "pretrain_epochs must be a non-negative integer"),
        ({"device": "gpu"}, "device must be 'cpu', 'cuda'"),
        ({"semantics": "goguen"}, r"semantics must be None or a cffair\.logic\.Semantics, got str"),
    ]:
        learner = LTNLearner(progress=False, **bad)  # stores anything, as scikit-learn's estimators do
        assert learner.get_params()[next(iter(bad))] == next(iter(bad.values()))
        with pytest.raises(ValueError, match=match):
            learner.fit(d.X, d.y)
    with pytest.raises(ParameterError, match="weights"):
        PlugInCF(d.enc, MLP, weights="posterior").fit(d.X, d.y)  # type: ignore[arg-type]
