"""Verdicts with five states from paired folds, the tally, and the investigations' frames, findings and figures."""

from __future__ import annotations

import math

import matplotlib

matplotlib.use("Agg")

import numpy as np
import pandas as pd
import pytest

import cffair_book as book
from cffair import reporting
from cffair.errors import DataError
from cffair.reporting import _verdicts as V


def _rec(
    dataset,
    setting,
    fold=0,
    *,
    tag="",
    options=None,
    w_acc=1.0,
    w_cf=1.0,
    perf=0.7,
    cf=0.1,
    worst=0.2,
    flips=None,
    **extra,
):
    metrics = {
        "cf_mse": cf,
        "cf_mse_worst_subgroup": worst,
        "worst_subgroup": "g1",
        "n_pairs": 100,
        "cf_mse_by_subgroup": {"g0": cf / 2, "g1": worst},
    }
    if flips is not None:
        metrics["cf_flip_rate"] = flips
    metrics["mse" if dataset == "lawschool" else "accuracy"] = perf
    cfg = {
        "dataset": dataset,
        "fold": fold,
        "setting": setting,
        "profile": "full",
        "cf_source": "cnf",
        "seed": 0,
        "tag": tag,
        "weights": {"acc": w_acc, "cf": w_cf, "cf_sg": 1.0, "cke": 1.0},
    }
    if options:
        cfg["options"] = dict(options)
    return {"config": cfg, "metrics": metrics, **extra}


# ---------------------------------------------------------------------------- the rules
def test_paired_t_test_over_folds_by_hand():
    # differences 0.05, 0.05, 0.03, 0.05, 0.06: mean 0.048, sd 0.011 -> plain t = 9.8, p < 0.001;
    # corrected t = 0.048 / sqrt((1/5 + 1/4) · 0.011²) = 6.53, p 0.0028; no sign-flip p: one partition
    r = V.paired([0.70, 0.71, 0.69, 0.72, 0.70], [0.65, 0.66, 0.66, 0.67, 0.64], larger=True)
    assert (r.n, r.verdict, r.test) == (5, V.HOLDS, "corrected") and r.mean == pytest.approx(0.048)
    assert r.p_plain < 0.001 and r.p == r.p_corrected == pytest.approx(0.0028378, rel=1e-4) and math.isnan(r.p_sign)
    assert (
        V.paired([0.70, 0.71, 0.69, 0.72, 0.70], [0.65, 0.66, 0.66, 0.67, 0.64], larger=True, test="plain").p
        == r.p_plain
    )
    assert V.paired([0.70, 0.71, 0.69, 0.72, 0.70], [0.65, 0.66, 0.66, 0.67, 0.64], larger=False).verdict == V.FAILS
    # a mean difference below its noise (Q1.4's kind: 0.003 with a larger sd) is inconclusive
    noisy = V.paired([0.681, 0.690, 0.675, 0.684, 0.672], [0.678, 0.693, 0.670, 0.680, 0.676], larger=True)
    assert noisy.verdict == V.INCONCLUSIVE and noisy.p > 0.05
    from scipy import stats

    assert noisy.p_plain == pytest.approx(
        stats.ttest_rel([0.681, 0.690, 0.675, 0.684, 0.672], [0.678, 0.693, 0.670, 0.680, 0.676]).pvalue
    )
    # one fold: the sign decides; NaN folds are left out
    one = V.paired([0.5, np.nan], [0.4, 0.3], larger=True)
    assert (one.n, one.verdict) == (1, V.HOLDS) and "1 fold" in one.text
    with pytest.raises(ValueError, match="no fold has both values"):
        V.paired([np.nan], [1.0], larger=True)


def test_combine():
    assert V.combine([V.HOLDS, V.HOLDS]) == V.HOLDS
    assert V.combine([V.HOLDS, V.INCONCLUSIVE]) == V.INCONCLUSIVE
    assert V.combine([V.HOLDS, V.INCONCLUSIVE, V.FAILS]) == V.FAILS
    assert V.combine([]) == V.PENDING


