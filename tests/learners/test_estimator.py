"""The scikit-learn estimators (cffair.learners._estimator): the estimator contract, known answers of the
scorers, and use in Pipeline, cross_val_score and GridSearchCV.

The data is a small structural model: S ∈ {f, m}; a = 1.5·[S = f] + noise (a descendant of S);
b = noise (not caused by S); y = [a + b + noise > 0.7] with labels "no"/"yes".
"""

from __future__ import annotations

import copy

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone
from sklearn.exceptions import NotFittedError
from sklearn.model_selection import GridSearchCV, KFold, cross_val_score
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import FunctionTransformer
from sklearn.utils import estimator_checks as checks
from toy_estimator import FAST, SPEC, flip_s, identity_twins, toy

import cffair
from cffair.errors import CounterfactualError, DataError, ParameterError, SpecError
from cffair.learners._estimator import (
    CounterfactualFairClassifier,
    CounterfactualFairRegressor,
    cf_flip_rate_scorer,
    cf_mse_scorer,
    cf_scorer,
)


@pytest.fixture(scope="module")
def fitted(toy_classifier):
    return toy_classifier


@pytest.fixture(scope="module")
def flip_fitted():
    """A classifier whose twins come from the callable ``flip_s`` (S flipped, nothing else)."""
    X, y, _ = toy(120)
    return CounterfactualFairClassifier(SPEC, counterfactuals=flip_s, **FAST).fit(X, y)


#: The toy spec with an integer feature ``k`` (a count that S does not cause).
INT_SPEC = {
    **SPEC,
    "features": {**SPEC["features"], "k": "integer"},
    "graph": {"name": "toy", "edges": {"s": ["a"]}, "nodes": ["b", "k"]},
}


@pytest.fixture(scope="module")
def int_model():
    """``(estimator, rows)``: a classifier of the accuracy axioms on rows with the integer feature ``k``."""
    X, y, _ = toy(80)
    X = X.assign(k=np.arange(80) % 7 + 20)
    est = CounterfactualFairClassifier(INT_SPEC, setting="acc", counterfactuals=flip_s, pretrain_epochs=5).fit(X, y)
    return est, X


# ----------------------------------------------------------------------------- the contract
def test_params_round_trip_through_clone_and_set_params() -> None:
    est = CounterfactualFairClassifier(SPEC, setting="acc_cf_sg", lr=0.01, hidden=(8,), seed=3)
    params = est.get_params(deep=True)
    assert (
        params["setting"] == "acc_cf_sg" and params["lr"] == 0.01 and params["hidden"] == (8,) and params["seed"] == 3
    )
    twin = clone(est)
    assert twin is not est and twin.get_params() == params
    twin.set_params(fair_epochs=7, setting="acc")
    assert twin.fair_epochs == 7 and twin.setting == "acc" and est.fair_epochs == 500


@pytest.mark.parametrize(
    "check",
    [
        checks.check_no_attributes_set_in_init,
        checks.check_get_params_invariance,
        checks.check_set_params,
        checks.check_parameters_default_constructible,
    ],
    ids=lambda f: f.__name__,
)
def test_sklearn_checks_that_apply(check) -> None:
    est = CounterfactualFairClassifier(SPEC)
    check(type(est).__name__, est)


def test_unfitted_estimator_raises_not_fitted_error() -> None:
    X, _, _ = toy(20)
    est = CounterfactualFairClassifier(SPEC)
    for call in (est.predict, est.predict_proba, est.cf_decisions, est.counterfactuals_of):
        with pytest.raises(NotFittedError):
            call(X)


def test_options_and_data_are_checked_in_fit() -> None:
    X, y, score = toy(40)
    with pytest.raises(ValueError, match="setting must be one of"):
        CounterfactualFairClassifier(SPEC, setting="acc_cf_cke").fit(X, y)
    with pytest.raises(ValueError, match=r"lr must be a number in \(0, 1\]"):
        CounterfactualFairClassifier(SPEC, lr=1e6).fit(X, y)
    with pytest.raises(
        ParameterError, match="counterfactuals must be 'flow' .* or a callable rows -> twins, got 'gan'"
    ):
        CounterfactualFairClassifier(SPEC, counterfactuals="gan").fit(X, y)
    with pytest.raises(SpecError, match="CounterfactualFairRegressor"):
        CounterfactualFairClassifier({**SPEC, "target_kind": "score"}).fit(X, score)
    with pytest.raises(DataError, match="exactly two classes"):
        CounterfactualFairClassifier(SPEC, **FAST).fit(X, np.arange(40) % 3)
    with pytest.raises(DataError, match=r"lacks the feature column\(s\) \['b'\]"):
        CounterfactualFairClassifier(SPEC, **FAST).fit(X.drop(columns="b"), y)
    with pytest.raises(DataError, match="pandas DataFrame"):
        CounterfactualFairClassifier(SPEC, **FAST).fit(X.to_numpy(), y)


