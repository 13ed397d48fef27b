"""Appendix C, "What the conclusions depend on": the headline claims re-decided with one factor changed.

Four choices could carry the paper's ranking: the **ruler** (which twins and which score measure
counterfactual fairness), the **twins** the methods train on, the **fuzzy semantics** of the
knowledge base and the **GAN variant**. For each level of each factor the records are turned into
the world that level describes (:func:`factor_world`), and the registered claim checks
(:func:`~cffair.reporting.registry.evaluate_claims`, the same rules as the claims table) decide the
headline claims (:data:`HEADLINE_CLAIMS`) there. The comparison is always with the book's records
restricted to the same datasets and folds (:func:`dependence_frame`), so a verdict that moves does so
because of the factor, not because fewer folds were compared.

* ruler: the appendix's rulers (``default``, ``independent``: :func:`~cffair_book.rulers.ruler_records`),
  and the two scores beside CF-MSE (the flip rate, the calibrated CF-MSE) put in CF-MSE's place;
* twins: the methods that learn from the flow's twins (LTN(acc+CF), LTN(acc+CF_sg), CNF) trained
  *and* scored on the sound twins (option ``twins="default"``), every other method scored on them;
* semantics: LTN(acc+CF) and LTN(acc+CF_sg) under another logic (option ``semantics``), on the datasets
  where that logic can act (:func:`cffair.experiments.grid.study_logics`: Gödel logic has no equality of
  real scores, so its Lawschool records, the product logic's model, are not counted);
* GAN: the GAN's records averaged over its seeds, as re-implemented and as released (option
  ``gan_variant``), with the LTN trained on the released GAN's twins.

Also here: the saturation diagnostics of appendix C (:func:`saturation_frame`,
:func:`saturation_finding`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from cffair.errors import DataError
from cffair.reporting.names import DATASET_ORDER, dataset_name
from cffair.reporting.style import FONT_PT, MAX_WIDTH_IN, book_style, finish
from cffair.reporting.tables import HTMLTable, format_table
from cffair.reporting.verdicts import FAILS, HOLDS, INCONCLUSIVE, PENDING, VACUOUS
from cffair_book.claims import evaluate_claims
from cffair_book.rulers import ruler_records

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

__all__ = [
    "DEPENDENCE_LEVELS",
    "HEADLINE_CLAIMS",
    "Level",
    "dependence_frame",
    "dependence_table",
    "factor_paragraph",
    "factor_world",
    "plot_dependence",
    "saturation_finding",
    "saturation_frame",
    "saturation_table",
]

Records = Sequence[Mapping[str, Any]]

#: The claims about Table 1 and appendix A whose verdicts the factors could move.
HEADLINE_CLAIMS: tuple[str, ...] = ("Q1.1", "Q1.2", "Q1.3", "Q2.1", "Q2.3", "Q2.4", "A.1", "A.2")
#: What a cell says when the level has no records, or when the factor cannot act on the claim.
NO_RECORDS = "no records"
NOT_APPLICABLE = "n/a"
#: The settings of the paper's protocol that learn from the flow's twins.
_TRAINED_ON_TWINS = ("ltn_acc_cf", "ltn_acc_cf_sg", "cnf")


@dataclass(frozen=True)
class Level:
    """One level of a factor: its factor, its label and the claims it can act on."""

    factor: str
    name: str
    label: str
    claims: tuple[str, ...]


_TABLE1 = ("Q1.1", "Q1.2", "Q1.3", "Q2.1", "Q2.3", "Q2.4")
#: The factors and their levels, in the figure's order.
DEPENDENCE_LEVELS: tuple[Level, ...] = (
    Level("ruler", "default", "default flow", _TABLE1),
    Level("ruler", "independent", "independent flow", _TABLE1),
    Level("ruler", "cf_flip_rate", "flip rate", _TABLE1),
    Level("ruler", "calibrated_cf_mse", "calibrated CF-MSE", _TABLE1),
    Level("twins", "default", "sound twins", _TABLE1),
    Level("semantics", "lukasiewicz", "Łukasiewicz", _TABLE1),
    Level("semantics", "godel", "Gödel", _TABLE1),
    Level("semantics", "goguen", "Goguen", _TABLE1),
    Level("gan", "reimplemented", "re-implemented, seeds", ("Q2.1", "Q2.3", "A.1", "A.2")),
    Level("gan", "released", "as released, seeds", ("Q2.1", "Q2.3", "A.1", "A.2")),
)
FACTOR_TITLES: dict[str, str] = {
    "ruler": "the ruler",
    "twins": "the twins",
    "semantics": "the fuzzy semantics",
    "gan": "the GAN variant",
}


# ---------------------------------------------------------------------------- worlds
def _cfg(rec: Mapping[str, Any]) -> Mapping[str, Any]:
    return rec["config"]


def _opts(rec: Mapping[str, Any]) -> dict[str, Any]:
    return dict(_cfg(rec).get("options") or {})


def _plain(rec: Mapping[str, Any]) -> bool:
    """A record of the paper's protocol (no option, no tag)."""
    return not _cfg(rec).get("options") and not _cfg(rec).get("tag")


