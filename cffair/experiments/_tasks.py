"""The grid as a task graph: which task makes which record, and which tasks each one waits for.

A task runs one stage of one fold and writes the records of that stage; the outputs that later
stages continue from (an LTN checkpoint, the GAN's twins) go to the store's stage folder by
content hash (:mod:`cffair.experiments._pipeline.stages`), where the dependent task reads them. For one
dataset × fold (× repetition × pre-training options):

* ``pretrain``: the shared pre-training on the accuracy axioms (and the ``ltn_acc`` record);
* ``gan``: the GAN baseline (its record) and its twins of the fold (appendix A);
* one task per fairness setting (``ltn_acc_cf``, ``ltn_acc_cf_sg`` and their variants), after
  ``pretrain`` (and after ``gan`` when it trains on the GAN's twins);
* one task per CKE setting, after the fairness setting it continues from (section 7.3), or after
  ``pretrain`` when it trains a parent of its own (a variant of the fairness stage);
* one task per other baseline, with no dependency.

A dependent whose producer's record is fresh still needs the producer's output: the graph then
holds a *producer* task that writes no record and finds its output in the stage folder, or
recomputes it. The flows and twins are a stage of their own before the grid
(:func:`cffair.experiments._pipeline.prepare_inputs`), so no task here waits for them.

Tasks come in priority order: whole folds of the paper's tables first (the order of
:func:`task_groups`), and within a fold each stage before its dependents. :func:`simulate`
replays the scheduler of :mod:`cffair.experiments._scheduler` (a free worker takes the first ready task)
on given durations; :func:`critical_path` is the longest chain of dependencies.
"""

from __future__ import annotations

import heapq
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Literal

from cffair.errors import ParameterError
from cffair.experiments import _registry as registry
from cffair.experiments._config import DATASETS, ExperimentConfig

__all__ = [
    "Stage",
    "Task",
    "critical_path",
    "dependencies",
    "parent_config",
    "pretrain_config",
    "simulate",
    "task_graph",
    "task_groups",
]

# not FINGERPRINT_EXEMPT: pretrain_config and parent_config say what an LTN setting continues from

Stage = Literal["pretrain", "fair", "cke", "gan", "run", "group"]
#: Order of the stages of one fold (a stage's task comes before its dependents').
_STAGE_ORDER: dict[str, int] = {"pretrain": 0, "gan": 1, "fair": 2, "cke": 3}
#: Options that change the fairness stage: a CKE setting with one trains its own parent.
FAIR_OPTIONS: tuple[str, ...] = ("fair_p", "fair_epochs", "semantics", "a4_body")


@dataclass(frozen=True)
class Task:
    """One unit of work for a worker.

    Attributes:
        id: unique and readable (a record's key, or ``…/pretrain/fold0``).
        stage: what runs (``group``: a whole group in one process, for a runner of groups).
        target: the config whose stage output the task makes (for ``pretrain``, the canonical
            :func:`pretrain_config`).
        configs: the records the task writes (none for a producer task).
        deps: ids of the tasks that must finish first.
    """

    id: str
    stage: Stage
    target: ExperimentConfig
    configs: tuple[ExperimentConfig, ...] = ()
    deps: tuple[str, ...] = ()


def task_groups(cfgs: Sequence[ExperimentConfig]) -> list[list[ExperimentConfig]]:
    """Group configs that share work, most important first.

    Every LTN setting of one dataset × fold (of one partition: a repetition of cross-validation
    has folds of its own; of one training seed: each seed pre-trains its own) shares one pre-training, and so do the investigations' variants that
    change only later stages; variants with pre-training options (``lr``, ``clip_grad``:
    :attr:`~cffair.experiments.ExperimentConfig.pretrain_options`) form a group of their own per
    value. The GAN baseline joins the fold's default group, since the LTN of appendix A trains
    on the GAN's counterfactuals of the same fold. Every other baseline is its own group. Groups
    are ordered by fold, then LTN groups, the paper's baselines, the extra baselines and the
    groups that hold only investigations, so that an interrupted full run has whole folds of the
    paper's tables first; the repetitions of cross-validation come after the paper's partition.
    """
    groups: dict[tuple, list[ExperimentConfig]] = {}
    for c in cfgs:
        key: tuple = (
            (c.profile, c.dataset, c.repeat, c.fold, "ltn", c.pretrain_options, *((c.seed,) if c.seed else ()))
            if c.method in ("ltn", "gan")
            else (c.key,)
        )
        groups.setdefault(key, []).append(c)

    def rank(group: list[ExperimentConfig]) -> tuple:
        c = group[0]
        kind = 0 if c.method in ("ltn", "gan") else 1 if registry.method(c.setting).paper_baseline else 2
        if all(g.options for g in group):
            kind = 3
        return (c.repeat, c.seed, c.fold, kind, DATASETS.index(c.dataset) if c.dataset in DATASETS else 99)

    return sorted(groups.values(), key=rank)


