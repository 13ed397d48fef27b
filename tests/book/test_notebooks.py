"""The book's notebooks: their structure, and that they run (with every exercise's solution) in quick mode.

(a) Structure, read from the MyST sources: a title; an opening box with learning objectives,
    prerequisites and the time to run; for the research-question notebooks a ``parameters``
    cell, the cell that resolves the mode, a "Verdict" box pasting the chapter's claims and a
    "Regenerate" box with the chapter's ``cffair reproduce --only`` command in quick and full
    mode, in that order at the end; every figure numbered with a caption and real alt text;
    every exercise followed by a solution hidden in a dropdown; no line that Markdown would
    turn into a blockquote by accident.
(b) Every notebook is converted to ``.ipynb`` with jupytext, its exercises' solution code is
    appended as cells, and it is executed with papermill in quick mode
    (``parameters={"mode": "quick"}``) with a fresh ``$CFFAIR_RESULTS`` under pytest's tmp dir.
    No cell (solutions included) may fail; each notebook shows an HTML table and, where it has
    figures, a PNG. The notebooks share one results folder, as in ``cffair reproduce``.
(c) ``results/full`` (the committed full reproduction, read by the book in render mode) holds a
    record for every config of ``paper_grid("full")``.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import time
from pathlib import Path

import pytest

from cffair import experiments
from cffair.workflows import _reproduce as reproduce
from cffair_book import chapters, pages

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOK_DIR = ROOT / "notebooks"

#: Teaching notebooks: no results, no mode; they train what they show in seconds.
TEACHING_NOTEBOOKS: tuple[str, ...] = ("ltn_in_ten_minutes",)
#: Every notebook of the book: the teaching ones and those of the question groups (cffair_book.chapters.NOTEBOOKS).
RESULT_NOTEBOOKS: tuple[str, ...] = tuple(dict.fromkeys(chapters.NOTEBOOKS.values()))
NOTEBOOKS: tuple[str, ...] = (*TEACHING_NOTEBOOKS, *RESULT_NOTEBOOKS)
#: The paper's chapters: each closes with a "Verdict" and a "Regenerate" box for its group.
CHAPTER_GROUPS: dict[str, str] = {stem: group for group, (stem, _, _) in pages.CHAPTERS.items()}


def has_figures(name: str) -> bool:
    """Whether a notebook draws figures (a code cell calls a ``plot_*`` function)."""
    return bool(re.search(r"^[^#\n]*\bplot_\w+\(", source(name), re.M))


_SOLUTION = re.compile(r"^:::\{admonition\} Solution\n:class: dropdown\n(.*?)^:::$", re.S | re.M)
_PYTHON = re.compile(r"^```python\n(.*?)^```$", re.S | re.M)
_EXERCISE = re.compile(r"^\d+\. \*\*", re.M)


def source(name: str) -> str:
    return (NOTEBOOK_DIR / f"{name}.md").read_text(encoding="utf-8")


def solutions(text: str) -> list[str]:
    """The code of every exercise solution (``python`` blocks inside "Solution" dropdowns)."""
    return ["".join(_PYTHON.findall(block)) for block in _SOLUTION.findall(text)]


def exercises(text: str) -> list[str]:
    """The numbered exercises of the "Exercises" section."""
    section = text.split("## Exercises", 1)[1].split("\n## ", 1)[0]
    return _EXERCISE.findall(section)


# ============================================================================ structure
def test_notebook_list_matches_the_folder_and_the_library() -> None:
    on_disk = {p.stem for p in NOTEBOOK_DIR.glob("*.md")}
    assert on_disk == set(NOTEBOOKS), (
        f"notebooks/ holds {sorted(on_disk)}, the library and the teaching list name {sorted(NOTEBOOKS)}"
    )
    assert set(CHAPTER_GROUPS) <= set(RESULT_NOTEBOOKS)
    assert all(chapters.NOTEBOOKS[g] == stem for stem, g in CHAPTER_GROUPS.items())


@pytest.mark.parametrize("name", sorted([*TEACHING_NOTEBOOKS, *CHAPTER_GROUPS]))
def test_notebook_opens_with_its_question_objectives_and_time_to_run(name: str) -> None:
    import jupytext

    nb = jupytext.read(NOTEBOOK_DIR / f"{name}.md")
    first_md = next(c for c in nb.cells if c.cell_type == "markdown")
    assert first_md.source.lstrip().startswith("# "), "the first markdown cell must start with a '# Title' heading"
    opening = first_md.source.split(":::{admonition} In this chapter", 1)
    assert len(opening) == 2, "the first markdown cell needs the opening box ':::{admonition} In this chapter'"
    assert re.search(r"^\*.+\?\*", opening[0], re.M), "the question, in italics, comes before the opening box"
    box = opening[1].split("\n:::", 1)[0]
    for part in ("**Learning objectives.**", "**Prerequisites.**", "**Time to run.**"):
        assert part in box, f"the opening box lacks {part}"
    assert len(re.findall(r"^\d+\. ", box, re.M)) >= 2, "at least two numbered learning objectives"


@pytest.mark.parametrize("name", sorted(RESULT_NOTEBOOKS))
def test_result_notebook_structure(name: str) -> None:
    """A ``parameters`` cell with ``mode = None`` (removed from the page: papermill's hook, not
    the reader's), then the cell that resolves the mode (folded with its output); every other code cell folded
    away or removed too."""
    import jupytext

    nb = jupytext.read(NOTEBOOK_DIR / f"{name}.md")
    code = [c for c in nb.cells if c.cell_type == "code"]
    params = [i for i, c in enumerate(code) if "parameters" in c.metadata.get("tags", [])]
    assert len(params) == 1, "exactly one cell tagged 'parameters'"
    assert code[params[0]].source.strip() == "mode = None"
    assert "remove-cell" in code[params[0]].metadata.get("tags", []), "the parameters cell is removed from the page"
    assert "hide-cell" in code[params[0] + 1].metadata.get("tags", []), "the loading cell is folded, output too"
    nxt = code[params[0] + 1].source
    assert "workflows.resolve_mode(mode)" in nxt and "book.results_for(mode" in nxt
    assert 'matplotlib.use("Agg")' not in "".join(c.source for c in code)
    # Plotting and table code is folded away too.
    for c in code[params[0] + 2 :]:
        tags = c.metadata.get("tags", [])
        assert {"hide-input", "hide-cell", "remove-input", "remove-cell"} & set(tags), (
            f"cell {c.source[:60]!r} should be tagged hide-input"
        )


@pytest.mark.parametrize("name", sorted(CHAPTER_GROUPS))
def test_chapter_closes_with_its_verdict_and_regenerate_boxes(name: str) -> None:
    """The freshness box right after the loading cell; "Exercises", "Verdict" (the chapter's
    claims pasted with their tally) and "Regenerate" (both commands with their measured times),
    in that order, at the end."""
    import jupytext

    code = [c for c in jupytext.read(NOTEBOOK_DIR / f"{name}.md").cells if c.cell_type == "code"]
    params = next(i for i, c in enumerate(code) if "parameters" in c.metadata.get("tags", []))
    assert "book.freshness_of(" in code[params + 2].source, "the freshness box comes right after the loading cell"
    text = source(name)
    group = CHAPTER_GROUPS[name]
    headings = re.findall(r"^## (.+)$", text, re.M)
    assert headings[-3:] == ["Exercises", "Verdict", "Regenerate"], (
        f"the chapter should close with them, got {headings[-3:]}"
    )
    verdict = text.split("## Verdict", 1)[1].split("## Regenerate", 1)[0]
    assert ":::{admonition} Verdict" in verdict and f"{{glue:text}}`{group}_verdict`" in verdict
    assert f"```{{glue}} {group}_claims" in verdict
    regenerate = text.split("## Regenerate", 1)[1]
    for mode in ("quick", "full"):
        assert f"cffair reproduce --only {group} --mode {mode}" in regenerate
        assert f"{{glue:text}}`{group}_{mode}`" in regenerate
    assert f'pages.regenerate_facts("{group}")' in text


@pytest.mark.parametrize("name", sorted(NOTEBOOKS))
def test_every_figure_is_numbered_with_a_caption_and_alt_text(name: str) -> None:
    import jupytext

    nb = jupytext.read(NOTEBOOK_DIR / f"{name}.md")
    plotting = [c for c in nb.cells if c.cell_type == "code" and re.search(r"\bplot_\w+\(", c.source)]
    assert bool(plotting) == has_figures(name)
    names = []
    for c in plotting:
        meta = c.metadata.get("mystnb", {})
        figure, image = meta.get("figure", {}), meta.get("image", {})
        assert figure.get("name", "").startswith("fig-"), f"figure cell {c.source[:50]!r} needs mystnb.figure.name"
        assert len(figure.get("caption", "")) > 60, f"figure {figure.get('name')} needs a caption"
        alt = image.get("alt", "")
        assert len(alt.split()) >= 12 and not re.fullmatch(r"[0-9a-f]{16,}(\.png)?", alt), (
            f"figure {figure['name']} needs real alt text"
        )
        names.append(figure["name"])
    assert len(names) == len(set(names))


@pytest.mark.parametrize("name", sorted(NOTEBOOKS))
def test_every_exercise_has_a_hidden_solution_with_code(name: str) -> None:
    text = source(name)
    assert "## Exercises" in text
    found = solutions(text)
    assert len(exercises(text)) == len(found) >= 2, "every numbered exercise is followed by a Solution dropdown"
    assert all(code.strip() for code in found), "every solution has Python code"
    assert len(_SOLUTION.findall(text)) == text.count(":::{admonition} Solution")


@pytest.mark.parametrize("name", sorted(NOTEBOOKS))
def test_no_accidental_blockquote(name: str) -> None:
    """A markdown line starting with '>' (e.g. '>50K' at a line break) renders as a blockquote."""
    in_code = False
    for number, line in enumerate(source(name).splitlines(), start=1):
        if line.startswith("```"):
            in_code = not in_code
        assert in_code or not line.lstrip().startswith(">"), f"{name}.md line {number} starts with '>': {line!r}"


def test_solution_and_exercise_parsers_on_a_known_text() -> None:
    text = (
        "## Exercises\n\n1. **One.** Do it.\n\n:::{admonition} Solution\n:class: dropdown\n\n```python\nx = 1\n```\n\n"
        "Why.\n:::\n\n2. **Two.** Again.\n\n:::{admonition} Solution\n:class: dropdown\n\n```python\ny = 2\n```\n:::\n\n## Verdict\n"
    )
    assert solutions(text) == ["x = 1\n", "y = 2\n"]
    assert len(exercises(text)) == 2


# ============================================================================ executing them
def _outputs(nb: dict) -> list[dict]:
    return [o for c in nb["cells"] if c["cell_type"] == "code" for o in c.get("outputs", [])]


class _Executed:
    """Notebooks executed on first request, with their solutions appended, in quick mode.

    A notebook runs only when a test asks for it, so selecting one notebook's test executes that
    notebook alone; the notebooks executed in one session share one results folder, as in
    ``cffair reproduce``.
    """

    def __init__(self, tmp: Path) -> None:
        self.tmp = tmp
        self.done: dict[str, tuple[dict, float]] = {}

    def __getitem__(self, name: str) -> tuple[dict, float]:
        if name not in self.done:
            self.done[name] = self._run(name)
        return self.done[name]

    def _run(self, name: str) -> tuple[dict, float]:
        import jupytext
        import nbformat
        import papermill as pm

        saved = {k: os.environ.get(k) for k in ("CFFAIR_RESULTS", "CFFAIR_MODE")}
        # The kernel inherits the environment of this process.
        os.environ["CFFAIR_RESULTS"] = str(self.tmp / "results")
        os.environ.pop("CFFAIR_MODE", None)
        try:
            nb = jupytext.read(NOTEBOOK_DIR / f"{name}.md")
            for i, code in enumerate(solutions(source(name)), start=1):
                nb.cells.append(nbformat.v4.new_code_cell(code, metadata={"tags": ["solution", f"solution-{i}"]}))
            src = self.tmp / f"{name}.ipynb"
            jupytext.write(nb, src)
            dst = self.tmp / f"{name}.out.ipynb"
            start = time.perf_counter()
            with contextlib.suppress(pm.PapermillExecutionError):  # the error output is in dst; the tests report it
                pm.execute_notebook(
                    str(src),
                    str(dst),
                    parameters={"mode": "quick"},
                    cwd=str(NOTEBOOK_DIR),
                    kernel_name="python3",
                    progress_bar=False,
                )
            return json.loads(dst.read_text()), time.perf_counter() - start
        finally:
            for k, v in saved.items():
                if v is None:
                    os.environ.pop(k, None)
                else:
                    os.environ[k] = v


@pytest.fixture(scope="module")
def executed(tmp_path_factory: pytest.TempPathFactory) -> _Executed:
    """The notebooks, each executed in quick mode the first time a test asks for it."""
    return _Executed(tmp_path_factory.mktemp("notebooks"))


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(NOTEBOOKS))
def test_notebook_runs_in_quick_mode_with_its_solutions(executed: _Executed, name: str) -> None:
    nb, seconds = executed[name]
    errors = [
        (c.get("metadata", {}).get("tags", []), o)
        for c in nb["cells"]
        if c["cell_type"] == "code"
        for o in c.get("outputs", [])
        if o["output_type"] == "error"
    ]
    if errors:
        tags, err = errors[0]
        where = next((t for t in tags if t.startswith("solution-")), "a notebook cell")
        pytest.fail(f"{name} failed after {seconds:.0f} s in {where}: {err['ename']}: {err['evalue']}")
    ran = [c for c in nb["cells"] if "solution" in c.get("metadata", {}).get("tags", [])]
    assert len(ran) == len(solutions(source(name))) and all(c.get("execution_count") for c in ran), "every solution ran"
    # papermill injected the quick mode
    sources = [c["source"] if isinstance(c["source"], str) else "".join(c["source"]) for c in nb["cells"]]
    assert any('mode = "quick"' in s or "mode = 'quick'" in s for s in sources), "papermill did not inject mode='quick'"
    html = ["".join(o["data"]["text/html"]) for o in _outputs(nb) if "text/html" in o.get("data", {})]
    assert any("<table" in h for h in html), f"{name} shows no HTML table"
    pngs = [o for o in _outputs(nb) if "image/png" in o.get("data", {})]
    if has_figures(name):
        assert pngs, f"{name} shows no figure (image/png output)"
    # Every table that compares with the paper says so.
    if name in ("q1_counterfactual_fairness", "q2_baselines", "q3_knowledge_extraction"):
        assert any("paper" in h and "Δ" in h for h in html), f"{name} has no ours-vs-paper table with a Δ"


# ============================================================================ committed results
def test_committed_full_results_cover_every_table() -> None:
    """Every record of the full protocol (:func:`cffair.experiments.paper_grid`) is committed in
    results/full with its metrics, the CKE steps of Table 3, and the run's provenance."""
    root = ROOT / "results" / "full"
    assert (root / "provenance.json").is_file(), "results/full/provenance.json is missing"
    store = experiments.ResultsStore(root)
    # the paper's tables (the paper's partition, one training seed, the paper's twins); the investigations', the
    # repetitions of cross-validation, the pre-registered protocol's other seeds and sound twins, and later chapters'
    # records come with the full regeneration, and their pages say which are missing
    paper = [
        c
        for c in experiments.paper_grid("full", only=["q1", "q2", "q3", "q4", "appendix_a", "appendix_b"])
        if not c.repeat and c.seed == 0 and "twins" not in c.option_map
    ]
    st = reproduce.status(store, paper)
    missing = st.loc[st["state"] == "missing", "key"].tolist()
    assert not missing, f"{len(missing)} of {len(st)} records missing from results/full, e.g. {missing[:10]}"
    for rec in store.records():
        assert {"accuracy", "mse"} & set(rec["metrics"]) and "cf_mse_by_subgroup" in rec["metrics"]
    table3 = [
        r for r in store.records() if r["config"]["dataset"] == "adult" and r["config"]["setting"] == "ltn_acc_cf_cke"
    ]
    assert table3 and table3[0]["cke"]["steps"], "Table 3 needs the CKE steps of Adult"
