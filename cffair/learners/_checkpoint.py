"""The checkpoint file of an :class:`~cffair.learners.LTNLearner`: its layout name, what it
stores of the learner's :meth:`~cffair.learners.LTNLearner.state_dict` and how it is read back.

The learner's state goes through the safe container of :mod:`cffair._support.artefacts` (weights and
Adam's state as tensors, the settings, history and ``extra`` as JSON, read with
``torch.load(weights_only=True)``, checksummed). This module takes and returns state mappings and
builds a learner only through a function it is given, so it imports no model code and the learner
calls it without an import cycle. The layout is unchanged: a checkpoint written before loads after
(``tests/support/test_safe_loading.py``).

It only moves bytes: it cannot change a number, hence ``FINGERPRINT_EXEMPT``.
"""

from __future__ import annotations

__all__ = ["LEARNER_FIX", "LEARNER_FORMAT", "learner_extra", "learner_state", "load_learner", "save_learner_state"]

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, TypeVar

import numpy as np

from cffair._support.artefacts import read_artefact, write_artefact
from cffair.errors import ArtefactError

FINGERPRINT_EXEMPT = True  # serialisation: moves bytes, changes no number

#: ``(name, layout version)`` of an :class:`~cffair.learners.LTNLearner` checkpoint.
LEARNER_FORMAT = ("cffair.LTNLearner", 2)
#: How to regenerate a checkpoint that cannot be read, for messages.
LEARNER_FIX = "write it again with `cffair train --save PATH` (or LTNLearner.save)"

_WHAT = "LTN checkpoint"
_META_KEYS = ("params", "n_features", "pretrained", "history", "extra")

L = TypeVar("L")


def save_learner_state(
    path: str | Path,
    state: Mapping[str, Any],
    history_dtypes: Mapping[Any, Any],
    extra: Mapping[str, Any] | None = None,
) -> None:
    """Write a learner's :meth:`~cffair.learners.LTNLearner.state_dict` (weights, Adam's state,
    params, history) and ``extra`` as a safe artefact.

    Args:
        path: the file (written atomically).
        state: the learner's ``state_dict()``.
        history_dtypes: the dtype of each column of its training log (JSON keeps only the values).
        extra: JSON-like values stored beside it (dataset, fold...).
    """
    meta = {k: state[k] for k in ("params", "n_features", "pretrained", "data_hash", "history")}
    meta["history_dtypes"] = {str(c): str(t) for c, t in history_dtypes.items()}
    meta["extra"] = dict(extra or {})
    write_artefact(path, LEARNER_FORMAT, meta, {"model": state["model"], "optimizer": state["optimizer"]})


def learner_state(path: str | Path) -> dict[str, Any]:
    """The :meth:`~cffair.learners.LTNLearner.state_dict` mapping stored in a checkpoint (plus
    ``extra`` and ``written_by``).

    Raises:
        ArtefactError: for a missing, damaged, unsafe or old-format file
            (:func:`~cffair._support.artefacts.read_artefact`).
    """
    meta, tensors = read_artefact(path, LEARNER_FORMAT, what=_WHAT, fix=LEARNER_FIX)
    missing = [k for k in _META_KEYS if k not in meta]
    if missing:
        raise ArtefactError(f"{_WHAT} {path} is damaged (no {', '.join(missing)} in its metadata); {LEARNER_FIX}.")
    if not isinstance(tensors.get("model"), dict) or not isinstance(tensors.get("optimizer"), dict):
        raise ArtefactError(f"{_WHAT} {path} is damaged (no weights or optimiser state); {LEARNER_FIX}.")
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


def load_learner(path: str | Path, build: Callable[[dict[str, Any]], L]) -> L:
    """``build(state)`` for the :func:`learner_state` of a checkpoint file (``build`` is
    :meth:`~cffair.learners.LTNLearner.load` of a state mapping, passed in so that this
    module imports no model code).

    Raises:
        ArtefactError: for an unreadable file, or content that does not fit a learner (tampered
            settings, weights of the wrong shape).
    """
    state = learner_state(path)
    try:
        return build(state)
    except (TypeError, ValueError, KeyError, RuntimeError) as exc:
        msg = " ".join(str(exc).split())[:200]
        raise ArtefactError(
            f"LTN checkpoint {path} does not fit a learner ({type(exc).__name__}: {msg}); {LEARNER_FIX}."
        ) from None
