"""The CNF-augmented MLP baseline on one fold (section 6.4): trained on factual rows and their twins
(the paper's, or with option ``twins`` a ruler's)."""

from __future__ import annotations

import time
from typing import Any

from cffair._support.devices import current_device
from cffair._support.utils import seed_everything
from cffair.experiments._config import ExperimentConfig
from cffair.experiments._pipeline.fold import FoldData
from cffair.experiments._pipeline.mlp import mlp_config

__all__ = ["run"]


def run(cfg: ExperimentConfig, fd: FoldData) -> tuple[dict[str, Any], dict[str, float], dict[str, Any]]:
    """Fit and evaluate with the shared evaluation: ``(metrics, timings, extra fields of the record)``."""
    from cffair.baselines._augmented import AugmentedMLP

    twins = cfg.option_map.get("twins")
    if twins is not None:  # appendix C's sound-twins study: trained and scored on that ruler's twins
        fd = fd.with_twins(twins)
    seed_everything(cfg.seed)
    t0 = time.perf_counter()
    model = AugmentedMLP(fd.spec.target_kind, mlp_config(cfg), device=current_device()).fit_pairs(
        fd.X_train, fd.y_train, fd.train, fd.pairs_train
    )
    fit_time = time.perf_counter() - t0
    return fd.evaluate(model.predict_score), {"total": round(fit_time, 2)}, {}
