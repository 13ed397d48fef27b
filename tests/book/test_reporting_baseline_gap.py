"""Appendix C's baseline gap section (cffair_book.baseline_gap): a missing study reads as "not run",
the table has one row per baseline and step, and the finding names the factor that closes the
largest share of the log gap from the numbers."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cffair_book.baseline_gap import (
    baseline_gap_finding,
    baseline_gap_frame,
    baseline_gap_table,
    load_baseline_gap,
)


def _rows(values: list[tuple[str, str, float]]) -> list[dict]:
    return [
        {"step": s, "index": i, "factor": f, "ruler": "paper", "fold": k, "cf_mse": v * (1 + 0.01 * k), "accuracy": 0.7,
         "cpu_s": 2.0}
        for i, (s, f, v) in enumerate(values)
        for k in (0, 1)
    ]  # fmt: skip


def _study(tmp_path: Path) -> Path:
    """GAN: ours 0.01 → paper 0.1, the release closing 30 % (10^-1.7); CNF: 0.01 → 0.1 with the
    learning rate closing 50 % (10^-1.5)."""
    data = {
        "studies": {
            "gan": {"dataset": "compas", "paper_cf_mse": 0.1,
                    "rows": _rows([("start", "start", 0.01), ("rel", "release", 10**-1.7)])},
            "cnf": {"dataset": "compas", "paper_cf_mse": 0.1,
                    "rows": _rows([("start", "start", 0.01), ("lr", "learning rate", 10**-1.5)])},
        }
    }  # fmt: skip
    path = tmp_path / "baseline_gap.json"
    path.write_text(json.dumps(data))
    return path


def test_a_missing_study_reads_as_not_run(tmp_path: Path) -> None:
    data = load_baseline_gap(tmp_path / "nothing.json")
    assert data is None
    frame = baseline_gap_frame(data)
    assert frame.empty and baseline_gap_table(frame) is None and baseline_gap_finding(frame) == ""


def test_the_frame_and_table_have_one_row_per_baseline_and_step(tmp_path: Path) -> None:
    frame = baseline_gap_frame(load_baseline_gap(_study(tmp_path)))
    assert list(zip(frame["baseline"], frame["step"])) == [
        ("gan", "start"),
        ("gan", "rel"),
        ("cnf", "start"),
        ("cnf", "lr"),
    ]
    assert frame["share_closed"].tolist() == pytest.approx([0.0, 0.3, 0.0, 0.5], abs=0.005)  # folds 1 % apart
    table = baseline_gap_table(frame, "caption")
    assert table is not None
    shown = table._repr_html_()
    assert "+50%" in shown and "+30%" in shown and "GAN (COMPAS)" in shown


def test_the_finding_names_the_factor_closing_the_largest_share(tmp_path: Path) -> None:
    text = baseline_gap_finding(baseline_gap_frame(load_baseline_gap(_study(tmp_path))))
    assert "the largest share, 30%, is closed by the release's behaviour (rel)" in text
    assert "leaving 50% open" in text  # CNF
    assert text.endswith("the paper's learning rate closes the largest share (50%, for the CNF).")


def test_when_every_step_widens_the_gap_no_factor_is_named(tmp_path: Path) -> None:
    data = {
        "studies": {
            b: {"dataset": "compas", "paper_cf_mse": 0.1,
                "rows": _rows([("start", "start", 0.01), ("away", "ruler", 0.005)])}
            for b in ("gan", "cnf")
        }
    }  # fmt: skip
    text = baseline_gap_finding(baseline_gap_frame(data))
    assert "the steps close none of the log gap (it widens it); no step closes any of it." in text
    assert text.endswith("No factor the study can set closes any of the gap.")
