"""Synthetic mixed-type data with a known causal graph for the baseline tests (a few hundred rows).

Graph: s -> hours, edu; age -> hours; hours -> flag. ``age`` is the only non-descendant of
``s``; ``edu`` (categorical), ``hours`` (continuous) and ``flag`` (binary) are descendants.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from cffair.datasets import DatasetSpec
from cffair.datasets._encoding import Encoder

GRAPH = {"name": "synthetic", "edges": {"s": ["hours", "edu"], "age": ["hours"], "hours": ["flag"]}}


def synth(n: int = 300, seed: int = 0, target_kind: str = "binary", sensitive_levels: int = 2):
    """A readable frame, its spec and an encoder fitted on it."""
    rng = np.random.default_rng(seed)
    s = rng.integers(0, sensitive_levels, n)
    age = rng.integers(20, 61, n)
    hours = 40 + 5 * s + 0.1 * (age - 40) + rng.normal(0, 3, n)
    edu_code = np.clip(np.round(s + rng.normal(0, 0.8, n)), 0, 2).astype(int)
    flag = (hours + rng.normal(0, 2, n) > 42).astype(int)
    s_labels = ["F", "M", "X"][:sensitive_levels]
    frame = pd.DataFrame(
        {
            "s": pd.Categorical.from_codes(s, s_labels),
            "age": age.astype("int64"),
            "edu": pd.Categorical.from_codes(edu_code, ["lo", "mid", "hi"]),
            "hours": hours,
            "flag": pd.Categorical.from_codes(flag, ["no", "yes"]),
        }
    )
    if target_kind == "binary":
        frame["y"] = ((hours - 42) / 3 + 0.5 * edu_code + rng.normal(0, 1, n) > 0).astype("int64")
    else:
        frame["y"] = 0.1 * (hours - 42) + 0.3 * edu_code + rng.normal(0, 0.3, n)
    spec = DatasetSpec(
        name="synthetic",
        target="y",
        target_kind=target_kind,  # type: ignore[arg-type]
        sensitive="s",
        features={
            "s": "binary" if sensitive_levels == 2 else "categorical",
            "age": "integer",
            "edu": "categorical",
            "hours": "continuous",
            "flag": "binary",
        },
        graph=GRAPH,
    )
    return frame, spec, Encoder(spec).fit(frame)
