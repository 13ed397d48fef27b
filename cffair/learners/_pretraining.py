"""Pre-training on the accuracy axioms, done once and cached on disk.

Every fairness setting (``acc_cf``, ``acc_cf_sg``, and CKE on top of them) starts from the same
model: ``D`` trained on the accuracy axioms alone for ``pretrain_epochs`` (paper: 1500,
section 7.1). Continuing from a saved pre-training gives the same weights as training in one
go (:class:`~cffair.learners.LTNLearner` saves Adam's state too), so :func:`pretrained` trains
it once per (training rows, labels, learning rate, epochs, seed, network) and keeps it in
``<cache>/pretrained/``; ``cffair train --setting acc_cf`` followed by ``--setting acc_cf_sg``
pre-trains once. It is the one pre-training of the library: the grid's task groups pre-train
with it too (:mod:`cffair.experiments._pipeline.ltn`, cache off: a record keeps its pre-training by content).

The cache key hashes the encoded training rows and labels (so the dataset, its version, the
fold and the encoder are all in it), every parameter that changes pre-training, the torch
version, and the code of the modules that train (docstrings and comments left out). A cache
file that cannot be read, or that does not match its key, is reported with a
:class:`~cffair.errors.CacheWarning`, removed and recomputed.
"""

from __future__ import annotations

__all__ = ["Pretrained", "pretrain_key", "pretrained"]

import dataclasses
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import numpy as np

from cffair._support.utils import stable_hash
from cffair._support.validation import TargetKind
from cffair.errors import CacheWarning
from cffair.learners._training import DEFAULT_LR, PRETRAIN_EPOCHS, LTNLearner
from cffair.logic._axioms import Semantics


@dataclass
class Pretrained:
    """A pre-trained learner (setting ``acc``) and where it came from.

    Attributes:
        learner: the pre-trained :class:`~cffair.learners.LTNLearner`; continue it with
            ``LTNLearner.load(p.learner.state_dict(), setting="acc_cf", ...)``.
        path: its cache file (None when the cache is off).
        from_cache: whether it was read from the cache (no epoch trained).
        key: the cache key.
    """

    learner: LTNLearner
    path: Path | None
    from_cache: bool
    key: str


def _code_version() -> str:
    """The normalised code of the modules that train and everything they import
    (:func:`cffair._support.codehash.code_version`)."""
    from cffair._support.codehash import code_version

    return code_version(["cffair.learners._training"])


def _data_hash(X: np.ndarray, y: np.ndarray) -> str:
    """The hash :meth:`LTNLearner.fit` stores for its training data."""
    return stable_hash(np.asarray(X, dtype=np.float32).tobytes(), np.asarray(y, dtype=np.float64).tobytes())


def pretrain_key(
    X: np.ndarray,
    y: np.ndarray,
    target_kind: str,
    *,
    lr: float = DEFAULT_LR,
    epochs: int = PRETRAIN_EPOCHS,
    seed: int = 0,
    hidden: tuple[int, ...] = (100, 50),
    semantics: Semantics | None = None,
    clip_grad: float | None = None,
    patience: int | None = None,
) -> str:
    """The cache key of a pre-training: data, parameters, torch version and training code."""
    import torch

    sem = dataclasses.asdict(semantics or Semantics())
    clip = () if clip_grad is None else ("clip_grad", float(clip_grad))  # absent by default: the keys of before
    return stable_hash(
        "ltn-pretrain",
        _data_hash(X, y),
        target_kind,
        float(lr),
        int(epochs),
        int(seed),
        list(hidden),
        sem,
        torch.__version__,
        _code_version(),
        *clip,
        *(() if patience is None else ("patience", int(patience))),  # absent by default: the keys of before
    )


def _read(path: Path, key: str, data_hash: str, device: str = "cpu") -> LTNLearner | None:
    """The cached learner at ``path``, or None (and the file removed) if it is unreadable."""
    from cffair.learners._checkpoint import learner_state

    try:
        state = learner_state(path)
        extra = state.get("extra") or {}
        if extra.get("pretrain_key") != key or state.get("data_hash") != data_hash or not state.get("pretrained"):
            raise ValueError("it was written for other data or parameters")  # internal invariant
        return LTNLearner.load(state, device=device)
    except Exception as exc:  # any failure to read the file makes it a cache miss
        warnings.warn(
            f"the cached pre-trained model {path} is unreadable ({type(exc).__name__}: {exc}); removed it, pre-training again.",
            CacheWarning,
            stacklevel=3,
        )
        path.unlink(missing_ok=True)
        return None


def pretrained(
    X: np.ndarray,
    y: np.ndarray,
    target_kind: TargetKind,
    *,
    lr: float = DEFAULT_LR,
    epochs: int = PRETRAIN_EPOCHS,
    seed: int = 0,
    hidden: tuple[int, ...] = (100, 50),
    semantics: Semantics | None = None,
    sensitive: str = "S",
    clip_grad: float | None = None,
    cache_dir: str | Path | None | Literal[False] = None,
    name: str = "data",
    progress: bool = True,
    device: str = "cpu",
    patience: int | None = None,
) -> Pretrained:
    """The learner pre-trained on the accuracy axioms of ``(X, y)``, from the cache if it is there.

    Args:
        X: encoded training rows.
        y: their labels or scores.
        target_kind: ``"binary"`` or ``"score"``.
        lr: as in :class:`~cffair.learners.LTNLearner`.
        epochs: the learner's ``pretrain_epochs``.
        seed: as in :class:`~cffair.learners.LTNLearner`.
        hidden: as in :class:`~cffair.learners.LTNLearner`.
        semantics: as in :class:`~cffair.learners.LTNLearner`.
        clip_grad: as in :class:`~cffair.learners.LTNLearner`.
        sensitive: name of the sensitive attribute (for the axioms' readable formulas).
        cache_dir: cache folder (default ``$CFFAIR_CACHE`` or ``~/.cache/cffair``); ``False``
            turns the cache off.
        name: a readable prefix of the cache file's name (e.g. ``compas-fold0``).
        progress: show a progress bar while training.
        device: where to train (:mod:`cffair._support.devices`); not part of the cache key (a cached
            model is read onto ``device``).
        patience: early stopping of the pre-training (as in :class:`~cffair.learners.LTNLearner`;
            ``None``, the default: the fixed ``epochs``).
    """
    from cffair.causal._cache import cache_dir as default_cache_dir

    kw: dict[str, Any] = {
        "lr": lr,
        "pretrain_epochs": epochs,
        "seed": seed,
        "hidden": tuple(hidden),
        "semantics": semantics,
        "sensitive": sensitive,
        "progress": progress,
        "clip_grad": clip_grad,
        "device": device,
        "patience": patience,
    }
    key = pretrain_key(
        X,
        y,
        target_kind,
        lr=lr,
        epochs=epochs,
        seed=seed,
        hidden=hidden,
        semantics=semantics,
        clip_grad=clip_grad,
        patience=patience,
    )
    path = None if cache_dir is False else default_cache_dir(cache_dir) / "pretrained" / f"{name}-{key}.pt"
    if path is not None and path.exists():
        learner = _read(path, key, _data_hash(X, y), device)
        if learner is not None:
            learner.progress = progress
            return Pretrained(learner, path, True, key)
    learner = LTNLearner(target_kind, "acc", **kw).fit(X, y)
    if path is not None:
        learner.save(path, extra={"pretrain_key": key, "name": name})
    return Pretrained(learner, path, False, key)
