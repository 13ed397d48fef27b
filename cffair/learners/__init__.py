"""Learners: the LTN learner's training loop and pre-training, the shared predictor network, the scikit-learn estimators, the estimator contract, model files and calibration.

Each name below is loaded from its module on first use, so that importing the part stays light and no
import cycle runs through this face; type checkers read the imports under ``TYPE_CHECKING``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from cffair._support.faces import lazy_face

FINGERPRINT_EXEMPT = True  # a face only re-exports: it cannot change a number

if TYPE_CHECKING:
    from cffair.learners.calibration import (
        METHODS,
        Calibration,
        calibrated_fit,
        fit_calibration,
    )
    from cffair.learners.checkpoint import (
        LEARNER_FIX,
        LEARNER_FORMAT,
        learner_extra,
        learner_state,
        load_learner,
        save_learner_state,
    )
    from cffair.learners.contract import (
        FairModel,
        NotFittedError,
        PredictMixin,
        check_fitted,
    )
    from cffair.learners.estimator import (
        CounterfactualFairClassifier,
        CounterfactualFairRegressor,
        cf_flip_rate_scorer,
        cf_mse_scorer,
        cf_scorer,
    )
    from cffair.learners.hyperparameters import (
        CKE_EPOCHS,
        DEFAULT_HIDDEN,
        DEFAULT_LR,
        DEFAULTS,
        FAIR_EPOCHS,
        HYPERPARAMETERS,
        PRETRAIN_EPOCHS,
        Hyperparameter,
        check_hyperparameter,
        check_hyperparameters,
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
    "CKE_EPOCHS": "hyperparameters",
    "Calibration": "calibration",
    "CounterfactualFairClassifier": "estimator",
    "CounterfactualFairRegressor": "estimator",
    "DEFAULTS": "hyperparameters",
    "DEFAULT_HIDDEN": "hyperparameters",
    "DEFAULT_LR": "hyperparameters",
    "FAIR_EPOCHS": "hyperparameters",
    "FairModel": "contract",
    "HYPERPARAMETERS": "hyperparameters",
    "Hyperparameter": "hyperparameters",
    "LEARNER_FIX": "checkpoint",
    "LEARNER_FORMAT": "checkpoint",
    "METHODS": "calibration",
    "MODEL_FORMAT": "model",
    "NotFittedError": "contract",
    "PRETRAIN_EPOCHS": "hyperparameters",
    "PredictMixin": "contract",
    "Pretrained": "pretraining",
    "calibrated_fit": "calibration",
    "cf_flip_rate_scorer": "estimator",
    "cf_mse_scorer": "estimator",
    "cf_scorer": "estimator",
    "check_fitted": "contract",
    "check_hyperparameter": "hyperparameters",
    "check_hyperparameters": "hyperparameters",
    "fit_calibration": "calibration",
    "learner_extra": "checkpoint",
    "learner_state": "checkpoint",
    "load_learner": "checkpoint",
    "load_model": "model",
    "pretrain_key": "pretraining",
    "pretrained": "pretraining",
    "save_learner_state": "checkpoint",
    "save_model": "model",
}
_SUBMODULES = (
    "calibration",
    "checkpoint",
    "contract",
    "estimator",
    "hyperparameters",
    "model",
    "networks",
    "pretraining",
    "training",
)

__all__ = [
    "CKE_EPOCHS",
    "Calibration",
    "CounterfactualFairClassifier",
    "CounterfactualFairRegressor",
    "DEFAULTS",
    "DEFAULT_HIDDEN",
    "DEFAULT_LR",
    "FAIR_EPOCHS",
    "FairModel",
    "HYPERPARAMETERS",
    "Hyperparameter",
    "LEARNER_FIX",
    "LEARNER_FORMAT",
    "METHODS",
    "MODEL_FORMAT",
    "NotFittedError",
    "PRETRAIN_EPOCHS",
    "PredictMixin",
    "Pretrained",
    "calibrated_fit",
    "cf_flip_rate_scorer",
    "cf_mse_scorer",
    "cf_scorer",
    "check_fitted",
    "check_hyperparameter",
    "check_hyperparameters",
    "fit_calibration",
    "learner_extra",
    "learner_state",
    "load_learner",
    "load_model",
    "pretrain_key",
    "pretrained",
    "save_learner_state",
    "save_model",
]

__getattr__, __dir__ = lazy_face(__name__, _EXPORTS, _SUBMODULES, __all__)
