"""Settings resolved once (issue 39): a fold is a split of the rows (the grid's and a command's alike),
profiles are keyword data without unread fields."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest

import cffair
from cffair import datasets as D
from cffair.errors import DataError
from cffair.experiments._config import PROFILES, ExperimentConfig, Profile


def test_a_configs_fold_is_a_split_and_a_command_builds_the_same_split_without_a_config():
    from cffair.cli._common import fold_split

    frame, spec = D.load("compas")
    full = ExperimentConfig("compas", 3, "ltn_acc_cf", profile="full")
    assert full.split == fold_split(3, 5, 0) == D.FoldSplit(3, 5, 0, None)
    train, test = full.split.rows(frame, spec)
    paper = D.make_folds(frame, spec, n_splits=5, seed=0)[3]
    assert np.array_equal(train, paper.train) and np.array_equal(test, paper.test)
    # the quick profile caps each part at random (seeded by the fold), inside the same fold
    quick = ExperimentConfig("compas", 3, "ltn_acc_cf", profile="quick").split
    q_train, q_test = quick.rows(frame, spec)
    assert quick.max_rows == PROFILES["quick"].max_rows == len(q_train) == 2 * len(q_test)
    assert set(q_train) <= set(paper.train) and set(q_test) <= set(paper.test)
    # a repetition is another partition; its seed is the repetition
    assert ExperimentConfig("compas", 0, "cnf", repeat=2).split == D.FoldSplit(0, 5, 2)
    with pytest.raises(DataError, match=r"fold must lie in 0..4"):
        D.FoldSplit(5, 5)


def test_the_command_line_builds_no_experiment_config():
    text = (Path(cffair.__file__).parent / "cli" / "_common.py").read_text(encoding="utf-8")
    assert "ExperimentConfig" not in text


def test_profiles_are_keyword_data_with_no_unread_field():
    fields = [f.name for f in dataclasses.fields(Profile)]
    assert "baseline_scale" not in fields
    with pytest.raises(TypeError):
        Profile("full", 5, (0,), None, 1, 1, 1, 1, 1e-3)  # type: ignore[misc]
    from cffair.learners._hyperparameters import DEFAULTS

    full = PROFILES["full"]
    assert (full.lr, full.pretrain_epochs, full.fair_epochs, full.cke_epochs) == (
        DEFAULTS["lr"],
        DEFAULTS["pretrain_epochs"],
        DEFAULTS["fair_epochs"],
        DEFAULTS["cke_epochs"],
    )


def test_a_configs_settings_are_its_profile_with_its_options_over_them():
    from cffair.experiments._config import RunSettings

    cfg = ExperimentConfig("compas", 1, "ltn_acc_cf", profile="quick", options={"fair_epochs": 7, "fair_p": 6})
    run = cfg.settings
    assert run == RunSettings(
        lr=1e-2,
        clip_grad=None,
        pretrain_epochs=60,
        fair_epochs=7,
        cke_epochs=20,
        fair_p=6.0,
        flow_epochs=20,
        split=D.FoldSplit(1, 5, 0, 1500),
    )
    with pytest.raises(dataclasses.FrozenInstanceError):
        run.lr = 0.1  # type: ignore[misc]
    plain = ExperimentConfig("compas", 1, "cnf", profile="full").settings
    assert (plain.lr, plain.fair_epochs, plain.fair_p) == (PROFILES["full"].lr, PROFILES["full"].fair_epochs, None)


def test_the_runners_read_the_settings_not_the_profile():
    from cffair.experiments._pipeline import ltn
    from cffair.experiments._pipeline.mlp import mlp_config

    root = Path(cffair.__file__).parent / "experiments" / "_pipeline"
    readers = sorted(p.name for p in root.glob("*.py") if "profile(cfg.profile)" in p.read_text(encoding="utf-8"))
    assert readers == ["keys.py"]  # the fingerprint records the profile's values themselves
    cfg = ExperimentConfig("compas", 0, "ltn_acc_cf", profile="quick", options={"lr": 0.05, "fair_epochs": 3})

    class Spec:
        target_kind, sensitive = "binary", "race"

    class Fold:
        spec = Spec()

    kw = ltn._ltn_kwargs(cfg, Fold())  # type: ignore[arg-type]
    assert (kw["lr"], kw["fair_epochs"], kw["pretrain_epochs"]) == (0.05, 3, 60)
    base = ExperimentConfig("compas", 0, "cnf", profile="quick")
    assert (mlp_config(base).lr, mlp_config(base).epochs) == (base.settings.lr, base.settings.pretrain_epochs)


def test_the_notebooks_quick_models_take_the_quick_profiles_settings():
    """The notebooks build their quick models with ``**fd.config.settings.learner_kwargs()`` instead of
    retyping the quick profile's numbers; those keywords are the learner's, with the profile's values."""
    from cffair.learners._hyperparameters import check_hyperparameters
    from cffair.learners._training import LTNLearner

    kw = ExperimentConfig("adult", 0, "ltn_acc_cf", profile="quick").settings.learner_kwargs()
    quick = PROFILES["quick"]
    assert kw == {
        "lr": quick.lr,
        "pretrain_epochs": quick.pretrain_epochs,
        "fair_epochs": quick.fair_epochs,
        "cke_epochs": quick.cke_epochs,
        "fair_p": None,
        "clip_grad": None,
    }
    check_hyperparameters(LTNLearner(setting="acc_cf", **kw))
    notebooks = Path(cffair.__file__).parents[1] / "notebooks"
    if notebooks.is_dir():  # a development checkout
        retyped = [p.name for p in notebooks.glob("*.md") if "pretrain_epochs=60" in p.read_text(encoding="utf-8")]
        assert not retyped
