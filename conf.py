"""Sphinx configuration of the cffair book (built with ``sphinx-build``; ``make book`` runs it).

    CFFAIR_MODE=render sphinx-build -b html -W -n -E -d _build/.doctrees . _build/html

The table of contents is ``_toc.yml`` (sphinx-external-toc, Jupyter Book's format); this file holds
every other setting. The build works offline: no thebe, no analytics, no intersphinx, MathJax served
from the book's own ``_static`` folder. Launch buttons are plain links, switched on by
``book/_ext/book_source.py`` only when the repository has a web address. ``CFFAIR_EDITION=student``
builds the student edition (``book/_ext/course_kit.py``).
"""

from __future__ import annotations

import sys
from importlib import metadata
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent
# The library (autodoc imports it from this checkout) and the book's own extensions (book/_ext).
for _path in (ROOT / "book" / "_ext", ROOT):
    if str(_path) not in sys.path:
        sys.path.insert(0, str(_path))

# A relative $CFFAIR_RESULTS names a folder from where the build started; the notebooks' kernels run in their own
# folders, so it is made absolute once, here, for every kernel the build starts.
from cffair.workflows._reproduce import pin_results_root  # noqa: E402

pin_results_root()

# ----------------------------------------------------------------------------- the book
project = html_title = "Counterfactual fairness with logic tensor networks: a reproduction"
author = "The cffair authors"
copyright = "2025 the cffair authors; code under the MIT licence, text and figures under CC BY 4.0"

extensions = [
    "myst_nb",  # MyST markdown and the MyST notebooks (notebooks/*.md, executed at each build), glue
    "sphinx_external_toc",  # the table of contents: _toc.yml
    "sphinx_book_theme",
    "sphinx_copybutton",
    "sphinx_togglebutton",
    "sphinx_design",
    "sphinxcontrib.bibtex",
    # MathJax 3 served from the book's own _static folder (sphinx-mathjax-offline, MathJax 3.2.2):
    # equations render without any CDN.
    "sphinx-mathjax-offline",
    # The API reference (book/api/) from the library's docstrings (Google-style sections).
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
    # book/_ext: keeps every page's <script> and stylesheet entries unique and thebe-free.
    "offline_html",
    # Links pages to the repository (buttons only with a web address) and stamps the version, commit
    # and build date in every footer; ships the source of the build.
    "book_source",
    # Offers each notebook page as a plain .ipynb in the download menu (jupytext at build time, MyST
    # markup rewritten as plain Markdown).
    "ipynb_download",
    # Numbers the exercises, computes reading times, and leaves the solutions out of the student
    # edition (CFFAIR_EDITION=student, make book-student).
    "course_kit",
    # Resolves re-exported names and keeps attribute comments as prose in the API reference.
    "api_docs",
]

# ----------------------------------------------------------------------------- sources
external_toc_path = "_toc.yml"
external_toc_exclude_missing = True
# Only the pages named in _toc.yml are built (sphinx-external-toc); the patterns below keep Sphinx
# from even looking at generated or private files (paired .ipynb copies of the MyST notebooks, the
# virtual environments, build output, hidden folders, tests, benchmarks).
exclude_patterns = [
    "_build",
    ".venv",
    "**/.venv",
    ".*",
    "**/.*",
    "notebooks/*.ipynb",
    "**/*.ipynb",
    "**.ipynb_checkpoints",
    "README.md",
    "benchmarks",
    "tests",
    "test-artifacts",
    "results",
    "cffair",
    "cffair.egg-info",
    "Thumbs.db",
    ".DS_Store",
]
myst_enable_extensions = ["amsmath", "colon_fence", "deflist", "dollarmath", "substitution"]
myst_url_schemes = ["mailto", "http", "https"]
numfig = True
pygments_style = "sphinx"
suppress_warnings = ["myst.domains"]

# ----------------------------------------------------------------------------- notebooks (myst-nb)
# Every page that has code is a MyST markdown notebook, executed at each build. The notebooks of the
# research questions read committed results in render mode (CFFAIR_MODE=render), so a build stays
# short; "force" avoids a stale jupyter-cache (the cache does not notice changes to cffair or to
# results/). A cell's error is a warning, so it fails the build (-W).
nb_execution_mode = "force"
nb_execution_timeout = 3600
nb_execution_allow_errors = False
nb_execution_in_temp = False
nb_execution_excludepatterns: list[str] = []
nb_output_stderr = "remove-warn"
nb_merge_streams = True

# ----------------------------------------------------------------------------- references, maths
# Cite with {cite:p}`key` or {cite:t}`key`.
bibtex_bibfiles = ["book/references.bib"]
bibtex_reference_style = "author_year"
bibtex_default_style = "plain"
mathjax_path = "mathjax/tex-chtml.js"

