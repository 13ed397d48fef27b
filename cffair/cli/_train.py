"""``cffair train``, ``cffair query`` and ``cffair cke``: the LTN pipeline from the command line.

Examples::

    cffair train --dataset compas --setting acc_cf --fold 0 --save runs/compas-cf.pt
    cffair train --dataset compas --setting acc_cf_sg        # reuses the cached pre-training
    cffair query similar --checkpoint runs/compas-cf.pt --row 12 --beta 3
    cffair query cf --checkpoint runs/compas-cf.pt --where "age <= 30"
    cffair cke --data credit.csv --spec credit.yaml --dry-run

Counterfactuals come from :func:`cffair.causal.generate` (cached on disk) or from a parquet file
written by ``cffair counterfactuals generate`` (``--counterfactuals FILE``). Pre-training on the
accuracy axioms is cached too (:func:`cffair.learners.pretrained`), so every setting of a fold
continues from one pre-trained model.

A checkpoint (``--save``) is read without running any code it holds (:mod:`cffair._support.artefacts`) and
carries the hashes of its data (rows, each column, spec, graph) and of its counterfactuals:
``query`` and ``recourse`` reread the data and refuse, with one line naming what changed, data
reordered or edited since training, so that ``--row N`` always names the person it named then.

The learning rate defaults to 1e-3, the reproduction's; the paper's 0.1 (``--lr 0.1``) can
collapse the fairness stages to a constant predictor on these data, which is warned about.
"""

from __future__ import annotations

__all__ = ["register"]

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from cffair.cli._common import (
    Output,
    add_data_args,
    add_flow_args,
    cache_root,
    check_cache_writable,
    check_data_args,
    check_training_rows,
    checkpoint_data,
    counterfactuals,
    data_source,
    flow_config,
    fold_encoder,
    from_checkpoint,
    load_data,
    prepare_fold,
)
from cffair.cli._options import (
    DEVICE_HELP,
    OptionError,
    add_hyperparameter_args,
    device,
    folds,
    non_negative_int,
    positive_float,
    positive_int,
    probability,
    weights,
    where_expression,
)

