"""The package's version is one number everywhere a reader or a tool looks for it."""

from __future__ import annotations

import re
import tomllib

import yaml

import cffair
from cffair.utils import project_root

ROOT = project_root()


def test_version_agrees_in_pyproject_the_package_citation_and_changelog() -> None:
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    citation = yaml.safe_load((ROOT / "CITATION.cff").read_text())["version"]
    changelog = re.search(r"^## (\d+\.\d+\.\d+)", (ROOT / "CHANGELOG.md").read_text(), re.M)
    assert changelog is not None, "CHANGELOG.md has no '## X.Y.Z' entry"
    assert pyproject == cffair.__version__ == str(citation) == changelog.group(1)


def test_the_wheel_ships_the_library_and_not_the_book_package() -> None:
    """setuptools' package discovery as pyproject.toml configures it: every ``cffair`` subpackage,
    no ``cffair_book`` (the book's own code runs from a checkout only)."""
    from setuptools import find_packages

    found = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"]["find"]
    packages = set(find_packages(where=str(ROOT), include=found["include"], exclude=found.get("exclude", ())))
    assert {"cffair", "cffair.reporting", "cffair.datasets", "cffair.cli"} <= packages
    assert not {p for p in packages if p.split(".")[0] != "cffair"}, sorted(packages)
    # the discovery would pick the book package up under the old pattern: the test can fail
    assert "cffair_book" in set(find_packages(where=str(ROOT), include=["cffair*"]))


def test_make_install_puts_the_checkout_on_the_environments_path() -> None:
    """The notebooks run with notebooks/ as their folder, so ``import cffair_book`` works only
    because ``make install`` writes a .pth file naming the checkout into the venv's site-packages."""
    import subprocess

    out = subprocess.run(
        ["make", "-n", "-B", "install", "VENV=/nonexistent-venv"], cwd=ROOT, capture_output=True, text=True, check=False
    )
    pth = [line for line in out.stdout.splitlines() if "cffair_book.pth" in line]
    assert pth and str(ROOT) in pth[0] and "purelib" in pth[0], out.stdout[-2000:]
