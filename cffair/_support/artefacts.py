"""Saved artefacts that run no code when loaded, and the hashes that tie them to their data.

Checkpoints, cached flows and pre-trained models are what users send each other, so reading one
must never execute anything it contains. Every artefact here is one ``torch.save`` file holding
only plain containers, numbers, strings and tensors, read back with
``torch.load(weights_only=True)`` (torch's restricted unpickler, which refuses any other object):

* ``cffair_format`` and ``format_version``: what the file is, and which layout;
* ``meta``: everything that is not a tensor, as one JSON string (settings, spec, graph, the
  data's hashes, the library and torch versions);
* ``tensors``: state dicts of the networks (and Adam's state), nothing else;
* ``checksums`` and ``checksums_digest``: the SHA-256 of every other member and of their table
  (:mod:`cffair._support.integrity`).

A model is rebuilt from its settings and then given its weights; no object is unpickled. A file
in an older format (a pickled object), a foreign or crafted pickle, a truncated or otherwise
damaged file, or a file of a newer layout raises an :class:`~cffair.errors.ArtefactError` whose
one-line message says how to regenerate it. So does a file whose content is not what was
written (torch's reader does not check the zip's CRC-32s): :func:`read_artefact` recomputes every
member's checksum and names the one that differs (``tensors/model/0.weight``, ``meta/encoder``).

:func:`data_fingerprint` hashes a data frame (its rows, each column, its rows as a set), its spec
and its causal graph; :func:`check_data_fingerprint` compares a stored fingerprint with today's
data and names what changed (rows reordered, values of a column edited, rows added, the spec or
the graph edited), so a saved model never answers for a row that is now someone else.

What a given artefact holds is its owner's business: a flow writes and reads its own payload
(:meth:`cffair.causal.CausalFlow.to_payload`, :mod:`cffair.causal._flow_file`), a learner its
state (:mod:`cffair.learners._checkpoint`), a saved model its parts (:mod:`cffair.learners._model`);
this module keeps the container, its checks and messages, so it imports nothing above the support
part.

This module only moves bytes and compares hashes: it cannot change a number (the round-trip
tests check that a reloaded model predicts bit for bit what the saved one did), hence
``FINGERPRINT_EXEMPT``.
"""

from __future__ import annotations

__all__ = [
    "check_data_fingerprint",
    "content_hash",
    "data_fingerprint",
    "describe_data_changes",
    "read_artefact",
    "write_artefact",
]

import io
import json
import pickle
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from cffair._support.integrity import checksum_problem, seal, zip_damage
from cffair.errors import ArtefactError, DataError

FINGERPRINT_EXEMPT = True  # serialisation and hash comparison: moves bytes, changes no number


# ============================================================================ the container
_INTACT = "get an intact copy of the file, or"


def _json_default(obj: Any) -> Any:
    from cffair._support.utils import json_default

    return json_default(obj)


def write_artefact(path: str | Path, fmt: tuple[str, int], meta: Mapping[str, Any], tensors: Mapping[str, Any]) -> None:
    """Write an artefact atomically: ``meta`` as JSON, ``tensors`` as plain (nested) state dicts,
    and the checksum of every member (:func:`cffair._support.integrity.seal`).

    Args:
        path: the file to write (a temp file renamed into place: never half-written).
        fmt: ``(name, layout version)``, e.g. :data:`cffair.learners.LEARNER_FORMAT`.
        meta: JSON-serialisable settings and provenance.
        tensors: tensors, or dicts / lists of them and of numbers (state dicts).
    """
    import torch

    from cffair import __version__
    from cffair._support.utils import atomic_path

    payload = {
        "cffair_format": fmt[0],
        "format_version": int(fmt[1]),
        "cffair_version": __version__,
        "torch_version": str(torch.__version__),
        "meta": json.dumps(dict(meta), default=_json_default),  # key order kept: feature order matters
        "tensors": dict(tensors),
    }
    buf = io.BytesIO()
    torch.save(seal(payload), buf)
    with atomic_path(path) as tmp:
        tmp.write_bytes(buf.getvalue())


def _load_error(exc: BaseException, path: Path, what: str, fix: str) -> ArtefactError:
    """The one-line error for a file that ``torch.load(weights_only=True)`` refused."""
    damage = zip_damage(path)
    if damage is not None:
        return ArtefactError(f"{what} {path} is damaged ({damage}); {_INTACT} {fix}.")
    if isinstance(exc, pickle.UnpicklingError):
        found = re.search(r"GLOBAL ([\w.]+)", str(exc))
        if found is None and any(
            k in str(exc) for k in ("invalid load key", "could not find MARK", "Unsupported operand")
        ):
            return ArtefactError(
                f"{what} {path} is damaged or not a cffair file at all (it is not in torch's format); {_INTACT} {fix}."
            )
        named = f"it names {found.group(1)}" if found else " ".join(str(exc).split())[:120]
        return ArtefactError(
            f"{path} is not a {what} in cffair's safe format: it holds Python objects that could run code when loaded "
            f"(an old cffair file, or a foreign or crafted one), so it was not read ({named}); {fix}."
        )
    # torch / zipfile raise RuntimeError, EOFError, OSError, BadZipFile... for a damaged file
    reason = " ".join(f"{type(exc).__name__}: {exc}".split())[:200]
    return ArtefactError(f"{what} {path} is damaged (truncated or corrupt: {reason}); {_INTACT} {fix}.")


