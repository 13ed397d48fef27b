"""Checks that a counterfactual set belongs to the data it is used with; they raise or pass.

A counterfactual set names its factual rows by position (``row_id``), so a set paired with rows
other than those it was made from silently gives people someone else's counterfactuals. These
checks catch that and more, each with a one-line :class:`~cffair.errors.CounterfactualError`:

* :func:`check_rows`: an intervention on ``F`` changes ``F`` and what ``F`` causes, nothing else,
  so the columns of the features ``F`` does not cause must equal the factual rows the row ids
  name (permuted row ids, shuffled rows or reordered data fail);
* :func:`check_order`: the same for frames given in factual order without row ids (a warning
  when the spec has no causal graph to check against);
* :func:`check_intervened`: every counterfactual has another value of its intervened feature
  than its factual row (twins equal to the rows are no counterfactuals);
* :func:`check_parquet`: a file given as a counterfactual set is a parquet file at all (a CSV is
  named as one, not called corrupt);
* :func:`check_content`: a file written by :meth:`~cffair.causal.CounterfactualSet.save`
  still holds the rows whose hash it stores.

:func:`check_belongs` is the one check of a set brought to a command or an import against the
data and spec it is used with (``cffair train --counterfactuals``, ``cffair audit --twins``,
:meth:`~cffair.causal.CounterfactualSet.from_long`, :func:`cffair.evaluation.audit`): the
spec's feature columns, the stored data hash, the row ids' range and :func:`check_rows`.

They compare values and raise; they never change a set, hence ``FINGERPRINT_EXEMPT``.
"""

from __future__ import annotations

__all__ = [
    "RECONSTRUCTING_GENERATORS",
    "CounterfactualRows",
    "check_belongs",
    "check_content",
    "check_intervened",
    "check_order",
    "check_parquet",
    "check_rows",
]

import warnings
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol

import numpy as np
import pandas as pd

from cffair.errors import CounterfactualError, CounterfactualWarning

FINGERPRINT_EXEMPT = True  # checks that raise or pass: they change no number

#: Generators that reconstruct every column (a model's reconstruction, not an intervention that
#: copies the features it does not cause): :func:`check_rows` cannot check them.
RECONSTRUCTING_GENERATORS: frozenset[str] = frozenset({"gan", "dcevae"})


class CounterfactualRows(Protocol):
    """What the checks read of a counterfactual set (:class:`~cffair.causal.CounterfactualSet`
    has it): they depend on this shape, not on the class, so the two modules import one way."""

    @property
    def frame(self) -> pd.DataFrame: ...

    @property
    def meta(self) -> Mapping[str, Any]: ...

    @property
    def features(self) -> Sequence[str]: ...

    @property
    def data_columns(self) -> Sequence[str]: ...

    def check_data(self, factual: pd.DataFrame) -> None: ...


def _differs(a: pd.Series, b: pd.Series) -> np.ndarray:
    """Row-wise ``a != b``: labels exactly, numbers to a relative 1e-9 (a CSV round trip)."""
    numeric = pd.api.types.is_numeric_dtype(a) and pd.api.types.is_numeric_dtype(b)
    if isinstance(a.dtype, pd.CategoricalDtype) or isinstance(b.dtype, pd.CategoricalDtype) or not numeric:
        return np.asarray(a.astype(str).to_numpy() != b.astype(str).to_numpy(), dtype=bool)
    return ~np.isclose(a.to_numpy(dtype=np.float64), b.to_numpy(dtype=np.float64), rtol=1e-9, atol=1e-12)


