"""Record fingerprints: what stales a record and what does not (issue 11)."""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Any

import pytest

from cffair.errors import StateError
from cffair.experiments import ExperimentConfig, ResultsStore, SourceTree, diff, normalised_code
from cffair.experiments._pipeline import keys

ROOT = Path(__file__).resolve().parents[2]
METHODS = ("ltn", "cnf", "gan", "dcevae", "pcf")


def _edited(tree: SourceTree, module: str, edit) -> SourceTree:
    return SourceTree({**tree.sources, module: edit(tree.sources[module])}, tree.packages, tree.moves, tree.in_text)


def _codes(tree: SourceTree) -> dict[str, dict[str, str]]:
    return {m: keys.code(m, tree) for m in METHODS}


def test_docstring_comment_and_formatting_edits_change_nothing():
    src = "def f(x):\n    return x + 1\n"
    same = '"""Module doc."""\n\n\ndef f(x):  # add one\n    """Doc."""\n    return (x +\n            1)\n'
    assert normalised_code(src) == normalised_code(same)
    assert normalised_code(src) != normalised_code(src.replace("+ 1", "+ 2"))


def test_a_docstring_edit_in_a_shared_module_stales_no_record():
    tree = SourceTree.installed()
    edited = _edited(
        tree, "cffair.learners._training", lambda s: s.replace('"""', '"""Edited. ', 1) + "\n# a comment\n"
    )
    assert edited.sources["cffair.learners._training"] != tree.sources["cffair.learners._training"]
    assert _codes(edited) == _codes(tree)


@pytest.mark.parametrize(
    "module,stales",
    [
        ("cffair.baselines._gan", {"gan"}),
        ("cffair.evaluation._cke", {"ltn"}),
        ("cffair.baselines._dcevae", {"dcevae"}),
        ("cffair.learners._training", {"ltn"}),
        ("cffair.scores._metrics", set(METHODS)),  # the shared evaluation
    ],
)
def test_a_code_edit_stales_exactly_the_methods_that_run_it(module, stales):
    tree = SourceTree.installed()
    edited = _edited(tree, module, lambda s: s + "\n_EDIT = 1\n")
    before, after = _codes(tree), _codes(edited)
    assert {m for m in METHODS if before[m] != after[m]} == stales
    for m in stales:
        assert diff({"code": before[m]}, {"code": after[m]}) == [f"code of {module} changed"]


def test_bookkeeping_modules_and_the_twins_producer_are_not_a_records_code():
    code = keys.code("ltn")  # keyed by the modules' ledger names (cffair.causal._flow is cffair.causal.flow)
    assert "cffair.experiments.store" not in code and "cffair.experiments.fingerprint" not in code
    assert "cffair.causal.flow" not in code and "cffair.pipeline.counterfactuals" not in code
    assert any(
        m == "cffair.causal.flow"
        for m in keys.producer("counterfactuals", ExperimentConfig("compas", 0, "cnf"), "d")["code"]
    )


def test_the_dispatcher_imports_nothing_outside_what_records_name():
    """Every module the dispatcher imports is a method's runner, a producer, or in every record's closure."""
    tree = SourceTree.installed()
    named = set(keys.RUNNERS.values()) | set(keys.PRODUCERS) | set.intersection(*(set(keys.code(m)) for m in METHODS))
    imported = {tree.ledger_name(m) for m in tree.imports(keys.DISPATCHER)}  # records key modules by ledger name
    assert (
        imported - {tree.ledger_name(m) for m in named} - {tree.ledger_name(m) for m in tree.sources if tree.exempt(m)}
        == set()
    )


def test_an_input_made_by_changed_code_is_fresh_when_its_content_is_the_same():
    stored = {
        "code": {"m": "1"},
        "data": "d",
        "config": {},
        "packages": {},
        "inputs": {"counterfactuals": {"content": "H", "producer": {"code": {"flow": "1"}}}},
    }
    now = {**stored, "inputs": {"counterfactuals": {"content": None, "producer": {"code": {"flow": "2"}}}}}
    [reason] = diff(stored, now)
    assert reason.startswith("input counterfactuals was made by a changed stage (code of flow changed)")
    assert diff(stored, now, {"counterfactuals": "H"}) == []
    assert diff(stored, now, {"counterfactuals": "other"}) == ["input counterfactuals: its content changed"]


