"""The paper's qualitative claims, checked on our records, and the table that lists them.

Each claim is one small check function, registered with :func:`claim_check` together with the
claim's key, its sentence, where the paper makes it and the book page that shows the evidence.
A check reads the :class:`Evidence` (the records, their means and per-fold values) and returns
``(verdict, note)``: one of the five verdicts of :mod:`.verdicts` (holds, does not hold,
inconclusive, vacuous, by construction) or ``pending`` when its records are missing; ``note``
gives the numbers behind the verdict. Comparisons of methods are decided on the folds they
share by a paired t-test (:func:`~cffair.reporting.verdicts.paired`: p < 0.05 in the claimed
direction holds, in the other does not, otherwise inconclusive); the rule of each other claim
is in its note. :func:`evaluate_claims` runs every registered check in order
(:data:`CLAIM_CHECKS`); :func:`claims_table` renders the result and :func:`claims_tally` counts
the verdicts.
"""

from __future__ import annotations

import html
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from cffair.errors import DataError
from cffair.reporting.investigations import cke_finding, q2_finding, query_finding
from cffair.reporting.names import DATASET_ORDER, NOTEBOOK_PAGES, Q1_SETTINGS, dataset_name, performance_metric
from cffair.reporting.paper import TABLE4_PAPER_SAT
from cffair.reporting.records import (
    cke_candidates,
    explanation_frame,
    find_record,
    fine_weight_frame,
    query_frame,
    records_frame,
    select_records,
    subgroup_frame,
    variants_frame,
    weight_grid_frame,
)
from cffair.reporting.tables import CAPTION_STYLE, HTMLTable, axiom_label
from cffair.reporting.why import (cke_steps_finding, cke_threshold_finding, flip_ruler_finding, frontier_finding, gan_twins_finding,
                                 shared_runs_finding, subgroup_drop_finding)
from cffair.reporting.verdicts import (BY_CONSTRUCTION, FAILS, HOLDS, INCONCLUSIVE, MIN_TREND_POINTS, PENDING, VACUOUS, VERDICT_RULE,
                                      VERDICTS, Evidence, Paired, combine, fmt as _fmt, p_text as _p, paired, spearman_exact)

