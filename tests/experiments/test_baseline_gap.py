"""The baseline gap study (issue #44 item 6): a baseline moved towards the paper's setting step by step.

* :func:`gap_table` on hand-made rows with a known answer: ours 0.01, the paper 0.1, a step
  reaching 10^-1.5 ≈ 0.0316 closes half the log gap; a step that changes nothing closes 0 %.
* :func:`run_gap_study` on a small synthetic fold: its first step is the grid runner's own model
  (the same CF-MSE as :func:`cffair.experiments._pipeline.cnf.run`), its steps are cumulative, a
  step without changes reuses the model (and closes 0 %), a ruler step reads the evaluation's ruler.
* the degenerate-model screen: every row carries the screen's metrics and verdict; a step whose
  models collapse gets no share, the next step's share is measured from the last working step,
  and a collapsed starting point is refused.
* the runner writes a file whose rows, steps and provenance read back; a second run on another
  dataset keeps the first one's studies; ``--out`` refuses the folders a results store owns, the
  other profile's store and a file of another profile.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from cffair import cli
from cffair.causal import _synthetic as synthetic
from cffair.causal._cfset import CounterfactualSet
from cffair.errors import ConfigError, DataError
from cffair.experiments import ExperimentConfig
from cffair.experiments import _baseline_gap as baseline_gap
from cffair.experiments._baseline_gap import GapStep, default_steps, gap_table, run_gap_study
from cffair.experiments._pipeline.fold import FoldData


def _row(step: str, index: int, cf_mse: float, fold: int = 0, accuracy: float = 0.7) -> dict:
    return {
        "step": step,
        "index": index,
        "factor": step,
        "ruler": "paper",
        "fold": fold,
        "cf_mse": cf_mse,
        "accuracy": accuracy,
        "cpu_s": 1.0,
    }


# ---------------------------------------------------------------------------- gap_table: known answers
def test_a_step_at_the_geometric_midpoint_closes_half_the_log_gap():
    rows = [_row("ours", 0, 0.01), _row("half", 1, 10**-1.5), _row("paper", 2, 0.1)]
    t = gap_table(rows, paper=0.1)
    assert t["step"].tolist() == ["ours", "half", "paper"]
    assert t["share_closed"].tolist() == pytest.approx([0.0, 0.5, 0.5])
    assert t["cumulative_share"].tolist() == pytest.approx([0.0, 0.5, 1.0])
    assert t.loc[1, "cf_mse"] == pytest.approx(0.0316, abs=1e-4)


def test_a_step_that_changes_nothing_closes_nothing_and_one_that_moves_away_widens_the_gap():
    rows = [_row("ours", 0, 0.01), _row("same", 1, 0.01), _row("away", 2, 0.001)]
    t = gap_table(rows, paper=0.1)
    assert t["share_closed"].tolist() == pytest.approx([0.0, 0.0, -1.0])


def test_the_table_averages_folds_with_their_sd_and_sums_cpu():
    rows = [_row("ours", 0, 0.01, fold=0, accuracy=0.6), _row("ours", 0, 0.03, fold=1, accuracy=0.8)]
    rows += [_row("next", 1, 0.02, fold=0), _row("next", 1, 0.02, fold=1)]
    t = gap_table(rows, paper=0.2)
    assert t.loc[0, "cf_mse"] == pytest.approx(0.02)
    assert t.loc[0, "cf_mse_sd"] == pytest.approx(np.std([0.01, 0.03], ddof=1))
    assert t.loc[0, "accuracy"] == pytest.approx(0.7)
    assert t["folds"].tolist() == [2, 2]
    assert t.loc[0, "cpu_s"] == pytest.approx(2.0)
    assert t.loc[1, "share_closed"] == pytest.approx(0.0)


def test_gap_table_refuses_a_log_of_zero_and_a_missing_gap():
    with pytest.raises(DataError, match="positive"):
        gap_table([_row("ours", 0, 0.0)], paper=0.1)
    with pytest.raises(DataError, match="no gap"):
        gap_table([_row("ours", 0, 0.1)], paper=0.1)
    with pytest.raises(DataError, match="no rows"):
        gap_table([], paper=0.1)


WORKING = {"accuracy": 0.7, "prediction_sd": 0.2, "positive_rate": 0.4, "majority_rate": 0.55}
CONSTANT = {"accuracy": 0.45, "prediction_sd": 0.0, "positive_rate": 1.0, "majority_rate": 0.55}


def test_a_collapsed_step_gets_no_share_and_the_next_is_measured_from_the_last_working_step():
    rows = [_row("ours", 0, 0.01), _row("broken", 1, 0.001), _row("half", 2, 10**-1.5)]
    for r, screen in zip(rows, (WORKING, CONSTANT, WORKING), strict=True):
        r["screen"] = screen
    t = gap_table(rows, paper=0.1)
    assert t["screened"].all()
    assert t["collapsed"].tolist()[0] == t["collapsed"].tolist()[2] == ""
    assert t["collapsed"].tolist()[1].startswith("on fold 0 its outputs are constant")
    assert math.isnan(t.loc[1, "share_closed"]) and math.isnan(t.loc[1, "cumulative_share"])
    assert t.loc[2, "share_closed"] == pytest.approx(0.5)  # from ours, not from the broken 0.001
    assert t.loc[2, "cumulative_share"] == pytest.approx(0.5)


def test_a_step_is_collapsed_when_its_mean_accuracy_is_no_better_than_the_majority_class():
    low = {**WORKING, "accuracy": 0.54}
    rows = [_row("ours", 0, 0.01, fold=k) for k in (0, 1)] + [_row("low", 1, 0.02, fold=k) for k in (0, 1)]
    for r, screen in zip(rows, (WORKING, WORKING, low, {**low, "accuracy": 0.58}), strict=True):
        r["screen"] = screen
    t = gap_table(rows, paper=0.1)
    assert t["collapsed"].tolist()[1] == ""  # one fold below the majority rate, the mean 0.56 above it: noise
    rows[3]["screen"] = {**low, "accuracy": 0.55}
    t = gap_table(rows, paper=0.1)
    assert "mean accuracy 0.545 over 2 folds is at or below the mean majority-class rate 0.550" in t["collapsed"][1]


def test_rows_without_the_screen_read_as_unscreened_and_a_collapsed_start_is_refused():
    t = gap_table([_row("ours", 0, 0.01), _row("next", 1, 0.02)], paper=0.1)
    assert not t["screened"].any() and (t["collapsed"] == "").all()
    broken = _row("ours", 0, 0.01)
    broken["screen"] = CONSTANT
    with pytest.raises(DataError, match="starting step's models collapsed"):
        gap_table([broken, _row("next", 1, 0.02)], paper=0.1)


# ---------------------------------------------------------------------------- the study on a small synthetic fold
@pytest.fixture(scope="module")
def fold() -> FoldData:
    """A quick-profile fold of a synthetic SCM with its exact twins and an ``independent`` ruler
    (the exact twins' numeric columns moved a little, so it measures other numbers)."""
    data = synthetic.load("adult_like", n=600, seed=0)
    frame, spec = data.frame, data.spec
    exact = CounterfactualSet.from_frames(frame, data.sensitive_twins, spec, spec.sensitive)
    moved = exact.frame.copy()
    numeric = [c for c in spec.features if c != spec.sensitive and moved[c].dtype.kind == "f"]
    assert numeric
    moved[numeric] = moved[numeric] + np.random.default_rng(3).normal(0, 0.5, size=(len(moved), len(numeric)))
    other = CounterfactualSet(moved, exact.meta)
    cfg = ExperimentConfig("compas", 0, "cnf", profile="quick")
    rng = np.random.default_rng(0)
    train = np.sort(rng.permutation(len(frame))[:400])
    test = np.setdiff1d(np.arange(len(frame)), train)
    return FoldData(cfg, frame, spec, train, test, exact, {"paper": exact, "independent": other})


STEPS = [
    GapStep("start", "start", "paper"),
    GapStep("ruler", "ruler", "independent"),
    GapStep("lr", "learning rate", None, {"lr": 0.1}),
    GapStep("nothing", "none"),
]


def test_the_study_starts_from_the_grid_runner_and_moves_cumulatively(fold):
    from cffair.experiments._pipeline import cnf

    rows = run_gap_study("compas", "cnf", [0], STEPS, profile="quick", fold_data=lambda k: fold)
    grid_metrics, _, _ = cnf.run(fold.config, fold)
    assert rows[0]["cf_mse"] == pytest.approx(grid_metrics["cf_mse"], rel=1e-6)  # the grid's own model
    assert rows[0]["accuracy"] == pytest.approx(grid_metrics["accuracy"])
    # the ruler step reuses the model and reads the independent ruler of the same evaluation
    assert rows[1]["reused"] and rows[1]["ruler"] == "independent"
    assert rows[1]["cf_mse"] == rows[1]["cf_mse_rulers"]["independent"] != rows[0]["cf_mse"]
    assert rows[1]["accuracy"] == rows[0]["accuracy"]
    # the learning-rate step retrains, keeps the ruler; the last step keeps the change and the model
    assert not rows[2]["reused"] and rows[2]["ruler"] == "independent" and rows[2]["changes"] == {"lr": 0.1}
    assert rows[2]["cf_mse"] != rows[1]["cf_mse"]
    assert rows[3]["reused"] and rows[3]["changes"] == {"lr": 0.1} and rows[3]["cf_mse"] == rows[2]["cf_mse"]
    # every row carries the screen's metrics, as the grid runner's evaluation gave them, and its verdict
    assert rows[0]["screen"]["prediction_sd"] == pytest.approx(grid_metrics["prediction_sd"])
    assert rows[0]["screen"]["majority_rate"] == pytest.approx(grid_metrics["majority_rate"])
    from cffair.scores._screen import screen_metrics

    assert [r["collapsed"] for r in rows] == [screen_metrics(r["screen"]).kind for r in rows]
    t = gap_table(rows, paper=10 * rows[0]["cf_mse"])
    assert t.loc[3, "share_closed"] == 0.0
    assert t.loc[3, "cumulative_share"] == pytest.approx(math.log(rows[3]["cf_mse"] / rows[0]["cf_mse"]) / math.log(10))


def test_a_step_that_changes_a_field_the_config_has_not_is_refused(fold):
    bad = [GapStep("start", "start"), GapStep("typo", "x", None, {"learning_rate": 0.1})]
    with pytest.raises(ConfigError, match="learning_rate"):
        run_gap_study("compas", "cnf", [0], bad, profile="quick", fold_data=lambda k: fold)
    with pytest.raises(ConfigError, match="unknown baseline"):
        run_gap_study("compas", "ltn", [0], STEPS, fold_data=lambda k: fold)


def test_default_steps_move_only_existing_config_fields():
    from cffair.baselines import DCEVAEConfig, GANConfig, MLPConfig

    for baseline, config in (("gan", GANConfig()), ("dcevae", DCEVAEConfig()), ("cnf", MLPConfig())):
        changes: dict = {}
        for step in default_steps(baseline):
            changes.update(step.changes)
        baseline_gap._with_changes(config, changes)  # raises on a field the config has not
    gan = default_steps("gan")
    assert [s.factor for s in gan] == ["start", "ruler", "release", "training length", "training length"]
    released = baseline_gap._with_changes(GANConfig(), gan[2].changes)
    assert released.leak_adversary_grad and released.encoder_sees_counterfactual
    assert baseline_gap._with_changes(DCEVAEConfig(), {"mlp.lr": 0.1}).mlp.lr == 0.1


def test_the_runner_writes_a_file_that_reads_back(fold, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(baseline_gap, "grid_fold", lambda dataset, k, profile: fold)
    out = tmp_path / "studies" / "gap.json"
    assert baseline_gap.write_study(out, "compas", ["cnf"], [0], profile="quick") == out
    data = json.loads(out.read_text())
    study = data["studies"]["compas/cnf"]
    assert [s["name"] for s in study["steps"]] == [s.name for s in default_steps("cnf")]
    assert len(study["rows"]) == len(default_steps("cnf"))
    assert "paper_cf_mse" not in study  # the paper's numbers are reference data the book reads beside it
    assert "the MLP's loss" in study["left_out"]
    prov = data["provenance"]
    assert prov["code_version"] and "cffair.baselines._augmented" in prov["modules"]
    assert all(r["cpu_s"] >= 0 for r in study["rows"])
    t = gap_table(study["rows"], 0.072)  # the table from the file (Table 1, COMPAS, CNF)
    assert t["step"].tolist() == [s.name for s in default_steps("cnf")]
    assert not list(out.parent.glob("*.tmp*"))  # written atomically: no partial file left
    assert list(data["studies"]) == ["compas/cnf"] and study["baseline"] == "cnf"
    assert study["provenance"] == prov and t["screened"].all()
    # another dataset's run keeps this one's study
    baseline_gap.write_study(out, "lawschool", ["cnf"], [0], profile="quick")
    both = json.loads(out.read_text())["studies"]
    assert list(both) == ["compas/cnf", "lawschool/cnf"]
    assert both["compas/cnf"]["rows"] == study["rows"] and both["lawschool/cnf"]["dataset"] == "lawschool"


def test_a_file_written_before_studies_named_their_dataset_is_read_and_kept(tmp_path: Path):
    out = tmp_path / "gap.json"
    old = {"profile": "quick", "provenance": {"commit": "abc"},
           "studies": {"gan": {"dataset": "compas", "paper_cf_mse": 0.1, "rows": [_row("ours", 0, 0.01)]}}}  # fmt: skip
    out.write_text(json.dumps(old))
    studies = baseline_gap._read_existing(out, "quick")
    assert list(studies) == ["compas/gan"]
    assert studies["compas/gan"]["baseline"] == "gan" and studies["compas/gan"]["provenance"] == {"commit": "abc"}
    with pytest.raises(ConfigError, match="holds a quick study and this run is full"):
        baseline_gap._read_existing(out, "full")


@pytest.mark.parametrize(
    "where, message",
    [
        ("quick/records/gap.json", "which the results store's pipeline owns"),
        ("quick/inputs/gap.json", "which the results store's pipeline owns"),
        ("quick/provenance.json", "the provenance file of the results store"),
        ("full/studies/gap.json", "it lies in the full results store and this study is quick"),
        ("quick/studies/gap.txt", "give a .json file"),
        ("quick/studies/bad.json", "is not a study file this runner wrote"),
    ],
)
def test_the_runner_refuses_an_out_it_must_not_write_before_any_work(
    tmp_path: Path, capsys, monkeypatch, where, message
):
    for mode in ("quick", "full"):
        (tmp_path / mode / "records").mkdir(parents=True)
        (tmp_path / mode / "provenance.json").write_text("{}")
    (tmp_path / "quick" / "studies").mkdir()
    (tmp_path / "quick" / "studies" / "bad.json").write_text("not json")
    monkeypatch.setattr(baseline_gap, "run_gap_study", lambda *a, **k: pytest.fail("trained before checking --out"))
    argv = ["study", "baseline-gap", "--baseline", "cnf", "--profile", "quick", "--out", str(tmp_path / where)]
    assert cli.main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("cffair: error: ") and message in err and err.count("\n") == 1
    assert (tmp_path / "quick" / "provenance.json").read_text() == "{}"


def test_the_runner_writes_after_every_fold_and_a_rerun_resumes(fold, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """An interrupted run keeps the folds it finished; a rerun with the same code and steps computes only the
    others (and a change of steps starts again)."""
    monkeypatch.setattr(baseline_gap, "grid_fold", lambda dataset, k, profile: fold)
    out = tmp_path / "gap.json"
    real, calls = baseline_gap.run_gap_study, []

    def interrupted(dataset, baseline, folds, *a, **k):
        calls.append(list(folds))
        if folds == [1]:
            raise KeyboardInterrupt  # the session ends during fold 1
        return real(dataset, baseline, folds, *a, **k)

    monkeypatch.setattr(baseline_gap, "run_gap_study", interrupted)
    argv = ["study", "baseline-gap", "--baseline", "cnf", "--folds", "0", "1", "--profile", "quick", "--out", str(out)]
    assert cli.main(argv) == 130  # interrupted
    first = json.loads(out.read_text())["studies"]["compas/cnf"]
    assert first["folds"] == [0] and {r["fold"] for r in first["rows"]} == {0}  # fold 0 kept on disk
    monkeypatch.setattr(baseline_gap, "run_gap_study", lambda d, b, folds, *a, **k: calls.append(list(folds)) or [
        {**r, "fold": folds[0]} for r in first["rows"]])  # fmt: skip
    calls.clear()
    assert cli.main(argv) == 0
    assert calls == [[1]]  # fold 0 resumed from the file, only fold 1 computed
    study = json.loads(out.read_text())["studies"]["compas/cnf"]
    assert study["folds"] == [0, 1] and study["rows"][: len(first["rows"])] == first["rows"]
    assert study["cpu_s"] == pytest.approx(sum(r["cpu_s"] for r in study["rows"]), abs=0.1)
    # other steps (another code version would do the same) start again
    monkeypatch.setattr(baseline_gap, "default_steps", lambda b: [GapStep("start", "start", "paper")])
    calls.clear()
    assert cli.main(argv) == 0 and calls == [[0], [1]]