@pytest.mark.slow
def test_a_flow_refactor_that_yields_the_same_twins_stales_nothing(tmp_path, monkeypatch):
    """Real quick runs on COMPAS: a refactor of the flow (same twins) first reads as 'maybe stale';
    regenerating the twins shows the same content, the records are restamped, nothing reruns."""
    from cffair.experiments import paper_grid
    from cffair.experiments._pipeline import prepare_inputs
    from cffair.workflows import _reproduce as R

    monkeypatch.setenv("CFFAIR_CACHE", str(tmp_path / "cache"))
    store = ResultsStore(tmp_path / "results")
    grid = [c for c in paper_grid("quick", ["compas"], ["q1", "q2"]) if c.setting in ("ltn_acc", "ltn_acc_cf", "cnf")]
    known = prepare_inputs("quick", ["compas"])  # the twins and the rulers of appendix C, by content
    R.run_grid(grid, store, progress=False, known_inputs=known)
    assert set(R.status(store, grid)["state"]) == {"fresh"}
    made = {c.key: (store.get(c)["metrics"], store.get(c)["timings"]) for c in grid}

    tree = SourceTree.installed()
    flow_module = "cffair.causal._flow"
    key = tree.ledger_name(flow_module)  # the name a record keys its code by
    assert key in keys.producer("counterfactuals", grid[0], "d")["code"]
    refactored = _edited(tree, flow_module, lambda s: s + "\n_REFACTORED = True\n")
    monkeypatch.setattr(SourceTree, "installed", classmethod(lambda cls: refactored))
    keys._installed_code.cache_clear()
    st = R.status(store, grid)
    assert set(st["state"]) == {"stale"}
    made_by_flow = [f"input {n} was made by a changed stage" for n in known["compas"]]  # the twins and both rulers
    assert all(
        sorted(r.split(" (")[0] for r in rs) == sorted(made_by_flow) for rs in st["reasons"]
    )  # nothing else changed

    R.run_grid(grid, store, progress=False, known_inputs=known)  # the same twins: restamped, not rerun
    assert set(R.status(store, grid)["state"]) == {"fresh"}
    for c in grid:
        rec = store.get(c)
        assert rec["fingerprint"]["inputs"]["counterfactuals"]["producer"]["code"][key] == refactored.code_hash(
            flow_module
        )
    # nothing was retrained: the same metrics and the same timings of the original runs
    assert {c.key: (store.get(c)["metrics"], store.get(c)["timings"]) for c in grid} == made
    keys._installed_code.cache_clear()


def test_a_grid_edit_stales_no_record_but_a_config_value_does():
    """The grid lives in an exempt module: cutting a study changes no record's code; a config's
    values still enter its fingerprint (the ``config`` part)."""
    tree = SourceTree.installed()
    assert tree.exempt("cffair.experiments._config") and tree.exempt("cffair.experiments._grid")
    edited = _edited(
        tree,
        "cffair.experiments._grid",
        lambda s: s.replace("Q2_ADULT: tuple[int, ...] = (0, 2)", "Q2_ADULT: tuple[int, ...] = (0,)"),
    )
    assert edited.sources["cffair.experiments._grid"] != tree.sources["cffair.experiments._grid"]
    assert _codes(edited) == _codes(tree)
    a = keys._config(ExperimentConfig("compas", 0, "ltn_acc_cf"))
    b = keys._config(ExperimentConfig("compas", 0, "ltn_acc_cf", options={"fair_p": 6}))
    assert a != b and diff({"config": a}, {"config": b}) == ["config (options)"]


def test_a_module_declared_exempt_since_is_no_reason_but_one_that_left_the_closure_is():
    stored = {"code": {"m": "1", "grid": "2"}}
    now = {"code": {"m": "1"}}
    assert diff(stored, now, exempt={"grid"}) == []
    assert diff(stored, now, exempt=set()) == ["code of grid no longer runs"]
    # a module that starts to run is always a reason, exempt or not before
    assert diff(now, stored, exempt=set()) == ["code of grid now runs"]


