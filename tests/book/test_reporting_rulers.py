"""cffair_book.rulers (appendix C): records seen through each ruler, Table 1 on three rulers,
the claims re-checked per ruler, the synthetic suite's table and its transition-table figure.
Known answers on tiny hand-made records and benchmark frames."""

from __future__ import annotations

import json

import matplotlib

matplotlib.use("Agg")  # tests only

import numpy as np
import pandas as pd
import pytest
from figure_rules import check_book_rules

import cffair_book as book
from cffair.errors import DataError


def _record(
    dataset: str, setting: str, fold: int, cf: float, rulers: dict[str, float] | None, acc: float = 0.7
) -> dict:
    metrics = {
        "accuracy": acc,
        "cf_mse": cf,
        "cf_mse_worst_subgroup": 2 * cf,
        "worst_subgroup": "a",
        "cf_flip_rate": cf / 2,
        "cf_mse_by_subgroup": {"a": 2 * cf, "b": cf / 2},
        "n_pairs": 10,
    }
    if rulers is not None:
        metrics["rulers"] = {
            name: {
                "cf_mse": v,
                "cf_mse_worst_subgroup": 2 * v,
                "worst_subgroup": "a",
                "cf_flip_rate": v / 2,
                "cf_mse_by_subgroup": {"a": 2 * v, "b": v / 2},
                "n_pairs": 10,
            }
            for name, v in {"paper": cf, **rulers}.items()
        }
    return {
        "config": {
            "dataset": dataset,
            "fold": fold,
            "setting": setting,
            "profile": "full",
            "weights": {},
            "cf_source": "cnf",
            "seed": 0,
            "tag": "",
        },
        "metrics": metrics,
    }


# ---------------------------------------------------------------------------- records through a ruler
def test_ruler_records_swap_the_cf_metrics_and_keep_accuracy():
    new = _record("compas", "ltn_acc_cf", 0, 0.02, {"default": 0.08, "independent": 0.03}, acc=0.66)
    old = _record("compas", "ltn_acc", 0, 0.10, None)
    [seen] = book.ruler_records([new, old], "default")  # the old record has no default ruler: left out
    assert seen["metrics"]["cf_mse"] == 0.08 and seen["metrics"]["cf_mse_worst_subgroup"] == 0.16
    assert (
        seen["metrics"]["cf_flip_rate"] == 0.04
        and seen["metrics"]["accuracy"] == 0.66
        and "rulers" not in seen["metrics"]
    )
    assert new["metrics"]["cf_mse"] == 0.02  # the input is not modified
    paper = book.ruler_records([new, old], "paper")
    assert [r["metrics"]["cf_mse"] for r in paper] == [0.02, 0.10]  # a record without rulers is the paper ruler's
    assert book.ruler_coverage([new, old]) == {"paper": 2, "default": 1, "independent": 1}
    with pytest.raises(DataError, match="unknown ruler 'gan'; the rulers are paper, default, independent"):
        book.ruler_records([new], "gan")


def test_ruler_table_means_and_sds_over_folds_bold_lowest_dash_where_missing():
    recs = [
        _record("compas", "ltn_acc_cf", f, cf, {"default": d, "independent": i})
        for f, (cf, d, i) in enumerate([(0.02, 0.10, 0.03), (0.04, 0.14, 0.05)])
    ]
    recs += [
        _record("compas", "cnf", f, cf, {"default": d, "independent": i})
        for f, (cf, d, i) in enumerate([(0.01, 0.20, 0.01), (0.01, 0.20, 0.03)])
    ]
    recs.append(_record("adult", "gan", 0, 0.05, None))
    both = book.ruler_table(recs, "cap").html.replace("\u00a0", " ")  # a number and its sd never break
    html = book.ruler_table(recs, "cap", metrics=["cf_mse"]).html.replace("\u00a0", " ")
    assert "worst subgroup" in both and "worst subgroup" not in html
    assert "0.030 ± 0.014" in html  # LTN(acc+CF) on the paper's flow: mean and sample sd of 0.02, 0.04
    assert "<strong>0.120 ± 0.028</strong>" in html  # default flow: LTN's 0.12 beats CNF's 0.20
    assert "<strong>0.010 ± 0.000</strong>" in html  # paper's flow: CNF lowest
    assert (
        "<strong>0.020 ± 0.014</strong>" in html and "<strong>0.040 ± 0.014</strong>" not in html
    )  # independent: CNF 0.02 < 0.04
    assert html.index("COMPAS") > html.index("Adult")  # the paper's dataset order
    gan_row = both[both.index("GAN") :].split("</tr>")[0]
    assert gan_row.count("—") == 4  # no default or independent ruler: CF-MSE and worst subgroup
    with pytest.raises(DataError, match="unknown ruler-table metric"):
        book.ruler_table(recs, "cap", metrics=["accuracy"])
    assert html.split("<tbody>")[1].count("<tr>") == 3  # a row per dataset and method


