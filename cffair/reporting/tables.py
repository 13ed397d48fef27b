"""The book's tables: ours next to the paper's, and Tables 3–6.

Results of a reproduction use the same long format as the paper's numbers
(:data:`~cffair.reporting.names.RESULT_COLUMNS`), so that :func:`compare` can put "ours",
"paper" and the difference Δ = ours − paper side by side. :func:`comparison_table` shows that
one row per method and one column per metric, each cell holding ours with the paper's value and
Δ beneath it, optionally one table per dataset, so that no table is wider than the book's text
column; :func:`delta_summary` condenses a long comparison into its Δs. :func:`format_table`
turns any frame into an HTML table for the book (no jinja2 needed). The chapters' own tables
(Tables 3–6: CKE steps, queries, appendices A and B) are :mod:`.chapter_tables`'.
"""

from __future__ import annotations

import html
import math
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, cast

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
)
from cffair.reporting.paper import paper_tables
from cffair.reporting.records import check_results

__all__ = [
    "AGREEMENT_ALPHA",
    "CAPTION_CLASS",
    "COMPACT_CLASS",
    "FOLD_CLASS",
    "NUMBER_CLASS",
    "HTMLTable",
    "best_cells",
    "compare",
    "comparison_table",
    "delta_summary",
    "format_cell",
    "format_delta",
    "format_table",
    "folded",
    "mark_numbers",
    "paper_table",
    "results_table",
    "side_by_side",
    "tidy_table",
]

#: The classes of a compact table and of its caption (their rules: the book's ``_static/cffair.css``, the
#: own-data report's ``cffair/data/report.css``).
COMPACT_CLASS = "cffair-compact"
CAPTION_CLASS = "cffair-caption"
#: The class of a cell (or a part of one) that holds a number: it never breaks across lines.
NUMBER_CLASS = "cffair-num"
#: The class of a folded table (:func:`folded`).
FOLD_CLASS = "cffair-fold"
#: A cell of numbers and signs only (no letters): it stays on one line.
_NUMBERS = re.compile(r"^[^A-Za-z]*\d[^A-Za-z]*$")
#: A short key with a digit and no space (``Q1.1``, ``B.2``, ``1e-3``): it stays on one line too.
_KEY = re.compile(r"^(?=\S*\d)\S{1,10}$")


def _unbreakable(v: Any) -> Any:
    """``v`` with non-breaking spaces if it is text made of numbers and signs only."""
    return v.replace(" ", "\u00a0") if isinstance(v, str) and _NUMBERS.match(v) else v


def _unbreakable_labels(index: pd.Index) -> pd.Index:
    """Row labels are words: they wrap. Only labels of numbers (e.g. ``1 : 3``) keep together."""
    if isinstance(index, pd.MultiIndex):
        return index.set_levels([lv.map(_unbreakable) for lv in index.levels])
    return index.map(_unbreakable)


_CELL = re.compile(r"<(?P<tag>td|th)(?P<attrs>(?:\s[^>]*)?)>(?P<inner>.*?)</(?P=tag)>", re.S)
_TAG = re.compile(r"<[^>]+>")


def mark_numbers(table_html: str) -> str:
    """An HTML table with every cell of numbers and signs only (``0.812 ± 0.001``, ``−0.012``,
    ``1 : 3``; no letters), or of one short key with a digit (``Q1.1``), given the class
    :data:`NUMBER_CLASS`, which keeps it on one line (the book's CSS): a narrow column then makes
    the table scroll in its frame, never a number break mid-digit.

    >>> mark_numbers('<tr><th>Q1.1</th><td>0.812 ± 0.001</td><td class="x"><strong>1.5</strong></td><td>a 1</td></tr>')
    '<tr><th class="cffair-num">Q1.1</th><td class="cffair-num">0.812 ± 0.001</td><td class="x cffair-num"><strong>1.5</strong></td><td>a 1</td></tr>'
    """

    def mark(m: re.Match[str]) -> str:
        text = html.unescape(_TAG.sub("", m.group("inner"))).strip()
        if not (_NUMBERS.match(text) or _KEY.match(text)):
            return m.group(0)
        attrs = m.group("attrs")
        has = re.search(r'\bclass="([^"]*)"', attrs)
        if has and NUMBER_CLASS in has.group(1).split():
            return m.group(0)
        if has:
            attrs = attrs[: has.start(1)] + f"{has.group(1)} {NUMBER_CLASS}".strip() + attrs[has.end(1) :]
        else:
            attrs += f' class="{NUMBER_CLASS}"'
        return f"<{m.group('tag')}{attrs}>{m.group('inner')}</{m.group('tag')}>"

    return _CELL.sub(mark, table_html)


