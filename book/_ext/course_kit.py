"""A Sphinx extension for teaching from the book: numbered exercises, reading times computed
from word counts, and a student edition without solutions.

* **Exercises** are numbered as their chapters are named: "Exercise Q2.3" for the third exercise
  of the chapter titled "Q2: ...", "Exercise A.1" for the first of "Appendix A: ..."; a chapter
  whose title carries no number (LTN in ten minutes, Beyond the paper) numbers its exercises
  "Exercise 1", "Exercise 2", ... Each item of a page's "Exercises" section gets its number, and
  the "Solution" box after it is retitled "Solution to exercise Q2.3". The source stays a plain
  numbered list.
* **Reading times**: the role ``{reading-time}`notebooks/q2_baselines``` becomes that page's
  reading time, its words of prose (paragraphs, lists, boxes, captions; not code, tables or
  equations) at :data:`WORDS_PER_MINUTE`, plus :data:`MINUTES_PER_EXHIBIT` per table and figure.
  ``{exercises}`page``` becomes the page's exercise numbers ("Q2.1–Q2.3").
* **Editions**: with ``CFFAIR_EDITION=student`` (``make book-student``) every solution is removed
  from the pages and from the search index: boxes titled "Solution…" or of class ``solution`` or
  ``instructor``, and notebook cells tagged ``solution`` or ``instructor``. Each removed box
  leaves one line saying that the instructor edition has it. The default is the instructor
  edition (everything shown).
* **Student downloads**: in the student edition the same boxes and cells are also taken out of
  everything else the build ships, when it finishes: the ``.md`` sources and the plain
  ``.ipynb`` notebooks of each page's download button (:func:`strip_solutions_markdown`,
  :func:`strip_solutions_notebook`), the executed notebooks beside the build, and the archive
  of the source that ``book_source`` ships (:func:`strip_solutions_archive`).

The counting and numbering functions are pure and tested in ``tests/book/test_book_ext.py``.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from docutils import nodes

#: Reading speed for technical prose (words per minute).
WORDS_PER_MINUTE = 200
#: Time to read one table or figure (minutes).
MINUTES_PER_EXHIBIT = 0.5
#: The environment variable that chooses the edition, and its values.
EDITION_VARIABLE = "CFFAIR_EDITION"
EDITIONS = ("instructor", "student")
#: Classes and tags that mark what the student edition leaves out.
SOLUTION_MARKS = ("solution", "instructor")
REMOVED_NOTE = "The solution is in the instructor edition of this book."

_EXERCISES_HEADING = re.compile(r"^#{2,3}\s+Exercises\s*$", re.M)
#: A title that names its chapter's number: "Q2: ..." or "Appendix A: ...".
_LABELLED_TITLE = re.compile(r"^(?:(?P<q>Q\d+)|Appendix (?P<appendix>[A-Z]))\b")


# ----------------------------------------------------------------------------- pure functions
def edition(environ: dict[str, str] | None = None) -> str:
    """The edition to build: ``$CFFAIR_EDITION`` (instructor or student), instructor by default.

    Raises:
        ValueError: for another value, naming the allowed ones.
    """
    env = os.environ if environ is None else environ
    value = env.get(EDITION_VARIABLE, "").strip().lower() or "instructor"
    if value not in EDITIONS:
        raise ValueError(f"{EDITION_VARIABLE}={value!r} is not an edition; use one of {', '.join(EDITIONS)}.")
    return value


def toc_order(toc: dict[str, Any]) -> list[str]:
    """The documents of a jupyter-book ``_toc.yml`` (parsed) in reading order, suffixes removed."""
    pages = [toc["root"]]

    def walk(entries: Iterable[dict[str, Any]]) -> None:
        for e in entries or []:
            if "file" in e:
                pages.append(e["file"])
            for key in ("parts", "chapters", "sections"):
                walk(e.get(key, []))

    for key in ("parts", "chapters", "sections"):
        walk(toc.get(key, []))
    return [re.sub(r"\.(md|ipynb)$", "", p) for p in pages]


def chapter_label(text: str) -> str:
    """The number a chapter's title shows, which its exercises carry: "Q2" for "# Q2: Baselines",
    "A" for "# Appendix A: ...", "" for a title without one ("# LTN in ten minutes").

    >>> chapter_label("---\\n---\\n# Q2: Comparison"), chapter_label("# Appendix C: Rulers"), chapter_label("# LTN")
    ('Q2', 'C', '')
    """
    title = next((line[2:].strip() for line in text.splitlines() if line.startswith("# ")), "")
    labelled = _LABELLED_TITLE.match(title)
    if labelled is None:
        return ""
    return labelled.group("q") or labelled.group("appendix")


def exercise_chapters(sources: Iterable[tuple[str, str]]) -> dict[str, str]:
    """The label of each chapter with exercises: ``(docname, source text)`` pairs → the docnames
    whose source has an "Exercises" heading, each with its :func:`chapter_label`."""
    return {doc: chapter_label(text) for doc, text in sources if _EXERCISES_HEADING.search(text)}


def exercise_number(chapter: str, k: int) -> str:
    """The ``k``-th exercise of a chapter labelled ``chapter``: "Q2.3", or "3" when the chapter has no label."""
    return f"{chapter}.{k}" if chapter else str(k)


def exercise_range(chapter: str, count: int) -> str:
    """``"Q2", 3`` → "Q2.1–Q2.3"; one exercise → "Q2.1"; a chapter without a label → "1–3"; none → "none"."""
    if count <= 0:
        return "none"
    first = exercise_number(chapter, 1)
    return first if count == 1 else f"{first}–{exercise_number(chapter, count)}"


def reading_minutes(words: int, exhibits: int) -> int:
    """Minutes to read ``words`` of prose and ``exhibits`` tables and figures, rounded up (at least 1)."""
    return max(1, math.ceil(words / WORDS_PER_MINUTE + exhibits * MINUTES_PER_EXHIBIT))


_SKIP = (nodes.literal_block, nodes.table, nodes.math_block, nodes.math, nodes.raw, nodes.comment,
         nodes.system_message, nodes.target)


def prose_words(doctree: nodes.Node) -> int:
    """Words a reader reads on a page: its text outside code (cell inputs and text outputs), tables,
    equations and raw HTML; captions and Markdown that a cell displays count."""
    count = 0
    stack = [doctree]
    while stack:
        node = stack.pop()
        if isinstance(node, _SKIP):
            continue
        if isinstance(node, nodes.Text):
            count += len(re.findall(r"[^\W_][\w'’.-]*", str(node)))
            continue
        stack.extend(getattr(node, "children", []))
    return count


def exhibits(doctree: nodes.Node) -> int:
    """Tables and figures of a page (raw HTML tables of notebook outputs included)."""
    tables = sum(1 for _ in doctree.findall(nodes.table))
    tables += sum(str(r.astext()).count("<table") for r in doctree.findall(nodes.raw))
    figures = sum(1 for _ in doctree.findall(nodes.image))
    return tables + figures


def is_solution(node: nodes.Node) -> bool:
    """A box or a cell that only the instructor edition shows."""
    if not isinstance(node, nodes.Element):
        return False
    classes = set(node.get("classes", []))
    if classes & set(SOLUTION_MARKS) or classes & {f"tag_{m}" for m in SOLUTION_MARKS}:
        return True
    if isinstance(node, nodes.Admonition) or "admonition" in classes:
        title = next(iter(node.findall(nodes.title)), None)
        return title is not None and title.astext().strip().lower().startswith("solution")
    return False


def remove_solutions(doctree: nodes.Node) -> int:
    """Remove every solution (:func:`is_solution`) from a doctree, leaving a note in each box's
    place; the number removed."""
    found = [n for n in doctree.findall(nodes.Element) if is_solution(n)]
    outermost = [n for n in found if not any(a in found for a in _ancestors(n))]
    for node in outermost:
        if isinstance(node, nodes.Admonition) or "admonition" in node["classes"]:
            node.replace_self(nodes.paragraph("", REMOVED_NOTE, classes=["cffair-solution-removed"]))
        else:
            node.parent.remove(node)
    return len(outermost)


def _ancestors(node: nodes.Node) -> Iterable[nodes.Node]:
    parent = node.parent
    while parent is not None:
        yield parent
        parent = parent.parent


# ----------------------------------------------------------------------------- the student edition's files
_FENCE = re.compile(r"^(?P<indent>\s*)(?P<fence>`{3,}|~{3,}|:{3,})\s*(?:\{(?P<name>[\w:-]+)\})?\s*(?P<arg>.*)$")
_OPTION = re.compile(r"^\s*:(?P<key>[\w-]+):\s*(?P<value>.*)$")
_YAML_OPTION = re.compile(r"^\s*(?P<key>[\w-]+):\s*(?P<value>.*)$")
#: What a removed box leaves in a Markdown source (as on the page).
REMOVED_MARKDOWN = f"*{REMOVED_NOTE}*"


def _words(value: str) -> set[str]:
    return set(re.findall(r"[\w-]+", value.lower()))


def _is_solution_block(name: str, arg: str, options: dict[str, str]) -> bool:
    """A MyST directive that only the instructor edition shows: an admonition titled "Solution…",
    or any directive (a box, a code cell) of class or tag ``solution`` or ``instructor``."""
    marks = _words(options.get("class", "")) | _words(options.get("tags", ""))
    if marks & set(SOLUTION_MARKS):
        return True
    return name in ("admonition", "dropdown") and arg.strip().lower().startswith("solution")


def _options(body: list[str]) -> dict[str, str]:
    """A directive's options: ``:key: value`` lines, or a ``---`` YAML block, at the top of its body."""
    options: dict[str, str] = {}
    if body and body[0].strip() == "---":
        for line in body[1:]:
            if line.strip() == "---":
                break
            if m := _YAML_OPTION.match(line):
                options[m.group("key")] = m.group("value")
        return options
    for line in body:
        if not (m := _OPTION.match(line)):
            break
        options[m.group("key")] = m.group("value")
    return options


