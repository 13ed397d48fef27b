"""Learners: the LTN learner's training loop and pre-training, the shared predictor network, the scikit-learn estimators, the estimator contract, model files and calibration.

Each name below is loaded from its module on first use, so that importing the part stays light and no
import cycle runs through this face; type checkers read the imports under ``TYPE_CHECKING``.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

FINGERPRINT_EXEMPT = True  # a face only re-exports: it cannot change a number

if TYPE_CHECKING:
    from cffair.learners.calibration import (
        METHODS,
        Calibration,
        calibrated_fit,
        fit_calibration,
    )
    from cffair.learners.contract import (
        FairModel,
        NotFittedError,
        PredictMixin,
    )
    from cffair.learners.estimator import (
        CounterfactualFairClassifier,
        CounterfactualFairRegressor,
        cf_flip_rate_scorer,
        cf_mse_scorer,
        cf_scorer,
    )
    from cffair.learners.model import (
        MODEL_FORMAT,
        load_model,
        save_model,
    )
    from cffair.learners.pretraining import (
        Pretrained,
        pretrain_key,
        pretrained,
    )

#: public name -> the module of this part that defines it
_EXPORTS: dict[str, str] = {
    "Calibration": "calibration",
    "CounterfactualFairClassifier": "estimator",
    "CounterfactualFairRegressor": "estimator",
    "FairModel": "contract",
    "METHODS": "calibration",
    "MODEL_FORMAT": "model",
    "NotFittedError": "contract",
    "PredictMixin": "contract",
    "Pretrained": "pretraining",
    "calibrated_fit": "calibration",
    "cf_flip_rate_scorer": "estimator",
    "cf_mse_scorer": "estimator",
    "cf_scorer": "estimator",
    "fit_calibration": "calibration",
    "load_model": "model",
    "pretrain_key": "pretraining",
    "pretrained": "pretraining",
    "save_model": "model",
}
_SUBMODULES = ("calibration", "contract", "estimator", "model", "networks", "pretraining", "training")

__all__ = [
    "Calibration",
    "CounterfactualFairClassifier",
    "CounterfactualFairRegressor",
    "FairModel",
    "METHODS",
    "MODEL_FORMAT",
    "NotFittedError",
    "PredictMixin",
    "Pretrained",
    "calibrated_fit",
    "cf_flip_rate_scorer",
    "cf_mse_scorer",
    "cf_scorer",
    "fit_calibration",
    "load_model",
    "pretrain_key",
    "pretrained",
    "save_model",
]


def __getattr__(name: str) -> object:
    if name in _EXPORTS:
        return getattr(importlib.import_module(f"{__name__}.{_EXPORTS[name]}"), name)
    if name in _SUBMODULES:
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*__all__, *_SUBMODULES})
