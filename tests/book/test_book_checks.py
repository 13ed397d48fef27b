"""Each check of ``tests/book_checks.py`` fails on a small page with its defect and passes on
the same page without it. The width check is also run in headless Chromium on a page with a
956-px table in a 688-px column (the defect found on the Q2 page), and the checks of a phone's
view (page height, numbers broken across lines, figure text size) on small pages loaded at 390 px
(and 1280 px), when Chromium is installed; the book's own tables, with its CSS, keep their
numbers whole in a column too narrow for them."""

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
        "<section id='module-cffair.scores._metrics'><h2>cffair.scores._metrics</h2><p>a missing value (NaN) is refused.</p>"
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


def measure(tmp_path: Path, body: str, *, window: int = 1280, column: int = 688, head: str = "") -> dict:
    """Load ``body`` in headless Chromium in a ``window`` px wide window, in an article ``column`` px
    wide (``head`` added to the page's head), and return what GEOMETRY_JS measures."""
    binary = _chromium()
    if binary is None:
        if os.environ.get("CI"):
            pytest.fail("chromium is not installed; under CI the width check must run in a browser.")
        pytest.skip("chromium is not installed (`make browser`).")
    html = (
        f"<html><head>{head}<style>body {{margin: 0}} article {{width: {column}px; padding: 0 10px}} "
        f".cffair-scroll {{overflow-x: auto}} div.pst-scrollable-table-container {{overflow-x: auto}}</style></head>"
        f"<body><main><article class='bd-article'>"
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
            f"--window-size={window},900",
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


# ----------------------------------------------------------------------------- a phone's view
def test_too_tall_finds_a_page_over_the_limit() -> None:
    assert len(bc.too_tall({"height": 25_000})) == 1 and "25,000 px" in bc.too_tall({"height": 25_000})[0]
    assert bc.too_tall({"height": 19_000}) == [] and bc.too_tall({}) == []
    api = '<article class="bd-article"><section id="module-cffair.scores._metrics"><dl class="py function"><dt>f</dt></dl>'
    assert bc.is_reference(api) and not bc.is_reference('<article class="bd-article"><section id="q1"><p>x</p>')
    assert bc.is_reference(
        '<article class="bd-article"><h1 id="index">Index</h1><table class="indextable genindextable">'
    )
    assert bc.too_tall({"height": 25_000}, reference=True) == []  # looked up, not read through


def test_too_tall_in_chromium_and_a_folded_table_fixes_it(tmp_path: Path) -> None:
    rows = "".join(f"<tr><td>row {i}</td><td>{i / 7:.3f}</td></tr>" for i in range(1200))
    long = f"<table><tbody>{rows}</tbody></table>"
    tall = measure(tmp_path, long, window=390, column=342)
    assert tall["height"] > bc.MAX_PAGE_PX and len(bc.too_tall(tall)) == 1, tall["height"]
    folded = measure(tmp_path, f"<details><summary>1200 rows (open)</summary>{long}</details>", window=390, column=342)
    assert folded["height"] < 2_000 and bc.too_tall(folded) == [], folded["height"]


def test_broken_numbers_reports_each_cell_once_and_names_the_width() -> None:
    broken = [{"number": "0.123", "lines": 2, "what": 'td "0.123"'}] * 2
    found = bc.broken_numbers({"broken": broken, "window": 1280}, {"broken": [], "window": 390})
    assert found == ['the number 0.123 is broken over 2 lines at 1280 px in td "0.123"']
    assert bc.broken_numbers({"broken": []}, {}) == []


#: A column too narrow for its numbers, in which the cells may break anywhere (the book's old rule).
NARROW = "<style>td {{ overflow-wrap: anywhere }}</style><table style='width: 70px'><tbody>{rows}</tbody></table>"


def test_broken_numbers_in_chromium(tmp_path: Path) -> None:
    rows = "<tr><td>LTN(acc+CF)</td><td>0.812345 ± 0.001234</td></tr>"
    bad = measure(tmp_path, NARROW.format(rows=rows), column=400)
    problems = bc.broken_numbers(bad)
    assert problems and all("at 1280 px" in p for p in problems), bad["broken"]
    assert {b["number"] for b in bad["broken"]} <= {"0.812345", "0.001234"}
    # a folded table is opened to be measured: a reader may open it
    hidden = measure(tmp_path, f"<details><summary>open</summary>{NARROW.format(rows=rows)}</details>", column=400)
    assert bc.broken_numbers(hidden), hidden["broken"]
    # the same cell kept on one line: the words still wrap, no number is broken
    whole = rows.replace("<td>0.8", "<td style='white-space: nowrap'>0.8")
    good = measure(tmp_path, NARROW.format(rows=whole), column=400)
    assert bc.broken_numbers(good) == [], good["broken"]


def test_the_books_tables_keep_their_numbers_whole_at_both_widths(tmp_path: Path) -> None:
    """format_table's cells of numbers and comparison_table's lines, with the book's CSS, in a column
    too narrow for them: no number breaks, the table scrolls in its frame instead."""
    import pandas as pd

    from cffair import reporting
    from cffair.reporting import _tables as tables

    frame = pd.DataFrame(
        {f"metric {i}": [f"0.{i}12 ± 0.00{i}", "−0.012"] for i in range(6)}, index=["LTN(acc+CF_sg)", "Unaware MLP"]
    )
    table = reporting.format_table(frame, "A caption").html
    cell = tables.stacked_cell("0.812 ± 0.001", "0.800 ± 0.010", "+0.012", True)
    compared = reporting.format_table(pd.DataFrame({"accuracy": [cell] * 2, "CF-MSE": [cell] * 2}), escape=False).html
    css = f"<link rel='stylesheet' href='{(Path(__file__).resolve().parents[2] / '_static' / 'cffair.css').as_uri()}'>"
    body = f"<div class='cell_output'><div class='output'>{table}{compared}</div></div>"
    for window, column in ((1280, 300), (390, 342)):
        shown = measure(tmp_path, body, window=window, column=column, head=css)
        assert bc.broken_numbers(shown) == [], (window, shown["broken"])
    # without the book's CSS rules the same narrow column breaks them (the check sees the defect)
    plain = measure(tmp_path, f"<style>td {{overflow-wrap: anywhere}}</style>{body}", window=1280, column=300)
    assert bc.broken_numbers(plain)


def figure(tmp_path: Path, width: int, dpi: float | None = 150) -> str:
    """A PNG ``width`` px wide recording ``dpi`` (none when None), and an <img> showing it at the column's width."""
    from PIL import Image

    name = f"fig-{width}-{dpi}.png"
    Image.new("RGB", (width, width // 2), "white").save(tmp_path / name, **({"dpi": (dpi, dpi)} if dpi else {}))
    return f"<div><img src='{name}' alt='a figure' style='max-width: 100%'></div>"


def test_figure_text_px_known_answers() -> None:
    # 12 pt at 150 dpi is 25 px as drawn; shown at a third of its width, 8.3 px
    assert bc.figure_text_px(300, 900) == pytest.approx(12 * 150 / 72 / 3)
    assert bc.figure_text_px(342, 342, dpi=72) == pytest.approx(12)
    found = bc.small_figure_text({"figures": [{"src": "a.png", "natural": 1037, "shown": 342, "dpi": 150}]})
    assert len(found) == 1 and "8.2 px" in found[0]
    assert bc.small_figure_text({"figures": [{"src": "a.png", "natural": 900, "shown": 342, "dpi": None}]}) == []
    assert bc.small_figure_text({"figures": [{"src": "a.png", "natural": 0, "shown": 0}]}) == []


def test_small_figure_text_in_chromium(tmp_path: Path) -> None:
    page = tmp_path / "page.html"
    wide = bc.with_dpi(measure(tmp_path, figure(tmp_path, 1100), window=390, column=342), page)
    assert wide["figures"][0]["natural"] == 1100 and wide["figures"][0]["dpi"] == pytest.approx(150, abs=0.1)
    assert len(bc.small_figure_text(wide)) == 1, wide["figures"]
    fits = bc.with_dpi(measure(tmp_path, figure(tmp_path, 880), window=390, column=342), page)
    assert bc.small_figure_text(fits) == [], fits["figures"]
    # the resolution the file records counts: the same 880 px drawn at 100 dpi holds smaller text
    coarse = bc.with_dpi(measure(tmp_path, figure(tmp_path, 880, dpi=100), window=390, column=342), page)
    assert len(bc.small_figure_text(coarse)) == 1, coarse["figures"]
    figure(tmp_path, 880, dpi=None)
    assert bc.png_dpi(tmp_path / "fig-880-None.png") is None


def test_page_problems_reads_the_phone_view(tmp_path: Path) -> None:
    html = '<html><body><article class="bd-article"><p>fine</p></article><footer>cffair 1.0 · built 2026-12-04</footer>'
    (tmp_path / "p.html").write_text(html)
    phone = {
        "height": 30_000,
        "figures": [{"src": "gone.png", "natural": 1037, "shown": 342}],
        "broken": [{"number": "0.1", "lines": 2, "what": "td"}],
        "window": 390,
    }
    found = bc.page_problems(html, tmp_path / "p.html", tmp_path, {"column": 700, "boxes": []}, "1.0", {}, phone)
    for check in ("too_tall", "broken_numbers", "small_figure_text"):
        assert len(found[check]) == 1, (check, found)
    assert "at 390 px" in found["broken_numbers"][0]
    assert not any(found[c] for c in bc.CHECKS if c not in ("too_tall", "broken_numbers", "small_figure_text"))
    api = html.replace("<p>fine</p>", '<section id="module-cffair.x"><dl class="py function"><dt>f</dt></dl></section>')
    assert (
        bc.page_problems(api, tmp_path / "p.html", tmp_path, {"column": 700, "boxes": []}, "1.0", {}, phone)["too_tall"]
        == []
    )


# ----------------------------------------------------------------------------- one basis per page
def _basis_page(verdict_mean: str, note: str = "") -> str:
    """A chapter's Table 1 parts for COMPAS and COMPAS(age) (5 folds) and a verdict quoting their CF-MSE, as the
    book writes them."""
    table_age = (
        "<table class='cffair-table'><caption>Table 1. Ours — COMPAS(age)</caption>"
        "<tr><th>LTN(acc)</th><td>0.118 ± 0.029</td><td>0.023 ± 0.009</td></tr></table>"
    )
    table = (
        "<table class='cffair-table'><caption>Table 1. Ours (mean ± sd over the paper's partition: 5 folds on every "
        "dataset) — COMPAS</caption><tr><th>LTN(acc)</th><td>0.118 ± 0.029 paper 0.156</td></tr>"
        "<tr><th>LTN(acc+CF)</th><td>0.023 ± 0.009 paper 0.047</td></tr></table>"
    ) + table_age
    claims = (
        "<table class='cffair-table cffair-claims-list'><tbody><tr><td class='cffair-key'>Q1.1</td>"
        "<td class='cffair-holds cffair-verdict'>✔ holds</td><td class='cffair-claim'>A4 lowers CF-MSE."
        "<details><summary>numbers</summary><p><em>Rule:</em> LTN(acc+CF) against LTN(acc) (0.999)</p>"
        "<p><em>Test:</em> corrected t-test; <em>paired folds:</em> 15 (3 × 5) on COMPAS</p>"
        f"<p>COMPAS {verdict_mean} → 0.023 (p &lt; 0.001, sign-flip 0.000); COMPAS(age) 0.118 → 0.023 (p 0.009) (shown, not counted)."
        " Investigation: flip rate 0.555</p></details></td><td>Q1</td></tr></tbody></table>"
    )
    return page(table + note + claims)


def test_basis_mismatch_finds_a_verdict_mean_no_table_shows() -> None:
    bad = bc.basis_mismatch(_basis_page("0.123"))
    assert len(bad) == 1 and "0.123 on COMPAS" in bad[0] and "Q1.1" in bad[0]
    # the quotes: means only, the p-values, sign-flip p and the investigation's numbers left out
    assert bc.verdict_quotes(_basis_page("0.123")) == [
        ("Q1.1", "COMPAS", "0.123"),
        ("Q1.1", "COMPAS", "0.023"),
        ("Q1.1", "COMPAS(age)", "0.118"),
        ("Q1.1", "COMPAS(age)", "0.023"),
    ]


def test_basis_mismatch_passes_the_same_folds_or_a_note_that_names_the_dataset() -> None:
    assert bc.basis_mismatch(_basis_page("0.118")) == []
    note = (
        f"<div class='admonition note {bc.BASIS_NOTE}'><p>Two sets of folds: on COMPAS the verdict reads 15.</p></div>"
    )
    assert bc.basis_mismatch(_basis_page("0.123", note)) == []
    other = f"<div class='admonition note {bc.BASIS_NOTE}'><p>Two sets of folds: on Lawschool the verdict reads 15.</p></div>"
    assert len(bc.basis_mismatch(_basis_page("0.123", other))) == 1  # a note about another dataset does not excuse it
    assert bc.basis_mismatch(page("<p>no tables here</p>")) == []
