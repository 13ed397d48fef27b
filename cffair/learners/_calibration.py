"""A calibrated probability beside a model's raw output, fitted on rows the model never saw.

An LTN's output ``D(x)`` is trained to satisfy axioms, not to be a probability: on a credit data
set of 1,000 rows, 95 % of the new applicants' ``P(y = 1)`` lay outside [0.01, 0.99] while the
held-out accuracy was 0.74. A **calibration map** turns the raw output into a probability a user
can read, fitted on a **calibration split**: a stratified share of the training rows (default
20 %) held out of the model's training, so the map learns how often the model is right on rows
it did not fit. ``cffair fit`` does this (:func:`calibrated_fit`) and stores the map in the model
file (:func:`cffair.learners.save_model`); ``cffair predict`` shows both columns, the calibrated one
named with its method (``p_1_calibrated (sigmoid on a 20 % calibration split)``).

Two maps (:data:`METHODS`):

* ``"sigmoid"`` (Platt scaling, the default): ``1 / (1 + exp(−(a·logit(p) + b)))``, a logistic
  regression on the raw output's log-odds with Platt's smoothed targets (so a split the model
  separates perfectly still gives probabilities short of 0 and 1): two numbers, stable on a few
  hundred rows, and monotone (``a ≥ 0``), so it never reorders two people;
* ``"isotonic"``: the non-decreasing step function that fits the calibration rows best
  (scikit-learn's :class:`~sklearn.isotonic.IsotonicRegression`), stored as its breakpoints and
  applied by linear interpolation, clipped at the ends; flexible, but it needs more rows
  (scikit-learn advises over 1,000) and ties many raw outputs to one value.

The map changes no decision the model makes: ``decision`` stays ``D(x) ≥ 0.5`` of the raw output,
and the calibrated column is what to read as the chance of the label.
"""

from __future__ import annotations

__all__ = ["DEFAULT_METHOD", "DEFAULT_SHARE", "METHODS", "Calibration", "calibrated_fit", "fit_calibration"]

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from cffair.errors import ArtefactError, DataError, ParameterError

FINGERPRINT_EXEMPT = True  # maps a saved model's outputs for `cffair predict`; no reproduction record runs it

#: The calibration maps offered.
METHODS: tuple[str, ...] = ("sigmoid", "isotonic")
#: The map ``cffair fit`` and ``cffair run --save-models`` fit by default (Platt scaling) ...
DEFAULT_METHOD = "sigmoid"
#: ... on this share of the rows, held out of the model's training.
DEFAULT_SHARE = 0.2
#: Raw outputs are clipped to [EPS, 1 − EPS] before their log-odds are taken.
EPS = 1e-6


def _logit(p: np.ndarray) -> np.ndarray:
    q = np.clip(np.asarray(p, dtype=np.float64), EPS, 1 - EPS)
    return np.log(q / (1 - q))


