"""Release cffair: one version everywhere, the changelog finalised, an annotated tag.

Usage (from the repository root; ``make release VERSION=x.y.z`` runs the same)::

    python tools/release.py 0.2.0                     # today's date (UTC)
    python tools/release.py 0.2.0 --date 2026-12-10   # another date

In a clean working tree (no change, staged or not, and no untracked file: the tag must name
exactly what was tested), it

1. turns the changelog's first heading, ``## <version> — unreleased (...)`` (or ``## Unreleased``),
   into ``## <VERSION> — <date> (...)``;
2. writes the version into ``pyproject.toml``, ``cffair/__init__.py``, ``CITATION.cff`` (with
   ``date-released``) and ``.zenodo.json`` (with ``publication_date``);
3. commits these files ("Release <VERSION>") and creates the annotated tag ``v<VERSION>``.

It pushes nothing: ``git push origin main v<VERSION>`` publishes the release (an archive such as
Zenodo then mints a DOI from ``.zenodo.json``), ``make book`` and ``make publish`` the book that
shows the version in every page's footer. A version in ``__version__`` is not part of any record's
fingerprint (:mod:`cffair._support.codehash`), so a release stales no result. A mistake (a dirty tree, a
malformed version, a tag that exists, no unreleased heading) is one line on stderr and exit
status 2, with nothing changed.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import re
import subprocess
import sys
from pathlib import Path

#: The files that carry the version, relative to the repository root.
FILES = ("CHANGELOG.md", "pyproject.toml", "cffair/__init__.py", "CITATION.cff", ".zenodo.json")
_VERSION = re.compile(r"^\d+\.\d+\.\d+$")
_UNRELEASED = re.compile(r"^## (?:(?P<version>\d+\.\d+\.\d+) — )?[Uu]nreleased(?P<rest>.*)$", re.M)


class ReleaseError(Exception):
    """A release that cannot go ahead; its message says why and what to do."""


def _git(root: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=root, capture_output=True, text=True)
    if done.returncode != 0:
        raise ReleaseError(f"git {' '.join(args)} failed: {done.stderr.strip() or done.stdout.strip()}")
    return done.stdout


def finalise_changelog(text: str, version: str, date: str) -> str:
    """The changelog with its first heading, if unreleased, finalised as ``version`` on ``date``.

    >>> finalise_changelog("# Changelog\\n\\n## 0.2.0 — unreleased (round 3)\\n\\n- x\\n", "0.2.0", "2026-12-10")
    '# Changelog\\n\\n## 0.2.0 — 2026-12-10 (round 3)\\n\\n- x\\n'
    >>> finalise_changelog("## Unreleased\\n", "1.0.0", "2027-01-02")
    '## 1.0.0 — 2027-01-02\\n'
    """
    first = re.search(r"^## .*$", text, re.M)
    match = _UNRELEASED.match(text, first.start()) if first else None
    if match is None:
        raise ReleaseError(
            "CHANGELOG.md's first version heading is not unreleased ('## x.y.z — unreleased' or '## Unreleased'): "
            "there is nothing to release; add the changes under such a heading first"
        )
    heading = f"## {version} — {date}{match.group('rest')}"
    return text[: match.start()] + heading + text[match.end() :]


def _set(text: str, pattern: str, value: str, where: str) -> str:
    new, count = re.subn(pattern, lambda m: m.group(1) + value + m.group(3), text, count=1, flags=re.M)
    if count != 1:
        raise ReleaseError(f"{where} has no line matching {pattern!r}; put the field back, then run the release again")
    return new


def release(root: Path, version: str, date: str) -> str:
    """Write ``version`` and ``date`` into the files, commit them and tag ``v<version>``; the tag's name."""
    if not _VERSION.match(version):
        raise ReleaseError(f"version {version!r} is not MAJOR.MINOR.PATCH (e.g. 0.2.0)")
    try:
        dt.date.fromisoformat(date)
    except ValueError:
        raise ReleaseError(f"date {date!r} is not YYYY-MM-DD") from None
    dirty = _git(root, "status", "--porcelain", "--untracked-files=all").strip()
    if dirty:
        first = dirty.splitlines()[0].strip()
        raise ReleaseError(f"the working tree is not clean ({first}, ...): commit or stash every change, then release")
    tag = f"v{version}"
    if _git(root, "tag", "--list", tag).strip():
        raise ReleaseError(f"tag {tag} exists already: choose another version")
    texts = {name: (root / name).read_text(encoding="utf-8") for name in FILES}
    new = dict(texts)
    new["CHANGELOG.md"] = finalise_changelog(texts["CHANGELOG.md"], version, date)
    new["pyproject.toml"] = _set(texts["pyproject.toml"], r'^(version = ")([^"]*)(")', version, "pyproject.toml")
    new["cffair/__init__.py"] = _set(
        texts["cffair/__init__.py"], r'^(__version__ = ")([^"]*)(")', version, "cffair/__init__.py"
    )
    cff = _set(texts["CITATION.cff"], r"^(version: )(.*)()$", version, "CITATION.cff")
    new["CITATION.cff"] = _set(cff, r"^(date-released: )(.*)()$", date, "CITATION.cff")
    zenodo = json.loads(texts[".zenodo.json"])
    zenodo["version"], zenodo["publication_date"] = version, date
    new[".zenodo.json"] = json.dumps(zenodo, indent=2, ensure_ascii=False) + "\n"
    for name in FILES:
        (root / name).write_text(new[name], encoding="utf-8")
    _git(root, "add", *FILES)
    _git(root, "commit", "--quiet", "-m", f"Release {version}")
    _git(root, "tag", "-a", tag, "-m", f"cffair {version} ({date})")
    return tag


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Release cffair: version, changelog, annotated tag.")
    parser.add_argument("version", help="the version to release, MAJOR.MINOR.PATCH")
    parser.add_argument("--date", default=dt.datetime.now(dt.UTC).date().isoformat(), help="release date, YYYY-MM-DD")
    parser.add_argument("--root", type=Path, default=Path(__file__).resolve().parents[1], help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    try:
        tag = release(args.root, args.version, args.date)
    except (ReleaseError, OSError, ValueError) as exc:
        print(f"release: {exc}", file=sys.stderr)
        return 2
    print(f"released {args.version}: commit and tag {tag} made; publish with `git push origin HEAD {tag}`")
    return 0


if __name__ == "__main__":
    sys.exit(main())
