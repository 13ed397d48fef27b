"""The book's chapters (cffair_book.chapters): the page of each question group, and running their notebooks."""

from __future__ import annotations

import os

import pytest

from cffair.errors import RegistryError
from cffair.experiments import _config as C
from cffair.experiments import _registry as registry
from cffair_book import chapters, execute


def test_every_question_group_is_shown_by_a_chapter():
    """The library's groups and the book's chapters agree: each group has a notebook, an investigation or
    a study its question's, and each chapter shows a registered question."""
    assert set(chapters.NOTEBOOKS) == set(C.GROUPS)
    for name, g in registry.QUESTION_GROUPS.items():
        assert chapters.notebook_of(name) == chapters.CHAPTERS[g.of or name].notebook
    assert {registry.question_group(g).kind for g in chapters.CHAPTERS} == {"question"}


def test_each_notebook_runs_once_however_many_groups_it_shows(tmp_path, monkeypatch):
    import papermill

    ran = []
    monkeypatch.setattr(papermill, "execute_notebook", lambda src, out, **kw: ran.append(os.path.basename(out)))
    execute.run_notebooks("quick", ["q2", "q2_why", "appendix_b_why"], out_dir=tmp_path)
    assert ran == ["q2_baselines.ipynb", "appendix_b_axiom_weights.ipynb"]
    ran.clear()
    execute.run_notebooks("quick", out_dir=tmp_path)
    assert sorted(ran) == sorted(f"{n}.ipynb" for n in set(chapters.NOTEBOOKS.values()))


def test_a_group_without_a_chapter_runs_no_notebook_and_its_label_says_what_is_missing(tmp_path, monkeypatch):
    import papermill

    ran = []
    monkeypatch.setattr(papermill, "execute_notebook", lambda src, out, **kw: ran.append(os.path.basename(out)))
    with registry.registered(registry.QuestionGroup("q7")):
        assert "q7" not in chapters.NOTEBOOKS
        assert execute.run_notebooks("quick", ["q7"], out_dir=tmp_path) == [] and ran == []
        with pytest.raises(RegistryError, match="'q7' has no chapter; register one"):
            chapters.group_label("q7")


def test_only_a_registered_question_has_a_chapter():
    with pytest.raises(RegistryError, match="unknown question group 'q8'"):
        chapters.register_chapter(chapters.Chapter("q8", "q8_x", "Q8"))
    with pytest.raises(RegistryError, match="'q2_why' is an investigation of 'q2' and is shown in that chapter"):
        chapters.register_chapter(chapters.Chapter("q2_why", "q2_why", "Why"))
    with pytest.raises(RegistryError, match="needs a group, a notebook and a title"):
        chapters.Chapter("q1", "q1_counterfactual_fairness", "")
