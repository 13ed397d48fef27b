"""Checks of a built book page that a reader would trip over, each a pure function.

Every check takes what one page gives (its HTML, or the geometry that :data:`GEOMETRY_JS`
measured in Chromium) and returns a list of problems, one string each ("" problems: the page
passes). ``tests/book/test_book.py`` runs them on every page of the built book;
``tests/book/test_book_checks.py`` feeds each one a small page with the defect and one without.

* :func:`raw_markup` -- Markdown that was not parsed: a pipe table's ``|---|`` rule, or a MyST
  role or directive such as ``{glue`` or ``{doc}``, in the page's text.
* :func:`missing_links` -- a link to a file (or an anchor in it) that is not in the build.
* :func:`placeholders` -- "not measured", ``nan`` or a Python object's repr in the page's text.
* :func:`too_wide` -- a table or wrapper whose content is wider than the text column (measured
  in Chromium at the window width it was loaded at); a wrapper with the class
  :data:`SCROLL_OK` is accepted as an explicit sideways scroll.
* :func:`repeated_admonitions` -- the same admonition (title and text) twice on a page.
* :func:`heading_verdict_mismatch` -- a heading that names a verdict ("Why does this claim
  fail?") on a page whose claims table gives the claim another verdict.
* :func:`build_stamp` -- a page whose footer does not name the cffair version and the build date.
* :func:`too_tall` -- a page taller than :data:`MAX_PAGE_PX` at a 390-px (phone) window: a long
  table there should be folded (the API reference, looked up rather than read through, is exempt).
* :func:`broken_numbers` -- a number in a table cell that the browser broke across lines (at
  1280 px or at 390 px, folded parts opened).
* :func:`small_figure_text` -- a figure shown so much smaller than it was drawn that its text
  (:data:`FIGURE_FONT_PT` points at its resolution) is under :data:`MIN_FIGURE_TEXT_PX` at 390 px.

The last three read what :data:`GEOMETRY_JS` measured at a 390-px window too (``phone``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

from bs4 import BeautifulSoup, Tag

#: The class of a wrapper that is meant to scroll sideways (a wide table the reader pans).
SCROLL_OK = "cffair-scroll"

# ----------------------------------------------------------------------------- page text
#: Elements whose text the reader does not read as prose: scripts, styles, the source code of
#: notebook cells, and the theme's navigation (its own texts, the same on every page).
_NOT_PROSE = ("script", "style", "noscript", "template")


def _soup(html: str) -> BeautifulSoup:
    return BeautifulSoup(html, "html.parser")


def _article(soup: BeautifulSoup) -> Tag:
    """The page's own content: the theme's article, else <main>, else <body>, else everything."""
    return soup.select_one("article.bd-article") or soup.find("main") or soup.body or soup


def _text_nodes(root: Tag, *, skip_code: bool) -> Iterable[str]:
    """The strings a reader sees in ``root``: without scripts and cell inputs, and without
    code (``<pre>``, ``<code>``) when ``skip_code`` (code outputs are kept either way)."""
    for s in root.find_all(string=True):
        parent = s.parent
        if parent is None or parent.find_parent(_NOT_PROSE) or parent.name in _NOT_PROSE:
            continue
        if parent.find_parent("div", class_="cell_input") is not None:
            continue
        in_code = parent.name in ("pre", "code") or parent.find_parent(("pre", "code"))
        if skip_code and in_code and parent.find_parent("div", class_="cell_output") is None:
            continue
        yield str(s)


def page_text(html: str, *, skip_code: bool = True) -> str:
    """The text of a page's article as a reader sees it (see :func:`_text_nodes`)."""
    return " ".join(_text_nodes(_article(_soup(html)), skip_code=skip_code))


def _excerpt(text: str, match: re.Match[str], width: int = 40) -> str:
    start, end = max(0, match.start() - width), min(len(text), match.end() + width)
    return re.sub(r"\s+", " ", text[start:end]).strip()


# ----------------------------------------------------------------------------- 1. raw markup
#: A pipe table's header rule (``|---|:--:|``) in running text; Sphinx's smart quotes turn its
#: dashes into en and em dashes (``|:———|``).
_PIPE_RULE = re.compile(r"\|(?:\s*:?(?:-{3,}|[\u2013\u2014][-\u2013\u2014]*):?\s*\|)+")
#: A MyST role or directive left in the text: ``{glue:text}`x```, ``{doc}`x```, ```{glue}``.
_MYST = re.compile(r"\{(glue|doc|ref|numref|cite|eval|download|term)(:[a-z]+)?\}|\{glue")


