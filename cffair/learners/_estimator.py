"""Scikit-learn estimators around the LTN learner: counterfactually fair classification and regression.

:class:`CounterfactualFairClassifier` (binary target) and :class:`CounterfactualFairRegressor`
(score target) take a :class:`pandas.DataFrame` of readable rows and a
:class:`~cffair.datasets.DatasetSpec`, make the counterfactual twins of the training rows, and
train the MLP predicate ``D`` inside a Logic Tensor Network with the chosen axioms (accuracy
A1–A3; counterfactual fairness A4; subgroup fairness A4_1..n), with the paper's schedule
(pre-training on the accuracy axioms, then the fairness stage; :mod:`cffair.learners._training`).

They follow scikit-learn's conventions, so they work in a :class:`~sklearn.pipeline.Pipeline`,
:func:`~sklearn.model_selection.cross_val_score` and
:class:`~sklearn.model_selection.GridSearchCV`: ``__init__`` only stores its parameters,
:meth:`~_CounterfactualFairEstimator.fit` validates them and the data, ``get_params(deep=True)``/``set_params`` and
:func:`sklearn.base.clone` work, an unfitted estimator raises
:class:`~sklearn.exceptions.NotFittedError`.

Where the twins come from (``counterfactuals``):

* ``"flow"`` (default): a causal normalising flow (:func:`cffair.causal.fit_flow`) is fitted on
  the training rows' features only (never the target) and intervenes on the sensitive
  attribute of each training row; the fitted flow (``flow_``) also makes the twins of any
  other rows (:meth:`~_CounterfactualFairEstimator.counterfactuals_of`), e.g. in a scorer.
* a callable ``f(rows) -> twins``: counterfactuals produced elsewhere (the method is agnostic to
  their source, section 1): given readable rows it returns a frame with the same features,
  one twin per row, aligned by position. The twins pass the checks ``cffair train
  --counterfactuals`` applies to a file: the sensitive attribute changed in every twin, and
  every feature it does not cause (in the spec's causal graph) kept; rows returned unchanged,
  shuffled, or with such a feature changed are refused (a spec without a graph is warned about).

New rows (``predict``, ``predict_proba``, the twins of held-out rows) follow the rules of the
training rows (:func:`cffair.datasets.prepare_features`): ``30.7`` in an integer feature
or ``True`` in a numeric one is refused, not truncated or read as 1.

Scorers (:func:`cf_flip_rate_scorer`, :func:`cf_mse_scorer`, and :func:`cf_scorer` for any
estimator given a twin generator) score a fitted estimator on the twins of held-out rows, also as
the last step of a :class:`~sklearn.pipeline.Pipeline`, so a grid search can choose by
counterfactual fairness; each returns the negated metric, as scikit-learn maximises a score, and
the worst score for a collapsed model (:mod:`cffair.scores._screen`), which is fair only because it says
the same thing to everyone.

Example::

    from sklearn.model_selection import GridSearchCV
    from cffair.learners._estimator import CounterfactualFairClassifier, cf_flip_rate_scorer

    search = GridSearchCV(CounterfactualFairClassifier(spec, pretrain_epochs=300),
                          {"fair_epochs": [100, 300]}, scoring=cf_flip_rate_scorer, cv=3)
    search.fit(frame[spec.feature_names], frame[spec.target])

Checks of scikit-learn that do not apply (the rest are run by ``tests/learners/test_estimator.py``): the
estimator checks that feed random NumPy arrays (``check_estimator``'s fitting checks) cannot
apply, because the input is a frame of named columns described by a spec (the sensitive
attribute and the causal graph are named columns) and the twins need a causal graph over them.
"""

from __future__ import annotations

import contextlib
import math
import time
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any, Literal, cast

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
from sklearn.utils.validation import check_is_fitted

