"""The 90-minute lab of the book's teacher's kit: its blocks, and whether each live run fits.

The plan (:data:`LAB_PLAN`) is the teacher's choice of what to do when; what this module computes
is the part that depends on measurements: each live run's time, read from the cold quick-mode
measurements of ``benchmarks/results/regenerate.json`` (:func:`cffair_book.pages.regenerate_facts`),
and whether it fits its block, worded from those numbers (:func:`fit_note`).

>>> sum(block.minutes for block in LAB_PLAN)
90
"""

from __future__ import annotations

import html
import json
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from cffair_book import pages
from cffair_book.wording import say

__all__ = ["LAB_MINUTES", "LAB_PLAN", "LabBlock", "fit_note", "lab_plan_table", "live_seconds"]

#: The length of the lab.
LAB_MINUTES = 90


@dataclass(frozen=True)
class LabBlock:
    """One block of the lab: how long, what happens, what to run live (a ``cffair reproduce``
    group, or None), and the page it works from (a path from the book's root, no suffix)."""

    minutes: int
    title: str
    activity: str
    page: str
    live: str | None = None


LAB_PLAN: tuple[LabBlock, ...] = (
    LabBlock(
        10,
        "The question",
        "Read the front page's results box together: which of the paper's claims hold here, "
        "and what counterfactual fairness asks of a decision.",
        "intro",
    ),
    LabBlock(
        15,
        "LTN in ten minutes",
        "Run the chapter's cells live: fuzzy connectives, quantifiers, a toy loan model "
        "trained with and without the fairness axiom.",
        "notebooks/ltn_in_ten_minutes",
    ),
    LabBlock(
        20,
        "Q1: counterfactual fairness",
        "Start the quick run first, then read the chapter in render mode while "
        "it runs; compare its quick numbers with the committed ones.",
        "notebooks/q1_counterfactual_fairness",
        "q1",
    ),
    LabBlock(
        15,
        "Q4: asking a model questions",
        "Start the quick run, then work through the queries of equations (2) and (3) on the committed model.",
        "notebooks/q4_queries",
        "q4",
    ),
    LabBlock(
        15,
        "Exercises in pairs",
        "One exercise of Q1 and one of Q4 per pair (numbers below); the instructor edition has the solutions.",
        "notebooks/q1_counterfactual_fairness",
    ),
    LabBlock(15, "Discussion", "Two questions of the discussion page, with its readings.", "book/discussion"),
)


def live_seconds(group: str, path: str | Path | None = None) -> float | None:
    """The cold quick-mode wall-clock seconds measured for ``group``, or None if not measured."""
    file = Path(path) if path is not None else pages.REGENERATE_FILE
    try:
        data = json.loads(file.read_text(encoding="utf-8"))
    except (FileNotFoundError, json.JSONDecodeError):
        return None
    quick = data.get("groups", {}).get(group, {}).get("quick", {})
    return float(quick["wall_seconds"]) if "wall_seconds" in quick else None


def fit_note(group: str, minutes: int, seconds: float | None, load: str) -> str:
    """Whether the live quick run of ``group`` fits its block of ``minutes``, worded from the
    measurement (``seconds`` of wall-clock, under the 1-minute ``load`` average given as text)."""
    if seconds is None:
        return say("course.unmeasured", command=pages.command(f"reproduce --only {group} --mode quick"), group=group)
    under = say("course.at_load", load=load) if load not in ("not recorded", "not measured yet") else ""
    fit = "fits" if seconds <= 0.75 * minutes * 60 else "tight" if seconds <= minutes * 60 else "over"
    return say("course.fit", fit, measured=pages._duration(seconds), load=under, minutes=minutes)


def lab_plan_table(path: str | Path | None = None, *, root: str = "../"):
    """The lab plan as an HTML table: block times (from 0:00), the block linked to its page
    (``root`` + page + ``.html``), what happens, the command run live and whether it fits
    (:func:`fit_note`).

    Returns:
        a :class:`cffair.reporting.HTMLTable`.
    """
    from cffair.reporting import format_table

    rows, start = [], 0
    for block in LAB_PLAN:
        end = start + block.minutes
        if block.live:
            facts = pages.regenerate_facts(block.live, path)
            live = f"<code>{pages.command('reproduce --only ' + block.live + ' --mode quick')}</code><br>" + fit_note(
                block.live, block.minutes, live_seconds(block.live, path), facts["load"]
            )
        else:
            live = "—"
        rows.append(
            {
                "time": f"{start // 60}:{start % 60:02d}–{end // 60}:{end % 60:02d}",
                "block": f'<a href="{html.escape(root + block.page)}.html">{html.escape(block.title)}</a>',
                "what happens": html.escape(block.activity),
                "run live (quick mode)": live,
            }
        )
        start = end
    frame = pd.DataFrame(rows)
    return format_table(frame, caption=None, index=False, escape=False)
