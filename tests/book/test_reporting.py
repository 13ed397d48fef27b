"""cffair.reporting: the paper's published numbers, ours-vs-paper comparison, tables (figures: test_reporting_figures.py)."""

from __future__ import annotations

import math
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import cffair_book as book
from cffair import reporting
from cffair.errors import DataError
from cffair.reporting import _comparison as comparison
from cffair.reporting import _tables as tables

ROOT = Path(__file__).resolve().parents[2]


# ---------------------------------------------------------------------------- the paper's numbers
# Each value below was read off the paper's text (Tables 1-3) by hand, not from the CSV.
CROSS_CHECKED = [
    # table, dataset, metric, method, mean, sd
    ("table1", "adult", "accuracy", "ltn_acc_cf_sg", 0.812, 0.001),
    ("table1", "adult", "cf_mse", "ltn_acc_cf", 0.065, 0.002),
    ("table1", "compas_age", "cf_mse_worst_subgroup", "dcevae", 0.342, 0.074),
    ("table1", "lawschool", "mse", "gan", 0.906, 0.000),
    ("table1", "lawschool", "cf_mse", "ltn_acc_cf_sg", 0.001, 0.000),
    ("table2", "compas", "cf_mse", "ltn_acc_cf_sg_cke", 0.025, 0.006),
    ("table2", "compas_age", "accuracy", "ltn_acc_cf_cke", 0.636, 0.017),
    ("table3", "adult", "cf_mse_worst_subgroup", "cke_native_country_male", 0.139, math.nan),
]


@pytest.mark.parametrize(("table", "dataset", "metric", "method", "mean", "sd"), CROSS_CHECKED)
def test_packaged_paper_values_match_the_paper_text(table, dataset, metric, method, mean, sd):
    got_mean, got_sd = reporting.paper_value(table, dataset, metric, method)
    assert got_mean == pytest.approx(mean, abs=1e-12)
    if math.isnan(sd):
        assert math.isnan(got_sd)
    else:
        assert got_sd == pytest.approx(sd, abs=1e-12)


def test_packaged_csv_equals_the_shared_copy_when_present():
    shared = ROOT.parent / "shared" / "paper" / "paper_tables.csv"
    if not shared.exists():
        pytest.skip(f"no shared copy at {shared} (only beside the development checkout)")
    ours = reporting.paper_tables().reset_index(drop=True)[list(reporting.RESULT_COLUMNS)]
    theirs = pd.read_csv(shared)
    pd.testing.assert_frame_equal(
        ours.astype({c: object for c in ("table", "dataset", "metric", "method")}),
        theirs[list(reporting.RESULT_COLUMNS)].astype({c: object for c in ("table", "dataset", "metric", "method")}),
        check_dtype=False,
    )


def test_paper_tables_shape_and_keys():
    p = reporting.paper_tables()
    assert list(p.columns) == [*reporting.RESULT_COLUMNS, "n"]
    assert not p.duplicated(["table", "dataset", "metric", "method"]).any()
    assert set(p["table"]) == {"table1", "table2", "table3"}
    assert p["mean"].notna().all()
    # Table 3 is a single run: no sd; Tables 1 and 2 average 5 runs: every cell has one.
    assert p.loc[p.table == "table3", "sd"].isna().all()
    assert p.loc[p.table != "table3", "sd"].notna().all()
    # the folds behind each mean: the paper's 5-fold cross-validation, one run for Table 3
    assert reporting.PAPER_FOLDS == 5 and (p.loc[p.table != "table3", "n"] == 5).all()
    assert (p.loc[p.table == "table3", "n"] == 1).all()
    assert ((p["mean"] >= 0) & (p["mean"] <= 1)).all()


def test_every_table1_cell_is_present():
    p = reporting.paper_tables()
    t1 = p[p.table == "table1"]
    methods = reporting.TABLE_METHODS["table1"]
    assert len(methods) == 6
    for dataset in ("adult", "compas", "compas_age", "lawschool"):
        perf = "mse" if dataset == "lawschool" else "accuracy"
        for metric in (perf, "cf_mse", "cf_mse_worst_subgroup"):
            for method in methods:
                cell = t1[(t1.dataset == dataset) & (t1.metric == metric) & (t1.method == method)]
                assert len(cell) == 1, f"Table 1 misses {dataset}/{metric}/{method}"
    assert len(t1) == 6 * 4 * 3


def test_table2_and_table3_cells_are_present():
    p = reporting.paper_tables()
    assert len(p[p.table == "table2"]) == 5 * 2 * 3
    assert len(p[p.table == "table3"]) == 5 * 1 * 3
    # Tables 1 and 2 share their first three settings; the paper prints the same numbers.
    shared = p[
        (p.table.isin(["table1", "table2"]))
        & p.dataset.isin(["compas", "compas_age"])
        & p.method.isin(reporting.Q1_SETTINGS)
    ]
    wide = shared.pivot_table(index=["dataset", "metric", "method"], columns="table", values="mean")
    np.testing.assert_allclose(wide["table1"], wide["table2"])


# ---------------------------------------------------------------------------- names and formatting
def test_display_names():
    assert reporting.method_name("ltn_acc") == "LTN(acc)"
    assert reporting.method_name("ltn_acc_cf") == "LTN(acc+CF)"
    assert reporting.method_name("ltn_acc_cf_sg") == "LTN(acc+CF_sg)"
    assert reporting.method_name("cnf") == "CNF"
    assert reporting.method_name("gan") == "GAN"
    assert reporting.method_name("dcevae") == "DCEVAE"
    assert reporting.method_name("something_new") == "something_new"
    assert reporting.dataset_name("compas_age") == "COMPAS(age)"
    assert reporting.metric_name("cf_mse_worst_subgroup") == "CF-MSE (sg) ↓"
    assert reporting.abbreviate_subgroup("Male, Asian-Pac-Islander") == "m, api"
    assert reporting.abbreviate_subgroup("Female, Amer-Indian-Eskimo") == "f, aie"


def test_format_cell_and_delta():
    assert reporting.format_cell(0.812, 0.001) == "0.812 ± 0.001"
    assert reporting.format_cell(0.778, math.nan) == "0.778"
    assert reporting.format_cell(math.nan, 0.1) == "—"
    assert reporting.format_delta(0.0041) == "+0.004"
    assert reporting.format_delta(-0.012) == "−0.012"
    assert reporting.format_delta(0.00001) == "0.000"
    assert reporting.format_delta(math.nan) == "—"