def test_top_level_names_are_the_estimators() -> None:
    assert cffair.CounterfactualFairClassifier is CounterfactualFairClassifier
    assert cffair.CounterfactualFairRegressor is CounterfactualFairRegressor


# ----------------------------------------------------------------------------- known answers
def test_labels_probabilities_and_accuracy(fitted) -> None:
    est, X, y = fitted
    assert list(est.classes_) == ["no", "yes"]
    proba = est.predict_proba(X)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0, rtol=0, atol=1e-12)
    pred = est.predict(X)
    assert set(pred) <= {"no", "yes"}
    np.testing.assert_array_equal(pred, np.where(proba[:, 1] >= 0.5, "yes", "no"))
    assert est.score(X, y) == pytest.approx(np.mean(pred == y))
    assert est.score(X, y) > max(np.mean(y == "yes"), np.mean(y == "no"))  # better than the majority class


def test_scorers_equal_the_metrics_on_the_estimators_own_twins(fitted) -> None:
    est, X, _ = fitted
    d, d_cf = est.cf_decisions(X)
    assert len(d) == len(X)  # a binary S: one twin per row
    assert cf_mse_scorer(est, X) == pytest.approx(-np.mean((d - d_cf) ** 2))
    assert cf_flip_rate_scorer(est, X) == pytest.approx(-np.mean((d >= 0.5) != (d_cf >= 0.5)))
    twins = est.counterfactuals_of(X)
    assert list(twins["row_id"]) == list(range(len(X)))
    assert (twins["s"].astype(str).to_numpy() != X["s"].to_numpy()).all()  # S is flipped in every twin
    np.testing.assert_allclose(twins["b"].to_numpy(), X["b"].to_numpy(), rtol=0, atol=1e-4)  # b is not caused by S


def _shuffled(rows: pd.DataFrame) -> pd.DataFrame:
    return flip_s(rows).iloc[::-1].reset_index(drop=True)  # each twin beside another person's row


def _b_changed(rows: pd.DataFrame) -> pd.DataFrame:
    return flip_s(rows).assign(b=rows["b"] + 1.0)  # b is not caused by S: an intervention on S keeps it


def _with_ids(rows: pd.DataFrame) -> pd.DataFrame:
    return _shuffled(rows).assign(row_id=np.arange(len(rows)))  # ids do not make shuffled twins positional


@pytest.mark.parametrize(
    ("twins", "message"),
    [
        (identity_twins, r"counterfactual row 0 keeps s = '[fm]' of factual row 0 \(120 of 120 rows do\)"),
        (_shuffled, r"has b = .* but factual row 0 has b = .*which it does not cause"),
        (_b_changed, r"has b = .* but factual row 0 has b = .* \(120 of 120 rows disagree\)"),
        (_with_ids, r"which it does not cause"),
    ],
    ids=["the rows unchanged", "shuffled", "a non-descendant changed", "shuffled with row ids"],
)
def test_twins_from_a_callable_pass_the_row_checks_of_train(twins, message, flip_fitted) -> None:
    """outcome class: error (the checks `cffair train --counterfactuals` applies to a file)."""
    X, y, _ = toy(120)
    est = CounterfactualFairClassifier(SPEC, counterfactuals=twins, **FAST)
    with pytest.raises(CounterfactualError, match=message):
        est.fit(X, y)  # refused before any training
    assert not hasattr(est, "learner_")
    held_out = copy.copy(flip_fitted)
    held_out.counterfactuals = twins  # the twins of held-out rows are checked the same way
    with pytest.raises(CounterfactualError, match=message.replace("120 of 120", "10 of 10")):
        held_out.cf_decisions(X.head(10))


