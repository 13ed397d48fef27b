"""The book's links to running code and to a citation (issue 42).

* every page's footer says how to cite the version it was built from (``book/_ext/citation.py``
  through ``book_source``);
* every downloaded notebook starts with an install cell that installs this project at the book's
  version where it is missing, and sets the notebook to compute when there are no committed results
  (``ipynb_download``); the book package ships in the wheel.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import yaml

import cffair

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "book" / "_ext"))

import book_source  # noqa: E402
import citation  # noqa: E402
import ipynb_download  # noqa: E402


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


# ============================================================================ the install cell of a downloaded notebook
BUILD = {"version": "0.2.0", "date": "2030-01-02", "url": "https://github.com/o/cffair", "ref": "v0.2.0"}


def _run_cell(cell: str, tmp_path: Path, *, hide_book: bool, results: bool, mode: str | None = None) -> dict:
    """Run an install cell in a fresh interpreter of this environment, with pip replaced by a recorder and,
    with ``hide_book``, the book package made unfindable (as on a host where cffair is not installed)."""
    prelude = (
        "import importlib.util, json, os, subprocess\n"
        "calls = []\n"
        "subprocess.run = lambda cmd, **kw: calls.append(cmd)\n"
        + (
            "_find = importlib.util.find_spec\n"
            "importlib.util.find_spec = lambda n, *a, **k: None if n == 'cffair_book' else _find(n, *a, **k)\n"
            if hide_book
            else ""
        )
    )
    store = tmp_path / "results"
    if results:
        (store / "full").mkdir(parents=True, exist_ok=True)
    env = {k: v for k, v in os.environ.items() if k != "CFFAIR_MODE"}
    env.update({"PYTHONPATH": str(ROOT), "CFFAIR_RESULTS": str(store)})
    if mode:
        env["CFFAIR_MODE"] = mode
    script = prelude + "error = None\ntry:\n    exec(CELL)\nexcept RuntimeError as exc:\n    error = str(exc)\n"
    script += "print(json.dumps({'calls': calls, 'mode': os.environ.get('CFFAIR_MODE'), 'error': error}))\n"
    done = subprocess.run(
        [sys.executable, "-c", f"CELL = {cell!r}\n" + script], capture_output=True, text=True, env=env, cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_the_install_cell_installs_this_version_only_where_the_book_package_is_missing(tmp_path: Path) -> None:
    cell = ipynb_download.install_cell(BUILD)
    # a notebook host: pip installs the project at the tag, with the notebooks' extra
    host = _run_cell(cell, tmp_path, hide_book=True, results=False)
    assert host["calls"] == [
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--quiet",
            "cffair[notebooks] @ git+https://github.com/o/cffair@v0.2.0",
        ]
    ]
    assert host["mode"] == "quick"  # no committed results there: the chapter computes a small version
    # the project's environment (the book package importable, committed results present): nothing happens
    here = _run_cell(cell, tmp_path, hide_book=False, results=True)
    assert here == {"calls": [], "mode": None, "error": None}
    # a mode the reader chose is kept
    assert _run_cell(cell, tmp_path, hide_book=False, results=False, mode="render")["mode"] == "render"


def test_without_a_repository_address_the_install_cell_says_where_to_get_the_source(tmp_path: Path) -> None:
    cell = ipynb_download.install_cell({"version": "0.2.0", "url": None})
    out = _run_cell(cell, tmp_path, hide_book=True, results=False)
    assert out["calls"] == [] and "source archive in the book's footer" in out["error"]
    assert 'pip install "cffair[notebooks] @ file://' in out["error"]


def test_every_downloaded_chapter_starts_with_the_install_cell(tmp_path: Path) -> None:
    """The notebooks the build offers: the preface, then the install cell, then the page's own cells."""
    import jupytext
    import nbformat

    for page in sorted((ROOT / "notebooks").glob("*.md")) + [ROOT / "book" / "own_data.md"]:
        target = tmp_path / f"{page.stem}.ipynb"
        ipynb_download.write_ipynb(page, target, build=BUILD)
        nb = nbformat.read(target, as_version=4)
        nbformat.validate(nb)
        first_code = next(c for c in nb.cells if c.cell_type == "code")
        assert nb.cells.index(first_code) == 1 and first_code.source == ipynb_download.install_cell(BUILD), page
        own = [c.source for c in jupytext.read(page).cells if c.cell_type == "code"]
        assert [c.source for c in nb.cells if c.cell_type == "code"][1:] == own, page
