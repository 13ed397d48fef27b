"""Normalised code and the modules a piece of code runs: the one way cffair hashes its own code.

A hash of a module is the hash of its *normalised* code (:func:`normalised_code`: the syntax tree
without docstrings, so comments, docstrings and formatting never change it), and what a piece of
code runs is the closure of its import statements (:meth:`SourceTree.closure`). Record
fingerprints (:mod:`cffair.experiments._fingerprint`), the cache keys of fitted flows and
counterfactual sets (:mod:`cffair.causal._cache`) and of pre-trainings (:mod:`cffair.learners._pretraining`)
all hash code here, so that a docstring edit invalidates none of them.

Moving a module is not a change of what it does (:mod:`cffair._support.moves`, the ledger of moves):
before hashing, every reference to a moved module is read as its ledger name, and the fingerprint is
keyed by ledger names, so a move that keeps each import's target stales nothing: every hash and key
is what it was. :func:`cffair.experiments.diff` is rename-aware
as well: a module that left the fingerprint under one name and came back under another with the
same normalised code is a move, not a reason.

Two further rules keep a change that cannot change a number from staling anything:

* a module's ``__version__ = "x.y.z"`` is a label, not code: :func:`normalised_code` leaves it
  out, so a release (``tools/release.py``) stales no record;
* :data:`EQUIVALENT_CODE` declares a rewrite of a module equivalent to the code it replaced,
  pinned to the exact hash of the new code (any later edit gives another hash, and the
  declaration no longer applies); ``tests/support/test_fingerprint.py`` fails on a declaration whose
  module has moved on, so that none lingers.
"""

from __future__ import annotations

import ast
import hashlib
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from cffair._support.moves import MOVES, MOVES_IN_TEXT, as_before_the_moves, ledger
from cffair.errors import StateError

__all__ = [
    "EQUIVALENT_CODE",
    "EXEMPT_FLAG",
    "Equivalence",
    "SourceTree",
    "canonical_code",
    "code_hash",
    "code_version",
    "declared_origin",
    "normalised_code",
    "raise_neutral_code",
    "stable_dump",
]

#: The name a module assigns ``True`` to declare that it cannot change a number.
EXEMPT_FLAG = "FINGERPRINT_EXEMPT"
FINGERPRINT_EXEMPT = True  # hashing code is bookkeeping: editing this module changes no number


# ============================================================================ normalised code
def stable_dump(node: object) -> str:
    """A syntax tree as text that is the same on every Python version the project supports.

    :func:`ast.dump` is not: Python 3.12 adds ``type_params=[]`` to every function and class, and 3.13
    leaves empty fields out; :func:`ast.unparse` writes f-strings with other quotes on 3.12. Here a
    node is its class name and its non-empty fields, so the same code gives the same text (and the
    same fingerprint) on 3.11, 3.12 and 3.13.

    >>> print(stable_dump(ast.parse("def f(a, *, b=1): return a"))[:58])
    Module(body=[FunctionDef(name='f', args=arguments(args=[ar
    """
    if isinstance(node, ast.AST):
        fields = ((name, getattr(node, name, None)) for name in node._fields)
        inner = ", ".join(f"{name}={stable_dump(value)}" for name, value in fields if value is not None and value != [])
        return f"{type(node).__name__}({inner})"
    if isinstance(node, list):
        return "[" + ", ".join(stable_dump(item) for item in node) + "]"
    return repr(node)


def _strip_docstrings(tree: ast.AST) -> ast.AST:
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if (
                body
                and isinstance(body[0], ast.Expr)
                and isinstance(body[0].value, ast.Constant)
                and isinstance(body[0].value.value, str)
            ):
                node.body = body[1:] or [ast.Pass()]
    return tree


def _strip_version(tree: ast.Module) -> ast.Module:
    """Leave out the module's ``__version__ = "..."`` (a label that a release changes)."""
    tree.body = [
        node
        for node in tree.body
        if not (
            isinstance(node, ast.Assign)
            and [t.id for t in node.targets if isinstance(t, ast.Name)] == ["__version__"]
            and isinstance(node.value, ast.Constant)
            and isinstance(node.value.value, str)
        )
    ] or [ast.Pass()]
    return tree


