"""Your own data, end to end: the paper's protocol on a CSV of your own (``cffair run``).

:func:`run` takes a CSV, its spec and causal graph, and runs what the book runs on the paper's
datasets, through the same machinery:

1. **Counterfactuals**: one causal flow fitted on every row's features, generating the sensitive
   flip and each immutable feature's interventions (:mod:`cffair.experiments._pipeline.counterfactuals`),
   with the library's default treatment of discrete columns (the paper's datasets keep the
   paper's; ``categorical="flow"`` picks the paper's for nominal columns here too).
2. **The grid**: for each of ``folds`` seeded stratified folds, the LTN pre-trained once on the
   accuracy axioms with every chosen LTN setting continuing from it (CKE and the queries of
   equation (3) per subgroup included), and every chosen baseline
   (:func:`cffair.workflows.run_grid`, one record per fold × method in a
   :class:`~cffair.experiments.ResultsStore` with the same fingerprints as the book's results).
3. **The report**: ``report.html`` in the results folder (:mod:`cffair.reporting._report`).

The dataset becomes loadable by name in the worker processes through
:func:`cffair.datasets.register`. Every option is checked (:func:`plan`) before any model is
fitted; a second run with the same options and files recomputes only records whose code, data,
spec, graph or settings changed.

Example::

    from cffair.workflows._own import run
    result = run("credit.csv", "examples/credit/spec.yaml", folds=5, quick=True, out="runs/credit")
    print(result.report)

The results folder holds ``records/`` (one JSON file per fold × method), ``run.json`` (the
options, the dataset registration, warnings, wall time per stage) and ``report.html``.
"""

from __future__ import annotations

__all__ = [
    "DEFAULT_BASELINES",
    "SAVABLE_SETTINGS",
    "OwnRun",
    "Plan",
    "default_out",
    "fit_models",
    "normalise_settings",
    "plan",
    "run",
]

import sys
import time
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, cast

from cffair import datasets as D
from cffair.errors import CffairWarning, RunError
from cffair.experiments import _registry as registry
from cffair.experiments._config import ConfigError, ExperimentConfig
from cffair.experiments._store import ResultsStore
from cffair.workflows._own_options import DEFAULT_PATIENCE, RunOptions

#: Baselines run when none are chosen: Table 1's (the CNF-augmented MLP, the GAN, DCEVAE): the
#: registry's paper baselines (:func:`cffair.experiments.paper_baselines`, read when a plan is made).
DEFAULT_BASELINES: tuple[str, ...] = registry.paper_baselines()
#: joblib backends accepted (``dask`` needs the ``cluster`` extra).
_BACKENDS = ("loky", "multiprocessing", "threading", "sequential", "dask")
_CATEGORICAL = ("gumbel", "flow", "paper")


@dataclass(frozen=True)
class Plan:
    """A checked request: what :func:`run` will compute and where it writes."""

    name: str
    data: str
    spec: str | dict[str, Any]
    graph: str | dict[str, Any] | None
    settings: tuple[str, ...]
    baselines: tuple[str, ...]
    folds: int
    profile: str
    seed: int
    jobs: int
    out: str
    categorical: str | None = None
    backend: str | None = None
    notes: tuple[str, ...] = field(default=())
    flow_settings: tuple[tuple[str, Any], ...] = field(default=())
    #: the LTN settings' training options (``lr``, ``fair_epochs``, ``fair_p``; :data:`cffair.experiments.OPTIONS`)
    ltn_options: tuple[tuple[str, Any], ...] = field(default=())
    #: the LTN settings' axiom-group weights (appendix B; groups left out keep weight 1)
    weights: tuple[tuple[str, float], ...] = field(default=())

    @property
    def methods(self) -> tuple[str, ...]:
        """LTN settings then baselines, in the order the report shows them."""
        return self.settings + self.baselines

    def configs(self) -> list[ExperimentConfig]:
        """One config per fold × method."""
        out = []
        for fold in range(self.folds):
            for m in self.methods:
                cfg = ExperimentConfig(self.name, fold, m, profile=self.profile, seed=self.seed, n_folds=self.folds)  # type: ignore[arg-type]
                if m in registry.ltn_settings() and (self.ltn_options or self.weights):
                    from dataclasses import replace

                    cfg = replace(
                        cfg,
                        options=tuple(sorted(self.ltn_options)),
                        weights=tuple(sorted({**cfg.weight_map, **dict(self.weights)}.items())),
                    )
                out.append(cfg)
        return out

    def flow(self) -> dict[str, Any]:
        """Flow settings of the registration (empty: the library's defaults)."""
        return {**dict(self.flow_settings), **({} if self.categorical is None else {"categorical": self.categorical})}

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["settings"], d["baselines"], d["notes"] = list(self.settings), list(self.baselines), list(self.notes)
        d["flow_settings"] = dict(self.flow_settings)
        d["ltn_options"], d["weights"] = dict(self.ltn_options), dict(self.weights)
        return d


