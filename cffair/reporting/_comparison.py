"""Ours beside the paper's: cell by cell, with the distance judged on the folds behind each mean.

Results of a reproduction use the same long format as the paper's numbers
(:data:`~cffair.reporting.RESULT_COLUMNS`), so that :func:`compare` can put "ours",
"paper" and the difference Δ = ours − paper side by side, and decide per cell whether the two
differ beyond chance (Welch's t on the two means). A cell whose mean holds a collapsed model (the
degenerate-model screen) is marked "†" and not judged. :func:`comparison_table` shows that one
row per method and one column per metric, each cell holding ours with the paper's value and Δ
beneath it, optionally one table per dataset, so that no table is wider than the book's text
column; :func:`delta_summary` condenses a long comparison into its Δs; :func:`paper_table` is one
of the paper's tables as published.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import cast

import numpy as np
import pandas as pd

from cffair.errors import DataError
from cffair.reporting._names import (
    DATASET_ORDER,
    HIGHER_IS_BETTER,
    METRIC_ORDER,
    TABLE_METHODS,
    dataset_name,
    method_name,
    metric_name,
    order_key,
)
from cffair.reporting._paper import paper_tables
from cffair.reporting._records import check_results, rankable
from cffair.reporting._tables import (
    HTMLTable,
    format_cell,
    format_delta,
    format_table,
    metric_columns,
    stacked_cell,
)

__all__ = [
    "AGREEMENT_ALPHA",
    "COLLAPSED_MARK",
    "best_cells",
    "collapsed_note",
    "compare",
    "comparison_table",
    "delta_summary",
    "paper_table",
    "side_by_side",
]


def compare(
    ours: pd.DataFrame,
    table: str = "table1",
    *,
    paper: pd.DataFrame | None = None,
    decimals: int = 3,
) -> pd.DataFrame:
    """Our results next to the paper's for one table, cell by cell.

    Args:
        ours: a long results frame (:data:`RESULT_COLUMNS`); rows of other tables are ignored.
            A missing ``table`` column means every row belongs to ``table``.
        table: ``"table1"``, ``"table2"`` or ``"table3"``.
        paper: the reference frame (default: :func:`paper_tables`).
        decimals: digits of the formatted columns.

    Whether a cell *differs* from the paper's is decided on the standard error of the difference
    of the two means, not on the spread of single folds: with ``n`` folds behind each mean
    (``ours``' ``n`` column; the paper's :data:`~cffair.reporting.PAPER_FOLDS`),
    ``se = √(sd_ours²/n_ours + sd_paper²/n_paper)`` and Welch's t test (Welch–Satterthwaite
    degrees of freedom) gives a two-sided p; ``beyond`` marks ``p <`` :data:`AGREEMENT_ALPHA`.
    A cell without an sd or ``n`` on a side cannot be judged (``p`` NaN, ``beyond`` False).
    A cell of ours whose mean holds records of collapsed models (``ours``' ``collapsed`` column,
    :func:`~cffair.reporting.results_long`: a model that predicts one outcome for everyone is
    trivially fair, so its numbers say nothing about the method's) is marked and not judged:
    ``collapsed`` counts them, ``p`` is NaN, and the formatted ``ours`` ends in "†". One flag per cell, no correction for many cells: at α = 0.05 about one cell in twenty
    that agrees with the paper is flagged by chance.

    >>> ours = pd.DataFrame({"table": ["table1"], "dataset": ["compas"], "metric": ["accuracy"],
    ...                      "method": ["ltn_acc"], "mean": [0.70], "sd": [0.01], "n": [5]})
    >>> paper = ours.assign(mean=0.68, sd=0.02)
    >>> row = compare(ours, paper=paper).iloc[0]
    >>> float(round(row["se_delta"], 4)), float(round(row["p_paper"], 3)), bool(row["beyond"])
    (0.01, 0.093, False)

    Returns:
        One row per ``(dataset, metric, method)`` that either side has, in the paper's order,
        with numeric columns ``ours_mean, ours_sd, ours_n, paper_mean, paper_sd, paper_n, delta``
        (Δ = ours − paper; NaN where a side is missing), ``se_delta``, ``p_paper``, ``beyond`` and
        ``collapsed`` (above), and formatted columns ``ours``, ``paper``, ``Δ`` (``"0.812 ± 0.001"``, ``"+0.004"``).
    """
    ours = ours.copy()
    if "table" not in ours.columns:
        ours["table"] = table
    ours = check_results(ours, "our results")
    ours = ours[ours["table"] == table]
    ref = check_results(paper_tables() if paper is None else paper, "the paper's results")
    ref = ref[ref["table"] == table]
    if ref.empty and ours.empty:
        raise DataError(f"neither our results nor the paper have rows for table {table!r}.")
    keys = ["dataset", "metric", "method"]
    ours = ours.assign(
        n=ours["n"] if "n" in ours.columns else np.nan,
        collapsed=ours["collapsed"].fillna(0) if "collapsed" in ours.columns else 0.0,
    )
    ref = ref.assign(n=ref["n"] if "n" in ref.columns else np.nan)
    merged = pd.merge(
        ours[[*keys, "mean", "sd", "n", "collapsed"]].rename(
            columns={"mean": "ours_mean", "sd": "ours_sd", "n": "ours_n"}
        ),
        ref[[*keys, "mean", "sd", "n"]].rename(columns={"mean": "paper_mean", "sd": "paper_sd", "n": "paper_n"}),
        on=keys,
        how="outer",
    )
    merged["delta"] = merged["ours_mean"] - merged["paper_mean"]
    merged["se_delta"], merged["p_paper"] = _welch(merged)
    merged["collapsed"] = merged["collapsed"].fillna(0).astype(int)
    merged.loc[merged["collapsed"] > 0, ["se_delta", "p_paper"]] = np.nan  # not judged: see above
    merged["beyond"] = (merged["p_paper"] < AGREEMENT_ALPHA).fillna(False).astype(bool)
    merged = merged.sort_values(
        by=keys,
        key=lambda s: order_key(
            s, {"dataset": DATASET_ORDER, "metric": METRIC_ORDER, "method": TABLE_METHODS.get(table, ())}[s.name]
        ),
        kind="stable",
    ).reset_index(drop=True)
    merged["ours"] = [
        format_cell(m, s, decimals) + (f" {COLLAPSED_MARK}" if k else "")
        for m, s, k in zip(merged["ours_mean"], merged["ours_sd"], merged["collapsed"])
    ]
    merged["paper"] = [format_cell(m, s, decimals) for m, s in zip(merged["paper_mean"], merged["paper_sd"])]
    merged["Δ"] = [format_delta(d, decimals) for d in merged["delta"]]
    numbers = ["ours_mean", "ours_sd", "ours_n", "paper_mean", "paper_sd", "paper_n", "delta", "se_delta"]
    return merged[[*keys, *numbers, "p_paper", "beyond", "collapsed", "ours", "paper", "Δ"]]


#: The mark of a cell of ours whose mean holds a collapsed model (:func:`compare`).
COLLAPSED_MARK = "†"


def collapsed_note(comparison: pd.DataFrame, *, paper: bool = True) -> str:
    """The footnote of a table of :func:`compare` cells (or of a results frame's, ``paper=False``): what
    its marked cells hold (empty when none is marked).

    >>> collapsed_note(pd.DataFrame({"collapsed": [0, 2, 2, 1]}))
    '† the mean holds a collapsed model (the degenerate-model screen): not compared with the paper.'
    """
    k = int((comparison["collapsed"].fillna(0) > 0).sum()) if "collapsed" in comparison.columns else 0
    if not k:
        return ""
    tail = ": not compared with the paper." if paper else "."
    return f"{COLLAPSED_MARK} the mean holds a collapsed model (the degenerate-model screen){tail}"


#: The level below which Welch's p says a cell of ours differs from the paper's (:func:`compare`).
AGREEMENT_ALPHA = 0.05


def _welch(merged: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """Standard error of ``delta`` and Welch's two-sided p per row (NaN where a side lacks sd or n ≥ 2)."""
    from scipy import stats

    n_o, n_p = merged["ours_n"].to_numpy(float), merged["paper_n"].to_numpy(float)
    with np.errstate(divide="ignore", invalid="ignore"):
        v_o = merged["ours_sd"].to_numpy(float) ** 2 / n_o
        v_p = merged["paper_sd"].to_numpy(float) ** 2 / n_p
        se = np.sqrt(v_o + v_p)
        df = (v_o + v_p) ** 2 / (v_o**2 / (n_o - 1) + v_p**2 / (n_p - 1))
        t = np.abs(merged["delta"].to_numpy(float)) / se
        p = 2 * stats.t.sf(t, df)
    judged = (n_o >= 2) & (n_p >= 2) & np.isfinite(se) & np.isfinite(merged["delta"].to_numpy(float))
    exact = judged & (se == 0)  # both sds 0: any difference is beyond chance, none is not
    p = np.where(exact, np.where(merged["delta"].to_numpy(float) == 0, 1.0, 0.0), p)
    return np.where(judged, se, np.nan), np.where(judged, p, np.nan)


def side_by_side(comparison: pd.DataFrame, columns: Sequence[str] = ("ours", "paper", "Δ")) -> pd.DataFrame:
    """Lay a :func:`compare` frame out like the paper's tables.

    Rows are ``(dataset, metric)`` with display names; columns are ``(method, ours|paper|Δ)``
    in the paper's method order. Cells are the formatted strings.
    """
    missing = [c for c in ["dataset", "metric", "method", *columns] if c not in comparison.columns]
    if missing:
        raise DataError(f"the comparison lacks column(s) {missing}; build it with compare().")
    methods = list(dict.fromkeys(comparison["method"]))
    long = comparison.melt(
        id_vars=["dataset", "metric", "method"], value_vars=list(columns), var_name="side", value_name="cell"
    )
    wide = long.pivot_table(
        index=["dataset", "metric"], columns=["method", "side"], values="cell", aggfunc="first", sort=False
    )
    wide = wide.reindex(columns=pd.MultiIndex.from_product([methods, list(columns)]))
    rows = list(dict.fromkeys(zip(comparison["dataset"], comparison["metric"])))
    wide = wide.reindex(pd.MultiIndex.from_tuples(rows))
    wide = wide.fillna("—")
    wide.index = pd.MultiIndex.from_tuples(
        [(dataset_name(d), metric_name(m)) for d, m in wide.index], names=["dataset", "metric"]
    )
    wide.columns = pd.MultiIndex.from_tuples([(method_name(m), s) for m, s in wide.columns], names=["method", ""])
    return wide


def paper_table(table: str = "table1", decimals: int = 3) -> pd.DataFrame:
    """One of the paper's tables as published: rows ``(dataset, metric)``, columns methods,
    cells ``"0.812 ± 0.001"``."""
    p = paper_tables()
    p = p[p["table"] == table]
    if p.empty:
        raise KeyError(f"no paper table {table!r}; available: {sorted(paper_tables()['table'].unique())}.")
    comp = compare(p.iloc[:0], table, decimals=decimals)
    wide = side_by_side(comp, columns=("paper",))
    wide.columns = wide.columns.droplevel(1)
    return wide


def best_cells(comparison: pd.DataFrame, side: str = "ours") -> list[tuple[tuple[str, str], tuple[str, str]]]:
    """The row-wise best method of a :func:`compare` frame, as ``bold=`` cells for
    :func:`format_table` applied to :func:`side_by_side` (higher accuracy, lower otherwise)."""
    col = f"{side}_mean"
    out = []
    for (d, m), g in rankable(comparison).groupby(["dataset", "metric"], sort=False):  # a collapsed model is no best
        g = g.dropna(subset=[col])
        if g.empty:
            continue
        i = g[col].idxmax() if m in HIGHER_IS_BETTER else g[col].idxmin()
        out.append(((dataset_name(d), metric_name(m)), (method_name(g.at[i, "method"]), side)))
    return out


def _cell_at(cells: Mapping[tuple[str, str], str], metric: str, bold: bool) -> str:
    """The :func:`~cffair.reporting._tables.stacked_cell` of one method's ``metric`` from its ``(metric, ours|paper|Δ)`` texts."""
    ours, paper, delta = (cells.get((metric, side)) for side in ("ours", "paper", "Δ"))
    return stacked_cell(cast(str, ours), paper, delta, bold)


def comparison_table(
    comparison: pd.DataFrame,
    caption: str,
    *,
    bold: bool = True,
    layout: str = "cells",
    split: bool = False,
    columns: Sequence[str] = ("ours", "paper", "Δ"),
) -> HTMLTable:
    """A :func:`compare` frame as the book shows it, our best per dataset and metric in bold.

    Args:
        layout: ``"cells"``: rows ``(dataset, method)``, one column per metric (accuracy and MSE
            share one), each cell ours with "paper …" and "Δ …" beneath it (for another layout,
            format :func:`side_by_side` with :func:`format_table`).
        split: with ``"cells"``, one table per dataset, captioned "caption — dataset".

    The returned table's ``frame`` holds the cells as text: rows ``(dataset, method)`` and
    columns ``(metric, ours|paper|Δ)``. A cell whose mean holds a collapsed model ends in "†" and the
    caption says so (:func:`collapsed_note`).
    """
    if layout != "cells":
        raise DataError(f"unknown table layout {layout!r}; the book's layout is 'cells'.")
    note = collapsed_note(comparison)
    wide = side_by_side(comparison, columns=columns)
    cells = best_cells(comparison) if bold and "ours" in columns else []
    methods = list(dict.fromkeys(m for m, _ in wide.columns))
    best = {(d, met, meth) for (d, met), (meth, _) in cells}
    datasets = list(dict.fromkeys(d for d, _ in wide.index))
    recs: dict[tuple[str, str], dict[tuple[str, str], str]] = {(d, meth): {} for d in datasets for meth in methods}
    for d, met in wide.index:
        for meth in methods:
            for side in columns:
                recs[(d, meth)][(met, side)] = wide.at[(d, met), (meth, side)]
    text = pd.DataFrame.from_dict(recs, orient="index").fillna("—")
    text.index.names = ["dataset", "method"]

    def render(keep: Sequence[str]) -> pd.DataFrame:
        column = metric_columns(list(dict.fromkeys(met for d, met in wide.index if d in keep)))
        body = {
            (d, meth): {
                column[met]: _cell_at(recs[(d, meth)], met, (d, met, meth) in best) for dd, met in wide.index if dd == d
            }
            for d in keep
            for meth in methods
        }
        frame = pd.DataFrame.from_dict(body, orient="index").reindex(columns=list(dict.fromkeys(column.values())))
        frame.index = (
            pd.MultiIndex.from_tuples(list(body), names=["dataset", "method"])
            if len(keep) > 1
            else pd.Index([meth for _, meth in body], name="method")
        )
        return frame

    if not split:
        return HTMLTable(
            format_table(render(datasets), " ".join(filter(None, [caption, note])), escape=False).html, text
        )
    return HTMLTable(
        "\n".join(
            format_table(render([d]), " ".join(filter(None, [f"{caption} — {d}", note])), escape=False).html
            for d in datasets
        ),
        text,
    )


def delta_summary(comparison: pd.DataFrame, caption: str, *, decimals: int = 3) -> HTMLTable:
    """The Δs of a :func:`compare` frame at a glance: rows ``(dataset, metric)``, one column per
    method (headed "LTN" or "baseline"), each cell Δ = ours − paper, in bold where :func:`compare`
    finds it beyond chance (``beyond``: Welch's t on the two means, their standard error of the
    difference, p < :data:`AGREEMENT_ALPHA`); a cell whose mean holds a collapsed model ends in "†",
    is not judged, and the caption says so (:func:`collapsed_note`). A metric without a Δ in any
    cell of its row (one the paper does not report, such as the flip rate) is left out.

    The returned table's ``frame`` holds the cells as text; ``frame.attrs["beyond"]`` the
    ``(row, column)`` labels of the bold cells.
    """
    missing = [c for c in ("dataset", "metric", "method", "delta", "beyond") if c not in comparison.columns]
    if missing:
        raise DataError(f"the comparison lacks column(s) {missing}; build it with compare().")
    # a metric the paper does not report (no Δ in any method's cell) is no row: a row of dashes says nothing
    reported = comparison.groupby(["dataset", "metric"], sort=False)["delta"].transform(lambda d: d.notna().any())
    comp = comparison[reported.astype(bool)].copy()
    comp["far"] = comp["beyond"].astype(bool)
    gone = comp["collapsed"].fillna(0).astype(int) if "collapsed" in comp.columns else pd.Series(0, index=comp.index)
    comp["cell"] = [
        format_delta(d, decimals) + (f" {COLLAPSED_MARK}" if k else "") for d, k in zip(comp["delta"], gone)
    ]
    caption = " ".join(filter(None, [caption, collapsed_note(comp)]))

    def column(m: str) -> tuple[str, str]:  # short two-level headers, so that six methods fit the text column
        name = method_name(m)
        return ("LTN", name[4:-1]) if name.startswith("LTN(") and name.endswith(")") else ("baseline", name)

    methods = list(dict.fromkeys(comp["method"]))
    wide = comp.pivot_table(index=["dataset", "metric"], columns="method", values="cell", aggfunc="first", sort=False)
    rows = list(dict.fromkeys(zip(comp["dataset"], comp["metric"])))
    wide = wide.reindex(index=pd.MultiIndex.from_tuples(rows), columns=methods).fillna("—")
    wide.index = pd.MultiIndex.from_tuples(
        [(dataset_name(d), metric_name(m)) for d, m in wide.index], names=["dataset", "metric"]
    )
    wide.columns = pd.MultiIndex.from_tuples([column(m) for m in wide.columns])
    beyond = [((dataset_name(r.dataset), metric_name(r.metric)), column(r.method)) for r in comp.itertuples() if r.far]
    table = format_table(wide, caption, bold=beyond)
    cast(pd.DataFrame, table.frame).attrs["beyond"] = beyond  # format_table keeps its frame
    return table
