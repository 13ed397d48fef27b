"""Scores of generated counterfactuals against true ones (for models with known twins,
:mod:`cffair.causal._synthetic`).

* numeric nodes: RMSE of the per-row mean of the generated draws against the true twin, next
  to "leave it unchanged" (the factual value) and to the oracle's posterior mean;
* category nodes: agreement (share of draws equal to the true twin; ``agreement_moved`` on the
  rows whose true twin differs from the factual value, where leaving a node unchanged scores 0),
  the share of rows each changes, and the transition-table distance ``max_{a,b} |P_gen(x' = b | x = a) - P_true(x' = b | x = a)|``
  over factual values ``a`` seen in at least ``min_count`` rows.

Every function takes long frames with ``row_id`` (position in the factual frame), optionally
``sample``, and feature columns with the factual frame's dtypes.
"""

from __future__ import annotations

__all__ = ["compare_with_truth", "table_gap", "transition_table"]

from collections.abc import Iterable

import numpy as np
import pandas as pd

CATEGORY_KINDS = ("binary", "ordinal", "categorical")


def transition_table(
    before: pd.Series | np.ndarray, after: pd.Series | np.ndarray, categories: Iterable[str]
) -> pd.DataFrame:
    """``P(x' = b | x = a)``: rows ``a`` (factual), columns ``b`` (counterfactual), rows sum to 1
    (a value never seen as factual gives a row of NaN).

    Example:
        >>> transition_table(["a", "a", "b"], ["a", "b", "b"], ["a", "b"]).to_numpy().tolist()
        [[0.5, 0.5], [0.0, 1.0]]
    """
    cats = [str(c) for c in categories]
    b = pd.Categorical(np.asarray(before).astype(str), categories=cats)
    a = pd.Categorical(np.asarray(after).astype(str), categories=cats)
    counts = pd.crosstab(pd.Series(b, name="factual"), pd.Series(a, name="counterfactual"), dropna=False)
    counts = counts.reindex(index=cats, columns=cats, fill_value=0)
    totals = counts.sum(axis=1).to_numpy(dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        return counts.div(np.where(totals > 0, totals, np.nan), axis=0)


def table_gap(
    generated: pd.DataFrame, true: pd.DataFrame, counts: pd.Series | None = None, min_count: int = 20
) -> float:
    """Largest absolute difference between two transition tables over the factual values with at
    least ``min_count`` rows (``counts``; default every row present in both)."""
    rows = [r for r in true.index if (counts is None or counts.get(r, 0) >= min_count)]
    if not rows:
        return float("nan")
    diff = (generated.loc[rows] - true.loc[rows]).abs().to_numpy()
    return float(np.nanmax(diff)) if np.isfinite(diff).any() else float("nan")


def compare_with_truth(
    factual: pd.DataFrame,
    generated: pd.DataFrame,
    truth: pd.DataFrame,
    nodes: dict[str, str],
    oracle: pd.DataFrame | None = None,
    min_count: int = 20,
) -> pd.DataFrame:
    """Scores of ``generated`` against ``truth`` for each node in ``nodes`` (``{name: kind}``).

    Args:
        factual: the factual frame (positions are the ``row_id`` of the others).
        generated: generated twins (long: ``row_id``, optional ``sample``, features).
        truth: the true twins, one per ``row_id``.
        nodes: the nodes to score and their kinds (the descendants of the intervened feature).
        oracle: draws of the oracle (:meth:`cffair.causal._synthetic.SyntheticData.oracle`).
        min_count: smallest factual-value count for a transition-table row.

    Returns:
        A tidy frame with columns ``node``, ``kind``, ``metric``, ``value``.
    """
    truth = truth.set_index("row_id")
    out: list[tuple[str, str, str, float]] = []

    def draws_vs_truth(draws: pd.DataFrame, col: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        ids = draws["row_id"].to_numpy()
        return draws[col].to_numpy(), truth.loc[ids, col].to_numpy(), factual[col].to_numpy()[ids]

    for col, kind in nodes.items():
        ids = truth.index.to_numpy()
        t = truth[col].to_numpy()
        f = factual[col].to_numpy()[ids]
        if kind in ("continuous", "integer"):
            t = t.astype(float)
            g_mean = generated.groupby("row_id")[col].mean().reindex(ids).to_numpy(dtype=float)
            out.append((col, kind, "rmse", _rmse(g_mean, t)))
            g, tg, _ = draws_vs_truth(generated, col)
            out.append((col, kind, "rmse_draw", _rmse(g.astype(float), tg.astype(float))))
            out.append((col, kind, "rmse_unchanged", _rmse(f.astype(float), t)))
            if oracle is not None:
                o_mean = oracle.groupby("row_id")[col].mean().reindex(ids).to_numpy(dtype=float)
                out.append((col, kind, "rmse_oracle", _rmse(o_mean, t)))
                o, to, _ = draws_vs_truth(oracle, col)
                out.append((col, kind, "rmse_oracle_draw", _rmse(o.astype(float), to.astype(float))))
        if kind != "continuous":
            g, tg, fg = draws_vs_truth(generated, col)
            out.append((col, kind, "agreement", float(np.mean(_s(g) == _s(tg)))))
            moved = _s(tg) != _s(fg)
            out.append(
                (
                    col,
                    kind,
                    "agreement_moved",
                    float(np.mean(_s(g)[moved] == _s(tg)[moved])) if moved.any() else float("nan"),
                )
            )
            out.append((col, kind, "changed_true", float(np.mean(_s(t) != _s(f)))))
            out.append((col, kind, "changed", float(np.mean(_s(g) != _s(fg)))))
            if oracle is not None:
                o, to, _ = draws_vs_truth(oracle, col)
                out.append((col, kind, "agreement_oracle", float(np.mean(_s(o) == _s(to)))))
                o_moved = _s(to) != _s(factual[col].to_numpy()[oracle["row_id"].to_numpy()])
                out.append(
                    (
                        col,
                        kind,
                        "agreement_moved_oracle",
                        float(np.mean(_s(o)[o_moved] == _s(to)[o_moved])) if o_moved.any() else float("nan"),
                    )
                )
        if kind in CATEGORY_KINDS:
            cats = [str(c) for c in factual[col].cat.categories]
            counts = pd.Series(_s(f)).value_counts()
            true_t = transition_table(f, t, cats)
            g, _, fg = draws_vs_truth(generated, col)
            out.append((col, kind, "table_gap", table_gap(transition_table(fg, g, cats), true_t, counts, min_count)))
            if oracle is not None:
                o, _, fo = draws_vs_truth(oracle, col)
                out.append(
                    (col, kind, "table_gap_oracle", table_gap(transition_table(fo, o, cats), true_t, counts, min_count))
                )
    return pd.DataFrame(out, columns=["node", "kind", "metric", "value"])


def _rmse(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.sqrt(np.mean((np.asarray(a, dtype=float) - np.asarray(b, dtype=float)) ** 2)))


def _s(x: np.ndarray) -> np.ndarray:
    return np.asarray(x).astype(str)
