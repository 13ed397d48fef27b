"""Stage outputs that later tasks continue from, kept beside the records by content hash.

A task of the grid (:mod:`cffair.experiments._tasks`) that makes an output another task needs
(the pre-trained LTN checkpoint, a fairness model a CKE setting continues from, the GAN's twins
of a fold) writes it here; the dependent task reads it back. A file is named by the hash of what
made it (its producer's fingerprint, or the parent record's), and holds the content hash of
what it stores: a file whose content no longer hashes to that, or that cannot be read, is
treated as absent and recomputed. Files are written atomically (:mod:`cffair._support.artefacts`,
:meth:`~cffair.causal.CounterfactualSet.save`), so a killed task leaves none half-written.

Reading and writing changes no number: a checkpoint holds the weights, Adam's moments and the
history bit for bit, and a twin set its rows (the round trips are tested), so a record computed
from a stored output equals the one computed in one process. The folder is a cache: deleting it
only costs recomputation.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cffair.errors import ArtefactError, CounterfactualError

if TYPE_CHECKING:
    from cffair.causal._cfset import CounterfactualSet
    from cffair.learners._training import LTNLearner

__all__ = ["StageStore", "state_hash"]

FINGERPRINT_EXEMPT = True  # moves stage outputs to and from disk; changes no number


def state_hash(state: dict[str, Any]) -> str:
    """Content hash of a learner's state (its weights: a pre-trained checkpoint's identity)."""
    import torch

    from cffair._support.utils import stable_hash

    parts = []
    for k in sorted(state["model"]):
        v = state["model"][k]
        parts.append(
            k.encode() + (v.detach().cpu().numpy().tobytes() if isinstance(v, torch.Tensor) else repr(v).encode())
        )
    return stable_hash(*parts)


@dataclass
class StageStore:
    """The stage folder of a results store (``<results>/stages``)."""

    root: Path

    def __post_init__(self) -> None:
        self.root = Path(self.root)

    def _path(self, key: str, kind: str) -> Path:
        return self.root / f"{key}.{kind}"

    def learner_state(self, key: str) -> tuple[dict[str, Any], dict[str, Any]] | None:
        """``(state, extra)`` of the checkpoint stored under ``key``, or ``None`` if there is
        none usable (absent, damaged, or its weights no longer hash to what was stored)."""
        from cffair.learners._checkpoint import learner_state

        path = self._path(key, "ckpt")
        if not path.exists():
            return None
        try:
            state = learner_state(path)
        except ArtefactError:
            return None
        extra = dict(state.pop("extra", {}) or {})
        if extra.get("content") != state_hash(state):
            return None
        return state, extra

    def put_learner(self, key: str, learner: LTNLearner, **extra: Any) -> str:
        """Store a learner's checkpoint under ``key``; returns its content hash."""
        self.root.mkdir(parents=True, exist_ok=True)
        content = state_hash(learner.state_dict())
        learner.save(self._path(key, "ckpt"), extra={**extra, "content": content})
        return content

    def twins(self, key: str) -> CounterfactualSet | None:
        """The twin set stored under ``key`` (``None`` if absent or damaged)."""
        from cffair.causal._cfset import CounterfactualSet

        path = self._path(key, "parquet")
        if not path.exists():
            return None
        try:
            return CounterfactualSet.load(path)
        except (CounterfactualError, OSError, ValueError):
            return None

    def put_twins(self, key: str, cfset: CounterfactualSet) -> None:
        """Store a twin set under ``key`` (its content hash travels in the file)."""
        self.root.mkdir(parents=True, exist_ok=True)
        cfset.save(self._path(key, "parquet"))
