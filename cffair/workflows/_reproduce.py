"""Run the grid, check which records are fresh and why not, then the steps installed after it: ``cffair reproduce``.

The grid is a graph of stage tasks (:func:`cffair.experiments._tasks.task_graph`: the
pre-training, each fairness and CKE setting, the GAN and each baseline of a fold), each started
when the tasks it continues from are done (:mod:`cffair.experiments._scheduler`), on local worker processes
(loky, one torch thread each). Switching the worker pool to a cluster: ``run_grid(...,
backend="dask")`` (or ``CFFAIR_BACKEND=dask``) submits the same graph as Dask futures: the scheduler at
``$CFFAIR_DASK_SCHEDULER`` (``tcp://host:8786``) when it is set, else a local
``distributed.LocalCluster`` with ``jobs`` workers; with ``cluster=SlurmConfig(...)`` (``cffair
reproduce --cluster slurm``), ``jobs`` SLURM jobs started through dask-jobqueue
(:mod:`cffair.experiments._cluster`).

A record is recomputed only when its fingerprint (:mod:`cffair.experiments._pipeline.keys`) says its numbers
could differ; :func:`status` says for each stale record why.

After the grid, :func:`reproduce` runs the steps installed under the entry-point group
``cffair.reproduce`` (:func:`reproduce_steps`): the book package installs ``notebooks``, which runs
its chapters' notebooks (``cffair_book.chapters``), so the library never imports the book.
"""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, Literal, cast

import pandas as pd

from cffair._support.io import ensure_dir
from cffair._support.utils import project_root, write_json_atomic
from cffair.errors import ConfigError, OptionError, ParameterError, RunError
from cffair.experiments._config import DATASETS, ExperimentConfig, Mode, check_registered_flows
from cffair.experiments._fingerprint import diff, package_versions
from cffair.experiments._grid import paper_grid
from cffair.experiments._store import Record, ResultsStore, machine, results_root
from cffair.experiments._tasks import Task, task_graph, task_groups

__all__ = [
    "STEP_GROUP",
    "Freshness",
    "freshness",
    "provenance",
    "with_parts",
    "reproduce",
    "reproduce_steps",
    "resolve_mode",
    "results_for",
    "results_root",
    "run_grid",
    "status",
]

#: The entry-point group of the steps :func:`reproduce` runs after the grid (each a callable
#: ``step(mode, only, root)``, reading the run's records from the store ``root/mode``; the book package
#: installs ``notebooks``).
STEP_GROUP = "cffair.reproduce"

Step = Callable[[str, "Sequence[str] | None", Path], object]


Runner = Callable[[list[ExperimentConfig], ResultsStore], list[dict[str, Any]]]
Expected = Callable[[ExperimentConfig], Mapping[str, Any]]


# ============================================================================ freshness
def _expected(cfg: ExperimentConfig) -> Mapping[str, Any]:
    from cffair.experiments._pipeline.keys import expected_fingerprint

    return expected_fingerprint(cfg)


def check(
    store: ResultsStore,
    cfg: ExperimentConfig,
    expected: Expected = _expected,
    known_inputs: Mapping[str, Mapping[str, str]] | None = None,
) -> tuple[str, list[str]]:
    """``(state, reasons)`` of ``cfg``'s record: ``fresh``, ``stale``, ``missing`` or ``corrupt``."""
    path = store.path(cfg)
    if not path.exists():
        return "missing", []
    rec = store.get(cfg)
    if rec is None:
        bad = store._read(path)
        return "corrupt", [getattr(bad, "reason", "unreadable")]
    reasons = diff(rec["fingerprint"], expected(cfg), (known_inputs or {}).get(cfg.dataset))
    return ("stale", reasons) if reasons else ("fresh", [])


def status(
    store: ResultsStore,
    cfgs: Sequence[ExperimentConfig],
    expected: Expected = _expected,
    known_inputs: Mapping[str, Mapping[str, str]] | None = None,
) -> pd.DataFrame:
    """One row per config: ``key``, ``state`` (fresh, stale, missing, corrupt), ``reasons`` and ``path``."""
    rows = []
    for c in cfgs:
        state, reasons = check(store, c, expected, known_inputs)
        rows.append({"key": c.key, "state": state, "reasons": reasons, "path": str(store.path(c))})
    return pd.DataFrame(rows, columns=["key", "state", "reasons", "path"])


