"""A user's mistake raises a typed error of :mod:`cffair.errors`, never a bare builtin (issue 39).

Read from the syntax trees of every module of ``cffair/``:

* no ``raise ValueError(...)``, ``raise RuntimeError(...)`` or ``raise TypeError(...)`` in any module, unless
  its line says ``# internal invariant`` (a programming error, not a user's). The modules whose code the
  committed records' fingerprints hash were converted without staling them: only the classes of their
  raises changed, which ``tools/declare_equivalent.py`` proves and the fingerprint's ledger declares;
* every :class:`~cffair.errors.CffairError` is also the builtin error it replaced, so that
  ``except ValueError`` callers and ``pytest.raises(ValueError)`` tests keep working.
"""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

import pytest

import cffair
import cffair.errors

ROOT = Path(cffair.__file__).parent
#: The builtins a user's mistake must not be raised as.
BARE = ("ValueError", "RuntimeError", "TypeError")
#: The comment that keeps a bare raise: a programming error (an invariant of cffair's own code), not a user's.
MARK = "# internal invariant"


def _raised_name(node: ast.Raise) -> str | None:
    """The name of the class a ``raise`` raises when it is written out (``ValueError(...)``, ``ValueError``,
    ``builtins.ValueError(...)``), else ``None``."""
    exc = node.exc.func if isinstance(node.exc, ast.Call) else node.exc
    if isinstance(exc, ast.Name):
        return exc.id
    if isinstance(exc, ast.Attribute) and isinstance(exc.value, ast.Name) and exc.value.id == "builtins":
        return exc.attr
    return None


def bare_raises(source: str) -> list[tuple[int, str, bool]]:
    """``(line, class, marked)`` of every raise of a :data:`BARE` builtin in ``source``; ``marked``: one of
    the raise's lines carries :data:`MARK`."""
    lines = source.splitlines()
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Raise) and node.exc is not None and (name := _raised_name(node)) in BARE:
            span = lines[node.lineno - 1 : (node.end_lineno or node.lineno)]
            found.append((node.lineno, str(name), any(MARK in line for line in span)))
    return sorted(found)


def _sites() -> dict[str, list[tuple[int, str, bool]]]:
    return {
        str(p.relative_to(ROOT).as_posix()): bare_raises(p.read_text(encoding="utf-8"))
        for p in sorted(ROOT.rglob("*.py"))
    }


def test_no_bare_builtin_raise_in_any_module() -> None:
    offenders = [
        f"cffair/{module}:{line} raise {name}"
        for module, sites in _sites().items()
        for line, name, marked in sites
        if not marked
    ]
    assert not offenders, (
        "raise the error of cffair.errors that fits (DataError, ParameterError, ConfigError, ...), which is "
        f"also the builtin; or, for a programmer's mistake only, add {MARK!r} on the raise's line: "
        + "; ".join(offenders)
    )


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("raise ValueError('bad')", [(1, "ValueError", False)]),
        ("raise TypeError", [(1, "TypeError", False)]),
        ("import builtins\nraise builtins.RuntimeError('x')", [(2, "RuntimeError", False)]),
        ("raise ValueError(  # internal invariant\n    'a long message'\n)", [(1, "ValueError", True)]),
        ("raise ValueError(\n    'a long message'\n)  # internal invariant", [(1, "ValueError", True)]),
        ("raise RuntimeError('x')  # internal invariant: set by __init__", [(1, "RuntimeError", True)]),
        ("x = 1  # internal invariant\nraise ValueError('x')", [(2, "ValueError", False)]),
        ("from cffair.errors import DataError\nraise DataError('x')", []),
        ("try:\n    pass\nexcept ValueError:\n    raise", []),
        ("raise KeyError('k')", []),
    ],
)
def test_the_rule_sees_bare_raises_and_their_mark(source: str, expected: list[tuple[int, str, bool]]) -> None:
    assert bare_raises(source) == expected


def test_every_cffair_error_is_also_the_builtin_error_it_replaced() -> None:
    plain = []
    for name, cls in inspect.getmembers(cffair.errors, inspect.isclass):
        if issubclass(cls, cffair.errors.CffairError) and cls is not cffair.errors.CffairError:
            builtins_ = [
                b for b in cls.__mro__ if b.__module__ == "builtins" and b not in (Exception, BaseException, object)
            ]
            if not builtins_:
                plain.append(name)
    assert not plain, (
        f"these errors are no builtin error besides Exception, so `except ValueError` misses them: {plain}"
    )


def test_converted_sites_in_the_fingerprinted_modules_raise_cffair_errors() -> None:
    """A few of the sites converted without staling a record: a user's mistake there is a CffairError (one line from
    the CLI) and still the builtin it was."""
    from cffair.baselines._augmented import MLPConfig
    from cffair.baselines._gan import GANConfig
    from cffair.errors import CffairError, ParameterError
    from cffair.logic._fuzzy import logic

    for call in (lambda: MLPConfig(epochs=0), lambda: GANConfig(adversary_update="fast"), lambda: logic("boolean")):
        with pytest.raises(ParameterError) as caught:
            call()
        assert isinstance(caught.value, CffairError) and isinstance(caught.value, ValueError)