def test_exact_spearman_needs_enough_points():
    t7 = V.spearman_exact(range(7), [0.1, 0.2, 0.25, 0.3, 0.5, 0.55, 0.9])
    assert t7.rho == 1.0 and t7.p == pytest.approx(2 / 5040) and t7.verdict(rising=True) == V.HOLDS
    assert t7.verdict(rising=False) == V.FAILS
    t3 = V.spearman_exact([-1, 0, 1], [1, 2, 3])
    assert (
        t3.rho == 1.0 and t3.p == pytest.approx(1 / 3) and t3.verdict(rising=True) == V.INCONCLUSIVE
    )  # 3 points never suffice
    assert np.isnan(V.spearman_exact([1, 2, 3], [1, 1, 1]).rho)


# ---------------------------------------------------------------------------- claims, verdicts and the tally
def test_claims_carry_five_verdicts_and_the_tally_counts_them():
    claims = [
        book.Claim("a", holds=True),
        book.Claim("b", verdict=V.VACUOUS),
        book.Claim("c", verdict=V.INCONCLUSIVE),
        book.Claim("d", verdict=V.BY_CONSTRUCTION),
        {"claim": "e", "holds": False},
        book.Claim("f"),
    ]
    table = book.claims_table(claims)
    assert list(table.frame["status"]) == [
        "✔ holds",
        "∅ vacuous",
        "≈ inconclusive",
        "⊢ by construction",
        "✘ does not hold",
        "pending",
    ]
    assert book.Claim("b", verdict=V.HOLDS).holds is True and book.Claim("b", verdict=V.VACUOUS).holds is None
    tally = book.claims_tally(claims)
    assert tally.counts == {V.HOLDS: 1, V.FAILS: 1, V.INCONCLUSIVE: 1, V.VACUOUS: 1, V.BY_CONSTRUCTION: 1, V.PENDING: 1}
    assert str(tally) == "6 claims: 1 holds, 1 does not hold, 1 inconclusive, 1 vacuous, 1 by construction, 1 pending."
    assert "<strong>6 claims</strong>" in tally._repr_html_()
    assert (
        "corrected resampled t-test (Nadeau &amp; Bengio 2003" in table.html
        and "Holm" in table.html
        and "<tfoot>" in table.html
    )
    assert "<tfoot>" not in book.claims_table(claims, rule=False).html
    with pytest.raises(DataError, match="verdict='maybe'"):
        book.claims_table([book.Claim("x", verdict="maybe")])


def _five_folds(dataset, setting, perf, cf, **kw):
    return [_rec(dataset, setting, f, perf=p, cf=c, **kw) for f, (p, c) in enumerate(zip(perf, cf))]


def test_a_difference_within_fold_noise_is_inconclusive():
    """Q1.4 on 5 folds: a mean gain of 0.001 with fold differences of ±0.01 is inconclusive,
    a consistent gain of 0.01 holds."""
    base = [0.68, 0.69, 0.67, 0.68, 0.69]
    recs = _five_folds("compas", "ltn_acc_cf", base, [0.03] * 5)
    recs += _five_folds(
        "compas", "ltn_acc_cf_sg", [b + d for b, d in zip(base, (0.01, -0.01, 0.012, -0.009, 0.002))], [0.02] * 5
    )
    c = {x.key: x for x in book.evaluate_claims(recs)}
    assert c["Q1.4"].verdict == V.INCONCLUSIVE and "p 0." in c["Q1.4"].note
    recs = _five_folds("compas", "ltn_acc_cf", base, [0.03] * 5)
    recs += _five_folds(
        "compas", "ltn_acc_cf_sg", [b + d for b, d in zip(base, (0.01, 0.011, 0.009, 0.01, 0.012))], [0.02] * 5
    )
    assert {x.key: x for x in book.evaluate_claims(recs)}["Q1.4"].verdict == V.HOLDS


