"""Each check of ``tests/book_checks.py`` fails on a small page with its defect and passes on
the same page without it. The width check is also run in headless Chromium on a page with a
956-px table in a 688-px column (the defect found on the Q2 page), when Chromium is installed."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import book_checks as bc
import pytest


def page(body: str) -> str:
    """A page shaped like the theme's: the content in ``article.bd-article``, navigation outside."""
    return (
        f"<html><head><title>t</title><script>var x = '| --- |';</script></head><body>"
        f"<nav>not measured | --- | nan</nav><main><article class='bd-article'>{body}</article></main></body></html>"
    )


# ----------------------------------------------------------------------------- raw markup
def test_raw_markup_finds_an_unparsed_pipe_table_and_glue() -> None:
    bad = page("<section><p>| chapter | command | | --- | --- | | <a href='q1.md'>Q1</a> | x |</p></section>")
    assert len(bc.raw_markup(bad)) == 1 and "pipe table" in bc.raw_markup(bad)[0]
    # as the built book shows it: smart quotes made the rule's dashes em dashes
    smart = page("<p>| chapter | command |\n|:\u2014\u2014\u2014|:\u2014\u2013|\n| Q1 | x |</p>")
    assert len(bc.raw_markup(smart)) == 1
    glued = page("<p>Recomputing takes {glue:text}`q2_quick` of CPU time.</p>")
    assert len(bc.raw_markup(glued)) == 1 and "MyST" in bc.raw_markup(glued)[0]
    assert bc.raw_markup(page("<p>See {doc}`../book/reproducing`.</p>"))


def test_raw_markup_passes_a_parsed_table_and_code_that_shows_markdown() -> None:
    good = page(
        "<table><thead><tr><th>chapter</th></tr></thead><tbody><tr><td>Q1</td></tr></tbody></table>"
        "<div class='highlight'><pre>| a | b |\n|---|---|\n{glue:text}`x`</pre></div><p>a | b</p>"
    )
    assert bc.raw_markup(good) == []


# ----------------------------------------------------------------------------- links
def test_missing_links_finds_md_links_and_missing_anchors(tmp_path: Path) -> None:
    (tmp_path / "notebooks").mkdir()
    (tmp_path / "notebooks" / "q1.html").write_text("<html><body><h1 id='q1'>Q1</h1></body></html>")
    index = tmp_path / "intro.html"
    html = page(
        "<a href='notebooks/q1.md'>Q1</a> <a href='notebooks/q1.html#nowhere'>Q1 part</a> "
        "<a href='#claims'>claims</a> <a href='../outside.html'>out</a>"
    )
    problems = bc.missing_links(html, index, tmp_path)
    assert len(problems) == 4, problems
    assert any("q1.md" in p for p in problems) and any("#nowhere" in p for p in problems)
    assert any("#claims" in p for p in problems)


def test_missing_links_passes_resolved_links(tmp_path: Path) -> None:
    (tmp_path / "notebooks").mkdir()
    (tmp_path / "notebooks" / "q1.html").write_text("<html><body><section id='verdict'></section></body></html>")
    index = tmp_path / "intro.html"
    html = page(
        "<section id='claims'></section><a href='notebooks/q1.html'>Q1</a> "
        "<a href='notebooks/q1.html#verdict'>verdict</a> <a href='#claims'>claims</a> "
        "<a href='https://example.org/x.md'>web</a> <a href='mailto:a@b.c'>mail</a>"
    )
    index.write_text(html)
    assert bc.missing_links(html, index, tmp_path) == []


# ----------------------------------------------------------------------------- placeholders
@pytest.mark.parametrize(
    "body",
    [
        "<p>Recomputing this chapter takes <strong>not measured yet</strong> of CPU time.</p>",
        "<table><tbody><tr><td>CF-MSE</td><td>nan</td></tr></tbody></table>",
        "<div class='cell_output'><pre>NaN</pre></div>",
        "<p>&lt;IPython.core.display.Markdown object&gt;</p>",
        "<div class='cell_output'><pre>&lt;Figure size 640x480 with 1 Axes&gt;</pre></div>",
        "<table><tbody><tr><td>worst subgroup</td><td>&lt;NA&gt;</td></tr></tbody></table>",
        "<p>measured on NaT</p>",
    ],
)
def test_placeholders_finds_each_kind(body: str) -> None:
    assert len(bc.placeholders(page(body))) == 1


