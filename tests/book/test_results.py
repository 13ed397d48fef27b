"""The records the book reads: the checkout's results folder, wherever the kernel runs.

The library's default results folder is the working folder's ``results/``; a chapter opened from the
book's launch buttons (or run by papermill) has its kernel in ``notebooks/``, so the book names its own
folder (:mod:`cffair_book.results`).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from cffair import workflows
from cffair.experiments import ResultsStore, paper_grid
from cffair_book import execute, layout, results


@pytest.fixture
def no_results_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """No results folder named (empty reads as unset); whatever a test pins is undone after it."""
    monkeypatch.setenv("CFFAIR_RESULTS", "")


def test_a_kernel_in_notebooks_reads_the_checkouts_records(no_results_env, monkeypatch) -> None:
    """From ``notebooks/`` the library's default finds no store there; the book's reader finds the
    committed one, the same records as from the checkout's root."""
    monkeypatch.chdir(layout.ROOT)
    from_root = results.results_for("render", ["q1"], datasets=["compas"])
    monkeypatch.chdir(layout.ROOT / "notebooks")
    assert workflows.results_root() == layout.ROOT / "notebooks" / "results"
    with pytest.raises(FileNotFoundError, match="no results for"):
        workflows.results_for("render", ["q1"], datasets=["compas"])
    assert results.results_root() == layout.RESULTS
    from_notebooks = results.results_for("render", ["q1"], datasets=["compas"])
    expected = {ResultsStore(layout.RESULTS / "full").path(c).name for c in paper_grid("full", ["compas"], ["q1"])}
    held = {p.name for p in (layout.RESULTS / "full" / "records").glob("*.json")} & expected
    assert len(from_notebooks) == len(held) > 0
    assert [r["hash"] for r in from_notebooks] == [r["hash"] for r in from_root]
    box = results.freshness_of(["q1"], "render", datasets=["compas"])
    assert box.where == str(layout.RESULTS / "full")


def test_a_results_folder_named_in_the_environment_wins(monkeypatch, tmp_path: Path) -> None:
    monkeypatch.setenv("CFFAIR_RESULTS", str(tmp_path))
    assert results.results_root() == tmp_path
    assert results.results_for("render", ["q1"], missing_ok=True) == []  # an empty folder: no committed records
    with pytest.raises(FileNotFoundError, match=str(tmp_path / "full")):
        results.results_for("render", ["q1"])


def test_the_notebooks_step_makes_the_kernels_read_the_folder_the_run_wrote(no_results_env, monkeypatch, tmp_path):
    """``cffair reproduce`` hands its results folder to the step; the kernels it starts read that folder."""
    import papermill

    seen = []
    monkeypatch.setattr(papermill, "execute_notebook", lambda src, out, **kw: seen.append(os.environ["CFFAIR_RESULTS"]))
    execute.run_notebooks("quick", ["q4_why"], out_dir=tmp_path / "run", results=tmp_path / "elsewhere")
    assert seen == [str(tmp_path / "elsewhere")]
    assert os.environ["CFFAIR_RESULTS"] == "" and results.results_root() == layout.RESULTS  # as before the run
    monkeypatch.setenv("CFFAIR_RESULTS", "results/regeneration")  # a relative one the caller named
    seen.clear()
    execute.run_notebooks("quick", ["q4_why"], out_dir=tmp_path / "run")  # none handed over: the caller's, absolute
    assert seen == [str(Path("results/regeneration").resolve())]
    assert os.environ["CFFAIR_RESULTS"] == "results/regeneration"
    handed = []
    monkeypatch.setattr(execute, "run_notebooks", lambda mode, only, *, results: handed.append((mode, only, results)))
    execute.reproduce_step("quick", ["q4_why"], tmp_path / "r")
    assert handed == [("quick", ["q4_why"], tmp_path / "r")]


def test_every_page_reads_its_records_through_the_book() -> None:
    """A page that called the library's readers directly would look for ``results/`` beside its kernel
    (``book/results``, ``notebooks/results``) and find none, or show a freshness box of an empty store."""
    import re

    pages = sorted(
        {*layout.ROOT.glob("*.md"), *(layout.ROOT / "book").rglob("*.md"), *(layout.ROOT / "notebooks").glob("*.md")}
    )
    direct = re.compile(r"workflows\.(results_for|freshness|results_root)\(")
    found = [
        f"{p.relative_to(layout.ROOT)}:{n}"
        for p in pages
        if "```{code-cell}" in p.read_text(encoding="utf-8")
        for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
        if direct.search(line)
    ]
    executed = [p for p in pages if "```{code-cell}" in p.read_text(encoding="utf-8")]  # pages whose code runs
    assert len(executed) > 10 and found == []
