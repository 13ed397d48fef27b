"""The report of a run on one's own data (``cffair run``): one self-contained HTML page.

The page holds the Table 1-style comparison (accuracy or MSE, CF-MSE and worst-subgroup CF-MSE,
mean ± sd over folds, every method), the CF-MSE per subgroup (figure and table), the
knowledge-extraction imbalances (section 4.3), the subgroup queries of equation (3), the
per-fold numbers and what to check (warnings of the run). Tables are HTML
(:func:`~cffair.reporting.format_table`), figures PNG images embedded as ``data:`` URIs:
the file opens in any browser, offline, and can be mailed as it is.

Each section's numbers come from a frame made here from the result records, so that tests and
notebooks can read the same numbers the page shows.
"""

from __future__ import annotations

# collapsed_runs, excluded_methods and recommendation live in cffair.reporting._recommendation
# (imported above, so that ``from cffair.reporting._report import recommendation`` keeps working)
__all__ = [
    "best_methods",
    "cke_frame",
    "verdict_frame",
    "eq3_frame",
    "figure_html",
    "method_frame",
    "per_fold_frame",
    "render_report",
    "subgroup_summary",
    "write_report",
]

import base64
import html
import io
import time
from collections.abc import Mapping, Sequence
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from cffair.errors import DataError
from cffair.reporting._comparison import COLLAPSED_MARK, collapsed_note
from cffair.reporting._group_table import group_fairness_frame
from cffair.reporting._names import HIGHER_IS_BETTER, METRIC_ORDER, method_name, metric_name
from cffair.reporting._recommendation import collapsed_runs, recommendation
from cffair.reporting._records import (
    as_records,
    cke_candidates,
    rankable,
    records_frame,
    results_long,
    subgroup_frame,
)
from cffair.reporting._tables import format_cell, format_table

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.figure import Figure

    from cffair.experiments._store import Record


def _style() -> str:
    """The report's stylesheet (``cffair/data/report.css``, shipped with the package)."""
    return resources.files("cffair").joinpath("data/report.css").read_text(encoding="utf-8")


