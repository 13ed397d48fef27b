"""The book's tables: ours next to the paper's, and Tables 3–6.

Results of a reproduction use the same long format as the paper's numbers
(:data:`~cffair.reporting.names.RESULT_COLUMNS`), so that :func:`compare` can put "ours",
"paper" and the difference Δ = ours − paper side by side, and :func:`side_by_side` lays that
out like the paper's tables. :func:`format_table` turns any frame into an HTML table for the
book (no jinja2 needed).
"""

from __future__ import annotations

import html
import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from cffair.errors import DataError
from cffair.reporting.names import (
    DATASET_ORDER,
    HIGHER_IS_BETTER,
    METRIC_ORDER,
    TABLE_METHODS,
    dataset_name,
    method_name,
    metric_name,
    order_key,
    performance_metric,
)
from cffair.reporting.paper import PAPER_TABLE3_AXIOMS, TABLE4_COLUMNS, TABLE4_PAPER_SAT, paper_tables
from cffair.reporting.records import check_results, find_record, results_long, weight_grid_frame

__all__ = [
    "CAPTION_STYLE",
    "HTMLTable",
    "axiom_label",
    "best_cells",
    "compare",
    "comparison_table",
    "eq3_table",
    "format_cell",
    "format_delta",
    "format_table",
    "paper_table",
    "query_sat_table",
    "query_table",
    "results_table",
    "side_by_side",
    "table3_comparison",
    "table5_frame",
    "table6_frame",
]

_COMPACT_STYLE = "font-size: 0.85em; white-space: nowrap;"
#: Style of a caption above a table (wraps, left-aligned, at most a text column wide).
CAPTION_STYLE = "white-space: normal; text-align: left; max-width: 42rem;"


# ---------------------------------------------------------------------------- cells
def format_cell(mean: float, sd: float | None = None, decimals: int = 3) -> str:
    """``"0.812 ± 0.001"`` (or ``"0.778"`` without an sd, ``"—"`` for a missing value)."""
    if mean is None or (isinstance(mean, float) and math.isnan(mean)):
        return "—"
    text = f"{mean:.{decimals}f}"
    if sd is not None and not (isinstance(sd, float) and math.isnan(sd)):
        text += f" ± {sd:.{decimals}f}"
    return text


def format_delta(delta: float, decimals: int = 3) -> str:
    """A signed difference, ``"+0.004"`` / ``"−0.012"`` (``"—"`` if missing)."""
    if delta is None or (isinstance(delta, float) and math.isnan(delta)):
        return "—"
    rounded = round(float(delta), decimals)
    if rounded == 0:
        return f"{0:.{decimals}f}"
    sign = "+" if rounded > 0 else "−"
    return f"{sign}{abs(rounded):.{decimals}f}"


# ---------------------------------------------------------------------------- HTML
class HTMLTable:
    """A rendered HTML table that notebooks display (``_repr_html_``) and tests can inspect."""

    def __init__(self, html_text: str, frame: pd.DataFrame | None = None) -> None:
        self.html = html_text
        self.frame = frame

    def _repr_html_(self) -> str:
        return self.html

    def __str__(self) -> str:
        return self.html

    def __repr__(self) -> str:  # plain-text fallback
        return repr(self.frame) if self.frame is not None else self.html


