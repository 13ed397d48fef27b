"""A user's own CSV file: :func:`from_csv`, with errors that name the file and line.

Before pandas parses the file, its header line is read with :mod:`csv` so that duplicated
column names are reported (pandas would silently rename the second ``income`` to
``income.1``). Errors about values name the CSV line (1-based, the header is line 1), found by
re-reading the file with :mod:`csv` only when an error is raised.
"""

from __future__ import annotations

__all__ = ["MISSING_MARKERS", "from_csv", "read_csv", "read_rows"]

import csv
import itertools
from collections.abc import Collection, Mapping
from pathlib import Path
from typing import Any

import pandas as pd

from cffair.datasets._frames import RowLocator, prepare
from cffair.datasets._spec import CATEGORY_KINDS, NUMERIC_KINDS, Dataset, DatasetSpec, read_spec
from cffair.errors import DataError

#: ``pandas.read_csv`` options that keep one CSV record per frame row after the header, so
#: that frame positions map to file lines. With any other option, rows are named by position.
_LINE_SAFE_OPTIONS = frozenset(
    {
        "encoding",
        "sep",
        "delimiter",
        "dtype",
        "na_values",
        "keep_default_na",
        "na_filter",
        "usecols",
        "quotechar",
        "low_memory",
        "thousands",
        "decimal",
        "true_values",
        "false_values",
        "engine",
    }
)


#: The texts pandas reads as a missing value by default (its ``na_values``). In a column the spec
#: declares a category kind only an empty field is missing: ``NA`` (North America, Namibia) or
#: ``None`` is a category there (:func:`read_csv`'s ``text_columns``).
#:
#: :meta hide-value:
MISSING_MARKERS: tuple[str, ...] = (
    "",
    "#N/A",
    "#N/A N/A",
    "#NA",
    "-1.#IND",
    "-1.#QNAN",
    "-NaN",
    "-nan",
    "1.#IND",
    "1.#QNAN",
    "<NA>",
    "N/A",
    "NA",
    "NULL",
    "NaN",
    "None",
    "n/a",
    "nan",
    "null",
)


def _encoding(kwargs: Mapping[str, Any]) -> str:
    enc = str(kwargs.get("encoding") or "utf-8")
    return "utf-8-sig" if enc.lower().replace("_", "-") in ("utf-8", "utf8") else enc


def _delimiter(kwargs: Mapping[str, Any]) -> str | None:
    sep = kwargs.get("sep", kwargs.get("delimiter", ","))
    return sep if isinstance(sep, str) and len(sep) == 1 else None


def _not_utf8(path: Path, encoding: str) -> DataError:
    """The error for bytes that do not decode, naming the line and column of the first one."""
    raw = path.read_bytes()
    try:
        raw.decode(encoding)
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        column = exc.start - (raw.rfind(b"\n", 0, exc.start) + 1) + 1
        return DataError(
            f"{path} is not {encoding.removesuffix('-sig').upper()} text: line {line}, byte {column} is 0x{raw[exc.start]:02x} "
            f"({exc.reason}). Save the file as UTF-8, or pass its encoding, e.g. from_csv(path, spec, encoding='latin-1')."
        )
    return DataError(f"{path} could not be decoded as {encoding}; save it as UTF-8.")


def _check_header(path: Path, kwargs: Mapping[str, Any]) -> None:
    """Raise for an empty file, a header that names a column twice, or the decimal mark used as the separator."""
    if kwargs.get("decimal") is not None and kwargs.get("decimal") == _delimiter(kwargs):
        raise DataError(
            f"{path} cannot be read with {kwargs['decimal']!r} as both the separator and the decimal mark; a CSV that "
            "writes 3,5 separates its columns with another character, e.g. --sep ';' --decimal , "
            "(from_csv(path, spec, sep=';', decimal=','))."
        )
    encoding, delimiter = _encoding(kwargs), _delimiter(kwargs)
    try:
        with path.open(encoding=encoding, newline="") as fh:
            if delimiter is None:
                header = None
                if not fh.read(4096).strip():
                    header = []
            else:
                reader = csv.reader(fh, delimiter=delimiter, quotechar=kwargs.get("quotechar", '"'))
                header = next((row for row in reader if row), [])
    except UnicodeDecodeError:
        raise _not_utf8(path, encoding) from None
    if header is not None and not any(h.strip() for h in header):
        raise DataError(f"{path} is empty: a CSV file needs a header line naming the columns, then one line per row.")
    if header is None or "names" in kwargs or kwargs.get("header", "infer") not in ("infer", 0):
        return
    positions: dict[str, list[int]] = {}
    for i, name in enumerate(header, start=1):
        positions.setdefault(name.strip(), []).append(i)
    dups = {name: cols for name, cols in positions.items() if len(cols) > 1}
    if dups:
        listed = "; ".join(f"{name!r} in columns {cols}" for name, cols in dups.items())
        raise DataError(
            f"the header of {path} (its first line) names a column more than once: {listed}. "
            f"pandas would silently rename the repeats (e.g. '{next(iter(dups))}.1'); rename or remove the duplicated columns."
        )


