"""Checks of a user's files that only refuse or warn: YAML keys, CSV dialect and columns, values.

Each function here looks at an input and either returns it unchanged (or says how it is to be
read: :func:`csv_options` sniffs the separator) or raises a
:class:`~cffair.errors.CffairError` subclass, or warns with a
:class:`~cffair.errors.CffairWarning` subclass, whose one-line message says what is wrong,
where (file, line, column, row) and how to fix it. None of them changes a value that reaches a
model (the separator :func:`csv_options` sniffs decides which rows are read, and the rows
enter a result record through its data hash), which is why this module is exempt from the
records' code fingerprint.

* YAML that refuses a key given twice in one mapping (YAML itself keeps the last one silently:
  ``sensitive`` twice, a feature listed twice with two kinds) now lives in the support part:
  :func:`cffair._support.yaml_files.safe_load_unique`.
* :func:`csv_options`: the CSV's separator, sniffed from its header line when not given.
* :func:`check_csv_columns`: the spec's columns against the CSV's header (naming the
  separator used and the one the header suggests), and pandas index columns (``Unnamed: 0``)
  that would become model inputs.
* :func:`check_magnitudes`: numbers too large to compute with, named with their row and column.
* :func:`warn_onehot_groups`: groups of binary features that are the one-hot columns of one
  categorical variable.
* :func:`warn_missing_labels`: category labels that pandas would read as missing values
  (``NA``, ``None``, ``null``), kept as categories.
* unquoted YAML words (``no``, ``on``, ``null``) that YAML turns into booleans or nothing where a
  spec or graph file names a column or value: :func:`cffair._support.yaml_files.check_plain_words`.
"""

from __future__ import annotations

__all__ = [
    "ABSURD_MAGNITUDE",
    "SNIFFED_SEPARATORS",
    "check_csv_columns",
    "check_magnitudes",
    "csv_options",
    "index_columns",
    "onehot_groups",
    "warn_missing_labels",
    "warn_onehot_groups",
]

import csv
import re
import warnings
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from cffair.errors import DataError, DataWarning
from cffair.errors import YamlContentError as YamlContentError  # its home is cffair.errors; importable here

# Refuses or warns about inputs. The one choice it makes, a CSV's separator, decides which rows
# are read, and those rows enter a record through its data hash, not through this code.
FINGERPRINT_EXEMPT = True

#: Separators :func:`csv_options` considers (a comma is the default when in doubt).
SNIFFED_SEPARATORS: tuple[str, ...] = (",", ";", "\t", "|")

#: Largest magnitude a number may have: float32's maximum, since the encoder, the flow and the
#: models compute in float32 (a larger value becomes infinity there).
ABSURD_MAGNITUDE = float(np.finfo(np.float32).max)

_INDEX_COLUMN = re.compile(r"^Unnamed: \d+$")
_SEP_NAMES = {",": "comma", ";": "semicolon", "\t": "tab", "|": "pipe", " ": "space"}


# ---------------------------------------------------------------------------- CSV dialect
def _header_and_sample(path: Path, encoding: str, lines: int = 21) -> list[str]:
    out: list[str] = []
    try:
        with path.open(encoding=encoding, newline="", errors="replace") as fh:
            for line in fh:
                if line.strip():
                    out.append(line)
                if len(out) >= lines:
                    break
    except OSError:
        return []
    return out


def _fields(line: str, sep: str) -> int:
    return len(next(csv.reader([line], delimiter=sep), []))


def sniff_separator(path: str | Path, encoding: str = "utf-8-sig") -> str | None:
    """The separator of :data:`SNIFFED_SEPARATORS` that splits the header line into the most
    columns, with (at least 80 % of) the first 20 data lines splitting into as many; the first
    in that order wins a tie, so a comma does when it does as well as any. ``None`` when no
    separator splits the header (a one-column file)."""
    sample = _header_and_sample(Path(path), encoding)
    if not sample:
        return None
    best, best_n = None, 1
    for sep in SNIFFED_SEPARATORS:
        n = _fields(sample[0], sep)
        consistent = sum(_fields(line, sep) == n for line in sample[1:]) >= 0.8 * (len(sample) - 1)
        if n > best_n and consistent:
            best, best_n = sep, n
    return best


