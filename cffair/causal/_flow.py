"""Causal normalising flows for counterfactuals (paper sections 2.2 and 6.2; Javaloy et al. 2023).

A causal normalising flow is a masked autoregressive flow ``u = T(x)`` whose masks follow the
causal graph: with one transform, ``u_i`` depends only on ``x_i`` and the parents of ``i``, so
``T`` is a learned structural causal model with exogenous noise ``u``. A counterfactual for
``do(x_j := v)`` is computed in the three classic steps:

1. *abduction*: ``u = T(x)``;
2. *action*: set ``x_j := v`` (in the single-transform flow this equals replacing ``u_j`` by
   the ``j``-th output of ``T`` applied to a copy of ``x`` with ``x_j = v``);
3. *prediction*: ``x' = T^{-1}(u)`` with the new ``x_j``; non-descendants of ``j`` are copied
   from ``x`` exactly and ``x'_j = v``.

Choices (each a :class:`~cffair.causal.FlowConfig` field, shown again on the book's
method page):

* **Target outside the flow.** The flow models the features only, so it can be fitted once per
  dataset on every row without any label leakage (our recommended default, used by
  :func:`generate`): the counterfactuals of a fold's test rows then come from a model that has
  seen those rows' features but never any target.
* **Discrete columns** (``integer``, ``binary``, ``ordinal``, ``categorical``) are integer codes
  with uniform dequantisation ``c + U(0, 1)`` in training; interventions are placed at
  ``v + 0.5`` (a bin edge would double the error) and decoding floors and clips to the observed
  range. Every column is standardised inside the model; non-negative, strongly skewed
  continuous columns (Adult's capital gain/loss) are modelled as ``log1p`` (``log_skewed``).
* **Root nodes as context** (``root_context=True``, default): parentless nodes are not
  transformed but condition the flow (nominal roots one-hot), which was more accurate on a
  synthetic SCM (see ``tests/causal/test_causal_flow.py`` and the report in the book).
* **Nominal categoricals** (``categorical``): integer codes impose an order on nominal values
  (alphabetical, as the data's categories), and the flow's monotone map moves counterfactuals
  along it. On Adult a sex flip sends 76 % of male "Husband" rows (code 0) to "Wife" (code 5,
  the far end of the order) with integer codes (``benchmarks/results/counterfactuals.json``).
  Where the truth is known (``benchmarks/results/synthetic_counterfactuals.json``), integer
  codes get the transitions wrong: a nominal child of S that the flip changes in 30 % of rows
  changes in 3 % of them (largest gap to the true transition table 0.30). With ``"gumbel"``
  (the default) each non-root nominal node gets its own conditional categorical model (an MLP
  on its parents with a softmax) and a Gumbel-max counterfactual: Gumbel noise consistent with
  the observed category is abducted (``cf_samples`` draws per row) and the counterfactual
  category is ``argmax_k(logit'_k + g_k)`` (Oberst & Sontag 2019); on the same model it
  changes 33 % of rows, with a gap of 0.04 (an oracle that knows the mechanisms: 0.02). The
  flow is kept for every other node. ``"flow"`` (alias ``"paper"``) keeps the paper's integer
  codes; :data:`~cffair.causal.PAPER_TREATMENT` reproduces the paper.
* **Binary and ordinal nodes** (``ordered``): at its bin midpoint ``c + 0.5`` (the paper's
  ``"midpoint"``) a binary child of S never moved where the truth moves 34 % of rows, and an
  ordinal child's transition table was 0.46 off. ``"threshold"`` (default) models each such
  node as ``x = k`` iff ``theta_{k-1} <= eta(parents) + e < theta_k`` with logistic ``e``
  (cumulative logit), draws ``e`` from its posterior given the observed value and decodes
  with the new parents (gaps 0.02 and 0.04); ``"sample"`` keeps the codes in the flow but
  abducts at a uniform point of the bin.
* **Integer nodes** (``integer``): ``"midpoint"`` (default, the paper's) or ``"sample"``; the
  two were within a few per cent of each other on the synthetic suite.
* **Training**: Adam, the paper's 1000 epochs of batch 256 and hidden layers [32, 32, 32]
  (Javaloy et al.'s settings), a learning rate halved when the validation loss stalls,
  best-by-validation checkpoint; early stopping after ``patience`` epochs without improvement
  (``patience=None`` runs every epoch, as the paper).

A generated set that leaves a descendant of the intervened feature unchanged in more than 99 %
of its rows (pooled over the feature's intervention values, at least 100 rows) raises a
:class:`~cffair.errors.CounterfactualWarning` naming the columns: the true effect may be that
small, but a treatment that freezes a node (integer-coded nominal nodes do) looks the same.

This module holds the entry points (:func:`fit_flow`, :func:`generate`, :func:`generate_from`);
the model is :class:`~cffair.causal.CausalFlow`, the settings
:class:`~cffair.causal.FlowConfig`, the cache :mod:`cffair.causal._cache`.

References:
    | Causal normalizing flows: from theory to practice (Javaloy et al., 2023)
      https://arxiv.org/abs/2306.05415 :cite:p:`javaloy2023`
    | Counterfactual Off-Policy Evaluation with Gumbel-Max Structural Causal Models
      (Oberst & Sontag, 2019) https://arxiv.org/abs/1905.05824 :cite:p:`oberst2019`
"""

