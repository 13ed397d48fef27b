"""Your own data, end to end (cffair.workflows._own, ``cffair run``, cffair.reporting._report), on datasets
the library has never seen: a synthetic CSV written here and a subsample of the credit-default
data prepared by examples/credit/prepare.py.

* The API runs every fold × method into the results folder of our choice, with records under
  the registered name and fold count, and a self-contained report whose Table 1 cells are the
  records' means and sample sds; a second run computes nothing (every record is fresh).
* ``cffair run`` does the same from the command line and prints the report's path last.
* Every bad option exits with status 2 and a one-line message before any counterfactual is
  generated or any model fitted (one test per option).
"""

from __future__ import annotations

import re
import runpy
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from bs4 import BeautifulSoup

from cffair.cli import main
from cffair.datasets import _registry as registry
from cffair.experiments import ConfigError, ExperimentConfig, ResultsStore
from cffair.reporting import METRIC_ORDER, method_name, metric_name
from cffair.reporting._report import best_methods, collapsed_runs, method_frame
from cffair.workflows import _own as own

ROOT = Path(__file__).resolve().parents[2]
CREDIT = ROOT / "examples" / "credit"

SPEC = """name: synth
target: approved
target_kind: binary
favourable: 1
sensitive: sex
features: {sex: binary, age: integer, edu: categorical, income: continuous}
subgroups: [sex, edu]
immutable: [age, edu]
graph: graph.yaml
"""
GRAPH = "edges:\n  sex: [edu, income]\n  age: [edu, income]\n  edu: [income]\n"


def write_synthetic(folder: Path, rows: int = 500) -> tuple[Path, Path]:
    """A structural model the library has never seen: S → education → income, age → both."""
    rng = np.random.default_rng(7)
    sex = rng.choice(["female", "male"], rows)
    age = rng.integers(20, 70, rows)
    male = (sex == "male").astype(float)
    edu = np.where(rng.random(rows) < 0.25 + 0.2 * male, "degree", np.where(rng.random(rows) < 0.5, "school", "none"))
    income = 1.2 * male + 0.02 * age + (edu == "degree") - 0.5 * (edu == "none") + rng.normal(0, 1, rows)
    approved = (income + rng.normal(0, 0.5, rows) > 1.6).astype(int)
    folder.mkdir(parents=True, exist_ok=True)
    pd.DataFrame({"sex": sex, "age": age, "edu": edu, "income": income.round(4), "approved": approved}).to_csv(
        folder / "synth.csv", index=False
    )
    (folder / "spec.yaml").write_text(SPEC)
    (folder / "graph.yaml").write_text(GRAPH)
    return folder / "synth.csv", folder / "spec.yaml"


SETTINGS = ["acc", "acc_cf", "acc_cf_cke"]
BASELINES = ["unaware", "cnf"]
METHODS = ["ltn_acc", "ltn_acc_cf", "ltn_acc_cf_cke", "cnf", "unaware"]


@pytest.fixture(scope="module")
def api_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[own.OwnRun, Path, dict[str, Any]]:
    """The synthetic data through the API once (quick profile, 2 folds), then run again with the
    grid's runner replaced by one that fails: the second run must need no runner at all."""
    tmp = tmp_path_factory.mktemp("own")
    csv, spec = write_synthetic(tmp / "data")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("CFFAIR_CACHE", str(tmp / "cache"))
        mp.delenv(registry.ENV_VAR, raising=False)
        mp.setattr(registry, "_LOCAL", {})
        first = own.run(
            csv, spec, settings=SETTINGS, baselines=BASELINES, folds=2, quick=True, out=tmp / "results", progress=False
        )
        checksums = {p.name: p.read_bytes() for p in (tmp / "results" / "records").glob("*.json")}
        report_before = first.report.read_text(encoding="utf-8")

        def no_work(*args: Any, **kwargs: Any) -> Any:
            raise AssertionError("a fresh record was recomputed")

        mp.setattr("cffair.experiments._pipeline.run_task", no_work)
        second = own.run(
            csv, spec, settings=SETTINGS, baselines=BASELINES, folds=2, quick=True, out=tmp / "results", progress=False
        )
        after = {p.name: p.read_bytes() for p in (tmp / "results" / "records").glob("*.json")}
    return first, tmp, {"second": second, "checksums": checksums, "after": after, "report_before": report_before}


