"""The book's tables: cells, HTML, results without paper numbers.

:func:`format_table` turns any frame into an HTML table for the book (no jinja2 needed), its
numbers kept on one line; :func:`format_cell` and :func:`format_delta` write one cell;
:func:`results_table` shows a long results frame (:data:`~cffair.reporting.RESULT_COLUMNS`)
without paper numbers, :func:`tidy_table` any measured table. Ours beside the paper's is
:mod:`._comparison`; the chapters' own tables (Tables 3–6: CKE steps, queries, appendices A and B)
are :mod:`._chapter_tables`'.
"""

from __future__ import annotations

import html
import math
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from cffair.errors import DataError
from cffair.reporting._names import (
    DATASET_ORDER,
    HIGHER_IS_BETTER,
    METRIC_ORDER,
    dataset_name,
    method_name,
    metric_name,
)
from cffair.reporting._records import check_results, rankable

__all__ = [
    "CAPTION_CLASS",
    "COMPACT_CLASS",
    "FOLD_CLASS",
    "NUMBER_CLASS",
    "HTMLTable",
    "format_cell",
    "format_delta",
    "format_table",
    "folded",
    "mark_numbers",
    "results_table",
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


def stacked_cell(ours: str, paper: str | None, delta: str | None, bold: bool) -> str:
    """One cell of ours beside the paper's (:func:`cffair.reporting.comparison_table`): ours (bold if the best), then the paper's value and Δ on smaller lines
    beneath; each line keeps its number on one line (:data:`NUMBER_CLASS`, ``cffair-sub``)."""
    first = f'<span class="{NUMBER_CLASS}">{html.escape(ours)}</span>'
    first = f"<strong>{first}</strong>" if bold else first
    if paper is None:
        return first
    lines = [f"paper {html.escape(paper)}"] + (
        [f"Δ {html.escape(delta)}"] if delta is not None and delta != "—" else []
    )
    return first + "".join(f'<br><span class="cffair-sub">{line}</span>' for line in lines)


_PERFORMANCE_COLUMN = "accuracy ↑ / MSE ↓"


def metric_columns(labels: Sequence[str]) -> dict[str, str]:
    """The column of each metric (display names): accuracy and MSE share one column when both
    occur (no dataset has both), the other metrics have their own."""
    perf = {metric_name("accuracy"), metric_name("mse")}
    both = perf <= set(labels)
    return {m: _PERFORMANCE_COLUMN if both and m in perf else m for m in labels}


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
        for (d, m), g in rankable(long).groupby(["dataset", "metric"], sort=False):  # a collapsed model is no best
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
    column = {m: label for m, label in zip(metrics, metric_columns([metric_name(m) for m in metrics]).values())}
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
