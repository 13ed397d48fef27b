"""The ledger of moved modules, and how code that refers to a moved module is read: as before the move.

Moving a module is not a change of what it does. :data:`MOVES` maps a moved module's name today to the
name it is fingerprinted under (the one it had when records were first made); :func:`as_before_the_moves`
rewrites every reference to a moved module (an import statement's module path, an imported submodule, a
string naming it for ``importlib``, and, for the moves of :data:`MOVES_IN_TEXT`, a message that names it)
into the name it had, and lays out the imports a move split as the formatter wrote them before. So
:func:`cffair._support.codehash.canonical_code` of moved code is that of the code before the move, and a
move that keeps each import's target stales nothing. The ledger is a file
(``cffair/data/fingerprint_ledger.json``), so that the module names it holds count as no import.
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Mapping
from importlib import resources
from typing import Any

__all__ = ["MOVES", "MOVES_IN_TEXT", "as_before_the_moves", "as_today", "ledger"]

FINGERPRINT_EXEMPT = True  # reading references as their ledger names is bookkeeping: it changes no number


def ledger() -> dict[str, Any]:
    """The ledger, read from the package data (a file, so that the module names it holds count as no import)."""
    text = resources.files("cffair").joinpath("data/fingerprint_ledger.json").read_text(encoding="utf-8")
    return dict(json.loads(text))


#: The ledger of moved modules: name today → the name its fingerprint is keyed and hashed under.
#: A move adds one entry to ``cffair/data/fingerprint_ledger.json`` (``tools/structure.py --moves`` lists the renames git
#: sees); an entry is never removed while a committed record names the old module.
MOVES: Mapping[str, str] = dict(ledger()["moves"])

#: Moved modules that a text may name (a message's "see cffair.datasets._graph"): name today → the name the
#: texts had when their code was hashed, which such a mention reads as. Only moves made since this rule
#: are listed (a text written after an earlier move already names the module's new home, hashed so).
MOVES_IN_TEXT: Mapping[str, str] = dict(ledger().get("moves_in_text", {}))


class _Canonical(ast.NodeTransformer):
    """Rewrites references to moved modules into their ledger names (see :data:`MOVES`).

    A move splits an import: ``from cffair import cke, own`` becomes two statements from two parts,
    which the formatter then sorts apart. So, in a block of imports that a move touched, the
    first-party ``from ... import`` statements are read back as the formatter writes them: one
    statement per module, the names sorted, the modules in order (the layout the code had before
    the move). A block no move touched is left exactly as it is.
    """

    def __init__(self, moves: Mapping[str, str], in_text: Mapping[str, str] | None = None) -> None:
        self.moves = moves
        self.in_text = dict(in_text or {})
        names = sorted(self.in_text, key=len, reverse=True)  # the longest first: a module before its package
        self._named = re.compile(r"(?<![\w.])(" + "|".join(map(re.escape, names)) + r")(?!\w)") if names else None

    def visit_Import(self, node: ast.Import) -> ast.Import:
        for alias in node.names:
            if alias.name in self.moves:
                alias.name = self.moves[alias.name]
                node._moved = True  # type: ignore[attr-defined]
        return node

    def visit_ImportFrom(self, node: ast.ImportFrom) -> ast.AST | list[ast.AST]:
        module = node.module or ""
        moved = [f"{module}.{a.name}" in self.moves for a in node.names]
        if not any(moved):
            if node.module and module in self.moves:
                node.module = self.moves[module]
                node._moved = True  # type: ignore[attr-defined]
            return node
        # ``from package import submodule``: each moved submodule is imported as its ledger name was
        out: list[ast.AST] = []
        for alias, is_moved in zip(node.names, moved):
            if is_moved:
                parent, _, name = self.moves[f"{module}.{alias.name}"].rpartition(".")
                asname = None if alias.asname in (None, name) else alias.asname
                out.append(ast.ImportFrom(module=parent, names=[ast.alias(name=name, asname=asname)], level=0))
            else:
                out.append(ast.ImportFrom(module=self.moves.get(module, module), names=[alias], level=node.level))
        for new in out:
            new._moved = True  # type: ignore[attr-defined]
        return out[0] if len(out) == 1 else out

    def visit_Constant(self, node: ast.Constant) -> ast.Constant:
        """A string naming a moved module (for ``importlib``) names its ledger name; so does a mention of a
        module of :data:`MOVES_IN_TEXT` inside a longer text (a message's "see pkg.mod")."""
        if isinstance(node.value, str):
            if node.value in self.moves:
                node.value = self.moves[node.value]
            elif self._named is not None:
                node.value = self._named.sub(lambda m: self.in_text[m.group(1)], node.value)
        return node


def _first_party(node: ast.stmt, package: str) -> bool:
    return (
        isinstance(node, ast.ImportFrom)
        and node.level == 0
        and node.module is not None
        and (node.module == package or node.module.startswith(package + "."))
    )


def _member_key(name: str) -> tuple[int, str]:
    """The formatter's order of imported names: constants, then classes, then the rest."""
    kind = 0 if name.isupper() and len(name) > 1 else 1 if name[:1].isupper() else 2
    return kind, name.lower()


def _regroup_block(block: list[ast.stmt], package: str) -> list[ast.stmt]:
    """One block of consecutive imports, its first-party ``from`` imports laid out as the formatter does."""
    if not any(getattr(node, "_moved", False) for node in block):
        return block
    ours = [node for node in block if _first_party(node, package)]
    if not ours:
        return block
    plain: dict[str, list[list[str]]] = {}
    aliased: dict[str, list[ast.alias]] = {}
    for node in ours:
        assert isinstance(node, ast.ImportFrom) and node.module is not None
        bare = [a.name for a in node.names if a.asname is None]
        if bare:
            plain.setdefault(node.module, []).append(bare)
        aliased.setdefault(node.module, []).extend(a for a in node.names if a.asname is not None)
    merged: list[ast.stmt] = []
    for module in sorted({*plain, *aliased}):
        groups = plain.get(module, [])
        if groups:
            bare = groups[0] if len(groups) == 1 else sorted({n for g in groups for n in g}, key=_member_key)
            merged.append(ast.ImportFrom(module=module, names=[ast.alias(name=n) for n in bare], level=0))
        for alias in aliased.get(module, []):
            merged.append(ast.ImportFrom(module=module, names=[alias], level=0))
    first = block.index(ours[0])
    rest = [node for node in block if not _first_party(node, package)]
    before = [node for node in rest if block.index(node) < first]
    after = [node for node in rest if block.index(node) > first]
    return before + merged + after


def _regroup(tree: ast.AST, package: str = "cffair") -> ast.AST:
    for node in ast.walk(tree):
        for field_name in ("body", "orelse", "finalbody"):
            body = getattr(node, field_name, None)
            if not isinstance(body, list) or not body or not isinstance(body[0], ast.AST):
                continue
            out: list[ast.stmt] = []
            block: list[ast.stmt] = []
            for stmt in [*body, None]:
                if isinstance(stmt, (ast.Import, ast.ImportFrom)):
                    block.append(stmt)
                    continue
                out.extend(_regroup_block(block, package))
                block = []
                if stmt is not None:
                    out.append(stmt)
            setattr(node, field_name, out)
    return tree


def as_before_the_moves(
    tree: ast.Module, moves: Mapping[str, str], in_text: Mapping[str, str] | None = None
) -> ast.AST:
    """``tree`` with every reference to a module of ``moves`` read as its ledger name (in texts, for the modules of
    ``in_text``, as the name they had), and the imports a move split laid out as before.

    >>> tree = ast.parse("from pkg.new.mod import f\\nraise E('see pkg.new.mod')")
    >>> print(ast.unparse(as_before_the_moves(tree, {"pkg.new.mod": "pkg.mod"}, {"pkg.new.mod": "pkg.mod"})))
    from pkg.mod import f
    raise E('see pkg.mod')
    """
    return _regroup(_Canonical(moves, in_text).visit(tree))


def as_today(source: str, moves_then: Mapping[str, str], moves_now: Mapping[str, str] | None = None) -> str:
    """``source``, code written when ``moves_then`` was the ledger's ``moves``, with every module it refers to
    under the name it has today (``moves_now``, default :data:`MOVES`): old code read from git, made runnable or
    comparable against today's tree (a benchmark's "before", an equivalence's dropped imports).

    >>> print(as_today("from pkg.mod import f", {}, {"pkg._mod": "pkg.mod"}))
    from pkg._mod import f
    >>> print(as_today("from pkg.old import f", {"pkg.old": "pkg.mod"}, {"pkg._mod": "pkg.mod"}))
    from pkg._mod import f
    """
    today = {name_then: name for name, name_then in (MOVES if moves_now is None else moves_now).items()}
    ledger_names = as_before_the_moves(ast.parse(source), moves_then)
    assert isinstance(ledger_names, ast.Module)
    return ast.unparse(as_before_the_moves(ledger_names, today))
