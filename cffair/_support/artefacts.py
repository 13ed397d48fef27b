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

This module only moves bytes and compares hashes: it cannot change a number (the round-trip
tests check that a reloaded model predicts bit for bit what the saved one did), hence
``FINGERPRINT_EXEMPT``.
"""

from __future__ import annotations

__all__ = [
    "FLOW_FORMAT",
    "LEARNER_FORMAT",
    "check_data_fingerprint",
    "content_hash",
    "data_fingerprint",
    "flow_from_payload",
    "flow_payload",
    "describe_data_changes",
    "learner_extra",
    "learner_state",
    "load_flow",
    "load_learner",
    "read_artefact",
    "save_flow",
    "save_learner",
    "write_artefact",
]

import dataclasses
import io
import json
import pickle
import re
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from cffair._support.integrity import checksum_problem, seal, zip_damage
from cffair.errors import ArtefactError, DataError

if TYPE_CHECKING:
    from cffair.causal.cnf import CausalFlow
    from cffair.learners.training import LTNLearner

FINGERPRINT_EXEMPT = True  # serialisation and hash comparison: moves bytes, changes no number

#: ``(name, layout version)`` of an :class:`~cffair.learners.training.LTNLearner` checkpoint.
LEARNER_FORMAT = ("cffair.LTNLearner", 2)
#: ``(name, layout version)`` of a fitted :class:`~cffair.causal.cnf.CausalFlow`.
FLOW_FORMAT = ("cffair.CausalFlow", 2)

LEARNER_FIX = "write it again with `cffair train --save PATH` (or LTNLearner.save)"
FLOW_FIX = "delete it and fit the flow again (cffair.causal.fit_flow, or CausalFlow(...).fit(frame) and save)"


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
        fmt: ``(name, layout version)``, e.g. :data:`LEARNER_FORMAT`.
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
            raise TypeError("meta or tensors is not a mapping")
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


def _require(meta: Mapping[str, Any], keys: tuple[str, ...], path: str | Path, what: str, fix: str) -> None:
    missing = [k for k in keys if k not in meta]
    if missing:
        raise ArtefactError(f"{what} {path} is damaged (no {', '.join(missing)} in its metadata); {fix}.")


# ============================================================================ LTN learners
def save_learner(learner: LTNLearner, path: str | Path, extra: Mapping[str, Any] | None = None) -> None:
    """Write an :class:`~cffair.learners.training.LTNLearner` (weights, Adam's state, params, history,
    ``extra``) as a safe artefact (:func:`write_artefact`)."""
    state = learner.state_dict()
    meta = {k: state[k] for k in ("params", "n_features", "pretrained", "data_hash", "history")}
    meta["history_dtypes"] = {str(c): str(t) for c, t in learner.history_.dtypes.items()}
    meta["extra"] = dict(extra or {})
    write_artefact(path, LEARNER_FORMAT, meta, {"model": state["model"], "optimizer": state["optimizer"]})


def learner_state(path: str | Path) -> dict[str, Any]:
    """The :meth:`~cffair.learners.training.LTNLearner.state_dict` mapping stored in a checkpoint (plus ``extra``).

    Raises:
        ArtefactError: for a missing, damaged, unsafe or old-format file (see :func:`read_artefact`).
    """
    what = "LTN checkpoint"
    meta, tensors = read_artefact(path, LEARNER_FORMAT, what=what, fix=LEARNER_FIX)
    _require(meta, ("params", "n_features", "pretrained", "history", "extra"), path, what, LEARNER_FIX)
    if not isinstance(tensors.get("model"), dict) or not isinstance(tensors.get("optimizer"), dict):
        raise ArtefactError(f"{what} {path} is damaged (no weights or optimiser state); {LEARNER_FIX}.")
    return {
        "format": "cffair.LTNLearner/1",  # the in-memory layout of LTNLearner.state_dict
        "params": meta["params"],
        "model": tensors["model"],
        "optimizer": tensors["optimizer"],
        "n_features": meta["n_features"],
        "pretrained": meta["pretrained"],
        "data_hash": meta.get("data_hash"),
        "history": _typed_history(meta["history"], meta.get("history_dtypes") or {}),
        "extra": meta["extra"],
        "written_by": meta["_written_by"],
    }


def _typed_history(history: Mapping[str, Any], dtypes: Mapping[str, str]) -> dict[str, Any]:
    """The training log's columns with their numeric dtypes back (JSON keeps only the values)."""
    out: dict[str, Any] = {}
    for col, values in dict(history).items():
        dtype = dtypes.get(col)
        out[col] = np.asarray(values, dtype=dtype) if dtype is not None and np.dtype(dtype).kind in "biuf" else values
    return out


def learner_extra(path: str | Path) -> dict[str, Any]:
    """The ``extra`` mapping a checkpoint stores (empty if none)."""
    return dict(learner_state(path).get("extra") or {})


def load_learner(path: str | Path, cls: type[LTNLearner], **overrides: Any) -> LTNLearner:
    """A learner of class ``cls`` (:class:`~cffair.learners.training.LTNLearner`, passed in so that this
    module imports no model code) from a checkpoint file; ``overrides`` change constructor params.

    Raises:
        ArtefactError: for an unreadable file, or content that does not fit a learner (tampered
            settings, weights of the wrong shape).
    """
    state = learner_state(path)
    try:
        return cls.load(state, **overrides)
    except (TypeError, ValueError, KeyError, RuntimeError) as exc:
        msg = " ".join(str(exc).split())[:200]
        raise ArtefactError(
            f"LTN checkpoint {path} does not fit a learner ({type(exc).__name__}: {msg}); {LEARNER_FIX}."
        ) from None


