"""Validating a frame against its spec (:func:`prepare`), new rows against a fitted model's
(:func:`prepare_features`, by the same rules), and hashing a frame (:func:`frame_hash`)."""

from __future__ import annotations

__all__ = [
    "RowLocator",
    "frame_hash",
    "natural_key",
    "prepare",
    "prepare_features",
    "require_binary_sensitive",
    "row_locator",
]

import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from cffair.datasets._spec import NUMERIC_KINDS, DatasetSpec, missing_columns_message
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
    target int64 in {0, 1}, a score target float64. The features follow the rules that new
    rows follow too (:func:`prepare_features`).

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
    _check_complete(out, spec.columns, where)
    for col, kind in spec.features.items():
        out[col] = _feature(out[col], col, kind, where)
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


def prepare_features(
    frame: pd.DataFrame,
    features: Mapping[str, str],
    dtypes: Mapping[str, Any],
    *,
    where: RowLocator | None = None,
) -> pd.DataFrame:
    """New rows for a fitted model: the feature columns of ``frame``, validated by the rules
    :func:`prepare` applies to training rows, in the training rows' dtypes.

    The same rules as training: no missing or infinite value, no number beyond float32
    (:func:`cffair.datasets._checks.check_magnitudes`), numbers (not text, not ``True``/``False``) in a
    numeric feature, whole numbers in an integer one (``30.7`` is refused, not truncated), and in
    a category feature only the categories seen in training (as text: the label ``NA`` is a
    category like any other).

    Args:
        frame: the rows (other columns are ignored).
        features: feature → kind (:attr:`DatasetSpec.features`).
        dtypes: feature → dtype of the training rows (their categories, for category kinds).
        where: names a row by its position, for messages (default ``"row <index label>"``).

    Raises:
        DataError: for no rows, a missing column, or a value the rules refuse, naming the
            feature, the value, the first row and the fix.
    """
    where = where or row_locator(frame)
    if len(frame) == 0:
        raise DataError(
            f"there are no rows to answer for (the frame has the columns {list(frame.columns)[:8]} but no row); "
            "give at least one row."
        )
    missing = [c for c in features if c not in frame.columns]
    if missing:
        raise DataError(
            f"the rows lack the feature column(s) {missing}; they have {list(map(str, frame.columns))[:12]}. "
            "Give every feature of the spec (other columns, such as the target, are ignored)."
        )
    out = frame[list(features)].reset_index(drop=True)
    _check_complete(out, list(features), where)
    for col, kind in features.items():
        out[col] = _feature(out[col], col, kind, where, dtypes.get(col))
    return out


def _check_complete(out: pd.DataFrame, columns: Sequence[str], where: RowLocator) -> None:
    """Refuse a missing (NaN) or infinite value in ``columns``, naming the column and its first row."""
    nan_cols = {c: int(n) for c, n in out[list(columns)].isna().sum().items() if n}
    if nan_cols:
        first = "; ".join(f"in {c!r} at {where(int(np.flatnonzero(out[c].isna().to_numpy())[0]))}" for c in nan_cols)
        raise DataError(
            f"missing values (NaN) in column(s) {nan_cols} (the first {first}). cffair does not impute: "
            f"drop those rows (frame.dropna(subset={list(nan_cols)})) or fill them before loading."
        )
    for col in columns:
        s = out[col]
        if _is_number_column(s):
            inf = np.isinf(s.to_numpy(dtype=float))
            if inf.any():
                pos = int(np.flatnonzero(inf)[0])
                raise DataError(
                    f"column {col!r} has {int(inf.sum())} infinite value(s), the first ({s.iloc[pos]}) at {where(pos)}. "
                    "cffair cannot encode or model infinity: replace them with finite numbers or drop those rows."
                )


