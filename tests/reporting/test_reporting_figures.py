"""The book's figures (cffair.reporting._figures): what each draws, and the book's rules for every one.

Rules checked on every figure (:func:`check_book_rules`): 150 dpi; shown in the book's text
column, every text is at least the body size (16 px); at most two panels a row; the legend
lies off every panel; series colours come from the colour-blind palette. Each plot also gets a
known-answer test on a tiny tidy frame (bar lengths and point positions are the fold means,
ordinal bands in order, markers distinct, the panels expected).
"""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")  # tests only

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest
from figure_rules import PALETTE, check_book_rules, data_panels

from cffair import reporting
from cffair.errors import DataError
from cffair.reporting import _style as style
from cffair.reporting._names import ordinal_order


def _bars(ax) -> list:
    return [p for c in ax.containers for p in getattr(c, "patches", c)]


# ---------------------------------------------------------------------------- style helpers
def test_setting_colours_and_markers_are_stable_and_distinct():
    ten = ["ltn_acc", "ltn_acc_cf", "ltn_acc_cf_sg", "cnf", "gan", "dcevae", "unaware", "level3", "pcf", "x"]
    colours, markers = style.setting_colours(ten), style.setting_markers(ten)
    assert len(set(colours)) == 10 and len(set(markers)) == 10
    assert set(colours) == PALETTE
    # a method keeps its colour in another figure when it can
    assert style.setting_colours(["gan"]) == [colours[4]]
    assert style.setting_colours(["ltn_acc_cf", "gan"]) == [colours[1], colours[4]]


def test_book_style_keeps_the_interactive_mode_the_body_switched_on():
    """IPython's inline backend switches interactive mode on with the first figure; a style
    context that restored the old mode would stop every later figure from being shown."""
    was = matplotlib.is_interactive()
    try:
        matplotlib.interactive(False)
        with style.book_style():
            matplotlib.interactive(True)  # what the first figure of a notebook does
            assert plt.rcParams["figure.dpi"] == style.DPI
        assert matplotlib.is_interactive()
        assert plt.rcParams["figure.dpi"] != style.DPI or style.DPI == 100  # the rest is restored
        with style.book_style():
            pass
        assert matplotlib.is_interactive()
    finally:
        matplotlib.interactive(was)


def test_a_legend_of_long_labels_below_the_panels_is_wrapped_to_the_figure_width():
    """A legend wider than its figure widens the saved image (bbox_inches="tight"), which a phone
    then shrinks, text and all: legend_below wraps the labels until it fits, keeping every word."""
    labels = [f"variant {i}: A4 exponent p = {i}, weights acc 1 : CF {3**i}, clipped" for i in range(6)]
    with style.book_style():
        fig, axes = plt.subplots(1, 2, figsize=(style.MAX_WIDTH_IN, 3), layout="constrained")
        handles = [axes[0].plot([0, 1], [i, i + 1], marker="o")[0] for i in range(len(labels))]
        style.legend_below(fig, handles, labels, ncol=2)
        style.finish(fig)
    renderer = fig.canvas.get_renderer()
    box = fig.legends[0].get_window_extent(renderer)
    assert box.x0 >= -0.5 and box.x1 <= fig.bbox.width + 0.5
    shown = [t.get_text() for t in fig.legends[0].get_texts()]
    assert any("\n" in t for t in shown)  # these labels do not fit on one line each
    assert [" ".join(t.split()) for t in shown] == labels  # wrapped, not cut
    check_book_rules(fig)
    plt.close(fig)


def test_ordinal_order_puts_bands_in_numeric_order():
    assert ordinal_order(["31-45", "46-60", "<=30", ">60"]) == ["<=30", "31-45", "46-60", ">60"]
    assert ordinal_order(["White", "Black", ">60", "<=30"]) == ["<=30", ">60", "Black", "White"]
    assert ordinal_order(["≤30", "30", ">30"]) == ["≤30", "30", ">30"]


# ---------------------------------------------------------------------------- Q1 / Q3
def _subgroup_frame(
    folds: int, labels=("Male, White", "Female, White", "Male, Black", "Female, Black")
) -> pd.DataFrame:
    rng = np.random.default_rng(4)
    rows = []
    for sg in labels:
        for k, s in enumerate(reporting.Q1_SETTINGS):
            for f in range(folds):
                rows.append({"subgroup": sg, "method": s, "fold": f, "cf_mse": 0.2 / (k + 1) + rng.uniform(0, 0.01)})
    return pd.DataFrame(rows)


