"""The LTN learner: predicate ``D`` = MLP(100, 50), Adam, and the paper's training schedule.

Section 6.3 and 7.1 of the paper: ``D`` is an MLP with hidden layers of 100 and 50 units,
trained with Adam (the paper's learning rate 0.1; this library's default is 1e-3, see below) to
maximise the satisfaction of the knowledge base. Settings with fairness axioms first **pre-train
for 1500 epochs on the accuracy axioms** and then add the fairness axioms; the axioms of
counterfactual knowledge extraction (A5) are added one at a time for 500 epochs each (section 7.3).

Schedule choices made here (the paper leaves them open):

* **Full batch**: one epoch is one Adam step on the whole training fold (the knowledge base is
  evaluated in one forward pass over the stacked inputs ``[x; x′]``).
* **Fairness stage length** ``fair_epochs = 500`` by default: the same length as each CKE stage;
  at lr 0.1 the satisfactions stop changing well before (see the learning-rate note below).
* The ``acc`` setting is the pre-trained model itself (1500 epochs), so the experiment runner
  can share one pre-training across the ``acc``, ``acc_cf`` and ``acc_cf_sg`` settings
  (:meth:`LTNLearner.save` / :meth:`LTNLearner.load`; continuing from a checkpoint gives the
  same weights as training in one go, because the optimiser state is saved too).
* **Learning rate** (measured, Adult fold 0 of the seeded 5-fold split, seed 0, accuracy axioms
  only, 1500 full-batch epochs, one thread): lr 0.1 → test accuracy 0.803 (train 0.827, sat
  0.848 at epoch 500 then slowly *down* to 0.846); lr 1e-3 → test accuracy 0.808 (train
  0.838, sat still rising: 0.840 / 0.851 / 0.855 at epochs 500 / 1000 / 1500). The paper's 0.1
  costs about half a point on Adult and saturates ``D`` (outputs of exactly 0 or 1 are
  common); on COMPAS at lr 0.1 the fairness stage stopped changing after ~500 epochs (every
  satisfaction frozen to the last digit from epoch 500 to 1000), which is why 500 is the
  default ``fair_epochs``.
* **Default learning rate 1e-3**, the value the reproduction uses (``PROFILES["full"]`` in
  :mod:`cffair.experiments`), not the paper's 0.1: at 0.1 the fairness stage fell into the
  constant predictor (sat ≈ 0.667) or not depending on the smallest change (COMPAS fold 0,
  acc+CF: accuracy 0.549 in one run, 0.652 in another; 5 of 15 runs on a credit dataset
  collapsed), and ``cffair train --dataset compas --setting acc_cf`` (fold 0, seed 0) reaches
  test accuracy 0.587 at 0.1 against 0.682 at 1e-3. The paper's value is one argument away:
  ``LTNLearner(..., lr=0.1)``, or ``cffair train --lr 0.1``; the constant-predictor warning
  below still guards it.
* **Denormal floats flushed to zero while training** (:func:`cffair._support.devices.flushed_denormals`, CPU only): the
  saturated predicate's gradients are denormal, which x86 computes many times slower; the
  trained model is bit-identical (``benchmarks/bench_denormals.py``).
* **Freed memory kept in the heap while training** (:func:`cffair._support.devices.retained_heap`, CPU, glibc): a
  full-batch epoch's activations reuse the previous epoch's pages instead of faulting in fresh ones
  (1.2–1.5x the CPU time of an Adult fairness or CKE epoch); the bits are the same.
* Without pre-training, A1 + A2 + A4 collapse to "always positive" (sat ≈ 0.667): fitting a
  fairness setting with ``pretrain_epochs=0`` raises unless ``allow_no_pretrain=True``, and a
  constant predictor is detected after every stage (:class:`ConstantPredictorWarning`).
"""

from __future__ import annotations

import copy
import dataclasses
import warnings
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

import numpy as np
import pandas as pd
import torch
from sklearn.base import BaseEstimator
from torch import nn
from tqdm.auto import tqdm

