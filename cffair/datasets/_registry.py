"""Datasets by name: the paper's built-in ones and a user's own, registered CSV files.

The protocol refers to a dataset by its name (``ExperimentConfig.dataset``), and every stage
loads it again with :func:`load`, often in another process (the grid's workers). A user's own
CSV becomes loadable by name with :func:`register`::

    from cffair import datasets
    datasets.register("credit", "credit.csv", "spec.yaml", graph="graph.yaml")
    frame, spec = datasets.load("credit")

A registration is kept in this process and in the environment variable
:data:`ENV_VAR` (JSON), so that worker processes started afterwards see it too;
:func:`snapshot` and :func:`restore` carry it to workers that were started before (the grid
runner passes it with every task).

A registration names files, not their content: :func:`data_hash`, the data part of a result
record's fingerprint, hashes the rows *and* the spec and graph read from those files, so that
editing the CSV, the spec (e.g. the subgroups) or the graph makes the records stale. A built-in
dataset's spec is code (:mod:`cffair.datasets._paper`), covered by the records' code
fingerprint, so its hash is the rows' alone.

Counterfactual settings: a registration carries the flow settings its counterfactuals use
(``flow``, e.g. ``{"categorical": "flow"}``); empty means the library's defaults
(:class:`cffair.causal.FlowConfig`), whereas the built-in datasets use the paper's treatment
(:data:`cffair.experiments._pipeline.counterfactuals.PAPER_TREATMENT`) so that the book reproduces the paper.
"""

from __future__ import annotations

__all__ = [
    "ENV_VAR",
    "Registration",
    "data_hash",
    "is_builtin",
    "load",
    "register",
    "registered",
    "registration",
    "restore",
    "snapshot",
    "unregister",
]

import json
import os
import re
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from cffair.datasets import _paper as paper
from cffair.datasets._csvfile import from_csv
from cffair.datasets._frames import frame_hash
from cffair.datasets._spec import NAMES, Dataset, DatasetSpec, read_spec
from cffair.errors import CffairError, DataError

#: Environment variable holding the registrations as JSON (``{name: registration}``).
ENV_VAR = "CFFAIR_DATASETS"

_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")


@dataclass(frozen=True)
class Registration:
    """A user's dataset known by name: where its files are and how its counterfactuals are made.

    Attributes:
        name: the dataset's name in configs, records and file names.
        data: absolute path of the CSV file.
        spec: absolute path of the YAML spec, or the spec mapping itself.
        graph: absolute path of a YAML graph (or the graph mapping) that replaces the spec's
            ``graph``; ``None`` keeps the spec's.
        flow: flow settings of its counterfactuals (:class:`cffair.causal.FlowConfig` keys,
            e.g. ``{"categorical": "flow"}``); empty: the library's defaults.
        read_csv: options for :func:`pandas.read_csv` (``sep``, ``encoding``, ...).
    """

    name: str
    data: str
    spec: str | dict[str, Any]
    graph: str | dict[str, Any] | None = None
    flow: dict[str, Any] = field(default_factory=dict)
    read_csv: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-able mapping that :meth:`from_dict` reads back."""
        return {
            "name": self.name,
            "data": self.data,
            "spec": self.spec,
            "graph": self.graph,
            "flow": dict(self.flow),
            "read_csv": dict(self.read_csv),
        }

    @classmethod
    def from_dict(cls, raw: Mapping[str, Any]) -> Registration:
        try:
            return cls(
                name=str(raw["name"]),
                data=str(raw["data"]),
                spec=raw["spec"],
                graph=raw.get("graph"),
                flow=dict(raw.get("flow") or {}),
                read_csv=dict(raw.get("read_csv") or {}),
            )
        except (KeyError, TypeError) as exc:
            raise DataError(
                f"a dataset registration needs 'name', 'data' and 'spec'; got {dict(raw)!r} ({exc})."
            ) from None

    def files(self) -> list[Path]:
        """The files this registration reads: the CSV, and the spec and the graph (this
        registration's, else the spec's) where they are files."""
        out = [Path(self.data)]
        out += [Path(p) for p in (self.spec, self.graph) if isinstance(p, str)]
        if self.graph is None and isinstance(self.spec, str) and Path(self.spec).is_file():
            try:
                graph = read_spec(self.spec).get("graph")  # type: ignore[union-attr]
            except CffairError:
                graph = None  # reported when the data is loaded
            if isinstance(graph, str) and Path(graph).is_file():
                out.append(Path(graph))
        return out


#: Registrations made in this process (they are mirrored in :data:`ENV_VAR`).
_LOCAL: dict[str, Registration] = {}
#: Loaded datasets and hashes, keyed by what they depend on (registration and file stamps).
_LOADED: OrderedDict[tuple, Dataset] = OrderedDict()
_HASHES: dict[tuple, str] = {}
_KEEP = 4


def is_builtin(name: str) -> bool:
    """Whether ``name`` is one of the paper's datasets (``adult``, ``compas``, ``compas_age``, ``lawschool``)."""
    return name in NAMES