# ---------------------------------------------------------------------------- frames
def method_frame(
    records: Sequence[Record], methods: Sequence[str], decimals: int = 3
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The Table 1-style comparison: one row per method (in ``methods`` order), one column per
    metric, cells ``mean ± sd`` over folds, marked "†" where a fold's model collapsed.

    Returns:
        The pair ``(shown, long)``, the formatted frame (display names) and the long frame of numbers
        (:func:`~cffair.reporting.results_long`) it was made from.
    """
    long = results_long(records, table="own", methods=list(methods), tagged=True)
    if long.empty:
        raise DataError(f"no records of the methods {list(methods)}; run them first.")
    metrics = [m for m in METRIC_ORDER if m in set(long["metric"])]
    present = [m for m in methods if m in set(long["method"])]
    cells = {
        (r.method, r.metric): format_cell(r.mean, r.sd, decimals) + (f" {COLLAPSED_MARK}" if r.collapsed else "")
        for r in long.itertuples()
    }
    shown = pd.DataFrame(
        [[cells.get((m, k), "—") for k in metrics] for m in present],
        index=[method_name(m) for m in present],
        columns=pd.Index([metric_name(k) for k in metrics], name="method"),
    )
    return shown, long


def best_methods(long: pd.DataFrame) -> list[tuple[str, str]]:
    """The ``(method, metric)`` display cells of :func:`method_frame`'s table with the best mean
    of each metric (highest accuracy, lowest otherwise), for ``format_table(bold=...)``."""
    out = []
    for metric, g in rankable(long).groupby("metric", sort=False):  # a collapsed model is no best
        i = g["mean"].idxmax() if metric in HIGHER_IS_BETTER else g["mean"].idxmin()
        out.append((method_name(g.at[i, "method"]), metric_name(str(metric))))
    return out


def subgroup_summary(
    records: Sequence[Record], methods: Sequence[str], decimals: int = 4
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """CF-MSE per subgroup: ``(shown, per_fold)`` where ``shown`` has one row per subgroup and
    one column per method (``mean ± sd`` over folds) and ``per_fold`` one row per record ×
    subgroup (:func:`~cffair.reporting.subgroup_frame`)."""
    per_fold = subgroup_frame(records, settings=tuple(methods), tagged=True)
    if per_fold.empty:
        return pd.DataFrame(), per_fold
    g = per_fold.groupby(["subgroup", "method"], sort=False)["cf_mse"]
    stats = g.agg(mean="mean", n="count").reset_index()
    stats["sd"] = g.std(ddof=1).to_numpy()
    present = [m for m in methods if m in set(stats["method"])]
    subgroups = sorted(set(stats["subgroup"]), key=str)
    cell = {
        (r.subgroup, r.method): format_cell(r.mean, r.sd if r.n > 1 else None, decimals) for r in stats.itertuples()
    }
    shown = pd.DataFrame(
        [[cell.get((s, m), "—") for m in present] for s in subgroups],
        index=subgroups,
        columns=pd.Index([method_name(m) for m in present], name="subgroup"),
    )
    return shown, per_fold


def cke_frame(records: Sequence[Record], decimals: int = 3) -> pd.DataFrame:
    """Knowledge extraction (section 4.3): for each CKE setting, sensitive group and immutable
    feature with a positive imbalance, the share of the group's negatively predicted training
    rows with a counterfactual explanation on that feature (``frequency``), the ``imbalance``
    (mean ± sd over the folds where it is positive), on how many folds it reached the threshold (an axiom A5 was added)
    and the imbalance once the axioms were trained. Empty if no CKE setting ran."""
    records = as_records(records)
    c = cke_candidates(records)
    if c.empty:
        return pd.DataFrame()
    runs: dict[str, set[int]] = {}
    for r in records:
        if "cke" in r and not r.config.tag:
            runs.setdefault(r.config.setting, set()).add(r.config.fold)
    rows = []
    for (setting, group, feature), g in c.groupby(["setting", "group", "feature"], sort=False):
        sd = g["imbalance"].std(ddof=1) if len(g) > 1 else None
        rows.append(
            {
                "setting": method_name(str(setting)),
                "group": group,
                "feature": feature,
                "frequency": f"{g['frequency'].mean():.{decimals}f}",
                "imbalance": format_cell(float(g["imbalance"].mean()), sd, decimals),
                "axiom added": f"{int(g['candidate'].sum())} of {len(runs.get(str(setting), ())) or g['fold'].nunique()} folds",
                "imbalance after": format_cell(float(g["imbalance_after"].mean()), None, decimals),
                "threshold": f"{g['threshold'].iloc[0]:g}",
                "_order": -float(g["imbalance"].mean()),
            }
        )
    out = pd.DataFrame(rows).sort_values(["setting", "_order"], kind="stable").drop(columns="_order")
    return out.set_index(["setting", "group", "feature"])


def eq3_frame(records: Sequence[Record], decimals: int = 3) -> pd.DataFrame:
    """Equation (3) for every subgroup on the LTN(acc+CF) records: the satisfaction of "every
    counterfactual twin of the subgroup gets the same outcome" (mean ± sd over folds), with the
    subgroup's CF-MSE. Empty if those records have no queries."""
    rows = []
    for rec in as_records(records):
        cfg = rec.config
        q = (rec.get("queries") or {}).get("eq3") or {}
        if cfg.setting != "ltn_acc_cf" or cfg.tag or not q:
            continue
        by_sg = rec["metrics"].get("cf_mse_by_subgroup", {})
        rows += [
            {"subgroup": sg, "fold": cfg.fold, "sat": float(v), "cf_mse": by_sg.get(sg, np.nan)} for sg, v in q.items()
        ]
    if not rows:
        return pd.DataFrame()
    df = pd.DataFrame(rows)
    out = []
    for sg, g in df.groupby("subgroup", sort=True):
        n = len(g)
        out.append(
            {
                "subgroup": sg,
                "sat of (3)": format_cell(float(g["sat"].mean()), g["sat"].std(ddof=1) if n > 1 else None, decimals),
                "CF-MSE": format_cell(float(g["cf_mse"].mean()), None, 4),
                "_sat": float(g["sat"].mean()),
            }
        )
    return pd.DataFrame(out).sort_values("_sat").drop(columns="_sat").set_index("subgroup")


def per_fold_frame(records: Sequence[Record], methods: Sequence[str]) -> pd.DataFrame:
    """Every record's numbers: one row per fold × method with the scalar metrics, the worst
    subgroup and the run's seconds."""
    records = as_records(records)
    frame = records_frame(records)
    seconds = {(r.config.setting, r.config.fold): (r.get("timings") or {}).get("total") for r in records}
    frame["seconds"] = [seconds.get((s, int(f))) for s, f in zip(frame["setting"], frame["fold"], strict=True)]
    order = {m: i for i, m in enumerate(methods)}
    frame = frame[frame["method"].isin(methods)].copy()
    frame["_o"] = frame["method"].map(order)
    frame = frame.sort_values(["fold", "_o"])
    metrics = [m for m in METRIC_ORDER if frame[m].notna().any()]
    shown = frame[["fold", "method", *metrics, "worst_subgroup", "seconds"]].copy()
    shown["method"] = shown["method"].map(method_name)
    shown.columns = ["fold", "method", *[metric_name(m) for m in metrics], "worst subgroup", "seconds"]
    return shown.set_index(["fold", "method"])


#: What the report compares every method with, in this order of preference.
REFERENCE_SETTINGS: tuple[str, ...] = ("ltn_acc",)
#: The metrics of the paired comparison with the reference, and whether larger is better.
VERDICT_METRICS: tuple[tuple[str, bool], ...] = (
    ("accuracy", True),
    ("mse", False),
    ("cf_mse", False),
    ("cf_flip_rate", False),
    ("calibrated_cf_mse", False),
)


def verdict_frame(records: Sequence[Record], methods: Sequence[str]) -> tuple[str | None, pd.DataFrame]:
    """Each method against the reference (accuracy-only LTN) on the same folds: per metric the
    mean difference, on how many folds it is better, the corrected resampled t-test's p
    (Nadeau–Bengio; :func:`cffair.reporting.paired`) and the verdict.

    Returns:
        ``(reference, frame)``; ``(None, empty)`` when no reference setting ran.
    """
    from cffair.reporting._verdicts import paired

    frame = records_frame(records)
    reference = next((m for m in REFERENCE_SETTINGS if m in set(frame["method"])), None)
    if reference is None:
        return None, pd.DataFrame()
    n_folds = int(frame["fold"].nunique())
    rows = []
    base = frame[frame["method"] == reference].set_index("fold")
    for method in (m for m in methods if m != reference and m in set(frame["method"])):
        other = frame[frame["method"] == method].set_index("fold")
        folds = sorted(set(base.index) & set(other.index))
        for metric, larger in VERDICT_METRICS:
            if metric not in frame.columns or base[metric].isna().all() or other[metric].isna().all():
                continue
            a, b = other.loc[folds, metric].to_numpy(float), base.loc[folds, metric].to_numpy(float)
            test = paired(a, b, larger=larger, k=max(n_folds, 2))
            d = a - b
            better = int(((d > 0) if larger else (d < 0)).sum())
            rows.append(
                {
                    "method": method_name(method),
                    "metric": metric_name(metric),
                    "difference": float(np.nanmean(d)),
                    "better on": f"{better} of {len(folds)} folds",
                    "p": test.p,
                    "verdict": test.verdict,
                }
            )
    return reference, pd.DataFrame(rows)


#: The terms the report uses, defined where they are used.
TERMS: dict[str, str] = {
    "accuracy": "the share of test rows whose decision (D(x) ≥ 0.5) equals the label.",
    "majority-class rate": "the share of the test rows' most common label: the accuracy of a model that always predicts it.",
    "CF-MSE": "the mean over test rows and their counterfactual twins of (D(x) − D(x′))², where x′ is x with the sensitive "
    "attribute changed and its causal descendants adjusted (the paper's section 6.5); lower is fairer.",
    "CF flip rate": "the share of person–twin pairs whose decision differs; lower is fairer.",
    "calibrated CF-MSE": "the CF-MSE after mapping each model's outputs to probabilities with a Platt calibrator fitted on its "
    "training rows. A model whose outputs sit at 0 and 1 pays about 1 for every flipped decision in CF-MSE, "
    "a soft model much less for the same flip; calibration puts both on one scale.",
    "worst-subgroup CF-MSE": "the CF-MSE of the subgroup where it is largest.",
    "constant predictor": "a model whose test outputs hardly vary (sd below 0.001): trivially fair, and useless.",
    "p": "of the corrected resampled t-test over the folds (Nadeau and Bengio 2003), which allows for the overlap of "
    "the folds' training sets; below 0.05 the difference is called beyond fold noise.",
}


def _terms() -> str:
    return '<dl class="facts">' + "".join(f"<dt>{_esc(k)}</dt><dd>{_esc(v)}</dd>" for k, v in TERMS.items()) + "</dl>"


def _verdict_sentence(row: Mapping[str, Any]) -> str:
    """One sentence per comparison, its words chosen by the verdict."""
    if row["verdict"] == "holds":
        word = "better than"
    elif row["verdict"] == "does not hold":
        word = "worse than"
    else:
        word = "within fold noise of"
    return (
        f"{row['method']} is {word} the reference on {row['metric']} (better on {row['better on']}, p {row['p']:.3f})."
    )


# ---------------------------------------------------------------------------- figures
def figure_html(fig: Figure, alt: str, dpi: int = 110) -> str:
    """A matplotlib figure as an ``<img>`` with the PNG embedded (the figure is closed)."""
    import matplotlib.pyplot as plt

    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi, bbox_inches="tight")
    plt.close(fig)
    data = base64.b64encode(buf.getvalue()).decode("ascii")
    return f'<img alt="{html.escape(alt)}" src="data:image/png;base64,{data}">'


