"""Structural causal models with exact counterfactuals, to judge counterfactual generators.

Every node ``x_i = f_i(pa_i, u_i)`` has its own exogenous noise ``u_i``; a *true twin* keeps each
row's noise and recomputes the descendants of the intervened feature, so it is the exact
counterfactual (Pearl's abduction, action, prediction with the real noise). The mechanisms,
by kind:

* ``continuous``: ``x = f(pa) + s(pa) * u``, ``u ~ N(0, 1)`` (``s`` may depend on the parents:
  heteroscedastic noise);
* ``integer``: ``x = clip(floor(f(pa) + s * u), lo, hi)``, ``u ~ N(0, 1)``;
* ``binary`` and ``ordinal``: ``x = #{cuts <= f(pa) + u}``, ``u ~ Logistic(0, 1)`` (a threshold
  model, monotone in ``u``);
* ``categorical`` (nominal): Gumbel-max, ``x = argmax_k(f_k(pa) + g_k)``, ``g_k ~ Gumbel(0, 1)``.

Counterfactuals of discrete nodes are not identified from data: these mechanisms are the
choice under which the treatments of :class:`~cffair.causal.FlowConfig` are exact in the
limit (monotone for ordered kinds, Gumbel-max for nominal ones, Oberst & Sontag 2019), so the
suite measures whether a treatment estimates them well, and how wrong a mismatched one is.

The **oracle** (:meth:`SyntheticData.oracle`) knows the mechanisms and the noise distributions
but not the realised noise: it draws each row's noise from its posterior given the factual
row (exact for continuous nodes, whose noise the row determines; a truncated logistic, normal
or Gumbel for discrete ones) and computes the twin. Its draws have the true twins' distribution
given the row; their mean is the lowest-RMSE prediction of a continuous twin any generator can
make from the row, and a single draw is what a perfect sampling generator produces.

Models (:data:`MODELS`, each ``load(name, n, seed)``): ``nominal_child``, ``ordinal_child``,
``binary_child``, ``chain``, ``heteroscedastic``, ``adult_like``. Each returns factual rows with
a binary target, a :class:`~cffair.datasets.DatasetSpec`, a
:class:`~cffair.datasets._graph.CausalGraph`, and the true twins for ``do(S := 1 - S)`` and for an
intervention on a non-sensitive feature.

Example:
    >>> data = load("nominal_child", n=500, seed=0)
    >>> flips = data.sensitive_twins
    >>> bool((flips["s"].astype(str) != data.frame["s"].astype(str)).all())
    True
"""

from __future__ import annotations

__all__ = ["MODELS", "SCM", "Node", "SyntheticData", "load", "simulate_scm"]

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from scipy import special, stats

from cffair.datasets import Dataset, DatasetSpec, FeatureKind, prepare
from cffair.datasets._graph import CausalGraph
from cffair.errors import CounterfactualError

Values = Mapping[str, np.ndarray]
#: ``f(values, n)``: a location ``(n,)`` or, for a nominal node, logits ``(n, K)``.
Mechanism = Callable[[Values, int], np.ndarray]
CATEGORY_KINDS = ("binary", "ordinal", "categorical")


