"""One home for each LTN hyperparameter (:mod:`cffair.learners._hyperparameters`): the learner, the estimators and
the command line take their defaults, their checks and their flags from it, and an exponent p is
checked by one function wherever it comes in."""

from __future__ import annotations

import inspect
import math

import pytest
import torch

from cffair._support.validation import check_exponent
from cffair.cli import main
from cffair.errors import ParameterError
from cffair.experiments._config import ConfigError, ExperimentConfig
from cffair.learners import _hyperparameters as H
from cffair.learners._estimator import CounterfactualFairClassifier, CounterfactualFairRegressor
from cffair.learners._training import LTNLearner
from cffair.logic._axioms import Axiom, KnowledgeBase
from cffair.logic._fuzzy import Semantics, weighted_sat


def _defaults(cls: type) -> dict[str, object]:
    return {n: p.default for n, p in inspect.signature(cls.__init__).parameters.items() if n in H.HYPERPARAMETERS}


@pytest.mark.parametrize("cls", [LTNLearner, CounterfactualFairClassifier, CounterfactualFairRegressor])
def test_learner_and_estimators_take_every_default_from_the_home(cls):
    found = _defaults(cls)
    assert {"lr", "pretrain_epochs", "fair_epochs", "fair_p", "hidden"} <= set(found)
    assert found == {n: H.DEFAULTS[n] for n in found}


@pytest.mark.parametrize(
    "command,names",
    [
        ("train", ("pretrain_epochs", "fair_epochs", "fair_p", "lr")),
        ("cke", ("cke_epochs", "fair_p")),
        ("run", ("lr", "fair_epochs", "fair_p")),
        ("fit", ("lr", "pretrain_epochs", "fair_epochs", "fair_p")),
    ],
)
def test_the_command_line_offers_the_flags_generated_from_the_home(command, names, capsys):
    assert main([command, "--help"]) == 0
    text = " ".join(capsys.readouterr().out.split())  # argparse wraps the help
    for name in names:
        hp = H.HYPERPARAMETERS[name]
        assert hp.flag in text and " ".join(hp.help.split()) in text


@pytest.mark.parametrize("value", ["0.5", "0", "-2", "inf", "nan", "x"])
@pytest.mark.parametrize(
    "argv",
    [
        ["train", "--dataset", "compas", "--setting", "acc_cf"],
        ["run", "--data", "missing.csv", "--spec", "missing.yaml"],
        ["fit", "--data", "missing.csv", "--spec", "missing.yaml", "--out", "m.cffair"],
    ],
)
def test_a_bad_fair_p_on_the_command_line_is_one_line_and_exit_2(argv, value, capsys):
    assert main([*argv, "--fair-p", value]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "argument --fair-p" in err


@pytest.mark.parametrize("bad", [0.5, 0, -1.0, math.inf, math.nan, True, "2"])
def test_every_entry_of_an_exponent_refuses_what_the_one_check_refuses(bad):
    with pytest.raises(ParameterError) as one:
        check_exponent(bad, "p")
    core = str(one.value).split("must be", 1)[1]
    with pytest.raises(ValueError, match="p_kb must be") as sem:
        Semantics(p_kb=bad)
    with pytest.raises(ValueError) as ax:
        Axiom("A4", "∀", "cf", "holds", torch.zeros((2, 1)), p=bad)
    with pytest.raises(ParameterError) as learner:
        H.check_hyperparameters(LTNLearner(fair_p=bad))
    with pytest.raises(ConfigError) as config:
        ExperimentConfig("compas", 0, "ltn_acc_cf", options={"fair_p": bad})
    for exc in (sem, ax, learner, config):
        assert str(exc.value).endswith(core)


@pytest.mark.parametrize("good", [1, 2.0, 6])
def test_every_entry_of_an_exponent_accepts_what_the_one_check_accepts(good):
    assert check_exponent(good, "p") == float(good)
    assert Semantics(p_forall=good).p_forall == good
    assert Axiom("A4", "∀", "cf", "holds", torch.zeros((2, 1)), p=good).p == good
    H.check_hyperparameters(LTNLearner(fair_p=good))
    assert ExperimentConfig("compas", 0, "ltn_acc_cf", options={"fair_p": good}).option_map["fair_p"] == float(good)


def test_the_knowledge_base_aggregation_has_one_default_exponent():
    """``weighted_sat``'s default p is the semantics' ``p_kb`` (1, the weighted mean the reproduction
    reads in the paper's "p = 1 in the norm aggregators"), not ltntorch's 2."""
    default_p = inspect.signature(weighted_sat).parameters["p"].default
    assert default_p == Semantics().p_kb == 1.0
    s = torch.tensor([0.9, 0.5, 0.2])
    w = torch.tensor([1.0, 2.0, 1.0])
    mean = 1 - float((w * (1 - s)).sum() / w.sum())
    assert float(weighted_sat(s, w, stable=False)) == pytest.approx(mean)

    class Const(torch.nn.Module):
        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return x[:, 0]

    x = torch.tensor([[0.9], [0.5], [0.2]])
    axioms = [Axiom(f"A{i}", "∀", "acc", "holds", x[i : i + 1]) for i in range(3)]
    kb = KnowledgeBase(axioms, Semantics(stable=False))
    sat, sats = kb.sat(Const())
    assert float(sat) == pytest.approx(float(weighted_sat(sats, stable=False))) == pytest.approx(1 - 1.4 / 3)
