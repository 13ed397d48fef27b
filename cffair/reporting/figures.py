"""The book's figures (matplotlib). Each takes a frame (or a graph's nodes and edges) made
elsewhere (:mod:`.records`, :mod:`.describe`) and returns the figure; those that draw one
panel draw on ``ax`` if given.

* :func:`plot_subgroup_cf_mse` — CF-MSE per subgroup for the three axiom settings
  (the paper's Figures 3 and 5).
* :func:`plot_cf_mse_settings` — CF-MSE across the five axiom settings of the COMPAS
  experiments (Figure 4, top).
* :func:`plot_undesirable_ratio` — ratio of undesirable counterfactual explanations per
  sensitive group before and after a CKE axiom (Figure 4, bottom).
* :func:`plot_tradeoff`, :func:`plot_weight_trend` — performance against CF-MSE (Table 1),
  and against the axiom weights (appendix B).
* :func:`plot_subgroup_sizes`, :func:`plot_causal_graph` — the datasets page.

matplotlib is imported inside the functions, so that importing :mod:`cffair.reporting` does
not load it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from cffair.errors import DataError
from cffair.reporting.describe import (
    GRAPH_COLOURS,
    adjacency_frame,
    clip_to_box,
    graph_layers,
    layered_positions,
    node_roles,
)
from cffair.reporting.names import (
    DATASET_ORDER,
    FIGURE4_SETTINGS,
    Q1_SETTINGS,
    abbreviate_subgroup,
    dataset_name,
    method_name,
    metric_name,
    performance_metric,
)
from cffair.reporting.records import mean_sd, select_records

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

__all__ = [
    "plot_causal_graph",
    "plot_cf_mse_settings",
    "plot_subgroup_cf_mse",
    "plot_subgroup_sizes",
    "plot_tradeoff",
    "plot_undesirable_ratio",
    "plot_weight_trend",
    "setting_colours",
]


def _axes(ax: Axes | None, figsize: tuple[float, float]) -> tuple[Figure, Axes]:
    import matplotlib.pyplot as plt

    if ax is None:
        fig, ax = plt.subplots(figsize=figsize, layout="constrained")
        return fig, ax
    return ax.figure, ax


def setting_colours(settings: Sequence[str]) -> list[str]:
    """Stable colours per setting, so a setting has the same colour in every figure."""
    import matplotlib.pyplot as plt

    palette = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    fixed = {s: palette[i % len(palette)] for i, s in enumerate((*FIGURE4_SETTINGS, "cnf", "gan", "dcevae"))}
    unused = [c for c in palette if c not in fixed.values()]
    extra = iter(unused + ["black", "dimgray", "darkgoldenrod", "teal"] + palette)
    return [fixed.get(s) or next(extra) for s in settings]


# ---------------------------------------------------------------------------- Q1 and Q3
def plot_subgroup_cf_mse(
    df_by_subgroup: pd.DataFrame,
    settings: Sequence[str] = Q1_SETTINGS,
    *,
    value: str = "cf_mse",
    subgroup: str = "subgroup",
    method: str = "method",
    sd: str | None = "sd",
    subgroup_order: Sequence[str] | None = None,
    abbreviate: bool = True,
    title: str | None = None,
    ax: Axes | None = None,
) -> Figure:
    """Bar chart of CF-MSE per subgroup, one bar per axiom setting (the paper's Figures 3 and 5).

    Args:
        df_by_subgroup: columns ``subgroup``, ``method`` and ``cf_mse`` (names adjustable);
            either one row per subgroup × setting with an optional ``sd`` column, or one row
            per fold (then the bars show the mean and the error bars the sample sd).
        settings: the settings to draw, in order (default LTN(acc), LTN(acc+CF), LTN(acc+CF_sg)).
        subgroup_order: the subgroups in order (default: largest CF-MSE of the first setting first).
        abbreviate: shorten labels as in the paper (male → m, asian-pac-islander → api).
    """
    stats = mean_sd(df_by_subgroup, [subgroup, method], value, sd)
    stats = stats[stats[method].isin(settings)]
    absent = [s for s in settings if s not in set(stats[method])]
    if absent:
        raise DataError(f"no rows for setting(s) {absent}; settings present: {sorted(set(df_by_subgroup[method]))}.")
    if subgroup_order is None:
        first = stats[stats[method] == settings[0]].sort_values("mean", ascending=False)
        subgroup_order = list(dict.fromkeys([*first[subgroup], *stats[subgroup]]))
    fig, ax = _axes(ax, (max(6.0, 0.75 * len(subgroup_order) + 2), 3.8))
    x = np.arange(len(subgroup_order))
    width = 0.8 / len(settings)
    colours = setting_colours(settings)
    for k, s in enumerate(settings):
        part = stats[stats[method] == s].set_index(subgroup).reindex(subgroup_order)
        err = part["sd"].to_numpy(dtype=float)
        ax.bar(
            x + (k - (len(settings) - 1) / 2) * width,
            part["mean"].to_numpy(dtype=float),
            width,
            yerr=None if np.all(np.isnan(err)) else np.nan_to_num(err),
            capsize=2,
            label=method_name(s),
            color=colours[k],
            edgecolor="white",
            linewidth=0.5,
        )
    labels = [abbreviate_subgroup(g) if abbreviate else str(g) for g in subgroup_order]
    ax.set_xticks(x, labels, rotation=30 if len(labels) > 6 else 0, ha="right" if len(labels) > 6 else "center")
    ax.set_ylabel("CF-MSE (lower is better)")
    ax.set_xlabel("subgroup")
    ax.set_ylim(bottom=0)
    ax.legend(frameon=False, ncols=min(len(settings), 3))
    ax.grid(axis="y", alpha=0.3)
    ax.set_axisbelow(True)
    if title:
        ax.set_title(title)
    return fig


def plot_cf_mse_settings(
    df: pd.DataFrame,
    settings: Sequence[str] = FIGURE4_SETTINGS,
    *,
    value: str = "cf_mse",
    method: str = "method",
    group: str | None = "subgroup",
    sd: str | None = "sd",
    title: str | None = None,
    ax: Axes | None = None,
) -> Figure:
    """CF-MSE across axiom settings, one line per (sensitive) group (the paper's Figure 4, top).

    Args:
        df: columns ``method`` and ``cf_mse``, and optionally ``subgroup`` (one line each;
            without it a single "overall" line); one row per group × setting (with an
            optional ``sd``) or one per fold.
        settings: the x axis, in order (default: the five settings of Table 2).
    """
    df = df.copy()
    if group is None or group not in df.columns:
        group = "_group"
        df[group] = "overall"
    stats = mean_sd(df, [group, method], value, sd)
    stats = stats[stats[method].isin(settings)]
    absent = [s for s in settings if s not in set(stats[method])]
    if absent:
        raise DataError(f"no rows for setting(s) {absent}; settings present: {sorted(set(df[method]))}.")
    fig, ax = _axes(ax, (max(5.5, 1.2 * len(settings) + 1), 3.6))
    x = np.arange(len(settings))
    for g in dict.fromkeys(stats[group]):
        part = stats[stats[group] == g].set_index(method).reindex(list(settings))
        mean = part["mean"].to_numpy(dtype=float)
        err = part["sd"].to_numpy(dtype=float)
        line = ax.plot(x, mean, marker="o", label=str(g))[0]
        if not np.all(np.isnan(err)):
            ax.fill_between(x, mean - np.nan_to_num(err), mean + np.nan_to_num(err), color=line.get_color(), alpha=0.15, linewidth=0)
    ax.set_xticks(x, [method_name(s) for s in settings], rotation=20, ha="right")
    ax.set_ylabel("CF-MSE (lower is better)")
    ax.set_ylim(bottom=0)
    ax.grid(alpha=0.3)
    ax.set_axisbelow(True)
    if stats[group].nunique() > 1 or group != "_group":
        ax.legend(frameon=False, title=None if group == "_group" else group)
    if title:
        ax.set_title(title)
    return fig


def plot_undesirable_ratio(
    df: pd.DataFrame,
    *,
    feature: str = "feature",
    group: str = "group",
    stage: str = "stage",
    value: str = "ratio",
    stages: Sequence[str] = ("before", "after"),
    threshold: float | None = None,
    title: str | None = None,
    ax: Axes | None = None,
) -> Figure:
    """Ratio of undesirable counterfactual explanations per immutable feature, for each
    sensitive group, before and after a CKE axiom (the paper's Figure 4, bottom).

    Args:
        df: columns ``feature`` (the immutable feature an explanation changes), ``group``
            (the sensitive group), ``stage`` (``"before"``/``"after"`` the CKE axiom) and
            ``ratio`` (share of negatively predicted points of the group with such an
            explanation); several rows per cell (folds) are averaged.
        threshold: draw the imbalance threshold (0.1 for COMPAS in the paper) as a reference.
    """
    import matplotlib.pyplot as plt

    missing = [c for c in (feature, group, stage, value) if c not in df.columns]
    if missing:
        raise DataError(f"the plot data lacks column(s) {missing}; columns present: {list(df.columns)}.")
    stats = df.groupby([feature, group, stage], sort=False)[value].mean().reset_index()
    features = list(dict.fromkeys(stats[feature]))
    groups = list(dict.fromkeys(stats[group]))
    stages = [s for s in stages if s in set(stats[stage])] + [s for s in dict.fromkeys(stats[stage]) if s not in stages]
    combos = [(g, s) for g in groups for s in stages]
    fig, ax = _axes(ax, (max(5.5, 1.3 * len(features) + 2), 3.6))
    x = np.arange(len(features))
    width = 0.8 / max(1, len(combos))
    palette = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for k, (g, s) in enumerate(combos):
        part = stats[(stats[group] == g) & (stats[stage] == s)].set_index(feature).reindex(features)
        later = stages.index(s) > 0
        ax.bar(
            x + (k - (len(combos) - 1) / 2) * width,
            part[value].to_numpy(dtype=float),
            width,
            label=f"{g} ({s})",
            color=palette[groups.index(g) % len(palette)],
            alpha=0.55 if not later else 1.0,
            hatch="//" if not later else None,
            edgecolor="white",
            linewidth=0.5,
        )
    if threshold is not None:
        ax.axhline(threshold, color="grey", linestyle="--", linewidth=1, label=f"threshold {threshold:g}")
    top = float(np.nanmax([stats[value].max(), threshold or 0.0]))
    if np.isfinite(top) and top > 0:
        ax.set_ylim(top=top * 1.35)  # room for the legend above the bars
    ax.set_xticks(x, features, rotation=20 if len(features) > 4 else 0, ha="right" if len(features) > 4 else "center")
    ax.set_ylabel("ratio of undesirable explanations")
    ax.set_xlabel("immutable feature changed by the explanation")
    ax.set_ylim(bottom=0)
    ax.legend(frameon=False, ncols=2, fontsize="small")
    ax.grid(axis="y", alpha=0.3)
    ax.set_axisbelow(True)
    if title:
        ax.set_title(title)
    return fig


# ---------------------------------------------------------------------------- Q2 and appendix B
def plot_tradeoff(frame: pd.DataFrame, methods: Sequence[str] | None = None, *, title: str | None = None) -> Figure:
    """Performance against CF-MSE, one panel per dataset, one point per method (mean over folds,
    error bars the sample sd): the accuracy–fairness trade-off of Table 1 at a glance.

    Args:
        frame: :func:`~cffair.reporting.records.records_frame` of the records (weight-grid
            records are left out).
        methods: the methods to draw, in order (default: every method in ``frame``).
    """
    import matplotlib.pyplot as plt

    frame = select_records(frame, methods)
    datasets = [d for d in DATASET_ORDER if d in set(frame["dataset"])]
    if not datasets:
        raise DataError("no records to plot.")
    methods = list(methods) if methods is not None else list(dict.fromkeys(frame["method"]))
    colours = dict(zip(methods, setting_colours(methods)))
    markers = {m: ("o" if m.startswith("ltn") else "s") for m in methods}
    fig, axes = plt.subplots(1, len(datasets), figsize=(3.3 * len(datasets) + 1.8, 3.6), layout="constrained", squeeze=False)
    for ax, d in zip(axes[0], datasets):
        perf = performance_metric(d)
        g = frame[frame["dataset"] == d]
        for m in methods:
            part = g[g["method"] == m]
            if part.empty:
                continue
            x, y = part["cf_mse"].astype(float), part[perf].astype(float)
            ax.errorbar(x.mean(), y.mean(), xerr=x.std(ddof=1) if len(part) > 1 else None, yerr=y.std(ddof=1) if len(part) > 1 else None,
                        marker=markers[m], color=colours[m], markersize=7, capsize=2, linestyle="none", label=method_name(m))
        ax.set_title(dataset_name(d))
        ax.set_xlabel("CF-MSE ↓")
        ax.set_ylabel(metric_name(perf))
        ax.grid(alpha=0.3)
        ax.set_axisbelow(True)
    handles, labels = axes[0][0].get_legend_handles_labels()
    for ax in axes[0][1:]:
        for h, l in zip(*ax.get_legend_handles_labels()):
            if l not in labels:
                handles.append(h)
                labels.append(l)
    fig.legend(handles, labels, loc="outside right center", frameon=False, fontsize="small")
    if title:
        fig.suptitle(title)
    return fig


def plot_weight_trend(grid: pd.DataFrame, *, title: str | None = None) -> Figure:
    """Appendix B: accuracy (or MSE) and CF-MSE against log₂(accuracy weight / CF weight), one
    column per dataset (mean over folds, error bars the sample sd). Data:
    :func:`~cffair.reporting.records.weight_grid_frame`."""
    import matplotlib.pyplot as plt

    datasets = [d for d in DATASET_ORDER if d in set(grid["dataset"])] + sorted(set(grid["dataset"]) - set(DATASET_ORDER))
    if not datasets:
        raise DataError("the weight grid is empty.")
    fig, axes = plt.subplots(2, len(datasets), figsize=(3.1 * len(datasets) + 0.6, 5.2), layout="constrained", squeeze=False, sharex=True)
    for j, d in enumerate(datasets):
        g = grid[grid["dataset"] == d]
        perf = performance_metric(d)
        for i, met in enumerate((perf, "cf_mse")):
            st = g.groupby("log2_ratio")[met].agg(["mean", "std", "count"]).reset_index()
            err = st["std"].where(st["count"] > 1)
            ax = axes[i, j]
            ax.errorbar(st["log2_ratio"], st["mean"], yerr=None if err.isna().all() else err.fillna(0), marker="o", capsize=3,
                        color="C0" if i == 0 else "C3")
            ax.grid(alpha=0.3)
            ax.set_axisbelow(True)
            if i == 0:
                ax.set_title(dataset_name(d))
            ax.set_ylabel(metric_name(met))
            if i == 1:
                ax.set_xlabel("log₂(acc weight / CF weight)")
    if title:
        fig.suptitle(title)
    return fig


# ---------------------------------------------------------------------------- the datasets page
def plot_subgroup_sizes(sizes: pd.DataFrame, *, titles: Mapping[str, str] | None = None,
                        legend_titles: Mapping[str, str] | None = None, ncols: int = 2) -> Figure:
    """Rows per subgroup, one panel per dataset, bars on a log scale coloured by the first part
    of the subgroup label (the sensitive group).

    Args:
        sizes: columns ``dataset``, ``subgroup`` and ``rows``
            (:func:`~cffair.reporting.describe.subgroup_sizes_frame`); panels follow the order
            of ``dataset``, bars within a panel go from the largest subgroup down.
        titles: a panel title per dataset (default: the dataset).
        legend_titles: a legend title per dataset (e.g. its sensitive attribute).
        ncols: panels per row.
    """
    import matplotlib.pyplot as plt

    missing = [c for c in ("dataset", "subgroup", "rows") if c not in sizes.columns]
    if missing:
        raise DataError(f"the subgroup sizes lack column(s) {missing}; build them with subgroup_sizes_frame().")
    datasets = list(dict.fromkeys(sizes["dataset"]))
    if not datasets:
        raise DataError("no subgroup sizes to plot.")
    nrows = -(-len(datasets) // ncols)
    fig, axes = plt.subplots(nrows, ncols, figsize=(5.5 * ncols, 4.0 * nrows), layout="constrained", sharex=True, squeeze=False)
    palette = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for ax, d in zip(axes.flat, datasets):
        part = sizes[sizes["dataset"] == d].sort_values("rows", ascending=False)
        groups = [str(s).split(",")[0] for s in part["subgroup"]]
        colour_of = {g: palette[i % len(palette)] for i, g in enumerate(dict.fromkeys(groups))}
        y = np.arange(len(part))
        ax.barh(y, part["rows"].to_numpy(dtype=float), color=[colour_of[g] for g in groups])
        ax.set_yticks(y, [str(s) for s in part["subgroup"]])
        ax.invert_yaxis()
        ax.set_xscale("log")
        ax.set_xlim(10, 50_000)
        ax.set_xlabel("rows (log scale)")
        ax.set_title((titles or {}).get(d, str(d)))
        ax.grid(axis="x", alpha=0.3)
        ax.set_axisbelow(True)
        if len(colour_of) > 1 and len(colour_of) < len(part):  # a legend only when it says more than the labels
            handles = [plt.Rectangle((0, 0), 1, 1, color=c) for c in colour_of.values()]
            ax.legend(handles, list(colour_of), title=(legend_titles or {}).get(d), frameon=False, fontsize="small", loc="lower right")
    for ax in list(axes.flat)[len(datasets):]:
        ax.set_visible(False)
    fig.suptitle("Subgroup sizes")
    return fig


def plot_causal_graph(
    nodes: Sequence[str],
    edges: Iterable[tuple[str, str]],
    *,
    sensitive: str | None = None,
    immutable: Iterable[str] = (),
    title: str | None = None,
    style: str = "auto",
) -> Figure:
    """A causal graph, coloured as the paper's Figure 2 (white: the sensitive attribute, grey:
    other immutable features, blue: features a person could act on).

    Args:
        nodes, edges: the graph (``(parent, child)`` pairs).
        style: ``"layers"`` draws the DAG in layers from left (roots) to right; ``"matrix"``
            draws its adjacency matrix (a row per cause, a column per effect, both in
            topological order); ``"auto"`` takes the layers when every edge joins neighbouring
            layers and there are at most 20 edges (no edge crosses a node), else the matrix.
    """
    edges = list(edges)
    if style not in ("auto", "layers", "matrix"):
        raise DataError(f"unknown graph style {style!r}; use 'layers', 'matrix' or 'auto'.")
    layers = graph_layers(nodes, edges)
    if style == "auto":
        layer_of = {n: i for i, layer in enumerate(layers) for n in layer}
        short = all(layer_of[b] - layer_of[a] == 1 for a, b in edges)
        style = "layers" if short and len(edges) <= 20 else "matrix"
    colours = {n: GRAPH_COLOURS[role] for n, role in node_roles(nodes, sensitive, immutable).items()}
    if style == "matrix":
        return _graph_matrix(nodes, edges, colours, title)
    return _graph_layers(nodes, edges, layers, colours, title)


def _graph_layers(nodes: Sequence[str], edges: list[tuple[str, str]], layers: list[list[str]],
                  colours: Mapping[str, str], title: str | None) -> Figure:
    import matplotlib.pyplot as plt

    pos = layered_positions(layers)
    xs, ys = [p[0] for p in pos.values()], [p[1] for p in pos.values()]
    width = max(5.0, 2.6 * len(layers) + 1.0)
    height = max(2.6, 0.75 * max(len(layer) for layer in layers) + 1.2)
    fig = plt.figure(figsize=(width, height))
    # A fixed axes rectangle (no constrained layout), so that the label boxes measured below
    # keep their size in data units when the figure is drawn.
    ax = fig.add_axes((0.02, 0.02, 0.96, 0.86 if title else 0.96))
    ax.set_xlim(min(xs) - 0.5, max(xs) + 0.5)
    ax.set_ylim(min(ys) - 0.6, max(ys) + 0.6)
    ax.axis("off")
    texts = {n: ax.text(x, y, n, ha="center", va="center", fontsize=10, zorder=3,
                        bbox=dict(boxstyle="round,pad=0.35", fc=colours[n], ec="black", lw=0.8))
             for n, (x, y) in pos.items()}
    renderer = fig.canvas.get_renderer()
    to_data = ax.transData.inverted()
    pad = 0.35 * 10 * fig.dpi / 72  # the bbox pad, in pixels
    half: dict[str, tuple[float, float]] = {}
    for n, t in texts.items():
        box = t.get_window_extent(renderer)
        (x0, y0), (x1, y1) = to_data.transform([(box.x0 - pad, box.y0 - pad), (box.x1 + pad, box.y1 + pad)])
        half[n] = ((x1 - x0) / 2, (y1 - y0) / 2)
    for a, b in edges:
        start = clip_to_box(pos[a], pos[b], half[a])
        end = clip_to_box(pos[b], pos[a], half[b])
        ax.annotate("", xy=end, xytext=start, zorder=2,
                    arrowprops=dict(arrowstyle="-|>", color="#7f7f7f", lw=0.8, shrinkA=0, shrinkB=0, mutation_scale=12))
    if title:
        fig.suptitle(title, fontsize=11)
    return fig


def _graph_matrix(nodes: Sequence[str], edges: list[tuple[str, str]], colours: Mapping[str, str],
                  title: str | None) -> Figure:
    import matplotlib.pyplot as plt
    from matplotlib.colors import ListedColormap

    adj = adjacency_frame(nodes, edges)
    n = len(adj)
    size = max(4.0, 0.42 * n + 2.2)
    fig, ax = plt.subplots(figsize=(size + 0.6, size), layout="constrained")
    ax.imshow(adj.to_numpy(dtype=float), cmap=ListedColormap(["white", "#1f78b4"]), vmin=0, vmax=1, aspect="equal")
    ax.set_xticks(np.arange(n), list(adj.columns), rotation=45, ha="left", rotation_mode="anchor")
    ax.set_yticks(np.arange(n), list(adj.index))
    ax.xaxis.tick_top()
    ax.xaxis.set_label_position("top")
    ax.set_xlabel("effect (child)")
    ax.set_ylabel("cause (parent)")
    ax.set_xticks(np.arange(n + 1) - 0.5, minor=True)
    ax.set_yticks(np.arange(n + 1) - 0.5, minor=True)
    ax.grid(which="minor", color="#d9d9d9", linewidth=0.8)
    ax.tick_params(which="minor", length=0)
    for label in (*ax.get_xticklabels(), *ax.get_yticklabels()):
        label.set_bbox(dict(boxstyle="round,pad=0.2", fc=colours[label.get_text()], ec="black", lw=0.6))
    edges_text = f"{int(adj.to_numpy().sum())} edges; a filled cell: the row's feature causes the column's"
    fig.suptitle(f"{title}\n{edges_text}" if title else edges_text, fontsize=11)
    return fig
