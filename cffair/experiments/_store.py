"""The results store: one JSON record per dataset × fold × setting, written atomically.

A record holds the config, its fingerprint (:mod:`cffair.experiments._fingerprint`), the
metrics, timings and whatever else the method reports, and a checksum of all of that. A record
that cannot be read as such (not JSON, not UTF-8, not an object, no ``metrics``, a checksum
that does not match because it was edited by hand) is *corrupt*: it is listed by path, never
blocks the store, and :meth:`ResultsStore.quarantine` moves it aside so that the next run
recomputes it.
"""

from __future__ import annotations

import functools
import json
import marshal
import os
import sys
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

import pandas as pd

from cffair._support.io import ensure_dir, storage_error, store_lock
from cffair._support.utils import stable_hash, write_json_atomic
from cffair.errors import ArtefactError
from cffair.experiments._config import ExperimentConfig

__all__ = [
    "SIMD_FLAGS",
    "Corrupt",
    "Record",
    "ResultsStore",
    "checksum",
    "kernels",
    "machine",
    "make_record",
    "results_root",
]

FINGERPRINT_EXEMPT = True  # storing records changes no number

#: Fields every record must have.
REQUIRED = ("config", "fingerprint", "hash", "metrics", "checksum")


def results_root(default: Path | None = None) -> Path:
    """Where result stores live (``<root>/quick``, ``<root>/full``): ``$CFFAIR_RESULTS``, else ``default``,
    else ``results/`` in the working folder, as an absolute path.

    The library does not know where a checkout keeps its committed records; the book package passes its
    own folder as ``default`` (:func:`cffair_book.results.results_root`), so that a chapter opened from
    the book's launch buttons, whose kernel runs in ``notebooks/``, reads the checkout's records.
    """
    return Path(os.environ.get("CFFAIR_RESULTS") or default or "results").resolve()


def checksum(record: Mapping[str, Any]) -> str:
    """Hash of a record's content without its ``checksum`` field (a hand edit changes it)."""
    return stable_hash({k: v for k, v in record.items() if k != "checksum"})


class Record(dict[str, Any]):
    """A result record: the JSON object the store holds (a ``dict``, so every reader of records as
    mappings still reads it), with typed access to what every record has.

    >>> rec = Record(config={"dataset": "compas", "fold": 0, "setting": "cnf", "profile": "quick"}, metrics={})
    >>> rec.config.key
    'quick/compas/cnf/fold0'
    >>> rec.config is rec.config  # parsed once
    True

    The parsed config is kept on the object, never among its items: the JSON the store writes, the
    marshalled copy it keeps of each record it has read, and a pickle or copy of the record hold the fields only.
    """

    @functools.cached_property
    def config(self) -> ExperimentConfig:
        """The record's :class:`~cffair.experiments.ExperimentConfig` (read from its ``config`` field).

        Parsed once per record and kept (a claim check reads it for every record many times); setting the
        ``config`` field (``rec["config"] = ...``) parses it again, a config edited in place is not seen."""
        return ExperimentConfig.from_dict(self["config"])

    def __setitem__(self, key: str, value: Any) -> None:
        if key == "config":
            self.__dict__.pop("config", None)
        super().__setitem__(key, value)

    def __getstate__(self) -> None:
        """Nothing besides the items: a pickle or copy (:mod:`copy`) of a record holds its fields, and the
        copy parses its config again (the pickled bytes of a record do not depend on whether it was read)."""
        return None

    @property
    def metrics(self) -> dict[str, Any]:
        """The record's metrics (its ``metrics`` field)."""
        return cast("dict[str, Any]", self["metrics"])

    @property
    def fingerprint(self) -> dict[str, Any]:
        """What the record's numbers depend on (its ``fingerprint`` field)."""
        return cast("dict[str, Any]", self["fingerprint"])


def make_record(
    cfg: ExperimentConfig,
    fingerprint: Mapping[str, Any],
    metrics: Mapping[str, Any],
    timings: Mapping[str, float],
    **extra: Any,
) -> Record:
    """A result record, ready for :meth:`ResultsStore.put`.

    The record names the CPU that computed it and the kernels PyTorch used on it
    (:func:`~cffair.experiments._store.machine`, :func:`~cffair.experiments._store.kernels`), outside its fingerprint: the
    same code on the same inputs gives the same numbers on one kind of CPU with one set of kernels, and may differ in
    the last digits, which training can amplify, on another.

    Args:
        fingerprint: what the record's numbers depend on (code, data, config, packages,
            inputs); its hash is the record's ``hash``.
    """
    from cffair import __version__

    record = {
        "config": cfg.to_dict(),
        "fingerprint": dict(fingerprint),
        "hash": stable_hash(fingerprint),
        "cffair_version": __version__,
        "machine": {**machine(), **kernels()},
        "metrics": dict(metrics),
        "timings": dict(timings),
        **extra,
    }
    record = json.loads(json.dumps(record, default=_json_default))  # exactly what is stored
    record["checksum"] = checksum(record)
    return Record(record)


