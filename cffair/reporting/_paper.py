"""The paper's published numbers, as reference data.

The paper's Tables 1–3 ship with cffair (``cffair/data/paper_tables.csv``, one row per cell:
``table, dataset, metric, method, mean, sd``; Table 3 is a single run and has no ``sd``).
Every cell was checked against the paper's text. :func:`paper_tables` reads them. Table 4's
satisfactions and the axioms of Table 3 are small enough to live here as constants.
"""

from __future__ import annotations

from importlib import resources

import pandas as pd

from cffair.reporting._names import RESULT_COLUMNS

__all__ = [
    "PAPER_FOLDS",
    "PAPER_TABLE3_AXIOMS",
    "TABLE4_COLUMNS",
    "TABLE4_PAPER_SAT",
    "paper_mean",
    "paper_tables",
    "paper_value",
]

#: Table 4 of the paper: satisfaction of equation (2) per queried subgroup (Adult, one example each).
TABLE4_PAPER_SAT: dict[str, float] = {
    "Male, White": 0.217,
    "Male, Black": 0.262,
    "Female, White": 0.270,
    "Female, Asian-Pac-Islander": 0.366,
}

#: The feature columns the paper's Table 4 shows (its "ed." is the education level).
TABLE4_COLUMNS: tuple[str, ...] = (
    "age",
    "workclass",
    "education",
    "marital-status",
    "occupation",
    "relationship",
    "hours-per-week",
    "native-country",
)

#: The A5 axioms the paper's Table 3 adds one after the other, in its notation.
PAPER_TABLE3_AXIOMS: dict[str, str] = {
    "cke_race_male": "(race, male)",
    "cke_marital_status_male": "(marital-status, male)",
    "cke_native_country_male": "(native-country, male)",
}


#: The folds behind each mean and sd of the paper's Tables 1–2 ("averaged results over a 5-fold
#: cross-validation", section 6); Table 3 reports a single run.
PAPER_FOLDS = 5


def paper_tables() -> pd.DataFrame:
    """The paper's Tables 1–3 as a long frame with columns :data:`RESULT_COLUMNS` and ``n``, the
    folds behind each mean (:data:`PAPER_FOLDS`; 1 for Table 3).

    ``sd`` is NaN for Table 3 (a single run). Keys: tables ``table1``–``table3``; datasets
    ``adult, compas, compas_age, lawschool``; metrics ``accuracy, mse, cf_mse,
    cf_mse_worst_subgroup``; methods as in :data:`~cffair.reporting.METHOD_NAMES`.
    """
    path = resources.files("cffair") / "data" / "paper_tables.csv"
    with path.open("r", encoding="utf-8") as fh:
        frame = pd.read_csv(fh, dtype={"table": str, "dataset": str, "metric": str, "method": str})
    frame["mean"] = frame["mean"].astype("float64")
    frame["sd"] = frame["sd"].astype("float64")
    frame["n"] = [1.0 if t == "table3" else float(PAPER_FOLDS) for t in frame["table"]]
    return frame[[*RESULT_COLUMNS, "n"]]


def paper_value(table: str, dataset: str, metric: str, method: str) -> tuple[float, float]:
    """One published cell as ``(mean, sd)`` (``sd`` is NaN for Table 3).

    Raises:
        KeyError: if the paper has no such cell.
    """
    p = paper_tables()
    row = p[(p.table == table) & (p.dataset == dataset) & (p.metric == metric) & (p.method == method)]
    if row.empty:
        raise KeyError(f"the paper has no cell {table}/{dataset}/{metric}/{method}.")
    return float(row["mean"].iloc[0]), float(row["sd"].iloc[0])


def paper_mean(table: str, dataset: str, metric: str, method: str) -> float | None:
    """One published mean, or None where the paper publishes no such cell (e.g. a baseline it left
    out): for a page that shows the paper's value where there is one.

    >>> paper_mean("table1", "compas", "accuracy", "gan"), paper_mean("table1", "compas", "accuracy", "nobody")
    (0.685, None)
    """
    try:
        return paper_value(table, dataset, metric, method)[0]
    except KeyError:
        return None
