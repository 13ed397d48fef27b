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
(∀ the p-mean error, ∃ the p-mean). So the accuracy axioms A1–A3, whose bodies have no binary
connective, read the same in every logic, and one pre-training serves them all; the logic acts
on the pair axioms A4, A4ᵢ and A5 through the equivalence ``u ↔ v = (u → v) ∧ (v → u)``:

* product: ``(1 − u + uv)(1 − v + uv)``, which is 0.5625 at u = v = 0.5 and so also pushes
  outputs to 0 or 1;
* Łukasiewicz: ``1 − |u − v|``, exactly 1 whenever u = v;
* Gödel: 1 if u = v, else ``min(u, v)``: a pair that disagrees slightly scores as low as its
  smaller output, and only that output gets a gradient;
* Goguen: ``min(u, v) / max(u, v)`` (1 for u = v).

Example:

>>> import torch
>>> round(float(logic("lukasiewicz").and_()(torch.tensor(0.6), torch.tensor(0.7))), 6)
0.3
>>> logic("boolean")
Traceback (most recent call last):
...
ValueError: unknown fuzzy logic 'boolean'; choose one of product, lukasiewicz, godel, goguen.

References:
    Badreddine, Garcez, Serafini, Spranger (2022), Logic Tensor Networks, Artificial Intelligence 303.
    Greco, Alberici, Palmonari, Cosentini (2023), Declarative encoding of fairness in logic tensor networks, ECAI 2023.
    Hájek (1998), Metamathematics of Fuzzy Logic (the three basic t-norms and their residua).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from types import MappingProxyType

import ltn

__all__ = ["DEFAULT_LOGIC", "LOGICS", "Logic", "logic"]

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


def logic(name: str) -> Logic:
    """The logic called ``name``, with an error that lists the choices."""
    try:
        return LOGICS[name]
    except (KeyError, TypeError):
        raise ValueError(f"unknown fuzzy logic {name!r}; choose one of {', '.join(LOGICS)}.") from None