def csv_options(path: str | Path, read_csv_kwargs: Mapping[str, Any]) -> tuple[dict[str, Any], str, bool]:
    """The options to read ``path`` with: ``read_csv_kwargs`` plus the sniffed ``sep`` when
    none is given; with the separator used and whether it was sniffed."""
    kwargs = dict(read_csv_kwargs)
    given = kwargs.get("sep", kwargs.get("delimiter"))
    if given is not None:
        return kwargs, str(given), False
    enc = str(kwargs.get("encoding") or "utf-8")
    enc = "utf-8-sig" if enc.lower().replace("_", "-") in ("utf-8", "utf8") else enc
    sniffed = sniff_separator(path, enc)
    if sniffed is None or sniffed == ",":
        return kwargs, ",", False
    kwargs["sep"] = sniffed
    return kwargs, sniffed, True


def _sep_words(sep: str) -> str:
    return f"{sep!r} ({_SEP_NAMES[sep]})" if sep in _SEP_NAMES else repr(sep)


def _spec_columns(raw: Mapping[str, Any]) -> list[str]:
    """The columns a spec mapping reads from the data: target, sensitive attribute and features
    (``immutable`` and ``subgroups`` name features; a name that is not one is the spec's error)."""
    names: list[str] = []
    for key in ("target", "sensitive"):
        if isinstance(raw.get(key), str):
            names.append(raw[key])
    features = raw.get("features")
    if isinstance(features, Mapping) or isinstance(features, Sequence) and not isinstance(features, str):
        names += [str(c) for c in features]
    return list(dict.fromkeys(names))


def index_columns(columns: Sequence[Any]) -> list[str]:
    """Columns named like the index ``DataFrame.to_csv`` writes (``Unnamed: 0``)."""
    return [str(c) for c in columns if _INDEX_COLUMN.match(str(c))]


def check_csv_columns(path: str | Path, frame: pd.DataFrame, raw: Mapping[str, Any], sep: str, sniffed: bool) -> None:
    """The columns a spec names against a CSV's header, before the spec is built.

    Raises:
        DataError: for columns the spec names that the header lacks (naming the separator the
            file was read with and the one its header suggests), or for a pandas index column
            (``Unnamed: 0``) that would become a feature (features inferred, or listed).
    """
    path = Path(path)
    columns = [str(c) for c in frame.columns]
    how = f"separator {_sep_words(sep)}" + (", sniffed from its header line" if sniffed else "")
    missing = [c for c in _spec_columns(raw) if c not in columns]
    if missing:
        header = (_header_and_sample(path, "utf-8-sig", 1) or [""])[0]
        others = sorted(
            (s for s in SNIFFED_SEPARATORS if s != sep and _fields(header, s) > len(columns)),
            key=lambda s: -_fields(header, s),
        )
        hint = (
            f" Its header line splits at {_sep_words(others[0])} into {_fields(header, others[0])} columns: if that is the "
            f"separator, give --sep {_SEP_NAMES.get(others[0], others[0])} (from_csv(path, spec, sep={others[0]!r}))."
            if others
            else " Fix the names in the spec or add the columns."
        )
        raise DataError(
            f"column(s) {missing} are named in the spec but missing from {path}, read with the {how} into "
            f"{len(columns)} column(s): {columns[:10]}{' ...' if len(columns) > 10 else ''}.{hint}"
        )
    index = index_columns(columns)
    features = raw.get("features")
    if isinstance(features, Mapping) or (isinstance(features, Sequence) and not isinstance(features, str)):
        index = [c for c in index if c in [str(f) for f in features]]
    elif features is not None:
        index = []
    if index:
        position = columns.index(index[0]) + 1
        raise DataError(
            f"column {index[0]!r} of {path} (column {position}, with an empty name in the header) is the row index that "
            f"pandas' DataFrame.to_csv() writes, and it would become a model input. Write the file with "
            f"to_csv(path, index=False), drop that column, or list the features in the spec."
        )


