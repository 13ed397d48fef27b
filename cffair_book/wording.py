"""The book's wording as data: the claims' sentences, rules and note templates (``claims.yaml``),
the sentences that numbers fill (``sentences.yaml``), and the small enumerated words that numbers choose.

A sentence of the book that depends on numbers is never fixed text: the module that computes the
numbers picks the branch of a template from them (:func:`say`, :func:`note`), and a test constructs
numbers for each branch. Templates are filled with :meth:`str.format`; a missing field raises an
error that names the template and the field. The words live in the YAML files, so that a writer
changes a sentence without reading the code that fills it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from functools import cache
from pathlib import Path
from typing import Any

import yaml

__all__ = [
    "SENTENCES_FILE",
    "WORDING_FILE",
    "claim_entry",
    "claims_wording",
    "joined",
    "movement",
    "note",
    "say",
    "sentences",
    "sign_change",
    "spoken",
    "verdict_rule",
]

#: The claims' sentences, rules and note templates.
WORDING_FILE: Path = Path(__file__).with_name("claims.yaml")

#: The sentences the book's modules fill with numbers: one section per module, one template (or a
#: mapping of branches) per sentence.
SENTENCES_FILE: Path = Path(__file__).with_name("sentences.yaml")


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
    return _fill(claims_wording()["notes"][name], f"note {name!r}", branch, fields)


@cache
def sentences(path: str | Path = SENTENCES_FILE) -> dict[str, dict[str, Any]]:
    """The parsed ``sentences.yaml``: ``{section: {name: template or {branch: template}}}``."""
    with open(path, encoding="utf-8") as f:
        data = yaml.safe_load(f) or {}
    bad = sorted(str(k) for k, v in data.items() if not isinstance(v, dict))
    if bad:
        raise ValueError(f"{path}: section(s) {bad} are not mappings of sentence name to template.")
    for section, entries in data.items():
        names = [(n, None) for n in entries] + [(b, n) for n, t in entries.items() if isinstance(t, dict) for b in t]
        for key, under in names:
            if not isinstance(key, str):  # YAML reads on, off, yes and no as booleans
                where = f"{section}.{under}" if under else section
                raise ValueError(
                    f"{path}: {where} has the key {key!r}, not a name: YAML reads an unquoted on, off, yes or no "
                    "as a boolean; quote the key ('on')."
                )
    return data


def say(key: str, /, branch: str | None = None, **fields: Any) -> str:
    """The sentence ``key`` (``"section.name"``) of ``sentences.yaml`` filled with ``fields``; a
    sentence with branches needs the ``branch`` the numbers chose.

    >>> say("speed.not_run", bench="bench_ltn_heap.py")
    '`benchmarks/bench_ltn_heap.py` has not been run on this checkout.'
    >>> say("speed.reference", "slower", then=3.4, ratio=1.4)
    'The earlier run recorded 3.4 s for it: the code takes 1.40× the CPU time.'
    >>> say("speed.reference", "faster", then=3.4, ratio=1.4)
    Traceback (most recent call last):
    ValueError: sentence 'speed.reference' has the branches ['no slower', 'slower'], got 'faster'.
    >>> say("speed.not_run")
    Traceback (most recent call last):
    ValueError: sentence 'speed.not_run' needs the field 'bench' (given: none).
    """
    section, _, name = key.partition(".")
    try:
        template = sentences()[section][name]
    except KeyError:
        raise ValueError(f"no sentence {key!r} in {SENTENCES_FILE.name}; add it there.") from None
    return _fill(template, f"sentence {key!r}", branch, fields)


def spoken(*sentences_: str) -> str:
    """Sentences (or a sentence's parts) joined by one space, the empty ones left out.

    >>> spoken("It ran.", "", "It stopped.")
    'It ran. It stopped.'
    """
    return " ".join(s for s in sentences_ if s)


def _fill(template: str | Mapping[str, str], what: str, branch: str | None, fields: Mapping[str, Any]) -> str:
    """``template`` (or its ``branch``) filled with ``fields``, with errors that name ``what``."""
    if isinstance(template, Mapping):
        if branch is None or branch not in template:
            raise ValueError(f"{what} has the branches {sorted(template)}, got {branch!r}.")
        template = template[branch]
    elif branch is not None:
        raise ValueError(f"{what} has no branches, got {branch!r}.")
    try:
        return str(template).format(**fields)
    except KeyError as e:
        raise ValueError(f"{what} needs the field {e.args[0]!r} (given: {', '.join(fields) or 'none'}).") from None


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
