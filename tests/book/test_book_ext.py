"""The book's Sphinx extensions (book/_ext) and teaching kit, on known inputs.

* book_source: the repository's web address from a git remote, launch buttons only with one,
  the footer's version, date and "how to get the source" line;
* plain_notebook / ipynb_download: MyST markup of a sample notebook becomes plain Jupyter
  Markdown (glued values, boxes, citations), and the notebook stays valid;
* course_kit: exercise numbering, reading times from word counts, the student edition's removal
  of solutions; and a small book built in both editions (slow);
* cffair_book.course: the lab plan's 90 minutes and each wording of whether a live run fits;
* the bibliography holds every author-year citation written in a page's text;
* api_docs: re-exported and bare names resolve to the one object they mean, parameters documented
  together stay one field, and the API reference documents every module of the library;
* tools/book_pdf.py and the Makefile's book-student and pdf targets.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "book" / "_ext"))
sys.path.insert(0, str(ROOT / "tools"))

import api_docs  # noqa: E402
import book_checks  # noqa: E402
import book_pdf  # noqa: E402
import book_source  # noqa: E402
import course_kit  # noqa: E402
import ipynb_download  # noqa: E402
import plain_notebook  # noqa: E402
from docutils import nodes  # noqa: E402
from docutils.core import publish_doctree  # noqa: E402

from cffair_book import course  # noqa: E402


# ============================================================================ book_source
@pytest.mark.parametrize(
    ("remote", "url"),
    [
        ("git@github.com:owner/cffair.git", "https://github.com/owner/cffair"),
        ("https://github.com/owner/cffair.git", "https://github.com/owner/cffair"),
        ("https://x-access-token:abc123@github.com/owner/cffair", "https://github.com/owner/cffair"),
        ("ssh://git@gitlab.com/group/cffair.git", "https://gitlab.com/group/cffair"),
        ("/srv/git/cffair.git", None),
        ("file:///srv/git/cffair.git", None),
        ("../cffair", None),
        ("", None),
    ],
)
def test_web_url_of_git_remotes(remote: str, url: str | None) -> None:
    assert book_source.web_url(remote) == url


def test_launch_buttons_only_with_a_github_repository() -> None:
    base = {"notebook_interface": "classic", "binderhub_url": "", "colab_url": "", "thebe": False}
    on = book_source.launch_settings("https://github.com/o/r", base)
    assert on["binderhub_url"] == book_source.BINDER_URL and on["colab_url"] == book_source.COLAB_URL
    assert on["notebook_interface"] == "classic" and on["thebe"] is False
    own = book_source.launch_settings("https://github.com/o/r", {**base, "binderhub_url": "https://binder.example.org"})
    assert own["binderhub_url"] == "https://binder.example.org"
    for url in (None, "https://gitlab.com/o/r"):
        off = book_source.launch_settings(url, {**base, "binderhub_url": "https://binder.example.org"})
        assert off["binderhub_url"] == off["colab_url"] == off["jupyterhub_url"] == ""


def test_footer_names_version_date_and_where_the_source_is() -> None:
    kw = {"version": "0.2.0", "date": "2026-12-02", "commit": "abc1234567"}
    with_url = book_source.source_footer(url="https://github.com/o/r", archive="_downloads/s.tar.gz", **kw)
    assert "cffair 0.2.0 · commit abc1234567 · built 2026-12-02" in with_url
    assert 'href="https://github.com/o/r"' in with_url and 'href="{root}_downloads/s.tar.gz"' in with_url
    without = book_source.source_footer(url=None, archive="_downloads/s.tar.gz", **kw)
    assert "How to get the source" in without and "no git remote" in without and "{root}_downloads/s.tar.gz" in without
    assert "github" not in without
    bare = book_source.source_footer(url=None, archive=None, **kw)
    assert "How to get the source" in bare and "href" not in bare
    # what the page check sees: the version and the date in the footer
    page = f"<html><body><article class='bd-article'>x</article><footer>{with_url}</footer></body></html>"
    assert book_checks.build_stamp(page, "0.2.0") == []
    assert book_checks.build_stamp(page, "0.3.0")
    assert len(book_checks.build_stamp("<article class='bd-article'>x</article><footer>cffair</footer>", "0.2.0")) == 2
    assert book_checks.build_stamp("<html><head><meta http-equiv='refresh'></head></html>", "0.2.0") == []


def test_build_date_reads_source_date_epoch() -> None:
    assert book_source.build_date({"SOURCE_DATE_EPOCH": "1764633600"}) == "2025-12-02"
    assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", book_source.build_date({}))


# ============================================================================ plain notebooks
GLUED = {
    "q_time": {"data": {"text/plain": "'4 min'"}},
    "ratio": {"data": {"text/plain": "0.123456"}},
    "claims": {"data": {"text/plain": "<HTMLTable>", "text/html": "<table><tr><td>Q1.1</td></tr></table>"}},
    "figure": {"data": {"text/plain": "<Figure>", "image/png": "iVBORw0KGgo=\n"}},
}
BIB = {"kusner2017": ("Kusner et al.", "2017"), "yeh2009": ("Yeh and Lien", "2009")}

SAMPLE = """(sec-verdict)=
% a MyST comment
Quick mode took {glue:text}`q_time`; the ratio is {glue:text}`ratio:.2f` {cite:p}`kusner2017,yeh2009`.
As {cite:t}`kusner2017` define it; see {doc}`the method <../book/method>` and A4{sub}`1`.

:::{admonition} Verdict
:class: important chapter-box

```{glue} claims
```

{glue:text}`q_time`
:::

:::{admonition} Solution
:class: dropdown

```python
print("{glue:text}`not_a_role_in_code`")
```
:::

