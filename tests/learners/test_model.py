"""cffair.learners._model: a trained estimator as one self-contained file. Round trips are bit for bit,
the file answers without the training data, and a crafted or damaged file runs nothing."""

from __future__ import annotations

import pickle

import numpy as np
import pytest
import torch
from toy_estimator import FAST, SPEC, flip_s, toy

from cffair.errors import ArtefactError
from cffair.learners._estimator import CounterfactualFairClassifier, CounterfactualFairRegressor
from cffair.learners._model import load_model, save_model


@pytest.fixture(scope="module")
def fitted(toy_classifier):
    return toy_classifier


def test_round_trip_predicts_and_makes_twins_bit_for_bit(fitted, tmp_path) -> None:
    est, X, _ = fitted
    path = save_model(est, tmp_path / "toy.cffair", training_frame=X)
    again = load_model(path)
    assert type(again) is CounterfactualFairClassifier and list(again.classes_) == list(est.classes_)
    np.testing.assert_array_equal(again.predict_proba(X), est.predict_proba(X))
    np.testing.assert_array_equal(again.predict(X), est.predict(X))
    assert again.counterfactuals_of(X).equals(est.counterfactuals_of(X))
    assert again.get_params(deep=False)["fair_epochs"] == est.fair_epochs
    assert again.training_data_["n_rows"] == len(X)


def test_regressor_round_trip(tmp_path) -> None:
    X, _, score = toy(120)
    est = CounterfactualFairRegressor({**SPEC, "target_kind": "score"}, setting="acc", **FAST).fit(X, score)
    again = load_model(save_model(est, tmp_path / "r.cffair"))
    assert type(again) is CounterfactualFairRegressor
    np.testing.assert_array_equal(again.predict(X), est.predict(X))


def test_twins_from_a_callable_cannot_be_saved(tmp_path) -> None:
    X, y, _ = toy(80)
    est = CounterfactualFairClassifier(SPEC, counterfactuals=flip_s, **FAST).fit(X, y)
    with pytest.raises(ArtefactError, match="callable"):
        save_model(est, tmp_path / "m.cffair")


class _Marker:
    def __reduce__(self):
        import os

        return (os.system, ("touch MARKER_PATH",))


def test_a_crafted_model_file_runs_nothing(tmp_path) -> None:
    marker = tmp_path / "ran"
    evil = tmp_path / "evil.cffair"
    payload = {"cffair_format": "cffair.Model", "format_version": 1, "meta": "{}", "tensors": {"x": _Marker()}}
    data = pickle.dumps(payload).replace(b"MARKER_PATH", str(marker).encode())
    evil.write_bytes(data)
    torch_evil = tmp_path / "evil2.cffair"
    torch.save(
        {"cffair_format": "cffair.Model", "format_version": 1, "meta": "{}", "tensors": {}, "x": _Marker()}, torch_evil
    )
    for f in (evil, torch_evil):
        with pytest.raises(ArtefactError):
            load_model(f)
    assert not marker.exists()


def test_damaged_and_foreign_files_are_refused_in_one_line(fitted, tmp_path) -> None:
    est, _, _ = fitted
    path = save_model(est, tmp_path / "m.cffair")
    truncated = tmp_path / "t.cffair"
    truncated.write_bytes(path.read_bytes()[: len(path.read_bytes()) // 2])
    with pytest.raises(ArtefactError, match="damaged") as err:
        load_model(truncated)
    assert "\n" not in str(err.value)
    from cffair._support.artefacts import write_artefact
    from cffair.learners._checkpoint import LEARNER_FORMAT

    other = tmp_path / "other.pt"
    write_artefact(other, LEARNER_FORMAT, {}, {})
    with pytest.raises(ArtefactError, match="holds a cffair.LTNLearner, not a saved model"):
        load_model(other)
