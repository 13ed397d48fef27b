"""Direction words from the numbers (cffair_book.directions.direction) and the check that fails when a
sentence names a direction its own numbers contradict (contradictions), a test per branch; then the
check run over the text the book writes: appendix C's factor paragraphs and, when a build exists, the
built pages' prose."""

from __future__ import annotations

from pathlib import Path

import pytest

import cffair_book as book
from cffair_book import dependence as dep
from cffair_book.directions import contradictions, direction

ROOT = Path(__file__).resolve().parents[2]
HTML = ROOT / "_build" / "html"


@pytest.mark.parametrize(
    ("before", "after", "kw", "word"),
    [
        (0.045, 0.292, {}, "rises"),
        (0.292, 0.045, {}, "falls"),
        (0.100, 0.1003, {}, "stays level"),
        (0.045, 0.292, {"lower_is": "fairer"}, "less fair"),
        (0.292, 0.045, {"lower_is": "fairer"}, "fairer"),
        (0.050, 0.050, {"lower_is": "fairer"}, "as fair"),
        (0.300, 0.250, {"target": 0.227}, "closer"),
        (0.250, 0.300, {"target": 0.227}, "further"),
        (0.001, 0.001, {"target": 0.227}, "as close"),
    ],
)
def test_the_numbers_choose_the_direction_word(before, after, kw, word):
    assert direction(before, after, **kw) == word


def test_an_unknown_scale_is_a_clear_error():
    with pytest.raises(ValueError, match="lower_is"):
        direction(0.1, 0.2, lower_is="better")


@pytest.mark.parametrize(
    ("text", "word"),
    [
        ("On Adult its CF-MSE falls, 0.045 → 0.292.", "falls"),
        ("Accuracy rises from 0.809 to 0.758.", "rises"),
        ("With the sound twins LTN(acc+CF) is fairer: 0.045 → 0.292.", "fairer"),
        ("The CNF becomes less fair, 0.094 → 0.005.", "less fair"),
        ("The GAN comes closer to the paper, 0.300 → 0.350 against 0.227.", "closer"),
        ("The GAN study's CF-MSE moves away from the paper's value, 0.300 → 0.250 against 0.227.", "moves away"),
        ("Q2.4 reverses (holds → inconclusive with sound twins).", "reverses"),
    ],
)
def test_a_direction_word_its_numbers_contradict_is_found(text, word):
    (found,) = contradictions(text)
    assert word in found.word.lower()


@pytest.mark.parametrize(
    "text",
    [
        "On Adult its CF-MSE rises, 0.045 → 0.292; accuracy falls from 0.809 to 0.758.",
        "LTN(acc+CF) is fairer with A4: 0.160 → 0.065.",
        "The GAN comes closer to the paper, 0.300 → 0.250 against 0.227.",
        "Q2.4 reverses (holds → does not hold with the default flow).",
        "CF-MSE falls on every dataset (see the table).",  # a direction without its own numbers: not checked
        "Adult 0.160 → 0.065 (p < 0.001).",  # numbers without a direction word: not checked
        "No verdict reverses, but Q1.1 moves (holds → inconclusive with Gödel).",  # negated: claims nothing
        "Accuracy does not fall, 0.80 → 0.81.",
    ],
)
def test_a_sentence_whose_numbers_agree_passes(text):
    assert contradictions(text) == []


def test_the_factor_paragraphs_say_reverses_only_for_a_reversal():
    def row(claim, base, verdict, reverses):
        return {
            "claim": claim,
            "factor": "ruler",
            "level": "default",
            "label": "default flow",
            "base": base,
            "same_folds": base,
            "verdict": verdict,
            "changed": base != verdict,
            "reverses": reverses,
            "datasets": "COMPAS",
            "folds": "all folds",
        }

    import pandas as pd

    frame = pd.DataFrame(
        [row("Q2.4", "holds", "does not hold", True), row("Q2.1", "does not hold", "inconclusive", False)]
    )
    text = dep.factor_paragraph(frame, "ruler")
    assert "reverses" in text and contradictions(text) == []


def _pages() -> list[Path]:
    return sorted(p for p in HTML.rglob("*.html") if "_static" not in p.parts and "genindex" not in p.name)


@pytest.mark.skipif(not HTML.exists(), reason="no built book (_build/html)")
def test_no_built_page_names_a_direction_its_glued_numbers_contradict():
    import book_checks

    found = []
    for page in _pages():
        text = book_checks.page_text(page.read_text(encoding="utf-8"))
        found += [(str(page.relative_to(HTML)), c.clause[:160], c.says) for c in book.contradictions(text)]
    assert not found, found
