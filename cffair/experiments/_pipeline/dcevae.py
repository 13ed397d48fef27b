"""The DCEVAE baseline (Kim et al. 2021) on one fold, at the paper's settings."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from cffair._support.devices import current_device
from cffair._support.utils import seed_everything
from cffair.experiments._config import ExperimentConfig
from cffair.experiments._pipeline.fold import FoldData
from cffair.experiments._pipeline.mlp import mlp_config

if TYPE_CHECKING:
    from cffair.baselines._dcevae import DCEVAEConfig

__all__ = ["QUICK_DCEVAE", "dcevae_config", "run"]

#: The quick profile's DCEVAE (a few epochs: enough to exercise every path).
QUICK_DCEVAE = {"epochs": 2}


def dcevae_config(cfg: ExperimentConfig) -> DCEVAEConfig:
    """DCEVAE at the paper's settings (100 epochs, lr 1e-4, batch 1024), or a quick version."""
    from cffair.baselines._dcevae import DCEVAEConfig

    changes = dict(QUICK_DCEVAE if cfg.profile == "quick" else {})
    return DCEVAEConfig(seed=cfg.seed, mlp=mlp_config(cfg), **changes)


def run(cfg: ExperimentConfig, fd: FoldData) -> tuple[dict[str, Any], dict[str, float], dict[str, Any]]:
    """Fit and evaluate with the shared evaluation: ``(metrics, timings, extra fields of the record)``."""
    from cffair.baselines._dcevae import DCEVAEBaseline

    seed_everything(cfg.seed)
    t0 = time.perf_counter()
    model = DCEVAEBaseline(dcevae_config(cfg), device=current_device()).fit(fd.frame.iloc[fd.train], fd.encoder)
    fit_time = time.perf_counter() - t0
    return fd.evaluate(model.predict_score), {"total": round(fit_time, 2)}, {}