#: The vector instruction sets a CPU's floating-point kernels may use: the same code may round differently,
#: and so train to other numbers, on CPUs with other sets.
SIMD_FLAGS = ("sse4_2", "avx", "avx2", "fma", "avx512f", "avx512_bf16", "amx_tile")


def machine(cpuinfo: str | None = None) -> dict[str, Any]:
    r"""The CPU's model name and which of :data:`SIMD_FLAGS` it has, from ``/proc/cpuinfo`` (``{}`` elsewhere).

    >>> machine("model name\t: AMD EPYC\nflags\t\t: fpu sse4_2 avx avx2 fma\n")
    {'cpu_model': 'AMD EPYC', 'cpu_simd': ['sse4_2', 'avx', 'avx2', 'fma']}
    """
    if cpuinfo is None:
        try:
            with open("/proc/cpuinfo", encoding="utf-8") as f:
                cpuinfo = f.read()
        except OSError:
            return {}
    fields = {k.strip(): v.strip() for k, v in (line.split(":", 1) for line in cpuinfo.splitlines() if ":" in line)}
    flags = set(fields.get("flags", "").split())
    return {"cpu_model": fields.get("model name", ""), "cpu_simd": [f for f in SIMD_FLAGS if f in flags]}


def kernels() -> dict[str, str]:
    """The instruction set PyTorch's kernels use in this process (``{"cpu_kernels": "AVX512"}``), or ``{}`` where
    torch is not loaded (it is never imported for this: the book's pages have no torch).

    The CPU's flags (:func:`machine`) say what it can do; ``ATEN_CPU_CAPABILITY`` can make PyTorch use less
    (``avx2``, ``default``), and a record computed so differs in the last digits from one computed with the
    CPU's own kernels, as a record of another kind of CPU does.
    """
    torch = sys.modules.get("torch")
    return {} if torch is None else {"cpu_kernels": str(torch.backends.cpu.get_cpu_capability())}


def _json_default(obj: Any) -> Any:
    from cffair._support.utils import json_default

    return json_default(obj)


@dataclass(frozen=True)
class Corrupt:
    """A record file that cannot be used, and why."""

    path: Path
    reason: str


