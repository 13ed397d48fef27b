"""Tables and figures of the chapter *Beyond the paper* (records of the ``beyond`` group).

Data shaping (``*_frame``) is separate from drawing (``plot_*``, matplotlib and seaborn imported
when called), as in the rest of :mod:`cffair.reporting`. Each record holds one dataset × fold
(:mod:`cffair.experiments._pipeline.beyond`); numbers are averaged over the folds a dataset has (mean, and the
sample sd where there are several folds).
"""

from __future__ import annotations

__all__ = [
    "ADAPTIVE_VARIANTS",
    "RECOURSE_GROUPS",
    "INTERSECTION_VARIANTS",
    "NOTION_METRICS",
    "NOTION_VARIANTS",
    "VARIANT_LABELS",
    "adaptive_frame",
    "beyond_frame",
    "findings",
    "headline",
    "intersection_frame",
    "mean_table",
    "plot_adaptive",
    "plot_notions",
    "plot_recourse",
    "recourse_frame",
]

from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from cffair.errors import DataError
from cffair.reporting import HTMLTable, dataset_name, format_cell, format_table
from cffair.reporting._records import as_records
from cffair.reporting._style import FONT_PT, MAX_WIDTH_IN, book_style, finish, legend_below, line_handles, palette
from cffair_book.wording import say, spoken

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.figure import Figure

    from cffair.experiments import Record

#: How the chapter names each variant of :data:`cffair.experiments._pipeline.beyond.VARIANTS`.
VARIANT_LABELS: dict[str, str] = {
    "acc": "LTN(acc)",
    "acc_cf": "+A4 (paper)",
    "acc_cf_w3-1": "+A4, weights 3:1",
    "acc_cf_w1-3": "+A4, weights 1:3",
    "acc_cf_sg": "+A4ᵢ per intersection",
    "acc_cf_joint": "+A4∩ joint",
    "acc_dp": "+DP",
    "acc_eo": "+EO",
    "acc_lip": "+Lipschitz",
    "adaptive_sg": "+A4ᵢ, adaptive weights",
    "adaptive_budget": "+A4, CF-MSE budget",
}
#: The variants of the notions figure, and its metrics (column → label, higher is better?).
NOTION_VARIANTS: tuple[str, ...] = ("acc_cf", "acc_dp", "acc_eo", "acc_lip")
NOTION_METRICS: dict[str, tuple[str, bool]] = {
    "accuracy": ("accuracy", True),
    "cf_mse": ("CF-MSE", False),
    "cf_mse_worst_subgroup": ("worst-\nsubgroup\nCF-MSE", False),
    "dp_gap": ("DP gap", False),
    "eo_gap": ("EO gap", False),
    "lip_violation": ("Lipschitz\nviolations", False),
}
INTERSECTION_VARIANTS: tuple[str, ...] = ("acc", "acc_cf", "acc_cf_sg", "acc_cf_joint")
ADAPTIVE_VARIANTS: tuple[str, ...] = (
    "acc_cf_w3-1",
    "acc_cf",
    "acc_cf_w1-3",
    "adaptive_budget",
    "acc_cf_sg",
    "adaptive_sg",
)


def _beyond(records: Iterable[Record]) -> list[tuple[str, int, Mapping[str, Any]]]:
    out = [
        (r.config.dataset, r.config.fold, r["beyond"])
        for r in records
        if r.config.setting == "beyond" and "beyond" in r
    ]
    if not out:
        raise DataError(
            "no record of the 'beyond' group among the records given; load them with "
            "cffair_book.results_for(mode, ['beyond'])."
        )
    return sorted(out, key=lambda t: (t[0], t[1]))


def _pooled(table: Mapping[str, float], counts: Mapping[str, int]) -> float:
    n = np.array([counts.get(k, 0) for k in table], dtype=float)
    v = np.array(list(table.values()), dtype=float)
    return float((n * v).sum() / n.sum()) if n.sum() else float("nan")


