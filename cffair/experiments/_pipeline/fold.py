"""One fold of one dataset: encoded rows, labels, counterfactual pairs and the shared evaluation.

Every method, LTN and baselines alike, is scored by the same :func:`cffair.scores.evaluate`
on the same CNF counterfactual test pairs of the same fold (section 6.5). When the fold carries
*rulers* (appendix C: other twin sets of the sensitive flip,
:data:`cffair.experiments._pipeline.counterfactuals.RULERS`), the same evaluation also scores the model on
each ruler's test pairs (``metrics["rulers"]``); the top-level metrics stay those of the twins
the methods train on.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from cffair import datasets as D
from cffair.datasets._encoding import Encoder
from cffair.errors import ParameterError
from cffair.experiments._config import ExperimentConfig
from cffair.scores._metrics import evaluate

if TYPE_CHECKING:
    from cffair.causal._cfset import CFPairs, CounterfactualSet

__all__ = ["RULER_METRICS", "FoldData"]

#: What the evaluation keeps of each ruler: the counterfactual metrics (accuracy and MSE do not
#: depend on the twins).
RULER_METRICS: tuple[str, ...] = (
    "cf_mse",
    "cf_mse_by_subgroup",
    "cf_mse_worst_subgroup",
    "worst_subgroup",
    "cf_flip_rate",
    "n_pairs",
    "calibrated_cf_mse",
)


@dataclass
class FoldData:
    """Everything a method needs on one fold: encoded rows, labels and counterfactual pairs.

    ``rulers`` (``{name: twins}``, default none) are the twin sets :meth:`evaluate` also scores
    every model on (appendix C).
    """

    cfg: ExperimentConfig | None
    frame: pd.DataFrame
    spec: D.DatasetSpec
    train: np.ndarray
    test: np.ndarray
    cfset: CounterfactualSet
    rulers: dict[str, CounterfactualSet] = field(default_factory=dict)

    @classmethod
    def build(
        cls,
        cfg: ExperimentConfig,
        cfset: CounterfactualSet | None = None,
        rulers: dict[str, CounterfactualSet] | None = None,
        *,
        dataset: tuple[pd.DataFrame, D.DatasetSpec] | None = None,
    ) -> FoldData:
        """The fold of ``cfg``: the one fold builder of the grid, ``cffair run`` and the commands
        that train on one fold (``cffair train``, ``cffair cke``).

        Args:
            cfset: the counterfactuals (default: the dataset's CNF counterfactuals of the grid).
            rulers: the twin sets :meth:`evaluate` also scores on (default none;
                :func:`cffair.experiments._pipeline.counterfactuals.ruler_sets` gives a dataset's).
            dataset: the rows and spec, when they are already loaded (a CSV given to a command);
                default ``cffair.datasets.load(cfg.dataset)``.
        """
        frame, spec = D.load(cfg.dataset) if dataset is None else dataset
        if cfset is None:
            from cffair.experiments._pipeline.counterfactuals import counterfactual_set

            cfset = counterfactual_set(cfg.dataset, cfg.profile)
        train, test = cfg.split.rows(frame, spec)
        return cls(cfg, frame, spec, train, test, cfset, dict(rulers or {}))

    @classmethod
    def from_split(
        cls, split: D.FoldSplit, dataset: tuple[pd.DataFrame, D.DatasetSpec], cfset: CounterfactualSet
    ) -> FoldData:
        """The fold ``split`` of ``dataset`` with the twins ``cfset``, outside any experiment (a command
        that trains on one fold: ``cffair train``, ``cffair cke``); its :attr:`FoldData.config` is ``None``."""
        frame, spec = dataset
        train, test = split.rows(frame, spec)
        return cls(None, frame, spec, train, test, cfset)

    @property
    def config(self) -> ExperimentConfig:
        """The experiment config this fold was built for.

        Raises:
            ValueError: for a fold built from a split alone (:meth:`FoldData.from_split`).
        """
        if self.cfg is None:
            raise ParameterError(
                "this fold was built from a split (FoldData.from_split), not for an experiment config."
            )
        return self.cfg

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

    @property
    def sensitive_test(self) -> np.ndarray:
        """The sensitive attribute's value of each test row (the groups of the group-fairness metrics)."""
        return self.frame[self.spec.sensitive].astype(str).to_numpy()[self.test]

    def with_twins(self, ruler: str) -> FoldData:
        """This fold with ruler ``ruler``'s twins as its own: a method trains on them and
        :meth:`evaluate` scores on them at the top level (appendix C's sound-twins study, option
        ``twins``); the rulers stay, so ``metrics["rulers"]`` still holds every ruler, the paper's too.
        The encoded rows are shared with this fold, not recomputed."""
        if ruler not in self.rulers:
            raise KeyError(
                f"this fold has no ruler {ruler!r}; it has {', '.join(self.rulers) or 'none'} "
                "(rulers exist for the paper's datasets only)."
            )
        other = replace(self, cfset=self.rulers[ruler])
        for name in ("encoder", "X_train", "X_test", "subgroups", "data_hash"):
            if name in self.__dict__:  # cached already: share it
                other.__dict__[name] = self.__dict__[name]
        return other

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
        return D.data_hash(self.config.dataset, self.frame)

    @cached_property
    def ruler_pairs_test(self) -> dict[str, CFPairs]:
        """Each ruler's sensitive-flip pairs of the test rows (the fold's own pairs for its own twins)."""
        return {
            name: self.pairs_test if twins is self.cfset else self.pairs(self.test, cfset=twins)
            for name, twins in self.rulers.items()
        }

    def evaluate(
        self,
        score_fn: Callable[[np.ndarray], np.ndarray],
        pairs: CFPairs | None = None,
        *,
        score_for: Callable[[CFPairs], Callable[[np.ndarray], np.ndarray]] | None = None,
    ) -> dict[str, Any]:
        """The shared evaluation (section 6.5) on this fold's test rows and CNF test pairs.

        Without ``pairs`` and with rulers, ``metrics["rulers"]`` holds ``{ruler: {metric: value}}``
        (:data:`RULER_METRICS`) from the same evaluation on each ruler's test pairs; the
        top-level metrics are unchanged by them.

        Args:
            score_for: for a method whose scores use the twins themselves (the plug-in PCF, which
                mixes a row's prediction with its twins'): its score function given a ruler's
                test pairs; by default ``score_fn`` scores every ruler.
        """
        own = pairs or self.pairs_test
        # calibrated CF-MSE: Platt fitted on the training rows; not for a method whose scores need the twins (plug-in PCF)
        train = (self.X_train, self.y_train) if score_for is None else None
        metrics = evaluate(
            score_fn,
            self.X_test,
            self.y_test,
            own,
            self.pair_subgroups(own),
            target_kind=self.spec.target_kind,
            train=train,
            groups=self.sensitive_test,
        )
        if pairs is None and self.rulers:
            metrics["rulers"] = {}
            for name, rp in self.ruler_pairs_test.items():
                if rp is own:  # the fold's own twins: the evaluation just made (the same computation on the same pairs)
                    m = metrics
                else:
                    fn = score_fn if score_for is None else score_for(rp)
                    m = evaluate(
                        fn,
                        self.X_test,
                        self.y_test,
                        rp,
                        self.pair_subgroups(rp),
                        target_kind=self.spec.target_kind,
                        train=train,
                    )
                metrics["rulers"][name] = {k: m[k] for k in RULER_METRICS if k in m}
        return metrics
