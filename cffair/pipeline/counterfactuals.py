"""The counterfactual stage: each dataset's CNF twins, generated once before the grid runs.

Its output enters every record by content hash (:func:`content_hash`), not by the code that
made it: a refactor of the flow that yields the same twins stales no record.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import pandas as pd

from cffair import datasets as D
from cffair.causal.config import PAPER_TREATMENT  # the paper's treatment of discrete columns (section 6.2)
from cffair.experiments.config import profile
from cffair.utils import stable_hash

if TYPE_CHECKING:
    from cffair.causal.cfset import CounterfactualSet

__all__ = ["PAPER_TREATMENT", "content_hash", "counterfactual_set", "flow_config", "prepare_counterfactuals", "treatment"]



def treatment(dataset: str | None) -> dict[str, Any]:
    """How a dataset's counterfactuals treat discrete columns: the paper's
    (:data:`PAPER_TREATMENT`) for the paper's datasets, a registered dataset's own choice
    (:func:`cffair.datasets.register`, ``flow=``; empty: the library's defaults)."""
    reg = D.registration(dataset) if dataset is not None else None
    return dict(PAPER_TREATMENT) if reg is None else dict(reg.flow)


def flow_config(profile_name: str, dataset: str | None = None) -> dict[str, Any]:
    """Flow settings of a profile (the paper's 1000 epochs max with early stopping, or quick
    ones) and of a dataset (:func:`treatment`; without one, the paper's)."""
    return {"epochs": profile(profile_name).flow_epochs, **treatment(dataset)}


def counterfactual_set(dataset: str, profile_name: str, progress: bool = False) -> CounterfactualSet:
    """The CNF counterfactuals of a dataset (sensitive flip + immutable interventions), cached."""
    from cffair.causal.flow import generate

    config = flow_config(profile_name, dataset)
    return generate(D.load(dataset), interventions="immutable", config=config, seed=0, progress=progress)


def content_hash(cfset: CounterfactualSet) -> str:
    """Hash of a counterfactual set's rows (what a consumer's numbers depend on)."""
    frame = cfset.frame
    return stable_hash(list(map(str, frame.columns)), pd.util.hash_pandas_object(frame, index=False).to_numpy().tobytes())


def prepare_counterfactuals(profile_name: str, datasets: Sequence[str], jobs: int = 1) -> dict[str, str]:
    """Fit each dataset's flow and generate its counterfactuals once; ``{dataset: content hash}``."""
    from joblib import Parallel, delayed

    registrations = D.registry.snapshot()  # registered datasets, for workers started earlier

    def one(name: str) -> tuple[str, str]:
        from cffair.utils import torch_cpu_setup

        D.registry.restore(registrations)
        torch_cpu_setup()
        return name, content_hash(counterfactual_set(name, profile_name))

    return dict(Parallel(n_jobs=max(1, min(jobs, len(datasets))))(delayed(one)(d) for d in datasets))