# ---------------------------------------------------------------------------- compare
def _synthetic_ours(rng: np.random.Generator) -> pd.DataFrame:
    p = reporting.paper_tables()
    ours = p[p.table == "table1"].copy()
    ours["mean"] = ours["mean"] + rng.normal(0, 0.05, len(ours))
    ours["sd"] = rng.uniform(0, 0.02, len(ours))
    return ours.reset_index(drop=True)


def test_compare_delta_is_ours_minus_paper():
    rng = np.random.default_rng(0)
    ours = _synthetic_ours(rng)
    comp = reporting.compare(ours, "table1")
    assert len(comp) == 72
    p = reporting.paper_tables()
    for _, row in comp.iterrows():
        mine = ours[(ours.dataset == row.dataset) & (ours.metric == row.metric) & (ours.method == row.method)].iloc[0]
        paper_mean, paper_sd = reporting.paper_value("table1", row.dataset, row.metric, row.method)
        assert row.ours_mean == pytest.approx(mine["mean"])
        assert row.paper_mean == pytest.approx(paper_mean)
        assert row.paper_sd == pytest.approx(paper_sd)
        assert row.delta == pytest.approx(mine["mean"] - paper_mean)
        assert row["Δ"] == reporting.format_delta(mine["mean"] - paper_mean)
        assert row["ours"] == reporting.format_cell(mine["mean"], mine["sd"])
    assert set(p[p.table == "table1"]["method"]) == set(comp["method"])


def test_compare_hand_computed_cell():
    ours = pd.DataFrame(
        {
            "table": ["table1"],
            "dataset": ["adult"],
            "metric": ["accuracy"],
            "method": ["ltn_acc_cf_sg"],
            "mean": [0.8],
            "sd": [0.01],
        }
    )
    comp = reporting.compare(ours)
    row = comp[(comp.dataset == "adult") & (comp.metric == "accuracy") & (comp.method == "ltn_acc_cf_sg")].iloc[0]
    assert row.delta == pytest.approx(0.8 - 0.812)
    assert row["ours"] == "0.800 ± 0.010"
    assert row["paper"] == "0.812 ± 0.001"
    assert row["Δ"] == "−0.012"
    # cells only the paper has are kept, with ours and Δ missing
    other = comp[(comp.dataset == "lawschool") & (comp.method == "gan") & (comp.metric == "mse")].iloc[0]
    assert math.isnan(other.ours_mean) and math.isnan(other.delta)
    assert other["ours"] == "—" and other["Δ"] == "—"


def test_compare_keeps_methods_the_paper_lacks_and_orders_like_the_paper():
    ours = pd.DataFrame(
        {
            "dataset": ["compas", "adult"],
            "metric": ["cf_mse", "cf_mse"],
            "method": ["pcf_plugin", "ltn_acc"],
            "mean": [0.05, 0.2],
            "sd": [0.0, 0.0],
        }
    )
    comp = reporting.compare(ours, "table1")  # no table column: rows belong to table1
    extra = comp[comp.method == "pcf_plugin"].iloc[0]
    assert extra["paper"] == "—" and math.isnan(extra.delta)
    assert list(dict.fromkeys(comp.dataset)) == ["adult", "compas", "compas_age", "lawschool"]
    adult_methods = list(dict.fromkeys(comp[comp.dataset == "adult"].method))
    assert adult_methods == list(reporting.TABLE_METHODS["table1"])


def test_compare_rejects_duplicates_and_missing_columns():
    ours = _synthetic_ours(np.random.default_rng(1))
    with pytest.raises(DataError, match="several rows"):
        reporting.compare(pd.concat([ours, ours.head(1)]))
    with pytest.raises(DataError, match="lack column"):
        reporting.compare(ours.drop(columns=["mean"]))


def test_side_by_side_layout():
    comp = reporting.compare(_synthetic_ours(np.random.default_rng(2)))
    wide = reporting.side_by_side(comp)
    assert wide.shape == (12, 6 * 3)
    assert ("Adult", "accuracy ↑") in wide.index
    assert ("Lawschool", "MSE ↓") in wide.index
    assert wide.columns[0] == ("LTN(acc)", "ours")
    cell = comp[(comp.dataset == "adult") & (comp.metric == "accuracy") & (comp.method == "ltn_acc_cf_sg")].iloc[0]
    assert wide.loc[("Adult", "accuracy ↑"), ("LTN(acc+CF_sg)", "paper")] == "0.812 ± 0.001"
    assert wide.loc[("Adult", "accuracy ↑"), ("LTN(acc+CF_sg)", "Δ")] == cell["Δ"]


def test_paper_table_as_published():
    t1 = reporting.paper_table("table1")
    assert t1.loc[("Adult", "accuracy ↑"), "LTN(acc+CF_sg)"] == "0.812 ± 0.001"
    t3 = reporting.paper_table("table3")
    assert t3.loc[("Adult", "CF-MSE (sg) ↓"), "+CKE (native-country, male)"] == "0.139"


def test_summarise_folds():
    records = pd.DataFrame(
        {"dataset": ["adult"] * 3, "method": ["ltn_acc"] * 3, "accuracy": [0.8, 0.82, 0.84], "cf_mse": [0.1, 0.1, 0.1]}
    )
    out = reporting.summarise_folds(records, ["accuracy", "cf_mse"], table="table1")
    acc = out[out.metric == "accuracy"].iloc[0]
    assert acc["mean"] == pytest.approx(0.82)
    assert acc["sd"] == pytest.approx(np.std([0.8, 0.82, 0.84], ddof=1))
    assert out[out.metric == "cf_mse"].iloc[0]["sd"] == pytest.approx(0.0)
    single = reporting.summarise_folds(records.head(1), ["accuracy"], table="table1")
    assert math.isnan(single.iloc[0]["sd"])
    with pytest.raises(DataError, match="no 'table' column"):
        reporting.summarise_folds(records, ["accuracy"])


def test_format_table_html():
    comp = reporting.compare(_synthetic_ours(np.random.default_rng(3)))
    wide = reporting.side_by_side(comp)
    bold = comparison.best_cells(comp)
    assert len(bold) == 12  # one best method per (dataset, metric) row
    html = reporting.format_table(wide, "Table 1: ours vs paper", bold=bold)._repr_html_()
    assert html.startswith("<table") and ">Table 1: ours vs paper</caption>" in html
    assert (
        'class="dataframe cffair-table table cffair-compact"' in html and '<caption class="cffair-caption">' in html
    )  # compact by default
    plain = reporting.format_table(wide, "T", compact=False).html
    assert "<caption>T</caption>" in plain and "cffair-compact" not in plain
    assert not re.search(r"<(table|caption|span|td)[^>]*style=", html + plain)  # classes, not inline styles
    assert html.count("<strong>") == 12
    assert "0.812\u00a0±\u00a00.001" in html  # a number with its sd never breaks
    nan_html = reporting.format_table(pd.DataFrame({"a": pd.array([1, None], dtype="Int64")})).html
    assert "—" in nan_html and "NA" not in nan_html