```{glue} figure
```
"""


def test_plain_markdown_rewrites_every_myst_construct() -> None:
    glued = plain_notebook.Glued(GLUED)
    out = plain_notebook.plain_markdown(
        SAMPLE, glued=glued, cite=lambda k, kind: plain_notebook.cite_text(k, kind, BIB)
    )
    assert "Quick mode took 4 min; the ratio is 0.12 (Kusner et al. 2017; Yeh and Lien 2009)." in out
    assert "As Kusner et al. (2017) define it; see the method and A4<sub>1</sub>." in out
    assert "> **Verdict**" in out and "> <table><tr><td>Q1.1</td></tr></table>" in out and "> 4 min" in out
    assert "<details><summary><b>Solution</b></summary>" in out and out.count("</details>") == 1
    assert '```python\nprint("{glue:text}`not_a_role_in_code`")\n```' in out  # code is left as written
    assert "![figure](attachment:figure.png)" in out
    assert glued.attachments == {"figure.png": {"image/png": "iVBORw0KGgo="}}
    prose = re.sub(r"```python.*?```", "", out, flags=re.S)
    assert not re.search(r"\{[a-z:]+\}`|:::|\(sec-verdict\)=|% a MyST", prose), prose


def test_roles_the_build_resolves_are_passed_in() -> None:
    out = plain_notebook.plain_markdown(
        "Exercises {exercises}`q1`, {reading-time}`q1`.",
        roles={"exercises": lambda t: f"2.1–2.3 of {t}", "reading-time": lambda t: "17 min"},
    )
    assert out == "Exercises 2.1–2.3 of q1, 17 min."
    assert plain_notebook.plain_markdown("{exercises}`q1`") == "q1"  # without a build: the role's text


def test_a_glued_value_missing_from_the_build_says_so() -> None:
    out = plain_notebook.plain_markdown("took {glue:text}`absent`", glued=plain_notebook.Glued({}))
    assert out == "took `absent` (computed when the notebook runs)"


def test_bib_entries_cite_like_the_book() -> None:
    entries = plain_notebook.bib_entries(ROOT / "book" / "references.bib")
    assert entries["yeh2009"] == ("Yeh and Lien", "2009")
    assert entries["kusner2017"] == ("Kusner et al.", "2017")
    assert entries["karimi2021"] == ("Karimi et al.", "2021")
    assert entries["chouldechova2017"] == ("Chouldechova", "2017")


def test_downloaded_notebook_is_plain_and_valid(tmp_path: Path) -> None:
    import nbformat

    source = tmp_path / "chapter.md"
    source.write_text(
        "---\njupytext:\n  text_representation:\n    extension: .md\n    format_name: myst\n"
        "kernelspec:\n  display_name: Python 3\n  language: python\n  name: python3\n---\n\n"
        "# A chapter\n\n" + SAMPLE + "\n```{code-cell} ipython3\nx = 1\n```\n",
        encoding="utf-8",
    )
    glue = tmp_path / "chapter.glue.json"
    glue.write_text(json.dumps(GLUED), encoding="utf-8")
    target = tmp_path / "out" / "chapter.ipynb"
    ipynb_download.write_ipynb(
        source,
        target,
        glue_file=glue,
        bibfile=ROOT / "book" / "references.bib",
        build={"version": "0.2.0", "date": "2026-12-02", "url": None},
    )
    nb = nbformat.read(target, as_version=4)
    nbformat.validate(nb)
    assert "A chapter" in nb.cells[0].source and "cffair 0.2.0, built 2026-12-02" in nb.cells[0].source
    assert "make install" in nb.cells[0].source
    markdown = "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")
    assert "{glue" not in markdown.replace("{glue:text}`not_a_role_in_code`", "") and ":::" not in markdown
    assert "(Kusner et al. 2017; Yeh and Lien 2009)" in markdown
    setup, *code = [c.source for c in nb.cells if c.cell_type == "code"]  # the install cell, then the page's
    assert 'find_spec("cffair_book")' in setup and code == ["x = 1"]
    assert any("figure.png" in c.get("attachments", {}) for c in nb.cells)


# ============================================================================ course kit
def test_edition_defaults_to_instructor_and_rejects_others() -> None:
    assert course_kit.edition({}) == "instructor"
    assert course_kit.edition({"CFFAIR_EDITION": "Student"}) == "student"
    with pytest.raises(ValueError, match="CFFAIR_EDITION='teacher' is not an edition; use one of instructor, student"):
        course_kit.edition({"CFFAIR_EDITION": "teacher"})


def test_toc_order_and_exercise_chapters() -> None:
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text(encoding="utf-8"))
    order = course_kit.toc_order(toc)
    assert order[0] == "intro" and order.index("notebooks/q1_counterfactual_fairness") < order.index(
        "notebooks/q2_baselines"
    )
    sources = [
        ("intro", "# Intro"),
        ("a", "# Q2: Baselines\n\n## Exercises\n\n1. x"),
        ("b", "# Q3: Knowledge\n\nno exercises"),
        ("c", "# Appendix C: Rulers\n\n### Exercises\n"),
        ("d", "---\nkernelspec: {}\n---\n# LTN in ten minutes\n\n## Exercises\n"),
    ]
    assert course_kit.exercise_chapters(sources) == {"a": "Q2", "c": "C", "d": ""}
    assert course_kit.exercise_range("Q2", 3) == "Q2.1–Q2.3" and course_kit.exercise_range("C", 1) == "C.1"
    assert course_kit.exercise_range("", 3) == "1–3" and course_kit.exercise_range("Q2", 0) == "none"


def test_the_books_exercises_carry_the_number_their_chapter_shows() -> None:
    """Each chapter with exercises: its exercises are numbered by the label its title shows ("Q1: …" → Q1,
    "Appendix B: …" → B), and a title without one numbers them 1, 2, 3."""
    toc = course_kit.toc_order(yaml.safe_load((ROOT / "_toc.yml").read_text(encoding="utf-8")))
    sources = [(doc, (ROOT / f"{doc}.md").read_text(encoding="utf-8")) for doc in toc if (ROOT / f"{doc}.md").is_file()]
    labels = course_kit.exercise_chapters(sources)
    assert len(labels) >= 9
    for doc, label in labels.items():
        title = next(line[2:] for line in dict(sources)[doc].splitlines() if line.startswith("# "))
        if label.startswith("Q"):
            assert title.startswith(f"{label}:"), (doc, title)
        elif label:
            assert title.startswith(f"Appendix {label}:"), (doc, title)
        else:
            assert not re.match(r"(Q\d|Appendix [A-Z])\b", title), (doc, title)
    assert labels["notebooks/q2_baselines"] == "Q2" and labels["notebooks/appendix_a_other_counterfactuals"] == "A"
    assert labels["notebooks/ltn_in_ten_minutes"] == ""


def test_reading_minutes_from_words_and_exhibits() -> None:
    assert course_kit.reading_minutes(200, 0) == 1 and course_kit.reading_minutes(0, 0) == 1
    assert course_kit.reading_minutes(2000, 0) == 10 and course_kit.reading_minutes(2001, 0) == 11
    assert course_kit.reading_minutes(1000, 4) == 7  # 5 min of words + 4 × 0.5


RST = """
Title
=====

