"""The tests of the book: its pages, extensions, claims and the browser checks (cffair_book, book/_ext).

Every test under this folder carries the ``book_package`` marker (``pytest -m book_package`` runs this part alone;
``book`` marks the tests that build or browse the book);
what all parts share (a clean environment, a private cache, the toy estimator) is in ``tests/conftest.py``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if HERE in item.path.parents:
            item.add_marker(pytest.mark.book_package)