def test_best_cells_respects_direction():
    comp = reporting.compare(reporting.paper_tables()[lambda d: d.table == "table1"])  # ours == paper
    best = dict(comparison.best_cells(comp))
    assert best[("Adult", "accuracy ↑")] == ("DCEVAE", "ours")  # 0.831: highest accuracy
    assert best[("Adult", "CF-MSE ↓")] == ("LTN(acc+CF_sg)", "ours")  # 0.055: lowest CF-MSE


# ---------------------------------------------------------------------------- claims
def test_claims_table():
    claims = [
        book.Claim(
            "CF axioms lower CF-MSE", ("Q1", "../notebooks/q1_counterfactual_fairness.html"), True, "all datasets"
        ),
        {"claim": "DCEVAE is <unfair>", "where": "Q2", "holds": False, "note": ""},
        book.Claim("Queries find similar people", "Q4"),
    ]
    table = book.claims_table(claims, caption="Claims")
    html = table.html
    assert html.count("<tr>") == 5  # header + 3 claims + how verdicts are decided
    assert '<a href="../notebooks/q1_counterfactual_fairness.html">Q1</a>' in html
    assert "✔ holds" in html and "✘ does not hold" in html and "pending" in html
    assert "&lt;unfair&gt;" in html  # text is escaped
    assert list(table.frame["status"]) == ["✔ holds", "✘ does not hold", "pending"]
    with pytest.raises(DataError):
        book.claims_table([book.Claim("x", holds="yes")])  # type: ignore[arg-type]


# ---------------------------------------------------------------------------- result records
def _rec(
    dataset,
    setting,
    fold=0,
    *,
    cf_source="cnf",
    tag="",
    w_acc=1.0,
    w_cf=1.0,
    perf=0.7,
    cf=0.1,
    worst=0.2,
    by_subgroup=None,
    **extra,
):
    metrics = {
        "cf_mse": cf,
        "cf_mse_worst_subgroup": worst,
        "worst_subgroup": "g1",
        "n_pairs": 100,
        "cf_mse_by_subgroup": by_subgroup or {"g0": cf / 2, "g1": worst},
    }
    metrics["mse" if dataset == "lawschool" else "accuracy"] = perf
    cfg = {
        "dataset": dataset,
        "fold": fold,
        "setting": setting,
        "profile": "quick",
        "cf_source": cf_source,
        "seed": 0,
        "tag": tag,
        "weights": {"acc": w_acc, "cf": w_cf, "cf_sg": 1.0, "cke": 1.0},
    }
    return {"config": cfg, "metrics": metrics, **extra}


def _paper_like_records(folds=2):
    """Records whose fold means equal the paper's Table 1 (folds at mean ± 0.01)."""
    p = reporting.paper_tables()
    t1 = p[p.table == "table1"]
    recs = []
    for (d, m), g in t1.groupby(["dataset", "method"]):
        vals = dict(zip(g.metric, g["mean"]))
        perf = vals.get("accuracy", vals.get("mse"))
        for f in range(folds):
            e = 0.01 * (1 if f % 2 else -1) if folds > 1 else 0.0
            recs.append(_rec(d, m, f, perf=perf + e, cf=vals["cf_mse"] + e, worst=vals["cf_mse_worst_subgroup"] + e))
    return recs


def test_records_frame_and_results_long_aggregate_folds():
    recs = _paper_like_records(folds=2) + [_rec("adult", "ltn_acc_cf", 0, tag="w2-1", w_acc=2.0, perf=0.1)]
    frame = reporting.records_frame(recs)
    assert len(frame) == len(recs)
    assert set(frame.columns) >= {"dataset", "fold", "method", "tag", "w_acc", "w_cf", "accuracy", "mse", "cf_mse"}
    long = reporting.results_long(recs, "table1")
    # the weight-grid record is left out; means over the two folds are the paper's values
    comp = reporting.compare(long, "table1")
    assert comp["delta"].abs().max() < 1e-9
    row = long[(long.dataset == "adult") & (long.metric == "accuracy") & (long.method == "ltn_acc")].iloc[0]
    assert row["mean"] == pytest.approx(0.782) and row["sd"] == pytest.approx(np.std([0.772, 0.792], ddof=1))
    # Lawschool gets MSE, the others accuracy; no all-NaN rows
    assert set(long.loc[long.dataset == "lawschool", "metric"]) == {"mse", "cf_mse", "cf_mse_worst_subgroup"}
    assert long["mean"].notna().all()


def test_comparison_and_results_tables_render():
    recs = _paper_like_records(folds=1)
    comp = reporting.compare(reporting.results_long(recs, "table1"), "table1")
    table = reporting.comparison_table(comp, "Table 1")
    html = table.html
    # cells: rows (dataset, method), a column per metric, ours with the paper's value and Δ beneath
    assert table.frame.shape == (4 * 6, 4 * 3)
    assert table.frame.loc[("Adult", "LTN(acc+CF_sg)"), ("accuracy ↑", "paper")] == "0.812 ± 0.001"
    assert table.frame.loc[("Adult", "DCEVAE"), ("accuracy ↑", "Δ")] == "0.000"
    assert html.count("<strong>") == 12 and ">Table 1</caption>" in html
    assert '<strong><span class="cffair-num">0.831</span></strong><br>' in html  # DCEVAE's accuracy on Adult: the best
    # accuracy (binary datasets) and MSE (Lawschool) share one column: four columns in all
    head = html.split("</thead>")[0]
    assert head.count("accuracy ↑ / MSE ↓") == 1 and "CF-MSE (sg) ↓" in head and ">MSE ↓<" not in head
    split = reporting.comparison_table(comp, "Table 1", split=True)
    assert split.html.count("<table") == 4 and "Table 1 — Lawschool</caption>" in split.html
    lawschool = split.html.split("Table 1 — Lawschool")[1]
    assert ">MSE ↓<" in lawschool and "accuracy" not in lawschool.split("</thead>")[0]
    assert split.html.count("<strong>") == 12
    with pytest.raises(DataError, match="unknown table layout 'wide'"):
        reporting.comparison_table(comp, "Table 1", layout="wide")
    extra = reporting.results_long(
        [_rec("compas", "unaware", perf=0.6, cf=0.3), _rec("compas", "pcf", perf=0.65, cf=0.0)],
        "extra",
        ("unaware", "pcf"),
    )
    t = reporting.results_table(extra, "extra")
    assert list(t.frame.index.get_level_values("method")) == ["Unaware MLP", "Plug-in PCF"]  # the requested order
    assert list(t.frame.columns) == ["accuracy ↑", "CF-MSE ↓", "CF-MSE (sg) ↓"]
    assert t.html.count("<strong>") == 3  # best accuracy, CF-MSE and worst-subgroup CF-MSE
    assert "<strong>0.650</strong>" in t.html and "<strong>0.000</strong>" in t.html
    by_column = reporting.results_table(extra, "extra", layout="columns")
    assert list(by_column.frame.columns) == ["Unaware MLP", "Plug-in PCF"]


