"""``cffair fit``, ``cffair predict`` and ``cffair twins``: a self-contained model of your data (:mod:`cffair.model`).

Examples::

    cffair fit --data credit.csv --spec examples/credit/spec.yaml --setting acc_cf --out credit.cffair
    cffair predict --model credit.cffair --data new.csv --out decisions.csv
    cffair twins --model credit.cffair --data new.csv --out twins.csv

``fit`` trains on every row of the CSV (the causal flow for the twins, then the LTN predicate
with the chosen axioms) and writes one file that holds everything the model answers from: the
spec and graph, the encoder, the flow, the weights and the hashes of the training data. Moving or
editing the training CSV afterwards changes nothing the model answers.

``predict`` reads new rows (the spec's feature columns; other columns, such as the target, are
ignored) and writes one line per row: the decision and the model's output ``D(x)``
(``P(<positive label>)`` for a binary target, the score otherwise). ``twins`` writes each new
row beside its counterfactual twins (the sensitive attribute changed and its descendants
adjusted by the flow), with the model's output for each.
"""

from __future__ import annotations

__all__ = ["register"]

import argparse
import sys
from pathlib import Path
from typing import Any

from cffair.cli._common import Output, add_read_args, read_options
from cffair.cli._options import (
    DEVICE_HELP,
    OptionError,
    add_hyperparameter_args,
    device,
    positive_int,
    seed,
    weights,
)


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``fit``, ``predict`` and ``twins`` to the ``cffair`` command line."""
    f = sub.add_parser("fit", help="train a self-contained model on every row of your CSV (flow + LTN) and save it")
    f.add_argument("--data", required=True, metavar="CSV", help="your data: a CSV file with a header line")
    f.add_argument(
        "--spec", required=True, metavar="YAML", help="its spec (target, sensitive, features, subgroups, graph)"
    )
    add_read_args(f)
    f.add_argument(
        "--setting",
        default="acc_cf",
        choices=["acc", "acc_cf", "acc_cf_sg"],
        help="axioms: accuracy only, + counterfactual fairness (A4, default), + subgroup fairness (A4_1..n)",
    )
    add_hyperparameter_args(
        f, ("lr", "pretrain_epochs", "fair_epochs", "fair_p"), positive=("pretrain_epochs", "fair_epochs")
    )
    f.add_argument(
        "--weights", type=weights, default=None, metavar="GROUP=W,...", help="axiom-group weights, e.g. acc=1,cf=2"
    )
    f.add_argument(
        "--flow-epochs", type=positive_int, default=None, help="maximum epochs of the causal flow (default 1000)"
    )
    f.add_argument("--seed", type=seed, default=0, help="seed of the flow, the twins and the model (default 0)")
    f.add_argument("--out", required=True, metavar="MODEL", help="the model file to write (e.g. credit.cffair)")
    f.add_argument("--quiet", action="store_true", help="no progress bars")
    f.add_argument("--device", type=device, default="cpu", help=DEVICE_HELP)
    f.set_defaults(func=_fit, check=_check_fit, outputs=(Output("out", "--out", "model file"),))

    for name, what in (
        ("predict", "decisions and outputs of a saved model for new rows"),
        ("twins", "each new row beside its counterfactual twins, with the model's outputs"),
    ):
        p = sub.add_parser(name, help=what)
        p.add_argument(
            "--model",
            required=True,
            metavar="MODEL",
            help="a model written by `cffair fit` (or cffair.model.save_model)",
        )
        p.add_argument("--data", required=True, metavar="CSV", help="new rows: a CSV with the spec's feature columns")
        add_read_args(p)
        p.add_argument("--out", metavar="CSV", help="write the table here (default, or -: print it)")
        if name == "twins":
            p.add_argument("--limit", type=positive_int, default=None, help="only the first N rows (N >= 1)")
        p.set_defaults(
            func=_predict if name == "predict" else _twins,
            check=_check_use,
            outputs=(Output("out", "--out", "table", stdout=True),),
        )


def _check_fit(args: argparse.Namespace) -> None:
    from cffair._validation import check_group_weights

    for opt, value in (("--data", args.data), ("--spec", args.spec)):
        if not Path(value).is_file():
            raise OptionError(f"{opt} {value}: no such file.")
    check_group_weights(
        args.weights,
        [args.setting],
        input_name="--weights",
        setting_name="--setting",
        offered=("acc", "acc_cf", "acc_cf_sg"),
        error=OptionError,
    )
    if args.fair_p is not None and args.setting == "acc":
        raise OptionError(
            f"--fair-p {args.fair_p:g} with --setting acc changes nothing (p is the exponent of the fairness axioms' "
            "∀); use --setting acc_cf or acc_cf_sg, or leave --fair-p out."
        )


def _check_use(args: argparse.Namespace) -> None:
    for opt, value in (("--model", args.model), ("--data", args.data)):
        if not Path(value).is_file():
            hint = " (write one with `cffair fit --data CSV --spec YAML --out MODEL`)" if opt == "--model" else ""
            raise OptionError(f"{opt} {value}: no such file{hint}.")


def _fit(args: argparse.Namespace) -> int:
    from cffair import datasets
    from cffair.estimator import CounterfactualFairClassifier, CounterfactualFairRegressor
    from cffair.model import save_model

    frame, spec = datasets.from_csv(args.data, args.spec, **read_options(args))
    cls = CounterfactualFairClassifier if spec.target_kind == "binary" else CounterfactualFairRegressor
    options: dict[str, Any] = {
        "setting": args.setting,
        "group_weights": args.weights,
        "seed": args.seed,
        "progress": not args.quiet,
        "device": args.device,
        # the LTN's hyperparameters given on the command line; the others keep their home's defaults
        **{
            k: getattr(args, k)
            for k in ("lr", "pretrain_epochs", "fair_epochs", "fair_p")
            if getattr(args, k) is not None
        },
    }
    if args.flow_epochs is not None:
        options["flow_config"] = {"epochs": args.flow_epochs}
    features = frame[list(spec.features)]
    est = cls(spec, **options).fit(features, frame[spec.target])
    path = save_model(est, args.out, training_frame=frame)
    train_score = est.score(features, frame[spec.target])
    metric = "accuracy" if spec.target_kind == "binary" else "R²"
    label = {"acc": "acc", "acc_cf": "acc+CF", "acc_cf_sg": "acc+CF_sg"}[args.setting]
    print(f"{spec.name}: LTN({label}) trained on {len(frame):,} rows ({metric} on them {train_score:.3f})")
    print(f"model: {path}")
    return 0


def _new_rows(args: argparse.Namespace, model: Any) -> Any:
    """The rows of ``--data``, read as training CSVs are read (:func:`cffair.datasets.csvfile.read_rows`:
    the separator sniffed, ``--decimal``, ``NA`` a category) and validated by the training rows'
    rules against the model's features (:func:`cffair.datasets.frames.prepare_features`), their
    lines named in messages; ``twins --limit N`` keeps the first N."""
    from cffair import checks
    from cffair.datasets.csvfile import read_rows
    from cffair.datasets.frames import prepare_features

    spec = model.spec_
    frame, where, sep, sniffed = read_rows(args.data, spec.features, **read_options(args))
    checks.check_csv_columns(args.data, frame, {"features": dict(spec.features)}, sep, sniffed)
    if getattr(args, "limit", None) is not None:
        frame = frame.head(args.limit)
    return prepare_features(frame, spec.features, model.dtypes_, where=where)


def _emit(table: Any, out: str | None) -> None:
    if out and out != "-":
        from cffair._io import atomic_write

        atomic_write(out, lambda tmp: table.to_csv(tmp, index=False))
        print(f"{len(table):,} rows written to {out}")
    else:
        table.to_csv(sys.stdout, index=False)


def _outputs(model: Any, rows: Any) -> tuple[str, Any]:
    """(column name, D(x)) of a loaded model for readable rows."""
    if model.spec_.target_kind == "binary":
        return f"p_{model.classes_[1]}", model.predict_proba(rows)[:, 1]
    return "score", model.predict(rows)


def _predict(args: argparse.Namespace) -> int:
    import pandas as pd

    from cffair.model import load_model

    model = load_model(args.model)
    rows = _new_rows(args, model)
    name, d = _outputs(model, rows)
    table = pd.DataFrame(
        {
            "row": range(len(rows)),
            "decision": model.predict(rows) if model.spec_.target_kind == "binary" else d >= _threshold(model, d),
            name: d,
        }
    )
    _emit(table, args.out)
    return 0


def _threshold(model: Any, d: Any) -> float:
    from cffair.metrics import decision_threshold

    return decision_threshold(d, "score", model.spec_.favourable_top_fraction)


def _twins(args: argparse.Namespace) -> int:
    import pandas as pd

    from cffair.model import load_model

    model = load_model(args.model)
    factual = _new_rows(args, model)
    features = list(model.spec_.features)
    twins = model.counterfactuals_of(factual)
    name, d = _outputs(model, factual)
    _, d_cf = _outputs(model, twins[features])
    left = factual.assign(row=range(len(factual)), kind="factual", **{name: d})
    right = twins.rename(columns={"row_id": "row"}).assign(kind="twin", **{name: d_cf})
    table = pd.concat([left, right], ignore_index=True).sort_values(["row", "kind"], kind="stable")
    _emit(table[["row", "kind", *features, name]], args.out)
    return 0