def _slot(rec: Mapping[str, Any]) -> tuple:
    c = _cfg(rec)
    return (c["dataset"], int(c.get("repeat", 0) or 0), int(c["fold"]), c["setting"], c.get("cf_source", "cnf"))


def _seed_slot(rec: Mapping[str, Any]) -> tuple:
    """:func:`_slot` and the training seed (the protocol's seeds: each replaced by the variant of its own seed)."""
    return (*_slot(rec), int(_cfg(rec).get("seed", 0) or 0))


def _as_plain(rec: Mapping[str, Any], metrics: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """A variant's record presented as the protocol's: options and tag dropped (the claim checks read plain records)."""
    cfg = {k: v for k, v in _cfg(rec).items() if k not in ("options", "tag")}
    out = {**rec, "config": cfg}
    if metrics is not None:
        out["metrics"] = dict(metrics)
    return out


def _swap(
    records: Records,
    variant: Callable[[Mapping[str, Any]], bool],
    replaced: Callable[[Mapping[str, Any]], bool],
    keep: Callable[[Mapping[str, Any]], dict[str, Any] | None] = lambda r: dict(r),
) -> list[dict[str, Any]]:
    """The records of the folds the variant covers: each ``replaced`` slot taken by its variant
    record (a slot without one is left out), every other plain record passed through ``keep``."""
    by_slot = {_seed_slot(r): r for r in records if variant(r)}
    covered = {s[:3] for s in by_slot}
    out = []
    for r in records:
        if not _plain(r) or _slot(r)[:3] not in covered:
            continue
        if replaced(r):
            v = by_slot.get(_seed_slot(r))
            if v is not None:
                out.append(_as_plain(v))
        elif (k := keep(r)) is not None:
            out.append(k)
    return out


def _metric_world(records: Records, metric: str) -> list[dict[str, Any]]:
    """Every plain record with ``metric`` in CF-MSE's place (records without it are left out)."""
    out = []
    for r in records:
        m = r.get("metrics") or {}
        if not _plain(r) or m.get(metric) is None:
            continue
        own = dict(r.get("metrics_own_counterfactuals") or {})
        new = {**r, "metrics": {**m, "cf_mse": m[metric]}}
        if own.get(metric) is not None:
            new["metrics_own_counterfactuals"] = {**own, "cf_mse": own[metric]}
        out.append(new)
    return out


def _mean_metrics(recs: Sequence[Mapping[str, Any]], field: str) -> dict[str, Any] | None:
    """The first record's ``field`` with every scalar metric averaged over ``recs``."""
    parts = [r.get(field) for r in recs if r.get(field) is not None]
    if not parts:
        return None
    out = dict(parts[0])
    for k, v in parts[0].items():
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            vals = [p[k] for p in parts if isinstance(p.get(k), (int, float))]
            out[k] = float(np.mean(vals))
    return out


def _gan_world(records: Records, variant: str) -> list[dict[str, Any]]:
    """The GAN's records averaged over its seeds (per fold), as re-implemented or as released; the LTN
    on the GAN's twins from the released GAN's for ``released``."""
    released = variant == "released"

    def is_variant_gan(r: Mapping[str, Any]) -> bool:
        return _cfg(r)["setting"] == "gan" and (_opts(r).get("gan_variant") == "released") == released

    gans: dict[tuple, list[Mapping[str, Any]]] = {}
    for r in records:
        if is_variant_gan(r):
            gans.setdefault(_slot(r), []).append(r)
    # a level is shown only where some slot has more than the paper grid's one GAN run (its seeds or variant)
    covered = {s[:3] for s, rs in gans.items() if released or len(rs) > 1}
    ltn_gan = {
        _slot(r): r for r in records if _cfg(r).get("cf_source") == "gan" and _opts(r).get("gan_variant") == "released"
    }
    out = []
    for r in records:
        c = _cfg(r)
        if not _plain(r) or _slot(r)[:3] not in covered:
            continue
        if c["setting"] == "gan":
            rs = gans.get(_slot(r))
            if rs:
                metrics = _mean_metrics(rs, "metrics")
                own = _mean_metrics(rs, "metrics_own_counterfactuals")
                new = _as_plain(rs[0], metrics)
                if own is not None:
                    new["metrics_own_counterfactuals"] = own
                out.append(new)
        elif c.get("cf_source") == "gan" and released:
            if (v := ltn_gan.get(_slot(r))) is not None:
                out.append(_as_plain(v))
        else:
            out.append(dict(r))
    return out


def factor_world(records: Records, level: Level) -> list[dict[str, Any]]:
    """The records as they would read at ``level`` (empty when no record describes it)."""
    if level.factor == "ruler":
        plain = [r for r in records if _plain(r)]
        if level.name in ("default", "independent"):
            return (
                ruler_records(plain, level.name)
                if any((r.get("metrics") or {}).get("rulers", {}).get(level.name) for r in plain)
                else []
            )
        return _metric_world(records, level.name)
    if level.factor == "twins":

        def keep(r: Mapping[str, Any]) -> dict[str, Any] | None:  # every other method scored on the sound twins
            scored = ruler_records([r], level.name)
            return scored[0] if scored else None

        return _swap(
            records,
            lambda r: _opts(r).get("twins") == level.name,
            lambda r: (
                _cfg(r)["setting"] in (*_TRAINED_ON_TWINS, "ltn_acc") and _cfg(r).get("cf_source", "cnf") == "cnf"
            ),
            keep,
        )
    if level.factor == "semantics":
        from cffair.experiments.grid import study_logics

        return _swap(
            records,  # a logic that cannot act on a dataset (Gödel on Lawschool's scores) is not counted there
            lambda r: _opts(r).get("semantics") == level.name and level.name in study_logics(_cfg(r)["dataset"]),
            lambda r: (
                _cfg(r)["setting"] in ("ltn_acc_cf", "ltn_acc_cf_sg") and _cfg(r).get("cf_source", "cnf") == "cnf"
            ),
        )
    if level.factor == "gan":
        return _gan_world(records, level.name)
    raise DataError(
        f"unknown factor {level.factor!r}; the factors are {', '.join(dict.fromkeys(f.factor for f in DEPENDENCE_LEVELS))}."
    )


def _coverage(recs: Records) -> set[tuple]:
    return {(_cfg(r)["dataset"], int(_cfg(r).get("repeat", 0) or 0), int(_cfg(r)["fold"])) for r in recs}


def _restrict(records: Records, coverage: set[tuple]) -> list[Mapping[str, Any]]:
    """The plain records on the datasets and folds of ``coverage``."""
    return [
        r
        for r in records
        if _plain(r) and (_cfg(r)["dataset"], int(_cfg(r).get("repeat", 0) or 0), int(_cfg(r)["fold"])) in coverage
    ]


def _verdicts(records: Records, keys: Iterable[str]) -> dict[str, str]:
    wanted = set(keys)
    return {c.key: c.verdict for c in evaluate_claims(records) if c.key in wanted}


# ---------------------------------------------------------------------------- the tidy frame
def dependence_frame(
    records: Records, levels: Sequence[Level] = DEPENDENCE_LEVELS, claims: Sequence[str] = HEADLINE_CLAIMS
) -> pd.DataFrame:
    """One row per headline claim and factor level: ``claim, factor, level, label, base, verdict,
    changed, reverses, datasets``.

    ``base`` is the claim's verdict on the book's records restricted to the level's datasets and folds,
    ``verdict`` the verdict in the level's :func:`factor_world`; ``changed`` whether they differ, ``reverses``
    whether one says *holds* and the other *does not hold*. A level without records gives
    :data:`NO_RECORDS`, a claim the level cannot act on :data:`NOT_APPLICABLE` (both with
    ``changed`` False)."""
    rows = []
    for lv in levels:
        recs = factor_world(records, lv)
        cover = _coverage(recs)
        datasets = ", ".join(dataset_name(d) for d in DATASET_ORDER if d in {c[0] for c in cover})
        after = _verdicts(recs, lv.claims) if recs else {}
        before = _verdicts(_restrict(records, cover), lv.claims) if recs else {}
        for k in claims:
            if k not in lv.claims:
                b = v = NOT_APPLICABLE
            elif not recs:
                b = v = NO_RECORDS
            else:
                b, v = before.get(k, PENDING), after.get(k, PENDING)
            rows.append(
                {
                    "claim": k,
                    "factor": lv.factor,
                    "level": lv.name,
                    "label": lv.label,
                    "base": b,
                    "verdict": v,
                    "changed": b != v,
                    "reverses": {b, v} == {HOLDS, FAILS},
                    "datasets": datasets,
                }
            )
    return pd.DataFrame(
        rows, columns=["claim", "factor", "level", "label", "base", "verdict", "changed", "reverses", "datasets"]
    )


_SYMBOL = {HOLDS: "✔", FAILS: "✘", INCONCLUSIVE: "?", VACUOUS: "∅", PENDING: "…", NO_RECORDS: "", NOT_APPLICABLE: "·"}
_SHADE = {HOLDS: 0, FAILS: 1, INCONCLUSIVE: 2, VACUOUS: 3, PENDING: 4, NO_RECORDS: 4, NOT_APPLICABLE: 5}


def dependence_table(frame: pd.DataFrame, caption: str | None = None) -> HTMLTable:
    """The headline table: a row per claim, a column per factor, each cell its levels' verdicts
    (``level: verdict``, or ``level: book's verdict → new one`` where it differs); levels that
    cannot act on the claim are left out, and a factor with none is "n/a". Four columns of words
    that wrap, so the table fits a page's column whatever the number of levels."""
    if frame.empty:
        raise DataError("no claims to show: the dependence frame is empty.")
    cells: dict[str, dict[str, list[str]]] = {}
    for r in frame.itertuples():
        row = cells.setdefault(r.claim, {})
        parts = row.setdefault(FACTOR_TITLES[r.factor], [])
        if r.verdict == NOT_APPLICABLE:
            continue
        parts.append(f"{r.label}: {r.verdict}" if not r.changed else f"{r.label}: {r.base} → {r.verdict}")
    shown = pd.DataFrame(
        {
            claim: {factor: "; ".join(parts) or NOT_APPLICABLE for factor, parts in row.items()}
            for claim, row in cells.items()
        }
    ).T
    shown.index.name = "claim"
    return format_table(shown, caption)


def plot_dependence(frame: pd.DataFrame, ax: Axes | None = None) -> Figure:
    """The headline claims (rows) × factor levels (columns): each cell's colour and symbol its verdict
    at that level; a thick frame where it differs from the book's verdict on the same folds, a
    cross-hatch where it reverses."""
    import matplotlib.pyplot as plt
    from matplotlib.colors import ListedColormap
    from matplotlib.patches import Rectangle

    if frame.empty:
        raise DataError("nothing to plot: the dependence frame is empty.")
    claims = list(dict.fromkeys(frame["claim"]))
    cols = list(dict.fromkeys(zip(frame["factor"], frame["label"])))
    grid = frame.set_index(["claim", "factor", "label"])
    with book_style():
        if ax is None:
            fig, ax = plt.subplots(figsize=(MAX_WIDTH_IN, 0.42 * len(claims) + 2.6), layout="constrained")
        else:
            fig = ax.figure
        values = np.array([[_SHADE.get(grid.loc[(c, f, lab), "verdict"], 4) for f, lab in cols] for c in claims], float)
        cmap = ListedColormap(["#4c9a6a", "#c8553d", "#e8c547", "#9aa5b1", "#f4f4f4", "#ffffff"])
        ax.imshow(values, cmap=cmap, vmin=-0.5, vmax=5.5, aspect="auto")
        for i, c in enumerate(claims):
            for j, (f, lab) in enumerate(cols):
                row = grid.loc[(c, f, lab)]
                ax.text(j, i, _SYMBOL.get(row["verdict"], "?"), ha="center", va="center", fontsize=FONT_PT)
                if row["changed"]:
                    ax.add_patch(
                        Rectangle(
                            (j - 0.5, i - 0.5),
                            1,
                            1,
                            fill=False,
                            lw=2.5,
                            edgecolor="black",
                            hatch="xx" if row["reverses"] else None,
                        )
                    )
        ax.set_yticks(range(len(claims)), claims)
        ax.set_xticks(range(len(cols)), [lab for _, lab in cols], rotation=60, ha="right")
        ax.grid(False)
        for j in range(1, len(cols)):  # a line between factors
            if cols[j][0] != cols[j - 1][0]:
                ax.axvline(j - 0.5, color="black", lw=1)
        ax.set_title("✔ holds  ✘ does not hold  ? inconclusive\n· not affected  grey: no records yet", fontsize=FONT_PT)
    return finish(fig)


# ---------------------------------------------------------------------------- one paragraph per factor
def _levels_text(rows: pd.DataFrame) -> str:
    return ", ".join(dict.fromkeys(rows["label"]))


def factor_paragraph(frame: pd.DataFrame, factor: str) -> str:
    """What ``factor`` does to the headline claims, in words chosen by :func:`dependence_frame`'s numbers."""
    if factor not in FACTOR_TITLES:
        raise DataError(f"unknown factor {factor!r}; the factors are {', '.join(FACTOR_TITLES)}.")
    rows = frame[(frame["factor"] == factor) & (frame["verdict"] != NOT_APPLICABLE)]
    title = FACTOR_TITLES[factor]
    head = title[0].upper() + title[1:]
    seen = rows[rows["verdict"] != NO_RECORDS]
    if seen.empty:
        return (
            f"**{head}.** No records of this study yet, so what this factor does to the ranking is not known: "
            "it needs the study's records (`cffair reproduce --mode full --only appendix_c_studies`)."
        )
    missing = rows[rows["verdict"] == NO_RECORDS]
    n = seen["claim"].nunique()
    where = f" (on {seen['datasets'].iloc[0]})" if seen["datasets"].nunique() == 1 else ""
    rev = seen[seen["reverses"]]
    moved = seen[seen["changed"] & ~seen["reverses"]]
    text = f"**{head}.** Across {_levels_text(seen)}{where}, "
    if rev.empty and moved.empty:
        text += (
            f"none of the {n} headline claims it can act on changes its verdict: the paper's ranking does not rest "
            f"on {title}."
        )
    elif rev.empty:
        k = moved["claim"].nunique()
        text += (
            f"no verdict reverses, but {k} of the {n} claims {_verb(k, 'moves', 'move')} between a verdict and "
            f"inconclusive ({_changes(moved)}): {title} moves margins, not the ranking."
        )
    else:
        k, m = rev["claim"].nunique(), moved["claim"].nunique()
        text += (
            f"{k} of the {n} claims {_verb(k, 'reverses', 'reverse')} ({_changes(rev)})"
            + (f" and {m} more {_verb(m, 'moves', 'move')} to or from inconclusive ({_changes(moved)})" if m else "")
            + f": this part of the paper's ranking belongs to {title}, not to the methods."
        )
    if len(missing):
        text += f" Not in the records yet: {_levels_text(missing)}."
    return text


def _verb(count: int, singular: str, plural: str) -> str:
    """The verb agreeing with ``count`` things: ``_verb(1, "moves", "move")`` is ``"moves"``."""
    return singular if count == 1 else plural


def _changes(rows: pd.DataFrame) -> str:
    return "; ".join(f"{r.claim} {r.base} → {r.verdict} with {r.label}" for r in rows.itertuples())


# ---------------------------------------------------------------------------- saturation (appendix C)
SATURATION_ROWS: tuple[tuple[str, str], ...] = (
    ("ltn_acc", "LTN after pre-training"),
    ("ltn_acc_cf", "LTN after A4"),
    ("ltn_acc_cf(a4_body=eq)", "LTN, Eq-bodied A4"),
    ("cnf", "CNF MLP (BCE)"),
)


def saturation_frame(records: Records) -> pd.DataFrame:
    """Per dataset (paper grid's partition): the saturation of the test outputs of each row of
    :data:`SATURATION_ROWS` (mean over the folds that have it) and the pre-trained model's share of
    A4's gradient on flipped training pairs at p = 1, 2, 6 (columns ``share_p1`` …)."""
    rows = []
    for d in DATASET_ORDER:
        recs = [
            r
            for r in records
            if _cfg(r)["dataset"] == d and not _cfg(r).get("repeat") and _cfg(r).get("cf_source", "cnf") == "cnf"
        ]
        if not recs:
            continue
        row: dict[str, Any] = {"dataset": d}
        for key, label in SATURATION_ROWS:
            setting, _, opt = key.partition("(")
            want = {"a4_body": "eq"} if opt else {}
            vals = [
                r["metrics"].get("saturation")
                for r in recs
                if _cfg(r)["setting"] == setting and _opts(r) == want and not _cfg(r).get("tag")
            ]
            vals = [v for v in vals if v is not None]
            row[label] = float(np.mean(vals)) if vals else np.nan
        shares = [
            r.get("diagnostics", {}).get("a4_gradient_share")
            for r in recs
            if _cfg(r)["setting"] == "ltn_acc" and _plain(r)
        ]
        for p in ("1", "2", "6"):
            vals = [s[p] for s in shares if s and s.get(p) is not None and not np.isnan(s[p])]
            row[f"share_p{p}"] = float(np.mean(vals)) if vals else np.nan
        rows.append(row)
    cols = ["dataset", *(lab for _, lab in SATURATION_ROWS), "share_p1", "share_p2", "share_p6"]
    return pd.DataFrame(rows, columns=cols)


def saturation_table(frame: pd.DataFrame, caption: str | None = None) -> HTMLTable | None:
    """:func:`saturation_frame` for the page: datasets by display name, shares as percentages, the
    rows with no recorded saturation left out; ``None`` when no dataset has one yet."""
    known = frame.drop(columns="dataset").notna().any(axis=1) if not frame.empty else pd.Series(dtype=bool)
    shown = frame[known].copy()
    if shown.empty:
        return None
    shown["dataset"] = shown["dataset"].map(dataset_name)
    shown = shown.set_index("dataset").rename(
        columns={f"share_p{p}": f"A4's gradient on flipped pairs, p = {p}" for p in (1, 2, 6)}
    )
    return format_table(100 * shown, caption, float_format="{:.1f} %")


#: A model is called saturated when at least this share of its outputs is within 0.01 of 0 or 1.
SATURATED = 0.9
#: A change of saturation smaller than this (2 points) is called small.
SMALL = 0.02


def _pct(v: float) -> str:
    return f"{100 * v:.1f} %"


def saturation_finding(frame: pd.DataFrame) -> str:
    """What makes the LTN saturated and why p = 6 works, in words chosen by :func:`saturation_frame`."""
    pre, a4, eq, cnf = (lab for _, lab in SATURATION_ROWS)
    known = frame.dropna(subset=[pre, a4]) if not frame.empty else frame
    if known.empty:
        return (
            "No records with the saturation yet (it is recorded by today's code): which stage saturates the LTN is "
            "not known until the records are regenerated."
        )
    parts = []
    for values in known.itertuples(index=False):
        v = dict(zip(known.columns, values))
        name = dataset_name(v["dataset"])
        added = v[a4] - v[pre]
        s = f"{name}: {_pct(v[pre])} of LTN(acc)'s outputs are within 0.01 of 0 or 1, {_pct(v[a4])} after A4"
        if not np.isnan(v.get(eq, np.nan)):
            s += f", {_pct(v[eq])} with an Eq-bodied A4"
        if not np.isnan(v.get(cnf, np.nan)):
            s += f"; the CNF MLP {_pct(v[cnf])}"
        parts.append((s, v[pre], added, v.get(eq, np.nan)))
    text = "; ".join(p[0] for p in parts) + ". "
    pre_sat = all(p[1] >= SATURATED for p in parts)
    small = all(abs(p[2]) < SMALL for p in parts)
    if pre_sat and small:
        text += (
            "The model is saturated before A4 ever acts, and A4 adds little: the pre-training on the accuracy axioms "
            "(linear in D(x) for p = 1, so their maximiser is a hard 0/1 classifier) causes the saturation, not the "
            "fuzzy equivalence."
        )
    elif pre_sat:
        text += (
            "The model is saturated after pre-training already, and A4 changes the saturation by more than "
            f"{100 * SMALL:.0f} points on some dataset."
        )
    else:
        text += "The pre-trained model is not saturated on every dataset, so the saturation is not the pre-training's alone."
    shares = frame.dropna(subset=["share_p1", "share_p6"])
    if not shares.empty:
        p1, p6 = float(shares["share_p1"].mean()), float(shares["share_p6"].mean())
        text += (
            f" At the start of the fairness stage {_pct(p1)} of A4's gradient falls on the pairs whose decisions differ "
            f"with p = 1 and {_pct(p6)} with p = 6 (mean over datasets)"
        )
        text += (
            ": a larger p moves A4's pull onto the flipped pairs, which is why p = 6 lowers CF-MSE where p = 1 barely "
            "does."
            if p6 > p1
            else ": a larger p does not move A4's pull onto the flipped pairs here."
        )
    return text
