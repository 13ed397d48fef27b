"""The protocol of the paper for one fold: data → counterfactuals → training → evaluation → record.

:mod:`cffair.experiments` decides *what* runs (configs, grid, store, workers); this module says
*how* one task group runs. Every method, LTN and baselines alike, is scored by the same
:func:`cffair.metrics.evaluate` on the same CNF counterfactual test pairs of the same fold.

Choices (documented on the book's *Reproducing* page):

* Folds: 5 seeded stratified folds (seed 0) for every method, so that methods are paired.
* Counterfactuals: one causal flow per dataset, fitted on all rows' features (the target never
  enters the flow), generating the sensitive flip and every immutable-feature intervention.
* ``ltn_acc`` is the pre-trained model (1500 epochs on the accuracy axioms); every fairness
  setting continues from that same checkpoint (shared pre-training, section 7.1).
* ``*_cke`` settings continue from the matching fairness model and add the extracted A5
  axioms one by one (``cke_epochs`` each, section 7.3).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np
import pandas as pd

from cffair import datasets as D
from cffair.causal.cfset import CFPairs, CounterfactualSet
from cffair.encoding import Encoder
from cffair.experiments import PROFILES, ExperimentConfig, Profile, ResultsStore, make_record
from cffair.metrics import evaluate
from cffair.utils import seed_everything, stable_hash

#: History is stored every ``HISTORY_STRIDE`` epochs (the curves in the book).
HISTORY_STRIDE = 10

#: Table 4 of the paper: subgroups queried with equation (2) and their radius β.
QUERY_SUBGROUPS: dict[str, float] = {
    "Male, White": 3.0,
    "Male, Black": 3.0,
    "Female, White": 5.0,
    "Female, Asian-Pac-Islander": 5.0,
}


# ============================================================================ counterfactuals
def flow_config(profile: str) -> dict[str, Any]:
    """Flow settings of a profile: the paper's (1000 epochs max, early stopping) or quick ones."""
    prof = PROFILES[profile]
    return {"epochs": prof.flow_epochs}


def counterfactual_set(dataset: str, profile: str, progress: bool = False) -> CounterfactualSet:
    """The CNF counterfactuals of a dataset (sensitive flip + immutable interventions), cached."""
    from cffair.causal import generate

    return generate(D.load(dataset), interventions="immutable", config=flow_config(profile), seed=0, progress=progress)


def prepare_counterfactuals(profile: str, datasets: Sequence[str], jobs: int = 1) -> None:
    """Fit each dataset's flow and generate its counterfactuals once, before the grid runs."""
    from joblib import Parallel, delayed

    def one(name: str) -> str:
        from cffair.utils import torch_cpu_setup

        torch_cpu_setup()
        counterfactual_set(name, profile)
        return name

    Parallel(n_jobs=min(jobs, len(datasets)))(delayed(one)(d) for d in datasets)


