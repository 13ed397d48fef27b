"""The investigations of the claims that fail here: summaries, one-sentence findings and figures.

Each investigation is a set of experiment configs (:func:`cffair.experiments.investigation_grid`)
whose records the frames of :mod:`cffair.reporting._investigation_frames` shape (:func:`~.variants_frame`,
:func:`~.explanation_frame`, :func:`~.threshold_sweep_frame`,
:func:`~.query_frame`, :func:`~.fine_weight_frame`). This module turns them into
what a chapter's section "Why does this claim fail?" shows: a summary table, a sentence saying
what was found (computed, so it changes with the numbers) and a figure. The claims
(:mod:`.claims`) quote the same sentences in their notes.

seaborn and matplotlib are imported inside the plotting functions.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from cffair.errors import DataError
from cffair.experiments import paper_baselines
from cffair.reporting import dataset_name, fold_trend, format_cell, method_name, metric_name, performance_metric
from cffair.reporting._records import as_records
from cffair.reporting._style import MARKERS, MAX_WIDTH_IN, book_style, finish, legend_below, palette, patch_handles
from cffair.reporting._verdicts import p_text, paired
from cffair_book.wording import say

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.figure import Figure

    from cffair.experiments import Record

__all__ = [
    "cke_finding",
    "threshold_reach",
    "pareto_front",
    "plot_explanation_imbalances",
    "plot_threshold_sweep",
    "plot_variants",
    "q2_finding",
    "q2_summary",
    "q2_table",
    "query_finding",
    "query_summary",
    "weight_finding",
]

#: The paper's imbalance thresholds (§7.3), drawn on the threshold sweep.
#: The satisfaction above which a query's answer reads "true" (the midpoint of the fuzzy truth values).
QUERY_TRUE = 0.5

PAPER_THRESHOLDS: dict[str, float] = {"compas": 0.1, "compas_age": 0.1, "adult": 0.01, "lawschool": 0.01}


def _pct(v: float) -> str:
    return "—" if v is None or np.isnan(v) else f"{100 * v:.1f} %"


# ---------------------------------------------------------------------------- Q2
#: The methods of the Q2 investigation: LTN(acc+CF) and the paper's three baselines.
Q2_METHODS: tuple[str, ...] = ("ltn_acc_cf", *paper_baselines())


def q2_summary(variants: pd.DataFrame, dataset: str | None = None, methods: Sequence[str] = Q2_METHODS) -> pd.DataFrame:
    """Mean and sd over folds of performance, CF-MSE and flip rate per method and variant
    (:func:`~.variants_frame`), lowest CF-MSE first within each dataset. Where a dataset
    has LTN(acc+CF) variants, every row is read on the folds they ran on (Adult: fold 0), so
    that the baselines are compared on the same test rows; the paper's own LTN(acc+CF) run
    is left out there (the p = 1 variant is the same model).

    Columns: ``dataset, kind, method, label, folds, perf, perf_sd, cf_mse, cf_mse_sd,
    cf_flip_rate`` (``perf``: accuracy, or MSE for Lawschool)."""
    v = variants if dataset is None else variants[variants["dataset"] == dataset]
    v = v[v["method"].isin(list(methods))]
    folds = _variant_folds(v)
    keep = [
        d not in folds or (f in folds[d] and not (k == "paper" and m == "ltn_acc_cf"))
        for d, f, k, m in zip(v["dataset"], v["fold"], v["kind"], v["method"])
    ]
    v = v[pd.Series(keep, index=v.index, dtype=bool)]
    rows = []
    for (d, kind, m, label), g in v.groupby(["dataset", "kind", "method", "label"], sort=False):
        perf = g[performance_metric(d)].astype(float)
        rows.append(
            {
                "dataset": d,
                "kind": kind,
                "method": m,
                "label": label,
                "folds": g["fold"].nunique(),
                "perf": perf.mean(),
                "perf_sd": perf.std(ddof=1) if len(g) > 1 else np.nan,
                "cf_mse": g["cf_mse"].astype(float).mean(),
                "cf_mse_sd": g["cf_mse"].astype(float).std(ddof=1) if len(g) > 1 else np.nan,
                "cf_flip_rate": g["cf_flip_rate"].astype(float).mean(),
                "cf_mse_per_flip": _cf_mse_per_flip(g),
            }
        )
    cols = [
        "dataset",
        "kind",
        "method",
        "label",
        "folds",
        "perf",
        "perf_sd",
        "cf_mse",
        "cf_mse_sd",
        "cf_flip_rate",
        "cf_mse_per_flip",
    ]
    return pd.DataFrame(rows, columns=cols).sort_values(["dataset", "cf_mse"], kind="stable").reset_index(drop=True)


def _variant_folds(v: pd.DataFrame) -> dict[str, set]:
    """The folds each dataset's LTN(acc+CF) variants ran on (datasets without variants absent)."""
    return v[v["kind"] == "variant"].groupby("dataset")["fold"].agg(set).to_dict()


