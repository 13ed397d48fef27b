"""Options and steps shared by the command groups: which data, which counterfactuals, which fold."""

from __future__ import annotations

__all__ = [
    "CATEGORICAL_HELP",
    "DATASET_HELP",
    "add_data_args",
    "add_flow_args",
    "add_treatment_args",
    "cache_root",
    "check_cache_writable",
    "check_data_args",
    "check_training_rows",
    "checkpoint_data",
    "check_output_file",
    "counterfactuals",
    "data_source",
    "flow_config",
    "from_checkpoint",
    "load_dataset",
    "fold_config",
    "fold_encoder",
    "prepare_fold",
    "treatment_config",
]

import argparse
from pathlib import Path
from typing import Any, Literal

from cffair.cli._options import OptionError, positive_int, seed, separator

#: Help of ``--dataset``.
DATASET_HELP = "a built-in dataset: adult | compas | compas_age | lawschool (or a CSV path with --spec)"

#: Help of ``--categorical`` (``None``, the default, leaves the choice to the library).
CATEGORICAL_HELP = (
    "treatment of nominal categorical nodes: 'gumbel', a conditional categorical with Gumbel-max "
    "counterfactuals (the library default), or 'flow'/'paper', integer codes through the flow (the paper's)"
)
ORDERED_HELP = (
    "treatment of binary and ordinal nodes: 'threshold', a cumulative-logit model with posterior noise (the "
    "library default), 'midpoint' (the paper's: dequantised codes abducted at the bin midpoint) or 'sample'"
)
INTEGER_HELP = "treatment of integer nodes: 'midpoint' (the default and the paper's) or 'sample'"
PAPER_HELP = "the paper's treatment of every discrete column (integer codes, midpoints, one transform); overrides the three above"


def add_data_args(p: argparse.ArgumentParser, *, seed_help: str = "seed of the folds, the flow and the model") -> None:
    """``--dataset NAME`` or ``--data CSV --spec YAML``, and ``--seed``."""
    which = p.add_mutually_exclusive_group(required=True)
    which.add_argument("--dataset", help=DATASET_HELP)
    which.add_argument("--data", metavar="CSV", help="a CSV of your own (needs --spec)")
    p.add_argument("--spec", metavar="YAML", help="YAML spec of your CSV (target, sensitive, features, graph, ...)")
    add_sep_arg(p)
    p.add_argument("--seed", type=seed, default=0, help=seed_help + " (default 0)")


#: Help of ``--sep``.
SEP_HELP = (
    "column separator of the CSV: one character, or comma | semicolon | tab | pipe | space "
    "(default: sniffed from the header line, a comma when in doubt)"
)


def add_sep_arg(p: argparse.ArgumentParser) -> None:
    """``--sep``: the CSV's column separator (default: sniffed)."""
    p.add_argument("--sep", type=separator, default=None, help=SEP_HELP)


def data_source(args: argparse.Namespace) -> tuple[str, str | None]:
    """(dataset name or CSV path, spec path or None) from ``--dataset``/``--data``/``--spec``."""
    return (args.data or args.dataset), args.spec


def check_data_args(args: argparse.Namespace) -> None:
    """``--data`` needs ``--spec``; a spec and a CSV must exist (checked before any work)."""
    source, spec = data_source(args)
    if getattr(args, "sep", None) is not None and not spec:
        raise OptionError("--sep sets the separator of a CSV of your own; it needs --data CSV --spec YAML.")
    if args.data and not spec:
        raise OptionError(
            f"--data {args.data} needs --spec SPEC.yaml describing its columns (target, sensitive, features)."
        )
    if spec:
        if not Path(spec).is_file():
            raise OptionError(f"--spec {spec}: no such file; give the path of your dataset's YAML spec.")
        if not Path(source).is_file():
            raise OptionError(
                f"{'--data' if args.data else '--dataset'} {source}: no such file; with --spec, give the path of your CSV "
                "(or drop --spec to use a built-in dataset)."
            )


def load_dataset(source: str, spec: str | None, sep: str | None = None) -> Any:
    """A built-in dataset by name, or a CSV with its spec (:func:`cffair.datasets.from_csv`;
    ``sep``: its column separator, default sniffed)."""
    from cffair import datasets

    if not spec:
        return datasets.load(source)
    return datasets.from_csv(source, spec, **({"sep": sep} if sep else {}))


def add_flow_args(p: argparse.ArgumentParser) -> None:
    """Options of the causal flow that generates counterfactuals, and of the cache."""
    g = p.add_argument_group("counterfactual generation (causal normalising flow)")
    add_treatment_args(g)
    g.add_argument(
        "--flow-epochs", type=positive_int, default=None, help="maximum epochs of the flow (default 1000, the paper's)"
    )
    g.add_argument(
        "--cache-dir",
        help="cache folder of flows, counterfactuals and pre-trained models (default $CFFAIR_CACHE or ~/.cache/cffair)",
    )
    g.add_argument("--no-cache", action="store_true", help="neither read nor write the cache")


