"""``cffair study``: the studies appendix C reports beside the grid.

Example::

    cffair study baseline-gap --dataset compas --baseline gan dcevae cnf \\
        --folds 0 1 2 3 4 --out results/full/studies/baseline_gap.json

``baseline-gap`` moves each baseline from this book's setting towards the paper's, one factor at a time,
and writes how much of the CF-MSE gap each step closes (:mod:`cffair.experiments._baseline_gap`). One file
holds every dataset's studies: a run replaces the studies it computes and keeps the others; it is written
after every fold, and a rerun with the same code keeps the folds already there. ``--out`` is checked before
any model trains: a ``.json`` file outside the folders a results store's pipeline owns, not in the other
profile's store, and not a file of another kind or profile.
"""

from __future__ import annotations

import argparse

from cffair.cli._common import Output
from cffair.cli._options import non_negative_int
from cffair.experiments import _registry as registry

__all__ = ["register"]


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``study baseline-gap``."""
    from cffair.experiments._baseline_gap import BASELINES

    study = sub.add_parser("study", help="the studies beside the grid (appendix C)")
    kinds = study.add_subparsers(dest="study", required=True, metavar="STUDY")
    g = kinds.add_parser(
        "baseline-gap", help="each baseline moved towards the paper's setting: which step closes the CF-MSE gap"
    )
    g.add_argument("--dataset", default="compas", choices=list(registry.dataset_names()))
    g.add_argument("--baseline", nargs="+", default=["gan"], choices=BASELINES, help="baselines to move (default gan)")
    g.add_argument("--folds", nargs="+", type=non_negative_int, default=[0], help="the grid's folds to run (default 0)")
    g.add_argument("--profile", default="full", choices=["full", "quick"], help="the grid's profile (default full)")
    g.add_argument("--out", default=None, help="the study file (default: results/<profile>/studies/baseline_gap.json)")
    g.set_defaults(func=_baseline_gap, check=_check, outputs=(Output("out", "--out", "study file"),))


def _check(args: argparse.Namespace) -> None:
    """Before any work: where the study goes, and the folds."""
    from cffair.experiments._baseline_gap import check_study_file

    args.out = args.out or f"results/{args.profile}/studies/baseline_gap.json"
    check_study_file(args.out, args.profile, args.folds)


def _baseline_gap(args: argparse.Namespace) -> int:
    from cffair.experiments._baseline_gap import write_study

    write_study(args.out, args.dataset, args.baseline, args.folds, profile=args.profile)
    return 0
