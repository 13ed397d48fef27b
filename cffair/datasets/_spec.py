"""The dataset spec: :class:`DatasetSpec`, :class:`SubgroupColumn` and the YAML spec file.

The file format is documented in full in :mod:`cffair.datasets`.
"""

from __future__ import annotations

__all__ = [
    "CATEGORY_KINDS",
    "DISCRETE_KINDS",
    "FEATURE_KINDS",
    "NAMES",
    "NUMERIC_KINDS",
    "PAPER_ROW_COUNTS",
    "Dataset",
    "DatasetSpec",
    "FeatureKind",
    "SubgroupColumn",
    "TargetKind",
    "infer_kind",
    "packaged_graph_names",
    "read_spec",
    "with_spec",
]

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, replace
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, NamedTuple

import numpy as np
import pandas as pd

from cffair._support.validation import TargetKind, check_target_kind
from cffair._support.yaml_files import load_yaml
from cffair.datasets import _catalogue as catalogue
from cffair.errors import DataError, SpecError

if TYPE_CHECKING:
    from cffair.datasets._graph import CausalGraph

FeatureKind = Literal["continuous", "integer", "binary", "ordinal", "categorical"]

FEATURE_KINDS: tuple[str, ...] = ("continuous", "integer", "binary", "ordinal", "categorical")
NUMERIC_KINDS = frozenset({"continuous", "integer"})
CATEGORY_KINDS = frozenset({"binary", "ordinal", "categorical"})
DISCRETE_KINDS = frozenset({"integer", "binary", "ordinal", "categorical"})

#: The paper's datasets (:data:`cffair.datasets._catalogue.DATASETS`).
NAMES: tuple[str, ...] = catalogue.dataset_names()

#: Row counts reported in the paper (section 6.1) next to what the shipped files hold.
PAPER_ROW_COUNTS: dict[str, int] = {k: d.paper_rows for k, d in catalogue.DATASETS.items()}


def _name_list(raw: Any, key: str) -> tuple[str, ...]:
    """A YAML list of column names as a tuple; a bare string is an error, not a list of letters."""
    if raw is None:
        return ()
    if isinstance(raw, str):
        raise SpecError(
            f"'{key}' must be a list of column names, got the string {raw!r}. "
            f"Write it as a list, e.g. {key}: [{raw}] (YAML) or {key}=[{raw!r}]."
        )
    if isinstance(raw, Mapping) or not isinstance(raw, Sequence):
        raise SpecError(f"'{key}' must be a list of column names, got {type(raw).__name__} {raw!r}.")
    return tuple(str(x) for x in raw)


def _format_values(values: Sequence[Any], limit: int = 6) -> str:
    shown = [v.item() if hasattr(v, "item") else v for v in values[:limit]]
    return str(shown) + (f" and {len(values) - limit} more" if len(values) > limit else "")


