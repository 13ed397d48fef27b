"""The LTN settings on one fold: shared pre-training, fairness stages, CKE and the queries.

* ``ltn_acc`` is the pre-trained model (1500 epochs on the accuracy axioms); every fairness
  setting continues from that same checkpoint (shared pre-training, section 7.1).
* ``*_cke`` settings continue from the matching fairness model and add the extracted A5
  axioms one by one (``cke_epochs`` each, section 7.3).
* An investigation's options (:data:`cffair.experiments.OPTIONS`) act here: ``lr`` and
  ``clip_grad`` on both stages (the task group pre-trains with them), ``fair_p`` and
  ``fair_epochs`` on the fairness stage, ``explain`` and ``cke_top`` on knowledge extraction,
  ``x_hat`` on query (2); ``semantics`` and ``a4_body`` on the knowledge base of the fairness stage,
  ``twins`` on the twins it trains and is scored on (appendix C's studies). A variant never becomes
  the parent of a CKE setting.
* The paper's ``ltn_acc`` record also keeps the pre-trained model's diagnostics (appendix C):
  saturation on the training pairs and the share of A4's gradient on the flipped pairs.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import numpy as np
import pandas as pd

from cffair.causal.cfset import CFPairs
from cffair.devices import current_device
from cffair.experiments.config import ExperimentConfig, profile
from cffair.experiments.fingerprint import diff
from cffair.experiments.store import ResultsStore, make_record
from cffair.pipeline.fold import FoldData
from cffair.utils import seed_everything, stable_hash

__all__ = ["DIAGNOSTIC_P", "HISTORY_STRIDE", "QUERY_SUBGROUPS", "run", "state_hash"]

#: History is stored every ``HISTORY_STRIDE`` epochs (the curves in the book).
HISTORY_STRIDE = 10

#: Table 4 of the paper: subgroups queried with equation (2) and their radius β.
QUERY_SUBGROUPS: dict[str, float] = {
    "Male, White": 3.0,
    "Male, Black": 3.0,
    "Female, White": 5.0,
    "Female, Asian-Pac-Islander": 5.0,
}


def state_hash(state: dict[str, Any]) -> str:
    """Content hash of a learner's state (a pre-trained checkpoint)."""
    import torch

    parts = []
    for k in sorted(state["model"]):
        v = state["model"][k]
        parts.append(k.encode() + (v.detach().cpu().numpy().tobytes() if isinstance(v, torch.Tensor) else repr(v).encode()))
    return stable_hash(*parts)


def _history(learner: Any) -> dict[str, list]:
    h = learner.history_
    if h.empty:
        return {}
    h = h[(h["epoch"] % HISTORY_STRIDE == 0) | (h.index == h.index[-1])]
    return {c: [None if (isinstance(v, float) and np.isnan(v)) else v for v in h[c].tolist()] for c in h.columns}


#: Options that change the fairness stage: a config with one is not the parent of a CKE setting.
_FAIR_OPTIONS = ("fair_p", "fair_epochs", "semantics", "a4_body")
#: The ∀ exponents of A4 at which the pre-trained model's gradient share on flipped pairs is recorded.
DIAGNOSTIC_P: tuple[float, ...] = (1.0, 2.0, 6.0)


def _semantics(cfg: ExperimentConfig) -> Any:
    """The knowledge base's semantics of a config: ``None`` (the learner's default, the paper's) unless
    options ``semantics`` or ``a4_body`` say otherwise."""
    opts = cfg.option_map
    if "semantics" not in opts and "a4_body" not in opts:
        return None
    from cffair.logic import Semantics

    return Semantics(logic=opts.get("semantics", "product"), pair_body=opts.get("a4_body", "equiv"))


