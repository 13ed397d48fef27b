"""The claims table: a claim and its verdict, the table that lists claims, the tally, the registry of
the claim checks, and the robustness table.

A claim check (registered with :func:`claim_check`, the checks themselves are in :mod:`.claims`)
reads the :class:`~cffair.reporting.Evidence` and returns ``(verdict, note)`` or
``(verdict, note, basis)``: a verdict of :mod:`.verdicts`, the numbers behind it, and what it rests
on (:class:`~cffair.reporting._verdicts.Basis`: the test and the paired folds). Each check is
registered with the rule that decides its verdict; the table shows the rule, the test and the
paired folds beside the verdict. :func:`evaluate_claims` runs every registered check by the rules
in force (:class:`~cffair.reporting.Rules`); :func:`robustness_frame` runs them by
several (the plain and the corrected t-test, with and without COMPAS(age)) and in other worlds (the
flip rate and the calibrated CF-MSE in CF-MSE's place, the sound twins).
"""

from __future__ import annotations

import html
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import pandas as pd

from cffair.errors import DataError
from cffair.reporting._records import as_records
from cffair.reporting._tables import CAPTION_CLASS, HTMLTable, mark_numbers
from cffair.reporting._verdicts import (
    BY_CONSTRUCTION,
    FAILS,
    HOLDS,
    INCONCLUSIVE,
    PENDING,
    VACUOUS,
    VERDICTS,
    Basis,
    Evidence,
    Rules,
    current_rules,
    rules,
)
from cffair_book import claims_cache
from cffair_book.chapters import NOTEBOOK_PAGES
from cffair_book.claims_cache import Outcome
from cffair_book.wording import claim_entry, verdict_rule

if TYPE_CHECKING:  # reading records loads no store (a Record comes from as_records)
    from cffair.experiments import Record

__all__ = [
    "CLAIM_CHECKS",
    "ROBUSTNESS_RULES",
    "RobustnessColumn",
    "Claim",
    "ClaimCheck",
    "ClaimsTally",
    "claim_check",
    "claim_status",
    "claims_table",
    "claims_tally",
    "evaluate_claims",
    "robustness_frame",
    "robustness_table",
]


# ---------------------------------------------------------------------------- claims and their table
_FROM_HOLDS = {True: HOLDS, False: FAILS, None: PENDING}


@dataclass(frozen=True)
class Claim:
    """One claim of the paper and our verdict on it.

    Attributes:
        claim: the claim in one sentence.
        where: where the book shows the evidence: plain text, or ``(text, href)`` for a link
            (relative to the page the table is shown on).
        holds: ``True`` (holds), ``False`` (does not hold), ``None`` (any other verdict, or
            not decided yet); kept for callers that only ask yes or no.
        note: numbers or caveats.
        key: a short label (``"Q1.2"``) shown in the first column instead of the running number.
        source: where the paper makes the claim (``"Table 1"``, ``"§7.3"``); a column of its
            own when any claim has one.
        verdict: one of :data:`~cffair.reporting.VERDICTS` or ``"pending"``; derived
            from ``holds`` when not given.
        rule: the rule that decides the verdict (the claim's registered rule).
        test: what the verdict rests on: the test and its correction (``"corrected t-test, Holm
            over 3"``), or ``"count over runs"``, ``"exact Spearman"`` …
        folds: the paired folds each comparison uses (``"5 per comparison"``, ``"15 (3 × 5) on
            COMPAS; 5 on Adult"``), or the runs / points the verdict reads.
        against: the comparisons that went against the claim (``"CNF on Adult"``), from its test.
        supports: the comparisons that went the claimed way, from its test.
    """

    claim: str
    where: str | tuple[str, str] = ""
    holds: bool | None = None
    note: str = ""
    key: str = ""
    source: str = ""
    verdict: str = ""
    rule: str = ""
    test: str = ""
    folds: str = ""
    against: tuple[str, ...] = ()
    supports: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if not self.verdict and self.holds in _FROM_HOLDS:
            object.__setattr__(self, "verdict", _FROM_HOLDS[self.holds])
        elif self.verdict and self.holds is None:
            object.__setattr__(self, "holds", {HOLDS: True, FAILS: False}.get(self.verdict))