class _CsvLines:
    """Names frame row ``pos`` by its CSV line, re-reading the file only when asked."""

    def __init__(self, path: Path, kwargs: Mapping[str, Any]):
        self.path = path
        self.encoding = _encoding(kwargs)
        self.delimiter = _delimiter(kwargs)
        self.quotechar = kwargs.get("quotechar", '"')
        self.exact = self.delimiter is not None and set(kwargs) <= _LINE_SAFE_OPTIONS

    def line(self, pos: int) -> int | None:
        """1-based line on which data row ``pos`` starts (the header is the first non-blank line)."""
        if not self.exact:
            return None
        with self.path.open(encoding=self.encoding, newline="", errors="replace") as fh:
            reader = csv.reader(fh, delimiter=self.delimiter or ",", quotechar=self.quotechar)
            prev, k, seen_header = 0, -1, False
            for row in reader:
                start, prev = prev + 1, reader.line_num
                if not row:  # blank line: pandas skips it too
                    continue
                if not seen_header:
                    seen_header = True
                    continue
                k += 1
                if k == pos:
                    return start
        return None

    def __call__(self, pos: int) -> str:
        line = self.line(pos)
        return f"line {line} of {self.path}" if line is not None else f"data row {pos} (0-based) of {self.path}"


def _text_na(path: Path, kwargs: dict[str, Any], text_columns: Collection[str]) -> dict[str, Any]:
    """``kwargs`` with per-column missing-value texts: only an empty field in ``text_columns``,
    pandas' defaults (:data:`MISSING_MARKERS`) elsewhere; unchanged if the caller set its own."""
    if not text_columns or "na_values" in kwargs or "keep_default_na" in kwargs or "na_filter" in kwargs:
        return kwargs
    header = pd.read_csv(path, nrows=0, **kwargs).columns
    if not any(c in text_columns for c in header):
        return kwargs
    na = {c: [""] if c in text_columns else list(MISSING_MARKERS) for c in header}
    return {**kwargs, "keep_default_na": False, "na_values": na}


def _ragged(path: Path, frame: pd.DataFrame, kwargs: Mapping[str, Any], lines: _CsvLines) -> DataError | None:
    """The error for data lines with more fields than the header: pandas then silently takes the
    first column as the index and shifts every value one column to the left."""
    if isinstance(frame.index, pd.RangeIndex) or "index_col" in kwargs:
        return None
    header = len(frame.columns)
    line, fields = lines.line(0), header + 1
    if lines.delimiter is not None:
        with path.open(encoding=lines.encoding, newline="", errors="replace") as fh:
            rows = (r for r in csv.reader(fh, delimiter=lines.delimiter, quotechar=lines.quotechar) if r)
            first = next(itertools.islice(rows, 1, None), None)  # the first data line, after the header
        fields = len(first) if first is not None else fields
    where = f"line {line}" if line is not None else "the first data line"
    return DataError(
        f"{where} of {path} has {fields} fields but its header names {header} columns, so every value would shift "
        "one column: a value holds the separator unquoted, or the data lines end with a separator the header lacks. "
        "Quote that value or remove the stray separator."
    )


def read_csv(
    path: str | Path, *, text_columns: Collection[str] = (), **read_csv_kwargs: Any
) -> tuple[pd.DataFrame, RowLocator]:
    """Read a CSV file as pandas does, with clear errors, and a function naming each row's line.

    Args:
        path: the file.
        text_columns: columns whose values are labels (the spec's category kinds): there only
            an empty field is a missing value, and ``NA``, ``None`` or ``null`` are labels.
        read_csv_kwargs: options for :func:`pandas.read_csv`.

    Raises:
        DataError: naming the file (and line where there is one) for a missing or empty file,
            a header without data rows, duplicated column names, bytes that are not UTF-8 (or
            the given ``encoding``), a line pandas cannot parse, or data lines with more fields
            than the header (which pandas would read as shifted values).
    """
    path = Path(path)
    if not path.is_file():
        raise DataError(f"data file {path} does not exist." if not path.exists() else f"{path} is not a file.")
    _check_header(path, read_csv_kwargs)
    try:
        options = _text_na(path, dict(read_csv_kwargs), text_columns)
        frame = pd.read_csv(path, **options)
    except UnicodeDecodeError:
        raise _not_utf8(path, _encoding(read_csv_kwargs)) from None
    except pd.errors.EmptyDataError:
        raise DataError(
            f"{path} is empty: a CSV file needs a header line naming the columns, then one line per row."
        ) from None
    except pd.errors.ParserError as exc:
        raise DataError(
            f"{path} is not a well-formed CSV file: {str(exc).strip()}. Fix that line (a stray delimiter or quote)."
        ) from None
    if len(frame) == 0:
        raise DataError(
            f"{path} has a header ({len(frame.columns)} columns: {list(frame.columns)[:8]}) but no data rows; "
            "add one line per row after the header."
        )
    lines = _CsvLines(path, read_csv_kwargs)
    ragged = _ragged(path, frame, read_csv_kwargs, lines)
    if ragged is not None:
        raise ragged
    return frame, lines


