"""The paper's qualitative claims, checked on our records, and the table that lists them.

Each claim is one small check function, registered with :func:`claim_check` together with the
claim's key, its sentence, where the paper makes it and the book page that shows the evidence.
A check reads the :class:`Evidence` (the records and their means over folds) and returns
``(holds, note)``: ``holds`` is True, False or None (undecided: no records for it), ``note``
gives the numbers behind the verdict. :func:`evaluate_claims` runs every registered check in
order (:data:`CLAIM_CHECKS`); :func:`claims_table` renders the result.
"""

from __future__ import annotations

import html
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from cffair.errors import DataError
from cffair.reporting.names import DATASET_ORDER, NOTEBOOK_PAGES, Q1_SETTINGS, dataset_name, performance_metric
from cffair.reporting.paper import TABLE4_PAPER_SAT
from cffair.reporting.records import (
    cke_candidates,
    find_record,
    mean_by_method,
    records_frame,
    select_records,
    subgroup_frame,
    weight_grid_frame,
)
from cffair.reporting.tables import CAPTION_STYLE, HTMLTable, axiom_label

__all__ = [
    "CLAIM_CHECKS",
    "Claim",
    "ClaimCheck",
    "Evidence",
    "claim_check",
    "claim_status",
    "claims_table",
    "evaluate_claims",
]


# ---------------------------------------------------------------------------- claims and their table
@dataclass(frozen=True)
class Claim:
    """One claim of the paper and whether the reproduction supports it.

    Attributes:
        claim: the claim in one sentence.
        where: where the book shows the evidence: plain text, or ``(text, href)`` for a link
            (relative to the page the table is shown on).
        holds: ``True`` (reproduced), ``False`` (not reproduced), ``None`` (not decided yet).
        note: numbers or caveats.
        key: a short label (``"Q1.2"``) shown in the first column instead of the running number.
        source: where the paper makes the claim (``"Table 1"``, ``"§7.3"``); a column of its
            own when any claim has one.
    """

    claim: str
    where: str | tuple[str, str] = ""
    holds: bool | None = None
    note: str = ""
    key: str = ""
    source: str = ""


_STATUS = {True: ("✔ holds", "cffair-holds"), False: ("✘ does not hold", "cffair-fails"), None: ("pending", "cffair-pending")}


def claim_status(holds: bool | None) -> str:
    """``"✔ holds"``, ``"✘ does not hold"`` or ``"pending"``."""
    return _STATUS[holds][0]


def claims_table(claims: Iterable[Claim | Mapping[str, Any]], caption: str | None = None) -> HTMLTable:
    """Render claims as an HTML table with columns claim, where shown, status, note.

    Each claim is a :class:`Claim` or a mapping with its fields (``claim``, ``where``,
    ``holds``, ``note``). ``where`` given as ``(text, href)`` becomes a link.
    """
    records = [c if isinstance(c, Claim) else Claim(**dict(c)) for c in claims]
    with_source = any(c.source for c in records)
    rows = []
    for i, c in enumerate(records, start=1):
        if c.holds not in (True, False, None):
            raise DataError(f"claim {i} has holds={c.holds!r}; use True, False or None (not decided).")
        if isinstance(c.where, tuple):
            text, href = c.where
            where = f'<a href="{html.escape(href, quote=True)}">{html.escape(text)}</a>'
        else:
            where = html.escape(c.where)
        label, css = _STATUS[c.holds]
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
        + "\n  </tbody>\n</table>"
    )
    frame = pd.DataFrame(
        [{"claim": c.claim, "where": c.where if isinstance(c.where, str) else c.where[0], "status": claim_status(c.holds), "note": c.note}
         for c in records]
    )
    return HTMLTable(table_html, frame)


# ---------------------------------------------------------------------------- the evidence
def _fmt(v: float | None) -> str:
    return "—" if v is None or (isinstance(v, float) and math.isnan(v)) else f"{v:.3f}"