from cffair._support.devices import resolve_device
from cffair._support.validation import TargetKind, check_choice, check_group_weights
from cffair.datasets._encoding import Encoder
from cffair.datasets._frames import prepare, prepare_features
from cffair.datasets._spec import DatasetSpec, read_spec
from cffair.errors import DataError, ParameterError, SpecError
from cffair.learners._hyperparameters import (
    DEFAULT_HIDDEN,
    DEFAULT_LR,
    FAIR_EPOCHS,
    PRETRAIN_EPOCHS,
    check_hyperparameters,
)
from cffair.learners._training import LTNLearner
from cffair.scores._metrics import cf_flip_rate, cf_mse

__all__ = [
    "CounterfactualFairClassifier",
    "CounterfactualFairRegressor",
    "cf_flip_rate_scorer",
    "cf_mse_scorer",
    "cf_scorer",
]

FINGERPRINT_EXEMPT = True  # a user-facing wrapper: no reproduction record runs it

#: Settings the estimator trains (the LTN learner's; CKE runs through :mod:`cffair.evaluation._cke`).
ESTIMATOR_SETTINGS: tuple[str, ...] = ("acc", "acc_cf", "acc_cf_sg")

Twins = Literal["flow"] | Callable[[pd.DataFrame], pd.DataFrame]


def _as_spec(spec: Any) -> DatasetSpec:
    if spec is None:
        raise SpecError(
            "the estimator needs a spec: pass spec=DatasetSpec, a mapping or a YAML spec file "
            "(target, target_kind, sensitive, features, graph; see cffair.datasets)."
        )
    raw = read_spec(spec)
    return raw if isinstance(raw, DatasetSpec) else DatasetSpec.from_dict(raw)