__all__ = ["CLAIM_CHECKS", "Claim", "ClaimCheck", "ClaimsTally", "claim_check", "claim_status", "claims_table", "claims_tally",
           "evaluate_claims"]


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
        verdict: one of :data:`~cffair.reporting.verdicts.VERDICTS` or ``"pending"``; derived
            from ``holds`` when not given.
    """

    claim: str
    where: str | tuple[str, str] = ""
    holds: bool | None = None
    note: str = ""
    key: str = ""
    source: str = ""
    verdict: str = ""

    def __post_init__(self) -> None:
        if not self.verdict and self.holds in _FROM_HOLDS:
            object.__setattr__(self, "verdict", _FROM_HOLDS[self.holds])
        elif self.verdict and self.holds is None:
            object.__setattr__(self, "holds", {HOLDS: True, FAILS: False}.get(self.verdict))


_STATUS = {HOLDS: ("✔ holds", "cffair-holds"), FAILS: ("✘ does not hold", "cffair-fails"),
           INCONCLUSIVE: ("≈ inconclusive", "cffair-inconclusive"), VACUOUS: ("∅ vacuous", "cffair-vacuous"),
           BY_CONSTRUCTION: ("⊢ by construction", "cffair-by-construction"), PENDING: ("pending", "cffair-pending")}


def claim_status(verdict: bool | str | None) -> str:
    """The status shown for a verdict: ``"✔ holds"``, ``"✘ does not hold"``, ``"≈ inconclusive"``,
    ``"∅ vacuous"``, ``"⊢ by construction"`` or ``"pending"`` (``True``/``False``/``None`` mean
    holds / does not hold / pending)."""
    key = _FROM_HOLDS.get(verdict, verdict) if not isinstance(verdict, str) else verdict  # type: ignore[arg-type]
    return _STATUS[key][0]


def _claims(claims: Iterable[Claim | Mapping[str, Any]]) -> list[Claim]:
    out = [c if isinstance(c, Claim) else Claim(**dict(c)) for c in claims]
    for i, c in enumerate(out, start=1):
        if c.verdict not in _STATUS:
            raise DataError(f"claim {i} has holds={c.holds!r}, verdict={c.verdict!r}; use True, False or None (not decided), "
                            f"or a verdict: {', '.join(VERDICTS)}.")
    return out


def claims_table(claims: Iterable[Claim | Mapping[str, Any]], caption: str | None = None, *, rule: bool = True) -> HTMLTable:
    """Render claims as an HTML table with columns claim, where shown, status, note.

    Each claim is a :class:`Claim` or a mapping with its fields (``claim``, ``where``,
    ``holds`` or ``verdict``, ``note``). ``where`` given as ``(text, href)`` becomes a link.
    ``rule`` adds a last row stating how the verdicts are decided (:data:`VERDICT_RULE`).
    """
    records = _claims(claims)
    with_source = any(c.source for c in records)
    rows = []
    for i, c in enumerate(records, start=1):
        if isinstance(c.where, tuple):
            text, href = c.where
            where = f'<a href="{html.escape(href, quote=True)}">{html.escape(text)}</a>'
        else:
            where = html.escape(c.where)
        label, css = _STATUS[c.verdict]
        rows.append(
            "  <tr>"
            f"<td>{html.escape(c.key) if c.key else i}</td><td>{html.escape(c.claim)}</td>"
            + (f"<td>{html.escape(c.source)}</td>" if with_source else "")
            + f"<td>{where}</td>"
            f'<td class="{css}" style="white-space: nowrap;">{label}</td><td>{html.escape(c.note)}</td>'
            "</tr>"
        )
    cap = f'  <caption style="{CAPTION_STYLE}">{html.escape(caption)}</caption>\n' if caption else ""
    table_html = (
        '<table class="cffair-table cffair-claims table" style="font-size: 0.85em;">\n'
        + cap
        + "  <thead><tr><th>#</th><th>claim</th>"
        + ("<th>in the paper</th>" if with_source else "")
        + "<th>where shown</th><th>status</th><th>note</th></tr></thead>\n"
        + "  <tbody>\n"
        + "\n".join(rows)
        + "\n  </tbody>\n"
        + (f'  <tfoot><tr><td colspan="{6 if with_source else 5}" style="font-size: 0.9em;">{html.escape(VERDICT_RULE)}</td>'
           "</tr></tfoot>\n" if rule else "")
        + "</table>"
    )
    frame = pd.DataFrame(
        [{"claim": c.claim, "where": c.where if isinstance(c.where, str) else c.where[0], "status": claim_status(c.verdict), "note": c.note}
         for c in records]
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
        cells = "".join(f'<td class="{_STATUS[v][1]}" style="padding: 0 0.8em;"><strong>{n}</strong> {html.escape(_STATUS[v][0])}</td>'
                        for v, n in self.counts.items() if n)
        return (f'<table class="cffair-claims-tally" style="font-size: 0.95em;"><tr><td><strong>{self.total} claims</strong>'
                f"</td>{cells}</tr></table>")


def claims_tally(claims: Iterable[Claim | Mapping[str, Any]]) -> ClaimsTally:
    """The number of claims per verdict (shown above the claims table)."""
    counts = Counter(c.verdict for c in _claims(claims))
    return ClaimsTally({v: counts.get(v, 0) for v in (*VERDICTS, PENDING)})


def _flips(e: Evidence, d: str, methods: Sequence[str]) -> str:
    """``" (flip rate 2.9 % vs 7.7 %)"``: the methods' flip rates on ``d`` when every one has one."""
    if not all((d, m) in e.flips for m in methods):
        return ""
    return " (flip rate " + " vs ".join(f"{100 * e.flips[(d, m)]:.1f} %" for m in methods) + ")"


# ---------------------------------------------------------------------------- the registry
#: A claim check: the evidence → ``(verdict, note)`` (a verdict of :mod:`.verdicts`, ``"pending"``,
#: or ``True``/``False``/``None`` for holds / does not hold / pending).
ClaimCheck = Callable[[Evidence], tuple[str | bool | None, str]]


@dataclass(frozen=True)
class _Registered:
    key: str
    claim: str
    source: str
    page: str  # key of NOTEBOOK_PAGES
    check: ClaimCheck


#: Every claim check, by key, in the order of the book's claims table.
CLAIM_CHECKS: dict[str, _Registered] = {}


