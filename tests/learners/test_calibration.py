"""Calibrated probabilities: the maps' known answers, and a model file that stores its map.

An overconfident model whose log-odds are 3 times the true ones is mapped back by a sigmoid of
slope 1/3; a calibrated one by (about) the identity; isotonic regression makes the calibration
rows' mean probability their share of label 1.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import torch
import toy_estimator

from cffair._support.integrity import seal
from cffair.errors import ArtefactError, DataError, ParameterError
from cffair.learners._calibration import Calibration, calibrated_fit, fit_calibration
from cffair.learners._estimator import CounterfactualFairClassifier
from cffair.learners._model import load_model, save_model


def _labelled(n: int = 6000, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    t = rng.normal(0, 1.5, n)  # the true log-odds
    return t, (rng.uniform(size=n) < 1 / (1 + np.exp(-t))).astype(int)


def test_the_sigmoid_undoes_an_overconfident_model_and_keeps_a_calibrated_one() -> None:
    t, y = _labelled()
    honest = fit_calibration(1 / (1 + np.exp(-t)), y)
    assert honest.params["a"] == pytest.approx(1.0, abs=0.08) and honest.params["b"] == pytest.approx(0.0, abs=0.08)
    overconfident = 1 / (1 + np.exp(-3 * t))
    cal = fit_calibration(overconfident, y)
    assert cal.params["a"] == pytest.approx(1 / 3, abs=0.03)
    # the calibrated probabilities are the true ones again
    assert np.abs(cal.apply(overconfident) - 1 / (1 + np.exp(-t))).max() < 0.05
    assert cal.label() == "sigmoid on a 20 % calibration split" and cal.n_rows == len(y)


def test_isotonic_is_monotone_and_matches_the_calibration_rows_rate() -> None:
    t, y = _labelled(3000, seed=1)
    p = 1 / (1 + np.exp(-3 * t))
    cal = fit_calibration(p, y, "isotonic", share=0.25)
    q = cal.apply(p)
    assert q.mean() == pytest.approx(y.mean(), abs=1e-9)  # isotonic regression keeps the mean of the labels
    order = np.argsort(p)
    assert (np.diff(q[order]) >= 0).all() and q.min() >= 0 and q.max() <= 1
    assert cal.label() == "isotonic on a 25 % calibration split"


def test_a_separated_split_still_gives_probabilities_short_of_0_and_1() -> None:
    """Platt's smoothed targets: a split the model gets all right gives a finite slope, not a step."""
    p = np.r_[np.full(30, 1e-7), np.full(20, 1 - 1e-7)]
    y = np.r_[np.zeros(30), np.ones(20)]
    q = fit_calibration(p, y).apply([1e-7, 1 - 1e-7])
    assert 0 < q[0] < 0.1 and 0.9 < q[1] < 1


def test_maps_round_trip_and_bad_ones_are_refused() -> None:
    t, y = _labelled(800)
    for method in ("sigmoid", "isotonic"):
        cal = fit_calibration(1 / (1 + np.exp(-t)), y, method)
        again = Calibration.from_dict(json.loads(json.dumps(cal.to_dict())))
        np.testing.assert_array_equal(again.apply([0.1, 0.5, 0.9]), cal.apply([0.1, 0.5, 0.9]))
    for bad, needle in (
        ({"method": "magic", "share": 0.2, "n_rows": 5, "params": {}}, "none of"),
        ({"method": "sigmoid", "share": 1.5, "n_rows": 5, "params": {"a": 1, "b": 0}}, "share"),
        ({"method": "isotonic", "share": 0.2, "n_rows": 5, "params": {"x": [0, 1], "y": [0.9, 0.1]}}, "non-decreasing"),
        ({"method": "sigmoid"}, "not a calibration map"),
    ):
        with pytest.raises(ArtefactError, match=needle):
            Calibration.from_dict(bad)
    with pytest.raises(DataError, match="both classes"):
        fit_calibration([0.2, 0.4], [1, 1])
    with pytest.raises(ParameterError, match="method must be one of 'sigmoid', 'isotonic', got 'platt'"):
        fit_calibration([0.2, 0.4], [0, 1], "platt")


# ----------------------------------------------------------------------------- in a model file
@pytest.fixture(scope="module")
def calibrated(tmp_path_factory):
    X, labels, _ = toy_estimator.toy(240)
    est, cal, numbers = calibrated_fit(
        CounterfactualFairClassifier(toy_estimator.SPEC, **toy_estimator.FAST), X, labels, share=0.25, seed=0
    )
    path = save_model(est, tmp_path_factory.mktemp("cal") / "m.cffair", calibration=cal)
    return path, X, est, cal, numbers


def test_the_split_is_held_out_and_the_map_is_stored_in_the_model_file(calibrated) -> None:
    path, X, est, cal, numbers = calibrated
    assert cal.n_rows == 60 and 0 <= numbers["accuracy_held_out"] <= 1  # 25 % of 240 rows, stratified
    model = load_model(path)
    assert model.calibration_ == cal
    raw = model.predict_proba(X.head(20))[:, 1]
    np.testing.assert_array_equal(model.calibration_.apply(raw), cal.apply(est.predict_proba(X.head(20))[:, 1]))


def _edited(path: Path, out: Path, value: object, *, reseal: bool) -> Path:
    payload = torch.load(path, weights_only=True)
    meta = json.loads(payload["meta"])
    meta["calibration"] = value
    payload["meta"] = json.dumps(meta)
    torch.save(seal(payload) if reseal else payload, out)
    return out


def test_an_edited_map_is_refused_by_its_checksum_and_again_when_the_checksums_are_recomputed(
    calibrated, tmp_path
) -> None:
    path, *_ = calibrated
    bad = {"method": "sigmoid", "share": 0.2, "n_rows": 60, "params": {"a": -2.0, "b": 0.0}}  # reverses the order
    with pytest.raises(ArtefactError, match=r"its member 'meta/calibration' does not match the checksum"):
        load_model(_edited(path, tmp_path / "plain.cffair", bad, reseal=False))
    with pytest.raises(ArtefactError, match=r"contradicts itself: its calibration is not a calibration map") as err:
        load_model(_edited(path, tmp_path / "forged.cffair", bad, reseal=True))
    assert "\n" not in str(err.value)
    # a file written without a map (every file before this one) loads with none
    none = _edited(path, tmp_path / "none.cffair", None, reseal=True)
    assert load_model(none).calibration_ is None
