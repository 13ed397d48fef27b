"""``cffair_book.basis``: what a chapter's tables and verdict average, and the note where they differ
(issue 45, item 1). The note it writes passes the page check ``basis_mismatch``; a page without it fails."""

from __future__ import annotations

from typing import Any

import book_checks as bc
import pytest

from cffair_book import basis, claims_table
from cffair_book.registry import Claim


def _records(repeats: dict[str, int]) -> list[dict[str, Any]]:
    """LTN(acc) and LTN(acc+CF) on 5 folds per repetition; CF-MSE 0.1 + fold/100 + repeat/10 (acc) and a tenth of it."""
    out = []
    for ds, reps in repeats.items():
        for r in range(reps):
            for f in range(5):
                for setting, scale in (("ltn_acc", 1.0), ("ltn_acc_cf", 0.1)):
                    cfg = {"dataset": ds, "fold": f, "setting": setting, **({"repeat": r} if r else {})}
                    out.append(
                        {"config": cfg, "metrics": {"accuracy": 0.7, "cf_mse": scale * (0.1 + f / 100 + r / 10)}}
                    )
    return out


def test_fold_counts_and_words_follow_the_records() -> None:
    recs = _records({"adult": 1, "compas": 3})
    assert basis.fold_counts(recs) == {"adult": (5, 1), "compas": (15, 3)}
    assert basis.fold_counts(recs, every_repetition=False) == {"adult": (5, 1), "compas": (5, 1)}
    assert basis.table_caption(recs) == "mean ± sd over the paper's partition: 5 folds on every dataset"
    assert "5 folds on Adult; 15 (3 × 5) on COMPAS" in basis.verdict_caption(recs, "Q1")
    assert len(basis.paper_partition(recs)) == 20


def test_the_note_names_the_datasets_read_on_more_folds_with_a_mean_both_ways() -> None:
    recs = _records({"adult": 1, "compas": 3})
    note = str(basis.basis_note(recs))
    assert basis.NOTE_CLASS in note and "COMPAS" in note and "15 folds (3 × 5) on COMPAS" in note
    # LTN(acc) on COMPAS: 0.12 over the first partition, 0.22 over all three (repeats add 0, 0.1, 0.2)
    assert "the CF-MSE of LTN(acc) on COMPAS is 0.120 in the tables and 0.220 in the verdict" in note
    assert "on Adult both read the same folds" in note
    # what the note says is visible; the mean both ways is folded beneath it
    visible, folded = note.split("<details>")
    assert "15 folds (3 × 5) on COMPAS" in visible and "0.220 in the verdict" in folded
    same = str(basis.basis_note(_records({"adult": 1})))
    assert basis.NOTE_CLASS not in same and "same folds: 5 folds on Adult" in same


@pytest.mark.parametrize("with_note", [True, False])
def test_a_page_with_the_note_passes_the_basis_check_and_one_without_fails(with_note: bool) -> None:
    recs = _records({"compas": 3})
    table = (
        f"<table><caption>Table 1 ({basis.table_caption(recs)}) — COMPAS</caption>"
        "<tr><td>0.120 ± 0.016</td><td>0.012 ± 0.002</td></tr></table>"
    )
    claim = Claim("A4 lowers CF-MSE.", key="Q1.1", verdict="holds", note="COMPAS 0.220 → 0.022 (p 0.001)")
    html = (
        "<article class='bd-article'>"
        + table
        + (str(basis.basis_note(recs)) if with_note else "")
        + claims_table([claim], caption=basis.verdict_caption(recs, "Q1")).html
        + "</article>"
    )
    assert (bc.basis_mismatch(html) == []) is with_note


def test_the_front_pages_box_says_what_its_verdicts_read() -> None:
    from cffair_book import pages

    claim = Claim("A4 lowers CF-MSE.", key="Q1.1", verdict="holds", note="COMPAS 0.220 → 0.022")
    phrase = basis.folds_phrase(basis.fold_counts(_records({"adult": 1, "compas": 3})))
    box = str(pages.results_box([claim], claims_page="c.html", basis=phrase))
    assert "Checked on every paired fold the records hold (5 folds on Adult; 15 (3 × 5) on COMPAS)" in box
    assert "Checked on" not in str(pages.results_box([claim], claims_page="c.html"))