def claim_check(key: str, claim: str, source: str, page: str) -> Callable[[ClaimCheck], ClaimCheck]:
    """Register a check of one claim: ``key`` (``"Q1.2"``), the claim's sentence, where the
    paper makes it (``"§7.1, Table 1"``) and the notebook that shows the evidence (a key of
    :data:`~cffair.reporting.names.NOTEBOOK_PAGES`: ``"q1"`` … ``"appendix_b"``)."""
    if page not in NOTEBOOK_PAGES:
        raise ValueError(f"unknown page {page!r} for claim {key}; use one of {sorted(NOTEBOOK_PAGES)}.")

    def register(check: ClaimCheck) -> ClaimCheck:
        if key in CLAIM_CHECKS:
            raise ValueError(f"claim {key} is registered twice ({CLAIM_CHECKS[key].check.__name__}, {check.__name__}).")
        CLAIM_CHECKS[key] = _Registered(key, claim, source, page, check)
        return check

    return register


def evaluate_claims(records: Sequence[Mapping[str, Any]], base: str = "") -> list[Claim]:
    """Check each qualitative claim of the paper on our records.

    Every claim is decided only on the datasets our records cover; a claim whose records are
    missing entirely stays ``pending``. ``note`` gives the numbers behind the verdict (and,
    when the records hold them, what the claim's investigation found); ``where`` links to the
    page that shows them (``base`` is the path from the page the table is shown on to the
    book's root, e.g. ``""`` for the intro, ``"../"`` for a notebook).
    """
    evidence = Evidence.of(records)
    claims = []
    for c in CLAIM_CHECKS.values():
        verdict, note = c.check(evidence)
        verdict = _FROM_HOLDS.get(verdict, verdict) if not isinstance(verdict, str) else verdict  # type: ignore[arg-type]
        if verdict == PENDING and not note:
            note = "no records for this claim yet"
        stem, label = NOTEBOOK_PAGES[c.page]
        claims.append(Claim(c.claim, (label, f"{base}notebooks/{stem}.html"), note=note, key=c.key, source=c.source, verdict=verdict))
    return claims


# ---------------------------------------------------------------------------- comparisons
def _per_dataset(e: Evidence, datasets: Iterable[str], a: str, b: str, metric: str, larger: bool,
                 text: Callable[[str, Paired], str]) -> tuple[str, str]:
    """Compare ``a`` with ``b`` on each dataset (fold-paired) and combine: ``(verdict, note)``."""
    results = {d: e.compare(d, a, b, metric, larger) for d in datasets}
    return combine(r.verdict for r in results.values()), "; ".join(text(d, r) for d, r in results.items())


def _change(e: Evidence, values: Mapping[tuple[str, str], float], before: str, after: str) -> Callable[[str, Paired], str]:
    """A note part: ``"Adult 0.160 → 0.065 (p < 0.001)"``."""
    return lambda d, r: f"{dataset_name(d)} {_fmt(values[(d, before)])} → {_fmt(values[(d, after)])} ({_p(r)})"


# ---------------------------------------------------------------------------- Q1
@claim_check("Q1.1", "Adding the CF axiom (A4) to the accuracy axioms lowers CF-MSE on every dataset.", "Table 1", "q1")
def _q1_cf_axiom_lowers_cf_mse(e: Evidence) -> tuple[str, str]:
    ds = e.have("ltn_acc", "ltn_acc_cf")
    verdict, note = _per_dataset(e, ds, "ltn_acc_cf", "ltn_acc", "cf_mse", False, _change(e, e.cf, "ltn_acc", "ltn_acc_cf"))
    return verdict, note + "".join(f"; {dataset_name(d)}{_flips(e, d, ('ltn_acc', 'ltn_acc_cf'))}" for d in ds if _flips(e, d, ("ltn_acc", "ltn_acc_cf")))


@claim_check("Q1.2", "Subgroup CF axioms (A4₁ … A4ₙ) lower the average CF-MSE further than the global CF axiom, on every dataset.",
             "§7.1, Table 1", "q1")
def _q1_subgroup_axioms_lower_cf_mse(e: Evidence) -> tuple[str, str]:
    ds = e.have("ltn_acc_cf", "ltn_acc_cf_sg")
    return _per_dataset(e, ds, "ltn_acc_cf_sg", "ltn_acc_cf", "cf_mse", False, _change(e, e.cf, "ltn_acc_cf", "ltn_acc_cf_sg"))


@claim_check("Q1.3", "Subgroup CF axioms lower the worst-subgroup CF-MSE compared with the global CF axiom "
             "(the paper's Table 1 shows this on COMPAS and Lawschool, not on Adult or COMPAS(age)).", "Table 1", "q1")
def _q1_subgroup_axioms_lower_worst(e: Evidence) -> tuple[str, str]:
    ds = [d for d in e.have("ltn_acc_cf", "ltn_acc_cf_sg") if d in ("compas", "lawschool")]
    return _per_dataset(e, ds, "ltn_acc_cf_sg", "ltn_acc_cf", "cf_mse_worst_subgroup", False,
                        _change(e, e.worst, "ltn_acc_cf", "ltn_acc_cf_sg"))