def test_format_table_marks_the_cells_a_line_break_must_not_split():
    """Cells of numbers and signs, and short keys with a digit, get the class that keeps them on one
    line (the book's CSS); cells of words do not; a comparison cell keeps each of its lines whole."""
    from bs4 import BeautifulSoup

    frame = pd.DataFrame(
        {
            "claim": ["a long claim text", "two words 1"],
            "value": ["0.812 ± 0.001", "−0.012"],
            "arrow": ["0.44 → 0.26", "|Δ| = 1.000"],
        },
        index=pd.Index(["Q1.1", "LTN(acc+CF_sg)"], name="key"),
    )
    html = reporting.format_table(frame, "C", bold=[("Q1.1", "value")]).html
    rows = BeautifulSoup(html, "html.parser").select("tbody tr")
    marked = [[tables.NUMBER_CLASS in (c.get("class") or []) for c in r.find_all(["th", "td"])] for r in rows]
    assert marked == [[True, False, True, True], [False, False, True, True]]
    assert "<strong>0.812\u00a0±\u00a00.001</strong>" in html  # bold cells are marked too
    head = BeautifulSoup(html, "html.parser").select("thead th")
    assert not any(tables.NUMBER_CLASS in (c.get("class") or []) for c in head)
    cell = tables.stacked_cell("0.812 ± 0.001", "0.800", "+0.012", False)
    assert cell.startswith('<span class="cffair-num">0.812 ± 0.001</span><br><span class="cffair-sub">paper 0.800')
    # the marking is idempotent: a marked table is marked again without a second class
    assert tables.mark_numbers(html) == html


def test_folded_puts_a_table_under_a_summary():
    table = reporting.format_table(pd.DataFrame({"a": [1.5]}), "T")
    closed = reporting.folded(table, "Open <all> rows")
    assert closed.html.startswith('<details class="cffair-fold"><summary>Open &lt;all&gt; rows</summary>')
    assert table.html in closed.html and closed.html.endswith("</details>") and closed.frame is table.frame
    assert closed._repr_html_() == closed.html
    assert reporting.folded(table, "x", open_=True).html.startswith('<details class="cffair-fold" open>')
    frame = pd.DataFrame({"key": ["a"], "type": ["str"]})
    styled = reporting.folded(frame.style.hide(axis="index"), "keys")  # a Styler, as the own-data page folds one
    assert "<summary>keys</summary>" in styled.html and ">str</td>" in styled.html
    assert reporting.folded(frame, "keys").frame is frame
    with pytest.raises(DataError, match="cannot fold a list: it has no HTML form"):
        reporting.folded([1, 2], "x")


def test_format_table_lets_words_wrap_and_keeps_numbers_on_one_line():
    frame = pd.DataFrame(
        {"text": ["a long text cell", "p = 0.02 (paired t)"], "number": ["0.812 ± 0.001", "0.44 → 0.26"]},
        index=["LTN(acc+CF): p = 6", "1 : 3"],
    )
    html = reporting.format_table(frame).html
    assert "nowrap" not in html and "cffair-compact" in html
    # numbers and signs: non-breaking spaces; words (also words with numbers): ordinary spaces
    assert "0.812\u00a0±\u00a00.001" in html and "0.44\u00a0→\u00a00.26" in html
    assert "a long text cell" in html and "p = 0.02 (paired t)" in html
    assert "LTN(acc+CF): p = 6" in html and "1\u00a0:\u00a03" in html
    # bold cells are found by the original labels
    bold = reporting.format_table(frame, bold=[("1 : 3", "number")]).html
    assert "<strong>0.44\u00a0→\u00a00.26</strong>" in bold


def test_tidy_table_keeps_renames_and_formats_the_named_columns():
    raw = pd.DataFrame(
        {
            "fit_seconds": [64.891, np.nan, 5.0],
            "rows": [45222.0, np.nan, 6167.0],
            "same_as": [np.nan, "compas", np.nan],
        },
        index=["adult", "compas_age", "compas"],
    )
    t = reporting.tidy_table(
        raw,
        {"rows": ("rows", "{:,.0f}"), "fit_seconds": ("fit (s)", "{:.1f}")},
        "Flow",
        index={"adult": "Adult", "compas": "COMPAS"},
        index_name="dataset",
    )
    assert list(t.frame.columns) == ["rows", "fit (s)"]
    assert list(t.frame.index) == ["Adult", "COMPAS"]  # the row without values is dropped
    assert t.frame.loc["Adult"].tolist() == ["45,222", "64.9"]
    assert "<caption" in t.html and "nan" not in t.html.lower().replace("nan-", "")
    with pytest.raises(DataError, match=r"lacks column\(s\) \['wall'\]"):
        reporting.tidy_table(raw, {"wall": ("wall (s)", "{:.0f}")})


