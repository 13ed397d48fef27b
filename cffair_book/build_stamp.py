"""Whether a built book is the book of the inputs at hand: the stamp ``make book`` leaves beside it.

``make book`` hashes the book's inputs before it builds (``python -m cffair_book.build_stamp start
_build/html``) and again after (``finish``); when both agree, the build read those inputs, and the
stamp ``_build/html.stamp.json`` says so. The browser test of ``make test`` (``tests/book/test_book.py``)
then browses that book instead of building the same book a second time, but only while
:func:`reusable` finds the inputs unchanged; otherwise it builds its own, as before.

The inputs (:func:`inputs`) are everything the build reads that can change:

* the working tree: every file git tracks or would track (untracked files that ``.gitignore`` does
  not ignore), each by its git blob hash of the content on disk (``git hash-object``, nothing
  written to the repository), so a commit, an uncommitted edit, a new record or a deleted page
  is another input;
* the environment: the Python version, every installed distribution and its version, and the
  ``CFFAIR_*`` settings (all but those that cannot change a page: :data:`NOT_INPUTS`).

Outside a git checkout (a source archive) there are no inputs to compare, hence no stamp: the
test builds the book. A stamp never fails ``make book``: ``finish`` says in one line why it wrote
none (the inputs changed during the build, naming up to five files).
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from collections.abc import Mapping
from datetime import UTC, datetime
from functools import cache
from importlib import metadata
from pathlib import Path
from typing import Any

__all__ = ["NOT_INPUTS", "finish", "inputs", "pending_path", "reusable", "stamp_path", "start"]

#: ``CFFAIR_*`` settings that cannot change a built page: the build sets the mode itself, and the
#: caches are keyed by content.
NOT_INPUTS = frozenset(
    {"CFFAIR_MODE", "CFFAIR_CACHE", "CFFAIR_CLAIMS_CACHE", "CFFAIR_BOOK_HTML", "CFFAIR_BOOK_REBUILD"}
)

ROOT = Path(__file__).resolve().parents[1]


def stamp_path(html: Path) -> Path:
    """Where the stamp of the book built into ``html`` lives: beside it (``_build/html.stamp.json``),
    so that it is neither published nor removed with the HTML."""
    return html.with_name(html.name + ".stamp.json")


def pending_path(html: Path) -> Path:
    """The inputs hashed when the build of ``html`` started."""
    return html.with_name(html.name + ".inputs.json")


def _git(root: Path, *args: str, stdin: str | None = None) -> str | None:
    try:
        out = subprocess.run(["git", *args], cwd=root, input=stdin, capture_output=True, text=True, check=False)
    except OSError:
        return None
    return out.stdout if out.returncode == 0 else None


def _files(root: Path) -> dict[str, str] | None:
    """``{path: git blob hash}`` of every file git tracks or would track, as it is on disk now."""
    listed = _git(root, "ls-files", "-z", "--cached", "--others", "--exclude-standard")
    if listed is None:
        return None
    paths = sorted({p for p in listed.split("\0") if p and (root / p).is_file()})
    if not paths:
        return {}
    hashes = _git(root, "hash-object", "--stdin-paths", stdin="\n".join(paths) + "\n")
    if hashes is None:
        return None
    return dict(zip(paths, hashes.split(), strict=True))


@cache
def _packages() -> str:
    """A hash of every installed distribution and its version (read once per process)."""
    dists = sorted(f"{d.metadata['Name']}=={d.version}" for d in metadata.distributions() if d.metadata["Name"])
    return hashlib.sha256("\n".join(dists).encode()).hexdigest()


def inputs(root: Path = ROOT, environ: Mapping[str, str] | None = None) -> dict[str, Any] | None:
    """What a build of the book in ``root`` reads: the working tree's files and the environment;
    ``None`` outside a git checkout. ``files`` maps each file to its blob hash; ``tree`` hashes them all."""
    files = _files(root)
    if files is None:
        return None
    env = os.environ if environ is None else environ
    return {
        "tree": hashlib.sha256(json.dumps(files, sort_keys=True).encode()).hexdigest(),
        "python": sys.version,
        "packages": _packages(),
        "settings": {k: v for k, v in sorted(env.items()) if k.startswith("CFFAIR_") and k not in NOT_INPUTS},
        "files": files,
    }


def _same(a: Mapping[str, Any], b: Mapping[str, Any]) -> bool:
    return all(a.get(k) == b.get(k) for k in ("tree", "python", "packages", "settings"))


def _changed(a: Mapping[str, Any], b: Mapping[str, Any]) -> list[str]:
    """What differs between two inputs: files first (up to five), then the environment."""
    fa, fb = a.get("files", {}), b.get("files", {})
    files = sorted(p for p in set(fa) | set(fb) if fa.get(p) != fb.get(p))
    out = files[:5] + ([f"and {len(files) - 5} more files"] if len(files) > 5 else [])
    return out + [k for k in ("python", "packages", "settings") if a.get(k) != b.get(k)]


def start(html: Path, root: Path = ROOT) -> None:
    """Before a build into ``html``: forget its old stamp, and hash the inputs."""
    stamp_path(html).unlink(missing_ok=True)
    now = inputs(root)
    if now is None:
        pending_path(html).unlink(missing_ok=True)
        return
    pending_path(html).parent.mkdir(parents=True, exist_ok=True)
    pending_path(html).write_text(json.dumps(now), encoding="utf-8")


def finish(html: Path, root: Path = ROOT) -> str:
    """After a successful build into ``html``: the stamp, if the inputs did not change meanwhile.

    Returns:
        One line saying what was done.
    """
    pending = pending_path(html)
    if not pending.is_file():
        return "book stamp: none (not a git checkout, or `start` did not run); `make test` builds its own book."
    before = json.loads(pending.read_text(encoding="utf-8"))
    pending.unlink()
    after = inputs(root)
    if after is None or not _same(before, after):
        changed = ", ".join(_changed(before, after or {}))
        return f"book stamp: none, the inputs changed during the build ({changed}); `make test` builds its own book."
    if not (html / "intro.html").is_file():
        return f"book stamp: none, {html} holds no intro.html."
    stamp = {k: after[k] for k in ("tree", "python", "packages", "settings")}
    stamp["commit"] = (_git(root, "rev-parse", "HEAD") or "").strip()
    stamp["built"] = datetime.now(UTC).isoformat(timespec="seconds")
    stamp_path(html).write_text(json.dumps(stamp, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    return f"book stamp: {stamp_path(html)} (inputs {stamp['tree'][:12]}); `make test` browses this book."


def reusable(html: Path, root: Path = ROOT, environ: Mapping[str, str] | None = None) -> tuple[bool, str]:
    """Whether the book in ``html`` was built from the inputs at hand (``environ``: the environment a
    build would run in now), and why (not)."""
    path = stamp_path(html)
    if not path.is_file():
        return False, f"no stamp {path} (`make book` writes it)"
    if not (html / "intro.html").is_file():
        return False, f"{html} holds no intro.html"
    try:
        stamp = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        return False, f"the stamp {path} cannot be read ({exc})"
    now = inputs(root, environ)
    if now is None:
        return False, "not a git checkout"
    if not _same(stamp, now):
        what = [k for k in ("tree", "python", "packages", "settings") if stamp.get(k) != now.get(k)]
        return False, f"the inputs changed since the build ({', '.join(what)})"
    return True, f"built {stamp.get('built', '?')} from these inputs (commit {str(stamp.get('commit', ''))[:12]})"


if __name__ == "__main__":
    usage = "usage: python -m cffair_book.build_stamp start|finish <html folder>"
    if len(sys.argv) != 3 or sys.argv[1] not in ("start", "finish"):
        print(usage, file=sys.stderr)
        raise SystemExit(2)
    folder = Path(sys.argv[2]).resolve()
    if sys.argv[1] == "start":
        start(folder)
    else:
        print(finish(folder))
