"""The MLP(100, 50) training shared by the CNF, DCEVAE, unaware, level-3 and plug-in baselines."""

from __future__ import annotations

from typing import TYPE_CHECKING

from cffair.experiments._config import ExperimentConfig

if TYPE_CHECKING:
    from cffair.baselines._augmented import MLPConfig

__all__ = ["mlp_config"]


def mlp_config(cfg: ExperimentConfig) -> MLPConfig:
    """Adam with the LTN's learning rate, full batch, as many epochs as the LTN's pre-training
    (section 6.4: "the same hyper-parameters as our pipeline")."""
    from cffair.baselines._augmented import MLPConfig

    run = cfg.settings
    return MLPConfig(epochs=run.pretrain_epochs, lr=run.lr, seed=cfg.seed)
