"""Which code, data, settings and inputs a record's numbers depend on: its fingerprint.

The mechanics (normalised code, import closures, differences) are in
:mod:`cffair.experiments._fingerprint`; this module says, for each method of the protocol, which
modules it runs and which upstream outputs it consumes:

* every record runs :mod:`cffair.experiments._pipeline.fold` (data, folds, the shared evaluation) and its
  method's runner (:data:`RUNNERS`), with everything they import;
* the dispatcher :mod:`cffair.experiments._pipeline` counts with its own code only (it imports every
  runner; a record runs one of them);
* the CNF twins (:mod:`cffair.experiments._pipeline.counterfactuals`) enter every record by content; the
  pre-trained checkpoint enters every LTN setting that continues from it; the GAN's twins
  enter the LTN trained on them (appendix A);
* on the paper's datasets, the rulers of appendix C (other twin sets the shared evaluation also
  scores on, :data:`cffair.experiments._pipeline.counterfactuals.RULERS`) enter every record by content.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from typing import Any

from cffair.experiments import _registry as registry
from cffair.experiments._config import ExperimentConfig, profile
from cffair.experiments._fingerprint import SourceTree, package_versions

__all__ = [
    "DISPATCHER",
    "PRODUCERS",
    "RUNNERS",
    "expected_fingerprint",
    "finish",
    "input_names",
    "producer",
    "record_fingerprint",
]

FINGERPRINT_EXEMPT = True  # says what a record depends on; changes no number

DISPATCHER = "cffair.experiments._pipeline"
COMMON = "cffair.experiments._pipeline.fold"
#: Stages whose output a record consumes by content hash (their code is not the record's).
PRODUCERS = ("cffair.experiments._pipeline.counterfactuals",)
#: Stages whose output only some records consume (the investigations'), by input name; kept
#: apart from PRODUCERS so that the fingerprints of the paper's records do not change.
OPTIONAL_PRODUCERS: dict[str, str] = {"counterfactuals_all": "cffair.experiments._pipeline.explanations"}


#: The module that runs each method on a fold (``"ltn"`` for every LTN setting): the registry's
#: (:func:`cffair.experiments._registry.runners`), read on every access.
RUNNERS: Mapping[str, str] = registry.View(registry.runners)


def code(method: str, tree: SourceTree | None = None) -> dict[str, str]:
    """``{module: hash}`` of the code a method's record runs (in ``tree``, default the installed one)."""
    if tree is None:
        return dict(_installed_code(method))
    return tree.code_fingerprint(
        [COMMON, RUNNERS[method]], stop=(*PRODUCERS, *OPTIONAL_PRODUCERS.values()), shallow=[DISPATCHER]
    )


@cache
def _installed_code(method: str) -> dict[str, str]:
    return code(method, SourceTree.installed())


@cache
def _packages() -> dict[str, str | None]:
    return package_versions()


def _config(cfg: ExperimentConfig) -> dict[str, Any]:
    return {**cfg.to_dict(), "profile_values": profile(cfg.profile).to_dict()}


def input_names(cfg: ExperimentConfig) -> tuple[str, ...]:
    """The upstream outputs a record consumes."""
    names = ["counterfactuals"]
    if cfg.method == "ltn" and (cfg.setting != "ltn_acc" or cfg.tag):
        names.append("pretrained")
    if cfg.cf_source == "gan" and cfg.method == "ltn":
        names.append("gan_counterfactuals")
    if cfg.option_map.get("explain") == "all":
        names.append("counterfactuals_all")
    return (*names, *_ruler_inputs(cfg.dataset))


def _ruler_inputs(dataset: str) -> tuple[str, ...]:
    from cffair.experiments._pipeline.counterfactuals import ruler_inputs

    return ruler_inputs(dataset)


