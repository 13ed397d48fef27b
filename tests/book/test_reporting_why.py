"""The investigations of Q1.5, Q3.5, Q3.6, A.1 and A.2 (cffair_book.why), on records with known answers."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.stats import norm

import cffair_book as book
from cffair import reporting
from cffair.datasets import load
from cffair.errors import DataError
from cffair_book import why


def _rec(
    dataset,
    setting,
    fold=0,
    *,
    cf_source="cnf",
    perf=0.7,
    cf=0.1,
    worst=0.2,
    flips=None,
    by_subgroup=None,
    own=None,
    **extra,
):
    metrics = {
        "cf_mse": cf,
        "cf_mse_worst_subgroup": worst,
        "worst_subgroup": "g1",
        "n_pairs": 100,
        "cf_mse_by_subgroup": by_subgroup or {"g0": cf / 2, "g1": worst},
    }
    if flips is not None:
        metrics["cf_flip_rate"] = flips
    metrics["mse" if dataset == "lawschool" else "accuracy"] = perf
    cfg = {
        "dataset": dataset,
        "fold": fold,
        "setting": setting,
        "profile": "full",
        "cf_source": cf_source,
        "seed": 0,
        "tag": "",
        "weights": {"acc": 1.0, "cf": 1.0, "cf_sg": 1.0, "cke": 1.0},
    }
    rec = {"config": cfg, "metrics": metrics, **extra}
    if own is not None:
        rec["metrics_own_counterfactuals"] = {**metrics, **own}
    return rec


# ---------------------------------------------------------------------------- Q1.5
def _adult_subgroup_records(drop_of):
    shares = why._rows_share("adult")
    before = {g: 0.05 + 0.02 * i for i, g in enumerate(sorted(shares.index))}  # a level unrelated to size
    recs = []
    for fold in range(2):
        recs.append(_rec("adult", "ltn_acc", fold, by_subgroup=before))
        recs.append(
            _rec("adult", "ltn_acc_cf", fold, by_subgroup={g: b - drop_of(b, shares[g]) for g, b in before.items()})
        )
    return recs, shares, before


def test_the_drop_that_follows_the_level_before_is_named_with_its_spearman():
    recs, shares, before = _adult_subgroup_records(lambda b, s: 0.8 * b)
    frame = why.subgroup_drop_frame(recs, "adult")
    assert list(frame.index) == list(shares.sort_values(ascending=False).index)  # largest subgroup first
    assert frame["share"].to_dict() == pytest.approx(shares.to_dict())
    assert frame["drop"].to_dict() == pytest.approx({g: 0.8 * b for g, b in before.items()})
    assert np.allclose(frame["relative drop"], 0.8)
    text = why.subgroup_drop_finding(recs, "adult")
    assert "follows the CF-MSE a subgroup had before" in text and "before +1.00" in text
    assert f"{frame.index[0]} ({shares.max():.0%} of the rows)" in text


def test_the_drop_that_follows_size_is_named_as_such():
    recs, shares, _ = _adult_subgroup_records(lambda b, s: 0.04 * s)
    text = why.subgroup_drop_finding(recs, "adult")
    assert "follows the subgroup's size" in text and "share of rows +1.00" in text


def test_no_finding_without_both_settings():
    assert why.subgroup_drop_frame([_rec("adult", "ltn_acc")], "adult").empty
    assert why.subgroup_drop_finding([_rec("adult", "ltn_acc")], "adult") == ""


# ---------------------------------------------------------------------------- Q3.5
def _cke_run(cf, worst):
    steps = [
        {
            "step": k,
            "axiom": "-" if k == 0 else f"A5[Male, f{k}]",
            "accuracy": 0.8,
            "cf_mse": c,
            "cf_mse_worst_subgroup": w,
            "worst_subgroup": "Male, Other" if k % 2 else "Female, Other",
        }
        for k, (c, w) in enumerate(zip(cf, worst, strict=True))
    ]
    return _rec("adult", "ltn_acc_cf_cke", 0, cke={"steps": steps, "candidates": [], "threshold": 0.01})


def test_cke_steps_within_the_parents_fold_noise_say_what_that_yardstick_overstates():
    folds = [
        _rec("adult", "ltn_acc_cf", f, cf=c, worst=w)
        for f, (c, w) in enumerate([(0.04, 0.10), (0.05, 0.20), (0.06, 0.15)])
    ]
    run = _cke_run([0.050, 0.053, 0.049], [0.11, 0.14, 0.12])
    text = why.cke_steps_finding([*folds, run], "adult")
    # largest steps 0.004 (CF-MSE) and 0.030 (worst); fold sds 0.010 and 0.050 (no seeds)
    assert "CF-MSE moves by at most 0.004" in text and "sd 0.010 over its 3 folds" in text
    assert "worst-subgroup CF-MSE moves by at most 0.030" in text and "sd 0.050" in text
    assert "the fold sd also holds the split's effect" in text
    assert "Every change lies within 2√2 sds" in text and "Male, Other" in text and "Female, Other" in text


def test_cke_steps_are_measured_against_the_seed_spread_on_the_same_fold_when_there_is_one():
    folds = [_rec("adult", "ltn_acc_cf", f, cf=0.04 + 0.02 * f, worst=0.10 + 0.05 * f) for f in range(3)]
    seeds = [_rec("adult", "ltn_acc_cf", 0, cf=0.040 + 0.001 * k, worst=0.100 + 0.002 * k) for k in (1, 2)]
    for k, r in enumerate(seeds, start=1):
        r["config"]["seed"] = k
    run = _cke_run([0.050, 0.053, 0.049], [0.11, 0.14, 0.12])
    text = why.cke_steps_finding([*folds, *seeds, run], "adult")
    # seed sds over fold 0's seeds 0, 1, 2: 0.001 and 0.002; 2√2 · 0.001 ≈ 0.0028 < the 0.004 step
    assert "sd 0.001 over its 3 training seeds on fold 0" in text and "split's effect" not in text
    assert "Some changes exceed 2√2 sds" in text


def test_cke_steps_larger_than_the_noise_are_said_to_be():
    folds = [_rec("adult", "ltn_acc_cf", f, cf=0.05 + 0.001 * f, worst=0.10 + 0.001 * f) for f in range(3)]
    text = why.cke_steps_finding([*folds, _cke_run([0.05, 0.09], [0.10, 0.30])], "adult")
    assert "Some changes exceed 2√2 sds" in text
    assert why.cke_steps_finding(folds, "adult") == ""  # no CKE record


# ---------------------------------------------------------------------------- Q3.6
def test_the_threshold_is_compared_with_a_lower_bound_of_the_sampling_error():
    ds = load("lawschool")
    share = ds.frame[ds.spec.sensitive].astype(str).value_counts(normalize=True)
    groups = list(share.index)
    ratio = {groups[0]: 0.267, groups[1]: 0.242}
    cke = {
        "threshold": 0.01,
        "undesirable_ratio_before": ratio,
        "candidates": [{"feature": "race", "group": groups[0], "frequency": 0.267, "imbalance": 0.025}],
        "steps": [],
    }
    rec = _rec("lawschool", "ltn_acc_cf_cke", 0, cke=cke, n_train=17432)
    se = math.sqrt(sum(p * (1 - p) / (share[g] * 17432) for g, p in ratio.items()))
    text = why.cke_threshold_finding([rec], "lawschool")
    assert f"at least {se:.4f}" in text
    assert f"{0.01 / se:.1f} such errors" in text and f"at least {2 * (1 - norm.cdf(0.01 / se)):.0%} of runs" in text
    assert f"at most {0.025 / se:.1f} errors" in text
    assert why.cke_threshold_finding([_rec("lawschool", "ltn_acc_cf")], "lawschool") == ""
    # several runs: one sentence with the ranges over them
    other = dict(cke, undesirable_ratio_before={groups[0]: 0.30, groups[1]: 0.32}, candidates=[])
    second = _rec("lawschool", "ltn_acc_cf_sg_cke", 1, cke=other, n_train=17432)
    se2 = math.sqrt(sum(p * (1 - p) / (share[g] * 17432) for g, p in other["undesirable_ratio_before"].items()))
    lo, hi = sorted([se, se2])
    text = why.cke_threshold_finding([rec, second], "lawschool")
    assert text.startswith(f"over the 2 runs, the imbalance's standard error is at least {lo:.4f}–{hi:.4f}")
    assert f"the threshold 0.01 is {0.01 / hi:.1f}–{0.01 / lo:.1f} such errors" in text
    assert f"the imbalances found (1 run) are at most {0.025 / se:.1f} errors" in text
    assert "fold 1" not in text


# ---------------------------------------------------------------------------- A.1, A.2
def test_gan_twins_flips_per_flip_and_the_gap_before_the_fairness_stage():
    recs = []
    for f in range(3):
        recs.append(_rec("compas", "ltn_acc", f, perf=0.66 + 0.001 * f))
        recs.append(_rec("compas", "gan", f, perf=0.70 + 0.002 * f, own={"cf_mse": 0.01, "cf_flip_rate": 0.10}))
        recs.append(
            _rec("compas", "ltn_acc_cf", f, cf_source="gan", perf=0.65, own={"cf_mse": 0.04, "cf_flip_rate": 0.05})
        )
    found = why.gan_twins_finding(recs, ["compas"])
    # CF-MSE per flip: LTN 0.04 / 0.05 = 0.8, GAN 0.01 / 0.10 = 0.1
    assert "LTN flips 5.0% of decisions at 0.800 CF-MSE per flip, the GAN 10.0% at 0.100" in found["flips"]
    assert (
        "LTN(acc) accuracy 0.661 before the fairness stage" in found["accuracy"]
        and "the GAN better" in found["accuracy"]
    )
    # an older record without the flip rate: per flip is read from the records that have it, and says on how many folds
    old = _rec("compas", "ltn_acc_cf", 3, cf_source="gan", perf=0.65, own={"cf_mse": 0.5})
    mixed = why.gan_twins_finding([*recs, old], ["compas"])["flips"]
    assert "COMPAS (3 folds): LTN flips 5.0% of decisions at 0.800 CF-MSE per flip" in mixed
    # records without the flip rate (made before it existed): no flip finding, the accuracy one stands
    for r in recs:
        r.get("metrics_own_counterfactuals", {}).pop("cf_flip_rate", None)
    assert why.gan_twins_finding(recs, ["compas"])["flips"] == ""


def test_a_failing_claim_carries_its_investigation():
    recs, _, _ = _adult_subgroup_records(lambda b, s: 0.8 * b)
    after = {
        r["config"]["fold"]: r["metrics"]["cf_mse_by_subgroup"] for r in recs if r["config"]["setting"] == "ltn_acc_cf"
    }
    # the subgroup axioms make every subgroup worse than A4 alone: Q1.5's second half fails
    recs += [
        _rec("adult", "ltn_acc_cf_sg", f, by_subgroup={g: v + 0.01 for g, v in a.items()}) for f, a in after.items()
    ]
    q15 = next(c for c in book.evaluate_claims(recs) if c.key == "Q1.5")
    assert q15.verdict == reporting.FAILS
    assert ". Investigation: over Adult's 10 subgroups the drop" in q15.note


# ---------------------------------------------------------------------------- Q1.4
def test_line_at_interpolates_inside_and_extends_the_end_segments():
    assert why.line_at(0.5, [0, 1, 2], [0, 2, 3]) == pytest.approx(1.0)
    assert why.line_at(1.5, [2, 0, 1], [3, 0, 2]) == pytest.approx(2.5)  # order of the points does not matter
    assert why.line_at(3.0, [0, 1, 2], [0, 2, 3]) == pytest.approx(4.0)  # last segment, slope 1
    assert why.line_at(-1.0, [0, 1, 2], [0, 2, 3]) == pytest.approx(-2.0)  # first segment, slope 2
    assert math.isnan(why.line_at(0.5, [1, 1], [0.7, 0.8]))  # one distinct point: no line


def _weighted(dataset, fold, w_acc, w_cf, perf, cf):
    rec = _rec(dataset, "ltn_acc_cf", fold, perf=perf, cf=cf)
    rec["config"]["weights"] = {"acc": w_acc, "cf": w_cf, "cf_sg": 1.0, "cke": 1.0}
    rec["config"]["tag"] = "" if w_acc == w_cf else f"w{w_acc:g}-{w_cf:g}"
    return rec


def _frontier_records(offset):
    """Per fold, the global axiom on the line acc = 0.66 + 2·CF-MSE (three weights); acc+CF_sg at
    CF-MSE 0.015, ``offset(fold)`` off that line (line value there: 0.69)."""
    recs = []
    for fold in range(4):
        shift = 0.002 * fold  # folds differ in level, the line moves with them
        for (w_acc, w_cf), cf in zip([(1, 3), (1, 1), (3, 1)], [0.01, 0.02, 0.04]):
            recs.append(_weighted("compas", fold, w_acc, w_cf, 0.66 + 2 * cf + shift, cf))
        recs.append(_rec("compas", "ltn_acc_cf_sg", fold, perf=0.69 + shift + offset(fold), cf=0.015))
    return recs


@pytest.mark.parametrize(
    ("offset", "where"),
    [
        (lambda f: 0.01 + 0.001 * f, "above it"),
        (lambda f: -0.01 - 0.001 * f, "below it"),
        (lambda f: 0.004 * (-1) ** f, "on it, within fold noise"),
    ],
)
def test_frontier_finding_reads_the_global_line_at_the_subgroup_runs_cf_mse(offset, where):
    recs = _frontier_records(offset)
    text = why.frontier_finding(recs, ["compas"])
    mean_line = 0.69 + 0.003  # the folds' shifts 0, 0.002, 0.004, 0.006 average 0.003
    assert f"the global axiom's line gives {mean_line:.3f} there: {where}" in text
    assert "CF-MSE 0.015 at accuracy" in text
    assert why.frontier_finding(recs, ["adult"]) == ""  # no records there
    fig = why.plot_frontier(recs, ["compas", "adult"])
    assert len(fig.axes) == 1  # Adult has no records: one panel
    with pytest.raises(DataError, match=r"no weight-grid and acc\+CF_sg records; run the q1 and appendix_b groups"):
        why.plot_frontier(recs, ["adult"])


def test_q14_appends_the_frontier_finding_when_it_does_not_hold():
    recs = _frontier_records(lambda f: -0.01 - 0.001 * f)
    recs += [_rec("compas", "ltn_acc", f, perf=0.7, cf=0.1) for f in range(4)]
    (q14,) = [c for c in book.evaluate_claims(recs) if c.key == "Q1.4"]
    assert q14.verdict == "does not hold" and "Investigation: the subgroup axioms reach a lower CF-MSE" in q14.note
    assert "below it" in q14.note


# ---------------------------------------------------------------------------- Q2.2, Q2.3
def _shared(datasets, ltn, cnf):
    return [
        _rec(d, m, f, perf=v[f], cf=0.02)
        for d in datasets
        for m, v in (("ltn_acc_cf", ltn), ("cnf", cnf))
        for f in range(len(v))
    ]


def test_shared_runs_finding_says_the_variant_cannot_differ_and_quotes_the_papers_two_runs():
    ltn, cnf = [0.68, 0.69, 0.68, 0.67], [0.67, 0.675, 0.668, 0.662]
    text = why.shared_runs_finding(_shared(["compas", "compas_age"], ltn, cnf))
    assert "here they are the same runs on both (identical accuracies on the 4 folds both hold)" in text
    assert f"Δ +{np.mean(np.subtract(ltn, cnf)):.3f}" in text
    # the paper's Table 1: LTN(acc+CF) − CNF accuracy is 0.675 − 0.661 on COMPAS, 0.654 − 0.667 on COMPAS(age)
    assert "(+0.014 on COMPAS, −0.013 on COMPAS(age))" in text and "0.156 on COMPAS, 0.254 on COMPAS(age)" in text
    # COMPAS with a second repetition of cross-validation that COMPAS(age) lacks: still the same runs
    second = [_rec("compas", m, f, perf=0.6 + 0.01 * f, cf=0.02) for m in ("ltn_acc_cf", "cnf") for f in range(4)]
    for r in second:
        r["config"]["repeat"] = 1
    more = _shared(["compas", "compas_age"], ltn, cnf) + second
    assert "the same runs on both (identical accuracies on the 4 folds both hold)" in why.shared_runs_finding(more)
    # COMPAS with more training seeds of CNF that COMPAS(age) lacks (the committed records): the fold means differ,
    # the runs both hold do not, so they are still the same runs
    seeds = [_rec("compas", "cnf", f, perf=0.6, cf=0.02) for f in range(4) for _ in (1, 2)]
    for i, r in enumerate(seeds):
        r["config"]["seed"] = 1 + i % 2
    assert "the same runs on both (identical accuracies on the 4 folds both hold)" in why.shared_runs_finding(
        _shared(["compas", "compas_age"], ltn, cnf) + seeds
    )
    other = _shared(["compas"], ltn, cnf) + _shared(["compas_age"], [v - 0.01 for v in ltn], cnf)
    assert "here the two datasets' runs differ" in why.shared_runs_finding(other)
    assert why.shared_runs_finding(_shared(["compas"], ltn, cnf)) == ""


def test_flip_ruler_finding_counts_changed_decisions():
    recs = [_rec("compas", "gan", f, cf=0.004, flips=0.08 + 0.002 * f) for f in range(3)]
    recs += [_rec("compas", "ltn_acc_cf", f, cf=0.02, flips=0.02 + 0.001 * f) for f in range(3)]
    text = why.flip_ruler_finding(recs, "compas")
    assert "the GAN flips 8.2 % of the test pairs' decisions and LTN(acc+CF) 2.1 %" in text
    assert "by this ruler the GAN is the less fair" in text
    assert f"a flip costs {0.004 / 0.082:.3f} CF-MSE for the GAN against {0.02 / 0.021:.3f}" in text
    fairer = [_rec("compas", "gan", f, cf=0.004, flips=0.01) for f in range(3)] + recs[3:]
    assert "by this ruler too the GAN is the fairer" in why.flip_ruler_finding(fairer, "compas")
    assert why.flip_ruler_finding(recs[:3], "compas") == ""  # no LTN records


# ---------------------------------------------------------------------------- wording chosen by the numbers
def _drop_records(before):
    recs = []
    for fold in range(2):
        recs.append(_rec("adult", "ltn_acc", fold, by_subgroup=before))
        recs.append(
            _rec("adult", "ltn_acc_cf", fold, by_subgroup={g: 0.2 * b for g, b in before.items()})
        )  # drop 0.8 × before
    return recs


def test_a_drop_ranked_alike_by_size_and_level_is_a_tie_and_the_largest_subgroup_has_it():
    shares = why._rows_share("adult").sort_values()
    recs = _drop_records({g: 0.05 + 0.02 * i for i, g in enumerate(shares.index)})  # the level rises with the share
    text = why.subgroup_drop_finding(recs, "adult")
    assert "before +1.00" in text and "share of rows +1.00" in text
    assert "follows the CF-MSE a subgroup had before and its size alike (equal |ρ|)" in text
    assert "the drop cannot tell that weight from the CF-MSE a subgroup had" in text
    assert "the largest subgroup also has the largest drop" in text and "the largest drop is" not in text


def test_another_subgroups_largest_drop_is_named_with_its_numbers():
    shares = why._rows_share("adult")
    names = sorted(shares.index)
    before = {g: 0.05 + 0.02 * i for i, g in enumerate(names)}  # a level unrelated to size ...
    largest = shares.idxmax()
    low = min(before, key=before.get)
    before[largest], before[low] = before[low], before[largest]  # ... with the largest subgroup's the lowest
    frame = why.subgroup_drop_frame(_drop_records(before), "adult")
    top = frame["drop"].idxmax()
    assert top != largest
    text = why.subgroup_drop_finding(_drop_records(before), "adult")
    assert "follows the CF-MSE a subgroup had before:" in text
    assert f"the largest drop is {top}'s, {frame.loc[top, 'before']:.3f} → {frame.loc[top, 'after']:.3f}" in text
    assert "also has the largest drop" not in text


def test_a4s_weight_is_worded_by_what_the_drop_follows():
    level, _, _ = _adult_subgroup_records(lambda b, s: 0.8 * b)
    size, _, _ = _adult_subgroup_records(lambda b, s: 0.04 * s)
    level_text, size_text = why.subgroup_drop_finding(level, "adult"), why.subgroup_drop_finding(size, "adult")
    assert "yet the drop follows the CF-MSE a subgroup had: a subgroup can only lose the CF-MSE it has" in level_text
    assert "and the drop follows that weight" not in level_text
    assert "and the drop follows that weight" in size_text and "can only lose" not in size_text


@pytest.mark.parametrize(
    ("gaps", "words"),
    [
        ((0.014, -0.013), "its gap changes sign between these two runs"),
        ((0.014, 0.020), "its gap keeps its sign between these two runs"),
        ((0.0, 0.020), "its gap is zero in one of these two runs"),
    ],
)
def test_the_papers_gap_is_worded_by_its_signs(monkeypatch, gaps, words):
    """The paper's accuracy gap LTN(acc+CF) − CNF on COMPAS and COMPAS(age), made up for each branch."""
    gap = dict(zip(("compas", "compas_age"), gaps))

    def fake_paper_value(table, dataset, metric, method):
        if metric == "accuracy":
            return ((0.6 + gap[dataset]) if method == "ltn_acc_cf" else 0.6, None)
        return (0.2, None)

    monkeypatch.setattr(why, "paper_value", fake_paper_value)
    ltn, cnf = [0.68, 0.69, 0.68, 0.67], [0.67, 0.675, 0.668, 0.662]
    text = why.shared_runs_finding(_shared(["compas", "compas_age"], ltn, cnf))
    assert words in text
    assert ("not between the data" in text) == (gaps[0] * gaps[1] < 0)
    sign = {True: "+", False: "−"}
    assert f"{sign[gaps[1] >= 0]}{abs(gaps[1]):.3f} on COMPAS(age)" in text
