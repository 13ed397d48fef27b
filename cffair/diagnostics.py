"""What a model's CF-MSE depends on: saturation, flips, calibration, and where A4's gradient falls.

CF-MSE (section 6.5) is the mean of ``(D(x) − D(x′))²`` over person–twin pairs. For a model
whose outputs sit at 0 and 1 (a *saturated* model) every flipped decision costs about 1 and every
other pair about 0, so its CF-MSE is about its flip rate; a soft model's flips cost far less.
Comparing a saturated LTN with a soft baseline on CF-MSE alone therefore compares two different
things. The functions here measure that, so that the book and a user can compare on equal terms:

* :func:`saturation`: the share of outputs within ``eps`` of 0 or 1;
* :func:`cf_mse_per_flip`: CF-MSE divided by the flip rate (about 1 for a saturated model);
* :func:`calibrated_cf_mse`: CF-MSE after mapping each model's outputs to calibrated
  probabilities fitted on its *training* rows (Platt scaling or isotonic regression, from
  scikit-learn), so hard and soft models are scored on one scale;
* :func:`a4_gradient_share`: the share of the gradient of axiom A4's satisfaction (with the
  knowledge base's fuzzy semantics and the ∀ exponent ``p``) that falls on the pairs whose
  decisions differ. With ``p = 1`` the ∀ is a mean, so every pair pulls alike and the many
  agreeing pairs take most of the gradient; a larger ``p`` weighs each pair by ``(1 − v)^(p−1)``
  (``v`` its truth), moving the gradient onto the pairs that disagree most.

Everything here is read-only: it scores outputs and changes no model.
"""

from __future__ import annotations

from typing import Any, Literal

import numpy as np
import torch

from cffair.errors import DataError
from cffair.metrics import cf_flip_rate, cf_mse

__all__ = ["a4_gradient_share", "calibrated_cf_mse", "calibrator", "cf_mse_per_flip", "saturation"]

FINGERPRINT_EXEMPT = True  # diagnostics read outputs; no record's numbers come from here yet

#: Outputs closer than this to 0 or 1 count as saturated.
SATURATION_EPS = 0.01


def _vector(a: Any, what: str) -> np.ndarray:
    out = np.asarray(a, dtype=np.float64).ravel()
    if out.size == 0:
        raise DataError(f"{what} is empty.")
    if not np.isfinite(out).all():
        raise DataError(f"{what} holds NaN or infinite values.")
    return out


def saturation(d: Any, eps: float = SATURATION_EPS) -> float:
    """The share of outputs ``d`` below ``eps`` or above ``1 − eps``.

    >>> saturation([0.0, 0.005, 0.5, 0.995, 1.0])
    0.8
    """
    if not 0 < eps < 0.5:
        raise ValueError(f"eps must lie in (0, 0.5), got {eps!r}.")
    v = _vector(d, "the outputs")
    return float(np.mean((v < eps) | (v > 1 - eps)))


def cf_mse_per_flip(d_x: Any, d_cf: Any, threshold: float = 0.5) -> float:
    """CF-MSE divided by the flip rate: what one flipped decision costs in CF-MSE (NaN if none flips).

    About 1 for a saturated model; for a soft model much less than 1.
    """
    flips = cf_flip_rate(d_x, d_cf, threshold)
    return float("nan") if flips == 0 else cf_mse(d_x, d_cf) / flips


def calibrator(d_train: Any, y_train: Any, method: Literal["platt", "isotonic"] = "platt") -> Any:
    """A function ``d ↦ calibrated P(y = 1)`` fitted on a model's training outputs and labels.

    ``platt``: a logistic regression on the log-odds of ``d`` (clipped to [1e-6, 1 − 1e-6]);
    ``isotonic``: scikit-learn's :class:`~sklearn.isotonic.IsotonicRegression`, clipped outside
    the training range. Fit it on the training folds only, never on the rows it scores.
    """
    d = _vector(d_train, "the training outputs")
    y = _vector(y_train, "the training labels")
    if len(d) != len(y):
        raise DataError(f"{len(d)} training outputs but {len(y)} labels.")
    if not set(np.unique(y)) <= {0.0, 1.0}:
        raise DataError("calibration needs binary labels 0/1; a score target has no probability to calibrate.")
    if method == "isotonic":
        from sklearn.isotonic import IsotonicRegression

        iso = IsotonicRegression(y_min=0.0, y_max=1.0, out_of_bounds="clip").fit(d, y)
        return lambda v: iso.predict(_vector(v, "the outputs"))
    if method == "platt":
        from sklearn.linear_model import LogisticRegression

        def logit(v: Any) -> np.ndarray:
            c = np.clip(_vector(v, "the outputs"), 1e-6, 1 - 1e-6)
            return np.log(c / (1 - c)).reshape(-1, 1)

        lr = LogisticRegression(C=1e6).fit(logit(d), y.astype(int))
        return lambda v: lr.predict_proba(logit(v))[:, 1]
    raise ValueError(f"method must be 'platt' or 'isotonic', got {method!r}.")


def calibrated_cf_mse(d_train: Any, y_train: Any, d_x: Any, d_cf: Any, method: Literal["platt", "isotonic"] = "platt") -> float:
    """CF-MSE of the calibrated outputs: ``mean((c(D(x)) − c(D(x′)))²)`` with ``c`` from :func:`calibrator`."""
    c = calibrator(d_train, y_train, method)
    return cf_mse(c(d_x), c(d_cf))


def a4_gradient_share(
    d_x: Any,
    d_cf: Any,
    *,
    p: float = 1.0,
    target_kind: Literal["binary", "score"] = "binary",
    threshold: float = 0.5,
    semantics: Any = None,
) -> float:
    """The share of A4's gradient that falls on the pairs whose decisions differ.

    A4's satisfaction ``∀ (x, x′): D(x) ↔ D(x′)`` (:func:`cffair.logic.cf_axiom`; ``Eq`` for a
    score target) is evaluated on the outputs ``d_x``, ``d_cf`` with the ∀ exponent ``p`` and the
    knowledge base's semantics (default :class:`~cffair.logic.Semantics`: product t-norm,
    Reichenbach implication); its gradient with respect to every output is taken, and the share
    of its absolute value (summed over both outputs of each pair) on the pairs with
    ``[D(x) ≥ t] ≠ [D(x′) ≥ t]`` is returned (NaN when the gradient vanishes everywhere).
    """
    from cffair.logic import DEFAULT_SEMANTICS, cf_axiom

    a = _vector(d_x, "D(x)")
    b = _vector(d_cf, "D(x')")
    if len(a) != len(b):
        raise DataError(f"{len(a)} outputs D(x) but {len(b)} outputs D(x').")
    if not (isinstance(p, (int, float)) and np.isfinite(p) and p >= 1):
        raise ValueError(f"p must be a finite number >= 1, got {p!r}.")
    sem = semantics or DEFAULT_SEMANTICS
    axiom = cf_axiom(np.zeros((len(a), 1), np.float32), np.zeros((len(a), 1), np.float32), target_kind, p=p)
    ta = torch.tensor(a, dtype=torch.float64, requires_grad=True)
    tb = torch.tensor(b, dtype=torch.float64, requires_grad=True)
    sat = sem.forall(axiom.truths(ta, tb, sem), p)
    sat.backward()
    assert ta.grad is not None and tb.grad is not None
    g = (ta.grad.abs() + tb.grad.abs()).numpy()
    total = float(g.sum())
    if total == 0:
        return float("nan")
    flipped = (a >= threshold) != (b >= threshold)
    return float(g[flipped].sum() / total)