@dataclass
class Evidence:
    """What the claim checks read: the records, and means over folds per ``(dataset, method)``
    of the records on CNF counterfactuals without a weight-grid tag (method keys carry
    ``@gan`` for the runs on the GAN's counterfactuals)."""

    records: list[Mapping[str, Any]]
    cf: dict[tuple[str, str], float] = field(default_factory=dict)
    worst: dict[tuple[str, str], float] = field(default_factory=dict)
    acc: dict[tuple[str, str], float] = field(default_factory=dict)
    mse: dict[tuple[str, str], float] = field(default_factory=dict)

    @classmethod
    def of(cls, records: Iterable[Mapping[str, Any]]) -> Evidence:
        """The evidence of some records."""
        recs = list(records)
        main = select_records(records_frame(recs))
        return cls(recs, mean_by_method(main, "cf_mse"), mean_by_method(main, "cf_mse_worst_subgroup"),
                   mean_by_method(main, "accuracy"), mean_by_method(main, "mse"))

    def have(self, *methods: str) -> list[str]:
        """The datasets (in the paper's order) with a CF-MSE for every one of ``methods``."""
        return [d for d in DATASET_ORDER if all((d, m) in self.cf for m in methods)]

    def perf(self, d: str, m: str) -> float:
        """Higher is better: accuracy, or −MSE for Lawschool."""
        return self.acc.get((d, m), np.nan) if performance_metric(d) == "accuracy" else -self.mse.get((d, m), np.nan)

    def perf_text(self, d: str, m: str) -> str:
        """The performance of ``m`` on ``d`` as text: ``"0.812"`` or ``"MSE 0.880"``."""
        return _fmt(self.acc.get((d, m))) if performance_metric(d) == "accuracy" else f"MSE {_fmt(self.mse.get((d, m)))}"


def _verdict(ok: Mapping[str, bool]) -> bool | None:
    """All datasets agree (None if no dataset could be checked)."""
    return None if not ok else all(ok.values())


# ---------------------------------------------------------------------------- the registry
#: A claim check: the evidence → ``(holds, note)``.
ClaimCheck = Callable[[Evidence], tuple[bool | None, str]]


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
    """Check each qualitative claim of the paper on our records (means over folds).

    Every claim is decided only on the datasets our records cover; a claim whose records are
    missing entirely stays undecided (``holds=None``). ``note`` gives the numbers behind the
    verdict; ``where`` links to the page that shows them (``base`` is the path from the page
    the table is shown on to the book's root, e.g. ``""`` for the intro, ``"../"`` for a notebook).
    """
    evidence = Evidence.of(records)
    claims = []
    for c in CLAIM_CHECKS.values():
        holds, note = c.check(evidence)
        if holds is None and not note:
            note = "no records for this claim yet"
        stem, label = NOTEBOOK_PAGES[c.page]
        claims.append(Claim(c.claim, (label, f"{base}notebooks/{stem}.html"), holds, note, key=c.key, source=c.source))
    return claims


# ---------------------------------------------------------------------------- Q1
def _change(e: Evidence, values: Mapping[tuple[str, str], float], before: str, after: str, datasets: Iterable[str]) -> str:
    """``"Adult 0.160 → 0.065; …"``: a metric of ``before`` and ``after`` on each dataset."""
    return "; ".join(f"{dataset_name(d)} {_fmt(values[(d, before)])} → {_fmt(values[(d, after)])}" for d in datasets)


@claim_check("Q1.1", "Adding the CF axiom (A4) to the accuracy axioms lowers CF-MSE on every dataset.", "Table 1", "q1")
def _q1_cf_axiom_lowers_cf_mse(e: Evidence) -> tuple[bool | None, str]:
    ds = e.have("ltn_acc", "ltn_acc_cf")
    return _verdict({d: e.cf[(d, "ltn_acc_cf")] < e.cf[(d, "ltn_acc")] for d in ds}), _change(e, e.cf, "ltn_acc", "ltn_acc_cf", ds)


@claim_check("Q1.2", "Subgroup CF axioms (A4₁ … A4ₙ) lower the average CF-MSE further than the global CF axiom, on every dataset.",
             "§7.1, Table 1", "q1")
def _q1_subgroup_axioms_lower_cf_mse(e: Evidence) -> tuple[bool | None, str]:
    ds = e.have("ltn_acc_cf", "ltn_acc_cf_sg")
    return (_verdict({d: e.cf[(d, "ltn_acc_cf_sg")] < e.cf[(d, "ltn_acc_cf")] for d in ds}),
            _change(e, e.cf, "ltn_acc_cf", "ltn_acc_cf_sg", ds))


@claim_check("Q1.3", "Subgroup CF axioms lower the worst-subgroup CF-MSE compared with the global CF axiom "
             "(the paper's Table 1 shows this on COMPAS and Lawschool, not on Adult or COMPAS(age)).", "Table 1", "q1")
