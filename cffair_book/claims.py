"""The paper's qualitative claims, checked on our records.

Each claim is one small check function (:mod:`.claims_q1_q2`, :mod:`.claims_q3_b`, sharing
:mod:`.claim_tools`), registered with :func:`~.registry.claim_check` together
with the claim's key, its sentence, where the paper makes it, the book page that shows the
evidence and the rule that decides its verdict. A check reads the :class:`Evidence` (the
records, their means and per-fold values, over every repetition of cross-validation) and
returns ``(verdict, note, basis)``: one of the five verdicts of :mod:`.verdicts` (or ``pending``
when its records are missing), the numbers behind it, and what it rests on (the test and the
paired folds). Comparisons of methods are decided by :func:`~cffair.reporting.verdicts.decide`:
the corrected resampled t-test per comparison, Holm over the claim's comparisons; COMPAS(age)
counts only where its subgroups make it differ from COMPAS (:meth:`Evidence.counts`). The table,
the tally, :func:`evaluate_claims` and the robustness table are in :mod:`.registry`; the names
that read the registered checks (:func:`evaluate_claims`, :func:`robustness_frame`,
:func:`robustness_table`, :data:`CLAIM_CHECKS`) are imported from here, which registers them.
"""

from __future__ import annotations

from cffair_book import claims_q1_q2, claims_q3_b  # noqa: F401  (their checks register, in the book's order)

# What reads the registered checks comes from here, so that importing it registers them first;
# the rest of the registry (Claim, claims_table, claim_status, ...) is imported from .registry.
from cffair_book.registry import CLAIM_CHECKS, evaluate_claims, robustness_frame, robustness_table

__all__ = ["CLAIM_CHECKS", "evaluate_claims", "robustness_frame", "robustness_table"]
