"""The ``beyond`` group end to end: its configs in the grid, its runner on a quick COMPAS fold, and
what its records' fingerprints cover."""

from __future__ import annotations

import numpy as np
import pytest

from cffair.experiments import ExperimentConfig, ResultsStore
from cffair.experiments._config import BEYOND_FOLDS, BEYOND_SETTINGS, ConfigError

pytestmark = pytest.mark.slow


def test_the_setting_and_its_runner() -> None:
    from cffair._support.moves import MOVES

    _CURRENT = {old: new for new, old in MOVES.items()}
    from cffair.experiments._pipeline.keys import RUNNERS, code

    cfg = ExperimentConfig("compas", 0, "beyond", profile="quick")
    assert cfg.method == "beyond" and cfg.key == "quick/compas/beyond/fold0"
    assert RUNNERS["beyond"] == "cffair.experiments._pipeline.beyond" and BEYOND_SETTINGS == ("beyond",)
    covered = {_CURRENT.get(m, m) for m in code("beyond")}  # a record keys a moved module by its ledger name
    assert {
        "cffair.experiments._pipeline.beyond",
        "cffair.evaluation._recourse",
        "cffair.logic._notions",
        "cffair.logic._adaptive",
        "cffair.logic._intersectional",
        "cffair.learners._training",
        "cffair.logic._axioms",
    } <= covered
    assert "cffair.experiments._pipeline.ltn" not in covered
    assert not {m for m in covered if m.startswith("cffair.reporting")}  # its figures and tables change no number
    assert set(BEYOND_FOLDS) == {"adult", "compas"}
    with pytest.raises(ConfigError, match="unknown setting 'beyondd'"):
        ExperimentConfig("compas", 0, "beyondd")


@pytest.fixture(scope="module")
def record(tmp_path_factory) -> dict:
    from cffair.workflows._reproduce import run_grid

    store = ResultsStore(tmp_path_factory.mktemp("beyond"))
    cfg = ExperimentConfig("compas", 0, "beyond", profile="quick")
    run_grid([cfg], store, jobs=1, backend="sequential", progress=False)
    rec = store.get(cfg)
    assert rec is not None
    return rec


def test_every_variant_is_scored_on_every_measure(record) -> None:
    from cffair.experiments._pipeline.beyond import VARIANTS

    b = record["beyond"]
    assert sorted(b["variants"]) == sorted(VARIANTS)  # the stored record (keys sorted), as the book reads it
    assert b["intersections"]["attributes"] == ["race", "age"]
    n_test = record["n_test"]
    assert sum(b["intersections"]["test_rows"].values()) == n_test
    for name, v in b["variants"].items():
        assert 0.5 < v["metrics"]["accuracy"] <= 1.0, name
        for k in ("dp_gap", "eo_gap", "tpr_gap", "fpr_gap", "lip_violation"):
            assert 0.0 <= v["notions"][k] <= 1.0, (name, k)
        assert set(v["intersections"]) == {"race", "age", "joint"}
        # every intersection with a joint twin is in the table
        assert set(v["intersections"]["joint"]) == set(b["intersections"]["test_pairs"]["joint"])
    # the record's own metrics are those of the paper's setting
    assert record["metrics"]["cf_mse"] == pytest.approx(b["variants"]["acc_cf"]["metrics"]["cf_mse"])
    # the fairness axiom lowers CF-MSE from the pre-trained model's
    assert b["variants"]["acc_cf"]["metrics"]["cf_mse"] < b["variants"]["acc"]["metrics"]["cf_mse"]
    assert record["timings"]["cpu"] > 0


def test_recourse_and_schedules_are_recorded(record) -> None:
    b = record["beyond"]
    rec = b["recourse"]
    assert 0 < rec["people"] <= rec["eligible"]
    assert rec["actions"] == ["priors-count", "juv-fel-count", "juv-misd-count", "juv-other-count", "c-charge-degree"]
    for name, m in rec["models"].items():
        assert 0.0 <= m["recourse_rate"] <= 1.0 and 0.0 <= m["query"] <= 1.0, name
        by = m["by"]["race"]
        assert sum(v["n_negative"] for v in by.values()) == m["n_negative"]
        for ex in m["examples"]:
            assert not any(f in ex["action"] for f in ("race:", "age:", "sex:"))
    hist = b["adaptive"]["adaptive_sg"]["history"]
    names = [k for k in hist[-1] if k != "epoch"]
    assert len(names) == 8 and np.sum([hist[-1][n] for n in names]) == pytest.approx(8.0)
    budget = b["adaptive"]["adaptive_budget"]
    assert budget["budget"] == pytest.approx(0.15 * budget["pretrained_train_cf_mse"])
