"""Rules the library's code keeps, read from its syntax trees (issue 39): no function takes more than
six positional parameters, and every exception and warning class lives in :mod:`cffair.errors`."""

from __future__ import annotations

import ast
from pathlib import Path

import cffair

ROOT = Path(cffair.__file__).parent
#: The most positional parameters a library function takes (``self`` and ``cls`` not counted);
#: the others are keyword-only.
MAX_POSITIONAL = 6
#: Exception classes that live elsewhere, each with its reason.
ERRORS_ELSEWHERE = {
    # also scikit-learn's NotFittedError; cffair.errors imports no scikit-learn
    ("learners/_contract.py", "NotFittedError"),
}


def _trees() -> list[tuple[str, ast.Module]]:
    return [(str(p.relative_to(ROOT)), ast.parse(p.read_text(encoding="utf-8"))) for p in sorted(ROOT.rglob("*.py"))]


def _positional(node: ast.FunctionDef | ast.AsyncFunctionDef) -> list[str]:
    return [a.arg for a in (*node.args.posonlyargs, *node.args.args) if a.arg not in ("self", "cls")]


def test_no_library_function_takes_more_than_six_positional_parameters():
    found = [
        f"{path}:{node.lineno} {node.name} ({len(_positional(node))})"
        for path, tree in _trees()
        for node in ast.walk(tree)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and len(_positional(node)) > MAX_POSITIONAL
    ]
    assert not found, "make the parameters after the sixth keyword-only (`*,`): " + "; ".join(found)


def test_the_rule_sees_a_function_with_seven_positional_parameters():
    tree = ast.parse("class C:\n    def f(self, a, b, c, d, e, f, g, *, h): ...\ndef ok(a, b, c, d, e, f, *, g): ...")
    counts = {n.name: len(_positional(n)) for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)}
    assert counts == {"f": 7, "ok": 6}


def _exception_names(tree: ast.Module, known: set[str]) -> set[str]:
    """Classes of ``tree`` deriving (by name) from an exception or warning class, or from one in ``known``."""
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef):
            bases = {
                b.id if isinstance(b, ast.Name) else b.attr if isinstance(b, ast.Attribute) else "" for b in node.bases
            }
            if any(b.endswith(("Error", "Exception", "Warning")) or b in known for b in bases):
                out.add(node.name)
    return out


def test_every_exception_and_warning_class_lives_in_errors():
    trees = _trees()
    in_errors = _exception_names(dict(trees)["errors.py"], set())
    elsewhere = {
        (path, name) for path, tree in trees if path != "errors.py" for name in _exception_names(tree, in_errors)
    }
    assert elsewhere == ERRORS_ELSEWHERE
    assert {
        "ConfigError",
        "OptionError",
        "RegistryError",
        "ConstantPredictorWarning",
        "EmptyDomainWarning",
    } <= in_errors


def test_a_moved_class_is_still_importable_from_its_old_home():
    from cffair import errors
    from cffair._support.yaml_files import DuplicateKeyError  # with the YAML helpers, in the support part
    from cffair.cli._options import OptionError
    from cffair.experiments import ConfigError
    from cffair.experiments._registry import RegistryError
    from cffair.learners._training import CollapseRiskWarning, ConstantPredictorWarning
    from cffair.logic._axioms import EmptyDomainWarning

    moved = (DuplicateKeyError, OptionError, ConfigError, EmptyDomainWarning, RegistryError)
    assert all(getattr(errors, c.__name__) is c for c in (*moved, CollapseRiskWarning, ConstantPredictorWarning))