@claim_check("Q1.4", "Subgroup CF axioms give higher accuracy than the global CF axiom on Adult and both COMPAS variants "
             "(the paper's own Table 1 shows a drop on COMPAS, 0.675 → 0.651).", "§7.1, Table 1", "q1")
def _q1_subgroup_axioms_raise_accuracy(e: Evidence) -> tuple[str, str]:
    ds = [d for d in e.have("ltn_acc_cf", "ltn_acc_cf_sg") if d in ("adult", "compas", "compas_age")]
    verdict, note = _per_dataset(e, ds, "ltn_acc_cf_sg", "ltn_acc_cf", "perf", True,
                                 lambda d, r: f"{dataset_name(d)} {e.perf_text(d, 'ltn_acc_cf')} → {e.perf_text(d, 'ltn_acc_cf_sg')} ({_p(r)})")
    return verdict, note + _investigation(None if verdict == HOLDS else frontier_finding(e.records, ds))


def _subgroup_means(e: Evidence, dataset: str) -> pd.DataFrame | None:
    """Mean CF-MSE per subgroup (rows) and Q1 setting (columns) on ``dataset``; None without all three settings."""
    sg = subgroup_frame(e.records, Q1_SETTINGS, dataset)
    if sg.empty or not set(Q1_SETTINGS) <= set(sg["method"]):
        return None
    return sg.groupby(["subgroup", "method"])["cf_mse"].mean().unstack("method").dropna()


@claim_check("Q1.5", "On Adult the CF axiom lowers CF-MSE most for white males (the largest subgroup); the subgroup axioms "
             "improve most of the other subgroups further.", "Figure 3", "q1")
def _q1_adult_white_males(e: Evidence) -> tuple[str, str]:
    m = _subgroup_means(e, "adult")
    if m is None:
        return PENDING, ""
    drop = (m["ltn_acc"] - m["ltn_acc_cf"]).sort_values(ascending=False)
    others = m.drop(index="Male, White", errors="ignore")
    better = int((others["ltn_acc_cf_sg"] < others["ltn_acc_cf"]).sum())
    holds = bool(len(drop) and drop.index[0] == "Male, White" and better > len(others) / 2)
    return (HOLDS if holds else FAILS), (f"a ranking of fold means, no test: largest drop acc → acc+CF: {drop.index[0]} "
                                         f"({_fmt(drop.iloc[0])}; white males {_fmt(drop.get('Male, White'))}); "
                                         f"acc+CF_sg below acc+CF in {better} of {len(others)} other subgroups"
                                         + _investigation(None if holds else subgroup_drop_finding(e.records)))


@claim_check("Q1.6", "On Lawschool the CF axiom lowers CF-MSE in every subgroup, and subgroup axioms spread the improvement "
             "more evenly (a smaller max − min over subgroups).", "Figure 5", "q1")
def _q1_lawschool_every_subgroup(e: Evidence) -> tuple[str, str]:
    m = _subgroup_means(e, "lawschool")
    if m is None:
        return PENDING, ""
    improved = int((m["ltn_acc_cf"] < m["ltn_acc"]).sum())
    spread = m.max() - m.min()
    holds = bool(improved == len(m) and spread["ltn_acc_cf_sg"] < spread["ltn_acc_cf"])
    return (HOLDS if holds else FAILS), (f"fold means, no test: acc+CF below acc in {improved} of {len(m)} subgroups; spread "
                                         f"(max − min) of subgroup CF-MSE: acc+CF {_fmt(spread['ltn_acc_cf'])}, "
                                         f"acc+CF_sg {_fmt(spread['ltn_acc_cf_sg'])}")


# ---------------------------------------------------------------------------- Q2
_BASELINES = ("cnf", "gan", "dcevae")


@claim_check("Q2.1", "LTN(acc+CF) reaches a lower CF-MSE than CNF, GAN and DCEVAE on every dataset.", "§7.2, Table 1", "q2")
def _q2_ltn_fairer_than_baselines(e: Evidence) -> tuple[str, str]:
    ds = e.have("ltn_acc_cf", *_BASELINES)
    per = {d: combine(e.compare(d, "ltn_acc_cf", b, "cf_mse", False).verdict for b in _BASELINES) for d in ds}
    note = "; ".join(f"{dataset_name(d)} LTN {_fmt(e.cf[(d, 'ltn_acc_cf')])} vs " + "/".join(_fmt(e.cf[(d, b)]) for b in _BASELINES)
                     + _flips(e, d, ("ltn_acc_cf", *_BASELINES)) for d in ds)
    finding = q2_finding(variants_frame(e.records))
    return combine(per.values()), note + (f". {finding}" if finding else "")


