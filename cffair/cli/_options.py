"""Option types of the ``cffair`` command line, checked while the arguments are parsed.

Each function here is an argparse ``type=``: it turns the option's text into a value or raises
:class:`argparse.ArgumentTypeError` with a message that says what was expected and how to fix
it, so that a bad option is rejected before any data is loaded or any model trained. argparse
prefixes the message with the option's name (``argument --folds: ...``), and
:func:`cffair.cli.main` prints it as one line and exits with status 2.

Every command group imports its validators from here, e.g.::

    p.add_argument("--jobs", type=positive_int, default=2)
    p.add_argument("--backend", type=backend_name, default=None)

The flags of the LTN's hyperparameters (``--lr``, ``--fair-epochs``, ``--fair-p`` …) are generated
from their one home, :data:`cffair.learners.HYPERPARAMETERS`, by :func:`add_hyperparameter_args`.
"""

from __future__ import annotations

__all__ = [
    "BACKENDS",
    "DEVICE_HELP",
    "MAX_LEARNING_RATE",
    "WEIGHT_GROUPS",
    "add_hyperparameter_args",
    "backend_name",
    "decimal_mark",
    "device",
    "finite_float",
    "folds",
    "hyperparameter_type",
    "learning_rate",
    "non_negative_float",
    "non_negative_int",
    "patience",
    "positive_float",
    "positive_int",
    "probability",
    "seed",
    "separator",
    "weights",
    "where_expression",
]

import argparse
import math
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from cffair._support.validation import MAX_LEARNING_RATE
from cffair.errors import OptionError as OptionError  # its home is cffair.errors; importable here

#: joblib backends ``cffair reproduce --backend`` accepts (``dask`` needs the ``cluster`` extra).
BACKENDS: tuple[str, ...] = ("loky", "multiprocessing", "threading", "sequential", "dask")

#: Axiom groups whose weights ``--weights`` sets (appendix B of the paper).
WEIGHT_GROUPS: tuple[str, ...] = ("acc", "cf", "cf_sg", "cke")


def _int(text: str, what: str, example: str) -> int:
    try:
        return int(text)
    except (TypeError, ValueError):
        raise argparse.ArgumentTypeError(f"expected {what}, got {text!r}; e.g. {example}") from None


def _float(text: str, what: str, example: str) -> float:
    try:
        value = float(text)
    except (TypeError, ValueError):
        raise argparse.ArgumentTypeError(f"expected {what}, got {text!r}; e.g. {example}") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"expected {what}, got {text!r} (not a finite number); e.g. {example}")
    return value


def positive_int(text: str) -> int:
    """An integer ``>= 1`` (epochs, workers, counts)."""
    value = _int(text, "a whole number >= 1", "1")
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be a whole number >= 1, got {text}; e.g. 1")
    return value


def non_negative_int(text: str) -> int:
    """An integer ``>= 0`` (a fold index, a count that may be zero)."""
    value = _int(text, "a whole number >= 0", "0")
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be a whole number >= 0, got {text}; e.g. 0")
    return value


def seed(text: str) -> int:
    """A random seed: an integer ``>= 0``."""
    value = _int(text, "a whole-number seed >= 0", "--seed 0")
    if value < 0:
        raise argparse.ArgumentTypeError(f"the seed must be a whole number >= 0, got {text}; e.g. --seed 0")
    return value


def folds(text: str) -> int:
    """The number of cross-validation folds: an integer ``>= 2`` (the paper uses 5)."""
    value = _int(text, "a whole number of folds >= 2", "--folds 5")
    if value < 2:
        raise argparse.ArgumentTypeError(
            f"cross-validation needs at least 2 folds, got {text}; use --folds 5 (the paper's) or any number >= 2"
        )
    return value


def patience(text: str) -> int | None:
    """Early-stopping patience: an integer ``>= 0``, or ``none``; ``0`` and ``none`` both mean
    "no early stopping, train every epoch" (the paper) and give ``None``."""
    if text.strip().lower() == "none":
        return None
    value = _int(text, "a whole number of epochs >= 0, or none", "--patience 50, or --patience 0 for no early stopping")
    if value < 0:
        raise argparse.ArgumentTypeError(
            f"must be a whole number of epochs >= 0, got {text}; use --patience 0 (or none) to train every epoch"
        )
    return None if value == 0 else value