One two three four five.

.. code-block:: python

   many words of code that nobody reads as prose at all

+-----+-----+
| a b | c d |
+-----+-----+

Exercises
---------

#. First exercise text.

.. admonition:: Solution

   The answer to the first.

#. Second exercise text.

.. admonition:: Solution

   The answer to the second.

.. note::

   A plain note stays.
"""


def doctree() -> nodes.document:
    return publish_doctree(RST, settings_overrides={"report_level": 5})


def test_prose_words_skip_code_and_tables() -> None:
    tree = doctree()
    # "Title" + "One two three four five." + "Exercises" + "First exercise text." + "Solution" +
    # "The answer to the first." + "Second exercise text." + "Solution" + "The answer to the second." +
    # "A plain note stays." (the note's label is the writer's, not the document's); code and table not counted
    assert course_kit.prose_words(tree) == 1 + 5 + 1 + 3 + 1 + 5 + 3 + 1 + 5 + 4
    assert course_kit.exhibits(tree) == 1


def test_exercises_are_numbered_and_their_solutions_retitled() -> None:
    tree = doctree()
    assert course_kit.number_exercises(tree, "Q3") == 2
    text = tree.astext()
    assert "Exercise Q3.1. First exercise text." in text and "Exercise Q3.2. Second exercise text." in text
    titles = [t.astext() for t in tree.findall(nodes.title)]
    assert "Solution to exercise Q3.1" in titles and "Solution to exercise Q3.2" in titles
    assert not list(tree.findall(nodes.enumerated_list))
    unlabelled = doctree()
    assert course_kit.number_exercises(unlabelled, "") == 2
    assert "Exercise 2. Second exercise text." in unlabelled.astext()
    assert "Solution to exercise 2" in [t.astext() for t in unlabelled.findall(nodes.title)]


def test_student_edition_removes_solutions_and_keeps_the_rest() -> None:
    tree = doctree()
    cell = nodes.container("", nodes.paragraph("", "hidden cell answer"), classes=["cell", "tag_solution"])
    tree += cell
    assert course_kit.remove_solutions(tree) == 3
    text = tree.astext()
    assert "The answer to" not in text and "hidden cell answer" not in text
    assert text.count(course_kit.REMOVED_NOTE) == 2  # one line per removed box, none for the cell
    assert "First exercise text." in text and "A plain note stays." in text


# ============================================================================ the student edition's files
#: The instructor's boxes as the book's sources write them (an oracle independent of course_kit's parser).
_INSTRUCTOR_BOX = re.compile(
    r"^:::\{admonition\} (?:Solution|Points to consider)\n:class: dropdown(?: instructor)?\n(.*?)^:::$", re.S | re.M
)


def _book_sources() -> dict[str, str]:
    toc = course_kit.toc_order(yaml.safe_load((ROOT / "_toc.yml").read_text(encoding="utf-8")))
    return {doc: (ROOT / f"{doc}.md").read_text(encoding="utf-8") for doc in toc if (ROOT / f"{doc}.md").is_file()}


def _solution_lines(text: str) -> set[str]:
    """The lines of a source's instructor boxes that occur nowhere else in it."""
    outside = _INSTRUCTOR_BOX.sub("", text)
    return {
        line.strip()
        for body in _INSTRUCTOR_BOX.findall(text)
        for line in body.splitlines()
        if len(line.strip()) > 12 and line.strip() not in outside
    }


def test_the_student_edition_strips_every_solution_and_note_of_the_books_sources() -> None:
    """On every page's real source: each solution box and discussion note is replaced by one line, and
    nothing else changes (the source with the boxes cut out equals the stripped one without that line)."""
    sources = _book_sources()
    removed_in_all = 0
    for doc, text in sources.items():
        stripped, removed = course_kit.strip_solutions_markdown(text)
        assert removed == len(_INSTRUCTOR_BOX.findall(text)), doc
        assert stripped.replace(course_kit.REMOVED_MARKDOWN, "") == _INSTRUCTOR_BOX.sub("", text), doc
        assert not any(line in stripped for line in _solution_lines(text)), doc
        removed_in_all += removed
    written = sum(
        t.count(":::{admonition} Solution") + t.count(":class: dropdown instructor") for t in sources.values()
    )
    assert removed_in_all == written >= 26 + 4  # the book's 26 solutions and the discussion's 4 notes


def test_the_student_edition_downloads_a_notebook_without_solutions() -> None:
    """Each chapter's plain .ipynb, made as the build makes it for the student edition: no line of a
    solution, every exercise still there, one line in each solution's place."""
    import jupytext
    import nbformat

    for doc, text in _book_sources().items():
        heading = course_kit._EXERCISES_HEADING.search(text)
        if heading is None or not ipynb_download.is_myst_notebook(ROOT / f"{doc}.md"):
            continue
        notebook = jupytext.read(ROOT / f"{doc}.md")
        removed = course_kit.strip_solutions_notebook(notebook)
        plain = plain_notebook.plain_notebook(notebook, source_dir=(ROOT / doc).parent, preface="*preface*")
        written = nbformat.writes(plain)
        nbformat.validate(nbformat.reads(written, as_version=4))
        markdown = "\n".join(c.source for c in plain.cells if c.cell_type == "markdown")
        assert removed == text.count(":::{admonition} Solution") >= 2, doc
        assert markdown.count(course_kit.REMOVED_NOTE) == removed, doc
        assert not any(line in written for line in _solution_lines(text)), doc
        exercises = re.findall(r"^\d+\. \*\*(.+?)\*\*", text[heading.end() :], re.M)
        assert len(exercises) == removed and all(e in markdown for e in exercises), doc


