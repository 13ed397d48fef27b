"""The ``cffair`` command line: ``cffair data|counterfactuals|train|query|reproduce|results``.

Each command group lives next to the code it drives and adds itself through a
``register(subparsers)`` function; this module only assembles them.
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
from collections.abc import Sequence

#: Modules that add sub-commands (each has ``register(subparsers)``).
COMMAND_MODULES = (
    "cffair.cli",  # data
    "cffair.causal.cli",  # counterfactuals
    "cffair.cli_ltn",  # train, query
    "cffair.experiments",  # reproduce, results
)


def register(sub: argparse._SubParsersAction) -> None:
    """``cffair data describe NAME``."""
    p = sub.add_parser("data", help="inspect the datasets")
    dsub = p.add_subparsers(dest="data_command", required=True)
    d = dsub.add_parser("describe", help="rows, features by kind, target balance, group and subgroup sizes")
    d.add_argument("name", help="adult | compas | compas_age | lawschool, or a CSV path with --spec")
    d.add_argument("--spec", help="YAML spec for a CSV of your own")
    d.add_argument("--json", action="store_true", help="print JSON instead of a table")
    d.set_defaults(func=_describe)


def _describe(args: argparse.Namespace) -> int:
    from cffair import datasets

    ds = datasets.from_csv(args.name, args.spec) if args.spec else datasets.load(args.name)
    info = datasets.summary(*ds)
    if args.json:
        print(json.dumps(info, indent=2))
        return 0
    print(f"dataset      {info['name']}")
    rows = f"{info['rows']:,}" + (f"   (paper: {info['paper_rows']:,})" if info["paper_rows"] else "")
    print(f"rows         {rows}")
    print(f"target       {info['target']} ({info['target_kind']})  " + ", ".join(f"{k}={v:.3f}" for k, v in info["target_balance"].items()))
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


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="cffair", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    for name in COMMAND_MODULES:
        try:
            module = sys.modules[__name__] if name == __name__ or name == "cffair.cli" else importlib.import_module(name)
        except ModuleNotFoundError as exc:  # a command group not installed in this checkout
            if exc.name != name:
                raise
            continue
        module.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``cffair`` console script."""
    from cffair.errors import CffairError

    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except CffairError as exc:
        print(f"cffair: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
