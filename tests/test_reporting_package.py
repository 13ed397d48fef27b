"""The shape of cffair.reporting: one-way imports, the public API the book uses, the claims registry."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest

from cffair import reporting

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "cffair" / "reporting"

# Each module may import only from modules of a lower layer.
LAYERS = {"names": 0, "stats": 0, "paper": 1, "style": 1, "records": 2, "describe": 2, "reproduction": 2, "tables": 3, "figures": 3,
          "verdicts": 3, "investigations": 4, "why": 4, "beyond": 4, "report": 4, "registry": 4, "claims": 5, "rulers": 6,
          "dependence": 7}

# The public API of the single-module cffair.reporting before it became a package.
OLD_API = [
    "RESULT_COLUMNS", "METHOD_NAMES", "DATASET_NAMES", "METRIC_NAMES", "TABLE_METHODS", "Q1_SETTINGS", "FIGURE4_SETTINGS",
    "EXTRA_BASELINES", "TABLE4_COLUMNS", "TABLE4_PAPER_SAT", "HIGHER_IS_BETTER", "Claim", "HTMLTable", "abbreviate_subgroup",
    "best_cells", "check_results", "claim_status", "claims_table", "cke_candidates", "compare", "comparison_table",
    "eq3_table", "evaluate_claims", "performance_metric", "plot_tradeoff", "plot_weight_trend", "query_sat_table",
    "query_table", "record_method", "records_frame", "results_long", "results_table", "subgroup_frame",
    "table3_comparison", "table5_frame", "table6_frame", "undesirable_ratio_frame", "weight_grid_frame", "dataset_name",
    "format_cell", "format_delta", "format_table", "method_name", "metric_name", "paper_table", "paper_tables",
    "paper_value", "plot_cf_mse_settings", "plot_subgroup_cf_mse", "plot_undesirable_ratio", "side_by_side",
    "summarise_folds", "paired_folds", "folds_per_dataset",
]


def _internal_imports(path: Path) -> set[str]:
    """The cffair.reporting modules that ``path`` imports (at any depth of the file)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module:
            if node.module.startswith("cffair.reporting."):
                found.add(node.module.split(".")[2])
            elif node.module == "cffair.reporting" or (node.level and node.module is None):
                found.update(a.name for a in node.names)
            elif node.level:
                found.add(node.module.split(".")[0])
        elif isinstance(node, ast.Import):
            found.update(a.name.split(".")[2] for a in node.names if a.name.startswith("cffair.reporting."))
    return found


def test_every_module_is_in_a_layer_and_under_600_lines():
    modules = {p.stem for p in PACKAGE.glob("*.py")} - {"__init__"}
    assert modules == set(LAYERS)
    for m in modules:
        lines = len((PACKAGE / f"{m}.py").read_text(encoding="utf-8").splitlines())
        assert lines <= 600, f"cffair/reporting/{m}.py has {lines} lines"


@pytest.mark.parametrize("module", sorted(LAYERS))
def test_imports_run_one_way(module):
    for imported in _internal_imports(PACKAGE / f"{module}.py"):
        assert imported in LAYERS, f"{module} imports {imported}, which is not a module of the package"
        assert LAYERS[imported] < LAYERS[module], f"{module} (layer {LAYERS[module]}) imports {imported} (layer {LAYERS[imported]})"


def test_the_package_reexports_every_public_name_of_its_modules():
    import importlib

    names = set()
    for m in LAYERS:
        module = importlib.import_module(f"cffair.reporting.{m}")
        names |= set(module.__all__)
        for name in module.__all__:
            assert getattr(reporting, name) is getattr(module, name)
    assert set(reporting.__all__) == names and len(reporting.__all__) == len(names)
    assert set(OLD_API) <= names


def test_every_reporting_name_the_book_and_tests_use_exists():
    used: dict[str, set[str]] = {}
    files = [*ROOT.glob("notebooks/*.md"), *ROOT.glob("book/*.md"), ROOT / "intro.md", *ROOT.glob("benchmarks/*.py"),
             *ROOT.glob("tests/*.py")]
    for path in files:
        for name in re.findall(r"\breporting\.([A-Za-z_]\w*)", path.read_text(encoding="utf-8")):
            used.setdefault(name, set()).add(path.name)
    for m in (*LAYERS, "py"):  # submodules, and prose about the old reporting.py
        used.pop(m, None)
    missing = {n: sorted(f) for n, f in used.items() if not hasattr(reporting, n)}
    assert not missing, f"pages use names cffair.reporting lacks: {missing}"
    assert "compare" in used and "evaluate_claims" in used  # the scan does find the notebooks' calls


def test_importing_reporting_loads_neither_matplotlib_nor_torch():
    code = "import sys, cffair.reporting; print(sorted(m for m in ('matplotlib', 'torch', 'cffair.experiments') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    assert out.stdout.strip() == "[]"


def test_every_claim_links_to_an_existing_notebook():
    for key, (stem, _) in reporting.NOTEBOOK_PAGES.items():
        assert (ROOT / "notebooks" / f"{stem}.md").is_file(), f"NOTEBOOK_PAGES[{key!r}] names a missing notebook {stem}"


def test_the_claims_registry_in_the_books_order():
    assert list(reporting.CLAIM_CHECKS) == [
        "Q1.1", "Q1.2", "Q1.3", "Q1.4", "Q1.5", "Q1.6", "Q2.1", "Q2.2", "Q2.3", "Q2.4",
        "Q3.1", "Q3.2", "Q3.3", "Q3.4", "Q3.5", "Q3.6", "Q4.1", "A.1", "A.2", "B.1",
    ]
    claims = reporting.evaluate_claims([], base="../")
    assert [c.key for c in claims] == list(reporting.CLAIM_CHECKS)
    assert {c.holds for c in claims} == {None}
    assert all(c.note for c in claims)  # an undecided claim says why
    assert claims[-1].where == ("Appendix B", "../notebooks/appendix_b_axiom_weights.html")
    assert claims[10].source == "§7.3, Figure 4" and claims[10].claim.startswith("On COMPAS, knowledge extraction")


def test_claim_check_rejects_a_duplicate_key_and_an_unknown_page():
    with pytest.raises(ValueError, match="registered twice"):
        reporting.claim_check("Q1.1", "again", "Table 1", "q1")(lambda e: (None, ""))
    with pytest.raises(ValueError, match="unknown page 'q9'"):
        reporting.claim_check("X.1", "x", "", "q9")
    assert "X.1" not in reporting.CLAIM_CHECKS