def finite_float(text: str) -> float:
    """Any finite number."""
    return _float(text, "a finite number", "1.5")


def positive_float(text: str) -> float:
    """A finite number ``> 0``."""
    value = _float(text, "a number > 0", "1.0")
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be a number > 0, got {text}; e.g. 1.0")
    return value


def non_negative_float(text: str) -> float:
    """A finite number ``>= 0``."""
    value = _float(text, "a number >= 0", "0.5")
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be a number >= 0, got {text}; e.g. 0.5")
    return value


def probability(text: str) -> float:
    """A number in ``[0, 1]``."""
    value = _float(text, "a number between 0 and 1", "0.1")
    if not 0 <= value <= 1:
        raise argparse.ArgumentTypeError(f"must lie between 0 and 1, got {text}; e.g. 0.1")
    return value


def learning_rate(text: str) -> float:
    """An Adam learning rate: a finite number in ``(0, 1]`` (cffair's default 1e-3; the paper's 0.1),
    checked by :func:`cffair._support.validation.check_learning_rate` (as the estimators and the learner check it)."""
    from cffair._support.validation import check_learning_rate
    from cffair.errors import ParameterError

    value = _float(text, "a learning rate > 0", "--lr 1e-3")
    try:
        return check_learning_rate(value)
    except ParameterError:
        raise argparse.ArgumentTypeError(
            f"the learning rate must lie in (0, {MAX_LEARNING_RATE:g}], got {text}"
            + (" (Adam moves each weight by about lr a step, so the model diverges)" if value > 0 else "")
            + "; use --lr 1e-3 (the default) or --lr 0.1 (the paper's)"
        ) from None


def backend_name(text: str) -> str:
    """A joblib backend of :data:`BACKENDS`."""
    if text not in BACKENDS:
        raise argparse.ArgumentTypeError(
            f"unknown backend {text!r}; choose one of {', '.join(BACKENDS)} (default loky)"
        )
    return text


DEVICE_HELP = (
    "where models train: cpu (default), cuda (or cuda:N, an accelerator; an error if there is none) "
    "or auto (cuda when present, else cpu)"
)


def device(text: str) -> str:
    """A device of :mod:`cffair._support.devices` that is present on this machine: ``cpu``, ``cuda``,
    ``cuda:N`` or ``auto`` (checked now, so that a missing accelerator stops the command at once)."""
    from cffair._support.devices import resolve_device
    from cffair.errors import DeviceError

    try:
        resolve_device(text, input_name="--device")
    except DeviceError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return text


def weights(text: str) -> dict[str, float]:
    """Axiom-group weights ``group=number,...`` with groups from :data:`WEIGHT_GROUPS` and
    numbers ``>= 0``, e.g. ``acc=1,cf=2`` (appendix B); groups left out keep weight 1."""
    out: dict[str, float] = {}
    for part in filter(None, (p.strip() for p in text.split(","))):
        key, eq, val = (s.strip() for s in part.partition("="))
        if not eq or not key:
            raise argparse.ArgumentTypeError(f"expected group=number pairs such as acc=1,cf=2; got {part!r}")
        if key not in WEIGHT_GROUPS:
            raise argparse.ArgumentTypeError(
                f"unknown axiom group {key!r} in {part!r}; the groups are {', '.join(WEIGHT_GROUPS)}, e.g. acc=1,cf=2"
            )
        if key in out:
            raise argparse.ArgumentTypeError(
                f"axiom group {key!r} is given twice; give each group once, e.g. acc=1,cf=2"
            )
        try:
            w = float(val)
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"the weight of {key!r} must be a number, got {val!r}; e.g. {key}=2"
            ) from None
        if not math.isfinite(w) or w < 0:
            raise argparse.ArgumentTypeError(
                f"the weight of {key!r} must be a finite number >= 0, got {val!r}; e.g. {key}=2"
            )
        out[key] = w
    return out


