"""The explanation stage: each dataset's counterfactuals for *every* attribute, not only the immutable ones.

The paper generated counterfactuals "with respect to all the attributes, rather than just for
the sensitive one" (§6.2) and reports, for COMPAS, imbalances of explanations on priors count
(Figure 4), which is not immutable. The protocol's twins (:mod:`.counterfactuals`) intervene on
the sensitive attribute and the immutable features only, which is all the axioms need; this
second, separate stage adds interventions on every feature, from the same fitted flow, for the
investigation of Q3 (explanations on every attribute; A5 axioms still only on immutable ones).

It is an input of its own (``counterfactuals_all``, ``cffair.experiments._pipeline.keys.OPTIONAL_PRODUCERS``)
of the records that use it (option ``explain="all"``), so the protocol's records and their
inputs do not change.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from cffair import datasets as D
from cffair.experiments._pipeline.counterfactuals import flow_config

if TYPE_CHECKING:
    from cffair.causal._cfset import CounterfactualSet

__all__ = ["explanation_set"]


def explanation_set(dataset: str, profile_name: str, progress: bool = False) -> CounterfactualSet:
    """The CNF counterfactuals of a dataset for interventions on every feature (cached on disk).

    The flow is the protocol's (same data, configuration and seed, so :func:`cffair.causal.generate`
    reuses the fitted flow from its cache); only the interventions differ.
    """
    from cffair.causal._flow import generate

    return generate(
        D.load(dataset), interventions="all", config=flow_config(profile_name, dataset), seed=0, progress=progress
    )