def _cf_mse_per_flip(g: pd.DataFrame) -> float:
    """Mean CF-MSE ÷ mean flip rate over the records that carry a flip rate (older records lack it)."""
    h = g[g["cf_flip_rate"].notna() & (g["cf_flip_rate"].astype(float) > 0)]
    return float(h["cf_mse"].astype(float).mean() / h["cf_flip_rate"].astype(float).mean()) if len(h) else np.nan


def _series_name(method: str, kind: str, label: str) -> str:
    if method == "ltn_acc_cf" and kind == "variant":
        return f"LTN(acc+CF): {label}"
    return method_name(method)


def q2_table(variants: pd.DataFrame, dataset: str) -> pd.DataFrame:
    """:func:`q2_summary` of one dataset as the book shows it: one row per method or variant
    (lowest CF-MSE first), cells ``mean ± sd`` over folds and the flip rate in per cent."""
    s = q2_summary(variants, dataset)
    perf = performance_metric(dataset)

    names = [_series_name(m, k, lab) for m, k, lab in zip(s["method"], s["kind"], s["label"])]
    return pd.DataFrame(
        {
            "folds": s["folds"].to_numpy(),
            metric_name(perf): [format_cell(m, d) for m, d in zip(s["perf"], s["perf_sd"])],
            metric_name("cf_mse"): [format_cell(m, d) for m, d in zip(s["cf_mse"], s["cf_mse_sd"])],
            metric_name("cf_flip_rate"): [_pct(v) for v in s["cf_flip_rate"]],
        },
        index=pd.Index(names, name="method"),
    )


def _baseline(v: pd.DataFrame, dataset: str, method: str) -> pd.DataFrame:
    """A baseline's rows on the folds the dataset's variants ran on."""
    folds = _variant_folds(v).get(dataset, set())
    return v[(v["dataset"] == dataset) & (v["method"] == method) & v["fold"].isin(folds)]


