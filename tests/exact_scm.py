"""A tiny structural causal model with exact counterfactuals, for the recourse and intersection tests.

Graph: ``s`` (sensitive, binary), ``m`` (immutable, three levels) and ``train`` (actionable,
binary) are roots; ``skill = 3·[train = yes] + 1·[s = b] + 0.5·code(m) + u`` with ``u ~ N(0, 0.5²)``.
Its :meth:`ExactSCM.counterfactual` keeps each row's ``u`` (abducted exactly from the row) and
recomputes ``skill`` after an intervention on a parent: Pearl's three steps, with no error. It
has the interface of :class:`cffair.causal._cnf.CausalFlow` that cffair.evaluation._recourse and
cffair.logic._intersectional use (``counterfactual`` and ``graph``).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from cffair.datasets import DatasetSpec
from cffair.datasets._graph import CausalGraph

LEVELS = {"s": ["a", "b"], "m": ["p", "q", "r"], "train": ["no", "yes"]}
EDGES = {"s": ["skill"], "m": ["skill"], "train": ["skill"]}


def skill_mean(s: np.ndarray, m: np.ndarray, train: np.ndarray) -> np.ndarray:
    """The structural equation's mean part, from the readable labels."""
    code_m = np.array([LEVELS["m"].index(v) for v in np.asarray(m, dtype=str)])
    return 3.0 * (np.asarray(train, dtype=str) == "yes") + 1.0 * (np.asarray(s, dtype=str) == "b") + 0.5 * code_m


class ExactSCM:
    """The model, its graph and spec, and exact counterfactuals."""

    def __init__(self) -> None:
        self.graph = CausalGraph.from_edges(
            [(a, b) for a, cs in EDGES.items() for b in cs], nodes=["s", "m", "train", "skill"], name="exact"
        )
        self.spec = DatasetSpec(
            name="exact",
            target="y",
            target_kind="binary",
            sensitive="s",
            features={"s": "binary", "m": "categorical", "train": "binary", "skill": "continuous"},
            immutable=("m",),
            favourable=1,
            graph={"name": "exact", "edges": EDGES},
        )

    def sample(self, n: int, seed: int = 0) -> pd.DataFrame:
        rng = np.random.default_rng(seed)
        cols = {k: pd.Categorical(rng.choice(v, n), categories=v) for k, v in LEVELS.items()}
        skill = skill_mean(cols["s"], cols["m"], cols["train"]) + rng.normal(0, 0.5, n)
        frame = pd.DataFrame({"s": cols["s"], "m": cols["m"], "train": cols["train"], "skill": skill})
        frame["y"] = (skill > 2.0).astype(int)
        return frame

    def counterfactual(
        self, frame: pd.DataFrame, feature: str, value: Any, samples: int | None = None, seed: int = 0
    ) -> tuple[pd.DataFrame, np.ndarray, np.ndarray]:
        rows = frame.reset_index(drop=True)
        u = rows["skill"].to_numpy(dtype=float) - skill_mean(rows["s"], rows["m"], rows["train"])
        out = rows[["s", "m", "train", "skill"]].copy()
        if feature == "skill":
            out["skill"] = float(value)
        else:
            out[feature] = pd.Categorical([value] * len(out), categories=LEVELS[feature])
            out["skill"] = skill_mean(out["s"], out["m"], out["train"]) + u
        n = len(out)
        return out, np.arange(n), np.zeros(n, dtype=int)
