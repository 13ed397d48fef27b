"""cffair_book.claims_cache: the same records under the same rules are evaluated once, and any change
to what an evaluation reads is another key.

(a) The cached evaluation equals the uncached one on the committed records: from memory, and from
    a file written by another "kernel" (the memory cleared).
(b) The robustness frame and table together evaluate each rule set once (four evaluations, not
    eight), and a later evaluate_claims under the book's rules is served without evaluating.
(c) What misses: another record (a metric changed in the ninth decimal), other rules, another
    context, a check registered again, another code version, a file with another key or not JSON;
    a check defined outside cffair_book never reaches the disk; ``disabled`` evaluates every time.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

import cffair_book as book
from cffair import reporting
from cffair.reporting._verdicts import Rules
from cffair_book import claims_cache as C
from cffair_book import registry

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def disk(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty on-disk cache of this test; memory cleared before and after."""
    folder = tmp_path / "claims-cache"
    monkeypatch.setenv(C.ENV_VAR, str(folder))
    C.clear()
    yield folder
    C.clear()


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> list[Rules]:
    """The rule sets of every evaluation that actually runs."""
    runs: list[Rules] = []
    real = registry._evaluate

    def evaluate(records, rules_):
        runs.append(rules_)
        return real(records, rules_)

    monkeypatch.setattr(registry, "_evaluate", evaluate)
    return runs


def _committed_q2() -> list[dict]:
    """The committed records of the Q2 chapter, paired (about 150 records)."""
    recs = []
    for p in sorted((ROOT / "results" / "full" / "records").glob("*.json")):
        rec = json.loads(p.read_text(encoding="utf-8"))
        if rec["config"]["dataset"] == "compas":
            recs.append(rec)
    if not recs:
        pytest.skip("no committed full records")
    return reporting.paired_folds(recs)


# ---------------------------------------------------------------------------- (a) and (b)
def test_cached_evaluations_equal_uncached_ones_from_memory_and_from_disk(disk: Path, counted: list[Rules]) -> None:
    recs = _committed_q2()
    with C.disabled():
        uncached = book.evaluate_claims(recs, base="../")
        uncached_frame = book.robustness_frame(recs)
    assert len(counted) == 1 + 4 and not disk.exists()
    counted.clear()

    first = book.evaluate_claims(recs, base="../")  # evaluated, kept in memory and written
    again = book.evaluate_claims(copy.deepcopy(recs), base="../")  # equal records: from memory
    assert len(counted) == 1 and len(list(disk.glob("*.json"))) == 1
    C.clear()  # another kernel of the same build
    from_disk = book.evaluate_claims(recs, base="../")
    assert len(counted) == 1
    assert first == again == from_disk == uncached
    assert [c.where for c in book.evaluate_claims(recs, base="")] == [(c.where[0], c.where[1][3:]) for c in uncached]

    counted.clear()
    frame = book.robustness_frame(recs)  # the book's rules from the cache: three rule sets evaluated
    table = book.robustness_table(recs, caption="x")  # every rule set from memory
    assert sorted(map(repr, counted)) == sorted(repr(r) for _, r in book.ROBUSTNESS_RULES if r != Rules())
    assert frame.equals(uncached_frame)
    assert table.frame["key"].tolist() == frame["key"].tolist()


# ---------------------------------------------------------------------------- (c)
def _checks(*functions):
    return [(f"K{i}", f, ("claim", "source", "q1", "rule")) for i, f in enumerate(functions)]


def _probe(records, rules_):
    return [C.Outcome("holds", f"{len(records)} records, {rules_.test}")]


def _counting(runs):
    def evaluate(records, rules_):
        runs.append(rules_)
        return [C.Outcome("holds", f"{records[0]['metrics']['accuracy']!r} {rules_.test}", "t", "5", ("a",))]

    return evaluate