def _close(lines: list[str], start: int, fence: str) -> int:
    """The index of the line that closes a fence opened at ``start`` (the last line if none does)."""
    closing = re.compile(rf"^\s*{re.escape(fence[0])}{{{len(fence)},}}\s*$")
    for j in range(start + 1, len(lines)):
        if closing.match(lines[j]):
            return j
    return len(lines) - 1


def _strip_lines(lines: list[str]) -> tuple[list[str], int]:
    out: list[str] = []
    removed = i = 0
    while i < len(lines):
        opened = _FENCE.match(lines[i])
        if not opened or (opened.group("fence").startswith(":") and not opened.group("name")):
            out.append(lines[i])
            i += 1
            continue
        j = _close(lines, i, opened.group("fence"))
        name, body = opened.group("name"), lines[i + 1 : j]
        if name is None:  # a plain code block: as written, even if it shows MyST markup
            out += lines[i : j + 1]
        elif _is_solution_block(name, opened.group("arg"), _options(body)):
            removed += 1
            if name != "code-cell":
                out.append(opened.group("indent") + REMOVED_MARKDOWN)
        elif name == "code-cell":
            out += lines[i : j + 1]
        else:  # another box: a solution may sit inside it
            inner, count = _strip_lines(body)
            out += [lines[i], *inner, lines[j]]
            removed += count
        i = j + 1
    return out, removed


