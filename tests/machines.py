"""How far two runs of the same code on the same inputs may differ, by which CPUs computed them.

Training and the twins are reproducible to the bit on one kind of CPU, not across kinds: another
x86-64 CPU (another vector instruction set) rounds float32 sums differently and trains to slightly
other numbers, and so do PyTorch's kernels forced to another instruction set on one CPU
(``ATEN_CPU_CAPABILITY``). Records name the CPU that made them and the kernels it used (``machine``, see
:func:`cffair.experiments._store.machine`); records older than those fields name none. The tests that
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


def kernels(m: Mapping[str, Any]) -> str:
    """The instruction set PyTorch's kernels used for a record: its ``cpu_kernels`` (``ATEN_CPU_CAPABILITY`` can
    force a lower one than the CPU has), or, for a record older than that field (made with the kernels PyTorch
    chose itself), the best its CPU's flags allow.

    >>> kernels({"cpu_simd": ["avx2", "fma", "avx512f"]}), kernels({"cpu_simd": ["avx2", "fma"]}), kernels({})
    ('AVX512', 'AVX2', 'DEFAULT')
    >>> kernels({"cpu_simd": ["avx2", "fma", "avx512f"], "cpu_kernels": "DEFAULT"})
    'DEFAULT'
    """
    simd = set(m.get("cpu_simd") or ())
    native = "AVX512" if "avx512f" in simd else "AVX2" if {"avx2", "fma"} <= simd else "DEFAULT"
    return str(m.get("cpu_kernels") or native)


def one_cpu(a: Mapping[str, Any] | None, b: Mapping[str, Any] | None) -> bool:
    """Whether two records' ``machine`` entries name the same kind of CPU computing with the same kernels
    (``False`` if either is unnamed).

    >>> m = {"cpu_model": "AMD EPYC", "cpu_simd": ["avx2", "avx512f"]}
    >>> one_cpu(m, dict(m)), one_cpu(m, None), one_cpu(m, {**m, "cpu_simd": ["avx2"]})
    (True, False, False)
    >>> one_cpu(m, {**m, "cpu_kernels": "AVX512"}), one_cpu(m, {**m, "cpu_kernels": "DEFAULT"})
    (True, False)
    """
    if a is None or b is None:
        return False
    same = {k: v for k, v in a.items() if k != "cpu_kernels"} == {k: v for k, v in b.items() if k != "cpu_kernels"}
    return same and kernels(a) == kernels(b)


def tolerance(a: Mapping[str, Any] | None, b: Mapping[str, Any] | None) -> float:
    """The largest gap allowed between two runs of one configuration made on the machines ``a`` and ``b``.

    >>> tolerance(None, None) == ACROSS_MACHINES, tolerance({"cpu_model": "x"}, {"cpu_model": "x"}) == ONE_CPU
    (True, True)
    """
    return ONE_CPU if one_cpu(a, b) else ACROSS_MACHINES
