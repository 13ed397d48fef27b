"""Which interventions ``do(F := v)`` to generate counterfactuals for (paper sections 4.3, 6.2).

* The sensitive attribute ``S``: a binary one is flipped; a multi-valued one is set to every
  value other than the row's own (counterfactual fairness, section 2.1).
* Every other feature ``F`` (section 6.2, "the most frequent values that are at least present
  in 1 % of the dataset, up to a maximum of 10 values. For continuous features, we took their
  percentiles"): category kinds use their values present in >= 1 % of rows, at most the 10 most
  frequent; numeric kinds (``continuous``, ``integer``) use the 10th, 25th, 50th, 75th and 90th
  percentiles (rounded for ``integer``; duplicates dropped). The paper does not say which
  percentiles; these five are our documented choice (:data:`PERCENTILES`).
* Any value a user gives.

Every intervention is applied to every row; rows whose factual value already equals ``v`` are
dropped (their "counterfactual" is the row itself), as in the sensitive flip.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from cffair.errors import CounterfactualError

#: Percentiles used as intervention values for numeric features (our choice; section 6.2).
PERCENTILES: tuple[int, ...] = (10, 25, 50, 75, 90)
#: A category is an intervention value if at least this share of rows has it (section 6.2).
MIN_SHARE: float = 0.01
#: At most this many (most frequent) values per categorical feature (section 6.2).
MAX_VALUES: int = 10


@dataclass(frozen=True)
class Intervention:
    """``do(feature := value)``; ``label`` is the readable string stored in counterfactual sets."""

    feature: str
    value: Any
    label: str


def value_label(value: Any, kind: str) -> str:
    """The readable label of an intervention value (a category, ``"37"``, ``"3.25"``)."""
    if kind == "integer":
        return str(int(value))
    if kind == "continuous":
        return f"{float(value):.6g}"
    return str(value)


def sensitive_interventions(frame: pd.DataFrame, spec: Any) -> list[Intervention]:
    """The sensitive attribute set to each of its values (rows at that value are skipped later):
    for a binary attribute this is the flip, for a multi-valued one "all other values"."""
    s = spec.sensitive
    cats = (
        [str(c) for c in frame[s].cat.categories]
        if isinstance(frame[s].dtype, pd.CategoricalDtype)
        else sorted(map(str, frame[s].unique()))
    )
    return [Intervention(s, c, c) for c in cats]


def feature_interventions(
    frame: pd.DataFrame,
    spec: Any,
    feature: str,
    percentiles: Sequence[float] = PERCENTILES,
    min_share: float = MIN_SHARE,
    max_values: int = MAX_VALUES,
) -> list[Intervention]:
    """The paper's rule (section 6.2) for one feature: frequent categories or percentiles."""
    if feature not in spec.features:
        raise CounterfactualError(
            f"cannot intervene on {feature!r}: it is not a feature of {spec.name!r} ({list(spec.features)})."
        )
    kind = spec.features[feature]
    col = frame[feature]
    if kind in ("continuous", "integer"):
        qs = np.percentile(col.to_numpy(dtype=float), list(percentiles))
        vals: list[Any] = []
        for q in qs:
            v: Any = int(round(q)) if kind == "integer" else float(q)
            if v not in vals:
                vals.append(v)
        return [Intervention(feature, v, value_label(v, kind)) for v in vals]
    share = col.astype(str).value_counts(normalize=True, sort=True)
    if kind == "binary" or feature == spec.sensitive:
        keep = list(share.index)
    else:
        keep = [c for c, p in share.items() if p >= min_share][:max_values]
    order = [str(c) for c in col.cat.categories] if isinstance(col.dtype, pd.CategoricalDtype) else sorted(keep)
    return [Intervention(feature, c, c) for c in order if c in keep]


def user_interventions(frame: pd.DataFrame, spec: Any, values: Mapping[str, Iterable[Any]]) -> list[Intervention]:
    """Interventions from a mapping ``{feature: [values]}``, checked against the data.

    Raises:
        CounterfactualError: for an unknown feature or a category the data does not have.
    """
    out: list[Intervention] = []
    for feature, vs in values.items():
        if feature not in spec.features:
            raise CounterfactualError(
                f"cannot intervene on {feature!r}: it is not a feature of {spec.name!r} ({list(spec.features)})."
            )
        kind = spec.features[feature]
        for v in [vs] if isinstance(vs, (str, int, float)) else list(vs):
            if kind in ("continuous", "integer"):
                try:
                    num = float(v)
                except (TypeError, ValueError):
                    raise CounterfactualError(
                        f"intervention value {v!r} for the numeric feature {feature!r} is not a number."
                    ) from None
                if kind == "integer" and num != round(num):
                    raise CounterfactualError(
                        f"intervention value {v!r} for the integer feature {feature!r} is not a whole number."
                    )
                val: Any = int(round(num)) if kind == "integer" else num
            else:
                cats = [str(c) for c in frame[feature].cat.categories]
                if str(v) not in cats:
                    raise CounterfactualError(f"{v!r} is not a value of {feature!r}; its values are {cats}.")
                val = str(v)
            out.append(Intervention(feature, val, value_label(val, kind)))
    return out


def resolve(
    frame: pd.DataFrame,
    spec: Any,
    interventions: str | Sequence[str] | Mapping[str, Iterable[Any]] = "sensitive",
) -> list[Intervention]:
    """Turn an ``interventions`` argument into a list of :class:`Intervention`.

    Args:
        interventions: ``"sensitive"`` (the sensitive attribute's values), ``"immutable"``
            (the sensitive attribute plus the spec's immutable features, by the paper's rule:
            what the CKE axioms of section 4.3 need), ``"all"`` (every feature, section 6.2),
            a list of feature names (paper's rule for each), or ``{feature: [values]}``.
    """
    if isinstance(interventions, Mapping):
        return user_interventions(frame, spec, interventions)
    if isinstance(interventions, str):
        if interventions == "sensitive":
            return sensitive_interventions(frame, spec)
        if interventions == "immutable":
            feats = [spec.sensitive, *[f for f in spec.immutable if f != spec.sensitive]]
        elif interventions == "all":
            feats = list(spec.features)
        else:
            raise CounterfactualError(
                f"unknown interventions {interventions!r}; use 'sensitive', 'immutable', 'all', a list of features "
                "or a mapping {feature: [values]}."
            )
    else:
        feats = list(interventions)
    out: list[Intervention] = []
    for f in feats:
        out.extend(
            sensitive_interventions(frame, spec) if f == spec.sensitive else feature_interventions(frame, spec, f)
        )
    return out
