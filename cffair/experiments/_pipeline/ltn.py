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
from collections.abc import Callable, Sequence
from typing import Any, cast

import numpy as np
import pandas as pd

from cffair._support.devices import current_device
from cffair._support.utils import seed_everything, stable_hash
from cffair.causal._cfset import CFPairs
from cffair.errors import ConfigError, ParameterError
from cffair.experiments._config import ExperimentConfig
from cffair.experiments._fingerprint import diff
from cffair.experiments._pipeline.fold import FoldData
from cffair.experiments._pipeline.stages import StageStore, state_hash
from cffair.experiments._store import ResultsStore, make_record
from cffair.experiments._tasks import parent_config, pretrain_config

__all__ = ["DIAGNOSTIC_P", "HISTORY_STRIDE", "QUERY_SUBGROUPS", "run_stage", "state_hash"]

#: History is stored every ``HISTORY_STRIDE`` epochs (the curves in the book).
HISTORY_STRIDE = 10

#: Table 4 of the paper: subgroups queried with equation (2) and their radius β.
QUERY_SUBGROUPS: dict[str, float] = {
    "Male, White": 3.0,
    "Male, Black": 3.0,
    "Female, White": 5.0,
    "Female, Asian-Pac-Islander": 5.0,
}


def _history(learner: Any) -> dict[str, list]:
    h = learner.history_
    if h.empty:
        return {}
    h = h[(h["epoch"] % HISTORY_STRIDE == 0) | (h.index == h.index[-1])]
    return {c: [None if (isinstance(v, float) and np.isnan(v)) else v for v in h[c].tolist()] for c in h.columns}


#: The ∀ exponents of A4 at which the pre-trained model's gradient share on flipped pairs is recorded.
DIAGNOSTIC_P: tuple[float, ...] = (1.0, 2.0, 6.0)


def _semantics(cfg: ExperimentConfig) -> Any:
    """The knowledge base's semantics of a config: ``None`` (the learner's default, the paper's) unless
    options ``semantics`` or ``a4_body`` say otherwise."""
    opts = cfg.option_map
    if "semantics" not in opts and "a4_body" not in opts:
        return None
    from cffair.logic._axioms import Semantics

    return Semantics(logic=opts.get("semantics", "product"), pair_body=opts.get("a4_body", "equiv"))


def _diagnostics(learner: Any, fd: FoldData) -> dict[str, Any]:
    """What the pre-trained model brings to the fairness stage (appendix C): the saturation of its
    outputs on the training pairs, what a flipped decision costs in CF-MSE there, and the share of
    A4's gradient on the flipped pairs for each ∀ exponent of :data:`DIAGNOSTIC_P` (the paper's
    logic) and for each logic at p = 1."""
    from cffair.evaluation import _diagnostics as diagnostics
    from cffair.logic import _fuzzy as fuzzy
    from cffair.logic._axioms import Semantics

    pairs = fd.pairs_train
    d_x, d_cf = learner.predict_d(pairs.x), learner.predict_d(pairs.x_cf)
    kind = fd.spec.target_kind
    return {
        "saturation_train_pairs": diagnostics.saturation(np.concatenate([d_x, d_cf])),
        "cf_mse_per_flip_train": diagnostics.cf_mse_per_flip(d_x, d_cf),
        "a4_gradient_share": {
            f"{p:g}": diagnostics.a4_gradient_share(d_x, d_cf, p=p, target_kind=kind) for p in DIAGNOSTIC_P
        },
        "a4_gradient_share_by_logic": {
            name: diagnostics.a4_gradient_share(d_x, d_cf, target_kind=kind, semantics=Semantics(logic=name))
            for name in fuzzy.LOGICS
            if kind == "binary" or fuzzy.logic(name).acts_on_scores  # Gödel cannot read a score's Eq
        },
    }


