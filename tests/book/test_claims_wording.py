"""The book's wording as data (cffair_book/claims.yaml): every claim has a check and every check a
claim, and the numbers choose the branches; that each note template names exactly the fields its code fills is
checked with the other templates, from the code itself (tests/book/test_sentences.py)."""

from __future__ import annotations

import pytest
import yaml

import cffair_book as book
from cffair_book import wording
from cffair_book.chapters import NOTEBOOK_PAGES


def test_every_claim_in_the_file_has_a_check_in_the_books_order_and_the_other_way_round():
    stated = wording.claims_wording()["claims"]
    assert list(stated) == list(book.CLAIM_CHECKS)
    for key, entry in stated.items():
        assert entry["page"] in NOTEBOOK_PAGES, key
        assert ("compares" in entry) != ("rule" in entry), f"{key} needs either compares or rule"
        registered = book.CLAIM_CHECKS[key]
        assert (registered.claim, registered.source, registered.page, registered.rule) == wording.claim_entry(key)


def test_an_edited_sentence_in_the_file_is_what_the_claims_table_says(tmp_path):
    data = yaml.safe_load(wording.WORDING_FILE.read_text(encoding="utf-8"))
    data["claims"]["Q1.1"]["claim"] = "An edited sentence."
    data["claims"]["Q1.1"]["shared"] = False
    path = tmp_path / "claims.yaml"
    path.write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")
    claim, _, page, rule = wording.claim_entry("Q1.1", path)
    assert claim == "An edited sentence." and page == "q1"
    assert rule.endswith(data["rules"]["comparisons"])  # shared: false drops the COMPAS(age) clause
    assert wording.claim_entry("Q1.1")[3].endswith(data["rules"]["shared"])


def test_a_missing_claim_section_or_branch_is_a_clear_error(tmp_path):
    with pytest.raises(ValueError, match="claim Z.9 is not in"):
        wording.claim_entry("Z.9")
    with pytest.raises(ValueError, match=r"branches \['a4_weight'|has the branches"):
        wording.note("a4_weight", "sideways")
    with pytest.raises(ValueError, match="has no branches"):
        wording.note("uncounted", "level")
    bad = tmp_path / "bad.yaml"
    bad.write_text("claims: {}\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"lacks the section\(s\) \['notes', 'rules'\]"):
        wording.claims_wording(bad)


@pytest.mark.parametrize(
    ("changes", "expected"),
    [
        (
            {"Adult": 0.008, "COMPAS": -0.0008, "COMPAS(age)": -0.0034},
            "rise on Adult and fall on COMPAS and COMPAS(age)",
        ),
        (
            {"Adult": -0.01, "COMPAS": 0.01, "COMPAS(age)": 0.0},
            "fall on Adult, rise on COMPAS and stay level on COMPAS(age)",
        ),
        ({"Adult": 0.01, "COMPAS": 0.02}, "rise on Adult and COMPAS"),
        ({"Adult": float("nan")}, "cannot be compared yet"),
    ],
)
def test_movement_is_worded_by_the_sign_of_each_change(changes, expected):
    assert wording.movement(changes) == expected


def test_sign_change_has_one_word_per_case():
    assert {wording.sign_change(*p) for p in [(1, -1), (-1, 1)]} == {"changes sign"}
    assert {wording.sign_change(*p) for p in [(1, 2), (-1, -2)]} == {"keeps its sign"}
    assert {wording.sign_change(*p) for p in [(0, 2), (-1, 0)]} == {"is zero in one"}
