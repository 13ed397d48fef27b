"""Seeded stratified cross-validation folds, subgroup checks per fold, and a dataset summary."""

from __future__ import annotations

__all__ = ["Fold", "FoldSplit", "check_subgroups", "make_folds", "strata", "summary"]

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from sklearn.model_selection import StratifiedKFold

from cffair.datasets._spec import PAPER_ROW_COUNTS, DatasetSpec
from cffair.errors import DataError


@dataclass(frozen=True)
class Fold:
    """One cross-validation fold: positional row indices of the training and test parts."""

    index: int
    train: np.ndarray = field(repr=False)
    test: np.ndarray = field(repr=False)


def strata(frame: pd.DataFrame, spec: DatasetSpec, n_splits: int = 5) -> pd.Series:
    """Stratification labels: target × sensitive value (score targets in quintiles).

    Strata with fewer than ``n_splits`` rows fall back to the target alone, so that
    stratification is used "where possible".
    """
    y = frame[spec.target]
    ylab = y.astype(str) if spec.target_kind == "binary" else pd.qcut(y, 5, labels=False, duplicates="drop").astype(str)
    lab = ylab + "|" + frame[spec.sensitive].astype(str)
    counts = lab.value_counts()
    rare = lab.map(counts) < n_splits
    return lab.where(~rare, ylab)


def make_folds(frame: pd.DataFrame, spec: DatasetSpec, n_splits: int = 5, seed: int = 0) -> list[Fold]:
    """Seeded, stratified ``n_splits``-fold split (stratified on target × sensitive).

    The same frame, spec and seed give the same folds on every run and machine.
    """
    if isinstance(n_splits, bool) or not isinstance(n_splits, (int, np.integer)) or n_splits < 2:
        raise DataError(
            f"n_splits must be a whole number of at least 2 (cross-validation needs two folds), got {n_splits!r}."
        )
    if len(frame) < n_splits:
        raise DataError(f"cannot make {n_splits} folds from {len(frame)} rows.")
    labels = strata(frame, spec, n_splits)
    skf = StratifiedKFold(n_splits=n_splits, shuffle=True, random_state=seed)
    return [
        Fold(i, np.sort(tr), np.sort(te))
        for i, (tr, te) in enumerate(skf.split(np.zeros(len(frame)), labels.to_numpy()))
    ]


@dataclass(frozen=True)
class FoldSplit:
    """Which rows one fold trains and is tested on: fold ``fold`` of ``n_folds`` seeded stratified
    folds (:func:`make_folds` with ``seed``), each part capped at random (seeded by the fold) to
    ``max_rows`` training and ``max_rows // 2`` test rows when ``max_rows`` is set (the quick profile).

    The grid's folds (:attr:`~cffair.experiments.ExperimentConfig.split`) and a command's fold
    (``cffair train --fold 2 --folds 5``) are both a split of this kind: the one fold builder.

    >>> FoldSplit(2, 5).fold
    2
    """

    fold: int
    n_folds: int = 5
    seed: int = 0
    max_rows: int | None = None

    def __post_init__(self) -> None:
        if not (
            isinstance(self.n_folds, (int, np.integer)) and not isinstance(self.n_folds, bool) and self.n_folds >= 2
        ):
            raise DataError(f"n_folds must be a whole number of at least 2, got {self.n_folds!r}.")
        if not (isinstance(self.fold, (int, np.integer)) and 0 <= self.fold < self.n_folds):
            raise DataError(f"fold must lie in 0..{self.n_folds - 1} with {self.n_folds} folds, got {self.fold!r}.")

    def rows(self, frame: pd.DataFrame, spec: DatasetSpec) -> tuple[np.ndarray, np.ndarray]:
        """Training and test row positions of this fold in ``frame``."""
        fold = make_folds(frame, spec, n_splits=self.n_folds, seed=self.seed)[self.fold]
        train, test = fold.train, fold.test
        if self.max_rows:
            rng = np.random.default_rng(self.fold)
            train = np.sort(rng.choice(train, min(self.max_rows, len(train)), replace=False))
            test = np.sort(rng.choice(test, min(self.max_rows // 2, len(test)), replace=False))
        return train, test


def check_subgroups(frame: pd.DataFrame, spec: DatasetSpec, rows: Iterable[int], what: str = "this fold") -> pd.Series:
    """Subgroup labels of ``rows``; raise if a subgroup of the whole frame has no row there.

    Raises:
        DataError: naming the empty subgroup(s) and the fix.
    """
    all_labels = spec.subgroup_labels(frame)
    rows = np.asarray(list(rows))
    part = all_labels.iloc[rows]
    empty = sorted(set(all_labels) - set(part))
    if empty:
        raise DataError(
            f"subgroup(s) {empty} have no rows in {what}; use fewer folds, coarser subgroup bins, "
            "or drop these subgroups from the spec."
        )
    return part


def summary(frame: pd.DataFrame, spec: DatasetSpec) -> dict[str, Any]:
    """Rows, features by kind, target balance, group and subgroup sizes (``cffair data describe``)."""
    y = frame[spec.target]
    kinds: dict[str, list[str]] = {}
    for col, kind in spec.features.items():
        kinds.setdefault(kind, []).append(col)
    return {
        "name": spec.name,
        "rows": len(frame),
        "paper_rows": PAPER_ROW_COUNTS.get(spec.name),
        "features_by_kind": kinds,
        "target": spec.target,
        "target_kind": spec.target_kind,
        "target_balance": (
            {"positive_rate": float(y.mean())}
            if spec.target_kind == "binary"
            else {"mean": float(y.mean()), "std": float(y.std()), "min": float(y.min()), "max": float(y.max())}
        ),
        "sensitive": spec.sensitive,
        "groups": frame[spec.sensitive].astype(str).value_counts().to_dict(),
        "subgroups": spec.subgroup_labels(frame).value_counts().to_dict(),
        "immutable": list(spec.immutable),
    }