# ---------------------------------------------------------------- moves (issue 39: a move stales nothing)
def _moved(tree: SourceTree, moves_made: dict[str, str], ledger: dict[str, str], *, in_text: bool = True) -> SourceTree:
    """A scratch copy of ``tree`` with each module ``old`` moved to ``new`` (``moves_made``), every
    reference to it rewritten as a developer would (import paths, ``from package import module``, the
    messages that name it), ``ledger`` as its :data:`cffair._support.codehash.MOVES` and the new names
    among its :data:`~cffair._support.codehash.MOVES_IN_TEXT` (unless not ``in_text``)."""
    sources = dict(tree.sources)
    packages = set(tree.packages)
    for old, new in moves_made.items():
        parent_old, _, leaf_old = old.rpartition(".")
        parent_new, _, leaf_new = new.rpartition(".")
        path = re.compile(rf"\b{re.escape(old)}\b")
        sources = {
            (new if m == old else m): path.sub(new, src).replace(
                f"from {parent_old} import {leaf_old}\n", f"from {parent_new} import {leaf_new} as {leaf_old}\n"
            )
            for m, src in sources.items()
        }
        sources.setdefault(parent_new, '"""A new part of the package."""\n')
        packages.add(parent_new)
    named = {n: was for n, was in tree.in_text.items() if n not in moves_made}
    if in_text:  # each text was hashed naming the module as it was then
        named |= {new: tree.in_text.get(old, old) for old, new in moves_made.items()}
    return SourceTree(sources, frozenset(packages), ledger, named)


def _ledger_after(tree: SourceTree, moves_made: dict[str, str]) -> dict[str, str]:
    """The installed ledger with the scratch moves added, as a developer would write it: each moved module
    keeps the name its fingerprint already had."""
    kept = {new: old for new, old in tree.moves.items() if new not in moves_made}
    return {**kept, **{new: tree.ledger_name(old) for old, new in moves_made.items()}}


MOVES_MADE = {
    "cffair.scores._metrics": "cffair.scores._scoring",
    "cffair.learners._training": "cffair.learners._fitting",
}


def test_moving_modules_with_a_ledger_entry_stales_no_record_and_no_input():
    tree = SourceTree.installed()
    moved = _moved(tree, MOVES_MADE, _ledger_after(tree, MOVES_MADE))
    assert "cffair.scores._metrics" not in moved.sources and "cffair.scores._scoring" in moved.sources
    assert (
        "cffair.scores._scoring" in moved.sources["cffair.experiments._pipeline.fold"]
    )  # the importers were rewritten
    assert _codes(moved) == _codes(tree)
    assert moved.code_fingerprint(keys.PRODUCERS) == tree.code_fingerprint(keys.PRODUCERS)
    for m in METHODS:
        assert diff({"code": _codes(tree)[m]}, {"code": _codes(moved)[m]}) == []


def test_without_the_ledger_a_move_stales_only_the_importers_and_the_moved_code_is_recognised():
    """The rename-aware diff pairs a moved module by its code; its importers' import lines did change."""
    tree = SourceTree.installed()
    ledger = {new: old for new, old in tree.moves.items() if new not in MOVES_MADE}  # the new moves not declared
    moved = _moved(tree, MOVES_MADE, ledger)
    importers = {
        tree.ledger_name(m)
        for m, src in tree.sources.items()
        if re.search(r"\bcffair\.scores\._metrics\b", src) and not tree.exempt(m)
    }
    for m in METHODS:
        before, after = _codes(tree)[m], _codes(moved)[m]
        assert "cffair.metrics" in before and "cffair.scores._scoring" in after
        reasons = diff({"code": before}, {"code": after})
        assert reasons, "an import line changed: some importer must read as changed"
        moved_names = {*MOVES_MADE, *MOVES_MADE.values(), *(tree.ledger_name(o) for o in MOVES_MADE)}
        assert not any(r.split()[2] in moved_names for r in reasons), reasons  # the moved code itself is paired
        changed = {r.removeprefix("code of ").removesuffix(" changed") for r in reasons}
        assert {tree.ledger_name(c) for c in changed} <= importers | {
            tree.ledger_name(i) for i, src in tree.sources.items() if re.search(r"\bcffair\.learners\._training\b", src)
        }, reasons