def q2_finding(variants: pd.DataFrame, dataset: str = "compas") -> str:
    """One sentence on where LTN(acc+CF)'s CF-MSE gap to CNF comes from, on ``dataset`` ("" without variants):
    the reference's gap, which variants reach CNF's CF-MSE and at what accuracy, and the flip rates."""
    v = variants[variants["dataset"] == dataset]
    ltn = v[(v["kind"] == "variant")]
    cnf = _baseline(v, dataset, "cnf")
    if ltn.empty or cnf.empty:
        return ""
    perf = performance_metric(dataset)
    means = ltn.groupby("label")[[perf, "cf_mse", "cf_flip_rate"]].mean()
    folds = ltn.groupby("label")["fold"].nunique()
    c = cnf[[perf, "cf_mse", "cf_flip_rate"]].astype(float).mean()
    ref = means.loc["reference (A4 exponent p = 1)"] if "reference (A4 exponent p = 1)" in means.index else None
    reach = means[means["cf_mse"] <= c["cf_mse"]]
    n = int(folds.max())
    where = say("investigations.q2_where", "one" if n == 1 else "many", dataset=dataset_name(dataset), count=n)
    parts = []
    if ref is not None:
        flips = (
            ""
            if np.isnan(c["cf_flip_rate"])
            else say(
                "investigations.q2_reference_flips",
                "fewer" if ref["cf_flip_rate"] < c["cf_flip_rate"] else "more",
                ltn=_pct(ref["cf_flip_rate"]),
                cnf=_pct(c["cf_flip_rate"]),
            )
        )
        parts.append(say("investigations.q2_reference", ltn=ref["cf_mse"], cnf=c["cf_mse"], flips=flips))
    if len(reach):
        ranked = reach.sort_values(perf, ascending=perf == "mse")
        best, label = ranked.iloc[0], ranked.index[0]
        parts.append(
            say(
                "investigations.q2_reach",
                count=len(reach),
                variants=len(means),
                labels=", ".join(f"“{x}”" for x in reach.index),
                label=label,
                cf_mse=best["cf_mse"],
                metric=metric_name(perf).split(" ")[0],
                value=best[perf],
                cnf=c[perf],
            )
        )
    else:
        parts.append(
            say(
                "investigations.q2_no_reach",
                label=means["cf_mse"].idxmin(),
                cf_mse=means.sort_values("cf_mse").iloc[0]["cf_mse"],
            )
        )
    lr = [lab for lab in means.index if lab.startswith("lr ")]
    if lr and ref is not None:
        rates = ", ".join(
            say("investigations.q2_learning_rate", cf_mse=means.loc[x, "cf_mse"], value=means.loc[x, perf], label=x)
            for x in lr
        )
        parts.append(say("investigations.q2_learning_rates", rates=rates, cf_mse=ref["cf_mse"], value=ref[perf]))
    per_ltn = _cf_mse_per_flip(ltn[ltn["label"] == "reference (A4 exponent p = 1)"])
    per_cnf = _cf_mse_per_flip(cnf)
    if ref is not None and not (np.isnan(per_ltn) or np.isnan(per_cnf)):
        parts.append(say("investigations.q2_per_flip", ltn=_per_flip(per_ltn), cnf=_per_flip(per_cnf)))
    return say("investigations.q2", where=where, parts="; ".join(parts))


def _per_flip(ratio: float) -> str:
    """CF-MSE per changed decision, read: near 1 a changed decision is a full 0 ↔ 1 jump."""
    return say("investigations.per_flip", "jumps" if ratio > 0.7 else "shifts" if ratio < 0.3 else "plain", ratio=ratio)


def pareto_front(points: pd.DataFrame, x: str, y: str, y_higher: bool = True) -> pd.DataFrame:
    """The points no other point beats in both ``x`` (lower is better) and ``y``, sorted by ``x``."""
    p = points.dropna(subset=[x, y]).sort_values([x, y], ascending=[True, not y_higher])
    keep, best = [], -np.inf
    for i, row in p.iterrows():
        val = row[y] if y_higher else -row[y]
        if val > best:
            keep.append(i)
            best = val
    return p.loc[keep]


#: The families of Q2's variants (one colour each; a marker per member), recognised by their labels.
_FAMILIES: tuple[tuple[str, str], ...] = (
    ("baseline", "baselines"),
    ("lr ", "learning rate"),
    ("fairness epochs", "fairness stage"),
    ("p = ", "A4's exponent p"),
    ("weights", "A4's weight"),
    ("reference", "A4's exponent p"),
)


def _family(name: str) -> str:
    if not name.startswith("LTN(acc+CF): "):
        return "baselines"
    label = name.removeprefix("LTN(acc+CF): ")
    if label.startswith("p = ") and "weights" in label:
        return "p and weight"
    return next((fam for key, fam in _FAMILIES if key in label), "other")


def _plain_log_ticks(ax: Any) -> None:
    """Log axis ticks at 1, 2 and 5 times powers of ten, written as plain numbers."""
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

    ax.xaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    ax.xaxis.set_minor_formatter(NullFormatter())


