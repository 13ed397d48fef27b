"""cffair_book.teaching (the course material) and cffair_book.pages (the chapters' boxes): known answers."""

from __future__ import annotations

import json
from types import SimpleNamespace

import matplotlib

matplotlib.use("Agg")  # tests only

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest
import torch

from cffair.errors import DataError
from cffair.logic import _axioms as logic
from cffair.reporting import _style as style
from cffair_book import pages, teaching


# ---------------------------------------------------------------------------- the toy world
def test_toy_twins_follow_the_structural_causal_model_exactly():
    toy = teaching.toy_loans(n=500, direct=0.8, mediated=1.5, seed=3)
    s, savings = toy.X[:, 0], toy.X[:, 1]
    twin_s, twin_savings = toy.X_twin[:, 0], toy.X_twin[:, 1]
    np.testing.assert_array_equal(twin_s, 1 - s)  # the group flips
    # savings = 1 + 1.5 S + U/2 with the same U: the twin's savings differ by exactly ±1.5
    np.testing.assert_allclose(twin_savings - savings, 1.5 * (twin_s - s), atol=1e-5)
    assert set(np.unique(toy.y)) <= {0.0, 1.0} and len(toy.frame) == 500
    np.testing.assert_allclose(toy.frame["savings"].to_numpy(), savings, atol=1e-5)
    # the same seed gives the same people; twins of twins are the people again
    again = teaching.toy_loans(n=500, direct=0.8, mediated=1.5, seed=3)
    np.testing.assert_array_equal(again.X, toy.X)
    back = np.c_[1 - twin_s, twin_savings + 1.5 * ((1 - twin_s) - twin_s)]
    np.testing.assert_allclose(back, toy.X, atol=1e-5)


def test_toy_direct_effect_makes_group_one_repay_more():
    fair = teaching.toy_loans(n=4000, direct=0.0, mediated=0.0, seed=1).frame
    unfair = teaching.toy_loans(n=4000, direct=2.0, mediated=0.0, seed=1).frame
    gap = lambda f: f[f.group == 1].repaid.mean() - f[f.group == 0].repaid.mean()  # noqa: E731
    assert abs(gap(fair)) < 0.05 and gap(unfair) > 0.5


def test_toy_rejects_bad_input():
    with pytest.raises(DataError, match="n must be an integer of at least 2"):
        teaching.toy_loans(n=1)
    with pytest.raises(DataError, match="direct must be a finite number"):
        teaching.toy_loans(direct=float("nan"))


# ---------------------------------------------------------------------------- connectives and quantifiers
def test_connective_table_known_values():
    t = teaching.connective_table(logic.Semantics(stable=False), [(0.9, 0.8), (0.5, 0.5), (1.0, 0.0)]).set_index(
        ["a", "b"]
    )
    assert t.loc[(0.9, 0.8)].tolist() == pytest.approx([0.1, 0.72, 0.82, 0.82 * 0.92], abs=1e-4)
    assert t.loc[(0.5, 0.5), "a ↔ b"] == pytest.approx(0.5625)
    assert t.loc[(1.0, 0.0), "a → b"] == 0.0


def test_quantifier_table_known_values():
    t = teaching.quantifier_table([0.9, 0.8, 0.1], ps=(1, 2))
    assert t.loc[1].tolist() == pytest.approx([0.6, 0.6], abs=1e-4)  # p = 1: both the mean
    assert t.loc[2, "∀ (p-mean error)"] == pytest.approx(1 - np.sqrt((0.01 + 0.04 + 0.81) / 3), abs=1e-4)
    assert t.loc[2, "∃ (p-mean)"] == pytest.approx(np.sqrt((0.81 + 0.64 + 0.01) / 3), abs=1e-4)
    assert t.attrs == {"minimum": pytest.approx(0.1), "mean": pytest.approx(0.6), "maximum": pytest.approx(0.9)}
    with pytest.raises(DataError, match="no truth values"):
        teaching.quantifier_table([])


# ---------------------------------------------------------------------------- figures
def test_plot_history_draws_a_line_per_formula_and_marks_the_new_stage():
    history = pd.DataFrame(
        {
            "epoch": np.arange(1, 21),
            "stage": ["pretrain"] * 10 + ["fair"] * 10,
            "sat": np.linspace(0.5, 0.9, 20),
            "A1": np.linspace(0.4, 0.95, 20),
            "A4": [np.nan] * 10 + list(np.linspace(0.2, 0.8, 10)),
        }
    )
    fig = teaching.plot_history(history)
    ax = fig.axes[0]
    drawn = [ln for ln in ax.lines if len(ln.get_xdata()) > 2]
    assert len(drawn) == 3
    a4 = next(ln for ln in drawn if len(ln.get_xdata()) == 10)  # A4 only exists in the second stage
    np.testing.assert_allclose(np.asarray(a4.get_ydata(), dtype=float), np.linspace(0.2, 0.8, 10))
    starts = [ln.get_xdata()[0] for ln in ax.lines if len(ln.get_xdata()) == 2 and ln.get_linestyle() == ":"]
    assert starts == [10.5]
    assert [t.get_text() for t in fig.legends[0].get_texts()] == ["sat", "A1", "A4"]
    assert fig.dpi == style.DPI
    plt.close(fig)
    with pytest.raises(DataError, match="lacks column"):
        teaching.plot_history(history.drop(columns="stage"))


