"""What the book's pages put around their results: the tally of a chapter's "Verdict" box, the
measured times of its "Regenerate" box, and the provenance badge of the Reproducing page.

The regeneration times come from ``benchmarks/results/regenerate.json``
(``benchmarks/bench_regenerate.py``): quick mode measured cold for each question group, full
mode estimated from the committed run's per-record timings.
"""

from __future__ import annotations

import html
import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import pandas as pd

from cffair.errors import DataError

__all__ = [
    "CHAPTERS",
    "REGENERATE_FILE",
    "ProvenanceBadge",
    "provenance_badge",
    "regenerate_facts",
    "regenerate_frame",
    "verdict_line",
]

#: Where ``benchmarks/bench_regenerate.py`` writes the measured regeneration times.
REGENERATE_FILE = Path(__file__).resolve().parents[1] / "benchmarks" / "results" / "regenerate.json"

#: The chapter of each question group: its page (under ``notebooks/``), its title, and the
#: paper's tables and figures it regenerates.
CHAPTERS: dict[str, tuple[str, str, str]] = {
    "q1": ("q1_counterfactual_fairness", "Q1: counterfactual fairness", "Table 1 (LTN columns), Figures 3–5"),
    "q2": ("q2_baselines", "Q2: baselines", "Table 1"),
    "q3": ("q3_knowledge_extraction", "Q3: knowledge extraction", "Tables 2 and 3, Figure 4"),
    "q4": ("q4_queries", "Q4: queries", "Table 4"),
    "appendix_a": ("appendix_a_other_counterfactuals", "Appendix A: other counterfactuals", "Table 5"),
    "appendix_b": ("appendix_b_axiom_weights", "Appendix B: axiom weights", "Table 6"),
    "appendix_c": ("appendix_c_rulers", "Appendix C: three rulers", "Table 1 on three rulers (ours, not the paper's)"),
}

_UNMEASURED = "not measured yet"


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
        v = getattr(c, "verdict", "") or {True: "holds", False: "does not hold"}.get(getattr(c, "holds", None), "pending")
        if v not in _VERDICT_WORDS:
            raise DataError(f"unknown verdict {v!r}; verdicts are {list(_VERDICT_WORDS)}.")
        verdicts.append(v)
    if not verdicts:
        raise DataError(f"no claims to tally for {what}.")
    parts = [f"{n} {_VERDICT_WORDS[v][n != 1]}" for v in _VERDICT_WORDS if (n := verdicts.count(v))]
    body = parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]
    noun = "claim" if len(verdicts) == 1 else "claims"
    return f"Of the paper's {len(verdicts)} {what} {noun}, {body}."


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


def regenerate_facts(group: str, path: str | Path | None = None, *, missing_ok: bool = True) -> dict[str, str]:
    """The time to regenerate one question group, as text for a chapter's boxes: ``quick``
    (``cffair reproduce --only group --mode quick``, measured cold), ``full`` (the paper's
    protocol, estimated from the committed run's per-record timings), ``records``, ``measured``
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
    return {"quick": _duration(float(g["quick"]["wall_seconds"])),
            "quick_cpu": _duration(float(cpu)) if cpu is not None else "not recorded",
            "full": _duration(float(g["full"]["estimate_seconds"])),
            "records": str(int(g["full"]["records"])), "measured": str(data.get("finished", ""))[:10],
            "load": f"{max(load):.1f}" if load else "not recorded", "commit": str(data.get("commit", ""))[:10]}


def regenerate_frame(path: str | Path | None = None, *, base: str = "../notebooks/") -> pd.DataFrame:
    """One row per chapter: its page (a Markdown link relative to ``base``), the paper's tables and
    figures it holds, the command that regenerates it, its quick run's CPU time and wall-clock
    time (with the load average it was measured under), and its full time
    (:func:`regenerate_facts`; "not measured yet" where missing)."""
    rows = []
    for group, (stem, title, holds) in CHAPTERS.items():
        facts = regenerate_facts(group, path)
        wall = facts["quick"] if facts["load"] in (_UNMEASURED, "not recorded") else f"{facts['quick']} (load {facts['load']})"
        rows.append({"chapter": f"[{title}]({base}{stem}.md)", "the paper's": holds,
                     "command": f"`cffair reproduce --only {group} --mode quick`", "quick: CPU time": facts["quick_cpu"],
                     "quick: wall-clock": wall, "full (`--mode full`)": facts["full"]})
    return pd.DataFrame(rows)


class ProvenanceBadge:
    """A small badge naming where a page's numbers come from; shown as HTML in a notebook."""

    def __init__(self, label: str, text: str, complete: bool) -> None:
        self.label, self.text, self.complete = label, text, complete

    def _repr_html_(self) -> str:
        colour = "#027a56" if self.complete else "#b35900"
        return ('<p><span class="cffair-badge" style="display: inline-flex; border-radius: 4px; overflow: hidden; '
                'font-size: 0.85em; line-height: 1.6;">'
                f'<span style="background: #4a4a4a; color: #fff; padding: 0 0.5em;">{html.escape(self.label)}</span>'
                f'<span style="background: {colour}; color: #fff; padding: 0 0.5em;">{html.escape(self.text)}</span>'
                "</span></p>")

    def __str__(self) -> str:
        return f"{self.label}: {self.text}"


def provenance_badge(provenance: Mapping[str, Any], *, records: int, wanted: int, label: str = "results/full") -> ProvenanceBadge:
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
