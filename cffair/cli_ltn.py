"""``cffair train`` and ``cffair query``: the LTN pipeline from the command line.

Examples::

    cffair train --dataset compas --setting acc_cf --fold 0 --save runs/compas-cf.pt
    cffair query similar --checkpoint runs/compas-cf.pt --row 12 --beta 3
    cffair query cf --checkpoint runs/compas-cf.pt --where "age <= 30"

Counterfactuals come from :func:`cffair.causal.generate` (cached on disk) or from a parquet file
written by ``cffair counterfactuals generate`` (``--counterfactuals FILE``).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import numpy as np


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``train`` and ``query`` to the ``cffair`` command line."""
    t = sub.add_parser("train", help="train the LTN on one fold and print accuracy/MSE, CF-MSE and worst-subgroup CF-MSE")
    _data_args(t)
    t.add_argument("--setting", default="acc_cf", choices=["acc", "acc_cf", "acc_cf_sg"], help="axiom setting (section 7.1)")
    t.add_argument("--fold", type=int, default=0, help="fold of the seeded 5-fold split (0-4)")
    t.add_argument("--folds", type=int, default=5)
    t.add_argument("--pretrain-epochs", type=int, default=None, help="epochs on the accuracy axioms (paper: 1500)")
    t.add_argument("--fair-epochs", type=int, default=None, help="epochs after adding the fairness axioms (default 500)")
    t.add_argument("--lr", type=float, default=None, help="Adam learning rate (paper: 0.1)")
    t.add_argument("--weights", default="", help="axiom group weights, e.g. acc=1,cf=2 (appendix B)")
    t.add_argument("--save", help="write the trained learner (checkpoint) here")
    t.add_argument("--json", action="store_true", help="print the evaluation as JSON")
    t.set_defaults(func=_train)

    q = sub.add_parser("query", help="post-hoc queries of a trained model (section 4.4)")
    qsub = q.add_subparsers(dest="query_command", required=True)
    s = qsub.add_parser("similar", help="equation (2): a similar point in my subgroup with a different outcome?")
    s.add_argument("--checkpoint", required=True, help="a checkpoint written by `cffair train --save`")
    s.add_argument("--row", type=int, required=True, help="positional row id of x̂ in the dataset")
    s.add_argument("--beta", type=float, default=3.0, help="similarity radius β on encoded rows (Table 4: 3 or 5)")
    s.add_argument("--k", type=int, default=3, help="number of witnesses to show")
    s.set_defaults(func=_query_similar)
    c = qsub.add_parser("cf", help="equation (3): counterfactual fairness of a subgroup")
    c.add_argument("--checkpoint", required=True)
    c.add_argument("--where", required=True, help="pandas query on the readable data selecting T_C, e.g. \"age <= 30\"")
    c.add_argument("--counterfactuals", help="counterfactual parquet (default: generate/cached)")
    c.add_argument("--quiet", action="store_true")
    c.set_defaults(func=_query_cf)


def _data_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--dataset", required=True, help="adult | compas | compas_age | lawschool, or a CSV path with --spec")
    p.add_argument("--spec", help="YAML spec for a CSV of your own")
    p.add_argument("--counterfactuals", help="counterfactual parquet (default: generate with the causal flow, cached)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--cache-dir", help="cache folder for counterfactuals")
    p.add_argument("--quiet", action="store_true", help="no progress bars")


def _load(dataset: str, spec: str | None) -> Any:
    from cffair import datasets

    return datasets.from_csv(dataset, spec) if spec else datasets.load(dataset)


def _counterfactuals(ds: Any, path: str | None, seed: int, cache_dir: str | None, quiet: bool) -> Any:
    from cffair.causal import CounterfactualSet

    if path:
        return CounterfactualSet.load(path)
    from cffair.causal import generate

    return generate(ds, interventions="sensitive", seed=seed, cache_dir=cache_dir, progress=not quiet)


