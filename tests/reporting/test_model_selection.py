"""Model selection (cffair.reporting._model_selection): known answers of the rule (a collapsed candidate is
never chosen, a tie in accuracy goes to the fairer, the tolerance is respected, the noise of the
choice is stated), from hand-made ``cv_results_``, own-data records and real searches.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from sklearn.compose import make_column_transformer
from sklearn.dummy import DummyClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GridSearchCV, KFold
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import FunctionTransformer, OneHotEncoder
from toy_estimator import FAST, SPEC, flip_s, toy

from cffair.errors import ParameterError, SelectionError
from cffair.reporting._model_selection import FairestWithinTolerance, collapsed_scorer, scoring, select


def _results(candidates: dict[str, tuple[list[float], list[float], list[float]]]) -> dict:
    """A ``cv_results_`` of a multi-metric search: per candidate (accuracy, flip rate, collapsed) per fold;
    the flip rate stored as cffair's scorer gives it (minus the metric, -1 for a collapsed fold)."""
    names = list(candidates)
    k = len(next(iter(candidates.values()))[0])
    out: dict = {"params": [{"clf": n} for n in names]}
    for f in range(k):
        out[f"split{f}_test_accuracy"] = np.array([candidates[n][0][f] for n in names])
        out[f"split{f}_test_cf_flip_rate"] = np.array(
            [-1.0 if candidates[n][2][f] else -candidates[n][1][f] for n in names]
        )
        out[f"split{f}_test_collapsed"] = np.array([float(candidates[n][2][f]) for n in names])
    return out


OK = [0, 0, 0, 0, 0]


def test_a_collapsed_candidate_is_never_chosen_however_fair() -> None:
    res = _results(
        {
            "constant": ([0.70, 0.72, 0.71, 0.70, 0.71], [0.0] * 5, [0, 1, 0, 0, 0]),  # fairest, but collapsed once
            "a": ([0.80, 0.82, 0.81, 0.80, 0.79], [0.10, 0.12, 0.11, 0.10, 0.09], OK),
            "b": ([0.80, 0.81, 0.80, 0.81, 0.80], [0.05, 0.06, 0.05, 0.04, 0.05], OK),
        }
    )
    sel = select(res)
    assert sel.label == "clf=b" and sel.index == 2
    row = sel.frame.loc["clf=constant"]
    assert row["status"] == "dropped" and row["collapsed folds"] == 1 and "collapsed on fold(s) 1" in row["why"]
    # without the collapsed scorer, the worst score cffair's scorers give a collapsed model says the same
    res_plain = {k: v for k, v in res.items() if not k.endswith("_collapsed")}
    assert select(res_plain).label == "clf=b"
    assert "score is the worst, which cffair's scorers give" in select(res_plain).frame.loc["clf=constant", "why"]
    assert FairestWithinTolerance()(res) == 2


def test_every_candidate_collapsed_is_an_error() -> None:
    res = _results({"x": ([0.7] * 3, [0.0] * 3, [1, 0, 0]), "y": ([0.6] * 3, [0.0] * 3, [0, 0, 1])})
    with pytest.raises(SelectionError, match="every one of the 2 candidates collapsed") as err:
        select(res)
    table = str(err.value).splitlines()[1:]  # every candidate, its scores and why it was dropped
    assert any(line.startswith("clf=x") and "collapsed on fold(s) 0" in line for line in table)
    assert any(line.startswith("clf=y") and "collapsed on fold(s) 2" in line for line in table)
    rule = FairestWithinTolerance()
    with pytest.raises(SelectionError):
        rule(res)
    assert rule.cv_results_ is res  # a search stopped by the error keeps its results here


def test_a_tie_in_accuracy_goes_to_the_fairer() -> None:
    acc = [0.80, 0.78, 0.82, 0.79, 0.81]
    res = _results({"a": (acc, [0.20, 0.21, 0.19, 0.20, 0.20], OK), "b": (acc, [0.05, 0.06, 0.05, 0.04, 0.05], OK)})
    sel = select(res)
    assert sel.label == "clf=b"
    assert sel.frame.loc["clf=a", "status"] == "kept" and "2nd fairest of 2" in sel.frame.loc["clf=a", "why"]
    assert sel.frame.loc["clf=b", "cf_flip_rate mean"] == pytest.approx(0.05)  # shown as the metric, not minus it
    assert sel.within_noise is False and "beyond fold noise" in sel.note
    # and a tie in fairness too goes to the more accurate
    tie = _results({"a": ([0.81] * 5, [0.05] * 5, OK), "b": ([0.80] * 5, [0.05] * 5, OK)})
    assert select(tie, tolerance=0.05).label == "clf=a"