def _validate(raw: bytes, path: Path) -> Record:
    """The record in ``raw``, or :class:`~cffair.errors.ArtefactError` (a ``ValueError``) saying in a few
    words what is wrong with it (the caller names the file: :class:`Corrupt`)."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ArtefactError(f"not UTF-8 (byte {exc.start})") from None
    try:
        rec = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ArtefactError(f"not JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})") from None
    if not isinstance(rec, dict):
        raise ArtefactError(f"a JSON {type(rec).__name__}, not an object")
    missing = [k for k in REQUIRED if k not in rec]
    if missing:
        raise ArtefactError(f"no {', '.join(repr(m) for m in missing)} field")
    if not isinstance(rec["metrics"], dict) or not isinstance(rec["fingerprint"], dict):
        raise ArtefactError("its 'metrics' or 'fingerprint' is not a JSON object")
    if rec["checksum"] != checksum(rec):
        raise ArtefactError("its checksum does not match its content (edited by hand?)")
    rec = Record(rec)
    try:
        cfg = rec.config
    except (TypeError, ValueError) as exc:
        raise ArtefactError(f"its config is invalid ({exc})") from None
    expected = cfg.key.replace("/", "__") + ".json"
    if path.name != expected:
        raise ArtefactError(f"its config belongs in {expected}, not in {path.name}")
    return rec


#: Records this process has read and verified, by path: the file's identity when read (device, inode, size,
#: modification and change times) and the record, marshalled. A store is read many times by one process (a book
#: page scans it once per chapter it names); parsing and checking every record again cost 0.9 ms a record. A file
#: rewritten in any way (a store write is a rename: a new inode; a hand edit changes its times) has another
#: identity and is read and verified again; each read returns a record of its own, never a shared one.
_VERIFIED: dict[str, tuple[tuple[int, ...], bytes]] = {}


def _read_verified(path: Path) -> Record:
    """The record in ``path``, verified by :func:`_validate` once per identity of the file (see :data:`_VERIFIED`)."""
    with open(path, "rb") as f:
        st = os.fstat(f.fileno())
        identity = (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)
        seen = _VERIFIED.get(str(path))
        if seen is not None and seen[0] == identity:
            return Record(marshal.loads(seen[1]))
        raw = f.read()
    rec = _validate(raw, path)
    _VERIFIED[str(path)] = (identity, marshal.dumps(dict(rec)))
    return rec


@dataclass
class ResultsStore:
    """One JSON file per record under ``root/records``; writes are atomic (temp file + rename).

    Args:
        root: the store's folder.
        create: make the folder now (the default, for a store about to be written). A reader
            passes ``False``: then opening the store creates nothing, reading one that does
            not exist (:meth:`scan`, :meth:`get`) finds no record, and the folders are made by
            the first :meth:`put`.

    Every write goes through :mod:`cffair._support.io`, so a read-only or full disk is one line naming
    the path. :meth:`lock` keeps a second run from writing the same store at the same time.
    """

    root: Path = field(default_factory=results_root)
    create: bool = field(default=True, repr=False, compare=False)

    def __post_init__(self) -> None:
        self.root = Path(self.root)
        if self.create:
            ensure_dir(self.root / "records", what="results folder")

    @property
    def exists(self) -> bool:
        """Whether the store's folder exists (a store nothing was ever written to does not)."""
        return self.root.is_dir()

    @contextmanager
    def lock(
        self, timeout: float = 0.0, *, who: str = "another cffair run", say: Callable[[str], None] | None = None
    ) -> Iterator[Path]:
        """Hold the store's lock file while the block runs (see :func:`cffair._support.io.store_lock`).

        Args:
            timeout: seconds to wait for another holder; ``0`` refuses at once, ``inf`` waits for ever.

        Raises:
            StoreLockedError: another process holds it.
        """
        with store_lock(self.root, timeout, who=who, say=say) as path:
            yield path

    @property
    def quarantine_dir(self) -> Path:
        """Where corrupt records are moved (outside ``records/``)."""
        return self.root / "corrupt"

    def path(self, cfg: ExperimentConfig) -> Path:
        return self.root / "records" / (cfg.key.replace("/", "__") + ".json")

    def _read(self, path: Path) -> Record | Corrupt:
        try:
            return _read_verified(path)
        except ValueError as exc:
            return Corrupt(path, str(exc))

    def get(self, cfg: ExperimentConfig) -> Record | None:
        """The stored record of ``cfg`` (``None`` if absent or corrupt)."""
        p = self.path(cfg)
        if not p.exists():
            return None
        rec = self._read(p)
        return None if isinstance(rec, Corrupt) else rec

    def put(self, record: Mapping[str, Any]) -> Path:
        cfg = Record(record).config
        p = self.path(cfg)
        write_json_atomic(p, record, what="result record")
        return p

    def scan(self) -> tuple[list[Record], list[Corrupt]]:
        """Every readable record, and every corrupt file with its reason."""
        # records and Corrupt entries, as the return annotation says (mypy cannot follow the one append below)
        good: list[Any] = []
        bad: list[Any] = []
        for p in sorted((self.root / "records").glob("*.json")):
            rec = self._read(p)
            (bad if isinstance(rec, Corrupt) else good).append(rec)
        return good, bad

    def records(self) -> list[Record]:
        """Every readable record (corrupt files are skipped: see :meth:`corrupt`)."""
        return self.scan()[0]

    def corrupt(self) -> list[Corrupt]:
        """Record files that cannot be used, with the reason."""
        return self.scan()[1]

    def quarantine(self) -> list[Corrupt]:
        """Move every corrupt record to :attr:`quarantine_dir`; the next run recomputes it."""
        bad = self.corrupt()
        if bad:
            ensure_dir(self.quarantine_dir, what="quarantine folder")
        for c in bad:
            target = self.quarantine_dir / c.path.name
            try:
                c.path.replace(target)
            except OSError as exc:
                err = storage_error(exc, target, what="corrupt record", action="move")
                if err is None:
                    raise
                raise err from exc
        return bad

    def frame(self, profile: str | None = None) -> pd.DataFrame:
        """All records flattened: one row per record with config fields and scalar metrics."""
        rows = []
        for rec in self.records():
            cfg = rec["config"]
            if profile and cfg["profile"] != profile:
                continue
            row = {k: v for k, v in cfg.items() if k != "weights"}
            row.update({f"w_{k}": v for k, v in cfg["weights"].items()})
            row.update({k: v for k, v in rec["metrics"].items() if isinstance(v, (int, float, str)) or v is None})
            row["seconds"] = rec.get("timings", {}).get("total")
            row["hash"] = rec["hash"]
            row["key"] = rec.config.key
            rows.append(row)
        return pd.DataFrame(rows)

    def restamp(self, record: Mapping[str, Any], fingerprint: Mapping[str, Any]) -> Record:
        """Store ``record`` again under a new fingerprint that yields the same numbers.

        Used when an upstream stage was regenerated by changed code and its output hashed the
        same: the record is still what today's code would compute.
        """
        new = {k: v for k, v in record.items() if k != "checksum"}
        new["fingerprint"] = json.loads(json.dumps(dict(fingerprint), default=_json_default))
        new["hash"] = stable_hash(new["fingerprint"])
        new["checksum"] = checksum(new)
        self.put(new)
        return Record(new)