from cffair._support.devices import flushed_denormals, resolve_device, retained_heap
from cffair._support.utils import stable_hash
from cffair._support.validation import (
    TargetKind,
    check_choice,
    check_device,
    check_int,
    check_matrix,
    check_number,
    check_target_kind,
)
from cffair.errors import (
    ArtefactError,
    CollapseRiskWarning,
    ConstantPredictorWarning,
    DataError,
    DeviceError,
    ParameterError,
    StateError,
)
from cffair.learners._contract import PredictMixin, check_fitted
from cffair.learners._hyperparameters import (  # one home of each default (section 6.3, 7.1, 7.3) and its check
    CKE_EPOCHS,
    DEFAULT_HIDDEN,
    DEFAULT_LR,
    FAIR_EPOCHS,
    PRETRAIN_EPOCHS,
    check_hyperparameters,
)
from cffair.learners._networks import make_mlp
from cffair.logic._axioms import (
    Axiom,
    KnowledgeBase,
    Semantics,
    accuracy_axioms,
    cf_axiom,
    subgroup_cf_axioms,
)

Setting = Literal["acc", "acc_cf", "acc_cf_sg"]
SETTINGS: tuple[str, ...] = ("acc", "acc_cf", "acc_cf_sg")


def is_constant(d: np.ndarray, target_kind: str) -> bool:
    """Whether predictions ``d`` are constant: the degenerate-model screen without labels
    (:func:`cffair.scores._screen.screen`: outputs whose sd is below :data:`cffair.scores.CONSTANT_SD`, or,
    for a binary target, at least :data:`cffair.scores.NEAR_CONSTANT_SHARE` of the decisions one
    class). One test of constancy for the learner, the scorers and the report."""
    from cffair.scores._screen import screen

    return screen(d, target_kind="score" if target_kind == "score" else "binary").collapsed


def _pair_arrays(pairs: Any) -> tuple[np.ndarray, np.ndarray]:
    """(x, x_cf) from a :class:`~cffair.causal.CFPairs` (or anything with ``x``/``x_cf``) or a tuple."""
    if pairs is None:
        raise DataError("this setting needs counterfactual pairs; pass pairs=CFPairs (or a tuple (x, x_cf)).")
    if isinstance(pairs, tuple) and len(pairs) == 2:
        x, x_cf = pairs
    else:
        try:
            x, x_cf = pairs.x, pairs.x_cf
        except AttributeError:
            raise DataError(f"pairs must be a CFPairs or a tuple (x, x_cf), got {type(pairs).__name__}.") from None
    return np.asarray(x, dtype=np.float32), np.asarray(x_cf, dtype=np.float32)


def _check_X(X: Any, n_features: int | None = None, what: str = "X") -> np.ndarray:
    return check_matrix(X, what, n_columns=n_features, dtype=np.float32)


def _cpu(obj: Any) -> Any:
    """``obj`` (a state dict, possibly nested) with every tensor on the CPU (the same tensors there)."""
    if isinstance(obj, torch.Tensor):
        return obj.cpu()
    if isinstance(obj, dict):
        return type(obj)((k, _cpu(v)) for k, v in obj.items())
    if isinstance(obj, list):
        return [_cpu(v) for v in obj]
    return obj


def _axiom_on(axiom: Axiom, device: torch.device) -> Axiom:
    """``axiom`` with its tensors on ``device`` (itself when they are there already)."""
    if axiom.x.device == device:
        return axiom
    move = {k: getattr(axiom, k).to(device) for k in ("x", "x_cf", "y") if getattr(axiom, k) is not None}
    return dataclasses.replace(axiom, **move)


class DeviceKnowledgeBase(KnowledgeBase):
    """A :class:`~cffair.logic.KnowledgeBase` whose axioms' data and weights live on one device
    (moved once, when the base is built; on the CPU the axioms are the same objects)."""

    def __init__(
        self,
        axioms: Sequence[Axiom],
        semantics: Semantics,
        group_weights: Mapping[str, float] | None,
        device: torch.device,
    ) -> None:
        self.device = device
        super().__init__([_axiom_on(a, device) for a in axioms], semantics, group_weights)

    def weights(self) -> torch.Tensor:
        return super().weights().to(self.device)


