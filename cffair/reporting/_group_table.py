"""The own-data report's group-fairness table: demographic parity and equalized odds per method.

Each record of a run holds the demographic-parity and equalized-odds differences of its test
decisions between the sensitive attribute's groups (:func:`cffair.scores.evaluate`, computed with
fairlearn's ``MetricFrame`` by :mod:`cffair.scores._groupfair`); :func:`group_fairness_frame` shows them
per method, ``mean ± sd`` over folds, beside the report's Table 1 (:mod:`cffair.reporting._report`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

__all__ = ["GROUP_FAIRNESS_COLUMNS", "group_fairness_frame"]

from collections.abc import Sequence

import numpy as np
import pandas as pd

from cffair.reporting._names import method_name
from cffair.reporting._records import as_records
from cffair.reporting._tables import format_cell

if TYPE_CHECKING:  # reading records loads no store (a Record comes from as_records)
    from cffair.experiments._store import Record

#: The group-fairness metrics of a record (:func:`cffair.scores.group_fairness`) and their column names.
GROUP_FAIRNESS_COLUMNS: dict[str, str] = {
    "demographic_parity_difference": "demographic-parity difference ↓",
    "equalized_odds_difference": "equalized-odds difference ↓",
}


def group_fairness_frame(records: Sequence[Record], methods: Sequence[str], decimals: int = 3) -> pd.DataFrame:
    """Group fairness beside counterfactual fairness: one row per method (in ``methods`` order)
    with the demographic-parity and equalized-odds differences of its test decisions between
    the sensitive attribute's groups (fairlearn's ``MetricFrame``, recorded by
    :func:`cffair.scores.evaluate`), ``mean ± sd`` over folds; empty when no record holds them
    (records made before they were recorded).

    >>> recs = [{"config": {"dataset": "d", "setting": "ltn_acc", "fold": f},
    ...          "metrics": {"demographic_parity_difference": v}}
    ...         for f, v in ((0, 0.2), (1, 0.1))]
    >>> group_fairness_frame(recs, ["ltn_acc"]).iloc[0, 0]
    '0.150 ± 0.071'
    """
    values: dict[tuple[str, str], list[float]] = {}
    for r in as_records(records):
        method, m = r.config.setting, r.get("metrics") or {}
        for key in GROUP_FAIRNESS_COLUMNS:
            if m.get(key) is not None:
                values.setdefault((method, key), []).append(float(m[key]))
    present = [m for m in methods if any((m, k) in values for k in GROUP_FAIRNESS_COLUMNS)]
    keys = [k for k in GROUP_FAIRNESS_COLUMNS if any((m, k) in values for m in present)]
    if not present:
        return pd.DataFrame()

    def cell(method: str, key: str) -> str:
        v = values.get((method, key))
        if not v:
            return "—"
        return format_cell(float(np.mean(v)), float(np.std(v, ddof=1)) if len(v) > 1 else None, decimals)

    return pd.DataFrame(
        [[cell(m, k) for k in keys] for m in present],
        index=[method_name(m) for m in present],
        columns=pd.Index([GROUP_FAIRNESS_COLUMNS[k] for k in keys], name="method"),
    )