_STATUS = {
    HOLDS: ("✔ holds", "cffair-holds"),
    FAILS: ("✘ does not hold", "cffair-fails"),
    INCONCLUSIVE: ("≈ inconclusive", "cffair-inconclusive"),
    VACUOUS: ("∅ vacuous", "cffair-vacuous"),
    BY_CONSTRUCTION: ("⊢ by construction", "cffair-by-construction"),
    PENDING: ("pending", "cffair-pending"),
}


def claim_status(verdict: bool | str | None) -> str:
    """The status shown for a verdict: ``"✔ holds"``, ``"✘ does not hold"``, ``"≈ inconclusive"``,
    ``"∅ vacuous"``, ``"⊢ by construction"`` or ``"pending"`` (``True``/``False``/``None`` mean
    holds / does not hold / pending)."""
    key = verdict if isinstance(verdict, str) else _FROM_HOLDS[verdict]
    return _STATUS[key][0]


def _claims(claims: Iterable[Claim | Mapping[str, Any]]) -> list[Claim]:
    out = [c if isinstance(c, Claim) else Claim(**dict(c)) for c in claims]
    for i, c in enumerate(out, start=1):
        if c.verdict not in _STATUS:
            raise DataError(
                f"claim {i} has holds={c.holds!r}, verdict={c.verdict!r}; use True, False or None (not decided), "
                f"or a verdict: {', '.join(VERDICTS)}."
            )
    return out


def claims_table(
    claims: Iterable[Claim | Mapping[str, Any]], caption: str | None = None, *, rule: bool = True
) -> HTMLTable:
    """Render claims as an HTML table, one line per claim: key, status, claim, where shown.

    Each claim is a :class:`Claim` or a mapping with its fields (``claim``, ``where``,
    ``holds`` or ``verdict``, ``note``, ``rule``, ``test``, ``folds``). ``where`` given as
    ``(text, href)`` becomes a link. What the verdict rests on is folded beneath the claim
    (``<details>``, titled with where the paper makes the claim): its rule, its test and paired
    folds, and its note. The layout is the claims page's (``table.cffair-claims-list``): it fits
    its column at 1280 px and stacks each claim at phone width. ``rule`` adds a last row, also
    folded, stating how the verdicts are decided (:func:`~cffair_book.wording.verdict_rule`). The frame has the
    columns claim, where, status (test and paired folds when any claim has them) and note.
    """
    records = _claims(claims)
    with_basis = any(c.test or c.folds for c in records)
    rows = []
    for i, c in enumerate(records, start=1):
        if isinstance(c.where, tuple):
            text, href = c.where
            where = f'<a href="{html.escape(href, quote=True)}">{html.escape(text)}</a>'
        else:
            where = html.escape(c.where)
        label, css = _STATUS[c.verdict]
        parts = [f"<p><em>Rule:</em> {html.escape(c.rule)}</p>"] if c.rule else []
        if c.test or c.folds:
            parts.append(
                f"<p><em>Test:</em> {html.escape(c.test or '—')}; <em>paired folds:</em> {html.escape(c.folds or '—')}</p>"
            )
        if c.note:
            parts.append(f"<p>{html.escape(c.note)}</p>")
        source = f" (paper: {html.escape(c.source)})" if c.source else ""
        folded = f"<details><summary>numbers{source}</summary>{''.join(parts)}</details>" if parts else ""
        rows.append(
            f'  <tr><td class="cffair-key">{html.escape(c.key) if c.key else i}</td>'
            f'<td class="{css} cffair-verdict">{label}</td>'
            f'<td class="cffair-claim">{html.escape(c.claim)}{folded}</td>'
            f'<td class="cffair-evidence">{where}</td></tr>'
        )
    cap = f'  <caption class="{CAPTION_CLASS}">{html.escape(caption)}</caption>\n' if caption else ""
    foot = (
        '  <tfoot><tr><td colspan="4"><details><summary>How the verdicts are decided</summary>'
        f"{html.escape(verdict_rule())}</details></td></tr></tfoot>\n"
        if rule
        else ""
    )
    table_html = (
        '<table class="cffair-table cffair-claims-list table">\n'
        + cap
        + "  <thead><tr><th>#</th><th>status</th><th>claim</th><th>where shown</th></tr></thead>\n"
        + "  <tbody>\n"
        + "\n".join(rows)
        + "\n  </tbody>\n"
        + foot
        + "</table>"
    )
    frame = pd.DataFrame(
        [
            {
                "claim": c.claim,
                "where": c.where if isinstance(c.where, str) else c.where[0],
                "status": claim_status(c.verdict),
                **({"test": c.test, "paired folds": c.folds} if with_basis else {}),
                "note": c.note,
            }
            for c in records
        ]
    )
    return HTMLTable(table_html, frame)