def _q1_subgroup_axioms_lower_worst(e: Evidence) -> tuple[bool | None, str]:
    ds = e.have("ltn_acc_cf", "ltn_acc_cf_sg")
    ok = {d: e.worst[(d, "ltn_acc_cf_sg")] < e.worst[(d, "ltn_acc_cf")] for d in ds if d in ("compas", "lawschool")}
    return _verdict(ok), _change(e, e.worst, "ltn_acc_cf", "ltn_acc_cf_sg", ds)


@claim_check("Q1.4", "Subgroup CF axioms give higher accuracy than the global CF axiom on Adult and both COMPAS variants "
             "(the paper's own Table 1 shows a drop on COMPAS, 0.675 → 0.651).", "§7.1, Table 1", "q1")
def _q1_subgroup_axioms_raise_accuracy(e: Evidence) -> tuple[bool | None, str]:
    ds = [d for d in e.have("ltn_acc_cf", "ltn_acc_cf_sg") if d in ("adult", "compas", "compas_age")]
    return (_verdict({d: e.perf(d, "ltn_acc_cf_sg") > e.perf(d, "ltn_acc_cf") for d in ds}),
            "; ".join(f"{dataset_name(d)} {e.perf_text(d, 'ltn_acc_cf')} → {e.perf_text(d, 'ltn_acc_cf_sg')}" for d in ds))


def _subgroup_means(e: Evidence, dataset: str) -> pd.DataFrame | None:
    """Mean CF-MSE per subgroup (rows) and Q1 setting (columns) on ``dataset``; None without all three settings."""
    sg = subgroup_frame(e.records, Q1_SETTINGS, dataset)
    if sg.empty or not set(Q1_SETTINGS) <= set(sg["method"]):
        return None
    return sg.groupby(["subgroup", "method"])["cf_mse"].mean().unstack("method").dropna()


@claim_check("Q1.5", "On Adult the CF axiom lowers CF-MSE most for white males (the largest subgroup); the subgroup axioms "
             "improve most of the other subgroups further.", "Figure 3", "q1")
def _q1_adult_white_males(e: Evidence) -> tuple[bool | None, str]:
    m = _subgroup_means(e, "adult")
    if m is None:
        return None, ""
    drop = (m["ltn_acc"] - m["ltn_acc_cf"]).sort_values(ascending=False)
    others = m.drop(index="Male, White", errors="ignore")
    better = int((others["ltn_acc_cf_sg"] < others["ltn_acc_cf"]).sum())
    holds = bool(len(drop) and drop.index[0] == "Male, White" and better > len(others) / 2)
    return holds, (f"largest drop acc → acc+CF: {drop.index[0]} ({_fmt(drop.iloc[0])}); acc+CF_sg below acc+CF in "
                   f"{better} of {len(others)} other subgroups")


@claim_check("Q1.6", "On Lawschool the CF axiom lowers CF-MSE in every subgroup, and subgroup axioms spread the improvement "
             "more evenly (a smaller max − min over subgroups).", "Figure 5", "q1")
def _q1_lawschool_every_subgroup(e: Evidence) -> tuple[bool | None, str]:
    m = _subgroup_means(e, "lawschool")
    if m is None:
        return None, ""
    improved = int((m["ltn_acc_cf"] < m["ltn_acc"]).sum())
    spread = m.max() - m.min()
    holds = bool(improved == len(m) and spread["ltn_acc_cf_sg"] < spread["ltn_acc_cf"])
    return holds, (f"acc+CF below acc in {improved} of {len(m)} subgroups; spread (max − min) of subgroup CF-MSE: "
                   f"acc+CF {_fmt(spread['ltn_acc_cf'])}, acc+CF_sg {_fmt(spread['ltn_acc_cf_sg'])}")


# ---------------------------------------------------------------------------- Q2
_BASELINES = ("cnf", "gan", "dcevae")


@claim_check("Q2.1", "LTN(acc+CF) reaches a lower CF-MSE than CNF, GAN and DCEVAE on every dataset.", "§7.2, Table 1", "q2")
def _q2_ltn_fairer_than_baselines(e: Evidence) -> tuple[bool | None, str]:
    ds = e.have("ltn_acc_cf", *_BASELINES)
    ok = {d: all(e.cf[(d, "ltn_acc_cf")] < e.cf[(d, b)] for b in _BASELINES) for d in ds}
    return _verdict(ok), "; ".join(f"{dataset_name(d)} LTN {_fmt(e.cf[(d, 'ltn_acc_cf')])} vs "
                                   + "/".join(_fmt(e.cf[(d, b)]) for b in _BASELINES) for d in ds)


