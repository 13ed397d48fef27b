"""Learners: the LTN learner's training loop and pre-training, the shared predictor network, the scikit-learn estimators, the estimator contract, model files and calibration.

Each name below is loaded from its module on first use, so that importing the part stays light and no
import cycle runs through this face; type checkers read the imports under ``TYPE_CHECKING``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from cffair._support.faces import lazy_face

FINGERPRINT_EXEMPT = True  # a face only re-exports: it cannot change a number

if TYPE_CHECKING:
    from cffair.learners._calibration import (
        METHODS,
        Calibration,
        calibrated_fit,
        fit_calibration,
    )
    from cffair.learners._checkpoint import (
        LEARNER_FIX,
        LEARNER_FORMAT,
        learner_extra,
        learner_state,
        load_learner,
        save_learner_state,
    )
    from cffair.learners._contract import (
        FairModel,
        NotFittedError,
        PredictMixin,
        check_fitted,
    )
    from cffair.learners._estimator import (
        CounterfactualFairClassifier,
        CounterfactualFairRegressor,
        cf_flip_rate_scorer,
        cf_mse_scorer,
        cf_scorer,
    )
    from cffair.learners._hyperparameters import (
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
    from cffair.learners._model import (
        MODEL_FORMAT,
        load_model,
        save_model,
    )
    from cffair.learners._pretraining import (
        Pretrained,
        pretrain_key,
        pretrained,
    )
    from cffair.learners._training import LTNLearner

#: public name -> the module of this part that defines it
_EXPORTS: dict[str, str] = {
    "CKE_EPOCHS": "_hyperparameters",
    "Calibration": "_calibration",
    "CounterfactualFairClassifier": "_estimator",
    "CounterfactualFairRegressor": "_estimator",
    "DEFAULTS": "_hyperparameters",
    "DEFAULT_HIDDEN": "_hyperparameters",
    "DEFAULT_LR": "_hyperparameters",
    "FAIR_EPOCHS": "_hyperparameters",
    "FairModel": "_contract",
    "HYPERPARAMETERS": "_hyperparameters",
    "Hyperparameter": "_hyperparameters",
    "LEARNER_FIX": "_checkpoint",
    "LEARNER_FORMAT": "_checkpoint",
    "LTNLearner": "_training",
    "METHODS": "_calibration",
    "MODEL_FORMAT": "_model",
    "NotFittedError": "_contract",
    "PRETRAIN_EPOCHS": "_hyperparameters",
    "PredictMixin": "_contract",
    "Pretrained": "_pretraining",
    "calibrated_fit": "_calibration",
    "cf_flip_rate_scorer": "_estimator",
    "cf_mse_scorer": "_estimator",
    "cf_scorer": "_estimator",
    "check_fitted": "_contract",
    "check_hyperparameter": "_hyperparameters",
    "check_hyperparameters": "_hyperparameters",
    "fit_calibration": "_calibration",
    "learner_extra": "_checkpoint",
    "learner_state": "_checkpoint",
    "load_learner": "_checkpoint",
    "load_model": "_model",
    "pretrain_key": "_pretraining",
    "pretrained": "_pretraining",
    "save_learner_state": "_checkpoint",
    "save_model": "_model",
}

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
    "LTNLearner",
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

__getattr__, __dir__ = lazy_face(__name__, _EXPORTS, __all__)