def test_compare_decides_a_difference_on_the_standard_error_of_the_difference_of_means():
    """Welch's t on the two 5-fold means, computed by hand (known answers), not the spread of folds."""
    from scipy import stats

    cell = {"table": "table1", "metric": "accuracy", "method": "ltn_acc"}
    ours = pd.DataFrame(
        [
            {**cell, "dataset": "adult", "mean": 0.80, "sd": 0.003, "n": 5},  # far: t ≈ 8.9
            {**cell, "dataset": "compas", "mean": 0.70, "sd": 0.02, "n": 5},  # within two combined sds, beyond chance
            {**cell, "dataset": "compas_age", "mean": 0.70, "sd": 0.02, "n": 5},  # near: t ≈ 0.7
            {**cell, "dataset": "lawschool", "mean": 0.70, "sd": np.nan, "n": 1},  # one fold: cannot be judged
        ]
    )
    paper = ours.assign(mean=[0.78, 0.67, 0.69, 0.60], sd=[0.004, 0.02, 0.025, 0.01], n=5)
    comp = reporting.compare(ours, paper=paper).set_index("dataset")
    se = np.sqrt(0.02**2 / 5 + 0.02**2 / 5)
    assert comp.loc["compas", "se_delta"] == pytest.approx(se)
    df = (2 * 0.02**2 / 5) ** 2 / (2 * (0.02**2 / 5) ** 2 / 4)  # equal variances: 2(n − 1) = 8
    assert comp.loc["compas", "p_paper"] == pytest.approx(2 * stats.t.sf(0.03 / se, df))
    # 0.03 < 2·√(0.02² + 0.02²) ≈ 0.057, the old rule's band; yet t ≈ 2.37, p ≈ 0.045: beyond chance
    assert comp.loc["compas", "delta"] < 2 * np.sqrt(2 * 0.02**2) and comp.loc["compas", "beyond"]
    assert comp.loc["adult", "beyond"] and not comp.loc["compas_age", "beyond"]
    assert np.isnan(comp.loc["lawschool", "p_paper"]) and not comp.loc["lawschool", "beyond"]
    # a frame without n (folds unknown) is never judged
    assert not reporting.compare(ours.drop(columns="n"), paper=paper)["beyond"].any()


def test_compare_reads_the_folds_of_our_records_and_the_papers_five():
    recs = [_rec("adult", "ltn_acc", fold=k, perf=0.80 + 0.001 * k) for k in range(3)]
    comp = reporting.compare(reporting.results_long(recs, "table1", ["ltn_acc"]), "table1")
    row = comp[(comp.dataset == "adult") & (comp.method == "ltn_acc") & (comp.metric == "accuracy")].iloc[0]
    assert row["ours_n"] == 3 and row["paper_n"] == 5


def test_delta_summary_sets_the_differences_beyond_chance_in_bold():
    comp = pd.DataFrame(
        {
            "dataset": ["adult", "adult", "compas"],
            "metric": ["accuracy", "cf_mse", "accuracy"],
            "method": ["ltn_acc"] * 3,
            "delta": [0.02, 0.01, 0.0],
            "beyond": [True, False, False],
        }
    )
    t = reporting.delta_summary(comp, "Δ")
    assert t.frame.loc[("Adult", "accuracy ↑"), ("LTN", "acc")] == "+0.020"
    assert t.frame.loc[("Adult", "CF-MSE ↓"), ("LTN", "acc")] == "+0.010"
    assert t.frame.loc[("COMPAS", "accuracy ↑"), ("LTN", "acc")] == "0.000"
    assert t.frame.attrs["beyond"] == [(("Adult", "accuracy ↑"), ("LTN", "acc"))]
    assert t.html.count("<strong>") == 1 and "<strong>+0.020</strong>" in t.html
    both = reporting.delta_summary(comp.assign(method=["ltn_acc_cf_sg", "cnf", "cnf"]), "Δ")
    assert list(both.frame.columns) == [("LTN", "acc+CF_sg"), ("baseline", "CNF")]
    with pytest.raises(DataError, match="lacks column"):
        reporting.delta_summary(comp.drop(columns="beyond"), "Δ")
    # a metric the paper does not report has no Δ anywhere: no row of dashes; one Δ missing keeps its row
    flip = pd.DataFrame({"dataset": ["adult"] * 2, "metric": ["cf_flip_rate"] * 2, "method": ["ltn_acc", "cnf"],
                         "delta": [float("nan")] * 2, "beyond": [False] * 2})  # fmt: skip
    some = comp.assign(delta=[0.02, float("nan"), 0.0])  # LTN(acc)'s CF-MSE Δ missing, CNF's there
    cnf = pd.DataFrame(
        {"dataset": ["adult"], "metric": ["cf_mse"], "method": ["cnf"], "delta": [0.01], "beyond": [False]}
    )
    t = reporting.delta_summary(pd.concat([some, cnf, flip], ignore_index=True), "Δ")
    assert t.frame.loc[("Adult", "CF-MSE ↓"), ("LTN", "acc")] == "—"
    assert not any(m.startswith("CF flip") for _, m in t.frame.index)


def test_subgroup_frame_reads_per_subgroup_cf_mse():
    recs = [
        _rec("adult", "ltn_acc", by_subgroup={"Male, White": 0.3, "Female, White": 0.1}),
        _rec("adult", "ltn_acc_cf", tag="w2-1"),
        _rec("adult", "ltn_acc_cf", cf_source="gan"),
        _rec("compas", "ltn_acc"),
    ]
    sg = reporting.subgroup_frame(recs, dataset="adult")
    assert sorted(sg["subgroup"]) == ["Female, White", "Male, White"]
    assert sg.set_index("subgroup").loc["Male, White", "cf_mse"] == 0.3


def _cke_record(fold=0):
    steps = [
        {"step": 0, "axiom": "-", "accuracy": 0.75, "cf_mse": 0.06, "cf_mse_worst_subgroup": 0.07},
        {"step": 1, "axiom": "A5[Male, race]", "accuracy": 0.76, "cf_mse": 0.05, "cf_mse_worst_subgroup": 0.08},
        {
            "step": 2,
            "axiom": "A5[Female, marital-status]",
            "accuracy": 0.755,
            "cf_mse": 0.055,
            "cf_mse_worst_subgroup": 0.09,
        },
    ]
    before = [
        {"group": "Male", "feature": "race", "frequency": 0.3, "others_max": 0.1, "imbalance": 0.2},
        {"group": "Female", "feature": "race", "frequency": 0.1, "others_max": 0.3, "imbalance": -0.2},
        {"group": "Female", "feature": "marital-status", "frequency": 0.05, "others_max": 0.045, "imbalance": 0.005},
    ]
    after = [{"group": "Male", "feature": "race", "frequency": 0.12, "others_max": 0.1, "imbalance": 0.02}]
    cke = {
        "threshold": 0.01,
        "candidates": [{"group": "Male", "feature": "race", "imbalance": 0.2, "frequency": 0.3}],
        "imbalances_before": before,
        "imbalances_after": after,
        "steps": steps,
        "undesirable_ratio_before": {},
        "undesirable_ratio_after": {},
    }
    return _rec("adult", "ltn_acc_cf_cke", fold, perf=0.755, cf=0.055, cke=cke)


