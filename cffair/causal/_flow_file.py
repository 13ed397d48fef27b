"""The file of a fitted :class:`~cffair.causal.CausalFlow`: its layout name, what its metadata must
hold, the JSON form of its column dtypes, and the one-line errors of a file that does not fit.

The flow owns its payload (:meth:`~cffair.causal.CausalFlow.to_payload` says what to write,
:meth:`~cffair.causal.CausalFlow.from_payload` rebuilds from it); this module turns that payload
into a file and back through the safe container of :mod:`cffair._support.artefacts` (plain JSON and
tensors, read with ``torch.load(weights_only=True)``, checksummed), and imports no model code, so
the flow can call it without an import cycle. The layout is unchanged: a flow written before loads
after, bit for bit (``tests/support/test_safe_loading.py``, ``tests/experiments/test_kept_inputs.py``).

It only moves bytes: it cannot change a number, hence ``FINGERPRINT_EXEMPT``.
"""

from __future__ import annotations

__all__ = [
    "FLOW_FIX",
    "FLOW_FORMAT",
    "FLOW_META_KEYS",
    "dtype_from_json",
    "dtype_to_json",
    "not_fitting",
    "read_flow",
    "require_meta",
    "write_flow",
]

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pandas as pd

from cffair._support.artefacts import read_artefact, write_artefact
from cffair.errors import ArtefactError

FINGERPRINT_EXEMPT = True  # serialisation: moves bytes, changes no number

#: ``(name, layout version)`` of a fitted :class:`~cffair.causal.CausalFlow`.
FLOW_FORMAT = ("cffair.CausalFlow", 2)
#: How to regenerate a flow file that cannot be read, for messages.
FLOW_FIX = "delete it and fit the flow again (cffair.causal.fit_flow, or CausalFlow(...).fit(frame) and save)"
#: The keys a flow's metadata must hold (``data_hash`` is optional: older flows have none).
FLOW_META_KEYS = ("spec", "graph", "config", "columns", "dtypes", "history", "best_epoch", "fit_seconds")


def dtype_to_json(dtype: Any) -> dict[str, Any]:
    """A column's pandas dtype as JSON values (a categorical's categories, their dtype and order).

    >>> dtype_to_json(pd.CategoricalDtype(["a", "b"]))["categories"]
    ['a', 'b']
    """
    if isinstance(dtype, pd.CategoricalDtype):
        cats = dtype.categories
        return {"categories": cats.tolist(), "categories_dtype": str(cats.dtype), "ordered": bool(dtype.ordered)}
    return {"dtype": str(dtype)}


def dtype_from_json(raw: Mapping[str, Any]) -> Any:
    """The dtype :func:`dtype_to_json` described.

    >>> dtype_from_json(dtype_to_json(pd.Series([1.5]).dtype))
    dtype('float64')
    """
    if "categories" in raw:
        cats = pd.Index(list(raw["categories"]), dtype=raw.get("categories_dtype"))
        return pd.CategoricalDtype(cats, ordered=bool(raw.get("ordered", False)))
    return pd.api.types.pandas_dtype(raw["dtype"])


def require_meta(meta: Mapping[str, Any], path: str | Path, what: str, fix: str) -> None:
    """Refuse flow metadata without one of :data:`FLOW_META_KEYS`.

    Raises:
        ArtefactError: naming the file and the missing keys.
    """
    missing = [k for k in FLOW_META_KEYS if k not in meta]
    if missing:
        raise ArtefactError(f"{what} {path} is damaged (no {', '.join(missing)} in its metadata); {fix}.")


def not_fitting(exc: BaseException, path: str | Path, what: str, fix: str) -> ArtefactError:
    """The error for stored content that does not fit the flow its settings describe (spec or
    graph errors, wrong shapes, missing weights: all mean a damaged file)."""
    msg = " ".join(str(exc).split())[:200]
    return ArtefactError(
        f"{what} {path} does not fit the flow its settings describe ({type(exc).__name__}: {msg}); {fix}."
    )


def write_flow(path: str | Path, meta: Mapping[str, Any], tensors: Mapping[str, Any]) -> None:
    """Write a flow's payload (:meth:`~cffair.causal.CausalFlow.to_payload`) as a safe artefact."""
    write_artefact(path, FLOW_FORMAT, meta, tensors)


def read_flow(path: str | Path, *, what: str = "fitted flow") -> tuple[dict[str, Any], dict[str, Any]]:
    """The ``(meta, tensors)`` of a file of :func:`write_flow`, read without running code.

    Raises:
        ArtefactError: for a missing, damaged, unsafe or old-format file (:func:`~cffair._support.artefacts.read_artefact`).
    """
    return read_artefact(path, FLOW_FORMAT, what=what, fix=FLOW_FIX)
