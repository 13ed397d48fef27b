"""Options and steps shared by the command groups: which data, which counterfactuals, which fold."""

from __future__ import annotations

__all__ = [
    "CATEGORICAL_HELP",
    "DATASET_HELP",
    "add_data_args",
    "add_flow_args",
    "add_read_args",
    "add_sep_arg",
    "add_treatment_args",
    "cache_root",
    "check_cache_writable",
    "check_data_args",
    "INPUT_OPTIONS",
    "Output",
    "check_training_rows",
    "checkpoint_data",
    "check_output",
    "check_output_file",
    "check_outputs",
    "counterfactuals",
    "data_source",
    "flow_config",
    "from_checkpoint",
    "load_data",
    "load_dataset",
    "fold_split",
    "fold_encoder",
    "prepare_fold",
    "read_options",
    "treatment_config",
]

import argparse
import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from cffair.cli._options import OptionError, decimal_mark, positive_int, seed, separator

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
    add_read_args(p)
    p.add_argument("--seed", type=seed, default=0, help=seed_help + " (default 0)")


#: Help of ``--sep``.
SEP_HELP = (
    "column separator of the CSV: one character, or comma | semicolon | tab | pipe | space "
    "(default: sniffed from the header line, a comma when in doubt)"
)

#: Help of ``--decimal``.
DECIMAL_HELP = (
    "decimal mark of the CSV's numbers: . (default) or , (3,5 for three and a half; the separator is then not ,)"
)


def add_read_args(p: argparse.ArgumentParser) -> None:
    """``--sep`` and ``--decimal``: how a CSV of your own is read (default: sniffed separator, ``.``)."""
    p.add_argument("--sep", type=separator, default=None, help=SEP_HELP)
    p.add_argument("--decimal", type=decimal_mark, default=None, help=DECIMAL_HELP)


def add_sep_arg(p: argparse.ArgumentParser) -> None:
    """``--sep`` and ``--decimal`` (:func:`add_read_args`; the old name)."""
    add_read_args(p)


def read_options(args: argparse.Namespace) -> dict[str, str]:
    """The CSV reading options given (``sep``, ``decimal``), for :func:`cffair.datasets.from_csv`."""
    return {k: v for k in ("sep", "decimal") if (v := getattr(args, k, None)) is not None}


def data_source(args: argparse.Namespace) -> tuple[str, str | None]:
    """(dataset name or CSV path, spec path or None) from ``--dataset``/``--data``/``--spec``."""
    return (args.data or args.dataset), args.spec


def check_data_args(args: argparse.Namespace) -> None:
    """``--data`` needs ``--spec``; a spec and a CSV must exist (checked before any work)."""
    source, spec = data_source(args)
    for option in ("sep", "decimal"):
        if getattr(args, option, None) is not None and not spec:
            raise OptionError(
                f"--{option} says how a CSV of your own is read; it needs --data CSV --spec YAML "
                "(a built-in dataset is read as it is)."
            )
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


def load_dataset(source: str, spec: str | None, sep: str | None = None, *, decimal: str | None = None) -> Any:
    """A built-in dataset by name, or a CSV with its spec (:func:`cffair.datasets.from_csv`;
    ``sep``: its column separator, default sniffed; ``decimal``: its decimal mark, default ``.``)."""
    from cffair import datasets

    if not spec:
        return datasets.load(source)
    options = {k: v for k, v in (("sep", sep), ("decimal", decimal)) if v}
    return datasets.from_csv(source, spec, **options)


def load_data(args: argparse.Namespace) -> Any:
    """The dataset the options ``--dataset`` or ``--data``/``--spec``/``--sep``/``--decimal`` name."""
    return load_dataset(*data_source(args), **read_options(args))


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
    from cffair.causal._config import CATEGORICAL_TREATMENTS, INTEGER_TREATMENTS, ORDERED_TREATMENTS

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
        from cffair.causal._config import PAPER_TREATMENT

        config.update(PAPER_TREATMENT)
    return config


def cache_root(args: argparse.Namespace) -> str | None | Literal[False]:
    """``--cache-dir`` (None: the default folder), or ``False`` with ``--no-cache``."""
    return False if getattr(args, "no_cache", False) else getattr(args, "cache_dir", None)


@dataclass(frozen=True)
class Output:
    """A file a command writes, declared with ``parser.set_defaults(outputs=(Output(...), ...))``
    and checked by :func:`check_outputs` before the command starts any work.

    Attributes:
        dest: the attribute of the parsed arguments that holds the path (``"out"``).
        option: the option as the user types it (``"--out"``).
        what: what the file holds, for messages (``"model file"``).
        stdout: ``-`` prints it on the standard output (a table) instead of writing a file.
    """

    dest: str
    option: str
    what: str = "file"
    stdout: bool = False