@claim_check("Q2.2", "Except on COMPAS, the fairness axioms cost accuracy (or MSE) compared with CNF.", "§7.2, Table 1", "q2")
def _q2_fairness_costs_accuracy(e: Evidence) -> tuple[str, str]:
    ds = e.have("ltn_acc_cf", "ltn_acc_cf_sg", "cnf")
    best = {d: "ltn_acc_cf" if e.perf(d, "ltn_acc_cf") >= e.perf(d, "ltn_acc_cf_sg") else "ltn_acc_cf_sg" for d in ds}
    res = {d: e.compare(d, best[d], "cnf", "perf", larger=(d == "compas")) for d in ds}
    verdict = combine(r.verdict for r in res.values())
    return verdict, "; ".join(f"{dataset_name(d)} best fair LTN {e.perf_text(d, best[d])} vs CNF {e.perf_text(d, 'cnf')} ({_p(r)})"
                              for d, r in res.items()) + _investigation(None if verdict == HOLDS else shared_runs_finding(e.records))


@claim_check("Q2.3", "The GAN method is more accurate than LTN(acc+CF) on COMPAS but less fair, overall and in the worst subgroup.",
             "§7.2, Table 1", "q2")
def _q2_gan_accurate_but_unfair(e: Evidence) -> tuple[str, str]:
    if "compas" not in e.have("ltn_acc_cf", "gan"):
        return PENDING, ""
    d = "compas"
    acc, cf, worst = (e.compare(d, "gan", "ltn_acc_cf", m, True) for m in ("perf", "cf_mse", "cf_mse_worst_subgroup"))
    return combine([acc.verdict, cf.verdict, worst.verdict]), (
        f"COMPAS accuracy GAN {_fmt(e.acc.get((d, 'gan')))} vs LTN {_fmt(e.acc.get((d, 'ltn_acc_cf')))} ({_p(acc)}), CF-MSE "
        f"{_fmt(e.cf[(d, 'gan')])} vs {_fmt(e.cf[(d, 'ltn_acc_cf')])} ({_p(cf)}), worst {_fmt(e.worst[(d, 'gan')])} vs "
        f"{_fmt(e.worst[(d, 'ltn_acc_cf')])} ({_p(worst)})" + _flips(e, d, ("gan", "ltn_acc_cf"))
        + _investigation(None if cf.verdict == HOLDS else flip_ruler_finding(e.records, d)))


@claim_check("Q2.4", "DCEVAE is accurate but far from counterfactually fair: its CF-MSE is above CNF's and LTN(acc+CF)'s on every dataset.",
             "§7.2, Table 1", "q2")
def _q2_dcevae_unfair(e: Evidence) -> tuple[str, str]:
    ds = e.have("dcevae", "cnf", "ltn_acc_cf")
    per = {d: combine(e.compare(d, "dcevae", b, "cf_mse", True).verdict for b in ("cnf", "ltn_acc_cf")) for d in ds}
    return combine(per.values()), "; ".join(f"{dataset_name(d)} CF-MSE {_fmt(e.cf[(d, 'dcevae')])} ({e.perf_text(d, 'dcevae')}; "
                                            f"CNF {_fmt(e.cf[(d, 'cnf')])}, LTN {_fmt(e.cf[(d, 'ltn_acc_cf')])})" for d in ds)


# ---------------------------------------------------------------------------- Q3
def _investigation(finding: str | None) -> str:  # for a claim that failed; nothing without a finding
    return f". Investigation: {finding}" if finding else ""


def _cke_runs(e: Evidence, dataset: str, setting: str = "ltn_acc_cf_cke") -> list[Mapping[str, Any]]:
    """The protocol's CKE records of ``dataset`` that hold CKE results."""
    return [r for r in e.records if r["config"]["dataset"] == dataset and r["config"]["setting"] == setting and "cke" in r
            and not r["config"].get("options") and not r["config"].get("tag")]


def _added(rec: Mapping[str, Any]) -> list[str]:
    """The A5 axioms a CKE record added."""
    return [s["axiom"] for s in rec["cke"]["steps"] if int(s["step"]) > 0]


