"""Declare rewrites that provably change no number, so that the records made with the old code stay fresh.

    python tools/declare_equivalent.py --since HEAD            # what changed since HEAD, and what is declarable
    python tools/declare_equivalent.py --since HEAD --write    # write the declarable ones into the ledger

A module qualifies when its code at ``--since`` and today differ only in which error class a ``raise`` names,
each new class one of :mod:`cffair.errors`' that is also the builtin error the old code raised there
(:func:`cffair._support.codehash.raise_neutral_code` is the same for both). Every such entry is written to
``cffair/data/fingerprint_ledger.json`` with its proof (``{"kind": "raises", "commit": ...}``), which
``tests/support/test_fingerprint.py`` checks again from git. A module whose code changed in any other way is
listed and left alone: its records go stale, as after any change of what the code computes.

    python tools/declare_equivalent.py --since REF --module M --because "why" [--write]

declares one module by hand (proof of kind ``statements``): the tool finds the top-level statements that differ
between the code at ``REF`` and today's (a function, a class, an assignment by its names, an import by the names
it binds) and writes them into the proof; ``--because`` says why changing exactly those cannot change a number of
a record made with the old code. The test checks again that exactly those statements differ; the reason is read
by people (the CHANGELOG and the closing note quote it).
"""

from __future__ import annotations

import argparse
import ast
import json
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from cffair._support.codehash import (  # noqa: E402
    _EQUIVALENT,
    SourceTree,
    _canonical_tree,
    _hash,
    canonical_code,
    raise_neutral_code,
    stable_dump,
)
from cffair._support.moves import MOVES, MOVES_IN_TEXT, as_today  # noqa: E402

LEDGER = ROOT / "cffair" / "data" / "fingerprint_ledger.json"
REASON = (
    "Only the classes of raises changed (issue 39): where a user's mistake raised a bare ValueError, RuntimeError "
    "or TypeError, it now raises the error of cffair.errors that is also that builtin. A raise ends the computation "
    "it is in, and every except clause that caught the builtin catches its subclass, so no number can differ. "
    "Checked: the raise-neutral code (cffair._support.codehash.raise_neutral_code) of this code and of the code at "
    "the proof's commit are equal; tests/support/test_fingerprint.py checks it again from git."
)


def module_path(module: str, package: bool) -> str:
    """The file of ``module`` relative to the repository (``cffair.logic._axioms`` → ``cffair/logic/_axioms.py``;
    a package's is its ``__init__.py``)."""
    return "/".join(module.split(".")) + ("/__init__.py" if package else ".py")


def source_at(commit: str, path: str, root: Path = ROOT) -> str | None:
    """The text of ``path`` at ``commit``, ``None`` when it did not exist there (or git cannot say)."""
    run = subprocess.run(["git", "show", f"{commit}:{path}"], cwd=root, capture_output=True, text=True, check=False)
    return run.stdout if run.returncode == 0 else None


Ledger = tuple[Mapping[str, str], Mapping[str, str]]  # (moves, moves_in_text)


def ledger_at(commit: str, root: Path = ROOT) -> Ledger:
    """The ledger's moves as they were at ``commit`` (none before the ledger existed)."""
    text = source_at(commit, "cffair/data/fingerprint_ledger.json", root)
    ledger = json.loads(text) if text else {}
    return dict(ledger.get("moves", {})), dict(ledger.get("moves_in_text", {}))


def name_at(module: str, moves_now: Mapping[str, str], moves_then: Mapping[str, str]) -> str:
    """The name ``module`` (today's name) had when ``moves_then`` was the ledger: both map to one ledger name."""
    ledger = moves_now.get(module, module)
    return next((then for then, name in moves_then.items() if name == ledger), ledger)


