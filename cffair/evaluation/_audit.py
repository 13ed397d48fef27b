"""Audit the counterfactual fairness of any model: CF-MSE and flip rate, overall and per subgroup.

The method of the paper scores a model by how much its output moves between each person ``x``
and their counterfactual twin ``x′`` (section 6.5): the CF-MSE, the mean of
``(D(x) − D(x′))²`` over the pairs, and (not in the paper, :mod:`cffair.scores._metrics`) the share of
pairs whose *decision* flips. Nothing in either needs the model to be an LTN: :func:`audit`
takes any function from readable rows to ``P(y = 1)`` (or to a score), e.g. a scikit-learn
model's ``predict_proba``, and scores it on cffair's twins (a causal normalising flow fitted on
the data's features) or on twins produced elsewhere (a :class:`~cffair.causal.CounterfactualSet`).

Overall and per subgroup, the numbers come with bootstrap 95 % intervals that resample the
**factual rows with all their twins** (a cluster bootstrap, :mod:`cffair.evaluation._audit_stats`): the
pairs of one row share its prediction ``D(x)``, so resampling pairs as if independent (fairlearn's
``MetricFrame(n_boot=…)``, :func:`by_subgroup`, still offered as ``bootstrap="pairs"`` to compare)
gives intervals too narrow. When the data has the target column, the audit also gives the
accuracy (MSE for a score target), overall and per subgroup, and beside counterfactual fairness
the group fairness of the decisions between the sensitive attribute's groups: the
demographic-parity and equalized-odds differences (:mod:`cffair.scores._groupfair`, fairlearn's
``MetricFrame``), all from the same resamples of rows.

Where the twins come from matters: a flow fitted on a few hundred audited rows makes other
twins than the flow of the data the model was trained on (in one trial of 200 held-out rows,
flip rate 0.108 against 0.074). Give ``flow=`` (a saved model's ``flow_``) or ``training=``
(the training rows) to use the training data's flow; ``AuditResult.flow`` says which was used.

The twins' flow is fitted for the audit with larger batches (:data:`AUDIT_FLOW`: 4,096 rows,
a learning rate of 0.01, early stopping after 10 epochs without a better held-out likelihood)
instead of the library's 256 rows (:class:`~cffair.causal.FlowConfig`, what
:func:`cffair.causal.generate` fits), which on Adult is several times faster; the two fits'
held-out losses and twins are compared on Adult and on a structural model with known twins by
``benchmarks/bench_adoption.py`` (shown on the book's Benchmarks page).
``flow_fit="default"`` fits the library's flow instead. Either is cached
(:func:`cffair.causal.generate`; keyed by the data, the spec's reading of it, the graph, the
settings and the seed), so a second audit of another model on the same data fits nothing.

Predictions are matched to their rows by identity (:mod:`cffair.evaluation._alignment`): predictions made
elsewhere (:func:`audit_scores`) are joined on ``row_id`` (and the twins' on the twins file's key
columns), or read by position only where a stored hash establishes the order; twins brought from
elsewhere pass the same checks as in ``cffair train --counterfactuals``
(:func:`cffair.causal._integrity.check_belongs`) before any model is called; and a binary
target's predictions must be probabilities in [0, 1] (:func:`check_range`).

Example::

    from sklearn.linear_model import LogisticRegression
    import cffair
    from cffair import datasets

    frame, spec = datasets.load("compas")
    model = ...  # any fitted model on readable rows, e.g. a Pipeline with a ColumnTransformer
    result = cffair.evaluation.audit(model.predict_proba, (frame, spec))
    result.cf_mse, result.cf_flip_rate, result.by_subgroup
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
import pandas as pd

from cffair.causal._cfset import CounterfactualSet
from cffair.causal._config import FlowConfig
from cffair.datasets._spec import Dataset, DatasetSpec
from cffair.errors import DataError, OptionError, ParameterError
from cffair.evaluation._alignment import TWIN_KEYS, align, factual_keys
from cffair.scores._metrics import cf_flip_rate, cf_mse, decision_threshold

if TYPE_CHECKING:  # pragma: no cover
    from cffair.causal._cnf import CausalFlow

__all__ = [
    "AUDIT_FLOW",
    "AuditResult",
    "audit",
    "audit_flow_config",
    "audit_scores",
    "bootstrap_indices",
    "by_subgroup",
    "check_range",
    "scores_of",
]

FINGERPRINT_EXEMPT = True  # scores models a user brings; no reproduction record runs it

#: The flow settings an audit fits its twins with (``flow_fit="audit"``), over the library's
#: defaults (:class:`~cffair.causal.FlowConfig`): batches of 4,096 rows instead of 256 with a
#: learning rate scaled up with them, and a shorter patience (in epochs, each now 16 times fewer
#: steps). Treatments, network and the held-out share are the library's.
AUDIT_FLOW: dict[str, Any] = {"batch_size": 4096, "lr": 1e-2, "patience": 10, "lr_patience": 4}

#: The bootstrap interval: 2.5 % and 97.5 % quantiles (a 95 % interval).
CI_QUANTILES: tuple[float, float] = (0.025, 0.975)


@dataclass(frozen=True)
class AuditResult:
    """What :func:`audit` found.

    Attributes:
        cf_mse: the mean of ``(D(x) − D(x′))²`` over every pair.
        cf_flip_rate: the share of pairs whose decision (``D ≥ threshold``) differs.
        threshold: the decision threshold (0.5 for a binary target; for a score target the
            score of the best ``favourable_top_fraction`` of the factual predictions).
        n_pairs: the number of ``(x, x′)`` pairs; n_rows: the number of factual rows.
        by_subgroup: one row per subgroup: ``n_pairs``, ``cf_mse`` and ``cf_flip_rate`` with
            their bootstrap interval (``*_low``, ``*_high``) and, with labels, ``n_rows`` and
            ``accuracy`` (``mse`` for a score target) with its interval; the worst subgroup by
            CF-MSE first.
        pairs: one row per pair: ``row_id``, ``feature``, ``value``, ``subgroup``, ``d``, ``d_cf``.
        overall: one row per metric (index ``metric``: ``accuracy`` or ``mse`` with labels,
            ``cf_mse``, ``cf_flip_rate``, ``demographic_parity_difference`` and, with binary
            labels, ``equalized_odds_difference``), columns ``value``, ``low``, ``high`` (NaN
            without resamples).
        groups: per value of the sensitive attribute, fairlearn's ``MetricFrame`` by group:
            ``n_rows``, ``selection_rate`` (share decided 1) and, with binary labels,
            ``true_positive_rate`` and ``false_positive_rate``.
        accuracy: the share of correct decisions (binary target with labels), else ``None``.
        flow: where the twins came from, in words (given; the training data's flow; a fresh
            flow fitted on the audited rows).
        bootstrap: ``"rows"`` (factual rows with all their twins) or ``"pairs"``.
    """

    cf_mse: float
    cf_flip_rate: float
    threshold: float
    n_pairs: int
    n_rows: int
    by_subgroup: pd.DataFrame
    pairs: pd.DataFrame
    overall: pd.DataFrame = field(default_factory=pd.DataFrame)
    groups: pd.DataFrame = field(default_factory=pd.DataFrame)
    accuracy: float | None = None
    flow: str = "twins given"
    bootstrap: str = "rows"

    def summary(self) -> pd.DataFrame:
        """The overall numbers as a one-row frame (for a report table): each of ``overall``'s
        metrics with its interval (``*_low``, ``*_high``), the counts and the threshold."""
        row: dict[str, Any] = {"cf_mse": self.cf_mse, "cf_flip_rate": self.cf_flip_rate}
        for metric, r in self.overall.iterrows():
            row[str(metric)] = r["value"]
            row[f"{metric}_low"], row[f"{metric}_high"] = r["low"], r["high"]
        return pd.DataFrame([{**row, "n_pairs": self.n_pairs, "n_rows": self.n_rows, "threshold": self.threshold}])


def scores_of(predict: Callable[[pd.DataFrame], Any], rows: pd.DataFrame, what: str = "the model") -> np.ndarray:
    """``predict(rows)`` as a float vector of one value per row.

    A two-column result (``predict_proba``) gives its second column, ``P(y = 1)``.

    Raises:
        DataError: when the result is not one finite number per row.
    """
    out = np.asarray(predict(rows), dtype=np.float64)
    if out.ndim == 2 and out.shape[1] == 2:
        out = out[:, 1]
    if out.ndim != 1 or len(out) != len(rows):
        raise DataError(
            f"{what} must return one number per row (or predict_proba's two columns) for {len(rows)} rows, "
            f"got an array of shape {out.shape}."
        )
    if not np.isfinite(out).all():
        raise DataError(f"{what} returned {int((~np.isfinite(out)).sum())} non-finite value(s) (NaN or infinity).")
    return out


def _finite(values: Any, n: int, what: str) -> np.ndarray:
    out = np.asarray(values, dtype=np.float64)
    if out.ndim != 1 or len(out) != n:
        raise DataError(f"{what} must be one number per row ({n}), got an array of shape {out.shape}.")
    if not np.isfinite(out).all():
        raise DataError(f"{what} hold {int((~np.isfinite(out)).sum())} non-finite value(s) (NaN or infinity).")
    return out


def check_range(values: np.ndarray, target_kind: str, what: str) -> None:
    """Refuse predictions outside what the target kind allows.

    A binary target's predictions are probabilities ``P(y = 1)`` in [0, 1]: a negative value is
    refused (log-odds or a decision function, not a probability), and values above 1 are refused
    with, when all of them lie in [0, 100], the fix for percentages (divide by 100). A score
    target's predictions are any finite numbers.

    Example:
        >>> check_range(np.array([0.2, 0.9]), "binary", "the predictions")
        >>> try:
        ...     check_range(np.array([20.0, 90.0]), "binary", "the predictions")
        ... except DataError as e:
        ...     print(str(e).split(": ")[-1])
        percentages? divide them by 100.

    Raises:
        DataError: naming the offending range and the fix.
    """
    if target_kind != "binary" or len(values) == 0:
        return
    low, high = float(values.min()), float(values.max())
    if low < 0:
        raise DataError(
            f"{what} must be probabilities P(y = 1) in [0, 1] for a binary target, but go down to {low:.4g} "
            f"({int((values < 0).sum()):,} negative); give predict_proba's probability of class 1, not log-odds or a "
            "decision function's value."
        )
    if high > 1:
        hint = (
            "percentages? divide them by 100."
            if high <= 100
            else "give predict_proba's probability of class 1, not a score or a count."
        )
        raise DataError(
            f"{what} must be probabilities P(y = 1) in [0, 1] for a binary target, but reach {high:.4g}: {hint}"
        )


def bootstrap_indices(n: int, n_boot: int, seed: int) -> Iterator[np.ndarray]:
    """The ``n_boot`` resamples of ``n`` pairs that fairlearn's ``MetricFrame(n_boot=n_boot,
    random_state=seed)`` draws: one seed per resample from ``numpy.random.default_rng(seed)``, and
    for each ``n`` positions drawn with replacement (``DataFrame.sample(frac=1, replace=True)``).

    Example:
        >>> [len(i) for i in bootstrap_indices(6, 3, seed=0)]
        [6, 6, 6]
    """
    seeds = np.random.default_rng(seed).integers(low=0, high=np.iinfo(np.uint32).max, size=n_boot, dtype=np.uint32)
    for s in seeds:
        yield np.random.RandomState(s).choice(n, size=n, replace=True)


def by_subgroup(
    d: np.ndarray,
    d_cf: np.ndarray,
    labels: np.ndarray,
    *,
    threshold: float,
    n_boot: int = 200,
    ci: tuple[float, float] = CI_QUANTILES,
    seed: int = 0,
) -> pd.DataFrame:
    """CF-MSE and flip rate per subgroup, with bootstrap intervals, from one row per pair.

    The numbers are those of fairlearn's :class:`~fairlearn.metrics.MetricFrame` with ``D(x)`` as
    ``y_true``, ``D(x′)`` as ``y_pred``, the subgroup as the sensitive feature and
    ``n_boot``/``ci_quantiles``/``random_state=seed``: the same resamples of all pairs
    (:func:`bootstrap_indices`), each subgroup's mean over its resampled pairs, and
    ``numpy.quantile`` of the resampled values (``tests/evaluation/test_audit.py`` compares the two). Each
    resample is one weighted count per subgroup (``numpy.bincount``) instead of a
    ``MetricFrame`` of its own, which on Adult's 180,888 pairs took 2.4 s per resample.

    Returns:
        One row per subgroup (index ``subgroup``) with ``n_pairs``, ``cf_mse``, ``cf_flip_rate`` and,
        when ``n_boot > 0``, their interval (``*_low``, ``*_high``); the worst by CF-MSE first.
    """
    groups, g = np.unique(np.asarray(labels).astype(str), return_inverse=True)
    k = len(groups)
    values = np.column_stack([(d - d_cf) ** 2, ((d >= threshold) != (d_cf >= threshold)).astype(np.float64)])

    def means(index: np.ndarray | slice) -> np.ndarray:
        gi = g[index]
        count = np.bincount(gi, minlength=k).astype(np.float64)
        with np.errstate(invalid="ignore", divide="ignore"):  # a subgroup absent from a resample: NaN, as fairlearn
            return (
                np.column_stack([np.bincount(gi, weights=values[index, j], minlength=k) for j in range(2)])
                / count[:, None]
            )

    point = means(slice(None))
    by = pd.DataFrame(
        {"n_pairs": np.bincount(g, minlength=k), "cf_mse": point[:, 0], "cf_flip_rate": point[:, 1]},
        index=pd.Index(groups, name="subgroup"),
    )
    if n_boot:
        samples = np.stack([means(i) for i in bootstrap_indices(len(g), int(n_boot), seed)])  # (n_boot, k, 2)
        low, high = np.quantile(samples, q=[ci[0], ci[1]], axis=0)
        for j, m in enumerate(("cf_mse", "cf_flip_rate")):
            by.insert(by.columns.get_loc(m) + 1, f"{m}_low", low[:, j])
            by.insert(by.columns.get_loc(m) + 2, f"{m}_high", high[:, j])
    return by.sort_values("cf_mse", ascending=False, kind="stable")


def audit(
    predict: Callable[[pd.DataFrame], Any],
    data: Dataset | tuple[pd.DataFrame, DatasetSpec] | str,
    *,
    twins: CounterfactualSet | None = None,
    flow: CausalFlow | None = None,
    training: pd.DataFrame | None = None,
    interventions: str | list[str] = "sensitive",
    flow_config: Mapping[str, Any] | FlowConfig | None = None,
    flow_fit: Literal["audit", "default"] = "audit",
    cache_dir: str | Path | None | Literal[False] = None,
    seed: int = 0,
    n_boot: int = 200,
    ci: tuple[float, float] = CI_QUANTILES,
    bootstrap: Literal["rows", "pairs"] = "rows",
    progress: bool = False,
) -> AuditResult:
    """Counterfactual fairness of ``predict`` on the rows of ``data`` and their twins.

    Args:
        predict: readable rows (a frame with the spec's feature columns) → ``P(y = 1)`` per row
            (or ``predict_proba``'s two columns), or a score for a score target.
        data: a dataset name (``"compas"``) or ``(frame, spec)``.
        twins: counterfactuals produced elsewhere, checked against ``data``; default: made by
            cffair's causal flow for ``interventions`` (see ``flow`` and ``training``).
        flow: a fitted :class:`~cffair.causal.CausalFlow` to make the twins with, e.g. a saved
            model's (``load_model(path).flow_``), the flow of the data the model was trained on.
        training: the rows the model was trained on (a frame with the spec's feature columns):
            the twins come from a flow fitted on them (:func:`cffair.causal.fit_flow`, cached)
            and applied to ``data``'s rows. Without ``twins``, ``flow`` and ``training``, a fresh
            flow is fitted on ``data``'s rows themselves (:func:`cffair.causal.generate`,
            cached): on a few hundred audited rows that flow is fitted on little data, and the
            twins (so the audit) differ from those of the training data's flow.
        interventions: what the generated twins intervene on (default the sensitive attribute).
        flow_config: :class:`~cffair.causal.FlowConfig` fields for the generated twins, over
            those ``flow_fit`` chooses (a ``FlowConfig`` is used as it is).
        flow_fit: ``"audit"`` (default): the flow is fitted with :data:`AUDIT_FLOW`, several
            times faster on Adult; ``"default"``: with the library's defaults, as
            :func:`cffair.causal.generate` (the same twins, and the same cache entry).
        cache_dir: the cache of flows and twins (default ``$CFFAIR_CACHE`` or
            ``~/.cache/cffair``; ``False``: none).
        seed: seeds the flow, the twins and the bootstrap.
        n_boot: bootstrap resamples (0: no intervals).
        ci: the interval's quantiles.
        bootstrap: ``"rows"`` (default): each resample draws the factual rows with all their
            twins (:mod:`cffair.evaluation._audit_stats`); ``"pairs"``: the pairs as if independent
            (fairlearn's ``MetricFrame`` scheme, too narrow when rows have several twins; to
            compare with).

    The result's ``flow`` says where the twins came from, and, when ``data``
    has the target column, it holds the accuracy (MSE for a score target), and the
    equalized-odds difference beside the demographic-parity difference, overall
    (``overall``) and the accuracy per subgroup.

    ``data`` and ``twins`` are checked before ``predict`` is first called: the frame must have
    the spec's feature columns, and twins brought from elsewhere pass the checks of ``cffair
    train --counterfactuals`` (:func:`cffair.causal._integrity.check_belongs`: the spec's columns,
    the stored data hash, the row ids and, with a causal graph, that each twin belongs to the row
    its row id names).

    Raises:
        DataError: for data without the spec's feature columns, or predictions that are not one
            finite number per row (for a binary target, not probabilities in [0, 1]).
        CounterfactualError: for twins that do not belong to ``data``.
        ParameterError: for ``n_boot``, ``ci``, ``flow_fit`` or ``bootstrap`` out of range.
        OptionError: for more than one of ``twins``, ``flow`` and ``training``.
    """
    from cffair.causal import generate

    if isinstance(data, str):
        from cffair.datasets import load

        data = load(data)
    frame, spec = data
    _check_bootstrap(n_boot, ci, bootstrap)
    _check_frame(frame, spec)
    if sum(x is not None for x in (twins, flow, training)) > 1:
        given = ", ".join(n for n, x in (("twins", twins), ("flow", flow), ("training", training)) if x is not None)
        raise OptionError(
            f"audit was given {given}: each is a source of the twins, so give at most one of them "
            "(twins made elsewhere, the training data's flow, or the rows the model was trained on)."
        )
    if twins is not None:
        _check_twins(twins, frame, spec)
        source = "twins given"
    elif flow is not None or training is not None:
        from cffair.causal import fit_flow, generate_from

        if flow is None:
            assert training is not None
            _check_frame(training, spec)
            config = audit_flow_config(flow_config, flow_fit)
            flow = fit_flow((training, spec), config, seed=seed, cache=cache_dir, progress=progress)
            source = f"the training data's flow (fitted on its {len(training):,} rows)"
        else:
            source = "the given flow (the training data's)"
        twins = generate_from(flow, (frame, spec), interventions, seed=seed, progress=progress)
    else:
        config = audit_flow_config(flow_config, flow_fit)
        twins = generate((frame, spec), interventions, config=config, seed=seed, cache_dir=cache_dir, progress=progress)
        source = f"a fresh flow fitted on the {len(frame):,} audited rows"
    if len(twins.frame) == 0:
        raise DataError("the counterfactual set holds no pairs; generate twins for at least one intervention.")
    features = list(spec.features)
    d_rows = scores_of(predict, frame[features].reset_index(drop=True), "predict on the factual rows")
    d_cf = scores_of(predict, twins.frame[features].reset_index(drop=True), "predict on the twins")
    return _scores(d_rows, d_cf, twins, frame, spec, seed=seed, n_boot=n_boot, ci=ci, flow=source, bootstrap=bootstrap)


def _check_frame(frame: pd.DataFrame, spec: DatasetSpec) -> None:
    missing = [c for c in spec.features if c not in frame.columns]
    if missing:
        raise DataError(
            f"the data lacks the feature column(s) {missing[:6]} of the spec {spec.name!r}; pass the frame the spec "
            "describes (cffair.datasets.load or from_csv)."
        )


def _check_twins(twins: CounterfactualSet, frame: pd.DataFrame, spec: DatasetSpec) -> None:
    from cffair.causal._integrity import check_belongs

    check_belongs(twins, frame, spec)
    if len(twins.frame) == 0:
        raise DataError("the counterfactual set holds no pairs; give twins for at least one intervention.")


def audit_flow_config(
    flow_config: Mapping[str, Any] | FlowConfig | None = None, flow_fit: Literal["audit", "default"] = "audit"
) -> FlowConfig:
    """The flow settings of an audit's twins: ``flow_config`` over :data:`AUDIT_FLOW`
    (``flow_fit="audit"``) or over the library's defaults (``"default"``).

    Example:
        >>> audit_flow_config({"epochs": 50}).batch_size, audit_flow_config(flow_fit="default").batch_size
        (4096, 256)

    Raises:
        ParameterError: (a ``ValueError``) for another ``flow_fit``.
    """
    if flow_fit not in ("audit", "default"):
        raise ParameterError(
            f"flow_fit must be 'audit' (the audit's fast fit) or 'default' (the library's), got {flow_fit!r}."
        )
    if isinstance(flow_config, FlowConfig):
        return flow_config
    base = AUDIT_FLOW if flow_fit == "audit" else {}
    return FlowConfig.from_dict({**base, **dict(flow_config or {})})


def _check_bootstrap(n_boot: Any, ci: tuple[float, float], bootstrap: str) -> None:
    """Refuse bootstrap settings out of range (before any flow is fitted or any prediction made)."""
    if isinstance(n_boot, bool) or not isinstance(n_boot, (int, np.integer)) or n_boot < 0:
        raise ParameterError(f"n_boot must be a whole number ≥ 0 (0: no intervals), got {n_boot!r}.")
    if not (0 <= ci[0] < ci[1] <= 1):
        raise ParameterError(f"ci must be two quantiles 0 ≤ low < high ≤ 1 (e.g. (0.025, 0.975)), got {ci!r}.")
    if bootstrap not in ("rows", "pairs"):
        raise ParameterError(f"bootstrap must be 'rows' (factual rows with their twins) or 'pairs', got {bootstrap!r}.")


def audit_scores(
    d_rows: Any,
    d_cf: Any,
    twins: CounterfactualSet,
    data: Dataset | tuple[pd.DataFrame, DatasetSpec],
    *,
    seed: int = 0,
    n_boot: int = 200,
    ci: tuple[float, float] = CI_QUANTILES,
    bootstrap: Literal["rows", "pairs"] = "rows",
) -> AuditResult:
    """The audit from predictions already made, e.g. by a model outside Python.

    Each prediction is matched to its row by identity (:func:`cffair.evaluation.align`):

    * ``d_rows``, one prediction per row of ``data``: a CSV path or a frame with columns ``d``
      and ``row_id`` (the row's 0-based position in ``data``; any order), or an array (or a
      one-column frame) in ``data``'s order; a one-column CSV without ``row_id`` only with the
      row hash :func:`cffair.evaluation.save_predictions` stores beside it.
    * ``d_cf``, one prediction per row of ``twins.frame``: the same, with column ``d_cf`` and
      the twins file's key columns (``row_id`` and as many of ``feature``, ``value``, ``sample``
      as name one twin each), or an array in ``twins.frame``'s order.

    ``twins`` passes the checks of ``cffair train --counterfactuals``
    (:func:`cffair.causal._integrity.check_belongs`) and, for a binary target, the predictions
    must be probabilities in [0, 1] (:func:`check_range`).

    Raises:
        DataError: for predictions that cannot be matched to their rows (no key, a key missing,
            repeated or unknown; a positional file without its stored hash), of the wrong length,
            not finite or out of range.
        CounterfactualError: for twins that do not belong to ``data``.
        ParameterError: for ``n_boot``, ``ci`` or ``bootstrap`` out of range.
    """
    frame, spec = data
    _check_bootstrap(n_boot, ci, bootstrap)
    _check_frame(frame, spec)
    _check_twins(twins, frame, spec)
    features = list(spec.features)
    fix_rows = "add a row_id column: the 0-based position of each prediction's row in the data"
    fix_twins = "add the twins file's row_id, feature, value and sample columns to each prediction"
    d_rows = align(
        d_rows,
        factual_keys(len(frame)),
        frame,
        features,
        column="d",
        what="the predictions for the data rows",
        fix=fix_rows,
    )
    d_cf = align(
        d_cf,
        twins.frame[list(TWIN_KEYS)],
        twins.frame,
        features,
        column="d_cf",
        what="the predictions for the twins",
        fix=fix_twins,
    )
    return _scores(d_rows, d_cf, twins, frame, spec, seed=seed, n_boot=n_boot, ci=ci, bootstrap=bootstrap)


def _labels(frame: pd.DataFrame, spec: DatasetSpec) -> np.ndarray | None:
    """The target of the audited rows when ``frame`` has it (finite; 0/1 for a binary target), else ``None``."""
    if spec.target not in frame.columns:
        return None
    y = pd.to_numeric(frame[spec.target], errors="coerce").to_numpy(dtype=np.float64)
    if not np.isfinite(y).all() or (spec.target_kind == "binary" and len(np.setdiff1d(np.unique(y), [0.0, 1.0]))):
        return None
    return y


def _scores(
    d_rows: Any,
    d_cf: Any,
    twins: CounterfactualSet,
    frame: pd.DataFrame,
    spec: DatasetSpec,
    *,
    seed: int,
    n_boot: int,
    ci: tuple[float, float],
    flow: str = "twins given",
    bootstrap: str = "rows",
) -> AuditResult:
    """The audit of predictions in the order of ``frame``'s rows and of ``twins.frame``'s (checked).

    Every number is a ratio of sums over the factual rows (:mod:`cffair.evaluation._audit_stats`), resampled
    together: ``bootstrap="rows"`` draws rows with all their twins; ``"pairs"`` draws the pairs of
    the counterfactual numbers as if independent (fairlearn's scheme; kept to compare with).
    """
    from cffair.evaluation._audit_stats import audit_tables
    from cffair.scores._groupfair import group_rates

    long = twins.frame
    row_id = long["row_id"].to_numpy(dtype=np.int64)
    d_rows = _finite(d_rows, len(frame), "the predictions for the factual rows")
    d_cf = _finite(d_cf, len(long), "the predictions for the twins")
    check_range(d_rows, spec.target_kind, "the predictions for the factual rows")
    check_range(d_cf, spec.target_kind, "the predictions for the twins")
    d = d_rows[row_id]
    threshold = (
        0.5 if spec.target_kind == "binary" else decision_threshold(d_rows, "score", spec.favourable_top_fraction)
    )
    row_labels = spec.subgroup_labels(frame).to_numpy().astype(str)
    labels = row_labels[row_id]
    pairs = pd.DataFrame(
        {
            "row_id": row_id,
            "feature": long["feature"].astype(str).to_numpy(),
            "value": long["value"].astype(str).to_numpy(),
            "subgroup": labels,
            "d": d,
            "d_cf": d_cf,
        }
    )
    y = _labels(frame, spec)
    sensitive = frame[spec.sensitive].astype(str).to_numpy()
    by, table, accuracy = audit_tables(
        d_rows,
        d_cf,
        row_id,
        row_labels,
        sensitive,
        y,
        threshold=threshold,
        target_kind=spec.target_kind,
        n_boot=n_boot,
        seed=seed,
        ci=ci,
        bootstrap=bootstrap,
    )
    decided = (d_rows >= threshold).astype(np.float64)
    eo_labels = y if spec.target_kind == "binary" else None
    rates = group_rates(decided, pd.Series(sensitive), eo_labels).rename_axis(spec.sensitive)
    return AuditResult(
        cf_mse=cf_mse(d, d_cf),
        cf_flip_rate=cf_flip_rate(d, d_cf, threshold=threshold),
        threshold=float(threshold),
        n_pairs=len(pairs),
        n_rows=len(frame),
        by_subgroup=by,
        pairs=pairs,
        overall=table,
        groups=rates,
        accuracy=accuracy,
        flow=flow,
        bootstrap=bootstrap,
    )
