"""Causal graphs, counterfactual generators and counterfactual sets (paper sections 2.2, 6.2)."""

from __future__ import annotations

from cffair.causal.graph import CausalGraph, load_graph

__all__ = ["CausalGraph", "load_graph"]
