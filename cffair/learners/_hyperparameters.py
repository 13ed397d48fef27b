"""The LTN learner's hyperparameters: one home for each (its default, its check, its help).

:class:`~cffair.learners.LTNLearner`, the estimators of :mod:`cffair.learners._estimator`, the command line
(``cffair train``, ``cffair cke`` and ``cffair run`` generate their flags from here, see
``cffair.cli._options.add_hyperparameter_args``) and the notebooks read each default and each
check from :data:`HYPERPARAMETERS`, so that a default changed here changes everywhere and a value
is checked by one function wherever it comes in.

>>> HYPERPARAMETERS["fair_p"].flag
'--fair-p'
>>> check_hyperparameter("fair_p", 2)
2.0
>>> DEFAULTS["fair_epochs"]
500
"""

from __future__ import annotations

__all__ = [
    "CKE_EPOCHS",
    "DEFAULTS",
    "DEFAULT_HIDDEN",
    "DEFAULT_LR",
    "FAIR_EPOCHS",
    "HYPERPARAMETERS",
    "PRETRAIN_EPOCHS",
    "Hyperparameter",
    "check_hyperparameter",
    "check_hyperparameters",
]

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from numbers import Integral
from typing import Any

from cffair._support.validation import check_exponent, check_int, check_learning_rate, check_number
from cffair.errors import ParameterError

#: Adam's learning rate: the reproduction's 1e-3; the paper's 0.1 can collapse the fairness
#: stages to a constant predictor on these data (see the Reproducing page).
DEFAULT_LR = 1e-3
#: Epochs on the accuracy axioms alone (the paper's 1500).
PRETRAIN_EPOCHS = 1500
#: Epochs after the fairness axioms are added (not given in the paper; the length of a CKE stage).
FAIR_EPOCHS = 500
#: Epochs per added axiom A5 (the paper's 500).
CKE_EPOCHS = 500
#: Hidden layer widths of the predicate ``D`` (the paper's MLP(100, 50)).
DEFAULT_HIDDEN: tuple[int, ...] = (100, 50)


def _check_hidden(value: Any, input_name: str) -> tuple[int, ...]:
    """``value`` as a non-empty tuple of widths >= 1."""
    try:
        widths = tuple(value)
    except TypeError:
        widths = ()
    if not widths or not all(isinstance(w, Integral) and not isinstance(w, bool) and int(w) >= 1 for w in widths):
        raise ParameterError(f"{input_name} must be a non-empty tuple of layer widths >= 1, got {value!r}.")
    return tuple(int(w) for w in widths)


@dataclass(frozen=True)
class Hyperparameter:
    """One hyperparameter of the LTN learner.

    Attributes:
        name: the parameter's name (the learner's and the estimators' keyword, an option's key).
        default: its value when none is given (``None``: off, or the semantics' own).
        kind: ``int``, ``float`` or ``tuple`` (how the command line reads it).
        check: ``check(value, input_name)`` → the value in canonical form, or a
            :class:`~cffair.errors.ParameterError` naming ``input_name``.
        help: what it does, for the command line's ``--help`` and the docs.
    """

    name: str
    default: Any
    kind: type
    check: Callable[[Any, str], Any]
    help: str

    @property
    def flag(self) -> str:
        """The command line's flag: ``fair_p`` → ``--fair-p``."""
        return "--" + self.name.replace("_", "-")

    def validate(self, value: Any, input_name: str | None = None) -> Any:
        """``value`` checked by :attr:`check` (named ``input_name``, default :attr:`name`)."""
        return self.check(value, input_name or self.name)


#: Every hyperparameter of the LTN learner, by name (the order of the learner's keywords).
HYPERPARAMETERS: dict[str, Hyperparameter] = {
    hp.name: hp
    for hp in (
        Hyperparameter(
            "lr",
            DEFAULT_LR,
            float,
            lambda v, n: check_learning_rate(v, n),
            "Adam learning rate, in (0, 1] (1e-3, the reproduction's; the paper's 0.1 can collapse the fairness "
            "stages to a constant predictor on these data)",
        ),
        Hyperparameter(
            "pretrain_epochs",
            PRETRAIN_EPOCHS,
            int,
            lambda v, n: check_int(v, n),
            "epochs on the accuracy axioms alone (1500, the paper's)",
        ),
        Hyperparameter(
            "fair_epochs",
            FAIR_EPOCHS,
            int,
            lambda v, n: check_int(v, n),
            "epochs after the fairness axioms are added (500; not given in the paper)",
        ),
        Hyperparameter(
            "cke_epochs", CKE_EPOCHS, int, lambda v, n: check_int(v, n), "epochs per added axiom A5 (500, the paper's)"
        ),
        Hyperparameter(
            "fair_p",
            None,
            float,
            lambda v, n: check_exponent(v, n, optional=True),  # None: the semantics' p
            "exponent p >= 1 of the ∀ of the fairness axioms A4 / A4_1..n alone (section 2.4; the paper's p = 1, "
            "the mean; p = 2 or 6 weighs the pairs whose decisions disagree most more heavily)",
        ),
        Hyperparameter(
            "clip_grad",
            None,
            float,
            lambda v, n: check_number(v, n, low=0, low_open=True, optional=True),  # None: no clipping
            "clip the gradient's norm to this value before each Adam step (none, the paper's)",
        ),
        Hyperparameter("hidden", DEFAULT_HIDDEN, tuple, _check_hidden, "hidden layer widths of the predicate D"),
    )
}

#: Each hyperparameter's default, by name.
DEFAULTS: Mapping[str, Any] = {name: hp.default for name, hp in HYPERPARAMETERS.items()}


def check_hyperparameter(name: str, value: Any, input_name: str | None = None) -> Any:
    """``value`` of hyperparameter ``name`` checked by its one check (:attr:`Hyperparameter.check`).

    Raises:
        ParameterError: (a ``ValueError``) naming the parameter, the value and what is allowed.
    """
    return HYPERPARAMETERS[name].validate(value, input_name)


def check_hyperparameters(owner: Any, names: tuple[str, ...] | None = None) -> None:
    """Check the hyperparameters ``owner`` (a learner, an estimator) holds as attributes.

    Args:
        owner: an object with one attribute per hyperparameter of ``names``.
        names: which (default: every one ``owner`` has).

    Raises:
        ParameterError: for the first value its check refuses.
    """
    for name in names if names is not None else tuple(HYPERPARAMETERS):
        if names is not None or hasattr(owner, name):
            check_hyperparameter(name, getattr(owner, name))