def format_table(
    frame: pd.DataFrame,
    caption: str | None = None,
    *,
    index: bool = True,
    float_format: str = "{:.3f}",
    bold: Iterable[tuple[Any, Any]] = (),
    escape: bool = True,
    compact: bool = True,
) -> HTMLTable:
    """An HTML table of ``frame`` for the book (plain :meth:`pandas.DataFrame.to_html`, no jinja2).

    Args:
        frame: any frame; MultiIndex rows and columns are kept.
        caption: a caption shown above the table.
        index: show the row index.
        float_format: format of float cells.
        bold: ``(row label, column label)`` cells to set in bold (e.g. the row-wise best).
        escape: escape HTML in cells (turn off only for trusted cells that hold links).
        compact: a smaller font and no line breaks inside cells (``0.812 ± 0.001`` stays on one
            line; a table wider than the page scrolls sideways in the book).
    """
    bold = set(bold)
    # Missing values of any dtype (NaN, None, pd.NA of nullable columns) show as "—".
    shown = frame.astype(object).where(frame.notna(), np.nan)
    if bold:
        # Format every cell to text ourselves, so that bold cells can carry <strong> tags.
        def text(v: Any) -> str:
            if v is None or (not isinstance(v, str) and pd.api.types.is_scalar(v) and pd.isna(v)):
                t = "—"
            else:
                t = float_format.format(v) if isinstance(v, float) else str(v)
            return html.escape(t) if escape else t

        shown = shown.copy()
        for col in shown.columns:
            shown[col] = [text(v) for v in shown[col]]
        for r, c in bold:
            shown.at[r, c] = f"<strong>{shown.at[r, c]}</strong>"
        escape = False
    table_html = shown.to_html(
        index=index,
        escape=escape,
        na_rep="—",
        float_format=(lambda v: float_format.format(v)),
        classes=["cffair-table", "table"],
        border=0,
        sparsify=True,
    )
    if compact:
        table_html = table_html.replace("<table ", f'<table style="{_COMPACT_STYLE}" ', 1)
    if caption:
        cap_style = f' style="{CAPTION_STYLE}"' if compact else ""
        table_html = table_html.replace(">", f">\n  <caption{cap_style}>{html.escape(caption)}</caption>", 1)
    return HTMLTable(table_html, frame)


# ---------------------------------------------------------------------------- ours vs the paper
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

    Returns:
        One row per ``(dataset, metric, method)`` that either side has, in the paper's order,
        with numeric columns ``ours_mean, ours_sd, paper_mean, paper_sd, delta`` (Δ = ours −
        paper; NaN where a side is missing) and formatted columns ``ours``, ``paper``, ``Δ``
        (``"0.812 ± 0.001"``, ``"+0.004"``).
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
    merged = pd.merge(
        ours[[*keys, "mean", "sd"]].rename(columns={"mean": "ours_mean", "sd": "ours_sd"}),
        ref[[*keys, "mean", "sd"]].rename(columns={"mean": "paper_mean", "sd": "paper_sd"}),
        on=keys,
        how="outer",
    )
    merged["delta"] = merged["ours_mean"] - merged["paper_mean"]
    merged = merged.sort_values(
        by=keys,
        key=lambda s: order_key(s, {"dataset": DATASET_ORDER, "metric": METRIC_ORDER,
                                    "method": TABLE_METHODS.get(table, ())}[s.name]),
        kind="stable",
    ).reset_index(drop=True)
    merged["ours"] = [format_cell(m, s, decimals) for m, s in zip(merged["ours_mean"], merged["ours_sd"])]
    merged["paper"] = [format_cell(m, s, decimals) for m, s in zip(merged["paper_mean"], merged["paper_sd"])]
    merged["Δ"] = [format_delta(d, decimals) for d in merged["delta"]]
    return merged[[*keys, "ours_mean", "ours_sd", "paper_mean", "paper_sd", "delta", "ours", "paper", "Δ"]]


def side_by_side(comparison: pd.DataFrame, columns: Sequence[str] = ("ours", "paper", "Δ")) -> pd.DataFrame:
    """Lay a :func:`compare` frame out like the paper's tables.

    Rows are ``(dataset, metric)`` with display names; columns are ``(method, ours|paper|Δ)``
    in the paper's method order. Cells are the formatted strings.
    """
    missing = [c for c in ["dataset", "metric", "method", *columns] if c not in comparison.columns]
    if missing:
        raise DataError(f"the comparison lacks column(s) {missing}; build it with compare().")
    methods = list(dict.fromkeys(comparison["method"]))
    long = comparison.melt(id_vars=["dataset", "metric", "method"], value_vars=list(columns), var_name="side", value_name="cell")
    wide = long.pivot_table(index=["dataset", "metric"], columns=["method", "side"], values="cell", aggfunc="first", sort=False)
    wide = wide.reindex(columns=pd.MultiIndex.from_product([methods, list(columns)]))
    rows = list(dict.fromkeys(zip(comparison["dataset"], comparison["metric"])))
    wide = wide.reindex(pd.MultiIndex.from_tuples(rows))
    wide = wide.fillna("—")
    wide.index = pd.MultiIndex.from_tuples([(dataset_name(d), metric_name(m)) for d, m in wide.index], names=["dataset", "metric"])
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
    for (d, m), g in comparison.groupby(["dataset", "metric"], sort=False):
        g = g.dropna(subset=[col])
        if g.empty:
            continue
        i = g[col].idxmax() if m in HIGHER_IS_BETTER else g[col].idxmin()
        out.append(((dataset_name(d), metric_name(m)), (method_name(g.at[i, "method"]), side)))
    return out


