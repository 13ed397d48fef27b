"""cffair.evaluation._audit and ``cffair audit``: counterfactual fairness of a model trained elsewhere.

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

from cffair.causal import CounterfactualSet
from cffair.cli import main
from cffair.datasets import DatasetSpec, prepare
from cffair.errors import CounterfactualError, DataError, OptionError, ParameterError
from cffair.evaluation._audit import audit, audit_scores, by_subgroup

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
    with pytest.raises(ParameterError, match=r"n_boot must be a whole number ≥ 0 \(0: no intervals\), got -1"):
        audit(only_b, (frame, spec), twins=cfs, n_boot=-1)


def test_bad_audit_settings_are_parameter_and_option_errors_before_any_prediction() -> None:
    frame, spec, cfs = toy(50)

    def never(rows: pd.DataFrame) -> np.ndarray:
        raise AssertionError("predict was called before the settings were checked")

    with pytest.raises(ParameterError, match=r"ci must be two quantiles .* got \(0.9, 0.1\)"):
        audit(never, (frame, spec), twins=cfs, ci=(0.9, 0.1))
    with pytest.raises(ParameterError, match="bootstrap must be 'rows' .* or 'pairs', got 'folds'"):
        audit(never, (frame, spec), twins=cfs, n_boot=0, bootstrap="folds")
    with pytest.raises(OptionError, match="audit was given twins, training: each is a source of the twins"):
        audit(never, (frame, spec), twins=cfs, training=frame, n_boot=0)


# ----------------------------------------------------------------------------- the twins' flow
@pytest.fixture()
def fits(monkeypatch):
    """Counts the causal flows fitted (CausalFlow.fit calls)."""
    from cffair.causal._cnf import CausalFlow

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
    from cffair.causal import generate
    from cffair.evaluation._audit import AUDIT_FLOW, audit_flow_config

    frame, spec, _ = toy(300)
    library = generate((frame, spec), "sensitive", config={"epochs": 3}, cache_dir=tmp_path, progress=False)
    assert len(fits) == 1
    same = audit(only_b, (frame, spec), flow_config={"epochs": 3}, flow_fit="default", cache_dir=tmp_path, n_boot=0)
    assert len(fits) == 1 and same.n_pairs == len(library)  # flow_fit="default" is generate()'s flow and twins
    audit(only_b, (frame, spec), flow_config={"epochs": 3}, cache_dir=tmp_path, n_boot=0)
    assert len(fits) == 2  # the audit's own fit
    cfg = audit_flow_config({"epochs": 3})
    assert {k: cfg.to_dict()[k] for k in AUDIT_FLOW} == AUDIT_FLOW and cfg.epochs == 3
    with pytest.raises(ParameterError, match="flow_fit must be 'audit'"):
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
    pd.DataFrame({"row_id": np.arange(len(frame)), "d": only_s(frame)}).to_csv(tmp / "p.csv", index=False)
    cfs.frame[["row_id", "feature", "value", "sample"]].assign(d_cf=only_s(cfs.frame)).to_csv(
        tmp / "t.csv", index=False
    )
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


# ----------------------------------------------------------------------------- alignment by identity
KEYS = ["row_id", "feature", "value", "sample"]


def _audit_files(capsys, tmp, p: str, t: str, twins: str = "twins.parquet", *extra: str) -> tuple[int, str, str]:
    return _run(
        capsys,
        "audit",
        "--data",
        str(tmp / "toy.csv"),
        "--spec",
        str(tmp / "spec.yaml"),
        "--predictions",
        str(tmp / p),
        "--twins",
        str(tmp / twins),
        "--twin-predictions",
        str(tmp / t),
        "--n-boot",
        "20",
        "--out",
        str(tmp / "audit.json"),
        *extra,
    )


def _one_line(code: int, out: str, err: str, *needles: str) -> None:
    assert code == 2 and out == "", (code, out, err)
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err, err
    for needle in needles:
        assert needle in err, (needle, err)


@pytest.fixture()
def predicted(files):
    """Soft predictions (a different value for every row and twin) as keyed tables, in order."""
    tmp, frame, spec, cfs = files
    rng = np.random.default_rng(5)
    d, d_cf = rng.uniform(size=len(frame)), rng.uniform(size=len(cfs.frame))
    ordered = pd.DataFrame({"row_id": np.arange(len(frame)), "d": d})
    twins = cfs.frame[KEYS].assign(d_cf=d_cf)
    return tmp, frame, spec, cfs, ordered, twins


def test_shuffled_predictions_with_row_ids_give_the_audit_of_the_ordered_ones(predicted, capsys) -> None:
    tmp, frame, spec, cfs, ordered, twins = predicted
    ordered.to_csv(tmp / "p.csv", index=False)
    twins.to_csv(tmp / "t.csv", index=False)
    ordered.sample(frac=1, random_state=1).to_csv(tmp / "p_shuffled.csv", index=False)
    twins.sample(frac=1, random_state=2)[["d_cf", *KEYS]].to_csv(tmp / "t_shuffled.csv", index=False)
    code, out, err = _audit_files(capsys, tmp, "p.csv", "t.csv")
    assert code == 0, err
    first = json.loads((tmp / "audit.json").read_text())
    code, out2, err = _audit_files(capsys, tmp, "p_shuffled.csv", "t_shuffled.csv")
    assert code == 0, err
    assert json.loads((tmp / "audit.json").read_text()) == first and out2 == out
    # the same audit as the predictions in memory, in order; and not that of the shuffled values by position
    inline = audit_scores(ordered["d"], twins["d_cf"], cfs, (frame, spec), n_boot=20)
    assert first["cf_mse"] == pytest.approx(inline.cf_mse, rel=1e-12)
    assert first["cf_flip_rate"] == inline.cf_flip_rate
    by_position = audit_scores(
        pd.read_csv(tmp / "p_shuffled.csv")["d"].to_numpy(), twins["d_cf"], cfs, (frame, spec), n_boot=0
    )
    assert by_position.cf_mse != pytest.approx(inline.cf_mse, rel=1e-3)
    # twins keyed by row_id alone name one twin each here (one intervention, one sample): enough
    twins[["row_id", "d_cf"]].sample(frac=1, random_state=3).to_csv(tmp / "t_ids.csv", index=False)
    code, _, err = _audit_files(capsys, tmp, "p_shuffled.csv", "t_ids.csv")
    assert code == 0 and json.loads((tmp / "audit.json").read_text()) == first, err


def test_predictions_without_row_ids_are_refused_with_the_fix(predicted, capsys) -> None:
    tmp, frame, spec, cfs, ordered, twins = predicted
    ordered.to_csv(tmp / "p.csv", index=False)
    twins.to_csv(tmp / "t.csv", index=False)
    ordered[["d"]].sample(frac=1, random_state=1).to_csv(tmp / "p_shuffled.csv", index=False)
    _one_line(*_audit_files(capsys, tmp, "p_shuffled.csv", "t.csv"), "p_shuffled.csv", "add a row_id column")
    # in order or not, a single column cannot show it: refused all the same
    ordered[["d"]].to_csv(tmp / "p_plain.csv", index=False)
    _one_line(*_audit_files(capsys, tmp, "p_plain.csv", "t.csv"), "add a row_id column")
    twins[["d_cf"]].to_csv(tmp / "t_plain.csv", index=False)
    _one_line(*_audit_files(capsys, tmp, "p.csv", "t_plain.csv"), "t_plain.csv", "row_id, feature, value and sample")
    # more than one column and no row_id: which is the key?
    ordered.rename(columns={"row_id": "id"}).to_csv(tmp / "p_other.csv", index=False)
    _one_line(*_audit_files(capsys, tmp, "p_other.csv", "t.csv"), "['id']", "but no 'row_id'", "add a row_id column")
    assert not (tmp / "audit.json").exists()


@pytest.mark.parametrize(
    ("edit", "needle"),
    [
        (lambda t: pd.concat([t, t.iloc[[3]]]), "repeated keys (first row_id 3"),
        (lambda t: t.drop(index=[7]), "no prediction for 1 of the 160 rows audited (first row_id 7)"),
        (lambda t: t.assign(row_id=t["row_id"].where(t["row_id"] != 9, 160)), "not among the 160 rows audited"),
        (lambda t: t.assign(row_id=t["row_id"] + 0.5), "whole numbers"),
        (lambda t: t.assign(d=t["d"].astype(str).where(t["row_id"] != 4, "high")), "not numbers (first 'high'"),
    ],
)
def test_missing_repeated_or_unknown_row_ids_are_refused(predicted, capsys, edit, needle) -> None:
    tmp, _, _, _, ordered, twins = predicted
    edit(ordered).to_csv(tmp / "p.csv", index=False)
    twins.to_csv(tmp / "t.csv", index=False)
    _one_line(*_audit_files(capsys, tmp, "p.csv", "t.csv"), needle)


def test_twin_keys_that_do_not_name_one_twin_each_are_refused(files, capsys) -> None:
    tmp, frame, spec, cfs = files
    two = CounterfactualSet.concat([cfs, CounterfactualSet(cfs.frame.assign(sample=1), cfs.meta)])
    two.save(tmp / "two.parquet")
    rng = np.random.default_rng(0)
    pd.DataFrame({"row_id": np.arange(len(frame)), "d": rng.uniform(size=len(frame))}).to_csv(
        tmp / "p.csv", index=False
    )
    keyed = two.frame[KEYS].assign(d_cf=rng.uniform(size=len(two.frame)))
    keyed[["row_id", "d_cf"]].to_csv(tmp / "t.csv", index=False)
    _one_line(*_audit_files(capsys, tmp, "p.csv", "t.csv", "two.parquet"), "does not name one row each", "'sample'")
    keyed[["row_id", "sample", "d_cf"]].sample(frac=1, random_state=0).to_csv(tmp / "t.csv", index=False)
    code, _, err = _audit_files(capsys, tmp, "p.csv", "t.csv", "two.parquet")
    assert code == 0, err
    result = json.loads((tmp / "audit.json").read_text())
    d = pd.read_csv(tmp / "p.csv")["d"].to_numpy()[two.frame["row_id"].to_numpy()]
    assert result["pairs"] == 320 and result["cf_mse"] == pytest.approx(np.mean((d - keyed["d_cf"].to_numpy()) ** 2))


def test_positional_files_are_read_only_with_the_row_hash_stored_beside_them(predicted, capsys) -> None:
    from cffair.evaluation._alignment import SIDECAR, save_predictions

    tmp, frame, spec, cfs, ordered, twins = predicted
    ordered.to_csv(tmp / "p_ids.csv", index=False)
    twins.to_csv(tmp / "t_ids.csv", index=False)
    code, _, err = _audit_files(capsys, tmp, "p_ids.csv", "t_ids.csv")
    assert code == 0, err
    keyed = json.loads((tmp / "audit.json").read_text())
    save_predictions(tmp / "p.csv", ordered["d"], frame, spec.features)
    save_predictions(tmp / "t.csv", twins["d_cf"], cfs.frame, spec.features, column="d_cf")
    assert list(pd.read_csv(tmp / "p.csv").columns) == ["d"] and (tmp / f"p.csv{SIDECAR}").is_file()
    code, _, err = _audit_files(capsys, tmp, "p.csv", "t.csv")
    assert code == 0, err
    assert json.loads((tmp / "audit.json").read_text()) == keyed
    # shuffled after it was written: the file no longer matches its stored hash
    pd.read_csv(tmp / "p.csv").sample(frac=1, random_state=0).to_csv(tmp / "p.csv", index=False)
    _one_line(*_audit_files(capsys, tmp, "p.csv", "t.csv"), "changed since its row hash was stored", "row_id")
    # written for the rows in another order: the data's hash differs
    save_predictions(tmp / "p.csv", ordered["d"][::-1], frame.iloc[::-1], spec.features)
    _one_line(*_audit_files(capsys, tmp, "p.csv", "t.csv"), "was made for other rows than these")


def test_probabilities_in_percent_or_negative_are_refused(predicted, capsys) -> None:
    tmp, frame, spec, cfs, ordered, twins = predicted
    twins.to_csv(tmp / "t.csv", index=False)
    ordered.assign(d=100 * ordered["d"]).to_csv(tmp / "p.csv", index=False)
    _one_line(*_audit_files(capsys, tmp, "p.csv", "t.csv"), "in [0, 1]", "percentages? divide them by 100")
    ordered.assign(d=ordered["d"] - 0.5).to_csv(tmp / "p.csv", index=False)
    _one_line(*_audit_files(capsys, tmp, "p.csv", "t.csv"), "in [0, 1]", "negative", "not log-odds")
    ordered.assign(d=1000 * ordered["d"]).to_csv(tmp / "p.csv", index=False)
    code, _, err = _audit_files(capsys, tmp, "p.csv", "t.csv")
    _one_line(code, "", err, "in [0, 1]")
    assert "divide them by 100" not in err  # beyond 100: not percentages
    ordered.to_csv(tmp / "p.csv", index=False)
    twins.assign(d_cf=100 * twins["d_cf"]).to_csv(tmp / "t.csv", index=False)
    _one_line(*_audit_files(capsys, tmp, "p.csv", "t.csv"), "predictions for the twins", "divide them by 100")
    # the library refuses them too, whatever made them
    with pytest.raises(DataError, match="divide them by 100"):
        audit(lambda rows: 100 * only_b(rows), (frame, spec), twins=cfs, n_boot=0)
    with pytest.raises(DataError, match="negative"):
        audit(lambda rows: np.log(only_b(rows)), (frame, spec), twins=cfs, n_boot=0)


def _permuted_twins(cfs: CounterfactualSet, seed: int = 0) -> CounterfactualSet:
    long = cfs.frame.copy()
    long["row_id"] = np.random.default_rng(seed).permutation(long["row_id"].to_numpy())
    return CounterfactualSet(long, cfs.meta)


def test_twins_with_permuted_row_ids_are_refused_as_train_refuses_them(predicted, capsys) -> None:
    from cffair.cli._common import counterfactuals, load_dataset

    tmp, frame, spec, cfs, ordered, twins = predicted
    _permuted_twins(cfs).save(tmp / "forged.parquet")  # a valid file: content hash and data hash hold
    ordered.to_csv(tmp / "p.csv", index=False)
    twins.to_csv(tmp / "t.csv", index=False)
    code, out, err = _audit_files(capsys, tmp, "p.csv", "t.csv", "forged.parquet")
    _one_line(code, out, err, "row ids do not point at the rows")
    # the message train gives for the same file (one validator)
    ds = load_dataset(str(tmp / "toy.csv"), str(tmp / "spec.yaml"))
    with pytest.raises(CounterfactualError) as train_err:
        counterfactuals(
            ds, str(tmp / "forged.parquet"), interventions="sensitive", config={}, seed=0, cache=False, quiet=True
        )
    assert err.strip() == f"cffair: error: {train_err.value}"
    # through the library, before the model is called
    calls: list[int] = []

    def counted(rows: pd.DataFrame) -> np.ndarray:
        calls.append(len(rows))
        return only_b(rows)

    with pytest.raises(CounterfactualError, match="row ids do not point"):
        audit(counted, (frame, spec), twins=_permuted_twins(cfs), n_boot=0)
    assert calls == []


def test_twins_of_another_dataset_are_one_line_before_the_model_is_called(files, capsys) -> None:
    """A model whose columns the other data lacks would raise a KeyError on the twins: the twins
    are checked first."""
    tmp, frame, spec, _ = files
    other_spec = DatasetSpec.from_dict(
        {
            "name": "other",
            "target": "y",
            "target_kind": "binary",
            "sensitive": "g",
            "features": {"g": "binary", "c": "continuous"},
            "graph": {"name": "other", "edges": {"g": ["c"]}},
        }
    )
    rng = np.random.default_rng(0)
    raw = pd.DataFrame({"g": rng.choice(["p", "q"], 60), "c": rng.normal(size=60), "y": rng.integers(0, 2, 60)})
    other = prepare(raw, other_spec)
    flipped = other.assign(g=other["g"].map({"p": "q", "q": "p"}).astype(other["g"].dtype))
    CounterfactualSet.from_frames(other, flipped, other_spec, "g").save(tmp / "other.parquet")
    from sklearn.compose import make_column_transformer

    model = make_pipeline(make_column_transformer(("passthrough", ["a", "b"])), LogisticRegression())
    dump(model.fit(frame, frame["y"]), tmp / "model.skops")
    argv = [
        "audit",
        "--data",
        str(tmp / "toy.csv"),
        "--spec",
        str(tmp / "spec.yaml"),
        "--model",
        str(tmp / "model.skops"),
    ]
    _one_line(*_run(capsys, *argv, "--twins", str(tmp / "other.parquet")), "lacks the feature column(s)", "other data")
    code, _, err = _run(capsys, *argv, "--twins", str(tmp / "twins.parquet"), "--n-boot", "0")
    assert code == 0, err  # the same model on this data's twins
