"""Tables and figures of the paper, and the paper's published numbers as reference data.

The paper's Tables 1–3 ship with cffair (``cffair/data/paper_tables.csv``, one row per cell:
``table, dataset, metric, method, mean, sd``; Table 3 is a single run and has no ``sd``).
Every cell was checked against the paper's text. :func:`paper_tables` reads them.

Results of a reproduction use the same long format (:data:`RESULT_COLUMNS`), so that
:func:`compare` can put "ours", "paper" and the difference Δ = ours − paper side by side, and
:func:`side_by_side` lays that out like the paper's tables. :func:`format_table` turns any
frame into an HTML table for the book (no jinja2 needed).

Figures (matplotlib; each helper draws on ``ax`` if given and returns the figure):

* :func:`plot_subgroup_cf_mse` — CF-MSE per subgroup for the three axiom settings
  (the paper's Figures 3 and 5).
* :func:`plot_cf_mse_settings` — CF-MSE across the five axiom settings of the COMPAS
  experiments (Figure 4, top).
* :func:`plot_undesirable_ratio` — ratio of undesirable counterfactual explanations per
  sensitive group before and after a CKE axiom (Figure 4, bottom).

:func:`claims_table` renders the book's list of the paper's claims with whether each holds in
the reproduction.
"""

from __future__ import annotations

import html
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from cffair.errors import DataError

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

#: Columns of a long results frame (ours or the paper's).
RESULT_COLUMNS: tuple[str, ...] = ("table", "dataset", "metric", "method", "mean", "sd")

#: Display names of methods and axiom settings (paper notation).
METHOD_NAMES: dict[str, str] = {
    "ltn_acc": "LTN(acc)",
    "ltn_acc_cf": "LTN(acc+CF)",
    "ltn_acc_cf_sg": "LTN(acc+CF_sg)",
    "ltn_acc_cf_cke": "LTN(acc+CF+CKE)",
    "ltn_acc_cf_sg_cke": "LTN(acc+CF_sg+CKE)",
    "cnf": "CNF",
    "gan": "GAN",
    "dcevae": "DCEVAE",
    # Table 3: CKE axioms added one after the other on top of LTN(acc+CF) (Adult, one run).
    "cke_race_male": "+CKE (race, male)",
    "cke_marital_status_male": "+CKE (marital-status, male)",
    "cke_native_country_male": "+CKE (native-country, male)",
    # Cheap counterfactual-fairness baselines a user might pick instead (not in the paper).
    "unaware": "Unaware MLP",
    "kusner_level3": "Kusner level 3",
    "exogenous": "MLP on exogenous noise",
    "pcf_plugin": "Plug-in PCF",
    # keys of the result records (cffair.experiments.BASELINES)
    "level3": "Kusner level 3",
    "pcf": "Plug-in PCF",
    # appendix A: LTN(acc+CF) trained on the GAN's counterfactuals (record method "ltn_acc_cf@gan")
    "ltn_acc_cf@gan": "LTN(acc+CF) on GAN CFs",
    "symmetrised": "Symmetrised features",
    "mlp": "MLP",
}

#: Display names of the datasets.
DATASET_NAMES: dict[str, str] = {
    "adult": "Adult",
    "compas": "COMPAS",
    "compas_age": "COMPAS(age)",
    "lawschool": "Lawschool",
}

#: Display names of the metrics, with the paper's arrows (↑ higher is better, ↓ lower is better).
METRIC_NAMES: dict[str, str] = {
    "accuracy": "accuracy ↑",
    "mse": "MSE ↓",
    "cf_mse": "CF-MSE ↓",
    "cf_mse_worst_subgroup": "CF-MSE (sg) ↓",
}

#: Metrics where a larger value is better (all others: smaller is better).
HIGHER_IS_BETTER: frozenset[str] = frozenset({"accuracy"})

#: The paper's method order in each table.
TABLE_METHODS: dict[str, tuple[str, ...]] = {
    "table1": ("ltn_acc", "ltn_acc_cf", "ltn_acc_cf_sg", "cnf", "gan", "dcevae"),
    "table2": ("ltn_acc", "ltn_acc_cf", "ltn_acc_cf_sg", "ltn_acc_cf_cke", "ltn_acc_cf_sg_cke"),
    "table3": ("ltn_acc", "ltn_acc_cf", "cke_race_male", "cke_marital_status_male", "cke_native_country_male"),
}

#: The three axiom settings of Q1 (Figures 3 and 5) and the five of Figure 4.
Q1_SETTINGS: tuple[str, ...] = ("ltn_acc", "ltn_acc_cf", "ltn_acc_cf_sg")
FIGURE4_SETTINGS: tuple[str, ...] = TABLE_METHODS["table2"]

_DATASET_ORDER = tuple(DATASET_NAMES)
_METRIC_ORDER = ("accuracy", "mse", "cf_mse", "cf_mse_worst_subgroup")

# Abbreviations of the paper's Figure 3 caption.
_SUBGROUP_ABBREVIATIONS = {
    "male": "m",
    "female": "f",
    "asian-pac-islander": "api",
    "amer-indian-eskimo": "aie",
    "american-indian-eskimo": "aie",
}


# ---------------------------------------------------------------------------- names
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


# ---------------------------------------------------------------------------- paper data
def paper_tables() -> pd.DataFrame:
    """The paper's Tables 1–3 as a long frame with columns :data:`RESULT_COLUMNS`.

    ``sd`` is NaN for Table 3 (a single run). Keys: tables ``table1``–``table3``; datasets
    ``adult, compas, compas_age, lawschool``; metrics ``accuracy, mse, cf_mse,
    cf_mse_worst_subgroup``; methods as in :data:`METHOD_NAMES`.
    """
    path = resources.files("cffair") / "data" / "paper_tables.csv"
    with path.open("r", encoding="utf-8") as fh:
        frame = pd.read_csv(fh, dtype={"table": str, "dataset": str, "metric": str, "method": str})
    frame["mean"] = frame["mean"].astype("float64")
    frame["sd"] = frame["sd"].astype("float64")
    return frame[list(RESULT_COLUMNS)]


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


# ---------------------------------------------------------------------------- results frames
def check_results(frame: pd.DataFrame, what: str = "results") -> pd.DataFrame:
    """Validate a long results frame and return a clean copy.

    A results frame has the columns :data:`RESULT_COLUMNS` (``sd`` may be missing: it is then
    NaN) and at most one row per ``(table, dataset, metric, method)``.

    Raises:
        DataError: naming missing columns or duplicated keys.
    """
    frame = frame.copy()
    if "sd" not in frame.columns:
        frame["sd"] = np.nan
    missing = [c for c in RESULT_COLUMNS if c not in frame.columns]
    if missing:
        raise DataError(
            f"{what} lack column(s) {missing}; a results frame has the columns {list(RESULT_COLUMNS)} "
            "(one row per table × dataset × metric × method; aggregate folds with summarise_folds first)."
        )
    keys = ["table", "dataset", "metric", "method"]
    dup = frame.duplicated(keys, keep=False)
    if dup.any():
        first = frame.loc[dup, keys].drop_duplicates().head(3).to_dict("records")
        raise DataError(f"{what} have several rows for the same cell, e.g. {first}; aggregate them first (summarise_folds).")
    out = frame[list(RESULT_COLUMNS)].copy()
    for c in keys:
        out[c] = out[c].astype(str)
    out["mean"] = pd.to_numeric(out["mean"]).astype("float64")
    out["sd"] = pd.to_numeric(out["sd"]).astype("float64")
    return out.reset_index(drop=True)