def reason_counts(st: pd.DataFrame) -> list[tuple[str, int]]:
    """Each reason for staleness with the number of records it applies to, most frequent first."""
    counts: Counter[str] = Counter(r for rs in st.loc[st["state"] != "fresh", "reasons"] for r in rs)
    return counts.most_common()


class Freshness:
    """The records behind a page: one row per record (:func:`status`) and the store they are read from.

    The book shows it as a box (``cffair_book.pages.freshness_box``); ``cffair results`` prints the
    same counts and reasons.
    """

    def __init__(self, st: pd.DataFrame, where: str) -> None:
        self.status = st
        self.where = where

    @property
    def counts(self) -> dict[str, int]:
        """``{state: number of records}``."""
        return self.status["state"].value_counts().to_dict()

    @property
    def fresh(self) -> bool:
        """Whether there are records and every one is fresh."""
        return bool(len(self.status)) and (self.status["state"] == "fresh").all()

    def __repr__(self) -> str:
        return f"Freshness({', '.join(f'{v} {k}' for k, v in sorted(self.counts.items()))} in {self.where})"


def freshness(
    only: Sequence[str], mode: str | None = None, datasets: Sequence[str] = DATASETS, *, root: Path | None = None
) -> Freshness:
    """The freshness box of a page showing the records of question groups ``only``, read from the store
    of ``mode`` under ``root`` (default :func:`results_root`)."""
    mode = resolve_mode(mode)
    profile = "full" if mode == "render" else mode
    store = ResultsStore(Path(root or results_root()) / profile, create=False)  # only reads
    return Freshness(status(store, paper_grid(profile, datasets, only)), str(store.root))


# ============================================================================ the grid
def _task_groups(cfgs: Sequence[ExperimentConfig]) -> list[list[ExperimentConfig]]:
    """Configs grouped by shared work, most important first (:func:`cffair.experiments._tasks.task_groups`)."""
    return task_groups(cfgs)


def _restamp_if_same(store: ResultsStore, cfg: ExperimentConfig, known: Mapping[str, str]) -> None:
    """A fresh record whose inputs were regenerated by changed code with the same content:
    store it under today's fingerprint, so that it reads fresh without the regeneration."""
    from cffair.experiments._pipeline.keys import record_fingerprint

    rec = store.get(cfg)
    if rec is None:
        return
    stored_inputs = rec["fingerprint"].get("inputs", {})
    contents = {n: known.get(n, v.get("content")) for n, v in stored_inputs.items()}
    new = record_fingerprint(cfg, rec["fingerprint"]["data"], contents)
    if new != rec["fingerprint"]:
        store.restamp(rec, new)


_NO_DASK = (
    "backend 'dask' needs the optional extra cluster, which is not installed: pip install 'cffair[cluster]', "
    "or choose a local backend (loky, the default)."
)


def _grid_backend(jobs: int, backend: str | None, cluster: Any) -> str:
    """The backend a grid runs on (``backend``, else ``$CFFAIR_BACKEND``, else ``loky``), with ``jobs``
    and ``cluster`` checked against it, so that a mistake stops a run before any work.

    Raises:
        ParameterError: ``jobs`` below 1.
        ConfigError: (a ``ValueError``) an unknown backend (:func:`cffair.experiments._scheduler.check_backend`).
        OptionError: a ``cluster`` with a backend other than ``dask``.
        RunError: (a ``RuntimeError``) ``dask`` without the ``cluster`` extra installed.
    """
    from cffair.experiments._scheduler import check_backend

    if jobs < 1:
        raise ParameterError(f"jobs (worker processes) must be at least 1, got {jobs!r}.")
    name = check_backend(backend or os.environ.get("CFFAIR_BACKEND") or "loky")
    if cluster is not None and name != "dask":
        raise OptionError(f"a SLURM cluster runs through the dask backend, not {name!r}; pass backend='dask'.")
    if name == "dask":
        try:
            import dask.distributed  # noqa: F401
        except ImportError as exc:
            raise RunError(_NO_DASK) from exc
    return name


