"""Result records (one dataset × fold × setting, :mod:`cffair.experiments._pipeline`) as frames.

Everything here shapes data; nothing draws or renders. The tables (:mod:`._tables`), figures
(:mod:`._figures`) and the book's claims (``cffair_book.claims``) take the frames made here; the
investigations' frames are :mod:`._investigation_frames`'.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from cffair.errors import DataError
from cffair.experiments._config import ExperimentConfig, option_text
from cffair.reporting._names import (
    DATASET_ORDER,
    METRIC_ORDER,
    Q1_SETTINGS,
    RESULT_COLUMNS,
    SCALAR_METRICS,
    TABLE_METHODS,
    method_name,
    order_key,
)
from cffair.scores._screen import screen_metrics

if TYPE_CHECKING:  # reading records loads no store (a Record comes from as_records)
    from cffair.experiments._store import Record

__all__ = [
    "as_record",
    "as_records",
    "check_results",
    "cke_candidates",
    "find_record",
    "folds_per_dataset",
    "is_investigation",
    "mean_by_method",
    "mean_sd",
    "options_text",
    "paired_folds",
    "record_method",
    "record_repeat",
    "records_frame",
    "run_label",
    "results_long",
    "select_records",
    "subgroup_frame",
    "summarise_folds",
    "undesirable_ratio_frame",
    "weight_grid_frame",
]


# ---------------------------------------------------------------------------- long results frames
#: Columns a long results frame may carry besides :data:`RESULT_COLUMNS`: ``n`` (the folds behind a
#: mean) and ``collapsed`` (records of collapsed models in it).
OPTIONAL_RESULT_COLUMNS: tuple[str, ...] = ("n", "collapsed")


def rankable(frame: pd.DataFrame) -> pd.DataFrame:
    """The rows of a long results frame that may be ranked ("the best", in bold): those whose mean holds
    no collapsed model (a ``collapsed`` count of 0; every row when the frame has no such column).

    >>> rankable(pd.DataFrame({"method": ["a", "b"], "collapsed": [0, 2]}))["method"].tolist()
    ['a']
    """
    return frame[frame["collapsed"].fillna(0) == 0] if "collapsed" in frame.columns else frame


def check_results(frame: pd.DataFrame, what: str = "results") -> pd.DataFrame:
    """Validate a long results frame and return a clean copy.

    A results frame has the columns :data:`RESULT_COLUMNS` (``sd`` may be missing: it is then
    NaN) and at most one row per ``(table, dataset, metric, method)``; an ``n`` column (the folds
    behind each mean, which :func:`cffair.reporting.compare` needs for the standard error
    of a difference) and a ``collapsed`` column (the records of collapsed models in the mean,
    :func:`results_long`) are kept when present.

    Raises:
        DataError: naming missing columns or duplicated keys.
    """
    frame = frame.copy()
    if "sd" not in frame.columns:
        frame["sd"] = np.nan
    missing = [c for c in RESULT_COLUMNS if c not in frame.columns]
    if missing:
        raise DataError(
            f"{what} lack column(s) {missing}; a results frame has the columns {list(RESULT_COLUMNS)} "
            "(one row per table × dataset × metric × method; aggregate folds with summarise_folds first)."
        )
    keys = ["table", "dataset", "metric", "method"]
    dup = frame.duplicated(keys, keep=False)
    if dup.any():
        first = frame.loc[dup, keys].drop_duplicates().head(3).to_dict("records")
        raise DataError(
            f"{what} have several rows for the same cell, e.g. {first}; aggregate them first (summarise_folds)."
        )
    columns = [*RESULT_COLUMNS, *(c for c in OPTIONAL_RESULT_COLUMNS if c in frame.columns)]
    out = frame[columns].copy()
    for c in keys:
        out[c] = out[c].astype(str)
    for c in ("mean", "sd", *columns[len(RESULT_COLUMNS) :]):
        out[c] = pd.to_numeric(out[c]).astype("float64")
    return out.reset_index(drop=True)


def summarise_folds(
    records: pd.DataFrame,
    metrics: Sequence[str],
    by: Sequence[str] = ("dataset", "method"),
    table: str | None = None,
    ddof: int = 1,
) -> pd.DataFrame:
    """Aggregate per-fold records (one row per fold, one column per metric) into a long results frame.

    Args:
        records: one row per run, with the ``by`` columns and one column per metric.
        metrics: the metric columns to aggregate.
        by: the columns that identify a cell besides the metric (``table`` is taken from
            ``records`` if it is one of them, else from ``table``).
        table: the table key to put in every row when ``records`` has no ``table`` column.
        ddof: delta degrees of freedom of the standard deviation (1: sample sd; the paper does
            not say which it used).

    Returns:
        A frame with the columns :data:`RESULT_COLUMNS` and ``n`` (the folds behind each mean);
        ``sd`` is NaN for a single run.
    """
    by = list(by)
    missing = [c for c in [*by, *metrics] if c not in records.columns]
    if missing:
        raise DataError(f"records lack column(s) {missing}; columns present: {list(records.columns)}.")
    long = records.melt(id_vars=by, value_vars=list(metrics), var_name="metric", value_name="value")
    grouped = long.groupby([*by, "metric"], sort=False)["value"]
    out = grouped.agg(mean="mean", n="count").reset_index()
    out["sd"] = grouped.std(ddof=ddof).to_numpy()
    out.loc[out["n"] <= ddof, "sd"] = np.nan
    if "table" not in out.columns:
        if table is None:
            raise DataError("records have no 'table' column; pass table='table1' (or the table they belong to).")
        out["table"] = table
    return check_results(out[[*RESULT_COLUMNS, "n"]], "summarised records")


def mean_sd(df: pd.DataFrame, by: list[str], value: str, sd: str | None) -> pd.DataFrame:
    """Mean and sd of ``value`` per group of ``by`` (columns ``*by, mean, n, sd``).

    An ``sd`` column is used as given when there is one row per group; several rows per group
    (e.g. folds) are averaged and their sample sd taken (NaN for a single row).

    Raises:
        DataError: naming the columns ``df`` lacks.
    """
    missing = [c for c in [*by, value] if c not in df.columns]
    if missing:
        raise DataError(f"the plot data lacks column(s) {missing}; columns present: {list(df.columns)}.")
    g = df.groupby(by, sort=False)[value]
    out = g.agg(mean="mean", n="count").reset_index()
    if sd is not None and sd in df.columns and (out["n"] == 1).all():
        out["sd"] = df.groupby(by, sort=False)[sd].first().to_numpy()
    else:
        out["sd"] = g.std(ddof=1).to_numpy()
    return out


# ---------------------------------------------------------------------------- records → frames
def as_record(record: Mapping[str, Any]) -> Record:
    """``record`` as a :class:`~cffair.experiments.Record` (itself if it is one; a plain mapping, e.g. a
    record read from a JSON file, is wrapped), so that its config is read typed: ``as_record(r).config.fold``.

    >>> as_record({"config": {"dataset": "compas", "fold": 2, "setting": "cnf"}, "metrics": {}}).config.fold
    2
    """
    cls = _record_class()
    return record if isinstance(record, cls) else cls(record)


def as_records(records: Iterable[Mapping[str, Any]]) -> list[Record]:
    """The records as :class:`~cffair.experiments.Record` s (:func:`as_record`): what every public function
    here that takes records does once, so that records loaded from JSON files are read as the store's are."""
    return [as_record(r) for r in records]


