"""A Sphinx extension that links every page of the book to its code, and stamps it.

* **The repository URL** is set once, in ``conf.py`` (``html_theme_options["repository_url"]``).
  Left empty, it is read from ``git remote get-url origin`` when the book is built, and normalised
  to the web address (``git@github.com:o/r.git`` → ``https://github.com/o/r``; credentials
  dropped). Only when there is a web address are sphinx-book-theme's repository, edit and issue
  buttons and its launch buttons (Binder, Colab) switched on; without one the pages show no button
  that would lead nowhere.
* **How to get the source**: every build ships the source of the commit it was built from as
  ``_downloads/cffair-<version>-<commit>-source.tar.gz`` (``git archive``), and every page's
  footer says where the source is: the repository, or that archive when there is no remote.
* **Version and date**: the footer of every page names ``cffair.__version__``, the commit and
  the build date (``SOURCE_DATE_EPOCH`` when set, for reproducible builds; else today, UTC).
* **How to cite**: the footer ends with the citation of this version and of the paper, from
  ``CITATION.cff`` (:mod:`citation`).

The pure functions (:func:`web_url`, :func:`source_footer`, :func:`launch_settings`) are tested
in ``tests/book/test_book_ext.py``.
"""

from __future__ import annotations

import datetime as dt
import html
import os
import re
import subprocess
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import citation

#: Where launch buttons go when the book has a repository on GitHub.
BINDER_URL = "https://mybinder.org"
COLAB_URL = "https://colab.research.google.com"
#: The branch that ``make publish`` pushes the built book to (Colab opens the plain notebooks there).
PAGES_BRANCH = "gh-pages"
#: The archive of the source, relative to the build's root.
ARCHIVE_DIR = "_downloads"

_SCP_LIKE = re.compile(r"^(?:[\w.-]+@)?(?P<host>[\w.-]+\.[a-z]{2,}):(?P<path>[^/].*)$")


def web_url(remote: str) -> str | None:
    """The web address of a git remote, or None when the remote is not one a reader can open
    (a local path, a ``file://`` URL, an empty string).

    >>> web_url("git@github.com:xheilmann/cffair.git")
    'https://github.com/xheilmann/cffair'
    >>> web_url("https://user:secret@gitlab.com/a/b.git/")
    'https://gitlab.com/a/b'
    >>> web_url("/srv/git/cffair.git") is None
    True
    """
    remote = remote.strip()
    if not remote:
        return None
    scp = _SCP_LIKE.match(remote)
    if scp and "://" not in remote:
        host, path = scp.group("host"), scp.group("path")
    else:
        parts = urlsplit(remote)
        if parts.scheme not in ("http", "https", "ssh", "git") or not parts.hostname:
            return None
        host, path = parts.hostname, parts.path
    path = path.strip("/").removesuffix(".git").strip("/")
    if not path:
        return None
    return urlunsplit(("https", host, "/" + path, "", ""))


def git(*args: str, cwd: Path) -> str | None:
    """The stripped output of ``git args`` in ``cwd``, or None when git fails or is missing."""
    try:
        out = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return out.stdout.strip() if out.returncode == 0 else None


def build_date(environ: dict[str, str] | None = None) -> str:
    """The build date, ISO format: from ``SOURCE_DATE_EPOCH`` when set, else today (UTC)."""
    env = os.environ if environ is None else environ
    epoch = env.get("SOURCE_DATE_EPOCH", "").strip()
    when = dt.datetime.fromtimestamp(int(epoch), dt.UTC) if epoch.isdigit() else dt.datetime.now(dt.UTC)
    return when.date().isoformat()


def launch_settings(url: str | None, launch: dict[str, Any]) -> dict[str, Any]:
    """The ``launch_buttons`` theme options for a repository ``url``: Binder and Colab switched
    on (unless ``conf.py`` names other servers) when the repository is on GitHub, every
    server switched off when there is no URL (no button that leads nowhere)."""
    out = dict(launch)
    servers = ("binderhub_url", "jupyterhub_url", "colab_url", "deepnote_url")
    if url is None or urlsplit(url).hostname != "github.com":
        return {**out, **dict.fromkeys(servers, "")}
    out["binderhub_url"] = out.get("binderhub_url") or BINDER_URL
    out["colab_url"] = out.get("colab_url") or COLAB_URL
    return out


