"""Predictions made elsewhere, matched to the rows they were made for by identity, not by position.

An audit (:mod:`cffair.evaluation._audit`) compares a model's output for each person with its output for the
person's twin. Predictions made outside cffair come as tables, and a table whose rows are taken
to be in the data's order scores the wrong people as soon as that order is lost (a shuffled or
sorted file, a database export): in one trial a shuffled predictions file moved the CF-MSE from
0.075 to 0.333 with no error. So a prediction is joined to its row by a key, and a table without
one is accepted only where its order is established:

* **By row id** (always sound): the factual predictions have a column ``row_id``, the 0-based
  position of each prediction's row in the data; the twins' predictions have the twins file's key
  columns, ``row_id`` and as many of ``feature``, ``value`` and ``sample`` as it takes to name one
  twin each (:data:`TWIN_KEYS`). The table may be in any order; every row must have exactly one
  prediction (a missing, repeated or unknown key is refused, naming the first).
* **By position, with a stored hash** (single-column files only): :func:`save_predictions` writes
  the predictions as one column and beside them a small JSON file (``<file>.rows.json``,
  :data:`SIDECAR`) holding a hash of the rows they were made for, in that order
  (:func:`rows_hash`), and the SHA-256 of the predictions file. Reading checks both: the data
  must still hash to the stored value (not reordered or edited since), and the file must be
  byte for byte the one written (not shuffled or edited since).
* **Refused otherwise**: a file with more than one column and no ``row_id`` (nothing says which
  column is the key), and a single-column file without its stored hash (nothing says its rows
  are the data's rows in order). The error says how to fix it: add a ``row_id`` column.

Arrays and single-column frames handed to the Python functions directly are taken to be in the
rows' order (the caller made them, as :func:`cffair.evaluation.audit` does); a frame with more than
one column needs its key columns there too.
"""

from __future__ import annotations

__all__ = ["ROW_ID", "SIDECAR", "TWIN_KEYS", "align", "factual_keys", "rows_hash", "save_predictions"]

import hashlib
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from cffair.errors import DataError

FINGERPRINT_EXEMPT = True  # aligns predictions a user brings to an audit; no reproduction record runs it

#: The key of a factual prediction: the 0-based position of its row in the data.
ROW_ID = "row_id"
#: The key columns of a twin's prediction, those of the twins file (``row_id`` is required, the
#: others as far as needed to name one twin each).
TWIN_KEYS: tuple[str, ...] = ("row_id", "feature", "value", "sample")
#: What :func:`save_predictions` appends to a predictions file's name for the file of its hashes.
SIDECAR = ".rows.json"
#: Key columns holding whole numbers (the others are labels, compared as text).
_WHOLE = ("row_id", "sample")


def rows_hash(rows: pd.DataFrame, features: Sequence[str]) -> str:
    """The hash of ``rows``' ``features`` columns (values, dtypes, names; index ignored), in the
    rows' order and in the columns' sorted order (two specs may list the features differently).

    Reordering or editing a row changes it.
    """
    from cffair._support.artefacts import content_hash

    return content_hash(rows[sorted(features)])


def factual_keys(n: int) -> pd.DataFrame:
    """The keys of ``n`` factual rows: ``row_id`` 0..n − 1."""
    return pd.DataFrame({ROW_ID: np.arange(n, dtype=np.int64)})


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _sidecar(path: Path) -> Path:
    return path.with_name(path.name + SIDECAR)


def save_predictions(
    path: str | Path, values: Any, rows: pd.DataFrame, features: Sequence[str], column: str = "d"
) -> Path:
    """Write predictions made for ``rows`` (in their order) as a one-column CSV that an audit can
    read by position: beside it, ``<path>.rows.json`` stores :func:`rows_hash` of ``rows`` and the
    SHA-256 of the CSV (:data:`SIDECAR`).

    Args:
        path: the CSV to write.
        values: one prediction per row of ``rows``.
        rows: the rows the predictions were made for, in order: the data frame for the factual
            predictions (column ``d``), the twins file's frame for the twins' (column ``d_cf``).
        features: the spec's feature columns (what is hashed).
        column: the CSV's column name.

    Returns:
        The path written.

    Raises:
        DataError: for a number of values other than the number of rows.
    """
    from cffair._support.utils import atomic_path

    v = np.asarray(values, dtype=np.float64).ravel()
    if len(v) != len(rows):
        raise DataError(f"{len(v)} predictions for {len(rows)} rows; give one prediction per row, in the rows' order.")
    path = Path(path)
    with atomic_path(path) as tmp:
        pd.DataFrame({column: v}).to_csv(tmp, index=False)
    info = {"column": column, "n_rows": len(v), "rows": rows_hash(rows, features), "file_sha256": _sha256(path)}
    with atomic_path(_sidecar(path)) as tmp:
        tmp.write_text(json.dumps(info, indent=2) + "\n", encoding="utf-8")
    return path


