"""The chapters' own tables: the folds behind a page's numbers, Table 3 (the CKE steps, Q3), Table 4 and equation 3 (the queries, Q4),
Table 5 (appendix A) and Table 6 (appendix B), each next to the paper's where the paper has one.
Cells and HTML are :mod:`._tables`'.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from cffair.errors import DataError
from cffair.reporting._names import (
    DATASET_ORDER,
    METRIC_ORDER,
    TABLE_METHODS,
    dataset_name,
    method_name,
    metric_name,
    performance_metric,
)
from cffair.reporting._paper import PAPER_TABLE3_AXIOMS, TABLE4_COLUMNS, TABLE4_PAPER_SAT, paper_tables
from cffair.reporting._records import (
    as_records,
    find_record,
    records_frame,
    results_long,
    select_records,
    weight_grid_frame,
)
from cffair.reporting._tables import format_cell, format_delta, metric_columns

if TYPE_CHECKING:  # reading records loads no store (a Record comes from as_records)
    from cffair.experiments._store import Record

__all__ = [
    "axiom_label",
    "eq3_table",
    "fold_coverage",
    "query_profiles",
    "query_sat_table",
    "query_table",
    "table3_comparison",
    "table5_frame",
    "table6_frame",
]


# ---------------------------------------------------------------------------- Table 3 (CKE)
def axiom_label(name: str) -> str:
    """``"A5[Male, race]"`` → ``"(race, male)"`` (the paper's notation in Table 3); other names pass through."""
    if name.startswith("A5[") and name.endswith("]"):
        group, _, feature = name[3:-1].rpartition(", ")
        return f"({feature}, {group.lower()})"
    return name


def table3_comparison(
    records: Sequence[Record], dataset: str = "adult", fold: int = 0, decimals: int = 3
) -> pd.DataFrame:
    """Table 3: the CKE steps of one run (``ltn_acc_cf_cke`` of ``dataset``/``fold``) next to the paper's.

    Rows are ``(stage, ours|paper|Δ)``: the stages are LTN(acc), LTN(acc+CF), then one per added
    A5 axiom (ours may differ from the paper's, so the ``axiom`` column names both, and the k-th
    of ours is compared with the paper's k-th); the other columns are the metrics.

    Raises:
        DataError: if the records lack the CKE run.
    """
    records = as_records(records)
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
        stages.append(
            (
                f"+ CKE axiom {k + 1}",
                axiom_label(ours["axiom"]) if ours else "—",
                PAPER_TABLE3_AXIOMS.get(pkey, "—"),
                ours,
                pkey,
            )
        )
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
        rows.append(
            {
                "subgroup": item["subgroup"],
                "β": f"{item['beta']:g}",
                "sat (ours)": format_cell(item["sat"], None, decimals),
                "sat (paper)": format_cell(paper, None, decimals),
                "Δ": format_delta(item["sat"] - paper, decimals),
            }
        )
    return pd.DataFrame(rows).set_index("subgroup")


def query_table(record: Mapping[str, Any], columns: Sequence[str] = TABLE4_COLUMNS) -> pd.DataFrame:
    """Table 4, example rows: per queried subgroup the query row x̂ and its nearest neighbour
    with a different decision, decoded, with the prediction ``D`` and the distance to x̂."""
    q = record.get("queries")
    if not q:
        raise DataError("the record has no 'queries' (they are stored on the adult ltn_acc_cf record).")
    rows = []
    for item in q.get("eq2", []):
        for role, row in [
            ("x̂ (query)", (item.get("query_row") or [None])[0]),
            ("nearest x", (item.get("neighbours") or [None])[0]),
        ]:
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


def query_profiles(
    record: Mapping[str, Any], columns: Sequence[str] = TABLE4_COLUMNS, *, subgroups: Sequence[str] | None = None
) -> pd.DataFrame:
    """Table 4's example rows transposed, for reading down a column: one row per feature (and
    ``D``, ``distance``), one column per queried subgroup × (x̂, nearest x). Pass ``subgroups``
    to show some of them (two at a time fit the book's text column)."""
    t = query_table(record, columns)
    t = t.rename(index={"x̂ (query)": "x̂", "nearest x": "nearest"}, level="row")
    wide = t.T
    if subgroups is not None:
        unknown = [g for g in subgroups if g not in set(wide.columns.get_level_values(0))]
        if unknown:
            raise DataError(
                f"no query for subgroup(s) {unknown}; queried: {list(dict.fromkeys(wide.columns.get_level_values(0)))}."
            )
        wide = wide.loc[:, [c for c in wide.columns if c[0] in subgroups]]
    wide.columns = wide.columns.set_names(["subgroup", ""])
    wide.index.name = "feature"
    return wide


def eq3_table(record: Mapping[str, Any], decimals: int = 3) -> pd.DataFrame:
    """Equation (3): the satisfaction of subgroup counterfactual fairness for every subgroup,
    with the subgroup's test CF-MSE beside it."""
    q = record.get("queries") or {}
    by_sg = record["metrics"].get("cf_mse_by_subgroup", {})
    rows = [
        {"subgroup": sg, "sat of (3)": round(float(v), decimals), "CF-MSE": by_sg.get(sg, np.nan)}
        for sg, v in (q.get("eq3") or {}).items()
    ]
    return pd.DataFrame(rows).sort_values("sat of (3)").set_index("subgroup")


# ---------------------------------------------------------------------------- Table 5 (appendix A)
def table5_frame(records: Sequence[Record], decimals: int = 3) -> pd.DataFrame:
    """Table 5: the GAN method against LTN(acc+CF) trained on the GAN's counterfactuals, each
    evaluated on the GAN's own counterfactual test pairs and on the CNF ones.

    Rows ``(dataset, metric)``; columns ``(method, evaluated on)``; cells ``mean ± sd`` over folds.
    Accuracy/MSE use the factual test rows only, so it is the same under both evaluations.
    """
    methods = ["gan", "ltn_acc_cf@gan"]
    records = as_records(records)
    parts = []
    for own, label in ((True, "GAN's CFs"), (False, "CNF's CFs")):
        long = results_long(records, "table5", methods, own_counterfactuals=own)
        parts.append(long.assign(side=label))
    long = pd.concat(parts, ignore_index=True)
    if long.empty:
        raise DataError(
            "no GAN records (setting 'gan', or cf_source 'gan') among the records; run the appendix_a group."
        )
    long["cell"] = [format_cell(m, s, decimals) for m, s in zip(long["mean"], long["sd"])]
    wide = long.pivot_table(
        index=["dataset", "metric"], columns=["method", "side"], values="cell", aggfunc="first", sort=False
    )
    rows = sorted(
        wide.index, key=lambda r: (DATASET_ORDER.index(r[0]) if r[0] in DATASET_ORDER else 99, METRIC_ORDER.index(r[1]))
    )
    cols = [(m, s) for m in methods for s in ("GAN's CFs", "CNF's CFs") if (m, s) in wide.columns]
    wide = wide.reindex(index=rows, columns=cols).fillna("—")
    wide.index = pd.MultiIndex.from_tuples(
        [(dataset_name(d), metric_name(m)) for d, m in wide.index], names=["dataset", "metric"]
    )
    wide.columns = pd.MultiIndex.from_tuples(
        [(method_name(m), s) for m, s in wide.columns], names=["method", "evaluated on"]
    )
    return wide


# ---------------------------------------------------------------------------- Table 6 (appendix B)
def table6_frame(records: Iterable[Record], decimals: int = 3) -> pd.DataFrame:
    """Table 6: for each dataset and (accuracy weight, CF weight), performance (accuracy, or MSE
    for Lawschool, in one column), CF-MSE and worst-subgroup CF-MSE (mean ± sd over folds) and
    the worst subgroup (the most frequent over folds, by its name: "Male, Amer-Indian-Eskimo")."""
    grid = weight_grid_frame(records)
    if grid.empty:
        raise DataError("no weight-grid records; run the appendix_b group.")
    perfs = sorted({performance_metric(d) for d in set(grid["dataset"])})
    perf_label = dict(zip(perfs, metric_columns([metric_name(m) for m in perfs]).values()))
    rows = []
    for (d, wa, wc), g in grid.groupby(["dataset", "w_acc", "w_cf"], sort=False):
        cell: dict[str, Any] = {"dataset": dataset_name(d), "weights acc : CF": f"{wa:g} : {wc:g}"}
        flips = (
            ("cf_flip_rate",) if "cf_flip_rate" in grid and grid["cf_flip_rate"].notna().any() else ()
        )  # records before it lack it
        for met in (performance_metric(d), "cf_mse", "cf_mse_worst_subgroup", *flips):
            label = perf_label.get(met, metric_name(met))
            cell[label] = format_cell(g[met].mean(), g[met].std(ddof=1) if len(g) > 1 else None, decimals)
        worst = g["worst_subgroup"].dropna()
        cell["worst subgroup"] = str(worst.mode().iloc[0]) if len(worst) else "—"  # its name, not a code ("m, aie")
        cell["_order"] = (DATASET_ORDER.index(d) if d in DATASET_ORDER else 99, -float(np.log2(wa / wc)))
        rows.append(cell)
    out = pd.DataFrame(rows).sort_values("_order").drop(columns="_order")
    return out.set_index(["dataset", "weights acc : CF"])


# ---------------------------------------------------------------------------- the folds behind a page
def _spans(values: Sequence[int]) -> str:
    """Sorted integers as runs: ``"0–4"``, ``"0, 2–3"``, ``"0"``.

    >>> _spans([0, 1, 2, 3, 4]), _spans([3, 0, 2]), _spans([0])
    ('0–4', '0, 2–3', '0')
    """
    vs = sorted(set(values))
    runs: list[list[int]] = []
    for v in vs:
        if runs and v == runs[-1][1] + 1:
            runs[-1][1] = v
        else:
            runs.append([v, v])
    return ", ".join(f"{a}–{b}" if b > a else f"{a}" for a, b in runs)


def fold_coverage(records: Iterable[Record], methods: Sequence[str]) -> pd.DataFrame:
    """The folds behind each mean of a page: a row per dataset, a column per one of ``methods`` (in that order,
    those with records), a cell such as ``"0–4 × 3 partitions, 3 seeds"`` (the folds of the protocol's records,
    the partitions of repeated cross-validation, the most training seeds a fold has), NaN where none.

    >>> recs = [{"config": {"dataset": "d", "setting": "ltn_acc", "fold": f, "repeat": r, "seed": s}, "metrics": {}}
    ...         for f in range(5) for r in range(3) for s in range(2)]
    >>> fold_coverage(recs, ["ltn_acc"]).loc["d", "ltn_acc"]
    '0–4 × 3 partitions, 2 seeds'
    """
    frame = select_records(records_frame(records), methods, repeats=True)
    cells: dict[tuple[str, str], str] = {}
    for (d, m), g in frame.groupby(["dataset", "method"]):
        parts, seeds = g["repeat"].nunique(), int(g.groupby(["repeat", "fold"])["seed"].nunique().max())
        cells[(str(d), str(m))] = (
            _spans(g["fold"].astype(int))
            + (f" × {parts} partitions" if parts > 1 else "")
            + (f", {seeds} seeds" if seeds > 1 else "")
        )
    out = pd.Series(cells, dtype=object).unstack() if cells else pd.DataFrame()
    return out.reindex(columns=[m for m in methods if m in out.columns])