def beyond_frame(records: Iterable[Record]) -> pd.DataFrame:
    """One row per dataset × fold × variant: accuracy, CF-MSE, worst subgroup, the notions' gaps,
    the joint twins' CF-MSE (pooled and worst intersection) and the training seconds."""
    rows = []
    for ds, fold, b in _beyond(as_records(records)):
        counts = b["intersections"].get("test_pairs", {})
        for name, v in b["variants"].items():
            m, nt = v["metrics"], v["notions"]
            row = {
                "dataset": ds,
                "fold": fold,
                "variant": name,
                **{k: m.get(k) for k in ("accuracy", "mse", "cf_mse", "cf_mse_worst_subgroup", "worst_subgroup")},
                **nt,
                "seconds": v.get("seconds"),
            }
            joint = v["intersections"].get("joint")
            if joint:
                row["joint_cf_mse"] = _pooled(joint, counts.get("joint", {}))
                row["joint_worst"] = max(joint.values())
                row["joint_worst_intersection"] = max(joint, key=joint.get)
            rows.append(row)
    return pd.DataFrame(rows)


def mean_table(
    frame: pd.DataFrame,
    variants: Sequence[str],
    columns: Mapping[str, str],
    caption: str,
    decimals: int | Mapping[str, int] = 3,
) -> HTMLTable:
    """``mean ± sd`` over folds of ``columns`` (raw → label), one row per dataset × variant.

    ``decimals``: for every column, or per raw column name (3 for a column not named).
    """
    sub = frame[frame["variant"].isin(variants)]
    cells = []
    for (ds, var), g in sub.groupby(["dataset", "variant"], sort=False):
        row = {"dataset": dataset_name(ds), "variant": VARIANT_LABELS.get(var, var), "folds": len(g)}
        for c, label in columns.items():
            k = decimals.get(c, 3) if isinstance(decimals, Mapping) else decimals
            v = pd.to_numeric(g[c], errors="coerce").dropna() if c in g else pd.Series(dtype=float)
            row[label] = "—" if v.empty else format_cell(float(v.mean()), float(v.std()) if len(v) > 1 else None, k)
        cells.append(row)
    out = pd.DataFrame(cells)
    order = {v: i for i, v in enumerate(VARIANT_LABELS[x] for x in variants)}
    out = out.sort_values(["dataset", "variant"], key=lambda s: s.map(order) if s.name == "variant" else s)
    return format_table(out.set_index(["dataset", "variant"]), caption)


def intersection_frame(
    records: Iterable[Record],
    dataset: str,
    kind: str = "joint",
    variants: Sequence[str] = INTERSECTION_VARIANTS,
) -> pd.DataFrame:
    """CF-MSE per intersection (rows, smallest first) and variant (columns) on ``kind`` twins
    (``joint`` or an attribute), averaged over folds; ``test rows`` summed over folds."""
    per = [(f, b) for ds, f, b in _beyond(as_records(records)) if ds == dataset]
    if not per:
        raise DataError(f"no 'beyond' record of {dataset!r}.")
    rows: dict[str, dict[str, list[float]]] = {}
    size: dict[str, int] = {}
    for _, b in per:
        for lab, n in b["intersections"]["test_rows"].items():
            size[lab] = size.get(lab, 0) + int(n)
        for var in variants:
            table = b["variants"][var]["intersections"].get(kind)
            if table is None:
                raise DataError(
                    f"no {kind!r} twins in the records of {dataset!r}; kinds: {list(b['variants'][var]['intersections'])}."
                )
            for lab, v in table.items():
                rows.setdefault(lab, {}).setdefault(var, []).append(v)
    out = pd.DataFrame(
        {
            VARIANT_LABELS.get(v, v): {lab: float(np.mean(d.get(v, [np.nan]))) for lab, d in rows.items()}
            for v in variants
        }
    )
    out.insert(0, "test rows", pd.Series(size))
    out.index.name = "intersection"
    return out.sort_values("test rows")


