"""Cheap counterfactual-fairness baselines a user would try before an LTN.

All three use the paper's MLP(100, 50) (:func:`cffair.learners._networks.make_mlp`, trained as
:class:`cffair.baselines.MLPConfig` says) and are scored by the same evaluation on
the same CNF counterfactual pairs as every other method.

* :class:`UnawareMLP` — "fairness through unawareness": the sensitive attribute's encoded
  columns are **dropped** from the input (not zeroed: dropping removes the weights that a
  zeroed column would leave untrained but present). Not counterfactually fair in general,
  because descendants of the attribute still carry its effect (Kusner et al. 2017, §3). The
  paper mentions this setting in section 6.4 as one it does *not* use for CNF/DCEVAE.
* :class:`ResidualMLP` — Kusner, Loftus, Russell and Silva (2017), "Counterfactual fairness",
  the "level 3" idea: replace each descendant of the sensitive attribute by its residual after
  a regression on the attribute, and keep the non-descendants (an intervention on the
  attribute cannot change them). cffair regresses the encoded columns of every descendant
  (by least squares, with an intercept) on the attribute's encoded columns *and* the
  non-descendants' columns: under a linear additive structural model the residuals are then
  linear functions of the descendants' exogenous noise, so the predictor is exactly
  counterfactually fair there. It needs only the causal graph, not the flow object. One-hot
  columns of categorical descendants are regressed as a linear probability model (an
  approximation for nominal features).
* :class:`PlugInCF` — Zhou, Liu, Bai, Gao, Kocaoglu and Inouye (2024), "Counterfactual fairness
  by combining factual and counterfactual predictions" (NeurIPS), the plug-in counterfactual
  fairness predictor (PCF): train an ordinary predictor ``f`` on factual rows, then predict
  ``Σ_a P(A = a) · f(x_a)``, mixing the predictions in the factual world and in the
  counterfactual worlds ``x_a`` (several samples of one world are averaged first).
  ``weights="uniform"`` uses equal world weights instead of ``P(A)``. It needs the
  counterfactuals of every row it scores: see :meth:`PlugInCF.predict_score_pairs` and
  :meth:`PlugInCF.score_fn`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Literal

import numpy as np
from sklearn.base import BaseEstimator
from torch import nn

from cffair._support.validation import check_choice
from cffair.baselines._augmented import MLPConfig, predict_mlp, train_mlp
from cffair.baselines._mixed import check_encoded, check_fitted, check_target
from cffair.causal._cfset import CFPairs
from cffair.errors import DataError
from cffair.learners._contract import PredictMixin

if TYPE_CHECKING:
    from cffair.datasets._encoding import Encoder


class _EncodedBaseline(PredictMixin, BaseEstimator):
    """What the three share: the fitted encoder whose spec gives the target kind, the MLP's
    training settings and the device (:mod:`cffair.learners._contract`)."""

    encoder: Encoder
    config: MLPConfig | None
    device: str
    model_: nn.Module | None = None

    def _target_kind(self) -> str:
        return self.encoder.spec.target_kind

    def _train(self, Z: np.ndarray, y: np.ndarray) -> None:
        kind = self._target_kind()
        self.model_, self.history_ = train_mlp(
            Z, check_target(y, len(Z), kind), kind, self.config or MLPConfig(), device=self.device
        )


class UnawareMLP(_EncodedBaseline):
    """MLP(100, 50) without the sensitive attribute's encoded columns ("unaware").

    ``predict_score`` takes full-width encoded rows and drops the columns itself, so the
    shared evaluation scores it like any other model.

    Args:
        encoder: the fitted :class:`~cffair.datasets._encoding.Encoder`.
        config: how the MLP is trained.
        device: where to train (:mod:`cffair._support.devices`).
    """

    def __init__(self, encoder, config: MLPConfig | None = None, *, device: str = "cpu"):
        self.encoder = encoder
        self.config = config
        self.device = device

    def _keep(self) -> list[int]:
        drop = set(self.encoder.columns_of(self.encoder.spec.sensitive))
        return [j for j in range(self.encoder.n_features_out) if j not in drop]

    def transform(self, X: np.ndarray) -> np.ndarray:
        """Encoded rows without the sensitive attribute's columns."""
        return np.ascontiguousarray(check_encoded(X, self.encoder.n_features_out)[:, self._keep()])

    def fit(self, X: np.ndarray, y: np.ndarray) -> UnawareMLP:
        """Train on the factual rows ``X`` (full encoded width) and labels ``y``."""
        self.keep_ = self._keep()
        self._train(self.transform(X), y)
        return self

    def predict_score(self, X: np.ndarray) -> np.ndarray:
        """P(y = 1) or the score; float64 ``(n,)``."""
        check_fitted(self)
        assert self.model_ is not None
        return predict_mlp(self.model_, self.transform(X))