# ---------------------------------------------------------------------------- subgroups
@dataclass(frozen=True)
class SubgroupColumn:
    """One column of a subgroup definition, optionally binned.

    ``bins`` are right-closed edges for :func:`pandas.cut` (use ``-inf``/``inf`` at the ends);
    ``labels`` name the bins (one fewer than the edges). Only numeric (``integer`` or
    ``continuous``) columns can be binned; :class:`DatasetSpec` checks that.
    """

    column: str
    bins: tuple[float, ...] | None = None
    labels: tuple[str, ...] | None = None

    def __post_init__(self) -> None:
        if self.bins is not None:
            if len(self.bins) < 2 or list(self.bins) != sorted(self.bins):
                raise SpecError(
                    f"subgroup bins for {self.column!r} must be at least two increasing edges, got {self.bins}."
                )
            if len(set(self.bins)) != len(self.bins):
                raise SpecError(
                    f"subgroup bins for {self.column!r} repeat an edge: {list(self.bins)}; edges must increase strictly."
                )
            if self.labels is not None and len(self.labels) != len(self.bins) - 1:
                raise SpecError(
                    f"subgroup {self.column!r} has {len(self.bins) - 1} bins but {len(self.labels)} labels; give one label per bin."
                )
        elif self.labels is not None:
            raise SpecError(f"subgroup {self.column!r} has labels but no bins; labels name bins of a numeric column.")

    def uncovered(self, col: pd.Series) -> np.ndarray:
        """Boolean mask of the values of ``col`` that fall in no bin (all false without bins)."""
        if self.bins is None:
            return np.zeros(len(col), dtype=bool)
        v = col.to_numpy(dtype=float)
        return ~((v > self.bins[0]) & (v <= self.bins[-1]))

    def check_covers(self, col: pd.Series, where: Callable[[int], str] | None = None) -> None:
        """Raise if a value of ``col`` falls outside every bin.

        Raises:
            DataError: naming the column, the uncovered values, their range and the fix.
        """
        bad = self.uncovered(col)
        if not bad.any():
            return
        assert self.bins is not None
        values = np.unique(col.to_numpy()[bad])
        lo, hi = col.min(), col.max()
        first = f", the first at {where(int(np.flatnonzero(bad)[0]))}" if where is not None else ""
        edge_note = (
            f" The bins are right-closed (a, b], so the first edge {self.bins[0]:g} itself is outside."
            if np.any(col.to_numpy(dtype=float) == self.bins[0])
            else ""
        )
        raise DataError(
            f"the subgroup bins of {self.column!r} (edges {list(self.bins)}) do not cover {int(bad.sum())} row(s) "
            f"with the value(s) {_format_values(list(values))}{first}; the column ranges over [{lo}, {hi}].{edge_note} "
            "Widen the edges so every value falls in a bin, e.g. start them with -.inf and end them with .inf "
            f"(YAML: bins: [-.inf, ..., .inf]), or drop those rows."
        )

    def values(self, frame: pd.DataFrame) -> pd.Series:
        """The subgroup value of each row, as strings.

        Raises:
            DataError: if a value falls outside every bin (it would get no subgroup).
        """
        col = frame[self.column]
        if self.bins is None:
            return col.astype(str)
        self.check_covers(col)
        labels = list(self.labels) if self.labels else None
        binned = pd.cut(col.astype(float), bins=list(self.bins), labels=labels, right=True)
        return binned.astype(str)

    @classmethod
    def parse(cls, raw: Any) -> SubgroupColumn:
        """From a column name or a mapping ``{column, bins, labels}``.

        Raises:
            SpecError: for unknown keys, a missing column, bins that are not a list of numbers
                (a string, or quoted numbers) or labels that are not a list.
        """
        if isinstance(raw, SubgroupColumn):
            return raw
        if isinstance(raw, str):
            return cls(raw)
        if isinstance(raw, Mapping):
            unknown = set(raw) - {"column", "bins", "labels"}
            if unknown:
                raise SpecError(
                    f"unknown subgroup key(s) {sorted(unknown)}; a subgroup entry has 'column' and optional 'bins' and 'labels'."
                )
            if "column" not in raw:
                raise SpecError(f"subgroup entry {dict(raw)} has no 'column'.")
            column = str(raw["column"])
            bins = _parse_bins(raw.get("bins"), column)
            labels = None
            if raw.get("labels") is not None:
                if isinstance(raw["labels"], str) or not isinstance(raw["labels"], Sequence):
                    raise SpecError(
                        f"the labels of subgroup {column!r} must be a list with one name per bin, got {raw['labels']!r}; "
                        "e.g. labels: [young, older]."
                    )
                labels = tuple(str(x) for x in raw["labels"])
            return cls(column, bins, labels)
        raise SpecError(f"a subgroup entry must be a column name or a mapping, got {raw!r}.")