def strip_solutions_markdown(text: str) -> tuple[str, int]:
    """A MyST source without what only the instructor edition shows (see :func:`_is_solution_block`),
    each removed box replaced by :data:`REMOVED_MARKDOWN`, each removed code cell by nothing; and
    how many were removed. Code blocks are left as written.

    >>> strip_solutions_markdown("1. Q?\\n\\n:::{admonition} Solution\\n:class: dropdown\\n42\\n:::\\nend")
    ('1. Q?\\n\\n*The solution is in the instructor edition of this book.*\\nend', 1)
    """
    lines, removed = _strip_lines(text.split("\n"))
    return "\n".join(lines), removed


def strip_solutions_notebook(notebook: Any) -> int:
    """Remove the instructor's material from an ``nbformat`` notebook in place: code cells tagged
    ``solution`` or ``instructor``, and the solution boxes of its Markdown cells
    (:func:`strip_solutions_markdown`); the number removed."""
    removed = 0
    kept = []
    for cell in notebook.cells:
        tags = set(cell.get("metadata", {}).get("tags", []))
        if tags & set(SOLUTION_MARKS):
            removed += 1
            continue
        if cell.get("cell_type") == "markdown":
            source = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
            cell["source"], count = strip_solutions_markdown(source)
            removed += count
        kept.append(cell)
    notebook.cells = kept
    return removed


