"""The research-question notebooks run in quick mode, and the committed results cover the book.

(a) Every notebook in ``notebooks/`` (the MyST-markdown sources) is converted to ``.ipynb``
    with jupytext and executed with papermill in quick mode (``parameters={"mode": "quick"}``)
    with a fresh ``$CFFAIR_RESULTS`` under pytest's tmp dir, so the kernel computes its own
    records. Each executed notebook must have no error output, show at least one HTML
    ``<table>``, and, for the pages with figures, at least one PNG image. The notebooks share
    one results folder, so later notebooks reuse the records earlier ones computed (as in
    ``cffair reproduce``).
(b) ``results/full`` (the committed full reproduction, read by the book in render mode) holds a
    record for every config of ``paper_grid("full")``.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from cffair import experiments, reproduce

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOK_DIR = ROOT / "notebooks"

#: The notebooks of the book and whether each must show a figure (image/png output).
NOTEBOOKS: dict[str, bool] = {
    "q1_counterfactual_fairness": True,
    "q2_baselines": True,
    "q3_knowledge_extraction": True,
    "q4_queries": False,
    "appendix_a_other_counterfactuals": False,
    "appendix_b_axiom_weights": True,
    "appendix_c_rulers": True,
}


def test_notebook_list_matches_the_folder_and_the_library() -> None:
    on_disk = {p.stem for p in NOTEBOOK_DIR.glob("*.md")}
    assert on_disk == set(NOTEBOOKS), f"notebooks/ holds {sorted(on_disk)}, the test expects {sorted(NOTEBOOKS)}"
    assert set(reproduce.NOTEBOOKS.values()) == set(NOTEBOOKS)


@pytest.mark.parametrize("name", sorted(NOTEBOOKS))
def test_notebook_structure(name: str) -> None:
    """A title, a ``parameters`` cell with ``mode = None``, then the cell that resolves the mode."""
    import jupytext

    nb = jupytext.read(NOTEBOOK_DIR / f"{name}.md")
    first_md = next(c for c in nb.cells if c.cell_type == "markdown")
    assert first_md.source.lstrip().startswith("# "), "the first markdown cell must start with a '# Title' heading"
    code = [c for c in nb.cells if c.cell_type == "code"]
    params = [i for i, c in enumerate(code) if "parameters" in c.metadata.get("tags", [])]
    assert len(params) == 1, "exactly one cell tagged 'parameters'"
    assert code[params[0]].source.strip() == "mode = None"
    nxt = code[params[0] + 1].source
    assert "reproduce.resolve_mode(mode)" in nxt and "reproduce.results_for(mode" in nxt
    assert 'matplotlib.use("Agg")' not in "".join(c.source for c in code)
    # Plotting and table code is folded away; only the loading cell shows its input.
    for c in code[params[0] + 2:]:
        tags = c.metadata.get("tags", [])
        assert "hide-input" in tags or "remove-input" in tags, f"cell {c.source[:60]!r} should be tagged hide-input"
    assert "## Exercises" in "".join(c.source for c in nb.cells if c.cell_type == "markdown")


# ============================================================================ executing them
def _outputs(nb: dict) -> list[dict]:
    return [o for c in nb["cells"] if c["cell_type"] == "code" for o in c.get("outputs", [])]


@pytest.fixture(scope="module")
def executed(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[dict, float]]:
    """Every notebook executed in quick mode, with its wall time (one shared results folder)."""
    import jupytext
    import papermill as pm

    tmp = tmp_path_factory.mktemp("notebooks")
    saved = {k: os.environ.get(k) for k in ("CFFAIR_RESULTS", "CFFAIR_MODE")}
    # The kernel inherits the environment of this process.
    os.environ["CFFAIR_RESULTS"] = str(tmp / "results")
    os.environ.pop("CFFAIR_MODE", None)
    out: dict[str, tuple[dict, float]] = {}
    try:
        for name in NOTEBOOKS:
            src = tmp / f"{name}.ipynb"
            jupytext.write(jupytext.read(NOTEBOOK_DIR / f"{name}.md"), src)
            dst = tmp / f"{name}.out.ipynb"
            start = time.perf_counter()
            try:
                pm.execute_notebook(str(src), str(dst), parameters={"mode": "quick"}, cwd=str(NOTEBOOK_DIR),
                                    kernel_name="python3", progress_bar=False)
            except pm.PapermillExecutionError:
                pass  # the error output is in dst; the tests below report it
            out[name] = (json.loads(dst.read_text()), time.perf_counter() - start)
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    return out


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(NOTEBOOKS))
def test_notebook_runs_in_quick_mode(executed: dict[str, tuple[dict, float]], name: str) -> None:
    nb, seconds = executed[name]
    errors = [o for o in _outputs(nb) if o["output_type"] == "error"]
    assert not errors, f"{name} failed after {seconds:.0f} s: {errors[0]['ename']}: {errors[0]['evalue']}"
    # papermill injected the quick mode, and the notebook resolved it
    sources = [c["source"] if isinstance(c["source"], str) else "".join(c["source"]) for c in nb["cells"]]
    assert any("mode = \"quick\"" in s or "mode = 'quick'" in s for s in sources), "papermill did not inject mode='quick'"
    html = ["".join(o["data"]["text/html"]) for o in _outputs(nb) if "text/html" in o.get("data", {})]
    assert any("<table" in h for h in html), f"{name} shows no HTML table"
    pngs = [o for o in _outputs(nb) if "image/png" in o.get("data", {})]
    if NOTEBOOKS[name]:
        assert pngs, f"{name} shows no figure (image/png output)"
    # Every table that compares with the paper says so.
    if name in ("q1_counterfactual_fairness", "q2_baselines", "q3_knowledge_extraction"):
        assert any("paper" in h and "Δ" in h for h in html), f"{name} has no ours-vs-paper table with a Δ column"


# ============================================================================ committed results
def test_committed_full_results_cover_every_table() -> None:
    """Every record of the full protocol (:func:`cffair.experiments.paper_grid`) is committed in
    results/full with its metrics, the CKE steps of Table 3, and the run's provenance."""
    root = ROOT / "results" / "full"
    assert (root / "provenance.json").is_file(), "results/full/provenance.json is missing"
    store = experiments.ResultsStore(root)
    st = reproduce.status(store, experiments.paper_grid("full"))
    missing = st.loc[st["state"] == "missing", "key"].tolist()
    assert not missing, f"{len(missing)} of {len(st)} records missing from results/full, e.g. {missing[:10]}"
    for rec in store.records():
        assert {"accuracy", "mse"} & set(rec["metrics"]) and "cf_mse_by_subgroup" in rec["metrics"]
    table3 = [r for r in store.records() if r["config"]["dataset"] == "adult" and r["config"]["setting"] == "ltn_acc_cf_cke"]
    assert table3 and table3[0]["cke"]["steps"], "Table 3 needs the CKE steps of Adult"