def read_rows(
    path: str | Path, features: Mapping[str, Any] | None = None, **read_csv_kwargs: Any
) -> tuple[pd.DataFrame, RowLocator, str, bool]:
    """Read a CSV of rows as cffair reads every CSV: training data (:func:`from_csv`) and new
    rows for a model (``cffair predict``, ``cffair twins``) alike.

    The separator is sniffed from the header line unless ``sep`` is given
    (:func:`cffair.datasets._checks.csv_options`); ``decimal=","`` reads ``3,5`` as three and a half; in a
    column that ``features`` declares a category kind only an empty field is missing, so that a
    category spelled ``NA`` stays one (:func:`read_csv`).

    Args:
        path: the CSV file.
        features: feature → kind (``None`` where inferred), or nothing.
        read_csv_kwargs: options for :func:`pandas.read_csv`.

    Returns:
        The frame, a function naming each row's line, the separator used and whether it was sniffed.

    Raises:
        DataError: as :func:`read_csv`.
    """
    from cffair.datasets import _checks as checks

    options, sep, sniffed = checks.csv_options(path, read_csv_kwargs)
    text = [c for c, k in (features or {}).items() if k in CATEGORY_KINDS]
    frame, where = read_csv(path, text_columns=text, **options)
    return frame, where, sep, sniffed


def from_csv(path: str | Path, spec: Mapping[str, Any] | str | Path | DatasetSpec, **read_csv_kwargs: Any) -> Dataset:
    """Load a user's own CSV with a spec (a mapping, a YAML spec file, or a :class:`DatasetSpec`).

    The spec file format is documented in :mod:`cffair.datasets`; ``features`` may be left out
    to use every other column with inferred kinds. ``read_csv_kwargs`` go to
    :func:`pandas.read_csv` (e.g. ``sep=";"``, ``encoding="latin-1"``).

    The file is read by :func:`read_rows` (the separator sniffed from the header line unless
    ``sep`` is given; ``decimal=","`` for ``3,5``; ``NA`` a label in a category column, which is
    warned about: :func:`cffair.datasets._checks.warn_missing_labels`). The same validation as the built-in datasets applies,
    plus the checks of :mod:`cffair.datasets._checks` (spec columns against the header, naming the
    separator; a pandas index column ``Unnamed: 0`` as a feature; numbers beyond float32;
    one-hot groups, warned about), and the causal graph is checked against the spec (acyclic,
    nodes are features, target outside, sensitive attribute inside and a root; a warning names
    features the graph leaves out).

    Raises:
        SpecError: for a malformed spec (file, YAML line, key).
        DataError: for a malformed file or values, naming the file, column and line.
        GraphError: for a graph that does not fit the spec.
    """
    from cffair.datasets import _checks as checks

    raw = read_spec(spec)
    kinds = raw.features if isinstance(raw, DatasetSpec) else raw.get("features")
    frame, where, sep, sniffed = read_rows(path, kinds if isinstance(kinds, Mapping) else None, **read_csv_kwargs)
    checks.check_csv_columns(path, frame, raw.to_dict() if isinstance(raw, DatasetSpec) else raw, sep, sniffed)
    ds_spec = raw if isinstance(raw, DatasetSpec) else DatasetSpec.from_dict(raw, frame=frame)
    checks.check_magnitudes(
        frame, [c for c in ds_spec.columns if ds_spec.features.get(c, "continuous") in NUMERIC_KINDS], where
    )
    prepared = prepare(frame, ds_spec, where=where)
    checks.warn_onehot_groups(prepared, ds_spec, str(path))
    categories = {c: k for c, k in ds_spec.features.items() if k in CATEGORY_KINDS}
    checks.warn_missing_labels(prepared, categories, str(path), MISSING_MARKERS)
    if ds_spec.graph is not None:
        ds_spec.load_graph()
    return Dataset(prepared, ds_spec)
