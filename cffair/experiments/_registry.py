"""The registries: one each for the methods, the question groups and the paper's datasets.

Everything that lists methods, question groups or the paper's datasets reads them here: the grid
(:func:`cffair.experiments.paper_grid`), the configs' validation, the runner of each method
(:data:`cffair.experiments._pipeline.keys.RUNNERS`), the tables' method orders and display names
(:mod:`cffair.reporting._names`), the figures' colours, ``cffair reproduce --only`` and ``cffair run``'s
defaults. Adding a method or a question group is one :func:`register_method` or :func:`register_group`
call (or one entry below) next to the module that does the work; ``CONTRIBUTING.md`` has the recipes.
The book's chapter of each question (its notebook and title) is registered by the book
(``cffair_book.chapters``), not here.

* :data:`METHODS`: every method and LTN setting, in the order the tables show them.
  An LTN setting has one spelling, its key (``ltn_acc_cf``); :func:`ltn_setting` also reads the
  short one (``acc_cf``, the learner's :attr:`~cffair.learners.LTNLearner.setting`).
* :data:`QUESTION_GROUPS`: the parts of the grid ``cffair reproduce --only`` runs on their own: the
  paper's questions and appendices, and the investigations and studies each of them holds; the
  command that computes one is :meth:`QuestionGroup.command`.
* ``DATASETS``: the paper's datasets (display name, kind of target, runs shared with another), kept by
  the datasets part (:mod:`cffair.datasets._catalogue`) and named here with the other registries.

The registries are data: nothing here computes a number, so no record depends on this module's
code (``FINGERPRINT_EXEMPT``); what a method computes is in its runner module.

>>> method("ltn_acc_cf").name
'LTN(acc+CF)'
>>> ltn_setting("acc_cf_sg")
'ltn_acc_cf_sg'
>>> table_methods("table1")
('ltn_acc', 'ltn_acc_cf', 'ltn_acc_cf_sg', 'cnf', 'gan', 'dcevae')
>>> question_group("q2_why").of
'q2'
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Literal, TypeVar

from cffair.datasets._catalogue import DATASETS, DatasetEntry, dataset_names
from cffair.errors import RegistryError

__all__ = [
    "DATASETS",
    "METHODS",
    "DatasetEntry",
    "GroupKind",
    "Method",
    "MethodKind",
    "QUESTION_GROUPS",
    "QuestionGroup",
    "View",
    "baselines",
    "dataset_names",
    "extra_baselines",
    "grid_methods",
    "groups",
    "ltn_setting",
    "ltn_settings",
    "method",
    "method_names",
    "paper_baselines",
    "question_group",
    "register_group",
    "register_method",
    "registered",
    "runner",
    "runners",
    "setting_keys",
    "table_methods",
]

#: Registries are data: editing them changes which configs exist, never what one computes.
FINGERPRINT_EXEMPT = True

MethodKind = Literal["ltn", "baseline", "beyond", "label"]
_KINDS: tuple[str, ...] = ("ltn", "baseline", "beyond", "label")


E = TypeVar("E")


def _register(table: dict[str, E], key: str, entry: E, what: str, *, replace: bool) -> E:
    """Add ``entry`` under ``key`` (after the others), refusing a taken key unless ``replace``."""
    if key in table and not replace:
        raise RegistryError(f"{what} {key!r} is already registered; pass replace=True to redefine it.")
    table[key] = entry
    return entry


def _lookup(table: Mapping[str, E], key: str, what: str) -> E:
    """The entry ``key``, or an error that lists the registered keys."""
    try:
        return table[key]
    except KeyError:
        raise RegistryError(f"unknown {what} {key!r}; the registered ones are {', '.join(table)}.") from None


# ============================================================================ methods
@dataclass(frozen=True)
class Method:
    """One method or LTN setting.

    Attributes:
        key: the name records, configs and tables use (``"ltn_acc_cf"``, ``"cnf"``).
        name: the display name (paper notation, ``"LTN(acc+CF)"``).
        kind: ``ltn`` (an LTN setting), ``baseline``, ``beyond`` (the chapter beyond the paper) or
            ``label`` (a name tables show but no config runs: Table 3's CKE steps, appendix A's
            ``ltn_acc_cf@gan``, the teaching page's ``mlp``).
        runner: the module that runs it on one fold: a module of :mod:`cffair.experiments._pipeline` by its
            name (``"cnf"`` for ``cffair.experiments._pipeline.cnf``; every LTN setting runs in ``"ltn"``), or a
            dotted module name of your own (``"mypackage.runner"``); ``None`` for a label.
        colour: the preferred slot in the colour-blind palette (0–9), so that the method keeps its
            colour across figures; ``None``: the first free slot.
        tables: the paper's tables that list it (``"table1"``), in the order of :data:`METHODS`.
        groups: the question groups whose grid runs it on every fold (``"q2"``); see
            :func:`cffair.experiments.paper_grid` for how each group uses its methods.
        paper_baseline: a baseline the paper runs (Table 1), as opposed to a cheap alternative.
        first_fold_only: runs on the profile's first fold only (the extra baselines, to fit the
            time budget).
    """

    key: str
    name: str
    kind: MethodKind
    runner: str | None = None
    colour: int | None = None
    tables: tuple[str, ...] = ()
    groups: tuple[str, ...] = ()
    paper_baseline: bool = False
    first_fold_only: bool = False

    def __post_init__(self) -> None:
        if not self.key or not isinstance(self.key, str):
            raise RegistryError(f"a method needs a non-empty key, got {self.key!r}.")
        if self.kind not in _KINDS:
            raise RegistryError(f"method {self.key!r}: kind must be one of {', '.join(_KINDS)}, got {self.kind!r}.")
        if self.kind == "ltn" and not self.key.startswith("ltn_"):
            raise RegistryError(f"LTN setting {self.key!r}: its key must start with 'ltn_' (the records' spelling).")
        if self.kind != "label" and not self.runner:
            raise RegistryError(
                f"method {self.key!r} runs on folds, so it needs a runner module (a name of cffair.experiments._pipeline)."
            )
        if self.colour is not None and not 0 <= self.colour < 10:
            raise RegistryError(f"method {self.key!r}: colour is a palette slot 0–9, got {self.colour!r}.")
        object.__setattr__(self, "tables", tuple(self.tables))
        object.__setattr__(self, "groups", tuple(self.groups))

    @property
    def short(self) -> str:
        """The learner's name of an LTN setting (``"acc_cf"``); a baseline's key otherwise."""
        return self.key.removeprefix("ltn_") if self.kind == "ltn" else self.key


_LTN = "ltn"
_Q1 = ("q1",)  # the three settings of Q1 run for q1 … q4 and appendix B (paper_grid)
_T1 = ("table1", "table2", "table3")

#: Every method, in the order the tables show them.
METHODS: dict[str, Method] = {
    m.key: m
    for m in (
        Method("ltn_acc", "LTN(acc)", "ltn", _LTN, 0, _T1, _Q1),
        Method("ltn_acc_cf", "LTN(acc+CF)", "ltn", _LTN, 1, _T1, _Q1),
        Method("ltn_acc_cf_sg", "LTN(acc+CF_sg)", "ltn", _LTN, 2, ("table1", "table2"), _Q1),
        Method("ltn_acc_cf_cke", "LTN(acc+CF+CKE)", "ltn", _LTN, 3, ("table2",), ("q3",)),
        Method("ltn_acc_cf_sg_cke", "LTN(acc+CF_sg+CKE)", "ltn", _LTN, 4, ("table2",), ("q3",)),
        Method("cnf", "CNF", "baseline", "cnf", 5, ("table1",), ("q2",), paper_baseline=True),
        Method("gan", "GAN", "baseline", "gan", 6, ("table1",), ("q2",), paper_baseline=True),
        Method("dcevae", "DCEVAE", "baseline", "dcevae", 7, ("table1",), ("q2",), paper_baseline=True),
        Method("unaware", "Unaware MLP", "baseline", "simple", 8, (), ("q2",), first_fold_only=True),
        Method("level3", "Kusner level 3", "baseline", "simple", 9, (), ("q2",), first_fold_only=True),
        Method("pcf", "Plug-in PCF", "baseline", "simple", 3, (), ("q2",), first_fold_only=True),
        Method("beyond", "beyond", "beyond", "beyond", None, (), ("beyond",)),
        # Table 3: CKE axioms added one after the other on top of LTN(acc+CF) (Adult, one run).
        Method("cke_race_male", "+CKE (race, male)", "label", tables=("table3",)),
        Method("cke_marital_status_male", "+CKE (marital-status, male)", "label", tables=("table3",)),
        Method("cke_native_country_male", "+CKE (native-country, male)", "label", tables=("table3",)),
        # appendix A: LTN(acc+CF) trained on the GAN's counterfactuals (record method "ltn_acc_cf@gan")
        Method("ltn_acc_cf@gan", "LTN(acc+CF) on GAN CFs", "label", colour=1),
        # names of the cheap baselines in the teaching material and the method page
        Method("kusner_level3", "Kusner level 3", "label"),
        Method("exogenous", "MLP on exogenous noise", "label"),
        Method("pcf_plugin", "Plug-in PCF", "label"),
        Method("symmetrised", "Symmetrised features", "label"),
        Method("mlp", "MLP", "label", colour=8),
    )
}


def register_method(m: Method, *, replace: bool = False) -> Method:
    """Add ``m`` to :data:`METHODS` (after the others); every consumer sees it from then on.

    Raises:
        RegistryError: if the key is taken (pass ``replace=True`` to redefine it).
    """
    return _register(METHODS, m.key, m, "method", replace=replace)


def method(key: str) -> Method:
    """The registered method ``key``, with a clear error for anything else."""
    return _lookup(METHODS, key, "method")


def _keys(kind: str | None = None, **where: object) -> tuple[str, ...]:
    return tuple(
        m.key
        for m in METHODS.values()
        if (kind is None or m.kind == kind) and all(getattr(m, k) == v for k, v in where.items())
    )


def ltn_settings() -> tuple[str, ...]:
    """The LTN settings (``ltn_acc`` … ``ltn_acc_cf_sg_cke``)."""
    return _keys("ltn")


def baselines() -> tuple[str, ...]:
    """Every baseline: the paper's (:func:`paper_baselines`), then the cheap alternatives."""
    return _keys("baseline")


