"""The freshness box of a page: which of its records are current, and why the others are stale
(from :mod:`cffair.workflows._reproduce`'s status).
"""

from __future__ import annotations

import html
import re
from typing import Any

import pandas as pd

from cffair_book.commands import command
from cffair_book.html_block import HTMLBlock


def stale_reasons(status: pd.DataFrame, top: int = 6) -> list[str]:
    """Why the records of ``status`` (:func:`cffair.workflows.status`) are stale, in a few lines: code
    changes grouped by kind (changed, now run, no longer run), then every other reason with its count.

    >>> st = pd.DataFrame({"state": ["stale", "stale", "fresh"], "reasons": [
    ...     ["code of cffair.a changed", "input counterfactuals: its content changed"],
    ...     ["code of cffair.a changed", "code of cffair.b changed"], []]})
    >>> stale_reasons(st)
    ['the code changed in 2 modules: cffair.a, cffair.b', 'input counterfactuals: its content changed (1 record)']
    """
    kinds: dict[str, dict[str, int]] = {"changed": {}, "now runs": {}, "no longer runs": {}}
    other: dict[str, int] = {}
    for reasons in status.loc[status["state"] != "fresh", "reasons"]:
        for r in reasons:
            m = re.fullmatch(r"code of (\S+) (changed|now runs|no longer runs)", r)
            into = kinds[m.group(2)] if m else other
            key = m.group(1) if m else r
            into[key] = into.get(key, 0) + 1
    words = {"changed": "the code changed in", "now runs": "they now also run", "no longer runs": "they no longer run"}
    lines = []
    for kind, counter in kinds.items():
        if counter:
            names = sorted(counter, key=lambda n: -counter[n])
            shown = ", ".join(names[:top]) + (f" and {len(names) - top} more" if len(names) > top else "")
            lines.append(f"{words[kind]} {len(names)} module{'s' if len(names) > 1 else ''}: {shown}")
    ranked = sorted(other.items(), key=lambda kv: -kv[1])
    lines += [f"{reason} ({k} record{'s' if k != 1 else ''})" for reason, k in ranked[:top]]
    if len(ranked) > top:
        lines.append(
            f"… and {len(ranked) - top} more reasons: `{command('results --mode full --all')}` lists them per record."
        )
    return lines


def freshness_lines(freshness: Any, top: int = 6) -> list[str]:
    """What the freshness box says of a page's records (:class:`cffair.workflows.Freshness`): one
    line when all are fresh; else how many are not and why, one reason a line."""
    n = len(freshness.status)
    if freshness.fresh:
        return [
            f"All {n} records behind this page are fresh: today's code, data and packages would give the same numbers."
        ]
    c = freshness.counts
    head = (
        f"{n - c.get('fresh', 0)} of {n} records behind this page are not what today's code would give "
        f"({', '.join(f'{v} {k}' for k, v in sorted(c.items()) if k != 'fresh')}); "
        "the numbers below are the committed ones. Why:"
    )
    out = [head, *stale_reasons(freshness.status, top)]
    missing = int(c.get("missing", 0))
    if missing:
        out.append(f"{missing} record{'s are' if missing != 1 else ' is'} missing.")
    return out


def freshness_box(freshness: Any, top: int = 6) -> HTMLBlock:
    """The box under a chapter's loading cell: a tip when every record behind the page is fresh, a
    warning when not, its count visible and the reasons folded beneath it (:func:`freshness_lines`;
    a ``<details>``, so that the box stays short on a phone)."""
    lines = [html.escape(x) for x in freshness_lines(freshness, top)]
    kind, title = ("tip", "Results are current") if freshness.fresh else ("warning", "Some results are stale")
    items = "".join(f"<li>{x}</li>" for x in lines[1:])
    n = len(lines) - 1
    return HTMLBlock(
        f'<div class="admonition {kind}"><p class="admonition-title">{title}</p><p>{lines[0]}</p>'
        + (f"<details><summary>{n} reason{'s' if n != 1 else ''}</summary><ul>{items}</ul></details>" if items else "")
        + "</div>"
    )
