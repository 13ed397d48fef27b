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
