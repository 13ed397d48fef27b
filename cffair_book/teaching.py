"""The book as a course: the toy knowledge base of "LTN in ten minutes" and the worked example
of one person beside their twin.

* :func:`toy_loans` — a tiny loan dataset drawn from a known structural causal model, so that
  every person's counterfactual twin is exact (no flow needed); trains in seconds.
* :func:`connective_table`, :func:`quantifier_table` — the fuzzy connectives and quantifiers of
  :mod:`cffair.logic._axioms` evaluated on a few truth values, for reading.
* :func:`plot_history`, :func:`plot_equivalence` — a training run's satisfactions per epoch,
  and ``a ↔ a`` with ltntorch's operators (the ½ ↔ ½ = 0.5625 subtlety).
* :func:`pick_twin`, :func:`twin_table` — one person and their twin, feature by feature, with
  the decisions of two models.
* :func:`docstring_table` — a table of a library docstring (the spec file's keys) as a frame, so that
  a page shows the reference's own text as a table, not as raw reStructuredText.

The boxes that open and close each chapter are made by :mod:`cffair_book.pages`.

matplotlib and seaborn are imported inside the plotting functions.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from cffair.errors import DataError
from cffair.reporting._style import (
    MARKERS,
    MAX_WIDTH_IN,
    book_style,
    finish,
    legend_below,
    line_handles,
    series_colours,
)

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.figure import Figure

    from cffair.logic import Semantics

__all__ = [
    "ToyLoans",
    "connective_table",
    "docstring_table",
    "pick_twin",
    "plot_equivalence",
    "plot_history",
    "quantifier_table",
    "toy_loans",
    "twin_table",
]


# ---------------------------------------------------------------------------- the toy knowledge base
@dataclass(frozen=True)
class ToyLoans:
    """A toy loan dataset and each person's exact counterfactual twin.

    Attributes:
        frame: one row per person: ``group`` (the sensitive attribute S, 0 or 1), ``savings``
            and ``repaid`` (the label).
        X: the model's inputs ``[group, savings]`` (float32).
        y: the labels.
        X_twin: each person's twin: ``group`` flipped and ``savings`` changed as the causal
            model says (same exogenous thrift), row i the twin of row i.
    """

    frame: pd.DataFrame
    X: np.ndarray
    y: np.ndarray
    X_twin: np.ndarray


def toy_loans(n: int = 400, *, direct: float = 0.8, mediated: float = 1.0, seed: int = 0) -> ToyLoans:
    """Draw ``n`` people from a three-variable structural causal model::

        group   S ~ Bernoulli(½)
        savings   = 1 + mediated · S + ½ · U,          U ~ N(0, 1)  (thrift, unobserved)
        repaid    = 1[savings + direct · S + E > 2],   E ~ N(0, 0.4²)

    ``direct`` is how much the group changes repayment beyond savings, ``mediated`` how much
    it changes savings. A person's twin keeps U and flips S, so its savings move by
    ± ``mediated``: the counterfactual of Kusner et al., exactly.

    Raises:
        DataError: if ``n`` is smaller than 2 or an effect is not a finite number.
    """
    if not isinstance(n, (int, np.integer)) or n < 2:
        raise DataError(f"n must be an integer of at least 2, got {n!r}.")
    for name, v in (("direct", direct), ("mediated", mediated)):
        if not (isinstance(v, (int, float)) and np.isfinite(v)):
            raise DataError(f"{name} must be a finite number, got {v!r}.")
    rng = np.random.default_rng(seed)
    s = rng.integers(0, 2, n)
    thrift = rng.normal(0.0, 1.0, n)
    savings = 1.0 + mediated * s + 0.5 * thrift
    repaid = ((savings + direct * s + rng.normal(0.0, 0.4, n)) > 2.0).astype(np.int64)
    twin_savings = savings + mediated * ((1 - s) - s)
    frame = pd.DataFrame({"group": s, "savings": savings, "repaid": repaid})
    X = np.c_[s, savings].astype(np.float32)
    X_twin = np.c_[1 - s, twin_savings].astype(np.float32)
    return ToyLoans(frame, X, repaid.astype(np.float32), X_twin)


def connective_table(
    semantics: Semantics, pairs: Iterable[tuple[float, float]] = ((0.9, 0.8), (0.5, 0.5), (0.2, 0.9), (1.0, 0.0))
) -> pd.DataFrame:
    """¬a, a ∧ b, a → b and a ↔ b under ``semantics`` for each pair of truth values (a, b)."""
    import torch

    rows = []
    for a, b in pairs:
        ta, tb = torch.tensor([float(a)]), torch.tensor([float(b)])
        rows.append(
            {
                "a": a,
                "b": b,
                "¬a": float(semantics.not_(ta)),
                "a ∧ b": float(semantics.and_(ta, tb)),
                "a → b": float(semantics.implies(ta, tb)),
                "a ↔ b": float(semantics.equiv(ta, tb)),
            }
        )
    return pd.DataFrame(rows).round(4)


def quantifier_table(truths: Sequence[float], ps: Sequence[float] = (1, 2, 6)) -> pd.DataFrame:
    """∀ (p-mean error) and ∃ (p-mean) of ``truths`` for each exponent p, beside min, mean and max."""
    import torch

    from cffair.logic import Semantics

    t = torch.tensor([float(v) for v in truths])
    if t.numel() == 0:
        raise DataError("no truth values to quantify over.")
    rows = []
    for p in ps:
        sem = Semantics(p_forall=float(p), p_exists=float(p), stable=False)
        rows.append({"p": p, "∀ (p-mean error)": float(sem.forall(t)), "∃ (p-mean)": float(sem.exists(t))})
    out = pd.DataFrame(rows).set_index("p").round(4)
    out.attrs.update(minimum=float(t.min()), mean=float(t.mean()), maximum=float(t.max()))
    return out


# ---------------------------------------------------------------------------- figures
def plot_history(history: pd.DataFrame, *, axioms: Sequence[str] | None = None) -> Figure:
    """Satisfaction per epoch of the knowledge base ("sat") and of each axiom, one line each,
    with a dotted line where a new training stage (e.g. the fairness axioms) begins.

    Args:
        history: ``LTNLearner.history_``: columns ``epoch``, ``stage``, ``sat`` and one per axiom.
        axioms: the columns to draw (default: ``sat`` and every axiom column).
    """
    import seaborn as sns

    missing = [c for c in ("epoch", "stage", "sat") if c not in history.columns]
    if missing:
        raise DataError(f"the history lacks column(s) {missing}; pass LTNLearner.history_.")
    names = list(axioms) if axioms is not None else [c for c in history.columns if c not in ("epoch", "stage")]
    long = history.melt(
        id_vars=["epoch", "stage"], value_vars=names, var_name="formula", value_name="satisfaction"
    ).dropna()
    colours = series_colours(names)
    markers = [MARKERS[i % len(MARKERS)] for i in range(len(names))]
    every = max(1, int(history["epoch"].nunique() // 8))
    with book_style():
        import matplotlib.pyplot as plt

        fig, ax = plt.subplots(figsize=(MAX_WIDTH_IN * 0.85, 3.4), layout="constrained")
        sns.lineplot(
            data=long,
            x="epoch",
            y="satisfaction",
            hue="formula",
            hue_order=names,
            palette=colours,
            style="formula",
            style_order=names,
            markers=dict(zip(names, markers)),
            dashes=False,
            markevery=every,
            ax=ax,
            legend=False,
        )
        starts = history.groupby("stage", sort=False)["epoch"].min().iloc[1:]
        for stage, epoch in starts.items():
            ax.axvline(epoch - 0.5, color="#777777", linestyle=":", linewidth=1.2)
            ax.annotate(
                f"{stage} →",
                (epoch, 1.0),
                xycoords=("data", "axes fraction"),
                xytext=(4, -14),
                textcoords="offset points",
                color="#555555",
            )
        ax.set_ylabel("satisfaction")
        legend_below(fig, line_handles([colours[n] for n in names], markers), names, ncol=min(4, len(names)))
        return finish(fig)


def plot_equivalence(semantics: Semantics | None = None) -> Figure:
    """``a ↔ a`` for a from 0 to 1 with the (stable) operators of ``semantics``, beside the exact
    formula (1 − a + a²)², with the value at ½ marked (0.5625)."""
    import torch

    from cffair.logic import Semantics

    sem = semantics or Semantics()
    a = torch.linspace(0.0, 1.0, 201)
    truth = sem.equiv(a, a).numpy()
    exact = (1 - a + a**2).pow(2).numpy()
    half = float(sem.equiv(torch.tensor(0.5), torch.tensor(0.5)))
    colours = series_colours(["ltn", "exact"])
    with book_style():
        import matplotlib.pyplot as plt

        fig, ax = plt.subplots(figsize=(MAX_WIDTH_IN * 0.8, 3.4), layout="constrained")
        ax.plot(a.numpy(), truth, color=colours["ltn"], linewidth=2.2)
        ax.plot(a.numpy(), exact, color=colours["exact"], linestyle="--", linewidth=1.8)
        ax.plot([0.5], [half], marker="o", color="black", markersize=7, linestyle="none")
        ax.annotate(f"{half:.4f} at a = 0.5", (0.5, half), textcoords="offset points", xytext=(0, -22), ha="center")
        ax.set_xlabel("prediction a = D(x) = D(x′)")
        ax.set_ylabel("truth of D(x) ↔ D(x′)")
        ax.set_ylim(0.5, 1.03)
        legend_below(
            fig,
            line_handles([colours["ltn"], colours["exact"]], ["", ""], ["-", "--"]),
            ["ltntorch, stable operators", "exact: (1 − a + a²)²"],
            ncol=2,
        )
        return finish(fig)


# ---------------------------------------------------------------------------- one person and their twin
def pick_twin(
    d_x_before: np.ndarray, d_twin_before: np.ndarray, d_x_after: np.ndarray, d_twin_after: np.ndarray
) -> int:
    """The pair where a fairness axiom helped most: the largest drop from |D(x) − D(x′)| under
    the first model to |D(x) − D(x′)| under the second.

    Raises:
        DataError: if the four arrays differ in length or are empty.
    """
    arrays = [np.asarray(a, dtype=float).ravel() for a in (d_x_before, d_twin_before, d_x_after, d_twin_after)]
    if len({len(a) for a in arrays}) != 1 or len(arrays[0]) == 0:
        raise DataError(
            f"the four prediction arrays must have one equal, non-zero length, got {[len(a) for a in arrays]}."
        )
    gain = np.abs(arrays[0] - arrays[1]) - np.abs(arrays[2] - arrays[3])
    return int(np.argmax(gain))


def twin_table(
    person: pd.Series, twin: pd.Series, decisions: Mapping[str, tuple[float, float]], *, decimals: int = 0
) -> pd.DataFrame:
    """A person and their counterfactual twin side by side: one row per feature (numbers rounded
    to ``decimals``), a "changed" mark where they differ, then one row per model with its
    decision D(x) and D(x′).

    Args:
        person, twin: decoded rows (same index: the features).
        decisions: ``model name → (D(x), D(x′))``.
    """
    if list(person.index) != list(twin.index):
        raise DataError(f"the person and the twin have different features: {list(person.index)} vs {list(twin.index)}.")

    def show(v: Any) -> str:
        if isinstance(v, (float, np.floating)):
            return f"{float(v):,.{decimals}f}" if abs(float(v)) >= 0.5 * 10**-decimals else f"{0:.{decimals}f}"
        return str(v)

    rows = {
        f: {"x (the person)": show(a), "x′ (the twin)": show(b), "changed": "✓" if show(a) != show(b) else ""}
        for f, a, b in zip(person.index, person.to_numpy(), twin.to_numpy())
    }
    for name, (dx, dc) in decisions.items():
        rows[f"D under {name}"] = {
            "x (the person)": f"{dx:.3f}",
            "x′ (the twin)": f"{dc:.3f}",
            "changed": f"|Δ| = {abs(dx - dc):.3f}",
        }
    out = pd.DataFrame.from_dict(rows, orient="index")
    out.index.name = "feature"
    return out


def docstring_table(doc: str, heading: str) -> pd.DataFrame:
    r"""The first table under ``heading`` in a reStructuredText docstring, as a frame of its text.

    The table's first row is the header; inline markup (double-backquoted literals, Sphinx roles such
    as ``:mod:``) is read as its text, and a cell that wraps over several lines is one string. docutils
    parses it (the parser Sphinx gives the API reference), so the page and the reference show one text.

    >>> rule = "===== ==========="
    >>> doc = "\n".join(["Keys", "----", "", rule, "key   meaning", rule,
    ...                  "``a`` the first,", "      wrapped", "``b`` :mod:`m`", rule, ""])
    >>> docstring_table(doc, "Keys").to_dict("records")
    [{'key': 'a', 'meaning': 'the first, wrapped'}, {'key': 'b', 'meaning': 'm'}]
    """
    from docutils import nodes
    from docutils.core import publish_doctree

    if heading not in doc:
        raise KeyError(f"the docstring has no heading {heading!r}")
    # Sphinx's roles (:class:, :mod:) are unknown to plain docutils: each is read as its target's name
    text = re.sub(r":[a-z]+:`~?([^`]+)`", r"\1", doc[doc.index(heading) :])
    tree = publish_doctree(text, settings_overrides={"report_level": 5, "halt_level": 5})
    table = next(iter(tree.findall(nodes.table)), None)
    if table is None:
        raise KeyError(f"no table under the heading {heading!r}")
    rows = [[" ".join(e.astext().split()) for e in row.findall(nodes.entry)] for row in table.findall(nodes.row)]
    return pd.DataFrame(rows[1:], columns=rows[0])
