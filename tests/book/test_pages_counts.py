"""Every count and command the book states comes from one source (issue 45, item 2).

* The records per chapter that the Regenerate boxes state (``benchmarks/results/regenerate.json``
  through :func:`cffair_book.pages.regenerate_facts`) are the store's records of the chapter's group.
* The records per part of the full run (:func:`cffair_book.pages.run_counts`, from
  ``benchmarks/results/full_run.json``) are the store's, and the README states those numbers.
* The chapters' full times and the whole run's are put side by side with the reason their sum differs.
* A ``cffair`` command with options is written ``.venv/bin/cffair …`` on every page and in every
  text the book's helpers write, as the pages' code blocks write it.

These read the committed files (no build); the rendered pages take their numbers from the same functions.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from cffair_book import pages, results

ROOT = Path(__file__).resolve().parents[2]

#: A ``cffair`` command with an option, not written as the checkout runs it.
_BARE = re.compile(
    r"(?<![/\w.-])cffair (reproduce|results|data|train|run|audit|model|recourse|own)\b[^`\n\"]{0,60}? --\w"
)
#: Files another helper of this round owns (their one bare command is reported, not edited here).
_ELSEWHERE = {"cffair_book/dependence.py"}


def _book_sources() -> list[Path]:
    files = [ROOT / "intro.md", *sorted((ROOT / "book").glob("*.md")), *sorted((ROOT / "notebooks").glob("*.md"))]
    return files + sorted((ROOT / "cffair_book").glob("*.py"))


def bare_commands(text: str) -> list[str]:
    """The ``cffair`` commands with options in ``text`` that lack the ``.venv/bin/`` prefix."""
    return [m.group(0) for m in _BARE.finditer(text)]


def test_bare_commands_finds_a_command_without_its_path_and_passes_one_with_it() -> None:
    assert len(bare_commands("run `cffair reproduce --only q1 --mode quick` now")) == 1
    assert bare_commands("run `.venv/bin/cffair reproduce --only q1 --mode quick` now") == []
    assert bare_commands("`cffair reproduce` recomputes a stale record") == []  # the command named, not run


def test_every_page_writes_a_command_the_same_way() -> None:
    found = [
        f"{path.relative_to(ROOT)}: {hit}"
        for path in _book_sources()
        if str(path.relative_to(ROOT)) not in _ELSEWHERE
        for hit in bare_commands(path.read_text(encoding="utf-8"))
    ]
    assert not found, "commands not written as .venv/bin/cffair …:\n" + "\n".join(found)
    assert pages.command("results --mode full") == ".venv/bin/cffair results --mode full"
    assert all(".venv/bin/cffair reproduce --only" in row for row in pages.regenerate_frame()["command"])


@pytest.mark.parametrize("group", list(pages.CHAPTERS))
def test_each_chapter_states_the_records_the_store_holds(group: str) -> None:
    stated = pages.regenerate_facts(group)["records"]
    held = len(results.results_for("render", [group], missing_ok=True))
    assert stated == str(held), f"{group}: the Regenerate box says {stated} records, the store holds {held}"


def test_the_runs_parts_are_the_stores_and_the_readme_states_them() -> None:
    counts = pages.run_counts()
    from cffair.experiments import ResultsStore

    store = list(ResultsStore(results.results_root() / "full").records())
    assert counts["total"] == len(store)
    # the paper's part as the committed run made it (the grid has grown since: the pre-registered protocol adds
    # seeds and the sound twins, which the regeneration computes); never more than the store holds
    assert 0 < counts["paper"] <= counts["total"] and counts["paper"] + counts["rest"] == counts["total"]
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert f"({counts['paper']} records)" in readme and f"({counts['rest']} more)" in readme
    # the Benchmarks page's line on the paper's part counts the same records
    import json

    run = json.loads(pages.FULL_RUN_FILE.read_text(encoding="utf-8"))
    from cffair_book.reproduction import paper_protocol_line

    assert f"({counts['paper']} records" in paper_protocol_line(run)


def test_a_run_in_parts_by_dataset_counts_the_papers_chapters_from_the_store(tmp_path) -> None:
    """The regeneration ran by dataset (no part ran the paper's chapters alone): the paper's part is
    the benchmark's count of their records in the store, and the Benchmarks page's line says so."""
    import json

    from cffair.errors import DataError
    from cffair_book.reproduction import paper_protocol_line

    run = {
        "records": 1852,
        "machine": {"cpus": 2},
        "parts": {"count": 9, "parts": [{"groups": None, "records_in_grid": 371}], "paper_part": None},
        "paper_chapters": {"records": 1624, "records_wanted": 1624},
        "paper_protocol": {"records": 216, "records_wanted": 216, "projected_seconds": 4000.0, "target_seconds": 3600},
    }
    file = tmp_path / "full_run.json"
    file.write_text(json.dumps(run))
    assert pages.run_counts(file) == {"paper": 1624, "rest": 228, "total": 1852}
    assert "(1624 records" in paper_protocol_line(run)
    file.write_text(json.dumps({**run, "paper_chapters": None}))
    with pytest.raises(DataError, match="no part that ran the paper's chapters"):
        pages.run_counts(file)


def test_the_chapters_times_and_the_whole_runs_are_explained_together() -> None:
    text = pages.chapters_and_whole_run()
    assert "share records" in text
    minutes = [int(m) for m in re.findall(r"(\d+) min", text)]
    assert len(minutes) == 2 and minutes[0] > minutes[1]  # the chapters alone compute shared records again
    assert text in pages.regenerate_table().html.replace("&#x27;", "'")
