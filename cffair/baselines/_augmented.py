"""The CNF baseline: the paper's MLP trained on factual *and* counterfactual rows (section 6.4).

"Provided these counterfactuals, we train an MLP with the same parameters as for our
methodology on the combined dataset of counterfactuals and original data points" (section 6.4,
"CNF"; the same recipe is used on DCEVAE's counterfactuals, see :mod:`cffair.baselines._dcevae`).

Choices (documented for the book):

* the network is :func:`cffair.learners._networks.make_mlp` (MLP(100, 50)), the LTN's predicate;
* the optimiser is Adam with the LTN's learning rate (paper: 0.1, configurable);
* the loss is binary cross-entropy on the sigmoid output for a binary target and mean squared
  error for a score target;
* each counterfactual row carries the label of its factual row (the counterfactual is the same
  individual, so the fair label is the factual one);
* training is **full batch** by default (``batch_size=None``), like the LTN's training loop,
  for 1500 epochs (the LTN's pre-training on the accuracy axioms); pass ``batch_size`` for
  mini-batches and ``epochs`` to match another LTN schedule.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch
import torch.nn.functional as F
from sklearn.base import BaseEstimator
from torch import nn

from cffair._support.devices import flushed_denormals, resolve_device
from cffair._support.validation import TargetKind, check_target_kind
from cffair.baselines._mixed import check_encoded, check_fitted, check_target, minibatches, model_device
from cffair.causal._cfset import CFPairs
from cffair.errors import DataError, ParameterError
from cffair.learners._contract import PredictMixin
from cffair.learners._networks import make_mlp


@dataclass(frozen=True)
class MLPConfig:
    """How the shared MLP(100, 50) is trained (section 6.3: Adam, lr 0.1).

    Attributes:
        epochs: passes over the training rows. Default 1500: the LTN's training on the
            accuracy axioms (the paper's pre-training length, :mod:`cffair.learners._training`), i.e.
            the plain MLP gets as many full-batch epochs as LTN(acc).
        lr: Adam's learning rate (the paper's LTN uses 0.1).
        batch_size: ``None`` for full-batch training (the default, as the LTN), else a mini-batch size.
        hidden: hidden widths (the paper: 100, 50).
        seed: seed of the initialisation and the shuffling.
    """

    epochs: int = 1500
    lr: float = 0.1
    batch_size: int | None = None
    hidden: tuple[int, ...] = (100, 50)
    seed: int = 0

    def __post_init__(self) -> None:
        if self.epochs < 1:
            raise ParameterError(f"epochs must be at least 1, got {self.epochs}.")
        if not self.lr > 0:
            raise ParameterError(f"lr must be positive, got {self.lr}.")
        if self.batch_size is not None and self.batch_size < 1:
            raise ParameterError(f"batch_size must be None (full batch) or positive, got {self.batch_size}.")


def predictor_loss(
    out: torch.Tensor, y: torch.Tensor, target_kind: str, weight: torch.Tensor | None = None
) -> torch.Tensor:
    """BCE on probabilities (binary target) or MSE (score target): the mean over rows, or with
    ``weight`` (a count per row) the weighted mean ``Σ wᵢ lᵢ / Σ wᵢ``, the same loss as the rows
    repeated ``wᵢ`` times."""
    if weight is None:
        if target_kind == "binary":
            return F.binary_cross_entropy(out.clamp(1e-6, 1 - 1e-6), y)
        return F.mse_loss(out, y)
    if target_kind == "binary":
        per_row = F.binary_cross_entropy(out.clamp(1e-6, 1 - 1e-6), y, reduction="none")
    else:
        per_row = F.mse_loss(out, y, reduction="none")
    return (per_row * weight).sum() / weight.sum()


def merge_rows(X: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """Identical ``(x, y)`` rows merged: the unique rows in order of first occurrence, their labels,
    and how often each occurs (``None`` when no row repeats, so nothing changes).

    A model trained on ``[x; x′]`` sees many rows twice (a twin equal to its row where the
    intervention changes nothing, the same person in two folds' worth of twins): on COMPAS 9,866
    training rows are 4,430 distinct. Full-batch training on the merged rows with count weights
    has the same loss and gradients, for a fraction of the work.

    >>> X = np.array([[0.0, 1.0], [2.0, 3.0], [0.0, 1.0]], dtype=np.float32)
    >>> Xu, yu, w = merge_rows(X, np.array([1.0, 0.0, 1.0], dtype=np.float32))
    >>> Xu.tolist(), yu.tolist(), w.tolist()
    ([[0.0, 1.0], [2.0, 3.0]], [1.0, 0.0], [2.0, 1.0])
    """
    rows = np.concatenate([X, np.asarray(y, dtype=X.dtype)[:, None]], axis=1)
    _, first, counts = np.unique(rows, axis=0, return_index=True, return_counts=True)
    if len(first) == len(X):
        return X, y, None
    order = np.argsort(first)
    keep = first[order]
    return X[keep], y[keep], counts[order].astype(np.float32)


@flushed_denormals()
def train_mlp(
    X: np.ndarray, y: np.ndarray, target_kind: str, config: MLPConfig, *, device: str = "cpu"
) -> tuple[nn.Module, list[float]]:
    """Train a fresh :func:`make_mlp` on ``(X, y)``; return it (in eval mode) and the loss per epoch.

    The network is initialised on the CPU from ``config.seed`` and trained on ``device``
    (:mod:`cffair._support.devices`), where ``X`` and ``y`` are moved once; the returned network stays there.
    Full-batch training (``batch_size=None``) merges identical rows with count weights
    (``merge_rows``: the same loss, less work) and reads the whole batch without copying it.
    """
    dev = resolve_device(device)
    torch.manual_seed(config.seed)
    model = make_mlp(X.shape[1], target_kind, config.hidden).to(dev)  # type: ignore[arg-type]
    opt = torch.optim.Adam(model.parameters(), lr=config.lr)
    gen = torch.Generator().manual_seed(config.seed)
    history: list[float] = []
    model.train()
    if config.batch_size is None or config.batch_size >= len(X):
        X, y, counts = merge_rows(X, y)
        xt, yt = torch.from_numpy(np.ascontiguousarray(X)).to(dev), torch.from_numpy(np.ascontiguousarray(y)).to(dev)
        weight = None if counts is None else torch.from_numpy(counts).to(dev)
        for _ in range(config.epochs):
            opt.zero_grad()
            loss = predictor_loss(model(xt), yt, target_kind, weight)
            loss.backward()
            opt.step()
            history.append(float(loss.detach()))
        model.eval()
        return model, history
    xt, yt = torch.from_numpy(X).to(dev), torch.from_numpy(y).to(dev)
    for _ in range(config.epochs):
        total, count = 0.0, 0
        for idx in minibatches(len(xt), config.batch_size, gen):
            idx = idx.to(dev)
            opt.zero_grad()
            loss = predictor_loss(model(xt[idx]), yt[idx], target_kind)
            loss.backward()
            opt.step()
            total += float(loss.detach()) * len(idx)
            count += len(idx)
        history.append(total / count)
    model.eval()
    return model, history


def predict_mlp(model: nn.Module, X: np.ndarray) -> np.ndarray:
    """Scores of ``model`` on ``X`` (on the model's device) as a float64 NumPy ``(n,)``."""
    with torch.no_grad():
        x = torch.from_numpy(np.ascontiguousarray(X, dtype=np.float32)).to(model_device(model))
        return model(x).double().cpu().numpy()


def pair_labels(pairs: CFPairs, row_ids: np.ndarray, y: np.ndarray) -> np.ndarray:
    """The factual label of each pair: ``y[k]`` where ``row_ids[k] == pairs.row_id[i]``.

    Args:
        pairs: encoded counterfactual pairs (positional dataset row ids).
        row_ids: the dataset row id of each entry of ``y`` (e.g. a training fold's rows).
        y: labels of those rows.

    Raises:
        DataError: when a pair's row is not among ``row_ids``.
    """
    row_ids = np.asarray(row_ids, dtype=np.int64)
    if len(row_ids) != len(y):
        raise DataError(f"row_ids has {len(row_ids)} entries but y has {len(y)}.")
    order = np.argsort(row_ids, kind="stable")
    pos = np.searchsorted(row_ids[order], pairs.row_id)
    pos = np.clip(pos, 0, len(row_ids) - 1)
    found = row_ids[order][pos] == pairs.row_id
    if not found.all():
        missing = np.unique(pairs.row_id[~found])[:5].tolist()
        raise DataError(
            f"counterfactual pairs refer to rows {missing} that are not among the labelled rows; select the pairs of the same fold."
        )
    return np.asarray(y)[order][pos]


class AugmentedMLP(PredictMixin, BaseEstimator):
    """MLP(100, 50) trained on factual rows plus their counterfactual rows (the "CNF" column
    of Table 1; section 6.4). Also the predictor of the DCEVAE baseline.

    Args:
        target_kind: ``"binary"`` or ``"score"``.
        config: how the MLP is trained (default :class:`MLPConfig`).
        device: where to train (:mod:`cffair._support.devices`).

    Example::

        model = AugmentedMLP("binary", MLPConfig(epochs=200)).fit(X, y, pairs.x_cf, pair_labels(pairs, rows, y))
        p = model.predict_score(X_test)      # P(y = 1)
    """

    model_: nn.Module | None = None

    def __init__(self, target_kind: TargetKind = "binary", config: MLPConfig | None = None, *, device: str = "cpu"):
        self.target_kind = target_kind
        self.config = config
        self.device = device

    def _target_kind(self) -> str:
        return self.target_kind

    def fit(
        self, X: np.ndarray, y: np.ndarray, X_cf: np.ndarray | None = None, y_cf: np.ndarray | None = None
    ) -> AugmentedMLP:
        """Train on ``[X; X_cf]`` with labels ``[y; y_cf]``.

        Args:
            X, y: encoded factual rows and their labels.
            X_cf, y_cf: encoded counterfactual rows and the labels copied from their factual
                rows (:func:`pair_labels`). Without them this is the plain factual MLP.
        """
        check_target_kind(self.target_kind)
        X = check_encoded(X)
        y = check_target(y, len(X), self.target_kind)
        if (X_cf is None) != (y_cf is None):
            raise DataError("give both X_cf and y_cf (the counterfactual rows and their factual labels), or neither.")
        if X_cf is not None:
            X_cf = check_encoded(X_cf, X.shape[1], "X_cf")
            y_cf = check_target(y_cf, len(X_cf), self.target_kind, "y_cf")  # type: ignore[arg-type]
            X = np.concatenate([X, X_cf])
            y = np.concatenate([y, y_cf])
        self.n_features_ = X.shape[1]
        self.model_, self.history_ = train_mlp(X, y, self.target_kind, self.config or MLPConfig(), device=self.device)
        return self

    def fit_pairs(self, X: np.ndarray, y: np.ndarray, row_ids: np.ndarray, pairs: CFPairs) -> AugmentedMLP:
        """:meth:`fit` on factual rows ``X`` (dataset rows ``row_ids``) and the counterfactuals of ``pairs``."""
        return self.fit(X, y, pairs.x_cf, pair_labels(pairs, row_ids, y))

    def predict_score(self, X: np.ndarray) -> np.ndarray:
        """P(y = 1) for a binary target, the predicted score otherwise; float64 ``(n,)``."""
        check_fitted(self)
        return predict_mlp(self.model_, check_encoded(X, self.n_features_))  # type: ignore[arg-type]