def _diagnostics(learner: Any, fd: FoldData) -> dict[str, Any]:
    """What the pre-trained model brings to the fairness stage (appendix C): the saturation of its
    outputs on the training pairs, what a flipped decision costs in CF-MSE there, and the share of
    A4's gradient on the flipped pairs for each ∀ exponent of :data:`DIAGNOSTIC_P` (the paper's
    logic) and for each logic at p = 1."""
    from cffair import diagnostics, fuzzy
    from cffair.logic import Semantics

    pairs = fd.pairs_train
    d_x, d_cf = learner.predict_d(pairs.x), learner.predict_d(pairs.x_cf)
    kind = fd.spec.target_kind
    return {
        "saturation_train_pairs": diagnostics.saturation(np.concatenate([d_x, d_cf])),
        "cf_mse_per_flip_train": diagnostics.cf_mse_per_flip(d_x, d_cf),
        "a4_gradient_share": {f"{p:g}": diagnostics.a4_gradient_share(d_x, d_cf, p=p, target_kind=kind) for p in DIAGNOSTIC_P},
        "a4_gradient_share_by_logic": {name: diagnostics.a4_gradient_share(d_x, d_cf, target_kind=kind, semantics=Semantics(logic=name))
                                       for name in fuzzy.LOGICS},
    }


def _ltn_kwargs(cfg: ExperimentConfig, fd: FoldData) -> dict[str, Any]:
    prof = profile(cfg.profile)
    opts = cfg.option_map
    return {
        "target_kind": fd.spec.target_kind,
        "lr": opts.get("lr", prof.lr),
        "clip_grad": opts.get("clip_grad"),
        "pretrain_epochs": prof.pretrain_epochs,
        "fair_epochs": opts.get("fair_epochs", prof.fair_epochs),
        "cke_epochs": prof.cke_epochs,
        "fair_p": opts.get("fair_p"),
        "group_weights": cfg.weight_map,
        "seed": cfg.seed,
        "progress": False,
        "sensitive": fd.spec.sensitive,
        "semantics": _semantics(cfg),
        "device": current_device(),  # the worker's (cffair.devices): where, not what, so in no fingerprint
    }


def _overrides(cfg: ExperimentConfig, fd: FoldData) -> dict[str, Any]:
    kw = _ltn_kwargs(cfg, fd)
    return {k: kw[k] for k in ("lr", "clip_grad", "group_weights", "fair_epochs", "fair_p", "cke_epochs", "progress", "semantics",
                               "device")}


