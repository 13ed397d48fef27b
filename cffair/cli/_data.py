"""``cffair data describe``: rows, features by kind, target balance, group and subgroup sizes."""

from __future__ import annotations

__all__ = ["register"]

import argparse
import json

from cffair.cli._common import DATASET_HELP, add_read_args, load_dataset, read_options
from cffair.cli._options import OptionError


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``data describe`` to the ``cffair`` command line."""
    p = sub.add_parser("data", help="inspect the datasets")
    dsub = p.add_subparsers(dest="data_command", required=True, metavar="COMMAND")
    d = dsub.add_parser("describe", help="rows, features by kind, target balance, group and subgroup sizes")
    d.add_argument("name", help=DATASET_HELP)
    d.add_argument("--spec", metavar="YAML", help="YAML spec for a CSV of your own")
    add_read_args(d)
    d.add_argument("--json", action="store_true", help="print JSON instead of a table")
    d.set_defaults(func=_describe, check=_check)


def _check(args: argparse.Namespace) -> None:
    from pathlib import Path

    for option in ("sep", "decimal"):
        if getattr(args, option) is not None and not args.spec:
            raise OptionError(f"--{option} says how a CSV of your own is read; it needs --spec YAML.")
    if args.spec and not Path(args.spec).is_file():
        raise OptionError(f"--spec {args.spec}: no such file; give the path of your dataset's YAML spec.")


def _describe(args: argparse.Namespace) -> int:
    from cffair import datasets

    ds = load_dataset(args.name, args.spec, **read_options(args))
    info = datasets.summary(*ds)
    if args.json:
        print(json.dumps(info, indent=2))
        return 0
    print(f"dataset      {info['name']}")
    rows = f"{info['rows']:,}" + (f"   (paper: {info['paper_rows']:,})" if info["paper_rows"] else "")
    print(f"rows         {rows}")
    balance = ", ".join(f"{k}={v:.3f}" for k, v in info["target_balance"].items())
    print(f"target       {info['target']} ({info['target_kind']})  {balance}")
    print(f"sensitive    {info['sensitive']}")
    print(f"immutable    {', '.join(info['immutable']) or '-'}")
    print("features by kind")
    for kind, cols in info["features_by_kind"].items():
        print(f"  {kind:<12} {', '.join(cols)}")
    print("groups")
    for k, v in info["groups"].items():
        print(f"  {k:<36} {v:>7,}")
    print("subgroups")
    for k, v in info["subgroups"].items():
        print(f"  {k:<36} {v:>7,}")
    return 0
