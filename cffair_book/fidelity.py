"""How close ours is to the paper, in words the numbers choose: which cells of a table differ from the
paper's beyond chance, and how much of the gap in performance the twins an LTN trains on explain.

:func:`cffair.reporting.compare` decides each cell on the standard error of the difference of
the two means (Welch's t over the folds behind each mean, the paper's five); :func:`paper_agreement`
says how many cells differ, how many chance alone would flag, and which differ most.
:func:`twins_performance` pairs each fold's model trained on the paper's twins with the same fold's
model trained on the sound default twins (the protocol's design factor) and sets both beside the
paper's published value; :func:`twins_performance_finding` says per dataset which way the sound twins
move ours and how much of the gap to the paper they close.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import TYPE_CHECKING

import pandas as pd

from cffair.reporting import (
    AGREEMENT_ALPHA,
    corrected_t,
    dataset_name,
    format_delta,
    method_name,
    metric_name,
    performance_metric,
    records_frame,
)
from cffair.reporting._paper import paper_mean
from cffair.reporting._verdicts import ALPHA

if TYPE_CHECKING:  # reading records loads no store (a Record comes from as_records)
    from cffair.experiments import Record

__all__ = ["paper_agreement", "same_models", "twins_performance", "twins_performance_finding"]

#: The option that trains (and scores) a record on the sound default twins (:mod:`cffair.experiments._grid`).
SOUND_TWINS = "twins=default"


#: The keys that pair two records of one setting: the same fold of the same partition, the same seed.
PAIR_KEYS = ["repeat", "fold", "seed"]


def _paired(frame: pd.DataFrame, setting: str, column: str, left: str, right: str) -> pd.DataFrame:
    """The protocol's records of ``setting`` (CNF counterfactuals, no tag) where ``column`` is ``left``
    beside those where it is ``right``, paired on :data:`PAIR_KEYS` (columns suffixed ``_a``, ``_b``)."""
    rows = frame[(frame["setting"] == setting) & (frame["cf_source"] == "cnf") & (frame["tag"] == "")]
    keys = ["dataset", *PAIR_KEYS] if column != "dataset" else PAIR_KEYS
    a = rows[rows[column] == left].set_index(keys)
    b = rows[rows[column] == right].set_index(keys)
    return pd.merge(a, b, left_index=True, right_index=True, suffixes=("_a", "_b"))


def _cell(row: pd.Series) -> str:
    t = abs(float(row["delta"])) / float(row["se_delta"]) if row["se_delta"] > 0 else math.inf
    size = "" if math.isinf(t) else f", {t:.1f} standard errors"
    return (
        f"{method_name(str(row['method']))}'s {metric_name(str(row['metric'])).rstrip(' ↑↓')} on "
        f"{dataset_name(str(row['dataset']))} (Δ {format_delta(float(row['delta']))}{size})"
    )


def paper_agreement(comparison: pd.DataFrame, what: str = "the table", *, top: int = 3) -> str:
    """One or two sentences: of the cells of ``comparison`` (a :func:`~cffair.reporting.compare`
    frame) that can be judged, how many differ from the paper's beyond chance, how many chance alone
    would flag if every cell agreed, and the ``top`` farthest in standard errors of the difference.

    >>> comp = pd.DataFrame({"dataset": ["adult", "compas"], "metric": ["accuracy", "cf_mse"],
    ...                      "method": ["ltn_acc", "cnf"], "delta": [0.05, 0.001], "se_delta": [0.01, 0.002],
    ...                      "p_paper": [0.001, 0.6], "beyond": [True, False]})
    >>> print(paper_agreement(comp, "Table 1"))
    1 of the 2 cells of Table 1 that can be judged differs from the paper's beyond chance (Welch's t on the two means, p < 0.05; at that level chance alone flags about 1 in 20 cells that agree); the farthest: LTN(acc)'s accuracy on Adult (Δ +0.050, 5.0 standard errors).
    """
    judged = comparison[comparison["p_paper"].notna()]
    held = int((comparison["collapsed"] > 0).sum()) if "collapsed" in comparison.columns else 0
    if held:
        verb = "holds" if held == 1 else "hold"
        aside = f" ({held} cell{'s' if held != 1 else ''} {verb} a collapsed model and {'is' if held == 1 else 'are'} not judged)"
    else:
        aside = ""
    if judged.empty:
        return f"No cell of {what} can be judged against the paper (a side without an sd over several folds){aside}."
    far = judged[judged["beyond"].astype(bool)]
    n, k = len(judged), len(far)
    rule = f"Welch's t on the two means, p < {AGREEMENT_ALPHA:g}"
    chance = f"at that level chance alone flags about 1 in {round(1 / AGREEMENT_ALPHA)} cells that agree"
    if k == 0:
        return f"None of the {n} cells of {what} that can be judged differs from the paper's beyond chance ({rule}){aside}."
    verb = "differs" if k == 1 else "differ"
    order = (far["delta"].abs() / far["se_delta"].where(far["se_delta"] > 0, math.nan)).fillna(math.inf)
    farthest = far.loc[order.sort_values(ascending=False, kind="stable").index[:top]]
    cells = "; ".join(_cell(r) for _, r in farthest.iterrows())
    return (
        f"{k} of the {n} cells of {what} that can be judged {verb} from the paper's beyond chance ({rule}; "
        f"{chance}){aside}; the farthest: {cells}."
    )


def twins_performance(records: Iterable[Record], method: str = "ltn_acc_cf") -> pd.DataFrame:
    """Per dataset: ``method``'s performance (accuracy, Lawschool's MSE) trained on the paper's twins and
    on the sound default twins, over the folds and seeds that have both and where neither model
    collapsed (the degenerate-model screen), beside the paper's Table 1 value.

    Returns:
        One row per dataset with ``dataset``, ``metric``, ``pairs``, ``folds``, ``paper_twins``,
        ``sound_twins``, ``p`` (the corrected resampled t-test of the per-fold differences, seeds
        averaged within a fold, as the claims test them; NaN for one fold), ``paper`` (NaN where the
        paper publishes none) and ``dropped`` (pairs left out because a model collapsed); empty when
        no fold has both.
    """
    columns = ["dataset", "metric", "pairs", "folds", "paper_twins", "sound_twins", "p", "paper", "dropped"]
    frame = records_frame(records)
    if frame.empty:
        return pd.DataFrame(columns=columns)
    both = _paired(frame, method, "options", "", SOUND_TWINS)
    both.columns = [c[:-2] + ("_paper" if c.endswith("_a") else "_sound") for c in both.columns]
    rows = []
    for dataset, g in both.groupby(level="dataset", sort=False):
        metric = performance_metric(str(dataset))
        ok = g[~g["collapsed_paper"].astype(bool) & ~g["collapsed_sound"].astype(bool)]
        if ok.empty:
            continue
        published = paper_mean("table1", str(dataset), metric, method)
        diffs = (ok[f"{metric}_sound"] - ok[f"{metric}_paper"]).groupby(level=["repeat", "fold"]).mean()
        p = math.nan if len(diffs) < 2 else (1.0 if (diffs == 0).all() else float(corrected_t(diffs.to_numpy()).p))
        rows.append(
            {
                "dataset": dataset,
                "metric": metric,
                "pairs": len(ok),
                "folds": len(diffs),
                "paper_twins": float(ok[f"{metric}_paper"].mean()),
                "sound_twins": float(ok[f"{metric}_sound"].mean()),
                "p": p,
                "paper": math.nan if published is None else published,
                "dropped": len(g) - len(ok),
            }
        )
    return pd.DataFrame(rows, columns=columns)


def twins_performance_finding(frame: pd.DataFrame, method: str = "ltn_acc_cf") -> str:
    """One sentence per dataset of :func:`twins_performance`: whether training on the sound twins moves
    ``method``'s performance beyond chance (the corrected t-test at the claims' α), which way, and
    which share of the gap between ours (the paper's twins) and the paper's published value it closes.

    >>> f = pd.DataFrame({"dataset": ["adult", "compas"], "metric": ["accuracy"] * 2, "pairs": [10, 15],
    ...                   "folds": [5, 15], "paper_twins": [0.809, 0.681], "sound_twins": [0.770, 0.679],
    ...                   "p": [0.001, 0.4], "paper": [0.758, 0.675], "dropped": [0, 0]})
    >>> print(twins_performance_finding(f))
    On Adult, LTN(acc+CF) trained on the sound twins reaches accuracy 0.770 against 0.809 on the paper's (5 folds; the paper: 0.758): the sound twins close 76% of the gap to the paper's value (corrected t, p 0.001). On COMPAS, LTN(acc+CF) trained on the sound twins reaches accuracy 0.679 against 0.681 on the paper's (15 folds; the paper: 0.675): no change beyond chance (corrected t, p 0.400).
    """
    if frame.empty:
        return f"No fold holds {method_name(method)} trained on both the paper's and the sound default twins yet."
    out = []
    for r in frame.itertuples():
        name = metric_name(str(r.metric)).rstrip(" ↑↓")
        head = (
            f"On {dataset_name(str(r.dataset))}, {method_name(method)} trained on the sound twins reaches "
            f"{name} {r.sound_twins:.3f} against {r.paper_twins:.3f} on the paper's ({r.folds} folds"
        )
        dropped = f", {r.dropped} pair{'s' * (r.dropped != 1)} left out because a model collapsed" if r.dropped else ""
        paper = "the paper publishes no value" if math.isnan(r.paper) else f"the paper: {r.paper:.3f}"
        test = (
            "" if math.isnan(r.p) else f" (corrected t, p {r.p:.3f})" if r.p >= 0.001 else " (corrected t, p < 0.001)"
        )
        gap = r.paper_twins - r.paper
        share = (r.paper_twins - r.sound_twins) / gap if gap and not math.isnan(gap) else math.nan
        if r.sound_twins == r.paper_twins:
            verdict = "the same on every fold"
            test = ""
        elif math.isnan(r.p) or r.p >= ALPHA:
            verdict = "no change beyond chance"
        elif math.isnan(share):
            verdict = "a change beyond chance, with no published value to set it beside"
        elif share >= 1:
            verdict = "the sound twins move ours to the paper's value and past it"
        elif share > 0:
            verdict = f"the sound twins close {share:.0%} of the gap to the paper's value"
        else:
            verdict = "the sound twins move ours away from the paper's value"
        out.append(f"{head}{dropped}; {paper}): {verdict}{test}.")
    return " ".join(out)


def same_models(
    records: Iterable[Record],
    settings: tuple[str, ...] = ("ltn_acc", "ltn_acc_cf"),
    datasets: tuple[str, str] = ("compas", "compas_age"),
) -> str:
    """Whether ``settings`` give the same numbers on two datasets that hold the same rows (COMPAS and
    COMPAS(age) differ only in their subgroups, which these settings do not use): per setting, on
    how many paired folds and seeds accuracy and CF-MSE agree exactly, and where they do not, by
    how much CF-MSE differs.

    >>> def rec(d, s, k, cf):
    ...     return {"config": {"dataset": d, "fold": k, "setting": s}, "metrics": {"accuracy": 0.7, "cf_mse": cf}}
    >>> recs = [rec(d, "ltn_acc", k, 0.1) for d in ("compas", "compas_age") for k in range(2)]
    >>> recs += [rec("compas", "ltn_acc_cf", k, 0.02) for k in range(2)]
    >>> recs += [rec("compas_age", "ltn_acc_cf", 0, 0.02), rec("compas_age", "ltn_acc_cf", 1, 0.021)]
    >>> print(same_models(recs))
    LTN(acc) gives the same accuracy and CF-MSE on COMPAS and COMPAS(age) on all 2 paired folds; LTN(acc+CF) on 1 of 2 (the other differs by up to 0.0010 in CF-MSE: fold 1 of repetition 0).
    """
    frame = records_frame(records)
    a, b = datasets
    parts: list[str] = []
    for setting in settings:
        if frame.empty:
            break
        both = _paired(frame[frame["options"] == ""], setting, "dataset", a, b)
        if both.empty:
            continue
        perf = "accuracy" if both["accuracy_a"].notna().any() else "mse"
        same = (both[f"{perf}_a"] == both[f"{perf}_b"]) & (both["cf_mse_a"] == both["cf_mse_b"])
        name, n, k = method_name(setting), len(both), int(same.sum())
        lead = (
            f"{name} gives the same accuracy and CF-MSE on {dataset_name(a)} and {dataset_name(b)}"
            if not parts
            else name
        )
        if k == n:
            parts.append(f"{lead} on all {n} paired folds")
            continue
        gap = float((both["cf_mse_a"] - both["cf_mse_b"]).abs().max())
        where = ", ".join(
            f"fold {f} of repetition {r}" + (f" (seed {s})" if s else "") for r, f, s in both.index[~same]
        )
        other = "the other differs" if n - k == 1 else "the others differ"
        parts.append(f"{lead} on {k} of {n} ({other} by up to {gap:.4f} in CF-MSE: {where})")
    if not parts:
        names = ", ".join(method_name(s) for s in settings)
        return f"No setting of {names} has records on both {dataset_name(a)} and {dataset_name(b)}."
    return "; ".join(parts) + "."
