"""Learners: the LTN learner's training loop and pre-training, the shared predictor network, the scikit-learn estimators, the estimator contract and model files.

Each name below is loaded from its module on first use, so importing the part stays light and no
import cycle runs through this face.
"""

from __future__ import annotations

import importlib

FINGERPRINT_EXEMPT = True  # a face only re-exports: it cannot change a number

#: public name -> the module of this part that defines it
_EXPORTS: dict[str, str] = {
    "CounterfactualFairClassifier": "estimator",
    "CounterfactualFairRegressor": "estimator",
    "FairModel": "contract",
    "MODEL_FORMAT": "model",
    "NotFittedError": "contract",
    "PredictMixin": "contract",
    "Pretrained": "pretraining",
    "cf_flip_rate_scorer": "estimator",
    "cf_mse_scorer": "estimator",
    "cf_scorer": "estimator",
    "load_model": "model",
    "pretrain_key": "pretraining",
    "pretrained": "pretraining",
    "save_model": "model",
}
_SUBMODULES = ("contract", "estimator", "model", "networks", "pretraining", "training")

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> object:
    if name in _EXPORTS:
        return getattr(importlib.import_module(f"{__name__}.{_EXPORTS[name]}"), name)
    if name in _SUBMODULES:
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*__all__, *_SUBMODULES})