def test_any_change_to_what_an_evaluation_reads_misses(disk: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_probe, "__module__", "cffair_book.probe")  # as if registered by the book: on disk
    recs = [{"config": {"dataset": "compas", "fold": 0}, "metrics": {"accuracy": 0.7}}]
    runs: list[Rules] = []
    evaluate = _counting(runs)
    plain, book_rules = Rules(test="plain"), Rules()

    def run(records=recs, rules=(book_rules,), checks=None, context="c"):
        return C.evaluations(records, list(rules), checks or _checks(_probe), context, evaluate)

    first = run(rules=(book_rules, plain))
    assert len(runs) == 2 and first[0][0].note == "0.7 corrected" and first[1][0].note == "0.7 plain"
    assert run(rules=(plain, book_rules)) == [first[1], first[0]] and len(runs) == 2  # both from memory

    changed = copy.deepcopy(recs)
    changed[0]["metrics"]["accuracy"] = 0.700000001
    assert C.records_key(changed) != C.records_key(recs)
    assert run(changed)[0][0].note == "0.700000001 corrected" and len(runs) == 3
    run(rules=(Rules(count_shared=True),))
    run(context="another registry")

    def _probe_again(records, rules_):  # another function registered under the same key
        return []

    _probe_again.__module__ = "cffair_book.probe"
    run(checks=_checks(_probe_again))
    assert len(runs) == 6

    C.clear()  # a new kernel: every evaluation so far is on disk
    assert run(rules=(book_rules, plain)) == first and len(runs) == 6
    files = sorted(disk.glob("*.json"))
    assert len(files) == 6
    C.clear()
    with monkeypatch.context() as m:
        m.setattr(C, "code_version", lambda: "other code")
        run()
    assert len(runs) == 7

    for p in disk.glob("*.json"):
        p.unlink()
    C.clear()
    run()
    (target,) = disk.glob("*.json")
    assert len(runs) == 8
    stored = json.loads(target.read_text())
    target.write_text(json.dumps({**stored, "key": stored["key"] + "x"}))  # a file that answers another key
    C.clear()
    assert run()[0][0].note == "0.7 corrected" and len(runs) == 9
    target.write_text("{not json")
    C.clear()
    assert run()[0][0].note == "0.7 corrected" and len(runs) == 10
    assert json.loads(target.read_text())["key"] == stored["key"]  # written again


def test_checks_outside_the_book_stay_in_memory_and_disabled_evaluates_every_time(disk: Path) -> None:
    recs = [{"config": {"dataset": "adult"}, "metrics": {"accuracy": 0.8}}]
    runs: list[Rules] = []
    evaluate = _counting(runs)
    for _ in range(2):
        C.evaluations(recs, [Rules()], _checks(_probe), "c", evaluate)  # _probe is this test module's
    assert len(runs) == 1 and not disk.exists()
    with C.disabled():
        for _ in range(2):
            C.evaluations(recs, [Rules()], _checks(_probe), "c", evaluate)
        assert C.cache_dir() is None
    assert len(runs) == 3


def test_records_that_do_not_pickle_are_evaluated_every_time(disk: Path) -> None:
    recs = [{"config": {"dataset": "adult"}, "metrics": {"accuracy": 0.8}, "hook": lambda: None}]
    runs: list[Rules] = []
    evaluate = _counting(runs)
    for _ in range(2):
        assert C.evaluations(recs, [Rules()], _checks(_probe), "c", evaluate)[0][0].note == "0.8 corrected"
    assert len(runs) == 2 and not disk.exists()


def test_where_the_disk_cache_lives(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv(C.ENV_VAR, raising=False)
    monkeypatch.delenv("CFFAIR_MODE", raising=False)
    assert C.cache_dir() is None  # tests, papermill runs, the CLI: memory only
    monkeypatch.setenv("CFFAIR_MODE", "render")
    assert C.cache_dir() == ROOT / "_build" / "claims-cache"  # the book build
    monkeypatch.setenv(C.ENV_VAR, "off")
    assert C.cache_dir() is None
    monkeypatch.setenv(C.ENV_VAR, str(tmp_path))
    assert C.cache_dir() == tmp_path


def test_the_tree_hash_follows_every_file(tmp_path: Path) -> None:
    pkg = tmp_path / "pkg"
    (pkg / "__pycache__").mkdir(parents=True)
    (pkg / "a.py").write_text("x = 1\n")
    (pkg / "claims.yaml").write_text("Q1.1: text\n")
    before = C.tree_hash(pkg)
    (pkg / "__pycache__" / "a.cpython-311.pyc").write_bytes(b"\0")
    assert C.tree_hash(pkg) == before  # compiled code is not code
    (pkg / "claims.yaml").write_text("Q1.1: other text\n")
    assert C.tree_hash(pkg) != before
    (pkg / "claims.yaml").write_text("Q1.1: text\n")
    assert C.tree_hash(pkg) == before
    (pkg / "b.py").write_text("")
    assert C.tree_hash(pkg) != before