from __future__ import annotations

__all__ = [
    "FROZEN_MIN_ROWS",
    "FROZEN_SHARE",
    "GENERATOR_VERSION",
    "PAPER_TREATMENT",
    "CausalFlow",
    "FlowConfig",
    "cache_dir",
    "fit_flow",
    "frozen_descendants",
    "generate",
    "generate_from",
]

import warnings
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
import pandas as pd

from cffair.causal._cache import GENERATOR_VERSION, cache_dir, data_key, read_cached, source_version
from cffair.causal._cfset import CounterfactualSet
from cffair.causal._cnf import CausalFlow, _progress
from cffair.causal._config import PAPER_TREATMENT, FlowConfig
from cffair.causal._interventions import Intervention, resolve
from cffair.datasets._graph import CausalGraph
from cffair.errors import CounterfactualError, CounterfactualWarning

if TYPE_CHECKING:
    from cffair.datasets import Dataset, DatasetSpec

#: A descendant unchanged in more than this share of a feature's counterfactual rows is reported.
FROZEN_SHARE = 0.99
#: ... if the feature has at least this many counterfactual rows.
FROZEN_MIN_ROWS = 100

_cache_root = cache_dir  # generate() has a parameter of the same name


def fit_flow(
    dataset: str | Dataset | tuple[pd.DataFrame, DatasetSpec],
    config: FlowConfig | Mapping[str, Any] | None = None,
    *,
    seed: int = 0,
    cache: str | Path | None | Literal[False] = None,
    progress: bool = True,
    device: str = "cpu",
) -> CausalFlow:
    """Fit (or load from the cache) the causal flow of a dataset on all its rows' features.

    The flow never sees the target, so fitting it once per dataset on every row leaks no label
    (the recommended default; see the module docstring). ``cache=False`` disables the cache; an
    unreadable cached flow is reported (:class:`~cffair.errors.CacheWarning`), removed and refitted.
    ``device`` is where a fit trains (:mod:`cffair._support.devices`); it is not part of the cache key.
    """
    from cffair import __version__
    from cffair._support.utils import stable_hash

    frame, spec = _as_dataset(dataset)
    cfg = FlowConfig.from_dict(config)
    graph = spec.load_graph()
    key = stable_hash(
        "flow", data_key(frame, spec), graph.to_dict(), cfg.to_dict(), seed, source_version(), __version__
    )
    path = None if cache is False else cache_dir(cache) / "flows" / f"{spec.name}-{key}.pt"
    model = read_cached(path, CausalFlow.load, "fitted flow", expect=CausalFlow)
    if model is not None:
        return model
    model = CausalFlow(spec, graph, cfg).fit(frame, seed=seed, progress=progress, device=device)
    if path is not None:
        model.save(path)
    return model