def test_placeholders_passes_numbers_and_code() -> None:
    good = page(
        "<p>Quick mode takes 2 min; the time of Q2 has not been measured yet. A nanosecond. National data.</p>"
        "<div class='cell_input'><pre>x = float('nan')</pre></div><p><code>np.nan</code></p>"
        "<table><tbody><tr><td>0.031</td></tr></tbody></table>"
    )
    assert bc.placeholders(good) == []


def test_placeholders_reads_nan_in_an_api_docstring_as_a_word() -> None:
    api = (
        "<section id='module-cffair.metrics'><h2>cffair.metrics</h2><p>a missing value (NaN) is refused.</p>"
        "<dl class='py function'><dt>cf_mse</dt><dd><p>NaN when no pair is given.</p></dd></dl></section>"
    )
    assert bc.placeholders(page(api)) == []
    assert len(bc.placeholders(page(api + "<table><tbody><tr><td>nan</td></tr></tbody></table>"))) == 1
    assert len(bc.placeholders(page(api.replace("(NaN)", "&lt;cffair.X object at 0x1f&gt;")))) == 1


# ----------------------------------------------------------------------------- width
def geometry(table: int, column: int = 688, *, accepted: bool = False) -> dict:
    return {
        "column": column,
        "boxes": [
            {
                "what": "div.pst-scrollable-table-container",
                "kind": "wrapper",
                "width": column,
                "content": max(table, column),
                "client": column,
                "accepted": accepted,
            },
            {
                "what": "table.cffair-table",
                "kind": "table",
                "width": table,
                "content": table,
                "client": table,
                "accepted": accepted,
            },
        ],
    }


def test_too_wide_finds_a_table_wider_than_its_column() -> None:
    problems = bc.too_wide(geometry(956))
    assert len(problems) == 2 and "956" in problems[1]


def test_too_wide_passes_a_fitting_table_and_an_accepted_scroll() -> None:
    assert bc.too_wide(geometry(680)) == []
    assert bc.too_wide(geometry(956, accepted=True)) == []


def _chromium() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")