def raw_markup(html: str) -> list[str]:
    """Markdown that reached the page unparsed: a pipe table's rule or a MyST role in the text
    (code blocks excluded: they may show Markdown on purpose)."""
    text = page_text(html)
    problems = [f"a Markdown pipe table was not parsed: “{_excerpt(text, m)}”" for m in _PIPE_RULE.finditer(text)]
    problems += [f"a MyST role or directive was not parsed: “{_excerpt(text, m)}”" for m in _MYST.finditer(text)]
    return problems


# ----------------------------------------------------------------------------- 2. links
_EXTERNAL = {"http", "https", "mailto", "data", "javascript", "tel", "ftp"}


def _ids(soup: BeautifulSoup) -> set[str]:
    return {t["id"] for t in soup.find_all(id=True)} | {t["name"] for t in soup.find_all("a", attrs={"name": True})}


def missing_links(html: str, page: Path, html_root: Path, _cache: dict[Path, set[str]] | None = None) -> list[str]:
    """Links of the page (``<a href>``, anywhere on it) to a file that is not in the build, or to
    an anchor that the target page does not have. ``page`` is the page's file, ``html_root`` the
    build's root (links out of it are reported too)."""
    cache = _cache if _cache is not None else {}
    soup = _soup(html)
    problems: list[str] = []
    root = html_root.resolve()
    for a in soup.find_all("a", href=True):
        href = a["href"].strip()
        parsed = urlparse(href)
        if parsed.scheme in _EXTERNAL or (parsed.scheme and parsed.scheme != "file") or parsed.netloc:
            continue
        label = re.sub(r"\s+", " ", a.get_text()).strip()[:40]
        if parsed.path:
            target = (page.parent / unquote(parsed.path)).resolve()
        else:
            target = page.resolve()
        if target.is_dir():
            target = target / "index.html"
        if not target.is_file():
            problems.append(f"link “{label}” → {href}: {target} is not in the build")
            continue
        if root not in target.parents:
            problems.append(f"link “{label}” → {href} leaves the build ({target})")
            continue
        if parsed.fragment and target.suffix == ".html":
            if target not in cache:
                cache[target] = _ids(soup if target == page.resolve() else _soup(target.read_text(encoding="utf-8")))
            if unquote(parsed.fragment) not in cache[target]:
                problems.append(f"link “{label}” → {href}: {target.name} has no anchor #{parsed.fragment}")
    return problems


# ----------------------------------------------------------------------------- 3. placeholders
_NAN = "a nan instead of a number"
_PLACEHOLDERS = (
    (re.compile(r"not measured", re.I), "“not measured” instead of a measurement"),
    (re.compile(r"(?<![\w.'\"])(nan|NaN)(?![\w(])"), _NAN),
    (re.compile(r"<[\w.]+ object( at 0x[0-9a-fA-F]+)?>"), "a Python object's repr instead of its content"),
    (re.compile(r"<Figure size \d+x\d+ with \d+ Axes>"), "a figure's repr instead of the figure"),
    (re.compile(r"(?<![\w<])(<NA>|NaT)(?![\w>])"), "a pandas missing value instead of a number"),
)


def _without_docstrings(html: str) -> str:
    """The page without the API reference's docstrings (autodoc's ``section#module-…`` and
    ``dl.py``), where "NaN" is a word of the prose ("a NaN in the column"), not a missing number."""
    soup = _soup(html)
    for node in soup.select('section[id^="module-"], dl.py'):
        node.decompose()
    return str(soup)


def placeholders(html: str) -> list[str]:
    """Text that stands where a number or a display should be: "not measured", ``nan`` (as a
    word: not "nanoseconds", not ``np.nan`` in code, not the word NaN of an API docstring), an
    object repr such as ``<IPython.core.display.Markdown object>`` or ``<Figure size 640x480 with
    1 Axes>``, or pandas' ``<NA>`` / ``NaT``, in the page's prose and outputs."""
    text = page_text(html)
    prose = page_text(_without_docstrings(html))
    return [
        f"{what}: “{_excerpt(where, m)}”"
        for pattern, what in _PLACEHOLDERS
        for where in [prose if what == _NAN else text]
        for m in pattern.finditer(where)
    ]