def normalised_code(source: str) -> str:
    """The code of a module as a canonical string: its syntax tree without docstrings.

    Comments, blank lines, line breaks and quoting style never reach the tree, so none of them
    changes the result; any change to what the code does does. A module-level
    ``__version__ = "x.y.z"`` is left out too: a release changes the label, not what the code does.

    >>> normalised_code("x = 1  # one") == normalised_code("'''Doc.'''\\n\\nx = (1)\\n")
    True
    >>> normalised_code("x = 1") == normalised_code("x = 2")
    False
    >>> normalised_code("__version__ = '0.2.0'\\nx = 1") == normalised_code("__version__ = '0.3.0'\\nx = 1")
    True
    """
    tree = _strip_docstrings(ast.parse(source))
    assert isinstance(tree, ast.Module)
    return stable_dump(_strip_version(tree))


def canonical_code(source: str, moves: Mapping[str, str], in_text: Mapping[str, str] | None = None) -> str:
    """:func:`normalised_code` with every reference to a moved module read as its ledger name.

    With no move that the source refers to, it is :func:`normalised_code` itself, so a ledger
    entry changes no hash of a module that does not refer to the moved one.

    >>> moves = {"pkg.new.mod": "pkg.mod"}
    >>> canonical_code("from pkg.new.mod import f", moves) == normalised_code("from pkg.mod import f")
    True
    >>> canonical_code("from pkg.new import mod", moves) == normalised_code("from pkg import mod")
    True
    >>> canonical_code("x = 'pkg.new.mod'", moves) == normalised_code("x = 'pkg.mod'")
    True

    A module named inside a longer text (a message's "see pkg.new.mod") is read as the name the text
    had for the moves in ``in_text`` (:data:`~cffair._support.moves.MOVES_IN_TEXT`), and only as a whole name:

    >>> says, named = "raise E('see pkg.new.mod.f')", {"pkg.new.mod": "pkg.mod"}
    >>> canonical_code(says, moves, named) == normalised_code("raise E('see pkg.mod.f')")
    True
    >>> canonical_code(says, moves) == normalised_code(says)
    True
    >>> canonical_code("x = 'pkg.new.module'", moves, named) == normalised_code("x = 'pkg.new.module'")
    True
    """
    return stable_dump(_canonical_tree(source, moves, in_text))


def _canonical_tree(source: str, moves: Mapping[str, str], in_text: Mapping[str, str] | None = None) -> ast.AST:
    """The syntax tree :func:`canonical_code` writes out (and :func:`raise_neutral_code` reads further)."""
    tree = _strip_docstrings(ast.parse(source))
    assert isinstance(tree, ast.Module)
    tree = _strip_version(tree)
    return as_before_the_moves(tree, moves, in_text) if moves else tree


