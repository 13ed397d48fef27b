"""One route through the pipeline (issue 39): the task graph is the only way a record is computed,
the GAN an LTN config trains on is a property of the config, and a worker receives the registered
data it needs with its task, not through its environment."""

from __future__ import annotations

import sys

import cloudpickle
import pytest
import toy_grid
from toy_grid import toy_fingerprint

from cffair import experiments as E
from cffair.datasets import _registry as registry
from cffair.experiments import _pipeline as pipeline
from cffair.experiments._pipeline import keys
from cffair.experiments._tasks import task_graph
from cffair.workflows import _reproduce as R

cloudpickle.register_pickle_by_value(sys.modules[__name__])
cloudpickle.register_pickle_by_value(toy_grid)

NAME = "route_probe_data"


def test_the_task_graph_is_the_only_route(tmp_path):
    from cffair.experiments._pipeline import ltn

    assert not hasattr(pipeline, "run_group") and not hasattr(ltn, "run")
    cfg = E.ExperimentConfig("compas", 0, "ltn_acc", profile="quick")
    (group,) = task_graph([cfg], split=False)
    with pytest.raises(ValueError, match="whole group"):
        pipeline.run_task(group, E.ResultsStore(tmp_path))


def test_the_gan_an_ltn_config_trains_on_is_a_property_of_the_config():
    cfg = E.ExperimentConfig(
        "compas", 2, "ltn_acc_cf", cf_source="gan", seed=3, options={"gan_variant": "released", "fair_p": 6}
    )
    gan = cfg.gan_source
    assert (gan.setting, gan.fold, gan.seed, gan.option_map) == ("gan", 2, 3, {"gan_variant": "released"})
    # the GAN of the same training seed (the pre-registered protocol: a seed other than 0 is in the key)
    assert gan.key == "full/compas/gan(gan_variant=released)/seed3/fold2" and gan.gan_source is gan
    # the task graph makes the LTN task wait for that GAN's task, and the fingerprint names that GAN
    tasks = {t.id: t for t in task_graph([cfg])}
    (ltn_task,) = [t for t in tasks.values() if t.target == cfg]
    assert gan.key in ltn_task.deps and tasks[gan.key].target == gan
    assert keys.producer("gan_counterfactuals", cfg, "data")["config"] == keys._config(gan)
    plain = E.ExperimentConfig("compas", 2, "ltn_acc_cf", cf_source="gan", seed=3)
    assert plain.gan_source.key == "full/compas/gan/seed3/fold2" and not plain.gan_source.options


def probe_runner(group: list, store: E.ResultsStore) -> list:
    """Records, for each config, whether this worker knows the registered dataset ``NAME``."""
    out = []
    for cfg in group:
        reg = registry.registration(NAME)
        rec = E.make_record(cfg, toy_fingerprint(cfg), {"knows": reg is not None and reg.data == "/nowhere.csv"}, {})
        store.put(rec)
        out.append(rec)
    return out


def test_a_worker_receives_the_registered_data_with_its_task(tmp_path, monkeypatch):
    """The registration lives in the parent process only (not in the environment workers inherit):
    every worker of the grid still knows it, because run_grid passes it with each task."""
    reg = registry.Registration(NAME, "/nowhere.csv", {"target": "y"})
    monkeypatch.setitem(registry._LOCAL, NAME, reg)
    monkeypatch.delenv(registry.ENV_VAR, raising=False)
    grid = [E.ExperimentConfig("compas", f, "cnf", profile="quick") for f in range(4)]
    store = E.ResultsStore(tmp_path)
    R.run_grid(grid, store, jobs=2, runner=probe_runner, expected=toy_fingerprint, progress=False, backend="loky")
    assert [store.get(c)["metrics"]["knows"] for c in grid] == [True] * 4


def test_every_registered_runner_is_loaded_in_one_place_and_offers_its_protocol():
    from cffair.experiments._pipeline.runners import GanRunner, LtnRunner, MethodRunner, load_runner

    assert isinstance(load_runner("ltn"), LtnRunner) and isinstance(load_runner("gan"), GanRunner)
    for method in keys.RUNNERS:
        assert isinstance(load_runner(method), LtnRunner if method == "ltn" else MethodRunner), method
    with pytest.raises(KeyError):
        load_runner("no_such_method")
    # no other module of the library imports a runner by name
    from pathlib import Path

    import cffair

    root = Path(cffair.__file__).parent
    users = sorted(
        str(p.relative_to(root)) for p in root.rglob("*.py") if "import_module(RUNNERS" in p.read_text(encoding="utf-8")
    )
    assert users == ["experiments/_pipeline/runners.py"]