@dataclass(frozen=True)
class Calibration:
    """A fitted calibration map.

    Attributes:
        method: ``"sigmoid"`` or ``"isotonic"``.
        share: the share of the training rows held out to fit it (0 < share < 1).
        n_rows: the number of calibration rows.
        params: ``{"a", "b"}`` for a sigmoid; ``{"x", "y"}`` (the breakpoints) for isotonic.
    """

    method: str
    share: float
    n_rows: int
    params: dict[str, Any] = field(default_factory=dict)

    def label(self) -> str:
        """The method in words, for a column name: ``"sigmoid on a 20 % calibration split"``."""
        return f"{self.method} on a {self.share * 100:g} % calibration split"

    def apply(self, p: Any) -> np.ndarray:
        """The calibrated probabilities of raw outputs ``p``.

        Example:
            >>> Calibration("sigmoid", 0.2, 100, {"a": 1.0, "b": 0.0}).apply([0.25, 0.5]).round(6).tolist()
            [0.25, 0.5]
        """
        raw = np.asarray(p, dtype=np.float64)
        if self.method == "sigmoid":
            z = float(self.params["a"]) * _logit(raw) + float(self.params["b"])
            return 1.0 / (1.0 + np.exp(-z))
        return np.interp(raw, np.asarray(self.params["x"], float), np.asarray(self.params["y"], float))

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON (what a model file stores)."""
        return {"method": self.method, "share": self.share, "n_rows": self.n_rows, "params": self.params}

    @classmethod
    def from_dict(cls, raw: Any, where: str = "the calibration") -> Calibration:
        """The map :meth:`to_dict` wrote, checked: a known method, a share in (0, 1), finite
        parameters, isotonic breakpoints increasing in ``x`` and non-decreasing in [0, 1] in ``y``.

        Raises:
            ArtefactError: naming what does not hold.
        """
        try:
            method, share, n_rows, params = raw["method"], float(raw["share"]), int(raw["n_rows"]), dict(raw["params"])
        except (KeyError, TypeError, ValueError):
            raise ArtefactError(f"{where} is not a calibration map (method, share, n_rows, params).") from None
        problem = None
        if method not in METHODS:
            problem = f"its method {method!r} is none of {list(METHODS)}"
        elif not 0 < share < 1 or n_rows < 1:
            problem = f"its share {share!r} is not in (0, 1) or its {n_rows!r} rows are none"
        elif method == "sigmoid":
            a, b = params.get("a"), params.get("b")
            finite = all(isinstance(v, (int, float)) and math.isfinite(v) for v in (a, b))
            if not finite or float(a) < 0:  # type: ignore[arg-type]
                problem = f"its sigmoid parameters a = {a!r}, b = {b!r} are not finite (a ≥ 0)"
        else:
            x, y = np.asarray(params.get("x", []), float), np.asarray(params.get("y", []), float)
            if len(x) < 1 or len(x) != len(y) or not (np.isfinite(x).all() and np.isfinite(y).all()):
                problem = "its isotonic breakpoints are not pairs of finite numbers"
            elif (np.diff(x) <= 0).any() or (np.diff(y) < 0).any() or y.min() < 0 or y.max() > 1:
                problem = "its isotonic breakpoints are not increasing, or its values not non-decreasing in [0, 1]"
        if problem:
            raise ArtefactError(f"{where} is not a calibration map: {problem}.")
        return cls(str(method), share, n_rows, params)


def fit_calibration(p: Any, y: Any, method: str = "sigmoid", *, share: float = 0.2) -> Calibration:
    """Fit a calibration map of raw outputs ``p`` (``P(y = 1)``) to 0/1 labels ``y`` of held-out rows.

    Example:
        >>> rng = np.random.default_rng(0)
        >>> p = rng.uniform(size=4000)
        >>> y = (rng.uniform(size=4000) < p).astype(int)  # already calibrated: the map is near the identity
        >>> cal = fit_calibration(p, y)
        >>> bool(abs(cal.params["a"] - 1) < 0.1 and abs(cal.params["b"]) < 0.1)
        True

    Raises:
        DataError: for labels that are not 0/1 of both classes, or lengths that differ.
        ParameterError: (a ``ValueError``) for an unknown ``method``.
    """
    if method not in METHODS:
        raise ParameterError(f"method must be one of {', '.join(map(repr, METHODS))}, got {method!r}.")
    raw, labels = np.asarray(p, dtype=np.float64).ravel(), np.asarray(y, dtype=np.float64).ravel()
    if len(raw) != len(labels):
        raise DataError(f"{len(raw)} outputs for {len(labels)} labels; give one label per calibration row.")
    if set(np.unique(labels)) != {0.0, 1.0}:
        raise DataError(
            "a calibration map needs 0/1 labels of both classes among the calibration rows; "
            "give more rows or a larger calibration share."
        )
    if method == "sigmoid":
        params: dict[str, Any] = _platt(_logit(raw), labels)
    else:
        from sklearn.isotonic import IsotonicRegression

        iso = IsotonicRegression(y_min=0.0, y_max=1.0, out_of_bounds="clip").fit(raw, labels)
        params = {"x": [float(v) for v in iso.X_thresholds_], "y": [float(v) for v in iso.y_thresholds_]}
    return Calibration(method, float(share), int(len(raw)), params)


def _platt(z: np.ndarray, y: np.ndarray) -> dict[str, float]:
    """Platt's sigmoid ``1 / (1 + exp(−(a·z + b)))`` by maximum likelihood with his smoothed
    targets ``(N₊ + 1) / (N₊ + 2)`` and ``1 / (N₋ + 2)`` instead of 1 and 0 (Platt 1999), so a
    split the model separates perfectly gives a finite slope, not a step."""
    from scipy.optimize import minimize

    n_pos, n_neg = float(y.sum()), float(len(y) - y.sum())
    t = np.where(y == 1, (n_pos + 1) / (n_pos + 2), 1 / (n_neg + 2))

    def loss(ab: np.ndarray) -> tuple[float, np.ndarray]:
        s = ab[0] * z + ab[1]
        p = 1 / (1 + np.exp(-s))
        nll = float(np.sum(np.logaddexp(0, s) - t * s))  # −Σ t·log p + (1 − t)·log(1 − p)
        g = p - t
        return nll, np.array([float(g @ z), float(g.sum())])

    start = np.array([1.0, float(np.log((n_pos + 1) / (n_neg + 1)))])
    a, b = minimize(loss, start, jac=True, method="L-BFGS-B", bounds=[(0.0, None), (None, None)]).x
    return {"a": float(a), "b": float(b)}


def calibrated_fit(
    estimator: Any, X: Any, y: Any, *, method: str = DEFAULT_METHOD, share: float = DEFAULT_SHARE, seed: int = 0
) -> tuple[Any, Calibration, dict[str, float]]:
    """Fit ``estimator`` on all but a stratified ``share`` of the rows, and a calibration map on those.

    Args:
        estimator: an unfitted classifier with ``fit`` and ``predict_proba`` (cffair's).
        X, y: the training rows and labels.
        method: the map (:data:`METHODS`).
        share: the share of rows held out for calibration, in (0, 1).
        seed: seeds the split.

    Returns:
        ``(fitted estimator, calibration, numbers)``; numbers: ``accuracy_train`` (on the rows it
        was trained on) and ``accuracy_held_out`` (on the calibration rows, which it never saw).

    Raises:
        DataError: for a share outside (0, 1) or a split that leaves a class out.
    """
    from sklearn.model_selection import train_test_split

    if not 0 < share < 1:
        raise DataError(f"the calibration share must lie in (0, 1), got {share!r}.")
    labels = np.asarray(y)
    idx = np.arange(len(labels))
    try:
        fit_idx, cal_idx = train_test_split(idx, test_size=share, random_state=seed, stratify=labels)
    except ValueError as exc:
        raise DataError(f"cannot hold out a {share:g} calibration share of {len(idx)} rows: {exc}") from None
    rows = X.iloc if hasattr(X, "iloc") else X
    est = estimator.fit(rows[np.sort(fit_idx)], labels[np.sort(fit_idx)])
    cal_rows, cal_y = rows[np.sort(cal_idx)], labels[np.sort(cal_idx)]
    p = est.predict_proba(cal_rows)[:, 1]
    y01 = (cal_y == est.classes_[1]).astype(int)
    calibration = fit_calibration(p, y01, method, share=share)
    numbers = {
        "accuracy_train": float(est.score(rows[np.sort(fit_idx)], labels[np.sort(fit_idx)])),
        "accuracy_held_out": float(np.mean(est.predict(cal_rows) == cal_y)),
    }
    return est, calibration, numbers
