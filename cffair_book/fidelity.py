"""How close ours is to the paper, in words the numbers choose: which cells of a table differ from the
paper's beyond chance.

:func:`cffair.reporting.tables.compare` decides each cell on the standard error of the difference of
the two means (Welch's t over the folds behind each mean, the paper's five); :func:`paper_agreement`
says how many cells differ, how many chance alone would flag, and which differ most.
"""

from __future__ import annotations

import math

import pandas as pd

from cffair.reporting.names import dataset_name, method_name, metric_name
from cffair.reporting.tables import AGREEMENT_ALPHA, format_delta

__all__ = ["paper_agreement"]


def _cell(row: pd.Series) -> str:
    t = abs(float(row["delta"])) / float(row["se_delta"]) if row["se_delta"] > 0 else math.inf
    size = "" if math.isinf(t) else f", {t:.1f} standard errors"
    return (
        f"{method_name(str(row['method']))}'s {metric_name(str(row['metric'])).rstrip(' ↑↓')} on "
        f"{dataset_name(str(row['dataset']))} (Δ {format_delta(float(row['delta']))}{size})"
    )


def paper_agreement(comparison: pd.DataFrame, what: str = "the table", *, top: int = 3) -> str:
    """One or two sentences: of the cells of ``comparison`` (a :func:`~cffair.reporting.tables.compare`
    frame) that can be judged, how many differ from the paper's beyond chance, how many chance alone
    would flag if every cell agreed, and the ``top`` farthest in standard errors of the difference.

    >>> comp = pd.DataFrame({"dataset": ["adult", "compas"], "metric": ["accuracy", "cf_mse"],
    ...                      "method": ["ltn_acc", "cnf"], "delta": [0.05, 0.001], "se_delta": [0.01, 0.002],
    ...                      "p_paper": [0.001, 0.6], "beyond": [True, False]})
    >>> print(paper_agreement(comp, "Table 1"))
    1 of the 2 cells of Table 1 that can be judged differs from the paper's beyond chance (Welch's t on the two means, p < 0.05; at that level chance alone flags about 1 in 20 cells that agree); the farthest: LTN(acc)'s accuracy on Adult (Δ +0.050, 5.0 standard errors).
    """
    judged = comparison[comparison["p_paper"].notna()]
    if judged.empty:
        return f"No cell of {what} can be judged against the paper (a side without an sd over several folds)."
    far = judged[judged["beyond"].astype(bool)]
    n, k = len(judged), len(far)
    rule = f"Welch's t on the two means, p < {AGREEMENT_ALPHA:g}"
    chance = f"at that level chance alone flags about 1 in {round(1 / AGREEMENT_ALPHA)} cells that agree"
    if k == 0:
        return f"None of the {n} cells of {what} that can be judged differs from the paper's beyond chance ({rule})."
    verb = "differs" if k == 1 else "differ"
    order = (far["delta"].abs() / far["se_delta"].where(far["se_delta"] > 0, math.nan)).fillna(math.inf)
    farthest = far.loc[order.sort_values(ascending=False, kind="stable").index[:top]]
    cells = "; ".join(_cell(r) for _, r in farthest.iterrows())
    return (
        f"{k} of the {n} cells of {what} that can be judged {verb} from the paper's beyond chance ({rule}; "
        f"{chance}); the farthest: {cells}."
    )
