"""Descriptions of the datasets and their causal graphs (the datasets page), as frames.

The inputs are what :mod:`cffair.datasets` and :mod:`cffair.causal` already provide: dataset
specifications (read by attribute: ``target``, ``features``, ``subgroups``...), the summaries
of ``cffair.datasets.summary`` (plain dicts) and a graph's nodes and ``(parent, child)``
edges. Nothing here imports those modules. The figures are in :mod:`._figures`.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from cffair.errors import DataError
from cffair.reporting._names import dataset_name

__all__ = [
    "GRAPH_COLOURS",
    "adjacency_frame",
    "balance_frame",
    "clip_to_box",
    "data_files_frame",
    "data_sources_frame",
    "describe_spec",
    "graph_layers",
    "graph_summary_frame",
    "graph_title",
    "layered_positions",
    "node_roles",
    "row_counts_frame",
    "short_source",
    "spec_frame",
    "subgroup_sizes_frame",
    "subgroup_sizes_table",
]

#: Node colours of a causal graph by role, as in the paper's Figure 2.
GRAPH_COLOURS: dict[str, str] = {"sensitive": "white", "immutable": "lightgrey", "actionable": "#a6cee3"}


# ---------------------------------------------------------------------------- data files and specs
def data_files_frame(folder: str | Path, files: Mapping[str, str]) -> pd.DataFrame:
    """Size and SHA-256 (first 16 hex digits) of each data file, so a reader can check the bytes.

    Args:
        folder: where the files are.
        files: dataset label → file name in ``folder``.

    Raises:
        DataError: naming a file that is not in ``folder``.
    """
    rows = []
    for name, fname in files.items():
        path = Path(folder) / fname
        if not path.is_file():
            raise DataError(f"no data file {fname!r} in {folder} (for {name}); reinstall the package that ships it.")
        rows.append(
            {
                "dataset": name,
                "file": fname,
                "size (bytes)": f"{path.stat().st_size:,}",
                "SHA-256 (first 16 hex digits)": hashlib.sha256(path.read_bytes()).hexdigest()[:16],
            }
        )
    return pd.DataFrame(rows)


def data_sources_frame(entries: Mapping[str, Any]) -> pd.DataFrame:
    """One row per shipped data file, from its manifest entry: the datasets read from it, its size,
    its full SHA-256, where it comes from and its licence.

    Args:
        entries: file name → manifest entry (:class:`cffair.datasets.DataFile`; read by attribute:
            ``datasets``, ``size``, ``sha256``, ``source``, ``licence``), as
            :func:`cffair.datasets.manifest` gives them.

    >>> from types import SimpleNamespace as E
    >>> e = E(datasets=("compas", "compas_age"), size=1234567, sha256="ab" * 32, source="ProPublica", licence="?")
    >>> data_sources_frame({"c.csv": e}).iloc[0].to_dict()["datasets"]
    'COMPAS, COMPAS(age)'
    """
    rows = [
        {
            "file": name,
            "datasets": ", ".join(dataset_name(d) for d in entry.datasets),
            "size (bytes)": f"{entry.size:,}",
            "SHA-256": entry.sha256,
            "source": entry.source,
            "licence": entry.licence,
        }
        for name, entry in entries.items()
    ]
    return pd.DataFrame(rows)


def describe_spec(spec: Any) -> dict[str, str]:
    """What a dataset specification says, in words: target, favourable outcome, sensitive
    attribute, subgroups, immutable features and the features of each kind."""
    kinds: dict[str, list[str]] = {}
    for col, kind in spec.features.items():
        kinds.setdefault(kind, []).append(col)
    subgroups = " × ".join(
        sg.column if sg.bins is None else f"{sg.column} in bands ({', '.join(sg.labels or [])})"
        for sg in spec.subgroups
    )
    favourable = (
        f"{spec.target} = {spec.favourable}"
        if spec.target_kind == "binary"
        else f"best {spec.favourable_top_fraction:.0%} of {spec.target}"
    )
    return {
        "target (kind)": f"{spec.target} ({spec.target_kind})",
        "favourable outcome": favourable,
        "sensitive attribute": spec.sensitive,
        "subgroups": subgroups or spec.sensitive,
        "immutable features": ", ".join(spec.immutable),
        **{f"{k} features": ", ".join(v) for k, v in sorted(kinds.items())},
    }


def spec_frame(specs: Mapping[str, Any]) -> pd.DataFrame:
    """:func:`describe_spec` of each dataset (key → spec) side by side, one column per dataset
    (its display name); a kind of feature a dataset lacks shows as "—"."""
    return pd.DataFrame({dataset_name(n): describe_spec(s) for n, s in specs.items()}).fillna("—")


# ---------------------------------------------------------------------------- summaries
def row_counts_frame(
    summaries: Mapping[str, Mapping[str, Any]], notes: Mapping[str, str] | None = None
) -> pd.DataFrame:
    """Rows per dataset against the paper's count (``cffair.datasets.summary`` of each dataset),
    with the difference, the number of features and a note."""
    rows = []
    for name, s in summaries.items():
        paper = s.get("paper_rows")
        rows.append(
            {
                "dataset": dataset_name(name),
                "rows (cffair)": f"{s['rows']:,}",
                "rows (paper)": f"{paper:,}" if paper is not None else "—",
                "difference": "—" if paper is None else (f"{s['rows'] - paper:+,}" if s["rows"] != paper else "0"),
                "features": sum(len(v) for v in s["features_by_kind"].values()),
                "note": (notes or {}).get(name, ""),
            }
        )
    return pd.DataFrame(rows)


def balance_frame(summaries: Mapping[str, Mapping[str, Any]]) -> pd.DataFrame:
    """Target balance, the sizes of the sensitive groups and the smallest subgroup of each dataset."""
    rows = []
    for name, s in summaries.items():
        tb = s["target_balance"]
        if s["target_kind"] == "binary":
            balance = f"{tb['positive_rate']:.1%} have {s['target']} = 1"
        else:
            balance = f"mean {tb['mean']:.3f}, sd {tb['std']:.3f}, range [{tb['min']:.2f}, {tb['max']:.2f}]"
        groups = ", ".join(f"{g}: {n:,}" for g, n in s["groups"].items())
        smallest = min(s["subgroups"], key=s["subgroups"].get)
        rows.append(
            {
                "dataset": dataset_name(name),
                "target": s["target"],
                "target balance": balance,
                "groups of the sensitive attribute": f"{s['sensitive']} — {groups}",
                "subgroups": len(s["subgroups"]),
                "smallest subgroup": f"{smallest} ({s['subgroups'][smallest]:,})",
            }
        )
    return pd.DataFrame(rows)


def subgroup_sizes_frame(summaries: Mapping[str, Mapping[str, Any]]) -> pd.DataFrame:
    """Rows per subgroup: ``dataset`` (display name), ``subgroup``, ``rows`` and ``share`` (of the dataset)."""
    sizes = pd.concat(
        [
            pd.DataFrame(
                {"dataset": dataset_name(name), "subgroup": list(s["subgroups"]), "rows": list(s["subgroups"].values())}
            )
            for name, s in summaries.items()
        ],
        ignore_index=True,
    )
    sizes["share"] = sizes["rows"] / sizes.groupby("dataset")["rows"].transform("sum")
    return sizes


def subgroup_sizes_table(sizes: pd.DataFrame) -> pd.DataFrame:
    """:func:`subgroup_sizes_frame` for reading: rows ``(dataset, subgroup)``, ``rows`` with
    thousands separators and the share of the dataset in per cent."""
    shown = pd.DataFrame(
        {
            "dataset": sizes["dataset"],
            "subgroup": sizes["subgroup"],
            "rows": sizes["rows"].map("{:,}".format),
            "share of the dataset": sizes["share"].map("{:.1%}".format),
        }
    )
    return shown.set_index(["dataset", "subgroup"])


# ---------------------------------------------------------------------------- causal graphs
def short_source(source: str) -> str:
    """The first author and year of a reference: ``'Kusner, Loftus, ... (2017), ...'`` →
    ``'Kusner et al. (2017)'`` (without a year, the first word of the first author)."""
    first = source.split(",")[0].split()[0] if source.strip() else "unknown source"
    year = re.search(r"\((\d{4})\)", source)
    return f"{first} et al. ({year.group(1)})" if year else first


def graph_title(dataset: str, source: str, verified: bool = True) -> str:
    """``"Lawschool: causal graph after Kusner et al. (2017)"``, flagged ``[UNVERIFIED]`` if not verified."""
    title = f"{dataset_name(dataset)}: causal graph after {short_source(source)}"
    return title if verified else title + "  [UNVERIFIED]"


def graph_summary_frame(graphs: Mapping[str, Any]) -> pd.DataFrame:
    """One row per graph (name → an object with ``nodes``, ``edges``, ``source``, ``verified``):
    its size, its source, and whether it was checked against that source."""
    return pd.DataFrame(
        [
            {
                "graph": name,
                "nodes": len(g.nodes),
                "edges": len(g.edges),
                "source": g.source,
                "status": "verified against the source"
                if g.verified
                else "UNVERIFIED: transcribed, not checked against the source",
            }
            for name, g in graphs.items()
        ]
    )


def node_roles(nodes: Iterable[str], sensitive: str | None, immutable: Iterable[str]) -> dict[str, str]:
    """Each node's role: ``"sensitive"``, ``"immutable"`` (another immutable feature) or ``"actionable"``."""
    fixed = set(immutable)
    return {n: "sensitive" if n == sensitive else ("immutable" if n in fixed else "actionable") for n in nodes}


