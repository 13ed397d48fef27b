"""``cffair recourse``: the cheapest actionable interventions for people a trained model turns down.

Examples::

    cffair train --dataset adult --setting acc_cf --save runs/adult-cf.pt
    cffair recourse --checkpoint runs/adult-cf.pt --row 12 --row 40
    cffair recourse --checkpoint runs/adult-cf.pt --where "sex == 'Female'" --limit 200
    cffair recourse --checkpoint runs/adult-cf.pt --row 12 --actions education:increase,hours-per-week

The person after an intervention is the causal flow's counterfactual (the flow the checkpoint's
counterfactuals came from, read from the cache), so the intervened features' descendants change
too; the cost is the normalised L1 of :mod:`cffair.evaluation._recourse`. Actions default to the dataset's
(:data:`cffair.evaluation.RECOURSE_ACTIONS`); an immutable or sensitive feature is refused.
The checkpoint's data is checked against the hashes it stores (:func:`cffair.cli._common.from_checkpoint`):
after the CSV was reordered or edited, ``--row N`` is refused rather than answered for someone else.
"""

from __future__ import annotations

__all__ = ["parse_actions", "register"]

import argparse
import json
from typing import Any

import numpy as np

from cffair.cli._options import (
    non_negative_int,
    positive_float,
    positive_int,
    where_expression,
)

DIRECTIONS = ("any", "increase", "decrease")