def _ltn_kwargs(cfg: ExperimentConfig, fd: FoldData) -> dict[str, Any]:
    run = cfg.settings
    return {
        "target_kind": fd.spec.target_kind,
        "lr": run.lr,
        "clip_grad": run.clip_grad,
        "pretrain_epochs": run.pretrain_epochs,
        "fair_epochs": run.fair_epochs,
        "cke_epochs": run.cke_epochs,
        "fair_p": run.fair_p,
        "patience": cfg.option_map.get("patience"),  # early stopping (own data's full profile)
        "group_weights": cfg.weight_map,
        "seed": cfg.seed,
        "progress": False,
        "sensitive": fd.spec.sensitive,
        "semantics": _semantics(cfg),
        "device": current_device(),  # the worker's (cffair._support.devices): where, not what, so in no fingerprint
    }


def _overrides(cfg: ExperimentConfig, fd: FoldData) -> dict[str, Any]:
    kw = _ltn_kwargs(cfg, fd)
    return {
        k: kw[k]
        for k in (
            "lr",
            "clip_grad",
            "group_weights",
            "fair_epochs",
            "fair_p",
            "cke_epochs",
            "patience",
            "progress",
            "semantics",
            "device",
        )
    }


def _pretrain(cfg: ExperimentConfig, fd: FoldData) -> tuple[Any, float]:
    """The shared pre-training of ``cfg``'s fold on the accuracy axioms: ``(learner, seconds)``; the
    library's one pre-training (:func:`cffair.learners.pretrained`), its cache off: a record keeps
    its pre-training by content (input ``pretrained``)."""
    from cffair.learners._pretraining import pretrained

    seed_everything(cfg.seed)
    t0 = time.perf_counter()
    # weights and later-stage options do not act on the accuracy axioms alone; the group shares pre-training options
    kw = _ltn_kwargs(pretrain_config(cfg), fd)
    base = pretrained(
        fd.X_train,
        fd.y_train,
        kw["target_kind"],
        lr=kw["lr"],
        epochs=kw["pretrain_epochs"],
        seed=kw["seed"],
        semantics=kw["semantics"],
        sensitive=kw["sensitive"],
        clip_grad=kw["clip_grad"],
        patience=kw["patience"],
        cache_dir=False,
        progress=False,
        device=kw["device"],
    ).learner
    return base, time.perf_counter() - t0


def _fair(cfg: ExperimentConfig, fd: FoldData, pretrained: dict[str, Any], train_pairs: CFPairs) -> Any:
    """A fairness setting (acc+CF or acc+CF_sg) continued from the pre-trained checkpoint."""
    from cffair.learners._training import LTNLearner

    learner = LTNLearner.load(pretrained, setting=cfg.setting.removeprefix("ltn_"), **_overrides(cfg, fd))
    return learner.fit(fd.X_train, fd.y_train, pairs=train_pairs, pair_subgroups=fd.pair_subgroups(train_pairs))


def _twins_of(cfg: ExperimentConfig, fd: FoldData) -> FoldData:
    """The fold a config trains and is scored on: a ruler's twins with option ``twins`` (appendix
    C's sound-twins study), else the fold itself."""
    return fd.with_twins(cfg.option_map["twins"]) if "twins" in cfg.option_map else fd


def _finish(
    cfg: ExperimentConfig,
    fd: FoldData,
    store: ResultsStore,
    fp: dict[str, Any],
    learner: Any,
    extra: dict[str, Any],
    *,
    train_pairs: CFPairs,
    own_test: CFPairs | None,
    pre_time: float,
    t1: float,
) -> dict[str, Any]:
    """Evaluate a trained setting (on its own twins, :func:`_twins_of`), store its record and return it."""
    metrics = _twins_of(cfg, fd).evaluate(learner.predict_d)
    if cfg.cf_source != "cnf" and own_test is not None:
        extra["metrics_own_counterfactuals"] = fd.evaluate(learner.predict_d, own_test)
    if cfg.setting == "ltn_acc_cf" and not cfg.tag and cfg.cf_source == "cnf" and set(cfg.option_map) <= {"x_hat"}:
        extra["queries"] = _queries(learner, fd, cfg.option_map.get("x_hat", "nearest"), cfg.seed)
    timings = {"pretrain": round(pre_time, 2), "setting": round(time.perf_counter() - t1, 2)}
    timings["total"] = round(timings["pretrain"] + timings["setting"], 2)
    rec = make_record(
        cfg,
        fp,
        metrics,
        timings,
        satisfaction={k: float(v) for k, v in learner.satisfactions().items()},
        history=_history(learner),
        n_train=int(len(fd.train)),
        n_test=int(len(fd.test)),
        n_train_pairs=int(len(train_pairs.row_id)),
        **extra,
    )
    store.put(rec)
    return rec


