"""Why more claims fail, tested on the records the protocol already makes (no new training).

Each function tests the likeliest explanation of a claim that does not hold and returns the
sentence that says what it found; the claims table (:mod:`.claims`) appends it to the claim's
note and the claim's chapter prints it. An empty string means the records it needs are missing.

================ ============================================================================
claim            explanation tested
================ ============================================================================
Q1.4             :func:`frontier_finding`: the subgroup axioms reach a lower CF-MSE than the
                 global one; is the accuracy they cost more than the global axiom pays for the
                 same CF-MSE when its weights move (appendix B's grid, interpolated per fold)?
Q2.2 (COMPAS     :func:`shared_runs_finding`: COMPAS(age) is COMPAS with other subgroups, and
(age))           neither LTN(acc+CF) nor CNF uses subgroups: can the two datasets differ at all,
                 and do the paper's own two runs agree on the sign of the gap?
Q2.3             :func:`flip_ruler_finding`: CF-MSE averages squared score changes; does the
                 GAN also change fewer decisions, or are its changes just smaller?
Q1.5 (Adult)     :func:`subgroup_drop_finding`: does the CF axiom's gain in a subgroup follow
                 the subgroup's size (A4 is one mean over all pairs) or the CF-MSE it had
                 before (there is more to remove)? Spearman's ρ over the subgroups.
Q3.5 (Adult)     :func:`cke_steps_finding`: are the changes from one CKE axiom to the next
                 larger than the same metric's spread over the folds of LTN(acc+CF)? One run
                 cannot order changes smaller than that spread.
Q3.6 (Lawschool) :func:`cke_threshold_finding`: is the imbalance threshold (0.01) above the
                 sampling error of an imbalance (a difference of two shares)? A lower bound of
                 that error from the groups' training rows.
A.1, A.2         :func:`gan_twins_finding`: on the GAN's twins, does the LTN flip fewer
                 decisions but each by more (as on CNF twins, Q2); and is the LTN's accuracy
                 gap to the GAN already there before the fairness stage (LTN(acc))?
================ ============================================================================
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from cffair.errors import DataError
from cffair.reporting import DATASET_ORDER, dataset_name, method_name, metric_name, paper_value, performance_metric
from cffair.reporting._records import (
    as_records,
    find_record,
    records_frame,
    run_label,
    select_records,
    subgroup_frame,
    weight_grid_frame,
)
from cffair.reporting._style import MAX_WIDTH_IN, book_style, finish, legend_below, palette
from cffair.reporting._verdicts import (
    Evidence,
    fmt,
    fold_series,
    folds_text,
    p_text,
    paired,
    paired_series,
)
from cffair_book.wording import note, say, sign_change, value_range

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from cffair.experiments import Record

__all__ = [
    "cke_steps_finding",
    "cke_threshold_finding",
    "flip_ruler_finding",
    "frontier_finding",
    "line_at",
    "plot_frontier",
    "gan_twins_finding",
    "shared_runs_finding",
    "subgroup_drop_frame",
    "subgroup_drop_finding",
]

Records = Iterable["Record"]


def _rows_share(dataset: str) -> pd.Series:
    """Each subgroup's share of the dataset's rows (from the data, as the records' labels)."""
    from cffair.datasets import load

    ds = load(dataset)
    return ds.spec.subgroup_labels(ds.frame).astype(str).value_counts(normalize=True)


# ---------------------------------------------------------------------------- Q1.5
def subgroup_drop_frame(records: Records, dataset: str = "adult") -> pd.DataFrame:
    """Per subgroup: share of rows, CF-MSE of LTN(acc) and LTN(acc+CF) (means over folds), the
    drop and the relative drop; sorted by share, largest first. Empty without both settings."""
    sg = subgroup_frame(records, ["ltn_acc", "ltn_acc_cf"], dataset)
    if sg.empty or not {"ltn_acc", "ltn_acc_cf"} <= set(sg["method"]):
        return pd.DataFrame()
    m = sg.groupby(["subgroup", "method"])["cf_mse"].mean().unstack("method").dropna()
    out = pd.DataFrame(
        {"share": _rows_share(dataset).reindex(m.index), "before": m["ltn_acc"], "after": m["ltn_acc_cf"]}
    )
    out["drop"] = out["before"] - out["after"]
    out["relative drop"] = out["drop"] / out["before"]
    return out.sort_values("share", ascending=False)


def subgroup_drop_finding(records: Records, dataset: str = "adult") -> str:
    """Whether the CF axiom's drop in CF-MSE follows the subgroups' size or their CF-MSE before."""
    from scipy.stats import spearmanr

    f = subgroup_drop_frame(records, dataset)
    if len(f) < 3:
        return ""
    by_size = spearmanr(f["share"], f["drop"])
    by_level = spearmanr(f["before"], f["drop"])
    largest, top = f.index[0], f["drop"].idxmax()
    level, size = abs(by_level.statistic), abs(by_size.statistic)
    follows = "tie" if math.isclose(level, size, abs_tol=1e-12) else ("level" if level > size else "size")
    largest_drop = (
        note("largest_drop", "same")
        if top == largest
        else note("largest_drop", "other", top=top, before=fmt(f.loc[top, "before"]), after=fmt(f.loc[top, "after"]))
    )
    return say(
        "why.subgroup_drop",
        dataset=dataset_name(dataset),
        count=len(f),
        follows=note("drop_follows", follows),
        rho_level=by_level.statistic,
        p_level=by_level.pvalue,
        rho_size=by_size.statistic,
        p_size=by_size.pvalue,
        largest=largest,
        share=f.loc[largest, "share"],
        before=fmt(f.loc[largest, "before"]),
        after=fmt(f.loc[largest, "after"]),
        largest_drop=largest_drop,
        a4_weight=note("a4_weight", follows),
    )


# ---------------------------------------------------------------------------- Q3.5
def _fold_sd(records: Records, dataset: str, setting: str, metric: str) -> tuple[float, int]:
    main = select_records(records_frame(records))
    v = main[(main["dataset"] == dataset) & (main["method"] == setting)][metric].astype(float).dropna()
    return (float(v.std(ddof=1)) if len(v) > 1 else math.nan), len(v)


def _seed_sd(records: Records, dataset: str, setting: str, metric: str, fold: int = 0) -> tuple[float, int]:
    """The sd of ``metric`` over the training seeds of ``setting`` on one fold (repetition 0): the
    noise of one run on that fold's data."""
    f = records_frame(records)
    if f.empty:
        return math.nan, 0
    f = f[(f["dataset"] == dataset) & (f["setting"] == setting) & (f["cf_source"] == "cnf")]
    f = f[(f["tag"] == "") & (f["options"] == "") & (f["repeat"] == 0) & (f["fold"] == fold)]
    v = f[metric].astype(float).dropna()
    return (float(v.std(ddof=1)) if len(v) > 1 else math.nan), len(v)


def cke_steps_finding(records: Records, dataset: str = "adult", setting: str = "ltn_acc_cf_cke") -> str:
    """Whether one CKE run's step-to-step changes exceed the noise of one run.

    The yardstick is the spread of the parent setting over its training seeds on the same fold
    (the protocol's seeds): a step compares two models of one fold, whose difference has sd
    √2·(seed sd) if the step did nothing, so a step within 2√2 seed sds is not told apart from
    noise. Without several seeds the fold-to-fold sd stands in, and the sentence says that it also
    holds the split's effect (it overstates one fold's noise, so "within the noise" then says less).
    """
    recs = as_records(records)
    rec = find_record(recs, dataset, setting, 0)
    if rec is None or "cke" not in rec or len(rec["cke"]["steps"]) < 2:
        return ""
    steps = rec["cke"]["steps"]
    parent = setting.removesuffix("_cke")
    parts = []
    by_seed = True
    for metric in ("cf_mse", "cf_mse_worst_subgroup"):
        sd, n = _seed_sd(recs, dataset, parent, metric)
        by_seed = by_seed and not math.isnan(sd)
    for metric, name in (("cf_mse", "CF-MSE"), ("cf_mse_worst_subgroup", "worst-subgroup CF-MSE")):
        values = np.array([float(s[metric]) for s in steps])
        step = float(np.max(np.abs(np.diff(values))))
        sd, n = (_seed_sd if by_seed else _fold_sd)(recs, dataset, parent, metric)
        if math.isnan(sd):
            return ""
        parts.append((name, step, sd, n))
    worst = list(dict.fromkeys(str(s.get("worst_subgroup", "")) for s in steps))
    band = 2 * math.sqrt(2)
    within = all(step <= band * sd for _, step, sd, _ in parts)
    spread = say("why.cke_spread", "seeds" if by_seed else "folds")
    steps_text = "; ".join(
        say("why.cke_step", metric=name, step=fmt(step), parent=method_name(parent), sd=fmt(sd), count=n, spread=spread)
        for name, step, sd, n in parts
    )
    return say(
        "why.cke_steps",
        "within" if within else "beyond",
        steps=steps_text,
        caveat="" if by_seed else say("why.cke_caveat"),
        worst=", ".join(worst),
    )


# ---------------------------------------------------------------------------- Q3.6
def cke_threshold_finding(
    records: Records,
    dataset: str = "lawschool",
    settings: str | Sequence[str] = ("ltn_acc_cf_cke", "ltn_acc_cf_sg_cke"),
) -> str:
    """Whether the CKE threshold lies above the sampling error of the imbalances it is compared with.

    An imbalance is a difference of two shares (negatively predicted training rows of each
    sensitive group with an undesirable explanation). Its standard error is at least
    ``sqrt(p1(1 − p1)/N1 + p2(1 − p2)/N2)`` with ``N`` the group's *training* rows (fewer rows are
    negatively predicted, which only makes the error larger), so the chance that an imbalance
    of pure noise crosses the threshold is at least ``2(1 − Φ(threshold / that bound))``. Every
    CKE run of ``settings`` (default both fairness settings, as claim Q3.6 reads them) is one part;
    several runs (folds, partitions, seeds) are summed up in one sentence with ranges.
    """
    from scipy.stats import norm

    from cffair.datasets import load

    settings = (settings,) if isinstance(settings, str) else tuple(settings)
    recs = [
        r
        for r in as_records(records)
        if r.config.dataset == dataset
        and r.config.setting in settings
        and "cke" in r
        and not r.config.options
        and not r.config.tag
    ]
    if not recs:
        return ""
    ds = load(dataset)
    share = ds.frame[ds.spec.sensitive].astype(str).value_counts(normalize=True)
    notes = []
    rows = []  # (standard error, threshold, largest imbalance found, training rows) per run
    for r in sorted(recs, key=lambda r: (r.config.fold, r.config.setting)):
        cke, n_train = r["cke"], int(r["n_train"])
        ratio = {str(k): float(v) for k, v in (cke.get("undesirable_ratio_before") or {}).items()}
        if len(ratio) != 2:
            continue
        var = sum(p * (1 - p) / (share.get(g, np.nan) * n_train) for g, p in ratio.items())
        se = math.sqrt(var)
        t = float(cke["threshold"])
        chance = 2 * (1 - norm.cdf(t / se))
        found = max((abs(float(c["imbalance"])) for c in cke["candidates"]), default=math.nan)
        rows.append((se, t, found, n_train))
        # the run's display name ("LTN(acc+CF+CKE)"), never its id ("acc_cf")
        notes.append(
            say(
                "why.threshold_run",
                run=run_label(r.config),
                se=se,
                shares=", ".join(f"{g} {p:.1%}" for g, p in ratio.items()),
                rows=n_train,
                threshold=t,
                errors=t / se,
                chance=chance,
                found="" if math.isnan(found) else say("why.threshold_found", found=fmt(found), errors=found / se),
            )
        )
    if len(rows) <= 1:
        return "; ".join(notes)
    # several runs: one sentence with ranges, so that the finding stays readable on a phone
    ses = [row[0] for row in rows]
    ratios = [row[1] / row[0] for row in rows]
    chances = [2 * (1 - norm.cdf(v)) for v in ratios]
    founds = [row[2] / row[0] for row in rows if not math.isnan(row[2])]
    thresholds = "/".join(f"{t:g}" for t in sorted({row[1] for row in rows}))
    trains = "/".join(f"{n:,}" for n in sorted({row[3] for row in rows}))

    found_text = (
        say(
            "why.threshold_found_runs",
            "one" if len(founds) == 1 else "many",
            count=len(founds),
            errors=value_range(founds, ".1f"),
        )
        if founds
        else ""
    )
    return say(
        "why.threshold_runs",
        runs=len(rows),
        se=value_range(ses, ".4f"),
        rows=trains,
        thresholds=thresholds,
        errors=value_range(ratios, ".1f"),
        chances=value_range(chances, ".0%"),
        found=found_text,
    )


# ---------------------------------------------------------------------------- A.1, A.2
def _per_flip(cf_mse: float, flips: float) -> str:
    return fmt(cf_mse / flips) if flips and not math.isnan(flips) else "—"


def gan_twins_finding(records: Records, datasets: Sequence[str] = DATASET_ORDER) -> dict[str, str]:
    """The A.1 and A.2 findings: ``{"flips": ..., "accuracy": ...}`` (empty strings where records are missing).

    ``flips``: share of test pairs whose decision changes and CF-MSE per flip, for LTN(acc+CF)
    trained and tested on the GAN's twins and for the GAN itself. ``accuracy``: the LTN before its
    fairness stage (LTN(acc), on the same folds) against the GAN: if the gap is there already,
    it does not come from training on the GAN's twins.
    """
    recs = as_records(records)  # every repetition, as the verdicts these findings explain
    own = select_records(records_frame(recs, own_counterfactuals=True), repeats=True)
    main = select_records(records_frame(recs), repeats=True)
    flips, acc = [], []
    for d in datasets:
        o = own[own["dataset"] == d]
        ltn, gan = o[o["method"] == "ltn_acc_cf@gan"], o[o["method"] == "gan"]
        if ltn.empty or gan.empty:
            continue
        # the flip rate and the CF-MSE of the same records (older records lack the flip rate), per fold
        lf, gf = (t[t["cf_flip_rate"].notna()] for t in (ltn, gan))
        if len(lf) and len(gf):
            fl, fg = (fold_series(t, "cf_flip_rate").mean() for t in (lf, gf))
            n, of = (len(fold_series(t, "cf_mse")) for t in (lf, ltn))
            some = say("why.some_folds", "one" if n == 1 else "many", count=n) if n < of else ""
            flips.append(
                say(
                    "why.flips",
                    dataset=dataset_name(d),
                    some=some,
                    ltn=fl,
                    ltn_per_flip=_per_flip(fold_series(lf, "cf_mse").mean(), fl),
                    gan=fg,
                    gan_per_flip=_per_flip(fold_series(gf, "cf_mse").mean(), fg),
                )
            )
        metric = performance_metric(d)
        base = fold_series(main[(main["dataset"] == d) & (main["method"] == "ltn_acc")], metric)
        g, l_cf = fold_series(gan, metric), fold_series(ltn, metric)
        folds = sorted(set(base.index) & set(g.index) & set(l_cf.index))
        if len(folds) < 2:
            continue
        larger = metric == "accuracy"
        r = paired_series(base.loc[folds], g.loc[folds], larger=larger)
        name = "accuracy" if larger else "MSE"
        acc.append(
            say(
                "why.gan_accuracy",
                dataset=dataset_name(d),
                metric=name,
                before=fmt(base.loc[folds].mean()),
                ltn=fmt(l_cf.loc[folds].mean()),
                gan=fmt(g.loc[folds].mean()),
                who=say("why.gan_who", r.verdict),
                p=p_text(r),
            )
        )
    return {"flips": "; ".join(flips), "accuracy": "; ".join(acc)}


# ---------------------------------------------------------------------------- Q1.4
def line_at(x: float, xs: Sequence[float], ys: Sequence[float]) -> float:
    """The piecewise-linear curve through ``(xs, ys)`` at ``x``: interpolated inside the range of
    ``xs``, extended along its first or last segment outside it (NaN with fewer than 2 distinct xs).

    >>> line_at(0.5, [0, 1, 2], [0, 2, 3]), line_at(3, [0, 1, 2], [0, 2, 3]), line_at(-1, [2, 0, 1], [3, 0, 2])
    (1.0, 4.0, -2.0)
    """
    pts = sorted(dict(zip(map(float, xs), map(float, ys))).items())
    if len(pts) < 2:
        return math.nan
    px, py = np.array([p[0] for p in pts]), np.array([p[1] for p in pts])
    if px[0] <= x <= px[-1]:
        return float(np.interp(x, px, py))
    i, j = (0, 1) if x < px[0] else (-2, -1)
    return float(py[i] + (py[j] - py[i]) * (x - px[i]) / (px[j] - px[i]))


def frontier_finding(records: Records, datasets: Sequence[str] = ("adult", "compas", "compas_age")) -> str:
    """Q1.4: LTN(acc+CF_sg) against the global axiom's accuracy–fairness line at the same CF-MSE.

    Per fold, the line runs through the global axiom's runs at appendix B's weights (acc : CF =
    1 : 3, 1 : 1, 3 : 1; :func:`~cffair.reporting.weight_grid_frame`) in the plane
    (CF-MSE, performance); it is read at the CF-MSE that acc+CF_sg reached on that fold, and the
    two performances are compared by a paired test over folds.
    """
    recs = as_records(records)
    grid, main = weight_grid_frame(recs), select_records(records_frame(recs))
    parts = []
    for d in datasets:
        metric, sign = performance_metric(d), (1.0 if performance_metric(d) == "accuracy" else -1.0)
        rows = main[(main["dataset"] == d) & (main["method"] == "ltn_acc_cf_sg")]  # a fold's seeds averaged
        sg = pd.DataFrame({c: fold_series(rows, c) for c in ("cf_mse", metric)}).droplevel("repeat")
        g = grid[grid["dataset"] == d]
        line, own, points = {}, {}, 0
        for fold, r in sg.iterrows():
            pts = g[g["fold"] == fold]
            v = line_at(float(r["cf_mse"]), pts["cf_mse"].astype(float), sign * pts[metric].astype(float))
            if not math.isnan(v):
                line[fold], own[fold], points = v, sign * float(r[metric]), max(points, len(pts))
        if len(line) < 2:
            continue
        folds = sorted(line)
        res = paired([own[f] for f in folds], [line[f] for f in folds], larger=True)
        name = metric_name(metric).split(" ")[0]
        parts.append(
            say(
                "why.frontier_part",
                dataset=dataset_name(d),
                cf_mse=fmt(sg.loc[folds, "cf_mse"].astype(float).mean()),
                metric=name,
                own=fmt(float(sign * np.mean([own[f] for f in folds]))),
                line=fmt(float(sign * np.mean([line[f] for f in folds]))),
                where=say("why.frontier_where", res.verdict),
                p=p_text(res),
            )
        )
    if not parts:
        return ""
    return say("why.frontier", parts="; ".join(parts))


def plot_frontier(records: Records, datasets: Sequence[str] = ("adult", "compas", "compas_age")) -> Figure:
    """One panel per dataset: the global axiom's runs at appendix B's weights (fold means, joined
    in order of CF-MSE) and LTN(acc+CF_sg), performance against CF-MSE (see :func:`frontier_finding`)."""
    import matplotlib.pyplot as plt
    from matplotlib.ticker import MaxNLocator

    recs = as_records(records)
    grid, main = weight_grid_frame(recs), select_records(records_frame(recs))
    shown = [
        d
        for d in datasets
        if not grid[grid["dataset"] == d].empty
        and not main[(main["dataset"] == d) & (main["method"] == "ltn_acc_cf_sg")].empty
    ]
    if not shown:
        raise DataError("no weight-grid and acc+CF_sg records; run the q1 and appendix_b groups.")
    blue, orange = palette(2)
    with book_style():
        fig, axes = plt.subplots(1, len(shown), figsize=(MAX_WIDTH_IN, 3.0), layout="constrained", squeeze=False)
        for ax, d in zip(axes[0], shown):
            metric = performance_metric(d)
            g = grid[grid["dataset"] == d].groupby("log2_ratio")[["cf_mse", metric]].mean().sort_values("cf_mse")
            sg = (
                main[(main["dataset"] == d) & (main["method"] == "ltn_acc_cf_sg")][["cf_mse", metric]]
                .astype(float)
                .mean()
            )
            line = ax.plot(g["cf_mse"], g[metric], marker="o", color=blue)[0]
            point = ax.plot([sg["cf_mse"]], [sg[metric]], marker="D", markersize=8, linestyle="none", color=orange)[0]
            ax.set_title(dataset_name(d))
            ax.set_xlabel("CF-MSE")
            ax.xaxis.set_major_locator(MaxNLocator(3))
        axes[0][0].set_ylabel(metric_name(performance_metric(shown[0])))
        legend_below(
            fig, [line, point], ["LTN(acc+CF), weights acc : CF = 1 : 3, 1 : 1, 3 : 1", "LTN(acc+CF_sg)"], ncol=1
        )
        return finish(fig)


# ---------------------------------------------------------------------------- Q2.2
def _runs(frame: pd.DataFrame, dataset: str, method: str) -> pd.Series:
    """The accuracy of each protocol run of ``method`` on ``dataset`` (CNF twins, no option or tag), by
    partition, fold and training seed."""
    if frame.empty:
        return pd.Series(dtype=float)
    rows = select_records(frame, [method], [dataset], repeats=True)  # a method's key carries its twins' source
    return rows.set_index(["repeat", "fold", "seed"])["accuracy"].astype(float).sort_index()


def shared_runs_finding(
    records: Records,
    variant: str = "compas_age",
    base: str = "compas",
    methods: tuple[str, str] = ("ltn_acc_cf", "cnf"),
) -> str:
    """Q2.2 on COMPAS(age): are ``methods`` the same runs on ``variant`` and ``base`` (neither uses
    subgroups), and does the paper's Table 1 give the gap ``methods[0] − methods[1]`` the same
    sign on both? "" without the records."""
    e = Evidence.of(records)
    a, b = methods
    got = {(d, m): e.folds(d, m, "accuracy").sort_index() for d in (variant, base) for m in methods}
    if any(v.empty for v in got.values()):
        return ""
    # compared run by run (partition, fold, training seed) on the runs both datasets hold: the base may hold more
    # repetitions of cross-validation or more seeds, whose fold means then differ although no run does
    frame = records_frame(as_records(records))
    same, shared_folds = True, []
    for m in methods:
        on_variant, on_base = (_runs(frame, d, m) for d in (variant, base))
        keys = on_variant.index.intersection(on_base.index)
        same = same and len(keys) > 0 and on_variant.loc[keys].equals(on_base.loc[keys])
        shared_folds.append(len({k[:2] for k in keys}))
    n_shared = min(shared_folds)
    res = e.compare(base, a, b, "accuracy", larger=True)
    paper_gap = {
        d: paper_value("table1", d, "accuracy", a)[0] - paper_value("table1", d, "accuracy", b)[0]
        for d in (base, variant)
    }
    gap = {d: f"{paper_gap[d]:+.3f}".replace("-", "−") for d in (base, variant)}
    twins = {d: paper_value("table1", d, "cf_mse", "ltn_acc")[0] for d in (base, variant)}
    na, nb, nbase = method_name(a), method_name(b), dataset_name(base)
    ours = say(
        "why.shared_ours",
        "same" if same else "differ",
        folds=folds_text(n_shared),
        a=na,
        b=nb,
        base=nbase,
        result=res.text,
    )
    gaps = f"{gap[base]} on {dataset_name(base)}, {gap[variant]} on {dataset_name(variant)}"
    return say(
        "why.shared_runs",
        variant=dataset_name(variant),
        ours=ours,
        twins_base=fmt(twins[base]),
        twins_variant=fmt(twins[variant]),
        paper_gap=note("paper_gap", sign_change(paper_gap[base], paper_gap[variant]), gaps=gaps),
        a=na,
        b=nb,
        base=nbase,
    )


# ---------------------------------------------------------------------------- Q2.3
def flip_ruler_finding(records: Records, dataset: str = "compas", a: str = "gan", b: str = "ltn_acc_cf") -> str:
    """Q2.3: does ``a`` change more decisions than ``b`` (share of test pairs whose decision
    flips, paired over folds) although its CF-MSE is lower, and how large is a change
    (CF-MSE per flip)? "" without flip rates."""
    e = Evidence.of(records)
    fa, fb = (e.folds(dataset, m, "cf_flip_rate").dropna() for m in (a, b))
    folds = sorted(set(fa.index) & set(fb.index))  # older records lack the flip rate
    if len(folds) < 2:
        return ""
    ra, rb = fa.loc[folds], fb.loc[folds]
    res = paired(ra.to_numpy(), rb.to_numpy(), larger=True)
    ca, cb = (e.folds(dataset, m, "cf_mse").loc[folds].mean() for m in (a, b))
    return say(
        "why.flip_ruler",
        dataset=dataset_name(dataset),
        folds=len(folds),
        a=method_name(a),
        b=method_name(b),
        rate_a=100 * ra.mean(),
        rate_b=100 * rb.mean(),
        p=p_text(res),
        verdict=say("why.flip_verdict", res.verdict, a=method_name(a)),
        per_flip_a=_per_flip(ca, ra.mean()),
        per_flip_b=_per_flip(cb, rb.mean()),
    )
