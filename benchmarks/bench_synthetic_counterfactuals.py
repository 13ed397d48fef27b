"""Every counterfactual treatment of the causal flow, scored against exact twins (issue 12).

For each structural causal model of :mod:`cffair.causal._synthetic` (known mechanisms and noise, so the
true twins are exact) and each treatment of :class:`cffair.causal.FlowConfig`, one flow is fitted
on the factual rows and generates the twins of ``do(S := 1 - S)`` and of the model's
intervention on a non-sensitive feature. Scores (:func:`cffair.causal._scores.compare_with_truth`):

* numeric nodes: RMSE of the per-row mean of the draws against the true twin, next to "leave
  unchanged" and to the oracle (mechanisms known, noise drawn from its posterior given the row;
  the mean of 32 draws);
* category nodes: agreement with the true twin (overall, and on the rows the truth moves),
  the share of rows changed, and the transition-table distance
  ``max |P_gen(x' = b | x = a) - P_true(x' = b | x = a)|`` (the oracle's own distance is the
  sampling floor);
* CF-MSE of one fixed predictor (logistic regression on the factual rows) on the generated
  twins against the same on the true twins;
* which descendants the library warned about (``CounterfactualWarning``: unchanged in > 99 %);
* the transition tables themselves (true, oracle, each treatment), for a figure.

Treatments (fits per model: one per ``categorical``/``ordered`` family; ``integer`` and the
``sample`` variants reuse a fitted flow through ``CausalFlow.with_config``):

* ``paper``: integer codes for every discrete node, abducted at bin midpoints (the paper's);
* ``paper+sample``: the same flow, abduction at a uniform point of each bin;
* ``gumbel``: Gumbel-max for nominal nodes, the paper's codes for the others;
* ``default``: Gumbel-max for nominal nodes, threshold models for binary/ordinal ones,
  midpoints for integers (the library default);
* ``default+sample``: ``default`` with integers abducted at a uniform point of their bin.

Writes ``benchmarks/results/synthetic_counterfactuals.json`` (summaries, transition tables, warnings),
``synthetic_counterfactuals.csv`` (one row per model, intervention and treatment, for the
book) and ``synthetic_counterfactuals_nodes.csv`` (every score per node). One torch thread.

Usage::

    python benchmarks/bench_synthetic_counterfactuals.py               # n = 5000 rows per model
    python benchmarks/bench_synthetic_counterfactuals.py --n 1500 --models nominal_child --out /tmp/x
"""

from __future__ import annotations

import argparse
import time
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

OUT = Path(__file__).parent / "results" / "synthetic_counterfactuals"

#: name -> (the fit it reuses, its full treatment).
TREATMENTS: dict[str, tuple[str, dict[str, str]]] = {
    "paper": ("paper", {"categorical": "flow", "ordered": "midpoint", "integer": "midpoint"}),
    "paper+sample": ("paper", {"categorical": "flow", "ordered": "sample", "integer": "sample"}),
    "gumbel": ("gumbel", {"categorical": "gumbel", "ordered": "midpoint", "integer": "midpoint"}),
    "default": ("default", {"categorical": "gumbel", "ordered": "threshold", "integer": "midpoint"}),
    "default+sample": ("default", {"categorical": "gumbel", "ordered": "threshold", "integer": "sample"}),
}
ORACLE_DRAWS = 32


def _predictor(frame: pd.DataFrame, spec: Any) -> Any:
    """A logistic regression on the factual rows; returns ``frame -> P(y = 1)``."""
    from sklearn.linear_model import LogisticRegression

    from cffair.datasets._encoding import Encoder

    enc = Encoder(spec).fit(frame)
    clf = LogisticRegression(max_iter=2000).fit(enc.transform(frame), frame[spec.target].to_numpy())
    return lambda f: clf.predict_proba(enc.transform(f))[:, 1]


def _cf_mse(predict: Any, frame: pd.DataFrame, twins: pd.DataFrame, spec: Any) -> float:
    p_fact = predict(frame[spec.feature_names])
    p_cf = predict(twins[spec.feature_names])
    return float(np.mean((p_fact[twins["row_id"].to_numpy()] - p_cf) ** 2))


