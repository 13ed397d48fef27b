"""What a user of a saved model waits for: predicting new rows, and auditing a scikit-learn model.

* ``predict``: a :class:`~cffair.estimator.CounterfactualFairClassifier` trained (short
  schedules) on 5,000 Adult rows, saved (:mod:`cffair.model`), loaded, then ``predict_proba`` on
  10,000 other Adult rows on one torch thread (the median of 5 repetitions; loading timed apart).
  Target: under 2 s after loading.
* ``audit``: a logistic regression (one-hot + scaling) on Adult, audited with
  :func:`cffair.audit.audit` on every Adult row, *including* fitting the causal flow and making
  the twins (no cache), with 100 bootstrap resamples per subgroup. Target: under 1 minute.

Writes ``benchmarks/results/adoption.json`` atomically.

Run: ``python benchmarks/bench_adoption.py``.
"""

from __future__ import annotations

import platform
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np
import torch

from cffair import datasets
from cffair.utils import torch_cpu_setup, write_json_atomic

RESULTS = Path(__file__).resolve().parent / "results" / "adoption.json"


def bench_predict(frame, spec) -> dict:
    from cffair.estimator import CounterfactualFairClassifier
    from cffair.model import load_model, save_model

    rng = np.random.default_rng(0)
    order = rng.permutation(len(frame))
    train, new = frame.iloc[order[:5000]].reset_index(drop=True), frame.iloc[order[5000:15000]].reset_index(drop=True)
    features = list(spec.features)
    est = CounterfactualFairClassifier(spec, setting="acc_cf", pretrain_epochs=100, fair_epochs=50,
                                       flow_config={"epochs": 20}).fit(train[features], train[spec.target])
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
    return {"rows": len(new), "load_s": round(load_s, 3), "predict_s": round(statistics.median(times), 3),
            "predict_s_all": [round(t, 3) for t in times], "file_mb": round(size / 1e6, 2), "target_s": 2.0}


def bench_audit(frame, spec) -> dict:
    from sklearn.compose import make_column_transformer
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import OneHotEncoder, StandardScaler

    from cffair.audit import audit

    features = list(spec.features)
    cats = [c for c in features if spec.features[c] in ("binary", "categorical", "ordinal")]
    nums = [c for c in features if c not in cats]
    model = make_pipeline(make_column_transformer((OneHotEncoder(handle_unknown="ignore"), cats), (StandardScaler(), nums)),
                          LogisticRegression(max_iter=1000)).fit(frame[features], frame[spec.target])
    with tempfile.TemporaryDirectory() as cache:
        import os

        os.environ["CFFAIR_CACHE"] = cache  # a cold cache: the flow is fitted and the twins made inside the timing
        t0 = time.perf_counter()
        result = audit(model.predict_proba, (frame, spec), n_boot=100)
        seconds = time.perf_counter() - t0
    return {"rows": len(frame), "pairs": result.n_pairs, "seconds": round(seconds, 1), "cf_mse": result.cf_mse,
            "cf_flip_rate": result.cf_flip_rate, "target_s": 60.0}


def main() -> None:
    torch_cpu_setup()
    torch.set_num_threads(1)
    frame, spec = datasets.load("adult")
    out = {"machine": {"processor": platform.processor() or platform.machine(), "python": platform.python_version(),
                       "torch_threads": torch.get_num_threads()},
           "predict": bench_predict(frame, spec), "audit": bench_audit(frame, spec)}
    write_json_atomic(RESULTS, out)
    p, a = out["predict"], out["audit"]
    print(f"predict: {p['rows']:,} rows in {p['predict_s']} s after loading ({p['load_s']} s; target {p['target_s']} s)")
    print(f"audit: {a['rows']:,} rows, {a['pairs']:,} pairs in {a['seconds']} s including the twins (target {a['target_s']} s)")


if __name__ == "__main__":
    main()
