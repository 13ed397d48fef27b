"""The registries of methods, question groups and datasets (cffair.experiments._registry) and the book's chapters
(cffair_book.chapters): one entry for a new method, group or chapter, and every consumer sees it."""

from __future__ import annotations

import argparse
import re
from pathlib import Path

import pytest
import yaml

from cffair.experiments import _registry as registry
from cffair.experiments._registry import Method, QuestionGroup, RegistryError
from cffair.reporting import _names as names  # imported before any registration (their tuples)
from cffair_book import chapters, claims_q2, investigations, pages, rulers
from cffair_book.chapters import Chapter

ROOT = Path(__file__).resolve().parents[2]

#: A baseline of Table 1 that runs on every fold of Q2, with the simple baselines' runner.
DUMMY = Method(
    "dummy", "Dummy MLP", "baseline", "simple", colour=4, tables=("table1",), groups=("q2",), paper_baseline=True
)
#: A cheap alternative that runs in a chapter of its own, on the first fold only.
CHEAP = Method("cheap", "Cheap", "baseline", "simple", groups=("q5",), first_fold_only=True)
#: A question of the paper, and its chapter in the book, which holds a table of the paper.
Q5 = QuestionGroup("q5", paper=True)
Q5_PAGE = Chapter("q5", "q5_dummy", "Q5: a dummy question", "Q5", "Table 9")


@pytest.fixture
def dummies():
    with chapters.registered(DUMMY, CHEAP, Q5, Q5_PAGE):
        yield


def test_a_registered_method_is_in_the_grid_the_configs_and_the_runner_table(dummies):
    from cffair.experiments import _config as C
    from cffair.experiments import paper_grid
    from cffair.experiments._pipeline import keys

    q2 = paper_grid("full", ["compas"], ["q2"])
    assert {c.fold for c in q2 if c.setting == "dummy"} == {0, 1, 2, 3, 4}  # a paper baseline: every fold
    paper = [c for c in q2 if c.fold == 0 and c.seed == 0 and not c.options and not c.repeat]  # the paper's own runs
    assert paper[-1].setting == "dummy"  # after the others, in registry order
    c5 = [c for c in paper_grid("full", ["compas"], ["appendix_c"]) if c.setting == "dummy"]
    assert len(c5) == 5  # Table 1's methods are re-scored on the rulers
    rep = [c for c in paper_grid("full", ["compas"], ["q2"]) if c.repeat and c.setting == "dummy"]
    assert len(rep) == 10  # the repetitions of cross-validation compare Table 1's methods too
    own = paper_grid("full", ["compas", "adult"], ["q5"])
    assert [(c.dataset, c.fold, c.setting) for c in own] == [("compas", 0, "cheap"), ("adult", 0, "cheap")]
    cfg = paper[-1]
    assert cfg.method == "dummy" and keys.RUNNERS["dummy"] == "cffair.experiments._pipeline.simple"
    assert keys.code("dummy") == keys.code("unaware")  # the record runs the code of its runner
    assert "dummy" in C.BASELINES and "dummy" not in C.EXTRA_BASELINES and "cheap" in C.EXTRA_BASELINES
    assert C.TABLE1_SETTINGS[-1] == "dummy" and "q5" in C.GROUPS


def test_a_registered_method_is_in_the_tables_names_colours_and_defaults(dummies):
    from cffair.cli import _run as cli_run
    from cffair.reporting import _style as style
    from cffair.workflows import _own as own

    assert names.TABLE_METHODS["table1"][-1] == "dummy" and "dummy" not in names.TABLE_METHODS["table2"]
    assert names.method_name("dummy") == "Dummy MLP"
    assert style.setting_colours(["dummy"]) == [style.palette(10)[4]]
    assert own._baselines(None)[-1] == "dummy" and own._baselines("cheap,cnf") == ("cnf", "cheap")
    assert cli_run._baseline("cheap") == "cheap"


def test_a_registered_chapter_is_in_the_chapter_map(dummies):
    from cffair.cli import build_parser

    assert chapters.NOTEBOOKS["q5"] == "q5_dummy"
    assert chapters.NOTEBOOK_PAGES["q5"] == ("q5_dummy", "Q5")
    assert pages.CHAPTERS["q5"] == ("q5_dummy", "Q5: a dummy question", "Table 9")
    assert registry.question_group("q5").command() == "cffair reproduce --only q5 --mode quick"
    assert registry.groups(paper=True)[-1] == "q5" and chapters.group_label("q5") == "Q5: a dummy question"
    assert build_parser().parse_args(["reproduce", "--only", "q5"]).only == ["q5"]