def run(group: list[ExperimentConfig], fd: FoldData, store: ResultsStore, contents: dict[str, str],
        fingerprint: Callable[[ExperimentConfig, dict[str, str]], dict[str, Any]],
        gan_pairs: Callable[[ExperimentConfig, bool], CFPairs] | None = None,
        gan_content: Callable[[ExperimentConfig], str] | None = None) -> list[dict[str, Any]]:
    """Run the LTN settings of one fold and store a record each.

    Args:
        contents: content hashes of the inputs known so far (``counterfactuals``).
        fingerprint: a config's record fingerprint given its inputs' content hashes.
        gan_pairs: a config's GAN's counterfactual pairs of the training (``False``) or test
            (``True``) rows, for settings trained on them (appendix A).
        gan_content: content hash of a config's GAN's training pairs.
    """
    from cffair.training import LTNLearner

    cfg0 = group[0]
    seed_everything(cfg0.seed)
    t0 = time.perf_counter()
    default = ExperimentConfig(cfg0.dataset, cfg0.fold, cfg0.setting, profile=cfg0.profile, n_folds=cfg0.n_folds)
    # weights and later-stage options do not act on the accuracy axioms alone; the group shares pre-training options
    equal = replace(cfg0, weights=default.weights, tag="", options=cfg0.pretrain_options)
    base = LTNLearner(setting="acc", **_ltn_kwargs(equal, fd))
    base.fit(fd.X_train, fd.y_train)
    pre_time = time.perf_counter() - t0
    pretrained = base.state_dict()
    known = {**contents, "pretrained": state_hash(pretrained)}
    models: dict[tuple, Any] = {}
    records = []
    for cfg in sorted(group, key=lambda c: ("cke" in c.setting, c.setting)):
        if "counterfactuals_all" not in known and cfg.option_map.get("explain") == "all":
            known["counterfactuals_all"] = _content_all(fd)
        own = known if cfg.cf_source != "gan" or gan_content is None else {**known, "gan_counterfactuals": gan_content(cfg)}
        fp = fingerprint(cfg, own)
        stored = store.get(cfg)
        if stored is not None and not diff(stored["fingerprint"], fp, own):
            records.append(store.restamp(stored, fp))  # an upstream refactor gave the same inputs
            continue
        t1 = time.perf_counter()
        extra: dict[str, Any] = {}
        # appendix C's sound-twins study: trained and scored on a ruler's twins (option ``twins``)
        f = fd.with_twins(cfg.option_map["twins"]) if "twins" in cfg.option_map else fd
        train_pairs = gan_pairs(cfg, False) if cfg.cf_source == "gan" and gan_pairs else f.pairs_train
        if cfg.setting == "ltn_acc" and not cfg.tag:
            learner = base
            if not cfg.options:
                extra["diagnostics"] = _diagnostics(base, fd)
        elif cfg.setting in ("ltn_acc_cf", "ltn_acc_cf_sg"):
            learner = LTNLearner.load(pretrained, setting=cfg.setting.removeprefix("ltn_"), **_overrides(cfg, fd))
            learner.fit(fd.X_train, fd.y_train, pairs=train_pairs, pair_subgroups=fd.pair_subgroups(train_pairs))
            if not cfg.tag and not cfg.options:
                models[(cfg.setting, cfg.cf_source)] = learner.state_dict()
        elif cfg.setting.endswith("_cke"):
            own_parent = any(k in _FAIR_OPTIONS for k in cfg.option_map)
            parent_state = None if own_parent else models.get((cfg.setting.removesuffix("_cke"), cfg.cf_source))
            learner, extra = _run_cke(cfg, fd, parent_state, pretrained, train_pairs)
        else:
            raise ValueError(f"unknown LTN setting {cfg.setting!r}")
        metrics = f.evaluate(learner.predict_d)
        if cfg.cf_source != "cnf" and gan_pairs is not None:
            extra["metrics_own_counterfactuals"] = fd.evaluate(learner.predict_d, gan_pairs(cfg, True))
        if cfg.setting == "ltn_acc_cf" and not cfg.tag and cfg.cf_source == "cnf" and set(cfg.option_map) <= {"x_hat"}:
            extra["queries"] = _queries(learner, fd, cfg.option_map.get("x_hat", "nearest"), cfg.seed)
        timings = {"pretrain": round(pre_time, 2), "setting": round(time.perf_counter() - t1, 2)}
        timings["total"] = round(timings["pretrain"] + timings["setting"], 2)
        rec = make_record(
            cfg, fp, metrics, timings,
            satisfaction={k: float(v) for k, v in learner.satisfactions().items()},
            history=_history(learner),
            n_train=int(len(fd.train)), n_test=int(len(fd.test)), n_train_pairs=int(len(train_pairs.row_id)),
            **extra,
        )
        store.put(rec)
        records.append(rec)
    return records


def _run_cke(cfg: ExperimentConfig, fd: FoldData, parent_state: Any, pretrained: Any, train_pairs: CFPairs) -> tuple[Any, dict[str, Any]]:
    """Counterfactual knowledge extraction on top of acc+CF (or acc+CF_sg), section 7.3."""
    from cffair import cke
    from cffair.training import LTNLearner

    parent = cfg.setting.removeprefix("ltn_").removesuffix("_cke")
    if parent_state is None:  # the parent setting was not in this group: train it here
        learner = LTNLearner.load(pretrained, setting=parent, **_overrides(cfg, fd))
        learner.fit(fd.X_train, fd.y_train, pairs=train_pairs, pair_subgroups=fd.pair_subgroups(train_pairs))
    else:
        learner = LTNLearner.load(parent_state, **_overrides(cfg, fd))
        learner.restore_axioms(fd.X_train, fd.y_train, pairs=train_pairs, pair_subgroups=fd.pair_subgroups(train_pairs))
    groups_train = pd.Series(fd.frame[fd.spec.sensitive].astype(str).to_numpy())
    opts = cfg.option_map
    explain_all = opts.get("explain") == "all"
    # with explanations on every attribute, the immutable ones come from the same set as the others
    source = _explanation_set(fd) if explain_all else fd.cfset
    pairs_by_feature = cke.pairs_from_cfset(source, fd.frame, fd.encoder, fd.spec, rows=fd.train)
    pairs_all = cke.pairs_from_cfset(source, fd.frame, fd.encoder, fd.spec, rows=fd.train, features="all") if explain_all else None
    before_all = cke.extract(learner.predict_d, pairs_all, groups_train, fd.spec) if explain_all else None
    steps, report = cke.cke_loop(
        learner, fd.X_train, pairs_by_feature, groups_train, fd.spec, evaluate_fn=lambda m: fd.evaluate(m.predict_d),
        top=opts.get("cke_top"),
    )
    after = cke.extract(learner.predict_d, pairs_by_feature, groups_train, fd.spec)
    out: dict[str, Any] = {
        "threshold": report.threshold,
        "candidates": [{"group": c.group, "feature": c.feature, "imbalance": c.imbalance, "frequency": c.frequency} for c in report.candidates],
        "imbalances_before": report.imbalances.to_dict(orient="records"),
        "imbalances_after": after.imbalances.to_dict(orient="records"),
        "undesirable_ratio_before": {str(k): float(v) for k, v in report.undesirable_ratio.items()},
        "undesirable_ratio_after": {str(k): float(v) for k, v in after.undesirable_ratio.items()},
        "steps": steps.to_dict(orient="records"),
    }
    if "cke_top" in opts:
        out["forced"] = [{"group": c.group, "feature": c.feature, "imbalance": c.imbalance} for c in cke.top_candidates(report, opts["cke_top"])]
    if explain_all:
        after_all = cke.extract(learner.predict_d, pairs_all, groups_train, fd.spec)
        out["explain_all"] = {
            "features": sorted(pairs_all),
            "immutable": sorted(pairs_by_feature),
            "imbalances_before": before_all.imbalances.to_dict(orient="records"),
            "imbalances_after": after_all.imbalances.to_dict(orient="records"),
        }
    return learner, {"cke": out}