def flow_config(args: argparse.Namespace) -> dict[str, Any]:
    """The flow settings the options set (the rest keep :class:`~cffair.causal.FlowConfig`'s defaults)."""
    config: dict[str, Any] = {}
    if getattr(args, "flow_epochs", None) is not None:
        config["epochs"] = args.flow_epochs
    config.update(treatment_config(args))
    return config


def add_treatment_args(g: Any) -> None:
    """``--categorical``, ``--ordered``, ``--integer`` and ``--paper-treatment``: how discrete columns are treated."""
    from cffair.causal.config import CATEGORICAL_TREATMENTS, INTEGER_TREATMENTS, ORDERED_TREATMENTS

    g.add_argument("--categorical", choices=list(CATEGORICAL_TREATMENTS), default=None, help=CATEGORICAL_HELP)
    g.add_argument("--ordered", choices=list(ORDERED_TREATMENTS), default=None, help=ORDERED_HELP)
    g.add_argument("--integer", choices=list(INTEGER_TREATMENTS), default=None, help=INTEGER_HELP)
    g.add_argument("--paper-treatment", action="store_true", help=PAPER_HELP)


def treatment_config(args: argparse.Namespace) -> dict[str, Any]:
    """The treatment options given (``None`` leaves the library's default)."""
    config: dict[str, Any] = {}
    for option in ("categorical", "ordered", "integer"):
        if getattr(args, option, None) is not None:
            config[option] = getattr(args, option)
    if getattr(args, "paper_treatment", False):
        from cffair.causal.config import PAPER_TREATMENT

        config.update(PAPER_TREATMENT)
    return config


def cache_root(args: argparse.Namespace) -> str | None | Literal[False]:
    """``--cache-dir`` (None: the default folder), or ``False`` with ``--no-cache``."""
    return False if getattr(args, "no_cache", False) else getattr(args, "cache_dir", None)


def check_output_file(path: str | None, option: str) -> None:
    """Before any work: the file ``option`` names can be written (its folder exists or can be made, and takes files).

    Raises:
        StorageError: a read-only folder, no permission, a file in the way, or ``path`` is a folder.
    """
    if not path:
        return
    from cffair._io import writable_dir
    from cffair.errors import StorageError

    target = Path(path)
    if target.is_dir():
        raise StorageError(f"cannot write {option} {path}: it is a folder; give the path of a file", path=target)
    writable_dir(target.parent, file=f"{option} {path}", hint=f"give {option} another path")


def check_cache_writable(args: argparse.Namespace) -> None:
    """Before any work: the cache folder (``--cache-dir``, ``$CFFAIR_CACHE`` or the default) takes files, unless ``--no-cache``."""
    root = cache_root(args)
    if root is False:
        return
    from cffair._io import writable_dir
    from cffair.causal.cache import cache_dir

    writable_dir(cache_dir(root if isinstance(root, str) else None), what="cache folder", hint=CACHE_FIX)


#: How to get around a cache folder that cannot be written.
CACHE_FIX = "set CFFAIR_CACHE or --cache-dir to a writable folder, or pass --no-cache"


def counterfactuals(
    ds: Any,
    path: str | None,
    *,
    interventions: str,
    config: dict[str, Any],
    seed: int,
    cache: str | None | bool,
    quiet: bool,
) -> Any:
    """A counterfactual set from a parquet file, or generated by the causal flow (cached).

    A file is checked against the data it is used with by the one check of a set brought from
    elsewhere (:func:`cffair.causal.integrity.check_belongs`, which ``cffair audit --twins`` runs
    too): the spec's columns, its stored data hash and, unless its generator reconstructs every
    column (a GAN), that its rows belong to the factual rows their row ids name: permuted row
    ids are refused.
    """
    from cffair.causal import CounterfactualSet

    if path:
        from cffair.causal.integrity import check_belongs

        cfs = CounterfactualSet.load(path)
        check_belongs(cfs, *ds)
        return cfs
    from cffair.causal import generate

    return generate(ds, interventions=interventions, config=config, seed=seed, cache_dir=cache, progress=not quiet)


def fold_config(spec: Any, fold: int, n_folds: int, seed: int) -> Any:
    """The :class:`~cffair.experiments.ExperimentConfig` of a command's fold: fold ``fold`` of
    ``n_folds`` stratified folds of the partition with seed ``seed`` (the seed also trains), all
    rows (no quick-mode cap).

    Raises:
        DataError: for a fold outside ``0..n_folds - 1``, naming the option.
    """
    from cffair.errors import DataError
    from cffair.experiments.config import ExperimentConfig

    if not 0 <= fold < n_folds:
        raise DataError(f"--fold must lie in 0..{n_folds - 1}, got {fold}.")
    return ExperimentConfig(spec.name, fold, "ltn_acc", profile="full", seed=seed, n_folds=n_folds, repeat=seed)


