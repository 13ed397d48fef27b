"""Publishing the book: the GitHub Actions workflow and ``make publish`` (checked without network).

* The workflow parses, runs the README's two commands and deploys ``_build/html`` to GitHub Pages.
* ``make publish`` refuses clearly without a git remote, and without a built book; with both it
  runs ghp-import on ``_build/html`` for that remote (a stand-in ghp-import records its arguments).
* ``make lab`` starts JupyterLab from the locked environment on the notebooks.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
WORKFLOW = ROOT / ".github" / "workflows" / "book.yml"


def readme_commands() -> list[str]:
    """The commands of the README's "The two commands" block."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    block = text.split("## The two commands", 1)[1].split("```bash", 1)[1].split("```", 1)[0]
    return [line.split("#", 1)[0].strip() for line in block.strip().splitlines() if line.strip()]


def test_the_workflow_runs_the_readme_commands_and_deploys_the_book() -> None:
    flow = yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))
    triggers = flow[True] if True in flow else flow["on"]  # YAML 1.1 reads the key `on` as True
    assert triggers["push"]["branches"] == ["main"]
    assert flow["permissions"]["pages"] == "write" and flow["permissions"]["id-token"] == "write"
    build = flow["jobs"]["build"]["steps"]
    runs = [s["run"] for s in build if "run" in s]
    commands = readme_commands()
    assert commands == ["make book", "make test"]
    assert all(c in runs for c in commands), f"the workflow runs {runs}, the README's commands are {commands}"
    upload = next(s for s in build if s.get("uses", "").startswith("actions/upload-pages-artifact"))
    assert upload["with"]["path"] == "_build/html"
    deploy = flow["jobs"]["deploy"]
    assert deploy["needs"] == "build"
    assert any(s.get("uses", "").startswith("actions/deploy-pages") for s in deploy["steps"])


def _repo(tmp_path: Path, remote: bool, built: bool) -> Path:
    repo = tmp_path / "repo"
    repo.mkdir()
    shutil.copy(ROOT / "Makefile", repo / "Makefile")
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    if remote:
        bare = tmp_path / "remote.git"
        subprocess.run(["git", "init", "-q", "--bare", str(bare)], check=True)
        subprocess.run(["git", "-C", str(repo), "remote", "add", "origin", str(bare)], check=True)
    if built:
        (repo / "_build" / "html").mkdir(parents=True)
        (repo / "_build" / "html" / "index.html").write_text("<html></html>")
    # A stand-in for the locked environment's ghp-import: it records its arguments.
    fake = tmp_path / "venv" / "bin" / "ghp-import"
    fake.parent.mkdir(parents=True)
    fake.write_text(f'#!/bin/sh\necho "$@" > {tmp_path / "ghp-import.args"}\n')
    fake.chmod(0o755)
    return repo


def _publish(repo: Path, tmp_path: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MAKE")}
    return subprocess.run(
        ["make", "--no-print-directory", "publish", f"VENV={tmp_path / 'venv'}", *extra],
        cwd=repo,
        capture_output=True,
        text=True,
        env=env,
    )


@pytest.mark.skipif(shutil.which("make") is None or shutil.which("git") is None, reason="needs make and git")
def test_make_publish_refuses_without_a_remote(tmp_path: Path) -> None:
    repo = _repo(tmp_path, remote=False, built=True)
    out = _publish(repo, tmp_path)
    assert out.returncode != 0
    assert "make publish: this repository has no git remote 'origin'" in out.stdout
    assert "git remote add origin <url>" in out.stdout
    assert not (tmp_path / "ghp-import.args").exists(), "nothing may be published without a remote"


@pytest.mark.skipif(shutil.which("make") is None or shutil.which("git") is None, reason="needs make and git")
def test_make_publish_refuses_without_a_built_book(tmp_path: Path) -> None:
    repo = _repo(tmp_path, remote=True, built=False)
    out = _publish(repo, tmp_path)
    assert out.returncode != 0 and "no built book in _build/html; run 'make book' first" in out.stdout
    assert not (tmp_path / "ghp-import.args").exists()


@pytest.mark.skipif(shutil.which("make") is None or shutil.which("git") is None, reason="needs make and git")
def test_make_publish_pushes_the_built_book_to_gh_pages_of_the_remote(tmp_path: Path) -> None:
    repo = _repo(tmp_path, remote=True, built=True)
    out = _publish(repo, tmp_path)
    assert out.returncode == 0, out.stdout + out.stderr
    args = (tmp_path / "ghp-import.args").read_text().split()
    assert args[-1] == "_build/html" and "--push" in args
    assert args[args.index("--remote") + 1] == "origin" and args[args.index("--branch") + 1] == "gh-pages"
    # another remote by name; an unknown one is refused
    assert _publish(repo, tmp_path, "REMOTE=upstream").returncode != 0


def test_make_lab_starts_jupyterlab_from_the_locked_environment() -> None:
    out = subprocess.run(
        ["make", "-n", "--no-print-directory", "lab"], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert re.search(r"^\.venv/bin/jupyter lab --notebook-dir=notebooks$", out.stdout, re.M), out.stdout
    lock = (ROOT / "requirements.lock").read_text(encoding="utf-8")
    for package in ("jupyterlab", "jupytext", "ghp-import"):
        assert re.search(rf"^{package}==\d", lock, re.M | re.I), f"{package} is not pinned in requirements.lock"


def test_the_readme_states_the_measured_fresh_clone_times() -> None:
    """The README's minutes for `make book`, `make reproduce MODE=quick` and `make test` are the last
    fresh-clone measurement's (benchmarks/results/fresh_clone.json), to one decimal."""
    import json

    text = re.sub(r"\s+", " ", (ROOT / "README.md").read_text(encoding="utf-8"))
    steps = {
        s["step"]: s
        for s in json.loads((ROOT / "benchmarks" / "results" / "fresh_clone.json").read_text())["steps"]
        if s["exit"] == 0
    }
    said = {
        "book": r"`make book` took ([\d.]+) minutes",
        "quick": r"`make reproduce MODE=quick JOBS=2` then ([\d.]+) minutes",
        "test": r"`make test` ([\d.]+) minutes",
    }
    for step, pattern in said.items():
        found = re.search(pattern, text)
        assert found, f"the README no longer states the {step} step's time ({pattern})"
        if step in steps:
            assert float(found.group(1)) == round(steps[step]["seconds"] / 60, 1), (step, found.group(1))
    loads = [x for s in steps.values() for k in ("load_before", "load_after") for x in s.get(k, [])]
    stated = re.search(r"\(load average ([\d.]+)–([\d.]+) during the measurement\)", text)
    assert stated, "the README no longer says at what load its times were measured"
    assert (float(stated.group(1)), float(stated.group(2))) == (round(min(loads), 1), round(max(loads), 1))
    quick = re.search(r"every result \(([\d.]+) min on 2 cores\)", text)
    assert quick and "quick" in steps and float(quick.group(1)) == round(steps["quick"]["seconds"] / 60, 1)
