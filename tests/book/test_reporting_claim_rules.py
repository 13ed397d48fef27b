"""Each verdict rule decides what its claim's rule says: constructed records for every branch.

The rules (issue 24): a comparison by the corrected resampled t-test over every paired fold of
every repetition; a claim's comparisons corrected with Holm; COMPAS(age) counted only where its
subgroups make it differ; B.1 by its majority rule over datasets with five weight points or
more; Q3.6 over every Lawschool CKE run of both fairness settings.
"""

from __future__ import annotations

import math
import re

import machines
import numpy as np
import pytest

import cffair_book as book
from cffair import reporting
from cffair.reporting import _verdicts as V

JITTER = np.array([0.004, -0.003, 0.001, -0.002, 0.0])


def _rec(
    dataset,
    setting,
    fold=0,
    *,
    repeat=0,
    tag="",
    options=None,
    w_acc=1.0,
    w_cf=1.0,
    perf=0.7,
    cf=0.1,
    worst=0.2,
    cf_source="cnf",
    **extra,
):
    metrics = {
        "cf_mse": cf,
        "cf_mse_worst_subgroup": worst,
        "worst_subgroup": "g1",
        "n_pairs": 100,
        "cf_mse_by_subgroup": {"g0": cf / 2, "g1": worst},
    }
    metrics["mse" if dataset == "lawschool" else "accuracy"] = perf
    cfg = {
        "dataset": dataset,
        "fold": fold,
        "setting": setting,
        "profile": "full",
        "cf_source": cf_source,
        "seed": 0,
        "tag": tag,
        "weights": {"acc": w_acc, "cf": w_cf, "cf_sg": 1.0, "cke": 1.0},
    }
    if options:
        cfg["options"] = dict(options)
    if repeat:
        cfg["repeat"] = repeat
    return {"config": cfg, "metrics": metrics, **extra}


def _claims(recs, **rules):
    return {c.key: c for c in book.evaluate_claims(recs, rules_=V.Rules(**rules) if rules else None)}


def _paired(p, mean, larger=True, n=5):
    """A comparison with a given p-value and sign (its own verdict at 0.05)."""
    own = V.INCONCLUSIVE if p >= 0.05 else (V.HOLDS if (mean > 0) == larger else V.FAILS)
    return V.Paired(n, mean, 0.01, p, own, larger)


# ---------------------------------------------------------------------------- decide: Holm within a claim
def test_decide_all_rejected_in_the_claimed_direction_holds():
    d = V.decide(
        [_paired(0.001, 0.1), _paired(0.02, 0.1), _paired(0.04, 0.1)]
    )  # 0.001 < 0.05/3, 0.02 < 0.05/2, 0.04 < 0.05
    assert d.verdict == V.HOLDS and d.components == (V.HOLDS,) * 3
    assert d.basis == V.Basis("corrected t-test, Holm over 3", "5 per comparison")


def test_decide_holm_turns_a_borderline_claim_inconclusive():
    tests = [_paired(0.01, 0.1), _paired(0.04, 0.1), _paired(0.03, 0.1)]
    held = V.decide(tests)
    assert held.verdict == V.INCONCLUSIVE and held.components == (V.HOLDS, V.INCONCLUSIVE, V.INCONCLUSIVE)
    assert held.adjusted == pytest.approx((0.03, 0.06, 0.06))
    with V.rules(V.Rules(holm=False)):  # each at 0.05, as before
        assert V.decide(tests).verdict == V.HOLDS


def test_decide_one_rejection_against_the_claim_does_not_hold_unless_holm_keeps_it():
    # Q1.4's shape: one comparison of three against the claim at p 0.022
    tests = [_paired(0.176, 0.008), _paired(0.749, -0.001), _paired(0.022, -0.004)]
    assert V.decide(tests).verdict == V.INCONCLUSIVE  # 0.022 ≥ 0.05/3
    with V.rules(V.Rules(holm=False)):
        assert V.decide(tests).verdict == V.FAILS
    assert V.decide([_paired(0.001, -0.004), _paired(0.3, 0.01)]).verdict == V.FAILS  # 0.001 < 0.05/2


def test_decide_one_fold_counts_by_its_sign_and_nothing_is_pending():
    one = V.paired([0.5], [0.4], larger=True)
    assert V.decide([one]).verdict == V.HOLDS and V.decide([one]).basis.test == "sign of one fold"
    assert V.decide([one, _paired(0.001, 0.1)]).verdict == V.HOLDS
    assert V.decide([]).verdict == V.PENDING