@claim_check("Q3.1", "On COMPAS, knowledge extraction finds an imbalance for age in the Black group (ours: Non-Caucasian); after "
             "the A5 axiom the imbalance falls below the threshold (0.1).", "§7.3, Figure 4", "q3")
def _q3_compas_age_imbalance(e: Evidence) -> tuple[str, str]:
    runs = _cke_runs(e, "compas")
    if not runs:
        return PENDING, ""
    cands = cke_candidates(e.records)
    compas_c = cands[(cands["dataset"] == "compas") & (cands["setting"] == "ltn_acc_cf_cke")] if not cands.empty else cands
    found = compas_c[(compas_c["feature"] == "age") & (compas_c["group"] == "Non-Caucasian") & compas_c["candidate"]]
    below = found["imbalance_after"] < found["threshold"]
    holds = bool(len(found) > len(runs) / 2 and below.all())
    top = compas_c.sort_values("imbalance", ascending=False).head(1)
    finding = cke_finding(explanation_frame(e.records), e.records)
    return (HOLDS if holds else FAILS), (
        f"a count over runs: (Non-Caucasian, age) above the threshold in {len(found)} of {len(runs)} runs"
        + (f", below it after A5 in {int(below.sum())}" if len(found) else "")
        + (f"; largest imbalance {top['group'].iloc[0]}/{top['feature'].iloc[0]} {_fmt(top['imbalance'].iloc[0])}" if len(top) else "")
        + (f". Investigation: {finding['axiom']}" if finding else ""))


def _no_axiom_note(e: Evidence) -> str:
    runs = [r for d in ("compas", "compas_age") for s in ("ltn_acc_cf_cke", "ltn_acc_cf_sg_cke") for r in _cke_runs(e, d, s)]
    return f"no A5 axiom was added in any of the {len(runs)} COMPAS CKE runs (no imbalance reached the threshold 0.1)"


def _compas_cke_datasets(e: Evidence) -> list[str]:
    return [d for d in e.have("ltn_acc_cf", "ltn_acc_cf_cke", "ltn_acc_cf_sg", "ltn_acc_cf_sg_cke") if d in ("compas", "compas_age")]


def _any_axiom(e: Evidence) -> bool:
    return any(_added(r) for d in _compas_cke_datasets(e) for s in ("ltn_acc_cf_cke", "ltn_acc_cf_sg_cke") for r in _cke_runs(e, d, s))


@claim_check("Q3.2", "Discouraging age widens the imbalance for other features, especially priors count.", "§7.3, Figure 4", "q3")
def _q3_other_features_widen(e: Evidence) -> tuple[str, str]:
    finding = cke_finding(explanation_frame(e.records), e.records)
    if not _compas_cke_datasets(e):
        return PENDING, ""
    if _any_axiom(e):
        return PENDING, "an A5 axiom was added, but the protocol's CKE records explain immutable features only; see the investigation"
    return VACUOUS, _no_axiom_note(e) + "; age was never discouraged" + (f". Investigation: {finding['others']}" if finding else "")


@claim_check("Q3.3", "On both COMPAS variants the CKE axiom lowers CF-MSE (acc+CF → acc+CF+CKE and acc+CF_sg → acc+CF_sg+CKE).",
             "Table 2", "q3")
def _q3_cke_lowers_cf_mse(e: Evidence) -> tuple[str, str]:
    return _cke_effect(e, "cf_mse", larger=False, what="cf")


@claim_check("Q3.4", "On both COMPAS variants accuracy falls when the CKE axiom is added.", "Table 2", "q3")
def _q3_cke_costs_accuracy(e: Evidence) -> tuple[str, str]:
    return _cke_effect(e, "accuracy", larger=False, what="accuracy")


def _cke_effect(e: Evidence, metric: str, larger: bool, what: str) -> tuple[str, str]:
    """Q3.3/Q3.4: the CKE setting against its parent, on the folds where an A5 axiom was added."""
    ds = _compas_cke_datasets(e)
    if not ds:
        return PENDING, ""
    finding = cke_finding(explanation_frame(e.records), e.records)
    if not _any_axiom(e):
        return VACUOUS, _no_axiom_note(e) + ", so every CKE setting equals its parent" + (
            f". Investigation: {finding['axiom']}; {finding[what]}" if finding.get(what) else "")
    verdicts, notes = [], []
    for d in ds:
        for parent in ("ltn_acc_cf", "ltn_acc_cf_sg"):
            folds = [int(r["config"]["fold"]) for r in _cke_runs(e, d, parent + "_cke") if _added(r)]
            x, y = e.folds(d, parent + "_cke", metric), e.folds(d, parent, metric)
            folds = [f for f in folds if f in x.index and f in y.index]
            if not folds:
                continue
            r = paired(x.loc[folds].to_numpy(), y.loc[folds].to_numpy(), larger=larger)
            verdicts.append(r.verdict)
            notes.append(f"{dataset_name(d)} {parent.removeprefix('ltn_')} {_fmt(y.loc[folds].mean())} → "
                         f"{_fmt(x.loc[folds].mean())} on the {len(folds)} folds with an A5 axiom ({_p(r)})")
    return combine(verdicts), "; ".join(notes)


