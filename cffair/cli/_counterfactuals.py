"""``cffair counterfactuals generate``: fit a dataset's causal flow and write its counterfactuals.

Example::

    cffair counterfactuals generate --dataset adult --interventions immutable --out cf/adult.parquet
"""

from __future__ import annotations

__all__ = ["register"]

import argparse
import json
from pathlib import Path

from cffair.cli._common import (
    DATASET_HELP,
    Output,
    add_read_args,
    add_treatment_args,
    check_cache_writable,
    check_data_args,
    load_data,
    treatment_config,
)
from cffair.cli._options import DEVICE_HELP, device, patience, positive_int, seed


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``counterfactuals generate`` to the ``cffair`` command line."""
    p = sub.add_parser(
        "counterfactuals", help="generate counterfactuals with a causal normalising flow (paper section 6.2)"
    )
    csub = p.add_subparsers(dest="counterfactuals_command", required=True, metavar="COMMAND")
    g = csub.add_parser("generate", help="fit the flow (cached) and write a counterfactual set (parquet)")
    which = g.add_mutually_exclusive_group(required=True)
    which.add_argument("--dataset", help=DATASET_HELP)
    which.add_argument("--data", metavar="CSV", help="a CSV of your own (needs --spec)")
    g.add_argument("--spec", metavar="YAML", help="YAML spec of your CSV")
    add_read_args(g)
    g.add_argument(
        "--interventions",
        default="sensitive",
        choices=["sensitive", "immutable", "all"],
        help="sensitive attribute only; plus the immutable features (CKE, section 4.3); or every feature",
    )
    g.add_argument("--seed", type=seed, default=0, help="seed of the flow's training and the Gumbel draws (default 0)")
    g.add_argument(
        "--epochs",
        "--flow-epochs",
        dest="epochs",
        type=positive_int,
        help="maximum training epochs (default 1000, the paper's)",
    )
    g.add_argument(
        "--patience",
        type=patience,
        default=argparse.SUPPRESS,
        help="early-stopping patience in epochs; 0 or none trains every epoch (the paper)",
    )
    add_treatment_args(g)
    g.add_argument(
        "--no-root-context", action="store_true", help="transform root nodes instead of conditioning on them"
    )
    g.add_argument("--cache-dir", help="cache folder (default $CFFAIR_CACHE or ~/.cache/cffair)")
    g.add_argument("--no-cache", action="store_true", help="neither read nor write the cache")
    g.add_argument("--out", help="output parquet (default: counterfactuals/<dataset>-<interventions>-seed<N>.parquet)")
    g.add_argument("--quiet", action="store_true", help="no progress bars")
    g.add_argument(
        "--device",
        type=device,
        default="cpu",
        help="where the flow trains: " + DEVICE_HELP.removeprefix("where models train: "),
    )
    g.set_defaults(func=_generate, check=_check, outputs=(Output("out", "--out", "counterfactual file"),))


def _check(args: argparse.Namespace) -> None:
    """Before any work: the data and spec exist; the cache can be written (the output: ``outputs``)."""
    check_data_args(args)
    check_cache_writable(args)


def _generate(args: argparse.Namespace) -> int:
    from cffair.causal._flow import generate

    ds = load_data(args)
    config: dict[str, object] = {}
    if args.epochs is not None:
        config["epochs"] = args.epochs
    if hasattr(args, "patience"):
        config["patience"] = args.patience
    config.update(treatment_config(args))
    if args.no_root_context:
        config["root_context"] = False
    cfs = generate(
        ds,
        interventions=args.interventions,
        config=config,
        seed=args.seed,
        cache_dir=False if args.no_cache else args.cache_dir,
        progress=not args.quiet,
        device=args.device,
    )
    out = Path(args.out or f"counterfactuals/{ds.spec.name}-{args.interventions}-seed{args.seed}.parquet")
    cfs.save(out)
    summary = {
        "out": str(out),
        "rows": len(cfs),
        "factual_rows": int(cfs.frame["row_id"].nunique()),
        "features": cfs.features,
        "categorical": cfs.meta.get("config", {}).get("categorical"),
        "flow_epochs_run": cfs.meta.get("flow_epochs_run"),
        "flow_best_epoch": cfs.meta.get("flow_best_epoch"),
    }
    print(json.dumps(summary, indent=2))
    return 0