def test_strip_solutions_markdown_on_each_kind_of_mark() -> None:
    text = "\n".join(
        [
            "Intro.",
            "::::{admonition} Solution to the first",  # a title that starts with "Solution"
            ":::{note}",
            "nested zebra",
            ":::",
            "::::",
            "```{code-cell} ipython3",
            ":tags: [hide-input, solution]",
            "print('giraffe')",
            "```",
            "```{code-cell} ipython3",
            "---",
            "tags: [instructor]",
            "---",
            "print('okapi')",
            "```",
            ":::{tip} Hint",  # a box that holds a solution keeps the rest
            "Think of it.",
            ":::{admonition} Answer",
            ":class: instructor",
            "lion",
            ":::",
            ":::",
            "```markdown",  # a code block that shows the markup stays as written
            ":::{admonition} Solution",
            "shown as code",
            ":::",
            "```",
            "```{code-cell} ipython3",
            "print('kept')",
            "```",
        ]
    )
    stripped, removed = course_kit.strip_solutions_markdown(text)
    assert removed == 4
    for word in ("zebra", "giraffe", "okapi", "lion"):
        assert word not in stripped
    assert "shown as code" in stripped and "print('kept')" in stripped and "Think of it." in stripped
    assert stripped.count(course_kit.REMOVED_MARKDOWN) == 2  # the boxes leave a line, the cells nothing
    assert course_kit.strip_solutions_markdown(stripped) == (stripped, 0)  # nothing left to strip


def test_strip_solutions_notebook_and_archive(tmp_path: Path) -> None:
    import io
    import tarfile

    import nbformat

    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_markdown_cell("1. Why?\n\n:::{admonition} Solution\n:class: dropdown\nzebra\n:::"),
        nbformat.v4.new_code_cell("print('giraffe')", metadata={"tags": ["solution"]}),
        nbformat.v4.new_code_cell("print('kept')"),
    ]
    assert course_kit.strip_solutions_notebook(nb) == 2
    assert [c.cell_type for c in nb.cells] == ["markdown", "code"] and "zebra" not in nb.cells[0].source
    # an archive of the source: its .md and .ipynb stripped, every other member byte for byte
    nb_file = tmp_path / "page.ipynb"
    original = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("x", metadata={"tags": ["instructor"]})])
    nb_file.write_text(nbformat.writes(original), encoding="utf-8")
    members = {
        "src/notebooks/q.md": ":::{admonition} Solution\n:class: dropdown\nzebra\n:::\n",
        "src/notebooks/q.ipynb": nb_file.read_text(encoding="utf-8"),
        "src/cffair/code.py": "# a solution in code is not a box: kept\nzebra = 1\n",
        "src/data.bin": "\x00zebra\x01",
    }
    archive = tmp_path / "source.tar.gz"
    with tarfile.open(archive, "w:gz") as tar:
        for name, content in members.items():
            data = content.encode("utf-8")
            info = tarfile.TarInfo(name)
            info.size, info.mtime, info.mode = len(data), 1_700_000_000, 0o644
            tar.addfile(info, io.BytesIO(data))
    assert course_kit.strip_solutions_archive(archive) == 2
    with tarfile.open(archive) as tar:
        got = {m.name: tar.extractfile(m).read().decode("utf-8") for m in tar.getmembers()}
        assert {m.mtime for m in tar.getmembers()} == {1_700_000_000}
    assert list(got) == list(members)
    assert "zebra" not in got["src/notebooks/q.md"] and course_kit.REMOVED_MARKDOWN in got["src/notebooks/q.md"]
    assert nbformat.reads(got["src/notebooks/q.ipynb"], as_version=4).cells == []
    assert got["src/cffair/code.py"] == members["src/cffair/code.py"] and got["src/data.bin"] == members["src/data.bin"]


def test_the_lab_hands_out_the_student_pdf() -> None:
    """The lab page's hand-out is the student edition's PDF, made by the Makefile's pdf target."""
    lab = (ROOT / "book" / "lab.md").read_text(encoding="utf-8")
    hand_out = next(p for p in lab.split("\n\n") if p.startswith("Hand out"))
    assert "`make pdf EDITION=student`" in hand_out and "_build/pdf/cffair-book-student.pdf" in hand_out
    assert hand_out.index("cffair-book-student.pdf") < hand_out.index("for yourself")


# ============================================================================ a small book, both editions
CHAPTER = """---
jupytext:
  text_representation:
    extension: .md
    format_name: myst
kernelspec:
  display_name: Python 3
  language: python
  name: python3
---

# Q1: A chapter

Reading time of this page: {reading-time}`chapter`; its exercises: {exercises}`chapter`.

```{code-cell} ipython3
from myst_nb import glue
glue("answer", 42, display=False)
```

The answer is {glue:text}`answer`.

## Exercises

1. What is the answer?

:::{admonition} Solution
:class: dropdown
The zebra-coloured answer is 42.
:::

2. Compute it again.

```{code-cell} ipython3
:tags: [solution]
print("giraffe-spotted solution cell")
```
"""


#: The small book's solutions, as words no theme file holds ("zebra" alone is in pydata-sphinx-theme's CSS).
MARKS = ("zebra-coloured", "giraffe-spotted")