def test_paired_carries_both_tests_and_the_sign_flip_p_over_partitions_only():
    a, b = [0.70, 0.71, 0.69, 0.72, 0.70], [0.65, 0.66, 0.66, 0.67, 0.64]
    r = V.paired(a, b, larger=True)
    # one partition: no sign-flip p (its one partition mean has two signs that tie)
    assert r.p == r.p_corrected > r.p_plain and math.isnan(r.p_sign) and r.test == "corrected"
    assert "sign-flip" not in V.p_text(r) and "over 5 folds" in r.text
    # 3 partitions of 5 folds, every difference positive: 15 folds would give 2/2¹⁵, 3 partition means give 2/8
    r3 = V.paired(a * 3, b * 3, larger=True, partitions=[0] * 5 + [1] * 5 + [2] * 5)
    assert r3.p_sign == 0.25 and r3.repetitions == 3 and "sign-flip over 3 partitions 0.250" in V.p_text(r3)
    with V.rules(V.Rules(test="plain")):
        assert V.paired(a, b, larger=True).p == r.p_plain
    with pytest.raises(ValueError, match="unknown test"):
        V.Rules(test="welch")


# ---------------------------------------------------------------------------- repetitions
def _q1_records(datasets, gap, repeats=1, sd=1.0):
    recs = []
    for d in datasets:
        for r in range(repeats):
            for f in range(5):
                j = sd * JITTER[(f + r) % 5]
                recs += [_rec(d, "ltn_acc", f, repeat=r, cf=0.1), _rec(d, "ltn_acc_cf", f, repeat=r, cf=0.1 - gap + j)]
    return recs


def test_a_comparison_uses_every_repetition_with_the_correction_for_repeated_cv():
    recs = _q1_records(["compas"], 0.003, repeats=3)
    e = V.Evidence.of(recs)
    r = e.compare("compas", "ltn_acc_cf", "ltn_acc", "cf_mse", larger=False)
    assert (r.n, r.repetitions, r.folds) == (15, 3, "15 folds (3 × 5)")
    d = e.folds("compas", "ltn_acc_cf", "cf_mse").to_numpy() - e.folds("compas", "ltn_acc", "cf_mse").to_numpy()
    t = d.mean() / math.sqrt((1 / 15 + 1 / 4) * d.var(ddof=1))
    from scipy import stats

    assert r.p == pytest.approx(2 * stats.t.sf(abs(t), 14))
    c = _claims(recs)["Q1.1"]
    assert c.folds == "15 (3 × 5)" and c.test == "corrected t-test"
    # the same gap on the paper's one partition: 5 folds
    one = _claims(_q1_records(["compas"], 0.003))["Q1.1"]
    assert one.folds == "5"
    # the tables keep the paper's partition; the verdicts read every repetition
    assert set(reporting.select_records(reporting.records_frame(recs))["repeat"]) == {0}
    assert len(reporting.paired_folds(recs)) == len(recs)


def test_more_folds_decide_what_five_cannot():
    # a small, steady gap: inconclusive on 5 corrected folds, holds on 15
    five, fifteen = (
        _claims(_q1_records(["lawschool"], 0.004))["Q1.1"],
        _claims(_q1_records(["lawschool"], 0.004, repeats=3))["Q1.1"],
    )
    assert (five.verdict, fifteen.verdict) == (V.INCONCLUSIVE, V.HOLDS)


# ---------------------------------------------------------------------------- COMPAS(age) counted once
def test_compas_age_is_shown_not_counted_where_it_repeats_compas():
    recs = _q1_records(["compas", "compas_age"], 0.05)
    c = _claims(recs)["Q1.1"]
    assert c.verdict == V.HOLDS and c.test == "corrected t-test"  # one comparison: COMPAS only
    assert "COMPAS(age) 0.100 → 0.050" in c.note and "(shown, not counted)" in c.note
    assert "COMPAS(age) is shown, not counted: LTN(acc+CF) and LTN(acc) are the same runs there as on COMPAS" in c.note
    counted = _claims(recs, count_shared=True)["Q1.1"]
    assert counted.test == "corrected t-test, Holm over 2" and "not counted" not in counted.note


