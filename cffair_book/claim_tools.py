"""What the claim checks share: the comparisons per dataset and the parts of their notes (:mod:`.claims`)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence

from cffair.reporting import dataset_name, method_name
from cffair.reporting._verdicts import (
    HOLDS,
    SHARED_DATASETS,
    Basis,
    Evidence,
    Paired,
    decide,
)
from cffair.reporting._verdicts import fmt as _fmt
from cffair.reporting._verdicts import p_text as _p
from cffair_book.wording import note


def _flips(e: Evidence, d: str, methods: Sequence[str]) -> str:
    """``" (flip rate 2.9 % vs 7.7 %)"``: the methods' flip rates on ``d`` when every one has one."""
    if not all((d, m) in e.flips for m in methods):
        return ""
    return " (flip rate " + " vs ".join(f"{100 * e.flips[(d, m)]:.1f} %" for m in methods) + ")"


# ---------------------------------------------------------------------------- comparisons
_UNCOUNTED = note("uncounted")


def _shared_note(shown: Iterable[str], methods: Sequence[str]) -> str:
    """``"; COMPAS(age) is shown, not counted: LTN(acc) and LTN(acc+CF) run the same there as on COMPAS"``."""
    shown = list(dict.fromkeys(shown))
    if not shown:
        return ""

    names = [
        method_name(m.split("@")[0]) + (" on the GAN's twins" if m.endswith("@gan") else "")
        for m in dict.fromkeys(methods)
    ]
    who = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
    return "; " + "; ".join(
        note("shared", dataset=dataset_name(d), who=who, base=dataset_name(SHARED_DATASETS[d])) for d in shown
    )


def _per_dataset(
    e: Evidence,
    datasets: Iterable[str],
    a: str,
    b: str,
    metric: str,
    larger: bool | Mapping[str, bool],
    text: Callable[[str, Paired], str],
) -> tuple[str, str, Basis]:
    """Compare ``a`` with ``b`` on each dataset (fold-paired) and decide on the datasets that count:
    ``(verdict, note, basis)``. ``larger`` may differ per dataset (a mapping)."""
    results = {d: e.compare(d, a, b, metric, larger[d] if isinstance(larger, Mapping) else larger) for d in datasets}
    counted = [d for d in results if e.counts(d, (a, b), metric)]
    dec = decide([results[d] for d in counted], labels=[dataset_name(d) for d in counted])
    note = "; ".join(text(d, r) + ("" if d in counted else _UNCOUNTED) for d, r in results.items())
    return dec.verdict, note + _shared_note([d for d in results if d not in counted], (a, b)), dec.basis


def _change(
    e: Evidence, values: Mapping[tuple[str, str], float], before: str, after: str
) -> Callable[[str, Paired], str]:
    """A note part: ``"Adult 0.160 → 0.065 (p < 0.001, sign-flip 0.062)"``."""
    return lambda d, r: f"{dataset_name(d)} {_fmt(values[(d, before)])} → {_fmt(values[(d, after)])} ({_p(r)})"


def _side(v: str) -> str:
    """A rejected comparison's side, for a note: ``"as claimed"`` or ``"against the claim"``."""
    return "as claimed" if v == HOLDS else "against the claim"


def _investigation(finding: str | None) -> str:  # for a claim that failed; nothing without a finding
    return note("investigation", finding=finding) if finding else ""
