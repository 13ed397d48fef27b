"""Display names, keys and orders shared by every table and figure (the paper's notation).

This module has no dependencies inside :mod:`cffair.reporting`: every other module of the
package imports from it. Methods, tables, chapters and datasets are the registry's
(:mod:`cffair.experiments._registry`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence

import pandas as pd

from cffair.experiments import _registry as registry

__all__ = [
    "DATASET_NAMES",
    "DATASET_ORDER",
    "EXTRA_BASELINES",
    "FIGURE4_SETTINGS",
    "HIGHER_IS_BETTER",
    "METHOD_NAMES",
    "METRIC_NAMES",
    "METRIC_ORDER",
    "Q1_SETTINGS",
    "RESULT_COLUMNS",
    "SCALAR_METRICS",
    "TABLE_METHODS",
    "abbreviate_subgroup",
    "dataset_name",
    "method_name",
    "metric_name",
    "order_key",
    "ordinal_order",
    "performance_metric",
]

#: Columns of a long results frame (ours or the paper's).
RESULT_COLUMNS: tuple[str, ...] = ("table", "dataset", "metric", "method", "mean", "sd")

#: Display names of methods and axiom settings (paper notation): the method registry's.
METHOD_NAMES: Mapping[str, str] = registry.View(registry.method_names)

#: Display names of the datasets: the dataset registry's.
DATASET_NAMES: Mapping[str, str] = registry.View(lambda: {k: d.name for k, d in registry.DATASETS.items()})

#: Display names of the metrics, with the paper's arrows (↑ higher is better, ↓ lower is better).
METRIC_NAMES: dict[str, str] = {
    "accuracy": "accuracy ↑",
    "mse": "MSE ↓",
    "cf_mse": "CF-MSE ↓",
    "cf_mse_worst_subgroup": "CF-MSE (sg) ↓",
    "cf_flip_rate": "CF flip rate ↓",  # not in the paper: the share of test pairs whose decision changes
    "calibrated_cf_mse": "calibrated CF-MSE ↓",  # not in the paper: CF-MSE of Platt-calibrated outputs
}

#: Metrics where a larger value is better (all others: smaller is better).
HIGHER_IS_BETTER: frozenset[str] = frozenset({"accuracy"})

#: The paper's method order in each table (the method registry's :attr:`~cffair.experiments._registry.Method.tables`).
TABLE_METHODS: Mapping[str, tuple[str, ...]] = registry.View(
    lambda: {t: registry.table_methods(t) for t in ("table1", "table2", "table3")}
)

#: The three axiom settings of Q1 (Figures 3 and 5) and the five of Figure 4.
Q1_SETTINGS: tuple[str, ...] = registry.grid_methods("q1")
FIGURE4_SETTINGS: tuple[str, ...] = registry.table_methods("table2")

#: Settings of the extra, cheap baselines (not in the paper); shown without paper numbers.
EXTRA_BASELINES: tuple[str, ...] = registry.extra_baselines()

#: The order of datasets and metrics in every table (the paper's).
DATASET_ORDER: tuple[str, ...] = tuple(DATASET_NAMES)
METRIC_ORDER: tuple[str, ...] = (
    "accuracy",
    "mse",
    "cf_mse",
    "cf_mse_worst_subgroup",
    "cf_flip_rate",
    "calibrated_cf_mse",
)

#: The scalar metrics of a result record.
SCALAR_METRICS: tuple[str, ...] = METRIC_ORDER

# Abbreviations of the paper's Figure 3 caption.
_SUBGROUP_ABBREVIATIONS = {
    "male": "m",
    "female": "f",
    "asian-pac-islander": "api",
    "amer-indian-eskimo": "aie",
    "american-indian-eskimo": "aie",
}


def method_name(key: str) -> str:
    """Display name of a method key (``"ltn_acc_cf_sg"`` → ``"LTN(acc+CF_sg)"``); unknown keys pass through."""
    return METHOD_NAMES.get(key, key)


def dataset_name(key: str) -> str:
    """Display name of a dataset key (``"compas_age"`` → ``"COMPAS(age)"``)."""
    return DATASET_NAMES.get(key, key)


def metric_name(key: str) -> str:
    """Display name of a metric key, with the paper's arrow (``"cf_mse"`` → ``"CF-MSE ↓"``)."""
    return METRIC_NAMES.get(key, key)


def abbreviate_subgroup(label: str) -> str:
    """Shorten a subgroup label as in the paper's Figure 3: ``"Male, Asian-Pac-Islander"`` → ``"m, api"``."""
    parts = [p.strip() for p in str(label).split(",")]
    return ", ".join(_SUBGROUP_ABBREVIATIONS.get(p.lower(), p.lower()) for p in parts)


def performance_metric(dataset: str) -> str:
    """``accuracy`` for the binary datasets, ``mse`` for Lawschool (its target is a score)."""
    entry = registry.DATASETS.get(dataset)
    return entry.performance_metric if entry is not None else "accuracy"


def order_key(values: pd.Series, order: Sequence[str]) -> pd.Series:
    """Rank of each value in ``order`` (values not in it come last), for ``sort_values(key=...)``."""
    rank = {k: i for i, k in enumerate(order)}
    return values.map(lambda v: rank.get(v, len(rank)))


_BAND = re.compile(r"^\s*(<=|≤|<|>=|≥|>)?\s*(\d+(?:\.\d+)?)")


def ordinal_order(labels: Iterable[str]) -> list[str]:
    """Labels in their natural order: numeric bands by their number (``"<=30"``, ``"31-45"``,
    ``"46-60"``, ``">60"``, not the text order ``"31-45", "46-60", "<=30", ">60"``); labels without
    a number follow, alphabetically. Duplicates are dropped.

    >>> ordinal_order(["31-45", ">60", "<=30", "46-60"])
    ['<=30', '31-45', '46-60', '>60']
    """

    def key(label: str) -> tuple[int, float, int, str]:
        m = _BAND.match(str(label))
        if not m:
            return (1, 0.0, 0, str(label))
        op, number = m.group(1) or "", float(m.group(2))
        shift = -1 if op in ("<=", "≤", "<") else (1 if op in (">", ">=", "≥") else 0)
        return (0, number, shift, str(label))

    return sorted(dict.fromkeys(str(x) for x in labels), key=key)