@functools.cache
def _record_class() -> type[Record]:
    from cffair.experiments._store import Record  # here, once: reading records loads no store until one is read

    return Record


def record_method(record: Record) -> str:
    """The method key of a record: its setting, with ``@gan`` when trained on the GAN's counterfactuals."""
    cfg = as_record(record).config
    return cfg.setting + (f"@{cfg.cf_source}" if cfg.cf_source != "cnf" else "")


def options_text(config: ExperimentConfig) -> str:
    """A record config's investigation options as in its key (``"fair_p=6,lr=0.1"``; ``""`` for the paper's).

    >>> options_text(ExperimentConfig("compas", 0, "ltn_acc_cf", options={"lr": 0.1, "fair_p": 6}))
    'fair_p=6,lr=0.1'
    """
    return option_text(config.options)


def run_label(config: ExperimentConfig) -> str:
    """A run's name for a sentence: its setting's display name and fold, with its partition of repeated
    cross-validation and its training seed where they are not the first.

    >>> run_label(ExperimentConfig("compas", 0, "ltn_acc_cf_cke", repeat=2, seed=1))
    'LTN(acc+CF+CKE), fold 0, partition 2, seed 1'
    """
    return f"{method_name(config.setting)}, fold {config.fold}" + (
        (f", partition {config.repeat}" if config.repeat else "") + (f", seed {config.seed}" if config.seed else "")
    )


