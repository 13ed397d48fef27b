"""What the book's pages put around their results: the box that says whether a chapter's records
are fresh, the tally of its "Verdict" box, the measured times of its "Regenerate" box, and the
provenance badge of the Reproducing page.

The regeneration times come from ``benchmarks/results/regenerate.json``
(``benchmarks/bench_regenerate.py``): quick mode measured cold for each question group, full
mode estimated from the committed run's per-record timings.
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from cffair.errors import DataError
from cffair.experiments import _registry as registry
from cffair_book import chapters
from cffair_book.commands import CLI, command
from cffair_book.freshness import freshness_box, freshness_lines, stale_reasons
from cffair_book.html_block import HTMLBlock
from cffair_book.layout import BENCHMARK_RESULTS
from cffair_book.results import results_for
from cffair_book.wording import joined, say

__all__ = [
    "CHAPTERS",
    "CLI",
    "chapters_and_whole_run",
    "run_counts",
    "command",
    "REGENERATE_FILE",
    "ProvenanceBadge",
    "provenance_badge",
    "regenerate_facts",
    "regenerate_frame",
    "regenerate_table",
    "timing_text",
    "claim_verdict_sentence",
    "HTMLBlock",
    "claims_list",
    "folded_warning",
    "freshness_box",
    "freshness_lines",
    "headline_claims",
    "results_box",
    "stale_reasons",
    "verdict_keys",
    "verdict_line",
]

#: Where ``benchmarks/bench_regenerate.py`` writes the measured regeneration times.
REGENERATE_FILE = BENCHMARK_RESULTS / "regenerate.json"

#: The chapter of each question group that holds a table or figure of the paper: its page (under
#: ``notebooks/``), its title, and the paper's tables and figures it regenerates (the chapter registry's).
CHAPTERS: Mapping[str, tuple[str, str, str]] = registry.View(
    lambda: {g: (c.notebook, c.title, c.regenerates) for g, c in chapters.chapters(regenerates=True).items()}
)

_UNMEASURED = "not measured yet"

FULL_RUN_FILE = REGENERATE_FILE.parent / "full_run.json"


def folded_warning(text: str) -> str:
    """A warning as HTML: its kind and first clause visible, the whole of it folded beneath (a
    warning that lists many columns would otherwise fill a phone's screen).

    >>> folded_warning("UserWarning: 3 columns unchanged: a, b, c").split("</summary>")[0]
    '<details><summary><code>UserWarning</code>: 3 columns unchanged (open the whole warning)'
    """
    kind, _, rest = text.partition(": ")
    head = rest.split(": ", 1)[0]
    return (
        f"<details><summary><code>{html.escape(kind)}</code>: {html.escape(head)} (open the whole warning)</summary>"
        f'<pre class="cffair-warning">{html.escape(text)}</pre></details>'
    )


#: The order of the verdicts in a tally, and how each reads after a number ("2 hold here").
_VERDICT_WORDS: dict[str, tuple[str, str]] = {
    "holds": ("holds here", "hold here"),
    "does not hold": ("does not hold", "do not hold"),
    "inconclusive": ("is inconclusive", "are inconclusive"),
    "vacuous": ("is vacuous", "are vacuous"),
    "by construction": ("holds by construction", "hold by construction"),
    "pending": ("is pending", "are pending"),
}


def verdict_line(claims: Iterable[Any], what: str) -> str:
    """One sentence tallying claims by verdict, e.g. "Of the paper's 6 Q1 claims, 3 hold here,
    1 does not hold and 2 are inconclusive."

    Each claim is read by its ``verdict`` (holds, does not hold, inconclusive, vacuous, by
    construction, pending), or, without one, by ``holds`` (True, False, None for pending).

    Raises:
        DataError: if there are no claims, or a claim has a verdict this tally does not know.
    """
    verdicts = []
    for c in claims:
        v = _verdict_of(c)
        verdicts.append(v)
    if not verdicts:
        raise DataError(f"no claims to tally for {what}.")
    parts = [f"{n} {_VERDICT_WORDS[v][n != 1]}" for v in _VERDICT_WORDS if (n := verdicts.count(v))]
    body = parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]
    noun = "claim" if len(verdicts) == 1 else "claims"
    return f"Of the paper's {len(verdicts)} {what} {noun}, {body}."


def verdict_keys(claims: Iterable[Any], verdict: str) -> str:
    """The keys of the claims with ``verdict``, as prose ("Q1.5, Q2.1 and A.1"; "none").

    >>> from types import SimpleNamespace as C
    >>> verdict_keys([C(key="Q1.1", verdict="holds"), C(key="Q2.1", verdict="holds"), C(key="A.1", verdict="vacuous")], "holds")
    'Q1.1 and Q2.1'
    >>> verdict_keys([C(key="Q1.1", verdict="holds")], "does not hold")
    'none'
    """
    found = [c.key for c in claims if c.verdict == verdict]
    return joined(found) if found else "none"


def _duration(seconds: float) -> str:
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 90 * 60:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


def _load(path: str | Path | None, group: str, missing_ok: bool) -> dict[str, Any] | None:
    file = Path(path) if path is not None else REGENERATE_FILE
    hint = f"run `python benchmarks/bench_regenerate.py --groups {group}`"
    try:
        data = json.loads(file.read_text(encoding="utf-8"))
    except FileNotFoundError:
        if missing_ok:
            return None
        raise DataError(f"{file} does not exist; {hint}.") from None
    except json.JSONDecodeError as exc:
        raise DataError(f"{file} is not valid JSON (line {exc.lineno}, column {exc.colno}); {hint}.") from None
    if group not in data.get("groups", {}):
        if missing_ok:
            return None
        raise DataError(f"{file} has no measurement for {group!r} (it has {sorted(data.get('groups', {}))}); {hint}.")
    return data


def _records_held(group: str) -> int:
    """How many records of ``group``'s grid the committed store holds (the one source of a chapter's count)."""
    return len(results_for("render", [group], missing_ok=True))


def regenerate_facts(group: str, path: str | Path | None = None, *, missing_ok: bool = True) -> dict[str, str]:
    """The time to regenerate one question group, as text for a chapter's boxes: ``quick``
    (``.venv/bin/cffair reproduce --only group --mode quick``, measured cold), ``full`` (the paper's
    protocol, estimated from the committed run's per-record timings), ``records`` (how many of the
    group's records the committed store holds: the store is the one source of every count), ``measured``
    (the date), ``quick_cpu`` (the CPU seconds of the quick run's processes), ``load`` (the
    machine's 1-minute load average during the quick run: other work on the same cores
    stretches the wall-clock time, not the CPU seconds) and ``commit``.

    Args:
        missing_ok: without a measurement of ``group`` (no file, or the group not in it), say
            "not measured yet" in every field instead of raising.

    Raises:
        DataError: if the file is not valid JSON, or (``missing_ok=False``) is missing or lacks the group.
    """
    data = _load(path, group, missing_ok)
    if data is None:
        return dict.fromkeys(("quick", "quick_cpu", "full", "records", "measured", "load", "commit"), _UNMEASURED)
    g = data["groups"][group]
    load = g["quick"].get("load_average")
    cpu = g["quick"].get("cpu_seconds")
    return {
        "quick": _duration(float(g["quick"]["wall_seconds"])),
        "quick_cpu": _duration(float(cpu)) if cpu is not None else "not recorded",
        "full": _duration(float(g["full"]["estimate_seconds"])),
        "records": str(_records_held(group)),
        "measured": str(data.get("finished", ""))[:10],
        "load": f"{max(load):.1f}" if load else "not recorded",
        "commit": str(data.get("commit", ""))[:10],
    }


def regenerate_frame(path: str | Path | None = None, *, base: str = "../notebooks/") -> pd.DataFrame:
    """One row per chapter: its page (a Markdown link relative to ``base``), the paper's tables and
    figures it holds, the command that regenerates it, its quick run's CPU time and wall-clock
    time (with the load average it was measured under), and its full time
    (:func:`regenerate_facts`; "not measured yet" where missing)."""
    rows = []
    for group, (stem, title, holds) in CHAPTERS.items():
        facts = regenerate_facts(group, path)
        wall = (
            facts["quick"]
            if facts["load"] in (_UNMEASURED, "not recorded")
            else f"{facts['quick']} (load {facts['load']})"
        )
        rows.append(
            {
                "chapter": f"[{title}]({base}{stem}.md)",
                "the paper's": holds,
                "command": f"`{command(f'reproduce --only {group} --mode quick')}`",
                "quick: CPU time": facts["quick_cpu"],
                "quick: wall-clock": wall,
                "full (`--mode full`)": facts["full"],
            }
        )
    return pd.DataFrame(rows)


class ProvenanceBadge:
    """A small badge naming where a page's numbers come from; shown as HTML in a notebook."""

    def __init__(self, label: str, text: str, complete: bool) -> None:
        self.label, self.text, self.complete = label, text, complete

    def _repr_html_(self) -> str:
        state = "complete" if self.complete else "partial"
        return (
            f'<p><span class="cffair-badge cffair-badge-{state}">'
            f'<span class="cffair-badge-label">{html.escape(self.label)}</span>'
            f'<span class="cffair-badge-text">{html.escape(self.text)}</span>'
            "</span></p>"
        )

    def __str__(self) -> str:
        return f"{self.label}: {self.text}"


def provenance_badge(
    provenance: Mapping[str, Any], *, records: int, wanted: int, label: str = "results/full"
) -> ProvenanceBadge:
    """The badge of a committed run: its commit, finishing date, machine and completeness
    (``records`` of ``wanted``), green when complete and orange otherwise.

    Raises:
        DataError: if the provenance lacks its commit.
    """
    commit = str(provenance.get("commit") or "")
    if not commit:
        raise DataError("the provenance has no commit; it was not written by `cffair reproduce`.")
    cpus = provenance.get("machine", {}).get("cpus")
    parts = [f"commit {commit[:7]}", str(provenance.get("finished", ""))[:10], f"{records} of {wanted} records"]
    if cpus:
        parts.append(f"{cpus} CPUs")
    return ProvenanceBadge(label, " · ".join(p for p in parts if p), complete=records >= wanted)


def _full_run_seconds(group: str, path: str | Path | None = None) -> tuple[float, int, dict[str, Any]] | None:
    """The committed full run's core-seconds for ``group``'s records, its CPU count and the run's
    header (``benchmarks/results/full_run.json``), or None where it has none."""
    file = Path(path) if path is not None else FULL_RUN_FILE
    try:
        data = json.loads(file.read_text(encoding="utf-8"))
    except (FileNotFoundError, json.JSONDecodeError):
        return None
    seconds = data.get("group_seconds", {}).get(group)
    if seconds is None:
        return None
    return float(seconds), int(data.get("machine", {}).get("cpus") or 1), data


def timing_text(group: str, path: str | Path | None = None, full_run: str | Path | None = None) -> dict[str, str]:
    """The time to regenerate one question group as words chosen by what was measured, for a
    chapter's boxes: ``quick`` and ``full`` (a duration, or "no measurement yet"),
    ``time_to_run`` (one sentence for the chapter's opening box) and ``timing`` (how the times
    were obtained, for its Regenerate box).

    The quick time comes from ``benchmarks/results/regenerate.json``; the full time from there
    too, or, for a group it does not have, from the committed full run's core-seconds for the
    group's records (``benchmarks/results/full_run.json``) spread over that run's cores.
    """
    data = _load(path, group, missing_ok=True)
    measured = data["groups"][group] if data is not None else None
    hint = say("pages.timing_hint")
    if measured is not None:
        facts = regenerate_facts(group, path)
        cpu_known = facts["quick_cpu"] != "not recorded"
        return {
            "quick": facts["quick"],
            "full": say("pages.about", duration=facts["full"]),
            "time_to_run": say(
                "pages.time_to_run",
                "cpu" if cpu_known else "wall",
                cpu=facts["quick_cpu"],
                quick=facts["quick"],
                full=facts["full"],
            ),
            "timing": say(
                "pages.timing",
                "measured",
                date=facts["measured"],
                load=say("pages.measured_load", load=facts["load"]) if facts["load"] != "not recorded" else "",
                cpu=say("pages.measured_cpu", cpu=facts["quick_cpu"]) if cpu_known else "",
                records=facts["records"],
            ),
        }
    full = _full_run_seconds(group, full_run)
    if full is None:
        return {
            "quick": say("pages.unmeasured"),
            "full": say("pages.unmeasured"),
            "time_to_run": say("pages.time_to_run", "none", hint=hint),
            "timing": say("pages.timing", "none", hint=hint),
        }
    seconds, cpus, run = full
    wall = _duration(seconds / cpus)
    return {
        "quick": say("pages.unmeasured"),
        "full": say("pages.about", duration=wall),
        "time_to_run": say("pages.time_to_run", "full_only", full=wall, cpus=cpus),
        "timing": say(
            "pages.timing",
            "full_only",
            seconds=seconds,
            commit=str(run.get("commit", ""))[:7],
            date=str(run.get("finished", ""))[:10],
            cpus=cpus,
        ),
    }


def _full_seconds(group: str, path: str | Path | None, full_run: str | Path | None) -> float | None:
    """The full-mode seconds of one chapter as :func:`timing_text` words them (None: not measured)."""
    data = _load(path, group, missing_ok=True)
    if data is not None:
        return float(data["groups"][group]["full"]["estimate_seconds"])
    full = _full_run_seconds(group, full_run)
    return full[0] / full[1] if full is not None else None


def chapters_and_whole_run(path: str | Path | None = None, full_run: str | Path | None = None) -> str:
    """One sentence on why the chapters' full times add up to more than the whole run's (they share
    records: Q1's settings are also the records of Q2, Q3, Q4 and appendix B, and a chapter
    regenerated alone computes them again, the whole run once), from the same files as the
    chapters' times and the Benchmarks page's whole run; "" where either is missing."""
    seconds = [_full_seconds(g, path, full_run) for g in CHAPTERS]
    file = Path(full_run) if full_run is not None else FULL_RUN_FILE
    try:
        whole = float(json.loads(file.read_text(encoding="utf-8"))["wall_seconds"])
    except (FileNotFoundError, json.JSONDecodeError, KeyError, TypeError):
        return ""
    known = [s for s in seconds if s is not None]
    if not known:
        return ""
    branch = "some" if len(known) < len(seconds) else "all"
    return say("pages.whole_run", branch, chapters=sum(known) / 60, whole=whole / 60)


def regenerate_table(
    path: str | Path | None = None, *, base: str = "../notebooks/", full_run: str | Path | None = None
):
    """:func:`regenerate_frame` as an HTML table for a page: each chapter linked to its built page
    (``base`` + page + ``.html``), the command as code, and "—" where a time was not measured,
    with a last row saying which chapters lack a measurement and why (chosen by the data).

    Returns:
        a :class:`cffair.reporting.HTMLTable`.
    """
    from cffair.reporting import format_table

    rows, unmeasured = [], []
    for group, (stem, title, holds) in CHAPTERS.items():
        facts = regenerate_facts(group, path)
        timing = timing_text(group, path, full_run)
        if facts["quick"] == _UNMEASURED:
            unmeasured.append(title.split(":")[0])
        wall = (
            facts["quick"]
            if facts["load"] in (_UNMEASURED, "not recorded")
            else f"{facts['quick']} (load {facts['load']})"
        )
        dash = lambda v: "—" if v in (_UNMEASURED, "not recorded", say("pages.unmeasured")) else html.escape(v)  # noqa: E731
        rows.append(
            {
                "chapter": f'<a href="{html.escape(base + stem)}.html">{html.escape(title)}</a>',
                "the paper's": html.escape(holds),
                "command": f"<code>{command(f'reproduce --only {group} --mode quick')}</code>",
                "quick: CPU time": dash(facts["quick_cpu"]),
                "quick: wall-clock": dash(wall),
                "full (<code>--mode full</code>)": dash(timing["full"].removeprefix(say("pages.about", duration=""))),
            }
        )
    frame = pd.DataFrame(rows)
    total = chapters_and_whole_run(path, full_run)
    if unmeasured:
        verb = say("pages.verb", "one" if len(unmeasured) == 1 else "many")
        note = say("pages.regenerate_note", "unmeasured", names=joined(unmeasured), verb=verb)
    else:
        note = say("pages.regenerate_note", "measured")
    if total:
        note += " " + html.escape(total)
    table = format_table(frame, caption=None, index=False, escape=False)
    return type(table)(table.html + f'\n<p class="cffair-table-note">{note}</p>', table.frame)


def claim_verdict_sentence(claims: Iterable[Any], key: str) -> str:
    """One sentence giving claim ``key``'s verdict, worded by the verdict ("In the verdict at the
    end of this page, claim B.1 holds here."), for a section that looks into the claim.

    Raises:
        DataError: if no claim has that key, or its verdict is unknown.
    """
    for c in claims:
        if getattr(c, "key", None) == key:
            v = _verdict_of(c)
            return f"In the verdict at the end of this page, claim {key} {_VERDICT_WORDS[v][0]}."
    raise DataError(f"no claim {key!r} among {[getattr(c, 'key', None) for c in claims]}.")


#: The CSS class of each verdict's cell in :func:`claims_list` (styled in ``_static/cffair.css``).
_VERDICT_CLASS = {
    "holds": "cffair-holds",
    "does not hold": "cffair-fails",
    "inconclusive": "cffair-inconclusive",
    "vacuous": "cffair-vacuous",
    "by construction": "cffair-by-construction",
    "pending": "cffair-pending",
}


#: The verdict of a claim without one, by its ``holds`` (anything else: pending).
_HOLDS_WORDS: dict[bool | None, str] = {True: "holds", False: "does not hold"}


def _verdict_of(c: Any) -> str:
    """Claim ``c``'s verdict: its ``verdict``, or, without one, its ``holds`` worded (True, False, None for pending).

    Raises:
        DataError: if the verdict is not one of ``_VERDICT_WORDS``.
    """
    v = getattr(c, "verdict", "") or _HOLDS_WORDS.get(getattr(c, "holds", None), "pending")
    if v not in _VERDICT_WORDS:
        raise DataError(f"unknown verdict {v!r}; verdicts are {list(_VERDICT_WORDS)}.")
    return v


def _where(c: Any) -> tuple[str, str]:
    where = getattr(c, "where", "")
    return (where[0], where[1]) if isinstance(where, tuple) else (str(where), "")


def headline_claims(claims: Iterable[Any]) -> list[Any]:
    """The headline claim of each research question: the first claim (``Q1.1``, ``Q2.1``, …) of
    each question of the paper's main text (keys starting with ``Q``)."""
    return [c for c in claims if re.fullmatch(r"Q\d+\.1", getattr(c, "key", "") or "")]


def _reason(note: str, limit: int = 140) -> str:
    """The note's first statement (up to its first ";" or ". "), shortened to ``limit`` characters."""
    first = re.split(r"; |\. ", note.strip(), maxsplit=1)[0].rstrip(".")
    return first if len(first) <= limit else first[: limit - 1].rsplit(" ", 1)[0] + " …"


def results_box(
    claims: Sequence[Any], *, claims_page: str, title: str = "The results at a glance", basis: str = ""
) -> HTMLBlock:
    """The front page's results box, worded by the verdicts: the tally, the headline claims that
    hold, one line for each headline claim that does not (the comparisons that went against a
    claim that does not hold, else the first numbers of its note), what the verdicts were checked
    on (``basis``, e.g. :func:`cffair_book.basis.folds_phrase`'s words; left out when empty), and a
    link to the full table (``claims_page``, an href relative to the page).

    Raises:
        DataError: if there are no claims or one has an unknown verdict.
    """
    claims = list(claims)
    esc = html.escape
    lines = [f"<strong>{esc(verdict_line(claims, 'qualitative'))}</strong>"]
    heads = headline_claims(claims)
    held = [c for c in heads if _verdict_of(c) == "holds"]
    other = [c for c in heads if _verdict_of(c) != "holds"]

    def link(c: Any) -> str:
        text, href = _where(c)
        return f'<a href="{esc(href, quote=True)}">{esc(c.key)}</a>' if href else esc(c.key)

    if heads:
        n = len(heads)
        which = ("none" if not held else "all" if not other else "some") + ("_one" if n == 1 else "_many")
        if which == "some_many" and len(held) == 1:
            which = "some_one"
        lines.append(say("pages.headline", which, count=n, claims=joined([link(c) for c in held]) if held else ""))
        for c in other:
            against = list(getattr(c, "against", ()) or ())
            if _verdict_of(c) == "does not hold" and against:
                reason = say("pages.against", against=esc(joined(against)))
            else:
                reason = say("pages.ours", reason=esc(_reason(c.note))) if c.note else ""
            lines.append(
                say(
                    "pages.headline_claim",
                    link=link(c),
                    verdict=esc(_VERDICT_WORDS[_verdict_of(c)][0]),
                    claim=esc(c.claim.rstrip(".")),
                    reason=reason,
                )
            )
    if basis:
        lines.append(say("pages.basis", basis=esc(basis)))
    lines.append(say("pages.claims_link", href=esc(claims_page, quote=True)))
    items = "\n".join(f"  <li>{line}</li>" for line in lines)
    return HTMLBlock(
        f'<div class="admonition important chapter-box cffair-results">\n<p class="admonition-title">{esc(title)}</p>\n'
        f"<ul>\n{items}\n</ul>\n</div>"
    )


def claims_list(claims: Iterable[Any]) -> Any:
    """Every claim on one line of an HTML table (key, verdict, claim, evidence link), with the
    note folded beneath the claim (``<details>``); the layout stacks each row at phone width
    (``table.cffair-claims-list`` in ``_static/cffair.css``).

    Returns:
        a :class:`cffair.reporting.HTMLTable`.
    """
    from cffair.reporting import HTMLTable
    from cffair_book.registry import claim_status

    rows, frame = [], []
    for c in claims:
        v = _verdict_of(c)
        text, href = _where(c)
        evidence = f'<a href="{html.escape(href, quote=True)}">{html.escape(text)}</a>' if href else html.escape(text)
        source = getattr(c, "source", "")
        note = (
            (
                f"<details><summary>numbers{' (paper: ' + html.escape(source) + ')' if source else ''}</summary>"
                f"{html.escape(c.note)}</details>"
            )
            if c.note
            else ""
        )
        rows.append(
            f'  <tr><td class="cffair-key">{html.escape(c.key)}</td>'
            f'<td class="{_VERDICT_CLASS[v]} cffair-verdict">{html.escape(claim_status(v))}</td>'
            f'<td class="cffair-claim">{html.escape(c.claim)}{note}</td><td class="cffair-evidence">{evidence}</td></tr>'
        )
        frame.append({"key": c.key, "verdict": v, "claim": c.claim, "evidence": text})
    table = (
        '<table class="cffair-table cffair-claims-list table">\n'
        "  <thead><tr><th>#</th><th>status</th><th>claim</th><th>evidence</th></tr></thead>\n  <tbody>\n"
        + "\n".join(rows)
        + "\n  </tbody>\n</table>"
    )
    return HTMLTable(table, pd.DataFrame(frame))


# ============================================================================ the freshness box
def run_counts(full_run: str | Path | None = None) -> dict[str, int]:
    """How many records the committed full run holds, as every page counts them: ``paper`` (the
    part that runs the paper's chapters with their investigations and repetitions), ``rest``
    (appendix C's studies and the chapter beyond the paper) and ``total``, from
    ``benchmarks/results/full_run.json`` (its parts' grids; for a run in parts by dataset, its
    ``paper_chapters``: the store's records of those chapters). The README and the pages state these;
    ``tests/book/test_pages_counts.py`` holds them, and this function, to the results store.

    Raises:
        DataError: if the file is missing or has no parts.
    """
    file = Path(full_run) if full_run is not None else FULL_RUN_FILE
    try:
        data = json.loads(file.read_text(encoding="utf-8"))
    except (FileNotFoundError, json.JSONDecodeError) as exc:
        raise DataError(f"{file} cannot be read ({exc}); run benchmarks/bench_full_run.py.") from None
    parts = (data.get("parts") or {}).get("parts") or []
    paper_groups = set(((data.get("parts") or {}).get("paper_part") or {}).get("groups") or ())
    paper = max(
        (int(p.get("records_in_grid") or 0) for p in parts if set(p.get("groups") or ()) == paper_groups), default=0
    )
    if not paper_groups:  # a run in parts by dataset: the paper's chapters counted in the store by the benchmark
        paper = int((data.get("paper_chapters") or {}).get("records") or 0)
    if not paper:
        raise DataError(f"{file} has no part that ran the paper's chapters; run benchmarks/bench_full_run.py.")
    total = int(data["records"])
    return {"paper": paper, "rest": total - paper, "total": total}
