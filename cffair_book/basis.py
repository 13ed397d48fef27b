"""Which folds a page's numbers average: one basis per page, or a note where there are two.

The chapters' tables and figures show the paper's partition (repetition 0 of 5-fold
cross-validation: 5 folds), while their verdicts read every repetition the records hold (on COMPAS
and Lawschool three partitions, 15 paired folds). A mean quoted in a verdict then differs from the
same mean in the table above it. This module says so where it happens, from the records
themselves:

* :func:`table_caption` -- the words a table's or figure's caption ends with ("means ± sd over the
  paper's partition: 5 folds per dataset").
* :func:`verdict_caption` -- the caption of a chapter's claims table, naming the folds its
  verdicts read ("checked on every paired fold: 5 on Adult and COMPAS(age); 15 (3 × 5) on
  COMPAS and Lawschool").
* :func:`basis_note` -- a visible note (class :data:`NOTE_CLASS`) that names each dataset on which
  the verdict reads more folds than the tables, with one mean as both give it; or one sentence
  saying that both read the same folds.

``tests/book_checks.py`` (``basis_mismatch``) holds every built page to it: a mean a verdict
quotes that no table of its page shows fails the page, unless a note of class :data:`NOTE_CLASS`
names the dataset.
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from cffair import reporting
from cffair.reporting._records import as_records
from cffair_book.html_block import HTMLBlock

if TYPE_CHECKING:  # reading records loads no store (a Record comes from as_records)
    from cffair.experiments import Record

__all__ = [
    "NOTE_CLASS",
    "basis_note",
    "claims_caption",
    "fold_counts",
    "folds_phrase",
    "paper_partition",
    "table_caption",
    "verdict_caption",
]

#: The class of the note that says a verdict reads other folds than the tables
#: (``tests/book_checks.py`` looks for it).
NOTE_CLASS = "cffair-basis-note"

#: The partition the tables show: the paper's (repetition 0).
_PAPER_PARTITION = 0


def fold_counts(records: Sequence[Record], *, every_repetition: bool = True) -> dict[str, tuple[int, int]]:
    """Per dataset, how many folds the paper's protocol records cover and from how many partitions:
    ``{"adult": (5, 1), "compas": (15, 3)}``. Only the protocol's records count (no weight point,
    seed or investigation: no ``tag``, no ``options``); without ``every_repetition`` only the
    paper's partition (what the tables and figures show).

    >>> recs = [{"config": {"dataset": "compas", "fold": f, "repeat": r, "setting": "ltn_acc"}, "metrics": {}}
    ...         for r in (0, 1) for f in range(5)]
    >>> fold_counts(recs), fold_counts(recs, every_repetition=False)
    ({'compas': (10, 2)}, {'compas': (5, 1)})
    """
    seen: dict[str, set[tuple[int, int]]] = {}
    for r in as_records(records):
        c = r.config
        if c.tag or c.options:
            continue
        if not every_repetition and c.repeat != _PAPER_PARTITION:
            continue
        seen.setdefault(c.dataset, set()).add((c.repeat, c.fold))
    return {ds: (len(f), len({r for r, _ in f})) for ds, f in sorted(seen.items(), key=lambda kv: _order(kv[0]))}


def _order(dataset: str) -> int:
    order = list(reporting.DATASET_ORDER)
    return order.index(dataset) if dataset in order else len(order)


def _and(items: Sequence[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def _count(n: int, repetitions: int) -> str:
    return f"{n} ({repetitions} × {n // repetitions})" if repetitions > 1 and n % repetitions == 0 else str(n)


def folds_phrase(counts: Mapping[str, tuple[int, int]], *, every: bool = True) -> str:
    """``fold_counts`` in words, datasets of the same count together: ``"5 folds on Adult; 15 (3 × 5)
    on COMPAS and Lawschool"``, or ``"5 folds on every dataset"`` (unless ``every`` is False: then
    the datasets are named).

    >>> folds_phrase({"adult": (5, 1), "compas": (15, 3), "lawschool": (15, 3)})
    '5 folds on Adult; 15 (3 × 5) on COMPAS and Lawschool'
    >>> folds_phrase({"adult": (5, 1), "compas": (5, 1)})
    '5 folds on every dataset'
    >>> folds_phrase({"compas": (15, 3), "lawschool": (15, 3)}, every=False)
    '15 folds (3 × 5) on COMPAS and Lawschool'
    """
    groups: dict[tuple[int, int], list[str]] = {}
    for ds, count in counts.items():
        groups.setdefault(count, []).append(reporting.dataset_name(ds))
    parts = [
        f"{_count(n, reps)} on {'every dataset' if len(groups) == 1 and every and len(names) > 1 else _and(names)}"
        for (n, reps), names in groups.items()
    ]
    first = parts[0].split(" ", 1)
    parts[0] = f"{first[0]} folds {first[1]}"  # "5 folds on …", "15 folds (3 × 5) on …"
    return "; ".join(parts)


def table_caption(records: Sequence[Record]) -> str:
    """What a chapter's tables and figures average, as the end of their caption: ``"means ± sd over
    the paper's partition: 5 folds on every dataset"`` (the folds of repetition 0 the records hold)."""
    counts = fold_counts(records, every_repetition=False)
    if not counts:
        return "no records"
    return f"mean ± sd over the paper's partition: {folds_phrase(counts)}"