def paper_baselines() -> tuple[str, ...]:
    """The baselines of the paper's Table 1 (CNF, GAN, DCEVAE)."""
    return _keys("baseline", paper_baseline=True)


def extra_baselines() -> tuple[str, ...]:
    """The baselines the paper does not run (shown for reference)."""
    return _keys("baseline", paper_baseline=False)


def setting_keys() -> tuple[str, ...]:
    """Every key a config's ``setting`` may take: the LTN settings, the baselines, beyond."""
    return tuple(m.key for m in METHODS.values() if m.kind != "label")


def grid_methods(group: str) -> tuple[str, ...]:
    """The methods question group ``group`` runs (:attr:`Method.groups`), in table order."""
    return tuple(m.key for m in METHODS.values() if m.kind != "label" and group in m.groups)


def table_methods(table: str) -> tuple[str, ...]:
    """The methods of one of the paper's tables (``"table1"``), in its order."""
    return tuple(m.key for m in METHODS.values() if table in m.tables)


def method_names() -> dict[str, str]:
    """``{key: display name}`` of every method."""
    return {m.key: m.name for m in METHODS.values()}


def ltn_setting(text: str) -> str:
    """The key of an LTN setting given by its key (``ltn_acc_cf``) or short name (``acc_cf``).

    Raises:
        RegistryError: for anything that is not a registered LTN setting, naming the choices.
    """
    key = text if str(text).startswith("ltn_") else f"ltn_{text}"
    if key not in ltn_settings():
        short = ", ".join(METHODS[k].short for k in ltn_settings())
        raise RegistryError(f"unknown LTN setting {text!r}; choose from {short} (or their names with 'ltn_').")
    return key


