"""Appendix C, "What the conclusions depend on": the headline claims re-decided with one factor changed.

Four choices could carry the paper's ranking: the **ruler** (which twins and which score measure
counterfactual fairness), the **twins** the methods train on, the **fuzzy semantics** of the
knowledge base and the **GAN variant**. For each level of each factor the records are turned into
the world that level describes (:func:`factor_world`), and the registered claim checks
(:func:`~cffair.reporting.registry.evaluate_claims`, the same rules as the claims table) decide the
headline claims (:data:`HEADLINE_CLAIMS`) there. The comparison is always with the book's records
restricted to the same datasets and folds (:func:`dependence_frame`), so a verdict that moves does so
because of the factor, not because fewer folds were compared; and every row also carries the claims
table's own verdict (``base``), read from the same records
(:func:`~cffair_book.claims.claim_records`: one basis).

* ruler: the appendix's rulers (``default``, ``independent``: :func:`~cffair_book.rulers.ruler_records`),
  and the two co-primary scores beside CF-MSE (the flip rate, the calibrated CF-MSE) put in CF-MSE's place,
  overall and worst subgroup (:mod:`cffair.reporting._scores`);
* twins: the methods that learn from the flow's twins (LTN(acc+CF), LTN(acc+CF_sg), CNF) trained
  *and* scored on the sound twins (option ``twins="default"``), every other method scored on them;
* semantics: LTN(acc+CF) and LTN(acc+CF_sg) under another logic (option ``semantics``), on the datasets
  where that logic can act (:func:`cffair.experiments._grid.study_logics`: Gödel logic has no equality of
  real scores, so its Lawschool records, the product logic's model, are not counted);
* GAN: the GAN's records averaged over its seeds, as re-implemented and as released (option
  ``gan_variant``), with the LTN trained on the released GAN's twins.

The saturation diagnostics of appendix C (:func:`saturation_frame`, :func:`saturation_finding`) are
in :mod:`.saturation`, re-exported here.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from cffair.errors import DataError
from cffair.reporting import DATASET_ORDER, HTMLTable, dataset_name, format_table, score_records
from cffair.reporting._records import as_record, as_records
from cffair.reporting._style import FONT_PT, MAX_WIDTH_IN, book_style, finish
from cffair.reporting._verdicts import FAILS, HOLDS, INCONCLUSIVE, PENDING, VACUOUS, Rules
from cffair_book.claims import evaluate_claims
from cffair_book.registry import ROBUSTNESS_RULES, RobustnessColumn
from cffair_book.rulers import ruler_records
from cffair_book.saturation import SATURATION_ROWS, saturation_finding, saturation_frame, saturation_table
from cffair_book.wording import say, spoken

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

    from cffair.experiments import Record

__all__ = [
    "DEPENDENCE_LEVELS",
    "HEADLINE_CLAIMS",
    "SATURATION_ROWS",
    "ROBUSTNESS_WORLDS",
    "Level",
    "dependence_frame",
    "dependence_table",
    "factor_paragraph",
    "factor_world",
    "plot_dependence",
    "robustness_columns",
    "saturation_finding",
    "saturation_frame",
    "saturation_table",
]

Records = Sequence["Record"]

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
#: The factors whose title is a plural ("the twins move margins").
_PLURAL: frozenset[str] = frozenset({"twins"})

FACTOR_TITLES: dict[str, str] = {
    "ruler": "the ruler",
    "twins": "the twins",
    "semantics": "the fuzzy semantics",
    "gan": "the GAN variant",
}


# ---------------------------------------------------------------------------- worlds
def _plain(rec: Record) -> bool:
    """A record of the paper's protocol (no option, no tag)."""
    return not rec.config.options and not rec.config.tag


def _slot(rec: Record) -> tuple:
    c = rec.config
    return (c.dataset, c.repeat, c.fold, c.setting, c.cf_source)


def _seed_slot(rec: Record) -> tuple:
    """:func:`_slot` and the training seed (the protocol's seeds: each replaced by the variant of its own seed)."""
    return (*_slot(rec), rec.config.seed)


def _as_plain(rec: Record, metrics: Mapping[str, Any] | None = None) -> Record:
    """A variant's record presented as the protocol's: options and tag dropped (the claim checks read plain records)."""
    out = as_record({**rec, "config": replace(rec.config, options=(), tag="").to_dict()})
    if metrics is not None:
        out["metrics"] = dict(metrics)
    return out


