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
from typing import Any

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

__all__ = ["FoldData", "counterfactual_set", "flow_config", "prepare_counterfactuals", "prepare_inputs", "run_group"]


def run_group(group: list[ExperimentConfig], store: ResultsStore) -> list[dict[str, Any]]:
    """Run a task group (every LTN setting of one fold with its GAN, or one baseline) and store its records."""
    from cffair.utils import torch_cpu_setup

    torch_cpu_setup()
    cfg0 = group[0]
    cfset = counterfactual_set(cfg0.dataset, cfg0.profile)
    contents = {"counterfactuals": content_hash(cfset)}
    rulers = ruler_sets(cfg0.dataset, cfg0.profile, paper=cfset)  # appendix C's; {} for a registered dataset
    contents.update({RULERS[name].input: content_hash(twins) for name, twins in rulers.items() if name != "paper"})
    fd = FoldData.build(cfg0, cfset, rulers)
    records = []
    for c in group:
        if c.method != "ltn":
            metrics, timings, extra = importlib.import_module(RUNNERS[c.method]).run(c, fd)
            records.append(finish(c, store, fd.data_hash, contents, metrics, timings,
                                  n_train=int(len(fd.train)), n_test=int(len(fd.test)), **extra))
    ltn = [c for c in group if c.method == "ltn"]
    if ltn:
        runner = importlib.import_module(RUNNERS["ltn"])
        gan_pairs = gan_content = None
        if any(c.cf_source == "gan" for c in ltn):  # the twins of each such config's GAN (seed, variant)
            gan = importlib.import_module(RUNNERS["gan"])
            gan_pairs = lambda c, test: gan.pairs(fd, test, cfg=c)  # noqa: E731
            gan_content = lambda c: gan.pairs_hash(gan.pairs(fd, False, cfg=c))  # noqa: E731
        records += runner.run(ltn, fd, store, contents, lambda c, known: record_fingerprint(c, fd.data_hash, known),
                              gan_pairs=gan_pairs, gan_content=gan_content)
    return records