def test_a_message_that_names_a_moved_module_follows_the_move_only_through_the_ledger():
    """The graph's own error names its module ("see cffair.datasets._graph for the format"): moved again, with the
    message rewritten, it stales nothing; were the move not listed among the ones a text may name, the rewritten
    message would be a change of the graph's code, and every record that reads a graph would go stale."""
    tree = SourceTree.installed()
    made = {"cffair.datasets._graph": "cffair.datasets._dag"}
    assert re.search(r"\bcffair\.datasets\._graph\b", tree.sources["cffair.datasets._graph"])  # a message names it
    ledger = _ledger_after(tree, made)
    assert _codes(_moved(tree, made, ledger)) == _codes(tree)
    unlisted = _moved(tree, made, ledger, in_text=False)
    for m in METHODS:
        assert diff({"code": _codes(tree)[m]}, {"code": _codes(unlisted)[m]}) == [
            "code of cffair.datasets._graph changed"
        ]


def test_a_code_edit_in_a_moved_module_still_stales_its_records():
    tree = SourceTree.installed()
    moved = _moved(tree, MOVES_MADE, _ledger_after(tree, MOVES_MADE))
    edited = _edited(moved, "cffair.learners._fitting", lambda s: s + "\n_EDIT = 1\n")
    assert diff({"code": _codes(tree)["ltn"]}, {"code": _codes(edited)["ltn"]}) == [
        "code of cffair.learners._training changed"
    ]
    assert _codes(edited)["gan"] == _codes(tree)["gan"]


def test_the_ledger_names_modules_that_exist_under_their_new_names_only():
    from cffair._support.moves import MOVES

    tree = SourceTree.installed()
    for new, old in MOVES.items():
        assert new in tree.sources, f"MOVES names {new}, which is not a module"
        assert old not in tree.sources or tree.exempt(old), f"MOVES maps {new} to {old}, which is a module of its own"
    assert len(set(MOVES.values())) == len(MOVES)


# ----------------------------------------------------------------------------- declared equivalences (issue 42)
def _chains() -> dict[str, list[Any]]:
    """Each declared module's declarations, as the chain from the code its records hash to today's code."""
    from cffair._support.codehash import EQUIVALENT_CODE, _hash, canonical_code

    tree = SourceTree.installed()
    chains: dict[str, list[Any]] = {}
    for module in dict.fromkeys(e.module for e in EQUIVALENT_CODE):
        assert module in tree.sources, f"EQUIVALENT_CODE names {module}, which no longer exists: remove it"
        mine = [e for e in EQUIVALENT_CODE if e.module == module]
        code, chain = _hash(canonical_code(tree.sources[module], tree.moves, tree.in_text)), []
        while link := next((e for e in mine if e.code == code), None):
            chain.insert(0, link)
            code = link.replaces
        assert len(chain) == len(mine), (
            f"the code of {module} changed since its equivalence was declared: remove the entry from the ledger "
            "(records that ran the old code go stale, as after any code change)"
        )
        chains[module] = chain
    return chains


def _link_code(e: Any, chains: dict[str, list[Any]], tool: Any) -> tuple[str | None, tuple[Any, Any]]:
    """The code a declaration applies to, with the ledger to read it with: today's for the last link of its
    module's chain, else the old code of the next link's proof (from git at that link's commit)."""
    tree = SourceTree.installed()
    chain = chains[e.module]
    if e is chain[-1]:
        return tree.sources[e.module], (tree.moves, tree.in_text)
    after = chain[chain.index(e) + 1]
    then = tool.ledger_at(after.proof["commit"], ROOT)
    path = tool.module_path(tool.name_at(e.module, tree.moves, then[0]), e.module in tree.packages)
    return tool.source_at(after.proof["commit"], path, ROOT), then


def test_every_declared_equivalence_names_the_code_of_today() -> None:
    """A declaration applies to one exact code: once its module moves on, it must go. A module declared twice
    has a chain (today's code replaces a declared code, which replaces the code its records hash)."""
    tree = SourceTree.installed()
    for module, chain in _chains().items():
        assert tree.code_hash(module) == chain[0].replaces  # what its records hash
        assert all(e.reason for e in chain)


