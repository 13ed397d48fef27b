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
from cffair_book.wording import say


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
    lines = []
    for kind, counter in kinds.items():
        if counter:
            names = sorted(counter, key=lambda n: -counter[n])
            shown = ", ".join(names[:top])
            if len(names) > top:
                shown = say("freshness.more_names", names=shown, count=len(names) - top)
            module = say("freshness.module", "many" if len(names) > 1 else "one")
            lines.append(say("freshness.modules", kind, count=len(names), modules=module, names=shown))
    ranked = sorted(other.items(), key=lambda kv: -kv[1])
    lines += [
        say("freshness.reason", "one" if k == 1 else "many", reason=reason, count=k) for reason, k in ranked[:top]
    ]
    if len(ranked) > top:
        lines.append(
            say("freshness.more_reasons", count=len(ranked) - top, command=command("results --mode full --all"))
        )
    return lines


def freshness_lines(freshness: Any, top: int = 6) -> list[str]:
    """What the freshness box says of a page's records (:class:`cffair.workflows.Freshness`): one
    line when all are fresh; else how many are not and why, one reason a line."""
    n = len(freshness.status)
    if freshness.fresh:
        return [say("freshness.all_fresh", count=n)]
    c = freshness.counts
    head = say(
        "freshness.stale",
        stale=n - c.get("fresh", 0),
        count=n,
        states=", ".join(f"{v} {k}" for k, v in sorted(c.items()) if k != "fresh"),
    )
    out = [head, *stale_reasons(freshness.status, top)]
    missing = int(c.get("missing", 0))
    if missing:
        out.append(say("freshness.missing", "one" if missing == 1 else "many", count=missing))
    return out


def freshness_box(freshness: Any, top: int = 6) -> HTMLBlock:
    """The box under a chapter's loading cell: a tip when every record behind the page is fresh, a
    warning when not, its count visible and the reasons folded beneath it (:func:`freshness_lines`;
    a ``<details>``, so that the box stays short on a phone)."""
    # a command in backticks is code in the box too (the lines are Markdown elsewhere)
    lines = [re.sub(r"`([^`]+)`", r"<code>\1</code>", html.escape(x)) for x in freshness_lines(freshness, top)]
    kind = "tip" if freshness.fresh else "warning"
    title = say("freshness.box_title", "fresh" if freshness.fresh else "stale")
    items = "".join(f"<li>{x}</li>" for x in lines[1:])
    n = len(lines) - 1
    summary = say("freshness.reasons", "one" if n == 1 else "many", count=n)
    return HTMLBlock(
        f'<div class="admonition {kind}"><p class="admonition-title">{title}</p><p>{lines[0]}</p>'
        + (f"<details><summary>{summary}</summary><ul>{items}</ul></details>" if items else "")
        + "</div>"
    )