def where_expression(text: str) -> str:
    """A row-selection expression of :mod:`cffair.datasets._expressions` (``--where``), checked for its
    syntax now; its column names and values are checked once the data is loaded."""
    from cffair.datasets._expressions import parse
    from cffair.errors import ExpressionError

    try:
        parse(text)
    except ExpressionError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return text


#: Column separators ``--sep`` names in words (a shell makes a tab or a semicolon awkward to type).
SEPARATOR_NAMES: dict[str, str] = {"comma": ",", "semicolon": ";", "tab": "\t", "pipe": "|", "space": " "}


def separator(text: str) -> str:
    """A CSV column separator: one character (``;``), ``\\t``, or a name of :data:`SEPARATOR_NAMES`."""
    value = SEPARATOR_NAMES.get(text.strip().lower(), "\t" if text == "\\t" else text)
    if len(value) != 1 or value in '"\n\r' or value.isalnum():
        raise argparse.ArgumentTypeError(
            f"expected one separator character or one of {', '.join(SEPARATOR_NAMES)}, got {text!r}; e.g. --sep ';' or --sep tab"
        )
    return value


#: Decimal marks ``--decimal`` names in words.
DECIMAL_NAMES: dict[str, str] = {"comma": ",", "point": ".", "dot": "."}


def decimal_mark(text: str) -> str:
    """A CSV's decimal mark: ``.`` (the default) or ``,`` (``3,5`` for three and a half), or their names."""
    value = DECIMAL_NAMES.get(text.strip().lower(), text.strip())
    if value not in (".", ","):
        raise argparse.ArgumentTypeError(
            f"expected the decimal mark . or , (or point, comma), got {text!r}; e.g. --decimal , for 3,5"
        )
    return value


def hyperparameter_type(name: str, *, positive: bool = False) -> Callable[[str], Any]:
    """The argparse ``type=`` of the LTN hyperparameter ``name`` (:mod:`cffair.learners._hyperparameters`):
    its text read as its kind and checked by its one check; ``positive``: an epoch count of 1 or more."""
    from cffair.errors import ParameterError
    from cffair.learners._hyperparameters import HYPERPARAMETERS

    hp = HYPERPARAMETERS[name]
    if name == "lr":
        return learning_rate
    if hp.kind is int:
        return positive_int if positive else non_negative_int
    if hp.kind is not float:
        raise ValueError(f"hyperparameter {name!r} ({hp.kind.__name__}) has no flag.")  # internal invariant

    def parse(text: str) -> Any:
        value = _float(text, "a number", f"{hp.flag} 2")
        try:
            return hp.validate(value, "the value")
        except ParameterError as exc:
            raise argparse.ArgumentTypeError(str(exc).rstrip(".")) from None

    parse.__name__ = name  # argparse names the type in its messages
    return parse


def add_hyperparameter_args(
    p: Any,
    names: Iterable[str],
    *,
    notes: Mapping[str, str] | None = None,
    aliases: Mapping[str, tuple[str, ...]] | None = None,
    positive: Iterable[str] = (),
) -> None:
    """Add a flag for each LTN hyperparameter of ``names``, generated from its home
    (:data:`cffair.learners.HYPERPARAMETERS`: flag, type, check and help).

    Every flag defaults to ``None`` (the command's default: the home's, or the profile's).

    Args:
        p: a parser or an argument group.
        names: hyperparameters, e.g. ``("lr", "fair_epochs", "fair_p")``.
        notes: a sentence a command adds to a flag's help (what the default is there).
        aliases: other spellings of a flag (``{"fair_epochs": ("--epochs",)}``).
        positive: the epoch counts that must be 1 or more here.
    """
    from cffair.learners._hyperparameters import HYPERPARAMETERS

    notes, aliases, positive = notes or {}, aliases or {}, set(positive)
    for name in names:
        hp = HYPERPARAMETERS[name]
        text = hp.help + (f"; {notes[name]}" if name in notes else "")
        p.add_argument(
            hp.flag,
            *aliases.get(name, ()),
            dest=name,
            type=hyperparameter_type(name, positive=name in positive),
            default=None,
            help=text.replace("%", "%%"),
        )