def _cke(dataset, fold, added=(), explain=None, forced=None, options=None, steps=None, setting="ltn_acc_cf_cke"):
    steps = steps or [{"step": 0, "axiom": "-", "accuracy": 0.68, "cf_mse": 0.03, "cf_mse_worst_subgroup": 0.04}] + [
        {"step": i + 1, "axiom": a, "accuracy": 0.67, "cf_mse": 0.02, "cf_mse_worst_subgroup": 0.03}
        for i, a in enumerate(added)
    ]
    imb = [{"group": "Non-Caucasian", "feature": "age", "frequency": 0.3, "others_max": 0.24, "imbalance": 0.06}]
    cke = {"threshold": 0.1, "candidates": [], "imbalances_before": imb, "imbalances_after": imb, "steps": steps}
    if explain:
        cke["explain_all"] = explain
        cke["forced"] = forced
    return _rec(
        dataset, setting, fold, options=options, cke=cke, perf=0.68, cf=0.03 if setting == "ltn_acc_cf_cke" else 0.02
    )


def _explain(priors_before, priors_after, age_after):
    row = lambda g, f, imb: {"group": g, "feature": f, "frequency": 0.5, "others_max": 0.5 - imb, "imbalance": imb}  # noqa: E731
    return {
        "features": ["age", "priors-count"],
        "immutable": ["age"],
        "imbalances_before": [row("Non-Caucasian", "age", 0.06), row("Caucasian", "priors-count", priors_before)],
        "imbalances_after": [row("Non-Caucasian", "age", age_after), row("Caucasian", "priors-count", priors_after)],
    }


def test_claims_about_an_axiom_never_added_are_vacuous_and_quote_the_forced_run():
    recs = []
    for f in range(5):
        for s, p, c in (("ltn_acc_cf", 0.68, 0.03), ("ltn_acc_cf_sg", 0.68, 0.02)):
            recs.append(_rec("compas", s, f, perf=p, cf=c))
        recs.append(_cke("compas", f))  # no A5 axiom: the setting equals its parent
        recs.append(_cke("compas", f, setting="ltn_acc_cf_sg_cke"))
        recs.append(
            _cke(
                "compas",
                f,
                ["A5[Non-Caucasian, age]"],
                _explain(0.05, 0.08 + 0.01 * f, 0.01),
                [{"group": "Non-Caucasian", "feature": "age", "imbalance": 0.06}],
                {"cke_top": 1, "explain": "all"},
            )
        )
    c = {x.key: x for x in book.evaluate_claims(recs)}
    for k in ("Q3.2", "Q3.3", "Q3.4"):
        assert (
            c[k].verdict == V.VACUOUS and "no A5 axiom was added in any of the 10 distinct COMPAS CKE runs" in c[k].note
        ), k
    assert "priors-count 0.050 → 0.100 (holds)" in c["Q3.2"].note  # it widens on every fold
    assert "CF-MSE 0.030 → 0.020 (over 5 folds, p " in c["Q3.3"].note
    assert (
        c["Q3.1"].verdict == V.FAILS
        and "0 of 5 runs" in c["Q3.1"].note
        and "turned into an A5 axiom on 5 folds" in c["Q3.1"].note
    )
    # the investigation's runs stay out of the protocol's tables and Figure 4
    assert reporting.cke_candidates(recs)["setting"].eq("ltn_acc_cf_cke").sum() == 5
    assert (
        reporting.undesirable_ratio_frame(recs, "compas")["fold"].value_counts().max() == 2
    )  # before and after, one run a fold


def test_queries_drawn_at_random_decide_q4_on_the_querys_own_truth_value():
    eq2 = lambda found, sat: [
        {
            "subgroup": s,
            "beta": 3.0,
            "sat": sat,
            "x_hat_rule": "random",
            "witness_share": 0.9,
            "n_negative": 50,  # noqa: E731
            "query_row": [{"D": 0.1}],
            "neighbours": [{"D": 0.9}] if found else [],
        }
        for s in reporting.TABLE4_PAPER_SAT
    ]
    # a neighbour within β whose decision differs only a little leaves equation (2) false: satisfaction 0.005
    for found, sat, verdict, true in ((True, 0.9, V.HOLDS, 4), (True, 0.005, V.FAILS, 0), (False, 0.2, V.FAILS, 0)):
        recs = [_rec("adult", "ltn_acc_cf", options={"x_hat": "random"}, queries={"eq2": eq2(found, sat), "eq3": {}})]
        c = {x.key: x for x in book.evaluate_claims(recs)}["Q4.1"]
        assert c.verdict == verdict and "drawn at random" in c.note and "90.0 % of 50" in c.note
        assert f"lies within β in {4 if found else 0} of 4 subgroups" in c.note
        assert f"the query's satisfaction is above 0.5 in {true} of 4" in c.note