# ----------------------------------------------------------------------------- 4. width
#: Measures, in the browser, every table and every wrapper of the article that could be wider
#: than the text column. Returns ``{"column": px, "boxes": [...]}``; each box has ``what``
#: (tag, classes and the start of its text), ``kind`` ("table" or "wrapper"), ``width`` (its
#: border box), ``content`` (its scrollWidth: the width of what is in it), ``client`` (the width
#: it shows) and ``accepted`` (inside a wrapper of class SCROLL_OK). Invisible boxes are left out.
#: Also ``height`` (the page's, CSS pixels), ``window`` (the window's width), ``figures`` (each
#: visible ``<img>``: ``src``, ``natural`` and ``shown`` width) and ``broken`` (each number of a
#: table cell that spans more than one line, folded ``<details>`` opened while measuring:
#: ``number``, ``lines``, ``what``).
GEOMETRY_JS = r"""
(() => {
  const article = document.querySelector('article.bd-article') || document.querySelector('main') || document.body;
  const cs = getComputedStyle(article);
  const column = article.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight);
  const visible = el => { const r = el.getBoundingClientRect(); return r.width > 0 && r.height > 0; };
  const describe = el => (el.tagName.toLowerCase() + (el.className ? '.' + String(el.className).trim().split(/\s+/).join('.') : '') +
                          ' "' + (el.innerText || '').trim().slice(0, 50).replace(/\s+/g, ' ') + '"');
  const boxes = [];
  const wrappers = 'div.pst-scrollable-table-container, div.table-wrapper, div.cell_output, div.output, div.text_html, ' +
                   'div.admonition, details, figure, div.figure, div.math-wrapper, div.' + 'SCROLL_OK';
  for (const el of article.querySelectorAll('table, ' + wrappers)) {
    if (!visible(el)) continue;
    boxes.push({
      what: describe(el), kind: el.tagName.toLowerCase() === 'table' ? 'table' : 'wrapper',
      width: Math.round(el.getBoundingClientRect().width), content: el.scrollWidth, client: el.clientWidth,
      accepted: !!el.closest('.' + 'SCROLL_OK') || !!el.querySelector('.' + 'SCROLL_OK'),
    });
  }
  const height = Math.max(document.body.scrollHeight, document.documentElement.scrollHeight);
  const figures = Array.from(article.querySelectorAll('img')).filter(visible).map(i => ({
    src: i.getAttribute('src'), natural: i.naturalWidth, shown: Math.round(i.getBoundingClientRect().width * 10) / 10}));
  // Numbers in table cells that the browser broke across lines: open every folded part first (a
  // reader may open it), measure each number's line boxes, and fold them again.
  const closed = Array.from(article.querySelectorAll('details:not([open])'));
  closed.forEach(d => { d.open = true; });
  const broken = [];
  for (const cell of article.querySelectorAll('td, th')) {
    if (!visible(cell)) continue;
    const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      for (const m of node.data.matchAll(/(?:(?<![\w.])[\u2212+-])?\d[\d.,]*\d/g)) {
        const range = document.createRange();
        range.setStart(node, m.index);
        range.setEnd(node, m.index + m[0].length);
        const tops = Array.from(range.getClientRects()).filter(r => r.width > 0).map(r => r.top).sort((a, b) => a - b);
        const lines = tops.filter((t, i) => i === 0 || t - tops[i - 1] > 4).length;
        if (lines > 1) broken.push({number: m[0], lines, what: describe(cell)});
      }
    }
  }
  closed.forEach(d => { d.open = false; });
  return {column: Math.round(column), boxes, height, figures, broken, window: window.innerWidth};
})()
""".replace("SCROLL_OK", SCROLL_OK)


def too_wide(geometry: Mapping[str, Any], *, slack: int = 1) -> list[str]:
    """Tables and wrappers whose content is wider than the column they stand in.

    A table is too wide if its border box is wider than the text column; a wrapper if what is
    in it (``scrollWidth``) is wider than what it shows (``clientWidth``: it scrolls or clips)
    or than the column. Boxes marked ``accepted`` (a :data:`SCROLL_OK` wrapper, which scrolls
    on purpose, or what is in one) are not reported.
    """
    column = geometry["column"]
    problems = []
    for box in geometry["boxes"]:
        if box.get("accepted"):
            continue
        if box["kind"] == "table" and box["width"] > column + slack:
            problems.append(f"a table {box['width']} px wide in a {column}-px column: {box['what']}")
        elif box["kind"] != "table" and (box["content"] > box["client"] + slack or box["width"] > column + slack):
            problems.append(
                f"a wrapper holds content {box['content']} px wide in {min(box['client'], column)} px "
                f"(column {column} px): {box['what']}"
            )
    return problems