class ResidualMLP(_EncodedBaseline):
    """Kusner et al. (2017) level 3: MLP(100, 50) on non-descendants and descendants' residuals.

    Args:
        encoder: the fitted :class:`~cffair.datasets._encoding.Encoder`.
        graph: the causal graph (default: ``encoder.spec.load_graph()``).
        config: how the MLP is trained.
        device: where to train (:mod:`cffair._support.devices`).
    """

    coef_: np.ndarray | None = None

    def __init__(self, encoder, graph=None, config: MLPConfig | None = None, *, device: str = "cpu"):
        self.encoder = encoder
        self.graph = graph
        self.config = config
        self.device = device

    def _layout(self) -> None:
        spec, encoder = self.encoder.spec, self.encoder
        graph = self.graph if self.graph is not None else spec.load_graph()
        desc = set(graph.descendants(spec.sensitive))
        self.descendants_ = [f for f in spec.features if f in desc]
        self.nondescendants_ = [f for f in spec.features if f not in desc and f != spec.sensitive]
        self.s_cols_ = encoder.columns_of(spec.sensitive)
        self.d_cols_ = [j for f in self.descendants_ for j in encoder.columns_of(f)]
        self.r_cols_ = [j for f in self.nondescendants_ for j in encoder.columns_of(f)]

    def _design(self, X: np.ndarray) -> np.ndarray:
        return np.column_stack([np.ones(len(X)), X[:, self.s_cols_], X[:, self.r_cols_]]).astype(np.float64)

    def fit_residuals(self, X: np.ndarray) -> ResidualMLP:
        """Least-squares regression of the descendants' columns on the attribute and non-descendants."""
        X = check_encoded(X, self.encoder.n_features_out)
        self._layout()
        if self.d_cols_:
            self.coef_, *_ = np.linalg.lstsq(self._design(X), X[:, self.d_cols_].astype(np.float64), rcond=None)
        else:
            self.coef_ = np.zeros((1 + len(self.s_cols_) + len(self.r_cols_), 0))
        return self

    def transform(self, X: np.ndarray) -> np.ndarray:
        """``[non-descendants, residuals of descendants]`` (float32)."""
        check_fitted(self, "coef_")
        X = check_encoded(X, self.encoder.n_features_out)
        resid = X[:, self.d_cols_] - self._design(X) @ self.coef_
        return np.column_stack([X[:, self.r_cols_], resid]).astype(np.float32)

    def fit(self, X: np.ndarray, y: np.ndarray) -> ResidualMLP:
        """Fit the regressions and the MLP on the factual training rows."""
        self._train(self.fit_residuals(X).transform(X), y)
        return self

    def predict_score(self, X: np.ndarray) -> np.ndarray:
        """P(y = 1) or the score; float64 ``(n,)``."""
        check_fitted(self)
        assert self.model_ is not None
        return predict_mlp(self.model_, self.transform(X))


