"""The options of a run on one's own data (:mod:`cffair.workflows._own`), in one place: their names,
documentation and defaults.
"""

from __future__ import annotations

__all__ = ["DEFAULT_PATIENCE", "RunOptions"]

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

#: Early stopping of the LTN's stages in a full-profile run on one's own data
#: (:class:`cffair.learners.LTNLearner`'s ``patience``): a stage stops once its satisfaction gains
#: less than 0.001 over this many epochs. The paper's fixed epochs (1,500 of pre-training, 500 per
#: fairness stage) were set for 36,000 Adult rows; on 800 rows of the credit data the pre-training
#: plateaued after about 800 epochs and the held-out accuracy no longer rose. ``patience=None``
#: (``cffair run --fixed-epochs``) keeps the paper's schedule.
DEFAULT_PATIENCE = 100


@dataclass(frozen=True)
class RunOptions:
    """The options of a run on one's own data, in one place: :func:`cffair.workflows.plan` checks them before any
    model is fitted, and :func:`cffair.workflows.run` takes each of them as a keyword of the same name and default.

    Attributes:
        settings: LTN settings (``acc``, ``acc_cf``, ``acc_cf_sg``, ``acc_cf_cke``,
            ``acc_cf_sg_cke``, with or without ``ltn_``); default all five (without the CKE
            ones if the spec lists no immutable feature besides the sensitive one).
        baselines: from ``cnf``, ``gan``, ``dcevae``, ``unaware``, ``level3``, ``pcf``;
            default Table 1's ``cnf``, ``gan``, ``dcevae``; ``[]`` for none.
        folds: cross-validation folds (at least 2; the paper: 5). Every fold runs.
        quick: the quick profile (few epochs, at most 1,500 training rows per fold): a check
            that everything runs, not results.
        seed: seed of the models (the folds and the counterfactuals always use seed 0).
        jobs: worker processes (one torch thread each).
        out: the results folder (default :func:`cffair.workflows.default_out`).
        name: the dataset's name in records (default: the spec's ``name``, else the CSV's stem).
        categorical: treatment of nominal columns in the flow: ``gumbel`` (the library's
            default) or ``flow`` (the paper's integer codes).
        backend: joblib backend (``loky`` by default; ``dask`` for a cluster).
        flow: other settings of the causal flow (:class:`cffair.causal.FlowConfig` keys but
            ``epochs``), e.g. ``{"hidden": [64, 64, 64]}`` for a graph with many distinct
            parent sets.
        sep: the CSV's column separator (default: sniffed from its header line, see
            :func:`cffair.datasets._checks.csv_options`).
        decimal: the decimal mark of its numbers, ``"."`` (default) or ``","``.
        lr: the LTN's Adam learning rate (default: the profile's, 1e-3 in full mode); lower it
            when the report flags a constant predictor.
        fair_epochs: epochs of the fairness stage (default: the profile's, 500 in full mode).
        fair_p: the exponent p of the fairness axioms' ∀ (default: the paper's 1; section 2.4).
        weights: axiom-group weights of the LTN settings, e.g. ``{"cf": 2}`` (appendix B).
        patience: early stopping of the LTN's stages in the full profile (:data:`DEFAULT_PATIENCE`;
            the epochs become upper bounds); ``None``: the paper's fixed epochs. The report
            states which schedule ran.
    """

    settings: Sequence[str] | str | None = None
    baselines: Sequence[str] | str | None = None
    folds: int = 5
    quick: bool = False
    seed: int = 0
    jobs: int = 1
    out: str | Path | None = None
    name: str | None = None
    categorical: str | None = None
    backend: str | None = None
    flow: Mapping[str, Any] | None = None
    sep: str | None = None
    decimal: str | None = None
    lr: float | None = None
    fair_epochs: int | None = None
    fair_p: float | None = None
    weights: Mapping[str, float] | None = None
    patience: int | None = DEFAULT_PATIENCE

    @classmethod
    def names(cls) -> tuple[str, ...]:
        """The options' names, in order."""
        return tuple(f.name for f in fields(cls))
