"""Shared internals of the baselines: mixed-type feature blocks, batching, input checks.

The original GAN (Grari et al. 2023) and DCEVAE (Kim et al. 2021) code decode every column
with a sigmoid and a binary cross-entropy (their data was min-max scaled or all-binary). The
paper's datasets mix feature kinds, so cffair gives each decoder one *head per feature*,
read off :attr:`cffair.datasets._encoding.Encoder.slices`:

* ``numeric`` (continuous/integer, standard-scaled): a Gaussian with unit variance, i.e. half
  the squared error;
* ``binary`` (one 0/1 column): a Bernoulli, binary cross-entropy on a logit;
* ``categorical`` (a one-hot block, also ordinal features): a softmax, cross-entropy.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
import pandas as pd
import torch
import torch.nn.functional as F

from cffair._support.validation import check_labels, check_matrix
from cffair.datasets import CATEGORY_KINDS, DatasetSpec, require_binary_sensitive
from cffair.errors import DataError
from cffair.learners._contract import check_fitted

__all__ = [
    "Block",
    "binary_sensitive",
    "check_encoded",
    "check_fitted",
    "check_target",
    "decode",
    "encode_frame",
    "feature_blocks",
    "minibatches",
    "model_device",
    "reconstruction_loss",
]

BlockKind = Literal["numeric", "binary", "categorical"]


@dataclass(frozen=True)
class Block:
    """One feature's encoded columns ``[start, stop)`` and how to decode them."""

    name: str
    kind: BlockKind
    start: int
    stop: int

    @property
    def width(self) -> int:
        return self.stop - self.start


def feature_blocks(encoder, features: Sequence[str], offset_map: dict[int, int] | None = None) -> list[Block]:
    """The decoding blocks of ``features`` in the encoder's layout.

    Args:
        encoder: a fitted :class:`cffair.datasets._encoding.Encoder`.
        features: the features to describe (in this order).
        offset_map: optional map from the encoder's column index to a column index of a
            narrower array (used when some columns, e.g. the sensitive one, are dropped).
    """
    blocks = []
    for f in features:
        s = encoder.slices[f]
        kind: BlockKind
        if encoder.spec.features[f] not in CATEGORY_KINDS:
            kind = "numeric"
        elif s.stop - s.start == 1:
            kind = "binary"
        else:
            kind = "categorical"
        start, stop = s.start, s.stop
        if offset_map is not None:
            start = offset_map[s.start]
            stop = start + (s.stop - s.start)
        blocks.append(Block(f, kind, start, stop))
    return blocks


def reconstruction_loss(logits: torch.Tensor, target: torch.Tensor, blocks: Sequence[Block]) -> torch.Tensor:
    """Negative log-likelihood of ``target`` under the per-feature heads, summed over features
    and averaged over rows (constants dropped).

    ``logits`` and ``target`` share the layout described by ``blocks``.
    """
    if logits.shape != target.shape:
        raise ValueError(
            f"logits {tuple(logits.shape)} and target {tuple(target.shape)} differ in shape."
        )  # internal invariant
    total = logits.new_zeros(())
    for b in blocks:
        lo, ta = logits[:, b.start : b.stop], target[:, b.start : b.stop]
        if b.kind == "numeric":
            total = total + 0.5 * ((lo - ta) ** 2).sum(dim=1).mean()
        elif b.kind == "binary":
            total = total + F.binary_cross_entropy_with_logits(lo, ta, reduction="none").sum(dim=1).mean()
        else:
            total = total + F.cross_entropy(lo, ta.argmax(dim=1))
    return total


def decode(logits: torch.Tensor, blocks: Sequence[Block], hard: bool = True) -> torch.Tensor:
    """Decoder output in the encoder's space.

    ``hard=True`` (the mode): numeric as is, binary thresholded at 0.5, categorical one-hot of
    the arg-max — rows that :meth:`Encoder.inverse_transform` reads exactly. ``hard=False``:
    probabilities (sigmoid / softmax), differentiable, as the original GAN feeds its predictor.
    """
    out = logits.clone()
    for b in blocks:
        lo = logits[:, b.start : b.stop]
        if b.kind == "numeric":
            continue
        if b.kind == "binary":
            out[:, b.start : b.stop] = (lo > 0).to(lo.dtype) if hard else torch.sigmoid(lo)
        else:
            if hard:
                out[:, b.start : b.stop] = F.one_hot(lo.argmax(dim=1), b.width).to(lo.dtype)
            else:
                out[:, b.start : b.stop] = torch.softmax(lo, dim=1)
    return out


# ----------------------------------------------------------------------------- inputs
def check_encoded(X: np.ndarray, width: int | None = None, what: str = "X") -> np.ndarray:
    """``X`` as a finite float32 2-D array of the expected width (:func:`cffair._support.validation.check_matrix`)."""
    return check_matrix(X, what, n_columns=width, dtype=np.float32)


def check_target(y: np.ndarray, n: int, target_kind: str, what: str = "y") -> np.ndarray:
    """``y`` as float32 ``(n,)``; 0/1 for a binary target (:func:`cffair._support.validation.check_labels`)."""
    return check_labels(y, target_kind, input_name=what, length=n).astype(np.float32)


def model_device(model: torch.nn.Module) -> torch.device:
    """The device a network's weights live on."""
    return next(model.parameters()).device


def binary_sensitive(frame: pd.DataFrame, encoder, method: str) -> slice:
    """The single encoded 0/1 column of a binary sensitive attribute (raises if not binary)."""
    spec: DatasetSpec = encoder.spec
    require_binary_sensitive(frame, spec, method)
    s = encoder.slices[spec.sensitive]
    if s.stop - s.start != 1:  # pragma: no cover - Encoder gives binary features one column
        raise DataError(
            f"the encoded sensitive attribute {spec.sensitive!r} spans {s.stop - s.start} columns; expected one."
        )
    return s


def encode_frame(frame: pd.DataFrame, encoder) -> tuple[np.ndarray, np.ndarray]:
    """Encoded features and the target of a readable frame."""
    spec: DatasetSpec = encoder.spec
    if spec.target not in frame.columns:
        raise DataError(
            f"the frame has no target column {spec.target!r}; these models need the labels to fit and to abduct."
        )
    X = encoder.transform(frame)
    y = check_target(frame[spec.target].to_numpy(), len(frame), spec.target_kind, what=f"target {spec.target!r}")
    return X, y


def minibatches(
    n: int, batch_size: int | None, generator: torch.Generator, drop_last: bool = False
) -> Iterator[torch.Tensor]:
    """Shuffled index batches; one full batch when ``batch_size`` is ``None`` or ≥ ``n``.

    ``drop_last`` follows the originals (``len // batch_size`` batches), but never drops
    everything: with fewer rows than a batch, the whole set is one batch.
    """
    if batch_size is None or batch_size >= n:
        yield torch.arange(n)
        return
    perm = torch.randperm(n, generator=generator)
    stop = (n // batch_size) * batch_size if drop_last else n
    for i in range(0, stop, batch_size):
        yield perm[i : i + batch_size]