def generate(
    dataset: str | Dataset | tuple[pd.DataFrame, DatasetSpec],
    interventions: str | Sequence[str] | Mapping[str, Iterable[Any]] = "sensitive",
    *,
    config: FlowConfig | Mapping[str, Any] | None = None,
    seed: int = 0,
    cache_dir: str | Path | None | Literal[False] = None,
    progress: bool = True,
    device: str = "cpu",
) -> CounterfactualSet:
    """Counterfactuals of every row of a dataset from its causal normalising flow (section 6.2).

    Args:
        dataset: a dataset name (``"adult"``) or a :class:`~cffair.datasets.Dataset`.
        interventions: ``"sensitive"``, ``"immutable"``, ``"all"``, a list of features, or
            ``{feature: [values]}`` (see :func:`cffair.causal._interventions.resolve`).
        config: :class:`~cffair.causal.FlowConfig` or mapping; the paper's
            counterfactuals need :data:`~cffair.causal.PAPER_TREATMENT`.
        seed: seeds the flow's training and the counterfactual draws.
        cache_dir: cache folder (default ``$CFFAIR_CACHE`` or ``~/.cache/cffair``); ``False``
            disables caching. The key hashes the data and the spec's feature kinds
            (:func:`~cffair.causal._cache.data_key`), graph, config, seed, interventions and the
            generator's source, so a repeated call returns instantly from disk. An
            unreadable cache file is reported, removed and recomputed.
        progress: show tqdm progress bars.
        device: where the flow trains (:mod:`cffair._support.devices`; not part of the cache key).

    Returns:
        A :class:`CounterfactualSet`; rows whose factual value already equals the
        intervention value are left out.

    Warns:
        CounterfactualWarning: when a descendant of an intervened feature is unchanged in more
            than 99 % of that feature's counterfactual rows (see :func:`frozen_descendants`).
    """
    from cffair import __version__
    from cffair._support.utils import stable_hash
    from cffair.datasets import frame_hash

    frame, spec = _as_dataset(dataset)
    cfg = FlowConfig.from_dict(config)
    todo = resolve(frame, spec, interventions)
    graph = spec.load_graph()
    data_hash = frame_hash(frame[spec.feature_names])
    version = source_version()
    key = stable_hash(
        "cfset",
        data_key(frame, spec),
        graph.to_dict(),
        cfg.to_dict(),
        seed,
        [(i.feature, i.label) for i in todo],
        version,
        __version__,
    )
    root = None if cache_dir is False else _cache_root(cache_dir)
    path = None if root is None else root / "counterfactuals" / f"{spec.name}-{key}.parquet"
    cfs = read_cached(path, CounterfactualSet.load, "counterfactual set", expect=CounterfactualSet)
    if cfs is not None:
        _warn_frozen(frame, spec, cfs, graph, cfg)
        return cfs
    model = fit_flow(
        (frame, spec), cfg, seed=seed, cache=False if root is None else root, progress=progress, device=device
    )
    cfs = _build(model, frame, spec, todo, seed, progress=progress, extra={"data_hash": data_hash})
    if path is not None:
        cfs.save(path)
    _warn_frozen(frame, spec, cfs, graph, cfg)
    return cfs


def generate_from(
    model: CausalFlow,
    dataset: Dataset | tuple[pd.DataFrame, DatasetSpec],
    interventions: str | Sequence[str] | Mapping[str, Iterable[Any]] | Sequence[Intervention] = "sensitive",
    *,
    seed: int = 0,
    progress: bool = False,
) -> CounterfactualSet:
    """Counterfactuals of every row from an already fitted flow (no cache), as :func:`generate`.

    ``interventions`` also accepts a list of :class:`~cffair.causal.Intervention`.
    The ``k``-th intervention's draws are seeded with ``seed * 1_000_003 + k``.
    """
    frame, spec = _as_dataset(dataset)
    if isinstance(interventions, list) and interventions and all(isinstance(i, Intervention) for i in interventions):
        todo: list[Intervention] = list(interventions)
    else:
        todo = resolve(frame, spec, interventions)  # type: ignore[arg-type]
    from cffair.datasets import frame_hash

    # the hash of the frame the row ids point into: pairing the set with other data is refused
    cfs = _build(
        model, frame, spec, todo, seed, progress=progress, extra={"data_hash": frame_hash(frame[spec.feature_names])}
    )
    _warn_frozen(frame, spec, cfs, model.graph, model.config)
    return cfs


def _build(
    model: CausalFlow,
    frame: pd.DataFrame,
    spec: DatasetSpec,
    todo: list[Intervention],
    seed: int,
    *,
    progress: bool,
    extra: Mapping[str, Any],
) -> CounterfactualSet:
    from cffair import __version__
    from cffair._support.utils import stable_hash

    parts = []
    for k, iv in enumerate(_progress(todo, progress, desc=f"counterfactuals {spec.name}")):
        parts.append(_one_intervention(model, frame, spec, iv, seed * 1_000_003 + k))
    meta = {
        "generator": "causal_flow",
        "generator_version": source_version(),
        "config": model.config.to_dict(),
        **extra,
        "seed": seed,
        "dataset": spec.name,
        "graph": model.graph.name,
        "graph_hash": stable_hash(model.graph.to_dict()),
        "flow_data_hash": model.data_hash,
        "interventions": [[i.feature, i.label] for i in todo],
        "cffair_version": __version__,
        "flow_best_epoch": model.best_epoch,
        "flow_epochs_run": len(model.history),
        "flow_val_loss": min((h["val"] for h in model.history), default=None),
        "fit_on": "all rows, features only (no target)",
    }
    return CounterfactualSet.concat(parts, meta=meta) if parts else CounterfactualSet(_empty_long(frame, spec), meta)