def _module(name: str) -> str:
    # a module of cffair.experiments._pipeline by its name; kept short here, so that the import graph of the
    # library (which reads module names in strings as lazy imports) has no edge from this data
    return name if "." in name else f"cffair.experiments._pipeline.{name}"


def runner(key: str) -> str:
    """The module that runs ``key`` (a method, or ``"ltn"`` for every LTN setting) on one fold.

    >>> runner("level3")
    'cffair.experiments._pipeline.simple'
    """
    if key == "ltn":
        return _module(_LTN)
    m = method(key)
    if m.runner is None:
        raise RegistryError(f"{key!r} is a name tables show, not a method that runs.")
    return _module(m.runner)


def runners() -> dict[str, str]:
    """``{"ltn": module, baseline: module, …}``: the module behind each config's ``method``."""
    return {
        "ltn": _module(_LTN),
        **{m.key: _module(m.runner) for m in METHODS.values() if m.kind not in ("ltn", "label") and m.runner},
    }


# ============================================================================ question groups
GroupKind = Literal["question", "investigation", "study"]


@dataclass(frozen=True)
class QuestionGroup:
    """One question group: a part of the grid that ``cffair reproduce --only NAME`` computes on its own.

    Where a group is shown (its notebook, its page's title) is the book's business
    (``cffair_book.chapters``); the library knows what the group is and what it belongs to.

    Attributes:
        name: the group's name (``cffair reproduce --only NAME``).
        kind: ``question`` (a question of its own: one of the paper's, an appendix, or one beyond it),
            ``investigation`` (of a failing claim of question ``of``) or ``study`` (of what the
            conclusions of question ``of`` depend on).
        of: for an investigation or a study, the question it is part of; empty for a question.
        paper: the group answers one of the paper's questions or appendices.
    """

    name: str
    kind: GroupKind = "question"
    of: str = ""
    paper: bool = False

    def __post_init__(self) -> None:
        if not self.name:
            raise RegistryError("a question group needs a name.")
        if self.kind not in ("question", "investigation", "study"):
            raise RegistryError(
                f"question group {self.name!r}: kind must be question, investigation or study, got {self.kind!r}."
            )
        if (self.kind == "question") == bool(self.of):
            raise RegistryError(
                f"question group {self.name!r}: an investigation or a study names the question it is part of "
                "(of=...), a question of its own does not."
            )

    def command(self, mode: str = "quick") -> str:
        """The command that computes the group's records.

        >>> QuestionGroup("q2_why", "investigation", of="q2").command("full")
        'cffair reproduce --only q2_why --mode full'
        """
        return f"cffair reproduce --only {self.name} --mode {mode}"


