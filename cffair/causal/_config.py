"""The causal normalising flow's settings (:class:`FlowConfig`) and its named treatments.

A *treatment* says how a discrete node's counterfactual is computed (see the module docstring
of :mod:`cffair.causal._flow`):

* ``categorical`` for nominal (``categorical``-kind) non-root nodes: ``"gumbel"`` (default), a
  conditional categorical per node with Gumbel-max counterfactuals (Oberst & Sontag 2019), or
  ``"flow"`` (alias ``"paper"``), the paper's integer codes inside the flow;
* ``ordered`` for ``binary`` and ``ordinal`` non-root nodes: ``"threshold"`` (default), a
  cumulative-logit model per node whose logistic noise is drawn from its posterior (for a
  binary node this is the Gumbel-max counterfactual), or ``"midpoint"`` (the paper's), the
  integer code in the flow abducted at the middle of the observed value's bin, or ``"sample"``,
  the code abducted at a uniform point of its bin;
* ``integer`` for ``integer`` non-root nodes (counts, ages): ``"midpoint"`` (the paper's) or
  ``"sample"``, both in the flow.

:data:`PAPER_TREATMENT` is the paper's choice for all three; the reproduction of the paper's tables
passes it explicitly. Which treatment is right where is measured on structural causal models
with known counterfactuals (:mod:`cffair.causal._synthetic`, ``benchmarks/bench_synthetic_counterfactuals.py``).

References:
    | Counterfactual Off-Policy Evaluation with Gumbel-Max Structural Causal Models
      (Oberst & Sontag, 2019) https://arxiv.org/abs/1905.05824 :cite:p:`oberst2019`
    | Causal normalizing flows: from theory to practice (Javaloy et al., 2023)
      https://arxiv.org/abs/2306.05415 :cite:p:`javaloy2023`
"""

from __future__ import annotations

__all__ = ["CATEGORICAL_TREATMENTS", "INTEGER_TREATMENTS", "ORDERED_TREATMENTS", "PAPER_TREATMENT", "FlowConfig"]

from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any, Literal

from cffair.errors import CounterfactualError

#: Treatments of nominal non-root nodes; ``"paper"`` is an alias of ``"flow"``.
CATEGORICAL_TREATMENTS: tuple[str, ...] = ("gumbel", "flow", "paper")
#: Treatments of binary and ordinal non-root nodes.
ORDERED_TREATMENTS: tuple[str, ...] = ("threshold", "midpoint", "sample")
#: Treatments of integer non-root nodes.
INTEGER_TREATMENTS: tuple[str, ...] = ("midpoint", "sample")
#: The paper's treatment (integer codes in one affine transform, abduction at bin midpoints):
#: pass it (plus e.g. ``epochs``) to reproduce the paper's counterfactuals exactly.
PAPER_TREATMENT: dict[str, Any] = {"categorical": "flow", "ordered": "midpoint", "integer": "midpoint", "transforms": 1}


