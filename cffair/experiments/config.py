"""The protocol as data: profiles, experiment configs and the grid behind the book's tables."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, replace
from typing import Any, Literal

from cffair import registry
from cffair.errors import CffairError

__all__ = [
    "BEYOND_FOLDS",
    "CKE_ALL_FOLDS",
    "FINE_GRID_DATASETS",
    "OPTIONS",
    "PRETRAIN_OPTIONS",
    "OPTION_DEFAULTS",
    "PROFILES",
    "Q2_ADULT",
    "REPEATS",
    "Q2_VARIANTS",
    "STUDIES",
    "STUDY_GAN_SEEDS",
    "STUDY_LOGICS",
    "Study",
    "WEIGHT_GRID",
    "WEIGHT_GRID_FINE",
    "ConfigError",
    "ExperimentConfig",
    "Mode",
    "Profile",
    "investigation_grid",
    "option_text",
    "paper_grid",
    "repeat_grid",
    "study_grid",
    "with_weights",
]

#: A config is data: everything in it that can change a number (its fields and its profile's
#: values) is the ``config`` part of a record's fingerprint (:mod:`cffair.pipeline.keys`), and
#: the grid below decides which configs exist, not what any of them computes. So this module's
#: code is not a record's code, and a change of the grid (a study added, cut or moved) stales
#: no record that stays in it.
FINGERPRINT_EXEMPT = True

Mode = Literal["quick", "full"]

#: The lists of methods, question groups and datasets are the registry's (:mod:`cffair.registry`),
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


class ConfigError(CffairError, ValueError):
    """An experiment config or grid request names something that does not exist."""


# ============================================================================ profiles
@dataclass(frozen=True)
class Profile:
    """How much work one run does: the paper's protocol (``full``) or a small ``quick`` one."""

    name: Mode
    n_folds: int
    folds: tuple[int, ...]
    max_rows: int | None
    pretrain_epochs: int
    fair_epochs: int
    cke_epochs: int
    baseline_scale: float  # fraction of the paper's baseline epochs
    flow_epochs: int
    lr: float  # Adam learning rate of the LTN predicate and of every baseline MLP(100, 50)

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["folds"] = list(self.folds)
        return d


