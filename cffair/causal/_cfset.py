"""Counterfactual sets: the interface between counterfactual generators and learners.

The paper's method (sections 4.1-4.3, 6.2) only *consumes* counterfactuals
``x' in cf(x, F)``: for every factual row ``x`` and every intervened feature ``F`` a set of
counterfactual rows. Any generator (the causal normalising flow of
:mod:`cffair.causal._flow`, a GAN, a file made elsewhere) hands its output over as a
:class:`CounterfactualSet`, a long-format frame in readable data space:

======== ======= ===========================================================
column   dtype   meaning
======== ======= ===========================================================
row_id   int64   positional index of the factual row in the dataset frame
feature  str     the intervened feature ``F``
value    str     label of the intervention value (``"Female"``, ``"p50=37"``)
sample   int64   sample index when a generator draws several ``x'`` per ``(x, F, v)``
...      as data every feature of the spec, with the dataset frame's dtypes/categories
======== ======= ===========================================================

Learners turn it into aligned, encoded ``(x, x')`` pairs with :meth:`CounterfactualSet.pairs`
(the diagonal pairs of axiom A4, section 4.2).

Row ids are positions in the factual frame, so a set only makes sense with the exact frame it
was generated from. A set that stores ``meta["data_hash"]`` (every set made by
:func:`cffair.causal.generate`) is checked against the frame it is paired with: a CSV edited
or reordered since generation raises a :class:`~cffair.errors.CounterfactualError` instead of
silently pairing rows with other people's counterfactuals. Sets imported from elsewhere carry
no hash; their row ids are checked to be in range, and :meth:`CounterfactualSet.check_rows`
checks that they point at the right rows: a counterfactual ``x' in cf(x, F)`` keeps the value of
every feature that ``F`` does not cause (not ``F``, not a descendant of ``F`` in the causal graph),
so those columns of the set must equal the factual rows the row ids name. Files read with
:meth:`~CounterfactualSet.from_files`, frames given in factual order without row ids
(:meth:`~CounterfactualSet.from_frames`) and files passed to the command line are checked so.
A file written by :meth:`~CounterfactualSet.save` also stores a hash of its content, and
:meth:`~CounterfactualSet.load` refuses a file whose rows were edited since (for instance
permuted row ids).
"""

from __future__ import annotations

__all__ = ["CONTENT_KEY", "INDEX_COLUMNS", "META_KEY", "RECONSTRUCTING_GENERATORS", "CFPairs", "CounterfactualSet"]

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from cffair._support.utils import json_default
from cffair._support.validation import check_vector
from cffair.causal._integrity import RECONSTRUCTING_GENERATORS
from cffair.errors import CounterfactualError

#: Key of the JSON metadata in the parquet schema.
META_KEY = b"cffair.meta"
#: Key of the hash of the set's rows (:func:`cffair._support.artefacts.content_hash`) in the parquet schema.
CONTENT_KEY = b"cffair.content"
#: The leading columns of the long format.
INDEX_COLUMNS: tuple[str, ...] = ("row_id", "feature", "value", "sample")


@dataclass
class CFPairs:
    """Diagonal ``(x, x')`` pairs, already encoded (axiom A4's ``diag(x, x')``, section 4.2).

    Attributes:
        row_id: int64 ``(n_pairs,)``, positional index into the factual dataset frame.
        x: float32 ``(n_pairs, d)``, encoded factual rows (repeated when a row has several x').
        x_cf: float32 ``(n_pairs, d)``, encoded counterfactual rows.
        feature: str ``(n_pairs,)``, the intervened feature.
        value: str ``(n_pairs,)``, label of the intervention value.
    """

    row_id: np.ndarray
    x: np.ndarray
    x_cf: np.ndarray
    feature: np.ndarray
    value: np.ndarray

    def __len__(self) -> int:
        return int(self.row_id.shape[0])


