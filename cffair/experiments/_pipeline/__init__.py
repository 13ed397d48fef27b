"""The protocol of the paper for one fold: data → counterfactuals → training → evaluation → record.

:mod:`cffair.experiments` says *what* runs (configs, grid, store); :mod:`cffair.workflows._reproduce` runs
the grid; this package says *how* one task group runs. Each method has its runner module
(:data:`cffair.experiments._pipeline.keys.RUNNERS`), imported by name so that a record's fingerprint covers
only the code its own method runs.

Choices (documented on the book's *Reproducing* page):

* Folds: 5 seeded stratified folds (seed 0) for every method, so that methods are paired.
* Counterfactuals: one causal flow per dataset, fitted on all rows' features (the target never
  enters the flow), generating the sensitive flip and every immutable-feature intervention,
  with the paper's treatment of discrete columns (:data:`.counterfactuals.PAPER_TREATMENT`).
* Every method is scored by the same :func:`cffair.scores.evaluate` on the same CNF test pairs,
  and, on the paper's datasets, also on the test pairs of the rulers of appendix C
  (:data:`.counterfactuals.RULERS`: other twin sets of the sensitive flip), re-scoring each
  trained model without retraining it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from cffair.errors import ParameterError
from cffair.experiments._config import ExperimentConfig
from cffair.experiments._pipeline.counterfactuals import (
    RULERS,
    content_hash,
    counterfactual_set,
    flow_config,
    prepare_counterfactuals,
    prepare_inputs,
    ruler_sets,
)
from cffair.experiments._pipeline.fold import FoldData
from cffair.experiments._pipeline.keys import finish, record_fingerprint
from cffair.experiments._pipeline.runners import load_runner
from cffair.experiments._store import ResultsStore

__all__ = [
    "FoldData",
    "counterfactual_set",
    "flow_config",
    "prepare_counterfactuals",
    "prepare_inputs",
    "forget_fold",
    "run_task",
]

if TYPE_CHECKING:
    from cffair.causal._cfset import CFPairs
    from cffair.experiments._tasks import Task

#: This process's last fold (``(identity, FoldData, input contents)``): consecutive tasks of one
#: fold in a worker load its data once, as one task group did.
_FOLD: list[tuple[tuple, FoldData, dict[str, str]]] = []


def _fold(cfg: ExperimentConfig, cache: bool = True) -> tuple[FoldData, dict[str, str]]:
    """``cfg``'s fold and the content hashes of its inputs (the twins and the rulers)."""
    ident = (cfg.dataset, cfg.profile, cfg.fold, cfg.fold_count, cfg.repeat, cfg.seed)
    if cache and _FOLD and _FOLD[0][0] == ident:
        return _FOLD[0][1], dict(_FOLD[0][2])
    _FOLD.clear()  # one fold per process at most (Adult's holds about 1.3 GB)
    cfset = counterfactual_set(cfg.dataset, cfg.profile)
    contents = {"counterfactuals": content_hash(cfset)}
    rulers = ruler_sets(cfg.dataset, cfg.profile, paper=cfset)  # appendix C's; {} for a registered dataset
    contents.update({RULERS[name].input: content_hash(twins) for name, twins in rulers.items() if name != "paper"})
    fd = FoldData.build(cfg, cfset, rulers)
    if cache:
        _FOLD.append((ident, fd, dict(contents)))
    return fd, contents


def forget_fold() -> None:
    """Drop this process's cached fold (the grid runner calls it when a run in this process ends)."""
    _FOLD.clear()


def run_task(task: Task, store: ResultsStore) -> list[dict[str, Any]]:
    """Run one task of the split grid (:func:`cffair.experiments._tasks.task_graph`) and store its records.

    Its inputs from other tasks (the pre-trained checkpoint, a CKE setting's parent, the GAN's
    twins) come from the store's stage folder (:class:`~cffair.experiments._pipeline.stages.StageStore`),
    or are computed here when absent. This is the one route of every command (``cffair reproduce``,
    ``cffair run``, the notebooks' helpers): :func:`cffair.workflows.run_grid` runs the graph.

    Raises:
        ValueError: for a ``group`` task (a whole group in one process), which only a runner of
            groups given to :func:`cffair.workflows.run_grid` runs.
    """
    from cffair._support.utils import stable_hash, torch_cpu_setup
    from cffair.experiments._pipeline.stages import StageStore

    torch_cpu_setup()
    if task.stage == "group":
        raise ParameterError(
            f"task {task.id} is a whole group (task_graph(split=False)); run_task runs the split graph's "
            "stage tasks: build the graph with task_graph(configs)."
        )
    fd, contents = _fold(task.target)
    if task.stage == "run":
        return [_baseline(c, fd, store, contents) for c in task.configs]
    stages = StageStore(store.root / "stages")

    def key(name: str, cfg: ExperimentConfig) -> str:
        from cffair.experiments._pipeline.keys import producer

        return stable_hash(producer(name, cfg, fd.data_hash))

    def gan_twins(cfg: ExperimentConfig) -> tuple[CFPairs, CFPairs, str]:
        """The twins of ``cfg``'s GAN (its seed and variant: :attr:`~cffair.experiments.ExperimentConfig.gan_source`)."""
        gan = load_runner("gan")
        name = key("gan_counterfactuals", cfg)
        sets = {part: stages.twins(f"{name}-{part}") for part in ("train", "test")}
        for part, rows in (("train", fd.train), ("test", fd.test)):
            if sets[part] is None:  # fit (or reuse this process's) GAN of the fold
                sets[part] = made = gan.model(fd, cfg).counterfactuals(fd.frame, rows=rows)
                stages.put_twins(f"{name}-{part}", made)
        train, test = fd.pairs(fd.train, cfset=sets["train"]), fd.pairs(fd.test, cfset=sets["test"])
        return train, test, gan.pairs_hash(train)

    if task.stage == "gan":
        records = [_baseline(c, fd, store, contents) for c in task.configs]
        if not task.target.tag:  # a seed tag: a study's GAN no LTN trains on
            gan_twins(task.target)  # stored for the LTN trained on them (appendix A)
        return records
    return load_runner("ltn").run_stage(
        task.stage,
        task.target,
        task.configs,
        fd,
        store,
        contents=contents,
        fingerprint=lambda c, known: record_fingerprint(c, fd.data_hash, known),
        stages=stages,
        key=key,
        gan_twins=gan_twins,
    )


def _baseline(c: ExperimentConfig, fd: FoldData, store: ResultsStore, contents: dict[str, str]) -> dict[str, Any]:
    metrics, timings, extra = load_runner(c.method).run(c, fd)
    return finish(
        c,
        store,
        fd.data_hash,
        contents,
        metrics,
        timings,
        n_train=int(len(fd.train)),
        n_test=int(len(fd.test)),
        **extra,
    )
