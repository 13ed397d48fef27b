"""The cheap baselines a user would pick instead, on one fold: unaware, Kusner level 3, plug-in PCF."""

from __future__ import annotations

import time
from typing import Any

from cffair._support.devices import current_device
from cffair._support.utils import seed_everything
from cffair.errors import ConfigError
from cffair.experiments._config import ExperimentConfig
from cffair.experiments._pipeline.fold import FoldData
from cffair.experiments._pipeline.mlp import mlp_config

__all__ = ["run"]


def run(cfg: ExperimentConfig, fd: FoldData) -> tuple[dict[str, Any], dict[str, float], dict[str, Any]]:
    """Fit ``cfg.setting`` (``unaware``, ``level3`` or ``pcf``) and evaluate: ``(metrics, timings, extra)``."""
    from cffair.baselines._simple import PlugInCF, ResidualMLP, UnawareMLP

    seed_everything(cfg.seed)
    t0 = time.perf_counter()
    if cfg.setting == "unaware":
        model = UnawareMLP(fd.encoder, mlp_config(cfg), device=current_device()).fit(fd.X_train, fd.y_train)
    elif cfg.setting == "level3":
        model = ResidualMLP(fd.encoder, config=mlp_config(cfg), device=current_device()).fit(fd.X_train, fd.y_train)
    elif cfg.setting == "pcf":
        model = PlugInCF(fd.encoder, mlp_config(cfg), device=current_device()).fit(fd.X_train, fd.y_train)
        model.set_counterfactuals(fd.pairs_test)
    else:
        raise ConfigError(f"not a simple baseline: {cfg.setting!r}")
    fit_time = time.perf_counter() - t0
    # the plug-in PCF mixes a row's prediction with its twins': on a ruler it is given that ruler's twins
    score_for = model.score_fn if cfg.setting == "pcf" else None
    return fd.evaluate(model.predict_score, score_for=score_for), {"total": round(fit_time, 2)}, {}