def _restamped(
    cfg: ExperimentConfig, store: ResultsStore, fp: dict[str, Any], known: dict[str, str]
) -> dict[str, Any] | None:
    """The stored record restamped when an upstream refactor gave the same inputs, else ``None``."""
    stored = store.get(cfg)
    if stored is not None and not diff(stored["fingerprint"], fp, known):
        return store.restamp(stored, fp)
    return None


#: A stage output's file name in the stage folder, given its input name and config (the
#: dispatcher's: the hash of the output's producer fingerprint).
ProducerKey = Callable[[str, ExperimentConfig], str]
#: A config's GAN's twins of the fold as ``(training pairs, test pairs, content hash of the training pairs)``.
GanTwins = Callable[[ExperimentConfig], tuple[CFPairs, CFPairs, str]]


def _pretrained(
    cfg: ExperimentConfig, fd: FoldData, stages: StageStore, key: ProducerKey
) -> tuple[dict[str, Any], float, Any]:
    """The pre-trained checkpoint of ``cfg``'s fold from the stage folder, or trained now and
    stored: ``(state, seconds it took, the learner if trained now else None)``."""
    name = key("pretrained", cfg)
    got = stages.learner_state(name)
    if got is not None:
        return got[0], float(got[1]["seconds"]), None
    base, seconds = _pretrain(cfg, fd)
    stages.put_learner(name, base, seconds=seconds)
    return base.state_dict(), seconds, base


def _parent_options(cfg: ExperimentConfig) -> tuple[tuple[str, Any], ...]:
    """The options of a CKE config that its fairness setting trains with (all but knowledge
    extraction's own, ``explain`` and ``cke_top``)."""
    return tuple((k, v) for k, v in cfg.options if k not in ("explain", "cke_top"))


def parent_key(cfg: ExperimentConfig) -> str | None:
    """Whether a fairness setting is one a CKE setting continues from (no tag, no options): its
    setting name then, else ``None``."""
    return None if cfg.tag or cfg.options else cfg.setting


