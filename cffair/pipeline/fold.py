"""One fold of one dataset: encoded rows, labels, counterfactual pairs and the shared evaluation.

Every method, LTN and baselines alike, is scored by the same :func:`cffair.metrics.evaluate`
on the same CNF counterfactual test pairs of the same fold (section 6.5).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from cffair import datasets as D
from cffair.encoding import Encoder
from cffair.experiments.config import ExperimentConfig, Profile, profile
from cffair.metrics import evaluate

if TYPE_CHECKING:
    from cffair.causal.cfset import CFPairs, CounterfactualSet

__all__ = ["FoldData", "fold_rows"]


def fold_rows(frame: pd.DataFrame, spec: D.DatasetSpec, cfg: ExperimentConfig) -> tuple[np.ndarray, np.ndarray]:
    """Training and test row positions of ``cfg``'s fold (seed-0 stratified folds, subsampled in quick mode)."""
    prof: Profile = profile(cfg.profile)
    fold = D.make_folds(frame, spec, n_splits=cfg.fold_count, seed=0)[cfg.fold]
    train, test = fold.train, fold.test
    if prof.max_rows:
        rng = np.random.default_rng(cfg.fold)
        train = np.sort(rng.choice(train, min(prof.max_rows, len(train)), replace=False))
        test = np.sort(rng.choice(test, min(prof.max_rows // 2, len(test)), replace=False))
    return train, test


@dataclass
class FoldData:
    """Everything a method needs on one fold: encoded rows, labels and counterfactual pairs."""

    cfg: ExperimentConfig
    frame: pd.DataFrame
    spec: D.DatasetSpec
    train: np.ndarray
    test: np.ndarray
    cfset: CounterfactualSet

    @classmethod
    def build(cls, cfg: ExperimentConfig, cfset: CounterfactualSet | None = None) -> FoldData:
        """The fold of ``cfg``; ``cfset`` defaults to the dataset's CNF counterfactuals."""
        frame, spec = D.load(cfg.dataset)
        if cfset is None:
            from cffair.pipeline.counterfactuals import counterfactual_set

            cfset = counterfactual_set(cfg.dataset, cfg.profile)
        train, test = fold_rows(frame, spec, cfg)
        return cls(cfg, frame, spec, train, test, cfset)

    @cached_property
    def encoder(self) -> Encoder:
        return Encoder(self.spec).fit(self.frame.iloc[self.train])

    @cached_property
    def X_train(self) -> np.ndarray:
        return self.encoder.transform(self.frame.iloc[self.train])

    @cached_property
    def X_test(self) -> np.ndarray:
        return self.encoder.transform(self.frame.iloc[self.test])

    @property
    def y_train(self) -> np.ndarray:
        return self.frame[self.spec.target].to_numpy()[self.train]

    @property
    def y_test(self) -> np.ndarray:
        return self.frame[self.spec.target].to_numpy()[self.test]

    @cached_property
    def subgroups(self) -> np.ndarray:
        return self.spec.subgroup_labels(self.frame).to_numpy()

    def pairs(self, rows: np.ndarray, feature: str | None = None, cfset: CounterfactualSet | None = None) -> CFPairs:
        return (cfset or self.cfset).pairs(self.frame, self.encoder, feature or self.spec.sensitive, rows=rows)

    @cached_property
    def pairs_train(self) -> CFPairs:
        return self.pairs(self.train)

    @cached_property
    def pairs_test(self) -> CFPairs:
        return self.pairs(self.test)

    def pair_subgroups(self, pairs: CFPairs) -> np.ndarray:
        return self.subgroups[np.asarray(pairs.row_id)]

    @cached_property
    def data_hash(self) -> str:
        """Hash of the dataset's rows (and of a registered dataset's spec and graph,
        :func:`cffair.datasets.data_hash`); the counterfactuals enter a record as an input of their own."""
        return D.data_hash(self.cfg.dataset, self.frame)

    def evaluate(self, score_fn: Callable[[np.ndarray], np.ndarray], pairs: CFPairs | None = None) -> dict[str, Any]:
        """The shared evaluation (section 6.5) on this fold's test rows and CNF test pairs."""
        pairs = pairs or self.pairs_test
        return evaluate(score_fn, self.X_test, self.y_test, pairs, self.pair_subgroups(pairs), self.spec.target_kind)
