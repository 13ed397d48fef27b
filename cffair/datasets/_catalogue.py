"""The paper's datasets as the grid and the tables name them: key, display name, kind of target, the row
count the paper reports, and runs shared with another dataset.

Their rows, specs and graphs are :mod:`cffair.datasets._paper`'s; this is the table of names that the
dataset registry (:data:`cffair.datasets.NAMES`), the grid and the reports read
(:mod:`cffair.experiments._registry` lists it with the methods and chapters).

>>> DATASETS["lawschool"].performance_metric
'mse'
>>> dataset_names()
('adult', 'compas', 'compas_age', 'lawschool')
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

__all__ = ["DATASETS", "DatasetEntry", "dataset_names"]

#: A table of names is data: editing it changes which datasets exist, never what one computes.
FINGERPRINT_EXEMPT = True


@dataclass(frozen=True)
class DatasetEntry:
    """One of the paper's datasets, as the grid and the tables name it (its rows, spec and graph
    are :mod:`cffair.datasets._paper`'s).

    Attributes:
        key: the dataset's name (``"compas_age"``).
        name: its display name (``"COMPAS(age)"``).
        target_kind: ``binary`` (scored by accuracy) or ``score`` (scored by MSE).
        paper_rows: the row count the paper reports (section 6.1).
        shares_runs_with: a dataset with the same rows, folds and models except the subgroups
            (COMPAS(age) shares COMPAS's); empty otherwise.
    """

    key: str
    name: str
    paper_rows: int
    target_kind: Literal["binary", "score"] = "binary"
    shares_runs_with: str = ""

    @property
    def performance_metric(self) -> str:
        """``accuracy`` for a binary target, ``mse`` for a score."""
        return "mse" if self.target_kind == "score" else "accuracy"


#: The paper's datasets, in the order of its tables.
DATASETS: dict[str, DatasetEntry] = {
    d.key: d
    for d in (
        DatasetEntry("adult", "Adult", 48_842),
        DatasetEntry("compas", "COMPAS", 6_172),
        DatasetEntry("compas_age", "COMPAS(age)", 6_172, shares_runs_with="compas"),
        DatasetEntry("lawschool", "Lawschool", 21_791, "score"),
    )
}


def dataset_names() -> tuple[str, ...]:
    """The paper's datasets, in the order of its tables."""
    return tuple(DATASETS)