def run_stage(
    stage: str,
    target: ExperimentConfig,
    configs: Sequence[ExperimentConfig],
    fd: FoldData,
    store: ResultsStore,
    *,
    contents: dict[str, str],
    fingerprint: Callable[[ExperimentConfig, dict[str, str]], dict[str, Any]],
    stages: StageStore,
    key: ProducerKey,
    gan_twins: GanTwins | None = None,
) -> list[dict[str, Any]]:
    """Run one stage of the LTN on one fold (a task of :func:`cffair.experiments._tasks.task_graph`)
    and store the records of ``configs`` (none for a task that only makes ``target``'s output).

    * ``pretrain``: the pre-training (``target`` is its canonical config), stored as a
      checkpoint; the ``ltn_acc`` records (the paper's with the pre-trained model's diagnostics).
    * ``fair``: ``target``'s fairness setting from the stored pre-training; a setting a CKE
      setting continues from (no tag, no options) is stored too, under its record's hash.
    * ``cke``: ``target``'s CKE setting from its stored parent (trained now and stored when
      absent), or from a parent of its own (:func:`~cffair.experiments._tasks.parent_config`).

    A stage continued from a stored checkpoint computes what one process would have: a checkpoint restores
    weights, Adam's state and history.
    """
    from cffair.learners._training import LTNLearner

    pretrained, pre_time, base = _pretrained(target, fd, stages, key)
    known = {**contents, "pretrained": state_hash(pretrained)}
    own_test = None
    if target.cf_source == "gan":
        if gan_twins is None:
            raise ConfigError(f"{target.key} trains on the GAN's twins; pass gan_twins.")
        train_pairs, own_test, known["gan_counterfactuals"] = gan_twins(target)
    else:
        train_pairs = _twins_of(target, fd).pairs_train
    if target.option_map.get("explain") == "all":
        known["counterfactuals_all"] = _content_all(fd)
    records = []
    if stage == "pretrain":
        for cfg in configs:  # the ltn_acc records: the pre-trained model itself
            fp = fingerprint(cfg, known)
            again = _restamped(cfg, store, fp, known)
            if again is not None:
                records.append(again)
                continue
            t1 = time.perf_counter()
            learner = base
            if learner is None:  # the checkpoint came from the stage folder: the same weights and history
                learner = LTNLearner.load(pretrained, setting="acc", progress=False).restore_axioms(
                    fd.X_train, fd.y_train
                )
            extra = {} if cfg.options else {"diagnostics": _diagnostics(learner, fd)}
            records.append(
                _finish(
                    cfg,
                    fd,
                    store,
                    fp,
                    learner,
                    extra,
                    train_pairs=_twins_of(cfg, fd).pairs_train,
                    own_test=None,
                    pre_time=pre_time,
                    t1=t1,
                )
            )
        return records
    if stage == "fair":
        if target.setting not in ("ltn_acc_cf", "ltn_acc_cf_sg"):
            raise ConfigError(f"unknown LTN setting {target.setting!r}")
        name = stable_hash(fingerprint(target, known)) if parent_key(target) else None  # a CKE setting's parent
        have = name is not None and stages.learner_state(name) is not None
        if not configs and (name is None or have):
            return []  # a producer whose output is there already
        for cfg in configs:
            again = _restamped(cfg, store, fingerprint(cfg, known), known)
            if again is not None and (name is None or have):
                return [again]
        t1 = time.perf_counter()
        seed_everything(target.seed)
        learner, extra = _fair(target, fd, pretrained, train_pairs), {}
        if name is not None:
            stages.put_learner(name, learner)
    elif stage == "cke":
        for cfg in configs:
            again = _restamped(cfg, store, fingerprint(cfg, known), known)
            if again is not None:
                return [again]
        t1 = time.perf_counter()
        seed_everything(target.seed)
        parent = parent_config(target)
        parent_state = None
        if parent is not None:
            name = stable_hash(fingerprint(parent, known))
            got = stages.learner_state(name)
            if got is None:  # the parent's record was fresh and its model is gone: train it again
                made = _fair(parent, fd, pretrained, train_pairs)
                stages.put_learner(name, made)
                parent_state = made.state_dict()
            else:
                parent_state = got[0]
        learner, extra = _run_cke(target, fd, parent_state, pretrained, train_pairs)
    else:
        raise ParameterError(f"unknown LTN stage {stage!r}")
    return [
        _finish(
            cfg,
            fd,
            store,
            fingerprint(cfg, known),
            learner,
            extra,
            train_pairs=train_pairs,
            own_test=own_test,
            pre_time=pre_time,
            t1=t1,
        )
        for cfg in configs
    ]


