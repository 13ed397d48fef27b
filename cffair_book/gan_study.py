"""Appendix C's GAN study: the GAN as re-implemented and as released, over folds and seeds.

The paper's Q2 ranking leans on the GAN of Grari et al. The grid runs it in two variants
(``gan_variant``: this project's re-implementation, and the two behaviours of the authors'
release) over several seeds on the paper's partition (:data:`cffair.experiments.STUDY_GAN_SEEDS`).
:func:`gan_spread_frame` says how far each variant's numbers spread over the folds (the sd of the
per-fold means over seeds) and over the seeds (the mean over folds of the sd between seeds), next
to the paper's published value; :func:`gan_paper_finding` says, per dataset, which variant comes
closer to the paper's CF-MSE and whether the gap between the variants is larger than the folds'
spread, in words the numbers choose.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from cffair.experiments._registry import DATASETS
from cffair.reporting import DATASET_ORDER, HTMLTable, dataset_name, format_table, performance_metric
from cffair.reporting._paper import paper_mean
from cffair.reporting._records import as_records
from cffair_book.wording import say

if TYPE_CHECKING:  # reading records loads no store (a Record comes from as_records)
    from cffair.experiments import Record

__all__ = ["GAN_VARIANTS", "gan_paper_finding", "gan_runs", "gan_spread_frame", "gan_spread_table"]

#: The GAN's variants, by the value of the ``gan_variant`` option ("" for the default), as shown.
GAN_VARIANTS = {"": "re-implemented", "released": "as released"}


def gan_runs(records: Sequence[Record]) -> pd.DataFrame:
    """One row per GAN record of the paper's partition (repetition 0) whose only option is the
    variant, leaving out datasets whose runs are another's (COMPAS(age) is COMPAS's): ``dataset``, ``variant`` (a key of :data:`GAN_VARIANTS`), ``fold``, ``seed``, the
    performance metric's name and value (``metric``, ``performance``: accuracy, or MSE for a score
    target), ``cf_mse`` and ``cf_mse_own`` (on the GAN's own twins; NaN when not recorded).

    >>> rec = {"config": {"dataset": "compas", "fold": 0, "seed": 1, "setting": "gan", "tag": "seed1",
    ...                   "options": {"gan_variant": "released"}},
    ...        "metrics": {"accuracy": 0.66, "cf_mse": 0.05}}
    >>> gan_runs([rec])[["variant", "seed", "metric", "performance", "cf_mse"]].values.tolist()
    [['released', 1, 'accuracy', 0.66, 0.05]]
    """
    rows = []
    for r in as_records(records):
        c = r.config
        options = c.option_map
        variant = options.pop("gan_variant", "")
        if c.setting != "gan" or options or c.repeat or variant not in GAN_VARIANTS:
            continue
        if c.dataset in DATASETS and DATASETS[c.dataset].shares_runs_with:
            continue  # COMPAS(age)'s GAN is COMPAS's run
        metric = performance_metric(c.dataset)
        own = r.get("metrics_own_counterfactuals") or {}
        rows.append(
            {
                "dataset": c.dataset,
                "variant": variant,
                "fold": c.fold,
                "seed": c.seed,
                "metric": metric,
                "performance": float(r["metrics"][metric]),
                "cf_mse": float(r["metrics"]["cf_mse"]),
                "cf_mse_own": float(own["cf_mse"]) if "cf_mse" in own else np.nan,
            }
        )
    columns = ["dataset", "variant", "fold", "seed", "metric", "performance", "cf_mse", "cf_mse_own"]
    return pd.DataFrame(rows, columns=columns)


def _spread(g: pd.DataFrame, column: str) -> tuple[float, float, float]:
    """Mean over runs; sd over folds of the per-fold mean (NaN for one fold); mean over folds of the
    sd between seeds (NaN for one seed)."""
    per_fold = g.groupby("fold")[column]
    fold_sd = float(per_fold.mean().std(ddof=1)) if per_fold.ngroups > 1 else np.nan
    seed_sds = per_fold.std(ddof=1).dropna()
    return float(g[column].mean()), fold_sd, float(seed_sds.mean()) if len(seed_sds) else np.nan


def gan_spread_frame(records: Sequence[Record]) -> pd.DataFrame:
    """Per dataset and variant (in the tables' order): how many runs, folds and seeds, and for the
    performance metric and the CF-MSE their mean, their sd over folds and their sd over seeds, with
    the paper's Table 1 value (NaN where the paper has none). Empty without GAN records.

    >>> recs = [{"config": {"dataset": "compas", "fold": f, "seed": s, "setting": "gan"},
    ...          "metrics": {"accuracy": 0.6 + 0.01 * f, "cf_mse": 0.01 * (f + 1) + 0.001 * s}}
    ...         for f in range(3) for s in range(2)]
    >>> row = gan_spread_frame(recs).iloc[0]
    >>> int(row["runs"]), int(row["folds"]), int(row["seeds"]), round(float(row["cf_mse fold sd"]), 4)
    (6, 3, 2, 0.01)
    """
    runs = gan_runs(records)
    rows = []
    for (ds, variant), g in runs.groupby(["dataset", "variant"], sort=False):
        metric = str(g["metric"].iloc[0])
        row: dict[str, Any] = {
            "dataset": ds,
            "variant": variant,
            "runs": len(g),
            "folds": g["fold"].nunique(),
            "seeds": g["seed"].nunique(),
            "metric": metric,
        }
        for column, name in (("performance", "performance"), ("cf_mse", "cf_mse")):
            mean, fold_sd, seed_sd = _spread(g, column)
            row |= {name: mean, f"{name} fold sd": fold_sd, f"{name} seed sd": seed_sd}
        for column, paper_metric in (("performance", metric), ("cf_mse", "cf_mse")):
            published = paper_mean("table1", ds, paper_metric, "gan")
            row[f"{column} paper"] = np.nan if published is None else published
        rows.append(row)
    frame = pd.DataFrame(rows)
    if frame.empty:
        return frame
    order = {d: i for i, d in enumerate(DATASET_ORDER)}
    frame["_d"] = frame["dataset"].map(lambda d: order.get(d, len(order)))
    frame["_v"] = frame["variant"].map(list(GAN_VARIANTS).index)
    return frame.sort_values(["_d", "_v"]).drop(columns=["_d", "_v"]).reset_index(drop=True)


def _pm(mean: float, sd: float) -> str:
    return "—" if pd.isna(mean) else f"{mean:.3f}" + ("" if pd.isna(sd) else f" ± {sd:.3f}")


def gan_spread_table(frame: pd.DataFrame, caption: str | None = None) -> HTMLTable | None:
    """:func:`gan_spread_frame` as the book shows it (mean ± sd over folds; the sd over seeds and the
    paper's value beside), or None when there are no GAN records."""
    if frame.empty:
        return None
    shown = pd.DataFrame(
        {
            "runs (folds × seeds)": [f"{r.runs} ({r.folds} × {r.seeds})" for r in frame.itertuples()],
            "accuracy (MSE) ± over folds": [
                ("MSE " if m == "mse" else "") + _pm(v, s)
                for m, v, s in zip(frame["metric"], frame["performance"], frame["performance fold sd"], strict=True)
            ],
            "paper": [_pm(v, np.nan) for v in frame["performance paper"]],
            "CF-MSE (± over folds)": [_pm(v, s) for v, s in zip(frame["cf_mse"], frame["cf_mse fold sd"], strict=True)],
            "CF-MSE sd over seeds": [_pm(v, np.nan) for v in frame["cf_mse seed sd"]],
            "CF-MSE, paper": [_pm(v, np.nan) for v in frame["cf_mse paper"]],
        },
        index=pd.MultiIndex.from_arrays(
            [[dataset_name(d) for d in frame["dataset"]], [GAN_VARIANTS[v] for v in frame["variant"]]],
            names=["dataset", "GAN"],
        ),
    )
    return format_table(shown, caption)


def gan_paper_finding(frame: pd.DataFrame) -> str:
    """One sentence per dataset that has both variants and a published CF-MSE: which variant's
    CF-MSE is closer to the paper's, and whether the gap between the variants exceeds the larger of
    their spreads over folds (the words follow the numbers). Empty without such a dataset.

    >>> f = pd.DataFrame([
    ...     {"dataset": "compas", "variant": "", "cf_mse": 0.003, "cf_mse fold sd": 0.001, "cf_mse paper": 0.107},
    ...     {"dataset": "compas", "variant": "released", "cf_mse": 0.080, "cf_mse fold sd": 0.010,
    ...      "cf_mse paper": 0.107}])
    >>> print(gan_paper_finding(f))
    On COMPAS the GAN as released has a CF-MSE of 0.080 against 0.003 re-implemented; the paper's is 0.107, so the GAN as released comes closer to it, and the two variants differ by more than their spread over folds (0.010).
    """
    if frame.empty:
        return ""
    out = []
    for ds, g in frame.groupby("dataset", sort=False):
        by = g.set_index("variant")
        if not {"", "released"} <= set(by.index) or pd.isna(by.loc["", "cf_mse paper"]):
            continue
        ours, released, paper = by.loc["", "cf_mse"], by.loc["released", "cf_mse"], by.loc["", "cf_mse paper"]
        closer = "as released" if abs(released - paper) < abs(ours - paper) else "re-implemented"
        if abs(released - paper) == abs(ours - paper):
            closer = "neither"
        spread = np.nanmax([by.loc["", "cf_mse fold sd"], by.loc["released", "cf_mse fold sd"]])
        if pd.isna(spread):
            apart = "no_spread"
        elif abs(released - ours) > spread:
            apart = "beyond"
        else:
            closer, apart = "neither", "within"  # a difference within the spread orders nothing
        out.append(
            say(
                "gan_study.finding",
                dataset=dataset_name(ds),
                released=released,
                ours=ours,
                paper=paper,
                closer=say("gan_study.closer", closer),
                apart=say("gan_study.apart", apart, spread=spread),
            )
        )
    return " ".join(out)