def folded(table: Any, summary: str, *, open_: bool = False) -> HTMLTable:
    """A long table folded under a one-line ``summary`` (an HTML ``<details>``, class
    :data:`FOLD_CLASS`): the reader opens it when they want the rows, and a page on a phone stays
    short. ``table`` is anything a notebook shows as HTML (an :class:`HTMLTable`, a pandas
    ``Styler`` or frame); ``open_`` shows it unfolded at first.

    Raises:
        DataError: if ``table`` has no HTML form.
    """
    html_of = getattr(table, "_repr_html_", None)
    if html_of is None:
        raise DataError(f"cannot fold a {type(table).__name__}: it has no HTML form (_repr_html_); pass a table.")
    state = " open" if open_ else ""
    return HTMLTable(
        f'<details class="{FOLD_CLASS}"{state}><summary>{html.escape(summary)}</summary>\n{html_of()}\n</details>',
        getattr(table, "frame", table if isinstance(table, pd.DataFrame) else None),
    )


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
        compact: a smaller font. In every table, words and headers break lines where the column
            needs it, numbers never: a cell of numbers and signs (``0.812 ± 0.001``, ``0.44 → 0.26``)
            has its spaces made non-breaking and the class :data:`NUMBER_CLASS` (:func:`mark_numbers`).
    """
    bold = set(bold)
    # Missing values of any dtype (NaN, None, pd.NA of nullable columns) show as "—".
    shown = frame.astype(object).where(frame.notna(), np.nan).map(_unbreakable)
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
    shown.index = _unbreakable_labels(shown.index)
    table_html = shown.to_html(
        index=index,
        escape=escape,
        na_rep="—",
        float_format=(lambda v: float_format.format(v)),
        classes=["cffair-table", "table", *([COMPACT_CLASS] if compact else [])],
        border=0,
        sparsify=True,
    )
    if caption:
        cap_class = f' class="{CAPTION_CLASS}"' if compact else ""
        table_html = table_html.replace(">", f">\n  <caption{cap_class}>{html.escape(caption)}</caption>", 1)
    return HTMLTable(mark_numbers(table_html), frame)


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

    Whether a cell *differs* from the paper's is decided on the standard error of the difference
    of the two means, not on the spread of single folds: with ``n`` folds behind each mean
    (``ours``' ``n`` column; the paper's :data:`~cffair.reporting.paper.PAPER_FOLDS`),
    ``se = √(sd_ours²/n_ours + sd_paper²/n_paper)`` and Welch's t test (Welch–Satterthwaite
    degrees of freedom) gives a two-sided p; ``beyond`` marks ``p <`` :data:`AGREEMENT_ALPHA`.
    A cell without an sd or ``n`` on a side cannot be judged (``p`` NaN, ``beyond`` False).
    One flag per cell, no correction for many cells: at α = 0.05 about one cell in twenty
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
        (Δ = ours − paper; NaN where a side is missing), ``se_delta``, ``p_paper`` and ``beyond``
        (above), and formatted columns ``ours``, ``paper``, ``Δ`` (``"0.812 ± 0.001"``, ``"+0.004"``).
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
    ours = ours.assign(n=ours["n"] if "n" in ours.columns else np.nan)
    ref = ref.assign(n=ref["n"] if "n" in ref.columns else np.nan)
    merged = pd.merge(
        ours[[*keys, "mean", "sd", "n"]].rename(columns={"mean": "ours_mean", "sd": "ours_sd", "n": "ours_n"}),
        ref[[*keys, "mean", "sd", "n"]].rename(columns={"mean": "paper_mean", "sd": "paper_sd", "n": "paper_n"}),
        on=keys,
        how="outer",
    )
    merged["delta"] = merged["ours_mean"] - merged["paper_mean"]
    merged["se_delta"], merged["p_paper"] = _welch(merged)
    merged["beyond"] = (merged["p_paper"] < AGREEMENT_ALPHA).fillna(False).astype(bool)
    merged = merged.sort_values(
        by=keys,
        key=lambda s: order_key(
            s, {"dataset": DATASET_ORDER, "metric": METRIC_ORDER, "method": TABLE_METHODS.get(table, ())}[s.name]
        ),
        kind="stable",
    ).reset_index(drop=True)
    merged["ours"] = [format_cell(m, s, decimals) for m, s in zip(merged["ours_mean"], merged["ours_sd"])]
    merged["paper"] = [format_cell(m, s, decimals) for m, s in zip(merged["paper_mean"], merged["paper_sd"])]
    merged["Δ"] = [format_delta(d, decimals) for d in merged["delta"]]
    numbers = ["ours_mean", "ours_sd", "ours_n", "paper_mean", "paper_sd", "paper_n", "delta", "se_delta"]
    return merged[[*keys, *numbers, "p_paper", "beyond", "ours", "paper", "Δ"]]


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
    for (d, m), g in comparison.groupby(["dataset", "metric"], sort=False):
        g = g.dropna(subset=[col])
        if g.empty:
            continue
        i = g[col].idxmax() if m in HIGHER_IS_BETTER else g[col].idxmin()
        out.append(((dataset_name(d), metric_name(m)), (method_name(g.at[i, "method"]), side)))
    return out


_PERFORMANCE_COLUMN = "accuracy ↑ / MSE ↓"


def _metric_columns(labels: Sequence[str]) -> dict[str, str]:
    """The column of each metric (display names): accuracy and MSE share one column when both
    occur (no dataset has both), the other metrics have their own."""
    perf = {metric_name("accuracy"), metric_name("mse")}
    both = perf <= set(labels)
    return {m: _PERFORMANCE_COLUMN if both and m in perf else m for m in labels}


def _cell(ours: str, paper: str | None, delta: str | None, bold: bool) -> str:
    """One comparison cell: ours (bold if the best), then the paper's value and Δ on smaller lines
    beneath; each line keeps its number on one line (:data:`NUMBER_CLASS`, ``cffair-sub``)."""
    first = f'<span class="{NUMBER_CLASS}">{html.escape(ours)}</span>'
    first = f"<strong>{first}</strong>" if bold else first
    if paper is None:
        return first
    lines = [f"paper {html.escape(paper)}"] + (
        [f"Δ {html.escape(delta)}"] if delta is not None and delta != "—" else []
    )
    return first + "".join(f'<br><span class="cffair-sub">{line}</span>' for line in lines)


def _cell_at(cells: Mapping[tuple[str, str], str], metric: str, bold: bool) -> str:
    """The :func:`_cell` of one method's ``metric`` from its ``(metric, ours|paper|Δ)`` texts."""
    ours, paper, delta = (cells.get((metric, side)) for side in ("ours", "paper", "Δ"))
    return _cell(cast(str, ours), paper, delta, bold)


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
    columns ``(metric, ours|paper|Δ)``.
    """
    if layout != "cells":
        raise DataError(f"unknown table layout {layout!r}; the book's layout is 'cells'.")
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
        column = _metric_columns(list(dict.fromkeys(met for d, met in wide.index if d in keep)))
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
        return HTMLTable(format_table(render(datasets), caption, escape=False).html, text)
    return HTMLTable(
        "\n".join(format_table(render([d]), f"{caption} — {d}", escape=False).html for d in datasets), text
    )


def delta_summary(comparison: pd.DataFrame, caption: str, *, decimals: int = 3) -> HTMLTable:
    """The Δs of a :func:`compare` frame at a glance: rows ``(dataset, metric)``, one column per
    method (headed "LTN" or "baseline"), each cell Δ = ours − paper, in bold where :func:`compare`
    finds it beyond chance (``beyond``: Welch's t on the two means, their standard error of the
    difference, p < :data:`AGREEMENT_ALPHA`).

    The returned table's ``frame`` holds the cells as text; ``frame.attrs["beyond"]`` the
    ``(row, column)`` labels of the bold cells.
    """
    missing = [c for c in ("dataset", "metric", "method", "delta", "beyond") if c not in comparison.columns]
    if missing:
        raise DataError(f"the comparison lacks column(s) {missing}; build it with compare().")
    comp = comparison.copy()
    comp["far"] = comp["beyond"].astype(bool)
    comp["cell"] = [format_delta(d, decimals) for d in comp["delta"]]

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


def results_table(
    long: pd.DataFrame, caption: str, *, decimals: int = 3, bold: bool = True, layout: str = "rows"
) -> HTMLTable:
    """A long results frame without paper numbers (e.g. the extra baselines), cells ``mean ± sd``,
    the best per dataset and metric in bold.

    Args:
        layout: ``"rows"`` (default): rows ``(dataset, method)``, one column per metric (as
            narrow as the metrics); ``"columns"``: rows ``(dataset, metric)``, one column per method.
    """
    if layout not in ("rows", "columns"):
        raise DataError(f"unknown table layout {layout!r}; use 'rows' or 'columns'.")
    long = check_results(long, "results")
    long = long.assign(cell=[format_cell(m, s, decimals) for m, s in zip(long["mean"], long["sd"])])
    methods = list(dict.fromkeys(long["method"]))
    best = set()
    if bold:
        for (d, m), g in long.groupby(["dataset", "metric"], sort=False):
            i = g["mean"].idxmax() if m in HIGHER_IS_BETTER else g["mean"].idxmin()
            best.add((d, m, g.at[i, "method"]))
    ds_rank = {d: i for i, d in enumerate(DATASET_ORDER)}
    datasets = sorted(dict.fromkeys(long["dataset"]), key=lambda d: ds_rank.get(d, 99))
    metrics = sorted(dict.fromkeys(long["metric"]), key=lambda m: METRIC_ORDER.index(m) if m in METRIC_ORDER else 99)
    cell = {(r.dataset, r.metric, r.method): r.cell for r in long.itertuples()}
    if layout == "columns":
        rows = [(d, m) for d in datasets for m in metrics if any((d, m, x) in cell for x in methods)]
        wide = pd.DataFrame(
            [[cell.get((d, m, x), "—") for x in methods] for d, m in rows],
            index=pd.MultiIndex.from_tuples(
                [(dataset_name(d), metric_name(m)) for d, m in rows], names=["dataset", "metric"]
            ),
            columns=[method_name(x) for x in methods],
        )
        marks = [((dataset_name(d), metric_name(m)), method_name(x)) for d, m, x in best]
        return format_table(wide, caption, bold=marks)
    rows = [(d, x) for d in datasets for x in methods if any((d, m, x) in cell for m in metrics)]
    column = {m: label for m, label in zip(metrics, _metric_columns([metric_name(m) for m in metrics]).values())}
    labels = list(dict.fromkeys(column.values()))
    body = []
    for d, x in rows:
        row = dict.fromkeys(labels, "—")
        for m in metrics:
            if (d, m, x) in cell:
                row[column[m]] = cell[(d, m, x)]
        body.append(row)
    wide = pd.DataFrame(
        body,
        index=pd.MultiIndex.from_tuples(
            [(dataset_name(d), method_name(x)) for d, x in rows], names=["dataset", "method"]
        ),
        columns=labels,
    )
    marks = [((dataset_name(d), method_name(x)), column[m]) for d, m, x in best]
    return format_table(wide, caption, bold=marks)


# ---------------------------------------------------------------------------- any measured table
def tidy_table(
    frame: pd.DataFrame,
    columns: Mapping[str, tuple[str, str]],
    caption: str | None = None,
    *,
    index: Mapping[str, str] | None = None,
    index_name: str | None = None,
) -> HTMLTable:
    """A raw frame (e.g. a benchmark's) as a clean table: only the named columns, each renamed
    to a label with its unit and formatted; rows without any value dropped.

    Args:
        columns: ``raw name → (label, format)``, e.g. ``{"fit_seconds": ("fit (s)", "{:,.1f}")}``,
            in the order to show; a format may be ``""`` for text.
        index: display names of the row labels (others pass through).
        index_name: the heading of the row labels.

    Raises:
        DataError: naming the columns the frame lacks.
    """
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise DataError(f"the table lacks column(s) {missing}; columns present: {list(frame.columns)}.")
    raw = frame[list(columns)].dropna(how="all")
    out = pd.DataFrame(index=[(index or {}).get(str(i), str(i)) for i in raw.index])
    for c, (label, fmt) in columns.items():
        out[label] = [
            "—" if v is None or (not isinstance(v, str) and pd.isna(v)) else (fmt.format(v) if fmt else str(v))
            for v in raw[c]
        ]
    out.index.name = index_name
    return format_table(out, caption)
