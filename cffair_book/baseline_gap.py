"""Appendix C: why the baselines are fairer here than in the paper (the baseline gap study).

The study (:mod:`cffair.experiments._baseline_gap`, ``results/full/studies/baseline_gap.json``)
moves each baseline from this book's setting towards the paper's published one, one factor at
a time and cumulatively, and measures on a log scale which share of the CF-MSE gap
``log(paper / ours)`` each step closes. :func:`load_baseline_gap` reads the file (``None`` when the
study has not been run), :func:`baseline_gap_frame` makes the table of every baseline,
:func:`baseline_gap_table` shows it, and :func:`baseline_gap_finding` says in words the numbers
choose which step closes the largest share and how much of the gap stays open.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pandas as pd

from cffair.experiments._baseline_gap import gap_table
from cffair.reporting import HTMLTable, dataset_name, format_table
from cffair.reporting._paper import paper_mean
from cffair_book.results import results_root
from cffair_book.wording import say

__all__ = [
    "BASELINE_NAMES",
    "FACTOR_WORDS",
    "baseline_gap_finding",
    "baseline_gap_frame",
    "baseline_gap_path",
    "baseline_gap_table",
    "load_baseline_gap",
]

#: How the book words each factor of the study (:func:`cffair.experiments._baseline_gap.default_steps`).
FACTOR_WORDS: dict[str, str] = {
    "ruler": "the ruler",
    "release": "the release's behaviour",
    "learning rate": "the paper's learning rate",
    "training length": "the training length",
}

#: How the book names each baseline of the study.
BASELINE_NAMES: dict[str, str] = {"gan": "GAN", "dcevae": "DCEVAE", "cnf": "CNF"}


def baseline_gap_path(root: str | Path | None = None) -> Path:
    """Where the runner writes the study: ``full/studies/baseline_gap.json`` under the results folder
    ``root`` (default the book's, :func:`cffair_book.results.results_root`)."""
    return Path(root or results_root()) / "full" / "studies" / "baseline_gap.json"


def load_baseline_gap(path: str | Path | None = None) -> dict[str, Any] | None:
    """The study's file as written by the runner, or ``None`` when it does not exist (not run yet)."""
    p = Path(path) if path is not None else baseline_gap_path()
    if not p.is_file():
        return None
    with p.open(encoding="utf-8") as fh:
        data: dict[str, Any] = json.load(fh)
    return data


def baseline_gap_frame(data: Mapping[str, Any] | None) -> pd.DataFrame:
    """One row per baseline and step (:func:`cffair.experiments._baseline_gap.gap_table`), with the
    ``baseline``, ``dataset`` and the paper's CF-MSE (``paper``: the study's ``paper_cf_mse`` when
    it gives one, else the paper's Table 1); empty without data or studies.

    >>> rows = [{"step": s, "index": i, "factor": s, "ruler": "paper", "fold": 0, "cf_mse": v,
    ...          "accuracy": 0.7, "cpu_s": 1.0} for i, (s, v) in enumerate([("start", 0.01), ("x", 0.0316)])]
    >>> f = baseline_gap_frame({"studies": {"gan": {"dataset": "compas", "paper_cf_mse": 0.1, "rows": rows}}})
    >>> f[["baseline", "step", "share_closed"]].round(2).values.tolist()
    [['gan', 'start', 0.0], ['gan', 'x', 0.5]]
    """
    parts = []
    for key, study in ((data or {}).get("studies") or {}).items():
        if not study.get("rows"):
            continue
        paper = study.get("paper_cf_mse") or _paper_cf_mse(
            str(study.get("dataset", "")), study.get("baseline", key.rsplit("/", 1)[-1])
        )
        if paper is None:
            continue
        t = gap_table(study["rows"], float(paper))
        t.insert(0, "baseline", study.get("baseline", key.rsplit("/", 1)[-1]))
        t.insert(1, "dataset", study.get("dataset", ""))
        t["paper"] = float(paper)
        parts.append(t)
    return pd.concat(parts, ignore_index=True) if parts else pd.DataFrame()


def _paper_cf_mse(dataset: str, baseline: str) -> float | None:
    """The paper's Table 1 CF-MSE of ``baseline`` on ``dataset`` (``None`` where it publishes none)."""
    return paper_mean("table1", dataset, "cf_mse", baseline)


def _factor(factor: str) -> str:
    return FACTOR_WORDS.get(factor, factor)


def _pm(mean: float, sd: float, digits: int = 4) -> str:
    return f"{mean:.{digits}f}" + ("" if pd.isna(sd) else f" ± {sd:.{digits}f}")


def baseline_gap_table(frame: pd.DataFrame, caption: str | None = None) -> HTMLTable | None:
    """:func:`baseline_gap_frame` as the book shows it (mean ± sd over folds; shares in %), or
    ``None`` when it is empty."""
    if frame.empty:
        return None
    shown = pd.DataFrame(
        {
            "factor": frame["factor"].tolist(),
            "ruler": frame["ruler"].tolist(),
            "folds": frame["folds"].tolist(),
            "CF-MSE ± over folds": [_pm(m, s) for m, s in zip(frame["cf_mse"], frame["cf_mse_sd"], strict=True)],
            "CF-MSE, paper": [f"{p:.3f}" for p in frame["paper"]],
            "accuracy": [_pm(m, s, 3) for m, s in zip(frame["accuracy"], frame["accuracy_sd"], strict=True)],
            "share of the log gap closed": ["collapsed" if pd.isna(v) else f"{v:+.0%}" for v in frame["share_closed"]],
            "closed so far": ["–" if pd.isna(v) else f"{v:.0%}" for v in frame["cumulative_share"]],
            "CPU s": [f"{v:.0f}" for v in frame["cpu_s"]],
        },
        index=pd.MultiIndex.from_arrays(
            [
                [
                    f"{BASELINE_NAMES.get(b, b)} ({dataset_name(d)})"
                    for b, d in zip(frame["baseline"], frame["dataset"])
                ],
                frame["step"].tolist(),
            ],
            names=["baseline", "step"],
        ),
    )
    return format_table(shown, caption)


def _usable(g: pd.DataFrame) -> pd.DataFrame:
    """The steps of one study whose models did not collapse (all of them in a frame without the screen)."""
    if "collapsed" not in g:
        return g
    return g[g["collapsed"].fillna("") == ""]


def baseline_gap_finding(frame: pd.DataFrame) -> str:
    """Two to four sentences the numbers word: per baseline and dataset, how far its last step that
    did not collapse moved the CF-MSE towards the paper's and which step closed the largest share,
    naming any step whose models collapsed (:func:`cffair.experiments._baseline_gap.gap_table` counts
    no share for it); then, over two or more studies, the factor that closed the largest share (or
    that none closed any); last, whether the study's models were screened at all. Empty without a study.

    >>> f = pd.DataFrame({"baseline": ["gan"] * 3, "dataset": ["compas"] * 3, "step": ["start", "a", "b"],
    ...                   "factor": ["start", "ruler", "release"], "cf_mse": [0.01, 0.011, 0.02],
    ...                   "share_closed": [0.0, 0.04, 0.26], "cumulative_share": [0.0, 0.04, 0.30],
    ...                   "paper": [0.1] * 3})
    >>> print(baseline_gap_finding(f))
    On COMPAS the GAN's CF-MSE goes from 0.0100 to 0.0200 against the paper's 0.100: the steps close 30% of the log gap, leaving 70% open; the largest share, 26%, is closed by the release's behaviour (b).
    """
    if frame.empty:
        return ""
    out = []
    best_factor: tuple[float, str, str] | None = None
    for (baseline, dataset), whole in frame.groupby(["baseline", "dataset"], sort=False):
        whole = whole.reset_index(drop=True)
        g = _usable(whole).reset_index(drop=True)
        name = BASELINE_NAMES.get(str(baseline), str(baseline))
        moves = g.iloc[1:]
        closed = float(g["cumulative_share"].iloc[-1])
        extent = "whole" if closed >= 1 else "part" if closed > 0 else "widens" if closed < 0 else "none"
        largest = ""
        if len(moves):
            top = moves.loc[moves["share_closed"].idxmax()]
            largest = say(
                "baseline_gap.largest",
                "some" if top["share_closed"] > 0 else "none",
                share=top["share_closed"],
                factor=_factor(top["factor"]),
                step=top["step"],
            )
            if best_factor is None or top["share_closed"] > best_factor[0]:
                best_factor = (float(top["share_closed"]), str(top["factor"]), name)
        broken = whole[whole["collapsed"].fillna("") != ""] if "collapsed" in whole else whole.iloc[:0]
        collapsed = (
            say(
                "baseline_gap.collapsed",
                steps="; ".join(f"{r['step']} ({r['collapsed']})" for _, r in broken.iterrows()),
            )
            if len(broken)
            else ""
        )
        out.append(
            say(
                "baseline_gap.steps",
                dataset=dataset_name(str(dataset)),
                baseline=name,
                start=g["cf_mse"].iloc[0],
                end=g["cf_mse"].iloc[-1],
                paper=g["paper"].iloc[0],
                closed=say("baseline_gap.closed", extent, closed=closed, left=1 - closed),
                largest=largest,
                collapsed=collapsed,
            )
        )
    if best_factor is not None and len(out) > 1:
        share, factor, name = best_factor
        out.append(
            say(
                "baseline_gap.best_factor",
                "some" if share > 0 else "none",
                factor=_factor(factor),
                share=share,
                baseline=name,
            )
        )
    if "screened" in frame and not frame["screened"].fillna(False).astype(bool).all():
        unscreened = frame[~frame["screened"].fillna(False).astype(bool)]
        names = list(dict.fromkeys(f"{BASELINE_NAMES.get(str(b), str(b))} ({dataset_name(str(d))})"
                                   for b, d in zip(unscreened["baseline"], unscreened["dataset"])))  # fmt: skip
        out.append(
            say("baseline_gap.unscreened", "all" if len(unscreened) == len(frame) else "some", runs=", ".join(names))
        )
    return " ".join(out)
