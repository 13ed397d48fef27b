"""The chapter's frames, sentences and figures (cffair_book.beyond) on hand-made records with
known answers: pooling over intersections, weighting over folds, which axiom the sentence names."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")  # tests only; notebooks never set a backend

import pandas as pd
import pytest

from cffair.errors import DataError
from cffair.reporting._style import MAX_WIDTH_IN
from cffair_book import beyond as rb

VARIANTS = (
    "acc",
    "acc_cf",
    "acc_cf_w3-1",
    "acc_cf_w1-3",
    "acc_cf_sg",
    "acc_cf_joint",
    "acc_dp",
    "acc_eo",
    "acc_lip",
    "adaptive_sg",
    "adaptive_budget",
)


def _variant(k: int, joint: dict[str, float]) -> dict:
    return {
        "metrics": {
            "accuracy": 0.8 - 0.01 * k,
            "cf_mse": 0.2 - 0.01 * k,
            "cf_mse_worst_subgroup": 0.3 - 0.01 * k,
            "worst_subgroup": "A",
        },
        "notions": {
            "dp_gap": 0.3 - 0.02 * k,
            "dp_gap_soft": 0.2,
            "tpr_gap": 0.1,
            "fpr_gap": 0.2,
            "eo_gap": 0.2 - 0.01 * k,
            "lip_violation": 0.1,
            "lip_excess": 0.01,
        },
        "intersections": {"joint": joint, "sex": joint},
        "seconds": 10.0 + k,
    }


def _record(fold: int, n_negative: int, rate: float, cost: float, small_joint: float = 0.1) -> dict:
    variants = {
        v: _variant(k, {"A": small_joint if v == "acc_cf_joint" else 0.2, "B": 0.3}) for k, v in enumerate(VARIANTS)
    }
    models = {
        v: {
            "n_negative": n_negative,
            "recourse_rate": rate,
            "mean_cost": cost,
            "query": 0.3,
            "by": {"sex": {"F": {"n_negative": n_negative, "recourse_rate": rate, "mean_cost": cost, "query": 0.3}}},
            "examples": [],
        }
        for v in VARIANTS
    }
    return {
        "config": {"dataset": "adult", "fold": fold, "setting": "beyond"},
        "timings": {"cpu": 60.0},
        "beyond": {
            "variants": variants,
            "intersections": {"test_rows": {"A": 10, "B": 30}, "test_pairs": {"joint": {"A": 10, "B": 30}}},
            "recourse": {"models": models},
        },
    }


RECORDS = [_record(0, 10, 0.5, 2.0), _record(1, 30, 1.0, 1.0)]


def test_frames_pool_over_intersections_and_weigh_folds_by_people() -> None:
    f = rb.beyond_frame(RECORDS)
    row = f[(f["fold"] == 0) & (f["variant"] == "acc")].iloc[0]
    assert row["joint_cf_mse"] == pytest.approx((10 * 0.2 + 30 * 0.3) / 40)
    assert row["joint_worst"] == 0.3 and row["joint_worst_intersection"] == "B"
    r = rb.recourse_frame(RECORDS).set_index("variant").loc["acc"]
    assert r["n_negative"] == 40
    assert r["recourse_rate"] == pytest.approx((5 + 30) / 40)
    assert r["mean_cost"] == pytest.approx((5 * 2.0 + 30 * 1.0) / 35)
    t = rb.intersection_frame(RECORDS, "adult")
    assert t.index.tolist() == ["A", "B"] and t["test rows"].tolist() == [20, 60]
    assert t.loc["A", rb.VARIANT_LABELS["acc_cf_joint"]] == pytest.approx(0.1)
    a = rb.adaptive_frame(f).set_index("variant")
    assert a.loc["acc_cf", "accuracy_mean"] == pytest.approx(0.79)


def test_sentences_say_which_axiom_protects_the_small_intersections() -> None:
    text = rb.findings(RECORDS)
    assert "the joint axiom protects them better" in text["intersections_adult"]
    worse = rb.findings([_record(0, 10, 0.5, 2.0, small_joint=0.5)])
    assert "the subgroup axioms protect them better" in worse["intersections_adult"]
    assert text["recourse_adult"].startswith("On Adult, 88% of the sampled people LTN(acc) turns down have recourse")
    assert text["cost"] == "Adult 2.0 min over 2 folds"  # display names, not ids


def test_figures_fit_the_column_and_refuse_missing_data() -> None:
    f = rb.beyond_frame(RECORDS)
    for fig in (
        rb.plot_notions(f),
        rb.plot_adaptive(rb.adaptive_frame(f)),
        rb.plot_recourse(rb.recourse_frame(RECORDS, "sex"), "adult"),
    ):
        assert fig.get_figwidth() <= MAX_WIDTH_IN
    with pytest.raises(DataError, match="no 'acc' variant for 'adult'"):
        rb.plot_notions(f[f["variant"] != "acc"])
    with pytest.raises(DataError, match="no record of the 'beyond' group"):
        rb.beyond_frame([{"config": {"setting": "ltn_acc", "dataset": "adult", "fold": 0}}])
    with pytest.raises(DataError, match="no recourse rows of 'compas'"):
        rb.plot_recourse(rb.recourse_frame(RECORDS, "sex"), "compas")


def test_the_figures_name_datasets_as_the_tables_do() -> None:
    """Panels are titled "COMPAS", not the dataset's key "compas"."""
    import matplotlib.pyplot as plt

    from cffair_book import beyond

    adaptive = pd.DataFrame(
        [
            {"dataset": "compas", "variant": v, "cf_mse_mean": 0.01 * i, "accuracy_mean": 0.6 + 0.01 * i}
            | {"cf_mse_std": 0.0, "accuracy_std": 0.0}
            for i, v in enumerate(beyond.ADAPTIVE_VARIANTS)
        ]
    )
    fig = beyond.plot_adaptive(adaptive)
    assert [ax.get_title() for ax in fig.axes if ax.get_title()] == ["COMPAS"]
    plt.close(fig)