def run_grid(
    cfgs: Sequence[ExperimentConfig],
    store: ResultsStore | None = None,
    *,
    jobs: int = 1,
    backend: str | None = None,
    progress: bool = True,
    runner: Runner | None = None,
    expected: Expected = _expected,
    known_inputs: Mapping[str, Mapping[str, str]] | None = None,
    cluster: Any = None,
    device: str | None = None,
    on_stored: Callable[[int, float], None] | None = None,
) -> pd.DataFrame:
    """Run every config whose record is missing, stale or corrupt; return the store's frame of ``cfgs``.

    Args:
        jobs: worker processes (each uses one torch thread).
        backend: ``loky`` (default, local processes), ``dask`` (a Dask cluster),
            ``multiprocessing``, ``threading`` or ``sequential`` (:mod:`cffair.experiments._scheduler`).
            Also read from ``$CFFAIR_BACKEND``.
        runner: a function that runs one whole task group ``(configs, store)``; by default the
            grid runs as a graph of stage tasks (:func:`cffair.experiments._tasks.task_graph`,
            :func:`cffair.experiments._pipeline.run_task`), each started when its dependencies are done.
        expected: today's fingerprint of a config (tests pass their own with a toy runner).
        known_inputs: ``{dataset: {input: content hash}}`` of upstream outputs regenerated
            before the grid (the counterfactuals): a record whose input was made by changed
            code but hashes the same stays fresh.
        cluster: a :class:`~cffair.experiments._cluster.SlurmConfig`: with the ``dask`` backend, the workers
            are ``jobs`` SLURM jobs (:mod:`cffair.experiments._cluster`), shut down at the end.
        device: where each task trains (:mod:`cffair._support.devices`): ``"cpu"``, ``"auto"`` or
            ``"cuda"``; default :func:`~cffair._support.devices.current_device` (``"cpu"`` unless set); with several accelerators, task ``k`` gets ``cuda:(k mod count)``, one
            device per task. Checked before any work; it enters no fingerprint.
        on_stored: called in this process after each task with the number of records it stored and
            the CPU seconds its worker spent on it.

    Raises:
        ParameterError: ``jobs`` below 1.
        ConfigError: an unknown ``backend`` (or ``$CFFAIR_BACKEND``).
        OptionError: a ``cluster`` with a backend other than ``dask``.
        RunError: the ``dask`` backend without the ``cluster`` extra installed.
        ConfigError: a registered dataset whose flow settings the flow cannot read
            (:func:`cffair.experiments._config.check_registered_flows`).

    These are checked before any record is read or moved.
    """
    from tqdm.auto import tqdm

    from cffair.experiments import _scheduler as scheduler

    backend = _grid_backend(jobs, backend, cluster)
    check_registered_flows({c.dataset for c in cfgs})  # before any record is read
    from cffair._support.devices import current_device, task_devices

    store = store or ResultsStore()
    ensure_dir(store.root / "records", what="results folder")  # a store opened with create=False has none yet
    for bad in store.quarantine():
        print(f"cffair: corrupt record moved aside and recomputed: {bad.path.name} ({bad.reason})", file=sys.stderr)
    pending = []
    for c in cfgs:
        state, _ = check(store, c, expected, known_inputs)
        if state != "fresh":
            pending.append(c)
        elif known_inputs and runner is None:
            _restamp_if_same(store, c, known_inputs.get(c.dataset, {}))
    tasks = task_graph(pending, split=runner is None)  # a runner of its own takes whole groups
    client = _dask_client(jobs, cluster) if backend == "dask" else None
    devices = task_devices(device or current_device(), len(tasks))  # checked here, before any worker starts
    device_of = {t.id: d for t, d in zip(tasks, devices)}  # one device per task
    bar = tqdm(total=len(pending), desc="experiments", unit="run", disable=not progress)

    from cffair.datasets._registry import snapshot

    data = snapshot()  # the user's registered datasets, by reference (files and settings), for every worker

    def call(task: Task) -> tuple[Callable[..., Any], tuple]:
        return _run_in_worker, (runner, task, store.root, os.getpid(), device_of[task.id], data)

    def done(task: Task, result: tuple[int, float]) -> None:
        n, cpu_s = result
        bar.update(n)
        if on_stored is not None:
            on_stored(n, cpu_s)

    try:
        if client is not None:
            scheduler.run_dask(tasks, call, client, done)
        else:
            executor, slots = scheduler.local_executor(backend, jobs)
            scheduler.run_local(tasks, call, executor, slots, done)
    finally:
        bar.close()
        if (
            runner is None and "cffair.experiments._pipeline" in sys.modules
        ):  # a run in this process (one job) cached a fold
            sys.modules["cffair.experiments._pipeline"].forget_fold()
        if client is not None:
            started = client.cluster if cluster is not None else None
            client.close()
            if started is not None:
                started.close()
    df = store.frame()
    keys = {c.key for c in cfgs}
    if df.empty:
        return df
    return df[df["key"].isin(keys)].reset_index(drop=True)