#: The options that name a command's input files (argument attribute → option), which no output
#: may overwrite; ``name`` is ``data describe``'s positional CSV.
INPUT_OPTIONS: dict[str, str] = {
    "data": "--data",
    "spec": "--spec",
    "graph": "--graph",
    "model": "--model",
    "checkpoint": "--checkpoint",
    "counterfactuals": "--counterfactuals",
    "predictions": "--predictions",
    "twins": "--twins",
    "twin_predictions": "--twin-predictions",
    "name": "the data CSV",
}


def input_files(args: argparse.Namespace) -> list[tuple[str, str]]:
    """``(what, path)`` of every input file the parsed ``args`` name that exists (``what``: "the
    --data file"), with the causal-graph file that ``--spec`` names (a command reads it too)."""
    found: list[tuple[str, str]] = []
    for dest, option in INPUT_OPTIONS.items():
        value = getattr(args, dest, None)
        if isinstance(value, str) and value and Path(value).is_file():
            found.append((option if option.startswith("the ") else f"the {option} file", value))
    spec = getattr(args, "spec", None)
    if isinstance(spec, str) and Path(spec).is_file():
        from cffair.datasets._spec import read_spec

        try:
            graph = read_spec(spec).get("graph")  # type: ignore[union-attr]
        except Exception:  # a spec that does not parse is the command's error to report, with its line
            graph = None
        if isinstance(graph, str) and Path(graph).is_file():
            found.append(("the graph file that --spec names", graph))
    return found


def check_output(
    path: str | None,
    option: str,
    *,
    what: str = "file",
    stdout: bool = False,
    inputs: Iterable[tuple[str, str]] = (),
) -> None:
    """Before any work: ``path`` (given as ``option``) can be written and destroys no input.

    Args:
        path: the path given (``None``: the option was not given; ``-``: the standard output).
        option: the option's name, for messages.
        what: what the file holds, for messages.
        stdout: whether ``-`` (print on the standard output) is allowed.
        inputs: ``(what, path)`` of the command's input files (:func:`input_files`).

    Raises:
        OptionError: an empty path, ``-`` where no table is written, or a path that is one of
            ``inputs`` (the same file, through symbolic or hard links too).
        StorageError: a folder, a device, pipe, socket or kernel file (which the atomic write
            would replace: :func:`cffair._support.io.special_file`), a read-only folder, no permission,
            or a file in the way.
    """
    if path is None:
        return
    from cffair._support.io import special_file, writable_dir
    from cffair.errors import StorageError

    to_stdout = "; to print it, give " + option + " -" if stdout else ""
    if path == "-":
        if stdout:
            return
        raise OptionError(f"{option} -: a {what} cannot be written to the standard output; give the path of a file.")
    if not path.strip():
        raise OptionError(f"{option} is empty; give the path of the {what} to write{to_stdout}.")
    target = Path(path)
    special = special_file(target)
    if special is not None:
        raise StorageError(
            f"cannot write {option} {path}: it is {special}, not a regular file, and writing the {what} would replace "
            f"it; give the path of a regular file{to_stdout}",
            path=target,
        )
    if target.is_dir():
        raise StorageError(
            f"cannot write {option} {path}: it is a folder; give the path of a file in it (e.g. "
            f"{target / ('table.csv' if stdout else 'out')})",
            path=target,
        )
    if target.exists():
        for name, source in inputs:
            try:
                same = os.path.samefile(target, source)
            except OSError:
                same = False
            if same:
                also = "" if os.path.abspath(path) == os.path.abspath(source) else f" ({source}, the same file)"
                raise OptionError(
                    f"{option} {path} is {name}{also}: writing the {what} there would destroy that input; "
                    f"give {option} another path."
                )
    writable_dir(Path(os.path.realpath(target)).parent, file=f"{option} {path}", hint=f"give {option} another path")


def check_output_file(path: str | None, option: str) -> None:
    """Before any work: the file ``option`` names can be written (:func:`check_output`, without inputs)."""
    check_output(path, option)


def check_outputs(args: argparse.Namespace) -> None:
    """Check every output a command declares (``args.outputs``, :class:`Output`) before any work:
    each can be written, and none is one of the command's input files (:func:`input_files`).

    :func:`cffair.cli.main` calls it for every command, after the command's own ``check``.
    """
    outputs: tuple[Output, ...] = getattr(args, "outputs", ())
    if not outputs:
        return
    inputs = input_files(args)
    for out in outputs:
        check_output(getattr(args, out.dest, None), out.option, what=out.what, stdout=out.stdout, inputs=inputs)


