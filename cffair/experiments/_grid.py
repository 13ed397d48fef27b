"""The grid behind the book's tables: which configs the protocol, its investigations, its
repetitions and appendix C's studies run (:func:`paper_grid`); the configs themselves are
:mod:`cffair.experiments._config`'s."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from cffair.experiments import _registry as registry
from cffair.experiments._config import BEYOND_FOLDS, ConfigError, ExperimentConfig, Mode, profile, with_weights
from cffair.experiments._protocol import Protocol, protocol

__all__ = [
    "CKE_ALL_FOLDS",
    "FINE_GRID_DATASETS",
    "Q2_ADULT",
    "Q2_VARIANTS",
    "REPEATS",
    "STUDIES",
    "STUDY_GAN_SEEDS",
    "STUDY_LOGICS",
    "Study",
    "WEIGHT_GRID",
    "WEIGHT_GRID_FINE",
    "investigation_grid",
    "paper_grid",
    "repeat_grid",
    "replicate",
    "study_grid",
    "study_logics",
]

#: Like :mod:`cffair.experiments._config`, the grid is data: it decides which configs exist, not what
#: any of them computes, so a change here (a study added, cut or moved) stales no record that stays in it.
FINGERPRINT_EXEMPT = True


# ============================================================================ the grid
#: Appendix B: (accuracy weight, CF weight) pairs besides the equal-weights default.
WEIGHT_GRID: tuple[tuple[float, float], ...] = ((3.0, 1.0), (1.0, 3.0))
#: Repeated cross-validation (full profile only): how many partitions of the rows into 5 folds each
#: dataset runs (repetition r partitions with seed r; repetition 0 is the paper's), as the pre-registered
#: protocol fixes them (``cffair/data/protocol.yaml``, :mod:`cffair.experiments._protocol`: 3 on every dataset, Adult
#: included). The quick profile runs one partition.
REPEATS: dict[str, int] = {d: n for d, n in protocol().repetitions.items() if n > 1}
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
WEIGHT_GRID_FINE: tuple[tuple[float, float], ...] = (
    (27.0, 1.0),
    (9.0, 1.0),
    (3.0, 1.0),
    (1.0, 1.0),
    (1.0, 3.0),
    (1.0, 9.0),
    (1.0, 27.0),
)
#: The datasets of the finer grid (every fold): COMPAS and Lawschool, where a fairness stage is cheap;
#: Adult keeps appendix B's three points. The quick profile runs it on COMPAS only, as before.
FINE_GRID_DATASETS: tuple[str, ...] = ("compas", "lawschool")


def _ltn_variant(
    base: ExperimentConfig, tag: str, acc_w: float, cf_w: float, options: Mapping[str, Any], fair_epochs: int
) -> ExperimentConfig:
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
    if "appendix_b_why" in groups and (
        dataset == "compas" or (dataset in FINE_GRID_DATASETS and profile_name == "full")
    ):
        out += [
            _ltn_variant(base, "" if a == c else f"w{a:g}-{c:g}", a, c, {"fair_p": 1.0}, prof.fair_epochs)
            for a, c in WEIGHT_GRID_FINE
        ]
    return out


#: The question groups whose configs :func:`paper_grid` builds by the protocol's own rules; any other
#: registered group runs its methods (:func:`cffair.experiments._registry.grid_methods`) on every fold.
_PROTOCOL_GROUPS: frozenset[str] = frozenset(
    {
        "q1",
        "q2",
        "q3",
        "q4",
        "appendix_a",
        "appendix_b",
        "appendix_c",
        "beyond",
        "q2_why",
        "q3_why",
        "q4_why",
        "appendix_b_why",
        "appendix_c_studies",
    }
)


def paper_grid(
    profile_name: Mode = "full", datasets: Sequence[str] | None = None, only: Iterable[str] | None = None
) -> list[ExperimentConfig]:
    """Every config behind the book's tables and figures.

    ``only`` picks question groups: ``q1`` (LTN acc / acc+CF / acc+CF_sg), ``q2`` (baselines),
    ``q3`` (CKE settings), ``q4`` (the queries, on the acc+CF records), ``appendix_a`` (LTN on
    the GAN's counterfactuals), ``appendix_b`` (axiom weights), ``appendix_c`` (Table 1's
    configs, ``TABLE1_SETTINGS``, whose records also hold the scores on the rulers), and the
    investigations of the claims that fail (``INVESTIGATION_GROUPS``,
    :func:`investigation_grid`). Default: all.

    Where the full protocol is cut to fit the time budget (documented on the *Reproducing*
    page): the CKE settings of Adult and Lawschool run on fold 0 only (Table 3 of the paper is
    one run; Table 2, COMPAS, is 5-fold); the weight grid has the points of
    :data:`WEIGHT_GRID`; the extra baselines (``EXTRA_BASELINES``, not the paper's) run on
    fold 0 only.

    Which methods a group runs is the registry's (:attr:`cffair.experiments._registry.Method.groups`): Q1's
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
                    cfgs.append(
                        with_weights(
                            replace(base, setting="ltn_acc_cf", tag=f"w{acc_w:g}-{cf_w:g}"), acc=acc_w, cf=cf_w
                        )
                    )
            cfgs += investigation_grid(profile_name, ds, fold, groups & set(registry.groups(investigations=True)))
            if groups & set(registry.groups(kind="study")):
                cfgs += study_grid(profile_name, ds, fold)
            beyond_folds = BEYOND_FOLDS.get(ds, ())
            if "beyond" in groups and ds in BEYOND_FOLDS and (beyond_folds is None or fold in beyond_folds):
                cfgs += [replace(base, setting=s) for s in registry.grid_methods("beyond")]
            for g in sorted(groups - _PROTOCOL_GROUPS):  # a chapter registered beyond the book's: its methods
                cfgs += [
                    replace(base, setting=m)
                    for m in registry.grid_methods(g)
                    if not registry.method(m).first_fold_only or fold == prof.folds[0]
                ]
    cfgs += repeat_grid(profile_name, registry.dataset_names() if datasets is None else datasets, groups)
    if profile_name == "full":
        cfgs = replicate(cfgs)
    return list(dict.fromkeys(cfgs))


# ============================================================================ the protocol's factors
#: The settings a twin treatment applies to (trained on the flow's twins; ``ltn_acc`` is scored on them).
_TWIN_SETTINGS: tuple[str, ...] = ("ltn_acc", "ltn_acc_cf", "ltn_acc_cf_sg", "cnf")


def replicate(cfgs: Sequence[ExperimentConfig], plan: Protocol | None = None) -> list[ExperimentConfig]:
    """``cfgs`` with the pre-registered protocol's factors added (``plan``, default :func:`cffair.experiments._protocol.protocol`):

    * seeds: every config of the paper's protocol (no tag, no option, seed 0, the flow's twins) gets the
      protocol's other training seeds where :meth:`~cffair.experiments._protocol.Protocol.seeds_for` gives them (every LTN
      setting it names; each baseline on its datasets), on every repetition and fold it already runs;
    * twins: each of those (every seed) of a setting that learns from the flow's twins (LTN(acc) and its CF settings, CNF)
      gets the sound treatment (option ``twins="default"``) when the protocol names it.

    Seed 0 and the paper's twins are the configs as they were (same keys, same records); the rest come after
    them, in the order of ``cfgs``, without duplicates.
    """
    plan = plan or protocol()
    out = list(cfgs)
    plain = [c for c in cfgs if not c.tag and not c.options and not c.seed and c.cf_source == "cnf"]
    seeded = [replace(c, seed=s) for c in plain for s in plan.seeds_for(c.setting, c.dataset)]
    out += [c for c in seeded if c.seed]
    if "default" in plan.twins:
        out += [replace(c, options=(("twins", "default"),)) for c in seeded if c.setting in _TWIN_SETTINGS]
    return list(dict.fromkeys(out))


def repeat_grid(profile_name: Mode, datasets: Sequence[str], groups: Iterable[str]) -> list[ExperimentConfig]:
    """The configs of the repetitions of cross-validation (:data:`REPEATS`, full profile only):
    for each repetition r ≥ 1 of a dataset, every fold of ``REPEAT_SETTINGS`` that ``groups``
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


def study_logics(dataset: str) -> tuple[str, ...]:
    """The logics of :data:`STUDY_LOGICS` that can act on ``dataset``'s axioms: on a score target
    (Lawschool) every one but Gödel, whose t-norm has no equality of real scores
    (:mod:`cffair.logic._fuzzy`: its runs there would be the product logic's, so the study does not count them)."""
    from cffair.logic._fuzzy import logic

    entry = registry.DATASETS.get(dataset)
    if entry is None or entry.target_kind != "score":
        return STUDY_LOGICS
    return tuple(n for n in STUDY_LOGICS if logic(n).acts_on_scores)


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
    "twins": Study(
        "twins",
        {"compas": None, "lawschool": None, "adult": (0, 1)},
        "Adult on folds 0 and 1 only (about 370 core-seconds a fold; the whole study about 1,330)",
    ),
    # The GAN as released (seeds 0-2) and as re-implemented (seeds 1 and 2 beside the paper grid's 0), and the
    # LTN trained on the released GAN's twins (seed 0). Adult: one fold, one seed. The released GAN keeps the
    # full profile's GAN_FULL_CHANGES (one latent sample per row in the penalty, the predictor stopped early):
    # the release's 20 samples and 1000 predictor epochs cost about 100 times as much (300 s against 3 s for
    # the predictor on COMPAS fold 0), so no run here has them.
    "gan": Study(
        "gan",
        {"compas": None, "lawschool": None, "adult": (0,)},
        "Lawschool: two GAN seeds, not three (a third would put the full mode over budget); Adult: one fold "
        "and one seed; every run keeps the full profile's early-stopped predictor with one latent sample per "
        "row (the release's 20 samples and 1000 epochs cost about 100 times as much)",
    ),
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
      that can act on the dataset (:func:`study_logics`: no Gödel on Lawschool; quick: LTN(acc+CF) only);
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
        out += [
            replace(base, setting=s, options=(("semantics", name),)) for name in study_logics(dataset) for s in settings
        ]
    if _study_folds(STUDIES["twins"], profile_name, dataset, fold):
        out += [
            replace(base, setting=s, options=(("twins", "default"),))
            for s in ("ltn_acc", "ltn_acc_cf", "ltn_acc_cf_sg", "cnf")
        ]
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