@dataclass(frozen=True)
class ClaimsTally:
    """How many claims got each verdict (``counts``, in the order of :data:`VERDICTS`, then pending)."""

    counts: dict[str, int]

    @property
    def total(self) -> int:
        return sum(self.counts.values())

    def __str__(self) -> str:
        parts = [f"{n} {v}" for v, n in self.counts.items() if n]
        return f"{self.total} claims: " + ", ".join(parts) + "."

    def _repr_markdown_(self) -> str:
        return "**" + str(self).replace(": ", ":** ", 1)

    def _repr_html_(self) -> str:
        cells = "".join(
            f'<td class="{_STATUS[v][1]} cffair-tally-cell"><strong>{n}</strong> {html.escape(_STATUS[v][0])}</td>'
            for v, n in self.counts.items()
            if n
        )
        return (
            f'<table class="cffair-claims-tally"><tr><td><strong>{self.total} claims</strong></td>{cells}</tr></table>'
        )


def claims_tally(claims: Iterable[Claim | Mapping[str, Any]]) -> ClaimsTally:
    """The number of claims per verdict (shown above the claims table)."""
    counts = Counter(c.verdict for c in _claims(claims))
    return ClaimsTally({v: counts.get(v, 0) for v in (*VERDICTS, PENDING)})


# ---------------------------------------------------------------------------- the registry
#: A claim check: the evidence → ``(verdict, note)`` or ``(verdict, note, basis)`` (a verdict of
#: :mod:`.verdicts`, ``"pending"``, or ``True``/``False``/``None`` for holds / does not hold /
#: pending; ``basis``: the test and the paired folds the verdict rests on).
ClaimCheck = Callable[[Evidence], tuple[Any, ...]]


@dataclass(frozen=True)
class _Registered:
    key: str
    claim: str
    source: str
    page: str  # key of NOTEBOOK_PAGES
    check: ClaimCheck
    rule: str


#: Every claim check, by key, in the order of the book's claims table.
CLAIM_CHECKS: dict[str, _Registered] = {}