def recourse_frame(records: Iterable[Record], by: str | None = None) -> pd.DataFrame:
    """Recourse per dataset × variant (× group of attribute ``by``, or ``intersection``): people
    decided unfavourably (summed over folds), the share with recourse and the mean cost (weighted
    by those people), and the recourse query's truth (mean over folds)."""
    rows = []
    for ds, fold, b in _beyond(as_records(records)):
        rec = b.get("recourse") or {}
        for var, m in rec.get("models", {}).items():
            if by is None:
                rows.append(
                    {
                        "dataset": ds,
                        "fold": fold,
                        "variant": var,
                        "group": "all",
                        **{k: m[k] for k in ("n_negative", "recourse_rate", "mean_cost", "query")},
                    }
                )
                continue
            if by not in m["by"]:
                continue
            for grp, v in m["by"][by].items():
                rows.append(
                    {
                        "dataset": ds,
                        "fold": fold,
                        "variant": var,
                        "group": grp,
                        **{k: v.get(k) for k in ("n_negative", "recourse_rate", "mean_cost", "query")},
                    }
                )
    if not rows:
        raise DataError(f"no recourse numbers grouped by {by!r} in the records.")
    f = pd.DataFrame(rows)
    f[["n_negative", "recourse_rate", "mean_cost", "query"]] = f[
        ["n_negative", "recourse_rate", "mean_cost", "query"]
    ].astype(float)
    f["found"] = f["n_negative"] * f["recourse_rate"]
    f["cost_sum"] = f["found"] * f["mean_cost"].fillna(0)
    g = f.groupby(["dataset", "variant", "group"], sort=False).agg(
        n_negative=("n_negative", "sum"), found=("found", "sum"), cost_sum=("cost_sum", "sum"), query=("query", "mean")
    )
    g["recourse_rate"] = g["found"] / g["n_negative"]
    g["mean_cost"] = g["cost_sum"] / g["found"].where(g["found"] > 0)
    return g[["n_negative", "recourse_rate", "mean_cost", "query"]].reset_index()


def adaptive_frame(frame: pd.DataFrame, variants: Sequence[str] = ADAPTIVE_VARIANTS) -> pd.DataFrame:
    """Mean and sd over folds of accuracy, CF-MSE and worst-subgroup CF-MSE for fixed and adaptive weights."""
    sub = frame[frame["variant"].isin(variants)]
    agg = sub.groupby(["dataset", "variant"], sort=False)[["accuracy", "cf_mse", "cf_mse_worst_subgroup"]].agg(
        ["mean", "std"]
    )
    agg.columns = [f"{a}_{b}" for a, b in agg.columns]
    return agg.reset_index()


def headline(frame: pd.DataFrame, recourse: pd.DataFrame, dataset: str) -> dict[str, float]:
    """The closing note's numbers of one dataset (means over folds)."""
    m = frame[frame["dataset"] == dataset].groupby("variant").mean(numeric_only=True)
    r = recourse[(recourse["dataset"] == dataset) & (recourse["group"] == "all")].set_index("variant")
    out = {
        f"{v}.{k}": float(m.loc[v, k])
        for v in m.index
        for k in (
            "accuracy",
            "cf_mse",
            "cf_mse_worst_subgroup",
            "dp_gap",
            "eo_gap",
            "lip_violation",
            "joint_cf_mse",
            "joint_worst",
        )
        if k in m.columns
    }
    out.update(
        {f"{v}.recourse_{k}": float(r.loc[v, k]) for v in r.index for k in ("recourse_rate", "mean_cost", "query")}
    )
    return out


