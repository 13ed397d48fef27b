"""``cffair audit``: the counterfactual fairness of a model trained elsewhere (:mod:`cffair.evaluation._audit`).

Three ways to bring the model:

* ``--model MODEL.cffair``: a model of cffair's own (``cffair fit``, ``cffair run --save-models``,
  :func:`cffair.learners.save_model`), loaded with its checks (:func:`cffair.learners.load_model`).
  Its twins come from the flow stored in the file, fitted on the model's training data; the
  spec is the file's too, so ``--spec`` may be left out.
* ``--model MODEL.skops``: a scikit-learn model (e.g. a ``Pipeline`` whose first step encodes
  readable rows) saved with skops (``skops.io.dump``). It is loaded with skops' secure loader:
  only types that skops trusts by default are loaded; a file with other types is refused with
  their names, and ``--trust TYPE`` (repeatable) trusts one after you have checked it. A pickle
  is never loaded.
* ``--predictions P.csv --twins TWINS.parquet --twin-predictions T.csv``: predictions made
  anywhere, matched to their rows by identity, never by position alone
  (:mod:`cffair.evaluation._alignment`): ``P.csv`` has a column ``d`` with one prediction (P(y = 1), or the
  score) per data row and a column ``row_id``, the row's 0-based position in the data (the rows
  may come in any order); ``TWINS.parquet`` is the counterfactual set the model was run on
  (``cffair counterfactuals generate``); ``T.csv`` has a column ``d_cf`` with one prediction per
  twin and the twins file's key columns (``row_id``, ``feature``, ``value``, ``sample``; those
  that name one twin each suffice). A file without ``row_id`` is refused (a shuffled one would
  score other people's twins) unless it is a single column written by
  :func:`cffair.evaluation.save_predictions`, which stores beside it the hash of the rows it was
  made for. A binary target's predictions must be probabilities in [0, 1] (percentages are
  refused with the fix).

Twins from ``--twins`` pass the checks of ``cffair train --counterfactuals``
(:func:`cffair.causal._integrity.check_belongs`: the spec's columns, the data hash, the row ids,
and that each twin keeps its row's values where the intervention cannot change them), all before
the model is called.

Example::

    cffair audit --data credit.csv --spec spec.yaml --model logreg.skops --out audit.json

It prints the CF-MSE, the counterfactual flip rate (the share of person-twin pairs whose
decision differs), one line saying where the twins came from, then a table of the overall
numbers with bootstrap 95 % intervals (accuracy when the data has the target column, CF-MSE,
flip rate, and the group fairness of the decisions: the demographic-parity and equalized-odds
differences between the sensitive attribute's groups, fairlearn's ``MetricFrame``), the rates
per sensitive group, and the numbers per subgroup with their intervals; ``--out`` also writes
them as JSON. The intervals resample the factual rows with all their twins
(:mod:`cffair.evaluation._audit_stats`).

Where the twins come from: the ``--twins`` file; else the flow of the model's training data
(``--model M.cffair``, whose file holds it; or ``--training-data TRAIN.csv``, on which a flow is
fitted and cached); else a flow fitted on the audited rows themselves, which on a few hundred
held-out rows makes other twins than the training data's flow (in one trial flip rate 0.108
against 0.074 for the same model). A flow is fitted for the audit (``--flow-fit audit``, large
batches: :data:`cffair.evaluation.AUDIT_FLOW`) or as ``cffair counterfactuals generate`` fits it
(``--flow-fit default``), and cached: a second audit on the same data and spec fits nothing.
"""

from __future__ import annotations

__all__ = ["register"]

import argparse
import json
from dataclasses import replace
from pathlib import Path
from typing import Any

