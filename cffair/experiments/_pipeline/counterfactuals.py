"""The counterfactual stage: each dataset's CNF twins, generated once before the grid runs.

Its output enters every record by content hash (:func:`content_hash`), not by the code that
made it: a refactor of the flow that yields the same twins stales no record.

Besides the twins every method trains on (input ``counterfactuals``, the paper's treatment),
the stage makes the *rulers* of appendix C (:data:`RULERS`) for the paper's datasets: other
twin sets of the sensitive flip on which the shared evaluation also scores every model
(:meth:`cffair.experiments._pipeline.fold.FoldData.evaluate`), so that no method is judged only on the
very twins it trained on. Each is an input of its own (``counterfactuals_default``,
``counterfactuals_independent``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

import pandas as pd

from cffair import datasets as D
from cffair._support.utils import stable_hash
from cffair.causal._config import PAPER_TREATMENT  # the paper's treatment of discrete columns (section 6.2)
from cffair.experiments._config import profile

if TYPE_CHECKING:
    from cffair.causal._cfset import CounterfactualSet

__all__ = [
    "PAPER_TREATMENT",
    "RULERS",
    "Ruler",
    "content_hash",
    "counterfactual_set",
    "flow_config",
    "prepare_counterfactuals",
    "prepare_inputs",
    "ruler_config",
    "ruler_inputs",
    "ruler_set",
    "ruler_sets",
    "treatment",
]


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
    from cffair._support.devices import current_device
    from cffair.causal._flow import generate

    config = flow_config(profile_name, dataset)
    return generate(
        D.load(dataset), interventions="immutable", config=config, seed=0, progress=progress, device=current_device()
    )


def content_hash(cfset: CounterfactualSet) -> str:
    """Hash of a counterfactual set's rows (what a consumer's numbers depend on)."""
    frame = cfset.frame
    return stable_hash(
        list(map(str, frame.columns)), pd.util.hash_pandas_object(frame, index=False).to_numpy().tobytes()
    )


# ============================================================================ rulers (appendix C)
@dataclass(frozen=True)
class Ruler:
    """A twin set the shared evaluation scores every model on (appendix C).

    Attributes:
        name: ``paper``, ``default`` or ``independent``.
        input: the record input it enters by content hash (``paper`` is the methods' own twins,
            input ``counterfactuals``).
        flow: flow settings on top of the profile's epochs (:class:`~cffair.causal.FlowConfig`
            keys; empty: the library's defaults).
        seed: seed of the flow's fit and of its counterfactual draws.
        what: one line for the book.
    """

    name: str
    input: str
    flow: Mapping[str, Any]
    seed: int
    what: str


#: The three rulers of appendix C. ``paper``: the twins every method trains on (the paper's
#: treatment, seed 0). ``default``: the library's default flow (Gumbel-max for nominal nodes, a
#: threshold model for binary and ordinal ones), seed 0. ``independent``: the paper's treatment
#: again, but another fit: seed 1, two autoregressive transforms of hidden sizes (64, 64) instead
#: of one of (32, 32, 32), so that the only difference to ``paper`` is the fit itself.
RULERS: Mapping[str, Ruler] = MappingProxyType(
    {
        "paper": Ruler(
            "paper",
            "counterfactuals",
            MappingProxyType(dict(PAPER_TREATMENT)),
            0,
            "the paper's treatment: the very twins the methods train on",
        ),
        "default": Ruler(
            "default",
            "counterfactuals_default",
            MappingProxyType({}),
            0,
            "the library's default flow: Gumbel-max nominal nodes, threshold binary and ordinal nodes",
        ),
        "independent": Ruler(
            "independent",
            "counterfactuals_independent",
            MappingProxyType({**PAPER_TREATMENT, "transforms": 2, "hidden": (64, 64)}),
            1,
            "the paper's treatment from an independently fitted flow: seed 1, 2 transforms of (64, 64)",
        ),
    }
)


def ruler_inputs(dataset: str) -> tuple[str, ...]:
    """The input names of the extra rulers a record of ``dataset`` is scored on: those of
    :data:`RULERS` other than the twins it trains on, for the paper's datasets; none for a
    registered dataset (its own twins are already the library default)."""
    if D.registration(dataset) is not None:
        return ()
    return tuple(r.input for r in RULERS.values() if r.input != "counterfactuals")


def ruler_config(name: str, profile_name: str) -> dict[str, Any]:
    """Flow settings of ruler ``name`` in a profile: the profile's epochs and the ruler's settings."""
    try:
        ruler = RULERS[name]
    except KeyError:
        raise KeyError(f"unknown ruler {name!r}; the rulers are {', '.join(RULERS)}.") from None
    flow = {k: list(v) if isinstance(v, tuple) else v for k, v in ruler.flow.items()}  # as JSON reads it back
    return {"epochs": profile(profile_name).flow_epochs, **flow}


def ruler_set(dataset: str, profile_name: str, name: str, progress: bool = False) -> CounterfactualSet:
    """The twins of ruler ``name`` of a paper dataset: the methods' own set for ``paper``, else the
    sensitive flip from the ruler's flow (cached like every generated set)."""
    from cffair.causal._flow import generate

    if name == "paper":
        return counterfactual_set(dataset, profile_name, progress)
    from cffair._support.devices import current_device

    config = ruler_config(name, profile_name)
    return generate(
        D.load(dataset),
        interventions="sensitive",
        config=config,
        seed=RULERS[name].seed,
        progress=progress,
        device=current_device(),
    )