def test_records_exist_for_every_fold_and_method(api_run: tuple) -> None:
    first, tmp, _ = api_run
    store = ResultsStore(tmp / "results")
    for fold in (0, 1):
        for m in METHODS:
            cfg = ExperimentConfig("synth", fold, m, profile="quick", n_folds=2)
            rec = store.get(cfg)
            assert rec is not None, cfg.key
            assert rec["config"]["n_folds"] == 2 and rec["config"]["dataset"] == "synth"
            assert rec["fingerprint"]["data"] == first.records[0]["fingerprint"]["data"]
    assert len(first.records) == 10 and first.computed == 10
    assert [r["config"]["setting"] for r in first.records[:5]] == [
        "ltn_acc",
        "ltn_acc_cf",
        "ltn_acc_cf_cke",
        "cnf",
        "unaware",
    ]


def test_the_ltn_settings_of_a_fold_share_one_pretraining(api_run: tuple) -> None:
    first, _, _ = api_run
    for fold in (0, 1):
        pre = {
            r["fingerprint"]["inputs"]["pretrained"]["content"]
            for r in first.records
            if r["config"]["fold"] == fold and r["config"]["setting"] in ("ltn_acc_cf", "ltn_acc_cf_cke")
        }
        assert len(pre) == 1 and None not in pre


def test_cke_and_queries_ran_on_the_user_data(api_run: tuple) -> None:
    first, _, _ = api_run
    cke = [r for r in first.records if r["config"]["setting"] == "ltn_acc_cf_cke"]
    assert all({"age", "edu"} >= {c["feature"] for c in r["cke"]["imbalances_before"]} for r in cke)
    eq3 = [r["queries"]["eq3"] for r in first.records if r["config"]["setting"] == "ltn_acc_cf"]
    subgroups = {"female, degree", "female, none", "female, school", "male, degree", "male, none", "male, school"}
    assert all(set(q) == subgroups and all(0 <= v <= 1 for v in q.values()) for q in eq3)


def _table(soup: BeautifulSoup, caption_start: str) -> list[list[str]]:
    table = next(t for t in soup.find_all("table") if t.caption and t.caption.get_text().startswith(caption_start))
    return [[c.get_text(strip=True) for c in tr.find_all(["th", "td"])] for tr in table.find_all("tr")]


def test_report_table1_cells_are_the_records_means_and_sds(api_run: tuple) -> None:
    first, _, _ = api_run
    soup = BeautifulSoup(first.report.read_text(encoding="utf-8"), "html.parser")
    rows = _table(soup, "Table 1 on synth: 2 folds")
    header, body = rows[0], rows[1:]
    by_name = {metric_name(k): k for k in ("accuracy", "mse", "cf_mse", "cf_mse_worst_subgroup", *METRIC_ORDER)}
    metrics = [by_name[h] for h in header[1:]]
    assert metrics[:3] == ["accuracy", "cf_mse", "cf_mse_worst_subgroup"]
    assert len(body) == 5
    for row in body:
        method = next(m for m in first.plan.methods if method_name(m) == row[0])
        values = {k: [r["metrics"][k] for r in first.records if r["config"]["setting"] == method] for k in metrics}
        for k, cell in zip(metrics, row[1:], strict=True):
            v = np.array(values[k])
            assert len(v) == 2
            assert cell.replace("*", "").replace("\u00a0", " ") == f"{v.mean():.3f} ± {v.std(ddof=1):.3f}", (method, k)


def test_report_methods_follow_the_plan_order(api_run: tuple) -> None:
    first, _, _ = api_run
    assert first.plan.methods == ("ltn_acc", "ltn_acc_cf", "ltn_acc_cf_cke", "cnf", "unaware")  # the paper's order
    soup = BeautifulSoup(first.report.read_text(encoding="utf-8"), "html.parser")
    body = _table(soup, "Table 1 on synth")[1:]
    assert [r[0] for r in body] == [method_name(m) for m in first.plan.methods]


def test_report_is_self_contained_with_figure_subgroups_and_cke(api_run: tuple) -> None:
    first, _, _ = api_run
    text = first.report.read_text(encoding="utf-8")
    soup = BeautifulSoup(text, "html.parser")
    imgs = soup.find_all("img")
    assert imgs and all(i["src"].startswith("data:image/png;base64,") for i in imgs)
    assert not soup.find_all("link") and not soup.find_all("script", src=True)
    assert not re.search(r"(src|href)=\"https?:", text)
    sg = _table(soup, "CF-MSE per subgroup")
    assert {r[0] for r in sg[1:]} == {
        "female, degree",
        "female, none",
        "female, school",
        "male, degree",
        "male, none",
        "male, school",
    }
    cke_text = " ".join(" ".join(r) for r in _table(soup, "Imbalances of undesirable explanations")[2:])
    assert "LTN(acc+CF+CKE)" in cke_text and ("age" in cke_text or "edu" in cke_text)
    assert "Subgroup queries (equation 3)" in text


def test_a_second_run_recomputes_nothing(api_run: tuple) -> None:
    first, _, info = api_run
    second = info["second"]
    assert second.computed == 0
    assert info["after"] == info["checksums"]  # record files byte for byte the same
    assert [r["checksum"] for r in second.records] == [r["checksum"] for r in first.records]