from cffair.cli._common import (
    Output,
    add_data_args,
    add_flow_args,
    cache_root,
    check_data_args,
    flow_config,
    load_data,
    read_options,
)
from cffair.cli._options import OptionError, non_negative_int


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``audit`` to the ``cffair`` command line."""
    p = sub.add_parser(
        "audit", help="counterfactual fairness (CF-MSE, flip rate, per subgroup) of a model trained elsewhere"
    )
    add_data_args(p, seed_help="seed of the flow, the twins and the bootstrap")
    which = p.add_mutually_exclusive_group(required=True)
    which.add_argument(
        "--model",
        metavar="MODEL",
        help="a model of cffair's own (MODEL.cffair, from cffair fit; its twins come from its training data's flow) "
        "or a scikit-learn model saved with skops.io.dump (MODEL.skops; predict_proba on readable rows)",
    )
    which.add_argument(
        "--predictions",
        metavar="CSV",
        help="CSV with columns row_id (0-based position of the row in the data, any order) and d (one prediction "
        "per data row); needs --twins and --twin-predictions. Without row_id it is refused, unless it is one column "
        "written by cffair.evaluation.save_predictions (which stores the rows' hash beside it)",
    )
    p.add_argument(
        "--trust",
        action="append",
        default=[],
        metavar="TYPE",
        help="a type the skops file may load beyond skops' defaults (repeatable; check it first)",
    )
    p.add_argument(
        "--twins",
        metavar="PARQUET",
        help="counterfactuals from a file, checked as cffair train --counterfactuals checks them (default: made by the "
        "causal flow, cached)",
    )
    p.add_argument(
        "--twin-predictions",
        metavar="CSV",
        help="CSV with column d_cf (one prediction per twin) and the --twins file's key columns row_id, feature, "
        "value, sample (any order; those that name one twin each suffice)",
    )
    p.add_argument(
        "--training-data",
        metavar="CSV",
        help="the rows the --model SKOPS was trained on (read with --spec): the twins of the audited rows come from a "
        "flow fitted on them (default: a flow fitted on the audited rows; a .cffair model brings its own)",
    )
    p.add_argument(
        "--n-boot",
        type=non_negative_int,
        default=200,
        help="bootstrap resamples of the audited rows, each with all its twins (default 200; 0: no intervals)",
    )
    p.add_argument(
        "--flow-fit",
        choices=["audit", "default"],
        default="audit",
        help="how the twins' flow is fitted: 'audit' (default; batches of 4096, several times faster on Adult) "
        "or 'default' (the library's batches of 256, as cffair counterfactuals generate fits it)",
    )
    p.add_argument("--out", metavar="JSON", help="also write the result as JSON")
    p.add_argument("--quiet", action="store_true", help="no progress bars")
    add_flow_args(p)
    p.set_defaults(func=_audit, check=_check, outputs=(Output("out", "--out", "result file"),))


def is_cffair_model(path: str) -> bool:
    """Whether ``--model`` names a model of cffair's own: a ``.cffair`` file, or (any other name
    but ``.skops``) a file that is not a skops archive (a skops archive holds ``schema.json``)."""
    import zipfile

    suffix = Path(path).suffix.lower()
    if suffix in (".cffair", ".skops"):
        return suffix == ".cffair"
    try:
        with zipfile.ZipFile(path) as archive:
            return "schema.json" not in archive.namelist()
    except (zipfile.BadZipFile, OSError):
        return True  # not a skops file: load_model says what it is not


def _check(args: argparse.Namespace) -> None:
    own = bool(args.model) and Path(args.model).is_file() and is_cffair_model(args.model)
    if not (own and args.data and not args.spec):  # a .cffair model brings its spec
        check_data_args(args)
    elif not Path(args.data).is_file():
        raise OptionError(f"--data {args.data}: no such file.")
    if args.training_data:
        if own or args.twins or args.predictions:
            source = "--model M.cffair brings its training data's flow" if own else "--twins gives the twins"
            raise OptionError(f"--training-data makes the twins, but {source}; drop --training-data.")
        if not Path(args.training_data).is_file():
            raise OptionError(f"--training-data {args.training_data}: no such file.")
    if args.predictions:
        if not (args.twins and args.twin_predictions):
            raise OptionError(
                "--predictions needs --twins TWINS.parquet (the twins the model was run on) and "
                "--twin-predictions T.csv (its predictions for them)."
            )
        for opt, path in (("--predictions", args.predictions), ("--twin-predictions", args.twin_predictions)):
            if not Path(path).is_file():
                raise OptionError(f"{opt} {path}: no such file.")
    elif args.twin_predictions:
        raise OptionError(
            "--twin-predictions goes with --predictions, not with --model (the model predicts the twins itself)."
        )
    if args.model and not Path(args.model).is_file():
        raise OptionError(
            f"--model {args.model}: no such file; write a model with `cffair fit ... --out MODEL.cffair`, or save a "
            "scikit-learn model with skops.io.dump(model, path)."
        )
    if args.twins and not Path(args.twins).is_file():
        raise OptionError(f"--twins {args.twins}: no such file.")


def load_skops(path: str, trust: list[str]) -> Any:
    """A scikit-learn model from a skops file, trusting only skops' default types and ``trust``.

    Raises:
        OptionError: the file holds types that are neither trusted by default nor in ``trust``
            (named, with the fix), or it is not a skops file.
    """
    import zipfile

    from skops import io as sio

    try:
        untrusted = sio.get_untrusted_types(file=path)
    except (zipfile.BadZipFile, KeyError, ValueError, OSError) as exc:
        raise OptionError(
            f"--model {path}: not a skops file ({exc}); save the model with skops.io.dump(model, path)."
        ) from None
    unknown = sorted(set(untrusted) - set(trust))
    if unknown:
        raise OptionError(
            f"--model {path} holds types skops does not trust by default: {unknown[:6]}; "
            "if you know where the file comes from, pass --trust TYPE for each (nothing in it was run)."
        )
    return sio.load(path, trusted=list(untrusted))


def _audit(args: argparse.Namespace) -> int:
    from cffair.causal import CounterfactualSet
    from cffair.evaluation._audit import audit, audit_scores

    own = None
    if args.model and is_cffair_model(args.model):
        from cffair.learners._model import load_model

        own = load_model(args.model)
    if own is not None and not args.spec:
        from cffair import datasets

        ds = datasets.from_csv(args.data, own.spec_, **read_options(args))
    else:
        ds = load_data(args)
    twins = CounterfactualSet.load(args.twins) if args.twins else None
    if args.model:
        model = own if own is not None else load_skops(args.model, args.trust)
        kind = ds.spec.target_kind
        method = getattr(model, "predict_proba" if kind == "binary" else "predict", None)
        if method is None:
            raise OptionError(
                f"--model {args.model}: a {type(model).__name__} has no "
                f"{'predict_proba' if kind == 'binary' else 'predict'} for a {kind} target."
            )
        training = None
        if args.training_data:
            from cffair import datasets

            training = datasets.from_csv(args.training_data, ds.spec, **read_options(args))[0]
        result = audit(
            method,
            ds,
            twins=twins,
            flow=own.flow_ if own is not None and twins is None else None,
            training=training,
            flow_config=flow_config(args),
            flow_fit=args.flow_fit,
            cache_dir=cache_root(args),
            seed=args.seed,
            n_boot=args.n_boot,
            progress=not args.quiet,
        )
        if own is not None and twins is None:
            result = replace(result, flow=f"the flow stored in {Path(args.model).name} (fitted on its training data)")
    else:
        assert twins is not None
        result = audit_scores(
            args.predictions,
            args.twin_predictions,
            twins,
            ds,
            seed=args.seed,
            n_boot=args.n_boot,
        )
    if twins is not None:
        result = replace(result, flow=f"the --twins file {Path(args.twins).name}")
    by = result.by_subgroup.reset_index()
    overall = result.overall.reset_index()
    groups = result.groups.reset_index()
    summary = {
        "cf_mse": result.cf_mse,
        "cf_flip_rate": result.cf_flip_rate,
        "accuracy": result.accuracy,
        "threshold": result.threshold,
        "pairs": result.n_pairs,
        "rows": result.n_rows,
        "twins_from": result.flow,
        "bootstrap": f"{args.n_boot} resamples of the audited rows, each with all its twins",
        "overall": json.loads(overall.to_json(orient="records")),
        "groups": json.loads(groups.to_json(orient="records")),
        "by_subgroup": json.loads(by.to_json(orient="records")),
    }
    if args.out:
        from cffair._support.utils import atomic_path

        with atomic_path(args.out) as tmp:
            tmp.write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
    fmt = {"float_format": lambda v: f"{v:.4f}", "index": False, "na_rep": "-"}
    interval = (
        f"{args.n_boot} bootstrap resamples of the rows, each with all its twins" if args.n_boot else "no intervals"
    )
    print(
        f"CF-MSE {result.cf_mse:.4f}, CF flip rate {result.cf_flip_rate:.4f} over {result.n_pairs} person-twin pairs "
        f"of {result.n_rows} rows (decision threshold {result.threshold:.3g})"
    )
    print(f"twins: from {result.flow}")
    print(f"\noverall (low, high: 95 % interval from {interval})")
    print(overall.to_string(**fmt))
    print(f"\nby {ds.spec.sensitive} (fairlearn MetricFrame; decisions at the threshold)")
    print(groups.to_string(**fmt))
    print("\nby subgroup, the worst CF-MSE first")
    print(by.to_string(**fmt))
    return 0