def _swap(
    records: Records,
    variant: Callable[[Record], bool],
    replaced: Callable[[Record], bool],
    keep: Callable[[Record], Record | None] = lambda r: as_record(dict(r)),  # a copy
) -> list[Record]:
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


def _metric_world(records: Records, metric: str) -> list[Record]:
    """Every plain record measured with the score ``metric`` (:func:`~cffair.reporting.score_records`:
    overall *and* worst subgroup in that score, never a CF-MSE relabelled); records without it are left out."""
    return score_records([r for r in records if _plain(r)], metric)


def _mean_metrics(recs: Records, field: str) -> dict[str, Any] | None:
    """The first record's ``field`` with every scalar metric averaged over ``recs``."""
    parts: list[Mapping[str, Any]] = [p for r in recs if (p := r.get(field)) is not None]
    if not parts:
        return None
    out = dict(parts[0])
    for k, v in parts[0].items():
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            vals = [p[k] for p in parts if isinstance(p.get(k), (int, float))]
            out[k] = float(np.mean(vals))
    return out


def _gan_world(records: Records, variant: str) -> list[Record]:
    """The GAN's records averaged over its seeds (per fold), as re-implemented or as released; the LTN
    on the GAN's twins from the released GAN's for ``released``."""
    released = variant == "released"

    def is_variant_gan(r: Record) -> bool:
        return r.config.setting == "gan" and (r.config.option_map.get("gan_variant") == "released") == released

    gans: dict[tuple, list[Record]] = {}
    for r in records:
        if is_variant_gan(r):
            gans.setdefault(_slot(r), []).append(r)
    # a level is shown only where some slot has more than the paper grid's one GAN run (its seeds or variant)
    covered = {s[:3] for s, rs in gans.items() if released or len(rs) > 1}
    ltn_gan = {
        _slot(r): r
        for r in records
        if r.config.cf_source == "gan" and r.config.option_map.get("gan_variant") == "released"
    }
    out = []
    for r in records:
        c = r.config
        if not _plain(r) or _slot(r)[:3] not in covered:
            continue
        if c.setting == "gan":
            rs = gans.get(_slot(r))
            if rs:
                metrics = _mean_metrics(rs, "metrics")
                own = _mean_metrics(rs, "metrics_own_counterfactuals")
                new = _as_plain(rs[0], metrics)
                if own is not None:
                    new["metrics_own_counterfactuals"] = own
                out.append(new)
        elif c.cf_source == "gan" and released:
            if (v := ltn_gan.get(_slot(r))) is not None:
                out.append(_as_plain(v))
        else:
            out.append(as_record(dict(r)))  # a copy
    return out


def factor_world(records: Records, level: Level) -> list[Record]:
    """The records as they would read at ``level`` (empty when no record describes it)."""
    records = as_records(records)
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

        def keep(r: Record) -> Record | None:  # every other method scored on the sound twins
            scored = ruler_records([r], level.name)
            return scored[0] if scored else None

        return _swap(
            records,
            lambda r: r.config.option_map.get("twins") == level.name,
            lambda r: r.config.setting in (*_TRAINED_ON_TWINS, "ltn_acc") and r.config.cf_source == "cnf",
            keep,
        )
    if level.factor == "semantics":
        from cffair.experiments._grid import study_logics

        return _swap(
            records,  # a logic that cannot act on a dataset (Gödel on Lawschool's scores) is not counted there
            lambda r: (
                r.config.option_map.get("semantics") == level.name and level.name in study_logics(r.config.dataset)
            ),
            lambda r: r.config.setting in ("ltn_acc_cf", "ltn_acc_cf_sg") and r.config.cf_source == "cnf",
        )
    if level.factor == "gan":
        return _gan_world(records, level.name)
    raise DataError(
        f"unknown factor {level.factor!r}; the factors are {', '.join(dict.fromkeys(f.factor for f in DEPENDENCE_LEVELS))}."
    )


def _level(factor: str, name: str) -> Level:
    return next(lv for lv in DEPENDENCE_LEVELS if lv.factor == factor and lv.name == name)


