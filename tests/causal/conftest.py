"""The tests of cffair.causal: causal graphs, the causal normalising flow, counterfactual sets, known-truth models.

Every test under this folder carries the ``causal`` marker (``pytest -m causal`` runs this part alone);
what all parts share (a clean environment, a private cache, the toy estimator) is in ``tests/conftest.py``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if HERE in item.path.parents:
            item.add_marker(pytest.mark.causal)
