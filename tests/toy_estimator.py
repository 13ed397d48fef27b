"""The toy data of the estimator tests: a small structural model with a known causal graph.

S ∈ {f, m}; a = 1.5·[S = f] + noise (a descendant of S); b = noise (not caused by S);
y = [a + b + noise > 0.7] with labels "no"/"yes". ``FAST`` is a short schedule for tests.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

SPEC = {
    "name": "toy",
    "target": "y",
    "target_kind": "binary",
    "sensitive": "s",
    "features": {"s": "binary", "a": "continuous", "b": "continuous"},
    "graph": {"name": "toy", "edges": {"s": ["a"]}, "nodes": ["b"]},
}
FAST = {"pretrain_epochs": 60, "fair_epochs": 30, "flow_config": {"epochs": 15}}


def toy(n: int = 240, seed: int = 0) -> tuple[pd.DataFrame, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    s = rng.integers(0, 2, n)
    a = 1.5 * s + rng.normal(size=n)
    b = rng.normal(size=n)
    score = a + b + rng.normal(scale=0.5, size=n)
    X = pd.DataFrame({"s": np.where(s == 1, "f", "m"), "a": a, "b": b})
    return X, np.where(score > 0.7, "yes", "no"), score


def identity_twins(rows: pd.DataFrame) -> pd.DataFrame:
    return rows.copy()


def flip_s(rows: pd.DataFrame) -> pd.DataFrame:
    out = rows.copy()
    out["s"] = np.where(out["s"].astype(str) == "f", "m", "f")
    return out