@claim_check("Q3.5", "On Adult (one run), adding CKE axioms one by one keeps accuracy stable (within 0.02) and improves CF-MSE, "
             "but the worst-subgroup CF-MSE worsens with each axiom after the first.", "Table 3", "q3")
def _q3_adult_cke_steps(e: Evidence) -> tuple[str, str]:
    rec = find_record(e.records, "adult", "ltn_acc_cf_cke", 0)
    if rec is None or "cke" not in rec:
        return PENDING, ""
    steps = rec["cke"]["steps"]
    if len(steps) < 3:
        return FAILS, f"only {len(steps) - 1} CKE axiom(s) extracted on Adult fold 0 (the paper adds 3)"
    accs = [float(s["accuracy"]) for s in steps]
    cfs = [float(s["cf_mse"]) for s in steps]
    ws = [float(s["cf_mse_worst_subgroup"]) for s in steps]
    stable = max(accs) - min(accs) <= 0.02
    cf_better = min(cfs[1:]) < cfs[0]
    worse_after_first = all(ws[k] > ws[k - 1] for k in range(2, len(ws)))
    holds = stable and cf_better and worse_after_first
    return (HOLDS if holds else FAILS), (
        f"one run, as the paper's (no test): accuracy {min(accs):.3f}–{max(accs):.3f}; CF-MSE {' → '.join(_fmt(v) for v in cfs)}; "
        f"worst subgroup {' → '.join(_fmt(v) for v in ws)}; axioms: " + ", ".join(axiom_label(s['axiom']) for s in steps[1:])
        + _investigation(None if holds else cke_steps_finding(e.records)))


@claim_check("Q3.6", "On Lawschool, no undesirable explanation (race) is detected once the CF axiom is trained.", "§7.3", "q3")
def _q3_lawschool_nothing_found(e: Evidence) -> tuple[str, str]:
    law = _cke_runs(e, "lawschool")
    if not law:
        return PENDING, ""
    n_found = sum(bool(r["cke"]["candidates"]) for r in law)
    largest = max((float(c["imbalance"]) for r in law for c in r["cke"]["candidates"]), default=float("nan"))
    return (HOLDS if n_found == 0 else FAILS), (
        f"a count over runs: candidates after acc+CF in {n_found} of {len(law)} runs"
        + (f" (largest imbalance {_fmt(largest)} against the threshold 0.01)" if n_found else "")
        + "; the first half of the claim, after accuracy-only training, is not run"
        + _investigation(cke_threshold_finding(e.records) if n_found else None))


# ---------------------------------------------------------------------------- Q4
@claim_check("Q4.1", "The existence query (equation (2)) finds, for a negatively predicted person in each of four Adult subgroups, "
             "a similar person in the same subgroup with a different decision.", "§7.4, Table 4", "q4")
def _q4_existence_query(e: Evidence) -> tuple[str, str]:
    q = query_frame(e.records)
    q = q[q["dataset"] == "adult"]
    if q.empty:
        return PENDING, ""
    drawn = q[q["rule"] == "random"]
    if drawn.empty:
        first = q[q["fold"] == q["fold"].min()]
        return BY_CONSTRUCTION, (f"x̂ is the negatively predicted person whose nearest differently decided neighbour is closest, "
                                 f"so the query finds a witness whenever anyone lies within β (fold {int(first['fold'].iloc[0])}): "
                                 + "; ".join(f"{r.subgroup}: sat {_fmt(r.sat)} (paper {_fmt(TABLE4_PAPER_SAT.get(r.subgroup, np.nan))})"
                                             for r in first.itertuples()))
    found = int(drawn["found"].sum())
    return (HOLDS if found == len(TABLE4_PAPER_SAT) and len(drawn) == len(TABLE4_PAPER_SAT) else FAILS), (
        "a count over the four subgroups, x̂ drawn at random among each one's negatively predicted people (§7.4). "
        + query_finding(q))


