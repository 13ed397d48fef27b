"""The check of Q4 (the queries), registered with :func:`~.registry.claim_check` (:mod:`.claims`)."""

from __future__ import annotations

import numpy as np

from cffair.reporting import TABLE4_PAPER_SAT, query_frame
from cffair.reporting._verdicts import BY_CONSTRUCTION, FAILS, HOLDS, PENDING, Basis, Evidence
from cffair.reporting._verdicts import fmt as _fmt
from cffair_book.investigations import QUERY_TRUE, query_finding
from cffair_book.registry import claim_check
from cffair_book.wording import note


# ---------------------------------------------------------------------------- Q4
@claim_check("Q4.1")
def _q4_existence_query(e: Evidence) -> tuple[str, str, Basis]:
    q = query_frame(e.records)
    q = q[q["dataset"] == "adult"]
    if q.empty:
        return PENDING, "", Basis()
    drawn = q[q["rule"] == "random"]
    if drawn.empty:
        first = q[q["fold"] == q["fold"].min()]
        return (
            BY_CONSTRUCTION,
            note(
                "q4_nearest",
                fold=int(first["fold"].iloc[0]),
                satisfactions="; ".join(
                    note(
                        "q4_satisfaction",
                        subgroup=r.subgroup,
                        sat=_fmt(r.sat),
                        paper=_fmt(TABLE4_PAPER_SAT.get(r.subgroup, np.nan)),
                    )
                    for r in first.itertuples()
                ),
            ),
            Basis("by construction, no test", "1 fold"),
        )
    true = int((drawn["sat"] > QUERY_TRUE).sum())  # the query's own truth value, not only a neighbour within β
    return (
        (HOLDS if true == len(TABLE4_PAPER_SAT) and len(drawn) == len(TABLE4_PAPER_SAT) else FAILS),
        note(
            "q4_drawn",
            finding=query_finding(q),
            low=_fmt(min(TABLE4_PAPER_SAT.values())),
            high=_fmt(max(TABLE4_PAPER_SAT.values())),
        ),
        Basis("count over subgroups, no test", f"{len(drawn)} subgroups, 1 fold"),
    )
