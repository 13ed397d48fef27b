"""``cffair run`` with every training option the command line accepts, alone and with a baseline:
the report is written, every method run is in every table of it, and its first line is the
recommendation the records' numbers make (the most accurate and the fairest among the methods the
degenerate-model screen keeps, and whether the LTN pays off).

One tiny dataset (160 rows, a structural model the library has never seen), the quick profile and
2 folds; the counterfactuals are made once (one cache for the module).
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from bs4 import BeautifulSoup

from cffair.cli import main
from cffair.datasets import _registry as registry
from cffair.reporting import method_name

SPEC = """name: opts
target: approved
target_kind: binary
favourable: 1
sensitive: sex
features: {sex: binary, age: integer, income: continuous}
subgroups: [sex]
graph:
  edges: {sex: [income], age: [income]}
"""


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory):
    """``(csv, spec, tmp)`` with the cache and the dataset registry of this module only."""
    tmp = tmp_path_factory.mktemp("own_options")
    rng = np.random.default_rng(3)
    n = 160
    sex = rng.choice(["female", "male"], n)
    age = rng.integers(20, 70, n)
    income = 1.0 * (sex == "male") + 0.03 * age + rng.normal(0, 1, n)
    approved = (income + rng.normal(0, 0.5, n) > 2.0).astype(int)
    csv = tmp / "opts.csv"
    pd.DataFrame({"sex": sex, "age": age, "income": income.round(4), "approved": approved}).to_csv(csv, index=False)
    (tmp / "spec.yaml").write_text(SPEC)
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("CFFAIR_CACHE", str(tmp / "cache"))
        mp.delenv(registry.ENV_VAR, raising=False)
        mp.setattr(registry, "_LOCAL", {})
        yield csv, tmp / "spec.yaml", tmp


OPTIONS = {
    "lr": ["--settings", "acc", "acc_cf", "--lr", "0.005"],
    "fair-epochs": ["--settings", "acc", "acc_cf", "--fair-epochs", "10"],
    "weights": ["--settings", "acc", "acc_cf", "--weights", "cf=2"],
    "settings": ["--settings", "acc", "acc_cf_sg"],
}


def _tables(soup: BeautifulSoup) -> dict[str, list[list[str]]]:
    out = {}
    for t in soup.find_all("table"):
        caption = t.caption.get_text() if t.caption else ""
        out[caption] = [[c.get_text(strip=True) for c in tr.find_all(["th", "td"])] for tr in t.find_all("tr")]
    return out


def _expected_first_line_words(records: list[dict], methods: list[str]) -> tuple[str | None, list[str]]:
    """The most accurate kept method, computed here from the records by the rule's definition:
    left out are methods constant or near-constant on a fold, or no more accurate than the
    majority class on average; ``(None, left out)`` when every method is left out."""
    by: dict[str, list[dict]] = {}
    for r in records:
        by.setdefault(r["config"]["setting"], []).append(r["metrics"])
    left_out = []
    for m in methods:
        folds = by[m]
        degenerate = any(
            f["prediction_sd"] < 1e-3 or max(f["positive_rate"], 1 - f["positive_rate"]) >= 0.99 for f in folds
        )
        weak = np.mean([f["accuracy"] for f in folds]) <= np.mean([f["majority_rate"] for f in folds])
        if degenerate or weak:
            left_out.append(m)
    kept = [m for m in methods if m not in left_out]
    if not kept:
        return None, left_out
    best = max(kept, key=lambda m: np.mean([f["accuracy"] for f in by[m]]))
    return (
        f"{method_name(best)} is the most accurate (accuracy {np.mean([f['accuracy'] for f in by[best]]):.3f})",
        left_out,
    )


@pytest.mark.parametrize("baselines", [[], ["unaware"]], ids=["alone", "with-baseline"])
@pytest.mark.parametrize("option", list(OPTIONS))
def test_every_method_is_in_every_table_and_the_first_line_is_chosen_by_the_numbers(
    option: str, baselines: list[str], data, capsys: pytest.CaptureFixture[str]
) -> None:
    csv, spec, tmp = data
    out = tmp / f"out-{option}-{len(baselines)}"
    args = ["run", "--data", str(csv), "--spec", str(spec), "--quick", "--folds", "2", "--out", str(out), "--quiet"]
    assert main([*args, *OPTIONS[option], "--baselines", *baselines]) == 0, capsys.readouterr().err
    info = json.loads((out / "run.json").read_text())
    methods = [*info["plan"]["settings"], *info["plan"]["baselines"]]
    assert len(methods) == 2 + len(baselines)
    names = [method_name(m) for m in methods]
    records = [json.loads(p.read_text()) for p in sorted((out / "records").glob("*.json"))]
    assert sorted({r["config"]["setting"] for r in records}) == sorted(methods) and len(records) == 2 * len(methods)

    soup = BeautifulSoup((out / "report.html").read_text(encoding="utf-8"), "html.parser")
    tables = _tables(soup)
    table1 = next(v for k, v in tables.items() if k.startswith("Table 1 on opts"))
    assert [row[0] for row in table1[1:]] == names
    subgroups = next(v for k, v in tables.items() if k.startswith("CF-MSE per subgroup"))
    assert subgroups[0][1:] == names
    every_run = next(v for k, v in tables.items() if k.startswith("One row per fold"))
    runs, fold = set(), None
    for row in every_run[2:]:  # two header rows; a fold's cell spans its methods' rows
        fold = row[0] if len(row) == len(every_run[0]) else fold
        runs.add((fold, row[1] if len(row) == len(every_run[0]) else row[0]))
    assert runs == {(str(f), n) for f in (0, 1) for n in names}
    paired = next((v for k, v in tables.items() if k.startswith("Paired comparison with LTN(acc)")), None)
    assert paired is not None and {row[1] for row in paired[1:]} == set(names) - {"LTN(acc)"}

    first = soup.find("p", class_="recommendation").get_text()
    assert soup.find("h1").find_next("p") is soup.find("p", class_="recommendation")
    words, left_out = _expected_first_line_words(records, methods)
    if words is None:
        assert first.startswith(("No method is more accurate", "Every method collapsed")), first
    else:
        assert words in first, first
        assert all(f"{method_name(m)} is the most accurate" not in first for m in left_out)
        assert first.rstrip(".").endswith(("pays off on every fairness score", "only", "on this data")), first
    # the report says which LTN schedule ran (the quick profile: the fixed epochs, no early stopping)
    assert "the paper's fixed epochs (60 of pre-training" in soup.get_text()


def test_full_profile_runs_stop_early_unless_told_not_to(data) -> None:
    """The own-data full profile gives every LTN config (not the baselines) early stopping;
    ``patience=None`` (``--fixed-epochs``) keeps the paper's schedule, and the quick profile has none."""
    from cffair.workflows import _own as own

    csv, spec, tmp = data
    p, _ = own.plan(
        csv, spec, options=own.RunOptions(settings=["acc", "acc_cf"], baselines=["unaware"], folds=2, out=tmp / "plan")
    )
    cfgs = p.configs()
    assert all(c.option_map == {"patience": own.DEFAULT_PATIENCE} for c in cfgs if c.setting.startswith("ltn_"))
    assert all(not c.options for c in cfgs if c.setting == "unaware")
    fixed, _ = own.plan(
        csv, spec, options=own.RunOptions(settings=["acc"], baselines=[], folds=2, out=tmp / "plan", patience=None)
    )
    quick, _ = own.plan(
        csv, spec, options=own.RunOptions(settings=["acc"], baselines=[], folds=2, out=tmp / "plan", quick=True)
    )
    assert not any(c.options for c in fixed.configs() + quick.configs())