def _from_env() -> dict[str, Registration]:
    text = os.environ.get(ENV_VAR)
    if not text:
        return {}
    try:
        raw = json.loads(text)
    except json.JSONDecodeError as exc:
        raise DataError(
            f"${ENV_VAR} is not valid JSON ({exc.msg} at character {exc.pos}); unset it or register datasets "
            "with cffair.datasets.register(name, csv, spec)."
        ) from None
    if not isinstance(raw, dict):
        raise DataError(
            f"${ENV_VAR} must hold a JSON object {{name: registration}}, got {type(raw).__name__}; unset it."
        )
    return {str(k): Registration.from_dict(v) for k, v in raw.items()}


def _publish() -> None:
    """Mirror the registrations into the environment (inherited by processes started later)."""
    merged = {**_from_env(), **_LOCAL}
    if merged:
        os.environ[ENV_VAR] = json.dumps({k: v.to_dict() for k, v in merged.items()}, sort_keys=True)
    else:
        os.environ.pop(ENV_VAR, None)


def registered() -> dict[str, Registration]:
    """Every registered dataset: those of the environment, then this process's (which win)."""
    return {**_from_env(), **_LOCAL}


def registration(name: str) -> Registration | None:
    """The registration of ``name`` (``None`` for a built-in or unknown name)."""
    return None if is_builtin(name) else registered().get(name)


def _absolute(path: str | Path, what: str) -> str:
    p = Path(path).expanduser()
    if not p.is_file():
        raise DataError(f"{what} {p} does not exist." if not p.exists() else f"{what} {p} is not a file.")
    return str(p.resolve())


def register(
    name: str,
    data: str | Path,
    spec: str | Path | Mapping[str, Any],
    graph: str | Path | Mapping[str, Any] | None = None,
    *,
    flow: Mapping[str, Any] | None = None,
    **read_csv_kwargs: Any,
) -> Dataset:
    """Make a CSV file loadable by name (in this process and in processes it starts).

    The data is loaded and validated now (:func:`~cffair.datasets.from_csv`), so that a
    mistake is reported at once, with its file and line.

    Args:
        name: letters, digits, ``_``, ``.`` and ``-``; not a built-in dataset's name.
        data: the CSV file.
        spec: the YAML spec file (format in :mod:`cffair.datasets`) or the spec mapping.
        graph: a YAML graph file (format in :mod:`cffair.datasets._graph`) or mapping that
            replaces the spec's ``graph``.
        flow: flow settings of the counterfactuals (e.g. ``{"categorical": "flow"}``, the
            paper's treatment); default: the library's. They are the causal part's to check
            (:class:`cffair.causal.FlowConfig`): every command that runs experiments checks a
            registered dataset's settings before any work
            (:func:`cffair.experiments._config.check_registered_flows`),
            and the flow checks them again when it is fitted.
        read_csv_kwargs: options for :func:`pandas.read_csv`.

    Returns:
        The loaded dataset (its spec named ``name``).

    Raises:
        DataError, SpecError, GraphError: for a bad name, file, spec or graph.
    """
    if not isinstance(name, str) or not _NAME.match(name):
        raise DataError(
            f"dataset name {name!r} must start with a letter or digit and hold only letters, digits, "
            "'_', '.' and '-' (it becomes part of file names); e.g. 'credit'."
        )
    if is_builtin(name):
        raise DataError(f"{name!r} is a built-in dataset; register your data under another name, e.g. 'my_{name}'.")
    spec_ref: str | dict[str, Any]
    if isinstance(spec, Mapping):
        spec_ref = json.loads(json.dumps(dict(spec), default=str))
    else:
        spec_ref = _absolute(spec, "spec file")
    graph_ref: str | dict[str, Any] | None = None
    if isinstance(graph, Mapping):
        graph_ref = json.loads(json.dumps(dict(graph), default=str))
    elif graph is not None:
        graph_ref = _absolute(graph, "graph file")
    reg = Registration(name, _absolute(data, "data file"), spec_ref, graph_ref, dict(flow or {}), dict(read_csv_kwargs))
    ds = _read(reg)
    _LOCAL[name] = reg
    _publish()
    return ds


