"""The package's version is one number everywhere a reader or a tool looks for it."""

from __future__ import annotations

import re
import tomllib

import yaml

import cffair
from cffair._support.utils import project_root

ROOT = project_root()


def test_version_agrees_in_pyproject_the_package_citation_and_changelog() -> None:
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    citation = yaml.safe_load((ROOT / "CITATION.cff").read_text())["version"]
    changelog = re.search(r"^## (\d+\.\d+\.\d+)", (ROOT / "CHANGELOG.md").read_text(), re.M)
    assert changelog is not None, "CHANGELOG.md has no '## X.Y.Z' entry"
    assert pyproject == cffair.__version__ == str(citation) == changelog.group(1)


def test_the_wheel_ships_the_library_and_the_book_package() -> None:
    """setuptools' package discovery as pyproject.toml configures it: every ``cffair`` subpackage and
    ``cffair_book`` (the helpers the book's notebooks import, so a downloaded chapter runs on a notebook
    host), with the book package's wording file; nothing else of the checkout (tests, tools, benchmarks)."""
    from setuptools import find_packages

    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    found = config["tool"]["setuptools"]["packages"]["find"]
    packages = set(find_packages(where=str(ROOT), include=found["include"], exclude=found.get("exclude", ())))
    assert {"cffair", "cffair.reporting", "cffair.datasets", "cffair.cli", "cffair_book"} <= packages
    assert {p.split(".")[0] for p in packages} == {"cffair", "cffair_book"}, sorted(packages)
    data = config["tool"]["setuptools"]["package-data"]["cffair_book"]
    assert any((ROOT / "cffair_book").glob(pattern) for pattern in data)
    assert (ROOT / "cffair_book" / "claims.yaml").match(data[0])
    # what the notebooks import beyond the library's dependencies is one extra
    assert any(d.startswith("myst-nb") for d in config["project"]["optional-dependencies"]["notebooks"])