def _read(path: Path, what: str) -> pd.DataFrame:
    """A CSV read as text (keys and labels exactly as written; numbers converted by the caller)."""
    try:
        return pd.read_csv(path, dtype=str, keep_default_na=False)
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError, ValueError) as exc:
        raise DataError(f"{what} {path}: not a readable CSV ({str(exc).splitlines()[0][:160]}).") from None


def _numbers(col: pd.Series, name: str, where: str) -> np.ndarray:
    if col.dtype.kind in "iuf":
        return col.to_numpy(dtype=np.float64)
    text = col.astype(str).str.strip()
    out = pd.to_numeric(text, errors="coerce").to_numpy(dtype=np.float64)
    bad = np.isnan(out) & ~text.str.lower().isin(["nan"]).to_numpy()
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise DataError(
            f"{where}: column {name!r} holds {int(bad.sum())} value(s) that are not numbers (first {text.iloc[i]!r} "
            f"on line {i + 2}); write one number per row."
        )
    return out


def _key_frame(frame: pd.DataFrame, names: Sequence[str], where: str) -> pd.DataFrame:
    """The key columns as whole numbers (``row_id``, ``sample``) or text (labels)."""
    out = {}
    for k in names:
        if k in _WHOLE:
            v = _numbers(frame[k], k, where)
            if not np.isfinite(v).all() or (v != np.round(v)).any():
                i = int(np.flatnonzero(~np.isfinite(v) | (v != np.round(v)))[0])
                raise DataError(
                    f"{where}: {k!r} must hold whole numbers (positions counted from 0), got {frame[k].iloc[i]!r} "
                    f"on line {i + 2}."
                )
            out[k] = v.astype(np.int64)
        else:
            out[k] = frame[k].astype(str).to_numpy(dtype=object)
    return pd.DataFrame(out)


def _show(key: pd.Series) -> str:
    return ", ".join(f"{k} {v!r}" if isinstance(v, str) else f"{k} {v}" for k, v in key.items())


def align(
    source: Any,
    keys: pd.DataFrame,
    rows: pd.DataFrame,
    features: Sequence[str],
    *,
    column: str,
    what: str,
    fix: str,
) -> np.ndarray:
    """The predictions of ``source`` in the order of ``keys``' rows, joined by identity.

    Args:
        source: a CSV path (``str`` or :class:`~pathlib.Path`), a frame or an array. A file or a
            frame with a ``row_id`` column is joined on the key columns it has (of ``keys``'
            columns); without one, a frame or file must be the single column ``column``: a
            frame (or an array) is taken to be in ``keys``' order, a file only with the hashes
            :func:`save_predictions` stores beside it, checked against ``rows`` and the file.
        keys: one row per row to predict, in the order wanted: ``row_id`` (factual rows,
            :func:`factual_keys`) or the twins file's :data:`TWIN_KEYS`.
        rows: the rows predicted, in ``keys``' order (for a positional file's stored hash).
        features: the spec's feature columns (what the stored hash covers).
        column: the column of the predictions (``d`` or ``d_cf``).
        what: the predictions in words, for messages ("the predictions for the data rows").
        fix: the key to add, in words, for the message that refuses a table without one.

    Returns:
        One float per row of ``keys`` (not yet checked to be finite or in range).

    Raises:
        DataError: one line naming what is wrong and the fix: no column ``column``; several
            columns but no ``row_id``; a single-column file without its stored hash, or whose
            data or file changed since; a key missing, repeated or unknown; keys that do not
            name one row each.
    """
    path: Path | None = None
    if isinstance(source, (str, Path)):
        path = Path(source)
        table = _read(path, what)
        where = str(path)
    elif isinstance(source, pd.DataFrame):
        table, where = source.reset_index(drop=True), what
    else:
        return np.asarray(source, dtype=np.float64)
    if column not in table.columns:
        raise DataError(
            f"{where} has no column {column!r} (it has {list(table.columns)[:8]}); {what} go in {column!r}."
        )
    if ROW_ID not in table.columns:
        others = [c for c in table.columns if c != column]
        if others:
            raise DataError(
                f"{where} has the column(s) {others[:6]} beside {column!r} but no {ROW_ID!r}, so nothing says which row "
                f"each prediction belongs to; {fix}."
            )
        values = _numbers(table[column], column, where)
        if path is not None:
            _check_stored(path, len(values), rows, features, where, fix)
        return values
    names = [k for k in keys.columns if k in table.columns]
    return _join(table, keys, names, column, where, fix)


