"""What a model's CF-MSE depends on: saturation, flips, calibration, and where A4's gradient falls.

CF-MSE (section 6.5) is the mean of ``(D(x) − D(x′))²`` over person–twin pairs. For a model
whose outputs sit at 0 and 1 (a *saturated* model) every flipped decision costs about 1 and every
other pair about 0, so its CF-MSE is about its flip rate; a soft model's flips cost far less.
Comparing a saturated LTN with a soft baseline on CF-MSE alone therefore compares two different
things. The functions here measure that, so that the book and a user can compare on equal terms:

* :func:`saturation` (from :mod:`cffair.scores._metrics`, which records it): the share of outputs within ``eps`` of 0 or 1;
* :func:`cf_mse_per_flip`: CF-MSE divided by the flip rate (about 1 for a saturated model);
* :func:`calibrated_cf_mse` (from :mod:`cffair.scores._metrics`): CF-MSE after mapping each model's outputs to calibrated
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

from typing import Any

import numpy as np
import torch

from cffair._support.validation import TargetKind
from cffair.errors import DataError, ParameterError
from cffair.scores._metrics import SATURATION_EPS, calibrated_cf_mse, calibrator, cf_flip_rate, cf_mse, saturation
from cffair.scores._metrics import _finite_vector as _vector

__all__ = ["SATURATION_EPS", "a4_gradient_share", "calibrated_cf_mse", "calibrator", "cf_mse_per_flip", "saturation"]


def cf_mse_per_flip(d_x: Any, d_cf: Any, threshold: float = 0.5) -> float:
    """CF-MSE divided by the flip rate: what one flipped decision costs in CF-MSE (NaN if none flips).

    About 1 for a saturated model; for a soft model much less than 1.
    """
    flips = cf_flip_rate(d_x, d_cf, threshold)
    return float("nan") if flips == 0 else cf_mse(d_x, d_cf) / flips


def a4_gradient_share(
    d_x: Any,
    d_cf: Any,
    *,
    p: float = 1.0,
    target_kind: TargetKind = "binary",
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
    from cffair.logic._axioms import DEFAULT_SEMANTICS, cf_axiom

    a = _vector(d_x, "D(x)")
    b = _vector(d_cf, "D(x')")
    if len(a) != len(b):
        raise DataError(f"{len(a)} outputs D(x) but {len(b)} outputs D(x').")
    if not (isinstance(p, (int, float)) and np.isfinite(p) and p >= 1):
        raise ParameterError(f"p must be a finite number >= 1, got {p!r}.")
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