#: The robustness table's other worlds (:func:`~cffair_book.registry.robustness_frame`): the book's rules
#: on each other co-primary score (overall and worst subgroup) and on the sound twins (the folds the
#: twins study ran; a claim whose records it lacks is pending there).
ROBUSTNESS_WORLDS: tuple[tuple[str, Rules, Callable[[Records], list[Record]]], ...] = (
    # every record re-scored, the investigations' too (Q4.1's query, B.1's weight grid read them)
    ("flip rate (corrected t-test, Holm)", Rules(), lambda recs: score_records(recs, "cf_flip_rate")),
    ("calibrated CF-MSE (corrected t-test, Holm)", Rules(), lambda recs: score_records(recs, "calibrated_cf_mse")),
    ("sound twins (corrected t-test, Holm)", Rules(), lambda recs: factor_world(recs, _level("twins", "default"))),
)


def robustness_columns() -> tuple[RobustnessColumn, ...]:
    """The robustness table's columns (:func:`~cffair_book.registry.robustness_table`): the rule sets of
    :data:`~cffair_book.registry.ROBUSTNESS_RULES`, then the book's rules on the other co-primary scores
    and on the sound twins (:data:`ROBUSTNESS_WORLDS`)."""
    return (*ROBUSTNESS_RULES, *ROBUSTNESS_WORLDS)


def _coverage(recs: Records) -> set[tuple]:
    return {_slot(r)[:3] for r in recs}


def _restrict(records: Records, coverage: set[tuple]) -> list[Record]:
    """The plain records on the datasets and folds of ``coverage``."""
    return [r for r in records if _plain(r) and _slot(r)[:3] in coverage]


def _verdicts(records: Records, keys: Iterable[str]) -> dict[str, str]:
    wanted = set(keys)
    return {c.key: c.verdict for c in evaluate_claims(records) if c.key in wanted}


def _folds_text(cover: set[tuple], full: set[tuple]) -> str:
    """``"all folds"`` when ``cover`` holds every fold of ``full`` on its datasets; else
    ``"5 of 15 folds on COMPAS; 2 of 5 folds on Adult"`` for the datasets it covers only in part."""
    parts = []
    for d in DATASET_ORDER:
        have = {c for c in cover if c[0] == d}
        of = {c for c in full if c[0] == d}
        if have and len(have) < len(of):
            parts.append(f"{len(have)} of {len(of)} folds on {dataset_name(d)}")
    return "; ".join(parts) if parts else "all folds"


# ---------------------------------------------------------------------------- the tidy frame
#: The dependence frame's columns.
FRAME_COLUMNS = (
    "claim",
    "factor",
    "level",
    "label",
    "base",
    "same_folds",
    "verdict",
    "changed",
    "reverses",
    "datasets",
    "folds",
)


def dependence_frame(
    records: Records, levels: Sequence[Level] = DEPENDENCE_LEVELS, claims: Sequence[str] = HEADLINE_CLAIMS
) -> pd.DataFrame:
    """One row per headline claim and factor level: ``claim, factor, level, label, base, same_folds,
    verdict, changed, reverses, datasets, folds``.

    ``records`` are the verdicts' own (:func:`~cffair_book.claims.claim_records`, with appendix C's
    studies ``also``): ``base`` is the claim's verdict on all of them, the claims table's verdict (one
    basis: the same paired folds, every repetition). ``same_folds`` is the book's verdict on the
    records restricted to the level's datasets and folds (``folds`` says which: ``"all folds"`` when
    the level covers every fold of its datasets), ``verdict`` the verdict in the level's
    :func:`factor_world`; ``changed`` whether ``verdict`` differs from ``same_folds`` (the factor's
    doing, not fewer folds'), ``reverses`` whether one of them says *holds* and the other *does not
    hold*. A level without records gives :data:`NO_RECORDS`, a claim the level cannot act on
    :data:`NOT_APPLICABLE` (both with ``changed`` False)."""
    records = as_records(records)
    rows = []
    table = _verdicts(records, claims)
    full = _coverage([r for r in records if _plain(r)])
    for lv in levels:
        recs = factor_world(records, lv)
        cover = _coverage(recs)
        datasets = ", ".join(dataset_name(d) for d in DATASET_ORDER if d in {c[0] for c in cover})
        folds = _folds_text(cover, full) if recs else ""
        after = _verdicts(recs, lv.claims) if recs else {}
        if cover == full:  # every fold: the claims table's own verdicts
            before = table
        else:
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
                    "base": table.get(k, PENDING),
                    "same_folds": b,
                    "verdict": v,
                    "changed": b != v and PENDING not in (b, v),  # pending: not measured there, not a move
                    "reverses": {b, v} == {HOLDS, FAILS},
                    "datasets": datasets,
                    "folds": folds,
                }
            )
    return pd.DataFrame(rows, columns=list(FRAME_COLUMNS))


