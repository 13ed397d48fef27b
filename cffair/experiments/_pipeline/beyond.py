"""Beyond the paper on one fold: recourse, intersections, more notions, adaptive weights (section 8).

One task per dataset × fold (setting ``beyond``), self-contained: it pre-trains its own LTN on the
accuracy axioms (the same schedule as :mod:`cffair.experiments._pipeline.ltn`) and continues every variant of
:data:`VARIANTS` from that one checkpoint for the profile's ``fair_epochs``:

=================== ==============================================================================
variant             knowledge base (on top of A1, A2)
=================== ==============================================================================
``acc``             none (the pre-trained model)
``acc_cf``          A4 on the sensitive attribute's twins, weights (1, 1): the paper's setting
``acc_cf_w3-1``     the same with (accuracy, CF) weights (3, 1) (appendix B)
``acc_cf_w1-3``     the same with weights (1, 3)
``acc_cf_sg``       A4_i, one per intersection, on the sensitive attribute's twins
``acc_cf_joint``    A4∩ on joint twins (every sensitive attribute changed; one per row)
``acc_dp``          demographic parity (:mod:`cffair.logic._notions`)
``acc_eo``          equalised odds
``acc_lip``         the Lipschitz condition on nearest neighbours
``adaptive_sg``     A4_i with weights raised for the least satisfied (:class:`~cffair.logic.RaiseLeastSatisfied`)
``adaptive_budget`` A4 with a Lagrangian weight for a CF-MSE budget (:class:`~cffair.logic.CFBudget`)
=================== ==============================================================================

Every variant is scored on the fold's test rows by the shared evaluation (accuracy, CF-MSE,
worst subgroup), the notions' gaps, the per-intersection CF-MSE of single and joint twins, and
recourse (:mod:`cffair.evaluation._recourse`) for a random sample of test people some variant decides
unfavourably. The record's ``metrics`` are those of ``acc_cf``; everything else is under
``beyond``.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np
import pandas as pd

from cffair._support.utils import seed_everything
from cffair.errors import ConfigError
from cffair.experiments._config import ExperimentConfig
from cffair.experiments._pipeline.fold import FoldData

__all__ = ["BUDGET_FRACTION", "RECOURSE_BUDGET", "RECOURSE_PEOPLE", "VARIANTS", "run"]

#: The variants, in the order they are trained and shown.
VARIANTS: tuple[str, ...] = (
    "acc",
    "acc_cf",
    "acc_cf_w3-1",
    "acc_cf_w1-3",
    "acc_cf_sg",
    "acc_cf_joint",
    "acc_dp",
    "acc_eo",
    "acc_lip",
    "adaptive_sg",
    "adaptive_budget",
)
#: Recourse is searched for a random sample of at most this many test people (per profile).
RECOURSE_PEOPLE: dict[str, int] = {"full": 1200, "quick": 150}
#: The cost c at which ``Cheap`` of the recourse query reaches 0.
RECOURSE_BUDGET = 2.0
#: The CF-MSE budget of ``adaptive_budget``: this fraction of the pre-trained model's CF-MSE on the training pairs.
BUDGET_FRACTION = 0.15
_WEIGHTS = {"acc_cf": (1.0, 1.0), "acc_cf_w3-1": (3.0, 1.0), "acc_cf_w1-3": (1.0, 3.0)}


def run(cfg: ExperimentConfig, fd: FoldData) -> tuple[dict[str, Any], dict[str, float], dict[str, Any]]:
    """Train and score every variant on ``cfg``'s fold: ``(metrics of acc_cf, timings, {"beyond": ...})``."""
    from cffair.causal._flow import fit_flow
    from cffair.learners._pretraining import pretrained
    from cffair.learners._training import LTNLearner

    seed_everything(cfg.seed)
    run_settings = cfg.settings
    timings: dict[str, float] = {}
    cpu0 = time.process_time()
    t0 = time.perf_counter()
    # the flow that made the fold's twins (its settings are in the set's metadata; read from the cache)
    meta = fd.cfset.meta or {}
    flow = fit_flow((fd.frame, fd.spec), meta.get("config"), seed=int(meta.get("seed", 0)), progress=False)
    data = _Data(fd, flow, cfg)
    timings["twins"] = round(time.perf_counter() - t0, 2)

    t0 = time.perf_counter()
    base = pretrained(
        fd.X_train,
        fd.y_train,
        fd.spec.target_kind,
        lr=run_settings.lr,
        epochs=run_settings.pretrain_epochs,
        seed=cfg.seed,
        sensitive=fd.spec.sensitive,
        cache_dir=False,
        progress=False,
    ).learner  # the library's one pre-training
    pretrained_state = base.state_dict()
    timings["pretrain"] = round(time.perf_counter() - t0, 2)

    learners: dict[str, Any] = {"acc": base}
    adaptive: dict[str, Any] = {}
    for name in [v for v in VARIANTS[1:] if _applies(v, data)]:
        t0 = time.perf_counter()
        learner = LTNLearner.load(pretrained_state, lr=run_settings.lr, progress=False)
        kb, schedule = _knowledge_base(name, learner, data, base)
        learner.train_stage(kb, run_settings.fair_epochs, name, on_epoch=schedule)
        learners[name] = learner
        if schedule is not None:
            adaptive[name] = {"history": schedule.history, **getattr(schedule, "info", {})}
        timings[name] = round(time.perf_counter() - t0, 2)

    t0 = time.perf_counter()
    variants = {name: _score(learners[name], data) for name in learners}
    for name in learners:
        variants[name]["seconds"] = timings.get(name, timings["pretrain"])
        variants[name]["satisfaction"] = {k: float(v) for k, v in learners[name].satisfactions().items()}
    timings["evaluate"] = round(time.perf_counter() - t0, 2)

    t0 = time.perf_counter()
    recourse = _recourse(learners, data, cfg)
    timings["recourse"] = round(time.perf_counter() - t0, 2)
    timings["total"] = round(sum(timings.values()), 2)
    timings["cpu"] = round(
        time.process_time() - cpu0, 2
    )  # core-seconds (one torch thread): wall time without contention

    metrics = fd.evaluate(learners["acc_cf"].predict_d)
    extra = {
        "beyond": {
            "variants": variants,
            "intersections": data.describe(),
            "adaptive": adaptive,
            "recourse": recourse,
        }
    }
    return metrics, timings, extra


