"""Running the grid on a cluster: a Dask scheduler whose workers are SLURM jobs (dask-jobqueue).

``cffair reproduce --backend dask`` runs the experiment tasks through joblib's Dask backend
(:mod:`cffair.workflows._reproduce`). Where the workers come from:

* ``$CFFAIR_DASK_SCHEDULER`` set (``tcp://host:8786``): a scheduler someone started;
* ``--cluster slurm``: a :class:`dask_jobqueue.SLURMCluster` started here, which submits one
  SLURM job per worker (``sbatch``) and shuts them down at the end; its settings come from a
  YAML file (``--cluster-config slurm.yaml``) and/or options (``--queue``, ``--account``,
  ``--walltime``, ``--memory``), checked before anything is submitted (:class:`SlurmConfig`);
* otherwise: a local cluster of ``--jobs`` processes.

Each worker runs one task at a time with one torch thread (``cores: 1``, ``processes: 1``), as
the local backend does, so records are identical whichever backend computed them.

The YAML file holds :class:`SlurmConfig`'s fields::

    queue: cpu            # SLURM partition (-p)
    account: mylab        # -A (optional)
    walltime: "02:00:00"  # per worker job; the longest task in full mode needs about 45 min
    memory: 8GB           # per worker (Adult's tasks peak at about 1.5 GB)
    cores: 1
    job_extra_directives: ["--exclusive"]
    interface: null       # network interface the scheduler listens on (e.g. ib0); null: the default
    scheduler_host: null  # or the address the scheduler binds to
    local_directory: null # worker scratch folder

Needs the optional extra: ``pip install 'cffair[slurm]'``.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cffair.errors import ClusterError

__all__ = ["CLUSTERS", "SlurmConfig", "slurm_cluster"]

FINGERPRINT_EXEMPT = True  # where tasks run changes no number

#: Cluster kinds ``--cluster`` accepts.
CLUSTERS: tuple[str, ...] = ("local", "slurm")

_WALLTIME = re.compile(r"^(\d+-)?\d{1,3}:\d{2}(:\d{2})?$")
_MEMORY = re.compile(r"^\d+(\.\d+)?\s*(B|KB|MB|GB|TB|KiB|MiB|GiB|TiB)$", re.I)


@dataclass(frozen=True)
class SlurmConfig:
    """Settings of the SLURM workers (see the module docstring for the YAML form).

    Attributes:
        queue: the partition (``sbatch -p``); None: the cluster's default.
        account: the account to charge (``-A``); None: none given.
        walltime: per worker job, ``[D-]HH:MM[:SS]``.
        memory: per worker job, e.g. ``8GB``.
        cores: CPU cores per worker job: that many tasks run in it at once, one torch thread each.
        job_extra_directives: extra ``#SBATCH`` lines, e.g. ``["--exclusive"]``.
        interface: the network interface the scheduler and workers listen on.
        local_directory: worker scratch folder.
        python: the Python that runs the workers (default: this one).
        scheduler_host: the address the Dask scheduler binds to (default: the interface's).
    """

    queue: str | None = None
    account: str | None = None
    walltime: str = "02:00:00"
    memory: str = "8GB"
    cores: int = 1
    job_extra_directives: tuple[str, ...] = ()
    interface: str | None = None
    local_directory: str | None = None
    python: str | None = None
    scheduler_host: str | None = None
    extra: Mapping[str, Any] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        if not _WALLTIME.match(str(self.walltime)):
            raise ClusterError(f'walltime {self.walltime!r} is not [D-]HH:MM[:SS]; e.g. walltime: "02:00:00".')
        if not _MEMORY.match(str(self.memory)):
            raise ClusterError(f"memory {self.memory!r} is not a size such as 8GB or 16GiB.")
        if isinstance(self.cores, bool) or not isinstance(self.cores, int) or self.cores < 1:
            raise ClusterError(f"cores must be a whole number >= 1, got {self.cores!r}.")
        if isinstance(self.job_extra_directives, str) or not all(isinstance(d, str) for d in self.job_extra_directives):
            raise ClusterError('job_extra_directives must be a list of #SBATCH options, e.g. ["--exclusive"].')

    @classmethod
    def from_mapping(cls, raw: Mapping[str, Any], where: str = "the cluster settings") -> SlurmConfig:
        """From a mapping (a YAML file's content); unknown keys are refused with the known ones."""
        if not isinstance(raw, Mapping):
            raise ClusterError(f"{where} must be a mapping of SLURM settings (queue, account, walltime, memory, ...).")
        known = {f.name for f in dataclasses.fields(cls)} - {"extra"}
        unknown = sorted(set(raw) - known)
        if unknown:
            raise ClusterError(f"{where}: unknown key(s) {unknown}; known: {sorted(known)}.")
        values = dict(raw)
        if isinstance(values.get("job_extra_directives"), str):
            raise ClusterError(
                f'{where}: job_extra_directives must be a list of #SBATCH options, e.g. ["--exclusive"].'
            )
        if "job_extra_directives" in values:
            values["job_extra_directives"] = tuple(values["job_extra_directives"] or ())
        return cls(**values)

    @classmethod
    def load(cls, path: str | Path | None = None, **overrides: Any) -> SlurmConfig:
        """From a YAML file (optional) with ``overrides`` (options given on the command line) on top."""
        raw: dict[str, Any] = {}
        if path is not None:
            import yaml

            p = Path(path)
            if not p.is_file():
                raise ClusterError(f"--cluster-config {p}: no such file.")
            loaded = yaml.safe_load(p.read_text(encoding="utf-8")) or {}
            if not isinstance(loaded, Mapping):
                raise ClusterError(f"{p}: the file must hold a mapping of SLURM settings.")
            raw.update(loaded)
            where = str(p)
        else:
            where = "the cluster settings"
        raw.update({k: v for k, v in overrides.items() if v is not None})
        return cls.from_mapping(raw, where)

    def jobqueue_kwargs(self) -> dict[str, Any]:
        """The keyword arguments of :class:`dask_jobqueue.SLURMCluster`."""
        import sys

        kw: dict[str, Any] = {
            "queue": self.queue,
            "account": self.account,
            "walltime": self.walltime,
            "memory": self.memory,
            "cores": self.cores,
            "processes": 1,
            "job_extra_directives": list(self.job_extra_directives),
            "python": self.python or sys.executable,
            # one torch thread per worker, as the local backend
            "job_script_prologue": ["export OMP_NUM_THREADS=1 MKL_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1"],
        }
        if self.interface:
            kw["interface"] = self.interface
        if self.local_directory:
            kw["local_directory"] = self.local_directory
        kw.update(self.extra)
        return kw


def slurm_cluster(config: SlurmConfig, *, scheduler_host: str | None = None) -> Any:
    """A :class:`dask_jobqueue.SLURMCluster` (no job is submitted until it is scaled).

    Raises:
        ClusterError: the ``slurm`` extra is not installed.
    """
    try:
        from dask_jobqueue import SLURMCluster
    except ImportError:  # pragma: no cover - depends on the optional extra
        raise ClusterError(
            "--cluster slurm needs the optional extra: pip install 'cffair[slurm]' (dask-jobqueue)."
        ) from None
    options: dict[str, Any] = {"dashboard_address": None}
    host = scheduler_host or config.scheduler_host
    if host:
        options["host"] = host
    return SLURMCluster(scheduler_options=options, **config.jobqueue_kwargs())
