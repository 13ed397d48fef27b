r"""Causal graphs as small immutable DAG objects, loaded from YAML files that name their source.

The graphs of the paper's datasets ship with the package (``cffair/data/graphs``); pass
:func:`load_graph` a name (``"adult"``) or a path to a file of your own, or set ``graph`` in a
dataset spec (:mod:`cffair.datasets`).

The graph file
--------------

A YAML mapping with these keys:

============= ============================ ========= =================================================
key           type                         default   meaning
============= ============================ ========= =================================================
``edges``     mapping or list of pairs     ``{}``    the causal arrows: ``parent: [children]`` (a
                                                     single child may be written without brackets),
                                                     or a list of ``[parent, child]`` pairs
``nodes``     list of column names         ``[]``    nodes without edges, to declare on purpose that
                                                     a feature is a root that nothing else affects
``name``      text                         ``""``    short name, shown in messages and records
``source``    text                         ``""``    the publication or reasoning the graph comes from
``verified``  ``true`` | ``false``         ``true``  ``false`` where it was transcribed without
                                                     checking the source
``notes``     text                         ``""``    where nodes the source does not show were put,
                                                     and why
``placement`` text                         ``""``    free text on node placement; kept for readers,
                                                     not used
============= ============================ ========= =================================================

Every node must be a feature of the dataset's spec (node names are column names, exactly as in
the CSV header). The graph must be acyclic and must name the sensitive attribute; S usually has
children (otherwise a counterfactual on S changes only S). The target must stay out of the
graph: the flow models the features only, and the target is predicted from them. Features the
graph does not name are added as isolated roots, with a :class:`~cffair.errors.GraphWarning`
naming them, because S cannot affect them; list them under ``nodes`` to make that a choice.

Example::

    name: lawschool
    source: Kusner et al. (2017), Counterfactual Fairness, figure 2
    verified: true
    notes: ZFYA is the target and stays outside the graph.
    edges:            # parent: [children]
      race: [LSAT, UGPA]
      sex: [LSAT, UGPA]

The same edges as pairs, with a root declared on purpose::

    edges: [[race, LSAT], [race, UGPA], [sex, LSAT], [sex, UGPA]]
    nodes: [region]
"""

from __future__ import annotations

__all__ = ["CausalGraph", "load_graph"]

import graphlib
import warnings
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from cffair._support.yaml_files import load_yaml
from cffair.errors import GraphError, GraphWarning

_GRAPH_KEYS = {"name", "source", "verified", "notes", "edges", "nodes", "placement"}


