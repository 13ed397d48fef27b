r"""Recourse: the cheapest actionable interventions that turn an unfavourable decision (section 8).

The paper's first item of future work: "identify concrete feature changes an individual can
make to alter a potentially unfavourable model outcome". For a person ``x`` whom ``D`` decides
unfavourably, recourse is a set of interventions ``a = {do(f₁ := v₁), …}`` on *actionable*
features that makes ``D`` favourable, at the lowest cost (Karimi, Schölkopf & Valera 2021:
recourse through minimal interventions, not nearest counterfactual explanations):

* **Actionable** features are listed per dataset (:data:`RECOURSE_ACTIONS`, or
  :func:`default_actions`): never the sensitive attribute, never an immutable feature of the
  spec; each with a direction (``increase``: education only goes up) and candidate values.
* **The causal graph is respected**: the person after the intervention is the causal model's
  counterfactual ``x_a`` (:func:`cffair.logic.intervene`: the flow's
  ``counterfactual``, successive interventions in causal order), so the descendants of an
  intervened feature change through the flow, and a change may come cheaper by acting on a
  cause. Only the intervened features cost; their consequences are free.
* **Cost** (:class:`CostModel`): normalised L1 on the intervened features, per kind:
  ``|v − x| / sd`` for integer and continuous features (sd of the reference rows), the same on
  the level codes for ordinal ones, and 1 for any change of a categorical or binary feature.
  One unit is "one standard deviation, or one category switch".
* **Search**: every single intervention and, with ``max_features=2``, every pair of
  interventions on two features (exhaustive over the candidate values; no pruning, so the
  same table answers the query below).

Validity: an intervention works if ``D(x_a)`` is favourable (``≥ 0.5`` for ``favourable=1``,
``< 0.5`` for ``favourable=0``), ``D(x_a)`` averaged over the causal model's draws if it draws.

The **recourse query** (:meth:`RecourseTable.query`), in the style of equation (2)::

    ∀x∈T̂⁻_C ∃a∈A(x): Fav(D(x_a)) ∧ Cheap(a),    Cheap(a) = max(0, 1 − cost(a)/c)

with ``Fav(d) = d`` (or ``1 − d`` when the favourable label is 0), the product t-norm, the
p-mean ``∃`` with a large exponent (default 10, close to the maximum over actions; p = 1 would
average over every action, counting how many work rather than whether one does) and the
p-mean-error ``∀`` of the knowledge base. For one person (``T̂⁻_C = {x̂}``) it asks "is there a
cheap action that works for me?".

References:
    | Algorithmic recourse: from counterfactual explanations to interventions (Karimi,
      Schölkopf & Valera, 2021) https://arxiv.org/abs/2002.06278 :cite:p:`karimi2021`
    | Actionable Recourse in Linear Classification (Ustun, Spangher & Liu, 2019)
      https://arxiv.org/abs/1809.06514 :cite:p:`ustun2019`
    | On the Fairness of Causal Algorithmic Recourse (von Kügelgen et al., 2022)
      https://arxiv.org/abs/2010.06529 :cite:p:`vonkugelgen2022`
"""

from __future__ import annotations

__all__ = [
    "RECOURSE_ACTIONS",
    "Action",
    "CostModel",
    "RecourseSearch",
    "RecourseTable",
    "check_actions",
    "default_actions",
]

import itertools
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

import ltn
import numpy as np
import pandas as pd
import torch

from cffair.errors import RecourseError
from cffair.logic._axioms import DEFAULT_SEMANTICS, Semantics
from cffair.logic._intersectional import intervene

if TYPE_CHECKING:
    from cffair.datasets import DatasetSpec

Direction = Literal["any", "increase", "decrease"]
Intervention = tuple[tuple[str, Any], ...]
NUMERIC = ("integer", "continuous")


@dataclass(frozen=True)
class Action:
    """An actionable feature.

    Attributes:
        feature: the feature.
        direction: ``any``, ``increase`` or ``decrease`` (by value, or level order for ordinal ones).
        values: candidate values (default: every category or level; for a number, a grid of
            quantiles of the reference rows).
    """

    feature: str
    direction: Direction = "any"
    values: tuple[Any, ...] | None = None

    def __post_init__(self) -> None:
        if self.direction not in ("any", "increase", "decrease"):
            raise RecourseError(
                f"direction of {self.feature!r} must be 'any', 'increase' or 'decrease', got {self.direction!r}."
            )
        if self.values is not None and len(self.values) == 0:
            raise RecourseError(
                f"action {self.feature!r} has an empty list of values; leave values out for the default grid."
            )


