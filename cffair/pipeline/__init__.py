"""The protocol of the paper for one fold: data → counterfactuals → training → evaluation → record.

:mod:`cffair.experiments` says *what* runs (configs, grid, store); :mod:`cffair.reproduce` runs
the grid; this package says *how* one task group runs. Each method has its runner module
(:data:`cffair.pipeline.keys.RUNNERS`), imported by name so that a record's fingerprint covers
only the code its own method runs.

Choices (documented on the book's *Reproducing* page):

* Folds: 5 seeded stratified folds (seed 0) for every method, so that methods are paired.
* Counterfactuals: one causal flow per dataset, fitted on all rows' features (the target never
  enters the flow), generating the sensitive flip and every immutable-feature intervention,
  with the paper's treatment of discrete columns (:data:`.counterfactuals.PAPER_TREATMENT`).
* Every method is scored by the same :func:`cffair.metrics.evaluate` on the same CNF test pairs,
  and, on the paper's datasets, also on the test pairs of the rulers of appendix C
  (:data:`.counterfactuals.RULERS`: other twin sets of the sensitive flip), re-scoring each
  trained model without retraining it.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from cffair.experiments.config import ExperimentConfig
from cffair.experiments.store import ResultsStore
from cffair.pipeline.counterfactuals import (
    RULERS,
    content_hash,
    counterfactual_set,
    flow_config,
    prepare_counterfactuals,
    prepare_inputs,
    ruler_sets,
)
from cffair.pipeline.fold import FoldData
from cffair.pipeline.keys import RUNNERS, finish, record_fingerprint

__all__ = [
    "FoldData",
    "counterfactual_set",
    "flow_config",
    "prepare_counterfactuals",
    "prepare_inputs",
    "forget_fold",
    "run_group",
    "run_task",
]

if TYPE_CHECKING:
    from cffair.causal.cfset import CFPairs
    from cffair.experiments.tasks import Task

#: This process's last fold (``(identity, FoldData, input contents)``): consecutive tasks of one
#: fold in a worker load its data once, as one task group did.
_FOLD: list[tuple[tuple, FoldData, dict[str, str]]] = []


def run_group(group: list[ExperimentConfig], store: ResultsStore) -> list[dict[str, Any]]:
    """Run a task group (every LTN setting of one fold with its GAN, or one baseline) and store its records."""
    from cffair.utils import torch_cpu_setup

    torch_cpu_setup()
    cfg0 = group[0]
    fd, contents = _fold(cfg0, cache=False)
    records = [_baseline(c, fd, store, contents) for c in group if c.method != "ltn"]
    ltn = [c for c in group if c.method == "ltn"]
    if ltn:
        runner = importlib.import_module(RUNNERS["ltn"])
        gan_pairs = gan_content = None
        if any(c.cf_source == "gan" for c in ltn):  # the twins of each such config's GAN (seed, variant)
            gan = importlib.import_module(RUNNERS["gan"])
            gan_pairs = lambda c, test: gan.pairs(fd, test, cfg=c)  # noqa: E731
            gan_content = lambda c: gan.pairs_hash(gan.pairs(fd, False, cfg=c))  # noqa: E731
        records += runner.run(
            ltn,
            fd,
            store,
            contents,
            lambda c, known: record_fingerprint(c, fd.data_hash, known),
            gan_pairs=gan_pairs,
            gan_content=gan_content,
        )
    return records


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
    """Run one task of the split grid (:func:`cffair.experiments.tasks.task_graph`) and store its records.

    Its inputs from other tasks (the pre-trained checkpoint, a CKE setting's parent, the GAN's
    twins) come from the store's stage folder (:class:`~cffair.pipeline.stages.StageStore`),
    or are computed here when absent; its records equal :func:`run_group`'s.
    """
    from cffair.pipeline.stages import StageStore
    from cffair.utils import stable_hash, torch_cpu_setup

    torch_cpu_setup()
    if task.stage == "group":
        return run_group(list(task.configs), store)
    fd, contents = _fold(task.target)
    if task.stage == "run":
        return [_baseline(c, fd, store, contents) for c in task.configs]
    stages = StageStore(store.root / "stages")

    def key(name: str, cfg: ExperimentConfig) -> str:
        from cffair.pipeline.keys import producer

        return stable_hash(producer(name, cfg, fd.data_hash))

    def gan_twins(cfg: ExperimentConfig) -> tuple[CFPairs, CFPairs, str]:
        """The twins of ``cfg``'s GAN (its seed and variant: :func:`cffair.pipeline.gan.source_config`)."""
        gan = importlib.import_module(RUNNERS["gan"])
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
    runner = importlib.import_module(RUNNERS["ltn"])
    return runner.run_stage(
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
    metrics, timings, extra = importlib.import_module(RUNNERS[c.method]).run(c, fd)
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
