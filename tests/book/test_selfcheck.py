"""The exercises' self-checks (``cffair_book.selfcheck``, issue 42 item 5): every exercise of every
chapter has a key; ``check`` accepts the right answer and refuses a wrong one; the keys hold digests,
never the answers; a number is accepted within its tolerance step and refused beyond; the keys read
from the committed records agree with them; every exercise's text (both editions) names its check.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any

import pytest

from cffair.errors import DataError
from cffair_book import selfcheck

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "book" / "_ext"))
import course_kit  # noqa: E402

#: Each exercise's question as its key asks it, the right answer and a wrong one (the right answers
#: live here, in the tests, and as digests in cffair_book/selfcheck.yaml; never in a notebook).
EXERCISES: dict[str, dict[str, Any]] = {
    "LTN.1": dict(
        ask="Does A4 still cost accuracy when direct = 0?",
        kind="choice",
        options=["yes", "no"],
        right="yes",
        wrong="no",
        hint="The twin's savings still change with the group.",
    ),
    "LTN.2": dict(
        ask="With A4's exponent p = 6, is the largest |D(x) - D(x')| smaller or larger than with p = 1?",
        kind="choice",
        options=["smaller", "larger"],
        right="smaller",
        wrong="larger",
    ),
    "LTN.3": dict(
        ask="Which p answers 'is there one?': 1 or 20?",
        kind="choice",
        options=["1", "20"],
        right="20",
        wrong="1",
        hint="Which one is close to the maximum?",
    ),
    "Q1.1": dict(
        ask="Does a larger CF weight reliably lower the worst subgroup's CF-MSE?",
        kind="choice",
        options=["yes", "no"],
        right="no",
        wrong="yes",
        hint="Look at which pairs dominate A4's mean.",
    ),
    "Q1.2": dict(
        ask="Can the CF-MSE of a group the axioms were not trained on be measured?",
        kind="choice",
        options=["yes", "no"],
        right="yes",
        wrong="no",
    ),
    "Q1.3": dict(
        ask="Is the worst subgroup mostly one of the smallest?",
        kind="choice",
        options=["yes", "no"],
        right="yes",
        wrong="no",
    ),
    "Q2.1": dict(
        ask="Is the gap between the two columns due to the predictor or to the generators?",
        kind="choice",
        options=["predictor", "generators"],
        right="generators",
        wrong="predictor",
    ),
    "Q2.2": dict(
        ask="Is a method on the front when another is at least as good on both measures and better on one?",
        kind="choice",
        options=["yes", "no"],
        right="no",
        wrong="yes",
    ),
    "Q2.3": dict(
        ask="The share of LTN(acc)'s CF-MSE on COMPAS, fold 0, that the unaware MLP removes (a fraction)",
        kind="number",
        step=0.01,
        right=None,
        wrong=0.2,
        **{"from": "records"},
    ),
    "Q3.1": dict(
        ask="Can a threshold of 0.05 leave more candidates than 0.01?",
        kind="choice",
        options=["yes", "no"],
        right="no",
        wrong="yes",
    ),
    "Q3.2": dict(
        ask="Does the veto change which axioms are trained?",
        kind="choice",
        options=["yes", "no"],
        right="yes",
        wrong="no",
    ),
    "Q3.3": dict(
        ask="With age as the groups, would CKE turn a large imbalance into an axiom?",
        kind="choice",
        options=["yes", "no"],
        right="yes",
        wrong="no",
    ),
    "Q4.1": dict(
        ask="Can the satisfaction fall when β grows?",
        kind="choice",
        options=["yes", "no"],
        right="no",
        wrong="yes",
        hint="Which part of the body can a larger β make false?",
    ),
    "Q4.2": dict(
        ask="Does a lower satisfaction than everyone's mean less counterfactual fairness for the subgroup?",
        kind="choice",
        options=["yes", "no"],
        right="yes",
        wrong="no",
    ),
    "Q4.3": dict(
        ask="Does a low satisfaction say that the model agrees or disagrees with the rule?",
        kind="choice",
        options=["agrees", "disagrees"],
        right="disagrees",
        wrong="agrees",
    ),
    "A.1": dict(
        ask="On COMPAS: CF-MSE on the CNF pairs minus CF-MSE on the GAN's pairs",
        kind="number",
        step=0.01,
        right=None,
        wrong=0.5,
        **{"from": "records"},
    ),
    "A.2": dict(
        ask="Does a model trained on naive twins usually show a higher CF-MSE on the flow's pairs?",
        kind="choice",
        options=["yes", "no"],
        right="yes",
        wrong="no",
    ),
    "B.1": dict(
        ask="Where does the weight pair (8, 1) sit on the log2(accuracy weight / CF weight) axis?",
        kind="number",
        step=0.05,
        right=3.0,
        wrong=8.0,
    ),
    "B.2": dict(
        ask="Should a larger cf_sg weight move the worst-subgroup CF-MSE lower or higher?",
        kind="choice",
        options=["lower", "higher"],
        right="lower",
        wrong="higher",
    ),
    "C.1": dict(
        ask="Which treatment keeps most rows' education level: the paper's bin midpoint or the default's threshold model?",
        kind="choice",
        options=["paper", "default"],
        right="paper",
        wrong="default",
    ),
    "C.2": dict(
        ask="If the rulers differ but rank the methods the same, are the ratios alike across methods?",
        kind="choice",
        options=["yes", "no"],
        right="yes",
        wrong="no",
    ),
    "C.3": dict(
        ask="Does the paper entry of the rulers repeat the top-level metrics exactly?",
        kind="choice",
        options=["yes", "no"],
        right="yes",
        wrong="no",
    ),
    "Beyond.1": dict(
        ask="With only education and hours as actions, do fewer or more people keep recourse?",
        kind="choice",
        options=["fewer", "more"],
        right="fewer",
        wrong="more",
    ),
    "Beyond.2": dict(
        ask="How many joint twins does a row get with sex, race (5 values) and age in 3 bands?",
        kind="number",
        step=1,
        right=8,
        wrong=4,
        hint="Every attribute must change.",
    ),
    "Beyond.3": dict(ask="Do both gaps close?", kind="choice", options=["yes", "no"], right="yes", wrong="no"),
    "Beyond.4": dict(
        ask="Does the tighter budget end with a larger or a smaller multiplier λ?",
        kind="choice",
        options=["larger", "smaller"],
        right="larger",
        wrong="smaller",
    ),
}

#: Each chapter's exercises, in order (their numbers as the pages give them).
CHAPTERS = {
    "ltn_in_ten_minutes": "LTN",
    "q1_counterfactual_fairness": "Q1",
    "q2_baselines": "Q2",
    "q3_knowledge_extraction": "Q3",
    "q4_queries": "Q4",
    "appendix_a_other_counterfactuals": "A",
    "appendix_b_axiom_weights": "B",
    "appendix_c_rulers": "C",
    "beyond_the_paper": "Beyond",
}


def _right(exercise: str) -> Any:
    e = EXERCISES[exercise]
    return selfcheck.RECORD_ANSWERS[exercise]() if e.get("from") == "records" else e["right"]


def test_every_exercise_has_a_key_and_the_keys_hold_no_answer() -> None:
    keys = selfcheck.keys()
    assert set(keys) == set(EXERCISES)
    text = selfcheck.KEYS_FILE.read_text(encoding="utf-8")
    for ex, key in keys.items():
        assert set(key) <= {"ask", "kind", "options", "digest", "step", "from", "hint"}, ex
        assert len(key["digest"]) == 24 and "right" not in key
    # no record-based number in clear text: neither its value nor its rounded step
    for ex in selfcheck.RECORD_ANSWERS:
        value = _right(ex)
        assert f"{value:.2f}" not in text and f"{value:.3f}" not in text


@pytest.mark.parametrize("exercise", sorted(EXERCISES))
def test_the_check_accepts_the_right_answer_and_refuses_a_wrong_one(exercise: str) -> None:
    right, wrong = _right(exercise), EXERCISES[exercise]["wrong"]
    assert selfcheck.check(exercise, right)
    result = selfcheck.check(exercise, wrong)
    assert not result and repr(result).startswith(f"✘ Exercise {exercise}: not yet")
    shown = repr(result).split("not yet", 1)[1]  # what the line says beyond the verdict: the tolerance and a hint
    assert not isinstance(right, float) or f"{right:.2f}" not in shown
    assert not isinstance(right, str) or f"“{right}”" not in shown and f'"{right}"' not in shown


def test_a_number_is_right_within_its_step_and_wrong_beyond() -> None:
    assert selfcheck.check("B.1", 3.04) and selfcheck.check("B.1", 2.96) and selfcheck.check("B.1", "3")
    assert not selfcheck.check("B.1", 3.2) and not selfcheck.check("B.1", 2.8)
    share = _right("Q2.3")
    assert selfcheck.check("Q2.3", share + 0.009) and not selfcheck.check("Q2.3", share + 0.03)


def test_answers_are_read_forgivingly_and_wrong_forms_are_told() -> None:
    assert selfcheck.check("Q1.2", True) and selfcheck.check("Q1.2", " Yes. ") and selfcheck.check("LTN.3", 20)
    with pytest.raises(DataError, match="Answer one of: yes, no"):
        selfcheck.check("Q1.2", "perhaps")
    with pytest.raises(DataError, match="asks for a number"):
        selfcheck.check("B.1", "three")
    with pytest.raises(DataError, match="no self-check for exercise 'Q9.9'"):
        selfcheck.check("Q9.9", 1)


def test_the_record_keys_agree_with_the_committed_records(tmp_path: Path) -> None:
    copy = tmp_path / "selfcheck.yaml"
    copy.write_text(selfcheck.KEYS_FILE.read_text(encoding="utf-8"), encoding="utf-8")
    before = selfcheck.keys(copy)
    assert selfcheck.write_keys(copy) == {ex: before[ex]["digest"] for ex in selfcheck.RECORD_ANSWERS}, (
        "the committed records changed: run `python -m cffair_book.selfcheck --write`"
    )


@pytest.mark.parametrize("stem", sorted(CHAPTERS))
def test_every_exercise_names_its_check_outside_its_solution(stem: str) -> None:
    text = (ROOT / "notebooks" / f"{stem}.md").read_text(encoding="utf-8")
    section = text.split("## Exercises", 1)[1].split("\n## ", 1)[0]
    student, removed = course_kit.strip_solutions_markdown(section)  # what the student edition ships
    expected = sorted(ex for ex in EXERCISES if ex.split(".")[0] == CHAPTERS[stem])
    assert removed == len(expected)  # the solutions go ...
    for edition in (section, student):  # ... the checks stay, in both editions
        assert sorted(re.findall(r'check\("([\w.]+)"', edition)) == expected
    assert "from cffair_book.selfcheck import check" in text.split("## Exercises", 1)[0]