if TYPE_CHECKING:
    from cffair.experiments._pipeline.fold import FoldData


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``train``, ``query`` and ``cke`` to the ``cffair`` command line."""
    t = sub.add_parser(
        "train", help="train the LTN on one fold and print accuracy/MSE, CF-MSE and worst-subgroup CF-MSE"
    )
    _model_args(t)
    t.add_argument(
        "--setting", default="acc_cf", choices=["acc", "acc_cf", "acc_cf_sg"], help="axiom setting (section 7.1)"
    )
    t.add_argument("--save", metavar="PATH", help="write the trained learner (checkpoint) here")
    t.add_argument("--json", action="store_true", help="print the evaluation as JSON")
    t.set_defaults(func=_train, check=_check_model_args, outputs=(Output("save", "--save", "checkpoint"),))

    c = sub.add_parser(
        "cke", help="counterfactual knowledge extraction (section 4.3): imbalances and the axioms A5 they add"
    )
    _model_args(c)
    c.add_argument(
        "--setting", default="acc_cf", choices=["acc_cf", "acc_cf_sg"], help="the model CKE starts from (Table 3)"
    )
    c.add_argument(
        "--threshold",
        type=probability,
        default=None,
        help="imbalance at or above which an axiom is proposed (default: the paper's, 0.1 COMPAS, 0.01 otherwise)",
    )
    c.add_argument(
        "--max-axioms", type=non_negative_int, default=None, help="add at most this many axioms (default: all)"
    )
    add_hyperparameter_args(c, ("cke_epochs",), notes={"cke_epochs": ">= 1"}, positive=("cke_epochs",))
    c.add_argument(
        "--dry-run", action="store_true", help="only extract: print the imbalances and the axioms it would add"
    )
    c.add_argument("--save", metavar="PATH", help="write the learner after CKE (checkpoint) here")
    c.add_argument("--json", action="store_true", help="print the result as JSON")
    c.set_defaults(func=_cke, check=_check_model_args, outputs=(Output("save", "--save", "checkpoint"),))

    q = sub.add_parser("query", help="post-hoc queries of a trained model (section 4.4)")
    qsub = q.add_subparsers(dest="query_command", required=True, metavar="QUERY")
    s = qsub.add_parser("similar", help="equation (2): a similar point in my subgroup with a different outcome?")
    s.add_argument("--checkpoint", required=True, help="a checkpoint written by `cffair train --save`")
    s.add_argument("--row", type=non_negative_int, required=True, help="positional row id of x̂ in the dataset")
    s.add_argument(
        "--beta", type=positive_float, default=3.0, help="similarity radius β on encoded rows (Table 4: 3 or 5)"
    )
    s.add_argument("--k", type=positive_int, default=3, help="number of witnesses to show")
    s.set_defaults(func=_query_similar)
    qc = qsub.add_parser("cf", help="equation (3): counterfactual fairness of a subgroup")
    qc.add_argument("--checkpoint", required=True, help="a checkpoint written by `cffair train --save`")
    qc.add_argument(
        "--where",
        required=True,
        type=where_expression,
        help="rows selecting T_C, e.g. \"age <= 30 and sex == 'Female'\" (comparisons, and/or/not, in [...]; "
        "`odd-name` for other column names; see cffair.datasets._expressions)",
    )
    qc.add_argument(
        "--counterfactuals",
        metavar="PARQUET",
        help="counterfactual parquet (default: the checkpoint's, or generate/cached)",
    )
    add_flow_args(qc)
    qc.add_argument("--quiet", action="store_true", help="no progress bars")
    qc.set_defaults(func=_query_cf)


# ---------------------------------------------------------------------------- options
def _model_args(p: argparse.ArgumentParser) -> None:
    add_data_args(p)
    p.add_argument(
        "--fold", type=non_negative_int, default=0, help="fold of the seeded split (0 .. folds-1; default 0)"
    )
    p.add_argument(
        "--folds", type=folds, default=5, help="number of folds of the seeded stratified split (default 5, the paper's)"
    )
    add_hyperparameter_args(
        p,
        ("pretrain_epochs", "fair_epochs", "fair_p", "lr"),
        notes={
            "pretrain_epochs": "cached and shared by every setting",
            "fair_epochs": ">= 1 with a fairness setting",
            "fair_p": "a fairness setting only",
        },
    )
    p.add_argument(
        "--allow-no-pretrain",
        action="store_true",
        help="accept --pretrain-epochs 0 with a fairness setting (the fairness axioms then start from an untrained "
        "model, the collapse to a constant predictor the pre-training exists to prevent)",
    )
    p.add_argument(
        "--weights",
        type=weights,
        default={},
        help="axiom group weights (groups acc, cf, cf_sg, cke), e.g. acc=1,cf=2 (appendix B)",
    )
    p.add_argument(
        "--counterfactuals",
        metavar="PARQUET",
        help="counterfactual parquet (default: generate with the causal flow, cached)",
    )
    add_flow_args(p)
    p.add_argument("--quiet", action="store_true", help="no progress bars")
    p.add_argument("--device", type=device, default="cpu", help=DEVICE_HELP)


def _check_model_args(args: argparse.Namespace) -> None:
    check_data_args(args)
    if args.fold >= args.folds:
        raise OptionError(
            f"--fold {args.fold} does not exist with --folds {args.folds}; choose --fold 0 .. {args.folds - 1}."
        )
    fair = args.setting != "acc"
    if args.pretrain_epochs == 0 and not fair:
        raise OptionError(
            "--pretrain-epochs 0 with --setting acc leaves the model untrained (the acc setting is the "
            "pre-training); give --pretrain-epochs 1 or more (default 1500, the paper's)."
        )
    if args.pretrain_epochs == 0 and not args.allow_no_pretrain:
        raise OptionError(
            f"--pretrain-epochs 0 with --setting {args.setting} starts the fairness axioms from an untrained model, "
            "which collapses it to a constant predictor (what the pre-training on the accuracy axioms prevents); "
            "give --pretrain-epochs 1 or more (default 1500), or add --allow-no-pretrain to do it anyway."
        )
    if args.fair_epochs == 0 and fair:
        raise OptionError(
            f"--fair-epochs 0 with --setting {args.setting} never trains on the fairness axioms, so the result is "
            "the pre-trained model; give --fair-epochs 1 or more (default 500), or use --setting acc."
        )
    if args.fair_p is not None and not fair:
        raise OptionError(
            f"--fair-p {args.fair_p:g} with --setting acc changes nothing (p is the exponent of the fairness axioms' "
            "∀); use --setting acc_cf or acc_cf_sg, or leave --fair-p out."
        )
    if args.counterfactuals and not Path(args.counterfactuals).is_file():
        raise OptionError(
            f"--counterfactuals {args.counterfactuals}: no such file; "
            "write one with `cffair counterfactuals generate --out`."
        )
    _check_weights(args)
    check_cache_writable(args)


def _check_weights(args: argparse.Namespace) -> None:
    """``--weights`` of an axiom group the setting lacks would change nothing: refused
    (:func:`cffair._support.validation.check_group_weights`); ``cke`` trains A5 too, unless ``--dry-run``."""
    from cffair._support.validation import check_group_weights

    cke = getattr(args, "command", None) == "cke" and not args.dry_run
    check_group_weights(
        args.weights,
        [args.setting + ("_cke" if cke else "")],
        input_name="--weights",
        setting_name="--setting",
        offered=("acc_cf", "acc_cf_sg") if getattr(args, "command", None) == "cke" else ("acc", "acc_cf", "acc_cf_sg"),
        error=OptionError,
    )


def _learner_kwargs(args: argparse.Namespace) -> dict[str, Any]:
    """The LTN hyperparameters of the command line: each flag's value, else its home's default."""
    from cffair.learners._hyperparameters import DEFAULTS

    names = ("lr", "pretrain_epochs", "fair_epochs", "fair_p")
    return {k: DEFAULTS[k] if getattr(args, k) is None else getattr(args, k) for k in names}


# ---------------------------------------------------------------------------- training
def _fit(args: argparse.Namespace, interventions: str) -> tuple[Any, FoldData, Any, dict[str, Any]]:
    """Load the data, get counterfactuals, pre-train (or read the cache) and fit ``args.setting``.

    Returns (learner, fold data, counterfactual set, information on the pre-training).
    """
    from cffair._support.utils import torch_cpu_setup
    from cffair.learners._pretraining import pretrained
    from cffair.learners._training import LTNLearner

    torch_cpu_setup()
    ds = load_data(args)
    if interventions == "immutable":
        from cffair.evaluation._cke import cke_features

        if not cke_features(ds.spec):
            raise OptionError(
                f"dataset {ds.spec.name} has no immutable feature other than the sensitive attribute {ds.spec.sensitive!r}, "
                "so CKE has nothing to intervene on; list immutable features under `immutable:` in its spec."
            )
    cfs = counterfactuals(
        ds,
        args.counterfactuals,
        interventions=interventions,
        config=flow_config(args),
        seed=args.seed,
        cache=cache_root(args),
        quiet=args.quiet,
    )
    d = prepare_fold(ds, args.fold, args.folds, args.seed, cfs)
    spec = d.spec
    kw = _learner_kwargs(args)
    pre = pretrained(
        d.X_train,
        d.y_train,
        spec.target_kind,
        lr=kw["lr"],
        epochs=kw["pretrain_epochs"],
        seed=args.seed,
        sensitive=spec.sensitive,
        cache_dir=cache_root(args),
        name=f"{spec.name}-fold{args.fold}of{args.folds}",
        progress=not args.quiet,
        device=args.device,
    )
    info = {
        "from_cache": pre.from_cache,
        "path": None if pre.path is None else str(pre.path),
        "epochs": kw["pretrain_epochs"],
    }
    if not args.quiet:
        if pre.from_cache:
            where = f"read from the cache ({pre.path})"
        else:
            where = f"{kw['pretrain_epochs']} epochs" + (f", cached in {pre.path}" if pre.path else "")
        print(f"pre-training: {where}", file=sys.stderr)
    if args.setting == "acc":
        learner = pre.learner
        learner.group_weights = dict(args.weights)
    else:
        learner = LTNLearner.load(
            pre.learner.state_dict(),
            setting=args.setting,
            lr=kw["lr"],
            fair_epochs=kw["fair_epochs"],
            fair_p=kw["fair_p"],
            group_weights=args.weights,
            progress=not args.quiet,
            device=args.device,
        )
        learner.fit(d.X_train, d.y_train, pairs=d.pairs_train, pair_subgroups=d.pair_subgroups(d.pairs_train))
    return learner, d, cfs, info


def _extra(args: argparse.Namespace, cfs: Any, ds: Any) -> dict[str, Any]:
    """What a checkpoint records to rebuild its data, fold and counterfactuals (``cffair query``),
    with the hashes of the data, spec, graph and counterfactuals it was trained on."""
    from cffair._support.artefacts import content_hash

    source, spec = data_source(args)
    absolute = (lambda p: str(Path(p).resolve())) if spec else (lambda p: p)
    return {
        "dataset": absolute(source),
        "spec": spec and str(Path(spec).resolve()),
        "sep": args.sep,
        "decimal": args.decimal,
        "fold": args.fold,
        "folds": args.folds,
        "seed": args.seed,
        "counterfactuals": args.counterfactuals and str(Path(args.counterfactuals).resolve()),
        "cache_dir": args.cache_dir,
        "flow_config": flow_config(args),
        "counterfactual_config": cfs.meta.get("config"),
        "data": checkpoint_data(ds),
        "counterfactuals_content": content_hash(cfs.frame),
        "generator_version": cfs.meta.get("generator_version"),
    }


def _cf_info(cfs: Any) -> dict[str, Any]:
    """How the counterfactuals were made (shown in ``--json`` output)."""
    meta = cfs.meta or {}
    return {
        "generator": meta.get("generator"),
        "categorical": (meta.get("config") or {}).get("categorical"),
        "flow_epochs_run": meta.get("flow_epochs_run"),
        "seed": meta.get("seed"),
    }


def _evaluate(learner: Any, d: FoldData) -> dict[str, Any]:
    return d.evaluate(learner.predict_d)


def _train(args: argparse.Namespace) -> int:
    learner, d, cfs, pre = _fit(args, "sensitive")
    spec = d.spec
    res = _evaluate(learner, d)
    res.update(
        {
            "dataset": spec.name,
            "setting": args.setting,
            "fold": args.fold,
            "lr": learner.lr,
            "fair_p": learner.fair_p,
            "pretraining": pre,
            "counterfactuals": _cf_info(cfs),
        }
    )
    if args.save:
        learner.save(args.save, extra=_extra(args, cfs, (d.frame, spec)))
    if args.json:
        print(json.dumps(res, indent=2, default=str))
        return 0
    perf = f"accuracy {res['accuracy']:.3f}" if "accuracy" in res else f"MSE {res['mse']:.3f}"
    print(f"{spec.name}  {args.setting}  fold {args.fold}  lr {learner.lr:g}")
    print(f"  {perf}")
    print(f"  CF-MSE {res['cf_mse']:.4f}  (pooled over {res['n_pairs']:,} test pairs)")
    print(f"  worst-subgroup CF-MSE {res['cf_mse_worst_subgroup']:.4f}  ({res['worst_subgroup']})")
    for g, v in sorted(res["cf_mse_by_subgroup"].items(), key=lambda kv: -kv[1]):
        print(f"    {g:<36} {v:.4f}")
    return 0


# ---------------------------------------------------------------------------- CKE
def _cke(args: argparse.Namespace) -> int:
    import pandas as pd

    from cffair.evaluation import _cke as cke

    learner, d, cfs, pre = _fit(args, "immutable")
    frame, spec = d.frame, d.spec
    if args.cke_epochs is not None:
        learner.cke_epochs = args.cke_epochs
    groups = pd.Series(frame[spec.sensitive].astype(str).to_numpy())
    pairs_by_feature = cke.pairs_from_cfset(cfs, frame, d.encoder, spec, rows=d.train)
    if args.dry_run:
        report = cke.extract(learner.predict_d, pairs_by_feature, groups, spec, args.threshold)
        chosen = report.candidates[: args.max_axioms] if args.max_axioms is not None else report.candidates
        steps = pd.DataFrame(
            [{"step": 0, "axiom": "-", **{k: v for k, v in _evaluate(learner, d).items() if np.isscalar(v)}}]
        )
    else:
        steps, report = cke.cke_loop(
            learner,
            d.X_train,
            pairs_by_feature,
            groups,
            spec,
            evaluate_fn=lambda m: _evaluate(m, d),
            threshold=args.threshold,
            max_axioms=args.max_axioms,
        )
        chosen = report.candidates[: len(steps) - 1]
    axioms = [
        {"name": ax.name, "group": c.group, "feature": c.feature, "imbalance": c.imbalance, "formula": ax.formula}
        for c, ax in zip(chosen, report.axioms(spec.target_kind, spec.sensitive, chosen), strict=True)
    ]
    if args.save and not args.dry_run:
        learner.save(args.save, extra=_extra(args, cfs, (frame, spec)))
    out = {
        "dataset": spec.name,
        "setting": args.setting,
        "fold": args.fold,
        "threshold": report.threshold,
        "added": not args.dry_run,
        "axioms": axioms,
        "imbalances": report.imbalances.to_dict(orient="records"),
        "undesirable_ratio": {str(k): float(v) for k, v in report.undesirable_ratio.items()},
        "steps": steps.to_dict(orient="records"),
        "pretraining": pre,
        "counterfactuals": _cf_info(cfs),
    }
    if args.json:
        print(json.dumps(out, indent=2, default=str))
        return 0
    _print_cke(out, report)
    return 0


def _print_cke(out: dict[str, Any], report: Any) -> None:
    import pandas as pd

    print(
        f"{out['dataset']}  CKE on {out['setting']}  fold {out['fold']}  (threshold {out['threshold']:g}, training rows)"
    )
    print("imbalances of undesirable explanations (frequency of the group minus the largest of the others)")
    if report.imbalances.empty:
        print("  none: no negatively predicted row has a counterfactual explanation")
    for r in report.imbalances.itertuples():
        mark = "*" if r.imbalance >= report.threshold else " "
        print(
            f" {mark}{r.group:<24} {r.feature:<20} frequency {r.frequency:.3f}  "
            f"others {r.others_max:.3f}  imbalance {r.imbalance:+.3f}"
        )
    if out["axioms"]:
        print(f"axioms A5 {'added, in this order' if out['added'] else 'it would add (--dry-run)'}:")
    else:
        print(f"no imbalance reaches the threshold {out['threshold']:g}: no axiom A5 to add.")
    for a in out["axioms"]:
        print(f"  {a['name']}  {a['formula']}  (imbalance {a['imbalance']:+.3f})")
    steps = pd.DataFrame(out["steps"])
    cols = [c for c in ("step", "axiom", "accuracy", "mse", "cf_mse", "cf_mse_worst_subgroup") if c in steps.columns]
    print("evaluation on the test rows" + (" after each added axiom" if out["added"] else ""))
    print(steps[cols].to_string(index=False, float_format=lambda v: f"{v:.4f}"))


# ---------------------------------------------------------------------------- queries
def _query_similar(args: argparse.Namespace) -> int:
    from cffair.errors import DataError
    from cffair.evaluation._queries import similar_different

    learner, extra, ds = from_checkpoint(args.checkpoint)
    frame, spec = ds
    if not 0 <= args.row < len(frame):
        raise DataError(f"--row must lie in 0..{len(frame) - 1}, got {args.row}.")
    enc = fold_encoder(ds, extra)[1]
    check_training_rows(learner, ds, extra, enc, args.checkpoint)
    labels = spec.subgroup_labels(frame).to_numpy()
    members = np.flatnonzero(labels == labels[args.row])
    X = enc.transform(frame.iloc[members])
    x_hat = enc.transform(frame.iloc[[args.row]])[0]
    res = similar_different(
        learner.model_,
        X,
        x_hat,
        beta=args.beta,
        target_kind=spec.target_kind,
        semantics=learner.semantics_,
        encoder=enc,
        k=args.k,
    )
    print(f"subgroup {labels[args.row]!r} ({len(members):,} rows), β = {args.beta}: sat = {res.sat:.3f}")
    print("x̂:")
    print(res.query_row.to_string(index=False))
    print("closest rows with a different outcome:" if len(res.rows) else "no row within β has a different outcome.")
    if len(res.rows):
        shown = res.rows.copy()
        shown["row_id"] = members[shown.pop("index").to_numpy()]
        print(shown.to_string(index=False))
    return 0


def _check_same_counterfactuals(args: argparse.Namespace, extra: dict[str, Any], cfs: Any) -> None:
    """Warn when the counterfactuals regenerated as at training time are not those the checkpoint
    was trained with (its ``counterfactuals_content`` hash): the generator changed since."""
    import warnings

    from cffair._support.artefacts import content_hash
    from cffair.errors import CounterfactualWarning

    stored = extra.get("counterfactuals_content")
    if stored is None or args.counterfactuals or flow_config(args):
        return  # an older checkpoint, or counterfactuals chosen here on purpose
    now = content_hash(cfs.frame)
    if now != stored:
        warnings.warn(
            f"the counterfactuals regenerated for checkpoint {args.checkpoint} differ from those it was trained with "
            f"(content hash {stored}, now {now}: the generator or its settings changed since training); the query "
            "is answered with today's counterfactuals. Pass --counterfactuals FILE to use a saved set.",
            CounterfactualWarning,
            stacklevel=2,
        )


def _query_cf(args: argparse.Namespace) -> int:
    from cffair.datasets._expressions import selected_rows
    from cffair.evaluation._queries import subgroup_cf

    learner, extra, ds = from_checkpoint(args.checkpoint)
    frame, spec = ds
    enc = fold_encoder(ds, extra)[1]
    check_training_rows(learner, ds, extra, enc, args.checkpoint)
    selected = selected_rows(frame.reset_index(drop=True), args.where)
    # regenerate as at training time unless an option here says otherwise
    config = {**(extra.get("flow_config") or {}), **flow_config(args)}
    cache = cache_root(args) if (args.cache_dir or args.no_cache) else extra.get("cache_dir")
    cfs = counterfactuals(
        ds,
        args.counterfactuals or extra.get("counterfactuals"),
        interventions="sensitive",
        config=config,
        seed=extra.get("seed", 0),
        cache=cache,
        quiet=args.quiet,
    )
    _check_same_counterfactuals(args, extra, cfs)
    pairs = cfs.pairs(frame, enc, spec.sensitive)
    mask = np.isin(pairs.row_id, selected)
    sat = subgroup_cf(
        learner.model_,
        pairs.x,
        pairs.x_cf,
        mask,
        spec.target_kind,
        learner.semantics_,
        name=args.where,
        sensitive=spec.sensitive,
    )
    link = "↔" if spec.target_kind == "binary" else "Eq"
    print(f"∀x∈T_C, ∀x′∈cf(x, {spec.sensitive}): D(x) {link} D(x′)   with T_C: {args.where}")
    print(f"  {int(mask.sum()):,} pairs from {len(selected):,} rows: sat = {sat:.4f}")
    return 0
