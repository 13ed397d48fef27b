"""A Sphinx extension that offers every notebook page of the book as a plain ``.ipynb`` download.

The book's notebooks are MyST markdown files (``.md``, paired with notebooks by jupytext), so
Jupyter Book's download button offers only ``.md`` and ``.pdf``. At build time this extension
converts each page whose source is a jupytext MyST notebook into ``_sources/<page>.ipynb``
(inputs and cell metadata, no outputs: the notebook a reader runs) and tells the theme about it
(``ipynb_source``), so that the button offers ``.ipynb`` too.

The notebook is plain Jupyter: its Markdown cells have the MyST markup rewritten by
:mod:`plain_notebook` (glued values as the book showed them, boxes as quotes or ``<details>``,
citations as author-year text), a first cell says which book and build it comes from and
how to run it, and the first code cell (:func:`install_cell`) installs this project at the build's
version where it is missing, as on a notebook host (Colab, Binder) that a launch button opens:
``pip install "cffair[notebooks] @ git+<repository>@<tag or commit>"``, the library with the book
package and what the notebooks import. Where there are no committed results beside it, that cell
sets ``CFFAIR_MODE=quick`` so the chapter computes a small version of its records. Sphinx-book-theme's
launch buttons copy the executed MyST notebook to the same path (priority 501), so the plain one is
written again after them.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import plain_notebook as plain

_FRONT_MATTER = re.compile(r"\A---\s*\n(.*?)\n---\s*\n", re.S)
#: The extra of pyproject.toml with what the notebooks import besides the library.
EXTRA = "notebooks"


def is_myst_notebook(path: Path) -> bool:
    """Whether ``path`` is a jupytext MyST notebook (its front matter names the myst format and a kernel)."""
    if path.suffix != ".md" or not path.is_file():
        return False
    match = _FRONT_MATTER.match(path.read_text(encoding="utf-8"))
    return bool(match) and "format_name: myst" in match.group(1) and "kernelspec:" in match.group(1)


def preface(title: str, source: dict[str, Any] | None) -> str:
    """The first cell of a downloaded notebook: where it comes from and how to run it."""
    source = source or {}
    stamp = f"cffair {source.get('version', '')}, built {source.get('date', '')}".strip(", ")
    if source.get("url"):
        get = f"Get the project from {source['url']}"
    else:
        get = "Get the project from the book's footer (the source of the build it came with)"
    return (f"*This notebook is the page “{title}” of the cffair book ({stamp}). The numbers in its text are "
            "those the book showed; running the cells recomputes them (set `mode` in the parameters cell: "
            "`\"render\"` reads the committed results, `\"quick\"` recomputes a small version).*\n\n"
            "*On a notebook host (Colab, Binder) the first code cell installs cffair at this version; without "
            "the committed results it runs the chapter in quick mode. "
            f"{get}; in its folder, `make install` sets up the environment and `make lab` opens JupyterLab "
            "on the notebooks (or `source .venv/bin/activate`, then `jupyter lab`).*")


def install_requirement(url: str | None, ref: str | None) -> str | None:
    """The pip requirement of this project at ``ref`` (a tag or commit) of the repository at ``url``, with the
    notebooks' extra; None without a repository address.

    >>> install_requirement("https://github.com/o/cffair", "v0.2.0")
    'cffair[notebooks] @ git+https://github.com/o/cffair@v0.2.0'
    >>> install_requirement(None, "abc") is None
    True
    """
    if not url:
        return None
    return f"cffair[{EXTRA}] @ git+{url}" + (f"@{ref}" if ref else "")


def install_cell(source: dict[str, Any] | None) -> str:
    """The code of a downloaded notebook's first code cell: install this project where ``cffair_book`` is not
    importable (from the repository at the build's tag or commit), then choose quick mode where there are no
    committed results. In the project's environment it installs nothing and changes nothing."""
    source = source or {}
    requirement = install_requirement(source.get("url"), source.get("ref") or source.get("commit"))
    version = source.get("version", "")
    if requirement is not None:
        get = (f'    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", {json.dumps(requirement)}], '
               "check=True)\n"
               "    importlib.invalidate_caches()\n")
    else:
        how = ("cffair and its book package are not installed, and this book was built from a repository without a "
               f"public address: install cffair {version} from the source archive in the book's footer, e.g. "
               f'pip install "cffair[{EXTRA}] @ file:///path/to/cffair-{version}-<commit>-source.tar.gz"')
        get = f"    raise RuntimeError({json.dumps(how)})\n"
    return ("# Setup where cffair is missing (a notebook host such as Colab or Binder): install it at the version of "
            "this notebook;\n"
            "# in the project's environment this cell installs nothing.\n"
            "import importlib\nimport importlib.util\nimport os\nimport subprocess\nimport sys\n\n"
            'if importlib.util.find_spec("cffair_book") is None:\n'
            f"{get}"
            "import cffair_book\n\n"
            'if not (cffair_book.results_root() / "full").is_dir():  # no committed results here: compute a small version\n'
            '    os.environ.setdefault("CFFAIR_MODE", "quick")\n')


def write_ipynb(source: Path, target: Path, *, glue_file: Path | None = None, bibfile: Path | None = None,
                build: dict[str, Any] | None = None, roles: dict[str, Any] | None = None,
                student: bool = False) -> None:
    """Convert one MyST notebook to a plain ``.ipynb`` with jupytext (no outputs); for the
    ``student`` edition without its solutions (``course_kit.strip_solutions_notebook``)."""
    import jupytext
    import nbformat

    notebook = jupytext.read(source)
    if student:
        import course_kit

        course_kit.strip_solutions_notebook(notebook)
    outputs = json.loads(glue_file.read_text(encoding="utf-8")) if glue_file and glue_file.is_file() else {}
    entries = plain.bib_entries(bibfile) if bibfile and bibfile.is_file() else {}
    title = next((line[2:].strip() for c in notebook.cells if c.cell_type == "markdown"
                  for line in c.source.splitlines() if line.startswith("# ")), source.stem)
    nb = plain.plain_notebook(notebook, glued=plain.Glued(outputs),
                              cite=lambda keys, kind: plain.cite_text(keys, kind, entries),
                              source_dir=source.parent, preface=preface(title, build), roles=roles)
    setup = nbformat.v4.new_code_cell(install_cell(build))
    setup["id"] = "cffair-install"
    nb.cells.insert(1, setup)
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_suffix(".ipynb.tmp")
    tmp.write_text(nbformat.writes(nb), encoding="utf-8")
    tmp.replace(target)


def _source_of(app: Any, pagename: str, doctree: Any) -> Path | None:
    if doctree is None or pagename not in app.env.found_docs:
        return None
    source = Path(app.env.doc2path(pagename))
    return source if is_myst_notebook(source) else None


def _offer_ipynb(app: Any, pagename: str, templatename: str, context: dict[str, Any], doctree: Any) -> None:
    if _source_of(app, pagename, doctree) is not None:
        context["ipynb_source"] = f"{pagename}.ipynb"


def _write_plain(app: Any, pagename: str, templatename: str, context: dict[str, Any], doctree: Any) -> None:
    source = _source_of(app, pagename, doctree)
    if source is None:
        return
    bibs = [Path(app.srcdir) / b for b in (getattr(app.config, "bibtex_bibfiles", None) or [])]
    write_ipynb(source, Path(app.outdir) / "_sources" / f"{pagename}.ipynb",
                glue_file=Path(app.outdir).parent / "jupyter_execute" / f"{pagename}.glue.json",
                bibfile=bibs[0] if bibs else None, build=getattr(app, "cffair_source", None), roles=_roles(app, pagename),
                student=_student(app))


def _student(app: Any) -> bool:
    """Whether this is the student edition (when course_kit is loaded)."""
    if "course_kit" not in app.extensions:
        return False
    import course_kit

    return course_kit.edition() == "student"


def _roles(app: Any, pagename: str) -> dict[str, Any]:
    """The teaching kit's roles, resolved as on the page (when course_kit is loaded)."""
    if "course_kit" not in app.extensions:
        return {}
    import course_kit

    return {"reading-time": lambda t: course_kit.reading_time_text(app, t, where=pagename),
            "exercises": lambda t: course_kit.exercises_text(app, t, where=pagename)}


def setup(app: Any) -> dict[str, Any]:
    # Before sphinx-book-theme builds its header buttons (priority 501) ...
    app.connect("html-page-context", _offer_ipynb, priority=400)
    # ... and after its launch buttons copy the executed MyST notebook to the same path.
    app.connect("html-page-context", _write_plain, priority=800)
    return {"version": "0.2", "parallel_read_safe": True, "parallel_write_safe": True}
