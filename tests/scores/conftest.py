"""The tests of cffair.scores: the metrics, group fairness and the degenerate-model screen.

Every test under this folder carries the ``scores`` marker (``pytest -m scores`` runs this part alone);
what all parts share (a clean environment, a private cache, the toy estimator) is in ``tests/conftest.py``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if HERE in item.path.parents:
            item.add_marker(pytest.mark.scores)