def is_investigation(config: ExperimentConfig) -> bool:
    """Whether a record belongs to an investigation (it has options) rather than to the paper's protocol."""
    return bool(config.options)


def record_repeat(config: ExperimentConfig) -> int:
    """The repetition of cross-validation a record's config belongs to (0: the paper's one 5-fold
    partition; absent in every config of it): its :attr:`~cffair.experiments.ExperimentConfig.repeat`."""
    return config.repeat


def records_frame(records: Iterable[Record], *, own_counterfactuals: bool = False) -> pd.DataFrame:
    """One row per record: ``dataset, repeat, fold, seed, setting, method, cf_source, tag, options, w_acc, w_cf,
    w_cf_sg, w_cke`` and the scalar metrics (``accuracy``/``mse``, ``cf_mse``,
    ``cf_mse_worst_subgroup``, ``cf_flip_rate``, ``worst_subgroup``, ``n_pairs``), and ``collapsed``
    with ``collapse_reason``: the verdict of the one degenerate-model screen
    (:func:`cffair.scores.screen_metrics`) on the record's metrics. A metric a record lacks is NaN
    (the flip rate of records made before it existed).

    Args:
        own_counterfactuals: take the metrics evaluated on the GAN's own counterfactual test
            pairs (``metrics_own_counterfactuals``, appendix A) instead of the CNF ones; records
            without them are left out.
    """
    rows = []
    for rec in as_records(records):
        cfg = rec.config
        metrics = rec.get("metrics_own_counterfactuals") if own_counterfactuals else rec.get("metrics")
        if metrics is None:
            continue
        row: dict[str, Any] = {
            "dataset": cfg.dataset,
            "repeat": cfg.repeat,
            "fold": cfg.fold,
            "seed": cfg.seed,  # a training seed of the protocol (cffair.experiments._protocol)
            "setting": cfg.setting,
            "method": record_method(rec),
            "cf_source": cfg.cf_source,
            "tag": cfg.tag,
            "options": options_text(cfg),
        }
        for k, v in cfg.weights:
            row[f"w_{k}"] = float(v)
        for k in (*SCALAR_METRICS, "worst_subgroup", "n_pairs"):
            row[k] = metrics.get(k, np.nan)
        verdict = screen_metrics(metrics)
        row["collapsed"], row["collapse_reason"] = verdict.collapsed, verdict.reason
        rows.append(row)
    cols = ["dataset", "repeat", "fold", "seed", "setting", "method", "cf_source", "tag", "options", "w_acc", "w_cf"]
    cols += ["w_cf_sg", "w_cke", *SCALAR_METRICS, "worst_subgroup", "n_pairs", "collapsed", "collapse_reason"]
    frame = pd.DataFrame(rows)
    for c in cols:
        if c not in frame.columns:
            frame[c] = np.nan
    return frame[cols + [c for c in frame.columns if c not in cols]]


def select_records(
    frame: pd.DataFrame,
    methods: Sequence[str] | None = None,
    datasets: Sequence[str] | None = None,
    tagged: bool = False,
    repeats: bool = False,
) -> pd.DataFrame:
    """Rows of a :func:`records_frame` of some methods and datasets; weight-grid and investigation
    rows (a ``tag`` or ``options``) only if ``tagged``; the rows of repeated cross-validation
    (``repeat`` > 0, other partitions of the rows) only if ``repeats``: the book's tables and
    figures show the paper's one 5-fold partition, the verdicts read every repetition."""
    out = frame
    if not repeats and "repeat" in out.columns:
        out = out[out["repeat"].fillna(0).astype(int) == 0]
    if not tagged:
        out = out[(out["tag"].fillna("") == "") & (out["options"].fillna("") == "")]
    if methods is not None:
        out = out[out["method"].isin(methods)]
    if datasets is not None:
        out = out[out["dataset"].isin(datasets)]
    return out


def mean_by_method(frame: pd.DataFrame, metric: str) -> dict[tuple[str, str], float]:
    """Mean of ``metric`` over folds per ``(dataset, method)`` of a :func:`records_frame` (missing values left out)."""
    if frame.empty:
        return {}
    g = frame.groupby(["dataset", "method"])[metric].mean()
    return {k: float(v) for k, v in g.items() if not pd.isna(v)}