def test_a_claim_that_reverses_on_one_ruler_does_not_survive():
    # five COMPAS folds: the CF axiom lowers CF-MSE clearly on the paper's and the independent flow,
    # and raises it clearly on the default flow
    recs = []
    for f in range(5):
        eps = 0.001 * f
        recs.append(_record("compas", "ltn_acc", f, 0.10 + eps, {"default": 0.10 + eps, "independent": 0.10 + eps}))
        recs.append(
            _record(
                "compas", "ltn_acc_cf", f, 0.02 + eps / 2, {"default": 0.30 + eps / 2, "independent": 0.03 + eps / 2}
            )
        )
    claims = book.ruler_claims(recs, keys=("Q1.1",))
    [row] = claims.to_dict(orient="records")
    assert row[book.RULER_LABELS["paper"]] == book.claim_status(True)
    assert row[book.RULER_LABELS["independent"]] == book.claim_status(True)
    assert row[book.RULER_LABELS["default"]] == book.claim_status(False)
    assert row["survives"] is False and row["reverses"] is True
    assert book.ruler_verdict_line(claims) == (
        "Of the paper's 1 Table 1 claims about counterfactual fairness, 0 read the same "
        "on all three rulers; 1 reverses with the ruler (Q1.1)."
    )
    assert "no: it reverses" in book.ruler_claims_table(claims).html

    # the default flow only narrows the gap to noise: inconclusive there, not a reversal
    def narrowed(r: dict) -> dict:
        shift = (0.03 if r["config"]["fold"] % 2 else -0.03) if r["config"]["setting"] == "ltn_acc_cf" else 0.0
        rulers = {**r["metrics"]["rulers"], "default": {**r["metrics"]["rulers"]["default"], "cf_mse": 0.10 + shift}}
        return {**r, "metrics": {**r["metrics"], "rulers": rulers}}

    noisy = [narrowed(r) for r in recs]
    [row] = book.ruler_claims(noisy, keys=("Q1.1",)).to_dict(orient="records")
    assert row[book.RULER_LABELS["default"]] == book.claim_status("inconclusive")
    assert row["survives"] is False and row["reverses"] is False
    assert book.ruler_verdict_line(book.ruler_claims(noisy, keys=("Q1.1",))).endswith(
        "0 read the same on all three rulers; 1 moves between a verdict and inconclusive (Q1.1); none reverses."
    )
    # without the other rulers nothing can be said yet
    only_paper = [{**r, "metrics": {k: v for k, v in r["metrics"].items() if k != "rulers"}} for r in recs]
    open_claims = book.ruler_claims(only_paper, keys=("Q1.1",))
    assert open_claims["survives"].tolist() == [None]
    assert open_claims[book.RULER_LABELS["default"]].tolist() == ["no records"]
    assert "not known yet" in book.ruler_verdict_line(open_claims)


# ---------------------------------------------------------------------------- the synthetic suite
def _scores() -> pd.DataFrame:
    rows = []
    for t, gap, ratio in (
        ("paper", 0.30, 0.10),
        ("gumbel", 0.04, 1.10),
        ("default", 0.04, 1.10),
        ("oracle", 0.02, 0.99),
    ):
        rows.append(
            {
                "model": "nominal_child",
                "intervention": "do(s := 1 - s)",
                "treatment": t,
                "table_gap": gap,
                "cf_mse_ratio": ratio,
            }
        )
    for t, ratio in (("paper", 0.90), ("gumbel", 0.90), ("default", 0.90), ("oracle", 1.0)):
        rows.append(
            {
                "model": "chain",
                "intervention": "do(s := 1 - s)",
                "treatment": t,
                "table_gap": np.nan,
                "cf_mse_ratio": ratio,
            }
        )
    return pd.DataFrame(rows)


def test_synthetic_best_names_every_tied_treatment():
    best = book.synthetic_best(_scores()).set_index("model")
    assert best.loc["nominal_child", "best_table"] == "gumbel, default"
    assert best.loc["nominal_child", "best_cf_mse"] == "gumbel, default"
    assert pd.isna(best.loc["chain", "best_table"]) and best.loc["chain", "best_cf_mse"] == "paper, gumbel, default"


def test_synthetic_table_bolds_the_best_generated_treatment_never_the_oracle():
    html = book.synthetic_table(_scores(), "cap").html
    assert (
        html.count("<strong>0.040</strong>") == 2 and "<strong>0.020</strong>" not in html
    )  # the oracle is the reference
    assert html.count("<strong>1.100</strong>") == 2 and "<strong>0.990</strong>" not in html
    gaps = book.synthetic_table(_scores(), "cap", metrics=["table_gap"]).html
    assert "CF-MSE ÷ true" not in gaps and gaps.count("<strong>0.040</strong>") == 2
    with pytest.raises(DataError, match="unknown suite metric"):
        book.synthetic_table(_scores(), "cap", metrics=["gap"])


