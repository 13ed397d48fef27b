"""cffair.reporting.reproduction: the Reproducing page's tables and quoted numbers."""

from __future__ import annotations

import json

import pytest

from cffair import reporting
from cffair.errors import DataError

PROVENANCE = {"commit": "0123456789abcdef", "dirty": False, "finished": "2026-01-01T00:00:00Z", "machine": {"cpus": 2},
              "stage_seconds": {"counterfactuals": 30.0, "experiments": 7200.0, "notebooks": 45.0}}
FULL_RUN = {"commit": "fedcba9876543210", "records": 260, "records_wanted": 264, "wall_seconds": 7260.0, "target_seconds": 7200,
            "target_met": False, "machine": {"cpus": 2}, "core_seconds_total": 14400.0,
            "core_seconds": {"adult": {"GAN": 10.4, "LTN": 5.0}, "compas": {"GAN": 1.0, "LTN": 0.6}},
            "quick": {"wall_seconds": 90.0, "target_seconds": 600}}
LTN = {"rows": 36000, "features": 101, "ratio_acc_to_bound": 1.01, "ratio_acc_cf_to_bound": 1.11, "target_ratio": 1.5,
       "seconds_per_epoch": {"acc": 0.115, "acc_cf": 0.305}}


def test_load_provenance_and_benchmarks(tmp_path):
    assert reporting.load_provenance(tmp_path) is None
    (tmp_path / "provenance.json").write_text(json.dumps(PROVENANCE))
    assert reporting.load_provenance(tmp_path) == PROVENANCE
    (tmp_path / "ltn.json").write_text(json.dumps(LTN))
    (tmp_path / "full_run.json").write_text(json.dumps(FULL_RUN))
    assert set(reporting.load_benchmarks(tmp_path)) == {"ltn", "full_run", "provenance"}
    (tmp_path / "broken.json").write_text('{"a": 1,\n "b": }')
    with pytest.raises(DataError, match=r"broken\.json is not valid JSON \(line 2, column 7\)"):
        reporting.load_benchmarks(tmp_path)


def test_stage_seconds_frame_in_minutes():
    frame = reporting.stage_seconds_frame(PROVENANCE)
    assert frame.loc["experiments"].tolist() == [7200.0, 120.0]
    assert frame.loc["notebooks", "minutes"] == 0.8  # 45 s, one decimal


def test_provenance_notes_only_when_there_is_something_to_say():
    assert reporting.provenance_notes(PROVENANCE) == ""
    dirty = reporting.provenance_notes({**PROVENANCE, "dirty": True})
    assert dirty.startswith("The provenance says *dirty*")
    partial = reporting.provenance_notes({**PROVENANCE, "complete": False, "note": "Stopped at 2 h.",
                                          "records_per_fold": {"0": 55, "1": 33}})
    assert "**The committed run is incomplete.** Stopped at 2 h." in partial and "fold 0: 55, fold 1: 33" in partial


def test_core_seconds_frame_adds_totals():
    cs = reporting.core_seconds_frame(FULL_RUN)
    assert cs.loc["adult"].tolist() == [10, 5, 15]  # 10.4 rounds to 10; total 15.4 → 15
    assert cs.loc["total"].tolist() == [11, 6, 17]  # 11.4, 5.6, 17.0
    assert list(cs.columns) == ["GAN", "LTN", "total"]


def test_flow_ltn_and_baseline_frames():
    cf = {"datasets": {"adult": {"fit_seconds": 64.9, "config": {"x": 1}, "immutable_interventions": [1, 2],
                                 "husband_sex_flip": {"flow": {"Wife": 0.9, "Husband": 0.1}, "women": {"Wife": 0.5}}},
                       "compas_age": {"same_as": "compas"}}}
    flows = reporting.flow_benchmark_frame(cf)
    assert flows.loc["adult", "fit_seconds"] == 64.9 and "config" not in flows.columns
    assert flows.loc["compas_age", "same_as"] == "compas"
    flip = reporting.husband_flip_frame(cf)
    assert flip.loc["Husband", "women"] == 0 and flip.loc["Wife", "flow"] == 0.9
    assert reporting.husband_flip_frame({"datasets": {}}).empty
    assert reporting.ltn_seconds_frame(LTN)["seconds per epoch"].tolist() == [0.115, 0.305]
    base = {"totals": {"gan": {"s_per_fold": {"adult": 100.4, "compas": 9.6}}, "dcevae": {"s_per_fold": {"adult": 50.0, "compas": 5.0}}}}
    frame = reporting.baseline_seconds_frame(base)
    assert frame.loc["gan"].tolist() == [100.0, 10.0] and list(frame.index) == ["gan", "dcevae"]


def test_reproduction_facts():
    facts = reporting.reproduction_facts(PROVENANCE, {"ltn": LTN, "full_run": FULL_RUN})
    assert facts["run_commit"] == "0123456789" and facts["run_cpus"] == 2
    assert facts["ltn_rows"] == "36,000" and facts["ltn_ratio_acc_cf"] == 1.11
    assert facts["full_minutes"] == pytest.approx(121.0) and facts["full_verdict"] == "over"
    assert facts["full_target_hours"] == 2.0 and facts["full_core_hours"] == 4.0
    assert facts["quick_minutes"] == 1.5 and facts["quick_target_minutes"] == 10.0
    # a missing input leaves its facts out (a page quoting them then fails to build)
    assert reporting.reproduction_facts(None, {}) == {}