#: The LTN settings :func:`fit_models` can save (CKE settings add axioms from explanations of
#: training rows, which a model of every row would have to recompute).
SAVABLE_SETTINGS: tuple[str, ...] = ("ltn_acc", "ltn_acc_cf", "ltn_acc_cf_sg")


def fit_models(p: Plan, ds: D.Dataset, folder: Path, *, progress: bool = False) -> dict[str, Path]:
    """Each of the plan's LTN settings in :data:`SAVABLE_SETTINGS` trained on every row (the
    profile's epochs, learning rate and, in quick mode, row cap) and saved as ``<setting>.cffair``.
    A classifier is calibrated as ``cffair fit`` calibrates by default: trained on all but a stratified
    :data:`~cffair.learners._calibration.DEFAULT_SHARE` of the rows, with a
    :data:`~cffair.learners._calibration.DEFAULT_METHOD` map fitted on those
    (:func:`cffair.learners.calibrated_fit`), so that ``cffair predict`` gives its calibrated
    probability.

    Returns:
        ``{setting: path}``.
    """
    from cffair._support.validation import SETTING_GROUPS
    from cffair.experiments._config import profile
    from cffair.learners._calibration import DEFAULT_METHOD, DEFAULT_SHARE, calibrated_fit
    from cffair.learners._estimator import CounterfactualFairClassifier, CounterfactualFairRegressor
    from cffair.learners._model import save_model

    prof = profile(p.profile)
    frame, spec = ds
    if prof.max_rows is not None and len(frame) > prof.max_rows:
        frame = frame.sample(n=prof.max_rows, random_state=0).reset_index(drop=True)
    cls = CounterfactualFairClassifier if spec.target_kind == "binary" else CounterfactualFairRegressor
    out: dict[str, Path] = {}
    from tqdm.auto import tqdm

    chosen = [s for s in p.settings if s in SAVABLE_SETTINGS]
    # one bar for the stage (a bar per epoch stage of every model printed ~1,500 lines in a log)
    for setting in tqdm(chosen, desc="models", unit="model", disable=not progress):
        opts = dict(p.ltn_options)
        est = cls(
            spec,
            setting=setting.removeprefix("ltn_"),
            lr=opts.get("lr", prof.lr),
            pretrain_epochs=prof.pretrain_epochs,
            fair_epochs=opts.get("fair_epochs", prof.fair_epochs),
            patience=opts.get("patience"),
            fair_p=opts.get("fair_p"),
            verbose=False,
            group_weights={g: w for g, w in p.weights if g in SETTING_GROUPS[setting.removeprefix("ltn_")]} or None,
            seed=p.seed,
            progress=False,
            flow_config={**p.flow(), "epochs": prof.flow_epochs},
        )
        target = folder / f"{setting.removeprefix('ltn_')}.cffair"
        if spec.target_kind == "binary":  # as `cffair fit` does: a calibration map fitted on a held-out split
            est, calibration, _ = calibrated_fit(
                est,
                frame[list(spec.features)],
                frame[spec.target].to_numpy(),
                method=DEFAULT_METHOD,
                share=DEFAULT_SHARE,
                seed=p.seed,
            )
            out[setting] = save_model(est, target, training_frame=frame, calibration=calibration)
        else:
            est.fit(frame[list(spec.features)], frame[spec.target])
            out[setting] = save_model(est, target, training_frame=frame)
    return out


@dataclass
class OwnRun:
    """What :func:`run` produced."""

    plan: Plan
    out: Path
    report: Path | None  # None after counterfactuals_only
    records: list[dict[str, Any]]
    stage_seconds: dict[str, float]
    warnings: list[str]
    computed: int
    models: dict[str, Path] | None = None  # with save_models: setting -> saved model


