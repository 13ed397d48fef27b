"""The CNF-augmented MLP baseline on one fold (section 6.4): trained on factual rows and their twins."""

from __future__ import annotations

import time
from typing import Any

from cffair.experiments.config import ExperimentConfig
from cffair.experiments.store import ResultsStore
from cffair.pipeline.fold import FoldData
from cffair.pipeline.keys import finish
from cffair.pipeline.mlp import mlp_config
from cffair.utils import seed_everything

__all__ = ["run"]


def run(cfg: ExperimentConfig, fd: FoldData, store: ResultsStore, contents: dict[str, str]) -> dict[str, Any]:
    """Fit, evaluate with the shared evaluation and store the record."""
    from cffair.baselines.augmented import AugmentedMLP

    seed_everything(cfg.seed)
    t0 = time.perf_counter()
    model = AugmentedMLP(fd.spec.target_kind, mlp_config(cfg)).fit_pairs(fd.X_train, fd.y_train, fd.train, fd.pairs_train)
    fit_time = time.perf_counter() - t0
    return finish(cfg, store, fd.data_hash, contents, fd.evaluate(model.predict_score), {"total": round(fit_time, 2)},
                  n_train=int(len(fd.train)), n_test=int(len(fd.test)))