def prepare_fold(ds: Any, fold: int, n_folds: int, seed: int, cfs: Any) -> Any:
    """The fold a command trains on, built as the grid builds its folds
    (:meth:`cffair.pipeline.fold.FoldData.build`): the encoder fitted on the training part, the
    encoded rows and labels, the sensitive-attribute pairs of both parts, the shared evaluation."""
    from cffair.pipeline.fold import FoldData

    frame, spec = ds
    return FoldData.build(fold_config(spec, fold, n_folds, seed), cfs, dataset=(frame, spec))


def fold_encoder(ds: Any, extra: dict[str, Any]) -> tuple[Any, Any]:
    """The training rows and the fitted encoder of a checkpoint's fold (``extra``: its saved
    ``folds``, ``fold`` and ``seed``), split as :func:`prepare_fold` splits."""
    from cffair.encoding import Encoder
    from cffair.pipeline.fold import fold_rows

    frame, spec = ds
    train, _ = fold_rows(
        frame, spec, fold_config(spec, extra.get("fold", 0), extra.get("folds", 5), extra.get("seed", 0))
    )
    return train, Encoder(spec).fit(frame.iloc[train])


def checkpoint_data(ds: Any) -> dict[str, Any]:
    """The hashes a checkpoint stores of its data: rows, columns, spec and graph (:func:`cffair.artefacts.data_fingerprint`)."""
    from cffair.artefacts import data_fingerprint

    frame, spec = ds
    return data_fingerprint(frame, spec, spec.load_graph() if spec.graph is not None else None)


def check_training_rows(learner: Any, ds: Any, extra: dict[str, Any], encoder: Any, path: str) -> None:
    """Check that the fold and encoder rebuilt from the data give the rows ``learner`` was trained on.

    The learner stores the hash of its encoded training rows and labels (``data_hash_``, set by
    :meth:`~cffair.training.LTNLearner.fit`); rebuilding the fold and the encoder from the
    checked data must reproduce it, or the model would be read with another encoding (other
    folds or scalings from another cffair or scikit-learn version).

    Raises:
        DataError: one line naming both hashes and the fix.
    """
    import numpy as np

    from cffair.errors import DataError
    from cffair.pretraining import _data_hash

    stored = getattr(learner, "data_hash_", None)
    if stored is None:
        return
    frame, spec = ds
    folds, fold, seed = extra.get("folds", 5), extra.get("fold", 0), extra.get("seed", 0)
    rows = frame.iloc[fold_encoder(ds, extra)[0]]
    now = _data_hash(encoder.transform(rows), rows[spec.target].to_numpy(dtype=np.float64))
    if now != stored:
        raise DataError(
            f"the training rows of checkpoint {path} (fold {fold} of {folds}, seed {seed}) rebuilt from its data encode "
            f"differently now (hash {stored} at training, {now} now): the folds or the encoder changed, e.g. another "
            "cffair or scikit-learn version; train again with `cffair train ... --save PATH`."
        )


def from_checkpoint(path: str) -> tuple[Any, dict[str, Any], Any]:
    """A learner saved by `cffair train --save`, its saved extras and its dataset; a one-line error for anything else.

    The dataset is read again from where it was at training time and checked against the hashes
    the checkpoint stores (:func:`checkpoint_data`): data reordered, edited, grown or shrunk
    since, or an edited spec or graph, are refused, so that ``--row N`` never names another person.

    Raises:
        ArtefactError: for a missing, damaged, old-format or crafted checkpoint.
        DataError: for a checkpoint not written by ``cffair train --save``, or data that changed.
    """
    from cffair.artefacts import check_data_fingerprint, learner_state
    from cffair.errors import DataError
    from cffair.training import LTNLearner

    state = learner_state(path)  # ArtefactError (one line, how to regenerate) for anything unreadable
    extra = dict(state.get("extra") or {})
    if "dataset" not in extra:
        raise DataError(
            f"{path} does not say which dataset it was trained on; it was not written by `cffair train --save`."
        )
    learner = LTNLearner.load(state, progress=False)
    ds = load_dataset(extra["dataset"], extra.get("spec"), extra.get("sep"))
    frame, spec = ds
    graph = spec.load_graph() if spec.graph is not None and "graph" in (extra.get("data") or {}) else None
    check_data_fingerprint(
        extra.get("data"),
        frame,
        spec,
        graph,
        what=f"checkpoint {path}",
        fix=f"restore the data it was trained on ({extra['dataset']}), or train again with "
        "`cffair train ... --save PATH` on today's data",
    )
    return learner, extra, ds