# ============================================================================ checking
def normalise_settings(settings: Sequence[str] | str | None) -> tuple[str, ...] | None:
    """LTN settings by their record names (``ltn_acc_cf``) or short names (``acc_cf``), in the
    paper's order, without repeats; ``None`` stays ``None`` (the default)."""
    if settings is None:
        return None
    if isinstance(settings, str):
        settings = [s for s in settings.replace(",", " ").split() if s]
    out = []
    for s in settings:
        try:
            out.append(registry.ltn_setting(s))
        except registry.RegistryError as exc:
            raise ConfigError(str(exc)) from None
    return tuple(x for x in registry.ltn_settings() if x in out)


def _baselines(baselines: Sequence[str] | str | None) -> tuple[str, ...]:
    if baselines is None:
        return registry.paper_baselines()
    if isinstance(baselines, str):
        baselines = [b for b in baselines.replace(",", " ").split() if b]
    known = registry.baselines()
    bad = [b for b in baselines if b not in known]
    if bad:
        raise ConfigError(f"unknown baseline(s) {bad}; choose from {', '.join(known)}.")
    return tuple(b for b in known if b in baselines)


def default_out(name: str, profile: str) -> Path:
    """The results folder when none is given: ``cffair-results/<name>-<profile>`` in the working directory."""
    return Path("cffair-results") / f"{name}-{profile}"