def test_reading_the_benchmark_files_names_the_command_when_missing(tmp_path):
    with pytest.raises(DataError, match="bench_synthetic_counterfactuals.py"):
        book.synthetic_scores(tmp_path / "none.csv")
    bad = tmp_path / "bad.json"
    bad.write_text("{", encoding="utf-8")
    with pytest.raises(DataError, match=r"not valid JSON \(line 1, column 2\)"):
        book.transition_tables(bad)


def _tables(tmp_path) -> dict:
    table = {"categories": ["Husband", "Wife", "Other"], "table": [[0.0, 0.8, 0.2], [1.0, 0.0, 0.0], [0.1, 0.0, 0.9]]}
    ident = {"categories": table["categories"], "table": np.eye(3).tolist()}
    data = {
        "models": {
            "m": {
                "cases": {
                    "do(s := 1 - s)": {
                        "transitions": {
                            "true": {"r": table},
                            "paper": {"r": ident},
                            "default": {"r": table},
                            "oracle": {"r": table},
                        }
                    }
                }
            }
        }
    }
    path = tmp_path / "t.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return book.transition_tables(path)


def test_transition_heatmaps_show_the_tables_two_panels_a_row(tmp_path):
    import matplotlib.pyplot as plt

    tables = _tables(tmp_path)
    fig = book.plot_transition_tables(tables, "m", "do(s := 1 - s)", "r")
    panels = [ax for ax in fig.axes if ax.get_visible()]
    assert [ax.get_title() for ax in panels] == ["true twins", "paper's treatment", "library default", "oracle"]
    shown = [np.asarray(ax.collections[0].get_array()).reshape(3, 3) for ax in panels]
    assert np.allclose(shown[0], tables["m"]["do(s := 1 - s)"]["true"]["r"]["table"]) and np.allclose(
        shown[1], np.eye(3)
    )
    cells = [t.get_text() for t in panels[0].texts]
    assert cells == ["0", ".80", ".20", "1", "0", "0", ".10", "0", ".90"]
    check_book_rules(fig)
    plt.close(fig)
    with pytest.raises(DataError, match=r"has no transition table of node 'x'; it has \['r'\]"):
        book.plot_transition_tables(tables, "m", "do(s := 1 - s)", "x")
    with pytest.raises(DataError, match="unknown model 'adult'"):
        book.plot_transition_tables(tables, "adult", "do(s := 1 - s)", "r")


# ---------------------------------------------------------------------------- how much the ruler moves CF-MSE
def _ruled(dataset: str, setting: str, paper: float, default: float | None, folds: int = 2) -> list[dict]:
    rulers = {} if default is None else {"rulers": {"default": {"cf_mse": default}}}
    return [
        {"config": {"dataset": dataset, "fold": k, "setting": setting},
         "metrics": {"accuracy": 0.8, "cf_mse": paper, **rulers}}
        for k in range(folds)
    ]  # fmt: skip


def test_ruler_shift_calls_a_ruler_slightly_different_only_when_every_ratio_is_within_a_quarter():
    from cffair_book.rulers import ruler_shift

    close = _ruled("adult", "ltn_acc_cf", 0.10, 0.11) + _ruled("compas", "ltn_acc_cf", 0.05, 0.045)
    text = ruler_shift(close)
    assert "a factor between 0.90 and 1.10" in text and text.endswith("a slightly different ruler.")
    far = close + _ruled("lawschool", "ltn_acc_cf", 0.02, 0.06, folds=3)
    text = ruler_shift(far)
    assert "a factor between 0.90 and 3.00 (LTN(acc+CF) on Lawschool: 0.020 → 0.060; 3 folds)" in text
    assert text.endswith("a different ruler, not a slightly different one.")
    # the methods asked for only; records without the ruler say so
    other = close + _ruled("lawschool", "cnf", 0.02, 0.06)
    assert "CNF on Lawschool" in ruler_shift(other)
    assert ruler_shift(other, ["ltn_acc_cf"]).endswith("a slightly different ruler.")
    assert ruler_shift(_ruled("adult", "ltn_acc_cf", 0.1, None)).startswith("No record carries the CF-MSE")
    # no records at all, or none of the methods asked for: the same sentence, not a KeyError of the empty frame
    assert (
        ruler_shift([])
        == ruler_shift(close, ["dcevae"])
        == "No record carries the CF-MSE on the default flow's twins yet."
    )
    with pytest.raises(DataError, match="compares another ruler"):
        ruler_shift(close, ruler="paper")