def test_run_json_says_what_ran(api_run: tuple) -> None:
    import json

    first, tmp, _ = api_run
    info = json.loads((tmp / "results" / "run.json").read_text())
    assert info["plan"]["folds"] == 2 and info["plan"]["settings"] == ["ltn_acc", "ltn_acc_cf", "ltn_acc_cf_cke"]
    assert info["registration"]["data"].endswith("synth.csv") and info["registration"]["flow"] == {}
    assert set(info["stage_seconds"]) == {"counterfactuals", "experiments", "report"}


def test_method_frame_numbers_are_fold_means() -> None:
    recs = [
        {
            "config": {"dataset": "d", "fold": f, "setting": "cnf", "cf_source": "cnf", "tag": ""},
            "metrics": {"accuracy": a, "cf_mse": c, "cf_mse_worst_subgroup": 2 * c},
        }
        for f, a, c in ((0, 0.7, 0.1), (1, 0.8, 0.3))
    ]
    shown, long = method_frame(recs, ["cnf"])
    assert shown.loc["CNF", metric_name("accuracy")] == f"0.750 ± {np.std([0.7, 0.8], ddof=1):.3f}"
    assert shown.loc["CNF", metric_name("cf_mse")] == f"0.200 ± {np.std([0.1, 0.3], ddof=1):.3f}"
    # a fold whose model says "no" to everyone stays in the mean (leaving it out would flatter the
    # method) and marks every cell of the method
    recs[1]["metrics"].update(positive_rate=0.0, prediction_sd=0.0)
    shown, long = method_frame(recs, ["cnf"])
    assert shown.loc["CNF", metric_name("accuracy")] == f"0.750 ± {np.std([0.7, 0.8], ddof=1):.3f} †"
    assert (long["collapsed"] == 1).all()
    # ... and is never "the best" in bold, however low its CF-MSE
    fair = {
        "config": {"dataset": "d", "fold": 0, "setting": "gan", "cf_source": "cnf", "tag": ""},
        "metrics": {"accuracy": 0.7, "cf_mse": 0.5, "cf_mse_worst_subgroup": 1.0},
    }
    _, long = method_frame([*recs, fair, {**fair, "config": {**fair["config"], "fold": 1}}], ["cnf", "gan"])
    assert ("CNF", metric_name("cf_mse")) not in best_methods(long)
    assert ("GAN", metric_name("cf_mse")) in best_methods(long)


def test_collapsed_runs_are_flagged_with_the_reason() -> None:
    """Accuracy at or below the majority rate is collapsed, whatever its CF-MSE (records without
    the rate read it from the run's folds)."""
    recs = [
        {"config": {"dataset": "d", "setting": "ltn_acc_cf", "fold": 0}, "metrics": {"accuracy": 0.78, "cf_mse": 0.0}},
        {"config": {"dataset": "d", "setting": "ltn_acc", "fold": 0}, "metrics": {"accuracy": 0.80, "cf_mse": 0.0}},
        {
            "config": {"dataset": "d", "setting": "ltn_acc_cf_sg", "fold": 1},
            "metrics": {"accuracy": 0.69, "cf_mse": 0.01},
        },
        {
            "config": {"dataset": "d", "setting": "gan", "fold": 1},
            "metrics": {"accuracy": 0.3, "majority_rate": 0.7, "positive_rate": 1.0},
        },
    ]
    flagged = collapsed_runs(recs, {0: 0.78, 1: 0.70})
    assert [c for c, _ in flagged] == ["LTN(acc+CF) fold 0", "LTN(acc+CF_sg) fold 1", "GAN fold 1"]
    assert "majority-class rate 0.780" in flagged[0][1] and "100.0% of the rows one decision" in flagged[2][1]


def test_collapsed_runs_use_the_spread_of_the_outputs_for_every_method() -> None:
    """A GAN whose outputs barely move is constant even with a CF-MSE above 0."""
    recs = [
        {
            "config": {"dataset": "d", "setting": "gan", "fold": 0},
            "metrics": {"accuracy": 0.6, "cf_mse": 1e-6, "prediction_sd": 2e-4},
        },
        {
            "config": {"dataset": "d", "setting": "cnf", "fold": 0},
            "metrics": {"accuracy": 0.85, "cf_mse": 0.0, "prediction_sd": 0.2},
        },
    ]
    assert [c for c, _ in collapsed_runs(recs, {0: 0.78})] == ["GAN fold 0"]