def comparison_table(comparison: pd.DataFrame, caption: str, *, bold: bool = True,
                     columns: Sequence[str] = ("ours", "paper", "Δ"), stacked: bool = True) -> HTMLTable:
    """A :func:`compare` frame as the book shows it, our row-wise best in bold.

    Args:
        stacked: rows ``(dataset, metric, ours|paper|Δ)`` and one column per method (narrow
            enough for a book page); ``False`` keeps :func:`side_by_side`'s layout with
            ``(method, ours|paper|Δ)`` columns.
    """
    wide = side_by_side(comparison, columns=columns)
    cells = best_cells(comparison) if bold and "ours" in columns else []
    if not stacked:
        return format_table(wide, caption, bold=[c for c in cells if c[1] in wide.columns])
    methods = list(dict.fromkeys(m for m, _ in wide.columns))
    rows = {(d, m, side): [wide.at[(d, m), (meth, side)] for meth in methods] for d, m in wide.index for side in columns}
    out = pd.DataFrame(list(rows.values()), index=pd.MultiIndex.from_tuples(list(rows), names=["dataset", "metric", ""]),
                       columns=pd.Index(methods, name="method"))
    return format_table(out, caption, bold=[((d, m, side), meth) for (d, m), (meth, side) in cells])


def results_table(long: pd.DataFrame, caption: str, *, decimals: int = 3, bold: bool = True) -> HTMLTable:
    """A long results frame without paper numbers (e.g. the extra baselines): rows ``(dataset,
    metric)``, one column per method, cells ``mean ± sd``, the row-wise best in bold."""
    long = check_results(long, "results")
    long = long.assign(cell=[format_cell(m, s, decimals) for m, s in zip(long["mean"], long["sd"])])
    methods = list(dict.fromkeys(long["method"]))
    wide = long.pivot_table(index=["dataset", "metric"], columns="method", values="cell", aggfunc="first", sort=False)
    rows = sorted(wide.index, key=lambda r: (DATASET_ORDER.index(r[0]) if r[0] in DATASET_ORDER else 99,
                                             METRIC_ORDER.index(r[1]) if r[1] in METRIC_ORDER else 99))
    wide = wide.reindex(index=rows, columns=methods).fillna("—")
    cells = []
    if bold:
        for (d, m), g in long.groupby(["dataset", "metric"], sort=False):
            i = g["mean"].idxmax() if m in HIGHER_IS_BETTER else g["mean"].idxmin()
            cells.append(((dataset_name(d), metric_name(m)), method_name(g.at[i, "method"])))
    wide.index = pd.MultiIndex.from_tuples([(dataset_name(d), metric_name(m)) for d, m in wide.index], names=["dataset", "metric"])
    wide.columns = [method_name(m) for m in wide.columns]
    return format_table(wide, caption, bold=cells)


# ---------------------------------------------------------------------------- Table 3 (CKE)
def axiom_label(name: str) -> str:
    """``"A5[Male, race]"`` → ``"(race, male)"`` (the paper's notation in Table 3); other names pass through."""
    if name.startswith("A5[") and name.endswith("]"):
        group, _, feature = name[3:-1].rpartition(", ")
        return f"({feature}, {group.lower()})"
    return name