class _CounterfactualFairEstimator(BaseEstimator):
    """What the classifier and the regressor share; see the module docstring.

    Args:
        spec: the data's :class:`~cffair.datasets.DatasetSpec` (or a mapping, or a YAML file):
            which column is sensitive, the feature kinds, the subgroups and the causal graph.
            ``X`` holds the spec's features; the target comes as ``y``.
        setting: ``"acc"`` (accuracy axioms only), ``"acc_cf"`` (+ A4) or ``"acc_cf_sg"`` (+ A4_1..n).
        counterfactuals: ``"flow"`` or a callable (see the module docstring).
        flow_config: :class:`~cffair.causal.FlowConfig` fields for ``"flow"`` (e.g. ``{"epochs": 200}``).
        lr: as :class:`~cffair.learners.LTNLearner`.
        pretrain_epochs: as :class:`~cffair.learners.LTNLearner`.
        fair_epochs: as :class:`~cffair.learners.LTNLearner`.
        group_weights: as :class:`~cffair.learners.LTNLearner`.
        fair_p: as :class:`~cffair.learners.LTNLearner`.
        patience: early stopping of each stage, as :class:`~cffair.learners.LTNLearner` (``None``:
            the fixed epochs).
        hidden: as :class:`~cffair.learners.LTNLearner`.
        seed: seeds the flow, the twins and the predicate's initial weights.
        progress: show progress bars.
        device: where the flow and the predicate train (:mod:`cffair._support.devices`; not saved with
            the model, which loads on any machine).
        verbose: after :meth:`~_CounterfactualFairEstimator.fit`, print one line to stderr with
            the rows, the epochs, the seconds and the training accuracy beside the majority-class
            rate (the training MSE beside the variance of the target for a regressor), and warn
            (:class:`~cffair.errors.CollapsedModelWarning`) when the degenerate-model screen
            (:mod:`cffair.scores._screen`) finds the trained model collapsed on its own training rows.
            ``False``: no line (the warning stays). Not saved with the model.

    Attributes after :meth:`fit`:
        ``spec_``: the resolved spec. ``encoder_``: the fitted :class:`~cffair.datasets._encoding.Encoder`.
        ``learner_``: the trained :class:`~cffair.learners.LTNLearner`. ``flow_``: the fitted causal
        flow (``None`` for callable twins; fitted for ``setting="acc"`` too, so that the twins
        of held-out rows can score it). ``n_features_in_``,
        ``feature_names_in_``: the input columns. ``training_score_``: the training accuracy
        (classifier) or MSE (regressor); ``training_screen_``: the screen's verdict on the
        training rows (:class:`cffair.scores.Screen`).
    """

    _target_kind: TargetKind = "binary"

    def __init__(
        self,
        spec: DatasetSpec | Mapping[str, Any] | str | Path | None = None,
        *,
        setting: str = "acc_cf",
        counterfactuals: Twins = "flow",
        flow_config: Mapping[str, Any] | None = None,
        lr: float = DEFAULT_LR,
        pretrain_epochs: int = PRETRAIN_EPOCHS,
        fair_epochs: int = FAIR_EPOCHS,
        group_weights: Mapping[str, float] | None = None,
        fair_p: float | None = None,
        patience: int | None = None,
        hidden: tuple[int, ...] = DEFAULT_HIDDEN,
        seed: int = 0,
        progress: bool = False,
        device: str = "cpu",
        verbose: bool = True,
    ) -> None:
        self.spec = spec
        self.setting = setting
        self.counterfactuals = counterfactuals
        self.flow_config = flow_config
        self.lr = lr
        self.pretrain_epochs = pretrain_epochs
        self.fair_epochs = fair_epochs
        self.group_weights = group_weights
        self.fair_p = fair_p
        self.patience = patience
        self.hidden = hidden
        self.seed = seed
        self.progress = progress
        self.device = device
        self.verbose = verbose

    # ----------------------------------------------------------------- validation
    def _check_params(self) -> DatasetSpec:
        check_choice(self.setting, ESTIMATOR_SETTINGS, "setting")
        resolve_device(self.device)
        if not (self.counterfactuals == "flow" or callable(self.counterfactuals)):
            raise ParameterError(
                f"counterfactuals must be 'flow' (twins from the causal flow fitted in fit) or a callable "
                f"rows -> twins, got {self.counterfactuals!r}."
            )
        check_hyperparameters(self, ("lr", "pretrain_epochs", "fair_epochs", "fair_p", "hidden"))
        check_group_weights(self.group_weights, [self.setting], offered=ESTIMATOR_SETTINGS)
        spec = _as_spec(self.spec)
        if spec.target_kind != self._target_kind:
            other = "CounterfactualFairRegressor" if spec.target_kind == "score" else "CounterfactualFairClassifier"
            raise SpecError(
                f"the spec's target {spec.target!r} is of kind {spec.target_kind!r}; "
                f"{type(self).__name__} is for {self._target_kind!r} targets: use {other}."
            )
        return spec

    def _rows(self, X: Any, spec: DatasetSpec, *, fitted: bool) -> pd.DataFrame:
        """The spec's features of ``X`` as a frame; ``fitted``: new rows, validated by the rules of
        the training rows and in their dtypes (:func:`cffair.datasets.prepare_features`)."""
        if not isinstance(X, pd.DataFrame):
            raise DataError(
                f"X must be a pandas DataFrame with the spec's feature columns {list(spec.features)[:8]}, "
                f"got {type(X).__name__}; build one with pd.DataFrame(rows, columns=...)."
            )
        missing = [c for c in spec.features if c not in X.columns]
        if missing:
            raise DataError(f"X lacks the feature column(s) {missing}; it has {list(X.columns)[:12]}.")
        if not fitted:
            return X[list(spec.features)].reset_index(drop=True)
        return prepare_features(X, spec.features, self.dtypes_)

    # ----------------------------------------------------------------- fitting
    def fit(self, X: pd.DataFrame, y: Any) -> _CounterfactualFairEstimator:
        """Make the training rows' twins (for a fairness setting) and train the LTN predicate.

        Args:
            X: readable rows with the spec's feature columns.
            y: the target: two classes for the classifier (any labels; the larger one is
                ``classes_[1]``, the positive class), a number for the regressor.
        """
        spec = self._check_params()
        t0 = time.perf_counter()
        with _one_thread(self.device):
            self._fit(X, y, spec)
        self._report_training(time.perf_counter() - t0)
        return self

    def _fit(self, X: pd.DataFrame, y: Any, spec: DatasetSpec) -> None:
        rows = self._rows(X, spec, fitted=False)
        y_arr = self._encode_y(np.asarray(y), len(rows))
        frame = prepare(rows.assign(**{spec.target: y_arr}), spec)
        self.spec_ = spec
        self.dtypes_ = frame[list(spec.features)].dtypes.to_dict()
        self.feature_names_in_ = np.asarray(list(spec.features), dtype=object)
        self.n_features_in_ = len(spec.features)
        self.encoder_ = Encoder(spec).fit(frame)
        X_enc = self.encoder_.transform(frame)
        self.flow_ = None
        pairs = subgroups = None
        if self.counterfactuals == "flow":  # also for "acc": the twins of held-out rows score it
            from cffair.causal import fit_flow

            self.flow_ = fit_flow(
                (frame, spec),
                dict(self.flow_config or {}),
                seed=self.seed,
                cache=False,
                progress=self.progress,
                device=self.device,
            )
        if self.setting != "acc":
            row_id, x, x_cf = self._pairs(frame)
            pairs = (x, x_cf)
            if self.setting == "acc_cf_sg":
                subgroups = spec.subgroup_labels(frame).to_numpy()[row_id]
        self.learner_ = LTNLearner(
            self._target_kind,
            self.setting,  # type: ignore[arg-type]
            lr=self.lr,
            pretrain_epochs=self.pretrain_epochs,
            fair_epochs=self.fair_epochs,
            group_weights=self.group_weights,
            fair_p=self.fair_p,
            patience=self.patience,
            hidden=tuple(self.hidden),
            seed=self.seed,
            progress=self.progress,
            sensitive=spec.sensitive,
            device=self.device,
        ).fit(X_enc, y_arr, pairs, subgroups)
        self._train_out = (self.learner_.predict_d(X_enc), y_arr)

    def _report_training(self, seconds: float) -> None:
        """Screen the trained model on its training rows, keep the training score, and print
        (``verbose``) and warn what a user needs to know (see ``verbose``)."""
        import sys
        import warnings

        from cffair.errors import CollapsedModelWarning
        from cffair.scores._screen import screen

        d, y = self._train_out
        del self._train_out
        kind = self._target_kind
        self.training_screen_ = screen(d, y, target_kind=kind)
        if kind == "binary":
            self.training_score_ = float(np.mean((d >= 0.5) == (y == 1)))
            base = max(float(np.mean(y == 1)), float(np.mean(y != 1)))
            what = f"training accuracy {self.training_score_:.3f} (majority-class rate {base:.3f})"
        else:
            self.training_score_ = float(np.mean((d - y) ** 2))
            what = f"training MSE {self.training_score_:.4g} (variance of the target {float(np.var(y)):.4g})"
        stages = self.learner_.history_.groupby("stage", sort=False).size()  # the epochs run (early stopping: fewer)
        epochs = " + ".join(str(int(n)) for n in stages) or "0"
        if self.verbose:
            print(
                f"{type(self).__name__}({self.setting}): {len(d):,} rows, {epochs} epochs, {seconds:.1f} s; {what}",
                file=sys.stderr,
            )
        if self.training_screen_.collapsed:
            warnings.warn(
                f"the trained model collapsed on its own training rows: {self.training_screen_.reason}; "
                "lower the learning rate (lr) or the fairness weights (group_weights), or pre-train longer.",
                CollapsedModelWarning,
                stacklevel=3,
            )

    def _encode_y(self, y: np.ndarray, n: int) -> np.ndarray:
        if y.ndim != 1 or len(y) != n:
            raise DataError(f"y must be one value per row of X ({n}), got shape {y.shape}.")
        return y.astype(np.float64)

    def _pairs(self, frame: pd.DataFrame) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(row_id, x, x′)``: every twin of the rows of ``frame``, encoded, with its row's position.

        The flow makes one twin per row and other value of the sensitive attribute (one for a
        binary attribute; the flow's ``cf_samples`` draws where a treatment samples); a
        callable makes one twin per row.
        """
        spec = self.spec_
        if self.flow_ is not None:
            from cffair.causal import generate_from

            cfs = generate_from(self.flow_, (frame, spec), "sensitive", seed=self.seed)
            pairs = cfs.pairs(frame, self.encoder_, spec.sensitive, check_data=False)
            if len(np.unique(pairs.row_id)) != len(frame):
                raise DataError(
                    "the flow returned no twin for some rows; every row needs one for the fairness axiom A4."
                )
            order = np.argsort(pairs.row_id, kind="stable")  # in row order
            return pairs.row_id[order], pairs.x[order], pairs.x_cf[order]
        # no flow: the twins come from the callable
        twin_fn = cast(Callable[[pd.DataFrame], pd.DataFrame], self.counterfactuals)
        twins = twin_fn(frame[list(spec.features)].copy())
        if not isinstance(twins, pd.DataFrame) or len(twins) != len(frame):
            raise DataError(
                f"counterfactuals(rows) must return a DataFrame with one twin per row ({len(frame)}), "
                f"got {type(twins).__name__} of length {len(twins) if hasattr(twins, '__len__') else '?'}."
            )
        cfs = _checked_twins(frame, twins, spec)
        pairs = cfs.pairs(frame, self.encoder_, spec.sensitive, check_data=False)
        return pairs.row_id, pairs.x, pairs.x_cf

    # ----------------------------------------------------------------- prediction
    def _d(self, X: Any) -> np.ndarray:
        check_is_fitted(self, "learner_")
        with _one_thread(self.device):
            return self.learner_.predict_d(self.encoder_.transform(self._rows(X, self.spec_, fitted=True)))

    def counterfactuals_of(self, X: pd.DataFrame) -> pd.DataFrame:
        """The twins of the rows of ``X`` (readable values), with ``row_id`` (position in ``X``) first."""
        check_is_fitted(self, "learner_")
        with _one_thread(self.device):
            row_id, _, x_cf = self._pairs(self._rows(X, self.spec_, fitted=True))
        return self.encoder_.inverse_transform(x_cf).assign(row_id=row_id)[["row_id", *self.spec_.features]]

    def cf_decisions(self, X: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
        """``(D(x), D(x′))`` for every twin of the rows of ``X``, paired by position."""
        check_is_fitted(self, "learner_")
        with _one_thread(self.device):
            _, x, x_cf = self._pairs(self._rows(X, self.spec_, fitted=True))
            return self.learner_.predict_d(x), self.learner_.predict_d(x_cf)


@contextlib.contextmanager
def _one_thread(device: str) -> Iterator[None]:
    """One torch thread while the estimator computes on the CPU, the previous number after: the
    estimator's networks are small, and on two shared cores two threads made a fit of 120 rows
    21× slower (16.5 s against 0.77 s under a load of 8)."""
    import torch

    if resolve_device(device).type != "cpu":
        yield
        return
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(before)


def _checked_twins(frame: pd.DataFrame, twins: pd.DataFrame, spec: DatasetSpec) -> Any:
    """The twins a ``counterfactuals=`` callable returned, as a counterfactual set, checked as
    ``cffair train --counterfactuals`` checks a file: each twin keeps its row's value of every
    feature the sensitive attribute does not cause (:meth:`~cffair.causal.CounterfactualSet.check_rows`,
    with the spec's causal graph: shuffled twins fail), and has another value of the sensitive
    attribute (:func:`cffair.causal._integrity.check_intervened`: the rows themselves fail).

    Raises:
        CounterfactualError: naming the first twin that fails, what is wrong and the fix.
    """
    from cffair.causal import CounterfactualSet
    from cffair.causal._integrity import check_intervened

    positional = twins.drop(columns=[c for c in ("row_id", "sample") if c in twins.columns]).reset_index(drop=True)
    cfs = CounterfactualSet.from_frames(frame, positional, spec, feature=spec.sensitive, meta={"generator": "callable"})
    check_intervened(cfs, frame, what="counterfactuals(rows)")
    return cfs


class CounterfactualFairClassifier(ClassifierMixin, _CounterfactualFairEstimator):
    """An LTN classifier trained with counterfactual-fairness axioms (binary target).

    ``predict_proba`` gives ``[P(classes_[0]), P(classes_[1])]`` with ``D(x) = P(classes_[1])``;
    ``predict`` the label whose probability is at least 0.5. See the module docstring.
    """

    _target_kind = "binary"

    def _encode_y(self, y: np.ndarray, n: int) -> np.ndarray:
        if y.ndim != 1 or len(y) != n:
            raise DataError(f"y must be one label per row of X ({n}), got shape {y.shape}.")
        if pd.isna(y).any():
            raise DataError(f"y has missing labels (the first at row {int(np.flatnonzero(pd.isna(y))[0])}).")
        classes = np.unique(y)
        if len(classes) != 2:
            raise DataError(
                f"a binary classifier needs exactly two classes in y, got {len(classes)}: {classes[:6].tolist()}."
            )
        self.classes_ = classes
        return (y == classes[1]).astype(np.int64)

    def predict_proba(self, X: pd.DataFrame) -> np.ndarray:
        """``[P(classes_[0]), P(classes_[1])]`` per row."""
        p = self._d(X)
        return np.column_stack([1 - p, p])

    def predict(self, X: pd.DataFrame) -> np.ndarray:
        """The predicted label per row (``classes_[1]`` where ``D(x) ≥ 0.5``)."""
        d = self._d(X)
        return self.classes_[(d >= 0.5).astype(int)]


class CounterfactualFairRegressor(RegressorMixin, _CounterfactualFairEstimator):
    """An LTN regressor trained with counterfactual-fairness axioms (score target, axiom A3).

    ``predict`` gives the predicate's score ``D(x)``. See the module docstring.
    """

    _target_kind = "score"

    def predict(self, X: pd.DataFrame) -> np.ndarray:
        """The predicted score per row."""
        return self._d(X)


def _scoring_step(estimator: Any, X: Any) -> tuple[_CounterfactualFairEstimator, Any]:
    """The cffair estimator that scores, and the rows it reads: ``estimator`` itself, or a
    :class:`~sklearn.pipeline.Pipeline`'s last step with ``X`` passed through the steps before it."""
    if hasattr(estimator, "cf_decisions"):
        return estimator, X
    steps = getattr(estimator, "steps", None)
    if steps and hasattr(steps[-1][1], "cf_decisions"):
        return steps[-1][1], (estimator[:-1].transform(X) if len(steps) > 1 else X)
    raise DataError(
        f"a {type(estimator).__name__} has no twins of its own to score on: use cf_scorer(metric, counterfactuals=f) "
        "with a function f(rows) -> twins (e.g. the twins of a fitted cffair estimator's counterfactuals_of)."
    )


def _positive(estimator: Any, y: Any) -> np.ndarray:
    classes = getattr(estimator, "classes_", None)
    y = np.asarray(y)
    return (y == classes[1]).astype(int) if classes is not None and len(classes) == 2 else y.astype(int)


def _twin_rows(X: pd.DataFrame, twins: pd.DataFrame) -> tuple[np.ndarray, pd.DataFrame]:
    """``(row_id, rows)``: each twin as a full row of ``X``: its row's columns, with the values
    the twin gives (the twins of :meth:`~_CounterfactualFairEstimator.counterfactuals_of` hold the
    spec's features only; columns of ``X`` beyond them, such as an identifier a pipeline drops,
    are the factual row's)."""
    if "row_id" in twins:
        row_id = twins["row_id"].to_numpy()
    elif len(twins) == len(X):
        row_id = np.arange(len(X))
    else:
        raise DataError(
            f"counterfactuals(rows) returned {len(twins)} twins for {len(X)} rows without a 'row_id' column: "
            "return one twin per row in order, or say which row each twin is of in 'row_id'."
        )
    rows = X.iloc[row_id].reset_index(drop=True)
    for c in twins.columns:
        if c in rows.columns and c not in ("row_id", "sample"):
            rows[c] = twins[c].to_numpy()
    return row_id, rows


def _worst(metric: str, target_kind: str) -> float:
    """The worst score a metric can give: a flip rate of 1; a binary CF-MSE of 1; an unbounded score's −∞."""
    return -1.0 if metric == "flip_rate" or target_kind == "binary" else -math.inf


def cf_scorer(
    metric: Literal["flip_rate", "cf_mse"] = "flip_rate",
    counterfactuals: Callable[[pd.DataFrame], pd.DataFrame] | None = None,
    *,
    screen_collapsed: bool = True,
) -> Callable[..., float]:
    """A scikit-learn scorer of counterfactual fairness (higher is fairer: the metric negated).

    It scores a fitted cffair estimator on its own twins of the rows (through a
    :class:`~sklearn.pipeline.Pipeline` too: the last step scores the rows the steps before it
    make), or any estimator with ``predict_proba`` (``predict`` for scores) on the twins that
    ``counterfactuals(rows)`` returns (one per row in order, or several with a ``row_id`` column).

    A collapsed model (:func:`cffair.scores._screen.screen`: constant or near-constant decisions, or
    accuracy at or below the majority rate on the scored rows) gets the worst score the metric
    can give, so that model selection never picks a model that is fair because it says the
    same thing to everyone. ``screen_collapsed=False`` turns that off.

    Args:
        metric: ``"flip_rate"`` (share of twins whose decision differs) or ``"cf_mse"``.
        counterfactuals: the twins of any rows, for estimators that have none of their own.
        screen_collapsed: score collapsed models as the worst.
    """
    check_choice(metric, ("flip_rate", "cf_mse"), "metric")

    def score(estimator: Any, X: pd.DataFrame, y: Any = None) -> float:
        from cffair.scores._metrics import decision_threshold
        from cffair.scores._screen import screen

        if counterfactuals is None:
            step, rows = _scoring_step(estimator, X)
            kind = step.spec_.target_kind
            top = step.spec_.favourable_top_fraction
            d, d_cf = step.cf_decisions(rows)
            factual = step._d(rows)
        else:
            step, kind = estimator, "binary" if hasattr(estimator, "predict_proba") else "score"
            top = 0.4

            def out(frame: pd.DataFrame) -> np.ndarray:
                if kind == "binary":
                    return np.asarray(estimator.predict_proba(frame))[:, 1]
                return np.asarray(estimator.predict(frame), dtype=np.float64)

            factual = out(X)
            row_id, twin_rows = _twin_rows(X, counterfactuals(X))
            d, d_cf = factual[row_id], out(twin_rows)
        threshold = 0.5 if kind == "binary" else decision_threshold(factual, "score", top)
        if screen_collapsed:
            truth = None if y is None else (_positive(step, y) if kind == "binary" else y)
            if screen(factual, truth, target_kind=kind, threshold=threshold):
                return _worst(metric, kind)
        if metric == "flip_rate":
            return -cf_flip_rate(d, d_cf, threshold=threshold)
        return -cf_mse(d, d_cf)

    score.__name__ = f"cf_{metric}_scorer"
    return score


#: Minus the share of rows whose decision changes on their twin (higher is fairer); the worst
#: score (−1) for a collapsed model. For a score target the decision threshold is
#: :func:`cffair.scores.decision_threshold` of the factual scores (the spec's favourable top fraction).
cf_flip_rate_scorer = cf_scorer("flip_rate")
#: Minus the CF-MSE, the mean of ``(D(x) − D(x′))²`` over the twins of the rows (higher is fairer);
#: the worst score for a collapsed model.
cf_mse_scorer = cf_scorer("cf_mse")
