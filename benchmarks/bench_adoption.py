"""What a user of a saved model waits for: predicting new rows, and auditing a scikit-learn model.

* ``predict``: a :class:`~cffair.learners.CounterfactualFairClassifier` trained (short
  schedules) on 5,000 Adult rows, saved (:mod:`cffair.learners._model`), loaded, then ``predict_proba`` on
  10,000 other Adult rows on one torch thread (the median of 5 repetitions; loading timed apart).
  Target: under 2 s after loading.
* ``audit``: a logistic regression (one-hot + scaling) on Adult, audited with
  :func:`cffair.evaluation.audit` on every Adult row with 100 bootstrap resamples per subgroup.
  ``cold``: an empty cache, so fitting the causal flow (the audit's fit, ``flow_fit="audit"``)
  and making the twins are inside the timing; target: under 1 minute. ``warm``: then a second
  model (the logistic regression without the sensitive attribute) on the same data and cache,
  which must fit nothing. ``library_fit``: the same audit with the library's flow fit
  (``flow_fit="default"``, batches of 256), cold, as the slow reference.
* ``twin_quality``: whether the audit's faster fit makes worse twins. On Adult, for each seed,
  the two fits' held-out loss (the same held-out rows for both) and the logistic regression's
  CF-MSE and flip rate on their twins; the reference's own spread over seeds is the yardstick.
  On the structural model ``adult_like`` of :mod:`cffair.causal._synthetic` (known mechanisms and noise,
  so exact twins), for each seed, the CF-MSE of a logistic regression on each fit's twins over
  the CF-MSE on the true twins, and the largest transition-table gap of a category node
  (:func:`cffair.causal._scores.compare_with_truth`).

The machine's load (``os.getloadavg()``, 1-minute average) is recorded before and after each
timing: on the 2 shared cores of the development machine it varies from 0 to 7, and the same
flow fit took from 71 s to 303 s.

Writes ``benchmarks/results/adoption.json`` atomically.

Run: ``python benchmarks/bench_adoption.py`` (``--seeds 0 1``, ``--synthetic-rows 20000``,
``--skip-quality`` for the timings alone).
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import tempfile
import time
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import torch

from cffair import datasets
from cffair._support.utils import torch_cpu_setup, write_json_atomic

RESULTS = Path(__file__).resolve().parent / "results" / "adoption.json"


def _load() -> float:
    return round(os.getloadavg()[0], 2)


def bench_predict(frame: Any, spec: Any) -> dict[str, Any]:
    from cffair.learners import CounterfactualFairClassifier, load_model, save_model

    rng = np.random.default_rng(0)
    order = rng.permutation(len(frame))
    train, new = frame.iloc[order[:5000]].reset_index(drop=True), frame.iloc[order[5000:15000]].reset_index(drop=True)
    features = list(spec.features)
    est = CounterfactualFairClassifier(
        spec, setting="acc_cf", pretrain_epochs=100, fair_epochs=50, flow_config={"epochs": 20}
    ).fit(train[features], train[spec.target])
    with tempfile.TemporaryDirectory() as tmp:
        path = save_model(est, Path(tmp) / "adult.cffair")
        t0 = time.perf_counter()
        model = load_model(path)
        load_s = time.perf_counter() - t0
        size = path.stat().st_size
    times = []
    for _ in range(5):
        t0 = time.perf_counter()
        model.predict_proba(new[features])
        times.append(time.perf_counter() - t0)
    return {
        "rows": len(new),
        "load_s": round(load_s, 3),
        "predict_s": round(statistics.median(times), 3),
        "predict_s_all": [round(t, 3) for t in times],
        "file_mb": round(size / 1e6, 2),
        "target_s": 2.0,
    }


def logistic(frame: Any, spec: Any, features: list[str]) -> Any:
    """A logistic regression on readable rows (one-hot categories, scaled numbers) of ``features``."""
    from sklearn.compose import make_column_transformer
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import OneHotEncoder, StandardScaler

    cats = [c for c in features if spec.features[c] in ("binary", "categorical", "ordinal")]
    nums = [c for c in features if c not in cats]
    pre = make_column_transformer((OneHotEncoder(handle_unknown="ignore"), cats), (StandardScaler(), nums))
    return make_pipeline(pre, LogisticRegression(max_iter=1000)).fit(frame[features], frame[spec.target])


def _timed_audit(predict: Any, frame: Any, spec: Any, cache: str, **kwargs: Any) -> dict[str, Any]:
    from cffair.evaluation import audit

    before = _load()
    t0 = time.perf_counter()
    result = audit(predict, (frame, spec), n_boot=100, cache_dir=cache, **kwargs)
    seconds = time.perf_counter() - t0
    return {
        "seconds": round(seconds, 1),
        "load_before": before,
        "load_after": _load(),
        "pairs": result.n_pairs,
        "cf_mse": result.cf_mse,
        "cf_flip_rate": result.cf_flip_rate,
    }


def bench_audit(frame: Any, spec: Any, *, library_fit: bool = True) -> dict[str, Any]:
    from cffair.evaluation import AUDIT_FLOW

    features = list(spec.features)
    with_s = logistic(frame, spec, features)
    without_s = logistic(frame, spec, [c for c in features if c != spec.sensitive])
    out: dict[str, Any] = {"rows": len(frame), "target_s": 60.0, "n_boot": 100, "audit_flow": AUDIT_FLOW}
    with tempfile.TemporaryDirectory() as cache:
        out["cold"] = _timed_audit(with_s.predict_proba, frame, spec, cache)
        out["warm"] = _timed_audit(
            lambda rows: without_s.predict_proba(rows.drop(columns=spec.sensitive)), frame, spec, cache
        )
        out["warm"]["model"] = f"logistic regression without {spec.sensitive}"
    if library_fit:
        with tempfile.TemporaryDirectory() as cache:
            out["library_fit"] = _timed_audit(with_s.predict_proba, frame, spec, cache, flow_fit="default")
    out["pairs"] = out["cold"]["pairs"]
    return out


def _adult_quality(frame: Any, spec: Any, seed: int) -> dict[str, Any]:
    from cffair.causal import CausalFlow, generate_from
    from cffair.evaluation import audit_flow_config

    features = list(spec.features)
    predict = logistic(frame, spec, features).predict_proba
    d = predict(frame[features])[:, 1]
    out = {}
    for fit in ("audit", "default"):
        t0 = time.perf_counter()
        flow = CausalFlow(spec, config=audit_flow_config(flow_fit=fit)).fit(frame, seed=seed)
        fit_s = time.perf_counter() - t0
        twins = generate_from(flow, (frame, spec), "sensitive", seed=seed).frame
        d_cf = predict(twins[features])[:, 1]
        dd = d[twins["row_id"].to_numpy()]
        out[fit] = {
            "fit_s": round(fit_s, 1),
            "epochs_run": len(flow.history),
            "val_loss": round(min(h["val"] for h in flow.history), 4),
            "cf_mse": float(np.mean((dd - d_cf) ** 2)),
            "cf_flip_rate": float(np.mean((dd >= 0.5) != (d_cf >= 0.5))),
        }
    return out


def _synthetic_quality(rows: int, seed: int) -> dict[str, Any]:
    from sklearn.linear_model import LogisticRegression

    from cffair.causal import CausalFlow, generate_from
    from cffair.causal import _synthetic as synthetic
    from cffair.causal._scores import CATEGORY_KINDS, compare_with_truth
    from cffair.datasets._encoding import Encoder
    from cffair.evaluation import audit_flow_config

    data = synthetic.load("adult_like", n=rows, seed=seed)
    frame, spec, graph = data.frame, data.spec, data.graph
    s = spec.sensitive
    enc = Encoder(spec).fit(frame)
    clf = LogisticRegression(max_iter=2000).fit(enc.transform(frame), frame[spec.target].to_numpy())

    def cf_mse(twins: Any) -> float:
        p, p_cf = (
            clf.predict_proba(enc.transform(frame))[:, 1],
            clf.predict_proba(enc.transform(twins[spec.feature_names]))[:, 1],
        )
        return float(np.mean((p[twins["row_id"].to_numpy()] - p_cf) ** 2))

    true = cf_mse(data.sensitive_twins)
    nodes = {c: spec.features[c] for c in graph.descendants(s)}
    out: dict[str, Any] = {"rows": rows, "cf_mse_true": true}
    for fit in ("audit", "default"):
        t0 = time.perf_counter()
        flow = CausalFlow(spec, graph, audit_flow_config(flow_fit=fit)).fit(frame, seed=seed)
        fit_s = time.perf_counter() - t0
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            twins = generate_from(flow, data.dataset, {s: list(frame[s].cat.categories)}, seed=seed).frame
        scores = compare_with_truth(frame, twins, data.sensitive_twins, nodes)
        gaps = scores[(scores["metric"] == "table_gap") & scores["kind"].isin(CATEGORY_KINDS)]["value"]
        out[fit] = {
            "fit_s": round(fit_s, 1),
            "epochs_run": len(flow.history),
            "cf_mse_ratio": cf_mse(twins) / true,
            "table_gap": float(gaps.max()),
        }
    return out


def twin_quality(frame: Any, spec: Any, seeds: list[int], synthetic_rows: int) -> dict[str, Any]:
    adult = {str(s): _adult_quality(frame, spec, s) for s in seeds}
    synth = {str(s): _synthetic_quality(synthetic_rows, s) for s in seeds}

    def spread(values: list[float]) -> list[float]:
        return [round(min(values), 5), round(max(values), 5)]

    summary = {}
    for metric in ("cf_mse", "cf_flip_rate", "val_loss"):
        summary[f"adult_{metric}"] = {
            fit: spread([adult[s][fit][metric] for s in adult]) for fit in ("audit", "default")
        }
    for metric in ("cf_mse_ratio", "table_gap"):
        summary[f"synthetic_{metric}"] = {
            fit: spread([synth[s][fit][metric] for s in synth]) for fit in ("audit", "default")
        }
    return {"seeds": seeds, "adult": adult, "synthetic": synth, "summary": summary}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--seeds", type=int, nargs="+", default=[0, 1], help="seeds of the twin-quality comparison (default 0 1)"
    )
    parser.add_argument(
        "--synthetic-rows", type=int, default=20000, help="rows of the structural model (default 20000)"
    )
    parser.add_argument("--skip-quality", action="store_true", help="the timings only (keeps the stored comparison)")
    args = parser.parse_args(argv)
    torch_cpu_setup()
    torch.set_num_threads(1)
    frame, spec = datasets.load("adult")
    out: dict[str, Any] = {
        "machine": {
            "processor": platform.processor() or platform.machine(),
            "python": platform.python_version(),
            "torch_threads": torch.get_num_threads(),
            "cpus": os.cpu_count(),
            "load_start": _load(),
        },
        "predict": bench_predict(frame, spec),
        "audit": bench_audit(frame, spec),
    }
    if args.skip_quality and RESULTS.exists():
        import json

        out["twin_quality"] = json.loads(RESULTS.read_text(encoding="utf-8")).get("twin_quality")
    elif not args.skip_quality:
        out["twin_quality"] = twin_quality(frame, spec, args.seeds, args.synthetic_rows)
    out["machine"]["load_end"] = _load()
    write_json_atomic(RESULTS, out)
    p, a = out["predict"], out["audit"]
    print(
        f"predict: {p['rows']:,} rows in {p['predict_s']} s after loading ({p['load_s']} s; target {p['target_s']} s)"
    )
    print(
        f"audit: {a['rows']:,} rows, {a['pairs']:,} pairs in {a['cold']['seconds']} s cold (load {a['cold']['load_before']}), "
        f"{a['warm']['seconds']} s warm; the library's fit {a['library_fit']['seconds']} s (target {a['target_s']} s)"
    )
    if out.get("twin_quality"):
        for k, v in out["twin_quality"]["summary"].items():
            print(f"{k}: audit fit {v['audit']}, library fit {v['default']}")


if __name__ == "__main__":
    main()