def _build(tmp_path: Path, edition: str, builder: str = "html") -> Path:
    book = tmp_path / f"{edition}-{builder}"
    book.mkdir()
    (book / "intro.md").write_text("# Intro\n\nA small book.\n", encoding="utf-8")
    (book / "chapter.md").write_text(CHAPTER, encoding="utf-8")
    (book / "_toc.yml").write_text("format: jb-book\nroot: intro\nchapters:\n  - file: chapter\n", encoding="utf-8")
    # a conf.py like the book's, with only the extensions this small book needs (no bibliography, no API)
    (book / "conf.py").write_text(
        f"import sys\nsys.path.insert(0, {str(ROOT / 'book' / '_ext')!r})\n"
        "project = 'Small'\n"
        "extensions = ['myst_nb', 'sphinx_external_toc', 'sphinx_book_theme', 'sphinx_togglebutton',\n"
        "              'book_source', 'ipynb_download', 'course_kit']\n"
        "external_toc_path = '_toc.yml'\nexternal_toc_exclude_missing = True\nexclude_patterns = ['_build']\n"
        "html_theme = 'sphinx_book_theme'\nhtml_sourcelink_suffix = ''\n"
        "myst_enable_extensions = ['colon_fence']\nnb_execution_mode = 'force'\n",
        encoding="utf-8",
    )
    exe = Path(sys.executable).parent / "sphinx-build"
    env = {**__import__("os").environ, "CFFAIR_EDITION": edition, "PYTHONPATH": str(ROOT)}
    build = book / "_build"
    out = subprocess.run(
        [str(exe), "-b", builder, "-W", "-n", "-E", "-d", str(build / ".doctrees"), str(book), str(build / builder)],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    )
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-3000:]
    return build / builder


@pytest.mark.slow
@pytest.mark.book
def test_a_small_book_in_both_editions(tmp_path: Path) -> None:
    if not (Path(sys.executable).parent / "sphinx-build").exists():
        pytest.skip("sphinx-build is not installed (make install)")
    instructor = _build(tmp_path, "instructor")
    student = _build(tmp_path, "student")
    for html_root in (instructor, student):
        page = (html_root / "chapter.html").read_text(encoding="utf-8")
        assert "Exercise Q1.1." in page and "Exercise Q1.2." in page and "its exercises: Q1.1–Q1.2" in page
        assert re.search(r"Reading time of this page: \d+ min", page)
        assert book_checks.build_stamp(page, course_version()) == []
        assert book_checks.raw_markup(page) == []
        plain = json.loads((html_root / "_sources" / "chapter.ipynb").read_text(encoding="utf-8"))
        plain_text = "".join("".join(c["source"]) for c in plain["cells"])
        assert "The answer is 42." in plain_text and "its exercises: Q1.1–Q1.2" in plain_text
        assert re.search(r"Reading time of this page: \d+ min", plain_text)
    shown = (instructor / "chapter.html").read_text(encoding="utf-8")
    assert "zebra-coloured" in shown and "giraffe-spotted" in shown and "Solution to exercise Q1.1" in shown
    # the instructor edition's downloads keep the solutions; the grep below finds them there
    assert solution_hits(instructor.parent, MARKS)
    assert "zebra" in (instructor / "_sources" / "chapter.md").read_text(encoding="utf-8")
    # the student edition: no file of the whole build holds a solution (pages, search index, the .md and
    # .ipynb downloads, the executed notebooks, Sphinx's doctrees)
    assert solution_hits(student.parent, MARKS) == []
    assert course_kit.REMOVED_NOTE in (student / "chapter.html").read_text(encoding="utf-8")
    source = (student / "_sources" / "chapter.md").read_text(encoding="utf-8")
    assert course_kit.REMOVED_MARKDOWN in source and "1. What is the answer?" in source and "2. Compute it" in source
    plain = (student / "_sources" / "chapter.ipynb").read_text(encoding="utf-8")
    assert "What is the answer?" in plain and course_kit.REMOVED_NOTE in plain
    # the whole book on one page (make pdf): the exercises are numbered there too, and the student
    # edition's single page, and its whole build, have no solution either
    single = _build(tmp_path, "student", "singlehtml")
    one = (single / "intro.html").read_text(encoding="utf-8")
    assert "Exercise Q1.1." in one and "Exercise Q1.2." in one and "zebra" not in one and "giraffe" not in one
    assert solution_hits(single.parent, MARKS) == []


def solution_hits(root: Path, words: tuple[str, ...]) -> list[str]:
    """Every file under ``root`` (members of ``.tar.gz`` archives too) that holds one of ``words``."""
    import tarfile

    hits = []
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        blobs = [(str(path), path.read_bytes())]
        if path.name.endswith(".tar.gz"):
            with tarfile.open(path) as archive:
                blobs = [
                    (f"{path}:{m.name}", archive.extractfile(m).read()) for m in archive.getmembers() if m.isfile()
                ]
        hits += [name for name, data in blobs if any(w.encode() in data for w in words)]
    return hits


def course_version() -> str:
    import cffair

    return cffair.__version__


# ============================================================================ the lab plan
def test_the_lab_takes_ninety_minutes_and_names_real_pages() -> None:
    assert sum(b.minutes for b in course.LAB_PLAN) == course.LAB_MINUTES == 90
    toc = course_kit.toc_order(yaml.safe_load((ROOT / "_toc.yml").read_text(encoding="utf-8")))
    assert all(b.page in toc for b in course.LAB_PLAN)
    from cffair_book import pages

    assert all(b.live in pages.CHAPTERS for b in course.LAB_PLAN if b.live)


@pytest.mark.parametrize(
    ("seconds", "start"),
    [
        (None, "not measured yet: time <code>.venv/bin/cffair reproduce --only q2 --mode quick</code>"),
        (600.0, "fits: measured 10 min cold at load 3.2, in a 20-min block"),
        (1000.0, "tight: measured 17 min cold at load 3.2, most of the 20-min block"),
        (1500.0, "does not fit: measured 25 min cold at load 3.2, longer than the 20-min block"),
    ],
)
def test_fit_note_is_worded_from_the_measurement(seconds: float | None, start: str) -> None:
    assert course.fit_note("q2", 20, seconds, "3.2").startswith(start)


