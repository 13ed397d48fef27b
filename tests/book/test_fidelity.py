"""How close ours is to the paper, in words (cffair_book.fidelity.paper_agreement): one sentence per
branch (none differs, one differs, several differ, nothing can be judged), its counts and order
read from a compare() frame built from hand-made means with known Welch answers."""

from __future__ import annotations

import pandas as pd
import pytest

from cffair import reporting
from cffair_book.fidelity import paper_agreement, same_models

CELL = {"table": "table1", "metric": "cf_mse", "n": 5}


def _compare(rows: list[tuple[str, str, float, float, float, float]]) -> pd.DataFrame:
    """``(dataset, method, ours mean, ours sd, paper mean, paper sd)`` → a compare() frame over 5 folds each."""
    ours = pd.DataFrame([{**CELL, "dataset": d, "method": m, "mean": om, "sd": osd} for d, m, om, osd, _, _ in rows])
    paper = pd.DataFrame([{**CELL, "dataset": d, "method": m, "mean": pm, "sd": psd} for d, m, _, _, pm, psd in rows])
    return reporting.compare(ours, paper=paper)


def test_no_cell_beyond_chance_is_said_so():
    comp = _compare([("adult", "cnf", 0.10, 0.02, 0.11, 0.02), ("compas", "cnf", 0.05, 0.01, 0.05, 0.01)])
    assert not comp["beyond"].any()
    assert paper_agreement(comp, "Table 1") == (
        "None of the 2 cells of Table 1 that can be judged differs from the paper's beyond chance "
        "(Welch's t on the two means, p < 0.05)."
    )


def test_the_cells_beyond_chance_are_counted_and_the_farthest_named_first():
    comp = _compare(
        [
            ("adult", "cnf", 0.10, 0.01, 0.20, 0.01),  # t ≈ 15.8
            ("compas", "gan", 0.01, 0.001, 0.10, 0.05),  # t ≈ 4.0
            ("lawschool", "dcevae", 0.05, 0.01, 0.051, 0.01),  # agrees
        ]
    )
    assert comp["beyond"].tolist() == [True, True, False]
    text = paper_agreement(comp, "Table 1", top=2)
    assert text.startswith("2 of the 3 cells of Table 1 that can be judged differ from the paper's beyond chance")
    assert "at that level chance alone flags about 1 in 20 cells that agree" in text
    first, second = (
        text.index("CNF's CF-MSE on Adult (Δ −0.100, 15.8 standard errors)"),
        text.index("GAN's CF-MSE on COMPAS"),
    )
    assert first < second and "Lawschool" not in text


def test_without_any_sd_nothing_can_be_judged():
    comp = _compare([("adult", "cnf", 0.10, float("nan"), 0.20, 0.01)])
    assert paper_agreement(comp, "Table 1").startswith("No cell of Table 1 can be judged against the paper")


@pytest.mark.parametrize("top", [1, 3])
def test_top_limits_the_cells_named(top):
    rows = [(d, "cnf", 0.10, 0.001, 0.20 + 0.1 * i, 0.001) for i, d in enumerate(["adult", "compas", "lawschool"])]
    text = paper_agreement(_compare(rows), "Table 1", top=top)
    assert text.count("standard errors") == top


# ---------------------------------------------------------------------------- the twins and performance
def _record(dataset, fold, accuracy, *, sound=False, seed=0, repeat=0, collapsed=False, setting="ltn_acc_cf"):
    config = {"dataset": dataset, "fold": fold, "seed": seed, "setting": setting, "profile": "full", "tag": "",
              "cf_source": "cnf", "weights": {"acc": 1.0, "cf": 1.0, "cf_sg": 1.0, "cke": 1.0}}  # fmt: skip
    if repeat:
        config["repeat"] = repeat
    if sound:
        config["options"] = {"twins": "default"}
    metrics = {"accuracy": accuracy, "cf_mse": 0.01, "prediction_sd": 0.0 if collapsed else 0.2,
               "positive_rate": 1.0 if collapsed else 0.4, "majority_rate": 0.55}  # fmt: skip
    return {"config": config, "metrics": metrics}


def _pairs(dataset, paper_side, sound_side, **kw):
    return [
        r
        for k, (a, b) in enumerate(zip(paper_side, sound_side, strict=True))
        for r in (_record(dataset, k, a, **kw), _record(dataset, k, b, sound=True, **kw))
    ]