def test_b1_is_decided_on_the_finer_grid_and_needs_five_points():
    recs = []
    for f in range(3):
        for wa, wc in ((27, 1), (9, 1), (3, 1), (1, 1), (1, 3), (1, 9), (1, 27)):
            r = np.log2(wa / wc)
            tag = "" if wa == wc else f"w{wa}-{wc}"
            recs.append(
                _rec(
                    "compas",
                    "ltn_acc_cf",
                    f,
                    tag=tag,
                    options={"fair_p": 1.0},
                    w_acc=wa,
                    w_cf=wc,
                    perf=0.66 + 0.003 * r + 0.001 * f,
                    cf=0.02 + 0.004 * (r + 5),
                )
            )
    c = {x.key: x for x in book.evaluate_claims(recs)}["B.1"]
    assert c.verdict == V.HOLDS and "COMPAS (7 weight points × 3 folds)" in c.note
    # the finer grid never enters Table 6's weight grid
    assert reporting.weight_grid_frame(recs).empty
    coarse = [
        _rec("adult", "ltn_acc_cf", tag=t, w_acc=a, w_cf=b, perf=0.8 + 0.01 * a / b, cf=0.04 * a / b)
        for t, a, b in (("", 1, 1), ("w3-1", 3, 1), ("w1-3", 1, 3))
    ]
    c = {x.key: x for x in book.evaluate_claims(coarse)}["B.1"]
    assert c.verdict == V.INCONCLUSIVE and "too few points to test" in c.note
    # a dataset whose finer grid has fewer points than its coarse one is read on the coarse one
    fine2 = [
        _rec("adult", "ltn_acc_cf", tag=t, options={"fair_p": 1.0}, w_acc=a, w_cf=b, perf=0.8, cf=0.04)
        for t, a, b in (("", 1, 1), ("w1-9", 1, 9))
    ]
    c = {x.key: x for x in book.evaluate_claims(coarse + fine2)}["B.1"]
    assert "Adult (3 weight points" in c.note


# ---------------------------------------------------------------------------- frames, findings, figures
def _q2_records():
    recs = []
    for f in range(3):
        recs.append(_rec("compas", "ltn_acc_cf", f, perf=0.68, cf=0.028, flips=None))  # the committed run: no flip rate
        recs.append(_rec("compas", "ltn_acc_cf", f, options={"fair_p": 1.0}, perf=0.68, cf=0.027, flips=0.03))
        recs.append(_rec("compas", "ltn_acc_cf", f, options={"fair_p": 6.0}, perf=0.675, cf=0.004, flips=0.01))
        recs.append(_rec("compas", "ltn_acc_cf", f, options={"lr": 0.1}, perf=0.59, cf=0.03, flips=0.03))
        recs.append(
            _rec(
                "compas",
                "ltn_acc_cf",
                f,
                tag="w1-9",
                options={"fair_p": 1.0},
                w_cf=9.0,
                perf=0.67,
                cf=0.010,
                flips=0.012,
            )
        )
        recs.append(_rec("compas", "cnf", f, perf=0.67, cf=0.0055, flips=0.08))
    # Adult: variants on fold 0 only, the baseline on three folds (read on fold 0 beside them)
    recs.append(_rec("adult", "ltn_acc_cf", 0, options={"fair_p": 1.0}, perf=0.80, cf=0.05, flips=0.02))
    recs += [_rec("adult", "cnf", f, perf=0.83 + 0.01 * f, cf=0.01 * (f + 1), flips=0.05) for f in range(3)]
    return recs