def read_artefact(
    path: str | Path,
    fmt: tuple[str, int],
    *,
    what: str,
    fix: str,
    require_checksums: bool = False,
    older: str = "",
) -> tuple[dict[str, Any], dict[str, Any]]:
    """``(meta, tensors)`` of an artefact written by :func:`write_artefact`, read without running code.

    Every member is checked against the checksum written with it (:mod:`cffair._support.integrity`),
    and the zip records against their CRC-32s.

    Args:
        path: the file.
        fmt: the ``(name, layout version)`` expected.
        what: what the file holds, for messages (``"LTN checkpoint"``).
        fix: how to regenerate it, for messages.
        require_checksums: refuse a file without checksums (else one written before artefacts
            carried them is read unchecked).
        older: why an older layout is refused, for messages (``"which carries no checksums"``).

    Raises:
        ArtefactError: one line naming the file, what is wrong (missing, damaged or edited
            naming the member, an old or foreign format that would run code, another kind of
            artefact, a newer layout) and ``fix``.
    """
    import torch

    path = Path(path)
    if not path.is_file():
        raise ArtefactError(f"{what} {path} does not exist; {fix}.")
    try:
        payload = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as exc:
        raise _load_error(exc, path, what, fix) from None
    if not isinstance(payload, dict) or "cffair_format" not in payload:
        damage = zip_damage(path)
        if damage is not None:
            raise ArtefactError(f"{what} {path} is damaged ({damage}); {_INTACT} {fix}.")
        old = isinstance(payload, dict) and str(payload.get("format", "")).startswith("cffair.")
        why = (
            "in the format of an older cffair, which carries no hashes of its data" if old else "not a cffair artefact"
        )
        raise ArtefactError(f"{path} is {why}; {fix}.")
    name, version = payload.get("cffair_format"), payload.get("format_version")
    if (name != fmt[0] or version != fmt[1]) and "checksums" in payload:
        problem = checksum_problem(payload)
        if problem is not None:  # the header itself may be what a flipped byte changed
            raise ArtefactError(
                f"{what} {path} is damaged or was edited ({problem}; it says it holds a {name} of layout {version}); "
                f"{_INTACT} {fix}."
            )
    if name != fmt[0]:
        raise ArtefactError(f"{path} holds a {name}, not a {what}; pass a {what} file, or {fix}.")
    if version != fmt[1]:
        made = payload.get("cffair_version", "an unknown version")
        why = f", {older}" if older and isinstance(version, int) and version < fmt[1] else ""
        raise ArtefactError(
            f"{what} {path} has layout {version} (written by cffair {made}){why}; this cffair reads layout {fmt[1]}: "
            f"use the cffair that wrote it, or {fix}."
        )
    try:
        meta = json.loads(payload["meta"])
        tensors = payload["tensors"]
        if not isinstance(meta, dict) or not isinstance(tensors, dict):
            raise ArtefactError("its 'meta' or 'tensors' member is not a mapping")  # worded by the except below
    except Exception as exc:  # a tampered or truncated meta string
        raise ArtefactError(
            f"{what} {path} is damaged (its metadata is unreadable: {type(exc).__name__}: {str(exc)[:120]}); "
            f"{_INTACT} {fix}."
        ) from None
    if "checksums" in payload or "checksums_digest" in payload:
        problem = checksum_problem(payload)
        if problem is not None:
            raise ArtefactError(f"{what} {path} is damaged or was edited: {problem}; {_INTACT} {fix}.")
    elif require_checksums:
        raise ArtefactError(f"{what} {path} carries no checksums, so damage or edits to it cannot be detected; {fix}.")
    damage = zip_damage(path)
    if damage is not None:
        raise ArtefactError(f"{what} {path} is damaged ({damage}); {_INTACT} {fix}.")
    meta["_written_by"] = {"cffair": payload.get("cffair_version"), "torch": payload.get("torch_version")}
    return meta, tensors


