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
) -> HTMLTable:
    """An HTML table of ``frame`` for the book (plain :meth:`pandas.DataFrame.to_html`, no jinja2).

    Args:
        frame: any frame; MultiIndex rows and columns are kept.
        caption: a caption shown above the table.
        index: show the row index.
        float_format: format of float cells.
        bold: ``(row label, column label)`` cells to set in bold (e.g. the row-wise best).
        escape: escape HTML in cells (turn off only for trusted cells that hold links).
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
    if caption:
        table_html = table_html.replace(">", f">\n  <caption>{html.escape(caption)}</caption>", 1)
    return HTMLTable(table_html, frame)


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
    """

    claim: str
    where: str | tuple[str, str] = ""
    holds: bool | None = None
    note: str = ""


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
            f"<td>{i}</td><td>{html.escape(c.claim)}</td><td>{where}</td>"
            f'<td class="{css}">{label}</td><td>{html.escape(c.note)}</td>'
            "</tr>"
        )
    cap = f"  <caption>{html.escape(caption)}</caption>\n" if caption else ""
    table_html = (
        '<table class="cffair-table cffair-claims table">\n'
        + cap
        + "  <thead><tr><th>#</th><th>claim</th><th>where shown</th><th>status</th><th>note</th></tr></thead>\n"
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
    extra = iter(palette[len(fixed) % len(palette):] + palette)
    return [fixed.get(s) or next(extra) for s in settings]


__all__ = [
    "RESULT_COLUMNS",
    "METHOD_NAMES",
    "DATASET_NAMES",
    "METRIC_NAMES",
    "TABLE_METHODS",
    "Q1_SETTINGS",
    "FIGURE4_SETTINGS",
    "Claim",
    "HTMLTable",
    "abbreviate_subgroup",
    "best_cells",
    "check_results",
    "claim_status",
    "claims_table",
    "compare",
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