# ---------------------------------------------------------------------------- frozen descendants
def frozen_descendants(
    frame: pd.DataFrame,
    cfs: CounterfactualSet,
    graph: CausalGraph,
    share: float = FROZEN_SHARE,
    min_rows: int = FROZEN_MIN_ROWS,
) -> dict[str, dict[str, float]]:
    """Descendants left unchanged in more than ``share`` of an intervened feature's rows.

    For each intervened feature of ``cfs`` with at least ``min_rows`` counterfactual rows (all
    its values pooled), every descendant in the graph that varies in the factual rows is
    compared with its factual value: category and integer columns exactly, continuous columns
    within ``1e-4`` of the column's standard deviation (a flow's float32 round trip).

    Returns:
        ``{feature: {column: unchanged share}}`` for the columns above ``share``.
    """
    out: dict[str, dict[str, float]] = {}
    data = cfs.frame
    for feature in cfs.features:
        rows = data.index[data["feature"].to_numpy() == feature]
        if len(rows) < min_rows:
            continue
        ids = data.loc[rows, "row_id"].to_numpy()
        frozen = {}
        for col in graph.descendants(feature):
            if col not in data.columns or col not in frame.columns:
                continue
            fact = frame[col].iloc[ids]
            if fact.nunique() < 2:
                continue
            new = data.loc[rows, col]
            if isinstance(fact.dtype, pd.CategoricalDtype):
                same = fact.astype(str).to_numpy() == new.astype(str).to_numpy()
            elif pd.api.types.is_float_dtype(fact.dtype):
                tol = 1e-4 * float(frame[col].std())
                same = np.abs(new.to_numpy(dtype=float) - fact.to_numpy(dtype=float)) <= tol
            else:
                same = new.to_numpy() == fact.to_numpy()
            unchanged = float(np.mean(same))
            if unchanged > share:
                frozen[col] = unchanged
        if frozen:
            out[feature] = frozen
    return out


def _warn_frozen(
    frame: pd.DataFrame, spec: DatasetSpec, cfs: CounterfactualSet, graph: CausalGraph, config: FlowConfig
) -> None:
    found = frozen_descendants(frame, cfs, graph)
    if not found:
        return
    parts = [
        f"do({feature} := ·) leaves " + ", ".join(f"{col!r} ({100 * s:.2f} %)" for col, s in cols.items())
        for feature, cols in found.items()
    ]
    kinds = {spec.features.get(col) for cols in found.values() for col in cols}
    hints = []
    if "categorical" in kinds and config.categorical == "flow":
        hints.append(
            "integer-coded nominal nodes (categorical='flow', the paper's treatment) freeze this way: "
            "compare with categorical='gumbel' (the default)"
        )
    if kinds & {"binary", "ordinal"} and config.ordered != "threshold":
        hints.append(
            f"binary and ordinal nodes in the flow (ordered={config.ordered!r}) freeze this way: "
            "compare with ordered='threshold' (the default)"
        )
    if not hints:
        hints.append(
            "the true effect may be that small; if not, the flow may be under-fitted (more epochs) "
            "or the graph may miss an edge"
        )
    warnings.warn(
        f"counterfactuals leave descendants of the intervened feature unchanged in more than {100 * FROZEN_SHARE:.0f} % "
        f"of rows: {'; '.join(parts)}. " + _sentence("; ".join(hints)),
        CounterfactualWarning,
        stacklevel=3,
    )


# ---------------------------------------------------------------------------- helpers
def _sentence(text: str) -> str:
    return text[:1].upper() + text[1:] + "."


def _one_intervention(
    model: CausalFlow, frame: pd.DataFrame, spec: DatasetSpec, iv: Intervention, seed: int
) -> CounterfactualSet:
    col = frame[iv.feature]
    if isinstance(col.dtype, pd.CategoricalDtype):
        keep = np.flatnonzero(col.astype(str).to_numpy() != str(iv.value))
    else:
        keep = np.flatnonzero(col.to_numpy(dtype=float) != float(iv.value))
    sub = frame.iloc[keep]
    cf, pos, sample = model.counterfactual(sub, iv.feature, iv.value, seed=seed)
    return CounterfactualSet.from_frames(frame, cf, spec, iv.feature, value=iv.label, row_id=keep[pos], sample=sample)


def _empty_long(frame: pd.DataFrame, spec: DatasetSpec) -> pd.DataFrame:
    head = pd.DataFrame(
        {
            "row_id": np.zeros(0, np.int64),
            "feature": pd.array([], dtype="str"),
            "value": pd.array([], dtype="str"),
            "sample": np.zeros(0, np.int64),
        }
    )
    return pd.concat([head, frame.iloc[:0][spec.feature_names].reset_index(drop=True)], axis=1)


def _as_dataset(dataset: Any) -> tuple[pd.DataFrame, DatasetSpec]:
    if isinstance(dataset, str):
        from cffair.datasets import load

        return tuple(load(dataset))
    try:
        frame, spec = dataset
    except (TypeError, ValueError):
        raise CounterfactualError("dataset must be a name ('adult') or a Dataset (frame, spec).") from None
    return frame, spec