def summarise_folds(
    records: pd.DataFrame,
    metrics: Sequence[str],
    by: Sequence[str] = ("dataset", "method"),
    table: str | None = None,
    ddof: int = 1,
) -> pd.DataFrame:
    """Aggregate per-fold records (one row per fold, one column per metric) into a long results frame.

    Args:
        records: one row per run, with the ``by`` columns and one column per metric.
        metrics: the metric columns to aggregate.
        by: the columns that identify a cell besides the metric (``table`` is taken from
            ``records`` if it is one of them, else from ``table``).
        table: the table key to put in every row when ``records`` has no ``table`` column.
        ddof: delta degrees of freedom of the standard deviation (1: sample sd; the paper does
            not say which it used).

    Returns:
        A frame with the columns :data:`RESULT_COLUMNS`; ``sd`` is NaN for a single run.
    """
    by = list(by)
    missing = [c for c in [*by, *metrics] if c not in records.columns]
    if missing:
        raise DataError(f"records lack column(s) {missing}; columns present: {list(records.columns)}.")
    long = records.melt(id_vars=by, value_vars=list(metrics), var_name="metric", value_name="value")
    grouped = long.groupby([*by, "metric"], sort=False)["value"]
    out = grouped.agg(mean="mean", n="count").reset_index()
    out["sd"] = grouped.std(ddof=ddof).to_numpy()
    out.loc[out["n"] <= ddof, "sd"] = np.nan
    if "table" not in out.columns:
        if table is None:
            raise DataError("records have no 'table' column; pass table='table1' (or the table they belong to).")
        out["table"] = table
    return check_results(out[list(RESULT_COLUMNS)], "summarised records")


# ---------------------------------------------------------------------------- formatting
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


