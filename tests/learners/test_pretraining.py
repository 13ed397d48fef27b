"""The pre-training cache: one pre-training per (data, parameters), identical to training anew,
and a corrupt cache file reported, removed and recomputed."""

from __future__ import annotations

import numpy as np
import pytest

from cffair.errors import CacheWarning
from cffair.learners._pretraining import pretrain_key, pretrained
from cffair.learners._training import LTNLearner, checkpoint_extra


@pytest.fixture(scope="module")
def data():
    r = np.random.default_rng(0)
    X = r.normal(size=(200, 4)).astype(np.float32)
    y = (X[:, 0] - 0.5 * X[:, 1] + 0.3 * r.normal(size=200) > 0).astype(float)
    x_cf = X.copy()
    x_cf[:, 3] = -x_cf[:, 3]  # a "sensitive" column flipped
    return X, y, (X, x_cf)


def _weights(learner: LTNLearner) -> list[np.ndarray]:
    return [p.detach().numpy().copy() for p in learner.model_.parameters()]


def _same(a: LTNLearner, b: LTNLearner) -> bool:
    return all(np.array_equal(u, v) for u, v in zip(_weights(a), _weights(b), strict=True))


def test_second_call_reads_the_cache_and_gives_the_same_model(data, tmp_path):
    X, y, _ = data
    first = pretrained(X, y, "binary", epochs=40, cache_dir=tmp_path, name="toy", progress=False)
    second = pretrained(X, y, "binary", epochs=40, cache_dir=tmp_path, name="toy", progress=False)
    assert not first.from_cache and second.from_cache
    assert (
        first.path == second.path
        and first.path.parent == tmp_path / "pretrained"
        and first.path.name.startswith("toy-")
    )
    assert list((tmp_path / "pretrained").iterdir()) == [first.path]  # written atomically: no temporary file left
    assert _same(first.learner, second.learner)
    assert second.learner.history_["epoch"].max() == 40 and second.learner.pretrained_
    uncached = pretrained(X, y, "binary", epochs=40, cache_dir=False, progress=False)
    assert uncached.path is None and not uncached.from_cache and _same(uncached.learner, second.learner)


def test_continuing_from_the_cache_equals_training_in_one_go(data, tmp_path):
    X, y, pairs = data
    pretrained(X, y, "binary", epochs=40, cache_dir=tmp_path, progress=False)  # fill the cache
    pre = pretrained(X, y, "binary", epochs=40, cache_dir=tmp_path, progress=False)
    assert pre.from_cache
    continued = LTNLearner.load(pre.learner.state_dict(), setting="acc_cf", fair_epochs=15, progress=False).fit(
        X, y, pairs=pairs
    )
    in_one_go = LTNLearner("binary", "acc_cf", pretrain_epochs=40, fair_epochs=15, progress=False).fit(
        X, y, pairs=pairs
    )
    assert _same(continued, in_one_go)
    np.testing.assert_array_equal(continued.predict_d(X), in_one_go.predict_d(X))


def test_the_key_covers_data_and_every_pretraining_parameter(data):
    X, y, _ = data
    base = pretrain_key(X, y, "binary", epochs=40)
    assert pretrain_key(X.copy(), y.copy(), "binary", epochs=40) == base
    other_rows = X.copy()
    other_rows[0, 0] += 1e-3
    changed = [
        pretrain_key(other_rows, y, "binary", epochs=40),
        pretrain_key(X, 1 - y, "binary", epochs=40),
        pretrain_key(X, y, "score", epochs=40),
        pretrain_key(X, y, "binary", epochs=41),
        pretrain_key(X, y, "binary", epochs=40, lr=0.1),
        pretrain_key(X, y, "binary", epochs=40, seed=1),
        pretrain_key(X, y, "binary", epochs=40, hidden=(10,)),
    ]
    assert base not in changed and len(set(changed)) == len(changed)


def test_a_truncated_cache_file_is_reported_removed_and_recomputed(data, tmp_path):
    X, y, _ = data
    first = pretrained(X, y, "binary", epochs=30, cache_dir=tmp_path, progress=False)
    raw = first.path.read_bytes()
    first.path.write_bytes(raw[: len(raw) // 2])
    with pytest.warns(CacheWarning, match=r"unreadable .*removed it, pre-training again") as record:
        again = pretrained(X, y, "binary", epochs=30, cache_dir=tmp_path, progress=False)
    assert str(first.path) in str(record[0].message)
    assert not again.from_cache and _same(again.learner, first.learner)
    assert checkpoint_extra(again.path)["pretrain_key"] == again.key  # rewritten whole
    assert pretrained(X, y, "binary", epochs=30, cache_dir=tmp_path, progress=False).from_cache


def test_a_cache_file_for_other_data_is_not_used(data, tmp_path):
    X, y, _ = data
    one = pretrained(X, y, "binary", epochs=20, cache_dir=tmp_path, name="a", progress=False)
    other = pretrained(X, 1 - y, "binary", epochs=20, cache_dir=tmp_path, name="a", progress=False)
    other.path.write_bytes(one.path.read_bytes())  # a file under the wrong key (e.g. a hand copy)
    with pytest.warns(CacheWarning, match="other data or parameters"):
        again = pretrained(X, 1 - y, "binary", epochs=20, cache_dir=tmp_path, name="a", progress=False)
    assert not again.from_cache and _same(again.learner, other.learner) and not _same(again.learner, one.learner)