def _run_cke(
    cfg: ExperimentConfig, fd: FoldData, parent_state: Any, pretrained: Any, train_pairs: CFPairs
) -> tuple[Any, dict[str, Any]]:
    """Counterfactual knowledge extraction on top of acc+CF (or acc+CF_sg), section 7.3."""
    from cffair.evaluation import _cke as cke
    from cffair.learners._training import LTNLearner

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
    pairs_all = (
        cke.pairs_from_cfset(source, fd.frame, fd.encoder, fd.spec, rows=fd.train, features="all")
        if explain_all
        else None
    )
    before_all = (
        cke.extract(learner.predict_d, cast("dict[str, Any]", pairs_all), groups_train, fd.spec)
        if explain_all
        else None
    )
    steps, report = cke.cke_loop(
        learner,
        fd.X_train,
        pairs_by_feature,
        groups_train,
        fd.spec,
        evaluate_fn=lambda m: fd.evaluate(m.predict_d),
        top=opts.get("cke_top"),
    )
    after = cke.extract(learner.predict_d, pairs_by_feature, groups_train, fd.spec)
    out: dict[str, Any] = {
        "threshold": report.threshold,
        "candidates": [
            {"group": c.group, "feature": c.feature, "imbalance": c.imbalance, "frequency": c.frequency}
            for c in report.candidates
        ],
        "imbalances_before": report.imbalances.to_dict(orient="records"),
        "imbalances_after": after.imbalances.to_dict(orient="records"),
        "undesirable_ratio_before": {str(k): float(v) for k, v in report.undesirable_ratio.items()},
        "undesirable_ratio_after": {str(k): float(v) for k, v in after.undesirable_ratio.items()},
        "steps": steps.to_dict(orient="records"),
    }
    if "cke_top" in opts:
        out["forced"] = [
            {"group": c.group, "feature": c.feature, "imbalance": c.imbalance}
            for c in cke.top_candidates(report, opts["cke_top"])
        ]
    if explain_all:
        assert pairs_all is not None and before_all is not None  # both made above with explain_all
        after_all = cke.extract(learner.predict_d, pairs_all, groups_train, fd.spec)
        out["explain_all"] = {
            "features": sorted(pairs_all),
            "immutable": sorted(pairs_by_feature),
            "imbalances_before": before_all.imbalances.to_dict(orient="records"),
            "imbalances_after": after_all.imbalances.to_dict(orient="records"),
        }
    return learner, {"cke": out}


def _explanation_set(fd: FoldData) -> Any:
    """The fold's dataset's counterfactuals on every attribute (:mod:`cffair.experiments._pipeline.explanations`)."""
    from cffair.experiments._pipeline.explanations import explanation_set

    return explanation_set(fd.config.dataset, fd.config.profile)


def _content_all(fd: FoldData) -> str:
    from cffair.experiments._pipeline.counterfactuals import content_hash

    return content_hash(_explanation_set(fd))


def _queries(learner: Any, fd: FoldData, rule: str = "nearest", seed: int = 0) -> dict[str, Any]:
    """Equation (2) for a person x̂ of each Table-4 subgroup the data has (Adult's), chosen by
    ``rule`` (:data:`cffair.evaluation.X_HAT_RULES`), with how often the query finds an answer for
    the subgroup's negatively predicted people; equation (3) for every subgroup of any dataset."""
    from cffair.evaluation import _queries as queries

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
        res = queries.similar_different(
            learner.model_, X_sg, x_hat, beta=beta, target_kind=fd.spec.target_kind, encoder=fd.encoder, k=1
        )
        share, n_neg = queries.witness_share(X_sg, d_sg, beta)
        out["eq2"].append(
            {
                "subgroup": name,
                "beta": beta,
                "sat": res.sat,
                "x_hat_rule": rule,
                "witness_share": share,
                "n_negative": n_neg,
                "query_row": _jsonable_rows(res.query_row),
                "neighbours": _jsonable_rows(res.rows),
            }
        )
    pairs = fd.pairs_test
    psg = fd.pair_subgroups(pairs)
    for name in sorted(set(psg)):
        out["eq3"][name] = queries.subgroup_cf(
            learner.model_,
            pairs.x,
            pairs.x_cf,
            psg == name,
            fd.spec.target_kind,
            name=name,
            sensitive=fd.spec.sensitive,
        )
    return out


def _jsonable_rows(df: pd.DataFrame) -> list[dict[str, Any]]:
    return [
        {
            k: (v.item() if hasattr(v, "item") else (str(v) if not isinstance(v, (int, float, str, type(None))) else v))
            for k, v in row.items()
        }
        for row in df.to_dict(orient="records")
    ]
