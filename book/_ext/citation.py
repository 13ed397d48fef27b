"""How to cite the book, from ``CITATION.cff``: the line every page's footer ends with.

Not an extension of its own: :mod:`book_source` adds the line to the footer it stamps with the
version, so the citation always names the version the page was built from. The text is built from
``CITATION.cff`` (the software: authors, year of ``date-released``, title) and its
``preferred-citation`` (the paper), so the footer, the repository's "Cite this repository" button
and the archive metadata (``.zenodo.json``, which ``tests/package/test_release.py`` keeps in agreement) say
the same.
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any


def read_citation(root: Path) -> dict[str, Any] | None:
    """``CITATION.cff`` of the repository at ``root`` as a mapping (None when there is none)."""
    import yaml

    path = root / "CITATION.cff"
    if not path.is_file():
        return None
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    return data if isinstance(data, dict) else None


def names(authors: Sequence[Mapping[str, Any]]) -> str:
    """Authors as a citation lists them: "A, B and C" (family names; an entity's ``name``).

    >>> names([{"family-names": "Heilmann", "given-names": "Xenia"}, {"family-names": "Belle"}])
    'Heilmann and Belle'
    >>> names([{"name": "The cffair contributors"}])
    'The cffair contributors'
    """
    parts = [str(a.get("family-names") or a.get("name") or "").strip() for a in authors]
    parts = [p for p in parts if p]
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]


def citation_footer(cff: Mapping[str, Any], version: str) -> str:
    """The footer's "How to cite" paragraph: this software at ``version``, and the paper for the method.

    >>> cff = {"title": "cffair", "authors": [{"name": "The cffair contributors"}], "date-released": "2026-12-02",
    ...        "preferred-citation": {"title": "A Paper", "year": 2025, "authors": [{"family-names": "Heilmann"}]}}
    >>> print(citation_footer(cff, "0.2.0"))
    <p class="cffair-citation">How to cite: The cffair contributors (2026). <em>cffair</em>, version 0.2.0 (software and book). For the method, cite Heilmann (2025), <em>A Paper</em>. All details: <code>CITATION.cff</code> in the source.</p>
    """
    year = str(cff.get("date-released", ""))[:4]
    software = (
        f"{html.escape(names(cff.get('authors', [])))} ({html.escape(year)}). "
        f"<em>{html.escape(str(cff.get('title', '')))}</em>, version {html.escape(version)} (software and book)."
    )
    paper = cff.get("preferred-citation") or {}
    method = ""
    if paper:
        method = (
            f" For the method, cite {html.escape(names(paper.get('authors', [])))} ({html.escape(str(paper.get('year', '')))}), "
            f"<em>{html.escape(str(paper.get('title', '')))}</em>."
        )
    return (
        f'<p class="cffair-citation">How to cite: {software}{method} '
        "All details: <code>CITATION.cff</code> in the source.</p>"
    )