def _q2_records(gap_compas):
    """COMPAS and COMPAS(age): the same LTN(acc+CF) and CNF runs (no subgroups), LTN above CNF by ``gap_compas``."""
    recs = []
    for d in ("compas", "compas_age"):
        for f in range(5):
            j = JITTER[f]
            recs += [
                _rec(d, "ltn_acc_cf", f, perf=0.67 + gap_compas + j),
                _rec(d, "ltn_acc_cf_sg", f, perf=0.60),
                _rec(d, "cnf", f, perf=0.67),
            ]
    return recs


def test_q2_2_does_not_test_compass_gap_again_against_the_opposite_hypothesis():
    recs = _q2_records(0.02)
    c = _claims(recs)["Q2.2"]
    assert c.verdict == V.HOLDS and "shown, not counted" in c.note and "against the opposite hypothesis" in c.note
    # counting COMPAS(age) (the rules before issue 24) makes the same gap a failure on the second "dataset"
    assert _claims(recs, test="plain", holm=False, count_shared=True)["Q2.2"].verdict == V.FAILS


def test_a_subgroup_comparison_counts_compas_age():
    recs = []
    for d, gap in (("compas", 0.01), ("compas_age", 0.03)):
        for f in range(5):
            recs += [_rec(d, "ltn_acc_cf", f, cf=0.05), _rec(d, "ltn_acc_cf_sg", f, cf=0.05 - gap + JITTER[f] / 4)]
    c = _claims(recs)["Q1.2"]
    assert c.test == "corrected t-test, Holm over 2" and "not counted" not in c.note and c.verdict == V.HOLDS