@pytest.mark.parametrize("folds", [1, 5])
def test_plot_subgroup_cf_mse_bars_are_fold_means_one_panel_per_sex(folds):
    df = _subgroup_frame(folds)
    fig = reporting.plot_subgroup_cf_mse(df)
    panels = data_panels(fig)
    assert [ax.get_title() for ax in panels] == ["Female", "Male"]
    means = df.groupby(["method", "subgroup"])["cf_mse"].mean()
    assert {t.get_text() for t in panels[0].get_yticklabels()} == {"White", "Black"}  # shared by both panels
    for ax in panels:
        sex = ax.get_title()
        widths = sorted(round(b.get_width(), 10) for b in _bars(ax))
        expected = sorted(round(v, 10) for (m, sg), v in means.items() if sg.startswith(sex))
        assert widths == expected
    # rows ordered by LTN(acc)'s CF-MSE (over both sexes), largest first
    acc = df[df.method == "ltn_acc"].assign(race=df.subgroup.str.split(", ").str[1]).groupby("race")["cf_mse"].mean()
    assert [t.get_text() for t in panels[0].get_yticklabels()] == list(acc.sort_values(ascending=False).index)
    assert [t.get_text() for t in fig.legends[0].get_texts()] == ["LTN(acc)", "LTN(acc+CF)", "LTN(acc+CF_sg)"]
    # error bars only with several folds
    drawn = [ln for ln in panels[0].lines if np.isfinite(np.asarray(ln.get_xdata(), dtype=float)).any()]
    assert bool(drawn) == (folds > 1)
    check_book_rules(fig, series_colours=[b.get_facecolor() for b in _bars(panels[0])])
    plt.close(fig)


def test_plot_subgroup_cf_mse_log_axis_when_settings_differ_by_orders_of_magnitude():
    df = _subgroup_frame(2)
    df.loc[df.method == "ltn_acc_cf_sg", "cf_mse"] /= 1000
    fig = reporting.plot_subgroup_cf_mse(df)
    assert all(ax.get_xscale() == "log" for ax in data_panels(fig))
    plt.close(fig)
    fig = reporting.plot_subgroup_cf_mse(_subgroup_frame(2), log=None)
    assert all(ax.get_xscale() == "linear" for ax in data_panels(fig))
    plt.close(fig)


def test_plot_subgroup_cf_mse_errors():
    df = _subgroup_frame(1)
    with pytest.raises(DataError, match="no rows for setting"):
        reporting.plot_subgroup_cf_mse(df[df.method != "ltn_acc_cf_sg"])
    with pytest.raises(DataError, match="lacks column"):
        reporting.plot_subgroup_cf_mse(df.drop(columns="cf_mse"))


def _compas_frame(folds: int = 3) -> pd.DataFrame:
    rng = np.random.default_rng(0)
    rows = []
    bands = ["31-45", "46-60", "<=30", ">60"]  # text order, as the records list them
    for d, groups in (
        ("compas", ["Caucasian", "Non-Caucasian"]),
        ("compas_age", [f"{r}, {b}" for r in ("Caucasian", "Non-Caucasian") for b in bands]),
    ):
        for g in groups:
            for i, s in enumerate(reporting.FIGURE4_SETTINGS):
                for f in range(folds):
                    rows.append(
                        {
                            "dataset": d,
                            "subgroup": g,
                            "method": s,
                            "fold": f,
                            "cf_mse": 0.3 - 0.05 * i + rng.uniform(0, 0.02),
                        }
                    )
    return pd.DataFrame(rows)


def test_plot_cf_mse_settings_splits_compas_age_by_race_with_age_bands_in_order():
    df = _compas_frame()
    fig = reporting.plot_cf_mse_settings(df)
    panels = data_panels(fig)
    assert [ax.get_title() for ax in panels] == ["COMPAS", "COMPAS(age): Caucasian", "COMPAS(age): Non-Caucasian"]
    legend = [t.get_text() for t in fig.legends[0].get_texts()]
    assert legend == ["<=30", "31-45", "46-60", ">60", "Caucasian", "Non-Caucasian"]
    handles = fig.legends[0].legend_handles
    assert len({h.get_marker() for h in handles}) == len(handles)  # a distinct marker per line
    # the points are the fold means of each line and setting
    caucasian_young = df[(df.dataset == "compas_age") & (df.subgroup == "Caucasian, <=30")]
    expected = caucasian_young.groupby("method")["cf_mse"].mean().reindex(reporting.FIGURE4_SETTINGS).to_numpy()
    ys = [np.asarray(line.get_ydata(), dtype=float) for line in panels[1].lines if len(line.get_ydata()) == 5]
    assert any(np.allclose(y, expected) for y in ys)
    assert [t.get_text() for t in panels[2].get_xticklabels()] == [
        reporting.method_name(s) for s in reporting.FIGURE4_SETTINGS
    ]
    check_book_rules(fig, series_colours=[h.get_color() for h in handles])
    plt.close(fig)


