"""The grid's integration point for GAN seeds trained together (:func:`cffair.experiments._pipeline.gan.run_seeds`):
one result per seed, each equal to the single run of that seed up to float rounding (issue 43)."""

from __future__ import annotations

import numpy as np
import pytest

from cffair._support.utils import torch_cpu_setup
from cffair.experiments._config import ExperimentConfig
from cffair.experiments._pipeline import _fold
from cffair.experiments._pipeline import gan as P

torch_cpu_setup()


@pytest.fixture(scope="module")
def fold():
    fd, _ = _fold(ExperimentConfig("compas", 0, "gan", profile="quick"), cache=False)
    return fd


def test_run_seeds_gives_each_seed_its_single_runs_numbers(fold):
    """Tolerance: scores within 1e-5 (stacked and single runs share initialisation, batches and
    noise and differ by float32 rounding only); accuracy and CF-MSE follow from the scores."""
    cfgs = [ExperimentConfig("compas", 0, "gan", profile="quick", seed=s) for s in (0, 1)]
    P._CACHE.clear()
    stacked = P.run_seeds(cfgs, fold)
    members = P.fit_seeds(fold, cfgs)  # cached: the same objects
    assert [m.stacked_ for m in members] == [{"seeds": [0, 1], "member": i} for i in range(2)]
    X = fold.encoder.transform(fold.frame.iloc[fold.test])
    scores = [m.predict_score(X) for m in members]
    P._CACHE.clear()
    for cfg, (metrics, timings, extra), score in zip(cfgs, stacked, scores):
        single_metrics, _, single_extra = P.run(cfg, fold)
        assert extra["stacked_seeds"] == [0, 1] and "stacked_seeds" not in single_extra
        np.testing.assert_allclose(P.model(fold, cfg).predict_score(X), score, rtol=0, atol=1e-5)
        for name in ("accuracy", "cf_mse"):
            assert metrics[name] == pytest.approx(single_metrics[name], abs=1e-5), name
        assert timings["total"] > 0
    assert not np.allclose(scores[0], scores[1], atol=1e-4)  # the seeds differ
    P._CACHE.clear()


def test_fit_seeds_refuses_another_folds_config(fold):
    with pytest.raises(ValueError, match="not a config of this fold"):
        P.fit_seeds(fold, [ExperimentConfig("compas", 1, "gan", profile="quick")])