# ---------------------------------------------------------------------------- nodes
@dataclass(frozen=True)
class Node:
    """One structural equation. Parent values reach ``f`` as numbers (category codes for
    category kinds).

    Attributes:
        name: the feature.
        kind: ``continuous``, ``integer``, ``binary``, ``ordinal`` or ``categorical``.
        parents: the parents (the graph's edges).
        f: location (or logits) of the mechanism, ``f(values, n)``.
        scale: noise scale of ``continuous`` and ``integer`` nodes (a callable: heteroscedastic).
        levels: category labels of category kinds (codes are positions).
        cuts: thresholds of ``binary`` (one) and ``ordinal`` (``len(levels) - 1``) nodes.
        lo, hi: range of an ``integer`` node.
    """

    name: str
    kind: FeatureKind
    parents: tuple[str, ...]
    f: Mechanism
    scale: float | Mechanism = 1.0
    levels: tuple[str, ...] = ()
    cuts: tuple[float, ...] = ()
    lo: int = 0
    hi: int = 0

    def _scale(self, v: Values, n: int) -> np.ndarray:
        return np.broadcast_to(self.scale(v, n) if callable(self.scale) else np.float64(self.scale), (n,))

    def noise(self, n: int, rng: np.random.Generator) -> np.ndarray:
        """Draw the exogenous noise of ``n`` rows."""
        if self.kind == "categorical":
            return rng.gumbel(size=(n, len(self.levels)))
        if self.kind in ("binary", "ordinal"):
            return rng.logistic(size=n)
        return rng.normal(size=n)

    def value(self, v: Values, n: int, u: np.ndarray) -> np.ndarray:
        """The node's values (codes for category kinds) given its parents and noise."""
        loc = self.f(v, n)
        if self.kind == "categorical":
            return np.argmax(loc + u, axis=1).astype(np.float64)
        if self.kind in ("binary", "ordinal"):
            return np.searchsorted(np.asarray(self.cuts), loc + u, side="right").astype(np.float64)
        y = loc + self._scale(v, n) * u
        return np.clip(np.floor(y), self.lo, self.hi) if self.kind == "integer" else y

    def posterior(self, x: np.ndarray, v: Values, n: int, rng: np.random.Generator) -> np.ndarray:
        """Noise drawn from its posterior given the node's value ``x`` and its parents ``v``."""
        loc = self.f(v, n)
        if self.kind == "categorical":
            return _gumbel_posterior(loc, x.astype(np.int64), rng)
        if self.kind in ("binary", "ordinal"):
            edges = np.r_[-np.inf, np.asarray(self.cuts, dtype=float), np.inf]
            k = x.astype(np.int64)
            lo_p, hi_p = special.expit(edges[k] - loc), special.expit(edges[k + 1] - loc)
            p = np.clip(lo_p + (hi_p - lo_p) * rng.uniform(size=n), 1e-15, 1 - 1e-15)
            return special.logit(p)
        s = self._scale(v, n)
        if self.kind == "continuous":
            return (x - loc) / s
        a = np.where(x <= self.lo, -np.inf, (x - loc) / s)
        b = np.where(x >= self.hi, np.inf, (x + 1 - loc) / s)
        return stats.truncnorm.rvs(a, b, random_state=rng)


