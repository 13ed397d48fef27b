"""Appendix C: how much the counterfactuals matter.

Two kinds of evidence:

* the synthetic suite (``benchmarks/bench_synthetic_counterfactuals.py``): every treatment of the
  causal flow against exact twins, as a table (:func:`synthetic_table`) and as transition tables
  of true and generated twins (:func:`plot_transition_tables`);
* Table 1 on three *rulers*: every record of the paper's datasets is also scored on the twins of
  the library's default flow and of an independently fitted flow
  (:data:`cffair.experiments._pipeline.counterfactuals.RULERS`, ``metrics["rulers"]``). :func:`ruler_table`
  shows Table 1's CF metrics on each; :func:`ruler_claims` re-checks the paper's Table 1 claims
  about counterfactual fairness (:data:`RULER_CLAIMS`) with each ruler's numbers, by the very
  checks of :func:`~cffair_book.claims.evaluate_claims`.

A record made before the rulers existed has only the paper ruler (its top-level metrics are
that ruler's, exactly); the other columns then show "—".
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from cffair.errors import DataError
from cffair.experiments._registry import table_methods
from cffair.reporting import (
    DATASET_ORDER,
    HTMLTable,
    dataset_name,
    format_cell,
    format_table,
    method_name,
    performance_metric,
)
from cffair.reporting._records import as_record, as_records, records_frame, select_records
from cffair.reporting._style import FONT_PT, MAX_WIDTH_IN, book_style, finish
from cffair_book.claims import evaluate_claims
from cffair_book.layout import BENCHMARK_RESULTS
from cffair_book.registry import claim_status
from cffair_book.wording import say

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.figure import Figure

    from cffair.experiments import Record

__all__ = [
    "RULER_CLAIMS",
    "RULER_LABELS",
    "RULER_METHODS",
    "SYNTHETIC_FILE",
    "SYNTHETIC_TREATMENTS",
    "plot_transition_tables",
    "ruler_claims",
    "ruler_claims_table",
    "ruler_coverage",
    "ruler_frame",
    "ruler_records",
    "ruler_shift",
    "ruler_table",
    "ruler_verdict_line",
    "synthetic_best",
    "synthetic_scores",
    "synthetic_table",
    "transition_tables",
]

#: The benchmark's files (``.csv``: one row per model, intervention and treatment; ``.json``: the
#: transition tables), without the suffix.
SYNTHETIC_FILE = BENCHMARK_RESULTS / "synthetic_counterfactuals"
#: The treatments the chapter shows (the benchmark's ``+sample`` variants differ only on integer nodes).
SYNTHETIC_TREATMENTS: tuple[str, ...] = ("paper", "gumbel", "default", "oracle")
#: The rulers in the order of the table, with their column labels.
RULER_LABELS: dict[str, str] = {"paper": "paper's flow", "default": "default flow", "independent": "independent flow"}
#: Table 1's methods.
RULER_METHODS: tuple[str, ...] = table_methods("table1")
#: The paper's Table 1 claims about counterfactual fairness (those a ruler can change).
RULER_CLAIMS: tuple[str, ...] = ("Q1.1", "Q1.2", "Q1.3", "Q2.1", "Q2.3", "Q2.4")
_CF_METRICS = ("cf_mse", "cf_mse_by_subgroup", "cf_mse_worst_subgroup", "worst_subgroup", "cf_flip_rate", "n_pairs")


# ---------------------------------------------------------------------------- the synthetic suite
def _read(path: Path, what: str) -> Any:
    hint = "run `python benchmarks/bench_synthetic_counterfactuals.py`"
    if not path.is_file():
        raise DataError(f"{path} does not exist; {hint}.")
    if path.suffix == ".csv":
        return pd.read_csv(path)
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise DataError(f"{path} is not valid JSON (line {exc.lineno}, column {exc.colno}); {hint}.") from None


def synthetic_scores(path: str | Path | None = None) -> pd.DataFrame:
    """The benchmark's table: one row per ``model``, ``intervention`` and ``treatment`` with
    ``table_gap`` (largest transition-table distance to the truth over category nodes),
    ``agreement_moved``, ``changed``/``changed_true``, ``rmse_vs_unchanged``, ``cf_mse`` and
    ``cf_mse_ratio`` (CF-MSE of a fixed predictor on the generated twins ÷ on the true twins).

    Raises:
        DataError: if the file is missing (naming the command that writes it).
    """
    file = Path(path) if path is not None else SYNTHETIC_FILE.with_suffix(".csv")
    frame = _read(file, "scores")
    need = {"model", "intervention", "treatment", "table_gap", "cf_mse_ratio"}
    if not need <= set(frame.columns):
        raise DataError(f"{file} lacks the column(s) {sorted(need - set(frame.columns))}; rerun the benchmark.")
    return frame


def synthetic_best(scores: pd.DataFrame, treatments: Sequence[str] = ("paper", "gumbel", "default")) -> pd.DataFrame:
    """Which treatment is right where: per model and intervention, the treatment with the
    smallest transition-table gap (``nan`` without category nodes) and the one whose CF-MSE ratio
    is closest to 1, with their values."""
    rows = []
    for (model, iv), g in scores[scores["treatment"].isin(treatments)].groupby(["model", "intervention"], sort=False):
        g = g.set_index("treatment")
        gap = g["table_gap"].dropna()
        off = (g["cf_mse_ratio"] - 1).abs()
        best_off = _ties(off)
        rows.append(
            {
                "model": model,
                "intervention": iv,
                "best_table": ", ".join(_ties(gap)) if len(gap) else np.nan,
                "table_gap": gap.min() if len(gap) else np.nan,
                "best_cf_mse": ", ".join(best_off),
                "cf_mse_ratio": float(g.loc[best_off[0], "cf_mse_ratio"]),
            }
        )
    return pd.DataFrame(rows)


def _ties(values: pd.Series, decimals: int = 4) -> list[str]:
    """The labels of the smallest value (all of them when several tie at ``decimals``)."""
    r = values.round(decimals)
    return [str(k) for k in r.index[r == r.min()]]


_SUITE_METRICS = {"table_gap": "transition-table gap ↓", "cf_mse_ratio": "CF-MSE ÷ true (→ 1)"}


def model_label(name: str) -> str:
    """A structural model of the suite (:data:`cffair.causal._synthetic.MODELS`) as the tables name it.

    >>> model_label("nominal_child"), model_label("adult_like")
    ('nominal child', 'Adult-like')
    """
    return "Adult-like" if name == "adult_like" else name.replace("_", " ")


def synthetic_table(
    scores: pd.DataFrame,
    caption: str | None = None,
    treatments: Sequence[str] = SYNTHETIC_TREATMENTS,
    metrics: Sequence[str] = ("table_gap", "cf_mse_ratio"),
) -> HTMLTable:
    """The suite as a table: a row per model and intervention, for each treatment the largest
    transition-table gap (``table_gap``: lower is better; "—" without category nodes) and the
    CF-MSE ratio (``cf_mse_ratio``: closer to 1 is better), either or both by ``metrics``; the best
    generated treatment of each row in bold (the oracle is the reference, never bold)."""
    unknown = sorted(set(metrics) - set(_SUITE_METRICS))
    if unknown or not metrics:
        raise DataError(f"unknown suite metric(s) {unknown or list(metrics)}; choose from {list(_SUITE_METRICS)}.")
    sub = scores[scores["treatment"].isin(treatments)]
    parts = {
        m: sub.pivot_table(index=["model", "intervention"], columns="treatment", values=m, sort=False) for m in metrics
    }
    order = [t for t in treatments if t in parts[metrics[0]].columns]
    frame = pd.concat({_SUITE_METRICS[m]: p.reindex(columns=order) for m, p in parts.items()}, axis=1)
    frame = frame.reindex(scores[["model", "intervention"]].drop_duplicates().itertuples(index=False, name=None))
    frame.index.names = ["model", "intervention"]
    bold = []
    generated = [t for t in order if t != "oracle"]
    for idx, row in frame.iterrows():
        for m in metrics:
            label = _SUITE_METRICS[m]
            v = row[label][generated]
            v = (v if m == "table_gap" else (v - 1).abs()).dropna()
            bold += [(idx, (label, t)) for t in (_ties(v, 3) if len(v) else [])]
    shown = [(model_label(m), iv) for m, iv in frame.index]
    frame.index = pd.MultiIndex.from_tuples(shown, names=["model", "intervention"])
    bold = [((model_label(m), iv), col) for (m, iv), col in bold]
    return format_table(frame, caption, bold=bold)


def transition_tables(path: str | Path | None = None) -> dict[str, Any]:
    """The benchmark's transition tables: ``{model: {intervention: {treatment: {node:
    {"categories": [...], "table": rows}}}}}`` (row ``a``: the share of rows with factual
    value ``a`` whose twin has each value; treatments include ``true`` and ``oracle``)."""
    file = Path(path) if path is not None else SYNTHETIC_FILE.with_suffix(".json")
    data = _read(file, "transition tables")
    try:
        return {m: {iv: case["transitions"] for iv, case in v["cases"].items()} for m, v in data["models"].items()}
    except (KeyError, TypeError, AttributeError):
        raise DataError(f"{file} has no models → cases → transitions; rerun the benchmark.") from None


_TREATMENT_TITLES = {
    "true": "true twins",
    "paper": "paper's treatment",
    "default": "library default",
    "gumbel": "Gumbel-max only",
    "oracle": "oracle",
}


def plot_transition_tables(
    tables: Mapping[str, Any],
    model: str,
    intervention: str,
    node: str,
    treatments: Sequence[str] = ("true", "paper", "default", "oracle"),
) -> Figure:
    """Heatmaps of where a category node's value goes under an intervention, one panel per
    treatment (the truth first), two panels a row: cell ``(a, b)`` is the share of rows with
    factual value ``a`` whose twin has value ``b`` (each row sums to 1), written in the cell
    (``.77``); a generator that never changes the node draws the identity diagonal.

    Args:
        tables: :func:`transition_tables`.
        model, intervention: which case (``"adult_like"``, ``"do(sex := 1 - sex)"``).
        node: a category node of the model.
        treatments: ``true``, ``oracle`` or benchmark treatments, in panel order (at most 6).

    Raises:
        DataError: for an unknown model, intervention, treatment or node, naming the known ones.
    """
    import matplotlib.pyplot as plt
    import seaborn as sns

    if not 1 <= len(treatments) <= 6:
        raise DataError(f"plot_transition_tables draws 1 to 6 treatments, got {list(treatments)}.")
    if model not in tables:
        raise DataError(f"unknown model {model!r}; the benchmark has {sorted(tables)}.")
    if intervention not in tables[model]:
        raise DataError(f"model {model!r} has no intervention {intervention!r}; it has {sorted(tables[model])}.")
    case = tables[model][intervention]
    for t in treatments:
        if t not in case:
            raise DataError(f"no transition tables of treatment {t!r}; the benchmark has {sorted(case)}.")
        if node not in case[t]:
            raise DataError(
                f"{model} {intervention} has no transition table of node {node!r}; it has {sorted(case[t])}."
            )
    cols = 1 if len(treatments) == 1 else 2
    rows = -(-len(treatments) // cols)
    cats = [str(c) for c in case[treatments[0]][node]["categories"]]
    with book_style():
        fig, axes = plt.subplots(
            rows,
            cols,
            figsize=(MAX_WIDTH_IN, 0.35 * len(cats) * rows + 1.2 * rows + 0.4),
            squeeze=False,
            sharex=True,
            sharey=True,
            constrained_layout=True,
        )
        cmap = sns.color_palette("cividis", as_cmap=True)  # perceptually uniform, safe for colour-vision deficiencies
        for k, ax in enumerate(axes.flat):
            if k >= len(treatments):
                ax.set_visible(False)
                continue
            t = treatments[k]
            values = np.asarray(case[t][node]["table"], dtype=float)
            text = np.vectorize(lambda v: "1" if v >= 0.995 else "0" if v < 0.005 else f"{v:.2f}".lstrip("0"))(values)
            sns.heatmap(
                pd.DataFrame(values, index=cats, columns=cats),
                ax=ax,
                cmap=cmap,
                vmin=0,
                vmax=1,
                cbar=False,
                linewidths=0.5,
                linecolor="white",
                annot=text,
                fmt="",
                annot_kws={"fontsize": FONT_PT},
            )
            ax.set_title(_TREATMENT_TITLES.get(t, t), fontsize=FONT_PT)
            ax.set_xlabel(f"{node} of the twin" if k >= len(treatments) - cols else "")
            ax.set_ylabel(f"factual {node}" if k % cols == 0 else "")
            ax.tick_params(axis="x", labelrotation=90)
            ax.tick_params(axis="y", labelrotation=0)
    return finish(fig)


# ---------------------------------------------------------------------------- Table 1 on three rulers
def ruler_records(records: Iterable[Record], ruler: str) -> list[Record]:
    """The records as measured with ``ruler`` (new :class:`~cffair.experiments.Record` s): each record's
    CF metrics replaced by that ruler's (``metrics["rulers"][ruler]``), accuracy and MSE kept. For ``paper`` a
    record without rulers keeps its metrics (the paper ruler's, by construction); for the other rulers it is left
    out."""
    if ruler not in RULER_LABELS:
        raise DataError(f"unknown ruler {ruler!r}; the rulers are {', '.join(RULER_LABELS)}.")
    out = []
    for rec in records:
        metrics = rec.get("metrics") or {}
        scored = (metrics.get("rulers") or {}).get(ruler)
        if scored is None and ruler != "paper":
            continue
        new = {k: v for k, v in metrics.items() if k != "rulers"}
        if scored is not None:
            new.update({k: scored[k] for k in _CF_METRICS if k in scored})
            new.pop("cf_flip_rate_by_subgroup", None)  # not scored per ruler
        out.append(as_record({**rec, "metrics": new}))
    return out


def _table1(records: Iterable[Record]) -> list[Record]:
    """Table 1's records: its methods on the flow's twins, without weight-grid tags or options."""
    return [
        r
        for r in records
        if r.config.setting in RULER_METHODS
        and not r.config.tag
        and not r.config.options
        and r.config.cf_source == "cnf"
    ]


def ruler_coverage(records: Iterable[Record]) -> dict[str, int]:
    """How many of Table 1's records carry each ruler (every record carries ``paper``)."""
    recs = _table1(as_records(records))
    return {name: len(ruler_records(recs, name)) for name in RULER_LABELS}


def ruler_frame(records: Iterable[Record]) -> pd.DataFrame:
    """One row per Table 1 record and ruler: :func:`~cffair.reporting.records_frame`'s
    columns and ``ruler``."""
    recs = _table1(as_records(records))
    parts = []
    for name in RULER_LABELS:
        f = select_records(records_frame(ruler_records(recs, name)), RULER_METHODS)
        if not f.empty:
            parts.append(f.assign(ruler=name))
    if not parts:
        return pd.DataFrame(columns=["dataset", "method", "fold", "ruler", "cf_mse"])
    return pd.concat(parts, ignore_index=True)


_RULER_TABLE_METRICS = {"cf_mse": "CF-MSE", "cf_mse_worst_subgroup": "worst subgroup"}


def ruler_table(
    records: Iterable[Record],
    caption: str | None = None,
    decimals: int = 3,
    metrics: Sequence[str] = ("cf_mse", "cf_mse_worst_subgroup"),
) -> HTMLTable:
    """Table 1 on the three rulers: a row per dataset and method, the performance (the same on
    every ruler), then CF-MSE and/or worst-subgroup CF-MSE (``metrics``) on each ruler (mean ± sd
    over folds; "—" where the records lack that ruler); the lowest of each dataset, metric and
    ruler in bold."""
    unknown = sorted(set(metrics) - set(_RULER_TABLE_METRICS))
    if unknown or not metrics:
        raise DataError(
            f"unknown ruler-table metric(s) {unknown or list(metrics)}; choose from {list(_RULER_TABLE_METRICS)}."
        )
    frame = ruler_frame(records)
    if frame.empty:
        raise DataError("no Table 1 records to show on the rulers.")
    rows: dict[tuple[str, str], dict[tuple[str, str], str]] = {}
    best: dict[tuple[str, str, str], tuple[float, tuple[str, str]]] = {}
    for (d, m), g in frame.groupby(["dataset", "method"], sort=False):
        key = (dataset_name(d), method_name(m))
        perf = performance_metric(d)
        paper = g[g["ruler"] == "paper"]
        prefix = "MSE " if perf == "mse" else ""
        perf_text = prefix + format_cell(paper[perf].mean(), paper[perf].std(), decimals) if len(paper) else "—"
        cells = {("", "accuracy / MSE"): perf_text}
        for metric in metrics:
            label = _RULER_TABLE_METRICS[metric]
            for r, rl in RULER_LABELS.items():
                v = g.loc[g["ruler"] == r, metric].dropna()
                cells[(label, rl)] = format_cell(v.mean(), v.std(), decimals) if len(v) else "—"
                if len(v) and ((d, metric, r) not in best or v.mean() < best[(d, metric, r)][0]):
                    best[(d, metric, r)] = (float(v.mean()), key)
        rows[key] = cells
    shown = pd.DataFrame.from_dict(rows, orient="index")
    shown.columns = pd.MultiIndex.from_tuples(shown.columns)
    order = {dataset_name(d): i for i, d in enumerate(DATASET_ORDER)}
    methods = {method_name(m): i for i, m in enumerate(RULER_METHODS)}
    shown = shown.loc[sorted(shown.index, key=lambda k: (order.get(k[0], 99), methods.get(k[1], 99)))]
    shown.index = pd.MultiIndex.from_tuples(shown.index, names=["dataset", "method"])
    bold = [(key, (_RULER_TABLE_METRICS[m], RULER_LABELS[r])) for (d, m, r), (_, key) in best.items()]
    return format_table(shown, caption, bold=bold)


def ruler_claims(records: Sequence[Record], keys: Sequence[str] = RULER_CLAIMS) -> pd.DataFrame:
    """The paper's Table 1 claims about counterfactual fairness checked on each ruler: a row per
    claim (``key``, ``claim``), for each ruler its status (:func:`claim_status`; "no records"
    where no record carries the ruler) and note, ``survives``: True when the verdict is the same
    on every ruler, None while a ruler is missing from the records, and ``reverses``: True when
    one ruler says the claim holds and another that it does not (a change between a verdict and
    "inconclusive" is a p-value crossing 5 %, not a reversal)."""
    recs = _table1(as_records(records))
    verdicts: dict[str, dict[str, Any]] = {}
    texts: dict[str, str] = {}
    for name in RULER_LABELS:
        measured = ruler_records(recs, name)
        if not measured:
            continue
        for c in evaluate_claims(measured):
            if c.key in keys:
                texts[c.key] = c.claim
                verdicts.setdefault(c.key, {})[name] = (getattr(c, "verdict", None) or c.holds, c.note)
    rows = []
    for k in keys:
        row: dict[str, Any] = {"key": k, "claim": texts.get(k, "")}
        seen = verdicts.get(k, {})
        for name, label in RULER_LABELS.items():
            v = seen.get(name)
            row[label] = claim_status(v[0]) if v else "no records"
            row[f"note ({label})"] = v[1] if v else ""
        states = [seen[n][0] for n in RULER_LABELS if n in seen]
        complete = len(states) == len(RULER_LABELS)
        shown = {row[label] for label in RULER_LABELS.values()}
        row["survives"] = len(set(map(str, states))) == 1 if complete else None
        row["reverses"] = {claim_status(True), claim_status(False)} <= shown if complete else None
        rows.append(row)
    return pd.DataFrame(rows)


def ruler_claims_table(claims: pd.DataFrame, caption: str | None = None) -> HTMLTable:
    """:func:`ruler_claims` as a table: claim, its status on each ruler, and whether it survives
    the change of ruler."""
    shown = claims.set_index("key")[["claim", *RULER_LABELS.values()]].copy()
    by_key = claims.set_index("key")
    shown["same on every ruler?"] = [
        "not yet known"
        if pd.isna(same) or same is None
        else "yes"
        if same
        else "no: it reverses"
        if rev
        else "no: holds or fails on one ruler, inconclusive on another"
        for same, rev in zip(by_key["survives"], by_key["reverses"])
    ]
    return format_table(shown, caption)


def ruler_verdict_line(claims: pd.DataFrame) -> str:
    """One sentence on :func:`ruler_claims`: how many claims read the same on every ruler and
    which change; or, while some ruler is missing from the records, that this is not known yet."""
    if claims.empty:
        raise DataError("no claims to tally on the rulers.")
    n = len(claims)
    if claims["survives"].isna().any():
        missing = [label for label in RULER_LABELS.values() if (claims[label] == "no records").all()]
        return say("rulers.not_known", missing=", ".join(missing) or say("rulers.some_claims"), claims=n)
    same = claims[claims["survives"] == True]  # noqa: E712 (a column of True/False/None)
    reversed_ = claims[claims["reverses"] == True]  # noqa: E712
    weaker = claims[(claims["survives"] == False) & (claims["reverses"] == False)]  # noqa: E712

    def branch(rows: pd.DataFrame) -> str:
        return "none" if rows.empty else "one" if len(rows) == 1 else "many"

    return say(
        "rulers.tally",
        claims=n,
        same=len(same),
        weaker=say("rulers.weaker", branch(weaker), count=len(weaker), keys=", ".join(weaker["key"]))
        if len(weaker)
        else "",
        reversed=say("rulers.reversed", branch(reversed_), count=len(reversed_), keys=", ".join(reversed_["key"])),
    )


def ruler_shift(records: Iterable[Record], methods: Sequence[str] | None = None, ruler: str = "default") -> str:
    """One sentence: how much the CF-MSE of the same models changes when they are measured on another
    flow's twins (``ruler``) instead of the paper's flow's, over the folds that carry both: the range
    of the ratio of the two means per dataset and method, and the largest change. The adjective
    comes from the numbers: "slightly" only when every ratio lies within 0.8–1.25.

    >>> recs = [{"config": {"dataset": "adult", "fold": k, "setting": "ltn_acc_cf"},
    ...          "metrics": {"accuracy": 0.8, "cf_mse": 0.045, "rulers": {"default": {"cf_mse": 0.292}}}}
    ...         for k in range(2)]
    >>> print(ruler_shift(recs))
    Measured on the default flow's twins instead of the paper's flow's, the same models' CF-MSE changes by a factor of 6.49 (LTN(acc+CF) on Adult: 0.045 → 0.292; 2 folds): a different ruler, not a slightly different one.
    """
    if ruler not in RULER_LABELS or ruler == "paper":
        raise DataError(
            f"ruler_shift compares another ruler with the paper's: choose one of default, independent, got {ruler!r}."
        )
    frame = ruler_frame(records)
    if methods is not None:
        frame = frame[frame["method"].isin(list(methods))]
    none = say("rulers.no_records", ruler=RULER_LABELS[ruler])
    if frame.empty:
        return none
    keys = ["dataset", "method", "repeat", "fold", "seed"]
    wide = frame.pivot_table(index=keys, columns="ruler", values="cf_mse", aggfunc="first")
    if ruler not in wide.columns or "paper" not in wide.columns:
        return none
    wide = wide.dropna(subset=["paper", ruler])
    if wide.empty:
        return none
    means = wide.groupby(level=["dataset", "method"], sort=False)[["paper", ruler]].mean()
    folds = wide.groupby(level=["dataset", "method"], sort=False).size()
    ratio = means[ruler] / means["paper"]
    big = (np.log(ratio.abs())).abs().idxmax()
    lo, hi = float(ratio.min()), float(ratio.max())
    slight = bool((ratio >= 0.8).all() and (ratio <= 1.25).all())
    return say(
        "rulers.shift",
        ruler=RULER_LABELS[ruler],
        spread=say("rulers.factor", "one" if np.isclose(lo, hi) else "range", low=lo, high=hi),
        example=say(
            "rulers.example",
            method=method_name(str(big[1])),
            dataset=dataset_name(str(big[0])),
            paper=means.loc[big, "paper"],
            other=means.loc[big, ruler],
            folds=int(folds.loc[big]),
        ),
        words=say("rulers.shift_words", "slight" if slight else "different"),
    )
