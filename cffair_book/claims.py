"""The paper's qualitative claims, checked on our records.

Each claim is one small check function in its chapter's module (:mod:`.claims_q1`, :mod:`.claims_q2`,
:mod:`.claims_q3`, :mod:`.claims_q4`, :mod:`.claims_appendix_a`, :mod:`.claims_appendix_b`, sharing
:mod:`.claim_tools`), registered with :func:`~.registry.claim_check` together
with the claim's key, its sentence, where the paper makes it, the book page that shows the
evidence and the rule that decides its verdict. A check reads the :class:`Evidence` (the
records, their means and per-fold values, over every repetition of cross-validation) and
returns ``(verdict, note, basis)``: one of the five verdicts of :mod:`.verdicts` (or ``pending``
when its records are missing), the numbers behind it, and what it rests on (the test and the
paired folds). Comparisons of methods are decided by :func:`~cffair.reporting.decide`:
the corrected resampled t-test per comparison, Holm over the claim's comparisons; COMPAS(age)
counts only where its subgroups make it differ from COMPAS (:meth:`Evidence.counts`). The table,
the tally, :func:`evaluate_claims` and the robustness table are in :mod:`.registry`; the names
that read the registered checks (:func:`evaluate_claims`, :func:`robustness_frame`,
:func:`robustness_table`, :data:`CLAIM_CHECKS`) are imported from here, which registers them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

# The chapters' checks register as they are imported, so this order (the chapters', then the
# appendices') is the claims table's: kept out of the import sorting, which would put the appendices first.
# isort: off
from cffair_book import (  # noqa: F401
    claims_q1,
    claims_q2,
    claims_q3,
    claims_q4,
    claims_appendix_a,
    claims_appendix_b,
)

# isort: on

# What reads the registered checks comes from here, so that importing it registers them first;
# the rest of the registry (Claim, claims_table, claim_status, ...) is imported from .registry.
from cffair_book.registry import CLAIM_CHECKS, Claim, evaluate_claims, robustness_frame, robustness_table
from cffair_book.results import results_for

if TYPE_CHECKING:  # reading records loads no store (a Record comes from as_records)
    from cffair.experiments import Record

__all__ = [
    "CLAIM_CHECKS",
    "CLAIM_GROUPS",
    "chapter_claims",
    "claim_records",
    "evaluate_claims",
    "robustness_frame",
    "robustness_table",
]

#: The result groups every verdict of the book reads: the claims table's, and (one basis) the
#: chapters' verdict boxes and appendix C's factor table when they read committed records.
CLAIM_GROUPS: tuple[str, ...] = (
    "q1",
    "q2",
    "q3",
    "q4_why",
    "appendix_a",
    "appendix_b",
    "q2_why",
    "q3_why",
    "appendix_b_why",
)


def claim_records(
    mode: str | None,
    also: Sequence[str] = (),
    *,
    missing_ok: bool = False,
    computing: Sequence[str] | None = None,
    **results: Any,
) -> list[Record]:
    """The records the verdicts read, on every page: the groups of :data:`CLAIM_GROUPS` (and ``also``:
    appendix C's studies) with every method on the same folds
    (:func:`~cffair.reporting.paired_folds`), every repetition of cross-validation included.

    The claims table, the chapters' verdict boxes (:func:`chapter_claims`) and appendix C's factor
    table (:func:`~cffair_book.dependence.dependence_frame`) read their paired folds through this one
    function, so one claim has one verdict wherever the book shows it (a test holds the factor
    table's base column to the claims table on the committed records).

    ``computing``: when the mode computes records (quick or full) rather than reading the committed
    ones (render, the book's build), a page that needs only some groups names them here, so that it
    does not run every group's experiments for one page; the verdicts are then its own groups'.
    ``results``: :func:`cffair_book.results.results_for`'s other arguments, for that case."""
    from cffair import workflows
    from cffair.reporting import paired_folds

    if computing is not None and workflows.resolve_mode(mode) != "render":
        return paired_folds(results_for(mode, [*computing, *also], missing_ok=missing_ok, **results))
    return paired_folds(results_for(mode, [*CLAIM_GROUPS, *also], missing_ok=missing_ok))


def chapter_claims(
    mode: str | None, prefix: str, groups: Sequence[str], base: str = "../", **results: Any
) -> list[Claim]:
    """A chapter's claims (keys starting with ``prefix``) for its verdict box, decided on
    :func:`claim_records` (the claims table's own basis when the book reads committed records; the
    chapter's ``groups`` when it computes its own, with ``results`` passed to
    :func:`cffair_book.results.results_for`)."""
    records = claim_records(mode, computing=groups, **results)
    return [c for c in evaluate_claims(records, base=base) if c.key.startswith(prefix)]