def test_plot_equivalence_marks_the_half():
    fig = teaching.plot_equivalence(logic.Semantics())
    ax = fig.axes[0]
    dot = next(ln for ln in ax.lines if len(ln.get_xdata()) == 1)
    assert dot.get_xdata()[0] == 0.5 and dot.get_ydata()[0] == pytest.approx(0.5625, abs=2e-4)
    curve = ax.lines[0]
    assert np.asarray(curve.get_ydata()).min() == pytest.approx(0.5625, abs=2e-4)
    plt.close(fig)


# ---------------------------------------------------------------------------- one person and their twin
def test_pick_twin_takes_the_largest_drop_of_the_gap():
    before = (np.array([0.9, 0.6, 0.2]), np.array([0.1, 0.5, 0.8]))  # gaps 0.8, 0.1, 0.6
    after = (np.array([0.6, 0.6, 0.5]), np.array([0.4, 0.2, 0.5]))  # gaps 0.2, 0.4, 0.0
    assert teaching.pick_twin(*before, *after) == 0  # drops 0.6, -0.3, 0.6: the first of the largest
    assert teaching.pick_twin(*before, after[0], np.array([0.3, 0.2, 0.5])) == 2  # drops 0.5, -0.3, 0.6
    with pytest.raises(DataError, match="equal, non-zero length"):
        teaching.pick_twin(before[0], before[1][:2], *after)


def test_twin_table_marks_what_changed():
    person = pd.Series({"age": 36.0, "sex": "Male", "capital-gain": 15024.0, "capital-loss": -0.000003})
    twin = pd.Series({"age": 36.0, "sex": "Female", "capital-gain": 318.35, "capital-loss": 0.0})
    t = teaching.twin_table(person, twin, {"LTN(acc)": (0.98, 0.12)})
    assert t.loc["sex"].tolist() == ["Male", "Female", "✓"]
    assert t.loc["age", "changed"] == "" and t.loc["capital-loss", "changed"] == ""  # -0.000003 shows as 0
    assert t.loc["capital-gain", "x (the person)"] == "15,024"
    assert t.loc["D under LTN(acc)"].tolist() == ["0.980", "0.120", "|Δ| = 0.860"]
    with pytest.raises(DataError, match="different features"):
        teaching.twin_table(person, twin.drop("age"), {})


# ---------------------------------------------------------------------------- the chapters' boxes
def test_verdict_line_tallies_verdicts_in_order():
    claims = [SimpleNamespace(holds=h) for h in (True, True, False, None)]
    assert (
        pages.verdict_line(claims, "Q1") == "Of the paper's 4 Q1 claims, 2 hold here, 1 does not hold and 1 is pending."
    )
    assert pages.verdict_line([SimpleNamespace(holds=True)], "Q4") == "Of the paper's 1 Q4 claim, 1 holds here."
    mixed = [
        SimpleNamespace(verdict=v, holds=None) for v in ("inconclusive", "holds", "inconclusive", "by construction")
    ]
    assert pages.verdict_line(mixed, "Q2") == (
        "Of the paper's 4 Q2 claims, 1 holds here, 2 are inconclusive and 1 holds by construction."
    )
    with pytest.raises(DataError, match="no claims"):
        pages.verdict_line([], "Q9")
    with pytest.raises(DataError, match="unknown verdict 'maybe'"):
        pages.verdict_line([SimpleNamespace(verdict="maybe")], "Q9")


def _bench(tmp_path, groups):
    path = tmp_path / "regenerate.json"
    path.write_text(json.dumps({"commit": "abcdef1234567", "finished": "2026-12-01T06:00:00Z", "groups": groups}))
    return path


