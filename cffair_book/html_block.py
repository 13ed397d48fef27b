"""A block of HTML a notebook shows as it is (the boxes of the pages)."""

from __future__ import annotations


class HTMLBlock:
    """A block of HTML that a notebook shows as it is (``_repr_html_``); ``str`` gives the HTML."""

    def __init__(self, html_text: str) -> None:
        self.html = html_text

    def _repr_html_(self) -> str:
        return self.html

    def __str__(self) -> str:
        return self.html
