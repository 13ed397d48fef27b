"""The on-disk cache of fitted flows and counterfactual sets.

Files live under :func:`cache_dir` (``flows/*.pt``, ``counterfactuals/*.parquet``), named by a
hash of everything that determines them, including :func:`source_version`, so editing what the
generator's code does invalidates them; a docstring, comment or formatting edit does not (the
normalised code of :mod:`cffair._support.codehash`, as for result records). A file that cannot be read (truncated by a full disk, a
killed process on a file system without atomic renames, a foreign file) is reported with a
:class:`~cffair.errors.CacheWarning`, removed and recomputed: never a traceback.
"""

from __future__ import annotations

__all__ = ["GENERATOR_VERSION", "cache_dir", "data_key", "read_cached", "source_version"]

import os
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from cffair.errors import CacheWarning

if TYPE_CHECKING:
    import pandas as pd

    from cffair.datasets import DatasetSpec

#: Where cached files live and how they are named and read back changes no number: a cache hit
#: returns what the generator would compute (its key covers the generator's code), a miss computes it.
FINGERPRINT_EXEMPT = True

#: Bumped whenever a change changes generated counterfactuals (part of the cache key).
GENERATOR_VERSION = "cnf-2"

T = TypeVar("T")

#: The modules whose code (with everything they import) determines generated counterfactuals.
_SOURCES = ("_config", "_discrete", "_cnf", "_flow", "_interventions", "_cfset")


def cache_dir(path: str | Path | None = None) -> Path:
    """The cache folder: ``path``, else ``$CFFAIR_CACHE``, else ``~/.cache/cffair``."""
    if path is not None:
        return Path(path)
    return Path(os.environ.get("CFFAIR_CACHE") or Path.home() / ".cache" / "cffair")


def source_version() -> str:
    """``GENERATOR_VERSION`` plus a hash of the generator's normalised code and of everything it
    imports (:func:`cffair._support.codehash.code_version`), so that a change of what the code does
    invalidates the caches and a docstring edit does not."""
    from cffair._support.codehash import code_version

    return f"{GENERATOR_VERSION}-{code_version(f'cffair.causal.{m}' for m in _SOURCES)[:10]}"


def data_key(frame: pd.DataFrame, spec: DatasetSpec) -> list[Any]:
    """What of a dataset a fitted flow depends on, for cache keys: the feature columns' values
    (:func:`cffair.datasets.frame_hash`), each feature's kind in the spec and the order of each
    category column's values (the integer codes). Two specs that read one CSV differently (a
    column ``ordinal`` in one and ``categorical`` in the other, or its levels in another order)
    therefore never share a cached flow; the target, subgroups and other spec fields do not
    enter, so a change to them reuses it.
    """
    import pandas as pd

    from cffair.datasets import frame_hash

    features = frame[spec.feature_names]
    levels = {
        c: [str(v) for v in features[c].cat.categories]
        for c in features.columns
        if isinstance(features[c].dtype, pd.CategoricalDtype)
    }
    return [frame_hash(features), {n: spec.features[n] for n in spec.feature_names}, levels]


def read_cached(path: Path | None, reader: Callable[[Path], T], what: str, expect: type | None = None) -> T | None:
    """``reader(path)`` if ``path`` is a readable cache file, else ``None``.

    A file that exists but cannot be read (or reads as something other than ``expect``) is
    reported with a :class:`~cffair.errors.CacheWarning` naming it, deleted, and
    ``None`` is returned so that the caller recomputes and rewrites it.

    Args:
        path: the cache file (``None``: caching is off).
        reader: reads the file.
        what: what the file holds, for the message (``"fitted flow"``).
        expect: the type the reader must return.
    """
    if path is None or not path.exists():
        return None
    try:
        obj = reader(path)
        if expect is not None and not isinstance(obj, expect):
            raise TypeError(f"it holds a {type(obj).__name__}, not a {expect.__name__}")  # internal invariant
    except Exception as exc:  # any unreadable cache file is recomputed, whatever broke it
        reason = f"{type(exc).__name__}: {exc}".strip()
        warnings.warn(
            f"the cached {what} {path} could not be read ({reason[:300]}); it was removed and is being recomputed.",
            CacheWarning,
            stacklevel=3,
        )
        path.unlink(missing_ok=True)
        return None
    return obj
