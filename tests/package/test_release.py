"""A citable release: archive metadata beside CITATION.cff, and tools/release.py in a scratch repository (issue 42)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
import yaml

from cffair._support.utils import project_root

ROOT = project_root()
RELEASE = ROOT / "tools" / "release.py"
PAPER = "A Neurosymbolic Approach to Counterfactual Fairness"

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")


def _book_title() -> str:
    """The book's title, as conf.py gives it to Sphinx (``project = html_title = "..."``)."""
    found = re.search(r'^project = html_title = "([^"]+)"', (ROOT / "conf.py").read_text(encoding="utf-8"), re.M)
    assert found, "conf.py no longer sets the book's title as `project = html_title = ...`"
    return found.group(1)


def test_citation_and_archive_metadata_agree_and_name_the_book_and_the_paper() -> None:
    cff = yaml.safe_load((ROOT / "CITATION.cff").read_text(encoding="utf-8"))
    zenodo = json.loads((ROOT / ".zenodo.json").read_text(encoding="utf-8"))
    assert zenodo["title"] == cff["title"]
    assert zenodo["version"] == str(cff["version"])
    assert zenodo["publication_date"] == str(cff["date-released"])
    assert [c["name"] for c in zenodo["creators"]] == [a["name"] for a in cff["authors"]]
    assert zenodo["license"] == cff["license"]
    assert cff["preferred-citation"]["title"] == PAPER
    for text in (cff["abstract"], zenodo["description"]):
        flat = " ".join(text.split())
        assert _book_title() in flat and PAPER in flat, flat
    assert any(PAPER in ref for ref in zenodo["references"])


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True, check=True).stdout


@pytest.fixture
def scratch(tmp_path: Path) -> Path:
    """A scratch repository holding the files a release edits, as the checkout has them, committed."""
    repo = tmp_path / "repo"
    for name in (*_files(), "tools/release.py"):
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, repo / name)
    _git(repo, "init", "-q")
    _git(repo, "-c", "user.name=t", "-c", "user.email=t@example.org", "add", ".")
    _git(repo, "-c", "user.name=t", "-c", "user.email=t@example.org", "commit", "-q", "-m", "scratch")
    _git(repo, "config", "user.name", "Release Tester")
    _git(repo, "config", "user.email", "release@example.org")
    return repo


def _files() -> tuple[str, ...]:
    sys.path.insert(0, str(RELEASE.parent))
    try:
        import release
    finally:
        sys.path.remove(str(RELEASE.parent))
    return tuple(release.FILES)


def _release(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(repo / "tools" / "release.py"), *args], cwd=repo, capture_output=True, text=True
    )


def _versions(repo: Path) -> dict[str, str]:
    cff = yaml.safe_load((repo / "CITATION.cff").read_text(encoding="utf-8"))
    zenodo = json.loads((repo / ".zenodo.json").read_text(encoding="utf-8"))
    init = re.search(r'^__version__ = "(.*)"', (repo / "cffair" / "__init__.py").read_text(encoding="utf-8"), re.M)
    assert init is not None
    return {
        "pyproject": tomllib.loads((repo / "pyproject.toml").read_text(encoding="utf-8"))["project"]["version"],
        "package": init.group(1),
        "citation": str(cff["version"]),
        "zenodo": zenodo["version"],
        "citation date": str(cff["date-released"]),
        "zenodo date": zenodo["publication_date"],
    }


def test_a_release_sets_one_version_finalises_the_changelog_and_tags(scratch: Path) -> None:
    before = (scratch / "CHANGELOG.md").read_text(encoding="utf-8")
    heading = re.search(r"^## (\d+\.\d+\.\d+) — unreleased( \(.*\))?$", before, re.M)
    assert heading is not None, "the checkout's CHANGELOG.md has no unreleased heading"
    done = _release(scratch, "9.8.7", "--date", "2031-02-03")
    assert done.returncode == 0, done.stderr
    assert _versions(scratch) == {
        "pyproject": "9.8.7",
        "package": "9.8.7",
        "citation": "9.8.7",
        "zenodo": "9.8.7",
        "citation date": "2031-02-03",
        "zenodo date": "2031-02-03",
    }
    after = (scratch / "CHANGELOG.md").read_text(encoding="utf-8")
    assert re.search(r"^## .*$", after, re.M).group(0) == f"## 9.8.7 — 2031-02-03{heading.group(2) or ''}"
    assert after.replace(f"## 9.8.7 — 2031-02-03{heading.group(2) or ''}", heading.group(0), 1) == before
    # an annotated tag on the release commit, and nothing left uncommitted
    assert _git(scratch, "cat-file", "-t", "v9.8.7").strip() == "tag"
    assert _git(scratch, "rev-parse", "v9.8.7^{commit}") == _git(scratch, "rev-parse", "HEAD")
    assert "cffair 9.8.7 (2031-02-03)" in _git(scratch, "tag", "-n1", "v9.8.7")
    assert _git(scratch, "status", "--porcelain") == ""
    assert set(_git(scratch, "show", "--name-only", "--format=", "HEAD").split()) == set(_files())
    # released once: a second release of the same version is refused (nothing unreleased, and the tag exists)
    again = _release(scratch, "9.8.7")
    assert again.returncode == 2 and "tag v9.8.7 exists already" in again.stderr


@pytest.mark.parametrize(
    "args, dirty, message",
    [
        (["1.0"], False, "is not MAJOR.MINOR.PATCH"),
        (["1.0.0", "--date", "2031-13-01"], False, "is not YYYY-MM-DD"),
        (["1.0.0"], True, "the working tree is not clean"),
    ],
)
def test_a_release_that_cannot_go_ahead_is_one_line_and_changes_nothing(
    scratch: Path, args: list[str], dirty: bool, message: str
) -> None:
    if dirty:
        (scratch / "notes.txt").write_text("uncommitted\n", encoding="utf-8")
    head = _git(scratch, "rev-parse", "HEAD")
    before = {name: (scratch / name).read_bytes() for name in _files()}
    done = _release(scratch, *args)
    assert done.returncode == 2 and message in done.stderr and len(done.stderr.strip().splitlines()) == 1
    assert _git(scratch, "rev-parse", "HEAD") == head and _git(scratch, "tag") == ""
    assert {name: (scratch / name).read_bytes() for name in _files()} == before


def test_a_changelog_without_an_unreleased_heading_has_nothing_to_release(scratch: Path) -> None:
    text = (scratch / "CHANGELOG.md").read_text(encoding="utf-8")
    (scratch / "CHANGELOG.md").write_text(re.sub(r"— unreleased", "— 2030-01-01", text, count=1), encoding="utf-8")
    _git(scratch, "commit", "-q", "-am", "released by hand")
    done = _release(scratch, "1.0.0")
    assert done.returncode == 2 and "nothing to release" in done.stderr
    assert _git(scratch, "tag") == ""


def test_make_release_runs_the_script_with_the_version() -> None:
    out = subprocess.run(
        ["make", "-n", "--no-print-directory", "release", "VERSION=1.2.3"], cwd=ROOT, capture_output=True, text=True
    )
    assert out.returncode == 0, out.stderr
    assert re.search(r"tools/release\.py 1\.2\.3\b", out.stdout), out.stdout
    refused = subprocess.run(["make", "--no-print-directory", "release"], cwd=ROOT, capture_output=True, text=True)
    assert refused.returncode != 0 and "VERSION=x.y.z" in refused.stdout + refused.stderr