def table3_comparison(records: Sequence[Mapping[str, Any]], dataset: str = "adult", fold: int = 0,
                      decimals: int = 3) -> pd.DataFrame:
    """Table 3: the CKE steps of one run (``ltn_acc_cf_cke`` of ``dataset``/``fold``) next to the paper's.

    Rows are ``(stage, ours|paper|Δ)``: the stages are LTN(acc), LTN(acc+CF), then one per added
    A5 axiom (ours may differ from the paper's, so the ``axiom`` column names both, and the k-th
    of ours is compared with the paper's k-th); the other columns are the metrics.

    Raises:
        DataError: if the records lack the CKE run.
    """
    cke_rec = find_record(records, dataset, "ltn_acc_cf_cke", fold)
    if cke_rec is None or "cke" not in cke_rec:
        raise DataError(f"no ltn_acc_cf_cke record with CKE steps for {dataset} fold {fold}; run the q3 group.")
    perf = performance_metric(dataset)
    metrics = [perf, "cf_mse", "cf_mse_worst_subgroup"]
    paper = paper_tables()
    paper = paper[(paper.table == "table3") & (paper.dataset == dataset)]
    pval = {(r.method, r.metric): r.mean for r in paper.itertuples()}
    stages: list[tuple[str, str, str, Mapping[str, Any] | None, str]] = []
    for setting in ("ltn_acc", "ltn_acc_cf"):
        rec = find_record(records, dataset, setting, fold)
        stages.append((method_name(setting), "—", "—", rec["metrics"] if rec else None, setting))
    paper_cke = [m for m in TABLE_METHODS["table3"] if m.startswith("cke_")]
    steps = [s for s in cke_rec["cke"]["steps"] if int(s["step"]) > 0]
    for k in range(max(len(steps), len(paper_cke))):
        ours = steps[k] if k < len(steps) else None
        pkey = paper_cke[k] if k < len(paper_cke) else ""
        stages.append((f"+ CKE axiom {k + 1}", axiom_label(ours["axiom"]) if ours else "—",
                       PAPER_TABLE3_AXIOMS.get(pkey, "—"), ours, pkey))
    rows, index = [], []
    for label, our_ax, paper_ax, m, pkey in stages:
        ours = {met: float(m[met]) if m is not None and m.get(met) is not None else np.nan for met in metrics}
        paper = {met: float(pval.get((pkey, met), np.nan)) for met in metrics}
        for side in ("ours", "paper", "Δ"):
            row: dict[str, Any] = {"axiom": {"ours": our_ax, "paper": paper_ax, "Δ": ""}[side]}
            for met in metrics:
                if side == "Δ":
                    row[metric_name(met)] = format_delta(ours[met] - paper[met], decimals)
                else:
                    row[metric_name(met)] = format_cell((ours if side == "ours" else paper)[met], None, decimals)
            rows.append(row)
            index.append((label, side))
    return pd.DataFrame(rows, index=pd.MultiIndex.from_tuples(index, names=["stage", ""]))


# ---------------------------------------------------------------------------- Table 4 (queries)
def query_sat_table(record: Mapping[str, Any], decimals: int = 3) -> pd.DataFrame:
    """Table 4, satisfactions: per queried subgroup, β and the satisfaction of equation (2),
    ours beside the paper's (:data:`TABLE4_PAPER_SAT`) with Δ = ours − paper."""
    q = record.get("queries")
    if not q:
        raise DataError("the record has no 'queries' (they are stored on the adult ltn_acc_cf record).")
    rows = []
    for item in q.get("eq2", []):
        paper = TABLE4_PAPER_SAT.get(item["subgroup"], np.nan)
        rows.append({"subgroup": item["subgroup"], "β": f"{item['beta']:g}", "sat (ours)": format_cell(item["sat"], None, decimals),
                     "sat (paper)": format_cell(paper, None, decimals), "Δ": format_delta(item["sat"] - paper, decimals)})
    return pd.DataFrame(rows).set_index("subgroup")


def query_table(record: Mapping[str, Any], columns: Sequence[str] = TABLE4_COLUMNS) -> pd.DataFrame:
    """Table 4, example rows: per queried subgroup the query row x̂ and its nearest neighbour
    with a different decision, decoded, with the prediction ``D`` and the distance to x̂."""
    q = record.get("queries")
    if not q:
        raise DataError("the record has no 'queries' (they are stored on the adult ltn_acc_cf record).")
    rows = []
    for item in q.get("eq2", []):
        for role, row in [("x̂ (query)", (item.get("query_row") or [None])[0]), ("nearest x", (item.get("neighbours") or [None])[0])]:
            out: dict[str, Any] = {"subgroup": item["subgroup"], "row": role}
            if row is None:
                out.update({"D": "—", "distance": "—", **{c: "—" for c in columns}})
            else:
                out["D"] = f"{float(row['D']):.2f}"
                out["distance"] = f"{float(row['distance']):.2f}" if "distance" in row else "0"
                for c in columns:
                    v = row.get(c, "—")
                    out[c] = f"{v:.0f}" if isinstance(v, float) else str(v)
            rows.append(out)
    return pd.DataFrame(rows).set_index(["subgroup", "row"])


