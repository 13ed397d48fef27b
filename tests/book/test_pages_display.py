"""The display helpers of cffair_book.pages that the front page, the claims page, Reproducing and the
chapters' boxes use: their words are chosen by the data they are given."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest

from cffair.errors import DataError
from cffair_book import pages


def _files(tmp_path, groups, full_groups):
    regen = tmp_path / "regenerate.json"
    regen.write_text(json.dumps({"commit": "abcdef1234567", "finished": "2026-12-01T06:00:00Z", "groups": groups}))
    full = tmp_path / "full_run.json"
    full.write_text(
        json.dumps(
            {
                "commit": "a89c534b05",
                "finished": "2026-12-01T21:35:07Z",
                "machine": {"cpus": 2},
                "group_seconds": full_groups,
            }
        )
    )
    return regen, full


MEASURED = {
    "q1": {
        "quick": {"wall_seconds": 300.0, "cpu_seconds": 120.0, "load_average": [1.0, 9.6]},
        "full": {"estimate_seconds": 660.0, "records": 60},
    }
}


def test_timing_text_words_follow_what_was_measured(tmp_path):
    regen, full = _files(tmp_path, MEASURED, {"q2": 7174.1})
    q1 = pages.timing_text("q1", regen, full)
    assert q1["quick"] == "5 min" and q1["full"] == "about 11 min"
    assert (
        q1["time_to_run"]
        == "Recomputing this chapter takes 2 min of CPU time in quick mode, about 11 min in full mode on 2 cores."
    )
    q2 = pages.timing_text("q2", regen, full)  # only the committed full run's core-seconds
    assert q2["quick"] == "no measurement yet" and q2["full"] == "about 60 min"
    assert "7,174 core-seconds" in q2["timing"] and "has not been timed yet" in q2["time_to_run"]
    q3 = pages.timing_text("q3", regen, full)  # nothing at all
    assert q3["time_to_run"].startswith("The time to recompute this chapter has not been measured yet")
    for facts in (q1, q2, q3):
        assert all("not measured yet" not in v for k, v in facts.items() if k in ("quick", "full"))


def test_regenerate_table_links_built_pages_and_explains_its_dashes(tmp_path):
    regen, full = _files(tmp_path, MEASURED, {"q2": 7174.1})
    html = pages.regenerate_table(regen, base="notebooks/", full_run=full).html
    assert '<a href="notebooks/q1_counterfactual_fairness.html">' in html and ".md" not in html
    assert "not measured" not in html and "|---" not in html
    assert "Q2, Q3, Q4, Appendix A, Appendix B and Appendix C have no quick measurement yet" in html
    everything = {g: MEASURED["q1"] for g in pages.CHAPTERS}
    regen2, _ = _files(tmp_path, everything, {})
    assert "Every chapter's quick run was measured" in pages.regenerate_table(regen2, full_run=full).html


def _claim(key, verdict, note="Adult 0.045 vs 0.014; COMPAS 0.020 vs 0.005", page="notebooks/q2.html"):
    return SimpleNamespace(
        key=key,
        verdict=verdict,
        holds=None,
        claim=f"Claim {key} says something.",
        note=note,
        where=(key.split(".")[0], page),
        source="Table 1",
    )


def test_results_box_names_the_headline_claims_by_their_verdicts():
    claims = [
        _claim("Q1.1", "holds"),
        _claim("Q1.2", "does not hold"),
        _claim("Q2.1", "does not hold"),
        _claim("Q4.1", "holds"),
    ]
    box = str(pages.results_box(claims, claims_page="book/claims.html"))
    assert box.count("<li>") == 4
    assert "Of the paper&#x27;s 4 qualitative claims, 2 hold here and 2 do not hold." in box
    assert "Of the 3 headline claims" in box and ">Q1.1</a> and <a" in box and "Q4.1</a> hold here." in box
    assert "Q2.1</a> does not hold: “Claim Q2.1 says something”. Ours: Adult 0.045 vs 0.014." in box
    assert "Q1.2" not in box  # not a headline claim
    assert 'href="book/claims.html"' in box
    allgood = str(pages.results_box([_claim("Q1.1", "holds")], claims_page="c.html"))
    assert "The headline claim (the first of a research question), <a" in allgood and "Q1.1</a>, holds here." in allgood
    both = str(pages.results_box([_claim("Q1.1", "holds"), _claim("Q2.1", "holds")], claims_page="c.html"))
    assert "All 2 headline claims (the first of each research question) hold here" in both
    none = str(pages.results_box([_claim("Q1.1", "inconclusive"), _claim("Q2.1", "vacuous")], claims_page="c.html"))
    assert (
        "None of the 2 headline claims" in none and "Q1.1</a> is inconclusive" in none and "Q2.1</a> is vacuous" in none
    )
    with pytest.raises(DataError):
        pages.results_box([_claim("Q1.1", "maybe")], claims_page="c.html")


def test_claims_list_has_one_row_per_claim_with_its_note_folded():
    table = pages.claims_list([_claim("Q1.1", "holds"), _claim("B.1", "inconclusive", note="")])
    assert table.html.count("<tr>") == 3  # the header and two claims
    assert 'class="cffair-holds cffair-verdict">✔ holds' in table.html
    assert table.html.count("<details>") == 1 and "numbers (paper: Table 1)" in table.html
    assert list(table.frame["verdict"]) == ["holds", "inconclusive"]


def test_claim_verdict_sentence_says_the_verdict_of_its_claim():
    claims = [_claim("B.1", "holds"), _claim("Q4.1", "by construction")]
    assert (
        pages.claim_verdict_sentence(claims, "B.1") == "In the verdict at the end of this page, claim B.1 holds here."
    )
    assert pages.claim_verdict_sentence(claims, "Q4.1").endswith("claim Q4.1 holds by construction.")
    with pytest.raises(DataError, match="no claim 'Q9.1'"):
        pages.claim_verdict_sentence(claims, "Q9.1")


def test_results_box_names_what_went_against_a_claim_that_does_not_hold():
    """A headline claim that does not hold is explained by the comparisons its test rejected against it
    (``Claim.against``); without them, by the first numbers of its note."""
    failed = SimpleNamespace(
        **{**vars(_claim("Q2.1", "does not hold")), "against": ("CNF on Adult", "GAN on Lawschool")}
    )
    box = str(pages.results_box([_claim("Q1.1", "holds"), failed], claims_page="c.html"))
    assert "Q2.1</a> does not hold: “Claim Q2.1 says something”. Against it: CNF on Adult and GAN on Lawschool." in box
    assert "Ours:" not in box
    inconclusive = SimpleNamespace(**{**vars(_claim("Q2.1", "inconclusive")), "against": ()})
    box = str(pages.results_box([_claim("Q1.1", "holds"), inconclusive], claims_page="c.html"))
    assert "Q2.1</a> is inconclusive: “Claim Q2.1 says something”. Ours: Adult 0.045 vs 0.014." in box