#: Every question group, in the order ``cffair reproduce`` lists them.
QUESTION_GROUPS: dict[str, QuestionGroup] = {
    g.name: g
    for g in (
        QuestionGroup("q1", paper=True),
        QuestionGroup("q2", paper=True),
        QuestionGroup("q3", paper=True),
        QuestionGroup("q4", paper=True),
        QuestionGroup("appendix_a", paper=True),
        QuestionGroup("appendix_b", paper=True),
        QuestionGroup("appendix_c"),
        QuestionGroup("q2_why", "investigation", of="q2"),
        QuestionGroup("q3_why", "investigation", of="q3"),
        QuestionGroup("q4_why", "investigation", of="q4"),
        QuestionGroup("appendix_b_why", "investigation", of="appendix_b"),
        QuestionGroup("beyond"),
        QuestionGroup("appendix_c_studies", "study", of="appendix_c"),
    )
}


def register_group(g: QuestionGroup, *, replace: bool = False) -> QuestionGroup:
    """Add ``g`` to :data:`QUESTION_GROUPS` (after the others).

    Raises:
        RegistryError: if the name is taken (pass ``replace=True`` to redefine it), or an
            investigation or study names a question that is not registered.
    """
    if g.of and QUESTION_GROUPS.get(g.of, g).kind != "question":
        raise RegistryError(f"question group {g.name!r} is part of {g.of!r}, which is not a registered question.")
    return _register(QUESTION_GROUPS, g.name, g, "question group", replace=replace)


def question_group(name: str) -> QuestionGroup:
    """The question group ``name``, with a clear error for anything else."""
    return _lookup(QUESTION_GROUPS, name, "question group")


def groups(*, kind: str | None = None, investigations: bool | None = None, paper: bool = False) -> tuple[str, ...]:
    """Every question group's name; ``kind`` keeps those of one :attr:`QuestionGroup.kind`;
    ``investigations=True`` only the investigations, ``False`` all but them; ``paper`` those of the
    paper's questions.

    >>> groups(paper=True)
    ('q1', 'q2', 'q3', 'q4', 'appendix_a', 'appendix_b')
    """
    return tuple(
        n
        for n, g in QUESTION_GROUPS.items()
        if (kind is None or g.kind == kind)
        and (investigations is None or (g.kind == "investigation") == investigations)
        and (not paper or g.paper)
    )


# ============================================================================ views
K = TypeVar("K")
V = TypeVar("V")


class View(Mapping[K, V]):
    """A read-only mapping computed from the registries on every access: a module-level name
    (``cffair.experiments._pipeline.keys.RUNNERS``, ``cffair.reporting.METHOD_NAMES``) that stays in step
    with methods and question groups registered after it was imported.

    >>> names = View(method_names)
    >>> names["cnf"]
    'CNF'
    """

    def __init__(self, compute: Callable[[], Mapping[K, V]]) -> None:
        self._compute = compute

    def __getitem__(self, key: K) -> V:
        return self._compute()[key]

    def __iter__(self) -> Iterator[K]:
        return iter(dict(self._compute()))

    def __len__(self) -> int:
        return len(self._compute())

    def __repr__(self) -> str:
        return repr(dict(self._compute()))


# ============================================================================ temporary entries
@contextmanager
def registered(*entries: Method | QuestionGroup) -> Iterator[None]:
    """Register methods and question groups for the duration of a ``with`` block (tests, experiments),
    then restore the registries as they were."""
    saved = dict(METHODS), dict(QUESTION_GROUPS)
    try:
        for e in entries:
            if isinstance(e, Method):
                register_method(e)
            else:
                register_group(e)
        yield
    finally:
        METHODS.clear()
        METHODS.update(saved[0])
        QUESTION_GROUPS.clear()
        QUESTION_GROUPS.update(saved[1])
