"""Small shared helpers: seeding, torch threads, hashing (atomic writes: :mod:`cffair._support.io`)."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import random
from pathlib import Path
from typing import Any

import numpy as np

# Writing files lives in cffair._support.io (exempt from fingerprints: it changes no number); these
# names stay importable from here.
from cffair._support.io import atomic_path, write_text_atomic

__all__ = [
    "atomic_path",
    "json_default",
    "project_root",
    "seed_everything",
    "stable_hash",
    "torch_cpu_setup",
    "write_json_atomic",
    "write_text_atomic",
]


def seed_everything(seed: int) -> None:
    """Seed Python, NumPy and torch so that a run is repeatable on one machine."""
    import torch

    random.seed(seed)
    np.random.seed(seed % (2**32))
    torch.manual_seed(seed)


def torch_cpu_setup() -> None:
    """Set up torch for CPU work in this process: one intra-op and one inter-op thread.

    On two shared cores, two intra-op threads were 3–20× slower than one; parallelism in
    cffair comes from processes (``cffair reproduce --jobs``).

    The floating-point unit's handling of denormal floats is left alone here: flushing them to
    zero process-wide would change every library in the process. The LTN learner flushes them
    only while it trains (:func:`cffair._support.devices.flushed_denormals`), where its saturated
    predicate makes them common.
    """
    import torch

    torch.set_num_threads(1)
    with contextlib.suppress(RuntimeError):  # only allowed before any inter-op work started
        torch.set_num_interop_threads(1)


def write_json_atomic(path: str | os.PathLike[str], obj: Any, *, what: str = "", hint: str = "") -> None:
    """Write ``obj`` as indented JSON (keys sorted) to ``path`` atomically (:func:`cffair._support.io.atomic_path`)."""
    write_text_atomic(
        path, json.dumps(obj, indent=2, sort_keys=True, default=json_default) + "\n", what=what, hint=hint
    )


def json_default(obj: Any) -> Any:
    """``json.dumps`` ``default=``: numpy scalars and arrays, and paths, as plain JSON values."""
    if isinstance(obj, (np.integer,)):
        return int(obj)
    if isinstance(obj, (np.floating,)):
        return float(obj)
    if isinstance(obj, np.ndarray):
        return obj.tolist()
    if isinstance(obj, Path):
        return str(obj)
    raise TypeError(f"not JSON serialisable: {type(obj).__name__}")  # internal invariant


def stable_hash(*parts: Any, length: int = 16) -> str:
    """A short, stable SHA-256 hex digest of JSON-serialisable parts (dict keys sorted)."""
    h = hashlib.sha256()
    for part in parts:
        if isinstance(part, bytes):
            h.update(part)
        else:
            h.update(json.dumps(part, sort_keys=True, default=json_default).encode())
        h.update(b"\x00")
    return h.hexdigest()[:length]


def project_root() -> Path:
    """The repository root (the folder holding ``pyproject.toml``), when running from a checkout."""
    here = Path(__file__).resolve().parent
    for parent in [here, *here.parents]:
        if (parent / "pyproject.toml").exists():
            return parent
    return Path.cwd()
