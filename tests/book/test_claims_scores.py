"""The co-primary scores as full rulers, every claim decided per score, the headline answer worded by
the verdicts, the robustness table's other worlds, and one basis for the claims table and appendix C."""

from __future__ import annotations

from typing import Any

import pytest

import cffair_book as book
from cffair.errors import ParameterError
from cffair.reporting import _scores as SC
from cffair.reporting import _verdicts as V
from cffair_book import dependence as dep

FOLDS = range(5)
WOBBLE = (0.000, 0.004, -0.003, 0.002, -0.001)
GROUPS = ("African-American", "Caucasian")


def rec(setting: str, fold: int, cf: float, flips: float, worst_flips: float, *, calibrated: float | None = None):
    """A COMPAS record: CF-MSE ``cf`` (its worst subgroup 1.5 ×), flip rate ``flips`` with the second
    subgroup at ``worst_flips``, and (when given) the calibrated CF-MSE."""
    metrics: dict[str, Any] = {
        "accuracy": 0.7 + WOBBLE[fold],
        "cf_mse": cf + WOBBLE[fold] / 10,
        "cf_mse_by_subgroup": {GROUPS[0]: cf, GROUPS[1]: 1.5 * cf},
        "cf_mse_worst_subgroup": 1.5 * cf + WOBBLE[fold] / 10,
        "worst_subgroup": GROUPS[1],
        "cf_flip_rate": flips + WOBBLE[fold] / 10,
        "cf_flip_rate_by_subgroup": {GROUPS[0]: flips / 2, GROUPS[1]: worst_flips + WOBBLE[fold] / 10},
    }
    if calibrated is not None:
        metrics["calibrated_cf_mse"] = calibrated + WOBBLE[fold] / 10
    cfg = {"dataset": "compas", "fold": fold, "setting": setting, "profile": "full", "cf_source": "cnf", "seed": 0}
    cfg["weights"] = {"acc": 1.0, "cf": 1.0, "cf_sg": 1.0, "cke": 1.0}
    return {"config": cfg, "metrics": metrics}


#: Per method: CF-MSE, flip rate, worst-subgroup flip rate. On CF-MSE the LTN(acc+CF) is less fair than
#: CNF and the GAN (soft baselines: small squared moves); in flips it is fairer than both.
MEANS = {
    "ltn_acc": (0.30, 0.30, 0.40),
    "ltn_acc_cf": (0.10, 0.02, 0.03),
    "ltn_acc_cf_sg": (0.08, 0.01, 0.01),
    "cnf": (0.05, 0.10, 0.15),
    "gan": (0.02, 0.08, 0.20),
    "dcevae": (0.20, 0.20, 0.30),
}


def records(calibrated: bool = False) -> list[dict[str, Any]]:
    return [rec(s, f, *m, calibrated=(m[0] / 2 if calibrated else None)) for s, m in MEANS.items() for f in FOLDS]


# ---------------------------------------------------------------------------- the scores as rulers
def test_the_flip_rate_replaces_the_worst_subgroup_too_never_a_cf_mse_relabelled():
    scored = SC.score_records(records(), "cf_flip_rate")
    m = scored[0]["metrics"]
    assert m["cf_mse"] == pytest.approx(0.30) and m["cf_mse_worst_subgroup"] == pytest.approx(0.40)
    assert m["worst_subgroup"] == GROUPS[1] and m["cf_mse_by_subgroup"][GROUPS[0]] == pytest.approx(0.15)
    assert SC.score_records(records(), "cf_mse") == records()
    assert SC.score_records(records(calibrated=False), "calibrated_cf_mse") == []  # no record has it
    with pytest.raises(ParameterError, match="unknown score 'cf_auc'; the scores are"):
        SC.score_records(records(), "cf_auc")


def test_q1_3_in_flips_reads_the_flip_rate_of_the_worst_subgroup():
    # the worst subgroup's CF-MSE: acc+CF_sg 0.12 < acc+CF 0.15; in flips 0.01 < 0.03: both lower, different numbers
    flips = {c.key: c for c in book.score_verdicts(records())["cf_flip_rate"]}
    assert "0.030 → 0.010" in flips["Q1.3"].note and "0.150 → 0.120" not in flips["Q1.3"].note


def test_a_score_without_per_subgroup_values_leaves_the_worst_subgroup_unmeasured():
    by = book.score_verdicts(records(calibrated=True))
    cal = {c.key: c for c in by["calibrated_cf_mse"]}
    assert cal["Q1.3"].verdict == V.PENDING and "not measured on this score" in cal["Q1.3"].note
    assert "worst-subgroup" not in " ".join(cal["Q2.3"].against) and "not measured" in cal["Q2.3"].note
    assert cal["Q1.1"].verdict == V.HOLDS  # the overall calibrated CF-MSE is there: 0.15 → 0.05