# ----------------------------------------------------------------------------- API reference
# Members in each module's order, type hints in the descriptions, not the signatures.
autodoc_member_order = "bysource"
autodoc_typehints = "description"
autodoc_default_options = {"show-inheritance": True, "undoc-members": True}
napoleon_google_docstring = True
napoleon_numpy_docstring = False
napoleon_use_ivar = True
# Types of other libraries (pandas, numpy, torch, the standard library, ...) are named, not linked:
# the build is offline, without intersphinx inventories.
_OTHER_LIBRARIES = (
    "pandas|pd|numpy|np|torch|collections|pathlib|typing|types|ast|csv|sklearn|matplotlib|plt|mpl|seaborn|zuko|"
    "ltn|fairlearn|joblib|dask|dask_jobqueue|distributed|networkx|yaml|scipy|argparse|datetime|enum|os|io|json|"
    "concurrent|tqdm|papermill|warnings|logging|hashlib|math|filelock"
)
nitpick_ignore_regex = [
    ("py:.*", rf"({_OTHER_LIBRARIES})(\..*)?"),
    # type variables of generic classes and functions
    ("py:(class|obj)", r"(cffair\.[\w.]+\.)?[A-Z]"),
    # private helpers named in signatures (not part of the reference)
    ("py:class", r"(cffair\.[\w.]+\.)?_\w+"),
    (
        "py:class",
        "(Path|Figure|Axes|Styler|Tensor|DataFrame|Series|ndarray|Module|Generator|Sequence|Mapping|Iterable|Callable)",
    ),
    # type aliases (Literal[...]) named in signatures
    ("py:class", "(Setting|FeatureKind|TargetKind|Mode|Device|Kind)"),
]

# ----------------------------------------------------------------------------- HTML
html_theme = "sphinx_book_theme"
html_show_copyright = True
html_sourcelink_suffix = ""  # the download menu's source is the page's .md, not .md.txt
# Every stylesheet and script under _static is on every page (cffair.css: layout fixes on the theme).
html_static_path = ["_static"]
html_css_files = sorted(p.relative_to(ROOT / "_static").as_posix() for p in (ROOT / "_static").rglob("*.css"))
html_js_files = sorted(p.relative_to(ROOT / "_static").as_posix() for p in (ROOT / "_static").rglob("*.js"))
# pydata-sphinx-theme logs a console error on a first visit when no mode is set.
html_context = {"default_mode": "light"}
html_theme_options: dict[str, Any] = {
    "search_bar_text": "Search this book...",
    "home_page_in_toc": True,
    # One search box: pydata-sphinx-theme's header would add a second one (hidden in _static/cffair.css).
    "navbar_persistent": [],
    # The repository's web address, set once here. Left empty, it is read from `git remote get-url
    # origin` when the book is built; with neither, every page's footer says how to get the source (the
    # build ships it as _downloads/cffair-<version>-<commit>-source.tar.gz). The repository, edit and
    # issue buttons are switched on by book/_ext/book_source.py when there is a web address.
    "repository_url": "",
    "repository_branch": "main",
    "path_to_docs": "",
    "use_repository_button": False,
    "use_edit_page_button": False,
    "use_issues_button": False,
    # Binder and Colab buttons on the notebook pages: book_source.py fills in their servers when the
    # repository is on GitHub (and clears them when there is no repository address); name other
    # servers here to use those instead. Colab opens the plain notebooks of the gh-pages branch that
    # `make publish` pushes. No thebe.
    "launch_buttons": {
        "notebook_interface": "classic",
        "binderhub_url": "",
        "jupyterhub_url": "",
        "colab_url": "",
        "deepnote_url": "",
        "thebe": False,
    },
    "extra_footer": (
        '<p>Code: <a href="https://opensource.org/license/mit">MIT licence</a> (LICENSE).\n'
        'Text, figures and tables: <a href="https://creativecommons.org/licenses/by/4.0/">CC BY 4.0</a> '
        "(LICENSE-CONTENT).</p>\n"
    ),
    "announcement": "",
}


def _singlehtml_assets(app: Any) -> None:
    """The whole book on one page (``make pdf``) loads MathJax even if the root page has no equation."""
    if app.builder.name == "singlehtml":
        app.set_html_assets_policy("always")


#: Extensions that declare nothing about parallel reading, which makes Sphinx read (and execute) the pages one at a
#: time under `make book`'s -j. Read at these versions, both are safe beside parallel reading: what they do runs in
#: the main process and reads nothing a reading process writes. sphinx-multitoc-numbering (loaded by
#: sphinx-external-toc) numbers sections across toctrees in TocTreeCollector.assign_section_numbers, after the
#: pages are read and merged; sphinx-mathjax-offline copies MathJax into _static when the build has finished.
_PARALLEL_READ_SAFE = {
    "sphinx_multitoc_numbering": ("sphinx-multitoc-numbering", "0.1.3"),
    "sphinx-mathjax-offline": ("sphinx-mathjax-offline", "0.0.2"),
}


def setup(app: Any) -> None:
    """The book's own build hooks."""
    app.connect("builder-inited", _singlehtml_assets)
    for name, (dist, checked) in _PARALLEL_READ_SAFE.items():
        ext = app.extensions.get(name)
        if ext is not None and metadata.version(dist) == checked:
            ext.parallel_read_safe = True  # another version: Sphinx warns and reads serially until checked again
