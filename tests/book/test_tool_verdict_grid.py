"""``tools/verdict_grid.py``: the claim × score × twins table of a closing note."""

from __future__ import annotations

import doctest
import importlib.util
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("verdict_grid", ROOT / "tools" / "verdict_grid.py")
assert _spec is not None and _spec.loader is not None
grid_tool = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(grid_tool)


def test_its_examples_hold() -> None:
    assert doctest.testmod(grid_tool).failed == 0


def test_p_values_are_the_comparisons_not_their_companions() -> None:
    note = "Adult 0.045 → 0.292 (p 0.137, sign-flip over 3 partitions 0.250, detects |Δ| ≥ 0.027 at 80 % power); COMPAS (p —)"
    assert grid_tool.p_values(note) == ["0.137", "—"]


def test_the_table_has_a_row_per_claim_and_a_column_per_twins_and_score_in_order() -> None:
    rows = [
        {"claim": k, "twins": t, "score": s, "verdict": v, "p": p, "note": ""}
        for k, t, s, v, p in (
            ("Q2.1", "sound", "flip rate", "does not hold", ["< 0.001"]),
            ("Q2.1", "paper", "CF-MSE", "holds", ["0.010", "0.020"]),
            ("Q1.1", "paper", "CF-MSE", "inconclusive", []),
        )
    ]
    lines = grid_tool.markdown(pd.DataFrame(rows)).splitlines()
    assert lines[0] == "| claim | paper twins, CF-MSE | sound twins, flip rate |"
    assert lines[2] == "| Q2.1 | ✔ 0.010, 0.020 | ✘ < 0.001 |"  # the claims in the grid's order
    assert lines[3] == "| Q1.1 | ≈ |  |"  # a world without the claim: an empty cell