def results_long(
    records: Iterable[Record],
    table: str = "table1",
    methods: Sequence[str] | None = None,
    datasets: Sequence[str] | None = None,
    *,
    own_counterfactuals: bool = False,
    tagged: bool = False,
) -> pd.DataFrame:
    """Our records aggregated over folds into a long results frame (:data:`RESULT_COLUMNS`, ``n`` and
    ``collapsed``).

    ``methods`` defaults to the paper's methods of ``table`` (:data:`TABLE_METHODS`); weight-grid
    and investigation records (those with a ``tag`` or ``options``) are left out unless ``tagged``
    (a run of your own data chose its learning rate, epochs or weights: its records are the run). Each
    dataset gets its performance metric (accuracy or MSE), CF-MSE and worst-subgroup CF-MSE.

    The fold is the unit, as in the claims' tests (:meth:`cffair.reporting.Evidence.folds`):
    a fold trained with several seeds (the protocol's) counts once, with the mean over its seeds, so
    ``mean`` is the mean over folds of the seed means, ``sd`` their sample sd over folds (NaN for one
    fold) and ``n`` the number of folds, the same unit as the paper's five. ``collapsed`` counts the
    cell's records whose model collapsed (the degenerate-model screen,
    :func:`cffair.scores.screen_metrics`); they stay in the mean (leaving out the folds
    where a model fell to the majority rate would flatter its accuracy), and
    :func:`cffair.reporting.compare` marks such a cell and does not judge it.

    >>> recs = [{"config": {"dataset": "d", "setting": "ltn_acc", "fold": f, "seed": s},
    ...          "metrics": {"accuracy": 0.7 + 0.1 * f + 0.01 * s, "majority_rate": 0.5}}
    ...         for f in (0, 1) for s in (0, 1, 2)]
    >>> long = results_long(recs, methods=["ltn_acc"])
    >>> long[["mean", "n", "collapsed"]].round(3).values.tolist()     # 2 folds, not 6 records
    [[0.76, 2.0, 0.0]]
    """
    methods = list(methods if methods is not None else TABLE_METHODS.get(table, ()))
    frame = select_records(
        records_frame(records, own_counterfactuals=own_counterfactuals), methods, datasets, tagged=tagged
    )
    if frame.empty:
        return pd.DataFrame(columns=[*RESULT_COLUMNS, *OPTIONAL_RESULT_COLUMNS])
    metrics = [m for m in SCALAR_METRICS if frame[m].notna().any()]
    cell = ["dataset", "method"]
    folds = frame.assign(**{m: frame[m].astype(float) for m in metrics})
    folds = folds.groupby([*cell, "repeat", "fold"], sort=False)[metrics].mean().reset_index()  # seeds of a fold
    long = summarise_folds(folds, metrics, by=cell, table=table).dropna(subset=["mean"])
    gone = frame["collapsed"].fillna(False).astype(bool).groupby([frame["dataset"], frame["method"]]).sum()
    long["collapsed"] = [float(gone.get((d, m), 0)) for d, m in zip(long["dataset"], long["method"])]
    order = {m: i for i, m in enumerate(methods)}
    long = long.sort_values(
        ["dataset", "metric", "method"],
        kind="stable",
        key=lambda c: (
            c.map(order) if c.name == "method" else order_key(c, DATASET_ORDER if c.name == "dataset" else METRIC_ORDER)
        ),
    )
    return long.reset_index(drop=True)


def subgroup_frame(
    records: Iterable[Record],
    settings: Sequence[str] = Q1_SETTINGS,
    dataset: str | None = None,
    *,
    tagged: bool = False,
) -> pd.DataFrame:
    """CF-MSE per subgroup, one row per record × subgroup: ``dataset, fold, method, subgroup,
    cf_mse`` (the data of Figures 3–5; CNF counterfactuals, no weight-grid records unless
    ``tagged``, the paper's one partition: no repetition of cross-validation)."""
    rows = []
    for rec in as_records(records):
        cfg = rec.config
        if (
            (not tagged and (cfg.tag or cfg.options))
            or cfg.cf_source != "cnf"
            or cfg.setting not in settings
            or cfg.repeat
            or (dataset is not None and cfg.dataset != dataset)
        ):
            continue
        for sg, v in (rec["metrics"].get("cf_mse_by_subgroup") or {}).items():
            rows.append(
                {
                    "dataset": cfg.dataset,
                    "fold": cfg.fold,
                    "method": cfg.setting,
                    "subgroup": sg,
                    "cf_mse": float(v),
                }
            )
    return pd.DataFrame(rows, columns=["dataset", "fold", "method", "subgroup", "cf_mse"])


