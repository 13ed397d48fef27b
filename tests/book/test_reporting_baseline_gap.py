"""Appendix C's baseline gap section (cffair_book.baseline_gap): a missing study reads as "not run",
the table has one row per baseline and step, the finding names the factor that closes the
largest share of the log gap from the numbers, a step whose models collapsed counts no share and
is named, and a study run before the screen says so."""

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

WORKING = {"accuracy": 0.7, "prediction_sd": 0.2, "positive_rate": 0.4, "majority_rate": 0.55}
ALL_POSITIVE = {"accuracy": 0.45, "prediction_sd": 0.01, "positive_rate": 1.0, "majority_rate": 0.55}


def _rows(values: list[tuple[str, str, float]], screens: dict[str, dict | None] | None = None) -> list[dict]:
    """Two folds per step; each row screened as a working model unless ``screens`` says otherwise
    (``None``: a row written before the screen)."""
    screens = screens or {}
    rows = [
        {"step": s, "index": i, "factor": f, "ruler": "paper", "fold": k, "cf_mse": v * (1 + 0.01 * k), "accuracy": 0.7,
         "cpu_s": 2.0, "screen": screens.get(s, WORKING)}
        for i, (s, f, v) in enumerate(values)
        for k in (0, 1)
    ]  # fmt: skip
    for r in rows:
        if r["screen"] is None:
            del r["screen"]
    return rows


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


def test_a_step_whose_models_collapse_counts_no_share_and_is_named() -> None:
    values = [("start", "start", 0.01), ("rel", "release", 10**-1.9), ("long", "training length", 10**-1.5)]
    data = {"studies": {"compas/gan": {"dataset": "compas", "baseline": "gan", "paper_cf_mse": 0.1,
                                       "rows": _rows(values, {"rel": ALL_POSITIVE})}}}  # fmt: skip
    frame = baseline_gap_frame(data)
    assert frame["baseline"].tolist() == ["gan"] * 3  # the key "<dataset>/<baseline>" names the baseline
    assert frame["collapsed"].tolist()[1].startswith("on fold 0 it gives 100.0% of the rows one decision")
    # the last step's share is measured from the start, the last step that did not collapse
    assert frame["share_closed"].tolist()[2] == pytest.approx(0.5, abs=0.005)
    shown = baseline_gap_table(frame)._repr_html_()
    assert "collapsed" in shown and "+50%" in shown
    text = baseline_gap_finding(frame)
    assert "the largest share, 50%, is closed by the training length (long)" in text
    assert "Its models collapsed at rel (on fold 0 it gives 100.0% of the rows one decision (positive))" in text
    assert "predate" not in text


def test_a_study_run_before_the_screen_says_its_models_were_not_checked() -> None:
    values = [("start", "start", 0.01), ("rel", "release", 10**-1.7)]
    data = {"studies": {"gan": {"dataset": "compas", "paper_cf_mse": 0.1,
                                "rows": _rows(values, {"start": None, "rel": None})}}}  # fmt: skip
    frame = baseline_gap_frame(data)
    assert not frame["screened"].any() and (frame["collapsed"] == "").all()
    assert baseline_gap_finding(frame).endswith(
        "their models were not checked for collapse (a rerun of the study screens every step)."
    )


def test_a_study_without_the_papers_value_reads_it_from_table_1() -> None:
    values = [("start", "start", 0.01), ("lr", "learning rate", 0.02)]
    data = {"studies": {"compas/cnf": {"dataset": "compas", "baseline": "cnf", "rows": _rows(values)},
                        "compas/ltn": {"dataset": "compas", "baseline": "ltn", "rows": _rows(values)}}}  # fmt: skip
    frame = baseline_gap_frame(data)
    assert set(frame["baseline"]) == {"cnf"}  # the paper publishes no CF-MSE for "ltn": no gap to measure
    assert frame["paper"].tolist() == pytest.approx([0.072, 0.072])  # Table 1, COMPAS, CNF


def test_a_study_screened_in_part_names_the_runs_that_predate_the_screen() -> None:
    values = [("start", "start", 0.01), ("rel", "release", 10**-1.7)]
    data = {"studies": {"compas/gan": {"dataset": "compas", "baseline": "gan", "paper_cf_mse": 0.1,
                                       "rows": _rows(values)},
                        "compas/cnf": {"dataset": "compas", "baseline": "cnf", "paper_cf_mse": 0.1,
                                       "rows": _rows(values, {"start": None, "rel": None})}}}  # fmt: skip
    assert baseline_gap_finding(baseline_gap_frame(data)).endswith(
        "The runs of CNF (COMPAS) predate the degenerate-model screen: their models were not checked for collapse "
        "(a rerun of the study screens every step)."
    )