def _dask_client(jobs: int, cluster: Any = None) -> Any:
    try:
        from dask.distributed import Client, LocalCluster
    except ImportError as exc:  # pragma: no cover - depends on the optional extra
        raise RunError(_NO_DASK) from exc
    if cluster is not None:  # a SlurmConfig: one SLURM job per worker
        from cffair.experiments._cluster import slurm_cluster

        jobqueue = slurm_cluster(cluster)
        jobqueue.scale(jobs=jobs)
        return Client(jobqueue)
    address = os.environ.get("CFFAIR_DASK_SCHEDULER")
    if address:
        return Client(address)
    return Client(LocalCluster(n_workers=jobs, threads_per_worker=1, processes=True, dashboard_address=None))


def _run_in_worker(
    runner: Runner | None,
    task: Task,
    root: Path,
    parent: int,
    device: str = "cpu",
    data: Mapping[str, Mapping[str, Any]] | None = None,
) -> tuple[int, float]:
    """Run one task in a worker on ``device`` (:func:`cffair.experiments._pipeline.run_task`, or ``runner`` on
    the task's group); the number of records it wrote and the CPU seconds the worker spent on it
    (``time.process_time``: a busy machine stretches a task's wall seconds, not these).

    ``data``: the registered datasets the grid may name (:func:`cffair.datasets._registry.snapshot`
    of the process that started the grid), registered here first, so that a worker started before
    a registration knows the data by what it is, not by its name alone.
    """
    from joblib import parallel_config

    from cffair._support.devices import use_device
    from cffair._support.utils import torch_cpu_setup
    from cffair.datasets._registry import restore
    from cffair.experiments import _scheduler as scheduler

    if os.getpid() != parent:
        scheduler.watch_parent(parent)
    torch_cpu_setup()
    restore(data)
    # joblib inside a task (scikit-learn's transformers) runs in this process: under the Dask
    # backend it would otherwise queue behind the very task that waits for it
    cpu = time.process_time()
    with parallel_config(backend="sequential"), use_device(device):
        if runner is None:
            from cffair.experiments._pipeline import run_task

            n = len(run_task(task, ResultsStore(root)))
        else:
            n = len(runner(list(task.configs), ResultsStore(root)))
    return n, round(time.process_time() - cpu, 3)


