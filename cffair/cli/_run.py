"""``cffair run``: the paper's protocol on a CSV of your own, with a report (:mod:`cffair.workflows._own`).

Examples::

    cffair run --data credit.csv --spec examples/credit/spec.yaml --quick --folds 2
    cffair run --data credit.csv --spec spec.yaml --graph graph.yaml \\
        --settings acc acc_cf acc_cf_sg --baselines cnf unaware --folds 5 --jobs 2 --out runs/credit

Every option is checked while the command line is parsed, and the data, spec and graph are read
and validated before any model is fitted; a mistake prints one line and exits with status 2.
The last line printed is the path of the report.
"""

from __future__ import annotations

__all__ = ["register"]

import argparse
from pathlib import Path
from typing import Any

from cffair.cli._common import CATEGORICAL_HELP, add_read_args
from cffair.cli._options import (
    DEVICE_HELP,
    OptionError,
    add_hyperparameter_args,
    backend_name,
    device,
    folds,
    positive_int,
    seed,
    weights,
)
from cffair.experiments import _registry as registry


def _setting(text: str) -> str:
    """An LTN setting, short (``acc_cf``) or full (``ltn_acc_cf``): the registry's key."""
    try:
        return registry.ltn_setting(text)
    except registry.RegistryError as exc:
        raise argparse.ArgumentTypeError(str(exc).rstrip(".")) from None


def _baseline(text: str) -> str:
    if text not in registry.baselines():
        raise argparse.ArgumentTypeError(
            f"unknown baseline {text!r}; choose from {', '.join(registry.baselines())} "
            "(or give --baselines alone for none)"
        )
    return text