def test_table3_comparison_pairs_our_kth_axiom_with_the_papers():
    recs = [
        _rec("adult", "ltn_acc", perf=0.778, cf=0.183, worst=0.224),
        _rec("adult", "ltn_acc_cf", perf=0.75, cf=0.06, worst=0.07),
        _cke_record(),
    ]
    t = reporting.table3_comparison(recs)
    stages = list(dict.fromkeys(t.index.get_level_values("stage")))
    assert stages == ["LTN(acc)", "LTN(acc+CF)", "+ CKE axiom 1", "+ CKE axiom 2", "+ CKE axiom 3"]
    assert t.loc[("+ CKE axiom 1", "ours"), "axiom"] == "(race, male)"
    assert t.loc[("+ CKE axiom 2", "ours"), "axiom"] == "(marital-status, female)"
    assert t.loc[("+ CKE axiom 2", "paper"), "axiom"] == "(marital-status, male)"
    assert t.loc[("+ CKE axiom 3", "ours"), "axiom"] == "—" and t.loc[("+ CKE axiom 3", "ours"), "accuracy ↑"] == "—"
    acc = [t.loc[(s, "Δ"), "accuracy ↑"] for s in stages[:3]]
    assert acc == ["0.000", "−0.005", "+0.003"]  # 0.778−0.778, 0.750−0.755, 0.760−0.757
    assert t.loc[("+ CKE axiom 3", "paper"), "CF-MSE (sg) ↓"] == "0.139"
    with pytest.raises(DataError):
        reporting.table3_comparison(recs[:2])


def test_cke_candidates_and_undesirable_ratio():
    c = reporting.cke_candidates([_cke_record()])
    assert list(zip(c.group, c.feature, c.candidate)) == [("Male", "race", True), ("Female", "marital-status", False)]
    assert c.loc[0, "imbalance_after"] == pytest.approx(0.02) and np.isnan(c.loc[1, "imbalance_after"])
    r = reporting.undesirable_ratio_frame([_cke_record()], "adult")
    assert len(r) == 4 and set(r.stage) == {"before", "after"}
    assert r[(r.stage == "after") & (r.group == "Male")]["ratio"].item() == pytest.approx(0.12)


def test_query_tables():
    q = {
        "eq2": [
            {
                "subgroup": "Male, White",
                "beta": 3.0,
                "sat": 0.25,
                "query_row": [{"D": 0.01, "age": 23.0, "education": "HS-grad"}],
                "neighbours": [{"D": 0.99, "distance": 0.5, "index": 3, "age": 24.0, "education": "HS-grad"}],
            }
        ],
        "eq3": {"Male, White": 0.9, "Female, White": 0.7},
    }
    rec = _rec("adult", "ltn_acc_cf", queries=q, by_subgroup={"Male, White": 0.05, "Female, White": 0.2})
    t = reporting.query_table(rec, columns=("age", "education"))
    assert t.shape == (2, 4)
    assert t.iloc[0]["D"] == "0.01" and t.iloc[0]["distance"] == "0"
    assert t.iloc[1]["age"] == "24" and t.iloc[1]["D"] == "0.99" and t.iloc[1]["distance"] == "0.50"
    prof = reporting.query_profiles(rec, columns=("age", "education"))
    assert list(prof.index) == ["D", "distance", "age", "education"]
    assert list(prof.columns) == [("Male, White", "x̂"), ("Male, White", "nearest")]
    assert prof.loc["age", ("Male, White", "nearest")] == "24" and prof.loc["D", ("Male, White", "x̂")] == "0.01"
    with pytest.raises(DataError, match="no query for subgroup"):
        reporting.query_profiles(rec, subgroups=["Female, Black"])
    sat = reporting.query_sat_table(rec)
    assert sat.loc["Male, White"].tolist() == ["3", "0.250", "0.217", "+0.033"]
    e = reporting.eq3_table(rec)
    assert list(e.index) == ["Female, White", "Male, White"] and e.loc["Female, White", "CF-MSE"] == 0.2
    with pytest.raises(DataError):
        reporting.query_table(_rec("adult", "ltn_acc_cf"))


def test_table5_frame_puts_both_evaluations_side_by_side():
    recs = []
    for d in ("compas", "lawschool"):
        for m, src in (("gan", "cnf"), ("ltn_acc_cf", "gan")):
            r = _rec(d, m, cf_source=src, perf=0.7, cf=0.2 if m == "gan" else 0.05)
            r["metrics_own_counterfactuals"] = {**r["metrics"], "cf_mse": r["metrics"]["cf_mse"] / 2}
            recs.append(r)
    t = reporting.table5_frame(recs)
    assert list(t.columns) == [
        ("GAN", "GAN's CFs"),
        ("GAN", "CNF's CFs"),
        ("LTN(acc+CF) on GAN CFs", "GAN's CFs"),
        ("LTN(acc+CF) on GAN CFs", "CNF's CFs"),
    ]
    assert t.loc[("COMPAS", "CF-MSE ↓"), ("GAN", "GAN's CFs")] == "0.100"
    assert t.loc[("Lawschool", "MSE ↓"), ("GAN", "CNF's CFs")] == "0.700"
    with pytest.raises(DataError):
        reporting.table5_frame([_rec("compas", "ltn_acc")])