def test_registered_entries_leave_with_the_block():
    from cffair.experiments import _config as C

    with chapters.registered(DUMMY, Q5, Q5_PAGE):
        assert "dummy" in C.BASELINES and "q5" in C.GROUPS
    assert "dummy" not in C.BASELINES and "q5" not in chapters.NOTEBOOKS and "q5" not in pages.CHAPTERS
    assert "dummy" not in registry.METHODS and "q5" not in registry.QUESTION_GROUPS and "q5" not in chapters.CHAPTERS


def test_a_config_of_an_unregistered_method_is_refused():
    from cffair.experiments import ConfigError, ExperimentConfig

    with pytest.raises(ConfigError, match="unknown setting 'dummy'"):
        ExperimentConfig("compas", 0, "dummy")
    with registry.registered(DUMMY):
        assert ExperimentConfig("compas", 0, "dummy").key == "full/compas/dummy/fold0"


def test_registering_a_taken_key_or_a_malformed_entry_is_refused():
    with pytest.raises(RegistryError, match="already registered"):
        registry.register_method(Method("cnf", "CNF again", "baseline", "cnf"))
    with pytest.raises(RegistryError, match="already registered"):
        registry.register_group(QuestionGroup("q1"))
    with pytest.raises(RegistryError, match="already registered"):
        chapters.register_chapter(Chapter("q1", "q1_counterfactual_fairness", "Q1 again"))
    with pytest.raises(RegistryError, match="needs a runner module"):
        Method("x", "X", "baseline")
    with pytest.raises(RegistryError, match="must start with 'ltn_'"):
        Method("acc_x", "X", "ltn", "ltn")
    with pytest.raises(RegistryError, match="names the question it is part of"):
        QuestionGroup("q9_why", "investigation")
    with pytest.raises(RegistryError, match="part of 'q2_why', which is not a registered question"):
        registry.register_group(QuestionGroup("q9_why", "investigation", of="q2_why"))


def test_an_ltn_setting_has_one_spelling():
    from cffair.cli import _run as cli_run
    from cffair.workflows._own import normalise_settings

    for key in registry.ltn_settings():
        short = registry.method(key).short
        assert registry.ltn_setting(short) == registry.ltn_setting(key) == key
        assert cli_run._setting(short) == key
    assert normalise_settings("acc_cf,ltn_acc") == ("ltn_acc", "ltn_acc_cf")
    with pytest.raises(RegistryError, match="unknown LTN setting 'fairest'; choose from acc, acc_cf"):
        registry.ltn_setting("fairest")
    with pytest.raises(argparse.ArgumentTypeError, match="unknown LTN setting"):
        cli_run._setting("fairest")


def test_the_protocol_lists_are_the_registrys():
    """The lists every consumer used to type: Table 1's methods, the paper's baselines, the groups."""
    from cffair.experiments import _config as C

    assert C.TABLE1_SETTINGS == C.REPEAT_SETTINGS == rulers.RULER_METHODS == names.TABLE_METHODS["table1"]
    assert claims_q2._BASELINES == registry.paper_baselines() == tuple(investigations.Q2_METHODS[1:])
    assert set(C.BASELINES) == set(registry.paper_baselines()) | set(names.EXTRA_BASELINES)
    assert tuple(s for s in names.TABLE_METHODS["table1"] if registry.method(s).kind == "ltn") == names.Q1_SETTINGS
    assert set(C.INVESTIGATION_GROUPS) <= set(C.GROUPS)
    assert all(registry.question_group(g).of for g in (*C.INVESTIGATION_GROUPS, *C.STUDY_GROUPS))


def test_every_chapter_notebook_exists_and_is_in_the_toc():
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text(encoding="utf-8"))
    files = re.findall(r"file: (notebooks/\S+)", yaml.safe_dump(toc))
    for c in chapters.CHAPTERS.values():
        assert (ROOT / "notebooks" / f"{c.notebook}.md").is_file(), c.group
        assert f"notebooks/{c.notebook}" in files, c.group


def test_the_intro_lists_the_papers_chapters_in_registry_order():
    intro = (ROOT / "intro.md").read_text(encoding="utf-8")
    bullet = intro[intro.index("The research-question chapters") :]
    bullet = bullet[: bullet.index("\n* ")]
    linked = re.findall(r"\]\(notebooks/([\w]+)\.md\)", bullet)
    assert linked == [c.notebook for c in chapters.chapters(paper=True).values()]


def test_the_datasets_are_the_registrys():
    from cffair import datasets as D
    from cffair.experiments import _config as C

    assert C.DATASETS == names.DATASET_ORDER == D.NAMES == registry.dataset_names()
    assert [names.performance_metric(d) for d in C.DATASETS] == ["accuracy", "accuracy", "accuracy", "mse"]
    assert names.performance_metric("my_own_data") == "accuracy"
    for d in C.DATASETS:  # the registry names each dataset with its target's kind
        assert registry.DATASETS[d].target_kind == D.load(d).spec.target_kind