# ============================================================================ data hashes
def content_hash(frame: pd.DataFrame) -> str:
    """A hash of a frame's values, dtypes, column names and row order (index ignored): the
    :func:`cffair.datasets.frame_hash` of the frame with a fresh index, computed here so that
    the support part imports nothing above it (a test holds the two equal)."""
    from cffair._support.utils import stable_hash

    frame = frame.reset_index(drop=True)
    h = pd.util.hash_pandas_object(frame, index=True).to_numpy()
    return stable_hash(list(frame.columns), [str(t) for t in frame.dtypes], h.tobytes())


def _column_hash(col: pd.Series) -> str:
    from cffair._support.utils import stable_hash

    return stable_hash(str(col.dtype), pd.util.hash_pandas_object(col, index=False).to_numpy().tobytes())


def _spec_hash(spec: Any) -> str:
    from cffair._support.utils import stable_hash

    d = spec.to_dict()
    d.pop("graph", None)  # a file path or a name: the graph is hashed by its content instead
    return stable_hash(d)


def data_fingerprint(frame: pd.DataFrame, spec: Any | None = None, graph: Any | None = None) -> dict[str, Any]:
    """Hashes of a data frame and what describes it, for an artefact to carry.

    Returns:
        The hashes as a dict, with keys ``rows`` (the frame in row order), ``n_rows``, ``columns``
        (one hash per column), ``row_set`` (the rows regardless of their order), and ``spec`` and
        ``graph`` (only when given).
    """
    from cffair._support.utils import stable_hash

    frame = frame.reset_index(drop=True)
    rows = pd.util.hash_pandas_object(frame, index=False).to_numpy()
    out: dict[str, Any] = {
        "rows": content_hash(frame),
        "n_rows": len(frame),
        "columns": {str(c): _column_hash(frame[c]) for c in frame.columns},
        "row_set": stable_hash(np.sort(rows).tobytes()),
    }
    if spec is not None:
        out["spec"] = _spec_hash(spec)
    if graph is not None:
        out["graph"] = stable_hash(graph.to_dict())
    return out


def describe_data_changes(stored: Mapping[str, Any], current: Mapping[str, Any]) -> list[str]:
    """What differs between two :func:`data_fingerprint` results, in words (``[]``: nothing).

    >>> a = data_fingerprint(pd.DataFrame({"x": [1, 2, 3], "y": [4, 5, 6]}))
    >>> describe_data_changes(a, data_fingerprint(pd.DataFrame({"x": [3, 2, 1], "y": [6, 5, 4]})))
    ['the same rows in another order (reordered or shuffled)']
    >>> describe_data_changes(a, data_fingerprint(pd.DataFrame({"x": [1, 2, 3], "y": [4, 0, 6]})))
    ["values of column(s) ['y'] changed"]
    """
    out: list[str] = []
    for key, name in (("spec", "the dataset spec"), ("graph", "the causal graph")):
        if key in stored and key in current and stored[key] != current[key]:
            out.append(f"{name} changed")
    old_c, new_c = dict(stored.get("columns") or {}), dict(current.get("columns") or {})
    gone, added = [c for c in old_c if c not in new_c], [c for c in new_c if c not in old_c]
    if gone:
        out.append(f"column(s) {gone} are gone")
    if added:
        out.append(f"column(s) {added} are new")
    if stored.get("rows") != current.get("rows"):
        n_old, n_new = stored.get("n_rows"), current.get("n_rows")
        if n_old != n_new:
            out.append(f"it had {n_old} rows and now has {n_new}")
        elif stored.get("row_set") == current.get("row_set") and not gone and not added:
            out.append("the same rows in another order (reordered or shuffled)")
        else:
            edited = [c for c in old_c if c in new_c and old_c[c] != new_c[c]]
            if edited:
                out.append(f"values of column(s) {edited[:8]}{' ...' if len(edited) > 8 else ''} changed")
            elif not gone and not added:
                out.append("its rows changed")
    return out


def check_data_fingerprint(
    stored: Mapping[str, Any] | None,
    frame: pd.DataFrame,
    spec: Any | None = None,
    graph: Any | None = None,
    *,
    what: str,
    fix: str,
) -> None:
    """Refuse data that differ from those an artefact was made from.

    Args:
        stored: the artefact's :func:`data_fingerprint`.
        frame, spec, graph: today's data (``spec``/``graph`` compared only when stored).
        what: the artefact, for the message (``"checkpoint runs/m.pt"``).
        fix: what to do, for the message.

    Raises:
        DataError: one line naming what changed (rows reordered, a column edited, rows added,
            the spec or the graph changed) and ``fix``.
    """
    if not stored:
        raise DataError(f"{what} carries no hashes of its data, so it cannot be checked against them; {fix}.")
    current = data_fingerprint(frame, spec if "spec" in stored else None, graph if "graph" in stored else None)
    changes = describe_data_changes(stored, current)
    if changes:
        raise DataError(
            f"the data changed since {what} was made: {'; '.join(changes)}. Its row numbers would now name other "
            f"people, so it is not used; {fix}."
        )