def strip_solutions_file(path: Path) -> int:
    """Strip a MyST source (``.md``) or a notebook (``.ipynb``) on disk in place; the number removed.
    A file without solutions is left untouched; other suffixes are not read."""
    if path.suffix == ".md":
        text, removed = strip_solutions_markdown(path.read_text(encoding="utf-8"))
        if removed:
            path.write_text(text, encoding="utf-8")
        return removed
    if path.suffix == ".ipynb":
        import nbformat

        notebook = nbformat.reads(path.read_text(encoding="utf-8"), as_version=4)
        removed = strip_solutions_notebook(notebook)
        if removed:
            path.write_text(nbformat.writes(notebook), encoding="utf-8")
        return removed
    return 0


def strip_solutions_archive(path: Path) -> int:
    """Rewrite a ``.tar.gz`` of the source (``book_source``'s archive) with every ``.md`` and
    ``.ipynb`` in it stripped (:func:`strip_solutions_file`); the number of boxes and cells removed.
    Every other member is copied as it is, with its metadata."""
    import io
    import tarfile
    import tempfile

    removed = 0
    tmp = path.with_name(path.name + ".student")
    with tarfile.open(path, "r:gz") as src, tarfile.open(tmp, "w:gz") as dst, tempfile.TemporaryDirectory() as work:
        for member in src.getmembers():
            data = src.extractfile(member).read() if member.isfile() else None  # type: ignore[union-attr]
            if data is not None and Path(member.name).suffix in (".md", ".ipynb"):
                file = Path(work) / f"member{Path(member.name).suffix}"
                file.write_bytes(data)
                count = strip_solutions_file(file)
                if count:
                    removed += count
                    data = file.read_bytes()
                    member.size = len(data)
            dst.addfile(member, io.BytesIO(data) if data is not None else None)
    tmp.replace(path)
    return removed


def number_exercises(doctree: nodes.Node, chapter: str) -> int:
    """Number the items of a page's "Exercises" section "Exercise {chapter}.k" (:func:`exercise_number`)
    and retitle the solution box after item k "Solution to exercise {chapter}.k"; the number of exercises."""
    count = 0
    for section in doctree.findall(nodes.section):
        title = section.next_node(nodes.title)
        if title is None or title.astext().strip().rstrip("#").strip() != "Exercises":
            continue
        for child in list(section.children):
            if isinstance(child, nodes.enumerated_list):
                for item in child.children:
                    count += 1
                    label = nodes.strong(
                        "", f"Exercise {exercise_number(chapter, count)}. ", classes=["cffair-exercise-number"]
                    )
                    first = item.next_node(nodes.paragraph)
                    if first is not None:
                        first.insert(0, label)
                    else:
                        item.insert(0, nodes.paragraph("", "", label))
                bullets = nodes.bullet_list("", *child.children, classes=["cffair-exercises"])
                child.replace_self(bullets)
            elif is_solution(child) and count:
                box_title = child.next_node(nodes.title)
                if box_title is not None and box_title.astext().strip().lower() == "solution":
                    box_title.children = [nodes.Text(f"Solution to exercise {exercise_number(chapter, count)}")]
        break
    return count


# ----------------------------------------------------------------------------- Sphinx glue
class reading_time(nodes.Inline, nodes.TextElement):
    """A placeholder for a page's reading time, filled in when every page has been read."""


class exercise_numbers(nodes.Inline, nodes.TextElement):
    """A placeholder for a page's exercise numbers."""


def _role(kind: type[nodes.TextElement]) -> Any:
    def role(name: str, rawtext: str, text: str, lineno: int, inliner: Any, options: Any = None,
             content: Any = None) -> tuple[list[nodes.Node], list[nodes.Node]]:
        return [kind(rawtext, "", target=text.strip())], []
    return role