def test_a_chain_of_declarations_reads_as_the_first_code(monkeypatch: pytest.MonkeyPatch) -> None:
    """Two declarations of one module: today's code stands for the code its records hash, and keeps what each
    link keeps; a circle in the ledger is an error, not a hang."""
    from cffair._support import codehash

    monkeypatch.setattr(codehash, "_EQUIVALENT", {"c": "b", "b": "a"})
    monkeypatch.setattr(codehash, "_KEEPS", {"c": ("m2",), "b": ("m1", "m2")})
    assert codehash.declared_origin("c") == ("a", ("m2", "m1"))
    assert codehash.declared_origin("b") == ("a", ("m1", "m2")) and codehash.declared_origin("z") == ("z", ())
    monkeypatch.setattr(codehash, "_EQUIVALENT", {"c": "b", "b": "c"})
    with pytest.raises(StateError, match="run in a circle"):
        codehash.declared_origin("c")


def test_declaring_a_module_again_extends_its_chain() -> None:
    """The tool writes a new declaration of a declared module after the links it extends and drops an entry of
    that module that is no link of it."""
    tool = _declare_tool()
    first = {"module": "m", "code": "b", "replaces": "a"}
    stray = {"module": "m", "code": "x", "replaces": "w"}
    other = {"module": "n", "code": "q", "replaces": "p"}
    second = {"module": "m", "code": "c", "replaces": "b"}
    assert tool.with_entries([other, stray, first], [second]) == [first, second, other]
    again = {"module": "m", "code": "d", "replaces": "a"}  # declared again from the records' code: one link
    assert tool.with_entries([first, second], [again]) == [again]


def _declare_tool() -> Any:
    """``tools/declare_equivalent.py``, loaded from the checkout (tools are scripts, not a package)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("declare_equivalent", ROOT / "tools" / "declare_equivalent.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_raises_proof_holds_against_the_code_it_replaced() -> None:
    """An equivalence of kind ``raises`` is checked again from git, by the tool that declares them: the code at its
    commit is what the records hash, and differs from today's only in the classes of its raises."""
    from cffair._support.codehash import EQUIVALENT_CODE

    tool = _declare_tool()
    tree = SourceTree.installed()
    assert all(
        e.proof is None
        or set(e.proof) == ({"kind", "commit", "changed"} if e.proof["kind"] == "statements" else {"kind", "commit"})
        for e in EQUIVALENT_CODE
    ), "an unknown proof"
    proofs = [e for e in EQUIVALENT_CODE if e.proof and e.proof.get("kind") == "raises"]
    if not proofs:
        pytest.skip("no equivalence of kind raises is declared")
    chains = _chains()
    for e in proofs:
        assert e.proof is not None
        then = tool.ledger_at(e.proof["commit"], ROOT)  # the module's name and ledger at the proof's commit
        path = tool.module_path(tool.name_at(e.module, tree.moves, then[0]), e.module in tree.packages)
        old = tool.source_at(e.proof["commit"], path, ROOT)
        new, now = _link_code(e, chains, tool)
        if old is None or new is None:
            pytest.skip(f"git cannot show {path} at {e.proof['commit'][:12]} (no repository, or a shallow clone)")
        assert tool.classify(e.module, old, new, e.proof["commit"], *now, then) == {
            "module": e.module,
            "code": e.code,
            "replaces": e.replaces,
            "reason": e.reason,
            "proof": dict(e.proof),
        }, f"{e.module}: its old code is not what it replaces, or more than its raises changed"


def test_every_statements_proof_names_exactly_the_statements_that_changed() -> None:
    """An equivalence of kind ``statements`` is checked again from git: the code at its commit is what the records
    hash, exactly the statements its proof names differ from today's, and it keeps exactly the imports it dropped."""
    from cffair._support.codehash import EQUIVALENT_CODE, _hash, canonical_code

    tool = _declare_tool()
    tree = SourceTree.installed()
    proofs = [e for e in EQUIVALENT_CODE if e.proof and e.proof.get("kind") == "statements"]
    if not proofs:
        pytest.skip("no equivalence of kind statements is declared")
    chains = _chains()
    for e in proofs:
        assert e.proof is not None
        then = tool.ledger_at(e.proof["commit"], ROOT)
        path = tool.module_path(tool.name_at(e.module, tree.moves, then[0]), e.module in tree.packages)
        old = tool.source_at(e.proof["commit"], path, ROOT)
        new, now = _link_code(e, chains, tool)
        if old is None or new is None:
            pytest.skip(f"git cannot show {path} at {e.proof['commit'][:12]} (no repository, or a shallow clone)")
        assert _hash(canonical_code(old, *then)) == e.replaces, f"{e.module}: its old code is not what it replaces"
        assert _hash(canonical_code(new, *now)) == e.code, f"{e.module}: the code it declares is not {e.code}"
        assert tool.changed_statements(old, new, then, now) == list(e.proof["changed"]), e.module
        assert tool.dropped_imports(tree, e.module, old, then[0]) == list(e.keeps), e.module