def find_record(
    records: Iterable[Record],
    dataset: str,
    setting: str,
    fold: int | None = None,
    cf_source: str = "cnf",
    *,
    tag: str = "",
    options: str = "",
) -> Record | None:
    """The record of ``dataset``/``setting`` (on ``fold``, or the lowest fold if ``fold`` is None;
    ``options`` as :func:`options_text` gives them, ``""`` for the paper's; the paper's partition,
    not a repetition of cross-validation); None if absent."""
    found = [
        r
        for r in as_records(records)
        if not r.config.repeat
        and r.config.dataset == dataset
        and r.config.setting == setting
        and r.config.cf_source == cf_source
        and r.config.tag == tag
        and options_text(r.config) == options
        and (fold is None or r.config.fold == fold)
    ]
    return min(found, key=lambda r: r.config.fold) if found else None


# ---------------------------------------------------------------------------- CKE (Q3)
def cke_candidates(
    records: Iterable[Record], settings: Sequence[str] = ("ltn_acc_cf_cke", "ltn_acc_cf_sg_cke")
) -> pd.DataFrame:
    """Every imbalance found by knowledge extraction: ``dataset, setting, fold, repeat, seed, group, feature,
    frequency, imbalance, threshold, candidate`` (at or above the threshold, so an A5 axiom was
    added), and ``imbalance_after`` (the same pair's imbalance once the CKE axioms are trained)."""
    rows = []
    for rec in as_records(records):
        cfg = rec.config
        if cfg.setting not in settings or "cke" not in rec or cfg.tag or cfg.options:
            continue
        c = rec["cke"]
        after = {(r["group"], r["feature"]): r["imbalance"] for r in c.get("imbalances_after", [])}
        for r in c.get("imbalances_before", []):
            if r["imbalance"] <= 0:
                continue  # the other side of a pair: the group with the smaller frequency
            rows.append(
                {
                    "dataset": cfg.dataset,
                    "setting": cfg.setting,
                    "fold": cfg.fold,
                    "repeat": cfg.repeat,
                    "seed": cfg.seed,
                    "group": r["group"],
                    "feature": r["feature"],
                    "frequency": float(r["frequency"]),
                    "imbalance": float(r["imbalance"]),
                    "threshold": float(c["threshold"]),
                    "candidate": bool(r["imbalance"] >= c["threshold"]),
                    "imbalance_after": float(after.get((r["group"], r["feature"]), np.nan)),
                }
            )
    cols = [
        "dataset",
        "setting",
        "fold",
        "repeat",
        "seed",
        "group",
        "feature",
        "frequency",
        "imbalance",
        "threshold",
        "candidate",
        "imbalance_after",
    ]
    return pd.DataFrame(rows, columns=cols)


def undesirable_ratio_frame(records: Iterable[Record], dataset: str, setting: str = "ltn_acc_cf_cke") -> pd.DataFrame:
    """The data of Figure 4 (bottom): for each immutable feature and sensitive group, the share of
    the group's negatively predicted training rows with a counterfactual explanation on that
    feature, ``before`` and ``after`` the CKE axioms (columns ``fold, feature, group, stage, ratio``)."""
    rows = []
    for rec in as_records(records):
        cfg = rec.config
        if cfg.dataset != dataset or cfg.setting != setting or "cke" not in rec or cfg.tag or cfg.options:
            continue
        for stage in ("before", "after"):
            for r in rec["cke"].get(f"imbalances_{stage}", []):
                rows.append(
                    {
                        "fold": cfg.fold,
                        "feature": r["feature"],
                        "group": r["group"],
                        "stage": stage,
                        "ratio": float(r["frequency"]),
                    }
                )
    return pd.DataFrame(rows, columns=["fold", "feature", "group", "stage", "ratio"])


