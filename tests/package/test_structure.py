"""The shape of the library: imports run one way, modules stay small, pages define no helpers;
and the tests' shared conftest keeps a developer's settings out of the run."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from cffair._support.utils import project_root
from cffair.experiments import SourceTree

#: The largest module we accept (lines); DESIGN.md asks for "about 600".
MAX_LINES = 650


def test_the_cycle_finder_finds_a_cycle_and_sees_type_only_imports():
    src = {"p": "", "p.a": "import p.b", "p.b": "import p.c", "p.c": "from p import a", "p.d": "import p.a"}
    assert SourceTree(src, frozenset({"p"})).cycles() == [["p.a", "p.b", "p.c"]]
    assert SourceTree({"p": "", "p.a": "import p.b", "p.b": ""}, frozenset({"p"})).cycles() == []
    typed = {
        "p": "",
        "p.a": "import p.b",
        "p.b": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import p.a\n",
    }
    assert SourceTree(typed, frozenset({"p"})).cycles() == [["p.a", "p.b"]]
    assert SourceTree(typed, frozenset({"p"})).cycles(type_only=False) == []


def _trees() -> list[SourceTree]:
    """The library as installed, and the book package of this checkout."""
    return [SourceTree.installed(), SourceTree.from_directory(project_root() / "cffair_book", package="cffair_book")]


@pytest.mark.parametrize("which", [0, 1], ids=["cffair", "cffair_book"])
def test_no_import_cycle_in_the_library(which):
    """From the modules' own import statements (also those inside functions, and those under
    ``TYPE_CHECKING``: a cycle only a type checker follows is still two modules that need each other)."""
    # a package's __init__ re-exporting its submodules is not a cycle with them
    assert _trees()[which].cycles(type_only=False) == []
    assert _trees()[which].cycles(type_only=True) == []


#: The support part: what every other part builds on (``tools/structure.py``'s lowest layer).
SUPPORT = ("cffair.errors", "cffair._support")


def _is_support(module: str) -> bool:
    return any(module == p or module.startswith(p + ".") for p in SUPPORT)


def test_the_support_part_imports_nothing_above_it():
    """``cffair._support`` and ``cffair.errors`` import (type-only imports and imports inside functions
    included) only each other, never a part they support: the file container knows no flow or learner,
    validation no dataset check or model contract."""
    graph = SourceTree.installed().import_graph(type_only=True)
    assert any(_is_support(m) for m in graph), "no support module found: the part was renamed?"
    upward = sorted(
        f"{m} -> {t}"
        for m, targets in graph.items()
        if _is_support(m)
        for t in targets
        if t != "cffair" and not _is_support(t)
    )
    assert upward == [], f"the support part imports parts above it: {upward}"


def test_the_support_check_sees_a_type_only_import_upward():
    """The check above reads imports under ``TYPE_CHECKING`` and inside functions."""
    src = {
        "cffair": "",
        "cffair._support": "",
        "cffair._support.a": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from cffair.causal import b\n",
        "cffair._support.c": "def f():\n    import cffair.learners.d\n",
        "cffair.causal": "",
        "cffair.causal.b": "import cffair._support.a\n",
        "cffair.learners": "",
        "cffair.learners.d": "",
    }
    graph = SourceTree(src, frozenset({"cffair", "cffair._support", "cffair.causal", "cffair.learners"}))
    edges = graph.import_graph(type_only=True)
    assert "cffair.causal.b" in edges["cffair._support.a"] and "cffair.learners.d" in edges["cffair._support.c"]
    assert graph.cycles(type_only=True) == [["cffair._support.a", "cffair.causal.b"]]


@pytest.mark.parametrize("which", [0, 1], ids=["cffair", "cffair_book"])
def test_no_module_is_too_long(which):
    tree = _trees()[which]
    long = {m: n for m, src in tree.sources.items() if (n := len(src.splitlines())) > MAX_LINES}
    assert not long, f"modules over {MAX_LINES} lines: {long}"


def test_book_pages_and_notebooks_define_no_hidden_helpers():
    """No page hides library code: a function defined in a hidden code cell belongs in cffair.
    (Code the reader is meant to read and edit, a teaching cell or an exercise's solution, may
    define a small function.)"""
    root = project_root()
    pages = [*root.glob("book/*.md"), *root.glob("notebooks/*.md"), root / "intro.md"]
    offenders = []
    for p in pages:
        text = p.read_text(encoding="utf-8")
        for cell in re.finditer(r"```\{code-cell\}[^\n]*\n(.*?)```", text, flags=re.S):
            body = cell.group(1)
            hidden = re.search(r"^:tags:.*(hide-input|hide-cell|remove-input|remove-cell)", body, flags=re.M)
            if hidden and re.search(r"^\s*(def|class) \w+", body, flags=re.M):
                offenders.append(f"{p.relative_to(root)}:{text[: cell.start()].count(chr(10)) + 1}")
    assert not offenders, f"hidden cells define helpers (move them into the library): {offenders}"


def test_the_shared_conftest_takes_developer_settings_out_of_the_environment(tmp_path: Path) -> None:
    """A setting a developer exported (``CFFAIR_BACKEND=dask``) does not reach the tests."""
    import subprocess
    import sys

    probe = tmp_path / "test_probe.py"
    probe.write_text(
        "import os\n\n"
        "def test_probe(private_cache):\n"
        "    assert 'CFFAIR_BACKEND' not in os.environ and 'CFFAIR_MODE' not in os.environ\n"
        "    assert os.environ['CFFAIR_CACHE'] == str(private_cache) and not private_cache.exists()\n"
    )
    env = {**os.environ, "CFFAIR_BACKEND": "dask", "CFFAIR_MODE": "full", "PYTHONPATH": str(project_root() / "tests")}
    out = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "conftest", "-p", "no:cacheprovider", str(probe)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
    )
    assert out.returncode == 0, out.stdout + out.stderr


#: An HTML tag in a string: what the book's pages say, not the library (issue #22).
_HTML_TAG = re.compile(
    r"</?(p|div|span|strong|em|b|i|table|thead|tbody|tr|td|th|a|br|ul|ol|li|h[1-6]|details|summary|style)(\s[^<>]*)?/?>"
)
#: The library modules that may write HTML: the table renderer (cells: bold best values, the paper's
#: value beneath ours) and the own-data report, a self-contained HTML file by design.
HTML_ALLOWED = {"cffair/reporting/_tables.py", "cffair/reporting/_report.py"}


def _html_literals(source: str) -> list[tuple[int, str]]:
    """Non-docstring string constants of a module's source that hold an HTML tag: ``(line, text)``.

    >>> _html_literals("def f():\\n    '<p>a docstring</p>'\\nx = '<p>a page</p>'\\ny = 'a <= b'\\n")
    [(3, '<p>a page</p>')]
    """
    import ast

    tree = ast.parse(source)
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    return [
        (node.lineno, node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and id(node) not in docstrings
        and _HTML_TAG.search(node.value)
    ]


def test_html_is_written_only_by_the_table_renderer_and_the_report_template():
    root = project_root()
    found = {
        f"{path.relative_to(root)}:{line}": text[:80]
        for path in sorted((root / "cffair").rglob("*.py"))
        if str(path.relative_to(root)) not in HTML_ALLOWED
        for line, text in _html_literals(path.read_text(encoding="utf-8"))
    }
    assert not found, f"HTML in the library outside {sorted(HTML_ALLOWED)}: {found}"