def _explanation_set(fd: FoldData) -> Any:
    """The fold's dataset's counterfactuals on every attribute (:mod:`cffair.pipeline.explanations`)."""
    from cffair.pipeline.explanations import explanation_set

    return explanation_set(fd.cfg.dataset, fd.cfg.profile)


def _content_all(fd: FoldData) -> str:
    from cffair.pipeline.counterfactuals import content_hash

    return content_hash(_explanation_set(fd))


def _queries(learner: Any, fd: FoldData, rule: str = "nearest", seed: int = 0) -> dict[str, Any]:
    """Equation (2) for a person x̂ of each Table-4 subgroup the data has (Adult's), chosen by
    ``rule`` (:data:`cffair.queries.X_HAT_RULES`), with how often the query finds an answer for
    the subgroup's negatively predicted people; equation (3) for every subgroup of any dataset."""
    from cffair import queries

    out: dict[str, Any] = {"eq2": [], "eq3": {}}
    sg_test = fd.subgroups[fd.test]
    d_test = learner.predict_d(fd.X_test)
    for name, beta in QUERY_SUBGROUPS.items():
        idx = np.flatnonzero(sg_test == name)
        if len(idx) < 2 or not (d_test[idx] < 0.5).any():
            continue
        X_sg, d_sg = fd.X_test[idx], d_test[idx]
        if rule == "nearest" and not (d_sg >= 0.5).any():
            continue  # no differently decided person to be near to
        x_hat = X_sg[queries.query_person(X_sg, d_sg, rule, seed)]
        res = queries.similar_different(learner.model_, X_sg, x_hat, beta=beta, target_kind=fd.spec.target_kind,
                                         encoder=fd.encoder, k=1)
        share, n_neg = queries.witness_share(X_sg, d_sg, beta)
        out["eq2"].append({
            "subgroup": name, "beta": beta, "sat": res.sat, "x_hat_rule": rule,
            "witness_share": share, "n_negative": n_neg,
            "query_row": _jsonable_rows(res.query_row), "neighbours": _jsonable_rows(res.rows),
        })
    pairs = fd.pairs_test
    psg = fd.pair_subgroups(pairs)
    for name in sorted(set(psg)):
        out["eq3"][name] = queries.subgroup_cf(learner.model_, pairs.x, pairs.x_cf, psg == name, fd.spec.target_kind, name=name, sensitive=fd.spec.sensitive)
    return out


def _jsonable_rows(df: pd.DataFrame) -> list[dict[str, Any]]:
    return [{k: (v.item() if hasattr(v, "item") else (str(v) if not isinstance(v, (int, float, str, type(None))) else v)) for k, v in row.items()} for row in df.to_dict(orient="records")]
