"""Datasets parsed once per process: :func:`load` keeps what :func:`cffair.datasets.load` returns and
hands out copies.

A page of the book (one kernel) reads the same dataset many times: every evaluation of the claims
asks for Adult's subgroup shares twice, and the robustness table evaluates them under four rule
sets. Parsing Adult takes about 0.3 s; a copy of the parsed frame a few milliseconds. Each call
returns a deep copy of the frame and of the spec, so a caller that changes what it got (adds a
column, recodes a category) never changes what the next caller gets.

A registered dataset (:func:`cffair.datasets.register`) is read through the registry, which keeps
it per registration and file stamp already (an edited CSV is read again); :func:`load` only adds the
copy of the spec for it.

This module is not :func:`cffair.datasets.load` itself: the code of ``cffair.datasets`` and of its
registry enters every result record's fingerprint, so putting the cache there would mark every
committed record stale although no number changes. Code outside the records (the book's pages,
``cffair_book``) reads datasets through this module.
"""

from __future__ import annotations

import copy

from cffair.datasets import _registry as registry
from cffair.datasets._spec import Dataset

__all__ = ["clear", "load"]

FINGERPRINT_EXEMPT = True  # keeps parsed datasets in memory and returns copies: changes no number

#: The paper's datasets parsed in this process, by name.
_PARSED: dict[str, Dataset] = {}


def load(name: str) -> Dataset:
    """:func:`cffair.datasets.load` of ``name``, parsed once per process: a copy of the frame and spec.

    Raises:
        DataError: for an unknown name, listing the known ones (as :func:`cffair.datasets.load`).
    """
    if not registry.is_builtin(name):
        frame, spec = registry.load(name)  # kept by the registry per file stamp; its frame is a copy
        return Dataset(frame, copy.deepcopy(spec))
    if name not in _PARSED:
        _PARSED[name] = registry.load(name)
    frame, spec = _PARSED[name]
    return Dataset(frame.copy(deep=True), copy.deepcopy(spec))


def clear() -> None:
    """Forget the datasets parsed so far (the next :func:`load` parses again)."""
    _PARSED.clear()
