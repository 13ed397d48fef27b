"""cffair.experiments._cluster: SLURM worker settings are checked before anything is submitted, and the job
script that dask-jobqueue would submit says what the settings say (no SLURM needed)."""

from __future__ import annotations

import sys

import pytest
import yaml

from cffair.experiments._cluster import ClusterError, SlurmConfig, slurm_cluster


def test_job_script_carries_every_setting(tmp_path) -> None:
    path = tmp_path / "slurm.yaml"
    path.write_text(
        yaml.safe_dump(
            {
                "queue": "cpu",
                "account": "lab",
                "walltime": "01:30:00",
                "memory": "6GB",
                "job_extra_directives": ["--exclusive"],
            }
        )
    )
    cfg = SlurmConfig.load(path, walltime="03:00:00")  # an option overrides the file
    cluster = slurm_cluster(cfg, scheduler_host="127.0.0.1")
    try:
        script = cluster.job_script()
    finally:
        cluster.close()
    lines = script.splitlines()
    for directive in (
        "#SBATCH -p cpu",
        "#SBATCH -A lab",
        "#SBATCH -t 03:00:00",
        "#SBATCH --mem=6G",
        "#SBATCH --exclusive",
        "#SBATCH --cpus-per-task=1",
    ):
        assert directive in lines, f"{directive!r} missing from\n{script}"
    assert "export OMP_NUM_THREADS=1 MKL_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1" in lines
    worker = next(line for line in lines if "distributed.cli.dask_worker" in line)
    assert worker.startswith(sys.executable) and "tcp://127.0.0.1:" in worker and "--nthreads 1" in worker


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({"walltime": "2h"}, "is not [D-]HH:MM[:SS]"),
        ({"memory": "lots"}, "is not a size"),
        ({"cores": 0}, "cores must be a whole number"),
        ({"queues": "cpu"}, "unknown key(s) ['queues']"),
        ({"job_extra_directives": "--exclusive"}, "must be a list"),
    ],
)
def test_bad_settings_are_refused_with_the_fix(settings, message) -> None:
    with pytest.raises(ClusterError) as err:
        SlurmConfig.from_mapping(settings)
    assert message in str(err.value)


def test_a_missing_settings_file_is_named(tmp_path) -> None:
    with pytest.raises(ClusterError, match="no such file"):
        SlurmConfig.load(tmp_path / "nope.yaml")
