"""The tests of the benchmarks' helpers (``benchmarks/bench_*.py``): their arithmetic on hand-made inputs with a
known answer, never a benchmark's run itself (timings are the benchmarks' business, not the tests').

Every test under this folder carries the ``benchmarks`` marker (``pytest -m benchmarks`` runs this part alone);
what all parts share (a clean environment, a private cache, the toy estimator) is in ``tests/conftest.py``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if HERE in item.path.parents:
            item.add_marker(pytest.mark.benchmarks)