#: Actionable features of the paper's datasets. Adult: education (up only), work class,
#: occupation, hours per week and capital gain (up only); age, sex, race, native country,
#: marital status and relationship are not actions. COMPAS: every feature records the past, so
#: "recourse" here is what the record would have to say: fewer prior or juvenile counts (record
#: expungement) or a misdemeanour instead of a felony charge (a plea to a lesser charge); these
#: are legal remedies, not an individual's behaviour.
RECOURSE_ACTIONS: dict[str, tuple[Action, ...]] = {
    "adult": (
        Action("education", "increase"),
        Action("workclass"),
        Action("occupation"),
        Action("hours-per-week", values=(20, 30, 35, 40, 45, 50, 55, 60)),
        Action("capital-gain", "increase", values=(2_500.0, 5_000.0, 7_500.0, 10_000.0, 15_000.0)),
    ),
    "compas": (
        Action("priors-count", "decrease", values=(0, 1, 2, 3, 5, 10)),
        Action("juv-fel-count", "decrease", values=(0, 1)),
        Action("juv-misd-count", "decrease", values=(0, 1)),
        Action("juv-other-count", "decrease", values=(0, 1)),
        Action("c-charge-degree", values=("Misdemeanour",)),
    ),
}


def default_actions(spec: DatasetSpec) -> tuple[Action, ...]:
    """The actions of a dataset: :data:`RECOURSE_ACTIONS` for the paper's, else every feature
    that is neither sensitive nor immutable (ordinal ones only upwards)."""
    if spec.name in RECOURSE_ACTIONS:
        return RECOURSE_ACTIONS[spec.name]
    return tuple(
        Action(f, "increase" if k == "ordinal" else "any")
        for f, k in spec.features.items()
        if f != spec.sensitive and f not in spec.immutable
    )


def check_actions(spec: DatasetSpec, actions: Sequence[Action]) -> tuple[Action, ...]:
    """``actions`` if each names a distinct actionable feature of ``spec``; else a :class:`RecourseError`."""
    if not actions:
        raise RecourseError(
            f"no actionable feature given for {spec.name!r}; list some, e.g. {default_actions(spec)[:2]}."
        )
    seen: set[str] = set()
    for a in actions:
        if a.feature not in spec.features:
            raise RecourseError(f"{a.feature!r} is not a feature of {spec.name!r}; features are {list(spec.features)}.")
        if a.feature == spec.sensitive:
            raise RecourseError(
                f"{a.feature!r} is the sensitive attribute of {spec.name!r}: recourse never asks a person to change it."
            )
        if a.feature in spec.immutable:
            raise RecourseError(
                f"{a.feature!r} is immutable in the spec of {spec.name!r} (immutable: {list(spec.immutable)}); "
                "recourse acts only on actionable features: remove it from the actions."
            )
        if a.feature in seen:
            raise RecourseError(f"{a.feature!r} is listed twice among the actions.")
        if a.direction != "any" and spec.features[a.feature] in ("categorical", "binary"):
            raise RecourseError(
                f"{a.feature!r} is {spec.features[a.feature]}: it has no order, so its direction must be 'any'."
            )
        seen.add(a.feature)
    return tuple(actions)


# ---------------------------------------------------------------------------- cost
class CostModel:
    """Normalised L1 cost per kind (see the module docstring), scales from ``reference`` rows."""

    def __init__(self, spec: DatasetSpec, reference: pd.DataFrame) -> None:
        self.spec = spec
        self.scale: dict[str, float] = {}
        for f, k in spec.features.items():
            col = reference[f]
            if k in NUMERIC:
                v = col.to_numpy(dtype=float)
            elif k == "ordinal":
                v = col.cat.codes.to_numpy(dtype=float)
            else:
                continue
            s = float(np.std(v))
            self.scale[f] = s if s > 0 else 1.0

    def code(self, feature: str, values: Any, like: pd.Series) -> np.ndarray:
        """Values as numbers: the value itself, or the level's position for an ordinal feature."""
        if self.spec.features[feature] == "ordinal":
            cats = [str(c) for c in like.cat.categories]
            vals = np.atleast_1d(np.asarray(values, dtype=object)).astype(str)
            unknown = sorted(set(vals) - set(cats))
            if unknown:
                raise RecourseError(f"{unknown} are not levels of {feature!r}; its levels are {cats}.")
            return np.array([cats.index(v) for v in vals], dtype=float)
        return np.atleast_1d(np.asarray(values, dtype=float))

    def cost(self, feature: str, current: pd.Series, value: Any) -> np.ndarray:
        """Cost of ``do(feature := value)`` for each row with ``current`` values."""
        kind = self.spec.features[feature]
        if kind in NUMERIC or kind == "ordinal":
            now = self.code(
                feature, current.astype(str).to_numpy() if kind == "ordinal" else current.to_numpy(), current
            )
            return np.abs(self.code(feature, [value], current)[0] - now) / self.scale[feature]
        return (current.astype(str).to_numpy() != str(value)).astype(float)