def pretrain_config(cfg: ExperimentConfig) -> ExperimentConfig:
    """The canonical config of the pre-training ``cfg`` continues from: its fold, seed and
    pre-training options, default weights, no tag."""
    default = ExperimentConfig(cfg.dataset, cfg.fold, "ltn_acc", profile=cfg.profile, n_folds=cfg.n_folds)
    return replace(
        cfg, setting="ltn_acc", weights=default.weights, tag="", options=cfg.pretrain_options, cf_source="cnf"
    )


def parent_config(cfg: ExperimentConfig) -> ExperimentConfig | None:
    """The fairness setting a CKE setting continues from, or ``None`` when it trains its own
    (a variant of the fairness stage or of pre-training: no stored parent fits it)."""
    if any(k in FAIR_OPTIONS for k in cfg.option_map) or cfg.pretrain_options:
        return None
    return replace(cfg, setting=cfg.setting.removesuffix("_cke"), tag="", options=())


def _pretrain_id(cfg: ExperimentConfig) -> str:
    return pretrain_config(cfg).key.replace("/ltn_acc", "/pretrain", 1)


def task_graph(cfgs: Sequence[ExperimentConfig], *, split: bool = True) -> list[Task]:
    """The tasks that write the records of ``cfgs``, in priority order (every task after its deps).

    ``split=False``: one ``group`` task per :func:`task_groups` group, without dependencies
    (for a runner that takes a whole group).
    """
    groups = task_groups(cfgs)
    if not split:
        return [
            Task(
                _pretrain_id(g[0]).replace("/pretrain", "/ltn+gan", 1) if g[0].method in ("ltn", "gan") else g[0].key,
                "group",
                g[0],
                tuple(g),
            )
            for g in groups
        ]
    tasks: dict[str, Task] = {}

    def add(task: Task) -> str:
        if task.id in tasks:  # the same producer asked for twice: one task, writing every record asked for
            old = tasks[task.id]
            tasks[task.id] = replace(old, configs=old.configs + tuple(c for c in task.configs if c not in old.configs))
        else:
            tasks[task.id] = task
        return task.id

    for g in groups:
        if g[0].method not in ("ltn", "gan"):
            add(Task(g[0].key, "run", g[0], tuple(g)))
            continue
        ltn = [c for c in g if c.method == "ltn"]
        pre = None
        if ltn:
            pre = add(
                Task(
                    _pretrain_id(ltn[0]),
                    "pretrain",
                    pretrain_config(ltn[0]),
                    tuple(c for c in ltn if c.setting == "ltn_acc" and not c.tag),
                )
            )
        for c in (c for c in g if c.method == "gan"):
            add(Task(c.key, "gan", c, (c,)))

        def gan_dep(c: ExperimentConfig) -> tuple[str, ...]:
            if c.cf_source != "gan":
                return ()
            gcfg = c.gan_source
            return (add(Task(gcfg.key, "gan", gcfg)),)

        fair = [c for c in ltn if c.setting != "ltn_acc" and not c.setting.endswith("_cke")]
        plain = [c for c in fair if not c.tag and not c.options]  # the paper's settings, CKE's parents among them
        for c in sorted(plain, key=lambda c: (c.cf_source, c.setting)):
            add(Task(c.key, "fair", c, (c,), (pre, *gan_dep(c))))  # type: ignore[arg-type]
        for c in sorted((c for c in ltn if c.setting.endswith("_cke")), key=lambda c: c.key):  # the longest chains next
            parent = parent_config(c)
            if parent is None:
                add(Task(c.key, "cke", c, (c,), (pre, *gan_dep(c))))  # type: ignore[arg-type]
            else:
                pid = (
                    parent.key
                    if parent.key in tasks
                    else add(Task(parent.key, "fair", parent, (), (pre, *gan_dep(parent))))  # type: ignore[arg-type]
                )
                add(Task(c.key, "cke", c, (c,), (pid,)))
        for c in (c for c in fair if c not in plain):  # the variants, in the grid's order
            add(Task(c.key, "fair", c, (c,), (pre, *gan_dep(c))))  # type: ignore[arg-type]
    out = list(tasks.values())
    seen: set[str] = set()
    for t in out:
        if not set(t.deps) <= seen:
            raise AssertionError(f"task {t.id} comes before its dependencies {sorted(set(t.deps) - seen)}")
        seen.add(t.id)
    return out