# ---------------------------------------------------------------------------- figures
def plot_notions(
    frame: pd.DataFrame,
    datasets: Sequence[str] | None = None,
    variants: Sequence[str] = NOTION_VARIANTS,
    metrics: Mapping[str, tuple[str, bool]] = NOTION_METRICS,
    base: str = "acc",
) -> Figure:
    """What each notion's axiom buys and costs: one heat map per dataset, LTN(acc) on top and
    then a row per axiom added to it, a column per metric; each cell shows the metric (mean over
    folds) and is coloured by its change from LTN(acc) relative to LTN(acc)'s value (for accuracy,
    of the error rate; capped at ±100 %), green where it improved (higher accuracy; lower CF-MSE,
    gaps and violations) and purple where it got worse."""
    import matplotlib.pyplot as plt
    from matplotlib.colors import TwoSlopeNorm

    datasets = list(datasets or sorted(frame["dataset"].unique()))
    missing = [c for c in metrics if c not in frame.columns]
    if missing:
        raise DataError(f"the frame lacks column(s) {missing}; columns present: {list(frame.columns)}.")
    rows = [base, *variants]
    with book_style():
        fig, axes = plt.subplots(
            len(datasets), 1, figsize=(MAX_WIDTH_IN, 0.3 + (0.9 + 0.42 * len(rows)) * len(datasets)), squeeze=False
        )
        for ax, ds in zip(axes[:, 0], datasets, strict=True):
            m = frame[frame["dataset"] == ds].groupby("variant")[list(metrics)].mean()
            if base not in m.index:
                raise DataError(f"no {base!r} variant for {ds!r}: the changes are relative to it.")
            vals = m.loc[rows]
            ref = m.loc[base]
            up = np.array([u for _, u in metrics.values()])
            v, r0 = vals.to_numpy(dtype=float), ref.to_numpy(dtype=float)
            loss, ref_loss = np.where(up, 1.0 - v, v), np.where(up, 1.0 - r0, r0)  # accuracy as its error rate
            with np.errstate(divide="ignore", invalid="ignore"):
                rel = np.where(np.abs(ref_loss) > 1e-12, -(loss - ref_loss) / np.abs(ref_loss), 0.0)
            good = pd.DataFrame(np.nan_to_num(np.clip(rel, -1, 1)), index=vals.index, columns=vals.columns)
            ax.imshow(good.to_numpy(dtype=float), cmap="PRGn", norm=TwoSlopeNorm(0.0, -1.0, 1.0), aspect="auto")
            for i in range(len(rows)):
                for j in range(len(metrics)):
                    ax.text(
                        j,
                        i,
                        f"{vals.iloc[i, j]:.3f}",
                        ha="center",
                        va="center",
                        fontsize=FONT_PT,
                        color="white" if abs(good.iloc[i, j]) > 0.6 else "black",
                    )
            ax.set_xticks(range(len(metrics)), [lab for lab, _ in metrics.values()])
            ax.set_yticks(range(len(rows)), [VARIANT_LABELS.get(v, v) for v in rows])
            ax.axhline(0.5, color="white", linewidth=3)
            ax.xaxis.tick_top()
            ax.tick_params(length=0)
            ax.grid(False)
            ax.set_ylabel(dataset_name(ds))
        fig.tight_layout()
    return finish(fig)


def plot_recourse(recourse: pd.DataFrame, dataset: str, variants: Sequence[str] = ("acc", "acc_cf")) -> Figure:
    """Recourse rate (left) and mean cost (right) per group of ``dataset``, a marker per variant."""
    import matplotlib.pyplot as plt

    sub = recourse[(recourse["dataset"] == dataset) & recourse["variant"].isin(variants)]
    if sub.empty:
        raise DataError(f"no recourse rows of {dataset!r} for {list(variants)}.")
    groups = list(dict.fromkeys(sub["group"]))
    colours = palette(len(variants))
    markers = ["o", "s", "D", "^", "v", "P"][: len(variants)]
    with book_style():
        fig, axes = plt.subplots(1, 2, figsize=(MAX_WIDTH_IN, 0.8 + 0.45 * len(groups)), sharey=True)
        for k, (var, col, mk) in enumerate(zip(variants, colours, markers, strict=True)):
            g = sub[sub["variant"] == var].set_index("group").reindex(groups)
            y = np.arange(len(groups)) + (k - (len(variants) - 1) / 2) * 0.18
            axes[0].plot(g["recourse_rate"], y, linestyle="none", marker=mk, color=col, markersize=8)
            axes[1].plot(g["mean_cost"], y, linestyle="none", marker=mk, color=col, markersize=8)
        axes[0].set_yticks(range(len(groups)), groups)
        axes[0].invert_yaxis()
        axes[0].set_xlabel("share with recourse")
        axes[1].set_xlabel("mean cost of the cheapest")
        fig.tight_layout()
        legend_below(
            fig,
            line_handles(colours, markers, ["none"] * len(variants)),
            [VARIANT_LABELS.get(v, v) for v in variants],
            ncol=len(variants),
        )
    return finish(fig)