def test_variants_frame_finding_and_summary():
    v = reporting.variants_frame(_q2_records())
    assert set(v["kind"]) == {"paper", "variant"}
    assert set(v.loc[v["kind"] == "variant", "label"]) == {
        "reference (A4 exponent p = 1)",
        "A4 exponent p = 6",
        "lr 0.1",
        "weights acc 1 : CF 9",
    }
    assert (
        v.loc[v["label"] == "A4 exponent p = 6", "fair_p"].eq(6.0).all()
        and v.loc[v["label"] == "lr 0.1", "lr"].eq(0.1).all()
    )
    s = book.q2_summary(v, "compas")
    assert s.iloc[0]["label"] == "A4 exponent p = 6"  # lowest CF-MSE first
    # the paper's own LTN(acc+CF) run is left out beside its variants (p = 1 is the same model)
    assert set(s.loc[s["method"] == "ltn_acc_cf", "kind"]) == {"variant"} and set(
        s.loc[s["method"] == "cnf", "kind"]
    ) == {"paper"}
    t = book.q2_table(v, "compas")
    assert t.loc["CNF", "CF flip rate ↓"] == "8.0 %" and t.loc["LTN(acc+CF): A4 exponent p = 6", "folds"] == 3
    # where the variants ran on fold 0 only, the baselines are read on fold 0 too
    a = book.q2_summary(v, "adult").set_index("method")
    assert (
        a.loc["cnf", "folds"] == 1
        and a.loc["cnf", "perf"] == pytest.approx(0.83)
        and a.loc["cnf", "cf_mse"] == pytest.approx(0.01)
    )
    finding = book.q2_finding(v)
    assert (
        "the reference LTN(acc+CF) (A4 exponent p = 1, run beside the variants) has CF-MSE 0.027 against CNF's 0.006"
        in finding
    )
    assert "flips 3.0 % of the decisions against CNF's 8.0 %" in finding
    assert "1 of 4 variants reach CNF's CF-MSE (“A4 exponent p = 6”)" in finding and "lr 0.1" in finding
    assert "CF-MSE per changed decision is 0.90 (nearly full 0 ↔ 1 jumps) for the LTN and 0.07 (small shifts" in finding
    assert "CF-MSE 0.050 against CNF's 0.010" in book.q2_finding(v, "adult")
    assert book.q2_finding(v, "lawschool") == ""
    # investigation records never enter the protocol's tables, and never restrict its folds
    long = reporting.results_long(_q2_records(), "table1")
    assert set(long["method"]) == {"ltn_acc_cf", "cnf"}
    assert long.loc[
        (long.method == "ltn_acc_cf") & (long.metric == "cf_mse") & (long.dataset == "compas"), "mean"
    ].iloc[0] == pytest.approx(0.028)
    asked = _rec("compas", "ltn_acc_cf", 0, options={"x_hat": "random"}, perf=0.68, cf=0.027, flips=0.03)
    assert len(reporting.variants_frame(_q2_records() + [asked])) == len(v)  # the paper's model asked query (2) again
    only_fold0 = _q2_records() + [
        _rec("compas", "ltn_acc_cf", 0, options={"x_hat": "random"}),
        _rec("compas", "beyond", 0),
    ]
    assert {r["config"]["fold"] for r in reporting.paired_folds(only_fold0)} == {0, 1, 2}  # neither drops folds 1 and 2


def test_pareto_front():
    pts = pd.DataFrame({"x": [0.01, 0.02, 0.03, 0.005], "y": [0.67, 0.70, 0.69, 0.60]})
    front = book.pareto_front(pts, "x", "y")
    assert list(front.index) == [3, 0, 1]  # (0.03, 0.69) is beaten by (0.02, 0.70)


def test_explanation_and_threshold_frames():
    recs = [
        _cke(
            "compas",
            f,
            ["A5[Non-Caucasian, age]"],
            _explain(0.05, 0.07, 0.01),
            [{"group": "Non-Caucasian", "feature": "age", "imbalance": 0.06}],
            {"cke_top": 1, "explain": "all"},
        )
        for f in range(2)
    ]
    recs.append(_cke("compas", 0))
    e = reporting.explanation_frame(recs)
    assert len(e) == 2 * 2 * 2 and e.loc[e["feature"] == "age", "immutable"].all() and e["forced"].sum() == 4
    sweep = reporting.threshold_sweep_frame(recs, [0.01, 0.05, 0.1])
    prot = sweep[(sweep["features"] == "immutable")].set_index("threshold")["n"]
    assert prot.to_dict() == {0.01: 1, 0.05: 1, 0.1: 0}  # the protocol's run: age 0.06 only
    every = sweep[(sweep["features"] == "every attribute") & (sweep["fold"] == 0)].set_index("threshold")["n"]
    assert every.to_dict() == {0.01: 2, 0.05: 2, 0.1: 0}
    finding = book.cke_finding(e, recs)
    assert "(Non-Caucasian, age)" in finding["axiom"] and finding["axiom"].endswith("its imbalance +0.060 → +0.010")
    assert finding["others"].endswith("priors-count 0.050 → 0.070 (holds)")