def classify(
    module: str,
    old: str,
    new: str,
    commit: str,
    moves: Mapping[str, str] = MOVES,
    in_text: Mapping[str, str] = MOVES_IN_TEXT,
    then: Ledger | None = None,
) -> dict[str, Any] | str | None:
    """What to do with ``module``, whose code was ``old`` at ``commit`` and is ``new`` today: ``None`` when its
    canonical code is the same, its ledger entry when only the classes of its raises changed, else why not.

    The old code is read with the ledger of its commit (``then``; default: today's), the new with today's, so that a
    module moved since is compared under the one name its records key it by. Its old code must be what the records
    hash: an old code that was itself declared equivalent to an older one is left to a declaration by hand
    (:func:`declare_statements`), whose entry extends that chain (:func:`with_entries`).
    """
    was = (moves, in_text) if then is None else then
    old_hash, new_hash = _hash(canonical_code(old, *was)), _hash(canonical_code(new, moves, in_text))
    if old_hash == new_hash:
        return None
    if old_hash in _EQUIVALENT:
        return "its code at the commit was itself declared equivalent to older code: declare it by hand"
    if raise_neutral_code(old, *was) != raise_neutral_code(new, moves, in_text):
        return "not only its raises changed: its records go stale"
    return {
        "module": module,
        "code": new_hash,
        "replaces": old_hash,
        "reason": REASON,
        "proof": {"kind": "raises", "commit": commit},
    }


def statement_names(tree: ast.AST) -> list[tuple[str, str]]:
    """The top-level statements of a canonical module tree as ``(name, code)``: a function or class by its
    name, an assignment by its targets (``= NAMES``), an import by the names it binds (``import registry``),
    an ``if`` by its test (``if TYPE_CHECKING``), any other statement by its kind (``Expr``, ``Try``); a name that
    recurs gets its count (``if TYPE_CHECKING #2``), so that a statement keeps its name when others move."""
    assert isinstance(tree, ast.Module)
    out, seen = [], {}
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            name = node.name
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            name = "= " + ", ".join(ast.unparse(t) for t in targets)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            name = "import " + ", ".join(a.asname or a.name.partition(".")[0] for a in node.names)
        elif isinstance(node, ast.If):
            name = "if " + ast.unparse(node.test)
        else:
            name = type(node).__name__
        seen[name] = seen.get(name, 0) + 1
        out.append((name if seen[name] == 1 else f"{name} #{seen[name]}", stable_dump(node)))
    return out


def changed_statements(old: str, new: str, then: Ledger, now: Ledger) -> list[str]:
    """The names of the top-level statements that differ between ``old`` (read with the ledger ``then``) and
    ``new`` (with ``now``): changed, added or removed, in the order of the new code, the removed ones last. The
    statements both have must keep their order, else every name counts as changed."""
    before, after = (dict(statement_names(_canonical_tree(src, *ledger))) for src, ledger in ((old, then), (new, now)))
    common_before = [n for n in before if n in after]
    common_after = [n for n in after if n in before]
    if common_before != common_after:
        return sorted({*before, *after})
    return [n for n in after if before.get(n) != after[n]] + [n for n in before if n not in after]


def declare_statements(module: str, since: str, because: str) -> dict[str, Any]:
    """The ledger entry that declares today's ``module`` equivalent to its code at ``since``, the differing
    top-level statements named in its proof (kind ``statements``) and ``because`` as its reason."""
    commit = subprocess.run(["git", "rev-parse", since], cwd=ROOT, capture_output=True, text=True, check=True)
    sha = commit.stdout.strip()
    tree = SourceTree.from_directory(ROOT / "cffair")
    then = ledger_at(sha)
    old = source_at(sha, module_path(name_at(module, MOVES, then[0]), module in tree.packages))
    if old is None:
        raise SystemExit(f"{module} did not exist at {since}: nothing to declare it equivalent to")
    new = tree.sources[module]
    old_hash, new_hash = _hash(canonical_code(old, *then)), _hash(canonical_code(new, MOVES, MOVES_IN_TEXT))
    if old_hash == new_hash:
        raise SystemExit(f"{module}: its code is the same as at {since}; nothing to declare")
    changed = changed_statements(old, new, then, (MOVES, MOVES_IN_TEXT))
    proof = {"kind": "statements", "commit": sha, "changed": changed}
    entry = {"module": module, "code": new_hash, "replaces": old_hash, "reason": because, "proof": proof}
    keeps = dropped_imports(tree, module, old, then[0])
    return {**entry, "keeps": keeps} if keeps else entry