def _normalise_meta(meta: Mapping[str, Any] | None) -> dict[str, Any]:
    """Meta as it reads back from JSON (tuples become lists), so that save/load is exact."""
    try:
        return json.loads(json.dumps(dict(meta or {}), sort_keys=True, default=json_default))
    except TypeError as exc:
        raise CounterfactualError(f"counterfactual-set metadata must be JSON-serialisable: {exc}") from None


class CounterfactualSet:
    """Counterfactual rows ``x' in cf(x, F)`` in long format (paper sections 4.2, 4.3, 6.2).

    Args:
        frame: the long-format frame (see the module docstring). Use :meth:`from_frames` or
            :meth:`from_long` to build one from outside data with validation.
        meta: JSON-serialisable provenance: ``generator``, ``config``, ``data_hash``, ``seed``,
            ``dataset``, ``cffair_version`` and anything else useful.
    """

    def __init__(self, frame: pd.DataFrame, meta: Mapping[str, Any] | None = None):
        missing = [c for c in INDEX_COLUMNS if c not in frame.columns]
        if missing:
            raise CounterfactualError(
                f"a counterfactual-set frame needs the columns {list(INDEX_COLUMNS)} first; {missing} are missing. "
                "Build it with CounterfactualSet.from_frames or from_long."
            )
        self.frame = frame
        self.meta = _normalise_meta(meta)

    # ------------------------------------------------------------------ views
    def __len__(self) -> int:
        return len(self.frame)

    def __repr__(self) -> str:
        feats = self.features
        return (
            f"CounterfactualSet({len(self):,} rows, {self.frame['row_id'].nunique():,} factual rows, "
            f"features={feats}, generator={self.meta.get('generator')!r})"
        )

    @property
    def features(self) -> list[str]:
        """The intervened features, in order of first appearance."""
        return list(dict.fromkeys(self.frame["feature"].tolist()))

    @property
    def data_columns(self) -> list[str]:
        """The feature columns (readable data space), after the four index columns."""
        return [c for c in self.frame.columns if c not in INDEX_COLUMNS]

    def values(self, feature: str) -> list[str]:
        """The intervention value labels used for ``feature``, in order of first appearance."""
        self._check_feature(feature)
        vals = self.frame.loc[self.frame["feature"] == feature, "value"]
        return list(dict.fromkeys(vals.tolist()))

    # ------------------------------------------------------------------ persistence
    def save(self, path: str | Path) -> None:
        """Write parquet with ``meta`` in the schema metadata, atomically (never half-written)."""
        import pyarrow as pa
        import pyarrow.parquet as pq

        from cffair._support.artefacts import content_hash
        from cffair._support.utils import atomic_path

        table = pa.Table.from_pandas(self.frame, preserve_index=False)
        metadata = dict(table.schema.metadata or {})
        metadata[META_KEY] = json.dumps(self.meta, sort_keys=True).encode()
        metadata[CONTENT_KEY] = content_hash(self.frame).encode()
        table = table.replace_schema_metadata(metadata)
        with atomic_path(path) as tmp:
            pq.write_table(table, tmp)

    @classmethod
    def load(cls, path: str | Path) -> CounterfactualSet:
        """Read a set written by :meth:`save` (frame and meta come back identical).

        Parquet holds data only, so reading runs no code from the file. The rows are checked
        against the content hash :meth:`save` stored: a file edited since (values changed, rows
        dropped, row ids permuted) is refused.

        Raises:
            CounterfactualError: if the file does not exist, is not a counterfactual set, is
                damaged, or was edited since it was written.
        """
        import pyarrow.parquet as pq

        path = Path(path)
        if not path.is_file():
            raise CounterfactualError(
                f"counterfactual file {path} does not exist; generate it with `cffair counterfactuals generate`."
            )
        from cffair.causal._integrity import check_parquet

        check_parquet(path)  # a CSV or text given as a counterfactual file: said so, not "corrupt"
        try:
            table = pq.read_table(path)
        except Exception as exc:  # pyarrow raises ArrowInvalid, OSError or others for a damaged file
            raise CounterfactualError(
                f"counterfactual file {path} is not a readable parquet file ({type(exc).__name__}: {str(exc)[:200]}); "
                "it is truncated or corrupt. Delete it and generate the counterfactuals again."
            ) from None
        raw = (table.schema.metadata or {}).get(META_KEY)
        if raw is None:
            raise CounterfactualError(
                f"{path} is a parquet file without cffair metadata; it was not written by CounterfactualSet.save. "
                "Import outside counterfactuals with CounterfactualSet.from_long or from_frames."
            )
        try:
            meta = json.loads(raw)
            frame = table.to_pandas()
        except Exception as exc:
            raise CounterfactualError(
                f"counterfactual file {path} has unreadable content ({type(exc).__name__}: {str(exc)[:200]}); "
                "delete it and generate the counterfactuals again."
            ) from None
        from cffair.causal._integrity import check_content

        check_content(frame, (table.schema.metadata or {}).get(CONTENT_KEY), path)
        if not isinstance(meta, dict):
            raise CounterfactualError(
                f"counterfactual file {path} has metadata that is not a JSON object; generate it again."
            )
        return cls(frame, meta)

    # ------------------------------------------------------------------ selection
    def select(
        self,
        feature: str | Iterable[str] | None = None,
        value: str | Iterable[str] | None = None,
        rows: np.ndarray | Iterable[int] | None = None,
    ) -> CounterfactualSet:
        """The subset for some features, value labels and/or factual row ids (positional).

        Row order is kept; the index is reset. ``meta`` is shared (copied).
        """
        mask = np.ones(len(self.frame), dtype=bool)
        if feature is not None:
            feats = [feature] if isinstance(feature, str) else list(feature)
            for f in feats:
                self._check_feature(f)
            mask &= self.frame["feature"].isin(feats).to_numpy()
        if value is not None:
            vals = [value] if isinstance(value, str) else [str(v) for v in value]
            mask &= self.frame["value"].isin(vals).to_numpy()
        if rows is not None:
            r = np.asarray(list(rows) if not isinstance(rows, np.ndarray) else rows, dtype=np.int64)
            mask &= np.isin(self.frame["row_id"].to_numpy(), r)
        return CounterfactualSet(self.frame.loc[mask].reset_index(drop=True), dict(self.meta))

    def check_data(self, factual: pd.DataFrame) -> None:
        """Check that ``factual`` is the frame these counterfactuals were generated from.

        The set's ``meta["data_hash"]`` (written by :func:`cffair.causal.generate`: the
        :func:`cffair.datasets.frame_hash` of the factual feature columns) must equal the hash
        of ``factual``'s same columns. A set without a stored hash (made elsewhere, or by a
        baseline) is accepted as it is.

        Raises:
            CounterfactualError: naming both hashes and the fix, if the data differ (rows
                reordered, added, removed or edited since generation), or if ``factual`` lacks a
                feature column of the set.
        """
        stored = self.meta.get("data_hash")
        if stored is None:
            return
        from cffair.datasets import frame_hash  # cffair.datasets imports cffair.causal lazily too

        cols = self.data_columns
        missing = [c for c in cols if c not in factual.columns]
        if missing:
            raise CounterfactualError(
                f"the factual frame lacks the feature column(s) {missing} of the counterfactual set; "
                "pass the dataset frame the counterfactuals were generated from."
            )
        actual = frame_hash(factual[cols])
        if actual == stored or (
            not isinstance(factual.index, pd.RangeIndex) and frame_hash(factual[cols].reset_index(drop=True)) == stored
        ):
            return
        made = ", ".join(f"{k} {self.meta[k]!r}" for k in ("generator", "dataset") if self.meta.get(k) is not None)
        raise CounterfactualError(
            f"these counterfactuals were generated from different data: their metadata stores the data hash {stored}"
            f"{f' ({made})' if made else ''}, but the frame they are paired with ({len(factual):,} rows) hashes to {actual}. "
            "The data changed since generation (rows reordered, added, removed or edited), so row ids would pair people "
            "with someone else's counterfactuals. Regenerate the counterfactuals from this data (cffair.causal.generate "
            "or `cffair counterfactuals generate`); only if you are sure the rows still line up, pass check_data=False."
        )

    def check_rows(self, factual: pd.DataFrame, graph: Any) -> None:
        """Check that every counterfactual row belongs to the factual row its row id names.

        An intervention on ``F`` changes ``F`` and what ``F`` causes, nothing else: a
        counterfactual ``x' in cf(x, F)`` keeps ``x``'s value of every feature that is neither
        ``F`` nor a descendant of ``F`` in ``graph``. Those columns of the set must therefore equal
        the factual rows its row ids point at; a set with permuted row ids, or paired with
        reordered data, fails. Numeric values are compared to a relative 1e-9 (a CSV round trip),
        category labels exactly. A feature that causes every other one leaves nothing to compare.

        Args:
            factual: the dataset frame the row ids point into (positional).
            graph: the :class:`~cffair.datasets._graph.CausalGraph` of the data.

        Raises:
            CounterfactualError: naming the first counterfactual row that disagrees, the column,
                both values, how many rows disagree and the fix; or for row ids beyond ``factual``.
        """
        from cffair.causal._integrity import check_rows

        check_rows(self, factual, graph)

    def pairs(
        self,
        factual: pd.DataFrame,
        encoder: Any,
        feature: str,
        rows: np.ndarray | None = None,
        *,
        check_data: bool = True,
    ) -> CFPairs:
        """Aligned, encoded diagonal pairs ``(x, x')`` for one intervened feature (axiom A4).

        Args:
            factual: the dataset frame the row ids point into (positional).
            encoder: a fitted :class:`cffair.datasets._encoding.Encoder` (``transform(frame)``).
            feature: the intervened feature ``F``.
            rows: optional positional row ids (e.g. a training fold) to keep.
            check_data: compare the stored data hash with ``factual`` (:meth:`check_data`);
                ``False`` skips that check (row ids are still checked to be in range).

        Raises:
            CounterfactualError: for an unknown feature, row ids beyond ``factual``, or a
                frame other than the one the set was generated from.
        """
        if check_data:
            self.check_data(factual)
        sub = self.select(feature=feature, rows=rows).frame
        row_id = sub["row_id"].to_numpy(dtype=np.int64)
        if len(row_id) and (row_id.min() < 0 or row_id.max() >= len(factual)):
            raise CounterfactualError(
                f"counterfactual row ids reach {int(row_id.max())} but the factual frame has {len(factual)} rows; "
                "pass the same (whole) dataset frame the counterfactuals were generated from."
            )
        feats = list(encoder.spec.features)
        x = encoder.transform(factual.iloc[row_id][feats].reset_index(drop=True)).astype(np.float32, copy=False)
        x_cf = encoder.transform(sub[feats]).astype(np.float32, copy=False)
        return CFPairs(
            row_id=row_id,
            x=x,
            x_cf=x_cf,
            feature=sub["feature"].to_numpy(dtype=str),
            value=sub["value"].to_numpy(dtype=str),
        )

    def _check_feature(self, feature: str) -> None:
        if feature not in set(self.frame["feature"].unique()):
            raise CounterfactualError(
                f"the counterfactual set has no interventions on {feature!r}; it has {self.features}. "
                "Generate them with interventions='all' or add that feature."
            )

    # ------------------------------------------------------------------ import
    @classmethod
    def from_frames(
        cls,
        factual: pd.DataFrame,
        counterfactual: pd.DataFrame,
        spec: Any,
        feature: str,
        value: str | Iterable[str] | None = None,
        row_id: np.ndarray | Iterable[int] | None = None,
        *,
        sample: np.ndarray | Iterable[int] | None = None,
        meta: Mapping[str, Any] | None = None,
    ) -> CounterfactualSet:
        """Import counterfactuals made by any method as a factual/counterfactual pair of frames.

        Args:
            factual: the dataset frame (as returned by :func:`~cffair.datasets.load`); its dtypes
                and categories are what the counterfactual columns are checked against.
            counterfactual: one counterfactual per row, in the same order as ``factual``
                (or with a ``row_id`` column / argument saying which factual row each belongs to).
                Needs every feature column of ``spec``; extra columns are ignored.
            spec: the :class:`~cffair.datasets.DatasetSpec`.
            feature: the intervened feature ``F``.
            value: the intervention's value label(s); default: each row's value of ``feature``.
            row_id: positional factual row ids; default ``counterfactual['row_id']`` if present,
                else ``0..n-1`` (then the lengths must match).
            sample: sample indices; default 0 (or ``counterfactual['sample']``).
            meta: provenance (``generator`` defaults to ``"external"``).

        Without row ids the rows are taken to be in ``factual``'s order, and that is checked
        (:meth:`check_rows`, with ``spec``'s causal graph): shuffled rows are refused. A spec
        without a graph leaves nothing to check the order against, which is warned about
        (:class:`~cffair.errors.CounterfactualWarning`; give ``row_id`` to silence it).

        Raises:
            CounterfactualError: for a missing column, a length mismatch, an unknown category,
                a NaN, a non-whole integer value, row ids out of range, or rows given in factual
                order that are not (see :meth:`check_rows`), naming the fix.
        """
        if feature not in spec.features:
            raise CounterfactualError(
                f"intervened feature {feature!r} is not a feature of {spec.name!r}; features are {list(spec.features)}."
            )
        cf = counterfactual.reset_index(drop=True)
        n = len(cf)
        if row_id is None and "row_id" in cf.columns:
            row_id = cf["row_id"].to_numpy()
        if row_id is None:
            if n != len(factual):
                raise CounterfactualError(
                    f"length mismatch: the counterfactual frame has {n} rows but the factual frame has {len(factual)}. "
                    "Give one counterfactual per factual row in the same order, or a 'row_id' column saying which "
                    "factual row (positional index) each counterfactual belongs to."
                )
            ids = np.arange(n, dtype=np.int64)
        else:
            ids = _as_row_ids(row_id, n, len(factual))
        if sample is None:
            samples = cf["sample"].to_numpy() if "sample" in cf.columns else np.zeros(n, dtype=np.int64)
        else:
            samples = np.asarray(list(sample) if not isinstance(sample, np.ndarray) else sample)
            if samples.shape != (n,):
                raise CounterfactualError(
                    f"'sample' has {samples.shape[0] if samples.ndim else 1} entries but there are {n} counterfactual rows."
                )
        data = _conform(cf, factual, spec, what="counterfactual frame")
        if value is None:
            values = data[feature].astype(str).to_numpy()
        elif isinstance(value, str):
            values = np.full(n, value, dtype=object)
        else:
            values = np.asarray([str(v) for v in value], dtype=object)
            if values.shape != (n,):
                raise CounterfactualError(f"'value' has {len(values)} labels but there are {n} counterfactual rows.")
        head = pd.DataFrame(
            {
                "row_id": ids.astype(np.int64),
                "feature": pd.array([feature] * n, dtype="str"),
                "value": pd.array(values.tolist(), dtype="str"),
                "sample": np.asarray(samples, dtype=np.int64),
            }
        )
        frame = pd.concat([head, data], axis=1)
        info = {"generator": "external", **dict(meta or {})}
        out = cls(frame, info)
        if row_id is None:
            out._check_order(factual, spec)
        return out

    def _check_order(self, factual: pd.DataFrame, spec: Any) -> None:
        """:meth:`check_rows` with ``spec``'s graph, or a warning when the spec has none."""
        from cffair.causal._integrity import check_order

        check_order(self, factual, spec)

    @classmethod
    def from_long(
        cls,
        long: pd.DataFrame,
        factual: pd.DataFrame,
        spec: Any,
        meta: Mapping[str, Any] | None = None,
    ) -> CounterfactualSet:
        """Import a long-format frame made by any other method (columns as in the module docstring;
        ``sample`` may be omitted and defaults to 0), validated against ``factual`` and ``spec``
        by the check ``cffair train --counterfactuals`` applies
        (:func:`cffair.causal._integrity.check_belongs`): with a causal graph in ``spec``, every
        row must belong to the factual row its row id names, so permuted row ids are refused.

        Raises:
            CounterfactualError: as :meth:`from_frames`, plus unknown intervened features and rows
                that do not belong to the factual rows their row ids name.
        """
        need = ["row_id", "feature", "value"]
        missing = [c for c in need if c not in long.columns]
        if missing:
            raise CounterfactualError(
                f"the long-format counterfactual frame misses the column(s) {missing}; it needs "
                f"{list(INDEX_COLUMNS)} (sample optional) and every feature column {list(spec.features)}."
            )
        long = long.reset_index(drop=True)
        unknown = sorted(set(long["feature"].astype(str)) - set(spec.features))
        if unknown:
            raise CounterfactualError(
                f"'feature' names {unknown}, which are not features of {spec.name!r} ({list(spec.features)})."
            )
        if long["value"].isna().any():
            raise CounterfactualError(
                "the 'value' column has missing labels (NaN); every counterfactual row needs its intervention value label."
            )
        n = len(long)
        ids = _as_row_ids(long["row_id"].to_numpy(), n, len(factual))
        samples = long["sample"].to_numpy() if "sample" in long.columns else np.zeros(n, dtype=np.int64)
        data = _conform(long, factual, spec, what="long-format counterfactual frame")
        head = pd.DataFrame(
            {
                "row_id": ids,
                "feature": pd.array(long["feature"].astype(str).tolist(), dtype="str"),
                "value": pd.array(long["value"].astype(str).tolist(), dtype="str"),
                "sample": np.asarray(samples, dtype=np.int64),
            }
        )
        out = cls(pd.concat([head, data], axis=1), {"generator": "external", **dict(meta or {})})
        from cffair.causal._integrity import check_belongs

        check_belongs(out, factual, spec)
        return out

    @classmethod
    def from_files(
        cls,
        factual: pd.DataFrame,
        path: str | Path,
        spec: Any,
        feature: str | None = None,
        meta: Mapping[str, Any] | None = None,
    ) -> CounterfactualSet:
        """Read counterfactuals from a CSV or parquet file.

        With ``feature`` the file holds one counterfactual per factual row (or a ``row_id``
        column) for that intervened feature (:meth:`from_frames`); without it the file is in
        long format (:meth:`from_long`). When ``spec`` has a causal graph the rows are checked
        to belong to the factual rows their row ids name (:meth:`check_rows`).
        """
        path = Path(path)
        if not path.exists():
            raise CounterfactualError(f"counterfactual file {path} does not exist.")
        if path.suffix == ".parquet":
            try:
                raw = pd.read_parquet(path)
            except Exception as exc:  # pyarrow's errors for a damaged file vary
                raise CounterfactualError(
                    f"counterfactual file {path} is not a readable parquet file ({type(exc).__name__}: {str(exc)[:200]}); "
                    "it is truncated or corrupt: write it again."
                ) from None
        else:
            from cffair.datasets import read_csv
            from cffair.errors import DataError

            try:
                raw, _ = read_csv(path)
            except DataError as exc:
                raise CounterfactualError(str(exc)) from None
        info = {"source_file": str(path), **dict(meta or {})}
        out = (
            cls.from_long(raw, factual, spec, meta=info)
            if feature is None
            else cls.from_frames(factual, raw, spec, feature, meta=info)
        )
        if getattr(spec, "graph", None) is not None:
            out.check_rows(factual, spec.load_graph())
        return out

    @classmethod
    def concat(cls, parts: Iterable[CounterfactualSet], meta: Mapping[str, Any] | None = None) -> CounterfactualSet:
        """Stack several sets (e.g. one per feature) into one; ``meta`` defaults to the first's."""
        parts = list(parts)
        if not parts:
            raise CounterfactualError("cannot concatenate an empty list of counterfactual sets.")
        frame = pd.concat([p.frame for p in parts], ignore_index=True)
        return cls(frame, meta if meta is not None else parts[0].meta)


