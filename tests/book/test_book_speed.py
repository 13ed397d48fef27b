"""The Benchmarks page's critical-path section (cffair_book.speed) words and tabulates ltn_heap.json's numbers."""

from __future__ import annotations

from typing import Any

import pytest

from cffair_book import speed


def _entry(cpu: float, wall: float) -> dict[str, Any]:
    return {
        "cpu_s": {"median": cpu, "min": cpu * 0.9, "max": cpu * 1.1},
        "wall_s": {"median": wall, "min": wall, "max": wall},
    }


def _result(after_cke_s: float) -> dict[str, Any]:
    stage = {
        "unique_rows": 1000,
        "default": {**_entry(0.6, 2.0), "ratio_cpu": 1.0, "ratio_wall": 1.0},
        "retained_heap": {**_entry(0.4, 1.0), "ratio_cpu": 1.5, "ratio_wall": 2.0},
        "merged_elements": {**_entry(0.5, 1.5), "ratio_cpu": 1.2, "ratio_wall": 1.33},
    }
    path = ["full/adult/pretrain/fold0", "full/adult/ltn_acc_cf_sg/fold0", "full/adult/ltn_acc_cf_sg_cke/fold0"]
    return {
        "rounds": 3,
        "epochs_per_round": 3,
        "cpus": 2,
        "load_before": [2.0, 1.0, 1.0],
        "load_after": [3.0, 1.0, 1.0],
        "stages": {"fair": stage, "cke4": stage},
        "stage_ratios_cpu": {"pretrain": 1.0, "fair": 1.25, "cke": 1.5},
        "projection": {
            "before": {
                "makespan_seconds": {"64": 690.0, "2": 1200.0},
                "critical_path": {"seconds": 690.0, "tasks": path},
            },
            "after": {
                "makespan_seconds": {"2": 1000.0, "64": 60 + 35 + after_cke_s},
                "critical_path": {"seconds": 60 + 35 + after_cke_s, "task": "full/adult/cnf/fold1"},
            },
            "critical_path_tasks": dict(  # sorted keys, as the JSON file holds them
                sorted(
                    zip(
                        path,
                        [
                            {"before": 60, "after": 60},
                            {"before": 44, "after": 35},
                            {"before": 583, "after": after_cke_s},
                        ],
                    )
                )
            ),
        },
    }


def test_the_frames_hold_the_measured_spread_and_the_ratios_of_the_medians() -> None:
    res = _result(388.7)
    epochs = speed.ltn_epoch_frame(res)
    assert epochs.loc["CKE step 4 (+ A5)", "default CPU s"] == "0.600 (0.540–0.660)"
    assert epochs.loc["acc+CF_sg (A1, A2, A4_i)", "ratio (CPU)"] == 1.5
    proj = speed.projection_frame(res)
    assert proj.loc["2", "ratio"] == pytest.approx(1.2) and list(proj.index) == ["2", "64", "critical path"]
    assert proj.loc["critical path", "before (min)"] == pytest.approx(11.5)


@pytest.mark.parametrize(("after_cke_s", "word"), [(388.7, "within"), (600.0, "over")])
def test_the_summary_says_within_or_over_from_the_projected_path(after_cke_s: float, word: str) -> None:
    text = speed.critical_path_summary(_result(after_cke_s))
    assert f"{word} the target of 10 minutes" in text
    assert (
        "load at 2.0 before and 3.0 after" in text
        and "pretrain 60 s → 60 s, then ltn_acc_cf_sg 44 s → 35 s, then ltn_acc_cf_sg_cke 583 s" in text
    )
    assert text.endswith("the longest chain after is full/adult/cnf/fold1.")


def test_without_the_benchmark_the_page_says_so() -> None:
    assert "has not been run" in speed.critical_path_summary(None)


def test_the_gan_adversary_table_shows_each_comparison_of_the_committed_benchmark() -> None:
    """Every comparison the committed gan_adversary.json holds is a row, with the file's own ratios and the
    medians in milliseconds; a comparison the file lacks is left out, not shown as zero."""
    import json

    from cffair._support.utils import project_root

    result = json.loads((project_root() / "benchmarks" / "results" / "gan_adversary.json").read_text())
    frame = speed.gan_adversary_frame(result)
    assert len(frame) == len(speed._GAN_ROWS)
    row = frame.loc["update, 512 rows (COMPAS)"]
    assert row["ratio (CPU)"] == result["update"]["speedup_written"]["cpu_s"]
    median_ms = 1000 * result["update"]["seconds_per_update"]["written"]["cpu_s"]["median"]
    assert row["after: CPU ms"].startswith(f"{median_ms:.3f} (")
    del result["stage1"]
    assert not any(label.startswith("stage 1") for label in speed.gan_adversary_frame(result).index)
    assert speed.gan_adversary_frame({}).empty


def test_the_benchmarks_page_shows_every_column_of_the_gan_adversary_table() -> None:
    """`reporting.tidy_table` shows only the columns its format names: the page must name each column the frame
    has (the first version named the ratios alone, and the page lost the before and after milliseconds)."""
    import ast
    import json
    import re

    from cffair._support.utils import project_root

    page = (project_root() / "book" / "benchmarks.md").read_text(encoding="utf-8")
    call = re.search(r"book\.gan_adversary_frame\(adversary\),\s*(\{.*?\}),\s*f?\"", page, re.S)
    assert call, "the Benchmarks page no longer tabulates gan_adversary_frame"
    named = set(ast.literal_eval(call.group(1)))
    result = json.loads((project_root() / "benchmarks" / "results" / "gan_adversary.json").read_text())
    assert set(speed.gan_adversary_frame(result).columns) <= named
