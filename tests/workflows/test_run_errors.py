"""A run's own mistakes (issue #39): typed errors, raised before any work, one line from the command line.

* :func:`cffair.workflows._reproduce.run_grid` checks ``jobs`` (:class:`ParameterError`), the backend,
  ``$CFFAIR_BACKEND`` included (:class:`ConfigError`), a cluster with a local backend
  (:class:`OptionError`) and the ``dask`` extra (:class:`RunError`) before it reads or moves a record;
  ``reproduce`` checks them before it fits a flow.
* :class:`RunError` is a :class:`RuntimeError` as well as a :class:`CffairError`, so ``cffair reproduce``
  prints it as one line and exits with status 2, although the CLI does not catch a plain ``RuntimeError``.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from cffair.cli import main
from cffair.errors import CffairError, ConfigError, OptionError, ParameterError, RunError
from cffair.experiments import ResultsStore
from cffair.workflows._reproduce import run_grid


def _boom(*args: Any, **kwargs: Any) -> Any:
    raise AssertionError("work started despite a bad option")


@pytest.fixture
def store_with_corrupt_record(tmp_path: Path) -> tuple[ResultsStore, Path]:
    """A store holding one corrupt record, which the first step of a grid's work moves aside."""
    store = ResultsStore(tmp_path / "results")
    bad = store.root / "records" / "compas__broken.json"
    bad.write_text("{not json", encoding="utf-8")
    return store, bad


def _no_dask(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make ``import dask.distributed`` fail, as it does without the ``cluster`` extra."""
    monkeypatch.setitem(sys.modules, "dask.distributed", None)


def test_an_unknown_backend_in_the_environment_is_a_config_error_before_any_record_moves(
    store_with_corrupt_record: tuple[ResultsStore, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    store, bad = store_with_corrupt_record
    monkeypatch.setenv("CFFAIR_BACKEND", "lokky")
    with pytest.raises(ConfigError, match=r"unknown backend 'lokky' \(the backend option or \$CFFAIR_BACKEND\)"):
        run_grid([], store, progress=False)
    assert bad.exists(), "the corrupt record was quarantined before the backend was checked"
    assert not store.quarantine_dir.exists()


def test_jobs_below_one_is_a_parameter_error(store_with_corrupt_record: tuple[ResultsStore, Path]) -> None:
    store, bad = store_with_corrupt_record
    with pytest.raises(ParameterError, match=r"jobs \(worker processes\) must be at least 1, got 0"):
        run_grid([], store, jobs=0, progress=False)
    assert bad.exists()


def test_a_cluster_with_a_local_backend_is_an_option_error(
    store_with_corrupt_record: tuple[ResultsStore, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    store, bad = store_with_corrupt_record
    monkeypatch.delenv("CFFAIR_BACKEND", raising=False)
    with pytest.raises(OptionError, match="a SLURM cluster runs through the dask backend, not 'loky'"):
        run_grid([], store, backend="loky", cluster=object(), progress=False)
    assert bad.exists()


def test_dask_without_its_extra_is_a_run_error_and_a_runtime_error(
    store_with_corrupt_record: tuple[ResultsStore, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    store, bad = store_with_corrupt_record
    _no_dask(monkeypatch)
    with pytest.raises(RunError, match=r"needs the optional extra cluster.*pip install 'cffair\[cluster\]'") as caught:
        run_grid([], store, backend="dask", progress=False)
    assert isinstance(caught.value, RuntimeError) and isinstance(caught.value, CffairError)
    assert bad.exists()


@pytest.fixture
def reproduce_does_no_work(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Fail the test if ``reproduce`` starts on its grid or its flows; keep its folders in ``tmp_path``."""
    monkeypatch.setattr("cffair.workflows._reproduce.paper_grid", _boom)
    monkeypatch.setattr("cffair.experiments._pipeline.prepare_inputs", _boom)
    monkeypatch.setenv("CFFAIR_RESULTS", str(tmp_path / "results"))
    monkeypatch.setenv("CFFAIR_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv("CFFAIR_DEBUG", raising=False)


def _one_line_error(code: int, capsys: pytest.CaptureFixture[str]) -> str:
    out, err = capsys.readouterr()
    assert code == 2
    assert out == "" and "Traceback" not in err
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("cffair: error: "), err
    return lines[0]


def test_cli_reproduce_with_dask_missing_prints_one_line_and_exits_2(
    reproduce_does_no_work: None, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _no_dask(monkeypatch)
    line = _one_line_error(main(["reproduce", "--mode", "quick", "--backend", "dask", "--no-notebooks"]), capsys)
    assert "backend 'dask' needs the optional extra cluster" in line
    assert "pip install 'cffair[cluster]'" in line


def test_cli_reproduce_with_a_bad_backend_in_the_environment_prints_one_line_and_exits_2(
    reproduce_does_no_work: None, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("CFFAIR_BACKEND", "threads")
    line = _one_line_error(main(["reproduce", "--mode", "quick", "--no-notebooks"]), capsys)
    assert "unknown backend 'threads'" in line and "$CFFAIR_BACKEND" in line and "threading" in line