def test_lab_plan_table_reads_the_measurements(tmp_path: Path) -> None:
    path = tmp_path / "regenerate.json"
    path.write_text(
        json.dumps(
            {
                "commit": "abc",
                "finished": "2026-12-01T00:00:00Z",
                "groups": {
                    "q1": {
                        "quick": {"wall_seconds": 300.0, "load_average": [1.0, 2.0]},
                        "full": {"estimate_seconds": 600, "records": 6},
                    },
                },
            }
        ),
        encoding="utf-8",
    )
    frame = course.lab_plan_table(path).frame
    assert list(frame["time"]) == ["0:00–0:10", "0:10–0:25", "0:25–0:45", "0:45–1:00", "1:00–1:15", "1:15–1:30"]
    live = dict(zip(frame["time"], frame["run live (quick mode)"], strict=True))
    assert "fits: measured 5 min cold at load 2.0, in a 20-min block" in live["0:25–0:45"]
    assert "not measured yet" in live["0:45–1:00"] and ".venv/bin/cffair reproduce --only q4" in live["0:45–1:00"]
    assert course.live_seconds("q1", path) == 300.0 and course.live_seconds("q1", tmp_path / "none.json") is None


# ============================================================================ the bibliography
_INLINE = re.compile(
    r"\b(?P<first>[A-Z][\w\u00c0-\u017f-]+)(?:,? [A-Z][\w\u00c0-\u017f-]+)*(?: et al\.|,? (?:and|&) "
    r"[A-Z][\w\u00c0-\u017f-]+)?,? \(?(?P<year>(?:19|20)\d\d)\b"
)
_NOT_NAMES = {
    "In",
    "The",
    "On",
    "At",
    "Since",
    "From",
    "For",
    "NeSy",
    "December",
    "November",
    "Python",
    "Table",
    "Figure",
    "Q",
    "Version",
    "Adult",
    "COMPAS",
    "Lawschool",
    "Sage",
    "ICML",
    "NeurIPS",
    "UCI",
    "AAAI",
}


def inline_citations(text: str) -> set[tuple[str, str]]:
    """(first author's family name, year) of "Yeh and Lien, 2009", "Hardt et al. 2016",
    "Karimi, Schölkopf & Valera 2021" written in a page's prose (code and roles left out)."""
    text = re.sub(r"```.*?```", "", text, flags=re.S)
    text = re.sub(r"\{[a-z:]+\}`[^`]*`|`[^`]*`", "", text)
    found = set()
    for m in _INLINE.finditer(text):
        whole = m.group(0)
        if m.group("first") in _NOT_NAMES or not re.search(r" et al\.| and | & |, [A-Z]|\(\d{4}", whole):
            continue
        found.add((m.group("first"), m.group("year")))
    return found


def test_inline_citation_finder_on_known_text() -> None:
    text = (
        "the default of credit-card clients in Taiwan (Yeh and Lien, 2009, *Expert Systems*); "
        "lowest cost (Karimi, Schölkopf & Valera 2021); equalised odds, Hardt et al. 2016; "
        "after Zhang et al. (2016); in 2016 we; `Kusner et al. 2017` in code"
    )
    assert inline_citations(text) == {("Yeh", "2009"), ("Karimi", "2021"), ("Hardt", "2016"), ("Zhang", "2016")}


def test_every_inline_citation_is_in_the_bibliography() -> None:
    from pybtex.database import parse_file

    known = set()
    for entry in parse_file(str(ROOT / "book" / "references.bib")).entries.values():
        year = re.sub(r"\D", "", entry.fields.get("year", ""))
        for person in entry.persons.get("author", [])[:1]:
            known.add((plain_notebook._latex_to_text(" ".join(person.last_names)), year))
    toc = course_kit.toc_order(yaml.safe_load((ROOT / "_toc.yml").read_text(encoding="utf-8")))
    missing = {}
    for page in toc:
        source = ROOT / f"{page}.md"
        if source.is_file():
            for cite in inline_citations(source.read_text(encoding="utf-8")) - known:
                missing.setdefault(page, []).append(cite)
    assert not missing, f"author-year citations without an entry in book/references.bib: {missing}"


def test_the_prose_cites_with_roles() -> None:
    """An author-year citation in a page's prose is a {cite} role (linked to the bibliography), not plain text."""
    toc = course_kit.toc_order(yaml.safe_load((ROOT / "_toc.yml").read_text(encoding="utf-8")))
    plain = {
        page: sorted(found)
        for page in toc
        if (ROOT / f"{page}.md").is_file()
        and (found := inline_citations((ROOT / f"{page}.md").read_text(encoding="utf-8")))
    }
    assert not plain, f"plain-text citations; write {{cite:p}}`key` or {{cite:t}}`key` instead: {plain}"