def plot_adaptive(adaptive: pd.DataFrame, datasets: Sequence[str] | None = None) -> Figure:
    """Accuracy against CF-MSE (means over folds, sd bars): fixed weights of appendix B on a line
    (3:1, 1:1, 1:3), the CF-MSE budget, and A4ᵢ with fixed and adaptive weights."""
    import matplotlib.pyplot as plt

    datasets = list(datasets or sorted(adaptive["dataset"].unique()))
    variants = list(ADAPTIVE_VARIANTS)
    colours = palette(len(variants))
    markers = ["o", "s", "D", "^", "v", "P"]
    with book_style():
        fig, axes = plt.subplots(1, len(datasets), figsize=(MAX_WIDTH_IN, 3.4), squeeze=False)
        for ax, ds in zip(axes[0], datasets, strict=True):
            a = adaptive[adaptive["dataset"] == ds].set_index("variant")
            fixed = [v for v in ("acc_cf_w3-1", "acc_cf", "acc_cf_w1-3") if v in a.index]
            ax.plot(a.loc[fixed, "cf_mse_mean"], a.loc[fixed, "accuracy_mean"], color="#999999", linewidth=1, zorder=1)
            for v, c, mk in zip(variants, colours, markers, strict=True):
                if v not in a.index:
                    continue
                ax.errorbar(
                    a.loc[v, "cf_mse_mean"],
                    a.loc[v, "accuracy_mean"],
                    xerr=_sd(a.loc[v, "cf_mse_std"]),
                    yerr=_sd(a.loc[v, "accuracy_std"]),
                    marker=mk,
                    color=c,
                    markersize=8,
                    linestyle="none",
                    zorder=2,
                )
            ax.set_title(dataset_name(ds))
            ax.set_xlabel("CF-MSE")
        axes[0, 0].set_ylabel("accuracy")
        fig.tight_layout()
        legend_below(
            fig, line_handles(colours, markers, ["none"] * len(variants)), [VARIANT_LABELS[v] for v in variants], ncol=2
        )
    return finish(fig)


def _sd(v: Any) -> float | None:
    return None if v is None or pd.isna(v) else float(v)


# ---------------------------------------------------------------------------- the chapter's sentences
#: The attribute whose groups the recourse sentences compare, per dataset.
RECOURSE_GROUPS: dict[str, str] = {"adult": "sex", "compas": "race"}


def _spread(frame: pd.DataFrame, variant: str, column: str) -> float:
    v = frame.loc[frame["variant"] == variant, column].astype(float)
    return float(v.max() - v.min())


