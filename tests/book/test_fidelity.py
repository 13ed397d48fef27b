"""How close ours is to the paper, in words (cffair_book.fidelity.paper_agreement): one sentence per
branch (none differs, one differs, several differ, nothing can be judged), its counts and order
read from a compare() frame built from hand-made means with known Welch answers."""

from __future__ import annotations

import pandas as pd
import pytest

from cffair import reporting
from cffair_book.fidelity import paper_agreement

CELL = {"table": "table1", "metric": "cf_mse", "n": 5}


def _compare(rows: list[tuple[str, str, float, float, float, float]]) -> pd.DataFrame:
    """``(dataset, method, ours mean, ours sd, paper mean, paper sd)`` → a compare() frame over 5 folds each."""
    ours = pd.DataFrame([{**CELL, "dataset": d, "method": m, "mean": om, "sd": osd} for d, m, om, osd, _, _ in rows])
    paper = pd.DataFrame([{**CELL, "dataset": d, "method": m, "mean": pm, "sd": psd} for d, m, _, _, pm, psd in rows])
    return reporting.compare(ours, paper=paper)


def test_no_cell_beyond_chance_is_said_so():
    comp = _compare([("adult", "cnf", 0.10, 0.02, 0.11, 0.02), ("compas", "cnf", 0.05, 0.01, 0.05, 0.01)])
    assert not comp["beyond"].any()
    assert paper_agreement(comp, "Table 1") == (
        "None of the 2 cells of Table 1 that can be judged differs from the paper's beyond chance "
        "(Welch's t on the two means, p < 0.05)."
    )


def test_the_cells_beyond_chance_are_counted_and_the_farthest_named_first():
    comp = _compare(
        [
            ("adult", "cnf", 0.10, 0.01, 0.20, 0.01),  # t ≈ 15.8
            ("compas", "gan", 0.01, 0.001, 0.10, 0.05),  # t ≈ 4.0
            ("lawschool", "dcevae", 0.05, 0.01, 0.051, 0.01),  # agrees
        ]
    )
    assert comp["beyond"].tolist() == [True, True, False]
    text = paper_agreement(comp, "Table 1", top=2)
    assert text.startswith("2 of the 3 cells of Table 1 that can be judged differ from the paper's beyond chance")
    assert "at that level chance alone flags about 1 in 20 cells that agree" in text
    first, second = (
        text.index("CNF's CF-MSE on Adult (Δ −0.100, 15.8 standard errors)"),
        text.index("GAN's CF-MSE on COMPAS"),
    )
    assert first < second and "Lawschool" not in text


def test_without_any_sd_nothing_can_be_judged():
    comp = _compare([("adult", "cnf", 0.10, float("nan"), 0.20, 0.01)])
    assert paper_agreement(comp, "Table 1").startswith("No cell of Table 1 can be judged against the paper")


@pytest.mark.parametrize("top", [1, 3])
def test_top_limits_the_cells_named(top):
    rows = [(d, "cnf", 0.10, 0.001, 0.20 + 0.1 * i, 0.001) for i, d in enumerate(["adult", "compas", "lawschool"])]
    text = paper_agreement(_compare(rows), "Table 1", top=top)
    assert text.count("standard errors") == top