def claim_check(
    key: str, claim: str | None = None, source: str | None = None, page: str | None = None, rule: str | None = None
) -> Callable[[ClaimCheck], ClaimCheck]:
    """Register a check of one claim: ``key`` (``"Q1.2"``), the claim's sentence, where the
    paper makes it (``"§7.1, Table 1"``), the notebook that shows the evidence (a key of
    :data:`~cffair_book.chapters.NOTEBOOK_PAGES`: ``"q1"`` … ``"appendix_b"``) and the rule
    that decides its verdict (shown in the claims table; the check decides exactly it).
    What is not given comes from ``claims.yaml`` (:func:`~cffair_book.wording.claim_entry`),
    where the book's claims are written."""
    if claim is None or source is None or page is None:
        stated = claim_entry(key)
        claim, source, page = (claim or stated[0]), (source or stated[1]), (page or stated[2])
        rule = stated[3] if rule is None else rule
    rule = rule or ""
    if page not in NOTEBOOK_PAGES:
        raise ValueError(f"unknown page {page!r} for claim {key}; use one of {sorted(NOTEBOOK_PAGES)}.")

    def register(check: ClaimCheck) -> ClaimCheck:
        if key in CLAIM_CHECKS:
            raise ValueError(f"claim {key} is registered twice ({CLAIM_CHECKS[key].check.__name__}, {check.__name__}).")
        CLAIM_CHECKS[key] = _Registered(key, claim, source, page, check, rule)
        return check

    return register


def evaluate_claims(records: Sequence[Record], base: str = "", rules_: Rules | None = None) -> list[Claim]:
    """Check each qualitative claim of the paper on our records.

    Every claim is decided only on the datasets our records cover; a claim whose records are
    missing entirely stays ``pending``. ``note`` gives the numbers behind the verdict (and,
    when the records hold them, what the claim's investigation found); ``where`` links to the
    page that shows them (``base`` is the path from the page the table is shown on to the
    book's root, e.g. ``""`` for the intro, ``"../"`` for a notebook). ``rules_`` decides by other
    rules (:class:`~cffair.reporting.Rules`: the plain t-test, no Holm, COMPAS(age)
    counted everywhere); default the book's. The same records under the same rules are evaluated
    once (:mod:`.claims_cache`).
    """
    (outcomes,) = _outcomes(as_records(records), [rules_ or current_rules()])
    return [_claim(c, o, base) for c, o in zip(CLAIM_CHECKS.values(), outcomes, strict=True)]


def _claim(c: _Registered, o: Outcome, base: str) -> Claim:
    stem, label = NOTEBOOK_PAGES[c.page]
    return Claim(
        c.claim,
        (label, f"{base}notebooks/{stem}.html"),
        note=o.note,
        key=c.key,
        source=c.source,
        verdict=o.verdict,
        rule=c.rule,
        test=o.test,
        folds=o.folds,
        against=o.against,
        supports=o.supports,
    )


def _outcomes(records: Sequence[Record], rule_sets: Sequence[Rules]) -> list[list[Outcome]]:
    """Every registered check's outcome under each of ``rule_sets``, each evaluated once per content."""
    from cffair.experiments import _registry as methods
    from cffair_book.chapters import CHAPTERS

    checks = [(c.key, c.check, (c.claim, c.source, c.page, c.rule)) for c in CLAIM_CHECKS.values()]
    registries = (methods.METHODS, methods.QUESTION_GROUPS, CHAPTERS, methods.DATASETS)
    context = repr([list(r.values()) for r in registries])
    return claims_cache.evaluations(records, rule_sets, checks, context, _evaluate)


def _evaluate(records: Sequence[Record], rules_: Rules) -> list[Outcome]:
    """Run every registered check on ``records`` under ``rules_`` (no cache)."""
    with rules(rules_):
        evidence = Evidence.of(records)
        outcomes = []
        for c in CLAIM_CHECKS.values():
            out = c.check(evidence)
            verdict, note = out[0], out[1]
            basis = out[2] if len(out) > 2 else Basis()
            verdict = _FROM_HOLDS.get(verdict, verdict) if not isinstance(verdict, str) else verdict
            if verdict == PENDING and not note:
                note = "no records for this claim yet"
            if verdict == PENDING:
                outcomes.append(Outcome(verdict, note))
            else:
                outcomes.append(
                    Outcome(verdict, note, basis.test, basis.folds, tuple(basis.against), tuple(basis.supports))
                )
    return outcomes