# ============================================================================ pdf and Makefile
def test_print_copy_opens_dropdowns_and_main_fails_clearly(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    page = tmp_path / "index.html"
    page.write_text("<html><head><title>t</title></head><body><details><p>hidden</p></details></body></html>")
    copy = book_pdf.print_copy(page)
    assert (
        copy.name == "index.print.html" and "d.open = true" in copy.read_text() and "@media print" in copy.read_text()
    )
    (tmp_path / "bad.html").write_text("<p>no head</p>")
    with pytest.raises(ValueError, match="no </head>"):
        book_pdf.print_copy(tmp_path / "bad.html")
    assert book_pdf.main([str(tmp_path / "missing.html"), str(tmp_path / "o.pdf")]) == 2
    assert "does not exist; build the book as one page first" in capsys.readouterr().err
    monkeypatch.setattr(book_pdf, "chromium", lambda: None)
    assert book_pdf.main([str(page), str(tmp_path / "o.pdf")]) == 2
    assert "chromium is not installed; `make browser`" in capsys.readouterr().err


@pytest.mark.slow
def test_print_pdf_in_chromium(tmp_path: Path) -> None:
    binary = book_pdf.chromium()
    if binary is None:
        pytest.skip("chromium is not installed (`make browser`).")
    page = tmp_path / "index.html"
    page.write_text(
        "<html><head><title>t</title></head><body><h1>A book</h1><details><summary>s</summary>"
        "<p>inside</p></details></body></html>"
    )
    out = tmp_path / "book.pdf"
    book_pdf.print_pdf(page, out, binary=binary, budget_ms=2000, timeout=120)
    assert out.read_bytes()[:5] == b"%PDF-" and not (tmp_path / "index.print.html").exists()


@pytest.mark.skipif(shutil.which("make") is None, reason="needs make")
def test_make_targets_for_the_student_edition_and_the_pdf() -> None:
    def dry(target: str, *extra: str) -> str:
        return subprocess.run(
            ["make", "-n", "--no-print-directory", target, *extra], cwd=ROOT, capture_output=True, text=True, check=True
        ).stdout

    student = dry("book-student")
    assert re.search(
        r"CFFAIR_EDITION=student \S*sphinx-build -W -n -E -j 2 -b html .* \. _build/student/_build/html", student
    )
    book = dry("book")
    assert re.search(
        r"CFFAIR_MODE=render \S*sphinx-build -W -n -E -j 2 -b html -d _build/.doctrees \. _build/html$", book, re.M
    )
    pdf = dry("pdf")
    assert "-b singlehtml -d _build/pdf/_build/.doctrees . _build/pdf/_build/singlehtml" in pdf
    assert "CFFAIR_EDITION=instructor" in pdf
    assert "tools/book_pdf.py _build/pdf/_build/singlehtml/intro.html _build/pdf/cffair-book.pdf" in pdf
    assert "_build/pdf/cffair-book-student.pdf" in dry("pdf", "EDITION=student")


# ============================================================================ commands after make install
def test_bare_commands_on_known_text() -> None:
    bare = "Run\n\n```bash\ncffair reproduce --only q1 --mode quick\nmake book\n```\n"
    assert len(book_checks.bare_commands(bare)) == 1 and "cffair reproduce" in book_checks.bare_commands(bare)[0]
    assert book_checks.bare_commands("```bash\n.venv/bin/cffair reproduce\nmake lab\n```\n") == []
    activated = "```bash\nsource .venv/bin/activate\n```\n\nlater\n\n```bash\nCFFAIR_MODE=quick python x.py\n```\n"
    assert book_checks.bare_commands(activated) == []
    assert book_checks.bare_commands("```python\nimport cffair\n```\n") == []
    assert len(book_checks.bare_commands("```bash\nCFFAIR_MODE=quick python x.py\n```\n")) == 1


#: Every page of the book: its shell commands run as written after ``make install``.
PAGES = sorted(
    str(p.relative_to(ROOT).with_suffix(""))
    for p in (ROOT / "intro.md", *(ROOT / "book").glob("*.md"), *(ROOT / "notebooks").glob("*.md"))
)


@pytest.mark.parametrize("page", PAGES)
def test_every_pages_commands_run_after_make_install(page: str) -> None:
    assert book_checks.bare_commands((ROOT / f"{page}.md").read_text(encoding="utf-8")) == []


# ============================================================================ api_docs
DOCUMENTED = [
    "cffair.datasets._spec.DatasetSpec",
    "cffair.datasets._registry.load",
    "cffair.datasets._paper.load",
    "cffair.reporting._names.RESULT_COLUMNS",
    "cffair.experiments._store.ResultsStore",
    "cffair.experiments._store.ResultsStore.put",
    "cffair.experiments._registry.BASELINES",
    "cffair.causal._cnf.CausalFlow.fit",
    "cffair.learners._training.LTNLearner.fit",
]


@pytest.mark.parametrize(
    ("target", "module", "expected"),
    [
        ("cffair.datasets.DatasetSpec", None, "cffair.datasets._spec.DatasetSpec"),  # a package's re-export
        ("~cffair.datasets.DatasetSpec", None, "cffair.datasets._spec.DatasetSpec"),
        ("D.DatasetSpec", "cffair.causal._cnf", "cffair.datasets._spec.DatasetSpec"),  # behind a module alias
        ("RESULT_COLUMNS", "cffair.reporting._tables", "cffair.reporting._names.RESULT_COLUMNS"),  # a bare name
        ("ResultsStore.put", None, "cffair.experiments._store.ResultsStore.put"),  # a method by its class
        ("cffair.experiments.BASELINES", None, "cffair.experiments._registry.BASELINES"),  # re-exported from elsewhere
        ("cffair.datasets.load", None, None),  # two candidates: ambiguous, left to Sphinx's warning
        ("fit", "cffair.scores._metrics", None),  # two fits, none in the referring package's own module path
        ("cffair.causal.Missing", None, None),
        ("pandas.DataFrame", None, None),  # other libraries are never resolved to ours
    ],
)
def test_api_references_resolve_to_the_one_object_they_mean(target: str, module: str | None, expected: str | None):
    assert api_docs.resolve_target(target, DOCUMENTED, module=module) == expected


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        (":param lo, hi: range of an integer node.", ":param lo,hi: range of an integer node."),
        (":ivar n, m: sizes.", ":ivar n,m: sizes."),
        ("   :type x, y: int", "   :type x,y: int"),
        (":param lo: the lower end, inclusive.", ":param lo: the lower end, inclusive."),
        ("a, b: in prose, not a field", "a, b: in prose, not a field"),
    ],
)
def test_parameters_documented_together_stay_one_field(line: str, expected: str) -> None:
    assert api_docs.join_parameter_names(line) == expected