def _rec(setting: str, fold: int, acc: float, cf: float) -> dict:
    return {
        "config": {"dataset": "d", "fold": fold, "setting": setting, "cf_source": "cnf", "tag": ""},
        "metrics": {"accuracy": acc, "cf_mse": cf, "cf_flip_rate": cf},
    }


@pytest.mark.parametrize(
    ("cf_other", "verdict", "word"),
    [
        ([0.01, 0.02, 0.01, 0.02, 0.015], "holds", "better than"),  # clearly lower CF-MSE on every fold
        ([0.30, 0.31, 0.32, 0.30, 0.31], "does not hold", "worse than"),  # clearly higher
        ([0.09, 0.12, 0.08, 0.13, 0.10], "inconclusive", "within fold noise of"),
    ],
)
def test_the_report_says_what_the_paired_comparison_decides(cf_other, verdict, word) -> None:
    from cffair.reporting._report import _verdict_sentence, verdict_frame

    base = [0.10, 0.11, 0.09, 0.12, 0.10]
    recs = [_rec("ltn_acc", f, 0.8, c) for f, c in enumerate(base)] + [
        _rec("cnf", f, 0.8, c) for f, c in enumerate(cf_other)
    ]
    reference, frame = verdict_frame(recs, ["ltn_acc", "cnf"])
    assert reference == "ltn_acc"
    row = frame[frame["metric"] == metric_name("cf_mse")].iloc[0]
    assert row["verdict"] == verdict
    assert row["difference"] == pytest.approx(np.mean(np.array(cf_other) - np.array(base)))
    assert word in _verdict_sentence(row)
    assert verdict_frame([r for r in recs if r["config"]["setting"] == "cnf"], ["cnf"])[0] is None