def test_the_tolerance_is_respected() -> None:
    best = [0.80, 0.84, 0.82, 0.78, 0.81]
    se = np.std(best, ddof=1) / math.sqrt(5)
    fair = [0.01, 0.02, 0.01, 0.02, 0.01]
    for gap, kept in ((0.9 * se, True), (1.1 * se, False)):
        res = _results({"best": (best, [0.2] * 5, OK), "fair": ([a - gap for a in best], fair, OK)})
        sel = select(res)  # one standard error of the best
        assert sel.tolerance == pytest.approx(se)
        assert sel.label == ("clf=fair" if kept else "clf=best"), gap
        if not kept:
            assert sel.frame.loc["clf=fair", "status"] == "dropped"
            assert f"more than {se:.4f} below the best" in sel.frame.loc["clf=fair", "why"]
    res = _results({"best": (best, [0.2] * 5, OK), "fair": ([a - 0.02 for a in best], fair, OK)})
    assert select(res, tolerance=0.01).label == "clf=best" and select(res, tolerance=0.03).label == "clf=fair"
    assert select(res, tolerance=0.01).tolerance_rule == "the given absolute tolerance (0.01)"
    for bad in ("1se", -0.1, True, float("nan")):
        with pytest.raises(ParameterError, match="tolerance must be"):
            select(res, tolerance=bad)


def test_a_choice_within_fold_noise_says_so() -> None:
    acc = [0.80, 0.80, 0.80, 0.80, 0.80]
    res = _results(
        {"a": (acc, [0.100, 0.140, 0.080, 0.120, 0.100], OK), "b": (acc, [0.110, 0.100, 0.120, 0.090, 0.105], OK)}
    )
    sel = select(res)
    assert sel.label == "clf=b"  # mean 0.105 against 0.108
    assert sel.within_noise is True and "within fold noise" in sel.note and "clf=a" in sel.note
    assert select(_results({"only": (acc, [0.1] * 5, OK)})).within_noise is None


def test_missing_scores_are_named() -> None:
    res = _results({"a": ([0.8] * 3, [0.1] * 3, [0] * 3)})
    with pytest.raises(
        SelectionError, match="no per-fold test score 'cf_mse'.*'accuracy', 'cf_flip_rate', 'collapsed'"
    ):
        select(res, fairness="cf_mse")
    with pytest.raises(SelectionError, match="takes a fitted search"):
        select([1, 2, 3])


# ----------------------------------------------------------------------------- own-data records
def _record(method: str, fold: int, acc: float, flip: float, positive: float = 0.4) -> dict:
    return {
        "config": {"dataset": "d", "fold": fold, "setting": method, "cf_source": "cnf", "tag": ""},
        "metrics": {
            "accuracy": acc,
            "cf_flip_rate": flip,
            "cf_mse": flip / 2,
            "majority_rate": 0.7,
            "positive_rate": positive,
            "prediction_sd": 0.2,
        },
    }


def test_records_the_fairest_accurate_method_and_never_a_collapsed_one() -> None:
    recs = []
    for f in range(5):
        recs += [
            _record("ltn_acc", f, 0.80 + f / 200, 0.20),
            _record("ltn_acc_cf", f, 0.798 + f / 200, 0.05 + f / 1000),  # within one SE of the best
            _record("gan", f, 0.75, 0.0, positive=1.0 if f == 2 else 0.5),  # says yes to everyone on fold 2
            _record("cnf", f, 0.69 + f / 50, 0.01),  # below the majority rate 0.7 on some folds, above on average
            _record("dcevae", f, 0.72 - f / 50, 0.0),  # above it on one fold, below on average
        ]
    sel = select(recs)
    assert sel.label == "LTN(acc+CF)" and sel.params["method"] == "ltn_acc_cf"
    assert sel.frame.loc["GAN", "status"] == "dropped" and sel.frame.loc["GAN", "collapsed folds"] == 1
    assert "on fold 2 it gives 100.0% of the rows one decision" in sel.frame.loc["GAN", "why"]
    assert sel.frame.loc["DCEVAE", "status"] == "dropped"
    assert (
        "mean accuracy 0.680 over 5 folds is at or below the mean majority-class rate 0.700"
        in sel.frame.loc["DCEVAE", "why"]
    )
    # one fold below the majority rate drops nothing: CNF is kept (and dropped only for its accuracy)
    assert "more than" in sel.frame.loc["CNF", "why"] and "majority" not in sel.frame.loc["CNF", "why"]
    assert sel.frame.loc["LTN(acc)", "accuracy mean"] == pytest.approx(0.81)
    shown = sel.shown()
    assert shown.loc["LTN(acc+CF)", "accuracy"] == f"0.808 ± {np.std([0.798 + f / 200 for f in range(5)], ddof=1):.3f}"
    # the majority rate of records made before it was recorded comes from the run
    old = [dict(r, metrics={k: v for k, v in r["metrics"].items() if k != "majority_rate"}) for r in recs]
    assert "majority" not in select(old).frame.loc["DCEVAE", "why"]  # dropped for its accuracy only
    assert "majority-class rate 0.700" in select(old, majority=dict.fromkeys(range(5), 0.7)).frame.loc["DCEVAE", "why"]