def findings(records: Sequence[Record]) -> dict[str, str]:
    """Sentences with the chapter's numbers, worded by what the numbers say (so that they hold in
    quick mode too): ``recourse_<ds>``, ``intersections_<ds>``, ``notions_<ds>``, ``adaptive_<ds>``
    and ``cost``."""
    records = as_records(records)
    frame = beyond_frame(records)
    overall = recourse_frame(records)
    out: dict[str, str] = {}
    for ds in sorted(frame["dataset"].unique()):
        m = frame[frame["dataset"] == ds].groupby("variant").mean(numeric_only=True)
        r = overall[overall["dataset"] == ds].set_index("variant")
        attr = RECOURSE_GROUPS.get(ds)
        text = say(
            "beyond.recourse",
            dataset=dataset_name(ds),
            before_rate=r.loc["acc", "recourse_rate"],
            before_cost=r.loc["acc", "mean_cost"],
            after_rate=r.loc["acc_cf", "recourse_rate"],
            after_cost=r.loc["acc_cf", "mean_cost"],
        )
        if attr:
            try:
                g = recourse_frame(records, attr)
            except DataError:
                g = None
            g = None if g is None else g[g["dataset"] == ds]
            if g is not None and not g.empty:
                text = spoken(
                    text,
                    say(
                        "beyond.recourse_groups",
                        attribute=attr,
                        rate_before=_spread(g, "acc", "recourse_rate"),
                        rate_after=_spread(g, "acc_cf", "recourse_rate"),
                        cost_before=_spread(g, "acc", "mean_cost"),
                        cost_after=_spread(g, "acc_cf", "mean_cost"),
                    ),
                )
        out[f"recourse_{ds}"] = text
        if "joint_cf_mse" in m.columns and m["joint_cf_mse"].notna().any():
            t = intersection_frame(records, ds)
            small = t.head(3)
            sg, jt = small[VARIANT_LABELS["acc_cf_sg"]].mean(), small[VARIANT_LABELS["acc_cf_joint"]].mean()
            out[f"intersections_{ds}"] = say(
                "beyond.intersections",
                dataset=dataset_name(ds),
                smallest="; ".join(small.index),
                rows=int(small["test rows"].sum()),
                joint=jt,
                subgroups=sg,
                verdict=say("beyond.protects", "joint" if jt < sg else "subgroups"),
                all_joint=m.loc["acc_cf_joint", "joint_cf_mse"],
                all_subgroups=m.loc["acc_cf_sg", "joint_cf_mse"],
                all_global=m.loc["acc_cf", "joint_cf_mse"],
                all_none=m.loc["acc", "joint_cf_mse"],
            )
        parts = [
            say(
                "beyond.notion",
                variant=VARIANT_LABELS[var],
                measure=label,
                before=m.loc["acc", own],
                after=m.loc[var, own],
                acc_before=m.loc["acc", "accuracy"],
                acc_after=m.loc[var, "accuracy"],
                cf_before=m.loc["acc", "cf_mse"],
                cf_after=m.loc[var, "cf_mse"],
            )
            for var, own, label in (
                ("acc_dp", "dp_gap", "DP gap"),
                ("acc_eo", "eo_gap", "EO gap"),
                ("acc_lip", "lip_violation", "share of Lipschitz violations"),
            )
            if var in m.index
        ]
        out[f"notions_{ds}"] = say("beyond.notions", dataset=dataset_name(ds), parts="; ".join(parts))
        fixed = m.loc[["acc_cf_w3-1", "acc_cf", "acc_cf_w1-3"]]
        out[f"adaptive_{ds}"] = say(
            "beyond.adaptive",
            dataset=dataset_name(ds),
            cf_mse=", ".join(f"{v:.3f}" for v in fixed["cf_mse"]),
            accuracy=", ".join(f"{v:.3f}" for v in fixed["accuracy"]),
            budget_cf=m.loc["adaptive_budget", "cf_mse"],
            budget_acc=m.loc["adaptive_budget", "accuracy"],
            worst_fixed=m.loc["acc_cf_sg", "cf_mse_worst_subgroup"],
            worst_adaptive=m.loc["adaptive_sg", "cf_mse_worst_subgroup"],
            acc_fixed=m.loc["acc_cf_sg", "accuracy"],
            acc_adaptive=m.loc["adaptive_sg", "accuracy"],
        )
    cost = []
    for ds in sorted(frame["dataset"].unique()):
        recs = [r for r in records if r.config.setting == "beyond" and r.config.dataset == ds]
        cpu = sum(float(r["timings"].get("cpu", r["timings"].get("total", 0.0))) for r in recs)
        cost.append(
            say(
                "beyond.cost",
                "one" if len(recs) == 1 else "many",
                dataset=dataset_name(ds),
                minutes=cpu / 60,
                folds=len(recs),
            )
        )
    out["cost"] = "; ".join(cost)
    return out
