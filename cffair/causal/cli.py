"""``cffair counterfactuals generate``: fit a dataset's causal flow and write its counterfactuals.

Example::

    cffair counterfactuals generate --dataset adult --interventions immutable --out cf/adult.parquet
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``counterfactuals generate`` to the ``cffair`` command line."""
    p = sub.add_parser("counterfactuals", help="generate counterfactuals with a causal normalising flow (paper section 6.2)")
    csub = p.add_subparsers(dest="counterfactuals_command", required=True)
    g = csub.add_parser("generate", help="fit the flow (cached) and write a counterfactual set (parquet)")
    g.add_argument("--dataset", required=True, help="adult | compas | compas_age | lawschool, or a CSV path with --spec")
    g.add_argument("--spec", help="YAML spec for a CSV of your own")
    g.add_argument(
        "--interventions",
        default="sensitive",
        choices=["sensitive", "immutable", "all"],
        help="sensitive attribute only; plus the immutable features (CKE, section 4.3); or every feature",
    )
    g.add_argument("--seed", type=int, default=0)
    g.add_argument("--epochs", type=int, help="maximum training epochs (default 1000, the paper's)")
    g.add_argument("--patience", type=int, help="early-stopping patience in epochs; 0 trains every epoch (the paper)")
    g.add_argument("--categorical", choices=["flow", "gumbel"], help="treatment of nominal non-root nodes (default: flow)")
    g.add_argument("--no-root-context", action="store_true", help="transform root nodes instead of conditioning on them")
    g.add_argument("--cache-dir", help="cache folder (default $CFFAIR_CACHE or ~/.cache/cffair)")
    g.add_argument("--no-cache", action="store_true", help="neither read nor write the cache")
    g.add_argument("--out", help="output parquet (default: counterfactuals/<dataset>-<interventions>-seed<N>.parquet)")
    g.add_argument("--quiet", action="store_true", help="no progress bars")
    g.set_defaults(func=_generate)


def _generate(args: argparse.Namespace) -> int:
    from cffair import datasets
    from cffair.causal.flow import generate

    ds = datasets.from_csv(args.dataset, args.spec) if args.spec else datasets.load(args.dataset)
    config: dict[str, object] = {}
    if args.epochs is not None:
        config["epochs"] = args.epochs
    if args.patience is not None:
        config["patience"] = None if args.patience == 0 else args.patience
    if args.categorical:
        config["categorical"] = args.categorical
    if args.no_root_context:
        config["root_context"] = False
    cfs = generate(
        ds,
        interventions=args.interventions,
        config=config,
        seed=args.seed,
        cache_dir=False if args.no_cache else args.cache_dir,
        progress=not args.quiet,
    )
    out = Path(args.out or f"counterfactuals/{ds.spec.name}-{args.interventions}-seed{args.seed}.parquet")
    cfs.save(out)
    summary = {
        "out": str(out),
        "rows": len(cfs),
        "factual_rows": int(cfs.frame["row_id"].nunique()),
        "features": cfs.features,
        "flow_epochs_run": cfs.meta.get("flow_epochs_run"),
        "flow_best_epoch": cfs.meta.get("flow_best_epoch"),
    }
    print(json.dumps(summary, indent=2))
    return 0