def _whole(value: Any, what: str, minimum: int, example: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise ConfigError(f"{what} must be a whole number >= {minimum}, got {value!r}; e.g. {example}.")
    return value


def _file_ref(ref: Any, what: str) -> str | dict[str, Any] | None:
    if ref is None or isinstance(ref, Mapping):
        return None if ref is None else dict(ref)
    p = Path(ref).expanduser()
    if not p.is_file():
        raise ConfigError(
            f"{what} {p}: {'no such file' if not p.exists() else 'not a file'}; give the path of your {what}."
        )
    return str(p.resolve())


def _flow_settings(flow: Mapping[str, Any] | None) -> dict[str, Any]:
    """Flow settings a user may change (every :class:`~cffair.causal.FlowConfig` key but the
    epochs, which the profile sets), checked."""
    if flow is None:
        return {}
    if not isinstance(flow, Mapping):
        raise ConfigError(f"flow must be a mapping of flow settings, e.g. {{'hidden': [64, 64, 64]}}, got {flow!r}.")
    from cffair.causal._config import FlowConfig

    if "epochs" in flow:
        raise ConfigError(
            "flow may not set 'epochs': the profile does (1000 with early stopping in full, 20 in quick)."
        )
    unknown = sorted(set(flow) - set(FlowConfig.__dataclass_fields__))
    if unknown:
        raise ConfigError(
            f"unknown flow setting(s) {unknown}; the settings are those of cffair.causal.FlowConfig "
            f"({', '.join(k for k in FlowConfig.__dataclass_fields__ if k != 'epochs')})."
        )
    out = dict(flow)
    if "hidden" in out:
        out["hidden"] = [int(h) for h in out["hidden"]]
    try:
        FlowConfig.from_dict(out)
    except (TypeError, ValueError) as exc:
        raise ConfigError(f"bad flow settings {out}: {exc}") from None
    return out


def plan(
    data: str | Path,
    spec: str | Path | Mapping[str, Any],
    graph: str | Path | Mapping[str, Any] | None = None,
    *,
    options: RunOptions | None = None,
) -> tuple[Plan, D.Dataset]:
    """Check every option and the data, spec and graph, before any model is fitted.

    Loading the CSV is part of the check (it is read and validated, which is cheap next to the
    flow and the models). ``data``, ``spec`` and ``graph`` are those of :func:`run`; ``options`` its
    other keywords (default: every option's default).

    Returns:
        The plan and the loaded dataset.

    Raises:
        ConfigError: for an option that is wrong (naming it and what to use instead).
        DataError, SpecError, GraphError: for the data, spec or graph (file, line, column).
    """
    if isinstance(graph, RunOptions):
        raise ConfigError("the third argument is the graph; pass the options by name: plan(data, spec, options=...).")
    if options is None:
        options = RunOptions()
    elif not isinstance(options, RunOptions):
        raise ConfigError(f"options must be a RunOptions, got {type(options).__name__}; e.g. RunOptions(folds=5).")
    o = options
    settings, baselines, out, name, flow, weights = o.settings, o.baselines, o.out, o.name, o.flow, o.weights
    categorical, backend, sep, decimal, lr, fair_epochs, fair_p = (
        o.categorical,
        o.backend,
        o.sep,
        o.decimal,
        o.lr,
        o.fair_epochs,
        o.fair_p,
    )
    quick, patience = o.quick, o.patience
    folds = _whole(o.folds, "folds", 2, "folds=5 (the paper's)")
    jobs = _whole(o.jobs, "jobs", 1, "jobs=2")
    seed = _whole(o.seed, "seed", 0, "seed=0")
    if not isinstance(quick, bool):
        raise ConfigError(f"quick must be True or False, got {quick!r}.")
    if patience is not None:
        patience = _whole(patience, "patience", 1, "patience=100, or None for the paper's fixed epochs")
    if categorical is not None and categorical not in _CATEGORICAL:
        raise ConfigError(
            f"categorical must be one of {', '.join(_CATEGORICAL)} (or None for the library's default), got {categorical!r}."
        )
    if backend is not None and backend not in _BACKENDS:
        raise ConfigError(f"unknown backend {backend!r}; choose one of {', '.join(_BACKENDS)} (default loky).")
    flow_settings = _flow_settings(flow)
    chosen = normalise_settings(settings)
    base = _baselines(baselines)
    data_ref = _file_ref(data, "data file")
    if not isinstance(data_ref, str):
        raise ConfigError(f"data must be the path of a CSV file, got {type(data).__name__}.")
    spec_ref = cast("str | dict[str, Any]", _file_ref(spec, "spec file"))  # spec is not None: a file or a mapping
    graph_ref = _file_ref(graph, "graph file")
    profile = "quick" if quick else "full"
    if out is not None and Path(out).exists() and not Path(out).is_dir():
        raise ConfigError(f"out {out} is a file; give a folder for the results (it is created if missing).")

    raw = D.read_spec(spec_ref)
    spec_name = raw.name if isinstance(raw, D.DatasetSpec) else raw.get("name")
    ds_name = name or (str(spec_name) if spec_name and spec_name != "custom" else Path(data_ref).stem)
    if D.is_builtin(ds_name):
        raise ConfigError(
            f"the name {ds_name!r} is a built-in dataset's; name yours differently (name=..., --name, or 'name:' in the spec)."
        )
    treatment = {**flow_settings, **({"categorical": categorical} if categorical else {})}
    if sep is not None and (not isinstance(sep, str) or len(sep) != 1):
        raise ConfigError(
            f"sep must be one character (the CSV's column separator, e.g. ';'), or None to sniff it; got {sep!r}."
        )
    if decimal is not None and decimal not in (".", ","):
        raise ConfigError(f"decimal must be '.' or ',' (the decimal mark of the CSV's numbers), got {decimal!r}.")
    read = {k: v for k, v in (("sep", sep), ("decimal", decimal)) if v}
    ds = D.register(ds_name, data_ref, spec_ref, graph_ref, flow=treatment, **read)
    frame, ds_spec = ds
    if ds_spec.graph is None:
        raise ConfigError(
            f"dataset {ds_name!r} has no causal graph: counterfactuals need one. Add 'graph: graph.yaml' to the spec "
            "or pass a graph file (--graph); the format is in cffair.datasets._graph."
        )
    notes: list[str] = []
    from cffair.evaluation._cke import cke_features

    if chosen is None:
        chosen = registry.ltn_settings()
        if not cke_features(ds_spec):
            chosen = tuple(s for s in registry.ltn_settings() if not s.endswith("_cke"))
            notes.append(
                "no immutable feature besides the sensitive attribute, so the CKE settings were left out "
                "(list immutable features under 'immutable:' in the spec to run them)."
            )
    elif any(s.endswith("_cke") for s in chosen) and not cke_features(ds_spec):
        raise ConfigError(
            f"the CKE settings need an immutable feature other than the sensitive attribute {ds_spec.sensitive!r}, "
            f"and {ds_name!r} lists {list(ds_spec.immutable) or 'none'}; add some under 'immutable:' in the spec "
            "or leave the *_cke settings out."
        )
    if not chosen and not base:
        raise ConfigError("nothing to run: choose at least one LTN setting or baseline.")
    if weights:
        from cffair._support.validation import check_group_weights

        check_group_weights(weights, chosen, input_name="weights", setting_name="settings", error=ConfigError)
    folds_made = D.make_folds(frame, ds_spec, n_splits=folds, seed=0)
    for f in folds_made:
        D.check_subgroups(frame, ds_spec, f.train, what=f"the training rows of fold {f.index} of {folds}")
    out_path = Path(out) if out is not None else default_out(ds_name, profile)
    p = Plan(
        ds_name,
        data_ref,
        spec_ref,
        graph_ref,
        chosen,
        base,
        folds,
        profile,
        seed,
        jobs,
        str(out_path.resolve()),
        categorical,
        backend,
        tuple(notes),
        tuple(sorted(flow_settings.items())),
        tuple(
            sorted(
                {
                    k: v
                    for k, v in (
                        ("lr", lr),
                        ("fair_epochs", fair_epochs),
                        ("fair_p", fair_p),
                        ("patience", patience if profile == "full" else None),  # quick's epochs are few already
                    )
                    if v is not None
                }.items()
            )
        ),
        tuple(sorted((weights or {}).items())),
    )
    p.configs()  # every config is valid (options and weights checked by ExperimentConfig)
    return p, ds


# ============================================================================ running
def _collect(caught: Sequence[warnings.WarningMessage]) -> list[warnings.WarningMessage]:
    seen: dict[tuple[type, str], warnings.WarningMessage] = {}
    for w in caught:
        seen.setdefault((w.category, str(w.message)), w)
    return list(seen.values())


def run(
    data: str | Path,
    spec: str | Path | Mapping[str, Any],
    graph: str | Path | Mapping[str, Any] | None = None,
    *,
    settings: Sequence[str] | str | None = None,
    baselines: Sequence[str] | str | None = None,
    folds: int = 5,
    quick: bool = False,
    seed: int = 0,
    jobs: int = 1,
    out: str | Path | None = None,
    name: str | None = None,
    categorical: str | None = None,
    backend: str | None = None,
    flow: Mapping[str, Any] | None = None,
    sep: str | None = None,
    decimal: str | None = None,
    counterfactuals_only: bool = False,
    save_models: bool = False,
    lr: float | None = None,
    fair_epochs: int | None = None,
    fair_p: float | None = None,
    weights: Mapping[str, float] | None = None,
    progress: bool = True,
    patience: int | None = DEFAULT_PATIENCE,
) -> OwnRun:
    """Run the paper's protocol on a CSV of your own and write a report.

    Besides the arguments below, every keyword from ``settings`` to ``patience`` is one of the run's
    options, as :class:`~cffair.workflows.RunOptions` documents it (same name, same default).

    Args:
        data: the CSV file (format in :mod:`cffair.datasets`).
        spec: its YAML spec file (or the mapping).
        graph: a YAML causal graph (format in :mod:`cffair.datasets._graph`) replacing the spec's
            ``graph``.
        counterfactuals_only: stop after the counterfactuals: check the flow's warnings (and
            the options) before the long run. No records, no report; ``run.json`` lists the
            warnings.
        save_models: after the protocol, train each chosen LTN setting among ``acc``,
            ``acc_cf`` and ``acc_cf_sg`` on every row (the profile's epochs; quick: its row
            cap) and save it as a self-contained model (:mod:`cffair.learners._model`) in ``models/``.
        progress: progress bars and messages on stderr.

    Returns:
        An :class:`OwnRun` with the records, the report's path and the wall time per stage.

    Raises:
        RunError: (a ``RuntimeError``) the grid left no readable record of some configurations; the rest: :func:`plan`.
    """
    from cffair.experiments._pipeline.counterfactuals import prepare_counterfactuals
    from cffair.reporting._report import write_report
    from cffair.workflows._reproduce import run_grid, status

    given = locals()
    p, ds = plan(data, spec, graph, options=RunOptions(**{k: given[k] for k in RunOptions.names()}))
    if not isinstance(counterfactuals_only, bool):
        raise ConfigError(f"counterfactuals_only must be True or False, got {counterfactuals_only!r}.")
    out_dir = Path(p.out)
    from cffair._support.io import writable_dir
    from cffair.causal._cache import cache_dir

    # before any work: the results folder and the cache take files (a full disk shows at the write)
    writable_dir(out_dir, what="results folder", hint="choose another folder with --out")
    writable_dir(cache_dir(), what="cache folder", hint="set CFFAIR_CACHE to a writable folder")
    store = ResultsStore(out_dir)
    cfgs = p.configs()
    reg = D.registration(p.name)
    say = (lambda msg: print(f"cffair: {msg}", file=sys.stderr)) if progress else (lambda msg: None)
    times: dict[str, float] = {}
    pending = 0
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        t0 = time.perf_counter()
        from cffair.workflows._own_cost import estimate_text

        say(f"{p.name}: {len(ds.frame):,} rows, {len(cfgs)} runs; {estimate_text(p, len(ds.frame))}")
        say(f"counterfactuals (causal flow, {p.profile} profile) ...")
        known = prepare_counterfactuals(p.profile, [p.name], jobs=1)
        times["counterfactuals"] = round(time.perf_counter() - t0, 1)
        if not counterfactuals_only:
            known_inputs = {p.name: {"counterfactuals": known[p.name]}}
            pending = int((status(store, cfgs, known_inputs=known_inputs)["state"] != "fresh").sum())
            say(
                f"{len(cfgs)} runs ({p.folds} folds x {len(p.methods)} methods), {pending} to compute "
                f"({len(cfgs) - pending} fresh), with {p.jobs} worker(s), into {out_dir} ..."
            )
            t0 = time.perf_counter()
            run_grid(
                cfgs,
                store,
                jobs=p.jobs,
                backend=p.backend,
                progress=progress,
                known_inputs=known_inputs,
            )
            times["experiments"] = round(time.perf_counter() - t0, 1)
    found = _collect(caught)
    for w in found:  # shown after the run as well as listed in the report
        warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    # the report lists cffair's own warnings (data, graph, counterfactuals), not a library's chatter
    messages = [f"{w.category.__name__}: {w.message}" for w in found if issubclass(w.category, CffairWarning)]
    info: dict[str, Any] = {
        "plan": p.to_dict(),
        "registration": reg.to_dict() if reg else None,
        "spec": ds.spec.to_dict(),
        "rows": len(ds.frame),
        "stage_seconds": times,
        "warnings": messages,
        "computed": pending,
        "majority": _majority_shares(p, ds),
        "counterfactuals": known[p.name],
        "counterfactuals_only": counterfactuals_only,
    }
    records: list[dict[str, Any]] = []
    report = None
    if not counterfactuals_only:
        found_records = [store.get(c) for c in cfgs]
        missing = [c.key for c, r in zip(cfgs, found_records, strict=True) if r is None]
        if missing:
            raise RunError(
                f"the grid finished, but the results folder {out_dir} holds no readable record for {len(missing)} "
                f"of its {len(cfgs)} configurations ({', '.join(missing[:5])}{', ...' if len(missing) > 5 else ''}): "
                "a record was removed or damaged while it ran; run the same command again to compute the missing ones."
            )
        records = [r for r in found_records if r is not None]
        t0 = time.perf_counter()
        report = write_report(out_dir / "report.html", records, ds, info)
        times["report"] = round(time.perf_counter() - t0, 1)
        if save_models:
            t0 = time.perf_counter()
            say("training the models on every row ...")
            info["models"] = {k: str(v) for k, v in fit_models(p, ds, out_dir / "models", progress=progress).items()}
            times["models"] = round(time.perf_counter() - t0, 1)
    from cffair._support.utils import write_json_atomic

    write_json_atomic(out_dir / "run.json", {**info, "stage_seconds": times}, what="run summary")
    models = {k: Path(v) for k, v in info.get("models", {}).items()} or None
    return OwnRun(p, out_dir, report, records, times, messages, pending, models)


def _majority_shares(p: Plan, ds: D.Dataset) -> dict[int, float]:
    """Share of the majority class among each fold's test rows (a constant predictor's
    accuracy), for a binary target; empty for a score."""

    frame, spec = ds
    if spec.target_kind != "binary":
        return {}
    y = frame[spec.target].to_numpy()
    out = {}
    for cfg in p.configs()[:: len(p.methods)]:
        _, test = cfg.split.rows(frame, spec)
        share = float(y[test].mean())
        out[cfg.fold] = max(share, 1 - share)
    return out
