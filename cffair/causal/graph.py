"""Causal graphs as small immutable DAG objects, loaded from YAML files that name their source.

A graph file looks like::

    name: lawschool
    source: Kusner et al. (2017), Counterfactual Fairness, figure 2
    verified: true
    edges:            # parent: [children]
      race: [LSAT, UGPA]
      sex: [LSAT, UGPA]

The graphs of the paper's datasets ship with the package (``cffair/data/graphs``); pass
:func:`load_graph` a name (``"adult"``) or a path to a file of your own.
"""

from __future__ import annotations

import graphlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np
import yaml

from cffair.errors import GraphError

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
    """

    nodes: tuple[str, ...]
    edges: tuple[tuple[str, str], ...]
    name: str = ""
    source: str = ""
    verified: bool = True
    notes: str = ""
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
                f"the causal graph is not acyclic: it contains the cycle {cycle}. "
                "Remove or reverse one of these edges."
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
                for child in [children] if isinstance(children, str) else (children or []):
                    edges.append((str(parent), str(child)))
        else:
            for pair in raw_edges:
                if not isinstance(pair, Sequence) or len(pair) != 2:
                    raise GraphError(f"graph edge {pair!r} is not a [parent, child] pair.")
                edges.append((str(pair[0]), str(pair[1])))
        return cls.from_edges(
            edges,
            nodes=[str(n) for n in data.get("nodes", [])],
            name=str(data.get("name", "")),
            source=str(data.get("source", "")),
            verified=bool(data.get("verified", True)),
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
    def validate(self, columns: Iterable[str]) -> None:
        """Check that every node is a column of the data.

        Raises:
            GraphError: naming the nodes that are not columns.
        """
        cols = set(columns)
        missing = [n for n in self.nodes if n not in cols]
        if missing:
            raise GraphError(
                f"the causal graph {self.name or ''} names {missing}, which are not columns of the data "
                f"(columns: {sorted(cols)}). Rename the nodes in the graph file or add the columns."
            )

    def with_isolated(self, nodes: Iterable[str]) -> CausalGraph:
        """A copy with extra parentless, childless nodes appended."""
        extra = [n for n in nodes if n not in self.nodes]
        return CausalGraph.from_edges(
            self.edges, nodes=[*self.nodes, *extra], name=self.name, source=self.source,
            verified=self.verified, notes=self.notes,
        )

    def _check_node(self, node: str) -> None:
        if node not in self._parents:
            raise GraphError(f"{node!r} is not a node of the causal graph {self.name!r}; nodes: {list(self.nodes)}.")


def load_graph(name_or_path: str | Path | Mapping[str, Any]) -> CausalGraph:
    """Load a packaged graph by name (``"adult"``, ``"compas"``, ``"lawschool"``), a YAML file,
    or a mapping in the graph-file format."""
    if isinstance(name_or_path, Mapping):
        return CausalGraph.from_dict(name_or_path)
    path = Path(name_or_path)
    if not path.suffix:
        res = resources.files("cffair") / "data" / "graphs" / f"{name_or_path}.yaml"
        if not res.is_file():
            available = sorted(p.name.removesuffix(".yaml") for p in (resources.files("cffair") / "data" / "graphs").iterdir()
                               if p.name.endswith(".yaml"))
            raise GraphError(f"no packaged causal graph named {str(name_or_path)!r}; available: {available}, or give a path to a YAML file.")
        text = res.read_text()
    else:
        if not path.exists():
            raise GraphError(f"graph file {path} does not exist.")
        text = path.read_text()
    data = yaml.safe_load(text)
    if not isinstance(data, Mapping):
        raise GraphError(f"graph file {name_or_path} does not hold a mapping (see cffair.causal.graph for the format).")
    return CausalGraph.from_dict(data)
