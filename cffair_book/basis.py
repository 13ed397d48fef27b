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
from cffair_book.wording import joined, say

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


def _count(n: int, repetitions: int) -> str:
    if repetitions > 1 and n % repetitions == 0:
        return say("basis.count", "repetitions", count=n, repetitions=repetitions, folds=n // repetitions)
    return say("basis.count", "plain", count=n)


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
        say("basis.counted_on", "every", count=_count(n, reps))
        if len(groups) == 1 and every and len(names) > 1
        else say("basis.counted_on", "named", count=_count(n, reps), datasets=joined(names))
        for (n, reps), names in groups.items()
    ]
    first = parts[0].split(" ", 1)
    parts[0] = say("basis.first", count=first[0], rest=first[1])  # "5 folds on …", "15 folds (3 × 5) on …"
    return "; ".join(parts)


def table_caption(records: Sequence[Record]) -> str:
    """What a chapter's tables and figures average, as the end of their caption: ``"means ± sd over
    the paper's partition: 5 folds on every dataset"`` (the folds of repetition 0 the records hold)."""
    counts = fold_counts(records, every_repetition=False)
    if not counts:
        return say("basis.no_records")
    return say("basis.table_caption", folds=folds_phrase(counts))


def verdict_caption(records: Sequence[Record], what: str) -> str:
    """The caption of a chapter's claims table: which claims, and the folds their verdicts read
    (every repetition of cross-validation the records hold)."""
    counts = fold_counts(records)
    basis = folds_phrase(counts) if counts else say("basis.no_records")
    return say("basis.verdict_caption", what=what, folds=basis)


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
            text = say(
                "basis.example", method=name, dataset=reporting.dataset_name(dataset), table=table, verdict=verdict
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
        return HTMLBlock(say("basis.same_folds", folds=html.escape(folds_phrase(read))))
    example = _example(records, more[0])
    same = [reporting.dataset_name(ds) for ds in read if ds not in more]
    text = say(
        "basis.two_sets",
        shown=html.escape(folds_phrase(shown)),
        read=html.escape(folds_phrase({ds: read[ds] for ds in more}, every=False)),
    )
    detail = say(
        "basis.differ",
        datasets=html.escape(joined([reporting.dataset_name(ds) for ds in more])),
        example=say("basis.differ_example", example=html.escape(example)) if example else "",
        same=say("basis.differ_same", datasets=html.escape(joined(same))) if same else "",
    )
    return HTMLBlock(say("basis.note", css=NOTE_CLASS, text=text, detail=detail))


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
    read = [say("basis.claims_read", folds=c.folds, key=c.key) for c in claims if getattr(c, "folds", "")]
    return say(
        "basis.claims_caption",
        "one" if len(claims) == 1 else "many",
        what=what,
        read="; ".join(read) if read else say("basis.claims_records"),
    )
