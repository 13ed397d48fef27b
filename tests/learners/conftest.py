"""The tests of cffair.learners: the LTN learner, pre-training, the estimators, model files, calibration.

Every test under this folder carries the ``learners`` marker (``pytest -m learners`` runs this part alone);
what all parts share (a clean environment, a private cache, the toy estimator) is in ``tests/conftest.py``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if HERE in item.path.parents:
            item.add_marker(pytest.mark.learners)