# ---------------------------------------------------------------------------- weight grid (appendix B)
def weight_grid_frame(records: Iterable[Record]) -> pd.DataFrame:
    """The LTN(acc+CF) runs of the appendix-B weight grid plus the equal-weights run, one row per fold
    and weight point: ``dataset, fold, w_acc, w_cf, log2_ratio`` (log₂ of acc weight / CF weight) and
    metrics. A point trained with several seeds (the protocol's equal-weights run) gives their mean, so
    that the fold is the unit of every trend, as in the verdicts; ``collapsed`` if any seed collapsed."""
    frame = records_frame(records)
    frame = frame[
        (frame["setting"] == "ltn_acc_cf")
        & (frame["cf_source"] == "cnf")
        & (frame["options"].fillna("") == "")
        & (frame["repeat"] == 0)
    ]
    tag = frame["tag"].fillna("").astype(str)  # no records: an all-NaN column
    frame = frame[(tag == "") | tag.str.startswith("w")].copy()
    keys = ["dataset", "repeat", "fold", "tag", "w_acc", "w_cf"]
    how = {
        c: "mean" if c in SCALAR_METRICS or c == "n_pairs" else "any" if c == "collapsed" else "first" for c in frame
    }
    frame = frame.groupby(keys, sort=False, dropna=False).agg({c: h for c, h in how.items() if c not in keys})
    frame = frame.reset_index()[[c for c in how]]  # the seeds of a point averaged; the columns' order kept
    frame["log2_ratio"] = np.log2(frame["w_acc"].astype(float) / frame["w_cf"].astype(float))
    return frame.sort_values(["dataset", "log2_ratio", "fold"]).reset_index(drop=True)


# ---------------------------------------------------------------------------- paired folds
def paired_folds(records: Iterable[Record], fold0_only: Iterable[tuple[str, str]] | None = None) -> list[Record]:
    """Keep, per dataset, only the folds on which every method has a record.

    A comparison of means is only paired if all methods average the same folds. An interrupted
    full run (see the Reproducing page) leaves some folds with only some methods; this drops
    those folds. The reference is the set of (setting, counterfactual source, tag, options) of
    fold 0, without the settings that by design run on fold 0 only (``fold0_only``: ``(dataset,
    setting)`` pairs; default: the CKE settings of datasets outside
    :data:`cffair.experiments.CKE_ALL_FOLDS`). Only the paper's protocol sets the folds: the
    investigations' records (:func:`is_investigation`) and records of settings outside the
    protocol's (``cffair.experiments.LTN_SETTINGS``, ``cffair.experiments.BASELINES``) or with a
    tag (another seed, a weight point: ``"seed1"``, ``"w1-3"``) are kept on the folds kept, and
    never drop a fold themselves.
    """

    def key(c: ExperimentConfig) -> tuple[str, str, str, str]:
        return (c.setting, c.cf_source, c.tag, options_text(c))

    records = as_records(records)

    from cffair.experiments import BASELINES, LTN_SETTINGS  # here: cffair.experiments imports torch

    protocol = set(LTN_SETTINGS) | set(BASELINES)
    if fold0_only is not None:
        first_only = set(fold0_only)

        def only_first(ds: str, setting: str) -> bool:
            return (ds, setting) in first_only
    else:
        # imported here: cffair.experiments imports the pipeline and torch, which tables and
        # figures do not need
        from cffair.experiments import CKE_ALL_FOLDS, EXTRA_BASELINES

        def only_first(ds: str, setting: str) -> bool:
            return (setting.endswith("_cke") and ds not in CKE_ALL_FOLDS) or setting in EXTRA_BASELINES

    # a repetition of cross-validation (another partition) runs only the settings the claims compare:
    # its folds are checked against its own first fold
    by_ds: dict[tuple[str, int], dict[int, set[tuple[str, str, str, str]]]] = {}
    for r in records:
        c = r.config
        if is_investigation(c) or c.setting not in protocol or c.tag:
            continue  # the investigations and tagged variants run on the folds they name (e.g. Adult fold 0 only)
        by_ds.setdefault((c.dataset, c.repeat), {}).setdefault(c.fold, set()).add(key(c))
    keep: dict[tuple[str, int], set[int]] = {}
    for (ds, rep), folds in by_ds.items():
        first = min(folds)
        ref = {k for k in folds[first] if not only_first(ds, k[0])}
        keep[(ds, rep)] = {f for f, ks in folds.items() if ref <= ks}

    def kept(c: ExperimentConfig) -> bool:
        return c.fold in keep.get((c.dataset, c.repeat), {c.fold})

    return [r for r in records if kept(r.config)]


def folds_per_dataset(records: Iterable[Record]) -> dict[str, list[int]]:
    """Which folds the records cover, per dataset (e.g. ``{"adult": [0], "compas": [0, 1]}``)."""
    out: dict[str, set[int]] = {}
    for r in as_records(records):
        out.setdefault(r.config.dataset, set()).add(r.config.fold)
    return {ds: sorted(f) for ds, f in sorted(out.items())}