def test_weight_grid_table_and_trend_plot():
    recs = [_rec("compas", "ltn_acc_cf", perf=0.66, cf=0.05)]
    for wa, wc, p, c in ((4, 1, 0.68, 0.2), (2, 1, 0.67, 0.1), (1, 2, 0.65, 0.03), (1, 4, 0.64, 0.02)):
        recs.append(_rec("compas", "ltn_acc_cf", tag=f"w{wa}-{wc}", w_acc=wa, w_cf=wc, perf=p, cf=c))
    grid = reporting.weight_grid_frame(recs)
    assert list(grid["log2_ratio"]) == [-2.0, -1.0, 0.0, 1.0, 2.0]
    t = reporting.table6_frame(recs)
    assert list(t.index.get_level_values(1)) == ["4 : 1", "2 : 1", "1 : 1", "1 : 2", "1 : 4"]
    assert t.iloc[0]["accuracy ↑"] == "0.680" and "MSE ↓" not in t.columns
    assert list(t.columns) == ["accuracy ↑", "CF-MSE ↓", "CF-MSE (sg) ↓", "worst subgroup"]
    for r in recs:
        r["metrics"]["worst_subgroup"] = "Male, Amer-Indian-Eskimo"
    named = reporting.table6_frame(recs)["worst subgroup"]
    assert set(named) == {"Male, Amer-Indian-Eskimo"}  # the subgroup by its name, never a code ("m, aie")
    claims = {c.key: c for c in book.evaluate_claims(recs)}
    # one fold: the trend's unit is the fold, and one fold gives no test
    assert claims["B.1"].verdict == "inconclusive" and "5 points × 1 fold on COMPAS" in claims["B.1"].folds
    folds = [
        _rec(
            "compas",
            "ltn_acc_cf",
            f,
            tag=r["config"]["tag"],
            w_acc=r["config"]["weights"]["acc"],
            w_cf=r["config"]["weights"]["cf"],
            perf=r["metrics"]["accuracy"] + 0.001 * f,
            cf=r["metrics"]["cf_mse"] + 0.001 * f,
        )
        for f in range(3)
        for r in recs
    ]
    claims = {c.key: c for c in book.evaluate_claims(folds)}
    assert claims["B.1"].holds is True  # accuracy and CF-MSE both rise with the accuracy weight, in every fold


def test_evaluate_claims_on_the_papers_own_numbers():
    """On records equal to the paper's Table 1, the Table-1 claims that the paper's own numbers
    support hold, and the ones they contradict do not."""
    claims = {c.key: c for c in book.evaluate_claims(_paper_like_records(folds=1))}
    assert claims["Q1.1"].holds is True  # CF-MSE drops with A4 everywhere
    assert claims["Q1.2"].holds is True  # 0.065→0.055, 0.047→0.045, 0.079→0.075, 0.003→0.001
    assert claims["Q1.3"].holds is True  # worst subgroup on COMPAS and Lawschool
    assert claims["Q1.4"].holds is False  # COMPAS accuracy 0.675 → 0.651
    assert claims["Q2.1"].holds is True
    assert claims["Q2.2"].holds is True
    assert claims["Q2.3"].holds is True
    assert claims["Q2.4"].holds is True
    assert "0.160 → 0.065" in claims["Q1.1"].note
    # claims without records stay undecided, with a reason
    assert claims["Q3.5"].holds is None and claims["A.1"].holds is None and claims["Q3.5"].note
    assert claims["Q1.1"].where == ("Q1", "notebooks/q1_counterfactual_fairness.html")
    html = book.claims_table(list(claims.values())).html
    assert '<td class="cffair-key">Q2.3</td>' in html and "<summary>numbers (paper: " in html


def test_evaluate_claims_cke_and_queries():
    recs = [
        _rec(
            "adult",
            "ltn_acc_cf",
            0,
            queries={
                "eq2": [
                    {
                        "subgroup": s,
                        "beta": 3.0,
                        "sat": 0.3,
                        "query_row": [{"D": 0.0}],
                        "neighbours": [{"D": 1.0, "distance": 1.0}],
                    }
                    for s in reporting.TABLE4_PAPER_SAT
                ],
                "eq3": {},
            },
        ),
        _cke_record(),
    ]
    claims = {c.key: c for c in book.evaluate_claims(recs)}
    # x̂ chosen as the person whose nearest differently decided neighbour is closest: true by construction
    assert claims["Q4.1"].verdict == "by construction" and "paper 0.217" in claims["Q4.1"].note
    # accuracy 0.75–0.76 (stable), CF-MSE 0.06 → 0.05 → 0.055 (improved), worst subgroup 0.07 → 0.08 → 0.09
    # (worse after the first axiom): holds
    assert claims["Q3.5"].holds is True
    assert claims["Q3.2"].verdict == "pending"  # no COMPAS CKE records


def test_paired_folds_keeps_only_folds_where_every_method_ran():
    def rec(ds, fold, setting, cf="cnf", tag=""):
        return {"config": {"dataset": ds, "fold": fold, "setting": setting, "cf_source": cf, "tag": tag}}

    records = [
        rec("adult", 0, "ltn_acc"),
        rec("adult", 0, "cnf"),
        rec("adult", 0, "ltn_acc_cf_cke"),
        rec("adult", 0, "unaware"),
        rec("adult", 1, "ltn_acc"),
        rec("adult", 1, "cnf"),  # complete (CKE and the extras are fold-0 only)
        rec("adult", 2, "ltn_acc"),  # interrupted: no cnf
        rec("compas", 0, "ltn_acc"),
        rec("compas", 0, "ltn_acc_cf_cke"),
        rec("compas", 1, "ltn_acc"),  # COMPAS runs CKE on every fold
    ]
    kept = {(r["config"]["dataset"], r["config"]["fold"]) for r in reporting.paired_folds(records)}
    assert kept == {("adult", 0), ("adult", 1), ("compas", 0)}


def test_paired_folds_lets_no_tagged_variant_drop_a_fold():
    """Another seed of a baseline (appendix C's GAN study) or a weight point run on fold 0 first must
    not drop folds 1-4 of the paper's protocol while its other folds are still being computed; the
    variant is kept on the folds kept."""

    def rec(fold, setting, tag=""):
        return {"config": {"dataset": "compas", "fold": fold, "setting": setting, "cf_source": "cnf", "tag": tag}}

    records = [rec(f, s) for f in range(3) for s in ("ltn_acc", "cnf", "gan")] + [rec(0, "gan", "seed1")]
    kept = reporting.paired_folds(records)
    assert {r["config"]["fold"] for r in kept} == {0, 1, 2}
    assert [r["config"]["fold"] for r in kept if r["config"]["tag"] == "seed1"] == [0]
    # an untagged method missing on a fold still drops it
    assert {r["config"]["fold"] for r in reporting.paired_folds(records[:-2])} == {0, 1}


def test_results_long_counts_folds_not_seeds():
    # three seeds on each of two folds: the fold is the unit (the seeds averaged first), as in the claims' tests
    recs = []
    for fold, base in ((0, 0.70), (1, 0.80)):
        for seed, e in enumerate((-0.03, 0.0, 0.06)):
            r = _rec("compas", "ltn_acc", fold, perf=base + e)
            r["config"]["seed"] = seed
            recs.append(r)
    row = reporting.results_long(recs, "table1", ["ltn_acc"])
    row = row[row.metric == "accuracy"].iloc[0]
    means = [0.71, 0.81]  # each fold's mean over its seeds
    assert row["n"] == 2 and row["mean"] == pytest.approx(np.mean(means))
    assert row["sd"] == pytest.approx(np.std(means, ddof=1))  # over folds, not over the six records
    assert row["collapsed"] == 0