@dataclass(frozen=True)
class CausalGraph:
    """A directed acyclic graph over feature names.

    Attributes:
        nodes: every node, in a fixed topological order (parents before children; ties keep
            the order in which nodes were first named).
        edges: ``(parent, child)`` pairs.
        name: a short name (``"adult"``).
        source: the publication the graph comes from.
        verified: ``False`` where the graph was transcribed without checking its source.
        notes: where nodes that the source does not show were put, and why.
        origin: where the graph was read from (``"graph file g.yaml"``), for messages; not
            part of :meth:`to_dict` or of equality.
    """

    nodes: tuple[str, ...]
    edges: tuple[tuple[str, str], ...]
    name: str = ""
    source: str = ""
    verified: bool = True
    notes: str = ""
    origin: str = field(default="", compare=False, repr=False)
    _parents: Mapping[str, tuple[str, ...]] = field(default_factory=dict, repr=False, compare=False)

    # ------------------------------------------------------------------ construction
    @classmethod
    def from_edges(
        cls,
        edges: Iterable[tuple[str, str]],
        nodes: Iterable[str] = (),
        **meta: Any,
    ) -> CausalGraph:
        """Build a graph from ``(parent, child)`` pairs (and optional isolated nodes).

        Raises:
            GraphError: if the edges contain a cycle or a self-loop.
        """
        edge_list = [(str(a), str(b)) for a, b in edges]
        order: list[str] = []
        for n in [*nodes, *(x for e in edge_list for x in e)]:
            if n not in order:
                order.append(str(n))
        for a, b in edge_list:
            if a == b:
                raise GraphError(f"the causal graph has a self-loop on {a!r}: remove the edge {a} -> {a}.")
        parents: dict[str, list[str]] = {n: [] for n in order}
        for a, b in edge_list:
            if a not in parents[b]:
                parents[b].append(a)
        sorter = graphlib.TopologicalSorter({n: parents[n] for n in order})
        try:
            sorter.prepare()
        except graphlib.CycleError as exc:
            cycle = " -> ".join(exc.args[1]) if len(exc.args) > 1 else "?"
            raise GraphError(
                f"the causal graph is not acyclic: it contains the cycle {cycle}. Remove or reverse one of these edges."
            ) from None
        topo: list[str] = []
        rank = {n: i for i, n in enumerate(order)}
        while sorter.is_active():
            ready = sorted(sorter.get_ready(), key=rank.__getitem__)
            topo.extend(ready)
            sorter.done(*ready)
        unique_edges = tuple(dict.fromkeys(edge_list))
        return cls(
            nodes=tuple(topo),
            edges=unique_edges,
            _parents={n: tuple(sorted(parents[n], key=topo.index)) for n in topo},
            **meta,
        )

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> CausalGraph:
        """Build a graph from the mapping stored in a graph file (see the module docstring)."""
        unknown = set(data) - _GRAPH_KEYS
        if unknown:
            raise GraphError(
                f"unknown key(s) {sorted(unknown)} in the graph file; allowed keys are {sorted(_GRAPH_KEYS)}."
            )
        raw_edges = data.get("edges") or {}
        edges: list[tuple[str, str]] = []
        if isinstance(raw_edges, Mapping):
            for parent, children in raw_edges.items():
                if isinstance(children, Mapping) or not isinstance(children, (str, Sequence, type(None))):
                    raise GraphError(
                        f"the children of {parent!r} in the graph's 'edges' must be a list of column names, got {children!r}; "
                        f"write e.g. {parent}: [child_a, child_b]."
                    )
                for child in [children] if isinstance(children, str) else (children or []):
                    edges.append((str(parent), str(child)))
        elif isinstance(raw_edges, str) or not isinstance(raw_edges, Sequence):
            raise GraphError(
                f"the graph's 'edges' must be a mapping parent: [children] or a list of [parent, child] pairs, "
                f"got {raw_edges!r}; write e.g. edges: {{sex: [income, hours]}}."
            )
        else:
            for pair in raw_edges:
                if isinstance(pair, str) or not isinstance(pair, Sequence) or len(pair) != 2:
                    raise GraphError(f"graph edge {pair!r} is not a [parent, child] pair.")
                edges.append((str(pair[0]), str(pair[1])))
        nodes = data.get("nodes") or []
        if isinstance(nodes, (str, Mapping)) or not isinstance(nodes, Sequence):
            raise GraphError(
                f"the graph's 'nodes' must be a list of column names, got {nodes!r}; write e.g. nodes: [{nodes}]."
            )
        verified = data.get("verified", True)
        if not isinstance(verified, bool):
            raise GraphError(f"the graph's 'verified' must be true or false, got {verified!r}.")
        return cls.from_edges(
            edges,
            nodes=[str(n) for n in nodes],
            name=str(data.get("name", "")),
            source=str(data.get("source", "")),
            verified=verified,
            notes=str(data.get("notes", "")).strip(),
        )

    def to_dict(self) -> dict[str, Any]:
        """The mapping :meth:`from_dict` reads back (edges as ``parent: [children]``)."""
        children: dict[str, list[str]] = {}
        for a, b in self.edges:
            children.setdefault(a, []).append(b)
        return {
            "name": self.name,
            "source": self.source,
            "verified": self.verified,
            "notes": self.notes,
            "nodes": list(self.nodes),
            "edges": children,
        }

    # ------------------------------------------------------------------ queries
    def parents(self, node: str) -> tuple[str, ...]:
        """Direct causes of ``node``."""
        self._check_node(node)
        return self._parents[node]

    def children(self, node: str) -> tuple[str, ...]:
        """Direct effects of ``node``."""
        self._check_node(node)
        return tuple(b for b in self.nodes if node in self._parents[b])

    @property
    def roots(self) -> tuple[str, ...]:
        """Nodes without parents (the exogenous-looking features)."""
        return tuple(n for n in self.nodes if not self._parents[n])

    def descendants(self, node: str) -> tuple[str, ...]:
        """Every node reachable from ``node`` (not including it), in topological order."""
        self._check_node(node)
        found: set[str] = set()
        frontier = [node]
        while frontier:
            current = frontier.pop()
            for child in self.children(current):
                if child not in found:
                    found.add(child)
                    frontier.append(child)
        return tuple(n for n in self.nodes if n in found)

    def ancestors(self, node: str) -> tuple[str, ...]:
        """Every node from which ``node`` is reachable, in topological order."""
        self._check_node(node)
        return tuple(n for n in self.nodes if node in self.descendants(n))

    @property
    def topological_order(self) -> tuple[str, ...]:
        """Parents before children (the same tuple as :attr:`nodes`)."""
        return self.nodes

    def adjacency(self, order: Sequence[str] | None = None, diagonal: bool = False) -> np.ndarray:
        """Boolean matrix ``A`` with ``A[i, j]`` true iff ``order[j]`` is a parent of ``order[i]``.

        This is the convention of ``zuko``'s ``adjacency=`` argument (row = output, column =
        input); pass ``diagonal=True`` to set the diagonal as zuko expects.
        """
        order = list(self.nodes if order is None else order)
        missing = set(self.nodes) - set(order)
        if missing:
            raise GraphError(f"adjacency order misses node(s) {sorted(missing)}.")
        index = {n: i for i, n in enumerate(order)}
        a = np.zeros((len(order), len(order)), dtype=bool)
        for parent, child in self.edges:
            a[index[child], index[parent]] = True
        if diagonal:
            np.fill_diagonal(a, True)
        return a

    # ------------------------------------------------------------------ validation
    def validate(
        self,
        columns: Iterable[str],
        *,
        target: str | None = None,
        sensitive: str | None = None,
        stacklevel: int = 2,
    ) -> list[str]:
        """Check the graph against the data's feature columns.

        Args:
            columns: the features (the columns the flow models).
            target: the target column, which must not be a node.
            sensitive: the sensitive attribute, which must be a node.
            stacklevel: passed to :func:`warnings.warn`.

        Returns:
            The features the graph does not name (they will be isolated roots).

        Raises:
            GraphError: naming the target if it is a node, the nodes that are not columns, the
                sensitive attribute if it is not a node, or the edges into it (it must be a root).

        Warns:
            GraphWarning: naming the features the graph leaves out, and if S has no children.
        """
        cols = list(dict.fromkeys(columns))
        where = self._where()
        if target is not None and target in self.nodes:
            arrows = [f"{a} -> {b}" for a, b in self.edges if target in (a, b)]
            raise GraphError(
                f"the target {target!r} is a node of the causal graph{where}"
                f"{' in the edge(s) ' + ', '.join(arrows[:4]) if arrows else ''}; the target must stay out of the graph: "
                "the flow models the features only and the model predicts the target from them. "
                f"Remove {target!r} from the graph file."
            )
        missing = [n for n in self.nodes if n not in set(cols)]
        if missing:
            raise GraphError(
                f"the causal graph{where} names {missing}, which are not columns of the data "
                f"(columns: {sorted(cols)}). Rename the nodes in the graph file or add the columns."
            )
        if sensitive is not None and sensitive not in self.nodes:
            raise GraphError(
                f"the sensitive attribute {sensitive!r} is not in the causal graph{where}. Counterfactuals on it would "
                f"flip only the {sensitive!r} column and leave every other feature unchanged, so a model would look "
                f"fair. Add {sensitive!r} to the graph with arrows to the features it causes, e.g. "
                f"edges: {{{sensitive}: [{', '.join(_example_children(self, cols, sensitive))}]}}."
            )
        if sensitive is not None and self.parents(sensitive):
            inward = ", ".join(f"{p} -> {sensitive}" for p in self.parents(sensitive))
            raise GraphError(
                f"the causal graph{where} has the edge(s) {inward} into the sensitive attribute {sensitive!r}; it must be a "
                "root: counterfactual fairness intervenes on it as a cause of the other features, and a feature that "
                f"causes it is outside that model (probably an edge written backwards). Write them as "
                f"{sensitive}: [{', '.join(self.parents(sensitive))}] under 'edges' (parent: [children]), or remove them."
            )
        absent = [c for c in cols if c not in self.nodes]
        if absent:
            warnings.warn(
                f"the causal graph{where} leaves out the feature(s) {absent}: they become roots that the sensitive "
                "attribute cannot affect, so counterfactuals keep their factual values. Add them to the graph's "
                "edges, or list them under 'nodes' to declare them roots on purpose.",
                GraphWarning,
                stacklevel=stacklevel,
            )
        if sensitive is not None and not self.children(sensitive):
            warnings.warn(
                f"the sensitive attribute {sensitive!r} has no children in the causal graph{where}: counterfactuals on it "
                "change only that column. Add arrows from it to the features it causes if it causes any.",
                GraphWarning,
                stacklevel=stacklevel,
            )
        return absent

    def _where(self) -> str:
        label = f" {self.name!r}" if self.name else ""
        return f"{label} ({self.origin})" if self.origin else label

    def with_isolated(self, nodes: Iterable[str]) -> CausalGraph:
        """A copy with extra parentless, childless nodes appended."""
        extra = [n for n in nodes if n not in self.nodes]
        return CausalGraph.from_edges(
            self.edges,
            nodes=[*self.nodes, *extra],
            name=self.name,
            source=self.source,
            verified=self.verified,
            notes=self.notes,
            origin=self.origin,
        )

    def _check_node(self, node: str) -> None:
        if node not in self._parents:
            raise GraphError(f"{node!r} is not a node of the causal graph {self.name!r}; nodes: {list(self.nodes)}.")