# ---------------------------------------------------------------------------- appendices
def _own_cf_folds(e: Evidence, d: str, m: str) -> pd.Series:
    own = select_records(records_frame(e.records, own_counterfactuals=True))
    rows = own[(own["dataset"] == d) & (own["method"] == m)]
    return rows.set_index("fold")["cf_mse"].astype(float)


@claim_check("A.1", "Trained on the GAN's counterfactuals, LTN(acc+CF) has a lower CF-MSE than the GAN method (on the GAN's own "
             "counterfactuals) on every dataset.", "Appendix A, Table 5", "appendix_a")
def _a_ltn_fairer_on_gan_counterfactuals(e: Evidence) -> tuple[str, str]:
    verdicts, notes = [], []
    for d in DATASET_ORDER:
        x, y = _own_cf_folds(e, d, "ltn_acc_cf@gan"), _own_cf_folds(e, d, "gan")
        folds = sorted(set(x.index) & set(y.index))
        if not folds:
            continue
        r = paired(x.loc[folds].to_numpy(), y.loc[folds].to_numpy(), larger=False)
        verdicts.append(r.verdict)
        notes.append(f"{dataset_name(d)} LTN {_fmt(x.loc[folds].mean())} vs GAN {_fmt(y.loc[folds].mean())} ({_p(r)})")
    verdict = combine(verdicts)
    return verdict, "; ".join(notes) + _investigation(None if verdict == HOLDS else gan_twins_finding(e.records)["flips"])


@claim_check("A.2", "…and is less accurate than the GAN method on both COMPAS variants but more accurate on Adult and Lawschool.",
             "Appendix A, Table 5", "appendix_a")
def _a_accuracy_on_gan_counterfactuals(e: Evidence) -> tuple[str, str]:
    ds = [d for d in DATASET_ORDER if (d, "gan") in e.cf and (d, "ltn_acc_cf@gan") in e.cf]
    res = {d: e.compare(d, "ltn_acc_cf@gan", "gan", "perf", larger=not d.startswith("compas")) for d in ds}
    verdict = combine(r.verdict for r in res.values())
    return verdict, "; ".join(
        f"{dataset_name(d)} LTN {e.perf_text(d, 'ltn_acc_cf@gan')} vs GAN {e.perf_text(d, 'gan')} ({_p(r)})" for d, r in res.items()
    ) + _investigation(None if verdict == HOLDS else gan_twins_finding(e.records)["accuracy"])


@claim_check("B.1", "Higher weights on the accuracy axioms tend to raise accuracy and lower counterfactual fairness (higher CF-MSE), "
             "but not on every dataset (holds here if both trends appear on most datasets).", "Appendix B, Table 6", "appendix_b")
def _b_weight_trend(e: Evidence) -> tuple[str, str]:
    fine, coarse = fine_weight_frame(e.records), weight_grid_frame(e.records)
    if fine.empty and (coarse.empty or coarse["log2_ratio"].nunique() <= 2):
        return PENDING, ""
    verdicts, parts = [], []
    for d in DATASET_ORDER:
        gf, gc = fine[fine["dataset"] == d], coarse[coarse["dataset"] == d]  # the grid with more weight points
        g = gf if gf["log2_ratio"].nunique() >= gc["log2_ratio"].nunique() and not gf.empty else gc
        if g.empty:
            continue
        perf = performance_metric(d)
        m = g.groupby("log2_ratio")[[perf, "cf_mse"]].mean()
        sign = 1 if perf == "accuracy" else -1
        t_perf = spearman_exact(m.index.to_numpy(), sign * m[perf].to_numpy())
        t_cf = spearman_exact(m.index.to_numpy(), m["cf_mse"].to_numpy())
        if len(m) >= MIN_TREND_POINTS:
            verdicts.append(combine([t_perf.verdict(rising=True), t_cf.verdict(rising=True)]))
        parts.append(f"{dataset_name(d)} ({len(m)} weight points{', too few to test' if len(m) < MIN_TREND_POINTS else ''}) "
                     f"ρ(performance) {t_perf.rho:+.2f} ({_p(t_perf.p)}), ρ(CF-MSE) {t_cf.rho:+.2f} ({_p(t_cf.p)})")
    verdict = combine(verdicts) if verdicts else INCONCLUSIVE
    return verdict, ("exact Spearman test of the means of each weight point against log₂(acc weight / CF weight), decided on "
                     f"datasets with at least {MIN_TREND_POINTS} points: " + "; ".join(parts))
