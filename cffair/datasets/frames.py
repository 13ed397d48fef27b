"""Validating a frame against its spec (:func:`prepare`) and hashing it (:func:`frame_hash`)."""

from __future__ import annotations

__all__ = ["RowLocator", "frame_hash", "natural_key", "prepare", "require_binary_sensitive", "row_locator"]

from collections.abc import Callable

import numpy as np
import pandas as pd

from cffair.datasets.spec import NUMERIC_KINDS, DatasetSpec, missing_columns_message
from cffair.errors import DataError

#: Describes where a row came from, by its position in the frame: ``"row 4"`` for a frame,
#: ``"line 6 of loans.csv"`` for a CSV file (see :func:`cffair.datasets.from_csv`).
RowLocator = Callable[[int], str]


def row_locator(frame: pd.DataFrame) -> RowLocator:
    """Rows named by their index label (``"row 4"``)."""
    index = frame.index
    return lambda pos: f"row {index[pos]}"


def _is_number_column(s: pd.Series) -> bool:
    return (
        pd.api.types.is_numeric_dtype(s)
        and not pd.api.types.is_bool_dtype(s)
        and not isinstance(s.dtype, pd.CategoricalDtype)
    )


def prepare(frame: pd.DataFrame, spec: DatasetSpec, *, where: RowLocator | None = None) -> pd.DataFrame:
    """Validate ``frame`` against ``spec`` and return it with canonical dtypes and column order.

    Canonical dtypes: category kinds become pandas categoricals with string categories
    (ordered for ``ordinal``), ``integer`` becomes int64, ``continuous`` float64, a binary
    target int64 in {0, 1}, a score target float64.

    Args:
        frame: the data, one column per feature and the target (other columns are dropped).
        spec: what the columns mean.
        where: names a row by its position, for messages (default ``"row <index label>"``;
            :func:`~cffair.datasets.from_csv` passes CSV line numbers).

    Raises:
        DataError: naming the column, the first offending row and what to do, for a missing
            column, a missing value (NaN), an infinite value, a target of the wrong kind, a
            binary feature with more than two values, a numeric feature with text in it, an
            integer feature with fractions, or a value outside every subgroup bin.
    """
    where = where or row_locator(frame)
    missing = [c for c in spec.columns if c not in frame.columns]
    if missing:
        raise DataError(missing_columns_message(missing, frame))
    out = frame[spec.columns].copy()
    nan_cols = {c: int(n) for c, n in out.isna().sum().items() if n}
    if nan_cols:
        first = "; ".join(f"in {c!r} at {where(int(np.flatnonzero(out[c].isna().to_numpy())[0]))}" for c in nan_cols)
        raise DataError(
            f"missing values (NaN) in column(s) {nan_cols} (the first {first}). cffair does not impute: "
            f"drop those rows (frame.dropna(subset={list(nan_cols)})) or fill them before loading."
        )
    for col in spec.columns:
        s = out[col]
        if _is_number_column(s):
            inf = np.isinf(s.to_numpy(dtype=float))
            if inf.any():
                pos = int(np.flatnonzero(inf)[0])
                raise DataError(
                    f"column {col!r} has {int(inf.sum())} infinite value(s), the first ({s.iloc[pos]}) at {where(pos)}. "
                    "cffair cannot encode or model infinity: replace them with finite numbers or drop those rows."
                )
    for col, kind in spec.features.items():
        s = out[col]
        if kind in NUMERIC_KINDS:
            if not pd.api.types.is_numeric_dtype(s) or pd.api.types.is_bool_dtype(s):
                bad_mask = pd.to_numeric(s, errors="coerce").isna().to_numpy()
                bad = s[bad_mask].unique()[:3].tolist()
                raise DataError(
                    f"feature {col!r} is declared {kind} but holds non-numeric values such as {bad} "
                    f"(the first at {where(int(np.flatnonzero(bad_mask)[0]))}). "
                    "Declare it 'categorical' in the spec or clean the column."
                )
            if kind == "integer":
                v = s.to_numpy(dtype=float)
                frac = ~np.isclose(v, np.round(v))
                if frac.any():
                    pos = int(np.flatnonzero(frac)[0])
                    raise DataError(
                        f"feature {col!r} is declared integer but has fractional values (the first, {v[pos]}, "
                        f"at {where(pos)}); declare it 'continuous'."
                    )
                out[col] = np.round(v).astype("int64")
            else:
                out[col] = s.astype("float64")
        else:
            if isinstance(s.dtype, pd.CategoricalDtype):
                cats = [str(c) for c in s.cat.categories]
                s = s.astype(str)
            else:
                s = s.astype(str)
                cats = sorted(s.unique(), key=natural_key)
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
            raise DataError(
                f"target {spec.target!r} is declared score but is not numeric; declare target_kind: binary or convert it."
            )
        if y.nunique() <= 2:
            raise DataError(
                f"target {spec.target!r} is declared score but has only {y.nunique()} distinct values; declare target_kind: binary."
            )
        out[spec.target] = y.astype("float64")
    if out[spec.sensitive].nunique() < 2:
        raise DataError(
            f"the sensitive attribute {spec.sensitive!r} has a single value; counterfactual fairness needs at least two."
        )
    for sg in spec.subgroups:
        sg.check_covers(out[sg.column], where)
    return out.reset_index(drop=True)


def require_binary_sensitive(frame: pd.DataFrame, spec: DatasetSpec, method: str = "this method") -> None:
    """Raise a clear error if the sensitive attribute is not binary (some baselines need it)."""
    col = frame[spec.sensitive]
    values = list(col.cat.categories) if isinstance(col.dtype, pd.CategoricalDtype) else sorted(col.unique())
    if len(values) != 2:
        raise DataError(
            f"{method} needs a binary sensitive attribute, but {spec.sensitive!r} has {len(values)} values {values[:8]}. "
            "Merge its values into two groups (e.g. 'White' / 'Non-White') in the frame before fitting."
        )


def natural_key(s: str) -> tuple[int, float, str]:
    """Sort key putting number-like labels first, in numeric order (``"2" < "10" < "a"``)."""
    try:
        return (0, float(s), s)
    except ValueError:
        return (1, 0.0, s)


def frame_hash(frame: pd.DataFrame) -> str:
    """A stable hash of a frame's values, dtypes and column names (for caches and records)."""
    from cffair.utils import stable_hash

    h = pd.util.hash_pandas_object(frame, index=True).to_numpy()
    return stable_hash(list(frame.columns), [str(t) for t in frame.dtypes], h.tobytes())
