"""The datasets page's figures, in the book's style (:mod:`._style`), from frames made by :mod:`._describe`.

* :func:`plot_subgroup_sizes` — rows per subgroup, one panel per dataset.
* :func:`plot_causal_graph` — a causal graph, in layers (a node after all its parents) or, when dense,
  as an adjacency matrix.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from cffair.errors import DataError
from cffair.reporting._describe import (
    GRAPH_COLOURS,
    adjacency_frame,
    clip_to_box,
    graph_layers,
    layered_positions,
    node_roles,
)
from cffair.reporting._figures import _require, _split_labels
from cffair.reporting._names import ordinal_order
from cffair.reporting._style import (
    FONT_PT,
    MAX_WIDTH_IN,
    book_style,
    finish,
    series_colours,
)

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.figure import Figure

__all__ = ["plot_causal_graph", "plot_subgroup_sizes"]


def plot_subgroup_sizes(
    sizes: pd.DataFrame, *, titles: Mapping[str, str] | None = None, legend_titles: Mapping[str, str] | None = None
) -> Figure:
    """Rows per subgroup, one panel per dataset (one a row), bars on a log scale.

    Two-part subgroups (``"Male, White"``) get a row per second part (race, age band in
    order) and a colour per first part (sex, race), with that panel's legend to its right.

    Args:
        sizes: columns ``dataset``, ``subgroup`` and ``rows``
            (:func:`~cffair.reporting.subgroup_sizes_frame`); panels follow the order
            of ``dataset``.
        titles: a panel title per dataset (default: the dataset).
        legend_titles: a legend title per dataset (e.g. its sensitive attribute).
    """
    import matplotlib.pyplot as plt
    import seaborn as sns

    _require(sizes, ["dataset", "subgroup", "rows"], "the subgroup sizes (build them with subgroup_sizes_frame())")
    datasets = list(dict.fromkeys(sizes["dataset"]))
    if not datasets:
        raise DataError("no subgroup sizes to plot.")
    layout = []
    for d in datasets:
        part = sizes[sizes["dataset"] == d].copy()
        pieces = _split_labels(part["subgroup"])
        if pieces is not None:
            part["_hue"], part["_row"] = pieces[0].to_numpy(), pieces[1].to_numpy()
        else:
            part["_hue"], part["_row"] = "", part["subgroup"].astype(str)
        numeric = all(str(r)[:1].isdigit() or str(r)[:1] in "<>≤≥" for r in part["_row"])
        rows = (
            ordinal_order(part["_row"])
            if numeric
            else list(part.groupby("_row")["rows"].sum().sort_values(ascending=False).index)
        )
        layout.append((d, part, rows))
    heights = [max(1.3, 0.34 * len(rows) * max(1, part["_hue"].nunique()) ** 0.5 + 0.7) for _, part, rows in layout]
    with book_style():
        fig, axes = plt.subplots(
            len(layout),
            1,
            figsize=(MAX_WIDTH_IN, sum(heights) + 0.4),
            layout="constrained",
            squeeze=False,
            gridspec_kw={"height_ratios": heights},
        )
        for ax, (d, part, rows) in zip(axes[:, 0], layout):
            hues = sorted(set(part["_hue"]))
            with_hue = hues != [""]
            sns.barplot(
                data=part,
                y="_row",
                x="rows",
                order=rows,
                hue="_hue" if with_hue else None,
                hue_order=hues if with_hue else None,
                palette=series_colours(hues) if with_hue else None,
                color=None if with_hue else series_colours(["x"])["x"],
                orient="h",
                saturation=1.0,
                ax=ax,
                legend=with_hue,
            )
            ax.set_xscale("log", nonpositive="clip")  # bars start at the axis, not at 0
            ax.set_xlim(10, 50_000)
            ax.set_xlabel("rows (log scale)")
            ax.set_ylabel("")
            ax.set_title((titles or {}).get(d, str(d)), loc="left")
            if with_hue:
                sns.move_legend(
                    ax, "center left", bbox_to_anchor=(1.01, 0.5), frameon=False, title=(legend_titles or {}).get(d)
                )
        return finish(fig)


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
    with book_style():
        if style == "matrix":
            return finish(_graph_matrix(nodes, edges, colours, title))
        return finish(_graph_layers(edges, layers, colours, title))


def _graph_layers(
    edges: list[tuple[str, str]], layers: list[list[str]], colours: Mapping[str, str], title: str | None
) -> Figure:
    import matplotlib.pyplot as plt

    pos = layered_positions(layers)
    xs, ys = [p[0] for p in pos.values()], [p[1] for p in pos.values()]
    width = min(MAX_WIDTH_IN, max(4.5, 2.2 * len(layers) + 0.8))
    height = max(2.4, 0.7 * max(len(layer) for layer in layers) + 1.0)
    fig = plt.figure(figsize=(width, height))
    # A fixed axes rectangle (no constrained layout), so that the label boxes measured below
    # keep their size in data units when the figure is drawn.
    ax = fig.add_axes((0.02, 0.02, 0.96, 0.84 if title else 0.96))
    ax.set_xlim(min(xs) - 0.55, max(xs) + 0.55)
    ax.set_ylim(min(ys) - 0.6, max(ys) + 0.6)
    ax.axis("off")
    texts = {
        n: ax.text(
            x,
            y,
            n,
            ha="center",
            va="center",
            fontsize=FONT_PT,
            zorder=3,
            bbox=dict(boxstyle="round,pad=0.3", fc=colours[n], ec="black", lw=0.8),
        )
        for n, (x, y) in pos.items()
    }
    renderer = fig.canvas.get_renderer()  # type: ignore[attr-defined]  # Agg's canvas has it; the base class's stubs do not
    to_data = ax.transData.inverted()
    pad = 0.3 * FONT_PT * fig.dpi / 72  # the bbox pad, in pixels
    half: dict[str, tuple[float, float]] = {}
    for n, t in texts.items():
        box = t.get_window_extent(renderer)
        (x0, y0), (x1, y1) = to_data.transform([(box.x0 - pad, box.y0 - pad), (box.x1 + pad, box.y1 + pad)])
        half[n] = ((x1 - x0) / 2, (y1 - y0) / 2)
    for a, b in edges:
        start = clip_to_box(pos[a], pos[b], half[a])
        end = clip_to_box(pos[b], pos[a], half[b])
        ax.annotate(
            "",
            xy=end,
            xytext=start,
            zorder=2,
            arrowprops=dict(arrowstyle="-|>", color="#6f6f6f", lw=0.9, shrinkA=0, shrinkB=0, mutation_scale=13),
        )
    if title:
        fig.suptitle(title)
    return fig


def _graph_matrix(
    nodes: Sequence[str], edges: list[tuple[str, str]], colours: Mapping[str, str], title: str | None
) -> Figure:
    import matplotlib.pyplot as plt
    from matplotlib.colors import ListedColormap

    adj = adjacency_frame(nodes, edges)
    n = len(adj)
    size = min(MAX_WIDTH_IN, max(4.0, 0.36 * n + 2.6))
    fig, ax = plt.subplots(figsize=(size, size), layout="constrained")
    ax.imshow(adj.to_numpy(dtype=float), cmap=ListedColormap(["white", "#0173b2"]), vmin=0, vmax=1, aspect="equal")
    ax.set_xticks(np.arange(n), list(adj.columns), rotation=50, ha="left", rotation_mode="anchor")
    ax.set_yticks(np.arange(n), list(adj.index))
    ax.xaxis.tick_top()
    ax.xaxis.set_label_position("top")
    ax.set_xlabel("effect (child)")
    ax.set_ylabel("cause (parent)")
    ax.set_xticks(np.arange(n + 1) - 0.5, minor=True)
    ax.set_yticks(np.arange(n + 1) - 0.5, minor=True)
    ax.grid(which="major", visible=False)
    ax.grid(which="minor", color="#d9d9d9", linewidth=0.8)
    ax.tick_params(which="minor", length=0)
    for label in (*ax.get_xticklabels(), *ax.get_yticklabels()):
        label.set_bbox(dict(boxstyle="round,pad=0.2", fc=colours[label.get_text()], ec="black", lw=0.6))
    edges_text = f"{int(adj.to_numpy().sum())} edges; a filled cell: the row's feature causes the column's"
    fig.suptitle(f"{title}\n{edges_text}" if title else edges_text)
    return fig
