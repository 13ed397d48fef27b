"""Loading a file a user receives runs no code from it, and artefacts refuse data they were not made from.

Every loader (LTN checkpoint, cached flow, pre-trained model, counterfactual set, the command
line's checkpoint for ``query`` and ``recourse``, a results record) is handed a crafted file: a
pickle whose ``__reduce__`` would create a marker file, wrapped as ``torch.save`` writes it, or a
parquet/JSON file with tampered content. Nothing may run (the marker stays absent) and a clear
one-line error (or, for a cache, a warning and a recomputation) must follow. Round trips are
bit for bit; a checkpoint, counterfactual file or frame used with other data is refused,
naming what changed.
"""

from __future__ import annotations

import json
import re
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import torch

from cffair._support import artefacts
from cffair._support.integrity import seal
from cffair.causal import _flow_file as flow_file
from cffair.causal._cfset import CounterfactualSet
from cffair.causal._flow import CausalFlow, fit_flow
from cffair.datasets import DatasetSpec, prepare
from cffair.errors import ArtefactError, CacheWarning, CounterfactualError, DataError
from cffair.learners import _checkpoint as checkpoint
from cffair.learners._training import LTNLearner, checkpoint_extra

torch.set_num_threads(1)

FAST = {"epochs": 4, "patience": None, "batch_size": 128}


# ============================================================================ crafted files
class _Evil:
    """Unpickling this object runs ``exec``: it creates the marker file."""

    def __init__(self, marker: Path) -> None:
        self.marker = str(marker)

    def __reduce__(self):
        return (exec, (f"open({self.marker!r}, 'w').close()",))


def _crafted(path: Path, marker: Path, fmt: tuple[str, int] | None = None) -> Path:
    """A file as ``torch.save`` writes it whose unpickling would create ``marker``; shaped like a
    cffair artefact when ``fmt`` is given."""
    payload: dict = {"evil": _Evil(marker)}
    if fmt is not None:
        payload = {"cffair_format": fmt[0], "format_version": fmt[1], "meta": "{}", "tensors": {"w": _Evil(marker)}}
    torch.save(payload, path)
    return path


def test_the_crafted_file_would_run_code_under_an_unsafe_loader(tmp_path):
    """The premise of every crafted-file test: unpickled the old way, the file runs its code."""
    marker = tmp_path / "ran"
    path = _crafted(tmp_path / "x.pt", marker)
    torch.load(path, weights_only=False)
    assert marker.exists()


def _assert_refused(call, marker: Path, *needles: str) -> str:
    with pytest.raises(ArtefactError) as err:
        call()
    msg = str(err.value)
    assert not marker.exists(), "the crafted file ran code"
    assert "\n" not in msg
    for needle in needles:
        assert needle in msg, msg
    return msg


@pytest.mark.parametrize(
    "fmt", [None, checkpoint.LEARNER_FORMAT, flow_file.FLOW_FORMAT], ids=["plain", "learner", "flow"]
)
@pytest.mark.parametrize(
    "loader",
    [
        LTNLearner.load,
        checkpoint_extra,
        CausalFlow.load,
        checkpoint.learner_state,
        lambda p: CausalFlow.from_payload(*flow_file.read_flow(p), path=p, what="fitted flow", fix=flow_file.FLOW_FIX),
    ],
    ids=["LTNLearner.load", "checkpoint_extra", "CausalFlow.load", "learner_state", "from_payload"],
)
def test_a_crafted_pickle_runs_nothing_and_is_refused(tmp_path, loader, fmt):
    marker = tmp_path / "ran"
    path = _crafted(tmp_path / "model.pt", marker, fmt)
    msg = _assert_refused(lambda: loader(path), marker, str(path), "could run code", "exec")
    assert "delete it and fit" in msg or "cffair train --save" in msg  # says how to regenerate


def _learner(n: int = 120, seed: int = 0, epochs: int = 20) -> tuple[LTNLearner, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 4)).astype(np.float32)
    y = (X[:, 0] + 0.5 * X[:, 1] > 0).astype(float)
    return LTNLearner("binary", "acc", pretrain_epochs=epochs, progress=False, seed=seed).fit(X, y), X, y


