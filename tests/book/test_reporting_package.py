"""The shape of cffair.reporting: one-way imports, the public API the book uses, the claims registry."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest

import cffair_book as book
from cffair import reporting

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "cffair" / "reporting"
BOOK = ROOT / "cffair_book"

# Each module may import only from modules of a lower layer (of its own package).
LAYERS = {
    "_names": 0,
    "_stats": 0,
    "_scores": 0,
    "_paper": 1,
    "_style": 1,
    "_records": 2,
    "_investigation_frames": 3,
    "_describe": 2,
    "_tables": 3,
    "_comparison": 4,
    "_figures": 3,
    "_datafigures": 4,
    "_chapter_tables": 4,
    "_verdicts": 3,
    "_recommendation": 3,
    "_model_selection": 4,
    "_group_table": 4,
    "_report": 5,
}
# The book package sits above the whole of cffair.reporting.
BOOK_LAYERS = {
    "layout": 0,
    "build_stamp": 0,
    "claims_cache": 0,
    "wording": 0,
    "reproduction": 1,
    "scaling": 1,
    "teaching": 0,
    "directions": 0,
    "commands": 0,
    "html_block": 0,
    "protocol_page": 1,
    "selfcheck": 2,
    "speed": 1,
    "fidelity": 1,
    "chapters": 0,
    "execute": 1,
    "results": 1,
    "freshness": 1,
    "basis": 1,
    "saturation": 1,
    "investigations": 1,
    "why": 1,
    "beyond": 1,
    "gan_study": 1,
    "baseline_gap": 2,
    "registry": 1,
    "pages": 2,
    "course": 3,
    "claim_tools": 2,
    "claims_q1": 3,
    "claims_q2": 3,
    "claims_q3": 3,
    "claims_q4": 3,
    "claims_appendix_a": 3,
    "claims_appendix_b": 3,
    "claims": 4,
    "rulers": 5,
    "dependence": 6,
    "score_claims": 5,
}

# The library user's part of the API of the single-module cffair.reporting before it became a package
# (the claims moved to the book package with the rest of what the book says).
OLD_API = [
    "RESULT_COLUMNS",
    "METHOD_NAMES",
    "DATASET_NAMES",
    "METRIC_NAMES",
    "TABLE_METHODS",
    "Q1_SETTINGS",
    "FIGURE4_SETTINGS",
    "EXTRA_BASELINES",
    "TABLE4_PAPER_SAT",
    "HIGHER_IS_BETTER",
    "HTMLTable",
    "abbreviate_subgroup",
    "check_results",
    "cke_candidates",
    "compare",
    "comparison_table",
    "eq3_table",
    "performance_metric",
    "plot_tradeoff",
    "plot_weight_trend",
    "query_sat_table",
    "query_table",
    "records_frame",
    "results_long",
    "results_table",
    "subgroup_frame",
    "table3_comparison",
    "table5_frame",
    "table6_frame",
    "undesirable_ratio_frame",
    "weight_grid_frame",
    "dataset_name",
    "format_cell",
    "format_delta",
    "format_table",
    "method_name",
    "metric_name",
    "paper_table",
    "paper_tables",
    "paper_value",
    "plot_cf_mse_settings",
    "plot_subgroup_cf_mse",
    "plot_undesirable_ratio",
    "side_by_side",
    "summarise_folds",
    "paired_folds",
    "folds_per_dataset",
]


def _internal_imports(path: Path, package: str = "cffair.reporting") -> set[str]:
    """The modules of ``package`` that ``path`` imports (at any depth of the file)."""
    found = set()
    depth = package.count(".") + 1
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module:
            if node.module.startswith(package + "."):
                found.add(node.module.split(".")[depth])
            elif node.module == package or (node.level and node.module is None):
                found.update(a.name for a in node.names)
            elif node.level:
                found.add(node.module.split(".")[0])
        elif isinstance(node, ast.Import):
            found.update(a.name.split(".")[depth] for a in node.names if a.name.startswith(package + "."))
    return found


@pytest.mark.parametrize(("folder", "layers"), [(PACKAGE, LAYERS), (BOOK, BOOK_LAYERS)], ids=["reporting", "book"])
def test_every_module_is_in_a_layer_and_under_600_lines(folder, layers):
    modules = {p.stem for p in folder.glob("*.py")} - {"__init__"}
    assert modules == set(layers)
    for m in modules:
        lines = len((folder / f"{m}.py").read_text(encoding="utf-8").splitlines())
        assert lines <= 600, f"{folder.name}/{m}.py has {lines} lines"


@pytest.mark.parametrize("module", sorted(LAYERS))
def test_imports_run_one_way(module):
    for imported in _internal_imports(PACKAGE / f"{module}.py"):
        assert imported in LAYERS, f"{module} imports {imported}, which is not a module of the package"
        assert LAYERS[imported] < LAYERS[module], (
            f"{module} (layer {LAYERS[module]}) imports {imported} (layer {LAYERS[imported]})"
        )


@pytest.mark.parametrize("module", sorted(BOOK_LAYERS))
def test_the_book_packages_imports_run_one_way(module):
    for imported in _internal_imports(BOOK / f"{module}.py", "cffair_book"):
        assert imported in BOOK_LAYERS, f"{module} imports {imported}, which is not a module of the book package"
        assert BOOK_LAYERS[imported] < BOOK_LAYERS[module], (
            f"{module} (layer {BOOK_LAYERS[module]}) imports {imported} (layer {BOOK_LAYERS[imported]})"
        )


def test_the_library_never_imports_the_book_package():
    offenders = [
        str(p.relative_to(ROOT))
        for p in (ROOT / "cffair").rglob("*.py")
        if re.search(r"^\s*(from|import) cffair_book\b", p.read_text(encoding="utf-8"), flags=re.M)
    ]
    assert not offenders, f"the installed library imports the book package: {offenders}"


def test_the_package_reexports_what_a_library_user_needs_and_nothing_is_missing():
    import importlib

    for name in reporting.__all__:
        assert hasattr(reporting, name), f"cffair.reporting.__all__ names {name!r}, which it lacks"
    names = set()
    for m in LAYERS:
        module = importlib.import_module(f"cffair.reporting.{m}")
        names |= set(module.__all__)
    exported = set(reporting.__all__) - set(LAYERS)
    assert exported <= names  # every re-export is a module's public name, the same object
    for name in exported:
        assert any(
            getattr(importlib.import_module(f"cffair.reporting.{m}"), name, None) is getattr(reporting, name)
            for m in LAYERS
        )
    assert set(OLD_API) <= exported
    # trimmed from the 211 re-exports of the book's whole argument; the modules are private, so a user imports from here
    assert len(exported) < 125


def test_the_book_package_reexports_its_modules_public_names():
    import importlib

    for m in (
        "claims",
        "why",
        "investigations",
        "rulers",
        "beyond",
        "reproduction",
        "dependence",
        "gan_study",
        "baseline_gap",
        "score_claims",
        "directions",
    ):
        module = importlib.import_module(f"cffair_book.{m}")
        for name in module.__all__:
            assert getattr(book, name) is getattr(module, name), f"cffair_book lacks {m}.{name}"


def test_every_reporting_name_the_book_and_tests_use_exists():
    files = [
        *ROOT.glob("notebooks/*.md"),
        *ROOT.glob("book/*.md"),
        ROOT / "intro.md",
        *ROOT.glob("benchmarks/*.py"),
        *ROOT.glob("tests/**/*.py"),
    ]
    for prefix, namespace, skip in (("reporting", reporting, (*LAYERS, "py")), ("book", book, (*BOOK_LAYERS, "yml"))):
        used: dict[str, set[str]] = {}
        for path in files:
            text = path.read_text(encoding="utf-8")
            if prefix == "book" and "import cffair_book as book" not in text:
                continue  # ``book`` is another name there (a folder, a file name)
            for name in re.findall(rf"(?<![\w.]){prefix}\.([A-Za-z_]\w*)", text):
                used.setdefault(name, set()).add(path.name)
        for m in skip:  # submodules, prose about the old reporting.py and the workflow file book.yml
            used.pop(m, None)
        missing = {n: sorted(f) for n, f in used.items() if not hasattr(namespace, n)}
        assert not missing, f"pages use names {namespace.__name__} lacks: {missing}"
        assert used  # the scan does find the notebooks' calls


@pytest.mark.parametrize("package", ["cffair.reporting", "cffair_book"])
def test_importing_reporting_loads_neither_matplotlib_nor_torch(package):
    # the experiments part's light modules (its registry, configs and protocol) are what reporting reads; its grid,
    # store, pipeline and torch are not
    heavy = "('matplotlib', 'torch', 'cffair.experiments._grid', 'cffair.experiments._store', 'cffair.experiments._pipeline')"
    code = f"import sys, {package}; print(sorted(m for m in {heavy} if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    assert out.stdout.strip() == "[]"


def test_every_claim_links_to_an_existing_notebook():
    for key, (stem, _) in book.NOTEBOOK_PAGES.items():
        assert (ROOT / "notebooks" / f"{stem}.md").is_file(), f"NOTEBOOK_PAGES[{key!r}] names a missing notebook {stem}"


def test_the_claims_registry_in_the_books_order():
    assert list(book.CLAIM_CHECKS) == [
        "Q1.1",
        "Q1.2",
        "Q1.3",
        "Q1.4",
        "Q1.5",
        "Q1.6",
        "Q2.1",
        "Q2.2",
        "Q2.3",
        "Q2.4",
        "Q3.1",
        "Q3.2",
        "Q3.3",
        "Q3.4",
        "Q3.5",
        "Q3.6",
        "Q4.1",
        "A.1",
        "A.2",
        "B.1",
    ]
    claims = book.evaluate_claims([], base="../")
    assert [c.key for c in claims] == list(book.CLAIM_CHECKS)
    assert {c.holds for c in claims} == {None}
    assert all(c.note for c in claims)  # an undecided claim says why
    assert claims[-1].where == ("Appendix B", "../notebooks/appendix_b_axiom_weights.html")
    assert claims[10].source == "§7.3, Figure 4" and claims[10].claim.startswith("On COMPAS, knowledge extraction")


def test_claim_check_rejects_a_duplicate_key_and_an_unknown_page():
    with pytest.raises(ValueError, match="registered twice"):
        book.claim_check("Q1.1", "again", "Table 1", "q1")(lambda e: (None, ""))
    with pytest.raises(ValueError, match="unknown page 'q9'"):
        book.claim_check("X.1", "x", "", "q9")
    assert "X.1" not in book.CLAIM_CHECKS


def _html_classes(source: str) -> set[str]:
    """The CSS classes named in the HTML literals of a module (``class="a b"``, f-string fields left out)."""
    found = set()
    for attr in re.findall(r'class="([^"]*)"', source):
        found |= {c for c in attr.split() if c.startswith("cffair-") and "{" not in c}
    return found


def test_no_html_literal_carries_an_inline_style_and_every_class_has_a_rule():
    """Tables and boxes carry classes; their look lives in the book's CSS (and the own-data report's)."""
    book_css = (ROOT / "_static" / "cffair.css").read_text(encoding="utf-8")
    report_css = (ROOT / "cffair" / "data" / "report.css").read_text(encoding="utf-8")
    sources = {p: p.read_text(encoding="utf-8") for p in [*PACKAGE.glob("*.py"), *BOOK.glob("*.py")]}
    styled = [str(p.relative_to(ROOT)) for p, s in sources.items() if re.search(r"<[a-z]+[^>]*\bstyle=", s)]
    assert not styled, f"HTML with inline style= in {styled}: give it a class and a rule in _static/cffair.css"
    classes = set().union(*map(_html_classes, sources.values())) | {
        "cffair-compact",
        "cffair-badge-complete",
        "cffair-badge-partial",
    }
    hooks = {"cffair-evidence"}  # a cell that looks like any other (a name to find it by, no rule of its own)
    undefined = sorted(c for c in classes - hooks if f".{c}" not in book_css)
    assert not undefined, f"classes without a rule in _static/cffair.css: {undefined}"
    for c in ("cffair-table", "cffair-compact", "cffair-caption", "cffair-sub"):  # what format_table emits
        assert f".{c}" in report_css, f"cffair/data/report.css lacks .{c}"


def test_the_own_data_report_embeds_its_stylesheet():
    from cffair.reporting import _report as report

    css = report._style()
    assert css == (ROOT / "cffair" / "data" / "report.css").read_text(encoding="utf-8")
    assert "table.cffair-table.cffair-compact" in css