def producer(name: str, cfg: ExperimentConfig, data_hash: str) -> dict[str, Any]:
    """The fingerprint of the stage that makes input ``name`` of ``cfg``."""
    from cffair.experiments._pipeline.counterfactuals import flow_config

    packages = dict(_packages())
    if name == "counterfactuals":
        tree = SourceTree.installed()
        return {
            "code": tree.code_fingerprint(PRODUCERS),
            "data": data_hash,
            "config": {
                "dataset": cfg.dataset,
                "flow": flow_config(cfg.profile, cfg.dataset),
                "seed": 0,
                "interventions": "immutable",
            },
            "packages": packages,
        }
    if name == "pretrained":
        prof = profile(cfg.profile)  # the profile's values, the options over them below (the key stays as it was)
        return {
            "code": code("ltn"),
            "data": data_hash,
            "config": {
                "dataset": cfg.dataset,
                "fold": cfg.fold,
                "seed": cfg.seed,
                "pretrain_epochs": prof.pretrain_epochs,
                "lr": prof.lr,
                "max_rows": prof.max_rows,
                "n_folds": cfg.fold_count,
                **dict(cfg.pretrain_options),
                **({"repeat": cfg.repeat} if cfg.repeat else {}),
            },  # absent for the paper's partition
            "packages": packages,
        }
    if name == "counterfactuals_all":
        return {
            "code": SourceTree.installed().code_fingerprint([OPTIONAL_PRODUCERS[name]]),
            "data": data_hash,
            "config": {
                "dataset": cfg.dataset,
                "flow": flow_config(cfg.profile, cfg.dataset),
                "seed": 0,
                "interventions": "all",
            },
            "packages": packages,
        }
    if name in _ruler_inputs(cfg.dataset):
        from cffair.experiments._pipeline.counterfactuals import RULERS, ruler_config

        ruler = next(r for r in RULERS.values() if r.input == name)
        return {
            "code": SourceTree.installed().code_fingerprint(PRODUCERS),
            "data": data_hash,
            "config": {
                "dataset": cfg.dataset,
                "flow": ruler_config(ruler.name, cfg.profile),
                "seed": ruler.seed,
                "interventions": "sensitive",
            },
            "packages": packages,
        }
    if name == "gan_counterfactuals":
        return {"code": code("gan"), "data": data_hash, "config": _config(cfg.gan_source), "packages": packages}
    raise KeyError(f"unknown input {name!r}")


def record_fingerprint(cfg: ExperimentConfig, data_hash: str, contents: Mapping[str, str | None]) -> dict[str, Any]:
    """The fingerprint of ``cfg``'s record given the content hashes of its inputs."""
    return {
        "code": code(cfg.method),
        "data": data_hash,
        "config": _config(cfg),
        "packages": dict(_packages()),
        "inputs": {n: {"content": contents.get(n), "producer": producer(n, cfg, data_hash)} for n in input_names(cfg)},
    }


def expected_fingerprint(cfg: ExperimentConfig, data_hash: str | None = None) -> dict[str, Any]:
    """What today's checkout would fingerprint ``cfg``'s record with (input contents unknown)."""
    return record_fingerprint(cfg, data_hash if data_hash is not None else dataset_hash(cfg.dataset), {})


def dataset_hash(name: str) -> str:
    """Hash of a dataset's rows (with a registered dataset's spec and graph), cached per
    process: :func:`cffair.datasets.data_hash`."""
    from cffair import datasets as D

    return D.data_hash(name)


def finish(
    cfg: ExperimentConfig,
    store: Any,
    data_hash: str,
    contents: Mapping[str, str | None],
    metrics: Mapping[str, Any],
    timings: Mapping[str, float],
    **extra: Any,
) -> dict[str, Any]:
    """Fingerprint, assemble and store a record; return it."""
    from cffair.experiments._store import make_record

    rec = make_record(cfg, record_fingerprint(cfg, data_hash, contents), metrics, timings, **extra)
    store.put(rec)
    return rec
