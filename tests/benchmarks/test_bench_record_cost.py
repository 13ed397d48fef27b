"""bench_record_cost's stage shares: known answers on a profile of functions of known cost."""

from __future__ import annotations

import cProfile
import importlib.util
import json
import pstats
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("bench_record_cost", ROOT / "benchmarks" / "bench_record_cost.py")
assert _spec is not None and _spec.loader is not None
bench = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bench)


def _busy(seconds: float) -> None:
    end = time.process_time() + seconds
    while time.process_time() < end:
        pass


def _inner() -> None:
    _busy(0.05)


def _outer() -> None:
    _busy(0.05)
    _inner()


def test_stage_shares_are_cumulative_shares_of_the_profiled_total() -> None:
    profile = cProfile.Profile()
    start = time.perf_counter()
    profile.enable()
    _outer()
    _busy(0.1)
    profile.disable()
    total = time.perf_counter() - start
    here = Path(__file__).as_posix().split("/tests/")[-1]
    shares = bench.stage_shares(pstats.Stats(profile), {"outer": (here, "_outer"), "inner": (here, "_inner")}, total)
    # _outer holds _inner: its share is cumulative, about twice the inner's, and the two leave the last 0.1 s out
    assert 0.35 < shares["outer"] < 0.6 and 0.15 < shares["inner"] < 0.3
    assert shares["outer"] == pytest.approx(2 * shares["inner"], rel=0.5)
    with pytest.raises(LookupError, match="never ran; update STAGES"):
        bench.stage_shares(pstats.Stats(profile), {"gone": (here, "_renamed")}, total)


def test_reference_timings_read_the_paper_twins_seed0_record(tmp_path: Path) -> None:
    (tmp_path / "records").mkdir()
    record = {"config": {}, "timings": {"pretrain": 6.5, "setting": 3.4, "total": 9.9}}
    (tmp_path / "records" / "full__compas__ltn_acc_cf__fold0.json").write_text(json.dumps(record))
    assert bench.reference_timings(tmp_path, "compas", "ltn_acc_cf", 0) == record["timings"]
    assert bench.reference_timings(tmp_path, "compas", "ltn_acc_cf", 1) is None