def _parse_weights(text: str) -> dict[str, float]:
    from cffair.errors import SpecError

    out: dict[str, float] = {}
    for part in filter(None, (p.strip() for p in text.split(","))):
        key, _, val = part.partition("=")
        try:
            out[key.strip()] = float(val)
        except ValueError:
            raise SpecError(f"--weights expects group=number pairs such as acc=1,cf=2; got {part!r}.") from None
    return out


def prepare_fold(ds: Any, fold: int, n_folds: int, seed: int, cfs: Any) -> dict[str, Any]:
    """Encoder fitted on the training part, encoded arrays, and sensitive-attribute pairs for both parts."""
    from cffair.datasets import make_folds
    from cffair.encoding import Encoder
    from cffair.errors import DataError

    frame, spec = ds
    folds = make_folds(frame, spec, n_folds, seed)
    if not 0 <= fold < len(folds):
        raise DataError(f"--fold must lie in 0..{len(folds) - 1}, got {fold}.")
    f = folds[fold]
    enc = Encoder(spec).fit(frame.iloc[f.train])
    labels = spec.subgroup_labels(frame).to_numpy()
    out = {"spec": spec, "frame": frame, "encoder": enc, "fold": f, "subgroup_labels": labels}
    for part, rows in (("train", f.train), ("test", f.test)):
        sub = frame.iloc[rows]
        out[f"X_{part}"] = enc.transform(sub)
        out[f"y_{part}"] = sub[spec.target].to_numpy(dtype=float)
        pairs = cfs.pairs(frame, enc, spec.sensitive, rows=rows)
        out[f"pairs_{part}"] = pairs
        out[f"pair_subgroups_{part}"] = labels[pairs.row_id]
    return out


def _train(args: argparse.Namespace) -> int:
    from cffair.metrics import evaluate
    from cffair.training import LTNLearner
    from cffair.utils import torch_cpu_setup

    torch_cpu_setup()
    ds = _load(args.dataset, args.spec)
    cfs = _counterfactuals(ds, args.counterfactuals, args.seed, args.cache_dir, args.quiet)
    d = prepare_fold(ds, args.fold, args.folds, args.seed, cfs)
    spec = d["spec"]
    kw: dict[str, Any] = {"group_weights": _parse_weights(args.weights), "seed": args.seed, "progress": not args.quiet, "sensitive": spec.sensitive}
    if args.pretrain_epochs is not None:
        kw["pretrain_epochs"] = args.pretrain_epochs
    if args.fair_epochs is not None:
        kw["fair_epochs"] = args.fair_epochs
    if args.lr is not None:
        kw["lr"] = args.lr
    learner = LTNLearner(spec.target_kind, args.setting, **kw)
    learner.fit(d["X_train"], d["y_train"], pairs=d["pairs_train"], pair_subgroups=d["pair_subgroups_train"])
    res = evaluate(learner.predict_d, d["X_test"], d["y_test"], d["pairs_test"], d["pair_subgroups_test"], spec.target_kind)
    res.update({"dataset": spec.name, "setting": args.setting, "fold": args.fold})
    if args.save:
        learner.save(
            args.save,
            extra={"dataset": args.dataset, "spec": args.spec, "fold": args.fold, "folds": args.folds, "seed": args.seed,
                   "counterfactuals": args.counterfactuals, "cache_dir": args.cache_dir},
        )
    if args.json:
        print(json.dumps(res, indent=2))
        return 0
    perf = f"accuracy {res['accuracy']:.3f}" if "accuracy" in res else f"MSE {res['mse']:.3f}"
    print(f"{spec.name}  {args.setting}  fold {args.fold}")
    print(f"  {perf}")
    print(f"  CF-MSE {res['cf_mse']:.4f}  (pooled over {res['n_pairs']:,} test pairs)")
    print(f"  worst-subgroup CF-MSE {res['cf_mse_worst_subgroup']:.4f}  ({res['worst_subgroup']})")
    for g, v in sorted(res["cf_mse_by_subgroup"].items(), key=lambda kv: -kv[1]):
        print(f"    {g:<36} {v:.4f}")
    return 0