# ----------------------------------------------------------------------------- 5. admonitions
def repeated_admonitions(html: str) -> list[str]:
    """Admonitions (boxes: notes, tips, the chapters' boxes, dropdowns) that appear twice on a
    page with the same title and text."""
    seen: dict[str, int] = {}
    for box in _article(_soup(html)).select("div.admonition, aside.admonition"):
        text = re.sub(r"\s+", " ", box.get_text(" ")).strip()
        if text:
            seen[text] = seen.get(text, 0) + 1
    return [f"the same admonition {n} times: “{text[:80]}”" for text, n in seen.items() if n > 1]


# ----------------------------------------------------------------------------- 6. headings
#: What a heading says about a claim's verdict, most specific first, and the verdict it names.
_HEADING_VERDICTS = (
    (re.compile(r"\bby construction\b", re.I), "by construction"),
    (re.compile(r"\bvacuous\b", re.I), "vacuous"),
    (re.compile(r"\binconclusive\b", re.I), "inconclusive"),
    (re.compile(r"\b(fail|fails|failed|does not hold|do not hold)\b", re.I), "does not hold"),
    (re.compile(r"\b(hold|holds)\b", re.I), "holds"),
)
#: The verdicts a claims table can show, most specific first.
_VERDICTS = ("does not hold", "by construction", "inconclusive", "vacuous", "pending", "holds")
#: The classes that ``cffair_book.claims_table`` gives a status cell.
_CLASS_VERDICTS = {
    "cffair-holds": "holds",
    "cffair-fails": "does not hold",
    "cffair-inconclusive": "inconclusive",
    "cffair-vacuous": "vacuous",
    "cffair-by-construction": "by construction",
    "cffair-pending": "pending",
}
_CLAIM_KEY = re.compile(r"\b(Q\d\.\d+|[A-C]\.\d+)\b")


def heading_verdict(text: str) -> str | None:
    """The verdict a heading names ("Why does this claim fail?" → "does not hold"), or None."""
    for pattern, verdict in _HEADING_VERDICTS:
        if pattern.search(text):
            return verdict
    return None


def _cell_verdict(text: str) -> str | None:
    low = re.sub(r"\s+", " ", text).strip().lower()
    for v in _VERDICTS:
        if low.startswith(v) or re.search(rf"(^|[^\w]){re.escape(v)}($|[^\w])", low) and len(low) < len(v) + 20:
            return v
    return None


def claim_verdicts(html: str) -> dict[str, str]:
    """The verdict of each claim in a page's claims tables: the tables with a "verdict" (or
    "holds") column, keyed by the claim's key (Q2.1, B.1, ...) in the row."""
    out: dict[str, str] = {}
    for table in _article(_soup(html)).find_all("table"):
        head = [re.sub(r"\s+", " ", th.get_text(" ")).strip().lower() for th in table.select("thead th")]
        col = next((i for i, h in enumerate(head) if h in ("verdict", "holds", "holds?", "status")), None)
        if col is None:
            continue
        for tr in table.select("tbody tr"):
            cells = tr.find_all(["td", "th"])
            if col >= len(cells):
                continue
            cell = cells[col]
            by_class = [_CLASS_VERDICTS[c] for c in cell.get("class", []) if c in _CLASS_VERDICTS]
            verdict = by_class[0] if by_class else _cell_verdict(cell.get_text(" "))
            row = " ".join(c.get_text(" ") for c in cells)
            key = _CLAIM_KEY.search(row)
            if verdict and key:
                out.setdefault(key.group(1), verdict)
    return out


def heading_verdict_mismatch(html: str) -> list[str]:
    """Headings that name a verdict which the page's claims table does not give: "Why does this
    claim fail?" where the claim holds, "… only by construction" where it plainly holds. A
    heading that names its claim (Q4.1) is checked against that claim; one that does not,
    against every claim of the page's tables (it must name the verdict of at least one)."""
    verdicts = claim_verdicts(html)
    if not verdicts:
        return []
    problems = []
    for h in _article(_soup(html)).find_all(["h1", "h2", "h3", "h4", "h5", "h6"]):
        text = re.sub(r"\s+", " ", h.get_text(" ")).replace("#", "").strip()
        named = heading_verdict(text)
        if named is None or named == "holds" and "claim" not in text.lower():
            continue
        keys = [k for k in _CLAIM_KEY.findall(text) if k in verdicts]
        shown = {verdicts[k] for k in keys} if keys else set(verdicts.values())
        if named not in shown:
            which = ", ".join(f"{k}: {verdicts[k]}" for k in (keys or verdicts))
            problems.append(f"heading “{text}” says the claim {named}, the claims table says {which}")
    return problems