def graph_layers(nodes: Sequence[str], edges: Iterable[tuple[str, str]]) -> list[list[str]]:
    """The DAG in layers: the roots first, then every node whose parents are all in earlier
    layers (each node as early as possible); within a layer, the order of ``nodes``.

    Raises:
        DataError: if an edge names a node not in ``nodes``, or the graph has a cycle.
    """
    rank = {n: i for i, n in enumerate(nodes)}
    parents: dict[str, set[str]] = {n: set() for n in nodes}
    for a, b in edges:
        unknown = [x for x in (a, b) if x not in rank]
        if unknown:
            raise DataError(f"the edge {a} → {b} names {unknown}, not among the graph's nodes {list(nodes)}.")
        parents[b].add(a)
    layers: list[list[str]] = []
    placed: set[str] = set()
    while len(placed) < len(rank):
        layer = sorted((n for n in rank if n not in placed and parents[n] <= placed), key=rank.__getitem__)
        if not layer:
            raise DataError(
                f"the graph has a cycle among {sorted(set(rank) - placed)}; a causal graph must be acyclic."
            )
        layers.append(layer)
        placed.update(layer)
    return layers


def layered_positions(layers: Sequence[Sequence[str]]) -> dict[str, tuple[float, float]]:
    """Positions for drawing layers left to right: x is the layer, a layer's nodes are centred
    on y = 0, one unit apart, top to bottom; single-node layers alternate between y = −0.6 and
    y = 0.6 so that an edge skipping them does not run through them."""
    pos: dict[str, tuple[float, float]] = {}
    single = 0
    for x, layer in enumerate(layers):
        if len(layer) == 1:
            pos[layer[0]] = (float(x), 0.6 if single % 2 else -0.6)
            single += 1
            continue
        for i, n in enumerate(layer):
            pos[n] = (float(x), (len(layer) - 1) / 2 - i)
    return pos


def clip_to_box(
    centre: tuple[float, float], towards: tuple[float, float], half: tuple[float, float]
) -> tuple[float, float]:
    """Where the ray from ``centre`` towards ``towards`` leaves the axis-aligned box of half
    width and half height ``half`` around ``centre`` (where an edge meets a node's label)."""
    dx, dy = towards[0] - centre[0], towards[1] - centre[1]
    if dx == 0 and dy == 0:
        return centre
    scale = min(half[0] / abs(dx) if dx else float("inf"), half[1] / abs(dy) if dy else float("inf"))
    return (centre[0] + dx * scale, centre[1] + dy * scale)


def adjacency_frame(nodes: Sequence[str], edges: Iterable[tuple[str, str]]) -> pd.DataFrame:
    """The adjacency matrix (1: the row causes the column), rows and columns in the order of
    :func:`graph_layers`, so that every edge lies above the diagonal."""
    edges = list(edges)
    order = [n for layer in graph_layers(nodes, edges) for n in layer]
    adj = pd.DataFrame(0, index=pd.Index(order, name="cause"), columns=pd.Index(order, name="effect"))
    for a, b in edges:
        adj.loc[a, b] = 1
    return adj
