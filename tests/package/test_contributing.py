"""CONTRIBUTING.md's recipes, followed once each.

The recipes name modules, functions, files and registries; a recipe that names something that no
longer exists sends a contributor the wrong way (round 3's named ``cffair.reporting.registry.claim_check``
after it had moved). So every name the file writes in backticks is resolved here, and the recipes
that add something (an axiom, a baseline, a dataset, a chapter) are followed with a dummy:

* a new baseline and a new chapter: ``tests/experiments/test_registry_methods.py`` registers ``DUMMY``, ``CHEAP`` and
  ``Q5`` and checks every consumer (grid, runner table, fingerprint, tables, colours, ``cffair run``,
  the chapter map); the test below checks the recipe's own steps with the same dummies;
* a new axiom: the test below writes a factory, checks its truth on hand-computed inputs and trains
  with it through ``LTNLearner.add_axioms``;
* a new dataset (your own data): ``cffair.datasets.register`` and a load by name, as the recipe says.
"""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import torch
from torch import nn

ROOT = Path(__file__).resolve().parents[2]
TEXT = (ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")


def _resolve(dotted: str) -> object:
    """The object a dotted name names: the longest importable module prefix, then attributes."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj: object = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for attr in parts[cut:]:
            obj = getattr(obj, attr)
        return obj
    raise ImportError(dotted)


def test_every_module_function_and_file_the_recipes_name_exists() -> None:
    names = set(re.findall(r"`((?:cffair|cffair_book)(?:\.[A-Za-z_]\w*)+)(?:\([^`]*\))?`", TEXT))
    names |= {m for m in re.findall(r"`(cffair_book)`", TEXT)}
    assert len(names) >= 10, "the recipes name the library's modules"
    for name in sorted(names):
        assert _resolve(name) is not None, name
    paths = set(re.findall(r"`((?:cffair|cffair_book|tests|notebooks|book|benchmarks)/[\w./*-]+)`", TEXT))
    assert len(paths) >= 5
    for path in sorted(paths):
        if "<" in path or "*" in path:
            folder = ROOT / path.split("<")[0].split("*")[0]
            assert folder.parent.exists() if not folder.exists() else True, path
            continue
        assert (ROOT / path).exists(), f"CONTRIBUTING.md names {path}, which does not exist"
    # the registries the recipes add to, under the names the recipes use
    from cffair.experiments import _registry as registry
    from cffair_book import chapters

    for where, listed in (
        (registry, "METHODS"),
        (registry, "QUESTION_GROUPS"),
        (registry, "DATASETS"),
        (chapters, "CHAPTERS"),
    ):
        assert f"`{listed}`" in TEXT and hasattr(where, listed), listed
    for call in re.findall(r"`registry\.(\w+)\(", TEXT):
        assert callable(getattr(registry, call)), call


# ----------------------------------------------------------------------------- a new axiom
def refusal_axiom(x: np.ndarray) -> object:
    """A dummy axiom as the recipe writes one: ``∀x∈G: ¬D(x)`` (everyone in G is refused)."""
    from cffair.logic._axioms import Axiom

    return Axiom("A6", "∀x∈G: ¬D(x)", "cke", "fails", torch.as_tensor(x, dtype=torch.float32), weight=1.0)


class _Constant(nn.Module):
    def __init__(self, value: float) -> None:
        super().__init__()
        self.value = value

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.full((len(x),), self.value)


def test_the_axiom_recipe_a_factory_its_truth_by_hand_and_training_with_it() -> None:
    from cffair.learners._training import LTNLearner
    from cffair.logic._axioms import DEFAULT_SEMANTICS

    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 3)).astype(np.float32)
    y = (X[:, 0] > 0).astype(int)
    axiom = refusal_axiom(X[:50])
    # step 4: its truth value on hand-computed inputs: D ≡ 0.25 → ¬D ≡ 0.75, and the paper's ∀ (p = 1) is the mean
    # (up to the semantics' stabilising epsilon, 1e-4)
    sat = axiom.satisfaction(_Constant(0.25), DEFAULT_SEMANTICS)
    assert float(sat) == pytest.approx(0.75, abs=1e-3)
    # step 2: training with it, through the learner's stage loop
    learner = LTNLearner("binary", "acc", pretrain_epochs=60, lr=0.01, seed=0, progress=False).fit(X, y)
    before = float(learner.predict_score(X[:50]).mean())
    learner.add_axioms(axiom, X, epochs=200)
    after = float(learner.predict_score(X[:50]).mean())
    assert after < before - 0.03, (before, after)  # the new axiom pushes D(x) down on G
    assert "A6" in [a.name for a in learner.kb_.axioms]


# ----------------------------------------------------------------------------- a new baseline and a new chapter
def test_the_baseline_and_chapter_recipes_with_the_dummies_of_the_registry_tests() -> None:
    from cffair.experiments import _registry as registry
    from cffair.experiments._pipeline import keys
    from cffair.experiments._registry import Method, QuestionGroup
    from cffair_book import chapters
    from cffair_book.chapters import Chapter

    dummy = Method("recipe", "Recipe MLP", "baseline", "simple", groups=("q2",), first_fold_only=True)
    group, chapter = QuestionGroup("q9"), Chapter("q9", "q9_recipe", "Q9: a recipe", "Q9", "Table 9")
    with chapters.registered(dummy, group, chapter):
        # step 2 of the baseline recipe: its runner module, found through the runner table
        runner = importlib.import_module(keys.RUNNERS["recipe"])
        assert callable(runner.run)
        # step 2 of the chapter recipe: its command
        assert registry.question_group("q9").command() == "cffair reproduce --only q9 --mode quick"
        assert chapters.notebook_of("q9") == "q9_recipe" and chapters.chapters()["q9"].link == "Q9"
    assert "recipe" not in keys.RUNNERS


# ----------------------------------------------------------------------------- a new dataset (your own data)
def test_the_dataset_recipe_register_then_load_by_name(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from cffair import datasets as D
    from cffair.datasets import _registry as data_registry

    monkeypatch.delenv(data_registry.ENV_VAR, raising=False)
    monkeypatch.setattr(data_registry, "_LOCAL", {})
    rng = np.random.default_rng(3)
    sex = rng.choice(["f", "m"], 80)
    income = (sex == "m") + rng.normal(0, 1, 80)
    frame = pd.DataFrame({"sex": sex, "income": income.round(3), "ok": (income > 0.5).astype(int)})
    frame.to_csv(tmp_path / "toy.csv", index=False)
    (tmp_path / "graph.yaml").write_text("edges:\n  sex: [income]\n")
    (tmp_path / "spec.yaml").write_text(
        "name: toy\ntarget: ok\ntarget_kind: binary\nsensitive: sex\n"
        "features: {sex: binary, income: continuous}\nsubgroups: [sex]\nimmutable: []\ngraph: graph.yaml\n"
    )
    D.register("recipe_toy", tmp_path / "toy.csv", tmp_path / "spec.yaml")
    loaded = D.load("recipe_toy")
    assert loaded.spec.name == "recipe_toy" and len(loaded.frame) == 80
    assert list(loaded.frame["income"].round(3)) == list(frame["income"])