# ----------------------------------------------------------------------------- 7. build stamp
_DATE = re.compile(r"\bbuilt (\d{4}-\d{2}-\d{2})\b")


def build_stamp(html: str, version: str) -> list[str]:
    """A page whose footer (``book/_ext/book_source.py``'s line) does not name ``cffair
    <version>`` and a build date (a page without the theme's article, such as the redirecting
    ``index.html``, has no footer to check)."""
    soup = _soup(html)
    if soup.select_one("article.bd-article") is None:
        return []
    footer = " ".join(f.get_text(" ") for f in soup.select("footer, .extra_footer, .cffair-build-stamp"))
    footer = re.sub(r"\s+", " ", footer)
    problems = []
    if f"cffair {version}" not in footer:
        problems.append(f"the footer does not name the version (cffair {version})")
    if not _DATE.search(footer):
        problems.append("the footer does not name the build date (built YYYY-MM-DD)")
    return problems


# ----------------------------------------------------------------------------- 8. phone height
#: The tallest a page may be at a 390-px window (CSS pixels): 20,000 px is about 25 screens.
MAX_PAGE_PX = 20_000


def is_reference(html: str) -> bool:
    """Whether a page is part of the API reference: autodoc's ``section#module-…`` holding ``dl.py``,
    or Sphinx's general index (``table.genindextable``)."""
    article = _article(_soup(html))
    return article.select_one('section[id^="module-"] dl.py, table.genindextable') is not None


def too_tall(phone: Mapping[str, Any], *, limit: int = MAX_PAGE_PX, reference: bool = False) -> list[str]:
    """A page taller than ``limit`` pixels at a 390-px window (``phone``: :data:`GEOMETRY_JS` measured there).

    A page of the API reference (``reference``, :func:`is_reference`) is exempt: it is looked up
    by the search box, the index and anchors, not read from top to bottom, and one module's
    members on one page is what its links point to (its pages, and the general index, run to
    40,000-131,000 px at 390 px).
    """
    if reference:
        return []
    height = phone.get("height", 0)
    if height > limit:
        return [f"the page is {height:,} px tall at a 390-px window (at most {limit:,}): fold its long tables"]
    return []


# ----------------------------------------------------------------------------- 9. broken numbers
def broken_numbers(*geometries: Mapping[str, Any]) -> list[str]:
    """Numbers in table cells that the browser broke across lines (``broken`` of each geometry:
    :data:`GEOMETRY_JS` at 1280 px and at 390 px). One problem per cell and width."""
    problems = []
    for geometry in geometries:
        width = f" at {geometry['window']} px" if geometry.get("window") else ""
        seen = set()
        for b in geometry.get("broken", []):
            if b["what"] in seen:
                continue
            seen.add(b["what"])
            problems.append(f"the number {b['number']} is broken over {b['lines']} lines{width} in {b['what']}")
    return problems


# ----------------------------------------------------------------------------- 10. figure text
#: The size of a figure's smallest text (points): the book's (``cffair.reporting._style.FONT_PT``).
FIGURE_FONT_PT = 12.0
#: The resolution a figure is taken to have when its file does not say (``cffair.reporting._style.DPI``).
FIGURE_DPI = 150.0
#: The smallest a figure's text may show (CSS pixels) at a 390-px window.
MIN_FIGURE_TEXT_PX = 9.0


def figure_text_px(shown: float, natural: float, *, font_pt: float = FIGURE_FONT_PT, dpi: float = FIGURE_DPI) -> float:
    """The size (CSS pixels) that text of ``font_pt`` points in a figure rendered at ``dpi`` shows at
    when the figure, ``natural`` pixels wide, is shown ``shown`` pixels wide.

    >>> round(figure_text_px(342, 1037), 1), round(figure_text_px(342, 900), 1)
    (8.2, 9.5)
    """
    return font_pt * dpi / 72 * shown / natural