# ---------------------------------------------------------------------------- values
def check_magnitudes(frame: pd.DataFrame, columns: Sequence[str], where: Callable[[int], str] | None = None) -> None:
    """Refuse numbers in ``columns`` too large to compute with (beyond :data:`ABSURD_MAGNITUDE`).

    Raises:
        DataError: naming the column, the value and its row (``where(position)``).
    """
    for col in columns:
        s = frame[col]
        if not pd.api.types.is_numeric_dtype(s) or pd.api.types.is_bool_dtype(s):
            continue
        v = np.abs(s.to_numpy(dtype=float))
        big = np.isfinite(v) & (v > ABSURD_MAGNITUDE)  # NaN and infinity are reported by prepare()
        if big.any():
            pos = int(np.flatnonzero(big)[0])
            at = where(pos) if where is not None else f"row {pos}"
            raise DataError(
                f"column {col!r} holds {int(big.sum())} value(s) too large to compute with, the first ({s.iloc[pos]:g}) at {at}; "
                f"cffair computes in float32, whose largest number is {ABSURD_MAGNITUDE:.3g}. Fix or drop that row "
                "(a unit mix-up or a missing-value code such as 1e308?)."
            )


_PREFIX = re.compile(r"^(.+?)([_\-=.:])([^_\-=.:]+)$")


def onehot_groups(frame: pd.DataFrame, columns: Sequence[str]) -> dict[tuple[str, str], list[str]]:
    """Groups of 0/1 ``columns`` sharing a prefix (``color_red``, ``color_blue``) whose values
    sum to exactly 1 in every row: the one-hot columns of one categorical variable, keyed by
    (prefix, the character that ends it)."""
    by_prefix: dict[tuple[str, str], list[str]] = {}
    for col in columns:
        m = _PREFIX.match(str(col))
        if m:
            by_prefix.setdefault((m.group(1), m.group(2)), []).append(col)
    out: dict[tuple[str, str], list[str]] = {}
    for prefix, cols in by_prefix.items():
        if len(cols) < 2:
            continue
        block = []
        for c in cols:
            values = pd.to_numeric(frame[c].astype(str), errors="coerce").to_numpy(dtype=float)
            if np.isnan(values).any() or not np.isin(values, (0.0, 1.0)).all():
                break
            block.append(values)
        else:
            if np.all(np.sum(block, axis=0) == 1):
                out[prefix] = list(cols)
    return out


def warn_onehot_groups(
    frame: pd.DataFrame, spec: Any, source: str, *, stacklevel: int = 3
) -> dict[tuple[str, str], list[str]]:
    """Warn (:class:`~cffair.errors.DataWarning`) about one-hot groups among the spec's binary features.

    Returns:
        The groups found, ``{(prefix, separator): columns}``.
    """
    binary = [c for c, k in spec.features.items() if k == "binary"]
    groups = onehot_groups(frame, binary)
    for (prefix, sep), cols in groups.items():
        call = f"{prefix!r}" + (f", sep={sep!r}" if sep != "_" else "")
        shown = cols if len(cols) <= 6 else [*cols[:6], f"... ({len(cols)} in all)"]
        warnings.warn(
            f"the binary features {shown} of {source} look like the one-hot columns of one categorical variable {prefix!r} "
            "(every row has exactly one 1): as separate features, counterfactuals flip them independently, into rows with "
            f"no or two categories. Decode them into one column first, e.g. frame[{prefix!r}] = "
            f"cffair.datasets.decode_onehot(frame, {call}), drop the {len(cols)} columns, and declare {prefix!r} categorical.",
            DataWarning,
            stacklevel=stacklevel,
        )
    return groups


def warn_missing_labels(
    frame: pd.DataFrame, features: Mapping[str, str], source: str, markers: Sequence[str], *, stacklevel: int = 3
) -> dict[str, list[str]]:
    """Warn (:class:`~cffair.errors.DataWarning`) about labels of category features that pandas
    would read as a missing value (``markers``: ``NA``, ``None``, ``null``, ...).

    :func:`cffair.datasets.from_csv` keeps them as categories (a region ``NA``, North America,
    is one); the warning says so, for a file that writes missing values that way.

    Args:
        frame: the prepared rows.
        features: the category features to look at, with their kinds.
        source: the file, for the message.
        markers: the texts pandas reads as missing.

    Returns:
        Feature → the labels warned about.
    """
    found: dict[str, list[str]] = {}
    for col, kind in features.items():
        values = frame[col].astype(str)
        labels = [m for m in markers if m and (values == m).any()]
        if not labels:
            continue
        found[col] = labels
        n = int(values.isin(labels).sum())
        warnings.warn(
            f"the {kind} feature {col!r} of {source} holds the label(s) {labels} in {n:,} row(s), kept as categories "
            f"of their own (only an empty field is a missing value in a category column); if they mark missing "
            "values, drop or fill those rows first (cffair does not impute).",
            DataWarning,
            stacklevel=stacklevel,
        )
    return found
