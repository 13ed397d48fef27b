"""The book's wording as data: the claims' sentences, rules and note templates (``claims.yaml``),
and the small enumerated words that numbers choose.

A sentence of the book that depends on numbers is never fixed text: a function here (or in the
module that computes the numbers) picks the wording from the numbers, and a test constructs
numbers for each branch. Templates are filled with :meth:`str.format`; a missing field raises.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from functools import cache
from pathlib import Path
from typing import Any

import yaml

__all__ = ["WORDING_FILE", "claim_entry", "claims_wording", "joined", "movement", "note", "sign_change", "verdict_rule"]

#: The claims' sentences, rules and note templates.
WORDING_FILE: Path = Path(__file__).with_name("claims.yaml")


@cache
def claims_wording(path: str | Path = WORDING_FILE) -> dict[str, Any]:
    """The parsed ``claims.yaml`` (``rules``, ``notes``, ``claims``)."""
    with open(path, encoding="utf-8") as f:
        data = yaml.safe_load(f)
    missing = {"rules", "notes", "claims"} - set(data or {})
    if missing:
        raise ValueError(f"{path} lacks the section(s) {sorted(missing)}; it needs rules, notes and claims.")
    return data


def verdict_rule(path: str | Path = WORDING_FILE) -> str:
    """How every verdict is decided, in one paragraph (``rules.how_decided`` of ``claims.yaml``):
    shown below the claims table and on the claims page."""
    return str(claims_wording(path)["rules"]["how_decided"])


def claim_entry(key: str, path: str | Path = WORDING_FILE) -> tuple[str, str, str, str]:
    """``(claim, source, page, rule)`` of claim ``key`` as ``claims.yaml`` states it.

    A comparison claim gives the comparison (``compares``) and the file's shared rule is appended,
    with the COMPAS(age) clause unless it says ``shared: false``; any other claim gives its ``rule``.

    >>> claim, source, page, rule = claim_entry("Q1.1")
    >>> page, rule.startswith("LTN(acc+CF)'s CF-MSE against LTN(acc)'s"), rule.endswith("differ from COMPAS")
    ('q1', True, True)
    """
    data = claims_wording(path)
    try:
        entry = data["claims"][key]
    except KeyError:
        raise ValueError(
            f"claim {key} is not in {path}; add it there (claim, source, page and rule or compares)."
        ) from None
    if "compares" in entry:
        rule = f"{entry['compares']}; {data['rules']['comparisons']}"
        if entry.get("shared", True):
            rule += f"; {data['rules']['shared']}"
    else:
        rule = entry.get("rule", "")
    return entry["claim"], entry["source"], entry["page"], rule


def note(name: str, /, branch: str | None = None, **fields: Any) -> str:
    """The note template ``name`` of ``claims.yaml`` filled with ``fields``; a template with
    branches (a mapping) needs the ``branch`` the numbers chose.

    >>> note("investigation", finding="the drop follows the CF-MSE before")
    '. Investigation: the drop follows the CF-MSE before'
    >>> note("drop_follows", "size")
    "the subgroup's size"
    """
    template = claims_wording()["notes"][name]
    if isinstance(template, dict):
        if branch not in template:
            raise ValueError(f"note {name!r} has the branches {sorted(template)}, got {branch!r}.")
        template = template[branch]
    elif branch is not None:
        raise ValueError(f"note {name!r} has no branches, got {branch!r}.")
    return template.format(**fields)


def sign_change(a: float, b: float) -> str:
    """How the sign of a quantity goes from ``a`` to ``b``: ``"changes sign"``, ``"keeps its sign"``
    or ``"is zero in one"`` (the words a sentence about two runs' gaps needs).

    >>> sign_change(0.014, -0.013), sign_change(0.01, 0.02), sign_change(0.0, 0.3)
    ('changes sign', 'keeps its sign', 'is zero in one')
    """
    if a == 0 or b == 0:
        return "is zero in one"
    return "changes sign" if (a > 0) != (b > 0) else "keeps its sign"


def joined(items: Sequence[str]) -> str:
    """``"A"``, ``"A and B"``, ``"A, B and C"``.

    >>> joined(["Adult"]), joined(["COMPAS", "COMPAS(age)"]), joined(["a", "b", "c"])
    ('Adult', 'COMPAS and COMPAS(age)', 'a, b and c')
    """
    items = list(items)
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def value_range(values: Sequence[float], f: str | Callable[[float], str] = ".3f", sep: str = "–") -> str:
    """``"0.040"`` for one value (or values equal once formatted), ``"0.040–0.072"`` for a range;
    ``f`` is a format spec or a function that formats one value.

    >>> value_range([0.04, 0.072]), value_range([0.0401, 0.0404]), value_range([0.2, 0.5], ".0%")
    ('0.040–0.072', '0.040', '20%–50%')
    >>> value_range([-0.01, 0.02], lambda v: f"{v:+.2f}", " to ")
    '-0.01 to +0.02'
    """
    fmt: Callable[[float], str] = (lambda v: format(v, f)) if isinstance(f, str) else f
    lo, hi = fmt(min(values)), fmt(max(values))
    return lo if lo == hi else f"{lo}{sep}{hi}"


#: How a mean moves, by the sign of its change (beyond ``tol``).
MOVES: dict[int, str] = {1: "rise", -1: "fall", 0: "stay level"}


def movement(changes: Mapping[str, float], *, tol: float = 5e-4) -> str:
    """Where a quantity rises, falls or stays level, from its change per place (a display name):
    ``"rise on Adult and fall on COMPAS and COMPAS(age)"``; a change within ``tol`` stays level,
    a missing (NaN) change is left out; ``"cannot be compared yet"`` without any.

    >>> movement({"Adult": 0.004, "COMPAS": -0.01, "COMPAS(age)": -0.002})
    'rise on Adult and fall on COMPAS and COMPAS(age)'
    >>> movement({"Adult": 0.0001, "COMPAS": 0.02})
    'stay level on Adult and rise on COMPAS'
    >>> movement({})
    'cannot be compared yet'
    """
    by_move: dict[str, list[str]] = {}
    for place, change in changes.items():
        if change != change:  # NaN
            continue
        sign = 0 if abs(change) <= tol else (1 if change > 0 else -1)
        by_move.setdefault(MOVES[sign], []).append(place)
    if not by_move:
        return "cannot be compared yet"
    return joined([f"{move} on {joined(places)}" for move, places in by_move.items()])
