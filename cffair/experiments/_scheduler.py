"""Run a task graph (:mod:`cffair.experiments._tasks`) on workers, each task after its dependencies.

joblib runs independent tasks only, so the grid's scheduler is its own, in two forms:

* **local workers** (loky's reusable process pool, threads, or this process): a ready queue.
  At most ``slots`` tasks run at once; whenever one finishes, its dependents whose other
  dependencies are done become ready, and the free worker takes the first ready task in priority
  order (the order of the task list). :func:`cffair.experiments._tasks.simulate` replays exactly
  this policy for the projections of ``benchmarks/bench_full_run.py``.
* **Dask**: every task is submitted at once as a Dask future that takes its dependencies'
  futures as arguments, so the Dask scheduler starts it when they are done, with the task's
  priority (earlier in the list, higher); this works on any cluster the client reaches
  (a ``LocalCluster``, ``$CFFAIR_DASK_SCHEDULER``, SLURM through dask-jobqueue).

The first task that fails stops the run: tasks not yet started are cancelled and its exception
is raised. What finished is in the store; the next run resumes from there.
"""

from __future__ import annotations

import heapq
import os
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, Executor, Future, ThreadPoolExecutor, wait
from typing import Any

from cffair.errors import ConfigError
from cffair.experiments._tasks import Task

__all__ = ["BACKENDS", "InlineExecutor", "check_backend", "run_dask", "run_local", "watch_parent"]

FINGERPRINT_EXEMPT = True  # when and where a task runs changes no number


class InlineExecutor(Executor):
    """Runs each submitted call at once in this process (one worker, no pickling)."""

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future:
        """Call ``fn`` with the arguments now; the future holds its result or its exception."""
        future: Future = Future()
        try:
            future.set_result(fn(*args, **kwargs))
        except BaseException as exc:  # noqa: BLE001 - handed to the caller through the future
            future.set_exception(exc)
        return future


#: The backends a grid runs on: four local ones (``local_executor``) and ``dask`` (:func:`run_dask`).
BACKENDS: tuple[str, ...] = ("loky", "multiprocessing", "threading", "sequential", "dask")


def check_backend(backend: str) -> str:
    """``backend`` if it is one of :data:`BACKENDS`.

    Raises:
        ConfigError: (a ``ValueError``) naming the backend, where it comes from and the choices.
    """
    if backend not in BACKENDS:
        raise ConfigError(
            f"unknown backend {backend!r} (the backend option or $CFFAIR_BACKEND); "
            "choose loky (default), multiprocessing, threading, sequential or dask."
        )
    return backend


def local_executor(backend: str, jobs: int) -> tuple[Executor, int]:
    """The executor of a local ``backend`` and how many tasks it runs at once.

    ``sequential``, or one job: this process. ``threading``: threads. ``loky`` and
    ``multiprocessing``: loky's reusable pool of worker processes (joblib's default).

    Raises:
        ConfigError: (a ``ValueError``) for another ``backend`` (:func:`check_backend`; ``dask`` runs
            through :func:`run_dask`).
    """
    check_backend(backend)
    if backend == "sequential" or jobs == 1 and backend in ("loky", "multiprocessing", "threading"):
        return InlineExecutor(), 1
    if backend == "threading":
        return ThreadPoolExecutor(max_workers=jobs), jobs
    if backend in ("loky", "multiprocessing"):
        from joblib.externals.loky import get_reusable_executor

        return get_reusable_executor(max_workers=jobs), jobs
    raise ConfigError(f"backend {backend!r} is not a local one; run it with run_dask.")


def run_local(
    tasks: Sequence[Task],
    call: Callable[[Task], tuple[Callable[..., Any], tuple]],
    executor: Executor,
    slots: int,
    on_done: Callable[[Task, Any], None],
) -> None:
    """Run ``tasks`` on ``executor``, at most ``slots`` at once, each after its dependencies.

    Args:
        call: ``(function, arguments)`` that runs a task in a worker.
        on_done: called in this process with each finished task and its result.
    """
    order = {t.id: i for i, t in enumerate(tasks)}
    waiting = {t.id: set(t.deps) for t in tasks}
    dependents: dict[str, list[str]] = {t.id: [] for t in tasks}
    for t in tasks:
        for d in t.deps:
            dependents[d].append(t.id)
    ready = [i for i, t in enumerate(tasks) if not t.deps]
    heapq.heapify(ready)
    running: dict[Future, Task] = {}
    try:
        while ready or running:
            while ready and len(running) < slots:
                task = tasks[heapq.heappop(ready)]
                fn, args = call(task)
                running[executor.submit(fn, *args)] = task
            done, _ = wait(list(running), return_when=FIRST_COMPLETED)
            for future in sorted(done, key=lambda f: order[running[f].id]):
                task = running.pop(future)
                on_done(task, future.result())  # a failed task raises here
                for d in dependents[task.id]:
                    waiting[d].discard(task.id)
                    if not waiting[d]:
                        heapq.heappush(ready, order[d])
    finally:
        for future in running:
            future.cancel()


def run_dask(
    tasks: Sequence[Task],
    call: Callable[[Task], tuple[Callable[..., Any], tuple]],
    client: Any,
    on_done: Callable[[Task, Any], None],
) -> None:
    """Submit every task to a Dask ``client`` with its dependencies' futures and its priority;
    call ``on_done`` as each finishes."""
    from dask.distributed import as_completed

    futures: dict[str, Any] = {}
    task_of: dict[str, Task] = {}
    for i, t in enumerate(tasks):
        fn, args = call(t)
        f = client.submit(_after, fn, args, *(futures[d] for d in t.deps), priority=len(tasks) - i, pure=False)
        futures[t.id] = f
        task_of[f.key] = t
    try:
        for f in as_completed(list(futures.values())):
            on_done(task_of[f.key], f.result())
    finally:
        client.cancel([f for f in futures.values() if not f.done()])


def _after(fn: Callable[..., Any], args: tuple, *deps: Any) -> Any:
    """Run ``fn(*args)`` (Dask calls this once the dependencies, ``deps``, are done)."""
    return fn(*args)


_WATCHDOG: list[threading.Thread] = []


def watch_parent(parent: int, every: float = 1.0) -> None:
    """Exit this worker process as soon as ``parent`` is gone (loky's workers outlive a killed main
    process for minutes otherwise, each holding a dataset and a model: about 1.3 GB on Adult)."""
    if _WATCHDOG or os.getppid() != parent:  # not a direct child (a Dask worker): its nanny handles this
        return

    def watch() -> None:
        while True:
            time.sleep(every)
            if os.getppid() != parent:
                os._exit(1)

    t = threading.Thread(target=watch, name="cffair-parent-watchdog", daemon=True)
    t.start()
    _WATCHDOG.append(t)