def verdict_caption(records: Sequence[Record], what: str) -> str:
    """The caption of a chapter's claims table: which claims, and the folds their verdicts read
    (every repetition of cross-validation the records hold)."""
    counts = fold_counts(records)
    basis = folds_phrase(counts) if counts else "no records"
    return f"The paper's {what} claims, checked on every paired fold of this page's records ({basis}); means over those folds."


def _example(records: Sequence[Record], dataset: str) -> str:
    """One mean on ``dataset`` as the tables and as the verdict give it: the CF-MSE of the method
    (with records in every repetition) whose two means differ most."""
    frame = reporting.records_frame(records)
    frame = frame[(frame["dataset"] == dataset) & (frame["tag"] == "") & (frame["options"] == "")]
    best: tuple[float, str] | None = None
    for method, rows in frame.groupby("method", sort=False):
        if rows["repeat"].nunique() > 1 and rows["cf_mse"].notna().any():
            table = float(rows.loc[rows["repeat"] == _PAPER_PARTITION, "cf_mse"].mean())
            verdict = float(rows["cf_mse"].mean())
            name = reporting.method_name(str(method))
            text = (
                f"the CF-MSE of {name} on {reporting.dataset_name(dataset)} is {table:.3f} in the tables and "
                f"{verdict:.3f} in the verdict"
            )
            if best is None or abs(table - verdict) > best[0]:
                best = (abs(table - verdict), text)
    return best[1] if best is not None else ""


def basis_note(records: Sequence[Record]) -> HTMLBlock:
    """The note a verdict box opens with: where the verdict reads more folds than the tables (a
    visible note of class :data:`NOTE_CLASS` that names those datasets, with one mean both ways
    folded beneath it in a ``<details>``), or one sentence saying that tables and verdict read the
    same folds."""
    records = as_records(records)
    shown = fold_counts(records, every_repetition=False)
    read = fold_counts(records)
    more = [ds for ds in read if read[ds] != shown.get(ds)]
    if not more:
        return HTMLBlock(
            f"<p>The tables and figures above and this verdict read the same folds: {html.escape(folds_phrase(read))}.</p>"
        )
    names = _and([reporting.dataset_name(ds) for ds in more])
    example = _example(records, more[0])
    same = [reporting.dataset_name(ds) for ds in read if ds not in more]
    text = (
        f"<strong>Two sets of folds on this page.</strong> The tables and figures above show the paper's partition "
        f"({html.escape(folds_phrase(shown))}); this verdict reads every repetition of cross-validation the records "
        f"hold ({html.escape(folds_phrase({ds: read[ds] for ds in more}, every=False))})."
    )
    detail = (
        f"Its means on {html.escape(names)} therefore differ from the tables' in the last digits"
        + (f" ({html.escape(example)})" if example else "")
        + (f"; on {html.escape(_and(same))} both read the same folds" if same else "")
        + ". The Reproducing page's deviations table says why the claims read more folds."
    )
    return HTMLBlock(
        f'<div class="admonition note {NOTE_CLASS}"><p>{text}</p>'
        f"<details><summary>What that changes</summary><p>{detail}</p></details></div>"
    )


def paper_partition(records: Sequence[Record]) -> list[Record]:
    """The records of the paper's partition only (repetition 0): what a table or figure shows when
    it says "the paper's partition", with every method on the same folds.

    >>> recs = [{"config": {"dataset": "compas", "fold": 0, "repeat": r, "setting": "ltn_acc"}} for r in (0, 1, 2)]
    >>> [r.config.repeat for r in paper_partition(recs)]
    [0]
    """
    return [r for r in as_records(records) if r.config.repeat == _PAPER_PARTITION]


def claims_caption(claims: Sequence[Any], what: str) -> str:
    """The caption of a claims table whose claims read runs, weight points or subgroups rather than
    paired folds (Q3, Q4, appendix B): each claim with what it was checked on, from its ``folds``.

    >>> from types import SimpleNamespace as C
    >>> claims_caption([C(key="Q4.1", folds="4 subgroups, 1 fold")], "Q4")
    "The paper's Q4 claim, checked on: 4 subgroups, 1 fold (Q4.1)."
    """
    noun = "claim" if len(claims) == 1 else "claims"
    read = [f"{c.folds} ({c.key})" for c in claims if getattr(c, "folds", "")]
    return f"The paper's {what} {noun}, checked on: {'; '.join(read) if read else 'the records of this page'}."