def _hidden(text: str) -> list[int]:
    """Hidden layer widths of the flow: ``64,64,64``."""
    try:
        widths = [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        widths = []
    if not widths or any(w < 1 for w in widths):
        raise argparse.ArgumentTypeError(f"expected comma-separated layer widths >= 1, got {text!r}; e.g. 64,64,64")
    return widths


def _out_dir(text: str) -> str:
    if not text.strip():
        raise argparse.ArgumentTypeError("is empty; give a folder for the results (created if missing)")
    if Path(text).exists() and not Path(text).is_dir():
        raise argparse.ArgumentTypeError(f"{text} is a file; give a folder for the results (created if missing)")
    return text


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``run`` to the ``cffair`` command line."""
    p = sub.add_parser(
        "run",
        help="the paper's protocol on your own CSV (counterfactuals, LTN settings, CKE, baselines) and a report",
        description="Run the paper's protocol on a CSV of your own and write report.html into the results folder.",
    )
    p.add_argument("--data", required=True, metavar="CSV", help="your data: a CSV file with a header line")
    p.add_argument(
        "--spec",
        required=True,
        metavar="YAML",
        help="its spec (target, sensitive, features, subgroups, immutable, graph)",
    )
    p.add_argument("--graph", metavar="YAML", help="a causal graph file replacing the spec's 'graph'")
    add_read_args(p)
    p.add_argument(
        "--settings",
        nargs="+",
        type=_setting,
        metavar="SETTING",
        help=f"LTN settings ({', '.join(registry.method(s).short for s in registry.ltn_settings())}; default all, without the CKE ones if the spec lists no immutable feature)",
    )
    p.add_argument(
        "--baselines",
        nargs="*",
        type=_baseline,
        metavar="BASELINE",
        help=f"baselines ({', '.join(registry.baselines())}; default {' '.join(registry.paper_baselines())}, Table 1's; the option alone: none)",
    )
    p.add_argument(
        "--folds", type=folds, default=5, help="cross-validation folds, every one is run (default 5, the paper's)"
    )
    p.add_argument(
        "--quick",
        action="store_true",
        help="quick profile: few epochs, at most 1,500 training rows (checks that it runs)",
    )
    p.add_argument("--jobs", type=positive_int, default=1, help="worker processes, one torch thread each (default 1)")
    p.add_argument("--out", type=_out_dir, metavar="DIR", help="results folder (default cffair-results/NAME-PROFILE)")
    p.add_argument("--name", help="the dataset's name in records (default: the spec's name, else the CSV's file name)")
    p.add_argument(
        "--seed", type=seed, default=0, help="seed of the models (folds and counterfactuals use seed 0; default 0)"
    )
    p.add_argument("--categorical", choices=["flow", "gumbel"], default=None, help=CATEGORICAL_HELP)
    p.add_argument(
        "--flow-hidden",
        type=_hidden,
        metavar="WIDTHS",
        help="hidden layers of the flow's masked network, e.g. 64,64,64 (default 32,32,32, the paper's); "
        "widen it for a graph with many distinct parent sets",
    )
    p.add_argument(
        "--counterfactuals-only",
        action="store_true",
        help="stop after the counterfactuals: check the flow's warnings before the long run",
    )
    t = p.add_argument_group("training of the LTN settings (default: the profile's)")
    add_hyperparameter_args(
        t,
        ("lr", "fair_epochs", "fair_p"),
        notes={
            "lr": "full profile 1e-3; lower it when the report flags a constant predictor",
            "fair_epochs": "after the 1500 of pre-training (full profile 500)",
        },
        aliases={"fair_epochs": ("--epochs",)},
        positive=("fair_epochs",),
    )
    t.add_argument(
        "--fixed-epochs",
        action="store_true",
        help="the paper's fixed epochs in every LTN stage; by default (full profile) a stage stops once its "
        "satisfaction gains less than 0.001 over 100 epochs, which the paper's epochs, set for 36,000 rows, "
        "waste on small data",
    )
    t.add_argument(
        "--weights",
        type=weights,
        default=None,
        metavar="GROUP=W,...",
        help="axiom-group weights, e.g. acc=1,cf=2 (appendix B; groups left out keep 1)",
    )
    p.add_argument(
        "--save-models",
        action="store_true",
        help="then train the acc, acc_cf and acc_cf_sg settings on every row and save them in <out>/models/ "
        "(for `cffair predict` and `cffair twins`; a classifier calibrated as `cffair fit` does by default)",
    )
    p.add_argument("--backend", type=backend_name, default=None, help="joblib backend: loky (default), dask, ...")
    p.add_argument("--quiet", action="store_true", help="no progress bars or messages")
    p.add_argument("--device", type=device, default="cpu", help=DEVICE_HELP)
    p.set_defaults(func=_run, check=_check)


def _check(args: argparse.Namespace) -> None:
    """Files exist (the rest is checked by :func:`cffair.workflows.plan` before any model is fitted)."""
    for opt, value in (("--data", args.data), ("--spec", args.spec), ("--graph", args.graph)):
        if value is not None and not Path(value).is_file():
            what = "no such file" if not Path(value).exists() else "not a file"
            raise OptionError(f"{opt} {value}: {what}.")
    if args.weights and args.settings:  # the default settings depend on the spec: checked by cffair.workflows.plan
        from cffair._support.validation import check_group_weights

        check_group_weights(
            args.weights, args.settings, input_name="--weights", setting_name="--settings", error=OptionError
        )


def _run(args: argparse.Namespace) -> int:
    from cffair._support.devices import use_device
    from cffair.reporting._report import method_frame
    from cffair.workflows._own import run

    with use_device(args.device):  # the flow and every task of the grid train there
        result = _run_own(run, args)
    return _print_result(result, method_frame)


def _run_own(run: Any, args: argparse.Namespace) -> Any:
    return run(
        args.data,
        args.spec,
        args.graph,
        settings=args.settings,
        baselines=args.baselines,
        folds=args.folds,
        quick=args.quick,
        seed=args.seed,
        jobs=args.jobs,
        out=args.out,
        name=args.name,
        categorical=args.categorical,
        backend=args.backend,
        flow={"hidden": args.flow_hidden} if args.flow_hidden else None,
        counterfactuals_only=args.counterfactuals_only,
        sep=args.sep,
        decimal=args.decimal,
        save_models=args.save_models,
        lr=args.lr,
        fair_epochs=args.fair_epochs,
        fair_p=args.fair_p,
        weights=args.weights,
        progress=not args.quiet,
        **({"patience": None} if args.fixed_epochs else {}),
    )


def _print_result(result: Any, method_frame: Any) -> int:
    if result.report is None:
        print(
            f"{result.plan.name}: counterfactuals generated ({result.stage_seconds['counterfactuals']:.0f} s), "
            f"{len(result.warnings)} warning(s); run again without --counterfactuals-only for the protocol"
        )
        print(f"run: {result.out / 'run.json'}")
        return 0
    shown, _ = method_frame(result.records, result.plan.methods)
    print(
        f"{result.plan.name}: {result.plan.folds} folds, profile {result.plan.profile}; "
        f"{result.computed} of {len(result.records)} records computed, the others were fresh"
    )
    print(shown.to_string())
    for path in (result.models or {}).values():
        print(f"model: {path}")
    print(f"report: {result.report}")
    return 0