def check_rows(cfs: CounterfactualRows, factual: pd.DataFrame, graph: Any) -> None:
    """Check that every counterfactual row of ``cfs`` belongs to the factual row its row id names.

    See :meth:`cffair.causal.CounterfactualSet.check_rows`.

    Raises:
        CounterfactualError: naming the first counterfactual row that disagrees, the column, both
            values, how many rows disagree and the fix; or for row ids beyond ``factual``.
    """
    frame = cfs.frame
    row_id = frame["row_id"].to_numpy(dtype=np.int64)
    if len(row_id) and (row_id.min() < 0 or row_id.max() >= len(factual)):
        raise CounterfactualError(
            f"counterfactual row ids reach {int(row_id.max())} but the factual frame has {len(factual)} rows; "
            "pass the same (whole) dataset frame the counterfactuals were generated from."
        )
    nodes = set(graph.nodes)
    for feature in cfs.features:
        if feature not in nodes:
            continue
        caused = set(graph.descendants(feature)) | {feature}
        kept = [c for c in cfs.data_columns if c in nodes and c not in caused and c in factual.columns]
        if not kept:
            continue  # the feature causes every other one: nothing to compare
        mask = (frame["feature"] == feature).to_numpy()
        sub, ids = frame.loc[mask], row_id[mask]
        fact = factual.iloc[ids]
        bad = np.zeros(len(sub), dtype=bool)
        first: tuple[int, str] | None = None
        for c in kept:
            diff = _differs(sub[c], fact[c])
            if diff.any() and first is None:
                first = (int(np.flatnonzero(diff)[0]), c)
            bad |= diff
        if first is not None:
            i, c = first
            pos = int(np.flatnonzero(mask)[i])
            raise CounterfactualError(
                f"counterfactual row {pos} (intervention on {feature!r}, row_id {int(ids[i])}) has {c} = "
                f"{sub[c].iloc[i]!r} but factual row {int(ids[i])} has {c} = {fact[c].iloc[i]!r}; an intervention on "
                f"{feature!r} cannot change {c!r}, which it does not cause, so the row ids do not point at the rows "
                f"these counterfactuals were made from ({int(bad.sum()):,} of {len(sub):,} rows disagree). Give each "
                "counterfactual the positional row id of its factual row, or regenerate the counterfactuals from this data."
            )


def check_intervened(cfs: CounterfactualRows, factual: pd.DataFrame, *, what: str = "the counterfactual set") -> None:
    """Check that every counterfactual row changed its intervened feature: ``x' in cf(x, F)`` has
    another value of ``F`` than ``x`` (a twin equal to its row in ``F`` is the row itself).

    Raises:
        CounterfactualError: naming the first row that keeps its factual value, how many do and the fix.
    """
    frame = cfs.frame
    for feature in cfs.features:
        mask = (frame["feature"] == feature).to_numpy()
        sub = frame.loc[mask]
        ids = sub["row_id"].to_numpy(dtype=np.int64)
        same = ~_differs(sub[feature].reset_index(drop=True), factual[feature].iloc[ids].reset_index(drop=True))
        if same.any():
            i = int(np.flatnonzero(same)[0])
            raise CounterfactualError(
                f"{what}: counterfactual row {int(np.flatnonzero(mask)[i])} keeps {feature} = {sub[feature].iloc[i]!r} "
                f"of factual row {int(ids[i])} ({int(same.sum()):,} of {len(sub):,} rows do), but a counterfactual of an "
                f"intervention on {feature!r} has another value of {feature!r}; return each row with {feature!r} "
                "changed and what it causes adjusted."
            )


def check_order(cfs: CounterfactualRows, factual: pd.DataFrame, spec: Any) -> None:
    """:func:`check_rows` with ``spec``'s causal graph for a set given in factual order without
    row ids; a :class:`~cffair.errors.CounterfactualWarning` when the spec has no graph."""
    if getattr(spec, "graph", None) is None:
        warnings.warn(
            f"the counterfactual rows are taken to be in the factual frame's order, but the spec {spec.name!r} has no "
            "causal graph to check that against (a counterfactual keeps the features its intervention does not cause); "
            "give row_id to say which factual row each counterfactual belongs to.",
            CounterfactualWarning,
            stacklevel=4,
        )
        return
    check_rows(cfs, factual, spec.load_graph())