def test_every_claim_gets_a_verdict_per_score_and_the_headline_depends_on_the_score():
    frame = book.score_claims(records(calibrated=True))
    q21 = frame.set_index("key").loc["Q2.1"]
    assert q21["CF-MSE"] == book.claim_status(V.FAILS) and q21["flip rate"] != q21["CF-MSE"] and not q21["same"]
    assert frame.set_index("key").loc["Q1.1", "same"]  # lower on every score
    words = book.headline_answer(book.score_verdicts(records(calibrated=True)))
    assert (
        "On scores (CF-MSE) it does not hold: the LTN is fairer than DCEVAE on COMPAS, and less fair than CNF and GAN "
        "on COMPAS" in words
    )
    assert "On decisions (flip rate)" in words and "the LTN is fairer than CNF, GAN and DCEVAE on COMPAS" in words
    assert words.endswith("The answer depends on the score.")


def test_the_headline_words_follow_each_branch_of_the_verdicts():
    def claim(verdict, supports=(), against=()):
        return [book.Claim("x", key="Q2.1", verdict=verdict, supports=supports, against=against)]

    same = book.headline_answer({"cf_mse": claim(V.INCONCLUSIVE), "cf_flip_rate": claim(V.INCONCLUSIVE)})
    assert "no comparison with a baseline is significant either way" in same
    assert same.endswith("Every score gives the same verdict: inconclusive.")
    both = book.headline_answer({"cf_flip_rate": claim(V.FAILS, ("CNF on COMPAS",), ("GAN on Adult",))})
    assert "fairer than CNF on COMPAS, and less fair than GAN on Adult" in both and "same verdict" not in both
    held = book.headline_answer({"cf_mse": claim(V.HOLDS, ("CNF on COMPAS",))})
    assert "it holds: the LTN is fairer than CNF on COMPAS, and no baseline is significantly fairer" in held
    with pytest.raises(Exception, match="no score has a verdict"):
        book.headline_answer({"cf_mse": claim(V.PENDING)})


# ---------------------------------------------------------------------------- robustness worlds
def test_the_robustness_table_gains_the_scores_and_the_twins():
    cols = book.robustness_columns()
    names = [c[0] for c in cols]
    assert names[: len(book.ROBUSTNESS_RULES)] == [n for n, _ in book.ROBUSTNESS_RULES]
    assert any("flip rate" in n for n in names) and any("sound twins" in n for n in names)
    frame = book.robustness_frame(records(), cols).set_index("key")
    flip = next(n for n in names if "flip rate" in n)
    book_rules = "corrected t-test, Holm (the verdict)"
    assert frame.loc["Q2.1", book_rules] == V.FAILS and frame.loc["Q2.1", flip] != V.FAILS
    assert not frame.loc["Q2.1", "same"]
    twins = next(n for n in names if "sound twins" in n)
    assert frame.loc["Q1.1", twins] == V.PENDING and frame.loc["Q1.1", "same"]  # no twins records: left out


# ---------------------------------------------------------------------------- one basis
def test_the_factor_tables_base_is_the_claims_tables_verdict_on_constructed_records():
    recs = records()
    table = {c.key: c.verdict for c in book.evaluate_claims(recs)}
    frame = dep.dependence_frame(recs)
    for r in frame.itertuples():
        assert r.base == table[r.claim], r
    flips = frame[(frame["level"] == "cf_flip_rate") & (frame["claim"] == "Q2.1")].iloc[0]
    assert flips["same_folds"] == V.FAILS and flips["verdict"] != V.FAILS and flips["folds"] == "all folds"


@pytest.fixture(scope="module")
def committed() -> dict[str, Any]:
    """The committed records as the book reads them (stale, but readable): the claims table's and appendix C's."""
    try:
        plain = book.claim_records("render")
        study = book.claim_records("render", also=["appendix_c", "appendix_c_studies"], missing_ok=True)
    except FileNotFoundError:
        pytest.skip("no committed full records")
    return {"plain": plain, "study": study, "claims": book.evaluate_claims(plain)}


def test_the_factor_tables_base_column_equals_the_claims_table_on_the_committed_records(committed):
    table = {c.key: c.verdict for c in committed["claims"]}
    rulers = [lv for lv in dep.DEPENDENCE_LEVELS if lv.factor == "ruler" and lv.name == "default"]
    frame = dep.dependence_frame(committed["study"], levels=rulers)
    assert len(frame) == len(dep.HEADLINE_CLAIMS)
    for r in frame.itertuples():
        assert r.base == table[r.claim], (r.claim, r.base, table[r.claim])
    # the default flow covers every fold the claims table reads: its "same folds" is the table's verdict too
    acts = frame[frame["verdict"] != dep.NOT_APPLICABLE]
    assert (acts["folds"] == "all folds").all() and (acts["same_folds"] == acts["base"]).all()


def test_appendix_cs_ruler_claims_on_the_papers_flow_equal_the_claims_table_on_the_committed_records(committed):
    table = {c.key: book.claim_status(c.verdict) for c in committed["claims"]}
    rulers = book.ruler_claims(book.claim_records("render", ["appendix_c"])).set_index("key")
    default = dep.dependence_frame(committed["study"], levels=[dep.DEPENDENCE_LEVELS[0]]).set_index("claim")
    for key, row in rulers.iterrows():
        assert row["paper's flow"] == table[key], key
        # the ruler table and the factor table read the default flow on the same folds: one verdict
        assert row["default flow"] == book.claim_status(default.loc[key, "verdict"]), key


def test_the_committed_claim_notes_contradict_no_direction_word(committed):
    found = [(c.key, x) for c in committed["claims"] for x in book.contradictions(c.note)]
    assert not found, found
