"""The records the book's pages show: the library's readers (:func:`cffair.workflows.results_for`,
:func:`cffair.workflows.freshness`) pointed at the checkout's results folder.

The installed library reads ``$CFFAIR_RESULTS``, else ``results/`` of the working folder; a chapter's
kernel runs in ``notebooks/`` (the book's launch buttons, papermill), so the book names its own folder,
:data:`cffair_book.layout.RESULTS`, unless ``$CFFAIR_RESULTS`` names another (a regeneration into a
scratch folder). Installed from the wheel, the package has no committed records beside it; then
:func:`results_root` names a folder that does not exist, and a chapter computes its records in quick
mode (its setup cell says so).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from cffair import workflows
from cffair.experiments import DATASETS
from cffair_book.layout import RESULTS

if TYPE_CHECKING:  # importing the book loads neither the store nor the grid
    from cffair.experiments import Record
    from cffair.workflows import Freshness

__all__ = ["freshness_of", "results_for", "results_root"]


def results_root() -> Path:
    """The results folder the book reads: ``$CFFAIR_RESULTS``, else the checkout's ``results/``."""
    return workflows.results_root(RESULTS)


def results_for(
    mode: str | None,
    only: Sequence[str],
    datasets: Sequence[str] = DATASETS,
    jobs: int = 1,
    *,
    missing_ok: bool = False,
) -> list[Record]:
    """The records of question groups ``only`` a page shows (:func:`cffair.workflows.results_for` on
    :func:`results_root`): read in ``render`` mode, computed first in ``quick`` and ``full``."""
    return workflows.results_for(mode, only, datasets, jobs, missing_ok=missing_ok, root=results_root())


def freshness_of(only: Sequence[str], mode: str | None = None, datasets: Sequence[str] = DATASETS) -> Freshness:
    """The freshness box of a page showing question groups ``only`` (:func:`cffair.workflows.freshness`
    on :func:`results_root`)."""
    return workflows.freshness(only, mode, datasets, root=results_root())