def test_the_catalogue_the_spec_reads_is_the_registry_s_own() -> None:
    """What the declaration of ``cffair.datasets._spec`` rests on: the catalogue it now reads is the very table the
    experiments' registry held and re-exports, so the names and row counts it builds are what they were."""
    from cffair.datasets import _catalogue as catalogue
    from cffair.datasets import _spec as spec
    from cffair.experiments import _registry as registry

    assert registry.DATASETS is catalogue.DATASETS and registry.dataset_names is catalogue.dataset_names
    assert spec.NAMES == registry.dataset_names() == ("adult", "compas", "compas_age", "lawschool")
    assert spec.PAPER_ROW_COUNTS == {"adult": 48_842, "compas": 6_172, "compas_age": 6_172, "lawschool": 21_791}


def test_changed_statements_names_what_differs_and_a_dropped_import_is_kept() -> None:
    tool = _declare_tool()
    none: tuple[dict, dict] = ({}, {})
    old = "from p import q\nimport os\nX = q.f()\n\ndef g():\n    import p.c\n    p.c.check()\n    return 1\n"
    new = "from p import r\nimport os\nX = r.f()\n\ndef g():\n    return 1\n"
    assert tool.changed_statements(old, new, none, none) == ["import r", "= X", "g", "import q"]
    assert tool.changed_statements(old, old + "# a comment\n", none, none) == []
    swapped = "import os\nfrom p import q\nX = q.f()\n\ndef g():\n    return 1\n"
    assert tool.changed_statements(old, swapped, none, none) == ["= X", "g", "import os", "import q"]  # order moved
    tree = SourceTree({"p": "", "p.c": "", "p.m": new, "p.q": "", "p.r": ""}, frozenset({"p"}))
    assert tool.dropped_imports(tree, "p.m", old) == ["p.c", "p.q"]


def test_a_statement_without_a_name_is_named_by_what_it_is_not_where_it_stands() -> None:
    """An unchanged ``if TYPE_CHECKING:`` block that an import above it no longer precedes is not a change; a
    changed one is named by its test; statements named alike are counted."""
    tool = _declare_tool()
    none: tuple[dict, dict] = ({}, {})
    guard = "if TYPE_CHECKING:\n    from p import T\n"
    old = "import argparse\nfrom typing import TYPE_CHECKING\n" + guard + "def f():\n    return 1\n"
    new = "from typing import TYPE_CHECKING\n" + guard + "def f():\n    return 1\n"
    assert tool.changed_statements(old, new, none, none) == ["import argparse"]
    edited = new.replace("from p import T\n", "from p import U\n")
    assert tool.changed_statements(new, edited, none, none) == ["if TYPE_CHECKING"]
    twice = new + guard + "print(1)\n"
    names = [n for n, _ in tool.statement_names(ast.parse(twice))]
    assert names == ["import TYPE_CHECKING", "if TYPE_CHECKING", "f", "if TYPE_CHECKING #2", "Expr"]


def test_a_declared_rewrite_keeps_the_modules_its_old_code_imported_in_the_fingerprint(monkeypatch) -> None:
    """The records of the old code hashed what it imported; a declared rewrite that drops an import keeps it in the
    closure (so its records stay fresh, and go stale if that module changes), but not in the import graph."""
    from cffair._support import codehash

    src = {"p": "", "p.a": "import p.b\nX = 1\n", "p.b": "Y = 2\n"}
    new = "X = 1\n"
    monkeypatch.setattr(codehash, "_KEEPS", {codehash._hash(codehash.canonical_code(new, {})): ("p.b",)})
    tree = SourceTree({**src, "p.a": new}, frozenset({"p"}))
    assert tree.closure(["p.a"]) == {"p.a", "p.b"} and tree.imports("p.a") == set()
    changed = SourceTree({**src, "p.a": new, "p.b": "Y = 3\n"}, frozenset({"p"}))
    assert changed.code_fingerprint(["p.a"]) != tree.code_fingerprint(["p.a"])  # the kept module still counts