def test_truncated_old_newer_and_tampered_checkpoints_give_one_line_errors(tmp_path):
    learner, _, _ = _learner()
    good = tmp_path / "m.pt"
    learner.save(good, extra={"dataset": "x"})
    raw = good.read_bytes()
    marker = tmp_path / "ran"  # never created: these files hold no code, the errors are the point
    # truncated (a bare OSError/RuntimeError from torch before)
    cut = tmp_path / "cut.pt"
    cut.write_bytes(raw[: len(raw) // 2])
    _assert_refused(lambda: LTNLearner.load(cut), marker, "is damaged", "truncated or corrupt", "cffair train --save")
    empty = tmp_path / "empty.pt"
    empty.write_bytes(b"")
    _assert_refused(lambda: checkpoint_extra(empty), marker, "is damaged")
    # the old format: the plain state dict of cffair.LTNLearner/1, without any hash of its data
    old = tmp_path / "old.pt"
    torch.save({**learner.state_dict(), "extra": {}}, old)
    _assert_refused(
        lambda: LTNLearner.load(old), marker, "older cffair", "write it again with `cffair train --save PATH`"
    )
    # a newer layout (as a newer cffair writes it: sealed with its checksums)
    payload = torch.load(good, weights_only=True)
    torch.save(seal({**payload, "format_version": 99}), tmp_path / "new.pt")
    _assert_refused(lambda: LTNLearner.load(tmp_path / "new.pt"), marker, "layout 99", "reads layout 2")
    # the same header edited by hand, the checksums left as written: an edit, not a newer layout
    torch.save({**payload, "format_version": 99}, tmp_path / "edited.pt")
    _assert_refused(
        lambda: LTNLearner.load(tmp_path / "edited.pt"),
        marker,
        "was edited",
        "'format_version' does not match the checksum",
        "get an intact copy",
    )
    # another artefact kind
    torch.save(seal({**payload, "cffair_format": "cffair.CausalFlow", "format_version": 2}), tmp_path / "kind.pt")
    _assert_refused(
        lambda: LTNLearner.load(tmp_path / "kind.pt"), marker, "holds a cffair.CausalFlow, not a LTN checkpoint"
    )
    # tampered metadata and weights
    torch.save({**payload, "meta": payload["meta"][:-5]}, tmp_path / "meta.pt")
    _assert_refused(lambda: LTNLearner.load(tmp_path / "meta.pt"), marker, "metadata is unreadable")
    wrong = {
        **payload,
        "tensors": {**payload["tensors"], "model": {k: v[:1] for k, v in payload["tensors"]["model"].items()}},
    }
    torch.save(wrong, tmp_path / "shape.pt")  # the checksums name the first tensor cut
    _assert_refused(lambda: LTNLearner.load(tmp_path / "shape.pt"), marker, "its member 'tensors/model/")
    torch.save(seal(wrong), tmp_path / "shape.pt")  # checksums recomputed: the shapes are still checked
    _assert_refused(lambda: LTNLearner.load(tmp_path / "shape.pt"), marker, "does not fit a learner", "size mismatch")
    _assert_refused(lambda: LTNLearner.load(tmp_path / "missing.pt"), marker, "does not exist")


def test_learner_round_trip_is_bit_for_bit(tmp_path):
    learner, X, y = _learner()
    path = tmp_path / "m.pt"
    extra = {"dataset": "compas", "fold": 2, "nested": {"a": [1, 2.5, None]}}
    learner.save(path, extra=extra)
    back = LTNLearner.load(path)
    assert np.array_equal(back.predict_d(X), learner.predict_d(X))  # bit for bit
    for k, v in learner.model_.state_dict().items():
        assert torch.equal(back.model_.state_dict()[k], v)
    assert back.get_params() == learner.get_params() and back.data_hash_ == learner.data_hash_
    pd.testing.assert_frame_equal(back.history_, learner.history_)
    assert checkpoint_extra(path) == extra
    # Adam's state came back too: continuing both gives the same weights
    a = LTNLearner.load(learner.state_dict(), pretrain_epochs=30).fit(X, y)
    b = LTNLearner.load(path, pretrain_epochs=30).fit(X, y)
    assert np.array_equal(a.predict_d(X), b.predict_d(X))


# ============================================================================ flows
def _mixed(n: int = 300, seed: int = 0):
    rng = np.random.default_rng(seed)
    s = rng.integers(0, 2, n)
    a = rng.integers(18, 70, n)
    c = (s + (a > 40) + rng.integers(0, 2, n)) % 3
    x = 0.3 * c - s + rng.normal(size=n)
    frame = pd.DataFrame(
        {
            "s": np.where(s == 1, "M", "F"),
            "a": a,
            "c": np.array(["u", "v", "w"])[c],
            "e": pd.Categorical(
                np.array(["lo", "mid", "hi"])[np.clip(c + rng.integers(-1, 2, n), 0, 2)],
                categories=["lo", "mid", "hi"],
                ordered=True,
            ),
            "x": x,
            "y": rng.integers(0, 2, n),
        }
    )
    spec = DatasetSpec(
        name="mixed",
        target="y",
        target_kind="binary",
        sensitive="s",
        features={"s": "binary", "a": "integer", "c": "categorical", "e": "ordinal", "x": "continuous"},
        graph={"name": "mixed", "edges": {"s": ["c", "x"], "a": ["c"], "c": ["e", "x"]}},
    )
    return prepare(frame, spec), spec


@pytest.mark.parametrize(
    "config",
    [{}, {"categorical": "flow", "ordered": "midpoint", "transforms": 2}, {"root_context": False}],
    ids=["default", "paper-like", "no-context"],
)
def test_flow_round_trip_is_bit_for_bit_and_leaves_the_rng_alone(tmp_path, config):
    frame, spec = _mixed()
    model = CausalFlow(spec, config={**FAST, **config}).fit(frame, seed=0)
    path = tmp_path / "flow.pt"
    model.save(path)
    before = torch.get_rng_state()
    back = CausalFlow.load(path)
    assert torch.equal(before, torch.get_rng_state())  # rebuilding the networks drew no random number
    assert np.array_equal(back.abduct(frame), model.abduct(frame))
    for feature, value in (("s", "M"), ("a", 30)):
        (got, rows, sample), (want, rows0, sample0) = (
            back.counterfactual(frame, feature, value),
            model.counterfactual(frame, feature, value),
        )
        pd.testing.assert_frame_equal(got, want, check_exact=True)
        assert np.array_equal(rows, rows0) and np.array_equal(sample, sample0)
    assert back._dtypes == model._dtypes and back.columns == model.columns
    assert back.history == model.history and back.best_epoch == model.best_epoch
    assert back.data_hash == model.data_hash is not None
    # the file holds JSON and tensors only: torch's restricted unpickler reads it
    payload = torch.load(path, weights_only=True)
    assert payload["cffair_format"] == "cffair.CausalFlow" and isinstance(json.loads(payload["meta"]), dict)


def test_old_truncated_and_crafted_cached_flows_are_refitted_without_running_code(tmp_path):
    frame, spec = _mixed()
    cache = tmp_path / "cache"
    first = fit_flow((frame, spec), FAST, cache=cache, progress=False)
    (path,) = (cache / "flows").glob("*.pt")
    marker = tmp_path / "ran"
    # the old format (the whole object pickled) is refused with the way out
    torch.save(first, tmp_path / "old.pt")
    _assert_refused(lambda: CausalFlow.load(tmp_path / "old.pt"), marker, "could run code", "fit the flow again")
    # a truncated file
    raw = path.read_bytes()
    (tmp_path / "cut.pt").write_bytes(raw[:100])
    _assert_refused(lambda: CausalFlow.load(tmp_path / "cut.pt"), marker, "is damaged")
    # in the cache: reported, removed, refitted (the same flow), and nothing ran
    for bad in (lambda p: _crafted(p, marker, flow_file.FLOW_FORMAT), lambda p: p.write_bytes(raw[:100])):
        bad(path)
        with pytest.warns(CacheWarning, match="could not be read"):
            again = fit_flow((frame, spec), FAST, cache=cache, progress=False)
        assert not marker.exists()
        assert np.array_equal(again.abduct(frame), first.abduct(frame))
        assert CausalFlow.load(path).data_hash == first.data_hash  # rewritten in the safe format


def test_a_crafted_pretraining_cache_file_runs_nothing_and_is_recomputed(tmp_path):
    from cffair.learners._pretraining import pretrained

    rng = np.random.default_rng(1)
    X = rng.normal(size=(80, 3)).astype(np.float32)
    y = (X[:, 0] > 0).astype(float)
    first = pretrained(X, y, "binary", epochs=10, cache_dir=tmp_path, progress=False)
    (path,) = (tmp_path / "pretrained").glob("*.pt")
    marker = tmp_path / "ran"
    _crafted(path, marker, checkpoint.LEARNER_FORMAT)
    with pytest.warns(CacheWarning, match="could run code"):
        again = pretrained(X, y, "binary", epochs=10, cache_dir=tmp_path, progress=False)
    assert not marker.exists() and not again.from_cache
    assert np.array_equal(again.learner.predict_d(X), first.learner.predict_d(X))
    third = pretrained(X, y, "binary", epochs=10, cache_dir=tmp_path, progress=False)
    assert third.from_cache and np.array_equal(third.learner.predict_d(X), first.learner.predict_d(X))


# ============================================================================ counterfactual sets
@pytest.fixture()
def generated(tmp_path):
    from cffair.causal import generate
    from cffair.errors import CounterfactualWarning

    frame, spec = _mixed()
    with warnings.catch_warnings():
        warnings.simplefilter(
            "ignore", CounterfactualWarning
        )  # a 4-epoch flow freezes a descendant: not the point here
        cfs = generate((frame, spec), config=FAST, cache_dir=False, progress=False)
    cfs.save(tmp_path / "cf.parquet")
    return frame, spec, cfs, tmp_path


def _permuted(cfs: CounterfactualSet, seed: int = 0) -> pd.DataFrame:
    long = cfs.frame.copy()
    long["row_id"] = np.random.default_rng(seed).permutation(long["row_id"].to_numpy())
    return long


def test_a_counterfactual_file_with_tampered_rows_is_refused(generated):
    import pyarrow as pa
    import pyarrow.parquet as pq

    _, _, cfs, tmp = generated
    back = CounterfactualSet.load(tmp / "cf.parquet")
    pd.testing.assert_frame_equal(back.frame, cfs.frame, check_exact=True)
    assert back.meta == cfs.meta
    # row ids permuted in place, the file's metadata kept as it was
    table = pq.read_table(tmp / "cf.parquet")
    edited = pa.Table.from_pandas(_permuted(cfs), preserve_index=False).replace_schema_metadata(table.schema.metadata)
    pq.write_table(edited, tmp / "edited.parquet")
    with pytest.raises(CounterfactualError, match="was edited since it was written") as err:
        CounterfactualSet.load(tmp / "edited.parquet")
    assert "\n" not in str(err.value)
    # unreadable JSON metadata
    meta = dict(table.schema.metadata)
    meta[b"cffair.meta"] = b"{not json"
    pq.write_table(table.replace_schema_metadata(meta), tmp / "meta.parquet")
    with pytest.raises(CounterfactualError, match="unreadable content"):
        CounterfactualSet.load(tmp / "meta.parquet")


def test_a_pickle_posing_as_a_counterfactual_file_runs_nothing(tmp_path):
    import pickle

    frame, spec = _mixed()
    marker = tmp_path / "ran"
    for name in ("cf.parquet", "cf.pt"):
        path = tmp_path / name
        path.write_bytes(pickle.dumps(_Evil(marker)))
        with pytest.raises(CounterfactualError, match="is not a parquet file: it does not start with the parquet mark"):
            CounterfactualSet.load(path)
    with pytest.raises(CounterfactualError, match="not a readable parquet file"):
        CounterfactualSet.from_files(frame, tmp_path / "cf.parquet", spec)
    assert not marker.exists()


def test_permuted_row_ids_are_refused_by_the_row_check(generated):
    frame, spec, cfs, tmp = generated
    graph = spec.load_graph()
    cfs.check_rows(frame, graph)  # the flow's own set passes: every non-descendant is the factual value
    # a set re-saved with permuted (in-range) row ids has a valid content hash and data hash ...
    forged = CounterfactualSet(_permuted(cfs), cfs.meta)
    forged.save(tmp / "forged.parquet")
    loaded = CounterfactualSet.load(tmp / "forged.parquet")
    loaded.check_data(frame)
    # ... but its rows keep other people's values of what the intervention does not cause
    with pytest.raises(CounterfactualError) as err:
        loaded.check_rows(frame, graph)
    msg = str(err.value)
    assert "cannot change 'a', which it does not cause" in msg and "row ids do not point at the rows" in msg
    # the long format read from a file is checked the same way
    _permuted(cfs).to_csv(tmp / "long.csv", index=False)
    with pytest.raises(CounterfactualError, match="row ids do not point"):
        CounterfactualSet.from_files(frame, tmp / "long.csv", spec)
    cfs.frame.to_csv(tmp / "good.csv", index=False)
    assert len(CounterfactualSet.from_files(frame, tmp / "good.csv", spec)) == len(cfs)


def test_from_frames_refuses_shuffled_rows_without_row_ids():
    frame, spec = _mixed()
    flipped = frame.copy()
    flipped["s"] = flipped["s"].map({"F": "M", "M": "F"}).astype(frame["s"].dtype)
    flipped["x"] = flipped["x"] + 1.0  # a descendant of s may change
    ok = CounterfactualSet.from_frames(frame, flipped, spec, "s")
    assert (ok.frame["row_id"].to_numpy() == np.arange(len(frame))).all()
    shuffled = flipped.sample(frac=1.0, random_state=0).reset_index(drop=True)
    with pytest.raises(CounterfactualError, match="row ids do not point at the rows"):
        CounterfactualSet.from_frames(frame, shuffled, spec, "s")
    # with the row ids that say where each row comes from, the shuffled frame is the same set
    ids = flipped.sample(frac=1.0, random_state=0).index.to_numpy()
    back = CounterfactualSet.from_frames(frame, shuffled, spec, "s", row_id=ids)
    back.check_rows(frame, spec.load_graph())
    # without a graph nothing can be checked: said, not silent
    bare = DatasetSpec(name="bare", target="y", target_kind="binary", sensitive="s", features=dict(spec.features))
    with pytest.warns(Warning, match="no causal graph to check"):
        CounterfactualSet.from_frames(frame, shuffled, bare, "s")


# ============================================================================ data hashes
def test_content_hash_is_the_datasets_frame_hash_of_the_reindexed_frame():
    """The support part computes the hash itself (it imports no dataset code), and stays equal to
    :func:`cffair.datasets._frames.frame_hash` of the frame with a fresh index: hashes stored in
    committed flows, sets and checkpoints keep matching."""
    from cffair.datasets._frames import frame_hash

    frame = pd.DataFrame(
        {"x": [3.5, -1.0, 2.25], "c": pd.Categorical(["a", "b", "a"]), "n": [1, 2, 3]}, index=[10, 4, 7]
    )
    assert artefacts.content_hash(frame) == frame_hash(frame.reset_index(drop=True))
    assert artefacts.content_hash(frame) == artefacts.content_hash(frame.reset_index(drop=True))  # index ignored
    assert artefacts.content_hash(frame) != artefacts.content_hash(frame.iloc[::-1])  # row order counts
    assert artefacts.content_hash(frame) != artefacts.content_hash(frame.astype({"n": "float64"}))  # dtypes count


def test_data_fingerprint_names_what_changed():
    frame, spec = _mixed()
    graph = spec.load_graph()
    fp = artefacts.data_fingerprint(frame, spec, graph)
    same = artefacts.data_fingerprint(frame.copy(), spec, graph)
    assert artefacts.describe_data_changes(fp, same) == []
    shuffled = frame.sample(frac=1.0, random_state=1).reset_index(drop=True)
    assert artefacts.describe_data_changes(fp, artefacts.data_fingerprint(shuffled, spec, graph)) == [
        "the same rows in another order (reordered or shuffled)"
    ]
    edited = frame.copy()
    edited.loc[7, "x"] += 1.0
    assert artefacts.describe_data_changes(fp, artefacts.data_fingerprint(edited, spec, graph)) == [
        "values of column(s) ['x'] changed"
    ]
    assert artefacts.describe_data_changes(fp, artefacts.data_fingerprint(frame.iloc[:-1], spec, graph)) == [
        "it had 300 rows and now has 299"
    ]
    other = DatasetSpec.from_dict(
        {**spec.to_dict(), "graph": {"name": "g", "edges": {"s": ["c"], "a": ["c"], "c": ["e", "x"]}}}
    )
    changes = artefacts.describe_data_changes(fp, artefacts.data_fingerprint(frame, other, other.load_graph()))
    assert changes == ["the causal graph changed"]
    with pytest.raises(
        DataError, match="the data changed since checkpoint m.pt was made: the same rows in another order"
    ):
        artefacts.check_data_fingerprint(fp, shuffled, spec, graph, what="checkpoint m.pt", fix="retrain")
    with pytest.raises(DataError, match="carries no hashes"):
        artefacts.check_data_fingerprint(None, frame, what="checkpoint m.pt", fix="retrain")


# ============================================================================ results records
def test_a_crafted_or_tampered_results_record_is_refused(tmp_path):
    import pickle

    from cffair._support.utils import project_root
    from cffair.experiments._store import _validate

    records = sorted((project_root() / "results" / "full" / "records").glob("*.json"))
    if not records:
        pytest.skip("no committed record in this checkout")
    src = records[0]
    raw = src.read_bytes()
    _validate(raw, src)  # the committed record is valid
    marker = tmp_path / "ran"
    with pytest.raises(ArtefactError, match="not UTF-8|not JSON"):
        _validate(pickle.dumps(_Evil(marker)), src)
    with pytest.raises(ArtefactError, match=re.escape(f"its config belongs in {src.name}, not in elsewhere.json")):
        _validate(raw, src.with_name("elsewhere.json"))
    rec = json.loads(raw)
    key = next(iter(rec["metrics"]))
    rec["metrics"][key] = "tampered"
    with pytest.raises(ArtefactError, match="checksum does not match"):
        _validate(json.dumps(rec).encode(), src)
    assert not marker.exists()


# ============================================================================ the command line
def _loans(n: int = 160, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    g = rng.choice(["f", "m"], n)
    age = rng.integers(20, 70, n)
    income = np.round(40 + 5 * (g == "m") + 0.3 * age + rng.normal(0, 2, n), 2)
    hours = np.round(30 + 0.2 * income + rng.normal(0, 3, n), 1)
    approved = (income + rng.normal(0, 2, n) > 55).astype(int)
    return pd.DataFrame({"gender": g, "age": age, "income": income, "hours": hours, "approved": approved})


SPEC_YAML = """\
name: loans
target: approved
target_kind: binary
favourable: 1
sensitive: gender
immutable: [age]
features: {gender: binary, age: integer, income: continuous, hours: continuous}
graph:
  name: loans
  edges: {gender: [income], age: [income], income: [hours]}
"""


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    """``cffair train --save`` on a CSV of one's own, and the answers of query/recourse before any edit."""
    from cffair.cli import main

    tmp = tmp_path_factory.mktemp("cli")
    csv, spec = tmp / "loans.csv", tmp / "loans.yaml"
    _loans().to_csv(csv, index=False)
    spec.write_text(SPEC_YAML)
    ckpt = tmp / "m.pt"
    common = [
        "--data",
        str(csv),
        "--spec",
        str(spec),
        "--flow-epochs",
        "2",
        "--cache-dir",
        str(tmp / "cache"),
        "--quiet",
    ]
    assert main(["train", *common, "--setting", "acc", "--pretrain-epochs", "40", "--save", str(ckpt)]) == 0
    return tmp, csv, ckpt, common


QUERIES = {
    "similar": ["query", "similar", "--row", "5", "--beta", "3"],
    "cf": ["query", "cf", "--where", "age <= 40"],
    "recourse": ["recourse", "--row", "5", "--row", "9", "--actions", "hours", "--json"],
}


def _ask(name: str, ckpt: Path, capsys) -> tuple[int, str, str]:
    from cffair.cli import main

    capsys.readouterr()
    argv = (
        [*QUERIES[name][:2], "--checkpoint", str(ckpt), *QUERIES[name][2:]]
        if name != "recourse"
        else ["recourse", "--checkpoint", str(ckpt), "--quiet", *QUERIES[name][1:]]
    )
    if name == "cf":
        argv.append("--quiet")
    rc = main(argv)
    out, err = capsys.readouterr()
    return rc, out, err


@pytest.mark.slow
@pytest.mark.parametrize("edit", ["shuffled", "edited", "grown"])
def test_a_changed_csv_after_train_save_makes_queries_exit_2_with_one_line(trained, capsys, edit):
    _, csv, ckpt, _ = trained
    original = csv.read_text()
    before = {name: _ask(name, ckpt, capsys) for name in QUERIES}
    for name, (rc, _out, err) in before.items():
        assert rc == 0, (name, err)
    frame = pd.read_csv(csv)
    if edit == "shuffled":
        changed, why = frame.sample(frac=1.0, random_state=3), "the same rows in another order"
    elif edit == "edited":
        changed, why = frame.copy(), "values of column(s) ['income'] changed"
        changed.loc[5, "income"] += 10.0
    else:
        changed, why = pd.concat([frame, frame.iloc[:3]]), "it had 160 rows and now has 163"
    try:
        changed.to_csv(csv, index=False)
        for name in QUERIES:
            rc, out, err = _ask(name, ckpt, capsys)
            assert rc == 2 and out == "", (name, out, err)
            lines = err.strip().splitlines()
            assert lines[-1].startswith("cffair: error: the data changed since checkpoint") and why in lines[-1], err
            assert "restore the data it was trained on" in lines[-1]
            assert all(line.startswith("cffair: ") for line in lines)  # one line per message, no traceback
    finally:
        csv.write_text(original)
    # the restored CSV answers exactly as before
    assert {name: _ask(name, ckpt, capsys) for name in QUERIES} == before


@pytest.mark.slow
def test_crafted_and_damaged_checkpoints_exit_2_with_one_line_on_the_command_line(trained, capsys):
    tmp, _, ckpt, _ = trained
    marker = tmp / "ran"
    crafted = _crafted(tmp / "crafted.pt", marker, checkpoint.LEARNER_FORMAT)
    cut = tmp / "cut.pt"
    cut.write_bytes(ckpt.read_bytes()[:300])
    for path, needle in ((crafted, "could run code"), (cut, "is damaged")):
        for name in QUERIES:
            rc, out, err = _ask(name, path, capsys)
            assert rc == 2 and out == "" and not marker.exists(), (name, err)
            assert len(err.strip().splitlines()) == 1 and needle in err and "cffair train --save" in err, err


@pytest.mark.slow
def test_a_counterfactual_file_with_permuted_row_ids_is_refused_by_train(trained, capsys):
    from cffair.cli import main

    tmp, csv, _, common = trained
    out = tmp / "cf.parquet"
    assert (
        main(
            [
                "counterfactuals",
                "generate",
                "--data",
                str(csv),
                "--spec",
                str(tmp / "loans.yaml"),
                "--flow-epochs",
                "2",
                "--out",
                str(out),
                "--no-cache",
                "--quiet",
            ]
        )
        == 0
    )
    good = CounterfactualSet.load(out)
    train = ["train", *common, "--setting", "acc_cf", "--pretrain-epochs", "40", "--fair-epochs", "5"]
    capsys.readouterr()
    assert main([*train, "--counterfactuals", str(out)]) == 0
    forged = tmp / "forged.parquet"
    CounterfactualSet(_permuted(good, seed=1), good.meta).save(forged)
    capsys.readouterr()
    assert main([*train, "--counterfactuals", str(forged)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "row ids do not point at the rows these counterfactuals were made from" in err


@pytest.mark.slow
def test_query_cf_warns_when_the_regenerated_counterfactuals_are_not_those_of_training(trained, capsys):
    tmp, _, ckpt, _ = trained
    rc, _, err = _ask("cf", ckpt, capsys)
    assert rc == 0 and "warning" not in err  # regenerated as at training time: the same set
    state = checkpoint.learner_state(ckpt)
    other = tmp / "other.pt"
    LTNLearner.load(ckpt).save(other, extra={**state["extra"], "counterfactuals_content": "0" * 16})
    rc, out, err = _ask("cf", other, capsys)
    assert rc == 0 and "sat =" in out
    assert (
        "cffair: warning: the counterfactuals regenerated for checkpoint" in err
        and "content hash 0000000000000000" in err
    )


def test_counterfactuals_of_a_reloaded_flow_carry_the_hashes_of_their_data(tmp_path):
    from cffair._support.utils import stable_hash
    from cffair.causal._flow import generate_from
    from cffair.datasets import frame_hash
    from cffair.datasets._encoding import Encoder

    frame, spec = _mixed()
    model = CausalFlow(spec, config=FAST).fit(frame, seed=0)
    model.save(tmp_path / "flow.pt")
    back = CausalFlow.load(tmp_path / "flow.pt")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a 4-epoch flow may freeze a descendant
        cfs = generate_from(back, (frame, spec))
        again = generate_from(model, (frame, spec))
    pd.testing.assert_frame_equal(cfs.frame, again.frame, check_exact=True)  # the reloaded flow is the same flow
    assert (
        cfs.meta["data_hash"] == frame_hash(frame[spec.feature_names]) == cfs.meta["flow_data_hash"] == model.data_hash
    )
    assert cfs.meta["graph_hash"] == stable_hash(spec.load_graph().to_dict())
    enc = Encoder(spec).fit(frame)
    assert len(cfs.pairs(frame, enc, "s")) == len(cfs)
    shuffled = frame.sample(frac=1.0, random_state=0).reset_index(drop=True)
    with pytest.raises(CounterfactualError, match="generated from different data"):
        cfs.pairs(shuffled, enc, "s")


@pytest.mark.slow
def test_training_rows_that_encode_differently_are_refused(trained, capsys):
    """The learner's hash of its encoded training rows must come back from the data, fold and encoder."""
    tmp, _, ckpt, _ = trained
    for name in QUERIES:
        assert _ask(name, ckpt, capsys)[0] == 0
    state = checkpoint.learner_state(ckpt)
    learner = LTNLearner.load(ckpt)
    learner.data_hash_ = "f" * 16  # as if the folds or the encoder had changed since training
    other = tmp / "refolded.pt"
    learner.save(other, extra=state["extra"])
    for name in QUERIES:
        rc, out, err = _ask(name, other, capsys)
        assert rc == 2 and out == "", (name, err)
        assert (
            len(err.strip().splitlines()) == 1 and "encode differently now (hash ffffffffffffffff at training" in err
        ), err


@pytest.mark.slow
def test_recourse_warns_when_the_generator_changed_since_training(trained, capsys):
    from cffair.causal._cache import source_version

    tmp, _, ckpt, _ = trained
    state = checkpoint.learner_state(ckpt)
    assert state["extra"]["generator_version"] == source_version()
    rc, _, err = _ask("recourse", ckpt, capsys)
    assert rc == 0 and "warning" not in err
    other = tmp / "old-generator.pt"
    LTNLearner.load(ckpt).save(other, extra={**state["extra"], "generator_version": "cnf-1-0000000000"})
    rc, out, err = _ask("recourse", other, capsys)
    assert rc == 0 and json.loads(out)["rows"]
    assert "cffair: warning: checkpoint" in err and "generator cnf-1-0000000000" in err
