"""Scores: what a model's decisions are measured with (paper section 6.5), and the degenerate-model screen.

* :mod:`~cffair.scores._metrics`: accuracy or MSE, CF-MSE, counterfactual flip rates, per subgroup
  through fairlearn's ``MetricFrame``, and the worst subgroup;
* :mod:`~cffair.scores._groupfair`: group-fairness rates and gaps (demographic parity, equalised odds);
* :mod:`~cffair.scores._screen`: the one screen that tells a collapsed (constant or near-constant)
  model from a fair one, used by the learners, the replication, the report and the scorers.

They need predictions, not a model: the learners score themselves with them, so the part sits below
the learners (as scikit-learn's ``metrics`` below its estimators); :mod:`cffair.evaluation` holds what
needs a trained model. Each name below is loaded from its module on first use.

>>> from cffair.scores import cf_mse
>>> round(cf_mse([0.2, 0.9], [0.4, 0.9]), 6)
0.02
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from cffair._support.faces import lazy_face

FINGERPRINT_EXEMPT = True  # a face only re-exports: it cannot change a number

if TYPE_CHECKING:
    from cffair.scores._groupfair import (
        GROUP_METRICS,
        group_fairness,
        group_rates,
    )
    from cffair.scores._metrics import (
        accuracy,
        cf_flip_rate,
        cf_flip_rate_by_subgroup,
        cf_mse,
        cf_mse_by_subgroup,
        decision_threshold,
        evaluate,
        mse,
        undesirable_explanation_ratio,
        worst_subgroup,
    )
    from cffair.scores._screen import (
        CONSTANT_SD,
        NEAR_CONSTANT_SHARE,
        Screen,
        screen_folds,
        screen_metrics,
    )

#: public name -> the module of this part that defines it
_EXPORTS: dict[str, str] = {
    "CONSTANT_SD": "_screen",
    "GROUP_METRICS": "_groupfair",
    "NEAR_CONSTANT_SHARE": "_screen",
    "Screen": "_screen",
    "accuracy": "_metrics",
    "cf_flip_rate": "_metrics",
    "cf_flip_rate_by_subgroup": "_metrics",
    "cf_mse": "_metrics",
    "cf_mse_by_subgroup": "_metrics",
    "decision_threshold": "_metrics",
    "evaluate": "_metrics",
    "group_fairness": "_groupfair",
    "group_rates": "_groupfair",
    "mse": "_metrics",
    "screen_folds": "_screen",
    "screen_metrics": "_screen",
    "undesirable_explanation_ratio": "_metrics",
    "worst_subgroup": "_metrics",
}

__all__ = [
    "CONSTANT_SD",
    "GROUP_METRICS",
    "NEAR_CONSTANT_SHARE",
    "Screen",
    "accuracy",
    "cf_flip_rate",
    "cf_flip_rate_by_subgroup",
    "cf_mse",
    "cf_mse_by_subgroup",
    "decision_threshold",
    "evaluate",
    "group_fairness",
    "group_rates",
    "mse",
    "screen_folds",
    "screen_metrics",
    "undesirable_explanation_ratio",
    "worst_subgroup",
]

__getattr__, __dir__ = lazy_face(__name__, _EXPORTS, __all__)