def source_footer(*, version: str, date: str, commit: str | None, url: str | None, archive: str | None) -> str:
    """The footer line of every page: version, commit and build date, then where the source is
    (the repository, else the archive of the source shipped with the book, else how to ask).
    ``archive`` is a path relative to the build's root; ``{root}`` in the result stands for the
    page's relative path to that root (filled in per page)."""
    stamp = f"cffair {html.escape(version)}"
    if commit:
        stamp += f" · commit {html.escape(commit)}"
    stamp += f" · built {html.escape(date)}"
    get = ""
    if archive:
        get = f'<a href="{{root}}{html.escape(archive)}">the source of this build</a> (<code>tar xzf</code>, then <code>make install</code>)'
    if url:
        where = f'Source: <a href="{html.escape(url)}">{html.escape(url)}</a>' + (f", or {get}" if get else "")
    elif get:
        where = ("How to get the source: this book was built from a repository without a public address "
                 f"(no git remote), so it carries {get}")
    else:
        where = ("How to get the source: this book was built outside a git repository; ask whoever gave you "
                 "the book for the cffair repository")
    return f'<p class="cffair-build-stamp">{stamp}. {where}.</p>'


def install_ref(version: str, head: str | None, tagged: str | None) -> str | None:
    """What a downloaded notebook installs the project at (:mod:`ipynb_download`): the release tag
    ``v<version>`` when the build's commit ``head`` is the commit that tag names (``tagged``), else the full
    commit itself.

    >>> install_ref("0.2.0", "a1" * 20, "a1" * 20)
    'v0.2.0'
    >>> install_ref("0.2.0", "a1" * 20, None) == "a1" * 20
    True
    """
    return f"v{version}" if head and tagged == head else head


# ----------------------------------------------------------------------------- Sphinx glue
def _version() -> str:
    try:
        import cffair
    except ImportError:  # the book is built from the repository, so cffair is importable there
        return "unknown"
    return str(cffair.__version__)


def _configure(app: Any, config: Any) -> None:
    root = Path(app.srcdir)
    theme = dict(config.html_theme_options or {})
    url = web_url(theme.get("repository_url") or "") or web_url(git("remote", "get-url", "origin", cwd=root) or "")
    theme["repository_url"] = url or ""
    for key in ("use_repository_button", "use_edit_page_button", "use_issues_button"):
        theme[key] = bool(url)
    theme["launch_buttons"] = launch_settings(url, dict(theme.get("launch_buttons") or {}))
    commit = git("rev-parse", "--short=10", "HEAD", cwd=root)
    version = _version()
    app.cffair_source = {"url": url, "commit": commit, "version": version, "date": build_date(),
                         "archive": None, "root": root, "citation": citation.read_citation(root),
                         "ref": install_ref(version, git("rev-parse", "HEAD", cwd=root),
                                            git("rev-parse", f"v{version}^{{commit}}", cwd=root))}
    config.html_theme_options = theme


def _ship_archive(app: Any) -> None:
    """Write the source of HEAD as a .tar.gz into the build (HTML builders only)."""
    info = app.cffair_source
    if getattr(app.builder, "format", "") != "html" or not info["commit"]:
        return
    name = f"{ARCHIVE_DIR}/cffair-{info['version']}-{info['commit']}-source.tar.gz"
    target = Path(app.outdir) / name
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_suffix(".tmp")
    prefix = f"cffair-{info['version']}/"
    done = git("archive", "--format=tar.gz", f"--prefix={prefix}", "-o", str(tmp), "HEAD", cwd=info["root"])
    if done is None:
        tmp.unlink(missing_ok=True)
        return
    tmp.replace(target)
    info["archive"] = name


def _footer(app: Any, pagename: str, templatename: str, context: dict[str, Any], doctree: Any) -> None:
    info = app.cffair_source
    root = "../" * pagename.count("/")
    line = source_footer(version=info["version"], date=info["date"], commit=info["commit"], url=info["url"],
                         archive=info["archive"]).replace("{root}", root)
    if info.get("citation"):
        line += citation.citation_footer(info["citation"], info["version"])
    theme = context.get("theme_extra_footer") or ""
    context["theme_extra_footer"] = theme + line


def setup(app: Any) -> dict[str, Any]:
    app.connect("config-inited", _configure, priority=100)
    app.connect("builder-inited", _ship_archive)
    app.connect("html-page-context", _footer)
    return {"version": "0.1", "parallel_read_safe": True, "parallel_write_safe": True}