def eq3_table(record: Mapping[str, Any], decimals: int = 3) -> pd.DataFrame:
    """Equation (3): the satisfaction of subgroup counterfactual fairness for every subgroup,
    with the subgroup's test CF-MSE beside it."""
    q = record.get("queries") or {}
    by_sg = record["metrics"].get("cf_mse_by_subgroup", {})
    rows = [{"subgroup": sg, "sat of (3)": round(float(v), decimals), "CF-MSE": by_sg.get(sg, np.nan)} for sg, v in (q.get("eq3") or {}).items()]
    return pd.DataFrame(rows).sort_values("sat of (3)").set_index("subgroup")


# ---------------------------------------------------------------------------- Table 5 (appendix A)
def table5_frame(records: Sequence[Mapping[str, Any]], decimals: int = 3) -> pd.DataFrame:
    """Table 5: the GAN method against LTN(acc+CF) trained on the GAN's counterfactuals, each
    evaluated on the GAN's own counterfactual test pairs and on the CNF ones.

    Rows ``(dataset, metric)``; columns ``(method, evaluated on)``; cells ``mean ± sd`` over folds.
    Accuracy/MSE use the factual test rows only, so it is the same under both evaluations.
    """
    methods = ["gan", "ltn_acc_cf@gan"]
    parts = []
    for own, label in ((True, "GAN's CFs"), (False, "CNF's CFs")):
        long = results_long(records, "table5", methods, own_counterfactuals=own)
        parts.append(long.assign(side=label))
    long = pd.concat(parts, ignore_index=True)
    if long.empty:
        raise DataError("no GAN records (setting 'gan', or cf_source 'gan') among the records; run the appendix_a group.")
    long["cell"] = [format_cell(m, s, decimals) for m, s in zip(long["mean"], long["sd"])]
    wide = long.pivot_table(index=["dataset", "metric"], columns=["method", "side"], values="cell", aggfunc="first", sort=False)
    rows = sorted(wide.index, key=lambda r: (DATASET_ORDER.index(r[0]) if r[0] in DATASET_ORDER else 99, METRIC_ORDER.index(r[1])))
    cols = [(m, s) for m in methods for s in ("GAN's CFs", "CNF's CFs") if (m, s) in wide.columns]
    wide = wide.reindex(index=rows, columns=cols).fillna("—")
    wide.index = pd.MultiIndex.from_tuples([(dataset_name(d), metric_name(m)) for d, m in wide.index], names=["dataset", "metric"])
    wide.columns = pd.MultiIndex.from_tuples([(method_name(m), s) for m, s in wide.columns], names=["method", "evaluated on"])
    return wide


# ---------------------------------------------------------------------------- Table 6 (appendix B)
def table6_frame(records: Iterable[Mapping[str, Any]], decimals: int = 3) -> pd.DataFrame:
    """Table 6: for each dataset and (accuracy weight, CF weight), accuracy or MSE, CF-MSE and
    worst-subgroup CF-MSE (mean ± sd over folds) and the worst subgroup (most frequent)."""
    grid = weight_grid_frame(records)
    if grid.empty:
        raise DataError("no weight-grid records; run the appendix_b group.")
    rows = []
    for (d, wa, wc), g in grid.groupby(["dataset", "w_acc", "w_cf"], sort=False):
        cell = {"dataset": dataset_name(d), "weights acc : CF": f"{wa:g} : {wc:g}"}
        for met in ("accuracy", "mse", "cf_mse", "cf_mse_worst_subgroup"):
            cell[metric_name(met)] = format_cell(g[met].mean(), g[met].std(ddof=1) if len(g) > 1 else None, decimals)
        cell["worst subgroup"] = g["worst_subgroup"].mode().iloc[0] if g["worst_subgroup"].notna().any() else "—"
        cell["_order"] = (DATASET_ORDER.index(d) if d in DATASET_ORDER else 99, -float(np.log2(wa / wc)))
        rows.append(cell)
    out = pd.DataFrame(rows).sort_values("_order").drop(columns="_order")
    return out.set_index(["dataset", "weights acc : CF"])