# ============================================================================ provenance
def provenance(
    stage_times: Mapping[str, float], *, computed: int | None = None, in_grid: int | None = None
) -> dict[str, Any]:
    """Commit, package versions, machine, wall time per stage, and how much of the grid the run computed.

    ``dirty``: the library, notebooks or book differed from the commit (``results/`` does not count);
    ``records_code`` hashes the code the records run; ``records_computed`` of ``records_in_grid``: a
    resumed run computes only the records that were not fresh, so its stage times are not a whole run's.
    """
    from importlib import metadata

    def _git(*args: str) -> str:
        try:
            return subprocess.run(
                ["git", *args], cwd=project_root(), capture_output=True, text=True, check=True
            ).stdout.strip()
        except (OSError, subprocess.CalledProcessError):
            return "unknown"

    pkgs = package_versions()
    for name in ("sphinx", "myst-nb", "papermill"):
        try:
            pkgs[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            pkgs[name] = None
    return {
        "commit": _git("rev-parse", "HEAD"),
        "dirty": bool(_git("status", "--porcelain", "--untracked-files=no", "--", ".", ":(exclude)results")),
        "packages": pkgs,
        "python": sys.version.split()[0],
        "machine": {
            "platform": platform.platform(),
            "processor": platform.processor(),
            "cpus": os.cpu_count(),
            **machine(),
        },
        "stage_seconds": dict(stage_times),
        "finished": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        **({} if computed is None else {"records_computed": int(computed)}),
        **({} if in_grid is None else {"records_in_grid": int(in_grid)}),
        "records_code": records_code(),
    }


def records_code() -> str:
    """One hash of the code every record of the grid runs (each method's fingerprinted modules)."""
    from cffair._support.utils import stable_hash
    from cffair.experiments._pipeline.keys import RUNNERS, code

    return stable_hash(json.dumps({m: code(m) for m in sorted(RUNNERS)}, sort_keys=True))


def _closed(part: Mapping[str, Any]) -> dict[str, Any]:
    """A part; one a killed invocation left running ends at its last record, ``interrupted``."""
    part = dict(part)
    if part.get("finished") is None:
        part["finished"] = part.get("last_record") or part.get("started")
        part["interrupted"] = True
    return part


def with_parts(
    previous: Mapping[str, Any] | None,
    current: Mapping[str, Any],
    *,
    groups: Sequence[str] | None,
    jobs: int,
    started: str,
    running: bool = False,
) -> dict[str, Any]:
    """``current`` with the regeneration's ``parts`` (each invocation's groups, start, end, ``wall_s``,
    records, jobs, commit); a run whose ``records_code`` is ``previous``'s continues its list (an edit
    outside the records' code, which makes a checkout ``dirty``, does not change what the records
    compute); without ``records_code`` on both, a clean run at a clean ``previous``'s commit continues
    it; any other starts one. ``wall_seconds`` sums the parts. ``running``: the part is still going
    (``finished`` None, ``last_record`` now); a later call closes it (``_closed``).
    Tested in ``tests/experiments/test_reproduce.py``.
    """
    part = {
        "started": started,
        "finished": None if running else current.get("finished"),
        "wall_s": round(sum(float(v) for v in dict(current.get("stage_seconds") or {}).values()), 1),
        "records_computed": current.get("records_computed"),
        "records_in_grid": current.get("records_in_grid"),
        "groups": None if groups is None else list(groups),
        "jobs": int(jobs),
        "commit": current.get("commit"),
        "stage_seconds": dict(current.get("stage_seconds") or {}),
        # the CPU seconds the workers spent on the part's tasks (None in parts recorded before it was measured)
        "task_cpu_s": current.get("task_cpu_seconds"),
    }
    if running:
        part["last_record"] = current.get("finished")

    def same_code(a: Mapping[str, Any], b: Mapping[str, Any]) -> bool:
        if a.get("records_code") and b.get("records_code"):
            return bool(a["records_code"] == b["records_code"])
        return a.get("commit") == b.get("commit") and not a.get("dirty") and not b.get("dirty")

    same = previous is not None and same_code(previous, current) and isinstance(previous.get("parts"), list)
    parts = [*(_closed(q) for q in (previous or {}).get("parts", []) if same), part]
    return {
        **current,
        "parts": parts,
        "wall_seconds": round(sum(float(q["wall_s"]) for q in parts), 1),
        "records_computed_total": sum(int(q["records_computed"] or 0) for q in parts),
    }


def _previous_provenance(path: Path) -> dict[str, Any] | None:
    """The provenance a previous run left (``None`` when there is none or it cannot be read: a new list of parts)."""
    try:
        prev = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return prev if isinstance(prev, dict) else None


# ============================================================================ notebooks' entry
def pin_results_root(root: Path | None = None) -> None:
    """Name the results folder for the processes this one starts: ``root`` when given, else a relative
    ``$CFFAIR_RESULTS`` made absolute against the folder the command was started in. A notebook's kernel
    runs in its own folder and would read a relative one against that (a book built with
    ``CFFAIR_RESULTS=results/regeneration`` found no records). Called before any kernel starts."""
    if root is not None:
        os.environ["CFFAIR_RESULTS"] = str(Path(root).resolve())
    elif os.environ.get("CFFAIR_RESULTS"):
        os.environ["CFFAIR_RESULTS"] = str(Path(os.environ["CFFAIR_RESULTS"]).resolve())


def resolve_mode(mode: str | None) -> Literal["render", "quick", "full"]:
    """A notebook's mode: the papermill parameter, else ``$CFFAIR_MODE``, else ``render``.

    ``render`` reads the committed results of the full protocol; ``quick`` and ``full``
    compute (missing or stale) results first.
    """
    mode = mode or os.environ.get("CFFAIR_MODE") or "render"
    if mode not in ("render", "quick", "full"):
        raise ConfigError(f"mode must be render, quick or full, got {mode!r}")
    return cast('Literal["render", "quick", "full"]', mode)


def results_for(
    mode: str | None,
    only: Sequence[str],
    datasets: Sequence[str] = DATASETS,
    jobs: int = 1,
    *,
    missing_ok: bool = False,
    root: Path | None = None,
) -> list[Record]:
    """The records a notebook shows: computed in ``quick``/``full`` mode, read in ``render`` mode, from the
    store of the mode under ``root`` (default :func:`results_root`; the book passes its checkout's folder).

    ``missing_ok``: return ``[]`` instead of raising when none is stored (a page section whose
    records come with the next full regeneration; the page says so).
    """
    mode = resolve_mode(mode)
    profile = "full" if mode == "render" else mode
    store = ResultsStore(Path(root or results_root()) / profile, create=mode != "render")  # render mode only reads
    cfgs = paper_grid(profile, datasets, only)
    if mode != "render":
        from cffair.experiments._pipeline import prepare_inputs

        run_grid(cfgs, store, jobs=jobs, progress=False, known_inputs=prepare_inputs(profile, datasets, jobs=jobs))
    # each wanted record read from its own file (a chapter holds a tenth of the store), in the store's order
    by_file = {store.path(c).name: c for c in cfgs}
    recs = [r for name in sorted(by_file) if (r := store.get(by_file[name])) is not None]
    if not recs and not missing_ok:
        raise FileNotFoundError(
            f"no results for {list(only)} in {store.root}; run `cffair reproduce --mode full` "
            "or execute the notebook with mode='quick'."
        )
    return recs


def reproduce(
    mode: Mode = "quick",
    only: Sequence[str] | None = None,
    *,
    jobs: int = 2,
    datasets: Sequence[str] = DATASETS,
    results_dir: Path | None = None,
    steps: bool = True,
    backend: str | None = None,
    lock_timeout: float = 0.0,
    cluster: Any = None,
    device: str = "cpu",
) -> dict[str, Any]:
    """Counterfactuals, then the experiment grid, then the installed steps (:func:`reproduce_steps`: the
    book's notebooks; ``steps=False`` leaves them out); writes provenance.

    The results folder is locked while this runs (:meth:`ResultsStore.lock`): a second
    ``reproduce`` into the same folder waits up to ``lock_timeout`` seconds (``inf``: for
    ever) and then raises :class:`~cffair.errors.StoreLockedError`, instead of doing the same
    work twice. The results folder and the cache are checked to be writable before any work.
    ``device`` (:mod:`cffair._support.devices`) is where the flows and every task train; it is checked
    first and enters no record's fingerprint. The flows and twins used are kept in the results folder's
    ``inputs/`` and put back into the cache before anything is fitted (:mod:`cffair.experiments._kept_inputs`),
    so that a run resumed on another machine reads the same twins.
    """
    from cffair._support.devices import resolve_device
    from cffair._support.io import writable_dir
    from cffair.causal._cache import cache_dir
    from cffair.experiments import _kept_inputs as kept_inputs
    from cffair.experiments._pipeline import prepare_inputs

    resolve_device(device)  # a missing accelerator stops here, before any work
    _grid_backend(jobs, backend, cluster)  # so do jobs < 1, an unknown backend and a missing extra

    results_dir = Path(results_dir or results_root() / mode)
    cfgs = paper_grid(mode, datasets, only)  # checks mode, datasets and groups before any work
    installed = reproduce_steps() if steps else {}
    if installed and results_dir.name != mode:  # a step reads root/mode: it would show another store
        raise OptionError(
            f"results folder {results_dir}: the steps after the grid ({', '.join(installed)}) read the store "
            f"named after the mode; name it .../{mode}, or pass steps=False (--no-notebooks) to compute only the records."
        )
    writable_dir(results_dir, what="results folder", hint="set CFFAIR_RESULTS to a writable folder")
    writable_dir(cache_dir(), what="cache folder", hint="set CFFAIR_CACHE to a writable folder")
    store = ResultsStore(results_dir)
    with store.lock(lock_timeout, who="another `cffair reproduce`"):
        started = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        previous = _previous_provenance(results_dir / "provenance.json")
        groups = None if only is None else list(only)
        times: dict[str, float] = {}
        cpu = [0.0]  # the workers' CPU seconds on this invocation's tasks

        def write(computed: int, *, running: bool) -> dict[str, Any]:
            prov = provenance(times, computed=computed, in_grid=len(cfgs)) | {"task_cpu_seconds": round(cpu[0], 1)}
            prov = with_parts(previous, prov, groups=groups, jobs=jobs, started=started, running=running)
            write_json_atomic(results_dir / "provenance.json", prov, what="provenance")
            return prov

        t0, since = time.perf_counter(), time.time()
        restored = kept_inputs.restore(results_dir / "inputs", cache_dir())
        known = prepare_inputs(mode, datasets, jobs=jobs, device=device)  # the twins and the rulers of appendix C
        kept_inputs.keep(results_dir / "inputs", cache_dir(), known, since=since, restored=restored)
        times["counterfactuals"] = round(time.perf_counter() - t0, 1)
        t0 = time.perf_counter()
        computed = sum(check(store, c, known_inputs=known)[0] != "fresh" for c in cfgs)
        done = [0]

        def stored(n: int, cpu_s: float = 0.0) -> None:  # after each task: the part so far, in case this is killed
            done[0] += n
            cpu[0] += cpu_s
            times["experiments"] = round(time.perf_counter() - t0, 1)
            write(done[0], running=True)

        write(0, running=True)
        grid = {"backend": backend, "known_inputs": known, "cluster": cluster, "device": device}
        run_grid(cfgs, store, jobs=jobs, on_stored=stored, **grid)
        times["experiments"] = round(time.perf_counter() - t0, 1)
        for name, step in installed.items():
            t0 = time.perf_counter()
            step(mode, only, results_dir.parent)
            times[name] = round(time.perf_counter() - t0, 1)
        prov = write(computed, running=False)
    return prov


def reproduce_steps() -> dict[str, Step]:
    """The steps installed to run after the grid, by name: the entry points of group :data:`STEP_GROUP`
    (the book package's ``notebooks`` runs its chapters' notebooks; a plain library install has none).

    Raises:
        RunError: a step's entry point cannot be loaded (its package is broken or half-installed).
    """
    from importlib.metadata import entry_points

    steps: dict[str, Step] = {}
    for ep in sorted(entry_points(group=STEP_GROUP), key=lambda e: e.name):
        try:
            steps[ep.name] = ep.load()
        except (ImportError, AttributeError) as e:
            raise RunError(
                f"the step {ep.name!r} of `cffair reproduce` ({ep.value}) cannot be loaded ({e}); "
                "install the package again (make install), or pass --no-notebooks to compute only the records."
            ) from e
    return steps