def _subgroup_figure(per_fold: pd.DataFrame, methods: Sequence[str], name: str) -> str:
    from cffair.reporting._figures import plot_subgroup_cf_mse

    present = [m for m in methods if m in set(per_fold["method"])]
    fig = plot_subgroup_cf_mse(
        per_fold, present, title=f"{name}: CF-MSE per subgroup (mean over folds, error bars: sd)"
    )
    return figure_html(fig, "CF-MSE per subgroup and method")


def _undesirable_figure(records: Sequence[Record], dataset: str) -> str | None:
    from cffair.reporting._figures import plot_undesirable_ratio
    from cffair.reporting._records import undesirable_ratio_frame

    df = undesirable_ratio_frame(records, dataset, "ltn_acc_cf_cke")
    if df.empty:
        return None
    fig = plot_undesirable_ratio(
        df, title=f"{dataset}: undesirable explanations before and after the CKE axioms (LTN(acc+CF+CKE))"
    )
    return figure_html(fig, "ratio of undesirable counterfactual explanations per group, before and after CKE")


# ---------------------------------------------------------------------------- the page
def _esc(x: Any) -> str:
    return html.escape(str(x))


def _table(frame: pd.DataFrame, caption: str, **kwargs: Any) -> str:
    """A table that scrolls sideways when it is wider than the page."""
    return f'<div class="scroll">{format_table(frame, caption, **kwargs)}</div>'


