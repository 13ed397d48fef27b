"""A Sphinx extension that offers every notebook page of the book as an ``.ipynb`` download.

The book's notebooks are MyST markdown files (``.md``, paired with notebooks by jupytext), so
Jupyter Book's download button offers only ``.md`` and ``.pdf``. At build time this extension
converts each page whose source is a jupytext MyST notebook into ``_sources/<page>.ipynb``
(inputs and cell metadata, no outputs: the notebook a reader runs) and tells the theme about it
(``ipynb_source``), so that the button offers ``.ipynb`` too.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

_FRONT_MATTER = re.compile(r"\A---\s*\n(.*?)\n---\s*\n", re.S)


def is_myst_notebook(path: Path) -> bool:
    """Whether ``path`` is a jupytext MyST notebook (its front matter names the myst format and a kernel)."""
    if path.suffix != ".md" or not path.is_file():
        return False
    match = _FRONT_MATTER.match(path.read_text(encoding="utf-8"))
    return bool(match) and "format_name: myst" in match.group(1) and "kernelspec:" in match.group(1)


def write_ipynb(source: Path, target: Path) -> None:
    """Convert one MyST notebook to ``.ipynb`` with jupytext (no outputs)."""
    import jupytext

    target.parent.mkdir(parents=True, exist_ok=True)
    jupytext.write(jupytext.read(source), target, fmt="ipynb")


def _offer_ipynb(app: Any, pagename: str, templatename: str, context: dict[str, Any], doctree: Any) -> None:
    if doctree is None or pagename not in app.env.found_docs:
        return
    source = Path(app.env.doc2path(pagename))
    if not is_myst_notebook(source):
        return
    write_ipynb(source, Path(app.outdir) / "_sources" / f"{pagename}.ipynb")
    context["ipynb_source"] = f"{pagename}.ipynb"


def setup(app: Any) -> dict[str, Any]:
    # Before sphinx-book-theme builds its header buttons (priority 501).
    app.connect("html-page-context", _offer_ipynb, priority=400)
    return {"version": "0.1", "parallel_read_safe": True, "parallel_write_safe": True}
