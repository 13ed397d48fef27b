"""The investigations' records as frames: Q2's LTN variants, Q3's explanations and threshold sweep,
Q4's queries and appendix B's finer weight grid (the records of :func:`~.records.is_investigation`).

Like :mod:`._records`, everything here shapes data; ``cffair_book.investigations`` turns the frames
into the book's findings.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from cffair.experiments._config import ExperimentConfig
from cffair.reporting._names import SCALAR_METRICS
from cffair.reporting._records import as_records, records_frame

if TYPE_CHECKING:  # reading records loads no store (a Record comes from as_records)
    from cffair.experiments._store import Record

__all__ = [
    "VARIANT_OPTIONS",
    "explanation_frame",
    "fine_weight_frame",
    "query_frame",
    "threshold_sweep_frame",
    "variants_frame",
]


#: Options of the LTN variants (Q2) shown as columns of :func:`variants_frame` (NaN: the profile's).
VARIANT_OPTIONS: tuple[str, ...] = ("lr", "clip_grad", "fair_p", "fair_epochs")


def _variant_label(cfg: ExperimentConfig) -> str:
    opts, w = cfg.option_map, cfg.weight_map
    parts = []
    if "lr" in opts:
        parts.append(f"lr {opts['lr']:g}" + (f", clip {opts['clip_grad']:g}" if "clip_grad" in opts else ""))
    if "fair_p" in opts and opts["fair_p"] != 1:
        parts.append(f"A4 exponent p = {opts['fair_p']:g}")  # named: a bare "p = 6" reads as a p-value
    if "fair_epochs" in opts:
        parts.append(f"{opts['fair_epochs']} fairness epochs")
    if float(w.get("acc", 1.0)) != 1.0 or float(w.get("cf", 1.0)) != 1.0:
        parts.append(f"weights acc {float(w.get('acc', 1.0)):g} : CF {float(w.get('cf', 1.0)):g}")
    return ", ".join(parts) or "reference (A4 exponent p = 1)"


def variants_frame(records: Iterable[Record], dataset: str | None = None) -> pd.DataFrame:
    """The Q2 investigation as a frame: one row per record of LTN(acc+CF) on the CNF
    counterfactuals without an appendix-B weight tag of the paper's grid, and of each baseline.

    Columns: ``dataset, fold, method, kind`` (``paper``: the committed protocol's record;
    ``variant``: an investigation's LTN variant), ``label`` (``"A4 exponent p = 6"``, ``"lr 0.1"``, the method for baselines), the
    options of :data:`VARIANT_OPTIONS`, ``w_acc, w_cf`` and the scalar metrics.
    """
    rows = []
    for rec in as_records(records):
        cfg = rec.config
        if cfg.cf_source != "cnf" or (dataset is not None and cfg.dataset != dataset):
            continue
        ltn = cfg.setting == "ltn_acc_cf"
        opts = cfg.option_map
        if ltn and cfg.tag and not opts:
            continue  # the paper's appendix-B weight grid
        if ltn and opts and set(opts) <= {"x_hat"}:
            continue  # the paper's model again, asked query (2) another way (Q4)
        if not ltn and (cfg.setting.startswith("ltn") or opts):
            continue
        kind = "variant" if ltn and opts else "paper"
        if not ltn and cfg.tag:
            continue
        w = cfg.weight_map
        row: dict[str, Any] = {
            "dataset": cfg.dataset,
            "fold": cfg.fold,
            "method": cfg.setting,
            "kind": kind,
            "label": _variant_label(cfg) if ltn else cfg.setting,
            **{k: opts.get(k, np.nan) for k in VARIANT_OPTIONS},
            "w_acc": float(w.get("acc", 1.0)),
            "w_cf": float(w.get("cf", 1.0)),
        }
        row.update({k: rec["metrics"].get(k, np.nan) for k in SCALAR_METRICS})
        rows.append(row)
    cols = ["dataset", "fold", "method", "kind", "label", *VARIANT_OPTIONS, "w_acc", "w_cf", *SCALAR_METRICS]
    return pd.DataFrame(rows, columns=cols)


def explanation_frame(records: Iterable[Record]) -> pd.DataFrame:
    """The Q3 investigation: imbalances of counterfactual explanations on *every* attribute
    (records with option ``explain="all"``), before and after the A5 axiom.

    One row per dataset, fold, ``stage`` (``before``/``after``), group and feature: the share of
    the group's negatively predicted training rows with an explanation on the feature
    (``frequency``), its ``imbalance``, whether the feature is ``immutable`` (an A5 candidate)
    and whether this (group, feature) was turned into the A5 axiom (``forced``).
    """
    rows = []
    for rec in as_records(records):
        c = (rec.get("cke") or {}).get("explain_all")
        if not c:
            continue
        cfg = rec.config
        forced = {(f["group"], f["feature"]) for f in rec["cke"].get("forced", [])}
        for stage in ("before", "after"):
            for r in c[f"imbalances_{stage}"]:
                rows.append(
                    {
                        "dataset": cfg.dataset,
                        "fold": cfg.fold,
                        "stage": stage,
                        "group": r["group"],
                        "feature": r["feature"],
                        "frequency": float(r["frequency"]),
                        "imbalance": float(r["imbalance"]),
                        "immutable": r["feature"] in c["immutable"],
                        "forced": (r["group"], r["feature"]) in forced,
                    }
                )
    cols = ["dataset", "fold", "stage", "group", "feature", "frequency", "imbalance", "immutable", "forced"]
    return pd.DataFrame(rows, columns=cols)


def threshold_sweep_frame(records: Iterable[Record], thresholds: Sequence[float]) -> pd.DataFrame:
    """How many (group, feature) imbalances reach each threshold, before any A5 axiom.

    Rows per dataset, fold, ``features`` (``"immutable"``: the paper's protocol, the
    ``ltn_acc_cf_cke`` records; ``"every attribute"``: the records with explanations on every
    attribute) and ``threshold``: ``n`` (pairs at or above it), and ``largest`` (the largest
    imbalance of that record, the same for every threshold).
    """
    rows = []
    for rec in as_records(records):
        cfg = rec.config
        cke = rec.get("cke")
        if not cke or cfg.setting != "ltn_acc_cf_cke" or cfg.tag:
            continue
        sources = []
        if not cfg.options:
            sources.append(("immutable", cke.get("imbalances_before", [])))
        if cke.get("explain_all"):
            sources.append(("every attribute", cke["explain_all"]["imbalances_before"]))
        for name, imb in sources:
            values = np.array([float(r["imbalance"]) for r in imb]) if imb else np.zeros(0)
            largest = float(values.max()) if len(values) else np.nan
            for t in thresholds:
                rows.append(
                    {
                        "dataset": cfg.dataset,
                        "fold": cfg.fold,
                        "features": name,
                        "threshold": float(t),
                        "n": int((values >= t).sum()),
                        "largest": largest,
                    }
                )
    return pd.DataFrame(rows, columns=["dataset", "fold", "features", "threshold", "n", "largest"])


def query_frame(records: Iterable[Record]) -> pd.DataFrame:
    """Query (2) of every record that holds it: ``dataset, fold, rule`` (how x̂ was chosen:
    ``nearest``, which makes the query true, or ``random``; records made before the rule was
    stored used ``nearest``), ``subgroup, beta, sat, found`` (a differently decided person within
    β), ``witness_share`` (the share of the subgroup's negatively predicted people for whom the
    query finds one; NaN in older records) and ``n_negative``."""
    rows = []
    for rec in as_records(records):
        cfg = rec.config
        for q in (rec.get("queries") or {}).get("eq2", []):
            rows.append(
                {
                    "dataset": cfg.dataset,
                    "fold": cfg.fold,
                    "rule": q.get("x_hat_rule", "nearest"),
                    "subgroup": q["subgroup"],
                    "beta": float(q["beta"]),
                    "sat": float(q["sat"]),
                    "found": bool(q.get("neighbours")),
                    "witness_share": float(q.get("witness_share", np.nan)),
                    "n_negative": q.get("n_negative", np.nan),
                }
            )
    return pd.DataFrame(
        rows, columns=["dataset", "fold", "rule", "subgroup", "beta", "sat", "found", "witness_share", "n_negative"]
    )


def fine_weight_frame(records: Iterable[Record]) -> pd.DataFrame:
    """Appendix B's finer weight grid (the investigation's LTN(acc+CF) runs with option
    ``fair_p=1`` and equal or tagged weights): one row per record, like :func:`weight_grid_frame`."""
    frame = records_frame(records)
    frame = frame[
        (frame["setting"] == "ltn_acc_cf")
        & (frame["cf_source"] == "cnf")
        & (frame["options"] == "fair_p=1")
        & (frame["repeat"] == 0)
    ].copy()
    frame["log2_ratio"] = np.log2(frame["w_acc"].astype(float) / frame["w_cf"].astype(float))
    return frame.sort_values(["dataset", "log2_ratio", "fold"]).reset_index(drop=True)