def _facts(ds: Any, info: Mapping[str, Any]) -> str:
    frame, spec = ds
    plan = info.get("plan", {})
    subgroups = (
        ", ".join(sg.column + (" (binned)" if sg.bins is not None else "") for sg in spec.subgroups)
        or f"{spec.sensitive} (its values)"
    )
    items = {
        "data": f"{plan.get('data', '?')} ({len(frame):,} rows, {len(spec.features)} features)",
        "target": f"{spec.target} ({spec.target_kind}; favourable {spec.favourable if spec.target_kind == 'binary' else 'top ' + format(spec.favourable_top_fraction, '.0%')})",
        "sensitive attribute": f"{spec.sensitive}: "
        + ", ".join(f"{k} ({v:,})" for k, v in frame[spec.sensitive].astype(str).value_counts().items()),
        "subgroups": subgroups,
        "immutable features": ", ".join(spec.immutable) or "none",
        "protocol": f"{plan.get('folds', '?')} folds, profile {plan.get('profile', '?')}, seed {plan.get('seed', 0)}, "
        f"counterfactual treatment: {'library default' if not plan.get('categorical') else 'categorical=' + str(plan['categorical'])}",
        "LTN schedule": _schedule(plan),
        "results folder": plan.get("out", "?"),
    }
    return '<dl class="facts">' + "".join(f"<dt>{_esc(k)}</dt><dd>{_esc(v)}</dd>" for k, v in items.items()) + "</dl>"


def _schedule(plan: Mapping[str, Any]) -> str:
    """Which epochs the LTN settings trained, and why."""
    from cffair.experiments._config import profile

    try:
        prof = profile(str(plan.get("profile", "full")))
    except Exception:  # a plan from elsewhere: no profile to read
        return "the profile's"
    opts = plan.get("ltn_options") or {}
    fair = opts.get("fair_epochs", prof.fair_epochs)
    epochs = f"{prof.pretrain_epochs} of pre-training, {fair} per fairness stage, {prof.cke_epochs} per CKE axiom"
    if opts.get("patience"):
        return (
            f"early stopping: a stage stops once its satisfaction gains less than 0.001 over {opts['patience']} "
            f"epochs, at most the profile's epochs ({epochs}). The paper's fixed epochs were set for 36,000 rows; "
            "on small data they add time and no accuracy (cffair run --fixed-epochs keeps them)."
        )
    return f"the paper's fixed epochs ({epochs}, profile {plan.get('profile', '?')})"


