"""The protocol as data: profiles, options and experiment configs (the grid of them is :mod:`._grid`)."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import MISSING, asdict, dataclass, replace
from typing import Any, Literal

from cffair._support.validation import check_exponent
from cffair.datasets._folds import FoldSplit
from cffair.errors import ConfigError
from cffair.experiments import _registry as registry
from cffair.learners._hyperparameters import CKE_EPOCHS, DEFAULT_LR, FAIR_EPOCHS, PRETRAIN_EPOCHS

__all__ = [
    "check_registered_flows",
    "BEYOND_FOLDS",
    "OPTIONS",
    "PRETRAIN_OPTIONS",
    "OPTION_DEFAULTS",
    "PROFILES",
    "ExperimentConfig",
    "Mode",
    "Profile",
    "RunSettings",
    "option_text",
    "with_weights",
]

#: A config is data: everything in it that can change a number (its fields and its profile's
#: values) is the ``config`` part of a record's fingerprint (:mod:`cffair.experiments._pipeline.keys`), and
#: the grid below decides which configs exist, not what any of them computes. So this module's
#: code is not a record's code, and a change of the grid (a study added, cut or moved) stales
#: no record that stays in it.
FINGERPRINT_EXEMPT = True

Mode = Literal["quick", "full"]

#: The lists of methods, question groups and datasets are the registry's (:mod:`cffair.experiments._registry`),
#: read when they are used, so that a method or chapter registered later is in the grid too.
#: The module attributes below (``BASELINES``, ``GROUPS`` …) are the same lists, looked up on access.
_LIVE: dict[str, Callable[[], tuple[str, ...]]] = {
    #: LTN settings of the paper (Tables 1–3): the axioms each adds on top of accuracy.
    "LTN_SETTINGS": registry.ltn_settings,
    #: Baselines of Table 1 and the cheap ones a user would pick instead.
    "BASELINES": registry.baselines,
    #: The baselines the paper does not run (Q2 shows them for reference). They run on the
    #: profile's first fold only, to fit the time budget: on five folds they cost 2,471
    #: core-seconds, 1,746 of them on Adult (13 % of the full mode).
    "EXTRA_BASELINES": registry.extra_baselines,
    #: The paper's datasets.
    "DATASETS": registry.dataset_names,
    #: Investigations of the claims that fail here (each a "Why does this claim fail?" section of
    #: its chapter): LTN variants against CNF (Q2), explanations on every attribute (Q3), the query
    #: person drawn as the paper describes (Q4), a finer weight grid (appendix B).
    "INVESTIGATION_GROUPS": lambda: registry.groups(investigations=True),
    #: Question groups of the book (each shown by a notebook; an investigation by its chapter's).
    "GROUPS": registry.groups,
    #: Table 1's configs (LTN settings and baselines), re-scored on the rulers of appendix C.
    "TABLE1_SETTINGS": lambda: registry.table_methods("table1"),
    #: Beyond the paper (its section 8, one chapter): the setting.
    "BEYOND_SETTINGS": lambda: registry.grid_methods("beyond"),
    #: The settings a repetition of cross-validation runs: those the claims compare (Table 1's:
    #: Q1's LTN settings and Q2's paper baselines; appendix A's GAN and LTN on the GAN's twins).
    "REPEAT_SETTINGS": lambda: registry.table_methods("table1"),
    #: The studies of appendix C's "What the conclusions depend on" (:func:`study_grid`).
    "STUDY_GROUPS": lambda: registry.groups(kind="study"),
}
__all__ += list(_LIVE)


def __getattr__(name: str) -> tuple[str, ...]:
    if name in _LIVE:
        return _LIVE[name]()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


WEIGHT_KEYS = ("acc", "cf", "cf_sg", "cke")
CF_SOURCES = ("cnf", "gan")
#: Beyond the paper: the folds each dataset runs it on (``None``: every fold of the profile; Adult
#: fold 0 only, to fit the time budget).
BEYOND_FOLDS: dict[str, tuple[int, ...] | None] = {"adult": (0,), "compas": None}


# ============================================================================ profiles
@dataclass(frozen=True, kw_only=True)
class Profile:
    """How much work one run does: the paper's protocol (``full``) or a small ``quick`` one.

    Attributes:
        name: ``full`` or ``quick``.
        n_folds: folds of the seeded stratified split.
        folds: the folds that run.
        max_rows: at most this many training rows per fold (``None``: all).
        pretrain_epochs: LTN epochs on the accuracy axioms.
        fair_epochs: LTN epochs of the fairness stage (the one default site of a run's fairness stage).
        cke_epochs: LTN epochs per added axiom A5.
        flow_epochs: maximum epochs of the causal flow.
        lr: Adam learning rate of the LTN predicate and of every baseline MLP(100, 50).
    """

    name: Mode
    n_folds: int
    folds: tuple[int, ...]
    max_rows: int | None
    pretrain_epochs: int
    fair_epochs: int
    cke_epochs: int
    flow_epochs: int
    lr: float

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["folds"] = list(self.folds)
        return d


#: ``full`` is the paper's protocol except the learning rate: with the paper's Adam lr 0.1 the
#: fairness stage fell into the constant predictor (sat ≈ 0.667 basin) or not depending on
#: the smallest change (COMPAS fold 0: accuracy 0.549 vs 0.652 for the same setting; weights
#: (1, 3) → constant), so the reproduction uses 1e-3, measured stable (see the Reproducing page).
PROFILES: dict[str, Profile] = {
    "full": Profile(
        name="full",
        n_folds=5,
        folds=(0, 1, 2, 3, 4),
        max_rows=None,
        pretrain_epochs=PRETRAIN_EPOCHS,
        fair_epochs=FAIR_EPOCHS,
        cke_epochs=CKE_EPOCHS,
        flow_epochs=1000,
        lr=DEFAULT_LR,
    ),
    "quick": Profile(
        name="quick",
        n_folds=5,
        folds=(0,),
        max_rows=1500,
        pretrain_epochs=60,
        fair_epochs=40,
        cke_epochs=20,
        flow_epochs=20,
        lr=1e-2,
    ),
}


def profile(name: str) -> Profile:
    """The profile called ``name``, with a clear error for anything else."""
    try:
        return PROFILES[name]
    except KeyError:
        raise ConfigError(f"unknown profile {name!r}; choose one of {', '.join(PROFILES)}.") from None


# ============================================================================ options
#: Options an LTN config may carry (the investigations' variants), each with its type and what
#: it changes: ``lr`` Adam's learning rate and ``clip_grad`` a gradient-norm clip of both stages
#: (pre-training options: such configs pre-train on their own); ``fair_p`` the ∀ exponent of
#: A4 / A4ᵢ and ``fair_epochs`` the length of the fairness stage; ``explain="all"`` computes the
#: CKE explanations on every attribute (A5 axioms stay on immutable features) and ``cke_top=k``
#: turns the k largest immutable imbalances into A5 axioms even below the threshold; ``x_hat``
#: picks the person of query (2): ``"nearest"`` (the row whose nearest differently decided
#: neighbour is closest, which makes the query true) or ``"random"`` (a negatively predicted
#: person drawn at random, as §7.4 describes).
OPTIONS: dict[str, type] = {
    "lr": float,
    "clip_grad": float,
    "fair_p": float,
    "fair_epochs": int,
    "explain": str,
    "cke_top": int,
    "x_hat": str,
    "semantics": str,
    "a4_body": str,
    "twins": str,
    "gan_variant": str,
    "patience": int,  # early stopping of the LTN's stages (cffair.learners.LTNLearner); the own-data runs'
}
#: Options that change pre-training (a config with them cannot share a fold's pre-training).
PRETRAIN_OPTIONS: tuple[str, ...] = ("lr", "clip_grad", "patience")
#: The studies of appendix C's "What the conclusions depend on" (:func:`study_grid`): ``semantics``
#: the fuzzy logic of the knowledge base (:data:`cffair.logic.LOGICS`; it acts on the pair axioms
#: only, so such configs share the fold's pre-training); ``a4_body="eq"`` reads A4 of a binary target
#: as the score equality Eq(D(x), D(x′)) instead of the equivalence (the saturation diagnostic);
#: ``twins="default"`` trains *and* scores a method on the sound twins (the ruler ``default``:
#: Gumbel-max nominal nodes, threshold binary and ordinal ones) instead of the paper's; and
#: ``gan_variant="released"`` runs the GAN with the two behaviours of the authors' release that the
#: re-implementation changes (the encoder sees s′ for a counterfactual; the adversary's gradient leaks
#: into the encoder), for the GAN baseline and for the LTN trained on its twins.
_OPTION_CHOICES: dict[str, tuple[str, ...]] = {
    "explain": ("all",),
    "x_hat": ("nearest", "random"),
    "semantics": ("product", "lukasiewicz", "godel", "goguen"),
    "a4_body": ("equiv", "eq"),
    "twins": ("paper", "default"),
    "gan_variant": ("reimplemented", "released"),
}
#: The default of each study option: given, it is dropped, so that a config that restates the
#: default is the paper's config (same key, same fingerprint).
OPTION_DEFAULTS: dict[str, str] = {
    "semantics": "product",
    "a4_body": "equiv",
    "twins": "paper",
    "gan_variant": "reimplemented",
}
#: Options that are not the LTN's alone: the settings (and sources of twins) they apply to.
_SHARED_OPTIONS: dict[str, str] = {
    "twins": "the settings ltn_acc, ltn_acc_cf, ltn_acc_cf_sg and cnf on the flow's twins",
    "gan_variant": "the GAN baseline and the LTN trained on the GAN's twins (cf_source='gan')",
}


def _option_applies(key: str, setting: str, cf_source: str) -> bool:
    """Whether option ``key`` means something for ``setting`` trained on ``cf_source``'s twins."""
    if key == "twins":
        return setting in ("ltn_acc", "ltn_acc_cf", "ltn_acc_cf_sg", "cnf") and cf_source == "cnf"
    if key == "gan_variant":
        return setting == "gan" or (setting.startswith("ltn") and cf_source == "gan")
    return setting.startswith("ltn")


def _option(key: str, value: Any) -> float | int | str:
    """One option's value, checked and normalised (``fair_p=2`` → ``2.0``)."""
    kind = OPTIONS.get(key)
    if kind is None:
        raise ConfigError(f"unknown option {key!r}; the options are {', '.join(OPTIONS)}.")
    if kind is str:
        if value not in _OPTION_CHOICES[key]:
            choices = [c for c in _OPTION_CHOICES[key] if c != OPTION_DEFAULTS.get(key)]
            raise ConfigError(f"option {key} must be one of {', '.join(choices)}, got {value!r}.")
        return str(value)
    if key == "fair_p":  # the one check of an exponent p (section 2.4)
        return float(check_exponent(value, f"option {key}", error=ConfigError))  # type: ignore[arg-type]
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ConfigError(f"option {key} must be a number, got {value!r}.")
    if kind is int:
        if value != int(value) or value < 1:
            raise ConfigError(f"option {key} must be a whole number >= 1, got {value!r}.")
        return int(value)
    if value <= 0:
        raise ConfigError(f"option {key} must be positive, got {value!r}.")
    return float(value)


def option_text(options: Iterable[tuple[str, Any]]) -> str:
    """``"fair_p=6,lr=0.1"``: options as they appear in a config's key."""
    return ",".join(f"{k}={v:g}" if isinstance(v, float) else f"{k}={v}" for k, v in options)


# ============================================================================ settings
@dataclass(frozen=True, kw_only=True)
class RunSettings:
    """What one config's run trains with, resolved once from its profile and its options
    (:attr:`ExperimentConfig.settings`) and passed down as values: the runners read these, never
    the profile.

    Attributes:
        lr: Adam's learning rate (option ``lr``, else the profile's); the baselines' MLPs' too.
        clip_grad: the LTN's gradient-norm clip (option ``clip_grad``; ``None``: none).
        pretrain_epochs: LTN epochs on the accuracy axioms (the baselines' MLP epochs too).
        fair_epochs: LTN epochs of the fairness stage (option ``fair_epochs``, else the profile's).
        cke_epochs: LTN epochs per added axiom A5.
        fair_p: the ∀ exponent of the fairness axioms (option ``fair_p``; ``None``: the semantics', 1).
        flow_epochs: maximum epochs of the causal flow.
        split: the fold's rows (:class:`~cffair.datasets.FoldSplit`).
    """

    lr: float
    clip_grad: float | None
    pretrain_epochs: int
    fair_epochs: int
    cke_epochs: int
    fair_p: float | None
    flow_epochs: int
    split: FoldSplit

    def learner_kwargs(self) -> dict[str, Any]:
        """The LTN hyperparameters as :class:`~cffair.learners.LTNLearner` keywords, e.g. a notebook's
        quick model: ``LTNLearner(setting="acc_cf", **fd.config.settings.learner_kwargs())``."""
        return {
            "lr": self.lr,
            "pretrain_epochs": self.pretrain_epochs,
            "fair_epochs": self.fair_epochs,
            "cke_epochs": self.cke_epochs,
            "fair_p": self.fair_p,
            "clip_grad": self.clip_grad,
        }


# ============================================================================ configs
@dataclass(frozen=True)
class ExperimentConfig:
    """One unit of the protocol: a method on one fold of one dataset.

    Attributes:
        dataset: ``adult`` | ``compas`` | ``compas_age`` | ``lawschool``.
        fold: fold index (of ``profile.n_folds`` seeded stratified folds).
        setting: an LTN setting (``LTN_SETTINGS``) or a baseline (``BASELINES``).
        profile: ``full`` (the paper's protocol) or ``quick``.
        weights: axiom-group weights (acc, cf, cf_sg, cke) for the LTN (appendix B).
        cf_source: which counterfactuals train the method (``cnf`` or ``gan``, appendix A);
            evaluation always uses the CNF counterfactual test pairs.
        seed: the run's seed (folds use seed 0 so that every method sees the same folds).
        tag: free label distinguishing variants (e.g. a weight-grid point).
        n_folds: number of cross-validation folds when it differs from the profile's (a user's
            own protocol, ``cffair run --folds``); ``None`` (stored as absent) means the
            profile's, so the paper grid's configs and records are unchanged.
        options: LTN options of an investigation (:data:`OPTIONS`), a sorted tuple of
            ``(key, value)`` pairs (a mapping is accepted); empty (stored as absent, and not in
            the key) for every config of the paper's protocol.
        repeat: the repetition of cross-validation (:data:`REPEATS`): 0 is the paper's one
            partition of the rows into folds (stored as absent, and not in the key, so its configs
            and records are unchanged); repetition r partitions the rows with seed r
            (:attr:`partition_seed`), and its key says ``rep{r}``.
    """

    dataset: str
    fold: int
    setting: str
    profile: Mode = "full"
    weights: tuple[tuple[str, float], ...] = (("acc", 1.0), ("cf", 1.0), ("cf_sg", 1.0), ("cke", 1.0))
    cf_source: str = "cnf"
    seed: int = 0
    tag: str = ""
    n_folds: int | None = None
    options: tuple[tuple[str, Any], ...] = ()
    repeat: int = 0

    def __post_init__(self) -> None:
        prof = profile(self.profile)
        self._check_options()
        if isinstance(self.repeat, bool) or not isinstance(self.repeat, int) or self.repeat < 0:
            raise ConfigError(f"repeat must be a whole number >= 0 (0: the paper's partition), got {self.repeat!r}.")
        if self.setting not in registry.setting_keys():
            raise ConfigError(f"unknown setting {self.setting!r}; choose one of {', '.join(registry.setting_keys())}.")
        if self.n_folds is not None:
            if isinstance(self.n_folds, bool) or not isinstance(self.n_folds, int) or self.n_folds < 2:
                raise ConfigError(
                    f"n_folds must be a whole number >= 2 (cross-validation needs two folds), got {self.n_folds!r}."
                )
            if self.n_folds == prof.n_folds:
                object.__setattr__(self, "n_folds", None)  # one spelling of the profile's folds
        if not isinstance(self.fold, int) or not 0 <= self.fold < self.fold_count:
            raise ConfigError(
                f"fold must be an integer in 0..{self.fold_count - 1} for {self.fold_count} folds "
                f"(profile {self.profile!r}), got {self.fold!r}."
            )
        if self.cf_source not in CF_SOURCES:
            raise ConfigError(f"cf_source must be one of {', '.join(CF_SOURCES)}, got {self.cf_source!r}.")
        bad = [k for k, _ in self.weights if k not in WEIGHT_KEYS]
        if bad:
            raise ConfigError(f"unknown axiom-group weight(s) {bad}; the groups are {', '.join(WEIGHT_KEYS)}.")
        if any(not w > 0 for _, w in self.weights):
            raise ConfigError(f"axiom-group weights must be positive, got {dict(self.weights)}.")
        if not isinstance(self.seed, int) or self.seed < 0:
            raise ConfigError(f"seed must be a non-negative integer, got {self.seed!r}.")

    def _check_options(self) -> None:
        raw = self.options
        if isinstance(raw, Mapping):
            raw = tuple(raw.items())
        try:
            pairs = [(str(k), v) for k, v in raw]
        except (TypeError, ValueError):
            raise ConfigError(f"options must be (key, value) pairs or a mapping, got {self.options!r}.") from None
        keys = [k for k, _ in pairs]
        if len(set(keys)) != len(keys):
            raise ConfigError(f"an option is given twice in {self.options!r}.")
        opts = tuple(sorted((k, o) for k, v in pairs if (o := _option(k, v)) != OPTION_DEFAULTS.get(k)))
        bad = [(k, v) for k, v in opts if not _option_applies(k, self.setting, self.cf_source)]
        shared = [k for k, _ in bad if k in _SHARED_OPTIONS]
        if shared:
            raise ConfigError(
                f"option {shared[0]} is for {_SHARED_OPTIONS[shared[0]]}; setting {self.setting!r} "
                f"(twins from {self.cf_source!r}) takes none."
            )
        if bad:
            raise ConfigError(f"options {option_text(bad)} are LTN options; setting {self.setting!r} takes none.")
        object.__setattr__(self, "options", opts)

    @property
    def weight_map(self) -> dict[str, float]:
        return dict(self.weights)

    @property
    def option_map(self) -> dict[str, Any]:
        """The options as a dict (empty for the paper's protocol)."""
        return dict(self.options)

    @property
    def pretrain_options(self) -> tuple[tuple[str, Any], ...]:
        """The options that change pre-training (:data:`PRETRAIN_OPTIONS`)."""
        return tuple((k, v) for k, v in self.options if k in PRETRAIN_OPTIONS)

    @property
    def fold_count(self) -> int:
        """The number of cross-validation folds: ``n_folds``, else the profile's."""
        return self.n_folds if self.n_folds is not None else profile(self.profile).n_folds

    @property
    def settings(self) -> RunSettings:
        """This config's :class:`RunSettings`: its profile's values with its options over them (the one place
        a run's profile is read)."""
        prof, opts = profile(self.profile), self.option_map
        return RunSettings(
            lr=opts.get("lr", prof.lr),
            clip_grad=opts.get("clip_grad"),
            pretrain_epochs=prof.pretrain_epochs,
            fair_epochs=opts.get("fair_epochs", prof.fair_epochs),
            cke_epochs=prof.cke_epochs,
            fair_p=opts.get("fair_p"),
            flow_epochs=prof.flow_epochs,
            split=FoldSplit(self.fold, self.fold_count, self.partition_seed, prof.max_rows),
        )

    @property
    def split(self) -> FoldSplit:
        """The rows of this config's fold: fold ``fold`` of :attr:`fold_count` folds of the partition
        with seed :attr:`partition_seed`, capped to the profile's ``max_rows`` (quick mode)."""
        return self.settings.split

    @property
    def partition_seed(self) -> int:
        """The seed of the partition of the rows into folds: the repetition (0 for the paper's)."""
        return self.repeat

    @property
    def gan_source(self) -> ExperimentConfig:
        """The GAN config whose twins this config trains on (appendix A; read when ``cf_source`` is
        ``"gan"``): the same fold, seed and ``gan_variant``; a GAN config is its own source. The one
        place that says which GAN that is (the task graph, the GAN runner and the fingerprint read it)."""
        if self.setting == "gan":
            return self
        variant = tuple((k, v) for k, v in self.options if k == "gan_variant")  # absent for the re-implementation
        return ExperimentConfig(
            self.dataset,
            self.fold,
            "gan",
            profile=self.profile,
            seed=self.seed,
            n_folds=self.n_folds,
            repeat=self.repeat,
            options=variant,
        )

    @property
    def method(self) -> str:
        """``ltn`` for every LTN setting, else the baseline's name."""
        return "ltn" if registry.method(self.setting).kind == "ltn" else self.setting

    @property
    def key(self) -> str:
        """Readable identity: ``full/adult/ltn_acc_cf/fold0`` (+ tag, + cf source when not CNF,
        + options in parentheses: ``ltn_acc_cf(fair_p=6)``; + ``rep{r}`` before the fold for a
        repetition of cross-validation: ``full/compas/cnf/rep1/fold0``; + ``seed{s}`` before the fold
        for another training seed: ``full/compas/cnf/rep1/seed2/fold0``, :attr:`seed_part`)."""
        name = (
            self.setting
            + (f"@{self.cf_source}" if self.cf_source != "cnf" else "")
            + (f"+{self.tag}" if self.tag else "")
        )
        name += f"({option_text(self.options)})" if self.options else ""
        rep = f"rep{self.repeat}/" if self.repeat else ""
        return f"{self.profile}/{self.dataset}/{name}/{rep}{self.seed_part}fold{self.fold}"

    @property
    def seed_part(self) -> str:
        """The training seed's part of :attr:`key`: ``""`` for seed 0 (the paper's single seed: its keys and
        records are unchanged) and for a config whose tag names its seed already (appendix C's GAN seeds,
        ``gan+seed1``); else ``"seed{s}/"`` before the fold (the protocol's seeds, :mod:`cffair.experiments._protocol`)."""
        return f"seed{self.seed}/" if self.seed and self.tag != f"seed{self.seed}" else ""

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["weights"] = dict(self.weights)
        if d["n_folds"] is None:
            del d["n_folds"]  # the profile's folds: the same dict as before the field existed
        if self.options:
            d["options"] = dict(self.options)
        else:
            del d["options"]  # the paper's protocol: the same dict as before the field existed
        if not self.repeat:
            del d["repeat"]  # the paper's partition: the same dict as before the field existed
        return d

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> ExperimentConfig:
        """A config from its record form (:meth:`to_dict`, a record's ``config``).

        Raises:
            ConfigError: not a mapping, a required field missing or an unknown field, each named.

        >>> ExperimentConfig.from_dict({"dataset": "compas", "fold": 0}).key
        Traceback (most recent call last):
        ...
        cffair.errors.ConfigError: config {'dataset': 'compas', 'fold': 0} lacks 'setting'; a config holds dataset, fold and setting, and may hold profile, weights, cf_source, seed, tag, n_folds, options, repeat.
        """
        if not isinstance(d, Mapping):
            raise ConfigError(
                f"a config is a mapping of its fields (dataset, fold, setting, ...), got {type(d).__name__}."
            )
        fields = list(cls.__dataclass_fields__)
        required = [f for f in fields if cls.__dataclass_fields__[f].default is MISSING]
        missing = [f for f in required if f not in d]
        unknown = sorted(k for k in d if k not in cls.__dataclass_fields__)
        if missing or unknown:
            what = (
                "lacks " + ", ".join(map(repr, missing)) if missing else "has unknown " + ", ".join(map(repr, unknown))
            )
            optional = ", ".join(f for f in fields if f not in required)
            raise ConfigError(
                f"config {dict(d)} {what}; a config holds {', '.join(required[:-1])} and {required[-1]}, "
                f"and may hold {optional}."
            )
        d = dict(d)
        d["weights"] = tuple(sorted(dict(d.get("weights", {})).items()))
        if "options" in d:
            d["options"] = tuple(sorted(dict(d["options"]).items()))
        return cls(**d)


def check_registered_flows(datasets: Iterable[str]) -> None:
    """Check the flow settings of each registered dataset among ``datasets`` (built-in ones have none).

    The dataset registry keeps them as given (:func:`cffair.datasets.register`); the flow
    (:class:`cffair.causal.FlowConfig`) is what can read them, so a typo fails here, in one line that
    names the dataset, before any work.

    Raises:
        ConfigError: a setting the flow does not have, or a value it refuses.
    """
    from cffair.causal._config import FlowConfig
    from cffair.datasets._registry import registration
    from cffair.errors import CounterfactualError  # the flow config's error

    for name in sorted(set(datasets)):
        reg = registration(name)
        if reg is not None and reg.flow:
            try:
                FlowConfig.from_dict(reg.flow)
            except CounterfactualError as exc:
                raise ConfigError(
                    f"registered dataset {name!r} has flow settings the flow cannot use: {exc} "
                    "Register it again with settings of cffair.causal.FlowConfig."
                ) from None


def with_weights(cfg: ExperimentConfig, **weights: float) -> ExperimentConfig:
    """A copy with some axiom-group weights changed."""
    w = cfg.weight_map | weights
    return replace(cfg, weights=tuple(sorted(w.items())))
