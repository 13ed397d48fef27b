"""A user's mistake raises a typed error of :mod:`cffair.errors`, never a bare builtin (issue 39).

Read from the syntax trees of every module of ``cffair/``:

* no ``raise ValueError(...)``, ``raise RuntimeError(...)`` or ``raise TypeError(...)`` in a module that may
  be edited, unless its line says ``# internal invariant`` (a programming error, not a user's);
* the frozen modules (:data:`FROZEN`) still hold bare raises: the committed records' fingerprints hash
  their code, so they are converted at the next regeneration. :data:`FROZEN_SITES` counts them per
  module, and the test that checks the count reports the total as a warning;
* every :class:`~cffair.errors.CffairError` is also the builtin error it replaced, so that
  ``except ValueError`` callers and ``pytest.raises(ValueError)`` tests keep working.
"""

from __future__ import annotations

import ast
import inspect
import warnings
from pathlib import Path

import pytest

import cffair
import cffair.errors

ROOT = Path(cffair.__file__).parent
#: The builtins a user's mistake must not be raised as.
BARE = ("ValueError", "RuntimeError", "TypeError")
#: The comment that keeps a bare raise: a programming error (an invariant of cffair's own code), not a user's.
MARK = "# internal invariant"

_FROZEN_REASON = "the committed records' fingerprints hash this module's code: converted at the next regeneration"
#: Modules (or folders, ending in ``/``) relative to ``cffair/`` that may not be edited now, with the reason.
FROZEN: dict[str, str] = {
    name: _FROZEN_REASON
    for name in (
        "__init__.py",
        "_support/validation.py",
        "_support/devices.py",
        "_support/utils.py",
        "baselines/",
        "causal/",
        "datasets/",
        "evaluation/cke.py",
        "evaluation/diagnostics.py",
        "evaluation/metrics.py",
        "evaluation/queries.py",
        "evaluation/recourse.py",
        "evaluation/screen.py",
        "evaluation/groupfair.py",
        "logic/",
        "learners/training.py",
        "learners/pretraining.py",
        "learners/hyperparameters.py",
        "learners/networks.py",
        "learners/contract.py",
        "experiments/tasks.py",
        "experiments/pipeline/",
    )
}
#: The bare raises left in the frozen modules, per module (lower a count as its sites are converted).
FROZEN_SITES: dict[str, int] = {
    "_support/utils.py": 1,
    "baselines/_adversary.py": 3,
    "baselines/_mixed.py": 1,
    "baselines/augmented.py": 3,
    "baselines/dcevae.py": 3,
    "baselines/gan.py": 7,
    "baselines/gan_stacked.py": 2,
    "causal/cache.py": 1,
    "causal/cnf.py": 1,
    "causal/discrete.py": 2,
    "evaluation/cke.py": 3,
    "evaluation/diagnostics.py": 1,
    "evaluation/metrics.py": 3,
    "evaluation/queries.py": 2,
    "experiments/pipeline/__init__.py": 1,
    "experiments/pipeline/beyond.py": 2,
    "experiments/pipeline/fold.py": 1,
    "experiments/pipeline/gan.py": 1,
    "experiments/pipeline/ltn.py": 3,
    "experiments/pipeline/simple.py": 1,
    "experiments/tasks.py": 1,
    "learners/pretraining.py": 1,
    "learners/training.py": 3,
    "logic/adaptive.py": 8,
    "logic/axioms.py": 7,
    "logic/fuzzy.py": 5,
    "logic/notions.py": 3,
}


def is_frozen(module: str) -> bool:
    """Whether ``module`` (a path relative to ``cffair/``) is one of :data:`FROZEN` or lies in a frozen folder."""
    return any(module == f or (f.endswith("/") and module.startswith(f)) for f in FROZEN)


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


def test_no_bare_builtin_raise_outside_the_frozen_modules() -> None:
    offenders = [
        f"cffair/{module}:{line} raise {name}"
        for module, sites in _sites().items()
        if not is_frozen(module)
        for line, name, marked in sites
        if not marked
    ]
    assert not offenders, (
        "raise the error of cffair.errors that fits (DataError, ParameterError, ConfigError, ...), which is "
        f"also the builtin; or, for a programmer's mistake only, add {MARK!r} on the raise's line: "
        + "; ".join(offenders)
    )


def test_the_frozen_modules_hold_the_counted_bare_raises_and_the_total_is_reported() -> None:
    counts = {m: len(s) for m, s in _sites().items() if is_frozen(m) and s}
    assert counts == FROZEN_SITES, (
        f"FROZEN_SITES is out of date; the frozen modules now hold {counts} (after converting sites at a "
        "regeneration, lower the counts; a frozen module gains none)"
    )
    total = sum(counts.values())
    warnings.warn(
        f"{total} bare ValueError/RuntimeError/TypeError raises remain in {len(counts)} frozen modules "
        "(the committed records' fingerprints hash their code: converted at the next regeneration)",
        UserWarning,
        stacklevel=1,
    )


def test_every_frozen_entry_names_a_module_or_folder_that_exists() -> None:
    missing = [f for f in FROZEN if not (ROOT / f).exists() or f.endswith("/") != (ROOT / f).is_dir()]
    assert not missing, f"FROZEN names what cffair/ does not hold: {missing}"


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


def test_a_frozen_folder_covers_its_modules_and_nothing_beside_it() -> None:
    assert is_frozen("logic/fuzzy.py") and is_frozen("experiments/pipeline/ltn.py")
    assert is_frozen("evaluation/cke.py") and not is_frozen("evaluation/audit.py")
    assert not is_frozen("experiments/pipeline_extra.py") and not is_frozen("logical.py")


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