def test_the_declaring_tool_declares_only_a_change_of_raise_classes(monkeypatch: pytest.MonkeyPatch) -> None:
    tool = _declare_tool()
    old = "def f(x):\n    if x < 0:\n        raise ValueError('negative')\n    return x\n"
    new = "from cffair.errors import ParameterError\n\n" + old.replace("ValueError", "ParameterError")
    assert tool.classify("m", old, old + "# a comment\n", "c0") is None
    entry = tool.classify("m", old, new, "c0")
    assert isinstance(entry, dict) and entry["proof"] == {"kind": "raises", "commit": "c0"}
    assert entry["code"] != entry["replaces"]
    assert "not only its raises" in tool.classify("m", old, new.replace("return x", "return -x"), "c0")
    monkeypatch.setattr(tool, "_EQUIVALENT", {entry["replaces"]: "0123456789abcdef"})  # the old code was declared
    assert "declare it by hand" in tool.classify("m", old, new, "c0")


@pytest.mark.parametrize(
    ("old", "new", "same"),
    [
        ("raise ValueError('x')", "from cffair.errors import DataError\nraise DataError('x')", True),
        ("raise RuntimeError('x')", "from cffair.errors import StateError\nraise StateError('x')", True),
        # another builtin: an ``except ValueError`` would no longer catch it
        ("raise ValueError('x')", "from cffair.errors import StorageError\nraise StorageError('x')", False),
        ("raise ValueError('x')", "from cffair.errors import DataError\nraise DataError('y')", False),
        # an except clause is not a raise: what it catches changes
        (
            "try:\n    f()\nexcept ValueError:\n    g()",
            "from cffair.errors import DataError\ntry:\n    f()\nexcept DataError:\n    g()",
            False,
        ),
        # a class of that name not imported from cffair.errors is not read as the builtin
        ("raise ValueError('x')", "from mylib import DataError\nraise DataError('x')", False),
    ],
)
def test_raise_neutral_code_sees_only_the_classes_of_raises(old: str, new: str, same: bool) -> None:
    from cffair._support.codehash import raise_neutral_code

    assert (raise_neutral_code(old, {}) == raise_neutral_code(new, {})) is same


def test_a_declared_module_edited_again_stales_its_records(monkeypatch: pytest.MonkeyPatch) -> None:
    """A declaration applies to one exact code (declared here for today's code of a module)."""
    from cffair._support import codehash

    tree = SourceTree.installed()
    module = "cffair.datasets._paper"
    today = codehash._hash(codehash.canonical_code(tree.sources[module], tree.moves))
    monkeypatch.setattr(codehash, "_EQUIVALENT", {today: "0123456789abcdef"})
    declared = SourceTree(tree.sources, tree.packages, tree.moves, tree.in_text)
    assert declared.code_hash(module) == "0123456789abcdef"  # read as the code it replaced
    edited = _edited(declared, module, lambda s: s + "\n_EDIT = 1\n")
    assert edited.code_hash(module) not in (today, "0123456789abcdef")
    assert diff({"code": keys.code("cnf", declared)}, {"code": keys.code("cnf", edited)}) == [
        f"code of {module} changed"
    ]


def test_a_version_bump_stales_nothing() -> None:
    tree = SourceTree.installed()
    bumped = _edited(tree, "cffair", lambda s: s.replace("__version__ = ", '__version__ = "9.9.9"  # ', 1))
    assert '"9.9.9"' in bumped.sources["cffair"]
    assert bumped.code_hash("cffair") == tree.code_hash("cffair")
    assert normalised_code("__version__ = '1.0.0'\nx = 1") != normalised_code("__version__ = 1\nx = 1")


def test_the_code_hash_is_the_same_on_every_supported_python() -> None:
    """A known answer computed once: ``make compat`` runs this test on 3.12 and 3.13 too, where ``ast.dump`` differs
    (``type_params``, empty fields) and ``ast.unparse`` writes f-strings with other quotes, so a record made on one
    version reads fresh on another."""
    from cffair._support.codehash import code_hash

    source = 'x = f"{a!r:>3}"\ndef f(a, *, b=1):\n    return a\nclass C:\n    pass\n'
    assert code_hash(source) == "598f72b8a6015dee"
    assert code_hash(source.replace("b=1", "b=2")) != code_hash(source)
