"""A result record is a :class:`cffair.experiments.Record`: the stored JSON object (a ``dict``) with typed
access to its config, metrics and fingerprint, whether just made or read back from the store."""

from __future__ import annotations

import json

from cffair import experiments as E


def test_a_record_is_typed_when_made_and_when_read_back(tmp_path):
    cfg = E.ExperimentConfig("compas", 1, "ltn_acc_cf", profile="quick", options={"fair_p": 6})
    made = E.make_record(cfg, {"code": {"m": "h"}}, {"accuracy": 0.75}, {"total": 1.0})
    assert isinstance(made, E.Record) and made.config == cfg and made.metrics == {"accuracy": 0.75}
    assert made.fingerprint == {"code": {"m": "h"}}
    store = E.ResultsStore(tmp_path)
    store.put(made)
    back = store.get(cfg)
    assert isinstance(back, E.Record) and back == made and back.config.key == cfg.key
    assert all(isinstance(r, E.Record) for r in store.records())
    assert json.loads(json.dumps(back)) == dict(made)  # still the plain JSON object on disk
    again = store.restamp(back, {"code": {"m": "other"}})
    assert isinstance(again, E.Record) and again.config == cfg and again.fingerprint == {"code": {"m": "other"}}