@claim_check("Q2.2", "Except on COMPAS, the fairness axioms cost accuracy (or MSE) compared with CNF.", "§7.2, Table 1", "q2")
def _q2_fairness_costs_accuracy(e: Evidence) -> tuple[bool | None, str]:
    ds = e.have("ltn_acc_cf", "ltn_acc_cf_sg", "cnf")
    best_fair = {d: max(e.perf(d, "ltn_acc_cf"), e.perf(d, "ltn_acc_cf_sg")) for d in ds}
    ok = {d: (best_fair[d] >= e.perf(d, "cnf")) if d == "compas" else (best_fair[d] < e.perf(d, "cnf")) for d in ds}

    def best_text(d: str) -> str:
        best = "ltn_acc_cf" if e.perf(d, "ltn_acc_cf") >= e.perf(d, "ltn_acc_cf_sg") else "ltn_acc_cf_sg"
        return e.perf_text(d, best)

    return _verdict(ok), "; ".join(f"{dataset_name(d)} best fair LTN {best_text(d)} vs CNF {e.perf_text(d, 'cnf')}" for d in ds)


@claim_check("Q2.3", "The GAN method is more accurate than LTN(acc+CF) on COMPAS but less fair, overall and in the worst subgroup.",
             "§7.2, Table 1", "q2")
def _q2_gan_accurate_but_unfair(e: Evidence) -> tuple[bool | None, str]:
    ds = [d for d in e.have("ltn_acc_cf", "gan") if d == "compas"]
    ok = {d: e.perf(d, "gan") > e.perf(d, "ltn_acc_cf") and e.cf[(d, "gan")] > e.cf[(d, "ltn_acc_cf")]
          and e.worst[(d, "gan")] > e.worst[(d, "ltn_acc_cf")] for d in ds}
    return _verdict(ok), "; ".join(
        f"COMPAS accuracy GAN {_fmt(e.acc.get((d, 'gan')))} vs LTN {_fmt(e.acc.get((d, 'ltn_acc_cf')))}, CF-MSE {_fmt(e.cf[(d, 'gan')])} vs "
        f"{_fmt(e.cf[(d, 'ltn_acc_cf')])}, worst {_fmt(e.worst[(d, 'gan')])} vs {_fmt(e.worst[(d, 'ltn_acc_cf')])}" for d in ds)


@claim_check("Q2.4", "DCEVAE is accurate but far from counterfactually fair: its CF-MSE is above CNF's and LTN(acc+CF)'s on every dataset.",
             "§7.2, Table 1", "q2")
def _q2_dcevae_unfair(e: Evidence) -> tuple[bool | None, str]:
    ds = e.have("dcevae", "cnf", "ltn_acc_cf")
    ok = {d: e.cf[(d, "dcevae")] > e.cf[(d, "cnf")] and e.cf[(d, "dcevae")] > e.cf[(d, "ltn_acc_cf")] for d in ds}
    return _verdict(ok), "; ".join(f"{dataset_name(d)} CF-MSE {_fmt(e.cf[(d, 'dcevae')])} ({e.perf_text(d, 'dcevae')})" for d in ds)


# ---------------------------------------------------------------------------- Q3
def _cke_runs(e: Evidence, dataset: str) -> list[Mapping[str, Any]]:
    """The ``ltn_acc_cf_cke`` records of ``dataset`` that hold CKE results."""
    return [r for r in e.records if r["config"]["dataset"] == dataset and r["config"]["setting"] == "ltn_acc_cf_cke" and "cke" in r]


@claim_check("Q3.1", "On COMPAS, knowledge extraction finds an imbalance for age in the Black group (ours: Non-Caucasian); after "
             "the A5 axiom the imbalance falls below the threshold (0.1).", "§7.3, Figure 4", "q3")
def _q3_compas_age_imbalance(e: Evidence) -> tuple[bool | None, str]:
    runs = _cke_runs(e, "compas")
    if not runs:
        return None, ""
    cands = cke_candidates(e.records)
    compas_c = cands[(cands["dataset"] == "compas") & (cands["setting"] == "ltn_acc_cf_cke")] if not cands.empty else cands
    found = compas_c[(compas_c["feature"] == "age") & (compas_c["group"] == "Non-Caucasian") & compas_c["candidate"]]
    below = found["imbalance_after"] < found["threshold"]
    holds = bool(len(found) > len(runs) / 2 and below.all())
    top = compas_c.sort_values("imbalance", ascending=False).head(1)
    return holds, (f"(Non-Caucasian, age) above the threshold in {len(found)} of {len(runs)} runs"
                   + (f", below it after A5 in {int(below.sum())}" if len(found) else "")
                   + (f"; largest imbalance {top['group'].iloc[0]}/{top['feature'].iloc[0]} {_fmt(top['imbalance'].iloc[0])}" if len(top) else ""))