def _parse_bins(raw: Any, column: str) -> tuple[float, ...] | None:
    if raw is None:
        return None
    example = "bins: [-.inf, 30, 60, .inf] (YAML writes infinity as .inf)"
    if isinstance(raw, (str, Mapping)) or not isinstance(raw, Sequence):
        raise SpecError(
            f"the bins of subgroup {column!r} must be a list of numbers, got {raw!r}; write e.g. {example}."
        )
    bad = [b for b in raw if isinstance(b, bool) or not isinstance(b, (int, float))]
    if bad:
        raise SpecError(
            f"the bins of subgroup {column!r} must be numbers, but {bad[:3]!r} "
            f"{'is a' if len(bad) == 1 else 'are'} {type(bad[0]).__name__}; write the edges unquoted, e.g. {example}."
        )
    if any(math.isnan(float(b)) for b in raw):
        raise SpecError(f"the bins of subgroup {column!r} contain NaN; write e.g. {example}.")
    return tuple(float(b) for b in raw)


# ---------------------------------------------------------------------------- the spec
@dataclass(frozen=True)
class DatasetSpec:
    """What a dataset means: target, sensitive attribute, subgroups, immutable features, kinds, graph.

    Every field is a key of the spec file (see :mod:`cffair.datasets` for the format).

    Attributes:
        name: short name (``"adult"``).
        target: the target column.
        target_kind: ``"binary"`` (labels 0/1) or ``"score"`` (a real number).
        sensitive: the sensitive attribute S (a feature column).
        features: every model input, in order, with its kind: ``continuous``, ``integer``
            (a count or whole number), ``binary`` (two categories), ``ordinal`` (ordered
            categories) or ``categorical`` (nominal). The sensitive attribute is one of them.
        subgroups: the columns (optionally binned) whose combinations form the subgroups
            of axioms A4_1..n and of the worst-subgroup CF-MSE.
        immutable: non-actionable features; counterfactual explanations that change them
            are "undesirable" (section 4.3).
        favourable: for a binary target, the label of the favourable outcome (Adult: 1,
            >50K; COMPAS: 0, no re-arrest).
        favourable_top_fraction: for a score target, the share of best scores counted as
            favourable when a binary outcome is needed (section 7.3: the best 40 %).
        graph: the causal graph: a packaged graph name, a path to a YAML graph file, or a
            mapping in that format (see :mod:`cffair.datasets._graph`).
        description: one line on where the data comes from.
    """

    name: str
    target: str
    target_kind: TargetKind
    sensitive: str
    features: Mapping[str, FeatureKind]
    subgroups: tuple[SubgroupColumn, ...] = ()
    immutable: tuple[str, ...] = ()
    favourable: int | None = 1
    favourable_top_fraction: float = 0.4
    graph: str | Mapping[str, Any] | None = None
    description: str = ""

    def __post_init__(self) -> None:
        for key in ("name", "target", "sensitive"):
            if not isinstance(getattr(self, key), str):
                value = getattr(self, key)
                yaml_word = (
                    " (YAML reads an unquoted null or ~ as nothing and true/false as booleans: quote a name spelled so)"
                    if value is None or isinstance(value, bool)
                    else ""
                )
                raise SpecError(f"'{key}' must be a column name (text), got {value!r}{yaml_word}.")
        check_target_kind(self.target_kind)
        if not isinstance(self.features, Mapping):
            raise SpecError(
                f"'features' must be a mapping {{column: kind}}, got {type(self.features).__name__} {self.features!r}; "
                "e.g. features: {age: integer, income: continuous, gender: binary}."
            )
        bad = {c: k for c, k in self.features.items() if not isinstance(k, str) or k not in FEATURE_KINDS}
        if bad:
            raise SpecError(f"unknown feature kind(s) {bad}; use one of {list(FEATURE_KINDS)}.")
        for key in ("immutable", "subgroups"):
            if isinstance(getattr(self, key), str):
                raise SpecError(
                    f"'{key}' must be a list, got the string {getattr(self, key)!r}; write [{getattr(self, key)}]."
                )
        if self.target in self.features:
            raise SpecError(f"the target {self.target!r} is also listed as a feature; remove it from 'features'.")
        if self.sensitive not in self.features:
            raise SpecError(
                f"the sensitive attribute {self.sensitive!r} must be one of the features {list(self.features)}."
            )
        if self.features[self.sensitive] not in CATEGORY_KINDS:
            raise SpecError(
                f"the sensitive attribute {self.sensitive!r} is {self.features[self.sensitive]}; "
                "it must be binary or categorical (bin a numeric attribute first)."
            )
        for col in self.immutable:
            if col not in self.features:
                raise SpecError(f"immutable feature {col!r} is not a feature; features are {list(self.features)}.")
        for sg in self.subgroups:
            if sg.column not in self.features:
                raise SpecError(f"subgroup column {sg.column!r} is not a feature; features are {list(self.features)}.")
            if sg.bins is not None and self.features[sg.column] not in NUMERIC_KINDS:
                raise SpecError(
                    f"subgroup {sg.column!r} has bins, but {sg.column!r} is {self.features[sg.column]}: bins split a "
                    "numeric (integer or continuous) column. Remove 'bins' and 'labels' to use its categories as "
                    "subgroups, or declare the column numeric."
                )
        if self.target_kind == "binary" and self.favourable not in (0, 1):
            raise SpecError(f"favourable must be 0 or 1 for a binary target, got {self.favourable!r}.")
        if isinstance(self.favourable_top_fraction, bool) or not isinstance(self.favourable_top_fraction, (int, float)):
            raise SpecError(
                f"favourable_top_fraction must be a number in (0, 1), got {self.favourable_top_fraction!r}."
            )
        if not 0 < self.favourable_top_fraction < 1:
            raise SpecError(f"favourable_top_fraction must lie in (0, 1), got {self.favourable_top_fraction}.")

    # -------------------------------------------------------------- views
    @property
    def feature_names(self) -> list[str]:
        """Model inputs in order."""
        return list(self.features)

    @property
    def columns(self) -> list[str]:
        """Features then target: the columns of a dataset frame."""
        return [*self.features, self.target]

    def kind(self, column: str) -> FeatureKind:
        """The kind of one feature."""
        try:
            return self.features[column]
        except KeyError:
            raise SpecError(
                f"{column!r} is not a feature of {self.name!r}; features are {list(self.features)}."
            ) from None

    def subgroup_labels(self, frame: pd.DataFrame) -> pd.Series:
        """Each row's subgroup as a readable label, e.g. ``"Male, White"``.

        With no subgroup columns, subgroups are the values of the sensitive attribute.

        Raises:
            DataError: if a binned column has a value outside every bin.
        """
        cols = self.subgroups or (SubgroupColumn(self.sensitive),)
        parts = [sg.values(frame) for sg in cols]
        label = parts[0]
        for p in parts[1:]:
            label = label + ", " + p
        return label.rename("subgroup")

    def favourable_mask(self, y: np.ndarray | pd.Series, threshold: float | None = None) -> np.ndarray:
        """Which outcomes are favourable: ``y == favourable`` for a binary target; for a score,
        ``y`` at or above ``threshold`` (default: the top ``favourable_top_fraction`` of ``y``)."""
        y = np.asarray(y, dtype=float)
        if self.target_kind == "binary":
            return y.round() == self.favourable
        if threshold is None:
            threshold = float(np.quantile(y, 1 - self.favourable_top_fraction))
        return y >= threshold

    def load_graph(self) -> CausalGraph:
        """The causal graph of this spec, checked against its features.

        Features the graph does not name are added as isolated roots, with a
        :class:`~cffair.errors.GraphWarning` naming them.

        Raises:
            SpecError: if the spec has no graph.
            GraphError: if the graph names the target or a column that is not a feature, or
                leaves out the sensitive attribute (see :meth:`CausalGraph.validate`).
        """
        # imported here: cffair.causal's package imports the flow machinery's light parts,
        # and cffair.causal._cfset imports cffair.datasets lazily (no cycle at import time)
        from cffair.datasets._graph import load_graph

        if self.graph is None:
            raise SpecError(
                f"dataset {self.name!r} has no causal graph; set 'graph' in its spec to a packaged name or a YAML file."
            )
        g = load_graph(self.graph)
        g.validate(self.features, target=self.target, sensitive=self.sensitive, stacklevel=3)
        return g.with_isolated(self.features)

    # -------------------------------------------------------------- (de)serialisation
    def to_dict(self) -> dict[str, Any]:
        """A plain mapping that :meth:`from_dict` reads back."""
        d = asdict(self)
        d["features"] = dict(self.features)
        d["subgroups"] = [
            sg.column
            if sg.bins is None
            else {"column": sg.column, "bins": list(sg.bins), **({"labels": list(sg.labels)} if sg.labels else {})}
            for sg in self.subgroups
        ]
        d["immutable"] = list(self.immutable)
        return d

    @classmethod
    def from_dict(cls, raw: Mapping[str, Any], frame: pd.DataFrame | None = None) -> DatasetSpec:
        """Build a spec from a mapping (e.g. parsed YAML; the keys of :mod:`cffair.datasets`).

        ``features`` may be omitted (or list only some columns, or give some kinds as ``null``)
        when ``frame`` is given: the kinds of the remaining columns are inferred from their values.

        Raises:
            SpecError: for unknown or missing keys and values of the wrong type, naming the key.
        """
        if not isinstance(raw, Mapping):
            raise SpecError(
                f"a spec must be a mapping (target, target_kind, sensitive, ...), got {type(raw).__name__}."
            )
        allowed = set(cls.__dataclass_fields__)
        unknown = set(raw) - allowed
        if unknown:
            raise SpecError(f"unknown spec key(s) {sorted(map(str, unknown))}; allowed keys are {sorted(allowed)}.")
        for key in ("target", "target_kind", "sensitive"):
            if key not in raw:
                raise SpecError(f"the spec has no {key!r}; it needs at least target, target_kind and sensitive.")
        features = _parse_features(raw.get("features"))
        if frame is not None:
            if not features:
                features = {c: None for c in frame.columns if c != raw["target"]}
            for col, kind in list(features.items()):
                if kind is None:
                    if col not in frame.columns:
                        raise DataError(missing_columns_message([col], frame))
                    features[col] = infer_kind(frame[col])
        missing_kinds = [c for c, k in features.items() if k is None]
        if missing_kinds:
            raise SpecError(
                f"no kind given for feature(s) {missing_kinds}; give kinds or pass the data so they can be inferred."
            )
        args = dict(raw)
        args["features"] = features
        subgroups = raw.get("subgroups")
        if isinstance(subgroups, (str, Mapping)):
            raise SpecError(
                f"'subgroups' must be a list (of column names or {{column, bins, labels}} entries), got {subgroups!r}; "
                "e.g. subgroups: [gender, {column: age, bins: [-.inf, 30, .inf], labels: [young, older]}]."
            )
        args["subgroups"] = tuple(SubgroupColumn.parse(s) for s in subgroups or ())
        args["immutable"] = _name_list(raw.get("immutable"), "immutable")
        args.setdefault("name", "custom")
        graph = args.get("graph")
        if graph is not None and not isinstance(graph, (str, Path, Mapping)):
            raise SpecError(
                f"'graph' must be a packaged graph name, a path to a YAML file or a mapping, got {graph!r}."
            )
        if isinstance(graph, Path):
            args["graph"] = str(graph)
        return cls(**args)


