"""Causal graphs, counterfactual generators and counterfactual sets (paper sections 2.2, 6.2).

``CausalFlow``, ``fit_flow``, ``generate`` and ``generate_from`` are imported lazily (they need
torch and zuko); ``CounterfactualSet``, ``CFPairs``, ``FlowConfig`` and ``PAPER_TREATMENT`` are
light. ``simulate_scm`` lives in :mod:`cffair.causal._synthetic` (kept here by name).
"""

from __future__ import annotations

from typing import Any

from cffair.causal._cfset import CFPairs, CounterfactualSet
from cffair.causal._config import PAPER_TREATMENT, FlowConfig
from cffair.causal._interventions import Intervention
from cffair.datasets._graph import CausalGraph, load_graph

__all__ = [
    "PAPER_TREATMENT",
    "CFPairs",
    "CausalFlow",
    "CausalGraph",
    "CounterfactualSet",
    "FlowConfig",
    "Intervention",
    "fit_flow",
    "generate",
    "generate_from",
    "load_graph",
    "simulate_scm",
]

_LAZY = {
    "CausalFlow": "cffair.causal._flow",
    "fit_flow": "cffair.causal._flow",
    "generate": "cffair.causal._flow",
    "generate_from": "cffair.causal._flow",
    "simulate_scm": "cffair.causal._synthetic",
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        from importlib import import_module

        return getattr(import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'cffair.causal' has no attribute {name!r}")