def small_figure_text(
    phone: Mapping[str, Any],
    *,
    font_pt: float = FIGURE_FONT_PT,
    dpi: float = FIGURE_DPI,
    least: float = MIN_FIGURE_TEXT_PX,
) -> list[str]:
    """Figures whose text shows under ``least`` pixels at a 390-px window (``phone``'s ``figures``:
    each with ``src``, ``natural`` and ``shown`` widths, and its ``dpi`` when its file gives one)."""
    problems = []
    for fig in phone.get("figures", []):
        if not fig.get("natural"):
            continue
        px = figure_text_px(fig["shown"], fig["natural"], font_pt=font_pt, dpi=fig.get("dpi") or dpi)
        if px < least - 0.05:
            problems.append(
                f"figure {fig['src']} is drawn {fig['natural']} px wide and shown {fig['shown']:.0f} px wide at a "
                f"390-px window: its {font_pt:g}-pt text shows at {px:.1f} px (at least {least:g})"
            )
    return problems


def png_dpi(path: Path) -> float | None:
    """The resolution a PNG file records (its ``pHYs`` chunk, which matplotlib writes), or None."""
    from PIL import Image

    try:
        with Image.open(path) as image:
            dpi = image.info.get("dpi")
    except OSError:
        return None
    return float(dpi[0]) if dpi else None


def with_dpi(phone: Mapping[str, Any], page: Path) -> dict[str, Any]:
    """``phone`` with each figure's ``dpi`` read from its file (a ``src`` relative to ``page``)."""
    figures = []
    for fig in phone.get("figures", []):
        src = unquote(urlparse(fig.get("src") or "").path)
        file = (page.parent / src) if src else None
        figures.append({**fig, "dpi": png_dpi(file) if file is not None and file.is_file() else None})
    return {**phone, "figures": figures}


# ----------------------------------------------------------------------------- all of a page's checks
#: The checks a built page goes through, in the order :func:`page_problems` runs them.
CHECKS = (
    "raw_markup",
    "missing_links",
    "placeholders",
    "too_wide",
    "repeated_admonitions",
    "heading_verdict_mismatch",
    "build_stamp",
    "too_tall",
    "broken_numbers",
    "small_figure_text",
    "basis_mismatch",
)


def page_problems(
    html: str,
    page: Path,
    html_root: Path,
    geometry: Mapping[str, Any],
    version: str,
    cache: dict[Path, set[str]] | None = None,
    phone: Mapping[str, Any] | None = None,
) -> dict[str, list[str]]:
    """Each of :data:`CHECKS`' problems on one built page (``geometry`` as :data:`GEOMETRY_JS` measured it
    at a 1280-px window, ``phone`` at a 390-px one; without ``phone`` the checks of a phone's view find nothing)."""
    phone = with_dpi(phone, page) if phone is not None else {}
    return {
        "raw_markup": raw_markup(html),
        "missing_links": missing_links(html, page, html_root, cache),
        "placeholders": placeholders(html),
        "too_wide": too_wide(geometry),
        "repeated_admonitions": repeated_admonitions(html),
        "heading_verdict_mismatch": heading_verdict_mismatch(html),
        "build_stamp": build_stamp(html, version),
        "too_tall": too_tall(phone, reference=is_reference(html)),
        "broken_numbers": broken_numbers(geometry, phone),
        "small_figure_text": small_figure_text(phone),
        "basis_mismatch": basis_mismatch(html),
    }


# ----------------------------------------------------------------------------- 11. commands
_SHELL_BLOCK = re.compile(r"^```(?:bash|console|shell|sh)\s*\n(.*?)^```", re.S | re.M)
_ENV_COMMAND = re.compile(r"^\s*(?:[A-Z_]+=\S+\s+)*(cffair|python|jupyter|jupyter-book|sphinx-build|pip|pytest)\b")


def bare_commands(source: str) -> list[str]:
    """Commands in a page's shell blocks (MyST source) that would not run after ``make install``:
    ``cffair``, ``python``, ``jupyter``, ... without ``.venv/bin/``, on a page that never says
    ``source .venv/bin/activate`` before them."""
    problems = []
    activated = False
    for block in _SHELL_BLOCK.finditer(source):
        before = source[: block.start()]
        activated = activated or "source .venv/bin/activate" in before
        for line in block.group(1).splitlines():
            if "source .venv/bin/activate" in line:
                activated = True
            elif not activated and _ENV_COMMAND.match(line):
                problems.append(
                    f"“{line.strip()[:60]}” needs the environment: write .venv/bin/"
                    f"{_ENV_COMMAND.match(line).group(1)} or `source .venv/bin/activate` before it"
                )
    return problems