def test_a_search_candidate_below_the_majority_rate_on_average_is_dropped() -> None:
    res = _results(
        {
            "a": ([0.80, 0.82, 0.81, 0.80, 0.79], [0.10] * 5, OK),
            "weak": ([0.69, 0.72, 0.70, 0.69, 0.70], [0.01] * 5, OK),  # fairer, but no better than "always no"
        }
    )
    for f in range(5):
        res[f"split{f}_test_majority_rate"] = np.array([0.70, 0.70])
    sel = select(res, tolerance=0.2)
    assert sel.label == "clf=a" and "mean majority-class rate 0.700" in sel.frame.loc["clf=weak", "why"]


# ----------------------------------------------------------------------------- real searches
def _logreg(drop_s: bool) -> Pipeline:
    cols = make_column_transformer(("drop" if drop_s else OneHotEncoder(), ["s"]), remainder="passthrough")
    return Pipeline([("cols", cols), ("clf", LogisticRegression())])


def test_a_search_with_the_rule_as_refit_chooses_the_fair_accurate_model() -> None:
    """A constant predictor (flips nothing), a logistic regression reading S and one without it
    (which flips nothing on twins that change S alone, and is as accurate: y does not depend on S
    given a and b): the rule drops the constant one and refits the one without S."""
    X, y, _ = toy(400, seed=5)
    grid = {"m": [DummyClassifier(strategy="most_frequent"), _logreg(False), _logreg(True)]}
    pipe = Pipeline([("m", DummyClassifier())])
    search = GridSearchCV(
        pipe,
        grid,
        scoring=scoring(counterfactuals=flip_s),
        refit=FairestWithinTolerance(),
        cv=KFold(5, shuffle=True, random_state=0),
    ).fit(X, y)
    sel = select(search)
    assert search.best_index_ == sel.index == 2
    assert (search.cv_results_["mean_test_collapsed"] == [1.0, 0.0, 0.0]).all()
    assert sel.frame["status"].tolist() == ["dropped", "kept", "chosen"]
    assert sel.frame["cf_flip_rate mean"].iloc[2] == 0.0 < sel.frame["cf_flip_rate mean"].iloc[1]
    assert search.best_estimator_.predict(X).shape == (400,)


def test_collapsed_scorer_reads_any_estimator_and_a_cffair_pipeline() -> None:
    X, y, _ = toy(200, seed=6)
    assert collapsed_scorer(DummyClassifier(strategy="most_frequent").fit(X, y), X, y) == 1.0
    assert collapsed_scorer(_logreg(False).fit(X, y), X, y) == 0.0


def test_a_cffair_pipeline_in_a_multi_metric_search() -> None:
    """Scorers in a Pipeline whose first step selects the spec's columns: the rule's choice is the
    search's refit, and every score is minus its metric."""
    from cffair.learners._estimator import CounterfactualFairClassifier

    X, y, _ = toy(180, seed=1)
    X = X.assign(unused=np.arange(len(X)))
    pipe = Pipeline(
        [
            ("select", FunctionTransformer(lambda frame: frame[["s", "a", "b"]])),
            ("ltn", CounterfactualFairClassifier(SPEC, counterfactuals=flip_s, **FAST)),
        ]
    )
    search = GridSearchCV(
        pipe,
        {"ltn__setting": ["acc", "acc_cf"]},
        scoring=scoring(),
        refit=FairestWithinTolerance(fairness="cf_mse"),
        cv=KFold(3, shuffle=True, random_state=0),
    ).fit(X, y)
    sel = select(search, fairness="cf_mse")
    assert search.best_index_ == sel.index
    r = search.cv_results_
    assert (r["mean_test_cf_flip_rate"] <= 0).all() and (r["mean_test_cf_mse"] <= 0).all()
    np.testing.assert_allclose(sel.frame["cf_mse mean"].to_numpy(), -r["mean_test_cf_mse"])
    assert search.best_estimator_[-1].setting == search.best_params_["ltn__setting"]
