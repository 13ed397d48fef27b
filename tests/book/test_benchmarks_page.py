"""The benchmarks page's sentence on a saved model and an audit picks its words from the numbers.

The cell of ``book/benchmarks.md`` that reads ``benchmarks/results/adoption.json`` is run here on
constructed results, one for each branch of its wording (within/over a target; the audit fit's
range inside, overlapping, below or above the library fit's), on results without the newer fields,
and without the file. The "Building the book" cell is run on the committed ``book_claims.json``.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest

PAGE = Path(__file__).resolve().parents[2] / "book" / "benchmarks.md"

RESULTS: dict[str, Any] = {
    "machine": {"cpus": 2},
    "predict": {"rows": 10000, "predict_s": 0.13, "load_s": 0.07, "file_mb": 0.3, "target_s": 2.0},
    "audit": {
        "rows": 45222,
        "pairs": 180888,
        "target_s": 60.0,
        "cold": {"seconds": 31.0, "load_before": 1.2},
        "warm": {"seconds": 8.0, "model": "logistic regression without sex"},
        "library_fit": {"seconds": 95.0},
    },
    "twin_quality": {
        "seeds": [0, 1],
        "synthetic": {"0": {"rows": 20000}},
        "summary": {
            "adult_cf_mse": {"audit": [0.090, 0.092], "default": [0.089, 0.093]},  # inside
            "adult_cf_flip_rate": {"audit": [0.190, 0.196], "default": [0.193, 0.199]},  # overlapping
            "adult_val_loss": {"audit": [16.70, 16.80], "default": [16.10, 16.50]},  # above
            "synthetic_cf_mse_ratio": {"audit": [0.98, 1.08], "default": [0.98, 1.08]},  # inside (equal)
            "synthetic_table_gap": {"audit": [0.020, 0.030], "default": [0.031, 0.040]},  # below
        },
    },
}


def _cell() -> str:
    import jupytext

    cells = [
        c.source
        for c in jupytext.read(PAGE).cells
        if c.cell_type == "code" and 'benchmarks.get("adoption")' in c.source
    ]
    assert len(cells) == 1
    return cells[0]


def _render(benchmarks: dict[str, Any]) -> str:
    namespace: dict[str, Any] = {"benchmarks": benchmarks}
    exec(compile(_cell(), str(PAGE), "exec"), namespace)
    return namespace["shown"].data


def test_every_word_follows_the_numbers() -> None:
    text = _render({"adoption": RESULTS})
    assert "took 0.13 s after loading" in text and "within the target of 2 s" in text
    assert "took 31 s including the flow and the twins: within the target of 60 s" in text
    assert "load 1.2 on 2 cores" in text and "(the logistic regression without sex) took 8 s" in text
    assert "library's flow fit the first audit took 95 s" in text
    assert "0.0900–0.0920 (inside the library fit's 0.0890–0.0930)" in text
    assert "0.1900–0.1960 (overlapping 0.1930–0.1990)" in text
    assert "16.70–16.80 (above 16.10–16.50)" in text
    assert "0.98–1.08 with the audit fit (inside the library fit's 0.98–1.08)" in text
    assert "0.0200–0.0300 (below 0.0310–0.0400)" in text
    assert "20,000 rows" in text


@pytest.mark.parametrize("field", ["predict", "audit"])
def test_a_missed_target_says_over(field: str) -> None:
    slow = copy.deepcopy(RESULTS)
    if field == "predict":
        slow["predict"]["predict_s"] = 2.5
        assert "over the target of 2 s" in _render({"adoption": slow})
    else:
        slow["audit"]["cold"]["seconds"] = 271.0
        assert "took 271 s including the flow and the twins: over the target of 60 s" in _render({"adoption": slow})


def test_older_results_and_no_results_still_render() -> None:
    old = {"predict": RESULTS["predict"], "audit": {"rows": 45222, "pairs": 180888, "seconds": 271.0, "target_s": 60.0}}
    text = _render({"adoption": old})
    assert "took 271 s including the flow and the twins: over the target of 60 s." in text
    assert "second model" not in text and "seeds" not in text
    assert "has not been run on this checkout" in _render({})


def test_the_book_build_section_words_the_committed_result_and_a_difference() -> None:
    """The "Building the book" cell on bench_book_claims.py's committed result; a table that
    differs between the code before and after is said so, not hidden."""
    import jupytext

    import cffair_book as book

    benchmarks = book.load_benchmarks(PAGE.parents[1] / "benchmarks" / "results")
    (cell,) = [c.source for c in jupytext.read(PAGE).cells if c.cell_type == "code" and "claims_speed_line" in c.source]
    from IPython.display import Markdown

    namespace = {"book": book, "benchmarks": benchmarks, "Markdown": Markdown}
    text = eval(compile(cell, str(PAGE), "eval"), namespace).data  # the cell is one expression: what it shows
    result = benchmarks["book_claims"]
    before, after = result["variants"]["before"], result["variants"]["after"]
    assert f"{before['cpu']['median']:.1f} s of CPU" in text and f"{after['cpu']['median']:.1f} s of CPU" in text
    assert f"{before['cpu']['median'] / after['cpu']['median']:.1f}× less" in text
    assert "Both give the same table." in text and result["same_output"] is True
    differs = copy.deepcopy(result)
    differs["same_output"] = False
    assert "**The two tables differ.**" in book.claims_speed_line(differs)