def _example_children(graph: CausalGraph, columns: Sequence[str], sensitive: str) -> list[str]:
    """Up to three features to show as S's children in a message: caused nodes first."""
    caused = [n for n in graph.nodes if graph.parents(n)]
    rest = [c for c in columns if c not in caused and c != sensitive]
    return [*caused, *rest][:3]


def load_graph(name_or_path: str | Path | Mapping[str, Any]) -> CausalGraph:
    """Load a packaged graph by name (``"adult"``, ``"compas"``, ``"lawschool"``), a YAML file,
    or a mapping in the graph-file format (see the module docstring).

    Raises:
        GraphError: for an unknown name, a missing file, a file that is not UTF-8 or not valid
            YAML (naming its line and column), or content that is not a graph.
    """
    if isinstance(name_or_path, Mapping):
        return replace(CausalGraph.from_dict(name_or_path), origin="graph given as a mapping")
    path = Path(name_or_path)
    if not path.suffix:
        folder = resources.files("cffair") / "data" / "graphs"
        res = folder / f"{name_or_path}.yaml"
        if not res.is_file():
            available = sorted(p.name.removesuffix(".yaml") for p in folder.iterdir() if p.name.endswith(".yaml"))
            raise GraphError(
                f"no packaged causal graph named {str(name_or_path)!r}; available: {available}, or give a path to a YAML file."
            )
        with resources.as_file(res) as packaged:
            data = load_yaml(packaged, what="graph file", error=GraphError)
        origin = f"packaged graph {str(name_or_path)!r}"
    else:
        data = load_yaml(path, what="graph file", error=GraphError)
        origin = f"graph file {path}"
    if not isinstance(data, Mapping):
        raise GraphError(
            f"{origin} does not hold a mapping (it holds {'nothing' if data is None else type(data).__name__}); "
            "a graph file has 'edges: {parent: [children]}' (see cffair.datasets._graph for the format)."
        )
    try:
        return replace(CausalGraph.from_dict(data), origin=origin)
    except GraphError as exc:
        raise GraphError(f"{origin}: {exc}") from None