# ---------------------------------------------------------------------------- validation
def _as_row_ids(row_id: Any, n: int, n_factual: int) -> np.ndarray:
    ids = np.asarray(list(row_id) if not isinstance(row_id, np.ndarray) else row_id)
    if ids.shape != (n,):
        raise CounterfactualError(
            f"'row_id' has {ids.size} entries but there are {n} counterfactual rows; give one row id per row."
        )
    if pd.isna(ids).any() if ids.dtype.kind == "f" else False:
        raise CounterfactualError(
            "'row_id' has missing values (NaN); every counterfactual row must name its factual row."
        )
    if ids.dtype.kind not in "iu" and not (ids.dtype.kind == "f" and np.all(ids == np.round(ids))):
        raise CounterfactualError(
            f"'row_id' must hold whole numbers (positional factual row indices), got dtype {ids.dtype}."
        )
    ids = check_vector(ids, "'row_id'", length=n, dtype=np.int64, error=CounterfactualError)
    bad = (ids < 0) | (ids >= n_factual)
    if bad.any():
        raise CounterfactualError(
            f"row ids out of range: {np.unique(ids[bad])[:5].tolist()} (the factual frame has {n_factual} rows, "
            f"valid ids are 0..{n_factual - 1}). Row ids are positional indices into the factual frame."
        )
    return ids


