"""A result record is a :class:`cffair.experiments.Record`: the stored JSON object (a ``dict``) with typed
access to its config, metrics and fingerprint, whether just made or read back from the store."""

from __future__ import annotations

import json

from cffair import experiments as E
from cffair.experiments import _store as store_module


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


def test_a_store_read_again_gives_the_same_records_and_sees_every_change(tmp_path, monkeypatch):
    """Reading a record again in the same process skips the parse and the checksum (the file is the same one),
    and still returns what is on disk: a record of its own each time, the new content after a write, and a
    corrupt verdict after a hand edit of the same size."""
    store = E.ResultsStore(tmp_path)
    cfgs = [E.ExperimentConfig("compas", fold, "cnf", profile="quick") for fold in (0, 1)]
    for k, cfg in enumerate(cfgs):
        store.put(E.make_record(cfg, {"code": {"m": "h"}}, {"accuracy": 0.5 + k / 10}, {"total": 1.0}))
    first = store.records()
    checked = []
    real = store_module._validate
    monkeypatch.setattr(store_module, "_validate", lambda raw, path: checked.append(path.name) or real(raw, path))
    second = store.records()
    assert checked == []  # the same files: neither parsed nor checked again
    assert second == first and all(isinstance(r, E.Record) for r in second)
    second[0]["metrics"]["accuracy"] = -1.0  # a reader's edit stays its own
    assert store.records()[0]["metrics"]["accuracy"] == 0.5

    store.put(E.make_record(cfgs[0], {"code": {"m": "h"}}, {"accuracy": 0.9}, {"total": 1.0}))
    assert store.get(cfgs[0]).metrics == {"accuracy": 0.9}  # rewritten: read again
    assert checked == [store.path(cfgs[0]).name]

    path = store.path(cfgs[1])
    text = path.read_text()
    path.write_text(text.replace('"accuracy": 0.6', '"accuracy": 0.7'))  # same size, by hand
    assert path.stat().st_size == len(text.encode())
    assert store.get(cfgs[1]) is None
    assert [c.path for c in store.corrupt()] == [path] and "checksum" in store.corrupt()[0].reason


def test_a_records_config_is_parsed_once_and_kept_off_its_fields(tmp_path):
    """Two reads of ``config`` give the same object; the parsed config is never one of the record's fields: the
    JSON the store writes, the marshalled copy it keeps, a pickle and a copy hold the fields only (a copy parses
    again), and setting the ``config`` field parses the new one."""
    import copy
    import marshal
    import pickle

    cfg = E.ExperimentConfig("compas", 1, "ltn_acc_cf", profile="quick")
    rec = E.make_record(cfg, {"code": {"m": "h"}}, {"accuracy": 0.75}, {"total": 1.0})
    fields = (json.dumps(rec), pickle.dumps(rec, protocol=5))
    assert rec.config is rec.config and rec.config == cfg
    assert (json.dumps(rec), pickle.dumps(rec, protocol=5)) == fields
    assert marshal.loads(marshal.dumps(dict(rec))) == json.loads(fields[0])  # marshal's bytes follow refcounts
    for twin in (copy.copy(rec), copy.deepcopy(rec), pickle.loads(pickle.dumps(rec))):
        assert isinstance(twin, E.Record) and twin == rec and vars(twin) == {}
        assert twin.config == cfg and twin.config is not rec.config
    store = E.ResultsStore(tmp_path)
    store.put(rec)
    assert json.loads(store.path(cfg).read_text()) == dict(rec) and store.get(cfg).config == cfg
    rec["config"] = E.ExperimentConfig("adult", 0, "cnf", profile="quick").to_dict()
    assert rec.config.key == "quick/adult/cnf/fold0"


def test_a_record_names_the_kernels_that_computed_it_and_forced_kernels_are_another_machine():
    """ATEN_CPU_CAPABILITY makes PyTorch use a lower instruction set than the CPU has: the numbers then differ in the
    last digits as on another CPU. A record says which kernels computed it, and the tests' tolerance reads it."""
    import subprocess
    import sys

    import machines
    import torch

    cfg = E.ExperimentConfig("compas", 0, "cnf", profile="quick")
    rec = store_module.make_record(cfg, {"code": {}}, {"accuracy": 0.5}, {})
    assert rec["machine"]["cpu_kernels"] == torch.backends.cpu.get_cpu_capability()
    code = "import torch, json; from cffair.experiments import _store as store; print(json.dumps(store.kernels()))"
    env = {"ATEN_CPU_CAPABILITY": "default", "PATH": "/usr/bin:/bin"}
    forced = json.loads(subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True).stdout)
    assert forced == {"cpu_kernels": "DEFAULT"}
    other = {**rec["machine"], **forced}
    assert machines.one_cpu(rec["machine"], rec["machine"])
    assert machines.one_cpu(rec["machine"], other) is (rec["machine"]["cpu_kernels"] == "DEFAULT")
    older = {k: v for k, v in rec["machine"].items() if k != "cpu_kernels"}  # a record made before the field
    assert machines.one_cpu(older, rec["machine"]) is (machines.kernels(older) == rec["machine"]["cpu_kernels"])


def test_a_config_with_a_missing_or_unknown_field_is_refused_by_name():
    import pytest

    from cffair.errors import ConfigError

    with pytest.raises(ConfigError, match=r"lacks 'fold', 'setting'; a config holds dataset, fold and setting"):
        E.ExperimentConfig.from_dict({"dataset": "compas"})
    with pytest.raises(ConfigError, match=r"has unknown 'colour'"):
        E.ExperimentConfig.from_dict({"dataset": "compas", "fold": 0, "setting": "cnf", "colour": "red"})
    with pytest.raises(ConfigError, match="a config is a mapping"):
        E.ExperimentConfig.from_dict(["compas", 0, "cnf"])  # type: ignore[arg-type]
    cfg = E.ExperimentConfig("compas", 1, "cnf", profile="quick", seed=2)
    assert E.ExperimentConfig.from_dict(cfg.to_dict()) == cfg