def plot_variants(variants: pd.DataFrame, dataset: str = "compas", *, title: str | None = None) -> Figure:
    """Accuracy (or MSE) against CF-MSE and against the flip rate for every LTN(acc+CF) variant
    and baseline on ``dataset`` (means over folds), with the Pareto front (the points no other
    beats in both) as a dashed line; a colour per family of variants (learning rate, fairness
    stage, A4's exponent, A4's weight, baselines), a marker per member. The right panel is left
    out when no record has a flip rate."""
    import matplotlib.pyplot as plt

    s = q2_summary(variants, dataset)
    if s.empty:
        raise DataError(f"no LTN(acc+CF) or baseline records for {dataset}; run the q2_why group.")
    perf = performance_metric(dataset)
    s = s.assign(name=[_series_name(m, k, lab) for m, k, lab in zip(s["method"], s["kind"], s["label"])])
    s = s.assign(family=[_family(n) for n in s["name"]]).sort_values(["family", "name"], kind="stable")
    panels = ["cf_mse"] + (["cf_flip_rate"] if s["cf_flip_rate"].notna().any() else [])
    families = list(dict.fromkeys(s["family"]))
    fam_colour = dict(zip(families, palette(len(families))))
    names = list(dict.fromkeys(s["name"]))
    member = {n: i for fam in families for i, n in enumerate(dict.fromkeys(s.loc[s["family"] == fam, "name"]))}
    with book_style():
        fig, axes = plt.subplots(1, len(panels), figsize=(MAX_WIDTH_IN, 3.4), layout="constrained", squeeze=False)
        handles = {}
        for ax, x in zip(axes.flat, panels):
            for r in s.itertuples():
                handles[r.name] = ax.plot(
                    getattr(r, x),
                    r.perf,
                    marker=MARKERS[member[r.name] % len(MARKERS)],
                    color=fam_colour[r.family],
                    linestyle="none",
                    markersize=8,
                    markeredgecolor="white",
                    markeredgewidth=0.6,
                )[0]
            front = pareto_front(s.rename(columns={"perf": "y"}), x, "y", y_higher=perf == "accuracy")
            ax.plot(front[x], front["y"], linestyle="--", color="#777777", linewidth=1, zorder=0)
            ax.set_xscale("log")
            _plain_log_ticks(ax)
            ax.set_xlabel(("CF-MSE" if x == "cf_mse" else "flip rate") + " (log, lower is better)")
            ax.set_ylabel(metric_name(perf))
        legend_below(fig, [handles[n] for n in names], [n.removeprefix("LTN(acc+CF): ") for n in names], ncol=2)
        fig.suptitle(title or f"{dataset_name(dataset)}: LTN(acc+CF) variants and baselines")
        return finish(fig)


# ---------------------------------------------------------------------------- Q3
def _signed(v: float) -> str:
    """``"+0.038"``, ``"−0.042"`` (a true minus sign)."""
    return f"{v:+.3f}".replace("-", "−")


def _largest(frame: pd.DataFrame) -> pd.Series:
    """The largest imbalance (over groups) of each fold × stage × feature."""
    return frame.groupby(["fold", "stage", "feature"])["imbalance"].max()


