"""cffair: counterfactual fairness with Logic Tensor Networks.

The library behind the book companion of Heilmann, Manganini, Cerrato, Kestel and Belle,
*A Neurosymbolic Approach to Counterfactual Fairness*. Its modules follow the data::

    datasets -> causal (counterfactuals) -> logic (axioms) -> training -> metrics / cke / queries
    -> experiments -> reporting
"""

from __future__ import annotations

__version__ = "0.1.0"

__all__ = ["__version__"]