def dependencies(tasks: Sequence[Task]) -> dict[str, tuple[str, ...]]:
    """The graph as data: ``{task id: ids of the tasks it waits for}``."""
    return {t.id: t.deps for t in tasks}


def simulate(tasks: Sequence[Task], seconds: Mapping[str, float], workers: int) -> dict[str, float]:
    """``{task id: end time}`` of the scheduler's run of ``tasks`` on ``workers`` workers when
    task ``i`` takes ``seconds[i]``: whenever a worker is free, it takes the first ready task in
    priority order (list scheduling); ``max`` of the result is the makespan.

    >>> a, b, c = (Task(n, "run", ExperimentConfig("compas", 0, "cnf")) for n in "abc")
    >>> b = replace(b, deps=("a",))
    >>> simulate([a, b, c], {"a": 2, "b": 2, "c": 1}, 2)
    {'c': 1.0, 'a': 2.0, 'b': 4.0}
    >>> max(simulate([a, b, c], {"a": 2, "b": 2, "c": 1}, 1).values())
    5.0
    """
    if workers < 1:
        raise ParameterError(f"workers must be at least 1, got {workers}.")
    order = {t.id: i for i, t in enumerate(tasks)}
    waiting = {t.id: set(t.deps) for t in tasks}
    dependents: dict[str, list[str]] = {t.id: [] for t in tasks}
    for t in tasks:
        for d in t.deps:
            dependents[d].append(t.id)
    ready = [order[i] for i, w in waiting.items() if not w]
    heapq.heapify(ready)
    running: list[tuple[float, int]] = []
    end: dict[str, float] = {}
    now = 0.0
    while ready or running:
        while ready and len(running) < workers:
            i = heapq.heappop(ready)
            heapq.heappush(running, (now + float(seconds[tasks[i].id]), i))
        now, i = heapq.heappop(running)
        tid = tasks[i].id
        end[tid] = now
        for d in dependents[tid]:
            waiting[d].discard(tid)
            if not waiting[d]:
                heapq.heappush(ready, order[d])
    return end


def critical_path(tasks: Sequence[Task], seconds: Mapping[str, float]) -> tuple[list[str], float]:
    """The longest chain of dependencies (ids, first to last) and its seconds: no number of
    workers finishes the graph sooner.

    >>> a, b, c = (Task(n, "run", ExperimentConfig("compas", 0, "cnf")) for n in "abc")
    >>> critical_path([a, replace(b, deps=("a",)), c], {"a": 2, "b": 2, "c": 3})
    (['a', 'b'], 4.0)
    """
    finish: dict[str, tuple[float, list[str]]] = {}
    for t in tasks:  # dependencies come first
        before = max((finish[d] for d in t.deps), key=lambda f: f[0], default=(0.0, []))
        finish[t.id] = (before[0] + float(seconds[t.id]), [*before[1], t.id])
    total, path = max(finish.values(), key=lambda f: f[0], default=(0.0, []))
    return path, float(total)