# ============================================================================ the command line
@pytest.fixture
def credit_csv(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """1,000 rows of the credit-default data as examples/credit/prepare.py writes them."""
    monkeypatch.setenv("CFFAIR_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv(registry.ENV_VAR, raising=False)
    monkeypatch.setattr(registry, "_LOCAL", {})
    return runpy.run_path(str(CREDIT / "prepare.py"))["main"]([str(tmp_path / "credit.csv"), "--rows", "1000"])


def test_cffair_run_on_the_credit_data(credit_csv: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "runs" / "credit"
    code = main(
        [
            "run",
            "--data",
            str(credit_csv),
            "--spec",
            str(CREDIT / "spec.yaml"),
            "--settings",
            "acc_cf",
            "--baselines",
            "unaware",
            "--folds",
            "2",
            "--quick",
            "--out",
            str(out),
            "--quiet",
            "--save-models",
        ]
    )
    stdout = capsys.readouterr().out
    assert code == 0
    assert stdout.strip().splitlines()[-1] == f"report: {out.resolve() / 'report.html'}"
    # --save-models: the chosen setting trained on every row, saved, and answering for new rows
    model = out.resolve() / "models" / "acc_cf.cffair"
    assert f"model: {model}" in stdout.splitlines()
    from cffair.learners._model import load_model

    loaded = load_model(model)
    rows = pd.read_csv(credit_csv).head(20)
    assert loaded.setting == "acc_cf" and loaded.predict_proba(rows).shape == (20, 2)
    # calibrated as `cffair fit` calibrates by default: a sigmoid map on a held-out fifth of the rows,
    # which maps the raw outputs monotonically into (0, 1)
    cal = loaded.calibration_
    assert cal is not None and (cal.method, cal.share) == ("sigmoid", 0.2)
    n_rows = len(pd.read_csv(credit_csv))
    assert abs(cal.n_rows - 0.2 * n_rows) <= 1
    raw = loaded.predict_proba(rows)[:, 1]
    calibrated = cal.apply(raw)
    order = np.argsort(raw)
    assert np.all(np.diff(calibrated[order]) >= -1e-12) and np.all((calibrated > 0) & (calibrated < 1))
    store = ResultsStore(out)
    recs = [
        store.get(ExperimentConfig("credit", f, m, profile="quick", n_folds=2))
        for f in (0, 1)
        for m in ("ltn_acc_cf", "unaware")
    ]
    assert all(r is not None for r in recs)
    acc = np.array([r["metrics"]["accuracy"] for r in recs if r["config"]["setting"] == "ltn_acc_cf"])
    assert f"{acc.mean():.3f} ± {acc.std(ddof=1):.3f}" in stdout  # the table printed is the records'
    soup = BeautifulSoup((out / "report.html").read_text(encoding="utf-8"), "html.parser")
    assert [r[0] for r in _table(soup, "Table 1 on credit")[1:]] == ["LTN(acc+CF)", "Unaware MLP"]


# ============================================================================ bad options
def _base(tmp: Path) -> list[str]:
    csv, spec = write_synthetic(tmp / "data", rows=200)
    return ["run", "--data", str(csv), "--spec", str(spec), "--quick", "--folds", "2", "--out", str(tmp / "out")]


@pytest.fixture
def no_work(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Fail the test if counterfactuals or the grid start."""

    def boom(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("work started despite a bad option")

    monkeypatch.setattr("cffair.experiments._pipeline.counterfactuals.prepare_counterfactuals", boom)
    monkeypatch.setattr("cffair.workflows._reproduce.run_grid", boom)
    monkeypatch.setenv("CFFAIR_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv(registry.ENV_VAR, raising=False)
    monkeypatch.setattr(registry, "_LOCAL", {})


def _replace(args: list[str], option: str, value: str | None) -> list[str]:
    out = list(args)
    if option in out:
        i = out.index(option)
        del out[i : i + 2]
    return out + ([option] if value is None else [option, value])


BAD_OPTIONS = [
    ("--folds", "1", ["argument --folds", "at least 2 folds", "--folds 5"]),
    ("--folds", "two", ["argument --folds", "'two'"]),
    ("--jobs", "0", ["argument --jobs", ">= 1", "got 0"]),
    ("--seed", "-1", ["argument --seed", ">= 0", "--seed 0"]),
    ("--settings", "acc_fair", ["argument --settings", "'acc_fair'", "acc, acc_cf, acc_cf_sg"]),
    ("--baselines", "svm", ["argument --baselines", "'svm'", "cnf, gan, dcevae"]),
    ("--backend", "bogus", ["argument --backend", "'bogus'", "loky"]),
    ("--categorical", "onehot", ["argument --categorical", "invalid choice: 'onehot'"]),
    ("--flow-hidden", "64,x", ["argument --flow-hidden", "'64,x'", "64,64,64"]),
    ("--flow-hidden", "0", ["argument --flow-hidden", "widths >= 1"]),
]


@pytest.mark.parametrize(("option", "value", "words"), BAD_OPTIONS, ids=[f"{o}={v}" for o, v, _ in BAD_OPTIONS])
def test_bad_option_exits_2_before_any_work(
    option: str, value: str, words: list[str], tmp_path: Path, no_work: None, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(_replace(_base(tmp_path), option, value))
    err = capsys.readouterr().err.strip()
    assert code == 2
    assert len(err.splitlines()) == 1 and err.startswith("cffair: error:")
    assert all(w in err for w in words), err


def _run_err(args: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    code = main(args)
    err = capsys.readouterr().err.strip()
    assert code == 2, err
    assert len(err.splitlines()) == 1 and err.startswith("cffair: error:"), err
    return err


def test_out_that_is_a_file(tmp_path: Path, no_work: None, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "file.txt").write_text("x")
    err = _run_err(_replace(_base(tmp_path), "--out", str(tmp_path / "file.txt")), capsys)
    assert "argument --out" in err and "is a file" in err


@pytest.mark.parametrize("option", ["--data", "--spec", "--graph"])
def test_missing_file(option: str, tmp_path: Path, no_work: None, capsys: pytest.CaptureFixture[str]) -> None:
    err = _run_err(_replace(_base(tmp_path), option, str(tmp_path / "nope.yaml")), capsys)
    assert f"{option} {tmp_path / 'nope.yaml'}: no such file" in err


def test_name_of_a_builtin_dataset(tmp_path: Path, no_work: None, capsys: pytest.CaptureFixture[str]) -> None:
    err = _run_err(_replace(_base(tmp_path), "--name", "adult"), capsys)
    assert "'adult' is a built-in dataset's" in err and "--name" in err


def test_name_that_is_no_file_name(tmp_path: Path, no_work: None, capsys: pytest.CaptureFixture[str]) -> None:
    err = _run_err(_replace(_base(tmp_path), "--name", "my/data"), capsys)
    assert "'my/data'" in err and "file names" in err


def test_more_folds_than_rows(tmp_path: Path, no_work: None, capsys: pytest.CaptureFixture[str]) -> None:
    err = _run_err(_replace(_base(tmp_path), "--folds", "500"), capsys)
    assert "cannot make 500 folds from 200 rows" in err


def test_cke_without_immutable_features(tmp_path: Path, no_work: None, capsys: pytest.CaptureFixture[str]) -> None:
    args = _base(tmp_path)
    spec = tmp_path / "data" / "spec.yaml"
    spec.write_text(SPEC.replace("immutable: [age, edu]", "immutable: [sex]"))
    err = _run_err(args + ["--settings", "acc_cf_cke"], capsys)
    assert "CKE settings need an immutable feature other than the sensitive attribute 'sex'" in err and "['sex']" in err


def test_spec_without_graph(tmp_path: Path, no_work: None, capsys: pytest.CaptureFixture[str]) -> None:
    args = _base(tmp_path)
    (tmp_path / "data" / "spec.yaml").write_text(SPEC.replace("graph: graph.yaml\n", ""))
    err = _run_err(args, capsys)
    assert "has no causal graph" in err and "--graph" in err


def test_nothing_to_run(tmp_path: Path, no_work: None) -> None:
    csv, spec = write_synthetic(tmp_path / "data", rows=200)
    with pytest.raises(ConfigError, match="nothing to run: choose at least one LTN setting or baseline"):
        own.plan(csv, spec, options=own.RunOptions(settings=[], baselines=[], folds=2))


def test_spec_error_names_the_file_and_line(tmp_path: Path, no_work: None, capsys: pytest.CaptureFixture[str]) -> None:
    args = _base(tmp_path)
    spec = tmp_path / "data" / "spec.yaml"
    spec.write_text(SPEC.replace("sensitive: sex", "sensitive: [sex"))
    err = _run_err(args, capsys)
    assert str(spec) in err and "line" in err


@pytest.mark.parametrize(
    ("kwargs", "words"),
    [
        ({"folds": 1}, ["folds must be a whole number >= 2"]),
        ({"jobs": 0}, ["jobs must be a whole number >= 1"]),
        ({"seed": -2}, ["seed must be a whole number >= 0"]),
        ({"settings": ["acc", "fairest"]}, ["unknown LTN setting 'fairest'"]),
        ({"baselines": "cnf,svm"}, ["unknown baseline(s) ['svm']"]),
        ({"categorical": "onehot"}, ["categorical must be one of gumbel, flow, paper"]),
        ({"backend": "mpi"}, ["unknown backend 'mpi'"]),
        ({"quick": "yes"}, ["quick must be True or False"]),
        ({"flow": {"epochs": 5}}, ["flow may not set 'epochs'", "the profile does"]),
        ({"flow": {"hiden": [64]}}, ["unknown flow setting(s) ['hiden']", "hidden"]),
        ({"counterfactuals_only": "yes"}, ["counterfactuals_only must be True or False"]),
    ],
)
def test_api_checks_options_before_any_work(
    kwargs: dict[str, Any], words: list[str], tmp_path: Path, no_work: None
) -> None:
    csv, spec = write_synthetic(tmp_path / "data", rows=200)
    with pytest.raises(ConfigError) as err:
        own.run(csv, spec, **{"folds": 2, "quick": True, "out": tmp_path / "out", **kwargs})
    assert all(w in str(err.value) for w in words), str(err.value)


def test_run_is_a_command_of_the_cli() -> None:
    import argparse

    from cffair.cli import build_parser

    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    assert "run" in sub.choices


def test_counterfactuals_only_stops_before_the_grid(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import json

    def boom(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("the grid started")

    monkeypatch.setattr("cffair.workflows._reproduce.run_grid", boom)
    monkeypatch.setenv("CFFAIR_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv(registry.ENV_VAR, raising=False)
    monkeypatch.setattr(registry, "_LOCAL", {})
    args = _replace(_base(tmp_path), "--flow-hidden", "16,16") + ["--counterfactuals-only", "--quiet"]
    assert main(args) == 0
    out = capsys.readouterr().out.strip().splitlines()
    assert out[-1] == f"run: {(tmp_path / 'out').resolve() / 'run.json'}"
    info = json.loads((tmp_path / "out" / "run.json").read_text())
    assert info["counterfactuals_only"] is True and info["registration"]["flow"] == {"hidden": [16, 16]}
    assert not (tmp_path / "out" / "report.html").exists() and not list((tmp_path / "out" / "records").glob("*.json"))


def test_own_run_names_the_configurations_the_grid_left_without_records(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A grid that returns without storing (as when its records are removed while it runs)."""
    from cffair.errors import RunError

    csv, spec = write_synthetic(tmp_path / "data", rows=200)
    monkeypatch.setenv("CFFAIR_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv(registry.ENV_VAR, raising=False)
    monkeypatch.setattr(registry, "_LOCAL", {})
    monkeypatch.setattr(
        "cffair.experiments._pipeline.counterfactuals.prepare_counterfactuals", lambda *a, **k: {"synth": "0" * 64}
    )
    monkeypatch.setattr("cffair.workflows._reproduce.run_grid", lambda *a, **k: pd.DataFrame())
    with pytest.raises(RunError, match=r"holds no readable record for 4 of its 4 configurations") as caught:
        own.run(
            csv,
            spec,
            settings=["acc"],
            baselines=["unaware"],
            folds=2,
            quick=True,
            out=tmp_path / "out",
            progress=False,
        )
    assert isinstance(caught.value, RuntimeError)
    message = str(caught.value)
    assert str(tmp_path / "out") in message and "run the same command again" in message
    keys = [
        c.key
        for c in own.plan(
            csv, spec, options=own.RunOptions(settings=["acc"], baselines=["unaware"], folds=2, quick=True)
        )[0].configs()
    ]
    assert all(k in message for k in keys), message


def test_api_default_settings_leave_out_cke_without_immutable_features(tmp_path: Path, no_work: None) -> None:
    csv, spec = write_synthetic(tmp_path / "data", rows=200)
    spec.write_text(SPEC.replace("immutable: [age, edu]", "immutable: []"))
    p, _ = own.plan(csv, spec, options=own.RunOptions(folds=2, quick=True))
    assert p.settings == ("ltn_acc", "ltn_acc_cf", "ltn_acc_cf_sg") and p.baselines == own.DEFAULT_BASELINES
    assert any("CKE settings were left out" in n for n in p.notes)


def test_training_options_reach_every_ltn_config_and_only_those(tmp_path: Path, no_work: None) -> None:
    """--lr, --fair-epochs, --fair-p and --weights become the LTN configs' options and weights; baselines keep theirs."""
    csv, spec = write_synthetic(tmp_path / "data", rows=200)
    options = own.RunOptions(
        settings=["acc", "acc_cf"],
        baselines=["unaware"],
        folds=2,
        quick=True,
        out=tmp_path / "o",
        lr=5e-4,
        fair_epochs=30,
        fair_p=6,
        weights={"cf": 2.0},
    )
    p, _ = own.plan(csv, spec, options=options)
    cfgs = p.configs()
    ltn = [c for c in cfgs if c.setting.startswith("ltn_")]
    options = {"fair_epochs": 30, "fair_p": 6.0, "lr": 5e-4}
    assert ltn and all(dict(c.options) == options and c.weight_map["cf"] == 2.0 for c in ltn)
    assert all("(fair_epochs=30,fair_p=6,lr=0.0005)" in c.key for c in ltn)
    assert all(c.weight_map["acc"] == 1.0 for c in ltn)
    assert all(not c.options and c.weight_map["cf"] == 1.0 for c in cfgs if c.setting == "unaware")


def test_a_bad_training_option_is_refused_before_any_work(
    tmp_path: Path, no_work: None, capsys: pytest.CaptureFixture[str]
) -> None:
    base = _base(tmp_path)
    assert main([*base, "--lr", "5"]) == 2
    assert "learning rate must lie in (0, 1]" in capsys.readouterr().err
    assert main([*base, "--weights", "cf=-1"]) == 2
    assert "weights" in capsys.readouterr().err.lower()


def test_weights_of_a_group_no_chosen_setting_has_are_refused(tmp_path: Path, no_work: None) -> None:
    """outcome class: error (ConfigError before any work): without an immutable feature the CKE settings
    are left out, so a weight of the CKE axioms would change nothing; with them it is taken."""
    csv, spec = write_synthetic(tmp_path / "data", rows=200)
    spec.write_text(SPEC.replace("immutable: [age, edu]", "immutable: []"))
    with pytest.raises(ConfigError, match=r"\['cke'\], which none of settings 'acc', 'acc_cf', 'acc_cf_sg' has"):
        own.plan(csv, spec, options=own.RunOptions(folds=2, quick=True, weights={"cke": 2.0}))
    spec.write_text(SPEC)
    p, _ = own.plan(csv, spec, options=own.RunOptions(folds=2, quick=True, out=tmp_path / "o", weights={"cke": 2.0}))
    assert all(c.weight_map["cke"] == 2.0 for c in p.configs() if c.setting.endswith("_cke"))


@pytest.mark.parametrize(
    "options",
    [{"lr": 0.01}, {"fair_epochs": 50}, {"weights": {"cf": 2.0}}, {}],
    ids=["lr", "fair_epochs", "weights", "defaults"],
)
@pytest.mark.parametrize("baselines", [(), ("cnf",)], ids=["alone", "with-baselines"])
def test_every_method_of_a_run_is_in_every_table_whatever_its_options(options, baselines) -> None:
    """`cffair run --lr/--fair-epochs/--weights` (alone or with baselines) had its LTN rows dropped
    from the report's tables (their records carry options, which the book's tables leave out)."""
    from dataclasses import replace

    from cffair.reporting._report import method_frame, subgroup_summary

    settings = ("ltn_acc", "ltn_acc_cf")
    recs = []
    for fold in range(3):
        for m in (*settings, *baselines):
            cfg = ExperimentConfig("mine", fold, m, profile="quick", n_folds=3)
            if m in settings and options:
                ltn = {k: v for k, v in options.items() if k != "weights"}
                cfg = replace(
                    cfg,
                    options=tuple(sorted(ltn.items())),
                    weights=tuple(sorted({**cfg.weight_map, **options.get("weights", {})}.items())),
                )
            metrics = {"accuracy": 0.8 + fold / 100, "cf_mse": 0.05, "cf_mse_worst_subgroup": 0.07}
            recs.append({"config": cfg.to_dict(), "metrics": {**metrics, "cf_mse_by_subgroup": {"a": 0.05}}})
    methods = [*settings, *baselines]
    shown, _ = method_frame(recs, methods)
    assert list(shown.index) == [method_name(m) for m in methods]
    by_subgroup, _ = subgroup_summary(recs, methods)
    assert list(by_subgroup.columns) == [method_name(m) for m in methods]


def _runs(table: dict[str, tuple[float, float, float]], folds: int = 3) -> list[dict]:
    """Records of methods with (accuracy, CF-MSE, flip rate) on every fold (a little fold noise)."""
    return [
        {
            "config": {"dataset": "d", "fold": f, "setting": m, "cf_source": "cnf", "tag": ""},
            "metrics": {
                "accuracy": a + f / 1000,
                "cf_mse": c,
                "cf_flip_rate": r,
                "majority_rate": 0.6,
                "positive_rate": 0.4,
                "prediction_sd": 0.2,
            },
        }
        for f in range(folds)
        for m, (a, c, r) in table.items()
    ]


def test_the_recommendation_is_chosen_by_the_numbers() -> None:
    from cffair.reporting._report import recommendation

    ltn_wins = _runs({"ltn_acc": (0.80, 0.10, 0.2), "ltn_acc_cf": (0.78, 0.01, 0.02), "gan": (0.79, 0.05, 0.1)})
    line = recommendation(ltn_wins, ["ltn_acc", "ltn_acc_cf", "gan"])
    assert (
        "LTN(acc) is the most accurate" in line
        and "LTN(acc+CF) the fairest on CF-MSE (0.0100), CF flip rate (0.0200)" in line
    )
    assert line.endswith("here the LTN pays off on every fairness score.")

    gan_wins = _runs({"ltn_acc": (0.80, 0.10, 0.2), "ltn_acc_cf": (0.78, 0.05, 0.1), "gan": (0.81, 0.01, 0.02)})
    line = recommendation(gan_wins, ["ltn_acc", "ltn_acc_cf", "gan"])
    assert "GAN is the most accurate" in line and line.endswith("so the LTN does not pay off on this data.")

    split = _runs({"ltn_acc": (0.80, 0.10, 0.2), "ltn_acc_cf": (0.78, 0.01, 0.1), "gan": (0.79, 0.05, 0.02)})
    assert recommendation(split, ["ltn_acc", "ltn_acc_cf", "gan"]).endswith("pays off on CF-MSE only.")


def test_the_recommendation_never_names_a_collapsed_method() -> None:
    from cffair.reporting._report import recommendation

    recs = _runs({"ltn_acc": (0.80, 0.10, 0.2), "ltn_acc_cf": (0.78, 0.05, 0.1), "gan": (0.79, 0.02, 0.05)})
    for r in recs:  # the fairest method says yes to everyone on one fold: collapsed
        if r["config"]["setting"] == "gan" and r["config"]["fold"] == 1:
            r["metrics"].update(positive_rate=1.0, accuracy=0.4)
    line = recommendation(recs, ["ltn_acc", "ltn_acc_cf", "gan"])
    assert "(GAN collapsed and is left out)" in line and "GAN is" not in line and "GAN the" not in line
    assert "LTN(acc+CF) the fairest" in line
    everyone = [dict(r, metrics={**r["metrics"], "positive_rate": 1.0}) for r in recs]
    assert recommendation(everyone, ["ltn_acc", "ltn_acc_cf", "gan"]).startswith("Every method collapsed")


def test_report_shows_group_fairness_of_every_method_from_its_records(api_run: tuple) -> None:
    first, _, _ = api_run
    soup = BeautifulSoup(first.report.read_text(encoding="utf-8"), "html.parser")
    rows = _table(soup, "Group fairness on synth: 2 folds")
    assert rows[0][1:] == ["demographic-parity difference ↓", "equalized-odds difference ↓"]
    assert [r[0] for r in rows[1:]] == [method_name(m) for m in first.plan.methods]  # every method run
    for row in rows[1:]:
        method = next(m for m in first.plan.methods if method_name(m) == row[0])
        for key, cell in zip(("demographic_parity_difference", "equalized_odds_difference"), row[1:], strict=True):
            v = np.array([r["metrics"][key] for r in first.records if r["config"]["setting"] == method])
            assert len(v) == 2 and ((v >= 0) & (v <= 1)).all()
            assert cell.replace("\u00a0", " ") == f"{v.mean():.3f} ± {v.std(ddof=1):.3f}", (method, key)