# ============================================================================ one fold
@dataclass
class FoldData:
    """Everything a method needs on one fold: encoded rows, labels and counterfactual pairs."""

    cfg: ExperimentConfig
    frame: pd.DataFrame
    spec: D.DatasetSpec
    train: np.ndarray
    test: np.ndarray
    cfset: CounterfactualSet

    @classmethod
    def build(cls, cfg: ExperimentConfig) -> FoldData:
        frame, spec = D.load(cfg.dataset)
        prof: Profile = PROFILES[cfg.profile]
        fold = D.make_folds(frame, spec, n_splits=prof.n_folds, seed=0)[cfg.fold]
        train, test = fold.train, fold.test
        if prof.max_rows:
            rng = np.random.default_rng(cfg.fold)
            train = np.sort(rng.choice(train, min(prof.max_rows, len(train)), replace=False))
            test = np.sort(rng.choice(test, min(prof.max_rows // 2, len(test)), replace=False))
        return cls(cfg, frame, spec, train, test, counterfactual_set(cfg.dataset, cfg.profile))

    @cached_property
    def encoder(self) -> Encoder:
        return Encoder(self.spec).fit(self.frame.iloc[self.train])

    @cached_property
    def X_train(self) -> np.ndarray:
        return self.encoder.transform(self.frame.iloc[self.train])

    @cached_property
    def X_test(self) -> np.ndarray:
        return self.encoder.transform(self.frame.iloc[self.test])

    @property
    def y_train(self) -> np.ndarray:
        return self.frame[self.spec.target].to_numpy()[self.train]

    @property
    def y_test(self) -> np.ndarray:
        return self.frame[self.spec.target].to_numpy()[self.test]

    @cached_property
    def subgroups(self) -> np.ndarray:
        return self.spec.subgroup_labels(self.frame).to_numpy()

    def pairs(self, rows: np.ndarray, feature: str | None = None, cfset: CounterfactualSet | None = None) -> CFPairs:
        return (cfset or self.cfset).pairs(self.frame, self.encoder, feature or self.spec.sensitive, rows=rows)

    @cached_property
    def pairs_train(self) -> CFPairs:
        return self.pairs(self.train)

    @cached_property
    def pairs_test(self) -> CFPairs:
        return self.pairs(self.test)

    def pair_subgroups(self, pairs: CFPairs) -> np.ndarray:
        return self.subgroups[np.asarray(pairs.row_id)]

    @cached_property
    def data_hash(self) -> str:
        return stable_hash(D.frame_hash(self.frame), self.cfset.meta.get("key", self.cfset.meta.get("data_hash", "")), len(self.cfset.frame))

    def evaluate(self, score_fn, pairs: CFPairs | None = None) -> dict[str, Any]:
        """The shared evaluation (section 6.5) on this fold's test rows and CNF test pairs."""
        pairs = pairs or self.pairs_test
        return evaluate(score_fn, self.X_test, self.y_test, pairs, self.pair_subgroups(pairs), self.spec.target_kind)


# ============================================================================ LTN
def _history(learner) -> dict[str, list]:
    h = learner.history_
    if h.empty:
        return {}
    h = h[(h["epoch"] % HISTORY_STRIDE == 0) | (h.index == h.index[-1])]
    return {c: [None if (isinstance(v, float) and np.isnan(v)) else v for v in h[c].tolist()] for c in h.columns}


def _ltn_kwargs(cfg: ExperimentConfig, fd: FoldData) -> dict[str, Any]:
    prof = PROFILES[cfg.profile]
    return {
        "target_kind": fd.spec.target_kind,
        "lr": prof.lr,
        "pretrain_epochs": prof.pretrain_epochs,
        "fair_epochs": prof.fair_epochs,
        "cke_epochs": prof.cke_epochs,
        "group_weights": cfg.weight_map,
        "seed": cfg.seed,
        "progress": False,
        "sensitive": fd.spec.sensitive,
    }


def run_group(group: list[ExperimentConfig], store: ResultsStore) -> list[dict[str, Any]]:
    """Run a task group of :func:`cffair.experiments._task_groups` and store its records."""
    from cffair.utils import torch_cpu_setup

    torch_cpu_setup()
    fd = FoldData.build(group[0])
    records = [_run_baseline(c, fd, store) for c in group if not c.setting.startswith("ltn")]
    ltn = [c for c in group if c.setting.startswith("ltn")]
    if ltn:
        records += _run_ltn_group(ltn, fd, store)
    return records


def _run_ltn_group(group: list[ExperimentConfig], fd: FoldData, store: ResultsStore) -> list[dict[str, Any]]:
    from cffair.training import LTNLearner

    cfg0 = group[0]
    seed_everything(cfg0.seed)
    t0 = time.perf_counter()
    base = LTNLearner(setting="acc", **_ltn_kwargs(_equal(cfg0), fd))  # weights do not act on acc axioms alone
    base.fit(fd.X_train, fd.y_train)
    pre_time = time.perf_counter() - t0
    pretrained = base.state_dict()
    models: dict[tuple, Any] = {}
    records = []
    order = sorted(group, key=lambda c: ("cke" in c.setting, c.setting))
    for cfg in order:
        t1 = time.perf_counter()
        extra: dict[str, Any] = {}
        train_pairs = _gan_pairs(fd) if cfg.cf_source == "gan" else fd.pairs_train
        if cfg.setting == "ltn_acc" and not cfg.tag:
            learner = base
        elif cfg.setting in ("ltn_acc_cf", "ltn_acc_cf_sg"):
            setting = cfg.setting.removeprefix("ltn_")
            learner = LTNLearner.load(pretrained, setting=setting, **_overrides(cfg, fd))
            learner.fit(fd.X_train, fd.y_train, pairs=train_pairs, pair_subgroups=fd.pair_subgroups(train_pairs))
            if not cfg.tag:
                models[(cfg.setting, cfg.cf_source)] = learner.state_dict()
        elif cfg.setting.endswith("_cke"):
            parent = cfg.setting.removesuffix("_cke")
            learner, extra = _run_cke(cfg, fd, models.get((parent, cfg.cf_source)), pretrained, train_pairs)
        else:
            raise ValueError(f"unknown LTN setting {cfg.setting!r}")
        metrics = fd.evaluate(learner.predict_d)
        if cfg.cf_source != "cnf":
            extra["metrics_own_counterfactuals"] = fd.evaluate(learner.predict_d, _gan_pairs(fd, test=True))
        if cfg.setting == "ltn_acc_cf" and cfg.dataset == "adult" and not cfg.tag and cfg.cf_source == "cnf":
            extra["queries"] = _queries(learner, fd)
        timings = {"pretrain": round(pre_time, 2), "setting": round(time.perf_counter() - t1, 2)}
        timings["total"] = round(timings["pretrain"] + timings["setting"], 2)
        rec = make_record(
            cfg, fd.data_hash, metrics, timings,
            satisfaction={k: float(v) for k, v in learner.satisfactions().items()},
            history=_history(learner),
            n_train=int(len(fd.train)), n_test=int(len(fd.test)), n_train_pairs=int(len(train_pairs.row_id)),
            **extra,
        )
        store.put(rec)
        records.append(rec)
    return records


def _equal(cfg: ExperimentConfig) -> ExperimentConfig:
    from dataclasses import replace

    return replace(cfg, weights=ExperimentConfig(cfg.dataset, cfg.fold, cfg.setting).weights)


def _overrides(cfg: ExperimentConfig, fd: FoldData) -> dict[str, Any]:
    kw = _ltn_kwargs(cfg, fd)
    return {k: kw[k] for k in ("lr", "group_weights", "fair_epochs", "cke_epochs", "progress")}


def _run_cke(cfg: ExperimentConfig, fd: FoldData, parent_state, pretrained, train_pairs: CFPairs):
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
    pairs_by_feature = cke.pairs_from_cfset(fd.cfset, fd.frame, fd.encoder, fd.spec, rows=fd.train)
    steps, report = cke.cke_loop(
        learner, fd.X_train, pairs_by_feature, groups_train, fd.spec, evaluate_fn=lambda m: fd.evaluate(m.predict_d),
    )
    after = cke.extract(learner.predict_d, pairs_by_feature, groups_train, fd.spec)
    extra = {
        "cke": {
            "threshold": report.threshold,
            "candidates": [{"group": c.group, "feature": c.feature, "imbalance": c.imbalance, "frequency": c.frequency} for c in report.candidates],
            "imbalances_before": report.imbalances.to_dict(orient="records"),
            "imbalances_after": after.imbalances.to_dict(orient="records"),
            "undesirable_ratio_before": {str(k): float(v) for k, v in report.undesirable_ratio.items()},
            "undesirable_ratio_after": {str(k): float(v) for k, v in after.undesirable_ratio.items()},
            "steps": steps.to_dict(orient="records"),
        }
    }
    return learner, extra


def _queries(learner, fd: FoldData) -> dict[str, Any]:
    """Equation (2) for an example row of each Table-4 subgroup, equation (3) for every subgroup."""
    from cffair import queries

    out: dict[str, Any] = {"eq2": [], "eq3": {}}
    sg_test = fd.subgroups[fd.test]
    d_test = learner.predict_d(fd.X_test)
    for name, beta in QUERY_SUBGROUPS.items():
        idx = np.flatnonzero(sg_test == name)
        if len(idx) < 2:
            continue
        X_sg = fd.X_test[idx]
        neg = idx[d_test[idx] < 0.5]
        if len(neg) == 0:
            continue
        # the example row: the negatively predicted row with the nearest differently predicted neighbour
        pos = X_sg[d_test[idx] >= 0.5]
        if len(pos) == 0:
            continue
        dist = np.linalg.norm(fd.X_test[neg][:, None, :] - pos[None, :, :], axis=2).min(axis=1)
        x_hat = fd.X_test[neg[int(np.argmin(dist))]]
        res = queries.similar_different(learner.model_, X_sg, x_hat, beta, fd.spec.target_kind, encoder=fd.encoder, k=1)
        out["eq2"].append({
            "subgroup": name, "beta": beta, "sat": res.sat,
            "query_row": _jsonable_rows(res.query_row), "neighbours": _jsonable_rows(res.rows),
        })
    pairs = fd.pairs_test
    psg = fd.pair_subgroups(pairs)
    for name in sorted(set(psg)):
        out["eq3"][name] = queries.subgroup_cf(learner.model_, pairs.x, pairs.x_cf, psg == name, fd.spec.target_kind, name=name, sensitive=fd.spec.sensitive)
    return out


def _jsonable_rows(df: pd.DataFrame) -> list[dict[str, Any]]:
    return [{k: (v.item() if hasattr(v, "item") else (str(v) if not isinstance(v, (int, float, str, type(None))) else v)) for k, v in row.items()} for row in df.to_dict(orient="records")]


# ============================================================================ baselines
#: Baseline settings of the quick profile (a few epochs: enough to exercise every path).
QUICK_GAN = {"inference_epochs": 2, "predictor_epochs": 5, "inner_steps": 3, "first_epoch_inner_steps": 3, "n_cf_samples": 2}
QUICK_DCEVAE = {"epochs": 2}
#: The full profile's GAN: the paper's settings except where noted in :data:`GAN_FULL_CHANGES`.
#: One latent sample per row in the predictor's penalty (the release: 20) and early stopping of
#: the predictor on a validation split (patience 20, best weights kept): on COMPAS fold 0 this
#: changed accuracy 0.670 → 0.682 and CF-MSE 0.028 → 0.017 and cut the predictor from 300 s to
#: 3 s (benchmarks/results/baselines_gan_variants_compas.json); at the paper's settings the
#: GAN alone would take about 12 hours for the 5 folds of the 4 datasets here.
GAN_FULL_CHANGES: dict[str, Any] = {"n_cf_samples": 1, "predictor_patience": 20}

_GAN_CACHE: dict[tuple, Any] = {}


def mlp_config(cfg: ExperimentConfig):
    """The MLP(100, 50) training of the CNF/DCEVAE/unaware/level-3/PCF predictors: Adam with the
    LTN's learning rate, full batch, as many epochs as the LTN's pre-training (section 6.4:
    "the same hyper-parameters as our pipeline")."""
    from cffair.baselines import MLPConfig

    prof = PROFILES[cfg.profile]
    return MLPConfig(epochs=prof.pretrain_epochs, lr=prof.lr, seed=cfg.seed)


def gan_config(cfg: ExperimentConfig):
    """The GAN baseline's settings for a config's dataset and profile."""
    from cffair.baselines import paper_config

    changes = dict(QUICK_GAN if cfg.profile == "quick" else GAN_FULL_CHANGES)
    return paper_config(cfg.dataset, seed=cfg.seed, **changes)


def dcevae_config(cfg: ExperimentConfig):
    """DCEVAE at the paper's settings (100 epochs, lr 1e-4, batch 1024), or a quick version."""
    from cffair.baselines import DCEVAEConfig

    changes = dict(QUICK_DCEVAE if cfg.profile == "quick" else {})
    return DCEVAEConfig(seed=cfg.seed, mlp=mlp_config(cfg), **changes)


def _gan(fd: FoldData):
    """The GAN baseline of this fold (fitted once per process and fold)."""
    from cffair.baselines import GANBaseline

    key = (fd.cfg.dataset, fd.cfg.fold, fd.cfg.profile, fd.cfg.seed)
    if key not in _GAN_CACHE:
        _GAN_CACHE.clear()
        _GAN_CACHE[key] = GANBaseline(gan_config(fd.cfg)).fit(fd.frame.iloc[fd.train], fd.encoder)
    return _GAN_CACHE[key]


def _gan_pairs(fd: FoldData, test: bool = False) -> CFPairs:
    """The GAN's own counterfactual pairs of the training (or test) rows."""
    rows = fd.test if test else fd.train
    return fd.pairs(rows, cfset=_gan(fd).counterfactuals(fd.frame, rows=rows))


def _run_baseline(cfg: ExperimentConfig, fd: FoldData, store: ResultsStore) -> dict[str, Any]:
    from cffair import baselines as B

    seed_everything(cfg.seed)
    t0 = time.perf_counter()
    extra: dict[str, Any] = {}
    kind = fd.spec.target_kind
    if cfg.setting == "cnf":
        model = B.AugmentedMLP(kind, mlp_config(cfg)).fit_pairs(fd.X_train, fd.y_train, fd.train, fd.pairs_train)
    elif cfg.setting == "gan":
        model = _gan(fd)
        extra["metrics_own_counterfactuals"] = fd.evaluate(model.predict_score, _gan_pairs(fd, test=True))
        extra["timings_detail"] = {k: round(float(v), 2) for k, v in getattr(model, "timings_", {}).items()}
    elif cfg.setting == "dcevae":
        model = B.DCEVAEBaseline(dcevae_config(cfg)).fit(fd.frame.iloc[fd.train], fd.encoder)
    elif cfg.setting == "unaware":
        model = B.UnawareMLP(fd.encoder, mlp_config(cfg)).fit(fd.X_train, fd.y_train)
    elif cfg.setting == "level3":
        model = B.ResidualMLP(fd.encoder, config=mlp_config(cfg)).fit(fd.X_train, fd.y_train)
    elif cfg.setting == "pcf":
        model = B.PlugInCF(fd.encoder, mlp_config(cfg)).fit(fd.X_train, fd.y_train)
        model.set_counterfactuals(fd.pairs_test)
    else:
        raise ValueError(f"unknown baseline {cfg.setting!r}")
    fit_time = time.perf_counter() - t0
    metrics = fd.evaluate(model.predict_score)
    rec = make_record(cfg, fd.data_hash, metrics, {"total": round(fit_time, 2)}, n_train=int(len(fd.train)), n_test=int(len(fd.test)), **extra)
    store.put(rec)
    return rec
