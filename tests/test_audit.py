"""cffair.audit and ``cffair audit``: counterfactual fairness of a model trained elsewhere.

Known answers on a small structural model: S ∈ {f, m}; a = 1.5·[S = f] + noise; b = noise;
y = [a + b > 0.7]. Its twins flip S and keep a and b (a set from elsewhere, built by hand), so
a model that reads only b never changes on its twin and a model that reads only S always does.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
import toy_estimator
import yaml
from fairlearn.metrics import MetricFrame
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import FunctionTransformer
from skops.io import dump, get_untrusted_types

from cffair.audit import audit, audit_scores, by_subgroup
from cffair.causal import CounterfactualSet
from cffair.cli import main
from cffair.datasets import DatasetSpec, prepare
from cffair.errors import DataError

SPEC = {**toy_estimator.SPEC, "subgroups": ["s"]}  # the estimator tests' toy model, with its subgroups


def toy(n: int = 200, seed: int = 0) -> tuple[pd.DataFrame, DatasetSpec, CounterfactualSet]:
    rng = np.random.default_rng(seed)
    s = rng.integers(0, 2, n)
    a = 1.5 * s + rng.normal(size=n)
    b = rng.normal(size=n)
    raw = pd.DataFrame({"s": np.where(s == 1, "f", "m"), "a": a, "b": b, "y": (a + b > 0.7).astype(int)})
    spec = DatasetSpec.from_dict(SPEC)
    frame = prepare(raw, spec)
    twin = frame.copy()
    twin["s"] = pd.Categorical(np.where(frame["s"].astype(str) == "f", "m", "f"), categories=frame["s"].cat.categories)
    cfs = CounterfactualSet.from_frames(frame, twin, spec, feature="s")
    return frame, spec, cfs


def only_b(rows: pd.DataFrame) -> np.ndarray:
    return 1 / (1 + np.exp(-rows["b"].to_numpy()))


def only_s(rows: pd.DataFrame) -> np.ndarray:
    return (rows["s"].astype(str) == "f").to_numpy(dtype=float)


def test_a_model_blind_to_the_twins_changes_is_perfectly_fair() -> None:
    frame, spec, cfs = toy()
    r = audit(only_b, (frame, spec), twins=cfs, n_boot=20)
    assert r.cf_mse == 0.0 and r.cf_flip_rate == 0.0 and r.n_pairs == r.n_rows == 200
    assert (r.by_subgroup[["cf_mse", "cf_flip_rate", "cf_mse_low", "cf_mse_high"]] == 0).all().all()


def test_a_model_of_s_alone_flips_every_decision() -> None:
    frame, spec, cfs = toy()
    r = audit(only_s, (frame, spec), twins=cfs, n_boot=20)
    assert r.cf_mse == 1.0 and r.cf_flip_rate == 1.0
    assert set(r.by_subgroup.index) == {"f", "m"}
    assert r.by_subgroup["n_pairs"].sum() == 200
    assert (r.by_subgroup["cf_flip_rate"] == 1.0).all()


def test_subgroup_values_and_intervals_against_a_hand_computation() -> None:
    frame, spec, cfs = toy()
    rng = np.random.default_rng(1)
    d_rows, d_cf = rng.uniform(size=len(frame)), rng.uniform(size=len(cfs.frame))
    r = audit_scores(d_rows, d_cf, cfs, (frame, spec), n_boot=100, seed=0)
    row_id = cfs.frame["row_id"].to_numpy()
    d = d_rows[row_id]
    assert r.cf_mse == pytest.approx(np.mean((d - d_cf) ** 2))
    assert r.cf_flip_rate == pytest.approx(np.mean((d >= 0.5) != (d_cf >= 0.5)))
    labels = frame["s"].astype(str).to_numpy()[row_id]
    for g in ("f", "m"):
        m = labels == g
        row = r.by_subgroup.loc[g]
        assert row["n_pairs"] == m.sum()
        assert row["cf_mse"] == pytest.approx(np.mean((d[m] - d_cf[m]) ** 2))
        assert row["cf_mse_low"] <= row["cf_mse"] <= row["cf_mse_high"]
        assert row["cf_flip_rate_low"] <= row["cf_flip_rate"] <= row["cf_flip_rate_high"]
    assert r.by_subgroup["cf_mse"].is_monotonic_decreasing  # the worst subgroup first


@pytest.mark.parametrize("seed", [0, 7])
def test_subgroup_intervals_equal_fairlearns_metricframe(seed: int) -> None:
    """by_subgroup is fairlearn's MetricFrame(n_boot=...) computed without a MetricFrame per
    resample: the same resamples, so the same intervals (up to float summation order)."""
    rng = np.random.default_rng(seed)
    n = 900
    labels = rng.choice(["a, x", "a, y", "b, x", "tiny"], size=n, p=[0.5, 0.3, 0.17, 0.03])
    d, d_cf = rng.uniform(size=n), rng.uniform(size=n)
    ours = by_subgroup(d, d_cf, labels, threshold=0.4, n_boot=60, ci=(0.05, 0.9), seed=seed)

    def sq(t, p):
        return float(np.mean((np.asarray(t) - np.asarray(p)) ** 2))

    def flip(t, p):
        return float(np.mean((np.asarray(t) >= 0.4) != (np.asarray(p) >= 0.4)))

    mf = MetricFrame(
        metrics={"cf_mse": sq, "cf_flip_rate": flip},
        y_true=d,
        y_pred=d_cf,
        sensitive_features=pd.Series(labels, name="subgroup"),
        n_boot=60,
        ci_quantiles=[0.05, 0.9],
        random_state=seed,
    )
    theirs = mf.by_group.reindex(ours.index)
    low, high = mf.by_group_ci[0].reindex(ours.index), mf.by_group_ci[-1].reindex(ours.index)
    for m in ("cf_mse", "cf_flip_rate"):
        np.testing.assert_allclose(ours[m], theirs[m], rtol=1e-12)
        np.testing.assert_allclose(ours[f"{m}_low"], low[m], rtol=1e-12)
        np.testing.assert_allclose(ours[f"{m}_high"], high[m], rtol=1e-12)
        assert (ours[f"{m}_low"] < ours[f"{m}_high"]).all()  # not a degenerate interval
    assert list(ours["n_pairs"]) == [int((labels == g).sum()) for g in ours.index]
    assert list(ours.columns) == [
        "n_pairs",
        "cf_mse",
        "cf_mse_low",
        "cf_mse_high",
        "cf_flip_rate",
        "cf_flip_rate_low",
        "cf_flip_rate_high",
    ]


def test_predictions_of_the_wrong_shape_or_not_finite_are_refused() -> None:
    frame, spec, cfs = toy(50)
    with pytest.raises(DataError, match=r"one number per row \(50\)"):
        audit_scores(np.zeros(49), np.zeros(50), cfs, (frame, spec), n_boot=0)
    with pytest.raises(DataError, match="non-finite"):
        audit_scores(np.full(50, np.nan), np.zeros(50), cfs, (frame, spec), n_boot=0)
    with pytest.raises(DataError, match="one number per row"):
        audit(lambda rows: np.zeros((len(rows), 3)), (frame, spec), twins=cfs, n_boot=0)
    with pytest.raises(ValueError, match="n_boot"):
        audit(only_b, (frame, spec), twins=cfs, n_boot=-1)


# ----------------------------------------------------------------------------- the twins' flow
@pytest.fixture()
def fits(monkeypatch):
    """Counts the causal flows fitted (CausalFlow.fit calls)."""
    from cffair.causal.cnf import CausalFlow

    calls: list[int] = []
    fit = CausalFlow.fit

    def counted(self, *args, **kwargs):
        calls.append(len(calls))
        return fit(self, *args, **kwargs)

    monkeypatch.setattr(CausalFlow, "fit", counted)
    return calls


def test_a_second_audit_on_the_same_data_fits_no_flow(tmp_path, fits) -> None:
    frame, spec, _ = toy(300)
    first = audit(only_b, (frame, spec), flow_config={"epochs": 3}, cache_dir=tmp_path, n_boot=0)
    assert len(fits) == 1
    second = audit(only_s, (frame, spec), flow_config={"epochs": 3}, cache_dir=tmp_path, n_boot=0)
    assert len(fits) == 1, "the second model's audit refitted the flow"
    assert second.pairs[["row_id", "feature", "value"]].equals(first.pairs[["row_id", "feature", "value"]])
    assert second.cf_flip_rate == 1.0  # a model of S alone flips on every generated twin too


def test_the_audit_fit_and_the_library_fit_are_two_cache_entries(tmp_path, fits) -> None:
    from cffair.audit import AUDIT_FLOW, audit_flow_config
    from cffair.causal import generate

    frame, spec, _ = toy(300)
    library = generate((frame, spec), "sensitive", config={"epochs": 3}, cache_dir=tmp_path, progress=False)
    assert len(fits) == 1
    same = audit(only_b, (frame, spec), flow_config={"epochs": 3}, flow_fit="default", cache_dir=tmp_path, n_boot=0)
    assert len(fits) == 1 and same.n_pairs == len(library)  # flow_fit="default" is generate()'s flow and twins
    audit(only_b, (frame, spec), flow_config={"epochs": 3}, cache_dir=tmp_path, n_boot=0)
    assert len(fits) == 2  # the audit's own fit
    cfg = audit_flow_config({"epochs": 3})
    assert {k: cfg.to_dict()[k] for k in AUDIT_FLOW} == AUDIT_FLOW and cfg.epochs == 3
    with pytest.raises(ValueError, match="flow_fit must be 'audit'"):
        audit(only_b, (frame, spec), flow_fit="fast", cache_dir=tmp_path, n_boot=0)


# ----------------------------------------------------------------------------- the command
@pytest.fixture()
def files(tmp_path):
    frame, spec, cfs = toy(160)
    frame.to_csv(tmp_path / "toy.csv", index=False)
    (tmp_path / "spec.yaml").write_text(yaml.safe_dump({**SPEC, "graph": SPEC["graph"]}), encoding="utf-8")
    cfs.save(tmp_path / "twins.parquet")
    return tmp_path, frame, spec, cfs


def _run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_audits_a_skops_model_and_writes_json(files, capsys) -> None:
    tmp, frame, spec, cfs = files
    model = LogisticRegression().fit(frame[["a", "b"]], frame["y"])
    # a model of the two numeric columns; the twins keep them, so the audit must find it fair
    numeric = make_pipeline(FunctionTransformer(_numeric), model)
    dump(numeric, tmp / "model.skops")
    untrusted = get_untrusted_types(file=tmp / "model.skops")
    assert untrusted, "the custom function is a type skops does not trust by default"
    code, _, err = _run(
        capsys,
        "audit",
        "--data",
        str(tmp / "toy.csv"),
        "--spec",
        str(tmp / "spec.yaml"),
        "--model",
        str(tmp / "model.skops"),
        "--twins",
        str(tmp / "twins.parquet"),
    )
    assert code == 2 and len(err.strip().splitlines()) == 1 and "--trust" in err and untrusted[0] in err
    argv = [
        "audit",
        "--data",
        str(tmp / "toy.csv"),
        "--spec",
        str(tmp / "spec.yaml"),
        "--model",
        str(tmp / "model.skops"),
        "--twins",
        str(tmp / "twins.parquet"),
        "--n-boot",
        "10",
        "--out",
        str(tmp / "audit.json"),
    ]
    for t in untrusted:
        argv += ["--trust", t]
    code, out, err = _run(capsys, *argv)
    assert code == 0, err
    result = json.loads((tmp / "audit.json").read_text())
    assert result["cf_mse"] == 0.0 and result["cf_flip_rate"] == 0.0 and result["pairs"] == 160
    assert "CF flip rate 0.0000" in out


def _numeric(rows):
    return rows[["a", "b"]]


def test_cli_audits_predictions_made_elsewhere(files, capsys) -> None:
    tmp, frame, spec, cfs = files
    pd.DataFrame({"d": only_s(frame)}).to_csv(tmp / "p.csv", index=False)
    pd.DataFrame({"d_cf": only_s(cfs.frame)}).to_csv(tmp / "t.csv", index=False)
    base = ["audit", "--data", str(tmp / "toy.csv"), "--spec", str(tmp / "spec.yaml")]
    code, out, err = _run(
        capsys,
        *base,
        "--predictions",
        str(tmp / "p.csv"),
        "--twins",
        str(tmp / "twins.parquet"),
        "--twin-predictions",
        str(tmp / "t.csv"),
        "--n-boot",
        "0",
    )
    assert code == 0, err
    assert out.startswith("CF-MSE 1.0000, CF flip rate 1.0000 over 160 person-twin pairs")
    code, _, err = _run(capsys, *base, "--predictions", str(tmp / "p.csv"))
    assert code == 2 and "--twins" in err and len(err.strip().splitlines()) == 1
    pd.DataFrame({"wrong": [0.0]}).to_csv(tmp / "bad.csv", index=False)
    code, _, err = _run(
        capsys,
        *base,
        "--predictions",
        str(tmp / "bad.csv"),
        "--twins",
        str(tmp / "twins.parquet"),
        "--twin-predictions",
        str(tmp / "t.csv"),
    )
    assert code == 2 and "no column 'd'" in err


def test_cli_audits_two_models_with_one_fitted_flow(files, capsys, fits) -> None:
    from sklearn.compose import make_column_transformer
    from sklearn.preprocessing import OneHotEncoder

    tmp, frame, spec, _ = files
    for name, columns in (("with_s", ["s", "a", "b"]), ("without_s", ["a", "b"])):
        pre = make_column_transformer(
            (OneHotEncoder(), [c for c in columns if c == "s"]), ("passthrough", [c for c in columns if c != "s"])
        )
        dump(make_pipeline(pre, LogisticRegression()).fit(frame, frame["y"]), tmp / f"{name}.skops")
    base = [
        "audit",
        "--data",
        str(tmp / "toy.csv"),
        "--spec",
        str(tmp / "spec.yaml"),
        "--flow-epochs",
        "3",
        "--cache-dir",
        str(tmp / "cache"),
        "--n-boot",
        "0",
        "--quiet",
    ]
    outs = []
    for name in ("with_s", "without_s"):
        code, out, err = _run(capsys, *base, "--model", str(tmp / f"{name}.skops"), "--out", str(tmp / f"{name}.json"))
        assert code == 0, err
        outs.append(json.loads((tmp / f"{name}.json").read_text()))
    assert len(fits) == 1  # the second model was scored on the cached twins
    assert (
        outs[0]["pairs"] == outs[1]["pairs"] and outs[0]["cf_mse"] != outs[1]["cf_mse"]
    )  # two models, one set of twins
    code, _, err = _run(capsys, *base, "--model", str(tmp / "with_s.skops"), "--flow-fit", "default")
    assert code == 0, err
    assert len(fits) == 2  # the library's fit is another flow
