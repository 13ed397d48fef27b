"""How far two runs of the same code on the same inputs may differ, by which CPUs computed them.

Training and the twins are reproducible to the bit on one kind of CPU, not across kinds: another
x86-64 CPU (another vector instruction set) rounds float32 sums differently and trains to slightly
other numbers. Records name the CPU that made them (``machine``, see
:func:`cffair.experiments.store.machine`); records older than that field name none. The tests that
compare two runs of one configuration read their tolerance from here, so there is one number.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

#: Two runs that one kind of CPU computed: equal up to float32 noise far below the three decimals
#: the book shows.
ONE_CPU = 5e-4
#: Two runs on two kinds of CPU (or runs that do not say which): measured gaps are 0.0049 in accuracy
#: for COMPAS fold 0 LTN(acc+CF) recomputed on another machine (6 of 1,234 test rows), 0.0016 between
#: COMPAS and COMPAS(age) records of one configuration made on two machines (CHANGELOG, 0.2.0).
ACROSS_MACHINES = 0.01


def one_cpu(a: Mapping[str, Any] | None, b: Mapping[str, Any] | None) -> bool:
    """Whether two records' ``machine`` entries name the same kind of CPU (``False`` if either is unnamed).

    >>> m = {"cpu_model": "AMD EPYC", "cpu_simd": ["avx2", "avx512f"]}
    >>> one_cpu(m, dict(m)), one_cpu(m, None), one_cpu(m, {**m, "cpu_simd": ["avx2"]})
    (True, False, False)
    """
    return a is not None and b is not None and dict(a) == dict(b)


def tolerance(a: Mapping[str, Any] | None, b: Mapping[str, Any] | None) -> float:
    """The largest gap allowed between two runs of one configuration made on the machines ``a`` and ``b``.

    >>> tolerance(None, None) == ACROSS_MACHINES, tolerance({"cpu_model": "x"}, {"cpu_model": "x"}) == ONE_CPU
    (True, True)
    """
    return ONE_CPU if one_cpu(a, b) else ACROSS_MACHINES
