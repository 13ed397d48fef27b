"""The tests of cffair.evaluation: audits, CKE, queries, recourse and diagnostics (the scores are tests/scores).

Every test under this folder carries the ``evaluation`` marker (``pytest -m evaluation`` runs this part alone);
what all parts share (a clean environment, a private cache, the toy estimator) is in ``tests/conftest.py``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if HERE in item.path.parents:
            item.add_marker(pytest.mark.evaluation)