def ruler_sets(dataset: str, profile_name: str, paper: CounterfactualSet | None = None) -> dict[str, CounterfactualSet]:
    """``{ruler: twins}`` of every ruler of a paper dataset (``paper`` first: the given set, else
    :func:`counterfactual_set`); empty for a registered dataset."""
    if not ruler_inputs(dataset):
        return {}
    return {
        name: paper if name == "paper" and paper is not None else ruler_set(dataset, profile_name, name)
        for name in RULERS
    }


def prepare_inputs(
    profile_name: str, datasets: Sequence[str], jobs: int = 1, *, device: str | None = None
) -> dict[str, dict[str, str]]:
    """Fit each dataset's flows and generate its twins and rulers once, before the grid runs;
    ``{dataset: {input name: content hash}}`` (``counterfactuals`` and the dataset's
    :func:`ruler_inputs`), the ``known_inputs`` of :func:`cffair.workflows.run_grid`. The flows
    train on ``device`` (:mod:`cffair._support.devices`; default :func:`~cffair._support.devices.current_device`);
    the twins do not depend on it beyond rounding."""
    from joblib import Parallel, delayed

    from cffair._support.devices import current_device, use_device
    from cffair.datasets._registry import restore, snapshot

    device = device or current_device()  # read here: the workers below start with the default

    registrations = snapshot()  # registered datasets, for workers started earlier
    by_input = {r.input: r.name for r in RULERS.values()}
    tasks = [(d, n) for d in datasets for n in ("counterfactuals", *ruler_inputs(d))]

    def one(name: str, input_name: str) -> tuple[str, str, str]:
        from cffair._support.utils import torch_cpu_setup

        restore(registrations)
        torch_cpu_setup()
        with use_device(device):
            if input_name == "counterfactuals":
                cfset = counterfactual_set(name, profile_name)
            else:
                cfset = ruler_set(name, profile_name, by_input[input_name])
        return name, input_name, content_hash(cfset)

    out: dict[str, dict[str, str]] = {d: {} for d in datasets}
    for d, n, h in Parallel(n_jobs=max(1, min(jobs, len(tasks))))(delayed(one)(d, n) for d, n in tasks):
        out[d][n] = h
    return out


def prepare_counterfactuals(profile_name: str, datasets: Sequence[str], jobs: int = 1) -> dict[str, str]:
    """:func:`prepare_inputs` (the twins and the rulers), returning only the twins' hashes:
    ``{dataset: content hash}``."""
    return {d: inputs["counterfactuals"] for d, inputs in prepare_inputs(profile_name, datasets, jobs).items()}