def test_the_twins_pair_folds_average_seeds_and_test_the_fold_differences():
    from cffair.reporting._stats import corrected_t
    from cffair_book.fidelity import twins_performance

    paper_side = [0.81, 0.80, 0.82, 0.81, 0.80]
    sound_side = [0.77, 0.77, 0.78, 0.76, 0.77]
    records = _pairs("adult", paper_side, sound_side) + _pairs(
        "adult", paper_side, [s + 0.002 for s in sound_side], seed=1
    )
    # a fold (of another partition) with no partner on the paper's twins: left out
    records.append(_record("adult", 0, 0.5, sound=True, repeat=1))
    records.append(_record("adult", 0, 0.6, setting="ltn_acc"))  # another method: left out
    row = twins_performance(records).iloc[0]
    assert (row["pairs"], row["folds"]) == (10, 5)
    assert row["paper_twins"] == pytest.approx(sum(paper_side) / 5)
    assert row["sound_twins"] == pytest.approx(sum(sound_side) / 5 + 0.001)
    diffs = [s + 0.001 - p for p, s in zip(paper_side, sound_side, strict=True)]  # seeds averaged per fold
    assert row["p"] == pytest.approx(corrected_t(diffs).p)
    assert row["paper"] == pytest.approx(0.758) and row["dropped"] == 0  # Table 1, Adult, LTN(acc+CF)


def test_a_pair_with_a_collapsed_model_is_dropped_and_counted():
    from cffair_book.fidelity import twins_performance, twins_performance_finding

    records = _pairs("compas", [0.68, 0.69, 0.67], [0.68, 0.69, 0.67])
    records[1] = _record("compas", 0, 0.455, sound=True, collapsed=True)
    frame = twins_performance(records)
    assert frame.loc[0, "pairs"] == 2 and frame.loc[0, "dropped"] == 1
    assert "1 pair left out because a model collapsed" in twins_performance_finding(frame)


@pytest.mark.parametrize(
    "sound, p, expected",
    [
        (0.809, 0.5, "the same on every fold."),
        (0.800, 0.40, "no change beyond chance (corrected t, p 0.400)."),
        (0.770, 0.001, "the sound twins close 76% of the gap to the paper's value (corrected t, p 0.001)."),
        (0.740, 0.0001, "the sound twins move ours to the paper's value and past it (corrected t, p < 0.001)."),
        (0.830, 0.01, "the sound twins move ours away from the paper's value (corrected t, p 0.010)."),
    ],
)
def test_the_numbers_choose_the_twins_sentence(sound, p, expected):
    from cffair_book.fidelity import twins_performance_finding

    frame = pd.DataFrame({"dataset": ["adult"], "metric": ["accuracy"], "pairs": [15], "folds": [15],
                          "paper_twins": [0.809], "sound_twins": [sound], "p": [p], "paper": [0.758],
                          "dropped": [0]})  # fmt: skip
    assert twins_performance_finding(frame).endswith(expected)
    assert "on the paper's (15 folds; the paper: 0.758)" in twins_performance_finding(frame)
    assert "on the paper's (1 fold; the paper" in twins_performance_finding(frame.assign(folds=[1]))


def test_without_both_twins_the_finding_says_so():
    from cffair_book.fidelity import twins_performance, twins_performance_finding

    frame = twins_performance([_record("adult", 0, 0.8)])
    assert frame.empty
    assert twins_performance_finding(frame) == (
        "No fold holds LTN(acc+CF) trained on both the paper's and the sound default twins yet."
    )


# ---------------------------------------------------------------------------- the same rows, the same models
def test_same_models_counts_exact_agreement_per_setting_and_names_the_folds_that_differ():
    records = [
        _record(d, k, 0.7, setting=s)
        for d in ("compas", "compas_age")
        for s in ("ltn_acc", "ltn_acc_cf")
        for k in range(3)
    ]
    assert same_models(records) == (
        "LTN(acc) gives the same accuracy and CF-MSE on COMPAS and COMPAS(age) on all 3 paired folds; "
        "LTN(acc+CF) on all 3 paired folds."
    )
    records[-1] = {**records[-1], "metrics": {**records[-1]["metrics"], "cf_mse": 0.0125}}  # compas_age, fold 2
    assert same_models(records).endswith(
        "LTN(acc+CF) on 2 of 3 (the other differs by up to 0.0025 in CF-MSE: fold 2 of repetition 0)."
    )
    assert same_models(records[:3]).startswith("No setting of LTN(acc), LTN(acc+CF) has records on both")