def _summary(scores: pd.DataFrame, oracle: bool = False) -> dict[str, Any]:
    """One row of the book's table from a model's per-node scores (worst node per metric; the
    changed shares are those of the node whose share is farthest from the truth's)."""
    suffix = "_oracle" if oracle else ""

    def pick(metric: str) -> pd.Series:
        return scores.loc[scores["metric"] == metric].set_index("node")["value"]

    out: dict[str, Any] = {}
    gap = pick("table_gap" + suffix)
    out["table_gap"] = float(gap.max()) if len(gap) else float("nan")
    moved = pick("agreement_moved" + suffix)
    out["agreement_moved"] = float(moved.min()) if len(moved) else float("nan")
    changed, true = pick("changed"), pick("changed_true")
    if not oracle and len(changed):
        gaps = (changed - true.reindex(changed.index)).abs()
        worst = str(gaps.idxmax())
        out.update(
            {
                "changed_gap": float(gaps.max()),
                "changed_node": worst,
                "changed": float(changed[worst]),
                "changed_true": float(true[worst]),
            }
        )
    rmse, base = pick("rmse" + suffix), pick("rmse_unchanged")
    out["rmse_vs_unchanged"] = float((rmse / base.reindex(rmse.index)).max()) if len(rmse) else float("nan")
    return out


def _transitions(frame: pd.DataFrame, twins: pd.DataFrame, nodes: dict[str, str]) -> dict[str, Any]:
    """``P(x' = b | x = a)`` of each category node (rows ``a``, columns ``b``), for a figure."""
    from cffair.causal._scores import CATEGORY_KINDS, transition_table

    out = {}
    for col, kind in nodes.items():
        if kind in CATEGORY_KINDS:
            cats = [str(c) for c in frame[col].cat.categories]
            t = transition_table(frame[col].to_numpy()[twins["row_id"].to_numpy()], twins[col], cats)
            out[col] = {"categories": cats, "table": t.round(4).to_numpy().tolist()}
    return out


def run_model(name: str, n: int, seed: int, epochs: int) -> dict[str, Any]:
    """Fit every treatment's flow on one synthetic model and score it."""
    from cffair.causal import CausalFlow, generate_from
    from cffair.causal import _synthetic as synthetic
    from cffair.causal._scores import compare_with_truth
    from cffair.errors import CounterfactualWarning

    data = synthetic.load(name, n=n, seed=seed)
    frame, spec, graph = data.frame, data.spec, data.graph
    S = spec.sensitive
    feature, value = data.scm.intervention
    predict = _predictor(frame, spec)
    cases = {
        f"do({S} := 1 - {S})": (
            S,
            {S: list(frame[S].cat.categories)},
            data.sensitive_twins,
            data.oracle(S, 1 - data.values[S], samples=ORACLE_DRAWS, seed=seed),
        ),
        f"do({feature} := {value})": (
            feature,
            {feature: [value]},
            data.feature_twins,
            data.oracle(feature, value, rows=data.feature_twins["row_id"].to_numpy(), samples=ORACLE_DRAWS, seed=seed),
        ),
    }
    result: dict[str, Any] = {
        "description": data.scm.description,
        "rows": n,
        "kinds": dict(spec.features),
        "fits": {},
        "cases": {},
    }
    for case, (feat, _, truth, oracle) in cases.items():
        nodes = {c: spec.features[c] for c in graph.descendants(feat)}
        result["cases"][case] = {
            "nodes": nodes,
            "cf_mse_true": _cf_mse(predict, frame, truth, spec),
            "cf_mse_oracle": _cf_mse(predict, frame, oracle, spec),
            "transitions": {"true": _transitions(frame, truth, nodes), "oracle": _transitions(frame, oracle, nodes)},
            "treatments": {},
        }
    fitted: dict[str, Any] = {}
    node_rows = []
    for tname, (fit_name, treatment) in TREATMENTS.items():
        if fit_name not in fitted:
            t0 = time.perf_counter()
            fitted[fit_name] = CausalFlow(spec, graph, {**TREATMENTS[fit_name][1], "epochs": epochs}).fit(
                frame, seed=seed
            )
            m = fitted[fit_name]
            result["fits"][fit_name] = {
                "seconds": round(time.perf_counter() - t0, 2),
                "epochs_run": len(m.history),
                "best_epoch": m.best_epoch,
            }
        model = fitted[fit_name].with_config(**{k: v for k, v in treatment.items() if k in ("ordered", "integer")})
        for case, (feat, interventions, truth, oracle) in cases.items():
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always", CounterfactualWarning)
                cfs = generate_from(model, data.dataset, interventions, seed=seed)
            gen = cfs.select(feature=feat).frame
            info = result["cases"][case]
            scores = compare_with_truth(frame, gen, truth, info["nodes"], oracle)
            warned = [str(w.message) for w in caught if issubclass(w.category, CounterfactualWarning)]
            info["treatments"][tname] = {
                "treatment": treatment,
                "draws_per_row": int(gen["sample"].max()) + 1,
                "cf_mse": _cf_mse(predict, frame, gen, spec),
                "warned": warned,
                "frozen": sorted({c for c in info["nodes"] if any(f"'{c}' (" in w for w in warned)}),
                "summary": _summary(scores),
            }
            info["transitions"][tname] = _transitions(frame, gen, info["nodes"])
            if "oracle" not in info:
                info["oracle"] = _summary(scores, oracle=True)
            node_rows.append(scores.assign(model=name, intervention=case, treatment=tname))
    result["node_scores"] = pd.concat(node_rows, ignore_index=True) if node_rows else pd.DataFrame()
    return result