def check_parquet(path: str | Path) -> None:
    """Refuse a file that is no parquet file at all (it lacks the ``PAR1`` mark at its start),
    saying what it looks like (a CSV, other text, nothing); a parquet file, whole or damaged, passes.

    Raises:
        CounterfactualError: naming the file, what it is and how counterfactual files are made.
    """
    with Path(path).open("rb") as fh:
        head = fh.read(512)
    if head.startswith(b"PAR1"):
        return
    try:
        first = head.decode("utf-8").splitlines()[0] if head.strip() else ""
    except UnicodeDecodeError:
        first = None
    if not head:
        looks = "it is empty"
    elif first is not None and any(sep in first for sep in (",", ";", "\t")):
        looks = f"it is text, a CSV file by its first line {first[:60]!r}"
    elif first is not None:
        looks = f"it is text (its first line: {first[:60]!r})"
    else:
        looks = "it does not start with the parquet mark PAR1"
    raise CounterfactualError(
        f"counterfactual file {path} is not a parquet file: {looks}. Counterfactual files are the parquet files "
        "`cffair counterfactuals generate --out FILE.parquet` writes; import counterfactuals from a CSV with "
        "CounterfactualSet.from_files(factual, path, spec)."
    )


def check_content(frame: pd.DataFrame, stored: bytes | None, path: str | Path) -> None:
    """Refuse a counterfactual file whose rows no longer hash to the content hash it stores
    (``None``: a file written before sets stored one, accepted)."""
    if stored is None:
        return
    from cffair._support.artefacts import content_hash

    if content_hash(frame) != stored.decode(errors="replace"):
        raise CounterfactualError(
            f"counterfactual file {path} was edited since it was written: its rows no longer match the content hash "
            "it stores (values changed, rows added or dropped, or row ids permuted), so row ids may name other people; "
            "generate the counterfactuals again (`cffair counterfactuals generate`), or import edited counterfactuals "
            "with CounterfactualSet.from_files, which checks them against the data."
        )


def check_belongs(cfs: CounterfactualRows, factual: pd.DataFrame, spec: Any) -> None:
    """Check that ``cfs`` holds counterfactuals of the rows of ``factual`` as ``spec`` reads them.

    The one check of a set brought from a file or from elsewhere (``cffair train
    --counterfactuals``, ``cffair audit --twins``, :func:`cffair.evaluation.audit`,
    :meth:`~cffair.causal.CounterfactualSet.from_long`), in this order, each failure one
    line with the fix:

    1. the set has every feature column of ``spec`` and intervenes only on its features (a set
       made for another dataset fails here, before anything reads its rows);
    2. its stored data hash, if any, is that of ``factual``
       (:meth:`~cffair.causal.CounterfactualSet.check_data`);
    3. its row ids lie in ``0..len(factual) - 1``;
    4. unless its generator reconstructs every column
       (:data:`RECONSTRUCTING_GENERATORS`, a GAN) or ``spec`` has no causal
       graph, every row belongs to the factual row its row id names (:func:`check_rows`):
       permuted row ids fail.

    Raises:
        CounterfactualError: naming what does not match and the fix.
    """
    features = list(spec.features)
    have = set(cfs.data_columns)
    missing = [c for c in features if c not in have]
    made = f" (made from {cfs.meta['dataset']!r})" if cfs.meta.get("dataset") else ""
    if missing:
        raise CounterfactualError(
            f"the counterfactual set{made} lacks the feature column(s) {missing[:6]} of the spec {spec.name!r}, so it "
            "was made for other data; generate counterfactuals of this data (`cffair counterfactuals generate`)."
        )
    foreign = [f for f in cfs.features if f not in set(features)]
    if foreign:
        raise CounterfactualError(
            f"the counterfactual set{made} intervenes on {foreign[:6]}, which are not features of the spec {spec.name!r} "
            f"({features[:8]}); generate counterfactuals of this data (`cffair counterfactuals generate`)."
        )
    cfs.check_data(factual)
    row_id = cfs.frame["row_id"].to_numpy(dtype=np.int64)
    if len(row_id) and (row_id.min() < 0 or row_id.max() >= len(factual)):
        raise CounterfactualError(
            f"counterfactual row ids reach {int(row_id.max() if row_id.max() >= len(factual) else row_id.min())} but "
            f"the factual frame has {len(factual)} rows (ids 0..{len(factual) - 1}); pass the same (whole) dataset "
            "frame the counterfactuals were generated from."
        )
    if cfs.meta.get("generator") not in RECONSTRUCTING_GENERATORS and getattr(spec, "graph", None) is not None:
        check_rows(cfs, factual, spec.load_graph())