# ---------------------------------------------------------------------------- data of the fold
class _Data:
    """The fold's twins, groups and pairs every variant needs."""

    def __init__(self, fd: FoldData, flow: Any, cfg: ExperimentConfig) -> None:
        from cffair.logic import _intersectional as I
        from cffair.logic._notions import LIPSCHITZ_BETA, similar_pairs

        self.fd, self.flow = fd, flow
        spec, frame = fd.spec, fd.frame
        self.attrs = I.INTERSECTIONS.get(cfg.dataset) or (I.Attribute(spec.sensitive),)
        train_rows, test_rows = frame.iloc[fd.train], frame.iloc[fd.test]
        self.labels = I.intersection_labels(frame, self.attrs).to_numpy()
        self.s_train = frame[spec.sensitive].astype(str).to_numpy()[fd.train]
        self.s_test = frame[spec.sensitive].astype(str).to_numpy()[fd.test]
        # the sensitive attribute's twins of the shared CNF set, and their intersections
        self.pairs = fd.pairs_train
        self.pair_labels = self.labels[np.asarray(self.pairs.row_id)]
        # one joint twin per training row, for the joint axiom
        self.joint_train = None
        if len(self.attrs) > 1:
            tw = I.make_twins(flow, train_rows, self.attrs, "joint", train_rows, one_per_row=True, seed=cfg.seed)
            self.joint_train = (fd.X_train[tw.row_id], fd.encoder.transform(tw.rows))
        # test twins of each kind, encoded, with their factual rows' intersections
        self.test_twins: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        for kind in [a.column for a in self.attrs] + (["joint"] if len(self.attrs) > 1 else []):
            tw = I.make_twins(flow, test_rows, self.attrs, kind, train_rows, seed=cfg.seed + 1)
            self.test_twins[kind] = (tw.row_id, fd.encoder.transform(tw.rows))
        self.test_labels = self.labels[fd.test]
        # similar people for the Lipschitz axiom (train) and its metric (test)
        self.exclude = fd.encoder.columns_of(spec.sensitive)
        self.beta = LIPSCHITZ_BETA
        self.near_test = similar_pairs(fd.X_test, self.exclude, k=1, beta=self.beta)
        self.levels = {a.column: I.levels(a, train_rows) for a in self.attrs}

    def describe(self) -> dict[str, Any]:
        counts = {
            kind: pd.Series(self.test_labels[row_id]).value_counts().to_dict()
            for kind, (row_id, _) in self.test_twins.items()
        }
        return {
            "attributes": [a.column for a in self.attrs],
            "levels": {k: {lv: _json(v) for lv, v in d.items()} for k, d in self.levels.items()},
            "test_rows": pd.Series(self.test_labels).value_counts().to_dict(),
            "test_pairs": counts,
            "train_rows": pd.Series(self.labels[self.fd.train]).value_counts().to_dict(),
            "lipschitz": {"beta": self.beta, "k": 1, "test_pairs": int(len(self.near_test[0]))},
        }