# ---------------------------------------------------------------------------- the table
@dataclass
class RecourseTable:
    """Every evaluated (person, intervention): its cost and ``D(x_a)`` under each model.

    Attributes:
        people: the factual rows (readable), positions 0..n-1.
        d_factual: ``{model: D(x)}`` per person.
        candidates: the interventions, each a tuple of ``(feature, value)``.
        person, candidate, cost: one entry per evaluated pair.
        d: ``{model: D(x_a)}`` per evaluated pair.
        favourable: the favourable label (``D ≥ threshold`` means label 1).
        threshold: the decision threshold.
    """

    people: pd.DataFrame
    d_factual: dict[str, np.ndarray]
    candidates: list[Intervention]
    person: np.ndarray
    candidate: np.ndarray
    cost: np.ndarray
    d: dict[str, np.ndarray]
    favourable: int = 1
    threshold: float = 0.5
    meta: dict = field(default_factory=dict)

    def _fav(self, d: np.ndarray) -> np.ndarray:
        return d >= self.threshold if self.favourable == 1 else d < self.threshold

    def _model(self, model: str) -> None:
        if model not in self.d:
            raise KeyError(f"no model {model!r} in this table; models are {list(self.d)}.")

    def negative(self, model: str) -> np.ndarray:
        """Which people ``model`` decides unfavourably."""
        self._model(model)
        return ~self._fav(self.d_factual[model])

    def best(self, model: str) -> pd.DataFrame:
        """For each unfavourably decided person: the cheapest working intervention.

        Columns: ``person``, ``found``, ``cost`` (NaN if none), ``n_features``, ``action``
        (readable), ``d_before``, ``d_after``; ties go to fewer features, then the first found.
        """
        self._model(model)
        neg = self.negative(model)
        ok = self._fav(self.d[model]) & neg[self.person]
        order = np.lexsort(
            (  # type: ignore[arg-type]  # numpy's stubs take no tuple mixing arrays and a list
                np.arange(len(self.cost)),
                [len(self.candidates[c]) for c in self.candidate],
                self.cost,
                self.person,
            )
        )
        order = order[ok[order]]
        first = order[np.unique(self.person[order], return_index=True)[1]] if len(order) else order
        rows = []
        got = {int(self.person[k]): k for k in first}
        for p in np.flatnonzero(neg):
            k = got.get(int(p))
            if k is None:
                rows.append(
                    {
                        "person": int(p),
                        "found": False,
                        "cost": math.nan,
                        "n_features": 0,
                        "action": "",
                        "d_before": float(self.d_factual[model][p]),
                        "d_after": math.nan,
                    }
                )
                continue
            cand = self.candidates[self.candidate[k]]
            rows.append(
                {
                    "person": int(p),
                    "found": True,
                    "cost": float(self.cost[k]),
                    "n_features": len(cand),
                    "action": self.describe(int(p), cand),
                    "d_before": float(self.d_factual[model][p]),
                    "d_after": float(self.d[model][k]),
                }
            )
        return pd.DataFrame(rows, columns=["person", "found", "cost", "n_features", "action", "d_before", "d_after"])

    def describe(self, person: int, cand: Intervention) -> str:
        """``"education: HS-grad → Bachelors; hours-per-week: 40 → 50"``."""
        row = self.people.iloc[person]
        return "; ".join(f"{f}: {_fmt(row[f])} → {_fmt(v)}" for f, v in cand)

    def by_group(self, model: str, groups: Any) -> pd.DataFrame:
        """Per group: unfavourably decided people, the share with recourse, its mean and median cost."""
        g = np.asarray(pd.Series(groups).astype(str))
        if g.shape != (len(self.people),):
            raise RecourseError(f"expected one group label per person ({len(self.people)}), got {g.shape[0]}.")
        b = self.best(model)
        b["group"] = g[b["person"].to_numpy()]
        out = b.groupby("group").agg(
            n_negative=("found", "size"),
            recourse_rate=("found", "mean"),
            mean_cost=("cost", "mean"),
            median_cost=("cost", "median"),
            mean_features=("n_features", lambda s: float(s[s > 0].mean()) if (s > 0).any() else math.nan),
        )
        return out

    def query(
        self,
        model: str,
        budget: float = 2.0,
        people: Any = None,
        semantics: Semantics = DEFAULT_SEMANTICS,
        p_exists: float = 10.0,
    ) -> float:
        """The recourse query ``∀x∈T̂⁻_C ∃a∈A(x): Fav(D(x_a)) ∧ Cheap(a)`` (module docstring).

        Args:
            budget: the cost ``c`` at which ``Cheap`` reaches 0.
            people: boolean mask (or positions) of T_C among the people; its unfavourably
                decided members form the domain (default: every person).
            p_exists: exponent of the ∃ p-mean over actions.
        """
        self._model(model)
        if not budget > 0:
            raise RecourseError(f"the cost budget c must be positive, got {budget!r}.")
        sel = np.ones(len(self.people), bool) if people is None else _mask(people, len(self.people))
        dom = np.flatnonzero(sel & self.negative(model))
        if len(dom) == 0:
            raise RecourseError(
                "no unfavourably decided person in the query's domain; the query over an empty set is undefined."
            )
        where = {int(p): i for i, p in enumerate(dom)}
        keep = np.isin(self.person, dom)
        rows = np.array([where[int(p)] for p in self.person[keep]], dtype=int)
        cols = self.candidate[keep]
        truth = torch.zeros((len(dom), len(self.candidates)), dtype=torch.float64)
        mask = torch.zeros_like(truth, dtype=torch.bool)
        d = torch.as_tensor(self.d[model][keep], dtype=torch.float64)
        fav = d if self.favourable == 1 else 1.0 - d
        cheap = torch.clamp(1.0 - torch.as_tensor(self.cost[keep], dtype=torch.float64) / budget, min=0.0)
        truth[rows, cols] = semantics.and_(fav, cheap)
        mask[rows, cols] = True
        exists = ltn.fuzzy_ops.AggregPMean(p=p_exists, stable=semantics.stable)(truth, dim=1, mask=mask)
        exists = torch.nan_to_num(exists, nan=0.0)  # nobody can act: ∃ over no action is false
        return float(semantics.forall(exists))