def _hash(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def code_hash(source: str) -> str:
    """The short hash of a module's normalised code (:func:`normalised_code`).

    >>> code_hash("x = 1  # one") == code_hash("'''Doc.'''\\nx = (1)\\n")
    True
    """
    return _hash(normalised_code(source))


# ============================================================================ declared equivalences
@dataclass(frozen=True)
class Equivalence:
    """A rewrite of a module declared not to change any number.

    Attributes:
        module: the module (``cffair.datasets._paper``).
        code: the hash of its normalised code today (:func:`code_hash`); the declaration applies to
            exactly this code.
        replaces: the hash of the code it replaced, which records, cache keys and stage inputs
            keep seeing.
        reason: why no number can differ, and how that was checked.
        proof: how a test checks it again, or ``None``: ``{"kind": "raises", "commit": sha}`` when the
            module's code at ``commit`` (which hashes to ``replaces``) has the same
            :func:`raise_neutral_code` as today's; ``{"kind": "statements", "commit": sha, "changed":
            [...]}`` when exactly the named top-level statements differ from the code at ``commit`` and
            ``reason`` says why changing them changes no number (``tools/declare_equivalent.py`` writes both).
        keeps: modules the replaced code imported and this code no longer does: a record made with the old
            code hashed them, and keeps hashing them (:meth:`SourceTree.closure`), so the rewrite neither
            drops them from its fingerprint nor stales it; they are not imports of the module otherwise.
    """

    module: str
    code: str
    replaces: str
    reason: str
    proof: Mapping[str, Any] | None = None
    keeps: tuple[str, ...] = ()


# ============================================================================ raise-neutral code
def _builtin_of(cls: type) -> str | None:
    """The builtin error a cffair error class also is (``DataError`` → ``ValueError``), ``None`` for none."""
    for base in cls.__mro__[1:]:
        if base.__module__ == "builtins" and base not in (Exception, BaseException, object):
            return base.__name__
    return None


class _RaiseNeutral(ast.NodeTransformer):
    """Reads each ``raise`` of an error class imported from :mod:`cffair.errors` as a raise of the builtin
    error that class also is, and leaves out the imports from :mod:`cffair.errors`."""

    def __init__(self, builtin_of: Mapping[str, str]) -> None:
        self.builtin_of = builtin_of

    def visit_ImportFrom(self, node: ast.ImportFrom) -> ast.AST | None:
        return None if node.module == "cffair.errors" and node.level == 0 else node

    def visit_Raise(self, node: ast.Raise) -> ast.Raise:
        exc = node.exc.func if isinstance(node.exc, ast.Call) else node.exc
        if isinstance(exc, ast.Name) and exc.id in self.builtin_of:
            exc.id = self.builtin_of[exc.id]
        return node


def raise_neutral_code(source: str, moves: Mapping[str, str], in_text: Mapping[str, str] | None = None) -> str:
    """:func:`canonical_code` with every raise of one of :mod:`cffair.errors`' classes read as a raise of
    the builtin error that class also is, and the imports from :mod:`cffair.errors` left out.

    Two versions of a module with the same raise-neutral code differ only in which of cffair's errors
    they raise where the other raised the builtin it subclasses: a raise ends the computation it is
    in, and ``except`` clauses that caught the builtin still catch the subclass, so no number that
    either version computes can differ (the proof behind an :class:`Equivalence` of kind ``raises``).

    >>> old = "def f(x):\\n    if x < 0:\\n        raise ValueError('negative')\\n    return x"
    >>> new = "from cffair.errors import ParameterError\\n" + old.replace("ValueError", "ParameterError")
    >>> raise_neutral_code(old, {}) == raise_neutral_code(new, {})
    True
    >>> raise_neutral_code(old, {}) == raise_neutral_code(new.replace("return x", "return -x"), {})
    False
    """
    import cffair.errors

    imported = {
        alias.asname or alias.name: alias.name
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.ImportFrom) and node.module == "cffair.errors" and node.level == 0
        for alias in node.names
    }
    builtin_of = {
        local: b
        for local, name in imported.items()
        if isinstance(cls := getattr(cffair.errors, name, None), type) and (b := _builtin_of(cls))
    }
    return stable_dump(_RaiseNeutral(builtin_of).visit(_canonical_tree(source, moves, in_text)))


#: Rewrites declared equivalent to the code they replaced (:class:`Equivalence`), read by
#: :meth:`SourceTree.code_hash`. Add one only when the rewrite provably changes no number (say
#: how in ``reason``), never to spare a regeneration after a change of what the code computes.
EQUIVALENT_CODE: tuple[Equivalence, ...] = tuple(
    Equivalence(e["module"], e["code"], e["replaces"], e["reason"], e.get("proof"), tuple(e.get("keeps", ())))
    for e in ledger()["equivalent_code"]
)

#: Keyed by the declared code alone (a hash of its content), so that a declaration follows its code through a move.
_EQUIVALENT = {e.code: e.replaces for e in EQUIVALENT_CODE}
_KEEPS = {e.code: e.keeps for e in EQUIVALENT_CODE if e.keeps}


def declared_origin(code: str) -> tuple[str, tuple[str, ...]]:
    """The code a declared rewrite stands for, and the modules it keeps hashing (:attr:`Equivalence.keeps`).

    Declarations chain: a module rewritten twice has two entries, the second replacing the code the first
    declared (``c → b``, ``b → a``), so today's code stands for ``a``, the code its records hashed, and keeps
    what every link keeps. A code nothing declares stands for itself.

    Raises:
        StateError: the ledger's declarations of a module run in a circle.
    """
    keeps: list[str] = list(_KEEPS.get(code, ()))
    seen = {code}
    while code in _EQUIVALENT:
        code = _EQUIVALENT[code]
        if code in seen:
            raise StateError(f"the ledger's declared equivalences run in a circle through code {code}; remove one.")
        seen.add(code)
        keeps += _KEEPS.get(code, ())
    return code, tuple(dict.fromkeys(keeps))