# ----------------------------------------------------------------------------- 12. one basis per page
#: The class of a visible note that says a verdict reads other folds than the page's tables
#: (:func:`cffair_book.basis.basis_note` writes it); it names the datasets it explains.
BASIS_NOTE = "cffair-basis-note"
#: The datasets' display names, longest first (so that "COMPAS(age)" is not read as "COMPAS").
_DATASET_NAMES = ("COMPAS(age)", "Lawschool", "COMPAS", "Adult")
#: A mean as the tables and verdicts print it: three decimals, not a percentage.
_MEAN = re.compile(r"(?<![\w.])[-−+]?\d+\.\d{3}(?![\d%])")


def _without_parentheses(text: str) -> str:
    """``text`` without its parenthesised asides (p-values, flip rates), nested ones included."""
    while True:
        shorter = re.sub(r"\([^()]*\)", " ", text)
        if shorter == text:
            return shorter
        text = shorter


def _number(text: str) -> str:
    return text.replace("−", "-").lstrip("+")


def verdict_quotes(html: str) -> list[tuple[str, str, str]]:
    """The means a page's claims tables quote, as ``(claim key, dataset, number)``: in each claim's
    note (before its "Investigation:"), the three-decimal numbers of each ``;``-separated part that
    starts with a dataset's name, leaving out the parenthesised asides (p-values, sign-flip p,
    flip rates)."""
    quotes = []
    for table in _article(_soup(html)).select("table.cffair-claims-list"):
        for tr in table.select("tbody tr"):
            key = tr.select_one("td.cffair-key")
            paragraphs = [p.get_text(" ") for p in tr.select("details p")]
            notes = [p for p in paragraphs if not p.lstrip().startswith(("Rule:", "Test:"))]
            if key is None or not notes:
                continue
            note = re.sub(r"\s+", " ", notes[-1]).split("Investigation:")[0].replace("COMPAS(age)", "COMPAS_age")
            note = _without_parentheses(note).replace("COMPAS_age", "COMPAS(age)")
            for part in note.split(";"):
                part = part.strip()
                dataset = next((d for d in _DATASET_NAMES if re.match(rf"{re.escape(d)}(?![\w(])", part)), None)
                if dataset is not None:
                    quotes += [(key.get_text(strip=True), dataset, _number(n)) for n in _MEAN.findall(part)]
    return quotes


def table_numbers(html: str) -> dict[str | None, set[str]]:
    """The three-decimal numbers of a page's tables other than its claims tables, by the dataset
    a table's caption ends with ("… — COMPAS"; ``None``: a table of several datasets or none)."""
    out: dict[str | None, set[str]] = {}
    for table in _article(_soup(html)).find_all("table"):
        if "cffair-claims-list" in (table.get("class") or []) or table.find_parent("table") is not None:
            continue
        caption = table.find("caption")
        tail = re.sub(r"\s+", " ", caption.get_text(" ")).rsplit(" — ", 1)[-1].strip() if caption else ""
        dataset = tail if tail in _DATASET_NAMES else None
        cells = " ".join(c.get_text(" ") for c in table.find_all(["td", "th"]))
        out.setdefault(dataset, set()).update(_number(n) for n in _MEAN.findall(cells))
    return out


def basis_mismatch(html: str) -> list[str]:
    """Means a verdict quotes that no table of its page shows, on a page that has tables and no
    visible note (:data:`BASIS_NOTE`) naming the dataset: the verdict then reads other folds than
    the tables (15 folds against the paper's 5, say) and the reader sees two numbers for one
    mean. A page without tables besides its claims tables (the claims page) is not checked."""
    numbers = table_numbers(html)
    if not numbers:
        return []
    article = _article(_soup(html))
    noted = {d for note in article.select(f".{BASIS_NOTE}") for d in _DATASET_NAMES if d in note.get_text(" ")}
    problems = []
    for key, dataset, n in verdict_quotes(html):
        if dataset in noted or n in numbers.get(dataset, set()) | numbers.get(None, set()):
            continue
        problems.append(
            f"{key} quotes {n} on {dataset}, which no table of the page shows, and no note says why"
            " (the verdict reads other folds than the tables?)"
        )
    return problems