#: The robustness table's columns: the rules a verdict is also decided by, each with its heading.
ROBUSTNESS_RULES: tuple[tuple[str, Rules], ...] = (
    ("plain t-test, Holm", Rules(test="plain")),
    ("corrected t-test, Holm (the verdict)", Rules()),
    ("corrected t-test, Holm, COMPAS(age) counted", Rules(count_shared=True)),
    (
        "plain t-test, no correction, COMPAS(age) counted (the rules before)",
        Rules(test="plain", holm=False, count_shared=True),
    ),
)


#: A robustness column: its heading and rules, and optionally the world it decides in (a function of
#: the records: another score in CF-MSE's place, the sound twins), the book's records without one.
RobustnessColumn = tuple[str, Rules] | tuple[str, Rules, Callable[[Sequence["Record"]], Sequence["Record"]]]


def robustness_frame(records: Sequence[Record], columns: Sequence[RobustnessColumn] = ROBUSTNESS_RULES) -> pd.DataFrame:
    """Each claim's verdict under each of ``columns`` (default the rule sets of :data:`ROBUSTNESS_RULES`;
    :func:`cffair_book.dependence.robustness_columns` adds the other scores and the sound twins): one row per
    claim (``key``, ``claim``, one column per heading) and ``same``: whether every column that decides
    the claim gives the same verdict (a world whose records lack the claim's, pending there, is left out)."""
    records = as_records(records)
    names = [col[0] for col in columns]
    plain = [i for i, col in enumerate(columns) if len(col) == 2]
    by: list[list[Outcome]] = [[] for _ in columns]
    for i, outcomes in zip(plain, _outcomes(records, [columns[i][1] for i in plain])):  # once per rule set
        by[i] = outcomes
    for i, col in enumerate(columns):
        if len(col) == 3:
            (world_outcomes,) = _outcomes(as_records(col[2](records)), [col[1]])
            by[i] = world_outcomes
    rows = []
    for i, c in enumerate(CLAIM_CHECKS.values()):
        row: dict[str, Any] = {"key": c.key, "claim": c.claim}
        for name, outcomes in zip(names, by, strict=True):
            row[name] = outcomes[i].verdict
        row["same"] = len({outcomes[i].verdict for outcomes in by} - {PENDING}) <= 1
        rows.append(row)
    return pd.DataFrame(rows)


def robustness_table(
    records: Sequence[Record],
    caption: str | None = None,
    columns: Sequence[RobustnessColumn] = ROBUSTNESS_RULES,
) -> HTMLTable:
    """:func:`robustness_frame` as a table; a verdict that differs from the book's is in bold. Each
    verdict cell names its rule (``data-label``), which a phone's layout shows beside it (one block per claim)."""
    f = robustness_frame(records, columns)
    names = [col[0] for col in columns]
    book = next((col[0] for col in columns if col[1] == Rules() and len(col) == 2), names[0])
    rows = []
    for r in f.to_dict("records"):
        cells = []
        for n in names:
            label, css = _STATUS[r[n]]
            text = html.escape(label) if r[n] == r[book] else f"<strong>{html.escape(label)}</strong>"
            cells.append(f'<td class="{css} cffair-nowrap" data-label="{html.escape(n)}">{text}</td>')
        rows.append(f"  <tr><td>{html.escape(r['key'])}</td><td>{html.escape(r['claim'])}</td>{''.join(cells)}</tr>")
    cap = f'  <caption class="{CAPTION_CLASS}">{html.escape(caption)}</caption>\n' if caption else ""
    table_html = (
        '<div class="cffair-scroll"><table class="cffair-table cffair-robustness table">\n'
        + cap
        + "  <thead><tr><th>#</th><th>claim</th>"
        + "".join(f"<th>{html.escape(n)}</th>" for n in names)
        + "</tr></thead>\n"
        + "  <tbody>\n"
        + "\n".join(rows)
        + "\n  </tbody>\n</table></div>"
    )
    return HTMLTable(mark_numbers(table_html), f.assign(**{n: f[n].map(claim_status) for n in names}))
