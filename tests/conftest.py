"""What every test module shares: a clean environment, a private cache, and the toy estimator.

* **A clean environment.** The settings a developer may have exported (``CFFAIR_MODE``,
  ``CFFAIR_BACKEND``, ``CFFAIR_DASK_SCHEDULER``, ``CFFAIR_EDITION``, ``CFFAIR_DEBUG``) change what a
  command does; they are taken out of the environment for the whole run, so that ``make test`` means
  the same on every machine (a test that needs one sets it with ``monkeypatch``).
* ``private_cache``: an empty, writable ``$CFFAIR_CACHE`` for one test, for tests that must start
  cold or must see what a run writes into the cache.
* ``toy_classifier``: the scikit-learn classifier of :mod:`toy_estimator` fitted once per session,
  with its rows and labels; tests that change it fit or clone their own.

Helpers that are plain functions live in modules of their own beside the tests (``toy_estimator``,
``figure_rules``, ``toy_grid``, ``baselines_synth``, ``exact_scm``, ``book_checks``), so that no test module
imports another.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

# The tests live in one folder per part of the library (tests/<part>/, packages, so that each part's conftest.py
# is a module of its own); the helper modules beside this file are imported by their plain names.
sys.path.insert(0, str(Path(__file__).resolve().parent))

#: Settings read from the environment that change what a command does.
DEVELOPER_SETTINGS = ("CFFAIR_MODE", "CFFAIR_BACKEND", "CFFAIR_DASK_SCHEDULER", "CFFAIR_EDITION", "CFFAIR_DEBUG")


@pytest.fixture(autouse=True, scope="session")
def _clean_environment() -> Iterator[None]:
    saved = {name: os.environ.pop(name) for name in DEVELOPER_SETTINGS if name in os.environ}
    yield
    os.environ.update(saved)


@pytest.fixture
def private_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty ``$CFFAIR_CACHE`` of this test (not created: a run creates it when it writes)."""
    path = tmp_path / "cache"
    monkeypatch.setenv("CFFAIR_CACHE", str(path))
    return path


@pytest.fixture(scope="session")
def toy_classifier() -> tuple[Any, Any, Any]:
    """``(estimator, X, y)``: the toy classifier fitted on :func:`toy_estimator.toy` rows."""
    from toy_estimator import FAST, SPEC, toy

    from cffair.learners._estimator import CounterfactualFairClassifier

    X, y, _ = toy()
    return CounterfactualFairClassifier(SPEC, **FAST).fit(X, y), X, y