@pytest.mark.parametrize("draw", ["variants", "imbalances", "sweep"])
def test_investigation_figures_draw_what_they_are_given(draw):
    import matplotlib.pyplot as plt

    if draw == "variants":
        fig = book.plot_variants(reporting.variants_frame(_q2_records()), "compas")
        assert len(fig.axes) == 2 and fig.axes[1].get_xlabel().startswith("flip rate")
        assert len(fig.axes[0].lines) == 6  # four variants, CNF and the Pareto front
        styles = {(ln.get_color(), ln.get_marker()) for ln in fig.axes[0].lines[:-1]}
        assert len(styles) == 5  # every series is told apart by colour and marker
        assert fig.axes[0].xaxis.get_major_formatter()(0.02, 0) == "0.02"
        with pytest.raises(DataError, match="run the q2_why group"):
            book.plot_variants(reporting.variants_frame(_q2_records()), "lawschool")
    elif draw == "imbalances":
        recs = [
            _cke(
                "compas",
                0,
                ["A5[Non-Caucasian, age]"],
                _explain(0.05, 0.07, 0.01),
                [{"group": "Non-Caucasian", "feature": "age", "imbalance": 0.06}],
                {"cke_top": 1, "explain": "all"},
            )
        ]
        fig = book.plot_explanation_imbalances(reporting.explanation_frame(recs))
        labels = [t.get_text() for t in fig.axes[0].get_xticklabels()]
        assert labels == ["age *", "priors-count"] and len(fig.axes[0].patches) == 2 * 2
    else:
        sweep = reporting.threshold_sweep_frame([_cke("compas", 0)], [0.01, 0.1])
        fig = book.plot_threshold_sweep(sweep)
        assert fig.axes[0].get_xscale() == "log"
    plt.close("all")


def test_the_query_summary_has_display_names_not_ids():
    from cffair_book import investigations as inv

    queries = pd.DataFrame(
        {
            "dataset": ["adult"] * 2,
            "subgroup": ["Male, White"] * 2,
            "rule": ["nearest", "random"],
            "beta": [5.0, 5.0],
            "sat": [0.2, 0.3],
            "found": [True, False],
            "witness_share": [1.0, 0.25],
            "n_negative": [10, 10],
        }
    )
    out = inv.query_summary(queries)
    assert list(out.columns) == list(inv.QUERY_COLUMNS.values()) and list(out.index.names) == ["subgroup", "x̂ chosen"]
    assert not [c for c in [*out.columns, *out.index.get_level_values(1)] if "_" in c]
    row = out.loc[("Male, White", "drawn at random")]
    assert (
        row["someone within β"] == "no"
        and row["share with someone within β"] == "25.0 %"
        and row["satisfaction"] == 0.3
    )


def test_threshold_reach_counts_the_folds_whose_largest_imbalance_reaches_the_papers_threshold():
    from cffair_book.investigations import threshold_reach

    e = pd.DataFrame(
        {
            "dataset": ["compas"] * 4 + ["adult"],
            "fold": [0, 0, 1, 1, 0],
            "stage": ["before", "after", "before", "before", "before"],
            "group": "g",
            "feature": ["priors-count", "priors-count", "age", "sex", "age"],
            "imbalance": [0.12, 0.30, 0.04, 0.09, 0.5],
        }
    )
    assert threshold_reach(e) == (
        "Before the A5 axiom, an imbalance reaches the paper's threshold of 0.1 on COMPAS in 1 of 2 folds "
        "(the largest: 0.120 on priors-count, fold 0): there the extraction would fire."
    )  # the 0.30 after the axiom and Adult's 0.5 do not count
    assert threshold_reach(e, "lawschool") == ""