def test_same_seed_same_model_and_twins_from_elsewhere_are_used() -> None:
    X, y, _ = toy(120)
    a = CounterfactualFairClassifier(SPEC, counterfactuals=flip_s, **FAST).fit(X, y)
    b = CounterfactualFairClassifier(SPEC, counterfactuals=flip_s, **FAST).fit(X, y)
    np.testing.assert_array_equal(a.predict_proba(X), b.predict_proba(X))
    d, d_cf = a.cf_decisions(X)
    flipped = flip_s(X)
    np.testing.assert_array_equal(d_cf, a.predict_proba(flipped)[:, 1])


def test_new_rows_with_an_unseen_category_are_refused(fitted) -> None:
    est, X, _ = fitted
    bad = X.head(3).assign(s=["f", "x", "m"])
    with pytest.raises(DataError, match=r"feature 's' has value\(s\) \['x'\] not seen in training"):
        est.predict(bad)


def test_regressor_predicts_scores() -> None:
    X, _, score = toy(160)
    spec = {**SPEC, "target_kind": "score"}
    est = CounterfactualFairRegressor(spec, setting="acc", **FAST).fit(X, score)
    pred = est.predict(X)
    assert pred.shape == (160,) and np.isfinite(pred).all()
    assert est.score(X, score) == pytest.approx(1 - np.sum((score - pred) ** 2) / np.sum((score - score.mean()) ** 2))
    assert cf_mse_scorer(est, X) <= 0.0


# ----------------------------------------------------------------------------- scikit-learn tools
def test_pipeline_cross_val_score_and_grid_search() -> None:
    X, y, _ = toy(180, seed=1)
    X = X.assign(unused=np.arange(len(X)))
    select = FunctionTransformer(lambda frame: frame[["s", "a", "b"]])
    pipe = Pipeline([("select", select), ("ltn", CounterfactualFairClassifier(SPEC, counterfactuals=flip_s, **FAST))])
    cv = KFold(3, shuffle=True, random_state=0)
    scores = cross_val_score(pipe, X, y, cv=cv)
    assert scores.shape == (3,) and ((scores >= 0) & (scores <= 1)).all()

    # the scorer finds the pipeline's last step and scores it on the columns the steps before it select
    fitted_pipe = clone(pipe).fit(X, y)
    step_rows = fitted_pipe[:-1].transform(X)
    assert cf_flip_rate_scorer(fitted_pipe, X) == cf_flip_rate_scorer(fitted_pipe[-1], step_rows)
    search = GridSearchCV(pipe, {"ltn__setting": ["acc", "acc_cf"]}, scoring=cf_flip_rate_scorer, cv=cv).fit(X, y)
    means = search.cv_results_["mean_test_score"]
    assert means.shape == (2,) and (means <= 0).all()
    assert search.best_params_["ltn__setting"] == ["acc", "acc_cf"][int(np.argmax(means))]
    assert search.best_estimator_[-1].setting == search.best_params_["ltn__setting"]


# ----------------------------------------------------------------------------- new rows, as training rows
def _cell(column: str, value: object):
    def edit(rows: pd.DataFrame) -> pd.DataFrame:
        out = rows.head(4).copy()
        out[column] = out[column].astype(object)
        out.loc[0, column] = value
        return out.infer_objects() if not isinstance(value, str) else out

    return edit


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (_cell("k", 30.7), r"'k' is declared integer but has fractional values \(the first, 30.7, at row 0\); .*whole"),
        (lambda r: r.head(3).assign(k=[True, False, True]), r"'k' is declared integer but holds True/False"),
        (_cell("k", True), r"'k' is declared integer but holds non-numeric values such as \[True\]"),
        (lambda r: r.head(3).assign(k=["30", "31", "32"]), r"'k' is declared integer but holds numbers stored as text"),
        (_cell("s", np.nan), r"missing values \(NaN\) in column\(s\) \{'s': 1\}"),
        (_cell("s", "m "), r"\['m '\] not seen in training .*'m ' differs from the category 'm' only by spaces"),
        (_cell("a", 1e39), r"column 'a' holds 1 value\(s\) too large to compute with, the first \(1e\+39\) at row 0"),
        (lambda r: r.head(0), r"there are no rows to answer for"),
    ],
    ids=[
        "30.7 in an integer",
        "True/False in an integer",
        "True among integers",
        "numbers as text",
        "NaN category",
        "trailing space",
        "1e39",
        "no rows",
    ],
)
def test_new_rows_are_refused_where_training_rows_are(int_model, edit, message) -> None:
    """outcome class: error (the rules of the training rows, :func:`cffair.datasets._frames.prepare_features`)."""
    est, X = int_model
    for call in (est.predict, est.predict_proba, est.counterfactuals_of):
        with pytest.raises(DataError, match=message):
            call(edit(X))