_SYMBOL = {HOLDS: "✔", FAILS: "✘", INCONCLUSIVE: "?", VACUOUS: "∅", PENDING: "…", NO_RECORDS: "", NOT_APPLICABLE: "·"}
_SHADE = {HOLDS: 0, FAILS: 1, INCONCLUSIVE: 2, VACUOUS: 3, PENDING: 4, NO_RECORDS: 4, NOT_APPLICABLE: 5}


def dependence_table(frame: pd.DataFrame, caption: str | None = None) -> HTMLTable:
    """The headline table: a row per claim, first its verdict in the claims table (``base``: the same
    records, one basis), then a column per factor, each cell its levels' verdicts (``level: verdict``,
    or ``level: book's verdict on the same folds → new one`` where it differs; a level that covers
    fewer folds than the claims table names them: ``sound twins (2 of 5 folds on Adult): …``); levels
    that cannot act on the claim are left out, and a factor with none is "n/a". Columns of words that
    wrap, so the table fits a page's column whatever the number of levels."""
    if frame.empty:
        raise DataError("no claims to show: the dependence frame is empty.")
    cells: dict[str, dict[str, list[str]]] = {}
    for r in frame.itertuples():
        row = cells.setdefault(r.claim, {"claims table": [str(r.base)]})
        parts = row.setdefault(FACTOR_TITLES[r.factor], [])
        if r.verdict == NOT_APPLICABLE:
            continue
        label = f"{r.label} ({r.folds})" if r.folds and r.folds != "all folds" else r.label
        parts.append(f"{label}: {r.verdict}" if not r.changed else f"{label}: {r.same_folds} → {r.verdict}")
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
            root = ax.get_figure(root=True)
            if root is None:
                raise DataError("the axes given belong to no figure: pass axes from plt.subplots, or none.")
            fig = root
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
        return say("dependence.no_study", head=head)
    missing = rows[rows["verdict"] == NO_RECORDS]
    n = seen["claim"].nunique()
    where = say("dependence.on_datasets", datasets=seen["datasets"].iloc[0]) if seen["datasets"].nunique() == 1 else ""
    each = not (seen["folds"].nunique() == 1 and seen["folds"].iloc[0] not in ("", "all folds"))
    if not each:  # a study on some folds: said once
        where = say("dependence.on_folds", folds=seen["folds"].iloc[0])
    rev = seen[seen["reverses"]]
    moved = seen[seen["changed"] & ~seen["reverses"]]
    across = say("dependence.across", head=head, levels=_levels_text(seen), where=where)
    if rev.empty and moved.empty:
        text = say("dependence.unchanged", claims=n, title=title)
    elif rev.empty:
        k = moved["claim"].nunique()
        verb = say("dependence.moves_verb", "many" if factor in _PLURAL else "one")
        text = say(
            "dependence.margins",
            "one" if k == 1 else "many",
            count=k,
            claims=n,
            changes=_changes(moved, each),
            title=title,
            moves=verb,
        )
    else:
        k, m = rev["claim"].nunique(), moved["claim"].nunique()
        more = say("dependence.more", "one" if m == 1 else "many", count=m, changes=_changes(moved, each)) if m else ""
        text = say(
            "dependence.reverses",
            "one" if k == 1 else "many",
            count=k,
            claims=n,
            changes=_changes(rev, each),
            more=more,
            title=title,
        )
    return spoken(across, text, say("dependence.missing", levels=_levels_text(missing)) if len(missing) else "")


def _changes(rows: pd.DataFrame, folds: bool = True) -> str:
    """``"Q2.4 holds → does not hold with default flow"``, each with its folds (``folds``) where they are not all."""
    return "; ".join(
        say(
            "dependence.change_folds", claim=r.claim, before=r.same_folds, after=r.verdict, level=r.label, folds=r.folds
        )
        if folds and r.folds and r.folds != "all folds"
        else say("dependence.change", claim=r.claim, before=r.same_folds, after=r.verdict, level=r.label)
        for r in rows.itertuples()
    )