def parse_actions(text: str) -> tuple[Any, ...]:
    """``"education:increase,hours-per-week"`` → actions (an argparse ``type=``)."""
    from cffair.evaluation._recourse import Action

    out = []
    for item in text.split(","):
        name, _, direction = item.strip().partition(":")
        if not name:
            raise argparse.ArgumentTypeError(
                f"expected FEATURE[:DIRECTION],... got {text!r}; e.g. education:increase,hours-per-week"
            )
        direction = direction or "any"
        if direction not in DIRECTIONS:
            raise argparse.ArgumentTypeError(
                f"direction of {name!r} must be one of {', '.join(DIRECTIONS)}, got {direction!r}; "
                "e.g. education:increase"
            )
        out.append(Action(name, direction))  # type: ignore[arg-type]
    return tuple(out)


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``recourse`` to the ``cffair`` command line."""
    r = sub.add_parser(
        "recourse", help="the cheapest actionable interventions that make a trained model's decision favourable"
    )
    r.add_argument("--checkpoint", required=True, help="a checkpoint written by `cffair train --save` (binary target)")
    who = r.add_mutually_exclusive_group(required=True)
    who.add_argument("--row", type=non_negative_int, action="append", help="positional row id of a person (repeatable)")
    who.add_argument(
        "--where",
        type=where_expression,
        help="rows selecting the people, e.g. \"sex == 'Female' and age <= 30\" (comparisons, and/or/not, in [...]; "
        "`odd-name` for other column names; see cffair.datasets._expressions)",
    )
    r.add_argument(
        "--limit", type=positive_int, default=200, help="with --where, at most this many people (default 200)"
    )
    r.add_argument(
        "--actions",
        type=parse_actions,
        default=None,
        help="actionable features FEATURE[:increase|decrease],... (default: the dataset's, cffair.evaluation.RECOURSE_ACTIONS)",
    )
    r.add_argument(
        "--max-features",
        type=int,
        choices=[1, 2],
        default=2,
        help="intervene on at most this many features (default 2)",
    )
    r.add_argument(
        "--budget", type=positive_float, default=2.0, help="cost c at which the query's Cheap(a) reaches 0 (default 2)"
    )
    r.add_argument("--json", action="store_true", help="print the result as JSON")
    r.add_argument("--quiet", action="store_true", help="no progress output")
    r.set_defaults(func=_recourse)


def _recourse(args: argparse.Namespace) -> int:
    from cffair._support.utils import torch_cpu_setup
    from cffair.causal._flow import fit_flow
    from cffair.cli._common import check_training_rows, fold_encoder, from_checkpoint
    from cffair.datasets._expressions import selected_rows
    from cffair.errors import DataError
    from cffair.evaluation._recourse import RecourseError, RecourseSearch

    torch_cpu_setup()
    learner, extra, ds = from_checkpoint(args.checkpoint)
    frame, spec = ds
    if spec.target_kind != "binary":
        raise RecourseError(
            f"recourse needs a binary target with a favourable label; {spec.name!r} has a score target."
        )
    train, encoder = fold_encoder(ds, extra)
    check_training_rows(learner, ds, extra, encoder, args.checkpoint)
    if args.row:
        bad = [r for r in args.row if r >= len(frame)]
        if bad:
            raise DataError(f"--row must lie in 0..{len(frame) - 1}, got {bad}.")
        ids = np.asarray(args.row)
    else:
        ids = selected_rows(frame.reset_index(drop=True), args.where)[: args.limit]
    config = extra.get("counterfactual_config") or extra.get("flow_config") or {}
    _check_generator(args, extra)
    flow = fit_flow(ds, config, seed=extra.get("seed", 0), cache=extra.get("cache_dir"), progress=not args.quiet)
    search = RecourseSearch(
        flow, spec, encoder, frame.iloc[train], args.actions, max_features=args.max_features, seed=extra.get("seed", 0)
    )
    people = frame.iloc[ids].reset_index(drop=True)
    table = search.run(people, {"D": learner.predict_d}, favourable=int(spec.favourable))
    best = table.best("D")
    neg = table.negative("D")
    out: dict[str, Any] = {
        "dataset": spec.name,
        "actions": table.meta["actions"],
        "max_features": args.max_features,
        "budget": args.budget,
        "people": int(len(ids)),
        "unfavourable": int(neg.sum()),
        "recourse_rate": float(best["found"].mean()) if len(best) else None,
        "query": table.query("D", args.budget) if neg.any() else None,
        "rows": [],
    }
    found = dict(zip(best["person"], best.to_dict(orient="records"), strict=True))
    for p, row_id in enumerate(ids):
        rec: dict[str, Any] = {"row": int(row_id), "D": float(table.d_factual["D"][p]), "favourable": not bool(neg[p])}
        if p in found:
            b = found[p]
            rec.update(
                {
                    "found": bool(b["found"]),
                    "action": b["action"] or None,
                    "cost": _num(b["cost"]),
                    "D_after": _num(b["d_after"]),
                    "query": table.query("D", args.budget, people=[p]),
                }
            )
        out["rows"].append(rec)
    if args.json:
        print(json.dumps(out, indent=2, default=str))
        return 0
    _print(out, args)
    return 0


def _check_generator(args: argparse.Namespace, extra: dict[str, Any]) -> None:
    """Warn when the flow will come from another version of the generator than the checkpoint's
    counterfactuals did (``generator_version``): recourse then uses a refitted, different flow."""
    import warnings

    from cffair.causal._cache import source_version
    from cffair.errors import CounterfactualWarning

    then = extra.get("generator_version")
    if then is None or extra.get("counterfactuals"):
        return  # an older checkpoint, or counterfactuals from a file (their flow is unknown)
    now = source_version()
    if now != then:
        warnings.warn(
            f"checkpoint {args.checkpoint} was trained on counterfactuals of the generator {then}; this cffair's is {now}, "
            "so recourse uses a flow fitted by today's code, not the one behind the training counterfactuals.",
            CounterfactualWarning,
            stacklevel=2,
        )


def _num(v: Any) -> float | None:
    v = float(v)
    return None if np.isnan(v) else v


def _print(out: dict[str, Any], args: argparse.Namespace) -> None:
    print(
        f"{out['dataset']}: recourse on {', '.join(out['actions'])} (at most {out['max_features']} at once; "
        f"cost: normalised L1, one unit = one sd or one category switch)"
    )
    if args.where:
        n, k = out["people"], out["unfavourable"]
        print(f"  {n} people selected by {args.where!r}, {k} decided unfavourably")
        if k:
            costs = [r["cost"] for r in out["rows"] if r.get("found")]
            print(
                f"  recourse exists for {out['recourse_rate']:.1%}; mean cost {np.mean(costs) if costs else float('nan'):.2f}"
            )
            print(f"  query ∀x∈T̂⁻_C ∃a: Fav(D(x_a)) ∧ Cheap(a) with c = {out['budget']:g}: sat = {out['query']:.3f}")
        return
    for r in out["rows"]:
        head = f"row {r['row']}: D(x) = {r['D']:.3f}"
        if r["favourable"]:
            print(f"{head}, already favourable: no recourse needed")
        elif r["found"]:
            print(
                f"{head}, unfavourable. Cheapest: {r['action']}  (cost {r['cost']:.2f}, D after {r['D_after']:.3f}); "
                f"query sat = {r['query']:.3f}"
            )
        else:
            print(
                f"{head}, unfavourable. No intervention on these features (at most {out['max_features']} at once) works."
            )
