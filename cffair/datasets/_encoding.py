"""Encode readable rows into the model's numeric inputs and decode them back.

One-hot encoding for category kinds (a binary feature becomes a single 0/1 column) and
standard scaling for numeric kinds, both scikit-learn transformers fitted on a training fold.
:meth:`Encoder.inverse_transform` turns any encoded row back into readable feature values, which
the post-hoc queries use to show real rows (the paper's Table 4).
"""

from __future__ import annotations

__all__ = ["Encoder"]

from typing import Any

import numpy as np
import pandas as pd
from sklearn.compose import ColumnTransformer
from sklearn.preprocessing import OneHotEncoder, StandardScaler

from cffair._support.validation import check_matrix, check_vector
from cffair.datasets import CATEGORY_KINDS, DatasetSpec
from cffair.errors import DataError


class Encoder:
    """Fit on a training frame; ``transform`` to float32 arrays; ``inverse_transform`` to a frame.

    Attributes (after :meth:`fit`):
        feature_names_out: names of the encoded columns (``sex_Male``, ``age``, ...).
        slices: for each feature, the slice of encoded columns that belong to it.
    """

    def __init__(self, spec: DatasetSpec):
        self.spec = spec
        self.numeric = [c for c, k in spec.features.items() if k not in CATEGORY_KINDS]
        self.categorical = [c for c, k in spec.features.items() if k in CATEGORY_KINDS]
        self._ct: ColumnTransformer | None = None
        self.categories: dict[str, list[str]] = {}
        self.slices: dict[str, slice] = {}
        self.feature_names_out: list[str] = []

    # ----------------------------------------------------------------- fitting
    def fit(self, frame: pd.DataFrame) -> Encoder:
        """Learn scales and category lists from ``frame`` (the training fold).

        Category lists come from the frame's categorical dtype (the whole dataset's values),
        so a rare category absent from one training fold still encodes.
        """
        self._check_columns(frame)
        for c in self.numeric:
            check_vector(frame[c], f"feature {c!r}")
        self.categories = {c: self._categories_of(frame[c]) for c in self.categorical}
        transformers = []
        if self.numeric:
            transformers.append(("num", StandardScaler(), self.numeric))
        if self.categorical:
            transformers.append(
                (
                    "cat",
                    OneHotEncoder(
                        categories=[self.categories[c] for c in self.categorical],
                        drop="if_binary",
                        sparse_output=False,
                        handle_unknown="error",
                        dtype=np.float32,
                    ),
                    self.categorical,
                )
            )
        self._ct = ColumnTransformer(transformers, sparse_threshold=0.0, verbose_feature_names_out=False)
        self._ct.fit(self._as_str(frame))
        self.feature_names_out = list(self._ct.get_feature_names_out())
        start = 0
        widths = {c: 1 for c in self.numeric}
        for c in self.categorical:
            widths[c] = 1 if len(self.categories[c]) == 2 else len(self.categories[c])
        order = self.numeric + self.categorical
        for c in order:
            self.slices[c] = slice(start, start + widths[c])
            start += widths[c]
        return self

    @property
    def n_features_out(self) -> int:
        """Width of an encoded row."""
        self._check_fitted()
        return len(self.feature_names_out)

    # ----------------------------------------------------------------- transform
    def transform(self, frame: pd.DataFrame) -> np.ndarray:
        """Encode rows of ``frame`` (readable values) to a float32 array.

        Raises:
            DataError: for a missing column, a NaN or infinite number (naming the feature and
                the first row), or a category not seen at fit time.
        """
        self._check_fitted()
        self._check_columns(frame)
        for c in self.categorical:
            values = set(frame[c].astype(str).unique())
            unknown = sorted(values - set(self.categories[c]))
            if unknown:
                raise DataError(
                    f"feature {c!r} has value(s) {unknown[:5]} that the encoder did not see when it was fitted "
                    f"(known: {self.categories[c][:10]}{'...' if len(self.categories[c]) > 10 else ''}). "
                    "Fit the encoder on data that contains every category (declare the categories in the frame's dtype)."
                )
        for c in self.numeric:
            check_vector(frame[c], f"feature {c!r}")
        return np.asarray(self._ct.transform(self._as_str(frame)), dtype=np.float32)  # type: ignore[union-attr]

    def fit_transform(self, frame: pd.DataFrame) -> np.ndarray:
        """:meth:`fit` then :meth:`transform` on the same frame."""
        return self.fit(frame).transform(frame)

    def inverse_transform(self, x: np.ndarray) -> pd.DataFrame:
        """Decode encoded rows back into readable values.

        Numeric features are unscaled (``integer`` ones rounded); a one-hot block decodes to its
        arg-max category, a binary column to the second category when ≥ 0.5.
        """
        self._check_fitted()
        x = check_matrix(x, "the encoded rows", n_columns=self.n_features_out, dtype=np.float64)
        out: dict[str, object] = {}
        if self.numeric:
            scaler: StandardScaler = self._ct.named_transformers_["num"]  # type: ignore[union-attr]
            block = np.column_stack([x[:, self.slices[c]].ravel() for c in self.numeric])
            values = scaler.inverse_transform(block)
            for j, c in enumerate(self.numeric):
                out[c] = np.round(values[:, j]).astype("int64") if self.spec.features[c] == "integer" else values[:, j]
        for c in self.categorical:
            cats = self.categories[c]
            block = x[:, self.slices[c]]
            codes = (block[:, 0] >= 0.5).astype(int) if len(cats) == 2 else block.argmax(axis=1)
            out[c] = pd.Categorical.from_codes(codes, categories=cats, ordered=self.spec.features[c] == "ordinal")
        return pd.DataFrame(out)[list(self.spec.features)]

    # ----------------------------------------------------------------- state
    def to_dict(self) -> dict[str, object]:
        """The fitted state as plain JSON values: the category lists and the scaler's statistics.

        :meth:`from_dict` rebuilds an encoder that transforms and decodes bit for bit alike, so a
        saved model carries its encoder without pickling scikit-learn objects.
        """
        self._check_fitted()
        state: dict[str, object] = {"categories": {c: list(v) for c, v in self.categories.items()}}
        if self.numeric:
            scaler: StandardScaler = self._ct.named_transformers_["num"]  # type: ignore[union-attr]
            state["scaler"] = {
                "mean": scaler.mean_.tolist(),
                "scale": scaler.scale_.tolist(),
                "var": scaler.var_.tolist(),
                "n_samples_seen": int(np.asarray(scaler.n_samples_seen_).max()),
            }
        return state

    @classmethod
    def from_dict(cls, spec: DatasetSpec, state: dict[str, object]) -> Encoder:
        """An encoder fitted to the state of :meth:`to_dict` (for the same ``spec``).

        Raises:
            DataError: the state does not fit the spec (other features or categories).
        """
        enc = cls(spec)
        cats: Any = state.get("categories")
        if not isinstance(cats, dict) or set(cats) != set(enc.categorical):
            raise DataError(
                f"the encoder state names categorical features {sorted(cats or {})}, the spec {sorted(enc.categorical)}."
            )
        n = max([len(v) for v in cats.values()] + [1])
        frame = pd.DataFrame({c: np.zeros(n) for c in enc.numeric})
        for c in enc.categorical:
            values = [str(v) for v in cats[c]]
            frame[c] = pd.Categorical([values[i % len(values)] for i in range(n)], categories=values)
        enc.fit(frame[list(spec.features)])
        if enc.numeric:
            raw = state.get("scaler")
            if not isinstance(raw, dict) or any(
                len(raw.get(k, [])) != len(enc.numeric) for k in ("mean", "scale", "var")
            ):
                raise DataError(
                    f"the encoder state has no scaler statistics for the {len(enc.numeric)} numeric features."
                )
            scaler: StandardScaler = enc._ct.named_transformers_["num"]  # type: ignore[union-attr]
            scaler.mean_ = np.asarray(raw["mean"], dtype=np.float64)
            scaler.scale_ = np.asarray(raw["scale"], dtype=np.float64)
            scaler.var_ = np.asarray(raw["var"], dtype=np.float64)
            scaler.n_samples_seen_ = int(raw["n_samples_seen"])
        return enc

    # ----------------------------------------------------------------- helpers
    def columns_of(self, feature: str) -> list[int]:
        """Indices of the encoded columns of one feature."""
        self._check_fitted()
        s = self.slices[feature]
        return list(range(s.start, s.stop))

    @staticmethod
    def _categories_of(col: pd.Series) -> list[str]:
        if isinstance(col.dtype, pd.CategoricalDtype):
            return [str(c) for c in col.cat.categories]
        return sorted(col.astype(str).unique())

    def _as_str(self, frame: pd.DataFrame) -> pd.DataFrame:
        df = frame[self.numeric + self.categorical].copy()
        for c in self.categorical:
            df[c] = df[c].astype(str)
        return df

    def _check_columns(self, frame: pd.DataFrame) -> None:
        missing = [c for c in self.spec.features if c not in frame.columns]
        if missing:
            raise DataError(
                f"column(s) {missing} are missing from the frame to encode (columns: {list(frame.columns)})."
            )

    def _check_fitted(self) -> None:
        if self._ct is None:
            raise DataError("the encoder is not fitted yet; call fit(train_frame) first.")