# ============================================================================ causal flows
def _dtype_to_json(dtype: Any) -> dict[str, Any]:
    if isinstance(dtype, pd.CategoricalDtype):
        cats = dtype.categories
        return {"categories": cats.tolist(), "categories_dtype": str(cats.dtype), "ordered": bool(dtype.ordered)}
    return {"dtype": str(dtype)}


def _dtype_from_json(raw: Mapping[str, Any]) -> Any:
    if "categories" in raw:
        cats = pd.Index(list(raw["categories"]), dtype=raw.get("categories_dtype"))
        return pd.CategoricalDtype(cats, ordered=bool(raw.get("ordered", False)))
    return pd.api.types.pandas_dtype(raw["dtype"])


def flow_payload(model: CausalFlow) -> tuple[dict[str, Any], dict[str, Any]]:
    """``(meta, tensors)`` of a fitted :class:`~cffair.causal.cnf.CausalFlow`: its spec, graph,
    config, column codecs and dtypes, history and the hash of its training data as JSON values,
    its networks as state dicts (what :func:`save_flow` writes, for artefacts that embed a flow)."""
    meta = {
        "spec": model.spec.to_dict(),
        "graph": model.graph.to_dict(),
        "config": model.config.to_dict(),
        "columns": [dataclasses.asdict(model.columns[n]) for n in model.nodes if n in model.columns],
        "dtypes": {n: _dtype_to_json(t) for n, t in model._dtypes.items()},
        "history": list(model.history),
        "best_epoch": int(model.best_epoch),
        "fit_seconds": float(model.fit_seconds),
        "data_hash": getattr(model, "data_hash", None),
    }
    return meta, (model._state() if model.columns else {"flow": None, "clf": {}, "thr": {}})


def save_flow(model: CausalFlow, path: str | Path) -> None:
    """Write a :class:`~cffair.causal.cnf.CausalFlow` as a safe artefact (:func:`flow_payload`);
    :func:`load_flow` rebuilds it from these; nothing is pickled."""
    meta, tensors = flow_payload(model)
    write_artefact(path, FLOW_FORMAT, meta, tensors)


def load_flow(path: str | Path, cls: type[CausalFlow]) -> CausalFlow:
    """A :class:`~cffair.causal.cnf.CausalFlow` (``cls``, passed in so that this module imports no
    model code) rebuilt from a file of :func:`save_flow`.

    The networks are built from the stored config and layout (under a forked RNG, so loading
    never moves torch's global random state) and then given their stored weights.

    Raises:
        ArtefactError: for a missing, damaged, unsafe or old-format file, or content that does
            not fit the flow its settings describe.
    """
    what = "fitted flow"
    meta, tensors = read_artefact(path, FLOW_FORMAT, what=what, fix=FLOW_FIX)
    return flow_from_payload(meta, tensors, cls, path=path, what=what, fix=FLOW_FIX)


def flow_from_payload(
    meta: Mapping[str, Any],
    tensors: Mapping[str, Any],
    cls: type[CausalFlow],
    *,
    path: str | Path,
    what: str = "fitted flow",
    fix: str = FLOW_FIX,
) -> CausalFlow:
    """The flow of :func:`flow_payload`'s ``(meta, tensors)`` rebuilt (see :func:`load_flow`).

    Raises:
        ArtefactError: content that does not fit the flow its settings describe.
    """
    import torch

    from cffair.causal.discrete import Column
    from cffair.causal.graph import CausalGraph
    from cffair.datasets import DatasetSpec

    _require(
        meta, ("spec", "graph", "config", "columns", "dtypes", "history", "best_epoch", "fit_seconds"), path, what, fix
    )
    try:
        spec = DatasetSpec.from_dict(meta["spec"])
        graph = CausalGraph.from_dict(meta["graph"])
        model = cls(spec, graph, meta["config"])
        if meta["columns"]:
            for raw in meta["columns"]:
                col = Column(**raw)
                model.columns[col.name] = col
            if set(model.columns) != set(model.nodes):
                raise ValueError(f"codecs for {sorted(model.columns)} but the graph has {sorted(model.nodes)}")
            model._dtypes = {n: _dtype_from_json(v) for n, v in meta["dtypes"].items()}
            with torch.random.fork_rng(devices=[]):
                model._build()
            model._load_state({k: tensors.get(k) for k in ("flow", "clf", "thr")})
            model._train_mode(False)
        model.history = [dict(h) for h in meta["history"]]
        model.best_epoch = int(meta["best_epoch"])
        model.fit_seconds = float(meta["fit_seconds"])
        if meta.get("data_hash") is not None:
            model.data_hash = str(meta["data_hash"])
    except ArtefactError:
        raise
    except Exception as exc:  # spec/graph errors, wrong shapes, missing weights: all mean a damaged file
        msg = " ".join(str(exc).split())[:200]
        raise ArtefactError(
            f"{what} {path} does not fit the flow its settings describe ({type(exc).__name__}: {msg}); {fix}."
        ) from None
    return model


# ============================================================================ data hashes
def content_hash(frame: pd.DataFrame) -> str:
    """A hash of a frame's values, dtypes, column names and row order (index ignored)."""
    from cffair.datasets import frame_hash

    return frame_hash(frame.reset_index(drop=True))


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