# ---------------------------------------------------------------------------- B.1: most datasets
def _grid(dataset, perf_slope, cf_slope, points=7, fine=True):
    """Weight-grid records of ``dataset``: performance (accuracy, or −MSE) and CF-MSE linear in log₂(acc/CF)."""
    recs = []
    ratios = [3.0**k for k in range(-(points // 2), points // 2 + 1)][:points]
    for ratio in ratios:
        a, c = (ratio, 1.0) if ratio >= 1 else (1.0, 1 / ratio)
        x = math.log2(a / c)
        perf = 0.7 + perf_slope * x
        if dataset == "lawschool":
            perf = 0.8 - perf_slope * x  # MSE: lower is better
        for f in range(2):
            tag = "" if a == c else f"w{a:g}-{c:g}"
            recs.append(
                _rec(
                    dataset,
                    "ltn_acc_cf",
                    f,
                    tag=tag,
                    options={"fair_p": 1.0} if fine else None,
                    w_acc=a,
                    w_cf=c,
                    perf=perf,
                    cf=0.05 + cf_slope * x,
                )
            )
    return recs


def test_b1_holds_when_most_datasets_show_both_trends():
    recs = (
        _grid("adult", 0.01, 0.01, points=3, fine=False) + _grid("compas", 0.01, 0.01) + _grid("lawschool", 0.01, 0.01)
    )
    c = _claims(recs)["B.1"]
    assert c.verdict == V.HOLDS and "both trends on 2 of 3 datasets" in c.note and "too few points to test" in c.note
    assert c.test == "Spearman within each fold, corrected t-test over folds, Holm over 4"
    assert "7 points × 2 folds on Lawschool" in c.folds


def test_b1_one_dataset_of_three_is_not_most():
    recs = (
        _grid("adult", 0.01, 0.01, points=3, fine=False)
        + _grid("compas", 0.01, 0.01)
        + _grid("lawschool", 0.01, 0.01, points=3, fine=False)
    )
    c = _claims(recs)["B.1"]
    assert c.verdict == V.INCONCLUSIVE and "both trends on 1 of 3 datasets, against them on 0" in c.note


def test_b1_does_not_hold_when_most_datasets_go_against_it():
    # the performance trend runs the other way on COMPAS and Lawschool (Lawschool's ρ −1.00 of the records)
    recs = (
        _grid("adult", 0.01, 0.01, points=3, fine=False)
        + _grid("compas", -0.01, 0.01)
        + _grid("lawschool", -0.01, 0.01)
    )
    c = _claims(recs)["B.1"]
    assert c.verdict == V.FAILS and "against them on 2" in c.note


def test_b1_tests_the_trend_with_the_fold_as_the_unit():
    # fold 0 rises steeply, fold 1 falls gently: the means of the 7 points rise monotonically (an exact
    # Spearman over them would give ρ = 1, p 0.0004), but per fold ρ is +1 and −1: no trend over folds
    up, down = _grid("compas", 0.03, 0.03), _grid("compas", -0.01, -0.01)
    recs = [r for r in up if r["config"]["fold"] == 0] + [r for r in down if r["config"]["fold"] == 1]
    c = _claims(recs)["B.1"]
    assert c.verdict == V.INCONCLUSIVE and "(-1.00 to +1.00" in c.note.replace("−", "-")
    steady = _claims(_grid("compas", 0.03, 0.03))["B.1"]  # both folds rise: the trend is the folds'
    assert steady.verdict == V.HOLDS


def test_b1_shows_compas_age_without_counting_it():
    recs = _grid("compas", 0.01, 0.01) + _grid("compas_age", 0.01, 0.01)
    c = _claims(recs)["B.1"]
    assert (
        c.verdict == V.HOLDS
        and "both trends on 1 of 1 datasets" in c.note
        and "COMPAS(age) is shown, not counted" in c.note
    )


# ---------------------------------------------------------------------------- Q3.6: every Lawschool CKE run
def _law_cke(setting, found):
    cand = [{"group": "Female", "feature": "race", "frequency": 0.14, "imbalance": 0.040}] if found else []
    imb = [
        {
            "group": "Female",
            "feature": "race",
            "frequency": 0.14,
            "others_max": 0.10,
            "imbalance": 0.040 if found else 0.0045,
        }
    ]
    steps = [
        {"step": 0, "axiom": "-", "mse": 0.756, "cf_mse": 0.001, "accuracy": math.nan, "cf_mse_worst_subgroup": 0.002}
    ]
    if found:
        steps.append(
            {"step": 1, "axiom": "A5[Female, race]", "mse": 0.811, "cf_mse": 0.0006, "cf_mse_worst_subgroup": 0.001}
        )
    cke = {"threshold": 0.01, "candidates": cand, "imbalances_before": imb, "imbalances_after": imb, "steps": steps}
    return _rec("lawschool", setting, 0, cke=cke, perf=0.76, n_train=100)


def test_q3_6_reads_both_fairness_settings():
    clean = [_law_cke("ltn_acc_cf_cke", False), _law_cke("ltn_acc_cf_sg_cke", False)]
    c = _claims(clean)["Q3.6"]
    assert c.verdict == V.HOLDS and "detections in 0 of 2 runs" in c.note and c.folds == "2 runs"
    found = [_law_cke("ltn_acc_cf_cke", False), _law_cke("ltn_acc_cf_sg_cke", True)]
    c = _claims(found)["Q3.6"]
    assert c.verdict == V.FAILS and "detections in 1 of 2 runs" in c.note
    assert "LTN(acc+CF_sg+CKE), fold 0: race detected for Female at 0.040" in c.note and "MSE 0.756 → 0.811" in c.note
    assert "LTN(acc+CF+CKE), fold 0: nothing detected (largest imbalance 0.004 < 0.01)" in c.note


def test_q3_6_sums_up_several_runs_of_a_setting_in_one_clause():
    def law(setting, fold, imbalance, mse_after):
        r = _law_cke(setting, imbalance is not None)
        r["config"]["fold"] = fold
        if imbalance is not None:
            r["cke"]["candidates"][0]["imbalance"] = imbalance
            r["cke"]["steps"][-1]["mse"] = mse_after
        return r

    runs = [
        law("ltn_acc_cf_sg_cke", f, imb, mse) for f, imb, mse in [(0, 0.040, 0.811), (1, 0.072, 0.790), (2, None, 0)]
    ]
    runs += [law("ltn_acc_cf_cke", f, None, 0) for f in (0, 1)]
    c = _claims(runs)["Q3.6"]
    assert c.verdict == V.FAILS and "detections in 2 of 5 runs" in c.note and c.folds == "5 runs"
    # the detections: which explanation, the imbalances' range, the MSE change of each A5 axiom (0.811 − 0.756, 0.790 − 0.756)
    assert (
        "LTN(acc+CF_sg+CKE), 3 runs: 2 detected (race for Female in 2; imbalance 0.040–0.072, threshold 0.01); "
        "A5 added in 2, MSE change +0.034 to +0.055; the other 1: largest imbalance 0.004"
    ) in c.note
    assert "LTN(acc+CF+CKE), 2 runs: nothing detected (largest imbalance 0.004 < 0.01)" in c.note
    assert "fold 1" not in c.note  # no per-run list


# ---------------------------------------------------------------------------- the tables
def test_the_claims_table_shows_rule_test_and_paired_folds_and_the_robustness_table_every_rule():
    recs = _q2_records(0.02) + _q1_records(["lawschool"], 0.05, repeats=3)
    claims = book.evaluate_claims(recs)
    t = book.claims_table(claims)
    assert "<em>Test:</em>" in t.html and "<em>paired folds:</em>" in t.html and "<em>Rule:</em>" in t.html
    assert t.html.count("<details>") == len(claims) + 1  # each claim's numbers, and how verdicts are decided
    assert list(t.frame.columns) == ["claim", "where", "status", "test", "paired folds", "note"]
    assert all(c.rule for c in claims)  # every claim states its rule
    f = book.robustness_frame(recs)
    assert list(f["key"]) == list(book.CLAIM_CHECKS)
    assert [n for n, _ in book.ROBUSTNESS_RULES][1] == "corrected t-test, Holm (the verdict)"
    q22 = f.set_index("key").loc["Q2.2"]
    assert q22["corrected t-test, Holm (the verdict)"] == V.HOLDS and not q22["same"]
    html = book.robustness_table(recs, caption="x").html
    assert "<strong>✘ does not hold</strong>" in html  # a verdict that differs from the book's is bold
    # each verdict cell names its rule, which the phone layout shows beside it
    for name, _ in book.ROBUSTNESS_RULES:
        assert html.count(f'data-label="{name}"') == len(f)
    assert all(f'<td class="cffair-num">{key}</td>' in html for key in f["key"])  # a key never breaks


# ---------------------------------------------------------------------------- the committed records
def _committed():
    import json
    from pathlib import Path

    root = Path(__file__).resolve().parents[2] / "results" / "full" / "records"
    recs = [json.loads(p.read_text(encoding="utf-8")) for p in sorted(root.glob("*.json"))]
    if not recs:
        pytest.skip("no committed full records")
    return recs


def test_compas_age_repeats_compas_exactly_where_the_rule_says():
    """The rule's premise, on the committed records: every run that uses no subgroups is the same on
    COMPAS and COMPAS(age) (per-fold accuracy and CF-MSE), and the subgroup axioms' runs are not.

    Only runs of the same code on the same inputs (the twins by their content) are compared: while a
    regeneration is under way, the committed records mix runs of the old code and the new. Runs that
    one CPU computed (the records' ``machine``) must be equal to the bit; runs that do not say which
    CPU computed them (records older than that field) may have been computed on two, and must agree
    within :data:`machines.ACROSS_MACHINES`."""
    by, fp = {}, {}
    for r in _committed():
        c = r["config"]
        if (
            c["dataset"] in ("compas", "compas_age")
            and not c.get("options")
            and not c.get("tag")
            and not c.get("repeat")
        ):
            key = (c["setting"], c.get("cf_source", "cnf"), c.get("seed", 0), c["fold"])  # each seed its own run
            by.setdefault(key, {})[c["dataset"]] = (r["metrics"]["accuracy"], r["metrics"]["cf_mse"])
            inputs = {n: i.get("content") for n, i in r["fingerprint"].get("inputs", {}).items()}
            fp[(*key, c["dataset"])] = (r["fingerprint"]["code"], inputs, r.get("machine"))
    pairs = {k: v for k, v in by.items() if len(v) == 2 and fp[(*k, "compas")][:2] == fp[(*k, "compas_age")][:2]}
    assert pairs
    for (setting, src, seed, fold), v in pairs.items():
        shared = not V.Evidence.of([]).counts("compas_age", (setting,), "cf_mse")
        one_cpu = machines.one_cpu(
            fp[(setting, src, seed, fold, "compas")][2], fp[(setting, src, seed, fold, "compas_age")][2]
        )
        if not shared:
            assert v["compas"] != v["compas_age"], (setting, src, seed, fold)
        elif one_cpu:
            assert v["compas"] == v["compas_age"], (setting, src, seed, fold)
        else:
            gap = max(abs(a - b) for a, b in zip(v["compas"], v["compas_age"]))
            assert gap <= machines.ACROSS_MACHINES, (setting, src, seed, fold, gap)


def test_every_decided_claim_names_its_test_and_paired_folds_on_the_committed_records():
    claims = book.evaluate_claims(reporting.paired_folds(_committed()))
    for c in claims:
        assert c.rule, c.key
        if c.verdict != V.PENDING:
            assert c.test and c.folds, c.key
    by = {c.key: c for c in claims}
    # the paired folds the claim names are those the records pair: per dataset, the folds of the paper's
    # protocol (every repetition) on which LTN(acc+CF) and the three baselines all have a record
    paired = reporting.paired_folds(_committed())
    n = {
        d: len(
            {
                (r["config"].get("repeat", 0), r["config"]["fold"])
                for r in paired
                if r["config"]["dataset"] == d
                and r["config"]["setting"] == "ltn_acc_cf"
                and r["config"].get("cf_source", "cnf") == "cnf"
                and not r["config"].get("options")
                and not r["config"].get("tag")
            }
        )
        for d in ("adult", "compas", "lawschool")
    }
    folds = by["Q2.1"].folds
    if len(set(n.values())) == 1:
        # "5 per comparison", or "15 (3 × 5) per comparison" on repeated partitions
        m = re.fullmatch(r"(\d+)(?: \((\d+) × (\d+)\))? per comparison", folds)
        assert m and int(m.group(1)) == n["adult"], (folds, n)
        assert not m.group(2) or int(m.group(2)) * int(m.group(3)) == n["adult"], (folds, n)
    else:
        for d, k in n.items():
            assert re.search(rf"\b{k}\b[^;]* on [^;]*\b{reporting.dataset_name(d)}\b", folds), (folds, n)
    assert "COMPAS(age) is shown, not counted" in by["Q2.1"].note
    # the claim's note counts the Q2 variants as the Q2 page does (the page's own records and sentence)

    from cffair.workflows import _reproduce as reproduce

    page = book.q2_finding(
        reporting.variants_frame(reproduce.results_for("render", ["q2", "q2_why"], datasets=["compas", "adult"])),
        "compas",
    )
    counted = re.search(r"\d+ of \d+ variants", page)
    assert counted and counted.group(0) in by["Q2.1"].note, (page, by["Q2.1"].note)


def test_a_collapsed_model_enters_no_verdict_and_its_folds_are_named():
    """A fold whose model says yes to everyone (the screen's near-constant rule) is left out of the
    paired comparison: the verdict reads the other folds, and Evidence.collapsed names it."""
    recs = _q1_records(["compas"], 0.003, repeats=3)
    e_all = V.Evidence.of(recs)
    for r in recs:
        if r["config"]["setting"] == "ltn_acc_cf" and r["config"]["fold"] == 2 and r["config"].get("repeat", 0) == 1:
            r["metrics"].update(positive_rate=1.0, cf_mse=0.0)  # collapsed: one decision, trivially fair
    e = V.Evidence.of(recs)
    assert e.collapsed("compas", "ltn_acc_cf") == [(1, 2)] and e.collapsed("compas", "ltn_acc") == []
    r = e.compare("compas", "ltn_acc_cf", "ltn_acc", "cf_mse", larger=False)
    assert r.n == 14 == e_all.compare("compas", "ltn_acc_cf", "ltn_acc", "cf_mse", larger=False).n - 1
    kept = e_all.folds("compas", "ltn_acc_cf", "cf_mse").drop((1, 2)) - e_all.folds("compas", "ltn_acc", "cf_mse").drop(
        (1, 2)
    )
    assert r.mean == pytest.approx(kept.mean())


def test_a_method_collapsed_on_every_fold_makes_its_comparison_inconclusive_and_says_why():
    recs = _q1_records(["compas"], 0.003, repeats=3)
    for r in recs:
        if r["config"]["setting"] == "ltn_acc_cf":
            r["metrics"].update(positive_rate=1.0, prediction_sd=0.0, cf_mse=0.0)
    e = V.Evidence.of(recs)
    r = e.compare("compas", "ltn_acc_cf", "ltn_acc", "cf_mse", larger=False)
    assert (r.n, r.collapsed, r.verdict, r.direction) == (0, 15, V.INCONCLUSIVE, V.INCONCLUSIVE)
    assert r.text == "no comparison: the model collapsed on all 15 folds"
    assert V.decide([r]).verdict == V.INCONCLUSIVE  # never "holds" for a trivially fair model
    assert _claims(recs)["Q1.1"].verdict != V.HOLDS