def _json(v: Any) -> Any:
    return v.item() if hasattr(v, "item") else v


def _applies(name: str, data: _Data) -> bool:
    """Whether a variant makes sense on the fold's data: the joint axiom needs two sensitive
    attributes, equalised odds a binary target."""
    if name == "acc_cf_joint":
        return data.joint_train is not None
    if name == "acc_eo":
        return data.fd.spec.target_kind == "binary"
    return True


def _knowledge_base(name: str, learner: Any, data: _Data, base: Any) -> tuple[Any, Any]:
    """The knowledge base of a variant and its weight schedule (None: fixed weights)."""
    from cffair.logic import _adaptive as adaptive
    from cffair.logic import _intersectional as intersectional
    from cffair.logic import _notions as notions
    from cffair.logic._axioms import accuracy_axioms, cf_axiom, subgroup_cf_axioms

    fd, spec = data.fd, data.fd.spec
    acc = accuracy_axioms(fd.X_train, fd.y_train, spec.target_kind)
    x, x_cf = np.asarray(data.pairs.x), np.asarray(data.pairs.x_cf)
    weights: dict[str, float] = {}
    terms: list[notions.Term]
    schedule: adaptive.RaiseLeastSatisfied | adaptive.CFBudget | None
    axioms, terms, schedule = list(acc), [], None
    if name in _WEIGHTS or name == "adaptive_budget":
        axioms.append(cf_axiom(x, x_cf, spec.target_kind, spec.sensitive))
        weights = dict(zip(("acc", "cf"), _WEIGHTS.get(name, (1.0, 1.0)), strict=True))
    elif name in ("acc_cf_sg", "adaptive_sg"):
        axioms += subgroup_cf_axioms(x, x_cf, data.pair_labels, spec.target_kind, spec.sensitive)
    elif name == "acc_cf_joint":
        if data.joint_train is None:
            raise ConfigError(f"{spec.name} has a single sensitive attribute: no joint twins for the joint axiom.")
        axioms.append(
            intersectional.joint_cf_axiom(*data.joint_train, spec.target_kind, [a.column for a in data.attrs])
        )
    elif name == "acc_dp":
        terms.append(notions.demographic_parity_axiom(fd.X_train, data.s_train, spec.sensitive))
    elif name == "acc_eo":
        terms.append(notions.equalised_odds_axiom(fd.X_train, fd.y_train, data.s_train, spec.sensitive))
    elif name == "acc_lip":
        terms.append(notions.lipschitz_axiom(fd.X_train, data.exclude, k=1, beta=data.beta))
    else:
        raise ConfigError(f"unknown variant {name!r}; variants are {VARIANTS}.")
    kb = notions.TermKnowledgeBase(axioms, terms, learner.semantics_, weights or None)
    if name == "adaptive_sg":
        schedule = adaptive.RaiseLeastSatisfied(kb, [a.name for a in axioms if a.group == "cf_sg"])
    elif name == "adaptive_budget":
        start = adaptive.train_pair_cf_mse(base.model_, x, x_cf)()
        budget = BUDGET_FRACTION * start
        schedule = adaptive.CFBudget(kb, "A4", adaptive.train_pair_cf_mse(learner.model_, x, x_cf), budget)
        schedule.info = {"budget": budget, "pretrained_train_cf_mse": start}  # type: ignore[attr-defined]
    return kb, schedule