def _fmt(v: Any) -> str:
    if isinstance(v, (float, np.floating)) and float(v).is_integer():
        return str(int(v))
    return str(v)


def _mask(sel: Any, n: int) -> np.ndarray:
    a = np.asarray(sel)
    if a.dtype == bool:
        if a.shape != (n,):
            raise RecourseError(f"a person mask needs one entry per person ({n}), got shape {a.shape}.")
        return a
    m = np.zeros(n, bool)
    m[a.astype(int)] = True
    return m


# ---------------------------------------------------------------------------- the search
class RecourseSearch:
    """Enumerate and evaluate interventions on actionable features through a causal model.

    Args:
        engine: the causal model (a fitted :class:`~cffair.causal.CausalFlow`, or any
            object with ``counterfactual(frame, feature, value, samples=, seed=)`` and ``graph``).
        spec: the dataset spec.
        encoder: the fitted :class:`~cffair.datasets._encoding.Encoder` that makes ``D``'s inputs.
        reference: rows that set the cost scales and default value grids (the training fold).
        actions: the actionable features (default :func:`default_actions`).
        max_features: interventions on at most this many features at once (1 or 2).
        grid: number of quantiles in a numeric feature's default value grid.
        samples: draws per twin when the causal model draws (1: one draw).
    """

    def __init__(
        self,
        engine: Any,
        spec: DatasetSpec,
        encoder: Any,
        reference: pd.DataFrame,
        actions: Sequence[Action] | None = None,
        *,
        max_features: int = 2,
        grid: int = 7,
        samples: int = 1,
        seed: int = 0,
    ) -> None:
        if max_features not in (1, 2):
            raise RecourseError(f"max_features must be 1 or 2, got {max_features!r}.")
        if not isinstance(samples, int) or samples < 1:
            raise RecourseError(f"samples must be a whole number >= 1, got {samples!r}.")
        self.engine, self.spec, self.encoder = engine, spec, encoder
        self.actions = check_actions(spec, default_actions(spec) if actions is None else actions)
        self.max_features, self.samples, self.seed = max_features, samples, seed
        self.costs = CostModel(spec, reference)
        self.values = {a.feature: self._values(a, reference, grid) for a in self.actions}

    def _values(self, a: Action, reference: pd.DataFrame, grid: int) -> list[Any]:
        kind = self.spec.features[a.feature]
        col = reference[a.feature]
        if kind in NUMERIC:
            points = (
                a.values
                if a.values is not None
                else np.unique(np.quantile(col.to_numpy(dtype=float), np.linspace(0.05, 0.95, grid)))
            )
            return [int(round(float(v))) if kind == "integer" else float(v) for v in points]
        cats = (
            [str(c) for c in col.cat.categories]
            if isinstance(col.dtype, pd.CategoricalDtype)
            else sorted(col.astype(str).unique())
        )
        vals = [str(v) for v in (a.values if a.values is not None else cats)]
        unknown = sorted(set(vals) - set(cats))
        if unknown:
            raise RecourseError(f"{unknown} are not values of {a.feature!r}; its values are {cats}.")
        return vals

    @property
    def candidates(self) -> list[Intervention]:
        """Every single intervention, then every pair on two different features."""
        singles: list[Intervention] = [((a.feature, v),) for a in self.actions for v in self.values[a.feature]]
        if self.max_features == 1:
            return singles
        pairs: list[Intervention] = [
            ((a.feature, v), (b.feature, w))
            for a, b in itertools.combinations(self.actions, 2)
            for v in self.values[a.feature]
            for w in self.values[b.feature]
        ]
        return singles + pairs

    def _eligible(self, people: pd.DataFrame, feature: str, value: Any) -> np.ndarray:
        a = next(x for x in self.actions if x.feature == feature)
        col = people[feature]
        kind = self.spec.features[feature]
        if kind in NUMERIC or kind == "ordinal":
            now = self.costs.code(feature, col.astype(str).to_numpy() if kind == "ordinal" else col.to_numpy(), col)
            v = self.costs.code(feature, [value], col)[0]
            ok = now != v
            if a.direction == "increase":
                ok &= v > now
            elif a.direction == "decrease":
                ok &= v < now
            return ok
        return col.astype(str).to_numpy() != str(value)

    def run(
        self,
        people: pd.DataFrame,
        predict: Mapping[str, Callable[[np.ndarray], np.ndarray]],
        *,
        favourable: int = 1,
        threshold: float = 0.5,
        only: Any = None,
    ) -> RecourseTable:
        """Evaluate every candidate intervention for ``people`` under each model of ``predict``.

        Args:
            people: readable factual rows.
            predict: ``{name: fn}`` with ``fn(encoded rows) -> D``.
            favourable: the favourable label of a binary target.
            only: boolean mask of the people to search for (default: those at least one model
                decides unfavourably); the others get no candidate.
        """
        if favourable not in (0, 1):
            raise RecourseError(f"favourable must be 0 or 1, got {favourable!r}.")
        if not predict:
            raise RecourseError("give at least one model to evaluate recourse for.")
        people = people.reset_index(drop=True)
        X = self.encoder.transform(people)
        d_fact = {m: np.asarray(fn(X), dtype=np.float64).reshape(-1) for m, fn in predict.items()}
        fav = (lambda d: d >= threshold) if favourable == 1 else (lambda d: d < threshold)
        need = np.zeros(len(people), bool)
        for d in d_fact.values():
            need |= ~fav(d)
        if only is not None:
            need &= _mask(only, len(people))
        cands = self.candidates
        order = {n: i for i, n in enumerate(self.engine.graph.topological_order)}
        self._elig = {(f, v): self._eligible(people, f, v) for f, vals in self.values.items() for v in vals}
        self._cost = {(f, v): self.costs.cost(f, people[f], v) for f, vals in self.values.items() for v in vals}
        out = _Collector(self.encoder, predict, lambda cand, rows: sum(self._cost[fv][rows] for fv in cand))
        # single interventions, one causal-model call each; their twins are kept for the pairs
        cache: dict[tuple[str, Any], tuple[pd.DataFrame, np.ndarray]] = {}
        parts = []
        for k, cand in enumerate(cands):
            rows = self._rows(people, need, cand) if len(cand) == 1 else np.zeros(0, int)
            if len(rows):
                twins, pos = intervene(
                    self.engine, people.iloc[rows], list(cand), samples=self.samples, seed=self.seed * 100_003 + k
                )
                cache[cand[0]] = (twins, rows[pos])
                parts.append((k, cand, rows, twins, rows[pos]))
        out.add(parts)
        # pairs, batched by their later intervention (in causal order): one call per batch,
        # applied to the kept twins of each pair's earlier intervention
        batches: dict[tuple[str, Any], list[int]] = {}
        for k, cand in enumerate(cands):
            if len(cand) == 2:
                batches.setdefault(max(cand, key=lambda fv: order[fv[0]]), []).append(k)
        for b, (second, ks) in enumerate(batches.items()):
            frames, info = [], []
            for k in ks:
                first = next(fv for fv in cands[k] if fv != second)
                rows = self._rows(people, need, cands[k])
                if not len(rows) or first not in cache:
                    continue
                base, who = cache[first]
                sel = np.flatnonzero(np.isin(who, rows))
                frames.append(base.iloc[sel])
                info.append((k, rows, who[sel]))
            if not frames:
                continue
            big = pd.concat(frames, ignore_index=True)
            twins, idx, _ = self.engine.counterfactual(
                big, second[0], second[1], samples=self.samples, seed=self.seed * 100_003 + len(cands) + b
            )
            idx = np.asarray(idx)
            part_of = np.repeat(np.arange(len(frames)), [len(f) for f in frames])[idx]
            starts = np.cumsum([0] + [len(f) for f in frames])
            parts = []
            for p, (k, rows, who) in enumerate(info):
                mine = np.flatnonzero(part_of == p)
                parts.append((k, cands[k], rows, twins.iloc[mine], who[idx[mine] - starts[p]]))
            out.add(parts)
        person, candidate, cost, d_twins = out.arrays()
        return RecourseTable(
            people,
            d_fact,
            cands,
            person,
            candidate,
            cost,
            d_twins,
            favourable,
            threshold,
            {"actions": [a.feature for a in self.actions], "max_features": self.max_features},
        )

    def _rows(self, people: pd.DataFrame, need: np.ndarray, cand: Intervention) -> np.ndarray:
        """Positions of the people who need recourse and may take every intervention of ``cand``."""
        ok = need.copy()
        for fv in cand:
            ok &= self._elig[fv]
        return np.flatnonzero(ok)