def unregister(name: str) -> None:
    """Forget a registered dataset (here and in :data:`ENV_VAR`); unknown names are ignored."""
    _LOCAL.pop(name, None)
    env = _from_env()
    if name in env:
        env.pop(name)
        if env:
            os.environ[ENV_VAR] = json.dumps({k: v.to_dict() for k, v in env.items()}, sort_keys=True)
        else:
            os.environ.pop(ENV_VAR, None)
    if _LOCAL:
        _publish()


def snapshot() -> dict[str, dict[str, Any]]:
    """Every registration as JSON-able data, for :func:`restore` in another process."""
    return {k: v.to_dict() for k, v in registered().items()}


def restore(snap: Mapping[str, Mapping[str, Any]] | None) -> None:
    """Register (without re-validating) what :func:`snapshot` returned in another process."""
    if not snap:
        return
    for name, raw in snap.items():
        _LOCAL[name] = Registration.from_dict(raw)
    _publish()


def _stamp(reg: Registration) -> tuple:
    """What a loaded dataset depends on: the registration and its files' size and mtime."""
    stamps: list[tuple[str, int | None, int | None]] = []
    for p in reg.files():
        try:
            st = p.stat()
            stamps.append((str(p), st.st_size, st.st_mtime_ns))
        except OSError:
            stamps.append((str(p), None, None))
    return (json.dumps(reg.to_dict(), sort_keys=True), tuple(stamps))


def _spec_of(reg: Registration) -> Mapping[str, Any] | DatasetSpec:
    raw = read_spec(reg.spec)
    raw = dict(raw.to_dict()) if isinstance(raw, DatasetSpec) else dict(raw)
    raw["name"] = reg.name
    if reg.graph is not None:
        raw["graph"] = reg.graph
    return raw


def _read(reg: Registration) -> Dataset:
    key = _stamp(reg)
    if key in _LOADED:
        _LOADED.move_to_end(key)
    else:
        for p in reg.files():
            if not p.is_file():
                raise DataError(
                    f"dataset {reg.name!r} is registered with {p}, which no longer exists; register it again."
                )
        _LOADED[key] = from_csv(reg.data, _spec_of(reg), **reg.read_csv)
        while len(_LOADED) > _KEEP:
            _LOADED.popitem(last=False)
    frame, spec = _LOADED[key]
    return Dataset(frame.copy(), spec)


def load(name: str) -> Dataset:
    """Load a dataset by name: one of the paper's (:func:`cffair.datasets.load`) or a
    registered one (:func:`register`).

    Raises:
        DataError: for an unknown name, listing the known ones.
    """
    if is_builtin(name):
        return paper.load(name)
    reg = registration(name)
    if reg is None:
        known = sorted(registered())
        raise DataError(
            f"unknown dataset {name!r}; choose one of {list(NAMES)}"
            + (f" or a registered one {known}" if known else "")
            + ", or register your own with cffair.datasets.register(name, csv, spec) (or load it with from_csv(path, spec))."
        )
    return _read(reg)


def _spec_hash_part(spec: DatasetSpec) -> dict[str, Any]:
    d = spec.to_dict()
    for k in ("name", "description", "graph"):
        d.pop(k, None)
    d["graph"] = None if spec.graph is None else spec.load_graph().to_dict()
    return d


def data_hash(name: str, frame: pd.DataFrame | None = None) -> str:
    """The data part of a result record's fingerprint for dataset ``name``.

    A built-in dataset: the hash of its rows (:func:`~cffair.datasets.frame_hash`). A
    registered one: its rows, spec and causal graph (they are files a user edits). ``frame``
    saves loading the data when the caller has it.
    """
    from cffair._support.utils import stable_hash

    reg = registration(name)
    key = (name,) if reg is None else (name, _stamp(reg))
    if key not in _HASHES:
        if frame is None:
            frame = load(name).frame
        if reg is None:
            _HASHES[key] = frame_hash(frame)
        else:
            spec = _read(reg).spec
            _HASHES[key] = stable_hash(frame_hash(frame), _spec_hash_part(spec))
    return _HASHES[key]