def test_the_estimate_is_the_sum_of_the_measured_stage_costs(data) -> None:
    from cffair.workflows import _own as own
    from cffair.workflows._own_cost import SECONDS_PER_FOLD as S
    from cffair.workflows._own_cost import estimate_seconds

    csv, spec, tmp = data
    p, _ = own.plan(
        csv, spec, options=own.RunOptions(settings=["acc", "acc_cf"], baselines=["cnf"], folds=5, out=tmp / "plan")
    )
    # 1,000 rows, 5 folds: 800 training rows per fold, the rows of the measurement
    by_hand = S["counterfactuals"] + 5 * (S["ltn_pretraining"] + S["ltn_acc"] + S["ltn_acc_cf"] + S["cnf"])
    assert estimate_seconds(p, 1000) == pytest.approx(by_hand)
    assert estimate_seconds(p, 2000) == pytest.approx(2 * by_hand)


def test_run_takes_every_option_of_runoptions_with_the_same_default() -> None:
    """One list of options: run's keywords are RunOptions' fields (same names, same defaults) plus its own three."""
    import dataclasses
    import inspect

    from cffair.workflows import _own as own

    params = inspect.signature(own.run).parameters
    keywords = {n: p.default for n, p in params.items() if p.kind is inspect.Parameter.KEYWORD_ONLY}
    fields = {f.name: f.default for f in dataclasses.fields(own.RunOptions)}
    assert set(keywords) - set(fields) == {"counterfactuals_only", "save_models", "progress"}
    assert {n: keywords[n] for n in fields} == fields


def test_plan_refuses_options_that_are_not_runoptions(tmp_path) -> None:
    from cffair.experiments import ConfigError
    from cffair.workflows import _own as own

    with pytest.raises(ConfigError, match=r"options must be a RunOptions, got dict; e.g. RunOptions\(folds=5\)"):
        own.plan(tmp_path / "x.csv", {"name": "x"}, options={"folds": 5})  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match=r"the third argument is the graph; pass the options by name"):
        own.plan(tmp_path / "x.csv", {"name": "x"}, own.RunOptions(folds=5))  # type: ignore[arg-type]