def cke_finding(expl: pd.DataFrame, records: Sequence[Record], dataset: str = "compas") -> dict[str, str]:
    """What turning the largest immutable imbalance into an A5 axiom did (:func:`~.explanation_frame`
    of the runs with explanations on every attribute), as sentences keyed ``axiom`` (the axiom
    and its own imbalance), ``others`` (the other attributes' imbalances, priors count first),
    ``cf`` and ``accuracy`` (the model's); empty without such runs."""
    e = expl[expl["dataset"] == dataset]
    if e.empty:
        return {}
    forced = e[e["forced"] & (e["stage"] == "before")]
    folds = sorted(set(e["fold"]))
    n = len(folds)
    big = _largest(e).unstack("stage")
    ax_names = sorted({f"({g}, {f})" for g, f in zip(forced["group"], forced["feature"])})
    own = e.merge(forced[["fold", "group", "feature"]], on=["fold", "group", "feature"])
    own = own.groupby("stage")[["frequency", "imbalance"]].mean()
    b_imb, a_imb = own.loc["before", "imbalance"], own.loc["after", "imbalance"]
    threshold = PAPER_THRESHOLDS.get(dataset, 0.01)
    turn = "reverses" if a_imb < 0 < b_imb else "below" if a_imb < threshold <= b_imb else "none"
    out = {
        "axiom": say(
            "investigations.cke_axiom",
            folds=say("investigations.folds", "one" if n == 1 else "many", count=n),
            dataset=dataset_name(dataset),
            axioms=" and ".join(ax_names),
            imbalance=b_imb,
            against=say("investigations.cke_against", "below" if b_imb < threshold else "above"),
            share_before=own.loc["before", "frequency"],
            share_after=own.loc["after", "frequency"],
            before=_signed(b_imb),
            after=_signed(a_imb),
            turn=say("investigations.cke_turn", turn),
        )
    }
    others = [f for f in dict.fromkeys(e.loc[~e["immutable"], "feature"])]
    others.sort(key=lambda f: (f != "priors-count", f))
    parts = []
    for f in others:
        b = np.array([big.loc[(k, f), "before"] if (k, f) in big.index else np.nan for k in folds])
        a = np.array([big.loc[(k, f), "after"] if (k, f) in big.index else np.nan for k in folds])
        r = paired(list(a), list(b), larger=True)
        verdict = r.verdict if r.n > 1 else say("investigations.cke_other_one_fold")
        parts.append(
            say("investigations.cke_other", feature=f, before=np.nanmean(b), after=np.nanmean(a), verdict=verdict)
        )
    out["others"] = say("investigations.cke_others", parts="; ".join(parts))
    steps = {
        r.config.fold: r["cke"]["steps"]
        for r in as_records(records)
        if r.config.dataset == dataset and (r.get("cke") or {}).get("explain_all")
    }
    for key, metric, label in (("cf", "cf_mse", "CF-MSE"), ("accuracy", "accuracy", "accuracy")):
        pairs = [(float(st[0][metric]), float(st[-1][metric])) for st in steps.values() if len(st) > 1]
        if pairs:
            b, a = np.array(pairs).T
            r = paired(list(a), list(b), larger=metric == "accuracy")
            out[key] = say(
                "investigations.cke_model",
                "folds" if r.n > 1 else "one",
                metric=label,
                before=b.mean(),
                after=a.mean(),
                count=r.n,
                p=p_text(r) if r.n > 1 else "",
            )
    return out


def threshold_reach(expl: pd.DataFrame, dataset: str = "compas") -> str:
    """Whether any imbalance of the runs with explanations on every attribute reaches the paper's
    threshold for ``dataset`` before the A5 axiom (the largest over groups and features, per fold):
    in how many folds, and the largest one. Empty without such runs.

    >>> e = pd.DataFrame({"dataset": "compas", "fold": [0, 0, 1], "stage": "before", "group": "g",
    ...                   "feature": ["priors-count", "age", "priors-count"], "imbalance": [0.06, 0.02, 0.08]})
    >>> print(threshold_reach(e))
    Before the A5 axiom, no imbalance on any attribute reaches the paper's threshold of 0.1 on COMPAS in any of 2 folds (the largest: 0.080 on priors-count, fold 1): at the paper's threshold the extraction would not fire, so the effects of the paper's Table 2 cannot appear in these runs.
    """
    e = expl[(expl["dataset"] == dataset) & (expl["stage"] == "before")].reset_index(drop=True)
    if e.empty:
        return ""
    threshold = PAPER_THRESHOLDS.get(dataset, 0.01)
    per_fold = e.loc[e.groupby("fold")["imbalance"].idxmax()]
    top = per_fold.loc[per_fold["imbalance"].idxmax()]
    reach = int((per_fold["imbalance"] >= threshold).sum())
    largest = say(
        "investigations.threshold_largest", imbalance=top["imbalance"], feature=top["feature"], fold=int(top["fold"])
    )
    return say(
        "investigations.threshold",
        "none" if reach == 0 else "some",
        threshold=threshold,
        dataset=dataset_name(dataset),
        folds=len(per_fold),
        reach=reach,
        largest=largest,
    )