def _gumbel_posterior(logits: np.ndarray, observed: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Gumbel noise given ``argmax(logits + g) = observed`` (top-down, Maddison et al. 2014)."""
    top = special.logsumexp(logits, axis=1) + rng.gumbel(size=len(logits))
    others = logits + rng.gumbel(size=logits.shape)
    trunc = -np.logaddexp(-top[:, None], -others)
    trunc[np.arange(len(logits)), observed] = top
    return trunc - logits


# ---------------------------------------------------------------------------- models
@dataclass(frozen=True)
class SCM:
    """A structural causal model over features, a binary target and a sensitive attribute.

    Attributes:
        name: short name.
        nodes: the structural equations in topological order.
        sensitive: the binary sensitive attribute (a root).
        target: logit of ``P(y = 1 | features)``; ``y = 1[target + Logistic noise > 0]``.
        intervention: ``(feature, value)`` of the non-sensitive intervention (a readable value).
        description: one line.
    """

    name: str
    nodes: tuple[Node, ...]
    sensitive: str
    target: Mechanism
    intervention: tuple[str, Any]
    description: str = ""

    def node(self, name: str) -> Node:
        for nd in self.nodes:
            if nd.name == name:
                return nd
        names = [n.name for n in self.nodes]
        raise CounterfactualError(f"{name!r} is not a node of the synthetic model {self.name!r}; nodes are {names}.")

    @property
    def spec(self) -> DatasetSpec:
        """The dataset spec (target ``y``, graph given inline)."""
        edges: dict[str, list[str]] = {}
        for nd in self.nodes:
            for p in nd.parents:
                edges.setdefault(p, []).append(nd.name)
        graph = {"name": self.name, "edges": edges, "nodes": [nd.name for nd in self.nodes]}
        return DatasetSpec(
            name=self.name,
            target="y",
            target_kind="binary",
            sensitive=self.sensitive,
            features={nd.name: nd.kind for nd in self.nodes},
            graph=graph,
            description=self.description,
        )

    def propagate(
        self, noise: Mapping[str, np.ndarray], n: int, do: Mapping[str, np.ndarray] | None = None
    ) -> dict[str, np.ndarray]:
        """Every node's values from the noise, with ``do`` fixing some nodes (codes or numbers)."""
        v: dict[str, np.ndarray] = {}
        for nd in self.nodes:
            if do and nd.name in do:
                v[nd.name] = np.broadcast_to(np.asarray(do[nd.name], dtype=np.float64), (n,)).copy()
            else:
                v[nd.name] = nd.value(v, n, noise[nd.name])
        return v

    def sample(self, n: int, seed: int = 0) -> SyntheticData:
        """``n`` factual rows with their noise, spec, graph and true twins."""
        rng = np.random.default_rng(seed)
        noise = {nd.name: nd.noise(n, rng) for nd in self.nodes}
        values = self.propagate(noise, n)
        y = (self.target(values, n) + rng.logistic(size=n) > 0).astype(np.int64)
        spec = self.spec
        frame = prepare(pd.DataFrame({**_readable(self, values), "y": y}), spec)
        data = SyntheticData(self, frame, spec, spec.load_graph(), noise, values)
        s = data.values[self.sensitive]
        data.sensitive_twins = data.twins(self.sensitive, 1.0 - s)
        feature, value = self.intervention
        col = data.frame[feature]
        if spec.features[feature] in CATEGORY_KINDS:
            rows = np.flatnonzero(col.astype(str).to_numpy() != str(value))
        else:
            rows = np.flatnonzero(col.to_numpy(dtype=float) != float(value))
        data.feature_twins = data.twins(feature, value, rows)
        return data


def _readable(scm: SCM, values: Mapping[str, np.ndarray], rows: np.ndarray | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for nd in scm.nodes:
        x = values[nd.name] if rows is None else values[nd.name][rows]
        if nd.kind in CATEGORY_KINDS:
            out[nd.name] = pd.Categorical.from_codes(
                x.astype(np.int64), categories=list(nd.levels), ordered=nd.kind == "ordinal"
            )
        elif nd.kind == "integer":
            out[nd.name] = x.astype(np.int64)
        else:
            out[nd.name] = x.astype(np.float64)
    return out


@dataclass
class SyntheticData:
    """Factual rows of an :class:`SCM` with the noise that made them.

    Attributes:
        scm: the model.
        frame: readable factual rows (features and the binary target ``y``).
        spec, graph: the dataset spec and causal graph.
        noise: each node's realised noise.
        values: each node's factual values as numbers (codes for category kinds).
        sensitive_twins: the true twins of ``do(S := 1 - S)``, one per row (``row_id`` = row).
        feature_twins: the true twins of ``scm.intervention`` for the rows not already at its value.
    """

    scm: SCM
    frame: pd.DataFrame
    spec: DatasetSpec
    graph: CausalGraph
    noise: dict[str, np.ndarray]
    values: dict[str, np.ndarray]
    sensitive_twins: pd.DataFrame = field(default_factory=pd.DataFrame)
    feature_twins: pd.DataFrame = field(default_factory=pd.DataFrame)

    @property
    def dataset(self) -> Dataset:
        """``(frame, spec)`` for :func:`cffair.causal.generate` and friends."""
        return Dataset(self.frame, self.spec)

    def _code(self, feature: str, value: Any, n: int) -> np.ndarray:
        nd = self.scm.node(feature)
        vals = np.broadcast_to(np.asarray(value, dtype=object), (n,))
        if nd.kind in CATEGORY_KINDS:
            labels = list(nd.levels)
            if all(isinstance(x, (int, float, np.integer, np.floating)) and not isinstance(x, bool) for x in vals[:1]):
                return np.asarray(vals, dtype=np.float64)  # codes
            bad = sorted({str(x) for x in vals} - set(labels))
            if bad:
                raise CounterfactualError(f"{bad[:3]} are not values of {feature!r}; its values are {labels}.")
            return np.asarray([labels.index(str(x)) for x in vals], dtype=np.float64)
        return np.asarray(vals, dtype=np.float64)

    def _frame_of(
        self, values: Mapping[str, np.ndarray], row_id: np.ndarray, sample: np.ndarray | None = None
    ) -> pd.DataFrame:
        data = _readable(self.scm, values)
        out = pd.DataFrame({"row_id": row_id.astype(np.int64)})
        if sample is not None:
            out["sample"] = sample.astype(np.int64)
        for col in self.spec.features:
            x = data[col]
            out[col] = (
                pd.Categorical.from_codes(x.codes, dtype=self.frame[col].dtype) if isinstance(x, pd.Categorical) else x
            )
        return out

    def twins(self, feature: str, value: Any, rows: Sequence[int] | np.ndarray | None = None) -> pd.DataFrame:
        """The true twins of ``do(feature := value)`` for ``rows`` (default all).

        ``value`` is a label or number, or one per row (``1 - s`` codes give the flip).
        Returns a frame with ``row_id`` and the features, with the factual frame's dtypes.
        """
        rows = np.arange(len(self.frame)) if rows is None else np.asarray(rows, dtype=np.int64)
        n = len(rows)
        do = {feature: self._code(feature, value, n)}
        noise = {k: u[rows] for k, u in self.noise.items()}
        return self._frame_of(self.scm.propagate(noise, n, do), rows)

    def oracle(
        self, feature: str, value: Any, rows: Sequence[int] | np.ndarray | None = None, samples: int = 32, seed: int = 0
    ) -> pd.DataFrame:
        """Twins drawn with the noise's posterior given each row (mechanisms known, noise not).

        Non-descendants of ``feature`` keep their factual values. Returns ``samples`` draws per
        row in long format (``row_id``, ``sample``, features), row-major within each draw.
        """
        rows = np.arange(len(self.frame)) if rows is None else np.asarray(rows, dtype=np.int64)
        rng = np.random.default_rng(seed)
        n = len(rows)
        fact = {k: x[rows] for k, x in self.values.items()}
        desc = set(self.graph.descendants(feature))
        code = self._code(feature, value, n)
        tiled = {k: np.tile(x, samples) for k, x in fact.items()}
        N = n * samples
        out: dict[str, np.ndarray] = {}
        for nd in self.scm.nodes:
            if nd.name == feature:
                out[nd.name] = np.tile(code, samples)
            elif nd.name not in desc:
                out[nd.name] = tiled[nd.name]
            else:
                u = nd.posterior(tiled[nd.name], tiled, N, rng)
                out[nd.name] = nd.value(out, N, u)
        return self._frame_of(out, np.tile(rows, samples), np.repeat(np.arange(samples), n))


# ---------------------------------------------------------------------------- the suite
def _const(c: float) -> Mechanism:
    return lambda v, n: np.full(n, c)


def _logits(*rows: Sequence[float]) -> Mechanism:
    table = np.asarray(rows, dtype=float)
    return lambda v, n: np.broadcast_to(table[0], (n, table.shape[1])).copy()


def _roots(s_levels: tuple[str, str] = ("a", "b")) -> tuple[Node, Node]:
    """A balanced binary sensitive root ``s`` and a standard normal root ``z``."""
    return (
        Node("s", "binary", (), _const(0.0), levels=s_levels, cuts=(0.0,)),
        Node("z", "continuous", (), _const(0.0)),
    )


def _nominal_child() -> SCM:
    # s moves mass between the codes of each pair (0, 1) and (2, 3): 32/18/32/18 % becomes 18/32/18/32 %,
    # which shifts the mean code by only 0.3 with the same spread; z moves mass between the pairs.
    # g's mean per category is not monotone in the code.
    base = np.array([[0.6, 0.0, 0.6, 0.0], [0.0, 0.6, 0.0, 0.6]])
    slope = np.array([0.5, 0.5, -0.5, -0.5])
    means = np.array([0.0, 2.0, -1.5, 1.0])
    c = Node(
        "c",
        "categorical",
        ("s", "z"),
        lambda v, n: base[v["s"].astype(int)] + np.outer(v["z"], slope),
        levels=("c0", "c1", "c2", "c3"),
    )
    g = Node("g", "continuous", ("c", "z"), lambda v, n: means[v["c"].astype(int)] + 0.5 * v["z"], scale=0.5)
    return SCM(
        "nominal_child",
        (*_roots(), c, g),
        "s",
        lambda v, n: 0.8 * v["g"] - 0.4,
        ("z", 1.0),
        "a nominal 4-level child c of s (Gumbel-max) with a continuous grandchild g",
    )


def _ordinal_child() -> SCM:
    o = Node(
        "o",
        "ordinal",
        ("s", "z"),
        lambda v, n: 1.5 * v["s"] + 0.8 * v["z"] - 0.75,
        levels=("o0", "o1", "o2", "o3", "o4"),
        cuts=(-1.5, -0.5, 0.5, 1.5),
    )
    g = Node("g", "continuous", ("o", "z"), lambda v, n: np.sqrt(1 + v["o"]) * 1.5 + 0.3 * v["z"], scale=0.4)
    return SCM(
        "ordinal_child",
        (*_roots(), o, g),
        "s",
        lambda v, n: v["g"] - 2.5,
        ("z", 1.0),
        "an ordinal 5-level child o of s (logistic threshold) with a continuous grandchild g",
    )


def _binary_child() -> SCM:
    b = Node(
        "b", "binary", ("s", "z"), lambda v, n: 1.5 * v["s"] - 0.75 + 0.6 * v["z"], levels=("no", "yes"), cuts=(0.0,)
    )
    g = Node(
        "g", "continuous", ("b", "s", "z"), lambda v, n: 1.5 * v["b"] - 0.5 * v["s"] + 0.3 * v["z"] ** 2, scale=0.5
    )
    return SCM(
        "binary_child",
        (*_roots(), b, g),
        "s",
        lambda v, n: v["g"] - 0.5,
        ("z", 1.0),
        "a binary child b of s (logistic threshold) with a continuous grandchild g",
    )


def _chain() -> SCM:
    x1 = Node("x1", "continuous", ("s", "z"), lambda v, n: np.sin(v["z"]) + v["s"], scale=0.5)
    x2 = Node("x2", "continuous", ("x1",), lambda v, n: 0.5 * v["x1"] ** 2 - 0.5, scale=0.5)
    x3 = Node("x3", "continuous", ("x1", "x2"), lambda v, n: 2 * np.tanh(v["x2"]) + 0.3 * v["x1"], scale=0.5)
    return SCM(
        "chain",
        (*_roots(), x1, x2, x3),
        "s",
        lambda v, n: v["x3"] - 0.5,
        ("x1", 0.5),
        "a nonlinear continuous chain s -> x1 -> x2 -> x3 (depth 3, additive noise)",
    )


def _heteroscedastic() -> SCM:
    x1 = Node(
        "x1",
        "continuous",
        ("s", "z"),
        lambda v, n: 0.8 * v["s"] + 0.5 * v["z"],
        scale=lambda v, n: 0.2 + 0.8 * v["s"] + 0.3 * np.abs(v["z"]),
    )
    x2 = Node(
        "x2",
        "continuous",
        ("x1",),
        lambda v, n: np.tanh(v["x1"]) + 0.5 * v["x1"],
        scale=lambda v, n: 0.3 + 0.5 * special.expit(2 * v["x1"]),
    )
    return SCM(
        "heteroscedastic",
        (*_roots(), x1, x2),
        "s",
        lambda v, n: v["x2"],
        ("z", 1.0),
        "noise scales that depend on the parents (s, z -> x1 -> x2)",
    )


def _adult_like() -> SCM:
    edu_levels = ("Dropout", "HS-grad", "Some-college", "Bachelors", "Masters", "Doctorate")
    race_w = np.array([0.0, -0.3, 0.3])  # Black, Other, White
    occ_base = np.array(
        [[0.5, 0.8, -0.2, 0.4], [0.4, -0.6, 0.0, 0.6]]
    )  # Admin, Craft, Prof, Service by sex (Male, Female)
    occ_edu = np.array([0.0, -0.3, 0.7, -0.4])
    occ_wealth = np.array([0.0, 0.2, 0.8, -0.3])
    rel_married = np.array(
        [[3.0, -6.0, -1.0, -3.0], [-6.0, 3.0, -1.0, -3.0]]
    )  # Husband, Wife, Not-in-family, Own-child (Male, Female)
    rel_single = np.array([-6.0, -6.0, 1.0, 0.0])

    def female(v: Values) -> np.ndarray:
        return 1.0 - v["sex"]  # sex codes: Female 0, Male 1

    def relationship(v: Values, n: int) -> np.ndarray:
        married = (v["marital"] == 0)[:, None]
        young = np.clip((30 - v["age"]) / 10, 0, None)[:, None] * np.array([0, 0, 0, 1.0])
        return np.where(married, rel_married[female(v).astype(int)], rel_single) + young

    nodes = (
        Node("sex", "binary", (), _const(0.0), levels=("Female", "Male"), cuts=(0.0,)),
        Node("age", "integer", (), _const(42.0), scale=12.0, lo=18, hi=80),
        Node("race", "categorical", (), _logits([-1.0, -1.5, 1.0]), levels=("Black", "Other", "White")),
        Node(
            "education",
            "ordinal",
            ("sex", "age", "race"),
            lambda v, n: 0.5 * v["sex"] + 0.02 * (v["age"] - 42) + race_w[v["race"].astype(int)],
            levels=edu_levels,
            cuts=(-2.0, -0.5, 0.5, 1.2, 2.2),
        ),
        Node(
            "marital",
            "categorical",
            ("sex", "age"),
            lambda v, n: np.column_stack(
                [0.4 * v["sex"] + 0.05 * (v["age"] - 30), np.full(n, 0.3) - 0.05 * (v["age"] - 30), 0.3 * female(v)]
            ),
            levels=("Married", "Never-married", "Divorced"),
        ),
        Node(
            "relationship",
            "categorical",
            ("sex", "marital", "age"),
            relationship,
            levels=("Husband", "Wife", "Not-in-family", "Own-child"),
        ),
        Node(
            "occupation",
            "categorical",
            ("sex", "education"),
            lambda v, n: occ_base[female(v).astype(int)] + np.outer(v["education"] - 2, occ_edu),
            levels=("Admin", "Craft", "Prof", "Service"),
        ),
        Node(
            "hours",
            "integer",
            ("sex", "age", "education"),
            lambda v, n: 36 + 6 * v["sex"] + 1.5 * v["education"] - 0.004 * (v["age"] - 45) ** 2,
            scale=7.0,
            lo=5,
            hi=80,
        ),
        Node(
            "wealth",
            "continuous",
            ("sex", "education", "occupation"),
            lambda v, n: 0.4 * v["education"] + 0.3 * v["sex"] + occ_wealth[v["occupation"].astype(int)],
            scale=0.6,
        ),
    )

    def income(v: Values, n: int) -> np.ndarray:
        return (
            0.6 * v["education"] + 0.05 * (v["hours"] - 40) + 1.0 * (v["relationship"] <= 1) + 0.8 * v["wealth"] - 3.0
        )

    return SCM(
        "adult_like",
        nodes,
        "sex",
        income,
        ("education", "Bachelors"),
        "shaped like Adult: S = sex, roots age (integer) and race (nominal); ordinal education; nominal marital status, "
        "relationship and occupation; integer hours; continuous wealth",
    )


#: The suite: name -> model factory.
MODELS: dict[str, Callable[[], SCM]] = {
    "nominal_child": _nominal_child,
    "ordinal_child": _ordinal_child,
    "binary_child": _binary_child,
    "chain": _chain,
    "heteroscedastic": _heteroscedastic,
    "adult_like": _adult_like,
}


def load(name: str, n: int = 5000, seed: int = 0) -> SyntheticData:
    """``n`` rows of the suite's model ``name`` (see :data:`MODELS`), with true twins."""
    if name not in MODELS:
        raise CounterfactualError(f"unknown synthetic model {name!r}; choose one of {sorted(MODELS)}.")
    return MODELS[name]().sample(n, seed)


# ---------------------------------------------------------------------------- the flow's first check
def simulate_scm(n: int, seed: int = 0, discrete_child: bool = False) -> tuple[Dataset, dict[str, Any]]:
    """A nonlinear additive-noise SCM with exact counterfactuals, to validate the flow.

    ``s`` binary root, ``x1`` continuous root, ``x2 = sin(x1) + s + u2``,
    ``x3 = 0.5 x1 x2 + tanh(x2) - s + u3`` with Gaussian ``u``; with ``discrete_child`` an
    integer node ``k = floor(2 + x2 + u_k)`` clipped to [0, 5] is added (child of ``x2``).

    Returns:
        ``(Dataset(frame, spec), truth)`` where ``truth[(feature, value)]`` is a function of the
        factual frame giving the exact counterfactual frame for ``do(feature := value)``.
    """
    rng = np.random.default_rng(seed)
    s = rng.integers(0, 2, n)
    x1 = rng.normal(size=n)
    u2, u3 = rng.normal(scale=0.5, size=n), rng.normal(scale=0.5, size=n)
    uk = rng.uniform(0, 1, n)

    def f2(x1: np.ndarray, s: np.ndarray) -> np.ndarray:
        return np.sin(x1) + s

    def f3(x1: np.ndarray, x2: np.ndarray, s: np.ndarray) -> np.ndarray:
        return 0.5 * x1 * x2 + np.tanh(x2) - s

    x2 = f2(x1, s) + u2
    x3 = f3(x1, x2, s) + u3
    cols: dict[str, Any] = {"s": np.where(s == 1, "b", "a"), "x1": x1, "x2": x2, "x3": x3}
    features: dict[str, Any] = {"s": "binary", "x1": "continuous", "x2": "continuous", "x3": "continuous"}
    edges: dict[str, list[str]] = {"s": ["x2", "x3"], "x1": ["x2", "x3"], "x2": ["x3"]}
    if discrete_child:
        cols["k"] = np.clip(np.floor(2 + x2 + uk), 0, 5).astype(int)
        features["k"] = "integer"
        edges["x2"].append("k")
    cols["y"] = (x3 > 0).astype(int)
    spec = DatasetSpec(
        name="synthetic",
        target="y",
        target_kind="binary",
        sensitive="s",
        features=features,
        graph={"name": "synthetic", "edges": edges},
    )
    frame = prepare(pd.DataFrame(cols), spec)
    noise = pd.DataFrame({"u2": u2, "u3": u3})

    def truth(feature: str, value: Any) -> Callable[[np.ndarray], pd.DataFrame]:
        def cf(rows: np.ndarray) -> pd.DataFrame:
            f = frame.iloc[rows].reset_index(drop=True)
            u = noise.iloc[rows].reset_index(drop=True)
            s_ = (f["s"].astype(str) == "b").to_numpy().astype(float)
            x1_ = f["x1"].to_numpy()
            if feature == "s":
                s_ = np.full(len(f), 1.0 if value == "b" else 0.0)
            elif feature == "x1":
                x1_ = np.full(len(f), float(value))
            x2_ = f2(x1_, s_) + u["u2"].to_numpy() if feature != "x2" else np.full(len(f), float(value))
            x3_ = f3(x1_, x2_, s_) + u["u3"].to_numpy()
            return pd.DataFrame({"x1": x1_, "x2": x2_, "x3": x3_})

        return cf

    return Dataset(frame, spec), {"truth": truth, "noise": noise}
