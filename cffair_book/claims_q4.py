"""The check of Q4 (the queries), registered with :func:`~.registry.claim_check` (:mod:`.claims`)."""

from __future__ import annotations

import numpy as np

from cffair.reporting import TABLE4_PAPER_SAT, query_frame
from cffair.reporting._verdicts import BY_CONSTRUCTION, FAILS, HOLDS, PENDING, Basis, Evidence
from cffair.reporting._verdicts import fmt as _fmt
from cffair_book.investigations import QUERY_TRUE, query_finding
from cffair_book.registry import claim_check


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
            (
                f"x̂ is the negatively predicted person whose nearest differently decided neighbour is closest, "
                f"so the query finds a witness whenever anyone lies within β (fold {int(first['fold'].iloc[0])}): "
                + "; ".join(
                    f"{r.subgroup}: sat {_fmt(r.sat)} (paper {_fmt(TABLE4_PAPER_SAT.get(r.subgroup, np.nan))})"
                    for r in first.itertuples()
                )
            ),
            Basis("by construction, no test", "1 fold"),
        )
    true = int((drawn["sat"] > QUERY_TRUE).sum())  # the query's own truth value, not only a neighbour within β
    return (
        (HOLDS if true == len(TABLE4_PAPER_SAT) and len(drawn) == len(TABLE4_PAPER_SAT) else FAILS),
        (
            "x̂ drawn at random among each subgroup's negatively predicted people (§7.4). "
            + query_finding(q)
            + f" The paper's Table 4 satisfactions: {_fmt(min(TABLE4_PAPER_SAT.values()))}–"
            f"{_fmt(max(TABLE4_PAPER_SAT.values()))}."
        ),
        Basis("count over subgroups, no test", f"{len(drawn)} subgroups, 1 fold"),
    )