def test_regenerate_facts_formats_measured_and_estimated_times(tmp_path):
    path = _bench(
        tmp_path,
        {
            "q1": {
                "quick": {"wall_seconds": 48.4, "cpu_seconds": 150.0, "load_average": [1.2, 3.46]},
                "full": {"estimate_seconds": 2 * 3600 + 360, "records": 60},
            },
            "q2": {"quick": {"wall_seconds": 130.0}, "full": {"estimate_seconds": 5400.0, "records": 180}},
        },
    )
    from cffair.workflows import _reproduce as reproduce

    held = len(reproduce.results_for("render", ["q1"], missing_ok=True))  # the store is the one source of a count
    assert pages.regenerate_facts("q1", path) == {
        "quick": "48 s",
        "quick_cpu": "2 min",
        "full": "2.1 h",
        "records": str(held),
        "measured": "2026-12-01",
        "load": "3.5",
        "commit": "abcdef1234",
    }
    assert (
        pages.regenerate_facts("q2", path)["load"] == "not recorded" == pages.regenerate_facts("q2", path)["quick_cpu"]
    )
    assert (
        pages.regenerate_facts("q2", path)["quick"] == "2 min" and pages.regenerate_facts("q2", path)["full"] == "1.5 h"
    )
    assert pages.regenerate_facts("q3", path)["quick"] == "not measured yet"
    with pytest.raises(DataError, match="no measurement for 'q3'"):
        pages.regenerate_facts("q3", path, missing_ok=False)
    with pytest.raises(DataError, match="does not exist"):
        pages.regenerate_facts("q1", tmp_path / "none.json", missing_ok=False)
    bad = tmp_path / "bad.json"
    bad.write_text("{\n  oops")
    with pytest.raises(DataError, match=r"not valid JSON \(line 2, column 3\)"):
        pages.regenerate_facts("q1", bad)
    frame = pages.regenerate_frame(path, base="notebooks/")
    assert list(frame["chapter"])[0] == "[Q1: counterfactual fairness](notebooks/q1_counterfactual_fairness.md)"
    assert list(frame["command"])[1] == "`.venv/bin/cffair reproduce --only q2 --mode quick`"  # as every page writes it
    assert len(frame) == len(pages.CHAPTERS)
    assert list(frame["quick: wall-clock"]) == [
        "48 s (load 3.5)",
        "2 min",
        *["not measured yet"] * (len(pages.CHAPTERS) - 2),
    ]
    assert list(frame["quick: CPU time"])[:2] == ["2 min", "not recorded"]


def test_provenance_badge_says_where_the_numbers_come_from():
    prov = {"commit": "de49a88069aee6c5", "finished": "2026-11-30T12:12:36Z", "machine": {"cpus": 2}}
    badge = pages.provenance_badge(prov, records=264, wanted=264)
    assert str(badge) == "results/full: commit de49a88 · 2026-11-30 · 264 of 264 records · 2 CPUs"
    assert (
        "cffair-badge-complete" in badge._repr_html_() and "style=" not in badge._repr_html_()
    )  # complete: green (the CSS)
    partial = pages.provenance_badge(prov, records=200, wanted=264)
    assert "cffair-badge-partial" in partial._repr_html_() and "200 of 264 records" in str(partial)
    with pytest.raises(DataError, match="no commit"):
        pages.provenance_badge({}, records=1, wanted=1)


def test_the_toy_knowledge_base_trains_in_seconds_and_a4_lowers_the_gap():
    torch.set_num_threads(1)
    from cffair.learners._training import LTNLearner

    toy = teaching.toy_loans(n=300, seed=0)
    gaps = {}
    for setting in ("acc", "acc_cf"):
        learner = LTNLearner(
            setting=setting, pretrain_epochs=150, fair_epochs=150, hidden=(8,), lr=0.01, progress=False
        )
        learner.fit(toy.X, toy.y, pairs=(toy.X, toy.X_twin))
        gaps[setting] = float(np.mean((learner.predict_d(toy.X) - learner.predict_d(toy.X_twin)) ** 2))
    assert gaps["acc_cf"] < 0.5 * gaps["acc"]


def test_the_freshness_box_is_a_tip_when_every_record_is_fresh_and_says_why_when_not() -> None:
    from cffair.workflows._reproduce import Freshness

    fresh = Freshness(pd.DataFrame({"state": ["fresh", "fresh"], "reasons": [[], []]}), "results/full")
    box = str(pages.freshness_box(fresh))
    assert 'class="admonition tip"' in box and "All 2 records behind this page are fresh" in box
    stale = Freshness(
        pd.DataFrame(
            {
                "state": ["fresh", "stale", "stale", "missing"],
                "reasons": [
                    [],
                    ["code of cffair.learners._training changed"],
                    ["input counterfactuals: its content changed"],
                    [],
                ],
            }
        ),
        "results/full",
    )
    box = str(pages.freshness_box(stale))
    assert 'class="admonition warning"' in box and "3 of 4 records behind this page are not" in box
    assert "(1 missing, 2 stale)" in box
    assert "<li>the code changed in 1 module: cffair.learners._training</li>" in box
    assert "<li>input counterfactuals: its content changed (1 record)</li>" in box
    assert "<li>1 record is missing.</li>" in box
    # the count stays visible, the three reasons are folded beneath it (a short box on a phone)
    assert box.index("3 of 4 records") < box.index("<details><summary>3 reasons</summary><ul>") < box.index("<li>")
    assert "<details>" not in str(pages.freshness_box(fresh))
    assert repr(stale) == "Freshness(1 fresh, 1 missing, 2 stale in results/full)"
    # more reasons than the box lists: the command that lists them all is code in the box, not backticks
    many = Freshness(pd.DataFrame({"state": ["stale"] * 8, "reasons": [[f"reason {i}"] for i in range(8)]}), "r")
    box = str(pages.freshness_box(many))
    assert "… and 2 more reasons: <code>.venv/bin/cffair results --mode full --all</code> lists them" in box
    assert "`" not in box