def _check_stored(path: Path, n: int, rows: pd.DataFrame, features: Sequence[str], where: str, fix: str) -> None:
    """A positional file's stored hashes: the rows it was made for and the file itself."""
    side = _sidecar(path)
    if not side.is_file():
        raise DataError(
            f"{where} holds one column of predictions without row ids, so nothing establishes which row each "
            f"prediction belongs to (a shuffled or sorted file would score other people's twins); {fix} (or write it "
            "with cffair.evaluation.save_predictions, which stores the hash of the rows beside it)."
        )
    try:
        info = json.loads(side.read_text(encoding="utf-8"))
        stored_rows, stored_file, stored_n = str(info["rows"]), str(info["file_sha256"]), int(info["n_rows"])
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise DataError(f"{side}: unreadable stored hashes ({type(exc).__name__}); {fix}.") from None
    if _sha256(path) != stored_file:
        raise DataError(
            f"{where} changed since its row hash was stored in {side.name} (rows reordered, edited, added or removed), "
            f"so its positions no longer name the rows; {fix}."
        )
    if stored_n != len(rows) or n != len(rows) or rows_hash(rows, features) != stored_rows:
        raise DataError(
            f"{where} was made for other rows than these ({stored_n:,} rows hashing to {stored_rows}; these are "
            f"{len(rows):,} hashing to {rows_hash(rows, features)}): the data was reordered, edited or is another "
            f"data set; predict these rows again, or {fix}."
        )


def _join(table: pd.DataFrame, keys: pd.DataFrame, names: list[str], column: str, where: str, fix: str) -> np.ndarray:
    """``table[column]`` in the order of ``keys``, joined on ``names`` (one-to-one, complete)."""
    target = _key_frame(keys, names, "the rows to audit")
    dup = target.duplicated(keep=False)
    if dup.any():
        first = target[dup].iloc[0]
        missing = [k for k in keys.columns if k not in names]
        raise DataError(
            f"{where} is keyed by {names}, which does not name one row each ({int(dup.sum()):,} rows share a key, e.g. "
            f"{_show(first)}); add the key column(s) {missing} of the rows it was made for."
        )
    given = _key_frame(table, names, where)
    again = given.duplicated(keep=False)
    if again.any():
        i = int(np.flatnonzero(again.to_numpy())[0])
        raise DataError(
            f"{where} gives {int(again.sum()):,} predictions for repeated keys (first {_show(given.iloc[i])} on line "
            f"{i + 2}); give exactly one prediction per row."
        )
    values = _numbers(table[column], column, where)
    merged = target.assign(_pos=np.arange(len(target))).merge(
        given.assign(_value=values, _line=np.arange(len(given)) + 2), on=names, how="outer", indicator=True
    )
    unknown = merged[merged["_merge"] == "right_only"]
    if len(unknown):
        first = unknown.sort_values("_line").iloc[0]
        ids = target[ROW_ID]
        raise DataError(
            f"{where} has {len(unknown):,} prediction(s) for rows that are not among the {len(target):,} rows audited "
            f"(first {_show(first[names])} on line {int(first['_line'])}); each key {names} must name a row audited "
            f"(row ids {int(ids.min())}..{int(ids.max())}: positions in the data, counted from 0)."
        )
    absent = merged[merged["_merge"] == "left_only"]
    if len(absent):
        first = absent.sort_values("_pos").iloc[0]
        raise DataError(
            f"{where} has no prediction for {len(absent):,} of the {len(target):,} rows audited (first "
            f"{_show(first[names])}); give one prediction per row."
        )
    return merged.sort_values("_pos")["_value"].to_numpy(dtype=np.float64)