def test_the_api_reference_documents_every_module_of_the_library() -> None:
    """A new module appears in the reference, or its package is documented with its members there;
    the command line (documented by ``--help``) and entry points are the exceptions."""
    import pkgutil

    import cffair

    documented = {}
    for page in sorted((ROOT / "book" / "api").glob("*.md")):
        for directive, name, options in re.findall(
            r"\.\. (automodule|autoface):: (\S+)((?:\n   :[^\n]*)*)", page.read_text(encoding="utf-8")
        ):
            assert name not in documented, f"{name} is documented twice ({documented.get(name)} and {page.name})"
            documented[name] = directive == "autoface" or ":members:" in options
    modules = {m.name for m in pkgutil.walk_packages(cffair.__path__, "cffair.")}
    exempt = {m for m in modules if m.startswith("cffair.cli") or m.endswith("__main__")}
    missing = sorted(
        m
        for m in modules - exempt - set(documented)
        if not documented.get(m.rsplit(".", 1)[0], False)  # its package, with members
    )
    assert not missing, f"modules missing from book/api/: {missing}"
    assert not set(documented) - modules, "book/api/ names modules that do not exist"
    toc = course_kit.toc_order(yaml.safe_load((ROOT / "_toc.yml").read_text(encoding="utf-8")))
    pages = {f"book/api/{p.stem}" for p in (ROOT / "book" / "api").glob("*.md")}
    assert pages <= set(toc), f"API pages not in _toc.yml: {sorted(pages - set(toc))}"


def test_the_api_pages_document_each_name_of_each_face_once_under_the_face() -> None:
    """The modules are private (``cffair.scores._metrics``): what a user imports comes from a part's face, and
    the reference documents each of its names exactly once, under the path it is imported from (the names a
    face re-exports from another part are documented with that part)."""
    import importlib
    import inspect
    from collections import Counter

    pages = "\n".join(p.read_text(encoding="utf-8") for p in (ROOT / "book" / "api").glob("*.md"))
    modules = re.findall(r"^\.\. autoface:: (\S+)$", pages, flags=re.M)
    documented: Counter[str] = Counter()
    for module in modules:
        exported, internal = api_docs.face_members(module)
        documented.update(f"{api_docs.face_of(module)}.{name}" for name in exported)
        assert not set(exported) & set(internal)
    parts = sorted({api_docs.face_of(m) for m in modules})
    assert "cffair.scores" in parts and "cffair.datasets" in parts
    for part in parts:
        face = importlib.import_module(part)
        for name in face.__all__:
            obj = getattr(face, name)
            if inspect.isclass(obj) or inspect.isroutine(obj):
                home = obj.__module__
            else:  # a constant: the module of the part that defines it, if one does
                home = next((m for m in modules if name in api_docs._defined(importlib.import_module(m))), "")
            if not home.startswith(part + "._"):
                continue  # another part's name: documented with that part
            assert documented[f"{part}.{name}"] == 1, (
                f"{part}.{name} is documented {documented[f'{part}.{name}']} times"
            )
    # a known answer: the metric of section 6.5 under the path a user imports it from
    assert "cf_mse" in api_docs.face_members("cffair.scores._metrics")[0]


# ============================================================================ tools/time_fresh_clone.py
def test_fresh_clone_timing_records_every_step_even_after_a_failure(tmp_path: Path) -> None:
    import time_fresh_clone

    ran: list[str] = []

    def fake(cmd, cwd, env):
        ran.append(" ".join(cmd))
        assert cwd == tmp_path and env["MARK"] == "1"
        return 2 if cmd[1] == "book" else 0

    rows = time_fresh_clone.time_steps(tmp_path, ["book", "quick", "test"], run=fake, env={"MARK": "1"})
    assert ran == ["make book", "make reproduce MODE=quick JOBS=2", "make test"]
    assert [r["exit"] for r in rows] == [2, 0, 0] and all(r["seconds"] >= 0 for r in rows)
    assert all(len(r["load_before"]) == 2 and len(r["load_after"]) == 2 for r in rows)
    with pytest.raises(ValueError, match="unknown step"):
        time_fresh_clone.time_steps(tmp_path, ["lint"], run=fake)


# ============================================================================ tools/moved_numbers.py
def test_moved_numbers_flags_a_mean_that_moved_past_the_fold_sd_and_reads_why_from_the_fingerprints() -> None:
    import moved_numbers

    def rec(fold: int, acc: float, twins: str, torch: str = "2") -> dict:
        fp = {"code": {"m": "1"}, "packages": {"torch": torch}, "inputs": {"counterfactuals": {"content": twins}}}
        return {
            "config": {"dataset": "d", "setting": "s", "fold": fold},
            "metrics": {"accuracy": acc},
            "fingerprint": fp,
        }

    old = moved_numbers.groups([rec(0, 0.70, "a"), rec(1, 0.72, "a"), rec(2, 0.74, "a")])
    # the means differ by 0.05, the folds' sd is 0.02: moved, because the twins changed on two folds
    new = moved_numbers.groups([rec(0, 0.75, "b"), rec(1, 0.77, "b"), rec(2, 0.79, "a")])
    [row] = moved_numbers.moved(old, new, metrics=["accuracy"])
    assert (row["old"], row["new"], row["folds"]) == (0.72, 0.77, 3)
    assert row["reasons"] == {"input counterfactuals: its content changed": 2}
    # a shift inside the folds' spread is not a moved number, whatever the fingerprints say
    near = moved_numbers.groups([rec(0, 0.71, "b", "3"), rec(1, 0.73, "b", "3"), rec(2, 0.75, "b", "3")])
    assert moved_numbers.moved(old, near, metrics=["accuracy"]) == []
    # a group with one fold has no sd of its own: judged against the dataset's groups with several folds
    one = lambda acc: {"config": {"dataset": "d", "setting": "t", "fold": 0}, "metrics": {"accuracy": acc}}  # noqa: E731
    small = moved_numbers.moved(
        {**old, **moved_numbers.groups([one(0.70)])},
        {**new, **moved_numbers.groups([one(0.71)])},
        metrics=["accuracy"],
        reasons_of=lambda a, b: [],
    )
    assert [r["folds"] for r in small] == [3]  # 0.01 is within the three-fold group's sd 0.02
    large = moved_numbers.moved(
        old | moved_numbers.groups([one(0.70)]),
        new | moved_numbers.groups([one(0.75)]),
        metrics=["accuracy"],
        reasons_of=lambda a, b: [],
    )
    assert sorted((r["folds"], r["sd_basis"]) for r in large) == [(1, "the dataset's median fold sd"), (3, "fold sd")]