def _majority(info: Mapping[str, Any]) -> dict[int, float]:
    return {int(k): float(v) for k, v in (info.get("majority") or {}).items()}


def _checks(info: Mapping[str, Any], collapsed: Sequence[tuple[str, str]]) -> str:
    items = [*info.get("plan", {}).get("notes", []), *info.get("warnings", [])]
    items += [
        f"{c}: {why}. On this fold it is no better than always predicting the majority class (one fold's accuracy "
        "moves by chance: the recommendation leaves a method out only when its mean over the folds is at or below "
        "the majority rate)."
        if "majority-class rate" in why
        else f"{c} is a collapsed model: {why}. It is no better than always predicting one outcome, so its fairness "
        "numbers mean nothing; lower the learning rate or the fairness weights."
        for c, why in collapsed
    ]
    if not items:
        return '<div class="box ok"><p>No warning during the run.</p></div>'
    lis = "".join(f"<li>{_esc(x)}</li>" for x in items)
    return (
        f'<div class="box"><p><strong>What to check</strong> ({len(items)}): the run finished, but look at these '
        f"before reading the numbers (the book's chapter <em>Your own data</em> says what each means).</p><ul>{lis}</ul></div>"
    )


def render_report(records: Sequence[Record], ds: Any, info: Mapping[str, Any]) -> str:
    """The report page as HTML text (see the module docstring for its sections).

    Args:
        records: the run's records (one per fold × method).
        ds: the dataset ``(frame, spec)``.
        info: what the run knows besides the records: ``plan`` (:meth:`cffair.workflows.Plan.to_dict`),
            ``warnings`` (messages), ``stage_seconds``, ``computed`` (records computed by
            this run), ``majority`` (fold → majority-class share of its test rows).
    """
    records = as_records(records)
    frame, spec = ds
    plan = info.get("plan", {})
    methods = [*plan.get("settings", []), *plan.get("baselines", [])] or list(
        dict.fromkeys(r.config.setting for r in records)
    )
    name = spec.name
    shown, long = method_frame(records, methods)
    n_folds = int(records_frame(records)["fold"].nunique())
    parts = [
        f"<h1>cffair report: {_esc(name)}</h1>",
        f'<p class="recommendation"><strong>{_esc(recommendation(records, methods, _majority(info)))}</strong></p>',
        f"<p>The paper's protocol (Heilmann et al., section 6) on your data: counterfactuals from a causal normalising flow, "
        f"the LTN settings pre-trained once per fold, and the baselines, each evaluated on the same counterfactual test pairs. "
        f"Written {_esc(time.strftime('%Y-%m-%d %H:%M'))} from {len(records)} records.</p>",
        _facts(ds, info),
        _checks(info, collapsed_runs(records, _majority(info))),
        "<h2>Accuracy and counterfactual fairness</h2>",
        "<p>Mean ± sample sd over the folds, the best of each column in bold. CF-MSE is the mean squared difference between "
        "the prediction for a test row and for its counterfactual twin with the sensitive attribute flipped (lower is fairer); "
        "the worst-subgroup CF-MSE is that of the subgroup where it is largest.</p>",
        _table(
            shown,
            f"Table 1 on {name}: {n_folds} folds. {collapsed_note(long, paper=False)}".strip(),
            bold=best_methods(long),
        ),
    ]
    majority = info.get("majority") or {}
    if majority and spec.target_kind == "binary":
        parts.append(
            f"<p>Majority-class rate of the test rows: {np.mean([float(v) for v in majority.values()]):.3f} "
            "(mean over the folds): the accuracy of a model that always predicts the commoner label.</p>"
        )
    group = group_fairness_frame(records, methods)
    if not group.empty:
        parts += [
            "<h2>Group fairness</h2>",
            f"<p>Beside counterfactual fairness, how the decisions differ between the groups of "
            f"{_esc(spec.sensitive)} (fairlearn's <code>MetricFrame</code> on the test rows): the demographic-parity "
            "difference is the largest minus the smallest share decided 1; the equalized-odds difference the larger of "
            "the differences in true- and false-positive rates. 0 treats the groups alike; a model can be "
            "counterfactually fair and still differ here, where the groups differ in features S does not cause.</p>",
            _table(group, f"Group fairness on {name}: {n_folds} folds (mean ± sd)"),
        ]
    reference, verdicts = verdict_frame(records, methods)
    parts.append("<h2>What to conclude</h2>")
    if reference is None:
        parts.append(
            "<p>No accuracy-only LTN ran (setting <code>acc</code>), so there is no reference to compare with; "
            "add it to the settings.</p>"
        )
    elif verdicts.empty:
        parts.append("<p>Only the reference ran; add other settings or baselines to compare with it.</p>")
    else:
        parts.append(
            f"<p>Each method against {_esc(method_name(reference))} on the same folds (a paired comparison; "
            "a difference counts only if it is beyond fold noise, p &lt; 0.05):</p>"
        )
        parts.append(
            "<ul>" + "".join(f"<li>{_esc(_verdict_sentence(r))}</li>" for r in verdicts.to_dict("records")) + "</ul>"
        )
        parts.append(
            _table(
                verdicts.assign(
                    difference=verdicts["difference"].map(lambda v: f"{v:+.4f}"),
                    p=verdicts["p"].map(lambda v: f"{v:.3f}"),
                ),
                f"Paired comparison with {method_name(reference)} ({n_folds} folds)",
            )
        )
    parts += ["<h2>Terms</h2>", _terms()]
    sg_shown, per_fold = subgroup_summary(records, methods)
    if not per_fold.empty:
        parts += [
            "<h2>CF-MSE per subgroup</h2>",
            "<p>Which subgroups the counterfactual unfairness falls on (the paper's Figures 3 and 5).</p>",
            _subgroup_figure(per_fold, methods, name),
            _table(sg_shown, "CF-MSE per subgroup (mean ± sd over folds)"),
        ]
    cke = cke_frame(records)
    parts.append("<h2>Knowledge extraction (CKE)</h2>")
    if cke.empty:
        parts.append("<p>No CKE setting ran (settings <code>acc_cf_cke</code>, <code>acc_cf_sg_cke</code>).</p>")
    else:
        parts += [
            "<p>For each sensitive group and immutable feature: how often a negatively predicted training row would get "
            "the favourable outcome by changing only that feature (an <em>undesirable</em> explanation, section 4.3), "
            "and the imbalance: that frequency minus the largest of the other groups'. An imbalance at or above the "
            "threshold adds an axiom A5 forbidding it.</p>",
            _table(cke, "Imbalances of undesirable explanations before CKE, and after its axioms"),
        ]
        fig = _undesirable_figure(records, name)
        if fig:
            parts.append(fig)
    eq3 = eq3_frame(records)
    if not eq3.empty:
        parts += [
            "<h2>Subgroup queries (equation 3)</h2>",
            "<p>The satisfaction of ∀x∈T_C, ∀x′∈cf(x, S): D(x) ↔ D(x′) for each subgroup T_C on LTN(acc+CF), "
            "lowest first: the subgroups where the model treats counterfactual twins least alike.</p>",
            _table(eq3, "Equation (3) per subgroup (mean ± sd over folds)"),
        ]
    parts += ["<h2>Every run</h2>", _table(per_fold_frame(records, methods), "One row per fold × method")]
    secs = info.get("stage_seconds") or {}
    if secs:
        parts.append(
            "<p>Wall time: "
            + ", ".join(f"{_esc(k)} {float(v):,.1f} s" for k, v in secs.items())
            + f"; {int(info.get('computed', len(records)))} of {len(records)} records computed by this run, "
            "the others reused (fresh).</p>"
        )
    body = "\n".join(parts)
    return (
        f'<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n<title>cffair report: {_esc(name)}</title>\n'
        f"<style>{_style()}</style>\n</head>\n<body>\n{body}\n</body>\n</html>\n"
    )


def write_report(path: str | Path, records: Sequence[Mapping[str, Any]], ds: Any, info: Mapping[str, Any]) -> Path:
    """Write :func:`render_report` to ``path`` (atomically) and return the path. ``records`` may be plain
    mappings (a run's records as :class:`cffair.workflows.OwnRun` types them): they are read as
    :class:`~cffair.experiments.Record` s."""
    from cffair._support.io import write_text_atomic

    path = Path(path)
    text = render_report(as_records(records), ds, info)
    write_text_atomic(path, text, what="report")
    return path