class PlugInCF(_EncodedBaseline):
    """Zhou et al. (2024) plug-in counterfactual fairness: ``Σ_a P(A = a) · f(x_a)``.

    ``f`` is MLP(100, 50) trained on factual rows. Scoring a row needs its counterfactuals:

    * :meth:`predict_score_pairs` ``(x, [x_cf_1, ...])`` — aligned arrays, one per
      counterfactual world or sample;
    * :meth:`score_fn` ``(pairs)`` — a ``score_fn(X)`` for the shared
      :func:`cffair.scores.evaluate`, which calls it on the test rows, on ``pairs.x`` and on
      ``pairs.x_cf``. A row equal to a factual row of ``pairs`` is mixed with that row's
      counterfactuals; a row that only occurs as a counterfactual is mixed with its factual
      row (the counterfactual of a counterfactual is the factual row: exact for an
      invertible generator and a binary attribute). So the evaluation's CF-MSE is 0 on
      pairs that are each other's counterfactuals, by construction: what the method
      guarantees, and what the evaluation should show. With several counterfactual samples
      per row, a factual row mixes all of them but each sample only mixes with its factual
      row, so the CF-MSE is small, not 0 (COMPAS fold 0, 4 CNF samples: 0.0007).
    * :meth:`set_counterfactuals` ``(pairs)`` — then :meth:`predict_score` works on such rows.

    Args:
        encoder: the fitted :class:`~cffair.datasets._encoding.Encoder`.
        config: how ``f`` is trained.
        weights: ``"prior"`` (Zhou et al.: P(A = a)) or ``"uniform"``.
        device: where to train (:mod:`cffair._support.devices`).
    """

    _pairs: CFPairs | None = None

    def __init__(
        self,
        encoder,
        config: MLPConfig | None = None,
        weights: Literal["prior", "uniform"] = "prior",
        *,
        device: str = "cpu",
    ):
        self.encoder = encoder
        self.config = config
        self.weights = weights
        self.device = device

    def _groups(self) -> tuple[list[int], int]:
        s_cols = self.encoder.columns_of(self.encoder.spec.sensitive)
        return s_cols, 2 if len(s_cols) == 1 else len(s_cols)

    def group_of(self, X: np.ndarray) -> np.ndarray:
        """The sensitive group (category index) of encoded rows."""
        s_cols, _ = self._groups()
        block = np.asarray(X)[:, s_cols]
        return (block[:, 0] >= 0.5).astype(np.int64) if len(s_cols) == 1 else block.argmax(axis=1)

    def fit(self, X: np.ndarray, y: np.ndarray) -> PlugInCF:
        """Train ``f`` on factual rows and estimate ``P(A)`` from them."""
        check_choice(self.weights, ("prior", "uniform"), "weights (Zhou et al.: 'prior' = P(A = a))")
        X = check_encoded(X, self.encoder.n_features_out)
        self.s_cols_, self.n_groups_ = self._groups()
        self._train(X, y)
        counts = np.bincount(self.group_of(X), minlength=self.n_groups_).astype(np.float64)
        self.prior_ = counts / counts.sum()
        return self

    def base_score(self, X: np.ndarray) -> np.ndarray:
        """The unconstrained predictor ``f`` (not counterfactually fair)."""
        check_fitted(self)
        assert self.model_ is not None
        return predict_mlp(self.model_, check_encoded(X, self.encoder.n_features_out))

    # -------------------------------------------------------------- mixing
    def _mix(self, P: np.ndarray, G: np.ndarray) -> np.ndarray:
        """Mix predictions ``P`` (n, k; NaN = absent) of worlds ``G`` (n, k; group index)."""
        w = self.prior_ if self.weights == "prior" else np.ones(self.n_groups_)
        num = np.zeros(len(P))
        den = np.zeros(len(P))
        valid = ~np.isnan(P)
        for g in range(self.n_groups_):
            m = valid & (g == G)
            cnt = m.sum(axis=1)
            mean = np.where(cnt > 0, np.where(m, P, 0.0).sum(axis=1) / np.maximum(cnt, 1), 0.0)
            num += (cnt > 0) * w[g] * mean
            den += (cnt > 0) * w[g]
        return num / den

    def predict_score_pairs(self, x: np.ndarray, x_cf_list: Sequence[np.ndarray]) -> np.ndarray:
        """PCF scores of rows ``x`` given aligned counterfactual arrays (one per world or sample).

        Raises:
            DataError: with no counterfactual array or a shape mismatch.
        """
        x = check_encoded(x, self.encoder.n_features_out)
        if len(x_cf_list) == 0:
            raise DataError("PlugInCF needs at least one counterfactual array per row (x_cf_list is empty).")
        cfs = [check_encoded(c, x.shape[1], "x_cf") for c in x_cf_list]
        for c in cfs:
            if c.shape != x.shape:
                raise DataError(f"each counterfactual array must align with x {x.shape}; got {c.shape}.")
        P = np.column_stack([self.base_score(x), *(self.base_score(c) for c in cfs)])
        G = np.column_stack([self.group_of(x), *(self.group_of(c) for c in cfs)])
        return self._mix(P, G)

    def predict_score_lookup(self, X: np.ndarray, pairs: CFPairs) -> np.ndarray:
        """PCF scores of rows ``X``, each found in ``pairs`` (as a factual or a counterfactual row).

        Raises:
            DataError: naming rows that occur nowhere in ``pairs``.
        """
        X = check_encoded(X, self.encoder.n_features_out)
        xs, xc = check_encoded(pairs.x, X.shape[1], "pairs.x"), check_encoded(pairs.x_cf, X.shape[1], "pairs.x_cf")
        factual: dict[bytes, list[int]] = {}
        for i, row in enumerate(xs):
            factual.setdefault(row.tobytes(), []).append(i)
        reverse: dict[bytes, list[int]] = {}
        for i, row in enumerate(xc):
            reverse.setdefault(row.tobytes(), []).append(i)
        partners: list[np.ndarray] = []
        missing = []
        for k, row in enumerate(X):
            key = row.tobytes()
            if key in factual:
                partners.append(xc[factual[key]])
            elif key in reverse:
                partners.append(xs[reverse[key]])
            else:
                missing.append(k)
        if missing:
            raise DataError(
                f"{len(missing)} row(s) (e.g. positions {missing[:5]}) have no counterfactual in the given pairs; "
                "PlugInCF can only score rows whose counterfactuals it is given (pass the pairs of these rows)."
            )
        k_max = max(len(p) for p in partners)
        flat = np.concatenate(partners)
        f_flat, g_flat = self.base_score(flat), self.group_of(flat)
        P = np.full((len(X), 1 + k_max), np.nan)
        G = np.full((len(X), 1 + k_max), -1, dtype=np.int64)
        P[:, 0], G[:, 0] = self.base_score(X), self.group_of(X)
        start = 0
        for k, p in enumerate(partners):
            P[k, 1 : 1 + len(p)] = f_flat[start : start + len(p)]
            G[k, 1 : 1 + len(p)] = g_flat[start : start + len(p)]
            start += len(p)
        return self._mix(P, G)

    def score_fn(self, pairs: CFPairs) -> Callable[[np.ndarray], np.ndarray]:
        """A ``score_fn(X)`` for the shared evaluation that looks counterfactuals up in ``pairs``."""
        check_fitted(self)
        return lambda X: self.predict_score_lookup(X, pairs)

    def set_counterfactuals(self, pairs: CFPairs) -> PlugInCF:
        """Register the pairs that :meth:`predict_score` looks rows up in."""
        self._pairs = pairs
        return self

    def predict_score(self, X: np.ndarray) -> np.ndarray:
        """PCF scores of rows registered with :meth:`set_counterfactuals` (common interface)."""
        check_fitted(self)
        if self._pairs is None:
            raise DataError(
                "PlugInCF.predict_score needs the counterfactuals of the rows it scores: call set_counterfactuals(pairs) "
                "first, or use predict_score_pairs(x, [x_cf]) / score_fn(pairs)."
            )
        return self.predict_score_lookup(X, self._pairs)