def _parse_features(raw: Any) -> dict[str, Any]:
    """``features`` as ``{column: kind or None}`` from a mapping, a list of names, or nothing."""
    if raw is None:
        return {}
    if isinstance(raw, Mapping):
        return {str(c): k for c, k in raw.items()}
    if isinstance(raw, str):
        raise SpecError(
            f"'features' must be a mapping {{column: kind}} or a list of column names, got the string {raw!r}. "
            "Write e.g. features: {age: integer, income: continuous} or features: [age, income] (kinds inferred)."
        )
    if isinstance(raw, Sequence):
        names = [str(c) for c in raw]
        dup = sorted({c for c in names if names.count(c) > 1})
        if dup:
            raise SpecError(f"'features' lists {dup} more than once; list each column once.")
        return {c: None for c in names}
    raise SpecError(
        f"'features' must be a mapping {{column: kind}} or a list of column names, got {type(raw).__name__} {raw!r}."
    )


class Dataset(NamedTuple):
    """A readable frame and its spec; unpacks as ``frame, spec = load("adult")``."""

    frame: pd.DataFrame
    spec: DatasetSpec


def infer_kind(col: pd.Series) -> FeatureKind:
    """Guess a feature kind from values: 2 values → binary; text → categorical;
    whole numbers → integer; other numbers → continuous."""
    values = col.dropna()
    if isinstance(col.dtype, pd.CategoricalDtype):
        if col.cat.ordered:
            return "ordinal"
        return "binary" if len(col.cat.categories) == 2 else "categorical"
    if values.nunique() == 2:
        return "binary"
    if not pd.api.types.is_numeric_dtype(values):
        return "categorical"
    v = values.to_numpy(dtype=float)
    v = v[np.isfinite(v)]  # infinities are reported by prepare(), with their row
    if np.allclose(v, np.round(v)):
        return "integer"
    return "continuous"