def dropped_imports(tree: SourceTree, module: str, old: str, then: Mapping[str, str] | None = None) -> list[str]:
    """The modules of ``tree`` that ``old`` (an earlier code of ``module``, written when ``then`` was the ledger's
    moves) imported and today's code does not: the records made with the old code hashed them, and the declaration
    keeps them in their fingerprints. The old code's imports are read under today's names (a module moved since
    is the same module)."""
    if then:
        old = as_today(old, then, tree.moves)
    before = SourceTree({**tree.sources, module: old}, tree.packages, tree.moves, tree.in_text)
    return sorted(
        m for m in before.imports(module) - tree.imports(module) if not tree.exempt(m)
    )  # exempt: never hashed


def proposals(since: str) -> tuple[list[dict[str, Any]], dict[str, str]]:
    """The declarable entries since ``since`` and, for each module whose code changed otherwise, why."""
    commit = subprocess.run(
        ["git", "rev-parse", since], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.strip()
    tree = SourceTree.from_directory(ROOT / "cffair")
    then = ledger_at(commit)
    entries, other = [], {}
    for module in sorted(tree.sources):
        path = module_path(name_at(module, MOVES, then[0]), module in tree.packages)
        old = None if tree.exempt(module) else source_at(commit, path)
        if old is None:
            continue
        found = classify(module, old, tree.sources[module], commit, then=then)
        if isinstance(found, dict):
            entries.append(found)
        elif found is not None:
            other[module] = found
    return entries, other


def with_entries(old: list[dict[str, Any]], new: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The ledger's declarations with ``new`` written in: of a module declared again, the earlier entries that
    form the chain the new one extends stay (its ``replaces`` is their ``code``: the records hash the first link's
    old code, :func:`cffair._support.codehash.declared_origin`), and any other entry of it goes (it declared a
    code that is no longer today's nor a link)."""
    by_module: dict[str, list[dict[str, Any]]] = {}
    for e in old:
        by_module.setdefault(str(e["module"]), []).append(e)
    for entry in new:
        links, code = [], entry["replaces"]
        while link := next(
            (e for e in by_module.get(entry["module"], []) if e["code"] == code and e not in links), None
        ):
            links.append(link)
            code = link["replaces"]
        by_module[entry["module"]] = [*links[::-1], entry]
    return [e for module in sorted(by_module) for e in by_module[module]]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--since", required=True, help="the commit whose code the records were made with")
    parser.add_argument("--write", action="store_true", help="write the declarable entries into the ledger")
    parser.add_argument("--module", help="declare this module by hand (proof of kind statements)")
    parser.add_argument("--because", help="with --module: why its changed statements change no number")
    args = parser.parse_args(argv)
    if args.module:
        if not args.because:
            parser.error("--module needs --because: the reason no number can change")
        entries, other = [declare_statements(args.module, args.since, args.because)], {}
        print(f"changed statements of {args.module}: {', '.join(entries[0]['proof']['changed'])}")
    else:
        entries, other = proposals(args.since)
    for e in entries:
        print(f"declarable  {e['module']}  {e['replaces']} -> {e['code']}")
    for m, why in other.items():
        print(f"changed     {m}  ({why})")
    if args.write and entries:
        ledger = json.loads(LEDGER.read_text(encoding="utf-8"))
        ledger["equivalent_code"] = with_entries(ledger["equivalent_code"], entries)
        LEDGER.write_text(json.dumps(ledger, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        print(f"wrote {len(entries)} entries to {LEDGER.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
