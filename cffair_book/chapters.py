"""The book's chapters: the page that shows each question group, and running their notebooks.

The library knows the question groups (:data:`cffair.experiments._registry.QUESTION_GROUPS`: what
the reproduce command's ``--only`` computes, and which groups are investigations or studies of which
question); the book knows where each is shown. A question has a chapter of its own (a notebook
under ``notebooks/``, a page title, the paper's tables and figures it regenerates); an investigation
or a study is shown in its question's chapter (section "Why does this claim fail?", or the studies'
section).

The reproduce command runs the chapters' notebooks after the grid through the entry point this
package installs (:func:`cffair_book.execute.reproduce_step`), so the library never imports the book.

>>> chapter("q2").notebook, notebook_of("q2_why")
('q2_baselines', 'q2_baselines')
>>> group_label("q2_why")
'Q2: baselines — why claims fail'
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass

from cffair.errors import RegistryError
from cffair.experiments import _registry as registry

__all__ = [
    "CHAPTERS",
    "NOTEBOOKS",
    "Chapter",
    "chapter",
    "chapters",
    "group_label",
    "notebook_of",
    "notebooks",
    "NOTEBOOK_PAGES",
    "register_chapter",
    "registered",
]


@dataclass(frozen=True)
class Chapter:
    """The chapter of one question group (of kind ``question``).

    Attributes:
        group: the question group it shows (:func:`cffair.experiments._registry.question_group`).
        notebook: the notebook's file stem under ``notebooks/`` (also the page's path).
        title: the page's title as the "Regenerate" table shows it.
        link: the short link text of the claims table (``"Q1"``).
        regenerates: the paper's tables and figures the chapter holds; empty when it holds none
            of them (then the intro's "Regenerate" table leaves it out).
    """

    group: str
    notebook: str
    title: str
    link: str = ""
    regenerates: str = ""

    def __post_init__(self) -> None:
        if not self.group or not self.notebook or not self.title:
            raise RegistryError(
                f"a chapter needs a group, a notebook and a title, got {self.group!r}, {self.notebook!r} "
                f"and {self.title!r}."
            )


#: The chapter of every question, in the order of the question groups.
CHAPTERS: dict[str, Chapter] = {
    c.group: c
    for c in (
        Chapter(
            "q1",
            "q1_counterfactual_fairness",
            "Q1: counterfactual fairness",
            "Q1",
            "Table 1 (LTN columns), Figures 3–5",
        ),
        Chapter("q2", "q2_baselines", "Q2: baselines", "Q2", "Table 1"),
        Chapter("q3", "q3_knowledge_extraction", "Q3: knowledge extraction", "Q3", "Tables 2 and 3, Figure 4"),
        Chapter("q4", "q4_queries", "Q4: queries", "Q4", "Table 4"),
        Chapter(
            "appendix_a",
            "appendix_a_other_counterfactuals",
            "Appendix A: other counterfactuals",
            "Appendix A",
            "Table 5",
        ),
        Chapter("appendix_b", "appendix_b_axiom_weights", "Appendix B: axiom weights", "Appendix B", "Table 6"),
        Chapter(
            "appendix_c",
            "appendix_c_rulers",
            "Appendix C: three rulers",
            "Appendix C",
            "Table 1 on three rulers (ours, not the paper's)",
        ),
        Chapter("beyond", "beyond_the_paper", "Beyond the paper", "Beyond the paper"),
    )
}


def register_chapter(c: Chapter, *, replace: bool = False) -> Chapter:
    """Add ``c`` to :data:`CHAPTERS`: the page of a registered question.

    Raises:
        RegistryError: if the group is not a registered question (an investigation or a study is
            shown in its question's chapter), or already has a chapter (pass ``replace=True``).
    """
    kind = registry.question_group(c.group).kind
    if kind != "question":
        raise RegistryError(
            f"{c.group!r} is an {kind} of {registry.question_group(c.group).of!r} and is shown in that chapter; "
            "only a question has a chapter of its own."
        )
    if c.group in CHAPTERS and not replace:
        raise RegistryError(f"chapter {c.group!r} is already registered; pass replace=True to redefine it.")
    CHAPTERS[c.group] = c
    return c


def chapter(group: str) -> Chapter:
    """The chapter that shows ``group``: its own, or, for an investigation or a study, its question's."""
    g = registry.question_group(group)
    try:
        return CHAPTERS[g.of or g.name]
    except KeyError:
        raise RegistryError(
            f"question group {g.of or g.name!r} has no chapter; register one with "
            "cffair_book.chapters.register_chapter."
        ) from None


def chapters(*, regenerates: bool = False, paper: bool = False) -> dict[str, Chapter]:
    """The chapters, by group; ``regenerates`` keeps those that hold a table or figure of the paper,
    ``paper`` those of the paper's questions."""
    return {
        g: c
        for g, c in CHAPTERS.items()
        if (not regenerates or c.regenerates) and (not paper or registry.question_group(g).paper)
    }


def notebook_of(group: str) -> str:
    """The notebook that shows question group ``group`` (an investigation: its question's)."""
    return chapter(group).notebook


def notebooks() -> dict[str, str]:
    """``{group: notebook stem}`` of every question group that a chapter shows."""
    return {g: CHAPTERS[q.of or g].notebook for g, q in registry.QUESTION_GROUPS.items() if (q.of or g) in CHAPTERS}


#: :func:`notebooks`, read when used (so that a chapter registered later is in it).
NOTEBOOKS: Mapping[str, str] = registry.View(notebooks)

#: The notebook of each chapter (file stem under ``notebooks/``) and its link text, by question group.
NOTEBOOK_PAGES: Mapping[str, tuple[str, str]] = registry.View(
    lambda: {g: (c.notebook, c.link) for g, c in CHAPTERS.items()}
)


def group_label(group: str) -> str:
    """A question group as a reader knows it: its chapter's title, or, for an investigation or a
    study, the chapter it is part of and what it is.

    >>> group_label("q1"), group_label("appendix_c_studies")
    ('Q1: counterfactual fairness', 'Appendix C: three rulers — studies')
    """
    g = registry.question_group(group)
    if g.kind == "question":
        return chapter(group).title
    return f"{chapter(group).title} — {'why claims fail' if g.kind == 'investigation' else 'studies'}"


@contextmanager
def registered(*entries: registry.Method | registry.QuestionGroup | Chapter) -> Iterator[None]:
    """Register methods, question groups and chapters for the duration of a ``with`` block (tests),
    then restore the registries as they were."""
    saved = dict(CHAPTERS)
    with registry.registered(*(e for e in entries if not isinstance(e, Chapter))):
        try:
            for e in entries:
                if isinstance(e, Chapter):
                    register_chapter(e)
            yield
        finally:
            CHAPTERS.clear()
            CHAPTERS.update(saved)
