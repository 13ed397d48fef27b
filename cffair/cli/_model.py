"""``cffair fit``, ``cffair predict`` and ``cffair twins``: a self-contained model of your data (:mod:`cffair.learners._model`).

Examples::

    cffair fit --data credit.csv --spec examples/credit/spec.yaml --setting acc_cf --out credit.cffair
    cffair predict --model credit.cffair --data new.csv --out decisions.csv
    cffair twins --model credit.cffair --data new.csv --out twins.csv

``fit`` trains on every row of the CSV (the causal flow for the twins, then the LTN predicate
with the chosen axioms) and writes one file that holds everything the model answers from: the
spec and graph, the encoder, the flow, the weights and the hashes of the training data. Moving or
editing the training CSV afterwards changes nothing the model answers.

For a binary target, ``fit`` holds out a stratified calibration split (``--calibration-share``,
default 20 %) from the model's training and fits a calibration map of its outputs on it
(``--calibration``: ``sigmoid``, Platt scaling, the default; ``isotonic``; ``none`` trains on
every row and stores no map; :mod:`cffair.learners._calibration`); it prints the accuracy on the rows
trained on and on the held-out split.

``predict`` reads new rows (the spec's feature columns; other columns, such as the target, are
ignored) and writes one line per row: the decision (the label predicted), whether it is the
favourable outcome (the spec's ``favourable`` label; for a score target the best
``favourable_top_fraction``), the model's raw output ``D(x)`` (``p_<label>``, ``P(<positive
label>)`` for a binary target, the score otherwise) and, for a model with a calibration map, the
calibrated probability beside it, its column named with the method
(``p_1_calibrated (sigmoid on a 20 % calibration split)``). A line before the table (on standard
error when the table goes to standard output) names the labels.

``twins`` writes each new row beside its counterfactual twins (the sensitive attribute changed
and its descendants adjusted by the flow), with the model's output for each, one line per draw
(``draw`` 0, 1, …): when a descendant of the sensitive attribute is discrete and its treatment
draws (Gumbel-max for a nominal feature, the threshold model for a binary or ordinal one), its
counterfactual is a distribution, not one value, so the flow draws ``cf_samples`` twins per row
and value (4 by default); with only continuous or midpoint-treated descendants there is one twin.
A line before the table says how many and why.
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
from cffair.learners._calibration import DEFAULT_METHOD, DEFAULT_SHARE, METHODS


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
    f.add_argument(
        "--calibration",
        choices=[*METHODS, "none"],
        default=DEFAULT_METHOD,
        help="calibration map of a classifier's outputs, fitted on a held-out split and stored in the model: sigmoid "
        "(Platt scaling; default, stable on a few hundred rows), isotonic (flexible; needs more rows), none (train on "
        "every row, no calibrated column in cffair predict)",
    )
    f.add_argument(
        "--calibration-share",
        type=_share,
        default=DEFAULT_SHARE,
        metavar="FRACTION",
        help="share of the rows held out of training to fit the calibration map (default 0.2)",
    )
    f.add_argument(
        "--seed", type=seed, default=0, help="seed of the flow, the twins, the split and the model (default 0)"
    )
    f.add_argument("--out", required=True, metavar="MODEL", help="the model file to write (e.g. credit.cffair)")
    f.add_argument("--quiet", action="store_true", help="no progress bars")
    f.add_argument("--device", type=device, default="cpu", help=DEVICE_HELP)
    f.set_defaults(func=_fit, check=_check_fit, outputs=(Output("out", "--out", "model file"),))

    for name, what in (
        ("predict", "decisions (favourable or not), raw outputs and calibrated probabilities of a saved model"),
        ("twins", "each new row beside its counterfactual twins, with the model's outputs"),
    ):
        p = sub.add_parser(name, help=what, description=_TWINS_HELP if name == "twins" else None)
        p.add_argument(
            "--model",
            required=True,
            metavar="MODEL",
            help="a model written by `cffair fit` (or cffair.learners.save_model)",
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


_TWINS_HELP = (
    "Each new row beside its counterfactual twins (the sensitive attribute set to each other value, its causal "
    "descendants adjusted by the model's flow), with the model's output for each. How many twins per row and value: "
    "when a descendant of the sensitive attribute is discrete and its treatment draws (Gumbel-max for a nominal "
    "feature, the threshold model for a binary or ordinal one), its counterfactual is a distribution, not one value, "
    "so the flow draws cf_samples twins (4 by default; column draw); otherwise the twin is one point. The first line "
    "of the output says which applies to this model."
)


def _share(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not 0 < value < 1:
        raise argparse.ArgumentTypeError(f"a share in (0, 1) such as 0.2, got {text!r}")
    return value


def _check_fit(args: argparse.Namespace) -> None:
    from cffair._support.validation import check_group_weights

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
    from cffair.learners._estimator import CounterfactualFairClassifier, CounterfactualFairRegressor
    from cffair.learners._model import save_model

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
    label = {"acc": "acc", "acc_cf": "acc+CF", "acc_cf_sg": "acc+CF_sg"}[args.setting]
    if spec.target_kind == "binary" and args.calibration != "none":
        from cffair.learners._calibration import calibrated_fit

        est, calibration, numbers = calibrated_fit(
            cls(spec, **options),
            features,
            frame[spec.target].to_numpy(),
            method=args.calibration,
            share=args.calibration_share,
            seed=args.seed,
        )
        path = save_model(est, args.out, training_frame=frame, calibration=calibration)
        print(
            f"{spec.name}: LTN({label}) trained on {len(frame) - calibration.n_rows:,} of {len(frame):,} rows "
            f"(accuracy on them {numbers['accuracy_train']:.3f}; on the {calibration.n_rows:,} held-out rows "
            f"{numbers['accuracy_held_out']:.3f})"
        )
        print(f"calibration: {calibration.label()} ({calibration.n_rows:,} rows the model did not train on)")
    else:
        est = cls(spec, **options).fit(features, frame[spec.target])
        path = save_model(est, args.out, training_frame=frame)
        train_score = est.score(features, frame[spec.target])
        metric = "accuracy" if spec.target_kind == "binary" else "R²"
        print(f"{spec.name}: LTN({label}) trained on {len(frame):,} rows ({metric} on them {train_score:.3f})")
    print(f"model: {path}")
    return 0


def _new_rows(args: argparse.Namespace, model: Any) -> Any:
    """The rows of ``--data``, read as training CSVs are read (:func:`cffair.datasets.read_rows`:
    the separator sniffed, ``--decimal``, ``NA`` a category) and validated by the training rows'
    rules against the model's features (:func:`cffair.datasets.prepare_features`), their
    lines named in messages; ``twins --limit N`` keeps the first N."""
    from cffair.datasets import _checks as checks
    from cffair.datasets._csvfile import read_rows
    from cffair.datasets._frames import prepare_features

    spec = model.spec_
    frame, where, sep, sniffed = read_rows(args.data, spec.features, **read_options(args))
    checks.check_csv_columns(args.data, frame, {"features": dict(spec.features)}, sep, sniffed)
    if getattr(args, "limit", None) is not None:
        frame = frame.head(args.limit)
    return prepare_features(frame, spec.features, model.dtypes_, where=where)


def _emit(table: Any, out: str | None, note: str = "") -> None:
    """The table to ``out`` (a CSV) or to standard output; ``note``, a line about it, goes before
    it (on standard error when the table goes to standard output, so the CSV stays a CSV)."""
    if out and out != "-":
        from cffair._support.io import atomic_write

        atomic_write(out, lambda tmp: table.to_csv(tmp, index=False))
        if note:
            print(note)
        print(f"{len(table):,} rows written to {out}")
    else:
        if note:
            print(note, file=sys.stderr)
        table.to_csv(sys.stdout, index=False)


def _outputs(model: Any, rows: Any) -> tuple[str, Any]:
    """(column name, D(x)) of a loaded model for readable rows."""
    if model.spec_.target_kind == "binary":
        return f"p_{model.classes_[1]}", model.predict_proba(rows)[:, 1]
    return "score", model.predict(rows)


def favourable_words(model: Any) -> tuple[Any, str]:
    """(the favourable label, a line naming the labels) of a loaded model, from its spec."""
    spec = model.spec_
    if spec.target_kind != "binary":
        share = spec.favourable_top_fraction
        return None, (
            f"decision: {spec.target} scores at or above the {1 - share:.0%} quantile of these rows' scores; "
            f"favourable: the best {share:.0%} (the spec's favourable_top_fraction)"
        )
    label = model.classes_[int(spec.favourable)]
    other = model.classes_[1 - int(spec.favourable)]
    return label, (
        f"decision: the {spec.target} label predicted (the raw output p_{model.classes_[1]} >= 0.5 gives "
        f"{model.classes_[1]}); favourable: {spec.target} = {label} ({other} is unfavourable), from the spec's "
        "'favourable' (0 or 1: the first or second label in sorted order; 1 when the spec names none)"
    )


def _predict(args: argparse.Namespace) -> int:
    import pandas as pd

    from cffair.learners._model import load_model

    model = load_model(args.model)
    rows = _new_rows(args, model)
    name, d = _outputs(model, rows)
    favourable, note = favourable_words(model)
    if model.spec_.target_kind == "binary":
        decision = model.predict(rows)
        is_favourable = decision == favourable
    else:
        decision = is_favourable = d >= _threshold(model, d)
    columns = {"row": range(len(rows)), "decision": decision, "favourable": is_favourable, name: d}
    calibration = getattr(model, "calibration_", None)
    if calibration is not None:
        columns[f"{name}_calibrated ({calibration.label()})"] = calibration.apply(d)
        note += f"; {name} is the model's raw output, {name}_calibrated the probability to read"
    elif model.spec_.target_kind == "binary":
        note += f"; {name} is the model's raw output, not calibrated (a model of cffair fit, which holds out a calibration split by default, has the column)"
    _emit(pd.DataFrame(columns), args.out, note)
    return 0


def _threshold(model: Any, d: Any) -> float:
    from cffair.scores._metrics import decision_threshold

    return decision_threshold(d, "score", model.spec_.favourable_top_fraction)


def draws_words(model: Any) -> tuple[int, str]:
    """(twins per row and value, a line saying why) of a loaded model's flow."""
    flow, spec = model.flow_, model.spec_
    s = spec.sensitive
    k = flow.draws(s)
    random = set(flow.gumbel_nodes) | set(flow.threshold_nodes) | set(flow.sampled_nodes)
    drawn = [n for n in flow.graph.descendants(s) if n in random]
    values = len(flow.columns[s].categories or []) - 1
    per_row = f"{k * values} twin{'s' if k * values != 1 else ''} per row ({values} other value{'s' if values != 1 else ''} of {s}"
    if k > 1:
        return k, (
            f"twins: {per_row} x {k} draws): {', '.join(drawn[:6])} (descendant{'s' if len(drawn) != 1 else ''} of {s}) "
            f"{'are' if len(drawn) != 1 else 'is'} discrete with a drawing treatment, so {'their' if len(drawn) != 1 else 'its'} "
            f"counterfactual is a distribution, not one value: the flow draws {k} twins (cf_samples; column draw)"
        )
    return k, f"twins: {per_row}, one draw): no descendant of {s} is drawn, so each twin is one point"


def _twins(args: argparse.Namespace) -> int:
    import pandas as pd

    from cffair.learners._model import load_model

    model = load_model(args.model)
    factual = _new_rows(args, model)
    features = list(model.spec_.features)
    twins = model.counterfactuals_of(factual)
    name, d = _outputs(model, factual)
    _, d_cf = _outputs(model, twins[features])
    left = factual.assign(row=range(len(factual)), kind="factual", draw=0, **{name: d})
    right = twins.rename(columns={"row_id": "row"}).assign(kind="twin", **{name: d_cf})
    right["draw"] = right.groupby("row").cumcount()
    table = pd.concat([left, right], ignore_index=True).sort_values(["row", "kind"], kind="stable")
    _emit(table[["row", "kind", "draw", *features, name]], args.out, draws_words(model)[1])
    return 0