def check_cache_writable(args: argparse.Namespace) -> None:
    """Before any work: the cache folder (``--cache-dir``, ``$CFFAIR_CACHE`` or the default) takes files, unless ``--no-cache``."""
    root = cache_root(args)
    if root is False:
        return
    from cffair._support.io import writable_dir
    from cffair.causal._cache import cache_dir

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
    elsewhere (:func:`cffair.causal._integrity.check_belongs`, which ``cffair audit --twins`` runs
    too): the spec's columns, its stored data hash and, unless its generator reconstructs every
    column (a GAN), that its rows belong to the factual rows their row ids name: permuted row
    ids are refused.
    """
    from cffair.causal import CounterfactualSet

    if path:
        from cffair.causal._integrity import check_belongs

        cfs = CounterfactualSet.load(path)
        check_belongs(cfs, *ds)
        return cfs
    from cffair.causal import generate

    return generate(ds, interventions=interventions, config=config, seed=seed, cache_dir=cache, progress=not quiet)


def fold_split(fold: int, n_folds: int, seed: int) -> Any:
    """The rows a command trains on: fold ``fold`` of ``n_folds`` stratified folds of the partition
    with seed ``seed`` (the seed also trains), all rows (no quick-mode cap):
    a :class:`~cffair.datasets.FoldSplit`, the grid's fold builder.

    Raises:
        DataError: for a fold outside ``0..n_folds - 1``.
    """
    from cffair.datasets._folds import FoldSplit

    return FoldSplit(fold, n_folds, seed)


def prepare_fold(ds: Any, fold: int, n_folds: int, seed: int, cfs: Any) -> Any:
    """The fold a command trains on, built as the grid builds its folds
    (:meth:`cffair.experiments._pipeline.fold.FoldData.from_split`): the encoder fitted on the training part, the
    encoded rows and labels, the sensitive-attribute pairs of both parts, the shared evaluation."""
    from cffair.experiments._pipeline.fold import FoldData

    return FoldData.from_split(fold_split(fold, n_folds, seed), ds, cfs)


def fold_encoder(ds: Any, extra: dict[str, Any]) -> tuple[Any, Any]:
    """The training rows and the fitted encoder of a checkpoint's fold (``extra``: its saved
    ``folds``, ``fold`` and ``seed``), split as :func:`prepare_fold` splits."""
    from cffair.datasets._encoding import Encoder

    frame, spec = ds
    train, _ = fold_split(extra.get("fold", 0), extra.get("folds", 5), extra.get("seed", 0)).rows(frame, spec)
    return train, Encoder(spec).fit(frame.iloc[train])


def checkpoint_data(ds: Any) -> dict[str, Any]:
    """The hashes a checkpoint stores of its data: rows, columns, spec and graph (:func:`cffair._support.artefacts.data_fingerprint`)."""
    from cffair._support.artefacts import data_fingerprint

    frame, spec = ds
    return data_fingerprint(frame, spec, spec.load_graph() if spec.graph is not None else None)


def check_training_rows(learner: Any, ds: Any, extra: dict[str, Any], encoder: Any, path: str) -> None:
    """Check that the fold and encoder rebuilt from the data give the rows ``learner`` was trained on.

    The learner stores the hash of its encoded training rows and labels (``data_hash_``, set by
    :meth:`~cffair.learners.LTNLearner.fit`); rebuilding the fold and the encoder from the
    checked data must reproduce it, or the model would be read with another encoding (other
    folds or scalings from another cffair or scikit-learn version).

    Raises:
        DataError: one line naming both hashes and the fix.
    """
    import numpy as np

    from cffair.errors import DataError
    from cffair.learners._pretraining import _data_hash

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
    from cffair._support.artefacts import check_data_fingerprint
    from cffair.errors import DataError
    from cffair.learners._checkpoint import learner_state
    from cffair.learners._training import LTNLearner

    state = learner_state(path)  # ArtefactError (one line, how to regenerate) for anything unreadable
    extra = dict(state.get("extra") or {})
    if "dataset" not in extra:
        raise DataError(
            f"{path} does not say which dataset it was trained on; it was not written by `cffair train --save`."
        )
    learner = LTNLearner.load(state, progress=False)
    ds = load_dataset(extra["dataset"], extra.get("spec"), extra.get("sep"), decimal=extra.get("decimal"))
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