def _feature(s: pd.Series, col: str, kind: str, where: RowLocator, dtype: Any = None) -> Any:
    """One feature column in its canonical dtype (``dtype``: the training rows', for new rows)."""
    if kind in NUMERIC_KINDS:
        if not pd.api.types.is_numeric_dtype(s) or pd.api.types.is_bool_dtype(s):
            raise DataError(_not_numeric(s, col, kind, where, new=dtype is not None))
        from cffair.datasets._checks import check_magnitudes

        check_magnitudes(s.to_frame(col), [col], where)
        if kind == "integer":
            v = s.to_numpy(dtype=float)
            frac = ~np.isclose(v, np.round(v))
            if frac.any():
                pos = int(np.flatnonzero(frac)[0])
                fix = (
                    "the model was trained on whole numbers there: give whole numbers (it does not round them)"
                    if dtype is not None
                    else "declare it 'continuous'"
                )
                raise DataError(
                    f"feature {col!r} is declared integer but has fractional values (the first, {v[pos]}, "
                    f"at {where(pos)}); {fix}."
                )
            return np.round(v).astype("int64")
        return s.astype("float64")
    if isinstance(s.dtype, pd.CategoricalDtype):
        cats = [str(c) for c in s.cat.categories]
        s = s.astype(str)
    else:
        s = s.astype(str)
        cats = sorted(s.unique(), key=natural_key)
    if isinstance(dtype, pd.CategoricalDtype):  # new rows: the training categories
        known = [str(c) for c in dtype.categories]
        unknown = sorted(set(s.unique()) - set(known), key=natural_key)
        if unknown:
            pos = int(np.flatnonzero(~s.isin(known).to_numpy())[0])
            spaced = [u for u in unknown if u.strip() != u and u.strip() in known]
            why = (
                f"; {spaced[0]!r} differs from the category {spaced[0].strip()!r} only by spaces at its ends: strip them"
                if spaced
                else ""
            )
            raise DataError(
                f"feature {col!r} has value(s) {unknown[:5]} not seen in training (the first at {where(pos)}; "
                f"known: {known[:10]}{' ...' if len(known) > 10 else ''}){why}."
            )
        return pd.Categorical(s, categories=dtype.categories, ordered=dtype.ordered)
    if kind == "binary" and len(cats) != 2:
        what = "only one value" if len(cats) < 2 else f"{len(cats)} values {cats[:6]}"
        fix = "Declare it 'categorical'." if len(cats) > 2 else "Drop the constant column from the features."
        spaced = [c for c in cats if c.strip() != c and c.strip() in {d.strip() for d in cats if d != c}]
        if spaced:
            fix = (
                f"{spaced[0]!r} differs from {next(d for d in cats if d != spaced[0] and d.strip() == spaced[0].strip())!r} "
                "only by spaces at its ends: strip the spaces from the column's values."
            )
        raise DataError(f"feature {col!r} is declared binary but has {what}. {fix}")
    return pd.Categorical(s, categories=cats, ordered=(kind == "ordinal"))


#: A number written with a decimal comma (``3,5``, ``-1.234,5``).
_DECIMAL_COMMA = re.compile(r"^\s*[-+]?\d{1,3}(?:\.?\d{3})*,\d+\s*$")


def _not_numeric(s: pd.Series, col: str, kind: str, where: RowLocator, *, new: bool = False) -> str:
    """The message for a numeric feature holding text or booleans, with the likely fix (``new``:
    rows for a fitted model, whose spec is fixed)."""
    if pd.api.types.is_bool_dtype(s):
        return f"feature {col!r} is declared {kind} but holds True/False (the first at {where(0)}); " + (
            "the model takes numbers there: give numbers." if new else "declare it 'binary', or give numbers."
        )
    numbers = pd.to_numeric(s, errors="coerce")
    bad_mask = (numbers.isna() | s.map(lambda v: isinstance(v, (bool, np.bool_)))).to_numpy()
    if not bad_mask.any():
        return (
            f"feature {col!r} is declared {kind} but holds numbers stored as text (e.g. {s.iloc[0]!r} at {where(0)}); "
            "convert the column to numbers first (pd.to_numeric(frame[col]))."
        )
    pos = int(np.flatnonzero(bad_mask)[0])
    bad = s[bad_mask].unique()[:3].tolist()
    text = [str(v) for v in bad]
    if any(_DECIMAL_COMMA.match(t) for t in text):
        fix = "If the file writes decimals with a comma (3,5), read it with --decimal , (from_csv(..., decimal=','))."
    elif any(t != t.strip() and t.strip() for t in text):
        fix = "Strip the spaces around the numbers" + ("." if new else ", or declare it 'categorical'.")
    elif new:
        fix = "The model takes numbers there: clean the column."
    else:
        fix = "Declare it 'categorical' in the spec or clean the column."
    return f"feature {col!r} is declared {kind} but holds non-numeric values such as {bad} (the first at {where(pos)}). {fix}"


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
    from cffair._support.utils import stable_hash

    h = pd.util.hash_pandas_object(frame, index=True).to_numpy()
    return stable_hash(list(frame.columns), [str(t) for t in frame.dtypes], h.tobytes())