@claim_check("Q3.2", "Discouraging age widens the imbalance for other features, especially priors count.", "§7.3, Figure 4", "q3")
def _q3_other_features_widen(e: Evidence) -> tuple[bool | None, str]:
    return None, ("not checkable here: age is COMPAS's only immutable feature (§6.1), so no counterfactual explanation "
                  "intervenes on priors count")


def _compas_cke_datasets(e: Evidence) -> list[str]:
    return [d for d in e.have("ltn_acc_cf", "ltn_acc_cf_cke", "ltn_acc_cf_sg", "ltn_acc_cf_sg_cke") if d in ("compas", "compas_age")]


def _cke_change(values: Mapping[tuple[str, str], float], datasets: Iterable[str]) -> str:
    return "; ".join(f"{dataset_name(d)} {_fmt(values[(d, 'ltn_acc_cf')])} → {_fmt(values[(d, 'ltn_acc_cf_cke')])}, "
                     f"{_fmt(values[(d, 'ltn_acc_cf_sg')])} → {_fmt(values[(d, 'ltn_acc_cf_sg_cke')])}" for d in datasets)


@claim_check("Q3.3", "On both COMPAS variants the CKE axiom lowers CF-MSE (acc+CF → acc+CF+CKE and acc+CF_sg → acc+CF_sg+CKE).",
             "Table 2", "q3")
def _q3_cke_lowers_cf_mse(e: Evidence) -> tuple[bool | None, str]:
    ds = _compas_cke_datasets(e)
    ok = {d: e.cf[(d, "ltn_acc_cf_cke")] < e.cf[(d, "ltn_acc_cf")] and e.cf[(d, "ltn_acc_cf_sg_cke")] < e.cf[(d, "ltn_acc_cf_sg")] for d in ds}
    return _verdict(ok), _cke_change(e.cf, ds)


@claim_check("Q3.4", "On both COMPAS variants accuracy falls when the CKE axiom is added.", "Table 2", "q3")
def _q3_cke_costs_accuracy(e: Evidence) -> tuple[bool | None, str]:
    ds = _compas_cke_datasets(e)
    ok = {d: e.acc[(d, "ltn_acc_cf_cke")] < e.acc[(d, "ltn_acc_cf")] and e.acc[(d, "ltn_acc_cf_sg_cke")] < e.acc[(d, "ltn_acc_cf_sg")] for d in ds}
    return _verdict(ok), _cke_change(e.acc, ds)


@claim_check("Q3.5", "On Adult (one run), adding CKE axioms one by one keeps accuracy stable (within 0.02) and improves CF-MSE, "
             "but the worst-subgroup CF-MSE worsens with each axiom after the first.", "Table 3", "q3")
def _q3_adult_cke_steps(e: Evidence) -> tuple[bool | None, str]:
    rec = find_record(e.records, "adult", "ltn_acc_cf_cke", 0)
    if rec is None or "cke" not in rec:
        return None, ""
    steps = rec["cke"]["steps"]
    if len(steps) < 3:
        return False, f"only {len(steps) - 1} CKE axiom(s) extracted on Adult fold 0 (the paper adds 3)"
    accs = [float(s["accuracy"]) for s in steps]
    cfs = [float(s["cf_mse"]) for s in steps]
    ws = [float(s["cf_mse_worst_subgroup"]) for s in steps]
    stable = max(accs) - min(accs) <= 0.02
    cf_better = min(cfs[1:]) < cfs[0]
    worse_after_first = all(ws[k] > ws[k - 1] for k in range(2, len(ws)))
    return bool(stable and cf_better and worse_after_first), (
        f"accuracy {min(accs):.3f}–{max(accs):.3f}; CF-MSE {' → '.join(_fmt(v) for v in cfs)}; "
        f"worst subgroup {' → '.join(_fmt(v) for v in ws)}; axioms: " + ", ".join(axiom_label(s['axiom']) for s in steps[1:]))


@claim_check("Q3.6", "On Lawschool, no undesirable explanation (race) is detected once the CF axiom is trained.", "§7.3", "q3")
def _q3_lawschool_nothing_found(e: Evidence) -> tuple[bool | None, str]:
    law = _cke_runs(e, "lawschool")
    if not law:
        return None, ""
    n_found = sum(bool(r["cke"]["candidates"]) for r in law)
    return n_found == 0, (f"candidates after acc+CF in {n_found} of {len(law)} runs "
                          "(the first half of the claim, after accuracy-only training, is not run)")


