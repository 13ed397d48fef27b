"""The sentences the book's modules fill (cffair_book/sentences.yaml through cffair_book.wording.say, and the claims'
notes of cffair_book/claims.yaml through wording.note): every call names a template that exists and gives the fields
it reads, every field it gives is read, and every template is used."""

from __future__ import annotations

import ast
import string
from collections.abc import Iterator, Mapping
from pathlib import Path

import pytest

from cffair_book import wording

BOOK = Path(wording.__file__).parent


def placeholders(template: str) -> set[str]:
    """The field names a ``str.format`` template reads (``{cpu:.1f}`` → ``cpu``; ``{a[b]}`` → ``a``).

    >>> sorted(placeholders("{cpu:.1f} s ({low}–{high[0]})"))
    ['cpu', 'high', 'low']
    """
    return {f.split(".")[0].split("[")[0] for _, f, _, _ in string.Formatter().parse(template) if f}


def calls(function: str = "say") -> Iterator[tuple[str, ast.Call]]:
    """Every call of ``function`` (``say`` or ``note``) in the book package, with its file."""
    for path in sorted(BOOK.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == function:
                yield path.name, node


def _table(function: str) -> dict[str, dict[str, object]]:
    """The templates ``function`` reads, by section: sentences.yaml's, or claims.yaml's notes as one section."""
    return wording.sentences() if function == "say" else {"": wording.claims_wording()["notes"]}


def _key(function: str, call: ast.Call) -> tuple[str, str]:
    key = str(call.args[0].value)  # type: ignore[attr-defined]
    return tuple(key.partition(".")[::2]) if function == "say" else ("", key)  # type: ignore[return-value]


def templates(entry: str | Mapping[str, str]) -> dict[str | None, str]:
    return dict(entry) if isinstance(entry, Mapping) else {None: entry}


@pytest.mark.parametrize(("function", "least"), [("say", 100), ("note", 20)])
def test_every_call_names_a_template_and_gives_the_fields_it_reads(function: str, least: int) -> None:
    table = _table(function)
    seen = 0
    for where, call in calls(function):
        assert call.args and isinstance(call.args[0], ast.Constant), f"{where}:{call.lineno}: a literal key, please"
        section, name = _key(function, call)
        assert name in table.get(section, {}), f"{where}:{call.lineno}: no sentence {call.args[0].value!r}"
        branches = templates(table[section][name])
        given = {k.arg for k in call.keywords}
        assert None not in given, f"{where}:{call.lineno}: give the fields by name, not **mapping"
        branch = call.args[1] if len(call.args) > 1 else None
        if branch is None or isinstance(branch, ast.Constant):
            key = None if branch is None else branch.value
            assert key in branches, f"{where}:{call.lineno}: {call.args[0].value!r} has no branch {key!r}"
            missing = placeholders(branches[key]) - given
            assert not missing, f"{where}:{call.lineno}: {call.args[0].value!r} reads {sorted(missing)}, not given"
        stray = given - set().union(*(placeholders(t) for t in branches.values()))
        assert not stray, f"{where}:{call.lineno}: {call.args[0].value!r} reads no field {sorted(stray)}"
        seen += 1
    assert seen >= least  # the calls are found (a parser that found none would pass every check above)


@pytest.mark.parametrize("function", ["say", "note"])
def test_every_template_is_used_and_parses(function: str) -> None:
    used = {_key(function, call) for _, call in calls(function)}
    for section, entries in _table(function).items():
        for name, entry in entries.items():
            assert (section, name) in used, f"{section}.{name} is used by no {function}() call"
            for template in templates(entry).values():
                assert isinstance(template, str) and not template.endswith(("\n", " ")), f"{section}.{name}"
                placeholders(template)  # raises on a malformed brace


def test_a_missing_field_or_branch_names_the_sentence() -> None:
    with pytest.raises(ValueError, match=r"sentence 'speed.claims_cpu' needs the field 'cpu'"):
        wording.say("speed.claims_cpu", "plain")
    with pytest.raises(ValueError, match=r"sentence 'speed.not_run' has no branches, got 'x'"):
        wording.say("speed.not_run", "x", bench="b")
    with pytest.raises(ValueError, match=r"no sentence 'speed.nothing' in sentences.yaml"):
        wording.say("speed.nothing")


def test_a_key_yaml_reads_as_a_boolean_is_refused_with_the_fix(tmp_path) -> None:
    bad = tmp_path / "sentences.yaml"
    bad.write_text("basis:\n  counted:\n    on: '{count} on {datasets}'\n", encoding="utf-8")
    with pytest.raises(
        ValueError, match=r"basis.counted has the key True, not a name: YAML reads an unquoted on, .* quote the key"
    ):
        wording.sentences(bad)