def test_plot_cf_mse_settings_without_subgroups_draws_one_line():
    df = pd.DataFrame({"method": list(reporting.Q1_SETTINGS), "cf_mse": [0.3, 0.1, 0.05]})
    fig = reporting.plot_cf_mse_settings(df, settings=reporting.Q1_SETTINGS)
    assert len(data_panels(fig)) == 1
    assert [t.get_text() for t in fig.legends[0].get_texts()] == ["overall"]
    plt.close(fig)


def test_plot_undesirable_ratio_hatches_before_and_shows_fold_means():
    rows = []
    for d in ("compas", "compas_age"):
        for group, before, after in (("Caucasian", 0.4, 0.2), ("Non-Caucasian", 0.5, 0.25)):
            for fold in range(2):
                rows += [
                    {
                        "dataset": d,
                        "feature": "age",
                        "group": group,
                        "stage": "before",
                        "ratio": before + 0.01 * fold,
                        "fold": fold,
                    },
                    {
                        "dataset": d,
                        "feature": "age",
                        "group": group,
                        "stage": "after",
                        "ratio": after + 0.01 * fold,
                        "fold": fold,
                    },
                ]
    fig = reporting.plot_undesirable_ratio(pd.DataFrame(rows), threshold=0.1)
    panels = data_panels(fig)
    assert [ax.get_title() for ax in panels] == ["COMPAS: age", "COMPAS(age): age"]
    bars = _bars(panels[0])
    assert sorted(round(b.get_height(), 6) for b in bars) == [0.205, 0.255, 0.405, 0.505]
    hatched = sorted(round(b.get_height(), 6) for b in bars if b.get_hatch())
    assert hatched == [0.405, 0.505]  # the "before" bars
    assert [t.get_text() for t in fig.legends[0].get_texts()] == ["before CKE", "after CKE", "threshold 0.1"]
    check_book_rules(fig, series_colours=[b.get_facecolor() for b in bars])
    plt.close(fig)
    with pytest.raises(DataError, match="lacks column"):
        reporting.plot_undesirable_ratio(pd.DataFrame(rows).drop(columns="stage"))


# ---------------------------------------------------------------------------- Q2 / appendix B
def _records(
    methods=("ltn_acc", "ltn_acc_cf", "cnf", "gan", "pcf"),
    datasets=("adult", "compas", "compas_age", "lawschool"),
    folds=2,
):
    recs = []
    for d in datasets:
        for k, m in enumerate(methods):
            for f in range(folds):
                metrics = {
                    "cf_mse": 0.01 * (k + 1) + 0.001 * f,
                    "cf_mse_worst_subgroup": 0.1,
                    "worst_subgroup": "g",
                    "cf_mse_by_subgroup": {},
                    ("mse" if d == "lawschool" else "accuracy"): 0.7 + 0.01 * k + 0.002 * f,
                }
                recs.append(
                    {
                        "config": {
                            "dataset": d,
                            "fold": f,
                            "setting": m,
                            "profile": "quick",
                            "cf_source": "cnf",
                            "seed": 0,
                            "tag": "",
                            "weights": {"acc": 1.0, "cf": 1.0, "cf_sg": 1.0, "cke": 1.0},
                        },
                        "metrics": metrics,
                    }
                )
    return recs


def test_plot_tradeoff_two_panels_a_row_a_marker_per_method_points_at_fold_means():
    frame = reporting.records_frame(_records())
    fig = reporting.plot_tradeoff(frame)
    panels = data_panels(fig)
    assert [ax.get_title() for ax in panels] == ["Adult", "COMPAS", "COMPAS(age)", "Lawschool"]
    assert panels[3].get_ylabel() == "MSE ↓" and panels[0].get_ylabel() == "accuracy ↑"
    legend = fig.legends[0]
    assert [t.get_text() for t in legend.get_texts()] == ["LTN(acc)", "LTN(acc+CF)", "CNF", "GAN", "Plug-in PCF"]
    dots = [
        line
        for line in panels[0].lines
        if len(line.get_xdata()) == 1 and line.get_marker() not in ("", "None", "|", "_")
    ]
    assert len({line.get_marker() for line in dots}) == 5  # a distinct marker per method
    points = sorted((round(float(line.get_xdata()[0]), 6), round(float(line.get_ydata()[0]), 6)) for line in dots)
    expected = sorted((round(0.01 * (k + 1) + 0.0005, 6), round(0.7 + 0.01 * k + 0.001, 6)) for k in range(5))
    assert points == expected
    check_book_rules(fig, series_colours=style.setting_colours(["ltn_acc", "ltn_acc_cf", "cnf", "gan", "pcf"]))
    plt.close(fig)
    with pytest.raises(DataError, match="no records"):
        reporting.plot_tradeoff(frame.iloc[:0])