@dataclass(frozen=True)
class FlowConfig:
    """Hyper-parameters of the causal normalising flow (paper section 6.2).

    Attributes:
        flow: ``"maf"`` (affine masked autoregressive) or ``"nsf"`` (rational-quadratic spline).
        transforms: number of autoregressive transforms (paper: 1). More than one loses the
            one-to-one link between ``u_i`` and node ``i``; it needs the paper's treatments
            (:data:`PAPER_TREATMENT`).
        hidden: hidden layers of the masked MLP (paper: [32, 32, 32]).
        batch_size: paper: 256.
        epochs: maximum epochs (paper: 1000).
        lr: initial Adam learning rate, multiplied by ``lr_factor`` after ``lr_patience``
            epochs without a better validation loss.
        patience: stop after this many epochs without a better validation loss; ``None``
            trains all ``epochs`` (the paper). The best-by-validation weights are kept either way.
        min_delta: an improvement smaller than this does not reset ``patience``.
        val_fraction: share of rows held out for validation (seeded).
        root_context: condition on root nodes instead of transforming them.
        categorical: treatment of nominal non-root nodes: ``"gumbel"`` (default; a conditional
            categorical with Gumbel-max counterfactuals) or ``"flow"`` (integer codes in the
            flow, the paper's; ``"paper"`` is accepted as an alias and stored as ``"flow"``).
        ordered: treatment of binary and ordinal non-root nodes: ``"threshold"`` (default; a
            cumulative-logit model with its noise drawn from the posterior), ``"midpoint"``
            (integer codes in the flow abducted at bin midpoints, the paper's) or ``"sample"``
            (codes in the flow abducted at a uniform point of the bin).
        integer: treatment of integer non-root nodes: ``"midpoint"`` (the paper's) or ``"sample"``.
        cf_samples: counterfactual draws per row and intervention when a treatment draws
            (``"gumbel"``, ``"threshold"`` or ``"sample"`` with a node of its kind); otherwise
            the counterfactual is deterministic and drawn once.
        log_skewed: model non-negative continuous columns with skewness above 5 as ``log1p``.
        nsf_bins: spline bins for ``flow="nsf"``.
    """

    flow: Literal["maf", "nsf"] = "maf"
    transforms: int = 1
    hidden: tuple[int, ...] = (32, 32, 32)
    batch_size: int = 256
    epochs: int = 1000
    lr: float = 1e-3
    lr_factor: float = 0.5
    lr_patience: int = 8
    patience: int | None = 20
    min_delta: float = 1e-4
    val_fraction: float = 0.1
    root_context: bool = True
    categorical: Literal["gumbel", "flow", "paper"] = "gumbel"
    ordered: Literal["threshold", "midpoint", "sample"] = "threshold"
    integer: Literal["midpoint", "sample"] = "midpoint"
    cf_samples: int = 4
    log_skewed: bool = True
    nsf_bins: int = 8

    def __post_init__(self) -> None:
        if self.flow not in ("maf", "nsf"):
            raise CounterfactualError(f"flow must be 'maf' or 'nsf', got {self.flow!r}.")
        if self.categorical not in CATEGORICAL_TREATMENTS:
            raise CounterfactualError(
                f"categorical must be one of {list(CATEGORICAL_TREATMENTS)}, got {self.categorical!r}."
            )
        if self.categorical == "paper":
            object.__setattr__(self, "categorical", "flow")  # one spelling in cache keys and provenance
        if self.ordered not in ORDERED_TREATMENTS:
            raise CounterfactualError(f"ordered must be one of {list(ORDERED_TREATMENTS)}, got {self.ordered!r}.")
        if self.integer not in INTEGER_TREATMENTS:
            raise CounterfactualError(f"integer must be one of {list(INTEGER_TREATMENTS)}, got {self.integer!r}.")
        if self.transforms < 1:
            raise CounterfactualError(f"transforms must be at least 1, got {self.transforms}.")
        chosen = {"categorical": self.categorical, "ordered": self.ordered, "integer": self.integer}
        if self.transforms != 1 and any(chosen[k] != PAPER_TREATMENT[k] for k in chosen):
            raise CounterfactualError(
                f"transforms={self.transforms} needs the paper's treatments categorical='flow', ordered='midpoint', "
                f"integer='midpoint' (got {chosen}): the others need one noise variable per node, i.e. transforms=1 "
                "(the default). Set those three (cffair.causal.PAPER_TREATMENT) to use several transforms."
            )
        if not 0 < self.val_fraction < 1:
            raise CounterfactualError(f"val_fraction must lie in (0, 1), got {self.val_fraction}.")
        if self.epochs < 1 or self.batch_size < 1 or self.cf_samples < 1:
            raise CounterfactualError("epochs, batch_size and cf_samples must be positive.")

    @classmethod
    def from_dict(cls, raw: Mapping[str, Any] | FlowConfig | None) -> FlowConfig:
        """From a mapping (unknown keys are an error) or a config; ``None`` gives the defaults.

        Example:
            >>> FlowConfig.from_dict({"categorical": "paper", "epochs": 5}).categorical
            'flow'
        """
        if raw is None:
            return cls()
        if isinstance(raw, FlowConfig):
            return raw
        unknown = set(raw) - set(cls.__dataclass_fields__)
        if unknown:
            raise CounterfactualError(
                f"unknown flow config key(s) {sorted(unknown)}; allowed: {sorted(cls.__dataclass_fields__)}."
            )
        args = dict(raw)
        if "hidden" in args:
            args["hidden"] = tuple(int(h) for h in args["hidden"])
        return cls(**args)

    def to_dict(self) -> dict[str, Any]:
        """A plain mapping that :meth:`from_dict` reads back."""
        d = asdict(self)
        d["hidden"] = list(self.hidden)
        return d
