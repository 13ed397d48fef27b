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
from cffair_book.wording import say, spoken

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
    return say(
        "fidelity.cell",
        method=method_name(str(row["method"])),
        metric=metric_name(str(row["metric"])).rstrip(" ↑↓"),
        dataset=dataset_name(str(row["dataset"])),
        delta=format_delta(float(row["delta"])),
        size="" if math.isinf(t) else say("fidelity.cell_size", t=t),
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
    aside = say("fidelity.collapsed_aside", "one" if held == 1 else "many", held=held) if held else ""
    if judged.empty:
        return say("fidelity.agreement", "none_judged", what=what, aside=aside)
    far = judged[judged["beyond"].astype(bool)]
    n, k = len(judged), len(far)
    if k == 0:
        return say("fidelity.agreement", "none_differ", n=n, what=what, alpha=AGREEMENT_ALPHA, aside=aside)
    order = (far["delta"].abs() / far["se_delta"].where(far["se_delta"] > 0, math.nan)).fillna(math.inf)
    farthest = far.loc[order.sort_values(ascending=False, kind="stable").index[:top]]
    return say(
        "fidelity.agreement",
        "one_differs" if k == 1 else "some_differ",
        k=k,
        n=n,
        what=what,
        alpha=AGREEMENT_ALPHA,
        one_in=round(1 / AGREEMENT_ALPHA),
        aside=aside,
        cells="; ".join(_cell(r) for _, r in farthest.iterrows()),
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
        return say("fidelity.no_twin_pairs", method=method_name(method))
    out = []
    for r in frame.itertuples():
        gap = r.paper_twins - r.paper
        share = (r.paper_twins - r.sound_twins) / gap if gap and not math.isnan(gap) else math.nan
        test = (
            ""
            if math.isnan(r.p)
            else say("fidelity.corrected_t", "p", p=r.p)
            if r.p >= 0.001
            else say("fidelity.corrected_t", "small")
        )
        if r.sound_twins == r.paper_twins:
            verdict, test = "same", ""
        elif math.isnan(r.p) or r.p >= ALPHA:
            verdict = "chance"
        elif math.isnan(share):
            verdict = "unpublished"
        else:
            verdict = "past" if share >= 1 else "closer" if share > 0 else "away"
        out.append(
            say(
                "fidelity.twins",
                dataset=dataset_name(str(r.dataset)),
                method=method_name(method),
                metric=metric_name(str(r.metric)).rstrip(" ↑↓"),
                sound=r.sound_twins,
                ours=r.paper_twins,
                folds=say("fidelity.folds", "one" if r.folds == 1 else "many", count=r.folds),
                dropped=say("fidelity.dropped", "one" if r.dropped == 1 else "many", count=r.dropped)
                if r.dropped
                else "",
                paper=say("fidelity.published", "none")
                if math.isnan(r.paper)
                else say("fidelity.published", "value", value=r.paper),
                verdict=say("fidelity.twins_verdict", verdict, share=share),
                test=test,
            )
        )
    return spoken(*out)


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
        lead = name if parts else say("fidelity.same_models_lead", method=name, a=dataset_name(a), b=dataset_name(b))
        if k == n:
            parts.append(say("fidelity.same_models", "all", lead=lead, n=n))
            continue
        where = ", ".join(
            say("fidelity.pair", "seed" if s else "plain", fold=f, repeat=r, seed=s) for r, f, s in both.index[~same]
        )
        parts.append(
            say(
                "fidelity.same_models",
                "one_differs" if n - k == 1 else "some_differ",
                lead=lead,
                k=k,
                n=n,
                gap=float((both["cf_mse_a"] - both["cf_mse_b"]).abs().max()),
                where=where,
            )
        )
    if not parts:
        settings_ = ", ".join(method_name(s) for s in settings)
        return say("fidelity.no_pairs", settings=settings_, a=dataset_name(a), b=dataset_name(b))
    return "; ".join(parts) + "."
