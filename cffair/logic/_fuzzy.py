r"""The fuzzy logics a knowledge base can be read in: the connectives of section 2.4 and their alternatives.

The paper reads its axioms in the *product* real logic (the stable configuration of Badreddine
et al. 2022): conjunction ``u ∧ v = u·v``, disjunction ``u ∨ v = u + v − u·v`` (probabilistic
sum), implication ``u → v = 1 − u + u·v`` (Reichenbach). Greco et al. (2023), whom the paper
cites (section 3.1), found that LTN's fairness effect depends heavily on that choice. This module
names the alternatives, each from ``ltntorch``'s own operators:

============  ===================  =========================  ============================================
logic         u ∧ v                u ∨ v                      u → v
============  ===================  =========================  ============================================
product       u·v                  u + v − u·v                1 − u + u·v (Reichenbach)
lukasiewicz   max(0, u + v − 1)    min(1, u + v)              min(1, 1 − u + v)
godel         min(u, v)            max(u, v)                  1 if u ≤ v else v
goguen        u·v                  u + v − u·v                1 if u ≤ v else v / u
============  ===================  =========================  ============================================

What every logic here keeps: the standard negation ``¬u = 1 − u`` and the p-mean quantifiers
(∀ the p-mean error, ∃ the p-mean: LTN's quantifiers are aggregations, not a logic's). So the
accuracy axioms A1–A3, whose bodies have no binary connective, read the same in every logic, and one
pre-training serves them all; the logic acts on the pair axioms A4, A4ᵢ and A5 of a binary target
through the equivalence ``u ↔ v = (u → v) ∧ (v → u)``:

* product: ``(1 − u + uv)(1 − v + uv)``, which is 0.5625 at u = v = 0.5 and so also pushes
  outputs to 0 or 1;
* Łukasiewicz: ``1 − |u − v|``, exactly 1 whenever u = v;
* Gödel: 1 if u = v, else ``min(u, v)``: a pair that disagrees slightly scores as low as its
  smaller output, and only that output gets a gradient;
* Goguen: ``min(u, v) / max(u, v)`` (1 for u = v).

A score target (Lawschool) has no connective in any axiom: its pair axioms read ``Eq(D(x), D(x′))``,
a graded equality of two real scores at the squared distance ``δ = ½ Σ (D(x) − D(x′))²``. A t-norm
with an additive generator ``f`` has its own such equality, ``f⁻¹(δ)`` (a T-indistinguishability:
Valverde 1985), and that is how a logic reaches them (:meth:`Logic.score_eq`, ``SCORE_EQ``):

* product (the paper's): ``1 / (1 + δ)``, the score equality of section 4.1 (:func:`eq_score`), kept
  as the paper defines it (it is the equality of the Hamacher product, whose generator is (1 − u)/u);
* Łukasiewicz: ``max(0, 1 − δ)`` (generator 1 − u);
* Goguen: ``exp(−δ)`` (the product t-norm's generator −ln u);
* Gödel: none. The minimum is idempotent, so it has no additive generator, and an equality that is
  min-transitive is an ultrametric one: on the real line it is crisp (1 for equal scores, a constant
  otherwise), which gives training no gradient. Gödel logic cannot act on a score target's pair
  axioms: a knowledge base refuses it there (:class:`cffair.errors.SemanticsError`), and the semantics
  study leaves Gödel out on Lawschool.

The accuracy axiom A3, ``Eq(D(x), y)``, keeps the paper's score equality in every logic, as A1–A2 do for
a binary target, so that one pre-training still serves every logic.

Example:

>>> import torch
>>> round(float(logic("lukasiewicz").and_()(torch.tensor(0.6), torch.tensor(0.7))), 6)
0.3
>>> logic("boolean")
Traceback (most recent call last):
...
cffair.errors.ParameterError: unknown fuzzy logic 'boolean'; choose one of product, lukasiewicz, godel, goguen.

References:
    | Badreddine, Garcez, Serafini, Spranger (2022), Logic Tensor Networks, Artificial Intelligence 303.
      :cite:p:`badreddine2022`
    | Greco, Alberici, Palmonari, Cosentini (2023), Declarative encoding of fairness in logic tensor networks,
      ECAI 2023. :cite:p:`greco2023`
    | Hájek (1998), Metamathematics of Fuzzy Logic (the three basic t-norms and their residua).
      :cite:p:`hajek1998`
    | Valverde (1985), On the structure of F-indistinguishability operators, Fuzzy Sets and Systems 17
      (equalities from a t-norm's additive generator).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Literal, cast

import ltn
import torch

from cffair.errors import ParameterError, SemanticsError

__all__ = [
    "DEFAULT_LOGIC",
    "DEFAULT_SEMANTICS",
    "LOGICS",
    "SCORE_EQ",
    "Logic",
    "Semantics",
    "eq_score",
    "logic",
    "weighted_sat",
]
from cffair._support.validation import check_exponent

__all__ = ["DEFAULT_LOGIC", "DEFAULT_SEMANTICS", "LOGICS", "Logic", "Semantics", "eq_score", "logic", "weighted_sat"]

Connective = Callable[..., object]


@dataclass(frozen=True)
class Logic:
    """One fuzzy logic: its connectives as ``ltntorch`` operator classes.

    Attributes:
        name: the name a config or :class:`~cffair.logic.Semantics` uses (``"lukasiewicz"``).
        title: the name for a page (``"Łukasiewicz"``).
        and_cls, or_cls, implies_cls: ``ltntorch.fuzzy_ops`` classes of ∧, ∨ and →.
        stable: which of the three take ltntorch's ``stable`` flag (ε-projection of the inputs).
    """

    name: str
    title: str
    and_cls: type
    or_cls: type
    implies_cls: type
    stable: tuple[bool, bool, bool] = (False, False, False)

    def _make(self, cls: type, takes_stable: bool, stable: bool) -> Connective:
        return cls(stable=stable) if takes_stable else cls()

    def and_(self, stable: bool = True) -> Connective:
        """The conjunction (a t-norm)."""
        return self._make(self.and_cls, self.stable[0], stable)

    def or_(self, stable: bool = True) -> Connective:
        """The disjunction (the dual t-conorm)."""
        return self._make(self.or_cls, self.stable[1], stable)

    def implies(self, stable: bool = True) -> Connective:
        """The implication."""
        return self._make(self.implies_cls, self.stable[2], stable)

    def equiv(self, stable: bool = True) -> ltn.fuzzy_ops.Equiv:
        """``u ↔ v = (u → v) ∧ (v → u)`` with this logic's ∧ and →."""
        return ltn.fuzzy_ops.Equiv(self.and_(stable), self.implies(stable))

    @property
    def acts_on_scores(self) -> bool:
        """Whether the logic has an equality of real scores (``SCORE_EQ``): every logic but Gödel."""
        return SCORE_EQ[self.name] is not None

    def score_eq(self, y_hat: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        """``Eq(ŷ, y)`` of two scores in this logic: ``f⁻¹(½ Σ (ŷ − y)²)`` for its t-norm's generator ``f``
        (``SCORE_EQ``). Raises :class:`~cffair.errors.SemanticsError` for Gödel logic, which has none.

        >>> import torch
        >>> a, b = torch.tensor([0.0]), torch.tensor([1.0])
        >>> [round(float(logic(n).score_eq(a, b)[0]), 4) for n in ("product", "lukasiewicz", "goguen")]
        [0.6667, 0.5, 0.6065]
        """
        self.require_scores()
        return cast(Callable[[torch.Tensor], torch.Tensor], SCORE_EQ[self.name])(_half_sq(y_hat, y))

    def require_scores(self) -> None:
        """Raise :class:`~cffair.errors.SemanticsError` when this logic has no equality of scores (Gödel)."""
        if SCORE_EQ[self.name] is None:
            raise SemanticsError(
                f"{self.title} logic cannot act on a score target's pair axioms Eq(D(x), D(x')): its t-norm (the "
                "minimum) has no additive generator, and its only equality of real scores is crisp, with no "
                "gradient; choose product, lukasiewicz or goguen for a score target."
            )


_F = ltn.fuzzy_ops
#: The logics by name, the paper's first.
LOGICS = MappingProxyType(
    {
        "product": Logic(
            "product", "product (the paper's)", _F.AndProd, _F.OrProbSum, _F.ImpliesReichenbach, (True, True, True)
        ),
        "lukasiewicz": Logic("lukasiewicz", "Łukasiewicz", _F.AndLuk, _F.OrLuk, _F.ImpliesLuk),
        "godel": Logic("godel", "Gödel", _F.AndMin, _F.OrMax, _F.ImpliesGodel),
        "goguen": Logic("goguen", "Goguen", _F.AndProd, _F.OrProbSum, _F.ImpliesGoguen, (True, True, True)),
    }
)
#: The paper's logic (section 2.4).
DEFAULT_LOGIC = "product"


def _half_sq(y_hat: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    """``δ = ½ Σⱼ (ŷⱼ − yⱼ)²`` (one term for 1-D inputs; the sum over the last dimension for 2-D)."""
    diff2 = (y_hat - y) ** 2
    if diff2.ndim > 1:
        diff2 = diff2.sum(dim=-1)
    return 0.5 * diff2


#: Each logic's equality of two real scores as a function of ``δ = ½ Σ (ŷ − y)²``: ``f⁻¹(δ)`` for the additive
#: generator ``f`` of its t-norm (``None``: Gödel, whose minimum has none). The product entry is the paper's
#: score equality (section 4.1), kept as it is; see the module's text.
SCORE_EQ: Mapping[str, Callable[[torch.Tensor], torch.Tensor] | None] = MappingProxyType(
    {
        "product": lambda d: 1.0 / (1.0 + d),
        "lukasiewicz": lambda d: torch.clamp(1.0 - d, min=0.0),
        "godel": None,
        "goguen": lambda d: torch.exp(-d),
    }
)


def logic(name: str) -> Logic:
    """The logic called ``name``, with an error that lists the choices."""
    try:
        return LOGICS[name]
    except (KeyError, TypeError):
        raise ParameterError(f"unknown fuzzy logic {name!r}; choose one of {', '.join(LOGICS)}.") from None


# ---------------------------------------------------------------------------- semantics
#: A knowledge base's whole semantics (section 2.4): the logic's connectives, the quantifiers' exponents
#: and the knowledge-base aggregation; :mod:`cffair.logic._axioms` builds the axioms on it.
@dataclass(frozen=True)
class Semantics:
    """The fuzzy semantics of section 2.4 (the stable configuration of Badreddine et al. 2022).

    Attributes:
        p_forall: exponent of the universal quantifier ``AggregPMeanError`` (paper: 1).
        p_exists: exponent of the existential quantifier ``AggregPMean`` (default 1, the mean).
        p_kb: exponent of the knowledge-base aggregation :func:`weighted_sat` (default 1, a
            weighted mean). The paper does not state it; ltntorch's ``SatAgg`` defaults to 2.
        stable: use ltntorch's ε-projected (stable) operators.
        logic: the connectives (:data:`cffair.logic.LOGICS`): ``"product"`` (the paper's: product
            t-norm, probabilistic sum, Reichenbach implication), ``"lukasiewicz"``, ``"godel"`` or
            ``"goguen"``. Negation and quantifiers are the same in every logic.
        pair_body: how the pair axioms of a binary target read ``D(x) ↔ D(x′)``: ``"equiv"`` (the
            logic's equivalence, the paper's) or ``"eq"`` (the score equality :func:`eq_score`, which
            does not push outputs to 0 or 1: a diagnostic of appendix C).
    """

    p_forall: float = 1.0
    p_exists: float = 1.0
    p_kb: float = 1.0
    stable: bool = True
    logic: str = DEFAULT_LOGIC
    pair_body: Literal["equiv", "eq"] = "equiv"

    def __post_init__(self) -> None:
        for name in ("p_forall", "p_exists", "p_kb"):
            check_exponent(getattr(self, name), name)
        logic(self.logic)  # a clear error for an unknown name
        if self.pair_body not in ("equiv", "eq"):
            raise ParameterError(f"pair_body must be 'equiv' or 'eq', got {self.pair_body!r}.")

    # ltntorch operators -------------------------------------------------------------
    @property
    def and_(self) -> ltn.fuzzy_ops.BinaryConnectiveOperator:
        """u ∧ v: the logic's t-norm (product: u·v)."""
        return logic(self.logic).and_(self.stable)

    @property
    def or_(self) -> ltn.fuzzy_ops.BinaryConnectiveOperator:
        """u ∨ v: the logic's t-conorm (product: the probabilistic sum u + v − u·v)."""
        return logic(self.logic).or_(self.stable)

    @property
    def not_(self) -> ltn.fuzzy_ops.NotStandard:
        """¬u = 1 − u (every logic)."""
        return ltn.fuzzy_ops.NotStandard()

    @property
    def implies(self) -> ltn.fuzzy_ops.BinaryConnectiveOperator:
        """u → v: the logic's implication (product: Reichenbach, 1 − u + u·v)."""
        return logic(self.logic).implies(self.stable)

    @property
    def equiv(self) -> ltn.fuzzy_ops.Equiv:
        """u ↔ v = (u → v) ∧ (v → u)."""
        return ltn.fuzzy_ops.Equiv(self.and_, self.implies)

    def iff(self, u: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
        """The body of a binary pair axiom: :attr:`equiv`, or :func:`eq_score` with ``pair_body="eq"``."""
        return eq_score(u, v) if self.pair_body == "eq" else self.equiv(u, v)

    def pair_eq(self, u: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
        """The body of a score target's pair axiom, ``Eq(D(x), D(x′))`` in this logic (:meth:`Logic.score_eq`;
        product: :func:`eq_score`, the paper's)."""
        return eq_score(u, v) if self.logic == DEFAULT_LOGIC else logic(self.logic).score_eq(u, v)

    @property
    def forall_op(self) -> ltn.fuzzy_ops.AggregPMeanError:
        """∀: 1 − (mean (1 − uᵢ)^p)^(1/p)."""
        return ltn.fuzzy_ops.AggregPMeanError(p=self.p_forall, stable=self.stable)

    @property
    def exists_op(self) -> ltn.fuzzy_ops.AggregPMean:
        """∃: (mean uᵢ^p)^(1/p)."""
        return ltn.fuzzy_ops.AggregPMean(p=self.p_exists, stable=self.stable)

    # plain-tensor helpers (the hot path) -----------------------------------------------
    def forall(self, truths: torch.Tensor, p: float | None = None) -> torch.Tensor:
        """∀ over a 1-D tensor of truth values (NaN when empty: callers skip empty domains).

        ``p`` overrides :attr:`p_forall` for one formula (an axiom's own exponent).
        """
        if p is None or p == self.p_forall:
            return self.forall_op(truths, dim=0)
        return ltn.fuzzy_ops.AggregPMeanError(p=p, stable=self.stable)(truths, dim=0)

    def exists(self, truths: torch.Tensor) -> torch.Tensor:
        """∃ over a 1-D tensor of truth values."""
        return self.exists_op(truths, dim=0)

    # ltn machinery (queries and the oracle) -------------------------------------------
    def ltn_forall(self, p: float | None = None) -> ltn.Quantifier:
        op = self.forall_op if p is None else ltn.fuzzy_ops.AggregPMeanError(p=p, stable=self.stable)
        return ltn.Quantifier(op, quantifier="f")

    def ltn_exists(self) -> ltn.Quantifier:
        return ltn.Quantifier(self.exists_op, quantifier="e")


DEFAULT_SEMANTICS = Semantics()


def eq_score(y_hat: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    """Score equality predicate of section 4.1: ``Eq(ŷ, y) = 1 / (1 + 0.5 Σⱼ (ŷⱼ − yⱼ)²)``.

    For 1-D inputs (one score per row) the sum has a single term; for 2-D inputs it runs over
    the last dimension. Values lie in (0, 1]; 1 exactly when ŷ = y.
    """
    diff2 = (y_hat - y) ** 2
    if diff2.ndim > 1:
        diff2 = diff2.sum(dim=-1)
    return 1.0 / (1.0 + 0.5 * diff2)


def weighted_sat(
    truths: torch.Tensor, weights: torch.Tensor | Sequence[float] | None = None, p: float = 1.0, stable: bool = True
) -> torch.Tensor:
    """Weighted knowledge-base satisfaction ``1 − (Σ wᵢ (1 − sᵢ)^p / Σ wᵢ)^(1/p)``.

    With equal weights this is exactly ltntorch's ``SatAgg(AggregPMeanError(p, stable))``
    (including its ε-projection when ``stable``). Weights scale each axiom's *error* in the
    mean; they never multiply truth values.

    Args:
        truths: 1-D tensor of axiom satisfactions in [0, 1].
        weights: non-negative weights (default: all 1), at least one positive.
        p: the p-mean exponent (>= 1; default 1, a weighted mean: :attr:`Semantics.p_kb`'s default, the
            reproduction's reading of the paper's "p = 1 in the norm aggregators of Section 2.4", section 5.1;
            ltntorch's ``SatAgg`` defaults to 2).
        stable: apply ltntorch's ``pi_1`` projection (as ``AggregPMeanError`` does).
    """
    truths = torch.as_tensor(truths)
    if truths.ndim != 1 or truths.numel() == 0:
        raise ParameterError(
            f"weighted_sat needs a non-empty 1-D tensor of satisfactions, got shape {tuple(truths.shape)}."
        )
    w = torch.ones_like(truths) if weights is None else torch.as_tensor(weights, dtype=truths.dtype)
    if w.shape != truths.shape:
        raise ParameterError(f"got {w.numel()} weights for {truths.numel()} axioms.")
    if torch.any(w < 0) or not torch.any(w > 0):
        raise ParameterError(f"axiom weights must be >= 0 with at least one > 0, got {w.tolist()}.")
    if stable:
        truths = ltn.fuzzy_ops.pi_1(truths)
    err = torch.sum(w * (1.0 - truths) ** p) / torch.sum(w)
    return 1.0 - err ** (1.0 / p)
