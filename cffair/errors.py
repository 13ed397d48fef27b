"""Exceptions with messages that say what is wrong and how to fix it.

:class:`cffair.learners.NotFittedError` (a model used before ``fit``) is a :class:`CffairError`
too; it lives beside the estimator contract because it is also scikit-learn's
:class:`sklearn.exceptions.NotFittedError`, and this module imports no scikit-learn.
"""

from __future__ import annotations

FINGERPRINT_EXEMPT = True  # messages and classes of errors change no number (see cffair.experiments._fingerprint)


class CffairError(Exception):
    """Base class of every error cffair raises on purpose."""


class DataError(CffairError, ValueError):
    """The data does not match its spec (missing column, NaN, wrong kind, unknown value), or values
    given to a computation are not what it needs (per-fold differences of the wrong shape or count,
    two series that share no fold)."""


class SpecError(CffairError, ValueError):
    """A dataset spec is malformed (unknown key, wrong type, inconsistent choice)."""


class GraphError(CffairError, ValueError):
    """A causal graph is not a DAG over the data's columns."""


class CounterfactualError(CffairError, ValueError):
    """A counterfactual set is malformed or does not line up with its factual data."""


class ArtefactError(CffairError, ValueError):
    """A saved artefact (checkpoint, cached flow, pre-trained model, result record) cannot be read safely: it is
    damaged, in an old or foreign format (e.g. a pickle that would run code), or it was made
    from other data than it is used with."""


class StorageError(CffairError, OSError):
    """A file or folder could not be written: a read-only or full disk, no permission, or a file in
    the way. The message is one line naming the path, the fault and the fix; it is an
    :class:`OSError` too, so code that catches those still does.

    Attributes:
        path: what was being written.
        errno: the fault (``errno.EROFS``, ``errno.ENOSPC``, ...), or ``None``.
    """

    def __init__(self, message: str, *, path: object = None, errno: int | None = None) -> None:
        super().__init__(message)
        self.path = path
        self.errno = errno  # type: ignore[assignment]  # typeshed says int; OSError's errno is None when unknown

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""

    def __reduce__(self) -> tuple[object, ...]:  # keep path and errno across processes (a grid worker's error)
        return (type(self), (str(self),), {"path": self.path, "errno": self.errno})


class ParameterError(CffairError, ValueError):
    """A parameter of the wrong type or out of range: an estimator's (checked by ``fit``, as
    scikit-learn checks them, so that ``__init__`` only stores them) or a function's argument (an
    unknown choice such as ``test="exact"``, a count below its minimum such as ``n_boot=-1``)."""


class DeviceError(CffairError, ValueError):
    """A compute device that is unknown or absent (``device="cuda"`` on a machine without one)."""


class TargetKindError(CffairError, ValueError):
    """A method asked of a model whose target kind does not have it (``predict_proba`` of a
    model of a score target)."""


class StoreLockedError(CffairError, RuntimeError):
    """Another process holds the lock of a results folder (it is writing the same results)."""


class RunError(CffairError, RuntimeError):
    """An experiment run that cannot start or did not finish as asked: a backend whose optional extra
    is not installed, or a grid that ended without some of the records it was to store."""


class ResultsMissingError(CffairError, FileNotFoundError):
    """A results store that a read-only command was asked to read does not exist."""


class CffairWarning(UserWarning):
    """Base class of every warning cffair emits on purpose (filter them all with this class)."""


class GraphWarning(CffairWarning):
    """The causal graph leaves features out (they become roots that nothing, not even S, affects)."""


class CacheWarning(CffairWarning):
    """A cache file could not be read; it was removed and its content is recomputed."""


class CounterfactualWarning(CffairWarning):
    """Generated counterfactuals that are probably wrong: a descendant of the intervened feature
    left unchanged in almost every row (a treatment that freezes it)."""


class ExpressionError(CffairError, ValueError):
    """A row-selection expression (``--where``) that the grammar of :mod:`cffair.datasets._expressions`
    does not accept, or that names an unknown column or value."""


class MetricWarning(CffairWarning):
    """A metric that cannot be computed on these rows (the calibrated CF-MSE of a fold whose
    training rows hold one class): it is recorded as not computable (``None``) and the run goes on."""


class DataWarning(CffairWarning):
    """Data that loads but probably does not mean what the spec says (e.g. one-hot groups read
    as separate binary features)."""


class SemanticsError(CffairError, ValueError):
    """A fuzzy logic asked to read an axiom it cannot act on (Gödel logic on a score target's
    ``Eq(D(x), D(x′))``: :mod:`cffair.logic._fuzzy`)."""


class ProtocolError(CffairError, ValueError):
    """A pre-registered protocol file (``cffair/data/protocol.yaml``: :mod:`cffair.experiments._protocol`) that is
    missing an entry or has one of the wrong kind."""


class SelectionError(CffairError, ValueError):
    """Model selection that cannot choose (:mod:`cffair.reporting._model_selection`): every candidate
    collapsed, or the scores it reads are missing from the search's results."""


class CollapsedModelWarning(CffairWarning):
    """A trained model that the degenerate-model screen (:mod:`cffair.scores._screen`) finds collapsed on
    its own training rows: constant or near-constant decisions, or no more accurate than the
    majority class (its fairness scores then mean nothing)."""


# ---------------------------------------------------------------------------- moved here from their modules
# (each is still importable from its old home: ``from cffair.learners._training import ConstantPredictorWarning``)


class ConfigError(CffairError, ValueError):
    """An experiment config or grid request names something that does not exist."""


class OptionError(CffairError, ValueError):
    """Options that are valid one by one but not together (e.g. ``--fold 5 --folds 5``)."""


class RegistryError(CffairError, ValueError):
    """A registry entry is malformed, or a name is not registered."""


class RecourseError(CffairError, ValueError):
    """Recourse was asked for on features that cannot be acted upon, or with bad settings."""


class ClusterError(CffairError, ValueError):
    """A cluster setting that cannot work (named, with the fix)."""


class YamlContentError(ValueError):
    """YAML that parses but does not say what its author meant; the message gives the line and the fix."""


class DuplicateKeyError(YamlContentError):
    """A YAML mapping names a key twice; the message gives both lines and what to do."""


class PlainWordError(YamlContentError):
    """An unquoted YAML word (``no``, ``on``, ``null``) read as a boolean or as nothing where a name belongs."""


class UsageError(Exception):
    """A command line argparse rejected (unknown option, bad value, missing argument)."""


class EmptyDomainWarning(CffairWarning):
    """A quantifier's domain is empty (its satisfaction would be NaN); the axiom was skipped."""


class ConstantPredictorWarning(CffairWarning):
    """The trained predicate gives (almost) the same output for every row."""


class CollapseRiskWarning(CffairWarning):
    """Fairness axioms are trained without pre-training on the accuracy axioms."""


class StateError(CffairError, RuntimeError):
    """A method called on an object that is not yet in the state it needs (a learner's knowledge base
    extended before ``fit`` built one): call the step named in the message first."""
