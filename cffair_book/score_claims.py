"""Every claim decided on each co-primary score, and the paper's headline answer per score in words
the verdicts choose.

:func:`score_claims` runs the registered claim checks (the claims table's, by its rules) once per
score of :data:`cffair.reporting.SCORES`: the records with the flip rate or the calibrated
CF-MSE in CF-MSE's place, overall and worst subgroup. A claim about accuracy reads the same on every
score; a claim about fairness may not. :func:`headline_answer` says what the paper's headline
(Q2.1: "the LTN is fairer than the baselines") comes to on each score, naming the baselines each
score finds the LTN significantly fairer or less fair than, and whether the answer depends on the
score. Nothing in it is fixed text about the results: every word that says which way a comparison
went is chosen from the verdicts' comparisons (:attr:`~cffair_book.registry.Claim.supports`,
:attr:`~cffair_book.registry.Claim.against`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import pandas as pd

from cffair.errors import DataError
from cffair.reporting import SCORES, score_records
from cffair.reporting._verdicts import FAILS, HOLDS, PENDING
from cffair_book.claims import evaluate_claims
from cffair_book.registry import Claim, claim_status
from cffair_book.wording import joined, say, spoken

if TYPE_CHECKING:  # reading records loads no store (a Record comes from as_records)
    from cffair.experiments import Record

__all__ = ["HEADLINE", "headline_answer", "score_claims", "score_verdicts"]

#: The claim whose verdict is the paper's headline answer.
HEADLINE = "Q2.1"


def score_verdicts(records: Sequence[Record], base: str = "") -> dict[str, list[Claim]]:
    """The claims table on each score: ``{score: claims}`` (:func:`evaluate_claims` of
    :func:`~cffair.reporting.score_records`). A claim's note names the score in CF-MSE's place."""
    out = {}
    for key, score in SCORES.items():
        claims = evaluate_claims(score_records(records, key), base=base)
        if key != "cf_mse":
            claims = [_renamed(c, score.label) for c in claims]
        out[key] = claims
    return out


def _renamed(c: Claim, label: str) -> Claim:
    from dataclasses import replace

    return replace(
        c, note=c.note.replace("CF-MSE", label), against=_named(c.against, label), supports=_named(c.supports, label)
    )


def _named(names: tuple[str, ...], label: str) -> tuple[str, ...]:
    return tuple(n.replace("CF-MSE", label) for n in names)


def score_claims(records: Sequence[Record], keys: Sequence[str] | None = None) -> pd.DataFrame:
    """One row per claim (``key``, ``claim``), a column per score's label with its verdict
    (:func:`~cffair_book.registry.claim_status`), ``note (<label>)`` with its note, and ``same``:
    whether every score gives the same verdict (pending ones left out of that comparison)."""
    by = score_verdicts(records)
    first = by["cf_mse"]
    rows = []
    for i, c in enumerate(first):
        if keys is not None and c.key not in keys:
            continue
        row: dict[str, Any] = {"key": c.key, "claim": c.claim}
        decided = set()
        for key, claims in by.items():
            label = SCORES[key].label
            row[label] = claim_status(claims[i].verdict)
            row[f"note ({label})"] = claims[i].note
            if claims[i].verdict != PENDING:
                decided.add(claims[i].verdict)
        row["same"] = len(decided) <= 1
        rows.append(row)
    return pd.DataFrame(rows)


def _baselines(names: Sequence[str]) -> str:
    """The comparisons named ``"<method> on <dataset>"``, grouped: methods with the same datasets
    together, each method's datasets joined.

    >>> _baselines(("CNF on COMPAS", "GAN on COMPAS", "DCEVAE on Adult", "DCEVAE on COMPAS"))
    'CNF and GAN on COMPAS, DCEVAE on Adult and COMPAS'
    """
    where: dict[str, list[str]] = {}
    for n in names:
        method, _, dataset = n.partition(" on ")
        where.setdefault(method, []).append(dataset)
    by_places: dict[tuple[str, ...], list[str]] = {}
    for method, places in where.items():
        by_places.setdefault(tuple(places), []).append(method)
    return ", ".join(
        f"{joined(methods)} on {joined(list(places))}" if any(places) else joined(methods)
        for places, methods in by_places.items()
    )


def headline_answer(by_score: Mapping[str, Sequence[Claim]], key: str = HEADLINE) -> str:
    """The paper's headline answer per score, in words chosen by the verdicts of ``by_score``
    (:func:`score_verdicts`): for each score the claim's verdict and the comparisons it found for and
    against the LTN; then whether the answer depends on the score.

    >>> a = Claim("LTN fairer", key="Q2.1", verdict="does not hold", against=("CNF on Adult",))
    >>> b = Claim("LTN fairer", key="Q2.1", verdict="inconclusive", supports=("CNF on COMPAS", "GAN on COMPAS"))
    >>> print(headline_answer({"cf_mse": [a], "cf_flip_rate": [b]}))
    Is the LTN fairer than the baselines (Q2.1)? On scores (CF-MSE) it does not hold: the LTN is less fair than CNF on Adult. On decisions (flip rate) it is inconclusive: the LTN is fairer than CNF and GAN on COMPAS, and no baseline is significantly fairer than it. The answer depends on the score.
    """
    sentences, verdicts = [], []
    for score, claims in by_score.items():
        c = next((x for x in claims if x.key == key), None)
        if c is None or c.verdict == PENDING:
            continue
        s = SCORES[score]
        verdicts.append(c.verdict)
        fairer = say("score_claims.fairer", baselines=_baselines(c.supports)) if c.supports else ""
        less = say("score_claims.less_fair", baselines=_baselines(c.against)) if c.against else ""
        kind = "both" if fairer and less else "fairer" if fairer else "less" if less else "none"
        found = say("score_claims.found", kind, fairer=fairer, less=less, baselines=_baselines(c.against))
        phrase = say("score_claims.verdict", c.verdict if c.verdict in (HOLDS, FAILS) else "other", verdict=c.verdict)
        sentences.append(say("score_claims.score", measures=s.measures, label=s.label, verdict=phrase, found=found))
    if not sentences:
        raise DataError(f"no score has a verdict on {key}: its records are missing.")
    tail = (
        say("score_claims.depends", "varies")
        if len(set(verdicts)) > 1
        else say("score_claims.depends", "same", verdict=verdicts[0])
        if len(verdicts) > 1
        else ""
    )
    return spoken(say("score_claims.question", key=key), *sentences, tail)
