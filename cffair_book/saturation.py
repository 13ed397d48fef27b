"""Appendix C's saturation diagnostics: how saturated each model's outputs are, and where A4's gradient
falls at the start of the fairness stage (:func:`saturation_frame`, :func:`saturation_table`,
:func:`saturation_finding`; re-exported by :mod:`.dependence`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from cffair.reporting import DATASET_ORDER, HTMLTable, dataset_name, format_table
from cffair.reporting._records import as_records
from cffair_book.wording import say, spoken

if TYPE_CHECKING:  # reading records loads no store (a Record comes from as_records)
    from cffair.experiments import Record

__all__ = ["SATURATED", "SATURATION_ROWS", "SMALL", "saturation_finding", "saturation_frame", "saturation_table"]

Records = Sequence["Record"]


def _plain(rec: Record) -> bool:
    """A record of the paper's protocol (no option, no tag)."""
    return not rec.config.options and not rec.config.tag


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
    records = as_records(records)
    rows = []
    for d in DATASET_ORDER:
        recs = [r for r in records if r.config.dataset == d and not r.config.repeat and r.config.cf_source == "cnf"]
        if not recs:
            continue
        row: dict[str, Any] = {"dataset": d}
        for key, label in SATURATION_ROWS:
            setting, _, opt = key.partition("(")
            want = {"a4_body": "eq"} if opt else {}
            vals = [
                r["metrics"].get("saturation")
                for r in recs
                if r.config.setting == setting and r.config.option_map == want and not r.config.tag
            ]
            vals = [v for v in vals if v is not None]
            row[label] = float(np.mean(vals)) if vals else np.nan
        shares = [
            r.get("diagnostics", {}).get("a4_gradient_share")
            for r in recs
            if r.config.setting == "ltn_acc" and _plain(r)
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
        return say("saturation.unknown")
    parts = []
    for values in known.itertuples(index=False):
        v = dict(zip(known.columns, values))
        text = say(
            "saturation.dataset",
            dataset=dataset_name(v["dataset"]),
            pre=_pct(v[pre]),
            a4=_pct(v[a4]),
            eq="" if np.isnan(v.get(eq, np.nan)) else say("saturation.eq_bodied", share=_pct(v[eq])),
            cnf="" if np.isnan(v.get(cnf, np.nan)) else say("saturation.cnf", share=_pct(v[cnf])),
        )
        parts.append((text, v[pre], v[a4] - v[pre]))
    pre_sat = all(p[1] >= SATURATED for p in parts)
    small = all(abs(p[2]) < SMALL for p in parts)
    cause = "pretraining" if pre_sat and small else "both" if pre_sat else "not_pretraining"
    gradient = ""
    shares = frame.dropna(subset=["share_p1", "share_p6"])
    if not shares.empty:
        p1, p6 = float(shares["share_p1"].mean()), float(shares["share_p6"].mean())
        gradient = say("saturation.gradient", "moves" if p6 > p1 else "stays", p1=_pct(p1), p6=_pct(p6))
    return spoken("; ".join(p[0] for p in parts) + ".", say("saturation.cause", cause, points=100 * SMALL), gradient)
