"""A Sphinx extension for teaching from the book: numbered exercises, reading times computed
from word counts, and a student edition without solutions.

* **Exercises** are numbered across the book, "Exercise 3.2" for the second exercise of the
  third chapter that has exercises (chapters counted in the order of ``_toc.yml``): each item of
  a page's "Exercises" section gets its number, and the "Solution" box after it is retitled
  "Solution to exercise 3.2". The source stays a plain numbered list.
* **Reading times**: the role ``{reading-time}`notebooks/q2_baselines``` becomes that page's
  reading time, its words of prose (paragraphs, lists, boxes, captions; not code, tables or
  equations) at :data:`WORDS_PER_MINUTE`, plus :data:`MINUTES_PER_EXHIBIT` per table and figure.
  ``{exercises}`page``` becomes the page's exercise numbers ("3.1–3.4").
* **Editions**: with ``CFFAIR_EDITION=student`` (``make book-student``) every solution is removed
  from the pages and from the search index: boxes titled "Solution…" or of class ``solution`` or
  ``instructor``, and notebook cells tagged ``solution`` or ``instructor``. Each removed box
  leaves one line saying that the instructor edition has it. The default is the instructor
  edition (everything shown).

The counting and numbering functions are pure and tested in ``tests/test_book_ext.py``.
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


def exercise_chapters(sources: Iterable[tuple[str, str]]) -> dict[str, int]:
    """Chapter numbers for exercises: ``(docname, source text)`` pairs in toc order → the docnames
    whose source has an "Exercises" heading, numbered 1, 2, ... in that order."""
    numbered = [doc for doc, text in sources if _EXERCISES_HEADING.search(text)]
    return {doc: i for i, doc in enumerate(numbered, start=1)}


def exercise_range(chapter: int, count: int) -> str:
    """``3, 4`` → "3.1–3.4"; one exercise → "3.1"; none → "none"."""
    if count <= 0:
        return "none"
    return f"{chapter}.1" if count == 1 else f"{chapter}.1–{chapter}.{count}"


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


def number_exercises(doctree: nodes.Node, chapter: int) -> int:
    """Number the items of a page's "Exercises" section "Exercise {chapter}.k" and retitle the
    solution box after item k "Solution to exercise {chapter}.k"; the number of exercises."""
    count = 0
    for section in doctree.findall(nodes.section):
        title = section.next_node(nodes.title)
        if title is None or title.astext().strip().rstrip("#").strip() != "Exercises":
            continue
        for child in list(section.children):
            if isinstance(child, nodes.enumerated_list):
                for item in child.children:
                    count += 1
                    label = nodes.strong("", f"Exercise {chapter}.{count}. ", classes=["cffair-exercise-number"])
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
                    box_title.children = [nodes.Text(f"Solution to exercise {chapter}.{count}")]
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


def _chapters(app: Any) -> dict[str, int]:
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
    """``{exercises}`target``` as text: "3.1–3.4"."""
    if target not in app.env.found_docs:
        raise ValueError(f"{where}: {{exercises}}`{target}` names no page of the book")
    chapters = _chapters(app)
    count = number_exercises(app.env.get_doctree(target), chapters[target]) if target in chapters else 0
    return exercise_range(chapters.get(target, 0), count)


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


def setup(app: Any) -> dict[str, Any]:
    edition()  # a wrong $CFFAIR_EDITION stops the build at once, with the allowed values
    app.add_node(reading_time)
    app.add_node(exercise_numbers)
    app.add_role("reading-time", _role(reading_time))
    app.add_role("exercises", _role(exercise_numbers))
    app.connect("doctree-resolved", _resolve)
    return {"version": "0.1", "parallel_read_safe": True, "parallel_write_safe": True}
