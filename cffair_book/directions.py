"""Direction words chosen by the numbers, and the check that a sentence's direction word agrees with
the numbers beside it.

A sentence such as "CF-MSE falls from 0.045 to 0.292" contradicts itself. Two pieces keep the book's
sentences honest:

* :func:`direction` renders the word *from* the numbers: ``direction(0.045, 0.292)`` is ``"rises"``,
  ``direction(0.045, 0.292, lower_is="fairer")`` is ``"less fair"``, and ``direction(0.30, 0.25,
  target=0.227)`` is ``"closer"``. A page that writes a direction through it cannot contradict its numbers.
* :func:`contradictions` reads text (a built page's prose, a claim's note, a paragraph a function
  wrote) and returns each clause whose direction word its numbers contradict. A clause counts when it
  names a direction (the words of ``RISING``, ``FALLING``, ``CLOSER``, ``FURTHER``, ``FAIRER``,
  ``LESS_FAIR``, or "reverses") and holds one change written ``a → b`` or ``from a to b``; a
  "closer"/"further" clause also needs a target (``… than/to/against c``), "reverses" a change of
  verdict after it (``holds → does not hold``), and a "fairer"/"less fair" clause's change is read as
  a score where lower is fairer (CF-MSE, the flip rate). A negated word ("no verdict reverses", "does
  not fall") claims nothing and is left alone, and so is a clause without such a change: the check
  reads only the sentences that carry their own numbers.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["Contradiction", "contradictions", "direction"]

#: Words that say a quantity went up or down.
RISING: tuple[str, ...] = ("rises", "rise", "rose", "raises", "increases", "grows", "goes up")
FALLING: tuple[str, ...] = ("falls", "fall", "fell", "drops", "lowers", "decreases", "shrinks", "goes down")
#: Words that say a quantity moved toward or away from a target.
CLOSER: tuple[str, ...] = ("closer", "comes closer", "nearer")
FURTHER: tuple[str, ...] = ("further from", "farther from", "moves away")
#: Words that say a fairness score (lower is fairer) improved or worsened.
FAIRER: tuple[str, ...] = ("fairer",)
LESS_FAIR: tuple[str, ...] = ("less fair",)
#: Changes within this are "level": no direction word fits them.
TOL = 5e-4


def direction(before: float, after: float, *, lower_is: str = "", target: float | None = None, tol: float = TOL) -> str:
    """The word for the move ``before → after``, chosen by the numbers.

    Plain: ``"rises"``, ``"falls"`` or ``"stays level"`` (a change within ``tol``). With ``lower_is=
    "fairer"`` (a fairness score such as CF-MSE): ``"fairer"``, ``"less fair"`` or ``"as fair"``. With a
    ``target``: ``"closer"``, ``"further"`` or ``"as close"`` (distance to it).

    >>> direction(0.045, 0.292), direction(0.292, 0.045), direction(0.1, 0.1002)
    ('rises', 'falls', 'stays level')
    >>> direction(0.045, 0.292, lower_is="fairer"), direction(0.001, 0.001, target=0.227)
    ('less fair', 'as close')
    """
    if target is not None:
        change = abs(after - target) - abs(before - target)
        return "as close" if abs(change) <= tol else ("closer" if change < 0 else "further")
    change = after - before
    if lower_is == "fairer":
        return "as fair" if abs(change) <= tol else ("fairer" if change < 0 else "less fair")
    if lower_is:
        raise ValueError(f"lower_is must be '' or 'fairer', got {lower_is!r}.")
    return "stays level" if abs(change) <= tol else ("rises" if change > 0 else "falls")


@dataclass(frozen=True)
class Contradiction:
    """A clause whose direction word its own numbers contradict."""

    clause: str
    word: str
    says: str
    numbers: str


_NUM = r"[−-]?\d+(?:\.\d+)?\s*%?"
_CHANGE = re.compile(rf"(?:from\s+)?(?P<a>{_NUM})\s*(?:→|->|\bto\b)\s*(?P<b>{_NUM})")
_TARGET = re.compile(rf"(?:than|to|of)\s+(?:the paper's\s+|published\s+)?(?P<c>{_NUM})\b")
_VERDICT_CHANGE = re.compile(r"\b(holds|does not hold)\s*→\s*(holds|does not hold|inconclusive)\b")
_CLAUSES = re.compile(r"(?<=[.;!?])\s+|\n+")


def _number(text: str) -> float:
    return float(text.replace("−", "-").replace("%", "").strip())


_NEGATION = re.compile(r"\b(no|not|none|never|nor|neither)\b[^,;()]*$", re.IGNORECASE)


def _negated(clause: str, start: int) -> bool:
    """Whether the words just before ``start`` negate it ("no verdict reverses", "does not fall")."""
    return _NEGATION.search(clause[max(0, start - 25) : start]) is not None


def _words(clause: str, words: tuple[str, ...]) -> str:
    """The first of ``words`` that ``clause`` says, not negated ("" if none)."""
    for w in sorted(words, key=len, reverse=True):
        m = re.search(rf"\b{re.escape(w)}\b", clause, re.IGNORECASE)
        if m and not _negated(clause, m.start()):
            return w
    return ""


def contradictions(text: str, *, tol: float = TOL) -> list[Contradiction]:
    """Each clause of ``text`` whose direction word contradicts the change it writes (see the module).

    >>> [c.word for c in contradictions("On Adult CF-MSE falls, 0.045 → 0.292; accuracy rises from 0.80 to 0.81.")]
    ['falls']
    >>> contradictions("The GAN comes closer to the paper: 0.001 → 0.001 against 0.227.")[0].says
    'as close'
    >>> contradictions("Q2.4 reverses (holds → inconclusive with sound twins).")[0].says
    'moves to inconclusive'
    """
    out: list[Contradiction] = []
    for clause in _CLAUSES.split(text):
        word = re.search(r"\breverses?\b", clause, re.IGNORECASE)
        if word and _negated(clause, word.start()):  # "no verdict reverses": nothing claimed to reverse
            word = None
        m = _VERDICT_CHANGE.search(clause, word.end()) if word else None  # the change the word is about
        if m is not None and (m.group(1) == m.group(2) or m.group(2) == "inconclusive"):
            says = "moves to inconclusive" if m.group(2) == "inconclusive" else "stays"
            out.append(Contradiction(clause.strip(), "reverses", says, m.group(0)))
        change = _CHANGE.search(clause)
        if change is None:
            continue
        a, b = _number(change.group("a")), _number(change.group("b"))
        checks: list[tuple[tuple[str, ...], str]] = []
        rest = clause[change.end() :]
        target = _TARGET.search(rest) or re.search(rf"against\s+(?P<c>{_NUM})", rest)
        if target is not None:
            says = direction(a, b, target=_number(target.group("c")), tol=tol)
            checks += [(CLOSER, says if says != "closer" else ""), (FURTHER, says if says != "further" else "")]
        fair = direction(a, b, lower_is="fairer", tol=tol)
        checks += [(FAIRER, fair if fair != "fairer" else ""), (LESS_FAIR, fair if fair != "less fair" else "")]
        plain = direction(a, b, tol=tol)
        checks += [(RISING, plain if plain != "rises" else ""), (FALLING, plain if plain != "falls" else "")]
        for words, wrong in checks:
            said = _words(clause, words)
            if said and wrong:
                if words in (FAIRER,) and _words(clause, LESS_FAIR):
                    continue  # "less fair" also contains "fair", never "fairer"; kept explicit
                out.append(Contradiction(clause.strip(), said, wrong, change.group(0)))
    return out