class _Collector:
    """Encodes batches of twins, evaluates every model once per batch, and keeps per (person,
    intervention) the cost and the mean of ``D`` over the person's draws."""

    def __init__(
        self,
        encoder: Any,
        predict: Mapping[str, Callable[[np.ndarray], np.ndarray]],
        cost: Callable[[Intervention, np.ndarray], np.ndarray],
    ) -> None:
        self.encoder, self.predict, self.cost_of = encoder, predict, cost
        self.person: list[np.ndarray] = []
        self.candidate: list[np.ndarray] = []
        self.cost: list[np.ndarray] = []
        self.d: dict[str, list[np.ndarray]] = {m: [] for m in predict}

    def add(self, parts: list[tuple[int, Intervention, np.ndarray, pd.DataFrame, np.ndarray]]) -> None:
        """``parts``: (candidate index, intervention, its people, twin rows, person of each twin)."""
        if not parts:
            return
        X = self.encoder.transform(pd.concat([p[3] for p in parts], ignore_index=True))
        outs = {m: np.asarray(fn(X), dtype=np.float64).reshape(-1) for m, fn in self.predict.items()}
        start = 0
        for k, cand, rows, twins, who in parts:
            stop = start + len(twins)
            slot = np.searchsorted(rows, who)
            counts = np.bincount(slot, minlength=len(rows))
            seen = counts > 0
            for m, d in outs.items():
                self.d[m].append(np.bincount(slot, weights=d[start:stop], minlength=len(rows))[seen] / counts[seen])
            self.person.append(rows[seen])
            self.candidate.append(np.full(int(seen.sum()), k))
            self.cost.append(np.asarray(self.cost_of(cand, rows), dtype=float)[seen])
            start = stop

    def arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, dict[str, np.ndarray]]:
        def cat(xs: list[np.ndarray], dtype: type) -> np.ndarray:
            return np.concatenate(xs).astype(dtype) if xs else np.zeros(0, dtype=dtype)

        return (
            cat(self.person, int),
            cat(self.candidate, int),
            cat(self.cost, float),
            {m: cat(v, float) for m, v in self.d.items()},
        )