def _from_checkpoint(path: str) -> tuple[Any, dict[str, Any], Any]:
    from cffair.errors import DataError
    from cffair.training import LTNLearner, checkpoint_extra

    if not Path(path).exists():
        raise DataError(f"checkpoint {path} does not exist; write one with `cffair train --save PATH`.")
    extra = checkpoint_extra(path)
    if "dataset" not in extra:
        raise DataError(f"{path} does not say which dataset it was trained on; it was not written by `cffair train --save`.")
    learner = LTNLearner.load(path, progress=False)
    ds = _load(extra["dataset"], extra.get("spec"))
    return learner, extra, ds


def _fold_encoder(ds: Any, extra: dict[str, Any]) -> Any:
    from cffair.datasets import make_folds
    from cffair.encoding import Encoder

    frame, spec = ds
    f = make_folds(frame, spec, extra.get("folds", 5), extra.get("seed", 0))[extra.get("fold", 0)]
    return Encoder(spec).fit(frame.iloc[f.train])


def _query_similar(args: argparse.Namespace) -> int:
    from cffair.errors import DataError
    from cffair.queries import similar_different

    learner, extra, ds = _from_checkpoint(args.checkpoint)
    frame, spec = ds
    if not 0 <= args.row < len(frame):
        raise DataError(f"--row must lie in 0..{len(frame) - 1}, got {args.row}.")
    enc = _fold_encoder(ds, extra)
    labels = spec.subgroup_labels(frame).to_numpy()
    members = np.flatnonzero(labels == labels[args.row])
    X = enc.transform(frame.iloc[members])
    x_hat = enc.transform(frame.iloc[[args.row]])[0]
    res = similar_different(learner.model_, X, x_hat, args.beta, spec.target_kind, learner.semantics, enc, k=args.k)
    print(f"subgroup {labels[args.row]!r} ({len(members):,} rows), β = {args.beta}: sat = {res.sat:.3f}")
    print("x̂:")
    print(res.query_row.to_string(index=False))
    print("closest rows with a different outcome:" if len(res.rows) else "no row within β has a different outcome.")
    if len(res.rows):
        shown = res.rows.copy()
        shown["row_id"] = members[shown.pop("index").to_numpy()]
        print(shown.to_string(index=False))
    return 0


def _query_cf(args: argparse.Namespace) -> int:
    from cffair.errors import DataError
    from cffair.queries import subgroup_cf

    learner, extra, ds = _from_checkpoint(args.checkpoint)
    frame, spec = ds
    enc = _fold_encoder(ds, extra)
    try:
        selected = frame.reset_index(drop=True).query(args.where).index.to_numpy()
    except Exception as exc:  # pandas raises many kinds for a bad expression
        raise DataError(f"--where {args.where!r} is not a valid pandas query on columns {list(frame.columns)}: {exc}") from None
    cfs = _counterfactuals(ds, args.counterfactuals or extra.get("counterfactuals"), extra.get("seed", 0), extra.get("cache_dir"), args.quiet)
    pairs = cfs.pairs(frame, enc, spec.sensitive)
    mask = np.isin(pairs.row_id, selected)
    sat = subgroup_cf(learner.model_, pairs.x, pairs.x_cf, mask, spec.target_kind, learner.semantics, name=args.where, sensitive=spec.sensitive)
    print(f"∀x∈T_C, ∀x′∈cf(x, {spec.sensitive}): D(x) {'↔' if spec.target_kind == 'binary' else 'Eq'} D(x′)   with T_C: {args.where}")
    print(f"  {int(mask.sum()):,} pairs from {len(selected):,} rows: sat = {sat:.4f}")
    return 0