def plot_explanation_imbalances(expl: pd.DataFrame, dataset: str = "compas", *, title: str | None = None) -> Figure:
    """Figure 4 (bottom) on every attribute: for each feature and sensitive group, the share of the
    group's negatively predicted training rows with a counterfactual explanation on it (mean over
    folds), before (left) and after (right) the forced A5 axiom; immutable features are marked *."""
    import matplotlib.pyplot as plt

    e = expl[expl["dataset"] == dataset]
    if e.empty:
        raise DataError(f"no explanations on every attribute for {dataset}; run the q3_why group.")
    m = e.groupby(["stage", "feature", "group"])["frequency"].mean()
    immutable = set(e.loc[e["immutable"], "feature"])
    features = sorted(set(e["feature"]), key=lambda f: (f not in immutable, f))
    groups = sorted(set(e["group"]))
    colours = dict(zip(groups, palette(len(groups))))
    width = 0.8 / len(groups)
    with book_style():
        fig, axes = plt.subplots(1, 2, figsize=(MAX_WIDTH_IN, 3.6), layout="constrained", sharey=True)
        for ax, stage in zip(axes, ("before", "after")):
            for j, g in enumerate(groups):
                ys = [m.get((stage, f, g), np.nan) for f in features]
                ax.bar(np.arange(len(features)) + (j - (len(groups) - 1) / 2) * width, ys, width, color=colours[g])
            ax.set_xticks(
                np.arange(len(features)),
                [f + (" *" if f in immutable else "") for f in features],
                rotation=45,
                ha="right",
            )
            ax.set_title(f"{stage} the A5 axiom")
        axes[0].set_ylabel("share with an explanation")
        legend_below(fig, patch_handles([colours[g] for g in groups]), groups, ncol=len(groups))
        fig.suptitle(title or f"{dataset_name(dataset)}: explanations on every attribute (* immutable)")
        return finish(fig)


def plot_threshold_sweep(sweep: pd.DataFrame, *, title: str | None = None) -> Figure:
    """How many (group, feature) imbalances reach each threshold (mean over folds), one line per
    dataset and feature set (:func:`~.threshold_sweep_frame`); the paper's thresholds dotted."""
    import matplotlib.pyplot as plt

    if sweep.empty:
        raise DataError("no CKE records to sweep; run the q3 or q3_why group.")
    m = sweep.groupby(["dataset", "features", "threshold"])["n"].mean().reset_index()
    series = list(dict.fromkeys(zip(m["dataset"], m["features"])))
    colours = palette(len(series))
    with book_style():
        fig, ax = plt.subplots(figsize=(0.8 * MAX_WIDTH_IN, 3.4), layout="constrained")
        handles = []
        for i, (d, feats) in enumerate(series):
            part = m[(m["dataset"] == d) & (m["features"] == feats)]
            handles.append(
                ax.plot(
                    part["threshold"],
                    part["n"],
                    marker=MARKERS[i % len(MARKERS)],
                    color=colours[i],
                    markersize=7,
                    linestyle="-" if feats == "immutable" else "--",
                )[0]
            )
        for t in sorted({PAPER_THRESHOLDS.get(d, 0.01) for d, _ in series}):
            ax.axvline(t, color="#999999", linestyle=":", linewidth=1)
        ax.set_xscale("log")
        _plain_log_ticks(ax)
        ax.set_xlabel("imbalance threshold (log; dotted: the paper's)")
        ax.set_ylabel("imbalances at or above it")
        legend_below(fig, handles, [f"{dataset_name(d)}, {f}" for d, f in series], ncol=2)
        if title:
            fig.suptitle(title)
        return finish(fig)