def _conform(cf: pd.DataFrame, factual: pd.DataFrame, spec: Any, what: str) -> pd.DataFrame:
    """The spec's feature columns of ``cf`` with the factual frame's dtypes, or a clear error."""
    feats = list(spec.features)
    missing = [c for c in feats if c not in cf.columns]
    if missing:
        raise CounterfactualError(
            f"the {what} misses the feature column(s) {missing}; it needs every feature of {spec.name!r}: {feats}."
        )
    out: dict[str, Any] = {}
    for c in feats:
        s = cf[c]
        if s.isna().any():
            rows = np.flatnonzero(s.isna().to_numpy())[:5].tolist()
            raise CounterfactualError(
                f"the {what} has missing values (NaN) in {c!r} at rows {rows}; counterfactuals must be complete rows."
            )
        ref = factual[c].dtype
        if isinstance(ref, pd.CategoricalDtype):
            labels = s.astype(str)
            known = {str(x) for x in ref.categories}
            unknown = sorted(set(labels.unique()) - known)
            if unknown:
                raise CounterfactualError(
                    f"the {what} has unknown categories {unknown[:5]} in {c!r}; the factual data knows {sorted(known)[:12]}. "
                    "Map the labels to the dataset's categories."
                )
            out[c] = pd.Categorical(labels, dtype=ref)
        else:
            if not pd.api.types.is_numeric_dtype(s) or pd.api.types.is_bool_dtype(s):
                raise CounterfactualError(
                    f"the {what} has non-numeric values in the numeric feature {c!r}; e.g. {s.iloc[:3].tolist()}."
                )
            v = check_vector(s, f"the {what}'s column {c!r}", error=CounterfactualError)
            if np.dtype(ref).kind in "iu":
                if not np.allclose(v, np.round(v)):
                    raise CounterfactualError(
                        f"the {what} has fractional values in the integer feature {c!r}; round them first."
                    )
                out[c] = np.round(v).astype(ref)
            else:
                out[c] = v.astype(ref)
    return pd.DataFrame(out)
