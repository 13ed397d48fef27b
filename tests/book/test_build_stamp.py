"""cffair_book.build_stamp: a built book is reused only while every input it was built from is unchanged.

In a throwaway git repository: ``start`` and ``finish`` around a "build" stamp it; the stamp holds
while nothing changes (an ignored file, the mode setting and the caches' settings are not inputs);
a tracked file edited, an untracked file added, a file deleted, another ``CFFAIR_EDITION`` or
another set of installed packages each make it stale; a change during the build leaves no stamp
and names the file; ``start`` removes the previous stamp; outside git there is nothing to compare.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from cffair_book import build_stamp as B


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / "book").mkdir(parents=True)
    (root / "book" / "page.md").write_text("# A page\n")
    (root / "results.json").write_text('{"accuracy": 0.7}\n')
    (root / ".gitignore").write_text("_build/\n*.log\n")
    _git(root, "init", "-q")
    _git(root, "add", "-A")
    return root


def _build(root: Path, during=None) -> tuple[Path, str]:
    html = root / "_build" / "html"
    B.start(html, root)
    html.mkdir(parents=True, exist_ok=True)
    (html / "intro.html").write_text("<html></html>")
    if during is not None:
        during()
    return html, B.finish(html, root)


def test_the_stamp_holds_while_nothing_the_build_reads_changes(repo: Path) -> None:
    html, line = _build(repo)
    assert line.startswith("book stamp: ") and B.stamp_path(html).is_file() and not B.pending_path(html).exists()
    # start ran in os.environ: compare with the environment a build runs in now
    ok, why = B.reusable(html, repo)
    assert ok, why
    (repo / "run.log").write_text("ignored by git\n")
    (repo / "_build" / "claims-cache").mkdir()
    assert B.reusable(html, repo)[0]


@pytest.mark.parametrize(
    "change",
    [
        lambda r: (r / "book" / "page.md").write_text("# A page, edited\n"),  # tracked, not committed
        lambda r: (r / "results.json").write_text('{"accuracy": 0.71}\n'),
        lambda r: (r / "book" / "new.md").write_text("# New\n"),  # untracked, not ignored
        lambda r: (r / "book" / "page.md").unlink(),
    ],
    ids=["edited", "record", "new-file", "deleted"],
)
def test_any_file_git_would_commit_makes_it_stale(repo: Path, change) -> None:
    html, _ = _build(repo)
    change(repo)
    ok, why = B.reusable(html, repo)
    assert not ok and "tree" in why


def test_settings_and_packages_are_inputs_but_mode_and_caches_are_not(repo: Path, monkeypatch) -> None:
    monkeypatch.setenv("CFFAIR_EDITION", "instructor")
    monkeypatch.delenv("CFFAIR_RESULTS", raising=False)
    html, _ = _build(repo)
    same = {k: v for k, v in os.environ.items() if k.startswith("CFFAIR_")}
    assert B.reusable(html, repo, {**same, "CFFAIR_MODE": "render", "CFFAIR_CLAIMS_CACHE": "/elsewhere"})[0]
    ok, why = B.reusable(html, repo, {**same, "CFFAIR_EDITION": "student"})
    assert not ok and "settings" in why
    ok, why = B.reusable(html, repo, {**same, "CFFAIR_RESULTS": "/other/results"})
    assert not ok and "settings" in why
    real = B.inputs(repo)
    monkeypatch.setattr(B, "inputs", lambda root, environ=None: {**real, "packages": "another environment"})
    ok, why = B.reusable(html, repo)
    assert not ok and "packages" in why


def test_a_change_during_the_build_leaves_no_stamp(repo: Path) -> None:
    html, line = _build(repo, during=lambda: (repo / "results.json").write_text('{"accuracy": 0.8}\n'))
    assert "the inputs changed during the build (results.json)" in line
    assert not B.stamp_path(html).exists()
    assert B.reusable(html, repo) == (False, f"no stamp {B.stamp_path(html)} (`make book` writes it)")


def test_start_forgets_the_previous_stamp_and_a_failed_build_leaves_none(repo: Path) -> None:
    html, _ = _build(repo)
    assert B.stamp_path(html).is_file()
    B.start(html, repo)  # a new build begins (and then fails: finish never runs)
    assert not B.stamp_path(html).exists() and not B.reusable(html, repo)[0]


def test_outside_git_nothing_is_compared(tmp_path: Path) -> None:
    plain = tmp_path / "archive"
    plain.mkdir()
    assert B.inputs(plain) is None
    html, line = _build(plain)
    assert "none" in line and not B.stamp_path(html).exists()
    assert not B.reusable(html, plain)[0]