# ============================================================================ the source tree
@dataclass
class SourceTree:
    """The modules of a package as source text, with their import graph.

    Args:
        sources: module name (``cffair.causal._flow``) → source text.
        packages: the names in ``sources`` that are packages (their ``__init__``).
        moves: the ledger of moved modules (:data:`~cffair._support.moves.MOVES`, the default for the installed tree).
        in_text: moved modules a text may name (:data:`~cffair._support.moves.MOVES_IN_TEXT`, the default for the installed tree).
    """

    sources: dict[str, str]
    packages: frozenset[str] = frozenset()
    moves: Mapping[str, str] = field(default_factory=dict)
    in_text: Mapping[str, str] = field(default_factory=dict)
    _trees: dict[str, ast.Module] = field(default_factory=dict, repr=False)
    _hashes: dict[str, str] = field(default_factory=dict, repr=False)
    _kept: dict[str, set[str]] = field(default_factory=dict, repr=False)
    _imports: dict[str, set[str]] = field(default_factory=dict, repr=False)
    _exempt: dict[str, bool] = field(default_factory=dict, repr=False)
    _fingerprints: dict[tuple[frozenset[str], ...], dict[str, str]] = field(default_factory=dict, repr=False)

    # ---------------------------------------------------------------- construction
    @classmethod
    def from_directory(
        cls, root: str | Path, package: str = "cffair", moves: Mapping[str, str] | None = None
    ) -> SourceTree:
        """Read every ``.py`` file under ``root`` (the package folder) as module sources."""
        root = Path(root)
        sources: dict[str, str] = {}
        packages = set()
        for path in sorted(root.rglob("*.py")):
            if "__pycache__" in path.parts:
                continue
            parts = [package, *path.relative_to(root).with_suffix("").parts]
            if parts[-1] == "__init__":
                parts = parts[:-1]
                packages.add(".".join(parts))
            sources[".".join(parts)] = path.read_text(encoding="utf-8")
        if moves is None:  # the installed ledger
            return cls(sources, frozenset(packages), dict(MOVES), dict(MOVES_IN_TEXT))
        return cls(sources, frozenset(packages), dict(moves))

    @classmethod
    def installed(cls) -> SourceTree:
        """The tree of the ``cffair`` being run."""
        return _installed_tree()

    # ---------------------------------------------------------------- parsing
    def tree(self, module: str) -> ast.Module:
        if module not in self._trees:
            self._trees[module] = ast.parse(self.sources[module])
        return self._trees[module]

    def code_hash(self, module: str) -> str:
        """Hash of a module's normalised code, references to moved modules read as their ledger names
        (the hash of the code it replaced when :data:`EQUIVALENT_CODE` declares this exact code
        equivalent to it, followed back through a chain of declarations: :func:`declared_origin`)."""
        if module not in self._hashes:
            found = _hash(canonical_code(self.sources[module], self.moves, self.in_text))
            self._hashes[module], kept = declared_origin(found)
            self._kept[module] = {m for m in kept if m in self.sources}
        return self._hashes[module]

    def ledger_name(self, module: str) -> str:
        """The name a module is fingerprinted under: its ledger name if it moved, else its name."""
        return self.moves.get(module, module)

    def exempt(self, module: str) -> bool:
        """Whether the module declares ``FINGERPRINT_EXEMPT = True`` (it cannot change a number)."""
        if module not in self._exempt:
            self._exempt[module] = False
            for node in self.tree(module).body:
                if isinstance(node, ast.Assign) and any(
                    isinstance(t, ast.Name) and t.id == EXEMPT_FLAG for t in node.targets
                ):
                    self._exempt[module] = isinstance(node.value, ast.Constant) and node.value.value is True
                    break
        return self._exempt[module]

    def _resolve(self, module: str, name: str | None, level: int, current: str) -> str | None:
        """The module an import statement names (``None`` when outside the tree)."""
        if level:
            base = current if current in self.packages else current.rpartition(".")[0]
            for _ in range(level - 1):
                base = base.rpartition(".")[0]
            module = f"{base}.{module}" if module else base
        if name is not None:
            sub = f"{module}.{name}"
            if sub in self.sources:
                return sub
            if module in self.packages:  # a name re-exported by a package: find where it is defined
                origin = self._reexport_origin(module, name)
                if origin is not None:
                    return origin
        return module if module in self.sources else None

    def _reexport_origin(self, package: str, name: str) -> str | None:
        for node in ast.walk(self.tree(package)):
            if isinstance(node, ast.ImportFrom) and any((a.asname or a.name) == name for a in node.names):
                target = self._resolve(node.module or "", None, node.level, package)
                if target is not None and target != package:
                    return target
        return None

    def imports(self, module: str, *, type_only: bool = False) -> set[str]:
        """Modules of the tree that ``module`` imports anywhere (also inside functions).

        A string that is exactly the name of a module of the tree counts as an import too (lazy
        imports through ``importlib`` and module ``__getattr__``): a dependency may be
        over-counted, never missed. Imports under ``if TYPE_CHECKING:`` are left out unless
        ``type_only``: they do not run (so they are not a record's code), but they are coupling
        all the same (the structure checks count them).
        """
        key = f"{module}\0typed" if type_only else module
        if key in self._imports:
            return set(self._imports[key])
        found: set[str] = set()

        def visit(node: ast.AST) -> None:
            for child in ast.iter_child_nodes(node):
                if isinstance(child, ast.If) and _is_type_checking(child.test) and not type_only:
                    for sub in child.orelse:
                        visit(sub)
                    continue
                if isinstance(child, ast.Import):
                    for alias in child.names:
                        target = self._resolve(alias.name, None, 0, module)
                        if target:
                            found.add(target)
                elif isinstance(child, ast.ImportFrom):
                    for alias in child.names:
                        target = self._resolve(child.module or "", alias.name, child.level, module)
                        if target:
                            found.add(target)
                elif (
                    isinstance(child, ast.Constant)
                    and isinstance(child.value, str)
                    and "." in child.value
                    and child.value in self.sources
                ):
                    found.add(child.value)  # a module named by string (importlib, lazy re-exports)
                visit(child)

        visit(self.tree(module))
        found.discard(module)
        self._imports[key] = found
        return set(found)

    def closure(self, roots: Iterable[str], stop: Iterable[str] = ()) -> set[str]:
        """Every module the ``roots`` run: their transitive imports.

        Modules in ``stop`` (stages whose output enters by content hash) and exempt modules are
        neither included nor followed.
        """
        stop = set(stop)
        seen: set[str] = set()
        todo = [r for r in roots]
        for r in todo:
            if r not in self.sources:
                raise KeyError(f"{r} is not a module of the source tree")
        while todo:
            m = todo.pop()
            if m in seen or m in stop or self.exempt(m):
                continue
            seen.add(m)
            todo.extend((self.imports(m) | self.kept(m)) - seen)
        return seen

    def kept(self, module: str) -> set[str]:
        """Modules a declared rewrite of ``module`` no longer imports but its records hash (:attr:`Equivalence.keeps`)."""
        if not _KEEPS:
            return set()
        self.code_hash(module)
        return set(self._kept[module])

    def code_fingerprint(
        self, roots: Iterable[str], stop: Iterable[str] = (), shallow: Iterable[str] = ()
    ) -> dict[str, str]:
        """``{module: normalised-code hash}`` over the closure of ``roots``.

        ``shallow`` modules (dispatchers) contribute their own code but not their imports:
        what they dispatch to is named among the roots.
        """
        key = (frozenset(roots), frozenset(stop), frozenset(shallow))
        if key not in self._fingerprints:
            mods = self.closure(key[0], key[1]) | {m for m in key[2] if not self.exempt(m)}
            self._fingerprints[key] = dict(sorted((self.ledger_name(m), self.code_hash(m)) for m in mods))
        return dict(self._fingerprints[key])

    def import_graph(self, *, type_only: bool = False) -> dict[str, set[str]]:
        """``{module: modules it imports}`` for every module of the tree (``type_only``: with the
        imports under ``if TYPE_CHECKING:``)."""
        return {m: self.imports(m, type_only=type_only) for m in self.sources}

    def cycles(self, *, type_only: bool = True) -> list[list[str]]:
        """Every import cycle (a strongly connected component of more than one module, Tarjan's
        algorithm), type-only imports included by default. A package's ``__init__`` importing
        its own submodules is not a cycle with them.

        >>> SourceTree({"p.a": "import p.b", "p.b": "from p import a", "p": ""}, frozenset({"p"})).cycles()
        [['p.a', 'p.b']]
        """
        graph = self.import_graph(type_only=type_only)
        edges = {m: {t for t in ts if not m.startswith(t + ".")} for m, ts in graph.items()}
        return _strongly_connected(edges)


def _strongly_connected(graph: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's strongly connected components with more than one node, each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return sorted(out)


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


@cache
def _installed_tree() -> SourceTree:
    return SourceTree.from_directory(Path(__file__).resolve().parents[1])


def code_version(roots: Iterable[str], stop: Iterable[str] = ()) -> str:
    """One short hash of the normalised code of everything ``roots`` run in the installed tree
    (:meth:`SourceTree.code_fingerprint`): the code part of a cache key (the fitted flows and
    counterfactual sets of :mod:`cffair.causal._cache`, the pre-trainings of :mod:`cffair.learners._pretraining`).

    Like a record's fingerprint, it ignores docstrings, comments and formatting, and modules that
    declare ``FINGERPRINT_EXEMPT = True``; any change to what the code does changes it.
    """
    return _hash(json.dumps(_installed_tree().code_fingerprint(roots, stop), sort_keys=True))