# ---------------------------------------------------------------------------- Q4
@claim_check("Q4.1", "The existence query (equation (2)) finds, for a negatively predicted person in each of four Adult subgroups, "
             "a similar person in the same subgroup with a different decision.", "§7.4, Table 4", "q4")
def _q4_existence_query(e: Evidence) -> tuple[bool | None, str]:
    rec = find_record(e.records, "adult", "ltn_acc_cf", 0)
    if rec is None or not rec.get("queries"):
        return None, ""
    eq2 = rec["queries"].get("eq2", [])
    with_nb = [q["subgroup"] for q in eq2 if q.get("neighbours")]
    return len(with_nb) == len(TABLE4_PAPER_SAT), "; ".join(
        f"{q['subgroup']}: sat {_fmt(q['sat'])} (paper {_fmt(TABLE4_PAPER_SAT.get(q['subgroup'], np.nan))})" for q in eq2)


# ---------------------------------------------------------------------------- appendices
@claim_check("A.1", "Trained on the GAN's counterfactuals, LTN(acc+CF) has a lower CF-MSE than the GAN method (on the GAN's own "
             "counterfactuals) on every dataset.", "Appendix A, Table 5", "appendix_a")
def _a_ltn_fairer_on_gan_counterfactuals(e: Evidence) -> tuple[bool | None, str]:
    own_cf = mean_by_method(records_frame(e.records, own_counterfactuals=True), "cf_mse")
    ds = [d for d in DATASET_ORDER if (d, "gan") in own_cf and (d, "ltn_acc_cf@gan") in own_cf]
    ok = {d: own_cf[(d, "ltn_acc_cf@gan")] < own_cf[(d, "gan")] for d in ds}
    return _verdict(ok), "; ".join(f"{dataset_name(d)} LTN {_fmt(own_cf[(d, 'ltn_acc_cf@gan')])} vs GAN {_fmt(own_cf[(d, 'gan')])}" for d in ds)


@claim_check("A.2", "…and is less accurate than the GAN method on both COMPAS variants but more accurate on Adult and Lawschool.",
             "Appendix A, Table 5", "appendix_a")
def _a_accuracy_on_gan_counterfactuals(e: Evidence) -> tuple[bool | None, str]:
    ds = [d for d in DATASET_ORDER if (d, "gan") in e.cf and (d, "ltn_acc_cf@gan") in e.cf]
    ok = {d: (e.perf(d, "ltn_acc_cf@gan") < e.perf(d, "gan")) if d.startswith("compas") else (e.perf(d, "ltn_acc_cf@gan") > e.perf(d, "gan"))
          for d in ds}
    return _verdict(ok), "; ".join(f"{dataset_name(d)} LTN {e.perf_text(d, 'ltn_acc_cf@gan')} vs GAN {e.perf_text(d, 'gan')}" for d in ds)


@claim_check("B.1", "Higher weights on the accuracy axioms tend to raise accuracy and lower counterfactual fairness (higher CF-MSE), "
             "but not on every dataset (holds here if both trends appear on most datasets).", "Appendix B, Table 6", "appendix_b")
def _b_weight_trend(e: Evidence) -> tuple[bool | None, str]:
    grid = weight_grid_frame(e.records)
    if grid.empty or grid["log2_ratio"].nunique() <= 2:
        return None, ""
    trend, parts = {}, []
    for d, g in grid.groupby("dataset", sort=False):
        m = g.groupby("log2_ratio")[[performance_metric(d), "cf_mse"]].mean()
        if len(m) < 3:
            continue
        p = m[performance_metric(d)] * (1 if performance_metric(d) == "accuracy" else -1)
        r_perf = float(p.corr(pd.Series(m.index, index=m.index), method="spearman"))
        r_cf = float(m["cf_mse"].corr(pd.Series(m.index, index=m.index), method="spearman"))
        trend[d] = r_perf > 0 and r_cf > 0
        parts.append(f"{dataset_name(d)} ρ(performance) {r_perf:+.2f}, ρ(CF-MSE) {r_cf:+.2f}")
    if not trend:
        return None, ""
    return sum(trend.values()) > len(trend) / 2, "Spearman correlation with log₂(acc weight / CF weight): " + "; ".join(parts)