def test_whole_floats_in_an_integer_feature_are_read_as_training_reads_them(int_model) -> None:
    """outcome class: accepted (30.0 is the whole number 30, as at training; nothing is truncated)."""
    est, X = int_model
    rows = X.head(6)
    np.testing.assert_array_equal(est.predict_proba(rows.assign(k=rows["k"].astype(float))), est.predict_proba(rows))


def test_training_refuses_what_new_rows_refuse(int_model) -> None:
    """The same rule at fit: a fractional count is refused with the fix for a spec."""
    _, X = int_model
    bad = _cell("k", 30.7)(X).assign(s=["f", "m", "f", "m"])
    with pytest.raises(
        DataError, match=r"'k' is declared integer but has fractional values .* declare it 'continuous'"
    ):
        CounterfactualFairClassifier(INT_SPEC, setting="acc", counterfactuals=flip_s).fit(bad, ["no", "yes"] * 2)


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"lr": 1e6}, r"lr must be a number in \(0, 1\], got 1000000.0"),
        ({"setting": "acc_cf", "group_weights": {"cf_sg": 2.0}}, r"\['cf_sg'\], which setting 'acc_cf' does not have"),
        ({"setting": "acc", "group_weights": {"cke": 5.0}}, r"\['cke'\], which setting 'acc' does not have"),
        ({"setting": "acc_cf", "group_weights": {"cf": -1}}, r"the weight of 'cf' in group_weights must be"),
    ],
    ids=["lr 1e6", "cf_sg with acc_cf", "cke with acc", "a negative weight"],
)
def test_parameters_naming_nothing_the_setting_trains_are_refused(params, message) -> None:
    """outcome class: error (a ParameterError before any work)."""
    X, y, _ = toy(40)
    est = CounterfactualFairClassifier(SPEC, **{**FAST, **params})
    with pytest.raises(ParameterError, match=message):
        est.fit(X, y)
    assert not hasattr(est, "encoder_")


# ----------------------------------------------------------------------------- the degenerate-model screen
def _logreg() -> Pipeline:
    from sklearn.compose import make_column_transformer
    from sklearn.linear_model import LogisticRegression
    from sklearn.preprocessing import OneHotEncoder

    cols = make_column_transformer((OneHotEncoder(), ["s"]), remainder="passthrough")
    return Pipeline([("cols", cols), ("clf", LogisticRegression())])


def test_any_estimator_is_scored_on_given_twins_with_a_known_answer() -> None:
    X, y, _ = toy(200, seed=2)
    model = _logreg().fit(X, y)
    d, d_cf = model.predict_proba(X)[:, 1], model.predict_proba(flip_s(X))[:, 1]
    flips, mse = cf_scorer("flip_rate", flip_s), cf_scorer("cf_mse", flip_s)
    assert flips(model, X, y) == pytest.approx(-np.mean((d >= 0.5) != (d_cf >= 0.5)))
    assert mse(model, X, y) == pytest.approx(-np.mean((d - d_cf) ** 2))
    assert flips(model, X, y) < 0  # a in the model depends on S: some decisions flip


def test_a_collapsed_model_scores_worst_and_is_never_chosen() -> None:
    from sklearn.dummy import DummyClassifier

    X, y, _ = toy(240, seed=3)
    constant = DummyClassifier(strategy="most_frequent").fit(X, y)
    flips = cf_scorer("flip_rate", flip_s)
    assert cf_scorer("flip_rate", flip_s, screen_collapsed=False)(constant, X, y) == 0.0  # trivially "fair"
    assert flips(constant, X, y) == -1.0 and cf_scorer("cf_mse", flip_s)(constant, X, y) == -1.0
    # a grid between a constant predictor and a real one picks the real one although it flips more
    grid = [{"clf": [DummyClassifier(strategy="most_frequent")]}, {"clf": [_logreg()[-1]]}]
    search = GridSearchCV(_logreg(), grid, scoring=flips, cv=KFold(3, shuffle=True, random_state=0)).fit(X, y)
    assert type(search.best_estimator_[-1]).__name__ == "LogisticRegression"
    assert search.cv_results_["mean_test_score"][0] == -1.0


