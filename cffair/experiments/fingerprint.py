"""Fingerprints of result records: what can change a record's numbers, and nothing else.

A record is *fresh* when its stored fingerprint equals the one today's checkout would give it.
The fingerprint has five parts (the content-addressed scheme of DVC, Snakemake and
``joblib.Memory``):

* ``code``: for every module the record's method actually runs, a hash of its *normalised*
  code (the abstract syntax tree without docstrings; comments and formatting never reach the
  tree). Which modules a method runs is read from the import statements of its entry modules
  (:func:`SourceTree.closure`), so an LTN record does not depend on ``baselines/gan.py`` and a
  GAN record does not depend on ``cke.py``. A module that cannot change a number (bookkeeping,
  messages) says so with ``FINGERPRINT_EXEMPT = True`` and is left out.
* ``data``: the hash of the dataset's rows.
* ``config``: the experiment config and the profile values it resolves to.
* ``packages``: the versions of the numeric packages (:data:`NUMERIC_PACKAGES`).
* ``inputs``: each upstream stage output the record consumes (a counterfactual set, a
  pre-trained checkpoint) by its *content* hash, next to the fingerprint of the stage that made
  it. A refactor of the flow that yields the same twins therefore stales nothing: once the twins
  are regenerated and hash the same, the consumer is fresh again.

:func:`diff` compares two fingerprints and says why they differ, in words a reader can act on.
"""

from __future__ import annotations

import ast
import hashlib
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass, field
from functools import cache
from importlib import metadata
from pathlib import Path
from typing import Any

__all__ = [
    "NUMERIC_PACKAGES",
    "SourceTree",
    "diff",
    "normalised_code",
    "package_versions",
]

#: The name a module assigns ``True`` to declare that it cannot change a number.
EXEMPT_FLAG = "FINGERPRINT_EXEMPT"
FINGERPRINT_EXEMPT = True  # fingerprints are bookkeeping: editing this module changes no number

#: Packages whose version can change a number (the lock pins them; a record remembers them).
NUMERIC_PACKAGES: tuple[str, ...] = ("torch", "numpy", "zuko", "ltntorch", "scikit-learn", "pandas", "fairlearn")


# ============================================================================ normalised code
def _strip_docstrings(tree: ast.AST) -> ast.AST:
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) and isinstance(body[0].value.value, str):
                node.body = body[1:] or [ast.Pass()]
    return tree


def normalised_code(source: str) -> str:
    """The code of a module as a canonical string: its syntax tree without docstrings.

    Comments, blank lines, line breaks and quoting style never reach the tree, so none of them
    changes the result; any change to what the code does does.

    >>> normalised_code("x = 1  # one") == normalised_code("'''Doc.'''\\n\\nx = (1)\\n")
    True
    >>> normalised_code("x = 1") == normalised_code("x = 2")
    False
    """
    return ast.dump(_strip_docstrings(ast.parse(source)), annotate_fields=False, include_attributes=False)


def _hash(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:16]


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
        """Hash of a module's normalised code."""
        if module not in self._hashes:
            self._hashes[module] = _hash(normalised_code(self.sources[module]))
        return self._hashes[module]

    def exempt(self, module: str) -> bool:
        """Whether the module declares ``FINGERPRINT_EXEMPT = True`` (it cannot change a number)."""
        for node in self.tree(module).body:
            if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == EXEMPT_FLAG for t in node.targets):
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
                elif isinstance(child, ast.Constant) and isinstance(child.value, str) and "." in child.value and child.value in self.sources:
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

    def code_fingerprint(self, roots: Iterable[str], stop: Iterable[str] = (), shallow: Iterable[str] = ()) -> dict[str, str]:
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
    return SourceTree.from_directory(Path(__file__).resolve().parents[1])


@cache
def _installed_exempt() -> frozenset[str]:
    tree = _installed_tree()
    return frozenset(m for m in tree.sources if tree.exempt(m))


# ============================================================================ packages
def package_versions(names: Iterable[str] = NUMERIC_PACKAGES) -> dict[str, str | None]:
    """Installed versions of the numeric packages (``None`` when one is missing)."""
    out: dict[str, str | None] = {}
    for name in names:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = None
    return out


# ============================================================================ differences
def diff(stored: Mapping[str, Any], current: Mapping[str, Any], known_inputs: Mapping[str, str] | None = None,
         exempt: Collection[str] | None = None) -> list[str]:
    """Why ``stored`` (a record's fingerprint) differs from ``current``; ``[]`` when it is fresh.

    Args:
        known_inputs: content hashes of upstream outputs regenerated by today's code
            (``{"counterfactuals": "…"}``). An input whose producer changed is still fresh when
            its regenerated content equals the stored content.
        exempt: modules that declare ``FINGERPRINT_EXEMPT = True`` today (default: those of the
            installed tree). A module of the stored code that no longer runs *because it is
            declared exempt* is no reason: the declaration says it cannot change a number, so
            its old hash does not matter either. Any other module that no longer runs is one
            (it left the closure because an importer changed, which is a reason of its own,
            or because the file is gone).

    >>> a = {"code": {"m": "1"}, "data": "d", "config": {"lr": 1}, "packages": {"torch": "2"}}
    >>> diff(a, {**a, "code": {"m": "2", "n": "3"}})
    ['code of m changed', 'code of n now runs']
    """
    known_inputs = known_inputs or {}
    if exempt is None:
        exempt = _installed_exempt()
    reasons: list[str] = []
    if stored.get("config") != current.get("config"):
        keys = sorted(k for k in set(stored.get("config", {})) | set(current.get("config", {}))
                      if stored.get("config", {}).get(k) != current.get("config", {}).get(k))
        reasons.append("config (" + ", ".join(keys) + ")")
    if stored.get("data") != current.get("data"):
        reasons.append(f"data (rows hash {stored.get('data')} → {current.get('data')})")
    old_p, new_p = stored.get("packages", {}), current.get("packages", {})
    for name in sorted(set(old_p) | set(new_p)):
        if old_p.get(name) != new_p.get(name):
            reasons.append(f"package {name} {old_p.get(name)} → {new_p.get(name)}")
    old_c, new_c = stored.get("code", {}), current.get("code", {})
    for m in sorted(set(old_c) | set(new_c)):
        if m not in new_c:
            if m not in exempt:
                reasons.append(f"code of {m} no longer runs")
        elif m not in old_c:
            reasons.append(f"code of {m} now runs")
        elif old_c[m] != new_c[m]:
            reasons.append(f"code of {m} changed")
    old_i, new_i = stored.get("inputs", {}), current.get("inputs", {})
    for name in sorted(set(old_i) | set(new_i)):
        if name not in new_i or name not in old_i:
            reasons.append(f"input {name} {'no longer used' if name not in new_i else 'now used'}")
            continue
        if name in known_inputs:
            if known_inputs[name] != old_i[name].get("content"):
                reasons.append(f"input {name}: its content changed")
            continue
        sub = diff(old_i[name].get("producer", {}), new_i[name].get("producer", {}), exempt=exempt)
        if sub:
            shown = "; ".join(sub[:2]) + (f"; and {len(sub) - 2} more" if len(sub) > 2 else "")
            reasons.append(f"input {name} was made by a changed stage ({shown}); "
                           "regenerating it shows whether its content changed")
    return reasons