def _order_key(values: pd.Series, order: Sequence[str]) -> pd.Series:
    rank = {k: i for i, k in enumerate(order)}
    return values.map(lambda v: rank.get(v, len(rank)))


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
        key=lambda s: _order_key(s, {"dataset": _DATASET_ORDER, "metric": _METRIC_ORDER,
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
        cap_style = f' style="{_CAPTION_STYLE}"' if compact else ""
        table_html = table_html.replace(">", f">\n  <caption{cap_style}>{html.escape(caption)}</caption>", 1)
    return HTMLTable(table_html, frame)


_COMPACT_STYLE = "font-size: 0.85em; white-space: nowrap;"
_CAPTION_STYLE = "white-space: normal; text-align: left; max-width: 42rem;"


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


# ---------------------------------------------------------------------------- claims
@dataclass(frozen=True)
class Claim:
    """One claim of the paper and whether the reproduction supports it.

    Attributes:
        claim: the claim in one sentence.
        where: where the book shows the evidence: plain text, or ``(text, href)`` for a link
            (relative to the page the table is shown on).
        holds: ``True`` (reproduced), ``False`` (not reproduced), ``None`` (not decided yet).
        note: numbers or caveats.
        key: a short label (``"Q1.2"``) shown in the first column instead of the running number.
        source: where the paper makes the claim (``"Table 1"``, ``"§7.3"``); a column of its
            own when any claim has one.
    """

    claim: str
    where: str | tuple[str, str] = ""
    holds: bool | None = None
    note: str = ""
    key: str = ""
    source: str = ""


_STATUS = {True: ("✔ holds", "cffair-holds"), False: ("✘ does not hold", "cffair-fails"), None: ("pending", "cffair-pending")}


def claim_status(holds: bool | None) -> str:
    """``"✔ holds"``, ``"✘ does not hold"`` or ``"pending"``."""
    return _STATUS[holds][0]


def claims_table(claims: Iterable[Claim | Mapping[str, Any]], caption: str | None = None) -> HTMLTable:
    """Render claims as an HTML table with columns claim, where shown, status, note.

    Each claim is a :class:`Claim` or a mapping with its fields (``claim``, ``where``,
    ``holds``, ``note``). ``where`` given as ``(text, href)`` becomes a link.
    """
    records = [c if isinstance(c, Claim) else Claim(**dict(c)) for c in claims]
    with_source = any(c.source for c in records)
    rows = []
    for i, c in enumerate(records, start=1):
        if c.holds not in (True, False, None):
            raise DataError(f"claim {i} has holds={c.holds!r}; use True, False or None (not decided).")
        if isinstance(c.where, tuple):
            text, href = c.where
            where = f'<a href="{html.escape(href, quote=True)}">{html.escape(text)}</a>'
        else:
            where = html.escape(c.where)
        label, css = _STATUS[c.holds]
        rows.append(
            "  <tr>"
            f"<td>{html.escape(c.key) if c.key else i}</td><td>{html.escape(c.claim)}</td>"
            + (f"<td>{html.escape(c.source)}</td>" if with_source else "")
            + f"<td>{where}</td>"
            f'<td class="{css}" style="white-space: nowrap;">{label}</td><td>{html.escape(c.note)}</td>'
            "</tr>"
        )
    cap = f'  <caption style="{_CAPTION_STYLE}">{html.escape(caption)}</caption>\n' if caption else ""
    table_html = (
        '<table class="cffair-table cffair-claims table" style="font-size: 0.85em;">\n'
        + cap
        + "  <thead><tr><th>#</th><th>claim</th>"
        + ("<th>in the paper</th>" if with_source else "")
        + "<th>where shown</th><th>status</th><th>note</th></tr></thead>\n"
        + "  <tbody>\n"
        + "\n".join(rows)
        + "\n  </tbody>\n</table>"
    )
    frame = pd.DataFrame(
        [{"claim": c.claim, "where": c.where if isinstance(c.where, str) else c.where[0], "status": claim_status(c.holds), "note": c.note}
         for c in records]
    )
    return HTMLTable(table_html, frame)


# ---------------------------------------------------------------------------- figures
def _axes(ax: Axes | None, figsize: tuple[float, float]) -> tuple[Figure, Axes]:
    import matplotlib.pyplot as plt

    if ax is None:
        fig, ax = plt.subplots(figsize=figsize, layout="constrained")
        return fig, ax
    return ax.figure, ax


def _mean_sd(df: pd.DataFrame, by: list[str], value: str, sd: str | None) -> pd.DataFrame:
    """Mean and sd per group: an ``sd`` column is used as given (one row per group); several
    rows per group (e.g. folds) are averaged and their sample sd taken."""
    missing = [c for c in [*by, value] if c not in df.columns]
    if missing:
        raise DataError(f"the plot data lacks column(s) {missing}; columns present: {list(df.columns)}.")
    g = df.groupby(by, sort=False)[value]
    out = g.agg(mean="mean", n="count").reset_index()
    if sd is not None and sd in df.columns and (out["n"] == 1).all():
        out["sd"] = df.groupby(by, sort=False)[sd].first().to_numpy()
    else:
        out["sd"] = g.std(ddof=1).to_numpy()
    return out


def plot_subgroup_cf_mse(
    df_by_subgroup: pd.DataFrame,
    settings: Sequence[str] = Q1_SETTINGS,
    *,
    value: str = "cf_mse",
    subgroup: str = "subgroup",
    method: str = "method",
    sd: str | None = "sd",
    subgroup_order: Sequence[str] | None = None,
    abbreviate: bool = True,
    title: str | None = None,
    ax: Axes | None = None,
) -> Figure:
    """Bar chart of CF-MSE per subgroup, one bar per axiom setting (the paper's Figures 3 and 5).

    Args:
        df_by_subgroup: columns ``subgroup``, ``method`` and ``cf_mse`` (names adjustable);
            either one row per subgroup × setting with an optional ``sd`` column, or one row
            per fold (then the bars show the mean and the error bars the sample sd).
        settings: the settings to draw, in order (default LTN(acc), LTN(acc+CF), LTN(acc+CF_sg)).
        subgroup_order: the subgroups in order (default: largest CF-MSE of the first setting first).
        abbreviate: shorten labels as in the paper (male → m, asian-pac-islander → api).
    """
    stats = _mean_sd(df_by_subgroup, [subgroup, method], value, sd)
    stats = stats[stats[method].isin(settings)]
    absent = [s for s in settings if s not in set(stats[method])]
    if absent:
        raise DataError(f"no rows for setting(s) {absent}; settings present: {sorted(set(df_by_subgroup[method]))}.")
    if subgroup_order is None:
        first = stats[stats[method] == settings[0]].sort_values("mean", ascending=False)
        subgroup_order = list(dict.fromkeys([*first[subgroup], *stats[subgroup]]))
    fig, ax = _axes(ax, (max(6.0, 0.75 * len(subgroup_order) + 2), 3.8))
    x = np.arange(len(subgroup_order))
    width = 0.8 / len(settings)
    colours = _setting_colours(settings)
    for k, s in enumerate(settings):
        part = stats[stats[method] == s].set_index(subgroup).reindex(subgroup_order)
        err = part["sd"].to_numpy(dtype=float)
        ax.bar(
            x + (k - (len(settings) - 1) / 2) * width,
            part["mean"].to_numpy(dtype=float),
            width,
            yerr=None if np.all(np.isnan(err)) else np.nan_to_num(err),
            capsize=2,
            label=method_name(s),
            color=colours[k],
            edgecolor="white",
            linewidth=0.5,
        )
    labels = [abbreviate_subgroup(g) if abbreviate else str(g) for g in subgroup_order]
    ax.set_xticks(x, labels, rotation=30 if len(labels) > 6 else 0, ha="right" if len(labels) > 6 else "center")
    ax.set_ylabel("CF-MSE (lower is better)")
    ax.set_xlabel("subgroup")
    ax.set_ylim(bottom=0)
    ax.legend(frameon=False, ncols=min(len(settings), 3))
    ax.grid(axis="y", alpha=0.3)
    ax.set_axisbelow(True)
    if title:
        ax.set_title(title)
    return fig


def plot_cf_mse_settings(
    df: pd.DataFrame,
    settings: Sequence[str] = FIGURE4_SETTINGS,
    *,
    value: str = "cf_mse",
    method: str = "method",
    group: str | None = "subgroup",
    sd: str | None = "sd",
    title: str | None = None,
    ax: Axes | None = None,
) -> Figure:
    """CF-MSE across axiom settings, one line per (sensitive) group (the paper's Figure 4, top).

    Args:
        df: columns ``method`` and ``cf_mse``, and optionally ``subgroup`` (one line each;
            without it a single "overall" line); one row per group × setting (with an
            optional ``sd``) or one per fold.
        settings: the x axis, in order (default: the five settings of Table 2).
    """
    df = df.copy()
    if group is None or group not in df.columns:
        group = "_group"
        df[group] = "overall"
    stats = _mean_sd(df, [group, method], value, sd)
    stats = stats[stats[method].isin(settings)]
    absent = [s for s in settings if s not in set(stats[method])]
    if absent:
        raise DataError(f"no rows for setting(s) {absent}; settings present: {sorted(set(df[method]))}.")
    fig, ax = _axes(ax, (max(5.5, 1.2 * len(settings) + 1), 3.6))
    x = np.arange(len(settings))
    for g in dict.fromkeys(stats[group]):
        part = stats[stats[group] == g].set_index(method).reindex(list(settings))
        mean = part["mean"].to_numpy(dtype=float)
        err = part["sd"].to_numpy(dtype=float)
        line = ax.plot(x, mean, marker="o", label=str(g))[0]
        if not np.all(np.isnan(err)):
            ax.fill_between(x, mean - np.nan_to_num(err), mean + np.nan_to_num(err), color=line.get_color(), alpha=0.15, linewidth=0)
    ax.set_xticks(x, [method_name(s) for s in settings], rotation=20, ha="right")
    ax.set_ylabel("CF-MSE (lower is better)")
    ax.set_ylim(bottom=0)
    ax.grid(alpha=0.3)
    ax.set_axisbelow(True)
    if stats[group].nunique() > 1 or group != "_group":
        ax.legend(frameon=False, title=None if group == "_group" else group)
    if title:
        ax.set_title(title)
    return fig


def plot_undesirable_ratio(
    df: pd.DataFrame,
    *,
    feature: str = "feature",
    group: str = "group",
    stage: str = "stage",
    value: str = "ratio",
    stages: Sequence[str] = ("before", "after"),
    threshold: float | None = None,
    title: str | None = None,
    ax: Axes | None = None,
) -> Figure:
    """Ratio of undesirable counterfactual explanations per immutable feature, for each
    sensitive group, before and after a CKE axiom (the paper's Figure 4, bottom).

    Args:
        df: columns ``feature`` (the immutable feature an explanation changes), ``group``
            (the sensitive group), ``stage`` (``"before"``/``"after"`` the CKE axiom) and
            ``ratio`` (share of negatively predicted points of the group with such an
            explanation); several rows per cell (folds) are averaged.
        threshold: draw the imbalance threshold (0.1 for COMPAS in the paper) as a reference.
    """
    missing = [c for c in (feature, group, stage, value) if c not in df.columns]
    if missing:
        raise DataError(f"the plot data lacks column(s) {missing}; columns present: {list(df.columns)}.")
    stats = df.groupby([feature, group, stage], sort=False)[value].mean().reset_index()
    features = list(dict.fromkeys(stats[feature]))
    groups = list(dict.fromkeys(stats[group]))
    stages = [s for s in stages if s in set(stats[stage])] + [s for s in dict.fromkeys(stats[stage]) if s not in stages]
    combos = [(g, s) for g in groups for s in stages]
    fig, ax = _axes(ax, (max(5.5, 1.3 * len(features) + 2), 3.6))
    x = np.arange(len(features))
    width = 0.8 / max(1, len(combos))
    import matplotlib.pyplot as plt

    palette = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for k, (g, s) in enumerate(combos):
        part = stats[(stats[group] == g) & (stats[stage] == s)].set_index(feature).reindex(features)
        later = stages.index(s) > 0
        ax.bar(
            x + (k - (len(combos) - 1) / 2) * width,
            part[value].to_numpy(dtype=float),
            width,
            label=f"{g} ({s})",
            color=palette[groups.index(g) % len(palette)],
            alpha=0.55 if not later else 1.0,
            hatch="//" if not later else None,
            edgecolor="white",
            linewidth=0.5,
        )
    if threshold is not None:
        ax.axhline(threshold, color="grey", linestyle="--", linewidth=1, label=f"threshold {threshold:g}")
    top = float(np.nanmax([stats[value].max(), threshold or 0.0]))
    if np.isfinite(top) and top > 0:
        ax.set_ylim(top=top * 1.35)  # room for the legend above the bars
    ax.set_xticks(x, features, rotation=20 if len(features) > 4 else 0, ha="right" if len(features) > 4 else "center")
    ax.set_ylabel("ratio of undesirable explanations")
    ax.set_xlabel("immutable feature changed by the explanation")
    ax.set_ylim(bottom=0)
    ax.legend(frameon=False, ncols=2, fontsize="small")
    ax.grid(axis="y", alpha=0.3)
    ax.set_axisbelow(True)
    if title:
        ax.set_title(title)
    return fig


def _setting_colours(settings: Sequence[str]) -> list[str]:
    """Stable colours per setting, so a setting has the same colour in every figure."""
    import matplotlib.pyplot as plt

    palette = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    fixed = {s: palette[i % len(palette)] for i, s in enumerate((*FIGURE4_SETTINGS, "cnf", "gan", "dcevae"))}
    unused = [c for c in palette if c not in fixed.values()]
    extra = iter(unused + ["black", "dimgray", "darkgoldenrod", "teal"] + palette)
    return [fixed.get(s) or next(extra) for s in settings]


# ============================================================================ result records
# A result record (cffair.pipeline) is one dataset × fold × setting; the helpers below turn a
# list of records into the long frames of the tables above and the data of the figures.

#: Settings of the extra, cheap baselines (not in the paper); shown without paper numbers.
EXTRA_BASELINES: tuple[str, ...] = ("unaware", "level3", "pcf")
_PERFORMANCE = {"binary": "accuracy", "score": "mse"}
_SCALAR_METRICS = ("accuracy", "mse", "cf_mse", "cf_mse_worst_subgroup")

#: Table 4 of the paper: satisfaction of equation (2) per queried subgroup (Adult, one example each).
TABLE4_PAPER_SAT: dict[str, float] = {
    "Male, White": 0.217,
    "Male, Black": 0.262,
    "Female, White": 0.270,
    "Female, Asian-Pac-Islander": 0.366,
}
#: The feature columns the paper's Table 4 shows (its "ed." is the education level).
TABLE4_COLUMNS: tuple[str, ...] = (
    "age", "workclass", "education", "marital-status", "occupation", "relationship", "hours-per-week", "native-country",
)


def record_method(record: Mapping[str, Any]) -> str:
    """The method key of a record: its setting, with ``@gan`` when trained on the GAN's counterfactuals."""
    cfg = record["config"]
    src = cfg.get("cf_source", "cnf")
    return cfg["setting"] + (f"@{src}" if src != "cnf" else "")


def performance_metric(dataset: str) -> str:
    """``accuracy`` for the binary datasets, ``mse`` for Lawschool (its target is a score)."""
    return "mse" if dataset == "lawschool" else "accuracy"


def records_frame(records: Iterable[Mapping[str, Any]], *, own_counterfactuals: bool = False) -> pd.DataFrame:
    """One row per record: ``dataset, fold, setting, method, cf_source, tag, w_acc, w_cf, w_cf_sg,
    w_cke`` and the scalar metrics (``accuracy``/``mse``, ``cf_mse``, ``cf_mse_worst_subgroup``,
    ``worst_subgroup``, ``n_pairs``).

    Args:
        own_counterfactuals: take the metrics evaluated on the GAN's own counterfactual test
            pairs (``metrics_own_counterfactuals``, appendix A) instead of the CNF ones; records
            without them are left out.
    """
    rows = []
    for rec in records:
        cfg = rec["config"]
        metrics = rec.get("metrics_own_counterfactuals") if own_counterfactuals else rec.get("metrics")
        if metrics is None:
            continue
        row: dict[str, Any] = {
            "dataset": cfg["dataset"], "fold": int(cfg["fold"]), "setting": cfg["setting"], "method": record_method(rec),
            "cf_source": cfg.get("cf_source", "cnf"), "tag": cfg.get("tag", "") or "",
        }
        for k, v in (cfg.get("weights") or {}).items():
            row[f"w_{k}"] = float(v)
        for k in (*_SCALAR_METRICS, "worst_subgroup", "n_pairs"):
            row[k] = metrics.get(k, np.nan)
        rows.append(row)
    cols = ["dataset", "fold", "setting", "method", "cf_source", "tag", "w_acc", "w_cf", "w_cf_sg", "w_cke", *_SCALAR_METRICS, "worst_subgroup", "n_pairs"]
    frame = pd.DataFrame(rows)
    for c in cols:
        if c not in frame.columns:
            frame[c] = np.nan
    return frame[cols + [c for c in frame.columns if c not in cols]]


def _select(frame: pd.DataFrame, methods: Sequence[str] | None = None, datasets: Sequence[str] | None = None,
            tagged: bool = False) -> pd.DataFrame:
    out = frame
    if not tagged:
        out = out[out["tag"].fillna("") == ""]
    if methods is not None:
        out = out[out["method"].isin(methods)]
    if datasets is not None:
        out = out[out["dataset"].isin(datasets)]
    return out


def results_long(
    records: Iterable[Mapping[str, Any]],
    table: str = "table1",
    methods: Sequence[str] | None = None,
    datasets: Sequence[str] | None = None,
    *,
    own_counterfactuals: bool = False,
) -> pd.DataFrame:
    """Our records aggregated over folds into a long results frame (:data:`RESULT_COLUMNS`).

    ``methods`` defaults to the paper's methods of ``table`` (:data:`TABLE_METHODS`); weight-grid
    records (those with a ``tag``) are left out. Each dataset gets its performance metric
    (accuracy or MSE), CF-MSE and worst-subgroup CF-MSE; ``sd`` is the sample sd over folds
    (NaN for a single fold).
    """
    methods = list(methods if methods is not None else TABLE_METHODS.get(table, ()))
    frame = _select(records_frame(records, own_counterfactuals=own_counterfactuals), methods, datasets)
    if frame.empty:
        return pd.DataFrame(columns=list(RESULT_COLUMNS))
    metrics = [m for m in _SCALAR_METRICS if frame[m].notna().any()]
    long = summarise_folds(frame, metrics, by=("dataset", "method"), table=table).dropna(subset=["mean"])
    order = {m: i for i, m in enumerate(methods)}
    long = long.sort_values(["dataset", "metric", "method"], kind="stable",
                            key=lambda c: c.map(order) if c.name == "method" else _order_key(c, _DATASET_ORDER if c.name == "dataset" else _METRIC_ORDER))
    return long.reset_index(drop=True)


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
    rows = sorted(wide.index, key=lambda r: (_DATASET_ORDER.index(r[0]) if r[0] in _DATASET_ORDER else 99,
                                             _METRIC_ORDER.index(r[1]) if r[1] in _METRIC_ORDER else 99))
    wide = wide.reindex(index=rows, columns=methods).fillna("—")
    cells = []
    if bold:
        for (d, m), g in long.groupby(["dataset", "metric"], sort=False):
            i = g["mean"].idxmax() if m in HIGHER_IS_BETTER else g["mean"].idxmin()
            cells.append(((dataset_name(d), metric_name(m)), method_name(g.at[i, "method"])))
    wide.index = pd.MultiIndex.from_tuples([(dataset_name(d), metric_name(m)) for d, m in wide.index], names=["dataset", "metric"])
    wide.columns = [method_name(m) for m in wide.columns]
    return format_table(wide, caption, bold=cells)


def subgroup_frame(records: Iterable[Mapping[str, Any]], settings: Sequence[str] = Q1_SETTINGS,
                   dataset: str | None = None) -> pd.DataFrame:
    """CF-MSE per subgroup, one row per record × subgroup: ``dataset, fold, method, subgroup,
    cf_mse`` (the data of Figures 3–5; CNF counterfactuals, no weight-grid records)."""
    rows = []
    for rec in records:
        cfg = rec["config"]
        if cfg.get("tag") or cfg.get("cf_source", "cnf") != "cnf" or cfg["setting"] not in settings:
            continue
        if dataset is not None and cfg["dataset"] != dataset:
            continue
        for sg, v in (rec["metrics"].get("cf_mse_by_subgroup") or {}).items():
            rows.append({"dataset": cfg["dataset"], "fold": int(cfg["fold"]), "method": cfg["setting"], "subgroup": sg, "cf_mse": float(v)})
    return pd.DataFrame(rows, columns=["dataset", "fold", "method", "subgroup", "cf_mse"])


def _find(records: Iterable[Mapping[str, Any]], dataset: str, setting: str, fold: int | None = None,
          cf_source: str = "cnf", tag: str = "") -> Mapping[str, Any] | None:
    found = [r for r in records
             if r["config"]["dataset"] == dataset and r["config"]["setting"] == setting
             and r["config"].get("cf_source", "cnf") == cf_source and (r["config"].get("tag") or "") == tag
             and (fold is None or int(r["config"]["fold"]) == fold)]
    return min(found, key=lambda r: int(r["config"]["fold"])) if found else None


def plot_tradeoff(frame: pd.DataFrame, methods: Sequence[str] | None = None, *, title: str | None = None) -> Figure:
    """Performance against CF-MSE, one panel per dataset, one point per method (mean over folds,
    error bars the sample sd): the accuracy–fairness trade-off of Table 1 at a glance.

    Args:
        frame: :func:`records_frame` of the records (weight-grid records are left out).
        methods: the methods to draw, in order (default: every method in ``frame``).
    """
    import matplotlib.pyplot as plt

    frame = _select(frame, methods)
    datasets = [d for d in _DATASET_ORDER if d in set(frame["dataset"])]
    if not datasets:
        raise DataError("no records to plot.")
    methods = list(methods) if methods is not None else list(dict.fromkeys(frame["method"]))
    colours = dict(zip(methods, _setting_colours(methods)))
    markers = {m: ("o" if m.startswith("ltn") else "s") for m in methods}
    fig, axes = plt.subplots(1, len(datasets), figsize=(3.3 * len(datasets) + 1.8, 3.6), layout="constrained", squeeze=False)
    for ax, d in zip(axes[0], datasets):
        perf = performance_metric(d)
        g = frame[frame["dataset"] == d]
        for m in methods:
            part = g[g["method"] == m]
            if part.empty:
                continue
            x, y = part["cf_mse"].astype(float), part[perf].astype(float)
            ax.errorbar(x.mean(), y.mean(), xerr=x.std(ddof=1) if len(part) > 1 else None, yerr=y.std(ddof=1) if len(part) > 1 else None,
                        marker=markers[m], color=colours[m], markersize=7, capsize=2, linestyle="none", label=method_name(m))
        ax.set_title(dataset_name(d))
        ax.set_xlabel("CF-MSE ↓")
        ax.set_ylabel(metric_name(perf))
        ax.grid(alpha=0.3)
        ax.set_axisbelow(True)
    handles, labels = axes[0][0].get_legend_handles_labels()
    for ax in axes[0][1:]:
        for h, l in zip(*ax.get_legend_handles_labels()):
            if l not in labels:
                handles.append(h)
                labels.append(l)
    fig.legend(handles, labels, loc="outside right center", frameon=False, fontsize="small")
    if title:
        fig.suptitle(title)
    return fig


# ---------------------------------------------------------------------------- Table 3 and CKE
def _axiom_label(name: str) -> str:
    """``"A5[Male, race]"`` → ``"(race, male)"`` (the paper's notation in Table 3)."""
    if name.startswith("A5[") and name.endswith("]"):
        group, _, feature = name[3:-1].rpartition(", ")
        return f"({feature}, {group.lower()})"
    return name


_PAPER_TABLE3_AXIOMS = {"cke_race_male": "(race, male)", "cke_marital_status_male": "(marital-status, male)",
                        "cke_native_country_male": "(native-country, male)"}


def table3_comparison(records: Sequence[Mapping[str, Any]], dataset: str = "adult", fold: int = 0,
                      decimals: int = 3) -> pd.DataFrame:
    """Table 3: the CKE steps of one run (``ltn_acc_cf_cke`` of ``dataset``/``fold``) next to the paper's.

    Rows are ``(stage, ours|paper|Δ)``: the stages are LTN(acc), LTN(acc+CF), then one per added
    A5 axiom (ours may differ from the paper's, so the ``axiom`` column names both, and the k-th
    of ours is compared with the paper's k-th); the other columns are the metrics.

    Raises:
        DataError: if the records lack the CKE run.
    """
    cke_rec = _find(records, dataset, "ltn_acc_cf_cke", fold)
    if cke_rec is None or "cke" not in cke_rec:
        raise DataError(f"no ltn_acc_cf_cke record with CKE steps for {dataset} fold {fold}; run the q3 group.")
    perf = performance_metric(dataset)
    metrics = [perf, "cf_mse", "cf_mse_worst_subgroup"]
    paper = paper_tables()
    paper = paper[(paper.table == "table3") & (paper.dataset == dataset)]
    pval = {(r.method, r.metric): r.mean for r in paper.itertuples()}
    stages: list[tuple[str, str, str, Mapping[str, Any] | None, str]] = []
    for setting in ("ltn_acc", "ltn_acc_cf"):
        rec = _find(records, dataset, setting, fold)
        stages.append((method_name(setting), "—", "—", rec["metrics"] if rec else None, setting))
    paper_cke = [m for m in TABLE_METHODS["table3"] if m.startswith("cke_")]
    steps = [s for s in cke_rec["cke"]["steps"] if int(s["step"]) > 0]
    for k in range(max(len(steps), len(paper_cke))):
        ours = steps[k] if k < len(steps) else None
        pkey = paper_cke[k] if k < len(paper_cke) else ""
        stages.append((f"+ CKE axiom {k + 1}", _axiom_label(ours["axiom"]) if ours else "—",
                       _PAPER_TABLE3_AXIOMS.get(pkey, "—"), ours, pkey))
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


def cke_candidates(records: Iterable[Mapping[str, Any]], settings: Sequence[str] = ("ltn_acc_cf_cke", "ltn_acc_cf_sg_cke")) -> pd.DataFrame:
    """Every imbalance found by knowledge extraction: ``dataset, setting, fold, group, feature,
    frequency, imbalance, threshold, candidate`` (at or above the threshold, so an A5 axiom was
    added), and ``imbalance_after`` (the same pair's imbalance once the CKE axioms are trained)."""
    rows = []
    for rec in records:
        cfg = rec["config"]
        if cfg["setting"] not in settings or "cke" not in rec or cfg.get("tag"):
            continue
        c = rec["cke"]
        after = {(r["group"], r["feature"]): r["imbalance"] for r in c.get("imbalances_after", [])}
        for r in c.get("imbalances_before", []):
            if r["imbalance"] <= 0:
                continue  # the other side of a pair: the group with the smaller frequency
            rows.append({
                "dataset": cfg["dataset"], "setting": cfg["setting"], "fold": int(cfg["fold"]),
                "group": r["group"], "feature": r["feature"], "frequency": float(r["frequency"]),
                "imbalance": float(r["imbalance"]), "threshold": float(c["threshold"]),
                "candidate": bool(r["imbalance"] >= c["threshold"]),
                "imbalance_after": float(after.get((r["group"], r["feature"]), np.nan)),
            })
    cols = ["dataset", "setting", "fold", "group", "feature", "frequency", "imbalance", "threshold", "candidate", "imbalance_after"]
    return pd.DataFrame(rows, columns=cols)


def undesirable_ratio_frame(records: Iterable[Mapping[str, Any]], dataset: str, setting: str = "ltn_acc_cf_cke") -> pd.DataFrame:
    """The data of Figure 4 (bottom): for each immutable feature and sensitive group, the share of
    the group's negatively predicted training rows with a counterfactual explanation on that
    feature, ``before`` and ``after`` the CKE axioms (columns ``fold, feature, group, stage, ratio``)."""
    rows = []
    for rec in records:
        cfg = rec["config"]
        if cfg["dataset"] != dataset or cfg["setting"] != setting or "cke" not in rec or cfg.get("tag"):
            continue
        for stage in ("before", "after"):
            for r in rec["cke"].get(f"imbalances_{stage}", []):
                rows.append({"fold": int(cfg["fold"]), "feature": r["feature"], "group": r["group"], "stage": stage, "ratio": float(r["frequency"])})
    return pd.DataFrame(rows, columns=["fold", "feature", "group", "stage", "ratio"])


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
    rows = sorted(wide.index, key=lambda r: (_DATASET_ORDER.index(r[0]) if r[0] in _DATASET_ORDER else 99, _METRIC_ORDER.index(r[1])))
    cols = [(m, s) for m in methods for s in ("GAN's CFs", "CNF's CFs") if (m, s) in wide.columns]
    wide = wide.reindex(index=rows, columns=cols).fillna("—")
    wide.index = pd.MultiIndex.from_tuples([(dataset_name(d), metric_name(m)) for d, m in wide.index], names=["dataset", "metric"])
    wide.columns = pd.MultiIndex.from_tuples([(method_name(m), s) for m, s in wide.columns], names=["method", "evaluated on"])
    return wide


# ---------------------------------------------------------------------------- Table 6 (appendix B)
def weight_grid_frame(records: Iterable[Mapping[str, Any]]) -> pd.DataFrame:
    """The LTN(acc+CF) runs of the appendix-B weight grid plus the equal-weights run, one row per
    record: ``dataset, fold, w_acc, w_cf, log2_ratio`` (log₂ of acc weight / CF weight) and metrics."""
    frame = records_frame(records)
    frame = frame[(frame["setting"] == "ltn_acc_cf") & (frame["cf_source"] == "cnf")]
    frame = frame[(frame["tag"] == "") | frame["tag"].str.startswith("w")].copy()
    frame["log2_ratio"] = np.log2(frame["w_acc"].astype(float) / frame["w_cf"].astype(float))
    return frame.sort_values(["dataset", "log2_ratio", "fold"]).reset_index(drop=True)


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
        cell["_order"] = (_DATASET_ORDER.index(d) if d in _DATASET_ORDER else 99, -float(np.log2(wa / wc)))
        rows.append(cell)
    out = pd.DataFrame(rows).sort_values("_order").drop(columns="_order")
    return out.set_index(["dataset", "weights acc : CF"])


def plot_weight_trend(grid: pd.DataFrame, *, title: str | None = None) -> Figure:
    """Appendix B: accuracy (or MSE) and CF-MSE against log₂(accuracy weight / CF weight), one
    column per dataset (mean over folds, error bars the sample sd). Data: :func:`weight_grid_frame`."""
    import matplotlib.pyplot as plt

    datasets = [d for d in _DATASET_ORDER if d in set(grid["dataset"])] + sorted(set(grid["dataset"]) - set(_DATASET_ORDER))
    if not datasets:
        raise DataError("the weight grid is empty.")
    fig, axes = plt.subplots(2, len(datasets), figsize=(3.1 * len(datasets) + 0.6, 5.2), layout="constrained", squeeze=False, sharex=True)
    for j, d in enumerate(datasets):
        g = grid[grid["dataset"] == d]
        perf = performance_metric(d)
        for i, met in enumerate((perf, "cf_mse")):
            st = g.groupby("log2_ratio")[met].agg(["mean", "std", "count"]).reset_index()
            err = st["std"].where(st["count"] > 1)
            ax = axes[i, j]
            ax.errorbar(st["log2_ratio"], st["mean"], yerr=None if err.isna().all() else err.fillna(0), marker="o", capsize=3,
                        color="C0" if i == 0 else "C3")
            ax.grid(alpha=0.3)
            ax.set_axisbelow(True)
            if i == 0:
                ax.set_title(dataset_name(d))
            ax.set_ylabel(metric_name(met))
            if i == 1:
                ax.set_xlabel("log₂(acc weight / CF weight)")
    if title:
        fig.suptitle(title)
    return fig


# ---------------------------------------------------------------------------- claims
def _mean_by(frame: pd.DataFrame, metric: str) -> dict[tuple[str, str], float]:
    """Mean over folds per (dataset, method)."""
    if frame.empty:
        return {}
    g = frame.groupby(["dataset", "method"])[metric].mean()
    return {k: float(v) for k, v in g.items() if not pd.isna(v)}


def _fmt(v: float) -> str:
    return "—" if v is None or (isinstance(v, float) and math.isnan(v)) else f"{v:.3f}"


def evaluate_claims(records: Sequence[Mapping[str, Any]], base: str = "") -> list[Claim]:
    """Check each qualitative claim of the paper on our records (means over folds).

    Every claim is decided only on the datasets our records cover; a claim whose records are
    missing entirely stays undecided (``holds=None``). ``note`` gives the numbers behind the
    verdict; ``where`` links to the page that shows them (``base`` is the path from the page
    the table is shown on to the book's root, e.g. ``""`` for the intro, ``"../"`` for a notebook).
    """
    recs = list(records)
    frame = records_frame(recs)
    main = _select(frame)  # method keys carry "@gan" for the runs on the GAN's counterfactuals
    cf = _mean_by(main, "cf_mse")
    worst = _mean_by(main, "cf_mse_worst_subgroup")
    acc = _mean_by(main, "accuracy")
    mse = _mean_by(main, "mse")

    def have(*methods: str) -> list[str]:
        return [d for d in _DATASET_ORDER if all((d, m) in cf for m in methods)]

    def perf(d: str, m: str) -> float:
        """Higher is better: accuracy, or −MSE for Lawschool."""
        return acc.get((d, m), np.nan) if performance_metric(d) == "accuracy" else -mse.get((d, m), np.nan)

    def perf_text(d: str, m: str) -> str:
        return _fmt(acc.get((d, m))) if performance_metric(d) == "accuracy" else f"MSE {_fmt(mse.get((d, m)))}"

    def link(key: str, label: str) -> tuple[str, str]:
        from cffair.experiments import NOTEBOOKS

        return (label, f"{base}notebooks/{NOTEBOOKS[key]}.html")

    def verdict(ok: dict[str, bool]) -> bool | None:
        return None if not ok else all(ok.values())

    def dn(ds: Iterable[str]) -> str:
        return ", ".join(dataset_name(d) for d in ds)

    claims: list[Claim] = []

    def add(key: str, text: str, source: str, where: tuple[str, str], holds: bool | None, note: str) -> None:
        if holds is None and not note:
            note = "no records for this claim yet"
        claims.append(Claim(text, where, holds, note, key=key, source=source))

    # ---- Q1
    ds = have("ltn_acc", "ltn_acc_cf")
    ok = {d: cf[(d, "ltn_acc_cf")] < cf[(d, "ltn_acc")] for d in ds}
    add("Q1.1", "Adding the CF axiom (A4) to the accuracy axioms lowers CF-MSE on every dataset.", "Table 1",
        link("q1", "Q1"), verdict(ok), "; ".join(f"{dataset_name(d)} {_fmt(cf[(d, 'ltn_acc')])} → {_fmt(cf[(d, 'ltn_acc_cf')])}" for d in ds))
    ds = have("ltn_acc_cf", "ltn_acc_cf_sg")
    ok = {d: cf[(d, "ltn_acc_cf_sg")] < cf[(d, "ltn_acc_cf")] for d in ds}
    add("Q1.2", "Subgroup CF axioms (A4₁ … A4ₙ) lower the average CF-MSE further than the global CF axiom, on every dataset.",
        "§7.1, Table 1", link("q1", "Q1"), verdict(ok),
        "; ".join(f"{dataset_name(d)} {_fmt(cf[(d, 'ltn_acc_cf')])} → {_fmt(cf[(d, 'ltn_acc_cf_sg')])}" for d in ds))
    ds_w = [d for d in have("ltn_acc_cf", "ltn_acc_cf_sg") if d in ("compas", "lawschool")]
    ok = {d: worst[(d, "ltn_acc_cf_sg")] < worst[(d, "ltn_acc_cf")] for d in ds_w}
    add("Q1.3", "Subgroup CF axioms lower the worst-subgroup CF-MSE compared with the global CF axiom "
        "(the paper's Table 1 shows this on COMPAS and Lawschool, not on Adult or COMPAS(age)).", "Table 1",
        link("q1", "Q1"), verdict(ok),
        "; ".join(f"{dataset_name(d)} {_fmt(worst[(d, 'ltn_acc_cf')])} → {_fmt(worst[(d, 'ltn_acc_cf_sg')])}" for d in have("ltn_acc_cf", "ltn_acc_cf_sg")))
    ds = [d for d in have("ltn_acc_cf", "ltn_acc_cf_sg") if d in ("adult", "compas", "compas_age")]
    ok = {d: perf(d, "ltn_acc_cf_sg") > perf(d, "ltn_acc_cf") for d in ds}
    add("Q1.4", "Subgroup CF axioms give higher accuracy than the global CF axiom on Adult and both COMPAS variants "
        "(the paper's own Table 1 shows a drop on COMPAS, 0.675 → 0.651).", "§7.1, Table 1", link("q1", "Q1"), verdict(ok),
        "; ".join(f"{dataset_name(d)} {perf_text(d, 'ltn_acc_cf')} → {perf_text(d, 'ltn_acc_cf_sg')}" for d in ds))
    # Figure 3: on Adult, A4 helps white males most; subgroup axioms improve most other subgroups further.
    sg = subgroup_frame(recs, Q1_SETTINGS, "adult")
    holds, note = None, ""
    if not sg.empty and set(Q1_SETTINGS) <= set(sg["method"]):
        m = sg.groupby(["subgroup", "method"])["cf_mse"].mean().unstack("method").dropna()
        drop = (m["ltn_acc"] - m["ltn_acc_cf"]).sort_values(ascending=False)
        others = m.drop(index="Male, White", errors="ignore")
        better = int((others["ltn_acc_cf_sg"] < others["ltn_acc_cf"]).sum())
        holds = bool(len(drop) and drop.index[0] == "Male, White" and better > len(others) / 2)
        note = (f"largest drop acc → acc+CF: {drop.index[0]} ({_fmt(drop.iloc[0])}); acc+CF_sg below acc+CF in "
                f"{better} of {len(others)} other subgroups")
    add("Q1.5", "On Adult the CF axiom lowers CF-MSE most for white males (the largest subgroup); the subgroup axioms "
        "improve most of the other subgroups further.", "Figure 3", link("q1", "Q1"), holds, note)
    sg = subgroup_frame(recs, Q1_SETTINGS, "lawschool")
    holds, note = None, ""
    if not sg.empty and set(Q1_SETTINGS) <= set(sg["method"]):
        m = sg.groupby(["subgroup", "method"])["cf_mse"].mean().unstack("method").dropna()
        improved = int((m["ltn_acc_cf"] < m["ltn_acc"]).sum())
        spread = m.max() - m.min()
        holds = bool(improved == len(m) and spread["ltn_acc_cf_sg"] < spread["ltn_acc_cf"])
        note = (f"acc+CF below acc in {improved} of {len(m)} subgroups; spread (max − min) of subgroup CF-MSE: "
                f"acc+CF {_fmt(spread['ltn_acc_cf'])}, acc+CF_sg {_fmt(spread['ltn_acc_cf_sg'])}")
    add("Q1.6", "On Lawschool the CF axiom lowers CF-MSE in every subgroup, and subgroup axioms spread the improvement "
        "more evenly (a smaller max − min over subgroups).", "Figure 5", link("q1", "Q1"), holds, note)

    # ---- Q2
    base_m = ("cnf", "gan", "dcevae")
    ds = have("ltn_acc_cf", *base_m)
    ok = {d: all(cf[(d, "ltn_acc_cf")] < cf[(d, b)] for b in base_m) for d in ds}
    add("Q2.1", "LTN(acc+CF) reaches a lower CF-MSE than CNF, GAN and DCEVAE on every dataset.", "§7.2, Table 1",
        link("q2", "Q2"), verdict(ok),
        "; ".join(f"{dataset_name(d)} LTN {_fmt(cf[(d, 'ltn_acc_cf')])} vs " + "/".join(_fmt(cf[(d, b)]) for b in base_m) for d in ds))
    ds = have("ltn_acc_cf", "ltn_acc_cf_sg", "cnf")
    best_fair = {d: max(perf(d, "ltn_acc_cf"), perf(d, "ltn_acc_cf_sg")) for d in ds}
    ok = {d: (best_fair[d] >= perf(d, "cnf")) if d == "compas" else (best_fair[d] < perf(d, "cnf")) for d in ds}
    add("Q2.2", "Except on COMPAS, the fairness axioms cost accuracy (or MSE) compared with CNF.", "§7.2, Table 1",
        link("q2", "Q2"), verdict(ok),
        "; ".join(f"{dataset_name(d)} best fair LTN {perf_text(d, 'ltn_acc_cf') if perf(d, 'ltn_acc_cf') >= perf(d, 'ltn_acc_cf_sg') else perf_text(d, 'ltn_acc_cf_sg')} vs CNF {perf_text(d, 'cnf')}" for d in ds))
    ds = [d for d in have("ltn_acc_cf", "gan") if d == "compas"]
    ok = {d: perf(d, "gan") > perf(d, "ltn_acc_cf") and cf[(d, "gan")] > cf[(d, "ltn_acc_cf")] and worst[(d, "gan")] > worst[(d, "ltn_acc_cf")] for d in ds}
    add("Q2.3", "The GAN method is more accurate than LTN(acc+CF) on COMPAS but less fair, overall and in the worst subgroup.",
        "§7.2, Table 1", link("q2", "Q2"), verdict(ok),
        "; ".join(f"COMPAS accuracy GAN {_fmt(acc.get((d, 'gan')))} vs LTN {_fmt(acc.get((d, 'ltn_acc_cf')))}, CF-MSE {_fmt(cf[(d, 'gan')])} vs "
                  f"{_fmt(cf[(d, 'ltn_acc_cf')])}, worst {_fmt(worst[(d, 'gan')])} vs {_fmt(worst[(d, 'ltn_acc_cf')])}" for d in ds))
    ds = have("dcevae", "cnf", "ltn_acc_cf")
    ok = {d: cf[(d, "dcevae")] > cf[(d, "cnf")] and cf[(d, "dcevae")] > cf[(d, "ltn_acc_cf")] for d in ds}
    add("Q2.4", "DCEVAE is accurate but far from counterfactually fair: its CF-MSE is above CNF's and LTN(acc+CF)'s on every dataset.",
        "§7.2, Table 1", link("q2", "Q2"), verdict(ok),
        "; ".join(f"{dataset_name(d)} CF-MSE {_fmt(cf[(d, 'dcevae')])} ({perf_text(d, 'dcevae')})" for d in ds))

    # ---- Q3
    cands = cke_candidates(recs)
    compas_c = cands[(cands["dataset"] == "compas") & (cands["setting"] == "ltn_acc_cf_cke")] if not cands.empty else cands
    holds, note = None, ""
    runs = [r for r in recs if r["config"]["dataset"] == "compas" and r["config"]["setting"] == "ltn_acc_cf_cke" and "cke" in r]
    if runs:
        found = compas_c[(compas_c["feature"] == "age") & (compas_c["group"] == "Non-Caucasian") & compas_c["candidate"]]
        below = found["imbalance_after"] < found["threshold"]
        holds = bool(len(found) > len(runs) / 2 and below.all())
        top = compas_c.sort_values("imbalance", ascending=False).head(1)
        note = (f"(Non-Caucasian, age) above the threshold in {len(found)} of {len(runs)} runs"
                + (f", below it after A5 in {int(below.sum())}" if len(found) else "")
                + (f"; largest imbalance {top['group'].iloc[0]}/{top['feature'].iloc[0]} {_fmt(top['imbalance'].iloc[0])}" if len(top) else ""))
    add("Q3.1", "On COMPAS, knowledge extraction finds an imbalance for age in the Black group (ours: Non-Caucasian); after "
        "the A5 axiom the imbalance falls below the threshold (0.1).", "§7.3, Figure 4", link("q3", "Q3"), holds, note)
    add("Q3.2", "Discouraging age widens the imbalance for other features, especially priors count.", "§7.3, Figure 4",
        link("q3", "Q3"), None,
        "not checkable here: age is COMPAS's only immutable feature (§6.1), so no counterfactual explanation "
        "intervenes on priors count")
    ds = [d for d in have("ltn_acc_cf", "ltn_acc_cf_cke", "ltn_acc_cf_sg", "ltn_acc_cf_sg_cke") if d in ("compas", "compas_age")]
    ok = {d: cf[(d, "ltn_acc_cf_cke")] < cf[(d, "ltn_acc_cf")] and cf[(d, "ltn_acc_cf_sg_cke")] < cf[(d, "ltn_acc_cf_sg")] for d in ds}
    add("Q3.3", "On both COMPAS variants the CKE axiom lowers CF-MSE (acc+CF → acc+CF+CKE and acc+CF_sg → acc+CF_sg+CKE).",
        "Table 2", link("q3", "Q3"), verdict(ok),
        "; ".join(f"{dataset_name(d)} {_fmt(cf[(d, 'ltn_acc_cf')])} → {_fmt(cf[(d, 'ltn_acc_cf_cke')])}, "
                  f"{_fmt(cf[(d, 'ltn_acc_cf_sg')])} → {_fmt(cf[(d, 'ltn_acc_cf_sg_cke')])}" for d in ds))
    ok = {d: acc[(d, "ltn_acc_cf_cke")] < acc[(d, "ltn_acc_cf")] and acc[(d, "ltn_acc_cf_sg_cke")] < acc[(d, "ltn_acc_cf_sg")] for d in ds}
    add("Q3.4", "On both COMPAS variants accuracy falls when the CKE axiom is added.", "Table 2", link("q3", "Q3"), verdict(ok),
        "; ".join(f"{dataset_name(d)} {_fmt(acc[(d, 'ltn_acc_cf')])} → {_fmt(acc[(d, 'ltn_acc_cf_cke')])}, "
                  f"{_fmt(acc[(d, 'ltn_acc_cf_sg')])} → {_fmt(acc[(d, 'ltn_acc_cf_sg_cke')])}" for d in ds))
    rec = _find(recs, "adult", "ltn_acc_cf_cke", 0)
    holds, note = None, ""
    if rec is not None and "cke" in rec:
        steps = rec["cke"]["steps"]
        accs = [float(s["accuracy"]) for s in steps]
        cfs = [float(s["cf_mse"]) for s in steps]
        ws = [float(s["cf_mse_worst_subgroup"]) for s in steps]
        if len(steps) < 3:
            holds, note = False, f"only {len(steps) - 1} CKE axiom(s) extracted on Adult fold 0 (the paper adds 3)"
        else:
            stable = max(accs) - min(accs) <= 0.02
            cf_better = min(cfs[1:]) < cfs[0]
            worse_after_first = all(ws[k] > ws[k - 1] for k in range(2, len(ws)))
            holds = bool(stable and cf_better and worse_after_first)
            note = (f"accuracy {min(accs):.3f}–{max(accs):.3f}; CF-MSE {' → '.join(_fmt(v) for v in cfs)}; "
                    f"worst subgroup {' → '.join(_fmt(v) for v in ws)}; axioms: " + ", ".join(_axiom_label(s['axiom']) for s in steps[1:]))
    add("Q3.5", "On Adult (one run), adding CKE axioms one by one keeps accuracy stable (within 0.02) and improves CF-MSE, "
        "but the worst-subgroup CF-MSE worsens with each axiom after the first.", "Table 3", link("q3", "Q3"), holds, note)
    law = [r for r in recs if r["config"]["dataset"] == "lawschool" and r["config"]["setting"] == "ltn_acc_cf_cke" and "cke" in r]
    holds, note = None, ""
    if law:
        n_found = sum(bool(r["cke"]["candidates"]) for r in law)
        holds = n_found == 0
        note = f"candidates after acc+CF in {n_found} of {len(law)} runs (the first half of the claim, after accuracy-only training, is not run)"
    add("Q3.6", "On Lawschool, no undesirable explanation (race) is detected once the CF axiom is trained.", "§7.3",
        link("q3", "Q3"), holds, note)

    # ---- Q4
    rec = _find(recs, "adult", "ltn_acc_cf", 0)
    holds, note = None, ""
    if rec is not None and rec.get("queries"):
        eq2 = rec["queries"].get("eq2", [])
        with_nb = [e["subgroup"] for e in eq2 if e.get("neighbours")]
        holds = len(with_nb) == len(TABLE4_PAPER_SAT)
        note = "; ".join(f"{e['subgroup']}: sat {_fmt(e['sat'])} (paper {_fmt(TABLE4_PAPER_SAT.get(e['subgroup'], np.nan))})" for e in eq2)
    add("Q4.1", "The existence query (equation (2)) finds, for a negatively predicted person in each of four Adult subgroups, "
        "a similar person in the same subgroup with a different decision.", "§7.4, Table 4", link("q4", "Q4"), holds, note)

    # ---- appendix A
    own = records_frame(recs, own_counterfactuals=True)
    own_cf = _mean_by(own, "cf_mse")
    ds = [d for d in _DATASET_ORDER if (d, "gan") in own_cf and (d, "ltn_acc_cf@gan") in own_cf]
    ok = {d: own_cf[(d, "ltn_acc_cf@gan")] < own_cf[(d, "gan")] for d in ds}
    add("A.1", "Trained on the GAN's counterfactuals, LTN(acc+CF) has a lower CF-MSE than the GAN method (on the GAN's own "
        "counterfactuals) on every dataset.", "Appendix A, Table 5", link("appendix_a", "Appendix A"), verdict(ok),
        "; ".join(f"{dataset_name(d)} LTN {_fmt(own_cf[(d, 'ltn_acc_cf@gan')])} vs GAN {_fmt(own_cf[(d, 'gan')])}" for d in ds))
    ds = [d for d in _DATASET_ORDER if (d, "gan") in cf and (d, "ltn_acc_cf@gan") in cf]
    ok = {d: (perf(d, "ltn_acc_cf@gan") < perf(d, "gan")) if d.startswith("compas") else (perf(d, "ltn_acc_cf@gan") > perf(d, "gan")) for d in ds}
    add("A.2", "…and is less accurate than the GAN method on both COMPAS variants but more accurate on Adult and Lawschool.",
        "Appendix A, Table 5", link("appendix_a", "Appendix A"), verdict(ok),
        "; ".join(f"{dataset_name(d)} LTN {perf_text(d, 'ltn_acc_cf@gan')} vs GAN {perf_text(d, 'gan')}" for d in ds))

    # ---- appendix B
    grid = weight_grid_frame(recs)
    holds, note = None, ""
    if not grid.empty and grid["log2_ratio"].nunique() > 2:
        trend, parts = {}, []
        for d, g in grid.groupby("dataset", sort=False):
            m = g.groupby("log2_ratio")[[performance_metric(d), "cf_mse"]].mean()
            if len(m) < 3:
                continue
            p = m[performance_metric(d)] * (1 if performance_metric(d) == "accuracy" else -1)
            r_perf = float(p.corr(pd.Series(m.index, index=m.index), method="spearman"))
            r_cf = float(m["cf_mse"].corr(pd.Series(m.index, index=m.index), method="spearman"))
            trend[d] = r_perf > 0 and r_cf > 0
            parts.append(f"{dataset_name(d)} ρ(performance) {r_perf:+.2f}, ρ(CF-MSE) {r_cf:+.2f}")
        if trend:
            holds = sum(trend.values()) > len(trend) / 2
            note = "Spearman correlation with log₂(acc weight / CF weight): " + "; ".join(parts)
    add("B.1", "Higher weights on the accuracy axioms tend to raise accuracy and lower counterfactual fairness (higher CF-MSE), "
        "but not on every dataset (holds here if both trends appear on most datasets).", "Appendix B, Table 6",
        link("appendix_b", "Appendix B"), holds, note)
    return claims


__all__ = [
    "RESULT_COLUMNS",
    "METHOD_NAMES",
    "DATASET_NAMES",
    "METRIC_NAMES",
    "TABLE_METHODS",
    "Q1_SETTINGS",
    "FIGURE4_SETTINGS",
    "EXTRA_BASELINES",
    "TABLE4_COLUMNS",
    "TABLE4_PAPER_SAT",
    "Claim",
    "HTMLTable",
    "abbreviate_subgroup",
    "best_cells",
    "check_results",
    "claim_status",
    "claims_table",
    "cke_candidates",
    "compare",
    "comparison_table",
    "eq3_table",
    "evaluate_claims",
    "performance_metric",
    "plot_tradeoff",
    "plot_weight_trend",
    "query_sat_table",
    "query_table",
    "record_method",
    "records_frame",
    "results_long",
    "results_table",
    "subgroup_frame",
    "table3_comparison",
    "table5_frame",
    "table6_frame",
    "undesirable_ratio_frame",
    "weight_grid_frame",
    "dataset_name",
    "format_cell",
    "format_delta",
    "format_table",
    "method_name",
    "metric_name",
    "paper_table",
    "paper_tables",
    "paper_value",
    "plot_cf_mse_settings",
    "plot_subgroup_cf_mse",
    "plot_undesirable_ratio",
    "side_by_side",
    "summarise_folds",
]


# ============================================================================ paired folds
def paired_folds(records: Sequence[Mapping[str, Any]], fold0_only: Iterable[tuple[str, str]] | None = None) -> list[Mapping[str, Any]]:
    """Keep, per dataset, only the folds on which every method has a record.

    A comparison of means is only paired if all methods average the same folds. An interrupted
    full run (see the Reproducing page) leaves some folds with only some methods; this drops
    those folds. The reference is the set of (setting, counterfactual source, tag) of fold 0,
    without the settings that by design run on fold 0 only (``fold0_only``: ``(dataset,
    setting)`` pairs; default: the CKE settings of datasets outside
    :data:`cffair.experiments.CKE_ALL_FOLDS`).
    """
    from cffair.experiments import CKE_ALL_FOLDS

    def key(r: Mapping[str, Any]) -> tuple[str, str, str]:
        c = r["config"]
        return (c["setting"], c.get("cf_source", "cnf"), c.get("tag", ""))

    def only_first(ds: str, setting: str) -> bool:
        if fold0_only is not None:
            return (ds, setting) in set(fold0_only)
        return setting.endswith("_cke") and ds not in CKE_ALL_FOLDS

    by_ds: dict[str, dict[int, set]] = {}
    for r in records:
        c = r["config"]
        by_ds.setdefault(c["dataset"], {}).setdefault(c["fold"], set()).add(key(r))
    keep: dict[str, set[int]] = {}
    for ds, folds in by_ds.items():
        first = min(folds)
        ref = {k for k in folds[first] if not only_first(ds, k[0])}
        keep[ds] = {f for f, ks in folds.items() if ref <= ks}
    return [r for r in records if r["config"]["fold"] in keep[r["config"]["dataset"]]]


def folds_per_dataset(records: Sequence[Mapping[str, Any]]) -> dict[str, list[int]]:
    """Which folds the records cover, per dataset (e.g. ``{"adult": [0], "compas": [0, 1]}``)."""
    out: dict[str, set[int]] = {}
    for r in records:
        out.setdefault(r["config"]["dataset"], set()).add(int(r["config"]["fold"]))
    return {ds: sorted(f) for ds, f in sorted(out.items())}