#: ``full`` is the paper's protocol except the learning rate: with the paper's Adam lr 0.1 the
#: fairness stage fell into the constant predictor (sat ≈ 0.667 basin) or not depending on
#: the smallest change (COMPAS fold 0: accuracy 0.549 vs 0.652 for the same setting; weights
#: (1, 3) → constant), so the reproduction uses 1e-3, measured stable (see the Reproducing page).
PROFILES: dict[str, Profile] = {
    "full": Profile("full", 5, (0, 1, 2, 3, 4), None, 1500, 500, 500, 1.0, 1000, 1e-3),
    "quick": Profile("quick", 5, (0,), 1500, 60, 40, 20, 0.02, 20, 1e-2),
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
OPTIONS: dict[str, type] = {"lr": float, "clip_grad": float, "fair_p": float, "fair_epochs": int, "explain": str,
                            "cke_top": int, "x_hat": str, "semantics": str, "a4_body": str, "twins": str, "gan_variant": str}
#: Options that change pre-training (a config with them cannot share a fold's pre-training).
PRETRAIN_OPTIONS: tuple[str, ...] = ("lr", "clip_grad")
#: The studies of appendix C's "What the conclusions depend on" (:func:`study_grid`): ``semantics``
#: the fuzzy logic of the knowledge base (:data:`cffair.fuzzy.LOGICS`; it acts on the pair axioms
#: only, so such configs share the fold's pre-training); ``a4_body="eq"`` reads A4 of a binary target
#: as the score equality Eq(D(x), D(x′)) instead of the equivalence (the saturation diagnostic);
#: ``twins="default"`` trains *and* scores a method on the sound twins (the ruler ``default``:
#: Gumbel-max nominal nodes, threshold binary and ordinal ones) instead of the paper's; and
#: ``gan_variant="released"`` runs the GAN with the two behaviours of the authors' release that the
#: re-implementation changes (the encoder sees s′ for a counterfactual; the adversary's gradient leaks
#: into the encoder), for the GAN baseline and for the LTN trained on its twins.
_OPTION_CHOICES: dict[str, tuple[str, ...]] = {"explain": ("all",), "x_hat": ("nearest", "random"),
                                               "semantics": ("product", "lukasiewicz", "godel", "goguen"),
                                               "a4_body": ("equiv", "eq"), "twins": ("paper", "default"),
                                               "gan_variant": ("reimplemented", "released")}
#: The default of each study option: given, it is dropped, so that a config that restates the
#: default is the paper's config (same key, same fingerprint).
OPTION_DEFAULTS: dict[str, str] = {"semantics": "product", "a4_body": "equiv", "twins": "paper", "gan_variant": "reimplemented"}
#: Options that are not the LTN's alone: the settings (and sources of twins) they apply to.
_SHARED_OPTIONS: dict[str, str] = {"twins": "the settings ltn_acc, ltn_acc_cf, ltn_acc_cf_sg and cnf on the flow's twins",
                                   "gan_variant": "the GAN baseline and the LTN trained on the GAN's twins (cf_source='gan')"}


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
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ConfigError(f"option {key} must be a number, got {value!r}.")
    if kind is int:
        if value != int(value) or value < 1:
            raise ConfigError(f"option {key} must be a whole number >= 1, got {value!r}.")
        return int(value)
    low = 1.0 if key == "fair_p" else 0.0
    if value < low or (low == 0.0 and value == 0):
        raise ConfigError(f"option {key} must be {'>= 1 (section 2.4)' if key == 'fair_p' else 'positive'}, got {value!r}.")
    return float(value)


def option_text(options: Iterable[tuple[str, Any]]) -> str:
    """``"fair_p=6,lr=0.1"``: options as they appear in a config's key."""
    return ",".join(f"{k}={v:g}" if isinstance(v, float) else f"{k}={v}" for k, v in options)


# ============================================================================ configs
@dataclass(frozen=True)
class ExperimentConfig:
    """One unit of the protocol: a method on one fold of one dataset.

    Attributes:
        dataset: ``adult`` | ``compas`` | ``compas_age`` | ``lawschool``.
        fold: fold index (of ``profile.n_folds`` seeded stratified folds).
        setting: an LTN setting (:data:`LTN_SETTINGS`) or a baseline (:data:`BASELINES`).
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
                raise ConfigError(f"n_folds must be a whole number >= 2 (cross-validation needs two folds), got {self.n_folds!r}.")
            if self.n_folds == prof.n_folds:
                object.__setattr__(self, "n_folds", None)  # one spelling of the profile's folds
        if not isinstance(self.fold, int) or not 0 <= self.fold < self.fold_count:
            raise ConfigError(f"fold must be an integer in 0..{self.fold_count - 1} for {self.fold_count} folds "
                              f"(profile {self.profile!r}), got {self.fold!r}.")
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
            raise ConfigError(f"option {shared[0]} is for {_SHARED_OPTIONS[shared[0]]}; setting {self.setting!r} "
                              f"(twins from {self.cf_source!r}) takes none.")
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
    def partition_seed(self) -> int:
        """The seed of the partition of the rows into folds: the repetition (0 for the paper's)."""
        return self.repeat

    @property
    def method(self) -> str:
        """``ltn`` for every LTN setting, else the baseline's name."""
        return "ltn" if registry.method(self.setting).kind == "ltn" else self.setting

    @property
    def key(self) -> str:
        """Readable identity: ``full/adult/ltn_acc_cf/fold0`` (+ tag, + cf source when not CNF,
        + options in parentheses: ``ltn_acc_cf(fair_p=6)``; + ``rep{r}`` before the fold for a
        repetition of cross-validation: ``full/compas/cnf/rep1/fold0``)."""
        name = self.setting + (f"@{self.cf_source}" if self.cf_source != "cnf" else "") + (f"+{self.tag}" if self.tag else "")
        name += f"({option_text(self.options)})" if self.options else ""
        rep = f"rep{self.repeat}/" if self.repeat else ""
        return f"{self.profile}/{self.dataset}/{name}/{rep}fold{self.fold}"

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
    def from_dict(cls, d: dict[str, Any]) -> ExperimentConfig:
        d = dict(d)
        d["weights"] = tuple(sorted(dict(d.get("weights", {})).items()))
        if "options" in d:
            d["options"] = tuple(sorted(dict(d["options"]).items()))
        return cls(**d)


def with_weights(cfg: ExperimentConfig, **weights: float) -> ExperimentConfig:
    """A copy with some axiom-group weights changed."""
    w = cfg.weight_map | weights
    return replace(cfg, weights=tuple(sorted(w.items())))


# ============================================================================ the grid
#: Appendix B: (accuracy weight, CF weight) pairs besides the equal-weights default.
WEIGHT_GRID: tuple[tuple[float, float], ...] = ((3.0, 1.0), (1.0, 3.0))
#: Repeated cross-validation (full profile only): how many partitions of the rows into 5 folds each
#: dataset runs (repetition r partitions with seed r; repetition 0 is the paper's). COMPAS and
#: Lawschool run 3 (15 paired folds per comparison); Adult keeps the paper's one (a fold of its
#: compared settings took 1,381 core-seconds in the committed records, against COMPAS's 117 and
#: Lawschool's 381: two more partitions of Adult would cost about 3.8 core-hours); COMPAS(age)
#: shares COMPAS's runs except the subgroup axioms, which its claims compare on the paper's partition.
#: The quick profile runs one partition.
REPEATS: dict[str, int] = {"compas": 3, "lawschool": 3}
#: Datasets whose CKE settings run on every fold (Table 2); the others on the first fold only.
CKE_ALL_FOLDS: tuple[str, ...] = ("compas", "compas_age")


# ============================================================================ investigations
#: Q2's LTN(acc+CF) variants: ``(tag, CF-axiom weight, options)``; ``fair_epochs`` is a multiple
#: of the profile's fairness stage (×4, ×10: 2000 and 5000 epochs in the full profile). The
#: first is the reference: the paper's semantics (p = 1) recomputed with today's code.
Q2_VARIANTS: tuple[tuple[str, float, dict[str, Any]], ...] = (
    ("", 1.0, {"fair_p": 1.0}),
    ("", 1.0, {"fair_p": 2.0}),
    ("", 1.0, {"fair_p": 6.0}),
    ("", 1.0, {"fair_epochs": 4}),
    ("", 1.0, {"fair_epochs": 10}),
    ("w1-3", 3.0, {"fair_p": 1.0}),
    ("w1-9", 9.0, {"fair_p": 1.0}),
    ("w1-27", 27.0, {"fair_p": 1.0}),
    ("w1-9", 9.0, {"fair_p": 6.0}),
    ("", 1.0, {"lr": 0.01}),
    ("", 1.0, {"lr": 0.1}),
    ("", 1.0, {"lr": 0.1, "clip_grad": 0.1}),
)
#: The cut on Adult, fold 0 only (a fairness stage there costs 60–100 s, the 4× longer one 400 s):
#: the reference and p = 6, the variant that reaches CNF's CF-MSE on COMPAS (indices into
#: Q2_VARIANTS). The other variants run on COMPAS's five folds.
Q2_ADULT: tuple[int, ...] = (0, 2)
#: Appendix B's finer grid (every fold of :data:`FINE_GRID_DATASETS`): (accuracy weight, CF weight), powers of 3.
WEIGHT_GRID_FINE: tuple[tuple[float, float], ...] = ((27.0, 1.0), (9.0, 1.0), (3.0, 1.0), (1.0, 1.0), (1.0, 3.0), (1.0, 9.0), (1.0, 27.0))
#: The datasets of the finer grid (every fold): COMPAS and Lawschool, where a fairness stage is cheap;
#: Adult keeps appendix B's three points. The quick profile runs it on COMPAS only, as before.
FINE_GRID_DATASETS: tuple[str, ...] = ("compas", "lawschool")


def _ltn_variant(base: ExperimentConfig, tag: str, acc_w: float, cf_w: float, options: Mapping[str, Any],
                 fair_epochs: int) -> ExperimentConfig:
    opts = dict(options)
    if "fair_epochs" in opts:
        opts["fair_epochs"] = int(opts["fair_epochs"]) * fair_epochs
    cfg = replace(base, setting="ltn_acc_cf", tag=tag, options=tuple(opts.items()))
    return with_weights(cfg, acc=acc_w, cf=cf_w) if (acc_w, cf_w) != (1.0, 1.0) else cfg


def investigation_grid(profile_name: Mode, dataset: str, fold: int, groups: Iterable[str]) -> list[ExperimentConfig]:
    """The investigations' configs of one dataset × fold (each one's ``options`` non-empty).

    * ``q2_why``: :data:`Q2_VARIANTS` of LTN(acc+CF) on every COMPAS fold; on Adult fold 0
      only the variants of :data:`Q2_ADULT`. They are compared with the baselines' records of
      ``q2`` (a recomputed copy, as earlier rounds kept, gives the same numbers: the runs are
      deterministic, and a record is fresh only when today's code would give it).
    * ``q3_why``: LTN(acc+CF+CKE) on every COMPAS fold with explanations on every attribute and
      the largest immutable imbalance turned into an A5 axiom whatever the threshold.
    * ``q4_why``: LTN(acc+CF) on Adult fold 0 with the query person drawn at random.
    * ``appendix_b_why``: LTN(acc+CF) with the weights of :data:`WEIGHT_GRID_FINE` on every fold of
      :data:`FINE_GRID_DATASETS` (COMPAS and Lawschool: claim B.1 needs at least five weight points
      on most datasets; the quick profile: COMPAS only).
    """
    prof = profile(profile_name)
    groups = set(groups)
    base = ExperimentConfig(dataset, fold, "ltn_acc", profile=profile_name)
    first = fold == prof.folds[0]
    out: list[ExperimentConfig] = []
    if "q2_why" in groups and (dataset == "compas" or (dataset == "adult" and first)):
        picks = range(len(Q2_VARIANTS)) if dataset == "compas" else Q2_ADULT
        out += [_ltn_variant(base, t, 1.0, w, o, prof.fair_epochs) for t, w, o in (Q2_VARIANTS[i] for i in picks)]
    if "q3_why" in groups and dataset == "compas":
        out.append(replace(base, setting="ltn_acc_cf_cke", options=(("cke_top", 1), ("explain", "all"))))
    if "q4_why" in groups and dataset == "adult" and first:
        out.append(replace(base, setting="ltn_acc_cf", options=(("x_hat", "random"),)))
    if "appendix_b_why" in groups and (dataset == "compas" or (dataset in FINE_GRID_DATASETS and profile_name == "full")):
        out += [_ltn_variant(base, "" if a == c else f"w{a:g}-{c:g}", a, c, {"fair_p": 1.0}, prof.fair_epochs)
                for a, c in WEIGHT_GRID_FINE]
    return out


#: The question groups whose configs :func:`paper_grid` builds by the protocol's own rules; any other
#: registered group runs its methods (:func:`cffair.registry.grid_methods`) on every fold.
_PROTOCOL_GROUPS: frozenset[str] = frozenset({"q1", "q2", "q3", "q4", "appendix_a", "appendix_b", "appendix_c", "beyond",
                                              "q2_why", "q3_why", "q4_why", "appendix_b_why", "appendix_c_studies"})


def paper_grid(profile_name: Mode = "full", datasets: Sequence[str] | None = None, only: Iterable[str] | None = None) -> list[ExperimentConfig]:
    """Every config behind the book's tables and figures.

    ``only`` picks question groups: ``q1`` (LTN acc / acc+CF / acc+CF_sg), ``q2`` (baselines),
    ``q3`` (CKE settings), ``q4`` (the queries, on the acc+CF records), ``appendix_a`` (LTN on
    the GAN's counterfactuals), ``appendix_b`` (axiom weights), ``appendix_c`` (Table 1's
    configs, :data:`TABLE1_SETTINGS`, whose records also hold the scores on the rulers), and the
    investigations of the claims that fail (:data:`INVESTIGATION_GROUPS`,
    :func:`investigation_grid`). Default: all.

    Where the full protocol is cut to fit the time budget (documented on the *Reproducing*
    page): the CKE settings of Adult and Lawschool run on fold 0 only (Table 3 of the paper is
    one run; Table 2, COMPAS, is 5-fold); the weight grid has the points of
    :data:`WEIGHT_GRID`; the extra baselines (:data:`EXTRA_BASELINES`, not the paper's) run on
    fold 0 only.

    Which methods a group runs is the registry's (:attr:`cffair.registry.Method.groups`): Q1's
    LTN settings also run for q2, q3, q4 and appendix B (they compare with them or continue from
    them); a method registered with ``groups=("q2",)`` joins the baselines, one with
    ``tables=("table1",)`` also appendix C; a chapter registered beyond the book's runs the methods
    that name its group, on every fold. ``datasets`` defaults to the paper's.
    """
    prof = profile(profile_name)
    all_groups = registry.groups()
    groups = set(only) if only is not None else set(all_groups)
    unknown = sorted(groups - set(all_groups))
    if unknown:
        raise ConfigError(f"unknown question group(s) {unknown}; choose from {', '.join(all_groups)}.")
    q1, q3 = registry.grid_methods("q1"), registry.grid_methods("q3")
    q2 = [registry.method(s) for s in registry.grid_methods("q2")]
    q1_users = {"q1", "q2", "q3", "q4", "appendix_b"}  # Q1's settings serve them all
    cfgs: list[ExperimentConfig] = []
    for ds in registry.dataset_names() if datasets is None else datasets:
        for fold in prof.folds:
            base = ExperimentConfig(ds, fold, "ltn_acc", profile=profile_name)
            if groups & q1_users:
                cfgs += [replace(base, setting=s) for s in q1]
            if "q2" in groups:
                cfgs += [replace(base, setting=m.key) for m in q2 if not m.first_fold_only or fold == prof.folds[0]]
            if "appendix_c" in groups:
                cfgs += [replace(base, setting=s) for s in registry.table_methods("table1")]
            if "q3" in groups and (ds in CKE_ALL_FOLDS or fold == prof.folds[0]):
                cfgs += [replace(base, setting=s) for s in q3]
            if "appendix_a" in groups:
                cfgs += [replace(base, setting="gan"), replace(base, setting="ltn_acc_cf", cf_source="gan")]
            if "appendix_b" in groups:
                for acc_w, cf_w in WEIGHT_GRID:
                    cfgs.append(with_weights(replace(base, setting="ltn_acc_cf", tag=f"w{acc_w:g}-{cf_w:g}"), acc=acc_w, cf=cf_w))
            cfgs += investigation_grid(profile_name, ds, fold, groups & set(registry.groups(investigations=True)))
            if groups & set(registry.groups(kind="study")):
                cfgs += study_grid(profile_name, ds, fold)
            if "beyond" in groups and ds in BEYOND_FOLDS and (BEYOND_FOLDS[ds] is None or fold in BEYOND_FOLDS[ds]):
                cfgs += [replace(base, setting=s) for s in registry.grid_methods("beyond")]
            for g in sorted(groups - _PROTOCOL_GROUPS):  # a chapter registered beyond the book's: its methods
                cfgs += [replace(base, setting=m) for m in registry.grid_methods(g)
                         if not registry.method(m).first_fold_only or fold == prof.folds[0]]
    cfgs += repeat_grid(profile_name, registry.dataset_names() if datasets is None else datasets, groups)
    return list(dict.fromkeys(cfgs))


def repeat_grid(profile_name: Mode, datasets: Sequence[str], groups: Iterable[str]) -> list[ExperimentConfig]:
    """The configs of the repetitions of cross-validation (:data:`REPEATS`, full profile only):
    for each repetition r ≥ 1 of a dataset, every fold of :data:`REPEAT_SETTINGS` that ``groups``
    ask for (``q1``: the LTN settings; ``q2``: the baselines; ``appendix_a``: the GAN and
    LTN(acc+CF) on its twins)."""
    if profile_name != "full":
        return []
    groups = set(groups)
    prof = profile(profile_name)
    settings = registry.table_methods("table1")  # REPEAT_SETTINGS
    ltn = tuple(s for s in settings if registry.method(s).kind == "ltn")
    baselines = tuple(s for s in settings if registry.method(s).kind != "ltn")
    out: list[ExperimentConfig] = []
    for ds in datasets:
        for r in range(1, REPEATS.get(ds, 1)):
            for fold in prof.folds:
                base = ExperimentConfig(ds, fold, "ltn_acc", profile=profile_name, repeat=r)
                if groups & {"q1", "q2"}:
                    out += [replace(base, setting=s) for s in ltn]
                if "q2" in groups:
                    out += [replace(base, setting=s) for s in baselines]
                if "appendix_a" in groups:
                    out += [replace(base, setting="gan"), replace(base, setting="ltn_acc_cf", cf_source="gan")]
    return out


# ============================================================================ the studies of appendix C
@dataclass(frozen=True)
class Study:
    """One study of "What the conclusions depend on" (appendix C): which configs it adds, where.

    Attributes:
        name: ``semantics``, ``twins``, ``gan`` or ``diagnostics``.
        folds: per dataset, the folds of the full profile it runs on (``None``: every fold); the
            quick profile runs COMPAS's first fold only.
        cut: what was cut from the issue's request to fit the full mode's budget, and why ("" if nothing).
    """

    name: str
    folds: Mapping[str, tuple[int, ...] | None]
    cut: str = ""


#: The fuzzy logics the semantics study runs besides the paper's product logic.
STUDY_LOGICS: tuple[str, ...] = ("lukasiewicz", "godel", "goguen")
#: The GAN seeds of the GAN study per dataset (seed 0 is the paper grid's GAN; its key carries no tag).
#: Lawschool has two: its third seed, both variants on five folds, would cost about 1,600 core-seconds and
#: put the full mode over its 25,000 (benchmarks/results/studies_cost.json). Adult: seed 0 only.
STUDY_GAN_SEEDS: dict[str, tuple[int, ...]] = {"compas": (0, 1, 2), "lawschool": (0, 1), "adult": (0,)}
#: The four studies. Costs are core-seconds on this machine's 2 cores, estimated from the committed
#: records' per-record times and one measured COMPAS fold of each new kind (the released GAN costs 1.4
#: times the re-implemented one): about 5,900 for the studies, 23,600 for the whole full mode
#: (``benchmarks/results/studies_cost.json``, ``benchmarks/bench_studies.py``).
STUDIES: dict[str, Study] = {
    # Q1/Q2's LTN settings (acc+CF, acc+CF_sg) under each other logic; the pre-training is the fold's
    # (the logic acts on the pair axioms only). Adult left out: a fairness stage there costs 60–100 s.
    "semantics": Study("semantics", {"compas": None, "lawschool": None}),
    # Table 1's LTN settings and CNF trained and scored on the sound twins. Adult on 2 of 5 folds: a fold
    # of its settings and CNF costs about 370 core-seconds.
    "twins": Study("twins", {"compas": None, "lawschool": None, "adult": (0, 1)},
                   "Adult on folds 0 and 1 only (about 370 core-seconds a fold; the whole study about 1,330)"),
    # The GAN as released (seeds 0-2) and as re-implemented (seeds 1 and 2 beside the paper grid's 0), and the
    # LTN trained on the released GAN's twins (seed 0). Adult: one fold, one seed. The released GAN keeps the
    # full profile's GAN_FULL_CHANGES (one latent sample per row in the penalty, the predictor stopped early):
    # the release's 20 samples and 1000 predictor epochs cost about 100 times as much (300 s against 3 s for
    # the predictor on COMPAS fold 0), so no run here has them.
    "gan": Study("gan", {"compas": None, "lawschool": None, "adult": (0,)},
                 "Lawschool: two GAN seeds, not three (a third would put the full mode over budget); Adult: one fold "
                 "and one seed; every run keeps the full profile's early-stopped predictor with one latent sample per "
                 "row (the release's 20 samples and 1000 epochs cost about 100 times as much)"),
    # The saturation of an LTN whose A4 is Eq-bodied (binary targets; Lawschool's A4 is Eq-bodied already).
    "diagnostics": Study("diagnostics", {"adult": (0,), "compas": (0,)}),
}


def _study_folds(study: Study, profile_name: Mode, dataset: str, fold: int) -> bool:
    if profile_name == "quick":
        return dataset == "compas" and fold == profile(profile_name).folds[0]
    if dataset not in study.folds:
        return False
    folds = study.folds[dataset]
    return folds is None or fold in folds


def study_grid(profile_name: Mode, dataset: str, fold: int) -> list[ExperimentConfig]:
    """The configs of appendix C's studies (:data:`STUDIES`) on one dataset × fold; every one carries
    options or a seed tag, so none is a config of the paper's protocol:

    * ``semantics``: LTN(acc+CF) and LTN(acc+CF_sg) with ``semantics=`` each of :data:`STUDY_LOGICS`
      (quick: LTN(acc+CF) only);
    * ``twins``: LTN(acc), LTN(acc+CF), LTN(acc+CF_sg) and CNF with ``twins="default"``;
    * ``gan``: the GAN with ``gan_variant="released"`` for each of the dataset's :data:`STUDY_GAN_SEEDS`,
      the re-implemented GAN for the seeds besides 0 (tag ``seed{s}``), and LTN(acc+CF) on the released
      GAN's twins (quick mode: seed 0 only);
    * ``diagnostics``: LTN(acc+CF) with ``a4_body="eq"``.
    """
    base = ExperimentConfig(dataset, fold, "ltn_acc", profile=profile_name)
    quick = profile_name == "quick"
    out: list[ExperimentConfig] = []
    if _study_folds(STUDIES["semantics"], profile_name, dataset, fold):
        settings = ("ltn_acc_cf",) if quick else ("ltn_acc_cf", "ltn_acc_cf_sg")
        out += [replace(base, setting=s, options=(("semantics", name),)) for name in STUDY_LOGICS for s in settings]
    if _study_folds(STUDIES["twins"], profile_name, dataset, fold):
        out += [replace(base, setting=s, options=(("twins", "default"),)) for s in ("ltn_acc", "ltn_acc_cf", "ltn_acc_cf_sg", "cnf")]
    if _study_folds(STUDIES["gan"], profile_name, dataset, fold):
        seeds = (0,) if quick else STUDY_GAN_SEEDS.get(dataset, (0,))
        released = (("gan_variant", "released"),)
        for s in seeds:
            tag = f"seed{s}" if s else ""
            out.append(replace(base, setting="gan", seed=s, tag=tag, options=released))
            if s:
                out.append(replace(base, setting="gan", seed=s, tag=tag))
        out.append(replace(base, setting="ltn_acc_cf", cf_source="gan", options=released))
    if _study_folds(STUDIES["diagnostics"], profile_name, dataset, fold):
        out.append(replace(base, setting="ltn_acc_cf", options=(("a4_body", "eq"),)))
    return out