def test_compare_marks_and_does_not_judge_a_cell_holding_a_collapsed_model():
    recs = _paper_like_records(folds=5)
    for r in recs:  # CNF on COMPAS far from the paper; on fold 3 it says "no" to everyone
        if r["config"]["dataset"] == "compas" and r["config"]["setting"] == "cnf":
            r["metrics"]["cf_mse"] += 0.5
            if r["config"]["fold"] == 3:
                r["metrics"].update(positive_rate=0.0, prediction_sd=0.0)
    long = reporting.results_long(recs, "table1")
    assert set(long.loc[long.collapsed > 0, "method"]) == {"cnf"}
    comp = reporting.compare(long, "table1")
    cnf = comp[(comp.dataset == "compas") & (comp.method == "cnf")]
    assert len(cnf) == 3 and (cnf["collapsed"] == 1).all()
    assert cnf["p_paper"].isna().all() and not cnf["beyond"].any()  # 0.5 away from the paper, yet not judged
    assert cnf["ours"].str.endswith("†").all()
    other = comp[(comp.dataset == "compas_age") & (comp.method == "cnf")]
    assert other["p_paper"].notna().all() and (other["collapsed"] == 0).all()
    summary = reporting.delta_summary(comp, "Δ")
    assert (
        "+0.498 †" in summary.frame.to_numpy()
    )  # folds at the paper's value ∓ 0.01 average 0.002 below it and "not compared with the paper" in summary.html
    assert reporting.comparison_table(comp, "Table 1").html.count("not compared with the paper") == 1
    assert ("CNF", "ours") not in [cell for (d, _), cell in comparison.best_cells(comp) if d == "COMPAS"]
    from cffair_book.fidelity import paper_agreement

    text = paper_agreement(comp, "Table 1")
    assert "(3 cells hold a collapsed model and are not judged)" in text
    clean = reporting.compare(reporting.results_long(_paper_like_records(folds=5), "table1"), "table1")
    assert "collapsed" not in paper_agreement(clean, "Table 1") and clean["collapsed"].eq(0).all()


def test_appendix_a_reads_a_fold_once_whatever_its_seeds():
    """A.1 reads the GAN's own counterfactual pairs per fold: three training seeds of the LTN on a fold
    count as one fold with their mean (the protocol's unit), not as three folds against the GAN's one."""

    def records(seeds):
        recs = []
        for f in range(5):
            gan = _rec("compas", "gan", f, cf=0.2 + 0.01 * f)
            gan["metrics_own_counterfactuals"] = {**gan["metrics"]}
            recs.append(gan)
            for s, e in enumerate(seeds):
                r = _rec("compas", "ltn_acc_cf", f, cf_source="gan", cf=0.05 + 0.01 * f + e)
                r["config"]["seed"] = s
                r["metrics_own_counterfactuals"] = {**r["metrics"]}
                recs.append(r)
        return recs

    three = {c.key: c for c in book.evaluate_claims(records((-0.02, 0.0, 0.02)))}["A.1"]
    mean = {c.key: c for c in book.evaluate_claims(records((0.0,)))}["A.1"]
    assert three.verdict == mean.verdict and three.note == mean.note  # the seeds' mean is the single seed's value
    assert "COMPAS LTN 0.070 vs GAN 0.220" in three.note


def test_weight_grid_frame_gives_a_point_one_row_per_fold_with_its_seeds_mean():
    recs = [_rec("compas", "ltn_acc_cf", 0, perf=0.60 + 0.02 * s, cf=0.10 + 0.02 * s) for s in range(3)]
    for s, r in enumerate(recs):
        r["config"]["seed"] = s
    recs.append(_rec("compas", "ltn_acc_cf", 0, tag="w1-3", w_acc=1, w_cf=3, perf=0.5, cf=0.01))
    grid = reporting.weight_grid_frame(recs)
    assert len(grid) == 2 and list(grid["log2_ratio"]) == [pytest.approx(np.log2(1 / 3)), 0.0]
    equal = grid[grid["tag"] == ""].iloc[0]
    assert equal["accuracy"] == pytest.approx(0.62) and equal["cf_mse"] == pytest.approx(0.12)
    assert list(grid.columns) == [*reporting.records_frame(recs).columns, "log2_ratio"]


def test_fold_coverage_names_folds_partitions_and_seeds_once_each():
    recs = [_rec("compas", "ltn_acc", f) for f in range(5)]
    for f in range(5):  # a second partition, two seeds per fold
        for s in (0, 1):
            r = _rec("compas", "ltn_acc_cf", f)
            r["config"].update(repeat=1, seed=s)
            recs += [r, {**_rec("compas", "ltn_acc_cf", f), "config": {**r["config"], "repeat": 0}}]
    recs.append(_rec("adult", "ltn_acc", 0))
    recs.append(_rec("adult", "ltn_acc", 2, tag="w1-3"))  # a weight point: not the protocol's
    table = reporting.fold_coverage(recs, ["ltn_acc_cf", "ltn_acc", "gan"])
    assert list(table.columns) == ["ltn_acc_cf", "ltn_acc"]  # the order asked, only methods with records
    assert table.loc["compas", "ltn_acc"] == "0–4"
    assert table.loc["compas", "ltn_acc_cf"] == "0–4 × 2 partitions, 2 seeds"
    assert table.loc["adult", "ltn_acc"] == "0" and pd.isna(table.loc["adult", "ltn_acc_cf"])


def test_appendix_a_leaves_out_a_dataset_whose_model_collapsed_on_every_fold():
    """One quick fold where the GAN says "no" to everyone on its own twins: A.1 does not compare a
    collapsed model (and does not fail): the note says so."""
    gan = _rec("compas", "gan", 0, cf=0.0)
    gan["metrics_own_counterfactuals"] = {**gan["metrics"], "positive_rate": 0.0, "prediction_sd": 0.0}
    ltn = _rec("compas", "ltn_acc_cf", 0, cf_source="gan", cf=0.05)
    ltn["metrics_own_counterfactuals"] = {**ltn["metrics"]}
    a1 = {c.key: c for c in book.evaluate_claims([gan, ltn])}["A.1"]
    assert "COMPAS: a collapsed model on every fold, not counted" in a1.note
    assert a1.verdict != "holds"