def missing_columns_message(missing: Sequence[str], frame: pd.DataFrame) -> str:
    """The message for spec columns that the data lacks."""
    return (
        f"column(s) {list(missing)} are named in the spec but missing from the data "
        f"(columns present: {list(frame.columns)}). Fix the names in the spec or add the columns."
    )


def read_spec(spec: Mapping[str, Any] | str | Path | DatasetSpec) -> Mapping[str, Any] | DatasetSpec:
    """A spec given as a mapping, a :class:`DatasetSpec`, or a YAML file path.

    A relative ``graph`` path in a spec file is read relative to the spec file's folder.

    Raises:
        SpecError: if the file is missing, not UTF-8, not valid YAML (with its line and
            column) or does not hold a mapping.
    """
    if isinstance(spec, (DatasetSpec, Mapping)):
        return spec
    path = Path(spec)
    data = load_yaml(path, what="spec file", error=SpecError)
    if not isinstance(data, Mapping):
        raise SpecError(
            f"spec file {path} must hold a mapping (target: ..., target_kind: ..., sensitive: ...), "
            f"got {'nothing' if data is None else type(data).__name__}; see cffair.datasets for the format."
        )
    if (
        isinstance(data.get("graph"), str)
        and not Path(data["graph"]).is_absolute()
        and (path.parent / data["graph"]).exists()
    ):
        data = {**data, "graph": str(path.parent / data["graph"])}
    return data


def with_spec(spec: DatasetSpec, **changes: Any) -> DatasetSpec:
    """A copy of ``spec`` with some fields changed (validated again)."""
    if "subgroups" in changes:
        changes["subgroups"] = tuple(SubgroupColumn.parse(s) for s in changes["subgroups"])
    return replace(spec, **changes)


def packaged_graph_names() -> list[str]:
    """Names of the causal graphs shipped with cffair."""
    folder = resources.files("cffair") / "data" / "graphs"
    return sorted(p.name.removesuffix(".yaml") for p in folder.iterdir() if p.name.endswith(".yaml"))
