"""The book's figures, drawn with seaborn in the book's style (:mod:`._style`).

Each function takes a tidy frame made elsewhere (:mod:`._records`, :mod:`._describe`; one row
per fold where there are folds, so that seaborn computes the means and the sample-sd error
bars) and returns the figure. Every figure is at most :data:`~.style.MAX_WIDTH_IN` inches wide
with at most two panels a row, uses the colour-blind palette with a distinct marker per series,
keeps ordinal bands (``<=30``, ``31-45``, ...) in order and puts its legend below the panels,
off the data.

* :func:`plot_subgroup_cf_mse` — CF-MSE per subgroup for the three axiom settings
  (the paper's Figures 3 and 5).
* :func:`plot_cf_mse_settings` — CF-MSE across axiom settings, per subgroup (Figure 4, top).
* :func:`plot_undesirable_ratio` — share of undesirable counterfactual explanations per
  sensitive group before and after the CKE axioms (Figure 4, bottom).
* :func:`plot_tradeoff`, :func:`plot_weight_trend` — performance against CF-MSE (Table 1),
  and against the axiom weights (appendix B).

The datasets page's figures (subgroup sizes, causal graphs) are :mod:`._datafigures`'.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import pandas as pd

from cffair.errors import DataError
from cffair.reporting._names import (
    DATASET_ORDER,
    FIGURE4_SETTINGS,
    Q1_SETTINGS,
    abbreviate_subgroup,
    dataset_name,
    method_name,
    metric_name,
    ordinal_order,
    performance_metric,
)
from cffair.reporting._records import select_records
from cffair.reporting._style import (
    FONT_PT,
    MARKERS,
    MAX_WIDTH_IN,
    book_style,
    finish,
    legend_below,
    line_handles,
    patch_handles,
    series_colours,
    setting_colours,
    setting_markers,
)

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.figure import Figure

__all__ = [
    "plot_cf_mse_settings",
    "plot_subgroup_cf_mse",
    "plot_tradeoff",
    "plot_undesirable_ratio",
    "plot_weight_trend",
]

_PANEL_W = MAX_WIDTH_IN / 2  # width of one panel when two share a row (inches)


def _require(df: pd.DataFrame, columns: Sequence[str], what: str = "the plot data") -> None:
    missing = [c for c in columns if c not in df.columns]
    if missing:
        raise DataError(f"{what} lacks column(s) {missing}; columns present: {list(df.columns)}.")


def _settings_present(df: pd.DataFrame, method: str, settings: Sequence[str]) -> pd.DataFrame:
    absent = [s for s in settings if s not in set(df[method])]
    if absent:
        raise DataError(f"no rows for setting(s) {absent}; settings present: {sorted(set(df[method]))}.")
    return df[df[method].isin(settings)]


def _split_labels(labels: pd.Series) -> tuple[pd.Series, pd.Series] | None:
    """``"Male, White"`` → (``"Male"``, ``"White"``) when every label has two parts, else None."""
    parts = labels.astype(str).str.split(", ", n=1)
    if len(parts) == 0 or not parts.map(len).eq(2).all():
        return None
    return parts.str[0], parts.str[1]


# ---------------------------------------------------------------------------- Q1 and Q3
def plot_subgroup_cf_mse(
    df_by_subgroup: pd.DataFrame,
    settings: Sequence[str] = Q1_SETTINGS,
    *,
    value: str = "cf_mse",
    subgroup: str = "subgroup",
    method: str = "method",
    subgroup_order: Sequence[str] | None = None,
    abbreviate: bool = False,
    log: bool | None = None,
    title: str | None = None,
) -> Figure:
    """CF-MSE per subgroup, one bar per axiom setting (the paper's Figures 3 and 5).

    Subgroups of two parts (``"Male, White"``) get one panel per first part (sex) and one row
    of bars per second part (race), two panels a row; other subgroups share one panel.

    Args:
        df_by_subgroup: columns ``subgroup``, ``method`` and ``cf_mse`` (names adjustable), one
            row per fold and subgroup × setting; bars show the mean, error bars the sample sd.
        settings: the settings to draw, in order (default LTN(acc), LTN(acc+CF), LTN(acc+CF_sg)).
        subgroup_order: the rows in order (default: largest mean CF-MSE of the first setting first).
        abbreviate: shorten labels as in the paper (male → m, asian-pac-islander → api).
        log: a logarithmic CF-MSE axis; None takes it when the settings' mean CF-MSEs differ by
            more than a factor of 50 (then the bars of the fairer settings would be invisible).
    """
    import seaborn as sns

    _require(df_by_subgroup, [subgroup, method, value])
    data = _settings_present(df_by_subgroup, method, settings).copy()
    split = _split_labels(data[subgroup])
    if split is not None:
        data["_panel"], data["_row"] = split
    else:
        data["_panel"], data["_row"] = "", data[subgroup].astype(str)
    if abbreviate:
        data["_row"] = data["_row"].map(abbreviate_subgroup)
        data["_panel"] = data["_panel"].map(lambda p: abbreviate_subgroup(p) if p else p)
    if subgroup_order is None:
        first = data[data[method] == settings[0]].groupby("_row")[value].mean().sort_values(ascending=False)
        rows = list(dict.fromkeys([*first.index, *data["_row"]]))
    else:
        rows = [abbreviate_subgroup(r) if abbreviate else str(r) for r in subgroup_order]
    panels = sorted(set(data["_panel"]))
    names = [method_name(s) for s in settings]
    data["_setting"] = data[method].map(method_name)
    height = max(2.4, 0.22 * len(rows) * len(settings) + 0.9)
    with book_style():
        g = sns.catplot(
            data=data,
            kind="bar",
            y="_row",
            x=value,
            hue="_setting",
            hue_order=names,
            order=rows,
            col="_panel" if len(panels) > 1 else None,
            col_order=panels if len(panels) > 1 else None,
            col_wrap=2 if len(panels) > 2 else None,
            errorbar="sd",
            capsize=0.25,
            saturation=1.0,
            err_kws={"linewidth": 1.0, "color": "#333333"},
            palette=dict(zip(names, setting_colours(settings))),
            height=height,
            aspect=(_PANEL_W if len(panels) > 1 else MAX_WIDTH_IN) / height,
            legend=False,
            sharex=True,
        )
        means = data.groupby(method)[value].mean()
        positive = means[means > 0]
        if log is None:
            log = len(positive) > 1 and float(positive.max() / positive.min()) > 50
        xlabel = "CF-MSE (lower is better" + ("; log scale)" if log else ")")
        if len(panels) > 1:  # one label under both panels: a label per panel would not fit
            g.set_axis_labels("", "")
            g.figure.supxlabel(xlabel, fontsize=FONT_PT)
        else:
            g.set_axis_labels(xlabel, "")
        g.set_titles("{col_name}" if len(panels) > 1 else "")
        for ax in g.axes.flat:
            ax.grid(axis="x")
            if log:
                ax.set_xscale("log", nonpositive="clip")
            else:
                ax.set_xlim(left=0)
        g.tight_layout()
        # at most four legend entries a row: six in one row made the figure wider than the text column
        legend_below(
            g.figure, patch_handles(setting_colours(settings)), names, ncol=len(settings) if len(settings) <= 4 else 3
        )
        if title:  # above the panel titles, not on them
            g.figure.suptitle(title, y=1.0 + 0.25 / g.figure.get_figheight())
        return finish(g.figure)


def plot_cf_mse_settings(
    df: pd.DataFrame,
    settings: Sequence[str] = FIGURE4_SETTINGS,
    *,
    value: str = "cf_mse",
    method: str = "method",
    group: str = "subgroup",
    dataset: str = "dataset",
    split: bool | None = None,
    title: str | None = None,
) -> Figure:
    """CF-MSE across axiom settings, one line per subgroup (the paper's Figure 4, top).

    One panel per dataset. A dataset with more than four two-part subgroups (COMPAS(age):
    race × age band) gets a panel per first part (race), its lines the second part (age band,
    in order), so that no panel holds more than four lines.

    Args:
        df: columns ``method``, ``cf_mse`` and optionally ``subgroup`` (without it one
            "overall" line) and ``dataset``; one row per fold and line × setting (points show
            the mean, error bars the sample sd).
        settings: the x axis, in order (default: the five settings of Table 2).
        split: force (True) or forbid (False) the per-first-part panels; None decides as above.
    """
    import seaborn as sns

    _require(df, [method, value])
    data = _settings_present(df, method, settings).copy()
    if group not in data.columns:
        data[group] = "overall"
    if dataset not in data.columns:
        data[dataset] = ""
    parts = []
    for d in [x for x in DATASET_ORDER if x in set(data[dataset])] + sorted(set(data[dataset]) - set(DATASET_ORDER)):
        part = data[data[dataset] == d].copy()
        name = dataset_name(d) if d else ""
        pieces = _split_labels(part[group])
        do_split = split if split is not None else (pieces is not None and part[group].nunique() > 4)
        if do_split and pieces is not None:
            part["_panel"] = [f"{name}: {p}" if name else p for p in pieces[0]]
            part["_line"] = pieces[1].to_numpy()
        else:
            part["_panel"], part["_line"] = name, part[group].astype(str)
        parts.append(part)
    data = pd.concat(parts, ignore_index=True)
    panels = list(dict.fromkeys(data["_panel"]))
    lines = ordinal_order(data["_line"])
    names = [method_name(s) for s in settings]
    data["_setting"] = data[method].map(method_name)
    many = len(panels) > 1
    height = 3.3
    colours = series_colours(lines)
    markers = [MARKERS[i % len(MARKERS)] for i in range(len(lines))]
    styles = [["-", "--", ":", "-."][i % 4] for i in range(len(lines))]
    with book_style():
        g = sns.catplot(
            data=data,
            kind="point",
            x="_setting",
            order=names,
            y=value,
            hue="_line",
            hue_order=lines,
            col="_panel" if many else None,
            col_order=panels if many else None,
            col_wrap=2 if many else None,
            errorbar="sd",
            capsize=0.08,
            dodge=0.3 if len(lines) > 1 else False,
            markersize=7,
            err_kws={"linewidth": 1.2},
            linewidth=1.8,
            markers=markers,
            linestyles=styles,
            palette=colours,
            height=height,
            aspect=(_PANEL_W if many else MAX_WIDTH_IN * 0.8) / height,
            legend=False,
            sharey=True,
        )
        g.set_axis_labels("", "CF-MSE (lower is better)")
        g.set_titles("{col_name}" if many else "")
        for ax in g.axes.flat:
            ax.set_ylim(bottom=0)
            ax.tick_params(axis="x", labelrotation=40)
            for label in ax.get_xticklabels():
                label.set_ha("right")
                label.set_rotation_mode("anchor")
        if not many and panels[0]:
            g.axes.flat[0].set_title(panels[0])
        g.tight_layout()
        gap = g.axes.flat[-1] if many and len(panels) % 2 == 1 else None
        legend_below(
            g.figure,
            line_handles([colours[x] for x in lines], markers, styles),
            lines,
            ncol=min(len(lines), 4),
            gap=gap,
        )
        if title:
            g.figure.suptitle(title)
        return finish(g.figure)


def plot_undesirable_ratio(
    df: pd.DataFrame,
    *,
    feature: str = "feature",
    group: str = "group",
    stage: str = "stage",
    value: str = "ratio",
    dataset: str = "dataset",
    stages: Sequence[str] = ("before", "after"),
    threshold: float | None = None,
    title: str | None = None,
) -> Figure:
    """Share of undesirable counterfactual explanations per sensitive group, before and after
    the CKE axioms (the paper's Figure 4, bottom): one panel per dataset × immutable feature,
    bars per sensitive group, hatched before and solid after.

    Args:
        df: columns ``feature`` (the immutable feature an explanation changes), ``group`` (the
            sensitive group), ``stage`` (``"before"``/``"after"``), ``ratio`` (share of the
            group's negatively predicted points with such an explanation) and optionally
            ``dataset``; one row per fold (bars: mean, error bars: sample sd).
        threshold: draw a reference line (e.g. the imbalance threshold 0.1 of COMPAS).
    """
    import seaborn as sns

    _require(df, [feature, group, stage, value])
    data = df.copy()
    has_dataset = dataset in data.columns
    data["_panel"] = [
        f"{dataset_name(d)}: {f}" if has_dataset else str(f)
        for d, f in zip(data[dataset] if has_dataset else data[feature], data[feature])
    ]
    panels = list(dict.fromkeys(data["_panel"]))
    stage_order = [s for s in stages if s in set(data[stage])] + [
        s for s in dict.fromkeys(data[stage]) if s not in stages
    ]
    groups = sorted(set(data[group].astype(str)))
    data[group] = data[group].astype(str)
    many = len(panels) > 1
    height = 3.2
    colours = series_colours(["_", *stage_order])  # after: blue-ish second colour, before: first
    with book_style():
        g = sns.catplot(
            data=data,
            kind="bar",
            x=group,
            order=groups,
            y=value,
            hue=stage,
            hue_order=stage_order,
            col="_panel" if many else None,
            col_order=panels if many else None,
            col_wrap=2 if many else None,
            errorbar="sd",
            capsize=0.2,
            saturation=1.0,
            err_kws={"linewidth": 1.0, "color": "#333333"},
            palette={s: colours[s] for s in stage_order},
            height=height,
            aspect=(_PANEL_W if many else MAX_WIDTH_IN * 0.7) / height,
            legend=False,
        )
        g.set_axis_labels("sensitive group", "share with an undesirable\nexplanation")
        g.set_titles("{col_name}" if many else panels[0])
        for ax in g.axes.flat:
            for container, s in zip(ax.containers, stage_order):
                if stage_order.index(s) == 0 and len(stage_order) > 1:
                    for bar in getattr(container, "patches", []):
                        bar.set_hatch("//")
                        bar.set_edgecolor("white")
            if threshold is not None:
                ax.axhline(threshold, color="#555555", linestyle="--", linewidth=1.2, label=f"threshold {threshold:g}")
            ax.set_ylim(bottom=0)
        handles = patch_handles(
            [colours[s] for s in stage_order],
            hatches=["//" if i == 0 and len(stage_order) > 1 else None for i in range(len(stage_order))],
        )
        labels = [f"{s} CKE" for s in stage_order]
        if threshold is not None:
            handles += line_handles(["#555555"], [""], ["--"])
            labels.append(f"threshold {threshold:g}")
        legend_below(g.figure, handles, labels, ncol=3)
        if title:
            g.figure.suptitle(title)
        return finish(g.figure)


# ---------------------------------------------------------------------------- Q2 and appendix B
def plot_tradeoff(frame: pd.DataFrame, methods: Sequence[str] | None = None, *, title: str | None = None) -> Figure:
    """Performance against CF-MSE, one panel per dataset (two a row), one point per method
    (mean over folds, error bars the sample sd in both directions): the accuracy–fairness
    trade-off of Table 1 at a glance.

    Args:
        frame: :func:`~cffair.reporting.records_frame` of the records (one row per fold).
        methods: the methods to draw, in order (default: every method in ``frame``).
    """
    import matplotlib.pyplot as plt

    frame = select_records(frame, methods)
    datasets = [d for d in DATASET_ORDER if d in set(frame["dataset"])]
    if not datasets:
        raise DataError("no records to plot.")
    methods = list(methods) if methods is not None else list(dict.fromkeys(frame["method"]))
    colours = dict(zip(methods, setting_colours(methods)))
    markers = dict(zip(methods, setting_markers(methods)))
    ncols = 2 if len(datasets) > 1 else 1
    nrows = -(-len(datasets) // ncols)
    with book_style():
        fig, axes = plt.subplots(
            nrows,
            ncols,
            figsize=(MAX_WIDTH_IN if ncols == 2 else 0.7 * MAX_WIDTH_IN, 3.0 * nrows),
            layout="constrained",
            squeeze=False,
        )
        drawn: dict[str, object] = {}
        for ax, d in zip(axes.flat, datasets):
            perf = performance_metric(d)
            g = frame[frame["dataset"] == d]
            for m in methods:
                part = g[g["method"] == m]
                if part.empty:
                    continue
                x, y = part["cf_mse"].astype(float), part[perf].astype(float)
                many = len(part) > 1
                drawn[m] = ax.errorbar(
                    x.mean(),
                    y.mean(),
                    xerr=x.std(ddof=1) if many else None,
                    yerr=y.std(ddof=1) if many else None,
                    marker=markers[m],
                    color=colours[m],
                    markersize=8,
                    capsize=2,
                    linestyle="none",
                    markeredgecolor="white",
                    markeredgewidth=0.6,
                )
            ax.set_title(dataset_name(d))
            ax.set_xlabel("CF-MSE (lower is better)")
            ax.set_ylabel(metric_name(perf))
        for ax in list(axes.flat)[len(datasets) :]:
            ax.set_visible(False)
        shown = [m for m in methods if m in drawn]
        legend_below(fig, [drawn[m] for m in shown], [method_name(m) for m in shown], ncol=3)
        if title:
            fig.suptitle(title)
        return finish(fig)


def plot_weight_trend(grid: pd.DataFrame, *, title: str | None = None) -> Figure:
    """Appendix B: performance (accuracy or MSE) and CF-MSE against log₂(accuracy weight / CF
    weight), one row of two panels per dataset (points: mean over folds, error bars: sample sd).

    Args:
        grid: :func:`~cffair.reporting.weight_grid_frame` (one row per record:
            ``dataset``, ``log2_ratio`` and the metrics).
    """
    import seaborn as sns

    _require(grid, ["dataset", "log2_ratio", "cf_mse"], "the weight grid")
    datasets = [d for d in DATASET_ORDER if d in set(grid["dataset"])] + sorted(
        set(grid["dataset"]) - set(DATASET_ORDER)
    )
    if not datasets:
        raise DataError("the weight grid is empty.")
    kinds = ["performance", "CF-MSE"]
    long = pd.concat(
        [
            pd.DataFrame(
                {
                    "dataset": dataset_name(d),
                    "kind": k,
                    "log2_ratio": g["log2_ratio"].astype(float),
                    "value": g[performance_metric(d) if k == "performance" else "cf_mse"].astype(float),
                }
            )
            for d in datasets
            for k in kinds
            for g in [grid[grid["dataset"] == d]]
        ],
        ignore_index=True,
    )
    colours = series_colours(kinds)
    height = 2.4
    with book_style():
        g = sns.relplot(
            data=long,
            kind="line",
            x="log2_ratio",
            y="value",
            row="dataset",
            col="kind",
            col_order=kinds,
            row_order=[dataset_name(d) for d in datasets],
            hue="kind",
            palette=colours,
            style="kind",
            markers=dict(zip(kinds, MARKERS)),
            dashes=False,
            markersize=8,
            errorbar="sd",
            err_style="bars",
            err_kws={"capsize": 3},
            height=height,
            aspect=_PANEL_W / height,
            legend=False,
            facet_kws={"sharey": False, "sharex": True},
        )
        g.set_titles("{row_name}")
        for (d, k), ax in zip([(d, k) for d in datasets for k in kinds], g.axes.flat):
            ax.set_ylabel(metric_name(performance_metric(d)) if k == "performance" else metric_name("cf_mse"))
            ax.axvline(0, color="#999999", linewidth=0.8, linestyle=":")
        g.set_xlabels("log₂(acc weight / CF weight)")
        if title:
            g.figure.suptitle(title)
        return finish(g.figure)