# ---------------------------------------------------------------------------- scores
def _score(learner: Any, data: _Data) -> dict[str, Any]:
    from cffair.logic import _intersectional as intersectional
    from cffair.logic import _notions as notions

    fd = data.fd
    m = fd.evaluate(learner.predict_d)
    keep = ("accuracy", "mse", "cf_mse", "cf_mse_worst_subgroup", "worst_subgroup", "cf_mse_by_subgroup")
    out: dict[str, Any] = {"metrics": {k: m[k] for k in keep if k in m}}
    d_test = learner.predict_d(fd.X_test)
    nt: dict[str, float] = {
        "dp_gap": notions.dp_gap(d_test, data.s_test),
        "dp_gap_soft": notions.dp_gap(d_test, data.s_test, None),
    }
    if fd.spec.target_kind == "binary":
        nt.update(notions.eo_gaps(d_test, fd.y_test, data.s_test))
    nt.update(notions.lipschitz_violation(d_test, *data.near_test))
    out["notions"] = nt
    inter = {}
    for kind, (row_id, x_cf) in data.test_twins.items():
        table = intersectional.cf_mse_by_intersection(d_test[row_id], learner.predict_d(x_cf), data.test_labels[row_id])
        inter[kind] = {str(k): float(v) for k, v in table["cf_mse"].items()}
    out["intersections"] = inter
    return out


def _recourse(learners: dict[str, Any], data: _Data, cfg: ExperimentConfig) -> dict[str, Any]:
    from cffair.evaluation._recourse import RecourseSearch

    fd, spec = data.fd, data.fd.spec
    if spec.target_kind != "binary":
        return {}
    fav = spec.favourable
    assert fav is not None  # a binary target's spec names its favourable label
    d = {n: learner.predict_d(fd.X_test) for n, learner in learners.items()}
    neg = np.zeros(len(fd.test), bool)
    for v in d.values():
        neg |= (v >= 0.5) != (fav == 1)
    cand = np.flatnonzero(neg)
    n = min(len(cand), RECOURSE_PEOPLE.get(cfg.profile, RECOURSE_PEOPLE["full"]))
    chosen = np.sort(np.random.default_rng(cfg.seed).choice(cand, n, replace=False)) if n else cand
    people = fd.frame.iloc[fd.test[chosen]].reset_index(drop=True)
    search = RecourseSearch(data.flow, spec, fd.encoder, fd.frame.iloc[fd.train], seed=cfg.seed)
    table = search.run(people, {n: lr.predict_d for n, lr in learners.items()}, favourable=int(fav))
    groups = {"intersection": data.test_labels[chosen]}
    for a in data.attrs:
        groups[a.column] = a.level_of(people).to_numpy()
    models: dict[str, Any] = {}
    for name in learners:
        best = table.best(name)
        entry: dict[str, Any] = {
            "n_negative": int(len(best)),
            "recourse_rate": float(best["found"].mean()) if len(best) else None,
            "mean_cost": _nan(best["cost"].mean()),
            "median_cost": _nan(best["cost"].median()),
            "query": table.query(name, RECOURSE_BUDGET) if len(best) else None,
            "by": {},
        }
        for col, g in groups.items():
            by = table.by_group(name, g)
            for grp in by.index:
                members = g == grp
                by.loc[grp, "query"] = (
                    table.query(name, RECOURSE_BUDGET, members) if (members & table.negative(name)).any() else np.nan
                )
            entry["by"][col] = {str(k): {c: _nan(v) for c, v in row.items()} for k, row in by.iterrows()}
        entry["examples"] = best[best["found"]].head(5)[["person", "cost", "action"]].to_dict(orient="records")
        models[name] = entry
    return {
        "people": int(n),
        "eligible": int(len(cand)),
        "candidates": len(table.candidates),
        "evaluated": int(len(table.cost)),
        "budget": RECOURSE_BUDGET,
        "actions": table.meta["actions"],
        "models": models,
    }


def _nan(v: Any) -> float | None:
    v = float(v)
    return None if np.isnan(v) else v