def table(results: dict[str, Any]) -> pd.DataFrame:
    """The book's table: one row per model, intervention and treatment (plus the oracle)."""
    rows = []
    for model, res in results["models"].items():
        for case, info in res["cases"].items():
            base = {"model": model, "intervention": case, "cf_mse_true": info["cf_mse_true"]}
            for tname, t in info["treatments"].items():
                rows.append(
                    {
                        **base,
                        "treatment": tname,
                        **t["summary"],
                        "cf_mse": t["cf_mse"],
                        "cf_mse_ratio": t["cf_mse"] / info["cf_mse_true"] if info["cf_mse_true"] else float("nan"),
                        "frozen": ", ".join(t["frozen"]),
                    }
                )
            rows.append(
                {
                    **base,
                    "treatment": "oracle",
                    **info["oracle"],
                    "cf_mse": info["cf_mse_oracle"],
                    "cf_mse_ratio": info["cf_mse_oracle"] / info["cf_mse_true"]
                    if info["cf_mse_true"]
                    else float("nan"),
                    "frozen": "",
                }
            )
    return pd.DataFrame(rows)


def main() -> int:
    from cffair._support.utils import torch_cpu_setup, write_json_atomic
    from cffair.causal import _synthetic as synthetic

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=5000, help="rows per model (default 5000)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--epochs", type=int, default=400, help="maximum flow epochs (early stopping after 20 stale)")
    parser.add_argument("--models", nargs="*", default=list(synthetic.MODELS))
    parser.add_argument("--out", type=Path, default=OUT, help="output path without suffix")
    args = parser.parse_args()
    torch_cpu_setup()
    results: dict[str, Any] = {
        "machine": "1 torch thread; 2 shared cores",
        "settings": {
            "n": args.n,
            "seed": args.seed,
            "epochs": args.epochs,
            "oracle_draws": ORACLE_DRAWS,
            "treatments": {k: v[1] for k, v in TREATMENTS.items()},
        },
        "models": {},
    }
    nodes = []
    total = time.perf_counter()
    for name in args.models:
        t0 = time.perf_counter()
        res = run_model(name, args.n, args.seed, args.epochs)
        nodes.append(res.pop("node_scores"))
        res["seconds"] = round(time.perf_counter() - t0, 1)
        results["models"][name] = res
        print(f"{name}: {res['seconds']} s", flush=True)
    results["total_seconds"] = round(time.perf_counter() - total, 1)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    write_json_atomic(args.out.with_suffix(".json"), results)
    tab = table(results)
    tab.to_csv(args.out.with_suffix(".csv"), index=False, float_format="%.4f")
    pd.concat(nodes, ignore_index=True).to_csv(
        args.out.parent / f"{args.out.name}_nodes.csv", index=False, float_format="%.4f"
    )
    with pd.option_context("display.width", 200, "display.max_columns", 20):
        print(tab.drop(columns=["cf_mse_true"]).round(3).to_string(index=False))
    print("total", results["total_seconds"], "s ->", args.out.with_suffix(".json"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