def test_plot_weight_trend_a_row_per_dataset_points_at_fold_means():
    rows = []
    for d in ("compas", "lawschool"):
        for r, (p, c) in {-1.0: (0.64, 0.02), 0.0: (0.66, 0.05), 1.0: (0.68, 0.2)}.items():
            for f in range(3):
                rows.append(
                    {
                        "dataset": d,
                        "log2_ratio": r,
                        "fold": f,
                        "accuracy": p + 0.01 * f if d == "compas" else np.nan,
                        "mse": p + 0.01 * f if d == "lawschool" else np.nan,
                        "cf_mse": c + 0.001 * f,
                    }
                )
    fig = reporting.plot_weight_trend(pd.DataFrame(rows))
    panels = data_panels(fig)
    assert len(panels) == 4
    assert [ax.get_ylabel() for ax in panels] == ["accuracy ↑", "CF-MSE ↓", "MSE ↓", "CF-MSE ↓"]
    assert [ax.get_title() for ax in panels] == ["COMPAS", "COMPAS", "Lawschool", "Lawschool"]
    line = max(panels[1].lines, key=lambda ln: len(ln.get_xdata()))
    np.testing.assert_allclose(np.asarray(line.get_ydata(), dtype=float), [0.021, 0.051, 0.201])
    check_book_rules(fig)
    plt.close(fig)
    with pytest.raises(DataError):
        reporting.plot_weight_trend(pd.DataFrame(rows).iloc[:0])


# ---------------------------------------------------------------------------- the datasets page
SIZES = pd.DataFrame(
    {
        "dataset": [
            "COMPAS",
            "COMPAS",
            "COMPAS(age)",
            "COMPAS(age)",
            "COMPAS(age)",
            "COMPAS(age)",
            "Lawschool",
            "Lawschool",
            "Lawschool",
            "Lawschool",
        ],
        "subgroup": [
            "Non-Caucasian",
            "Caucasian",
            "Caucasian, 31-45",
            "Caucasian, >60",
            "Caucasian, <=30",
            "Non-Caucasian, <=30",
            "Male, White",
            "Female, White",
            "Male, Black",
            "Female, Black",
        ],
        "rows": [4000, 2000, 700, 90, 800, 2000, 150, 90, 50, 10],
    }
)


def test_plot_subgroup_sizes_bars_are_row_counts_bands_in_order():
    fig = reporting.plot_subgroup_sizes(
        SIZES, titles={"Lawschool": "Lawschool (sex)"}, legend_titles={"Lawschool": "sex", "COMPAS(age)": "race"}
    )
    compas, age, law = data_panels(fig)
    assert [t.get_text() for t in compas.get_yticklabels()] == ["Non-Caucasian", "Caucasian"]  # largest first
    assert sorted(b.get_width() for b in _bars(compas)) == [2000, 4000]
    assert [t.get_text() for t in age.get_yticklabels()] == ["<=30", "31-45", ">60"]  # bands in order
    assert [t.get_text() for t in law.get_yticklabels()] == ["White", "Black"]
    assert sorted(b.get_width() for b in _bars(law) if b.get_width() > 0) == [10, 50, 90, 150]
    assert law.get_title(loc="left") == "Lawschool (sex)" and law.get_xscale() == "log"
    assert law.get_legend().get_title().get_text() == "sex"
    assert [t.get_text() for t in law.get_legend().get_texts()] == ["Female", "Male"]
    assert compas.get_legend() is None
    check_book_rules(fig, series_colours=[b.get_facecolor() for b in _bars(law)])
    plt.close(fig)
    with pytest.raises(DataError, match="lacks column"):
        reporting.plot_subgroup_sizes(SIZES.drop(columns="rows"))


def test_causal_graphs_follow_the_book_rules():
    nodes, edges = (
        ["race", "sex", "LSAT", "UGPA"],
        [("race", "LSAT"), ("race", "UGPA"), ("sex", "LSAT"), ("sex", "UGPA")],
    )
    fig = reporting.plot_causal_graph(nodes, edges, sensitive="sex", immutable=["race", "sex"], title="toy")
    check_book_rules(fig)
    plt.close(fig)
    many = [f"feature-{i}" for i in range(12)]
    dense = [(a, b) for i, a in enumerate(many) for b in many[i + 1 :]]
    fig = reporting.plot_causal_graph(many, dense)
    assert fig.axes[0].get_images()  # 66 edges: the adjacency matrix
    check_book_rules(fig)
    plt.close(fig)