def test_the_screen_reads_a_collapsed_ltn_as_worst() -> None:
    """A learned LTN is scored by its metric; the same LTN saying yes to everyone scores -1."""
    from cffair.scores._screen import screen

    X, y, _ = toy(160, seed=4)
    est = CounterfactualFairClassifier(SPEC, counterfactuals=flip_s, **FAST).fit(X, y)
    d = est.predict_proba(X)[:, 1]
    assert not screen(d, (y == est.classes_[1]).astype(int))  # this one learned: the scorer is the metric
    expected = -np.mean((d >= 0.5) != (est.cf_decisions(X)[1] >= 0.5))
    assert cf_flip_rate_scorer(est, X, y) == pytest.approx(expected) == cf_flip_rate_scorer(est, X)
    # the same model made to say "yes" to everyone (its last layer's bias pushed up) scores worst
    import torch

    with torch.no_grad():
        list(est.learner_.model_.parameters())[-1].add_(100.0)
    assert (est.predict_proba(X)[:, 1] >= 0.5).all()
    assert cf_flip_rate_scorer(est, X, y) == -1.0 and cf_mse_scorer(est, X, y) == -1.0


# ----------------------------------------------------------------------------- any estimator, any pipeline
def test_any_estimator_on_the_spec_columns_is_scored_on_a_cffair_flows_twins(fitted) -> None:
    """A logistic regression in a Pipeline, on rows with a column beyond the spec's (an id its
    first step drops), scored on the twins a fitted cffair estimator's flow makes (several per
    row would carry ``row_id``): the scorer's flip rate is the one computed by hand, in
    ``cross_val_score`` too."""
    est, X, y = fitted
    rows = X.assign(client_id=np.arange(len(X)))
    pipe = Pipeline([("drop_id", FunctionTransformer(lambda f: f.drop(columns="client_id"))), ("m", _logreg())])
    model = clone(pipe).fit(rows, y)
    twins = est.counterfactuals_of(rows)
    assert "client_id" not in twins.columns
    full = rows.iloc[twins["row_id"]].reset_index(drop=True).assign(**{c: twins[c].to_numpy() for c in ("s", "a", "b")})
    d = model.predict_proba(rows)[:, 1][twins["row_id"]]
    d_cf = model.predict_proba(full)[:, 1]
    scorer = cf_scorer("flip_rate", est.counterfactuals_of)
    assert scorer(model, rows, y) == pytest.approx(-np.mean((d >= 0.5) != (d_cf >= 0.5)))
    assert scorer(model, rows, y) < 0  # a, a descendant of S, changes in the twins
    cv = KFold(3, shuffle=True, random_state=0)
    by_hand = [scorer(clone(pipe).fit(rows.iloc[tr], y[tr]), rows.iloc[te], y[te]) for tr, te in cv.split(rows)]
    np.testing.assert_allclose(cross_val_score(pipe, rows, y, cv=cv, scoring=scorer), by_hand)


def test_fit_prints_its_training_accuracy_and_warns_when_it_collapsed(capsys) -> None:
    from cffair.errors import CollapsedModelWarning

    X, y, _ = toy(120, seed=7)
    est = CounterfactualFairClassifier(SPEC, counterfactuals=flip_s, **FAST).fit(X, y)
    err = capsys.readouterr().err.strip().splitlines()
    assert est.training_score_ == pytest.approx(est.score(X, y))
    majority = max(np.mean(y == "yes"), np.mean(y == "no"))
    assert err == [
        f"CounterfactualFairClassifier(acc_cf): 120 rows, 60 + 30 epochs, "
        f"{err[0].split(' epochs, ')[1].split(' s;')[0]} s; training accuracy {est.training_score_:.3f} "
        f"(majority-class rate {majority:.3f})"
    ]
    CounterfactualFairClassifier(SPEC, counterfactuals=flip_s, verbose=False, **FAST).fit(X, y)
    assert capsys.readouterr().err == ""
    # labels that carry no signal: the model cannot beat the majority class on its own rows
    noise = np.where(np.random.default_rng(0).random(120) < 0.75, "no", "yes")
    with pytest.warns(CollapsedModelWarning, match="collapsed on its own training rows"):
        weak = CounterfactualFairClassifier(
            SPEC, counterfactuals=flip_s, verbose=False, setting="acc", pretrain_epochs=3
        )
        weak.fit(X, noise)
    assert weak.training_screen_.collapsed
