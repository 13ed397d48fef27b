"""Causal graphs, counterfactual generators and counterfactual sets (paper sections 2.2, 6.2).

``CausalFlow``, ``FlowConfig``, ``fit_flow`` and ``generate`` are imported lazily (they need
torch and zuko); ``CounterfactualSet`` and ``CFPairs`` are light.
"""

from __future__ import annotations

from typing import Any

from cffair.causal.cfset import CFPairs, CounterfactualSet
from cffair.causal.graph import CausalGraph, load_graph
from cffair.causal.interventions import Intervention

_LAZY = {"CausalFlow", "FlowConfig", "fit_flow", "generate", "simulate_scm"}

__all__ = ["CFPairs", "CausalFlow", "CausalGraph", "CounterfactualSet", "FlowConfig", "Intervention", "fit_flow", "generate", "load_graph", "simulate_scm"]


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        from cffair.causal import flow

        return getattr(flow, name)
    raise AttributeError(f"module 'cffair.causal' has no attribute {name!r}")