def measure(tmp_path: Path, body: str) -> dict:
    """Load ``body`` in headless Chromium at 1280 px and return what GEOMETRY_JS measures."""
    binary = _chromium()
    if binary is None:
        if os.environ.get("CI"):
            pytest.fail("chromium is not installed; under CI the width check must run in a browser.")
        pytest.skip("chromium is not installed (`make browser`).")
    html = (
        f"<html><head><style>body {{margin: 0}} article {{width: 688px; padding: 0 10px}} .cffair-scroll {{overflow-x: auto}}"
        f"div.pst-scrollable-table-container {{overflow-x: auto}}</style></head><body><main><article class='bd-article'>"
        f"{body}</article></main><script>window.addEventListener('load', () => "
        f"document.body.setAttribute('data-geometry', JSON.stringify({bc.GEOMETRY_JS})));</script></body></html>"
    )
    file = tmp_path / "page.html"
    file.write_text(html)
    out = subprocess.run(
        [
            binary,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--window-size=1280,900",
            f"--user-data-dir={tmp_path / 'profile'}",
            "--virtual-time-budget=2000",
            "--dump-dom",
            file.as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    from bs4 import BeautifulSoup

    body_tag = BeautifulSoup(out.stdout, "html.parser").body
    assert body_tag is not None and body_tag.get("data-geometry"), out.stderr[-2000:]
    return json.loads(body_tag["data-geometry"])


WIDE = "<table style='width: 956px'><tr><td>a wide deviations table</td></tr></table>"


def test_too_wide_in_chromium(tmp_path: Path) -> None:
    wide = measure(tmp_path, f"<div class='pst-scrollable-table-container'>{WIDE}</div>")
    assert wide["column"] == 688
    assert any("956 px wide in a 688-px column" in p for p in bc.too_wide(wide)), wide
    narrow = measure(
        tmp_path,
        "<div class='pst-scrollable-table-container'><table style='width: 600px'><tr><td>fits</td></tr></table></div>",
    )
    assert bc.too_wide(narrow) == [], narrow
    scroll = measure(tmp_path, f"<div class='cffair-scroll'>{WIDE}</div>")
    assert bc.too_wide(scroll) == [], scroll


# ----------------------------------------------------------------------------- admonitions
BOX = (
    "<div class='admonition tip chapter-box'><p class='admonition-title'>Regenerate</p><p>Quick mode: 2 min.</p></div>"
)


def test_repeated_admonitions_finds_the_same_box_twice() -> None:
    assert len(bc.repeated_admonitions(page(BOX + "<p>text</p>" + BOX))) == 1


def test_repeated_admonitions_passes_different_boxes() -> None:
    other = BOX.replace("2 min", "5 min")
    assert bc.repeated_admonitions(page(BOX + other)) == []


# ----------------------------------------------------------------------------- headings and verdicts
def claims(verdict_class: str, label: str, key: str = "B.1") -> str:
    return (
        "<table class='cffair-table cffair-claims'><thead><tr><th>#</th><th>claim</th><th>where shown</th>"
        f"<th>status</th><th>note</th></tr></thead><tbody><tr><td>{key}</td><td>A claim.</td><td>here</td>"
        f"<td class='{verdict_class}'>{label}</td><td>numbers</td></tr></tbody></table>"
    )


def test_heading_verdict_mismatch_finds_fail_over_a_claim_that_holds() -> None:
    bad = page(
        "<section><h2>Why does this claim fail?<a class='headerlink' href='#x'>#</a></h2></section>"
        + claims("cffair-holds", "✔ holds")
    )
    assert len(bc.heading_verdict_mismatch(bad)) == 1
    construction = page(
        "<h2>Why does this claim hold only by construction?</h2>" + claims("cffair-holds", "✔ holds", "Q4.1")
    )
    assert len(bc.heading_verdict_mismatch(construction)) == 1


def test_heading_verdict_mismatch_passes_agreeing_headings() -> None:
    assert (
        bc.heading_verdict_mismatch(
            page("<h2>Why does this claim fail?</h2>" + claims("cffair-fails", "✘ does not hold"))
        )
        == []
    )
    assert (
        bc.heading_verdict_mismatch(page("<h2>Looking closer at claim B.1</h2>" + claims("cffair-holds", "✔ holds")))
        == []
    )
    assert bc.heading_verdict_mismatch(page("<h2>Why does this claim fail?</h2><p>no claims table</p>")) == []
    assert bc.claim_verdicts(claims("", "≈ inconclusive")) == {"B.1": "inconclusive"}


def test_page_problems_runs_every_check_and_finds_each_defect_on_a_page_that_has_it(tmp_path):
    """``page_problems`` (the browser test's and ``tools/book_defects.py``'s list of checks) reports
    every check, finds each defect of a bad page, and nothing on a clean one."""
    bad = (
        '<html><body><article class="bd-article"><p>| a | b |<br>|---|---|</p>'
        '<a href="gone.html">x</a><p>not measured yet</p></article></body></html>'
    )
    (tmp_path / "p.html").write_text(bad)
    geometry = {"column": 700, "boxes": [{"kind": "table", "width": 900, "what": "t"}]}
    found = bc.page_problems(bad, tmp_path / "p.html", tmp_path, geometry, "1.0", {})
    assert set(found) == set(bc.CHECKS)
    for check in ("raw_markup", "missing_links", "placeholders", "too_wide", "build_stamp"):
        assert found[check], check
    clean = bc.page_problems(
        '<html><body><article class="bd-article"><p>fine</p></article>'
        "<footer>cffair 1.0 · built 2026-12-04</footer></body></html>",
        tmp_path / "p.html",
        tmp_path,
        {"column": 700, "boxes": []},
        "1.0",
        {},
    )
    assert not any(clean.values()), clean