# ---------------------------------------------------------------------------- appendix B
def weight_finding(fine: pd.DataFrame) -> str:
    """One sentence on the finer weight grid (:func:`~.fine_weight_frame`): per dataset, Spearman's ρ
    of performance and of CF-MSE against log₂(acc weight / CF weight) within each fold, its mean and
    range over the folds and the corrected t-test over them (the fold is the unit:
    :func:`~cffair.reporting.fold_trend`; "" without records). "higher"/"lower" follow the mean ρ.

    >>> import pandas as pd
    >>> g = pd.DataFrame({"dataset": "compas", "fold": [0] * 3 + [1] * 3, "log2_ratio": [-1, 0, 1] * 2,
    ...                   "accuracy": [0.60, 0.61, 0.62, 0.60, 0.62, 0.61], "cf_mse": [0.01, 0.02, 0.03] * 2})
    >>> print(weight_finding(g))  # doctest: +NORMALIZE_WHITESPACE
    With the finer grid, on COMPAS (3 weight points, 2 folds) a heavier accuracy weight goes with higher accuracy
    (ρ within a fold +0.75 on average, +0.50 to +1.00, p 0.247) and higher CF-MSE (ρ within a fold +1.00 on
    average, +1.00 to +1.00, p < 0.001); CF-MSE ranges 0.010–0.030 and accuracy 0.600–0.615.
    """
    parts = []
    for d, g in fine.groupby("dataset", sort=False):
        perf = performance_metric(d)
        m = g.groupby("log2_ratio")[[perf, "cf_mse"]].mean()
        t_p = fold_trend(g["log2_ratio"], g[perf].astype(float), g["fold"])
        t_c = fold_trend(g["log2_ratio"], g["cf_mse"].astype(float), g["fold"])
        n = g["fold"].nunique()
        name = metric_name(perf).split(" ")[0]

        def said(t: Any, what: str) -> str:
            return say(
                "investigations.trend",
                "higher" if t.rho > 0 else "lower",
                what=what,
                rho=t.rho,
                low=t.rho_min,
                high=t.rho_max,
                p=p_text(t.p),
            )

        parts.append(
            say(
                "investigations.weight_part",
                dataset=dataset_name(d),
                points=len(m),
                folds=say("investigations.folds", "one" if n == 1 else "many", count=n),
                performance=said(t_p, name),
                cf_mse=said(t_c, "CF-MSE"),
                cf_low=m["cf_mse"].min(),
                cf_high=m["cf_mse"].max(),
                metric=name,
                low=m[perf].min(),
                high=m[perf].max(),
            )
        )
    return say("investigations.weights", parts="; ".join(parts)) if parts else ""


# ---------------------------------------------------------------------------- Q4
def query_summary(queries: pd.DataFrame, dataset: str = "adult") -> pd.DataFrame:
    """Query (2) per subgroup and rule for choosing x̂ (:func:`~.query_frame`): β, the
    satisfaction, whether a differently decided person within β was found, and the share of the
    subgroup's negatively predicted people for whom one is."""
    q = queries[queries["dataset"] == dataset]
    out = q.assign(
        found=q["found"].map({True: "yes", False: "no"}),
        witness_share=[_pct(v) for v in q["witness_share"]],
        rule=q["rule"].map(lambda r: QUERY_RULES.get(r, r)),
    )
    out = out.set_index(["subgroup", "rule"])[list(QUERY_COLUMNS)].sort_index()
    return out.rename(columns=QUERY_COLUMNS).rename_axis(index=["subgroup", "x̂ chosen"])


#: The display names of :func:`query_summary`'s columns and of the rules for choosing x̂.
QUERY_COLUMNS: dict[str, str] = {
    "beta": "β",
    "sat": "satisfaction",
    "found": "someone within β",
    "witness_share": "share with someone within β",
    "n_negative": "negatively predicted",
}
QUERY_RULES: dict[str, str] = {"nearest": "nearest neighbour (Table 4)", "random": "drawn at random"}


def query_finding(queries: pd.DataFrame, dataset: str = "adult") -> str:
    """One sentence on query (2) for a person drawn at random (§7.4): in how many subgroups a differently
    decided person lies within β, in how many the query's satisfaction says it is true (above
    :data:`QUERY_TRUE`), and over all of a subgroup's negatively predicted people how often one lies within β."""
    q = queries[(queries["dataset"] == dataset) & (queries["rule"] == "random")]
    if q.empty:
        return ""
    found, true = int(q["found"].sum()), int((q["sat"] > QUERY_TRUE).sum())
    sats = "; ".join(f"{r.subgroup} {r.sat:.3f}" for r in q.itertuples())
    shares = "; ".join(f"{r.subgroup} {_pct(r.witness_share)} of {int(r.n_negative)}" for r in q.itertuples())
    return say(
        "investigations.query",
        found=found,
        subgroups=len(q),
        true_above=QUERY_TRUE,
        true=true,
        satisfactions=sats,
        shares=shares,
    )