class LTNLearner(PredictMixin, BaseEstimator):
    """Logic Tensor Network learner, a scikit-learn estimator (:mod:`cffair.learners._contract`).

    Args:
        target_kind: ``"binary"`` (A1, A2; ``D(x)`` is P(y = 1)) or ``"score"`` (A3; ``D(x)`` is the score).
        setting: ``"acc"`` (accuracy axioms), ``"acc_cf"`` (+ A4) or ``"acc_cf_sg"`` (+ A4_1..n).
        lr: Adam learning rate, in (0, 1] (default 1e-3, the reproduction's; the paper's 0.1 can
            collapse the fairness stages to a constant predictor, which is warned about).
        pretrain_epochs: epochs on the accuracy axioms alone (paper: 1500).
        fair_epochs: epochs after the fairness axioms are added (not given in the paper; 500).
        cke_epochs: epochs per added A5 axiom (paper: 500).
        group_weights: weights of the axiom groups ``acc``, ``cf``, ``cf_sg``, ``cke`` (appendix B).
        semantics: quantifier/aggregation exponents (:class:`~cffair.logic.Semantics`; p = 1).
        fair_p: the exponent p of the ∀ of the fairness axioms A4 / A4_1..n alone (default
            ``None``: the semantics' ``p_forall``, the paper's 1). p = 2 or 6 weighs the pairs
            whose decisions disagree most more heavily than the mean does.
        clip_grad: clip the gradient's norm to this value before each Adam step (default
            ``None``: no clipping, the paper's); a way to stabilise a large learning rate.
        hidden: hidden layer widths of ``D`` (paper: (100, 50)).
        seed: seeds the weight initialisation; the same seed gives identical weights.
        progress: show a tqdm progress bar.
        allow_no_pretrain: permit fairness axioms without pre-training (they collapse to a constant).
        sensitive: name of the sensitive attribute, used in the axioms' readable formulas.
        device: where to train: ``"cpu"`` (default), ``"cuda"`` or ``"auto"`` (:mod:`cffair._support.devices`);
            not part of a checkpoint (a learner saved on an accelerator loads on a CPU).
        patience: early stopping, off by default (``None``: every stage trains its fixed epochs,
            the paper's schedule). A number: a stage stops once the knowledge base's satisfaction
            has gained less than ``min_delta`` over the last ``patience`` epochs (checked every 10
            epochs); the epochs given are then an upper bound. On 800 rows of the credit data the
            pre-training's satisfaction gained less than 0.001 per 100 epochs after about 800 of
            its 1,500 epochs, and the held-out accuracy no longer rose.
        min_delta: the satisfaction gain over ``patience`` epochs below which a stage stops.

    Parameters are checked by :meth:`fit` (and :meth:`load`), not by the constructor, which
    only stores them (scikit-learn's convention; :func:`sklearn.base.clone` works).

    Attributes after :meth:`fit`:
        ``model_``: the predicate network ``D``.
        ``kb_``: the knowledge base of the last stage.
        ``history_``: one row per epoch: ``epoch``, ``stage``, ``sat`` and each axiom's satisfaction.
        ``constant_``: whether the predictor was found constant after the last stage.
        ``semantics_``: the semantics in use (``semantics``, or the default :class:`~cffair.logic.Semantics`).
    """

    # fitted state before fit (class-level, so that __init__ sets only the parameters)
    model_: nn.Module | None = None
    optimizer_: torch.optim.Optimizer | None = None
    kb_: KnowledgeBase | None = None
    n_features_: int | None = None
    pretrained_: bool = False
    data_hash_: str | None = None
    constant_: bool = False
    _history: tuple[pd.DataFrame, ...] | list[pd.DataFrame] = ()

    def __init__(
        self,
        target_kind: TargetKind = "binary",
        setting: Setting = "acc",
        *,
        lr: float = DEFAULT_LR,
        pretrain_epochs: int = PRETRAIN_EPOCHS,
        fair_epochs: int = FAIR_EPOCHS,
        cke_epochs: int = CKE_EPOCHS,
        group_weights: Mapping[str, float] | None = None,
        semantics: Semantics | None = None,
        hidden: tuple[int, ...] = DEFAULT_HIDDEN,
        seed: int = 0,
        progress: bool = True,
        allow_no_pretrain: bool = False,
        sensitive: str = "S",
        fair_p: float | None = None,
        clip_grad: float | None = None,
        device: str = "cpu",
        patience: int | None = None,
        min_delta: float = 1e-3,
    ):
        self.target_kind = target_kind
        self.setting = setting
        self.lr = lr
        self.pretrain_epochs = pretrain_epochs
        self.fair_epochs = fair_epochs
        self.cke_epochs = cke_epochs
        self.group_weights = group_weights
        self.semantics = semantics
        self.hidden = hidden
        self.seed = seed
        self.progress = progress
        self.allow_no_pretrain = allow_no_pretrain
        self.sensitive = sensitive
        self.fair_p = fair_p
        self.clip_grad = clip_grad
        self.device = device
        self.patience = patience
        self.min_delta = min_delta

    def _check_params(self) -> None:
        """Check the parameters (what the constructor of a scikit-learn estimator leaves to ``fit``).

        Raises:
            ParameterError: (a ``ValueError``) naming the parameter, the value and what is allowed.
            DeviceError: for ``device="cuda"`` on a machine without one.
        """
        check_target_kind(self.target_kind)
        check_choice(self.setting, SETTINGS, "setting")
        check_hyperparameters(self)  # lr, epochs, fair_p, clip_grad, hidden: as the command line and the estimators
        if self.patience is not None:
            check_int(self.patience, "patience", low=1)
        check_number(self.min_delta, "min_delta", low=0)
        if self.semantics is not None and not isinstance(self.semantics, Semantics):
            raise ParameterError(
                f"semantics must be None or a cffair.logic.Semantics, got {type(self.semantics).__name__}."
            )
        check_device(self.device)
        self.device_ = resolve_device(self.device)
        self.semantics_ = self.semantics or Semantics()

    def _target_kind(self) -> str:
        return self.target_kind

    def _config(self) -> dict[str, Any]:
        """The parameters in canonical form (what a checkpoint stores; the device is left out)."""
        return {
            "target_kind": self.target_kind,
            "setting": self.setting,
            "lr": float(self.lr),
            "pretrain_epochs": int(self.pretrain_epochs),
            "fair_epochs": int(self.fair_epochs),
            "cke_epochs": int(self.cke_epochs),
            "group_weights": dict(self.group_weights or {}),
            "semantics": self.semantics or Semantics(),
            "hidden": tuple(self.hidden),
            "seed": int(self.seed),
            "progress": self.progress,
            "allow_no_pretrain": self.allow_no_pretrain,
            "sensitive": self.sensitive,
            "fair_p": None if self.fair_p is None else float(self.fair_p),
            "clip_grad": None if self.clip_grad is None else float(self.clip_grad),
            # early stopping only when on: a checkpoint of the paper's fixed schedule is unchanged
            **({} if self.patience is None else {"patience": int(self.patience), "min_delta": float(self.min_delta)}),
        }

    # ----------------------------------------------------------------- config / state
    @property
    def history_(self) -> pd.DataFrame:
        """Satisfaction of every axiom per epoch (NaN where an axiom was not in the base)."""
        if not self._history:
            return pd.DataFrame(columns=["epoch", "stage", "sat"])
        return pd.concat(self._history, ignore_index=True)

    def _init_model(self, n_features: int) -> None:
        """A fresh predicate: initialised on the CPU from the seed, then moved to the device."""
        self._check_params()
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(int(self.seed))
            self.model_ = make_mlp(n_features, self.target_kind, tuple(self.hidden)).to(self.device_)
        self.optimizer_ = torch.optim.Adam(self.model_.parameters(), lr=float(self.lr))
        self.n_features_ = n_features
        self._history = []

    def _check_fitted(self) -> None:
        check_fitted(self)

    # ----------------------------------------------------------------- axioms
    def build_axioms(
        self, X: np.ndarray, y: np.ndarray, pairs: Any = None, pair_subgroups: Any = None
    ) -> tuple[list[Axiom], list[Axiom]]:
        """The setting's accuracy axioms and fairness axioms (A4, or A4_1..n)."""
        acc = accuracy_axioms(X, y, self.target_kind)
        fair: list[Axiom] = []
        if self.setting == "acc_cf":
            x, x_cf = _pair_arrays(pairs)
            fair = [cf_axiom(x, x_cf, self.target_kind, self.sensitive, p=self.fair_p)]
        elif self.setting == "acc_cf_sg":
            x, x_cf = _pair_arrays(pairs)
            if pair_subgroups is None:
                raise DataError(
                    "setting 'acc_cf_sg' needs pair_subgroups: a subgroup label per pair, or a mapping name → boolean mask."
                )
            fair = subgroup_cf_axioms(x, x_cf, pair_subgroups, self.target_kind, self.sensitive, p=self.fair_p)
            if not fair:
                raise DataError("every subgroup is empty; no subgroup axiom A4_i could be built.")
        return acc, fair

    def _kb(self, axioms: Sequence[Axiom]) -> KnowledgeBase:
        return DeviceKnowledgeBase(axioms, self.semantics_, self.group_weights, self.device_)

    # ----------------------------------------------------------------- fitting
    def fit(self, X: Any, y: Any, pairs: Any = None, pair_subgroups: Any = None) -> LTNLearner:
        """Train with the paper's schedule for this learner's ``setting``.

        Args:
            X: encoded training rows (n × d).
            y: labels 0/1 (binary) or scores.
            pairs: counterfactual pairs ``CFPairs`` (or ``(x, x_cf)``) for the fairness settings;
                the factual rows ``pairs.x`` are usually rows of ``X`` (shared in the forward pass).
            pair_subgroups: for ``acc_cf_sg``: one subgroup label per pair, or ``{name: mask over pairs}``.

        If the learner was loaded from a pre-trained checkpoint (same data), pre-training is
        skipped and only the fairness stage runs.
        """
        self._check_params()
        X = _check_X(X, self.n_features_)
        y_arr = np.asarray(y)
        acc, fair = self.build_axioms(X, y_arr, pairs, pair_subgroups)
        data_hash = stable_hash(X.tobytes(), np.asarray(y_arr, dtype=np.float64).tobytes())
        if self.model_ is not None and self.pretrained_ and self.data_hash_ not in (None, data_hash):
            raise DataError(
                "this learner was pre-trained on different data; pre-training is only shared across settings of the same fold."
            )
        if fair and not self.pretrained_ and self.pretrain_epochs == 0:
            msg = (
                "fairness axioms without pre-training: A1 + A2 + A4 collapse to a constant predictor (sat ≈ 0.667). "
                "Pre-train on the accuracy axioms (pretrain_epochs > 0, paper: 1500) or pass allow_no_pretrain=True."
            )
            if not self.allow_no_pretrain:
                raise ParameterError(msg)
            warnings.warn(msg, CollapseRiskWarning, stacklevel=2)
        if self.model_ is None:
            self._init_model(X.shape[1])
        if not self.pretrained_:
            if self.pretrain_epochs > 0:
                self._train(self._kb(acc), self.pretrain_epochs, "pretrain")
            self.pretrained_ = True
            self.data_hash_ = data_hash
            self._check_constant(X, "pre-training")
        if fair:
            self._train(self._kb(acc + fair), self.fair_epochs, "fair")
            self._check_constant(X, "the fairness stage")
        elif self.kb_ is None:
            self.kb_ = self._kb(acc)
        return self

    def restore_axioms(self, X: Any, y: Any, pairs: Any = None, pair_subgroups: Any = None) -> LTNLearner:
        """Rebuild the knowledge base of this learner's setting without training.

        A checkpoint stores weights and optimiser state, not the axioms' data; call this after
        :meth:`load` to continue with :meth:`add_axioms` (e.g. CKE axioms on top of acc+CF).
        """
        self._check_fitted()
        acc, fair = self.build_axioms(_check_X(X, self.n_features_), np.asarray(y), pairs, pair_subgroups)
        self.kb_ = self._kb(acc + fair)
        return self

    def add_axioms(
        self, axioms: Axiom | Sequence[Axiom], X: Any, epochs: int | None = None, stage: str | None = None
    ) -> LTNLearner:
        """Add axioms (e.g. a CKE axiom A5) to the current knowledge base and keep training.

        Args:
            axioms: the axiom(s) to add.
            X: training rows, only used to check for a constant predictor afterwards.
            epochs: training epochs (default ``cke_epochs``, paper: 500).
        """
        self._check_fitted()
        if self.kb_ is None:
            raise StateError("no knowledge base yet; call fit first.")
        new = [axioms] if isinstance(axioms, Axiom) else list(axioms)
        kb = self._kb(self.kb_.axioms + new)
        kb.compile_from(self.kb_)  # the rows of the step before are de-duplicated once, not at every step
        # the one way to train on more axioms: a stage on the extended knowledge base (train_stage)
        self.train_stage(
            kb,
            self.cke_epochs if epochs is None else int(epochs),
            stage or "+" + ",".join(a.name for a in new),
        )
        self._check_constant(_check_X(X, self.n_features_), "adding " + ", ".join(a.name for a in new))
        return self

    def train_stage(
        self, kb: KnowledgeBase, epochs: int, stage: str, *, on_epoch: Callable[[int, torch.Tensor], None] | None = None
    ) -> LTNLearner:
        """Keep training the fitted predicate on any knowledge base (an extension point).

        ``kb`` may be a :class:`~cffair.logic.KnowledgeBase` subclass whose ``satisfactions``
        adds formulas of its own kinds (group fairness notions, :mod:`cffair.logic._notions`).
        ``on_epoch(epoch, sats)``, if given, is called after every optimiser step with the
        per-axiom satisfactions of that step; it may change the knowledge base's weights for
        the next step (weight schedules, :mod:`cffair.logic._adaptive`). The stage enters
        :attr:`history_` like any other and ``kb`` becomes :attr:`kb_` (on an accelerator, a
        plain :class:`~cffair.logic.KnowledgeBase` is first copied to the device; a subclass
        raises :class:`~cffair.errors.DeviceError` there).
        """
        self._check_fitted()
        epochs = check_int(epochs, "epochs")
        if self.device_.type != "cpu" and not isinstance(kb, DeviceKnowledgeBase):
            if type(kb) is not KnowledgeBase:
                raise DeviceError(
                    f"train_stage on device {self.device!r} needs a knowledge base on that device; a "
                    f"{type(kb).__name__} keeps its tensors on the CPU. Train it with device='cpu'."
                )
            kb = DeviceKnowledgeBase(kb.axioms, kb.semantics, kb.group_weights, self.device_)
        self._train(kb, epochs, stage, on_epoch)
        return self

    def _train(
        self, kb: KnowledgeBase, epochs: int, stage: str, on_epoch: Callable[[int, torch.Tensor], None] | None = None
    ) -> None:
        assert self.model_ is not None and self.optimizer_ is not None
        self.kb_ = kb
        kb.compile()
        self.model_.train()
        start = int(self._history[-1]["epoch"].iloc[-1]) + 1 if self._history else 1
        sats_log = torch.empty((epochs, len(kb)), dtype=torch.float32, device=self.device_)
        kb_log = torch.empty(epochs, dtype=torch.float32, device=self.device_)
        with flushed_denormals(self.device_), retained_heap(self.device_):
            ran = self._epochs(kb, epochs, stage, start, sats_log, kb_log=kb_log, on_epoch=on_epoch)
        frame = pd.DataFrame(sats_log[:ran].cpu().numpy(), columns=kb.names)
        frame.insert(0, "sat", kb_log[:ran].cpu().numpy())
        frame.insert(0, "stage", stage)
        frame.insert(0, "epoch", np.arange(start, start + ran))
        self._history = [*self._history, frame]
        self.model_.eval()

    def _epochs(
        self,
        kb: KnowledgeBase,
        epochs: int,
        stage: str,
        start: int,
        sats_log: torch.Tensor,
        *,
        kb_log: torch.Tensor,
        on_epoch: Callable[[int, torch.Tensor], None] | None,
    ) -> int:
        """The optimiser steps of one stage, logging each step's satisfactions in place; the
        number of steps taken (``epochs``, or fewer when early stopping is on: ``patience``)."""
        assert self.model_ is not None and self.optimizer_ is not None
        model, opt = self.model_, self.optimizer_
        bar = tqdm(range(epochs), desc=f"LTN {stage}", disable=not self.progress, leave=False)
        for i in bar:
            opt.zero_grad(set_to_none=True)
            sat, sats = kb.sat(model)
            if not torch.isfinite(sat):
                raise FloatingPointError(
                    f"knowledge-base satisfaction became {float(sat)} at epoch {start + i} ({stage}); try a smaller lr."
                )
            (1.0 - sat).backward()
            if self.clip_grad is not None:
                nn.utils.clip_grad_norm_(model.parameters(), self.clip_grad)
            opt.step()
            kb_log[i] = sat.detach()
            sats_log[i] = sats.detach()
            if on_epoch is not None:
                on_epoch(start + i, sats_log[i])
            if self.progress and i % 50 == 0:
                bar.set_postfix(sat=f"{float(sat):.4f}")
            wait = self.patience
            if (
                wait is not None
                and (i + 1) % 10 == 0
                and i >= wait
                and float(kb_log[i] - kb_log[i - wait]) < self.min_delta
            ):
                bar.close()
                return i + 1
        bar.close()
        return epochs

    def _check_constant(self, X: np.ndarray, when: str) -> None:
        from cffair.scores._screen import screen

        verdict = screen(self.predict_d(X), target_kind="score" if self.target_kind == "score" else "binary")
        self.constant_ = verdict.collapsed
        if self.constant_:
            warnings.warn(
                f"the predictor is constant after {when} ({verdict.reason}); "
                "pre-train longer, lower the learning rate or the fairness weights.",
                ConstantPredictorWarning,
                stacklevel=3,
            )

    # ----------------------------------------------------------------- prediction
    def predict_d(self, X: Any) -> np.ndarray:
        """The predicate's output ``D(x)``: P(y = 1) for a binary target, the score otherwise."""
        self._check_fitted()
        X = _check_X(X, self.n_features_)
        model = self.model_
        assert model is not None
        model.eval()
        with torch.no_grad():
            device = next(model.parameters()).device
            return model(torch.from_numpy(X).to(device)).cpu().numpy().astype(np.float64)

    def predict_score(self, X: Any) -> np.ndarray:
        """``D(x)``, as every method's ``predict_score`` (:mod:`cffair.learners._contract`): P(y = 1) for a
        binary target, the score otherwise; float64 ``(n,)``. ``predict`` and ``predict_proba``
        follow from it."""
        return self.predict_d(X)

    def satisfactions(self) -> dict[str, float]:
        """Current satisfaction of each axiom of the knowledge base (and ``"sat"``)."""
        self._check_fitted()
        assert self.kb_ is not None and self.model_ is not None
        with torch.no_grad():
            sat, sats = self.kb_.sat(self.model_)
        return {"sat": float(sat), **{n: float(s) for n, s in zip(self.kb_.names, sats)}}

    # ----------------------------------------------------------------- checkpoints
    def state_dict(self) -> dict[str, Any]:
        """Everything needed to continue training: weights, optimiser state, flags, history, params."""
        self._check_fitted()
        params = self._config()
        params["semantics"] = dataclasses.asdict(params["semantics"])
        return {
            "format": "cffair.LTNLearner/1",
            "params": params,
            "model": copy.deepcopy(_cpu(self.model_.state_dict())),  # type: ignore[union-attr]
            "optimizer": copy.deepcopy(_cpu(self.optimizer_.state_dict())),  # type: ignore[union-attr]
            "n_features": self.n_features_,
            "pretrained": self.pretrained_,
            "data_hash": self.data_hash_,
            "history": self.history_.to_dict(orient="list"),
        }

    def load_state_dict(self, state: Mapping[str, Any]) -> LTNLearner:
        """Restore weights, optimiser state and history (keeps this learner's own params, e.g. ``setting``)."""
        if state.get("format") != "cffair.LTNLearner/1":
            raise ArtefactError("not a cffair LTNLearner checkpoint.")
        self._check_params()
        saved = state["params"]
        if saved["target_kind"] != self.target_kind or tuple(saved["hidden"]) != tuple(self.hidden):
            raise ArtefactError(
                f"checkpoint is for target_kind={saved['target_kind']!r}, hidden={tuple(saved['hidden'])}; "
                f"this learner has {self.target_kind!r}, {tuple(self.hidden)}."
            )
        self._init_model(int(state["n_features"]))
        self.model_.load_state_dict(state["model"])  # type: ignore[union-attr]
        # torch's Optimizer.load_state_dict keeps the given tensors (no copy): without the deep
        # copy, two learners loaded from one checkpoint would share (and corrupt) Adam's moments
        self.optimizer_.load_state_dict(copy.deepcopy(state["optimizer"]))  # type: ignore[union-attr]
        for g in self.optimizer_.param_groups:  # type: ignore[union-attr]
            g["lr"] = float(self.lr)
        self.pretrained_ = bool(state["pretrained"])
        self.data_hash_ = state.get("data_hash")
        hist = pd.DataFrame(state.get("history") or {})
        self._history = [hist] if len(hist) else []
        self.model_.eval()  # type: ignore[union-attr]
        return self

    def save(self, path: str | Path, extra: Mapping[str, Any] | None = None) -> None:
        """Write :meth:`state_dict` (plus JSON-like ``extra``, e.g. dataset and fold) to ``path``
        atomically, in a format that runs no code when loaded (:mod:`cffair.learners._checkpoint`); read
        ``extra`` back with :func:`checkpoint_extra`."""
        from cffair.learners._checkpoint import save_learner_state

        save_learner_state(path, self.state_dict(), self.history_.dtypes, extra)

    @classmethod
    def load(cls, path_or_state: str | Path | Mapping[str, Any], **overrides: Any) -> LTNLearner:
        """A learner from a checkpoint; ``overrides`` change constructor params (e.g. ``setting="acc_cf"``).

        Continue a shared pre-training with ``LTNLearner.load(ckpt, setting="acc_cf").fit(X, y, pairs)``.
        A file is read without running any code it holds (:func:`cffair.learners.load_learner`).

        Raises:
            ArtefactError: for a missing, damaged, old-format or crafted file.
        """
        if not isinstance(path_or_state, Mapping):
            from cffair.learners._checkpoint import load_learner

            return load_learner(path_or_state, lambda state: cls.load(state, **overrides))
        state = path_or_state
        params = dict(state["params"])
        params["semantics"] = (
            Semantics(**params["semantics"]) if isinstance(params["semantics"], Mapping) else params["semantics"]
        )
        params["hidden"] = tuple(params["hidden"])
        # a checkpoint stores the defaults spelled out; None says "the default", as the constructor's
        if params.get("semantics") == Semantics():
            params["semantics"] = None
        if not params.get("group_weights"):
            params["group_weights"] = None
        params.update(overrides)
        return cls(**params).load_state_dict(state)


def checkpoint_extra(path: str | Path) -> dict[str, Any]:
    """The ``extra`` mapping stored by :meth:`LTNLearner.save` (empty if none)."""
    from cffair.learners._checkpoint import learner_extra

    return learner_extra(path)