def _chapters(app: Any) -> dict[str, str]:
    import yaml

    if not hasattr(app, "cffair_chapters"):
        toc = yaml.safe_load((Path(app.srcdir) / "_toc.yml").read_text(encoding="utf-8"))
        sources = []
        for doc in toc_order(toc):
            path = Path(app.srcdir) / f"{doc}.md"
            sources.append((doc, path.read_text(encoding="utf-8") if path.is_file() else ""))
        app.cffair_chapters = exercise_chapters(sources)
    return app.cffair_chapters


def reading_time_text(app: Any, target: str, *, where: str = "") -> str:
    """``{reading-time}`target``` as text: "12 min"."""
    if target not in app.env.found_docs:
        raise ValueError(f"{where}: {{reading-time}}`{target}` names no page of the book")
    other = app.env.get_doctree(target)
    return f"{reading_minutes(prose_words(other), exhibits(other))} min"


def exercises_text(app: Any, target: str, *, where: str = "") -> str:
    """``{exercises}`target``` as text: "Q2.1–Q2.3"."""
    if target not in app.env.found_docs:
        raise ValueError(f"{where}: {{exercises}}`{target}` names no page of the book")
    chapters = _chapters(app)
    count = number_exercises(app.env.get_doctree(target), chapters[target]) if target in chapters else 0
    return exercise_range(chapters.get(target, ""), count)


def _resolve(app: Any, doctree: nodes.document, docname: str) -> None:
    from sphinx import addnodes

    chapters = _chapters(app)
    if docname in chapters:
        number_exercises(doctree, chapters[docname])
    # One page for the whole book (the singlehtml builder of `make pdf`): each page's part of the
    # tree starts with a start_of_file node naming it.
    for part in doctree.findall(addnodes.start_of_file):
        if part.get("docname") in chapters:
            number_exercises(part, chapters[part["docname"]])
    if edition() == "student":
        remove_solutions(doctree)
    for node in list(doctree.findall(reading_time)):
        node.replace_self(nodes.Text(reading_time_text(app, node["target"], where=docname)))
    for node in list(doctree.findall(exercise_numbers)):
        node.replace_self(nodes.Text(exercises_text(app, node["target"], where=docname)))


def _remove_when_read(app: Any, doctree: nodes.document) -> None:
    """The student edition removes solutions as soon as a page is read, so that the doctrees Sphinx
    keeps between builds hold none either (and again when a page is resolved, see :func:`_resolve`)."""
    if edition() == "student":
        remove_solutions(doctree)


def strip_build(*folders: Path) -> int:
    """Strip every ``.md``, ``.txt`` (a source copied as text), ``.ipynb`` and ``.tar.gz`` under
    ``folders`` (a build's output, its executed notebooks); the number of boxes and cells removed."""
    removed = 0
    for folder in folders:
        if not folder.is_dir():
            continue
        for path in sorted(folder.rglob("*")):
            if not path.is_file():
                continue
            if path.name.endswith(".tar.gz"):
                removed += strip_solutions_archive(path)
            elif path.suffix == ".txt":
                text, count = strip_solutions_markdown(path.read_text(encoding="utf-8", errors="replace"))
                if count:
                    path.write_text(text, encoding="utf-8")
                removed += count
            else:
                removed += strip_solutions_file(path)
    return removed


def _strip_files(app: Any, exception: Exception | None) -> None:
    """The student edition's last step: no solution in any file the build wrote (see the module's docstring)."""
    if exception is not None or edition() != "student":
        return
    from sphinx.util import logging

    out = Path(app.outdir)
    removed = strip_build(out, out.parent / "jupyter_execute")
    logging.getLogger(__name__).info(f"student edition: {removed} solutions removed from the build's files")


def setup(app: Any) -> dict[str, Any]:
    edition()  # a wrong $CFFAIR_EDITION stops the build at once, with the allowed values
    app.add_node(reading_time)
    app.add_node(exercise_numbers)
    app.add_role("reading-time", _role(reading_time))
    app.add_role("exercises", _role(exercise_numbers))
    app.connect("doctree-read", _remove_when_read)
    app.connect("doctree-resolved", _resolve)
    app.connect("build-finished", _strip_files)
    return {"version": "0.1", "parallel_read_safe": True, "parallel_write_safe": True}
