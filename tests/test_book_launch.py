"""The book's links to running code and to a citation (issue 42).

* every page's footer says how to cite the version it was built from (``book/_ext/citation.py``
  through ``book_source``);
* every downloaded notebook starts with an install cell that installs this project at the book's
  version where it is missing, and sets the notebook to compute when there are no committed results
  (``ipynb_download``); the book package ships in the wheel.
"""

from __future__ import annotations

import sys
from pathlib import Path
from types import SimpleNamespace

import yaml

import cffair

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "book" / "_ext"))

import book_source  # noqa: E402
import citation  # noqa: E402


# ============================================================================ the citation in the footer
def test_the_footer_cites_the_built_version_and_the_paper() -> None:
    cff = citation.read_citation(ROOT)
    assert cff is not None
    line = citation.citation_footer(cff, cffair.__version__)
    assert f"version {cffair.__version__}" in line
    assert cff["title"] in line and cff["preferred-citation"]["title"] in line
    assert f"({cff['preferred-citation']['year']})" in line and f"({str(cff['date-released'])[:4]})" in line
    for author in cff["preferred-citation"]["authors"]:
        assert author["family-names"] in line
    assert line.count("<p") == 1 and line.endswith("</p>")


def test_citation_text_is_escaped() -> None:
    cff = {"title": "a <b> & c", "authors": [{"name": "X & Y"}], "date-released": "2030-01-01"}
    line = citation.citation_footer(cff, "1.0.0")
    assert "a &lt;b&gt; &amp; c" in line and "X &amp; Y" in line and "For the method" not in line


def test_every_page_footer_ends_with_the_citation() -> None:
    """book_source's footer hook: the version stamp, then how to cite that version."""
    info = {"version": "0.2.0", "date": "2030-01-02", "commit": "abc1234567", "url": None, "archive": None}
    app = SimpleNamespace(cffair_source={**info, "citation": yaml.safe_load((ROOT / "CITATION.cff").read_text())})
    context = {"theme_extra_footer": "<p>licence</p>"}
    book_source._footer(app, "notebooks/q1", "page.html", context, None)
    footer = context["theme_extra_footer"]
    stamp, cite = footer.index("cffair-build-stamp"), footer.index("How to cite")
    assert footer.startswith("<p>licence</p>") and stamp < cite and "version 0.2.0" in footer[cite:]
    # without a CITATION.cff (a copy of the book's sources without it) the footer only loses that line
    app.cffair_source["citation"] = None
    context = {}
    book_source._footer(app, "intro", "page.html", context, None)
    assert "How to cite" not in context["theme_extra_footer"] and "cffair 0.2.0" in context["theme_extra_footer"]
