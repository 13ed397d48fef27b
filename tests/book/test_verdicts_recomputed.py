"""The claims table checked against an independent recomputation from the raw records.

For the claims that compare two methods fold by fold (Q1.1–Q1.4, Q2.1, Q2.3, Q2.4, A.1, A.2), each verdict is
recomputed here from the committed records with nothing of cffair's statistics or of the book's
claims module: the records are paired by dataset, repetition and fold with plain dictionaries, each
comparison is tested with scipy's t distribution and the corrected resampled variance (Nadeau and
Bengio 2003; Bouckaert and Frank 2004 for repeated cross-validation: the variance of the per-fold
differences times 1/n + 1/4), the comparisons of a claim are corrected together by Holm's step-down
procedure written out below, and the claim's rule (claims.yaml) turns them into a verdict. The
book's verdict (``cffair_book.evaluate_claims``) must be the same wherever the records decide it.
"""

from __future__ import annotations

import json
import math
import os
from pathlib import Path

import pytest
from scipy import stats

ROOT = Path(__file__).resolve().parents[2]
#: The committed records; ``CFFAIR_RESULTS`` points the recomputation at another store (a regeneration's).
RECORDS = Path(os.environ.get("CFFAIR_RESULTS") or ROOT / "results") / "full" / "records"
ALPHA = 0.05

#: Each claim's comparisons, written down from its rule in claims.yaml: (dataset, a, b, metric,
#: the sign of a − b the claim asserts). COMPAS(age) appears only where its subgroups make it differ.
DATASETS = ("adult", "compas", "lawschool")
COMPARISONS: dict[str, list[tuple[str, str, str, str, int]]] = {
    "Q1.1": [(d, "ltn_acc_cf", "ltn_acc", "cf_mse", -1) for d in DATASETS],
    "Q1.2": [(d, "ltn_acc_cf_sg", "ltn_acc_cf", "cf_mse", -1) for d in (*DATASETS, "compas_age")],
    "Q1.3": [(d, "ltn_acc_cf_sg", "ltn_acc_cf", "cf_mse_worst_subgroup", -1) for d in ("compas", "lawschool")],
    "Q1.4": [(d, "ltn_acc_cf_sg", "ltn_acc_cf", "accuracy", +1) for d in ("adult", "compas", "compas_age")],
    "Q2.1": [(d, "ltn_acc_cf", b, "cf_mse", -1) for d in DATASETS for b in ("cnf", "gan", "dcevae")],
    "Q2.3": [("compas", "gan", "ltn_acc_cf", m, +1) for m in ("accuracy", "cf_mse", "cf_mse_worst_subgroup")],
    "Q2.4": [(d, "dcevae", b, "cf_mse", +1) for d in DATASETS for b in ("cnf", "ltn_acc_cf")],
    # appendix A: the LTN trained on the GAN's twins (setting@gan), CF-MSE on the GAN's own twins
    "A.1": [(d, "ltn_acc_cf@gan", "gan", "cf_mse_own", -1) for d in DATASETS],
    "A.2": [
        ("adult", "ltn_acc_cf@gan", "gan", "accuracy", +1),
        ("compas", "ltn_acc_cf@gan", "gan", "accuracy", -1),
        ("lawschool", "ltn_acc_cf@gan", "gan", "mse", -1),  # higher performance: a lower MSE
    ],
}
VERDICT = {1: "holds", -1: "does not hold", 0: "inconclusive"}


def _plain_records() -> dict[tuple[str, str, int, int], dict]:
    """The protocol's records (no option, no tag) by (dataset, setting, repetition, fold): a setting
    trained on the GAN's twins is ``setting@gan``; ``cf_mse_own`` is the CF-MSE on the GAN's own twins.
    A fold trained with several seeds gives the mean of each number over its seeds."""
    out: dict[tuple[str, str, int, int], dict] = {}
    seeds: dict[tuple[str, str, int, int], list[dict]] = {}
    for path in sorted(RECORDS.glob("*.json")):
        r = json.loads(path.read_text(encoding="utf-8"))
        c = r["config"]
        source = c.get("cf_source", "cnf")
        if c.get("options") or c.get("tag") or source not in ("cnf", "gan"):
            continue
        setting = c["setting"] if source == "cnf" else f"{c['setting']}@{source}"
        metrics = dict(r["metrics"])
        own = r.get("metrics_own_counterfactuals") or {}
        if "cf_mse" in own:
            metrics["cf_mse_own"] = own["cf_mse"]
        seeds.setdefault((c["dataset"], setting, int(c.get("repeat") or 0), int(c["fold"])), []).append(metrics)
    for key, runs in seeds.items():  # the training seeds of a fold (the protocol's): their mean, the fold the unit
        names = {m for run in runs for m, v in run.items() if isinstance(v, (int, float)) and not isinstance(v, bool)}
        out[key] = {m: sum(run[m] for run in runs if m in run) / sum(m in run for run in runs) for m in names}
    return out


def corrected_p(diffs: list[float]) -> float:
    """Two-sided p of the corrected resampled t-test over paired folds (5-fold: test/train = 1/4).

    >>> round(corrected_p([0.1, 0.12, 0.09, 0.11, 0.1]), 6) < 0.05
    True
    """
    n = len(diffs)
    mean = sum(diffs) / n
    var = sum((d - mean) ** 2 for d in diffs) / (n - 1)
    if var == 0:
        return 0.0 if mean != 0 else 1.0
    t = mean / math.sqrt((1 / n + 1 / 4) * var)
    return float(2 * stats.t.sf(abs(t), df=n - 1))


def holm_rejected(ps: list[float], alpha: float = ALPHA) -> list[bool]:
    """Holm's step-down procedure: sort the p-values, reject while p₍ᵢ₎ ≤ α / (m − i).

    >>> holm_rejected([0.01, 0.04, 0.03])
    [True, False, False]
    """
    order = sorted(range(len(ps)), key=lambda i: ps[i])
    rejected = [False] * len(ps)
    for rank, i in enumerate(order):
        if ps[i] > alpha / (len(ps) - rank):
            break
        rejected[i] = True
    return rejected


def recompute(claim: str, records: dict) -> str | None:
    """The claim's verdict by its rule, or None when a comparison has fewer than two paired folds."""
    ps, signs = [], []
    for dataset, a, b, metric, claimed in COMPARISONS[claim]:
        pairs = sorted({(rep, fold) for (d, s, rep, fold) in records if d == dataset and s == a})
        diffs = [
            records[(dataset, a, rep, fold)][metric] - records[(dataset, b, rep, fold)][metric]
            for rep, fold in pairs
            if (dataset, b, rep, fold) in records and metric in records[(dataset, a, rep, fold)]
        ]
        if len(diffs) < 2:
            return None
        mean = sum(diffs) / len(diffs)
        ps.append(corrected_p(diffs))
        signs.append(0 if mean == 0 else (1 if (mean > 0) == (claimed > 0) else -1))
    rejected = holm_rejected(ps)
    if any(r and s == -1 for r, s in zip(rejected, signs, strict=True)):
        return VERDICT[-1]
    if all(r and s == 1 for r, s in zip(rejected, signs, strict=True)):
        return VERDICT[1]
    return VERDICT[0]


@pytest.fixture(scope="module")
def book_verdicts() -> dict[str, str]:
    if not any(RECORDS.glob("*.json")):
        pytest.skip("no committed full records")
    import cffair_book as book
    from cffair import reporting

    records = [json.loads(p.read_text(encoding="utf-8")) for p in sorted(RECORDS.glob("*.json"))]
    return {c.key: c.verdict for c in book.evaluate_claims(reporting.paired_folds(records))}


@pytest.mark.parametrize("claim", sorted(COMPARISONS))
def test_the_book_verdict_equals_an_independent_recomputation(claim: str, book_verdicts: dict[str, str]) -> None:
    mine = recompute(claim, _plain_records())
    if mine is None or book_verdicts.get(claim) == "pending":
        pytest.skip(f"the committed records do not decide {claim} yet")
    assert book_verdicts[claim] == mine, f"{claim}: the book says {book_verdicts[claim]}, the recomputation {mine}"


def test_the_recomputation_decides_known_answers() -> None:
    """The recomputation on constructed records: a clear gain holds, a clear loss does not, noise is inconclusive."""
    recs = {}
    for d in DATASETS:
        for f in range(5):
            base = 0.2 + 0.01 * f
            recs[(d, "ltn_acc", 0, f)] = {"cf_mse": base}
            recs[(d, "ltn_acc_cf", 0, f)] = {"cf_mse": base - 0.1 - 0.001 * f}
    assert recompute("Q1.1", recs) == "holds"
    for d in DATASETS:
        for f in range(5):
            recs[(d, "ltn_acc_cf", 0, f)] = {"cf_mse": recs[(d, "ltn_acc", 0, f)]["cf_mse"] + 0.1 + 0.001 * f}
    assert recompute("Q1.1", recs) == "does not hold"
    for d in DATASETS:
        for f in range(5):
            recs[(d, "ltn_acc_cf", 0, f)] = {
                "cf_mse": recs[(d, "ltn_acc", 0, f)]["cf_mse"] + (0.01 if f % 2 else -0.01)
            }
    assert recompute("Q1.1", recs) == "inconclusive"


def test_the_front_pages_results_box_says_the_recomputed_headline_verdicts() -> None:
    """The results box of the front page, built from the book's claims, names each headline claim
    the recomputation decides (Q1.1, Q2.1) with the recomputed verdict."""
    if not any(RECORDS.glob("*.json")):
        pytest.skip("no committed full records")
    import re

    import cffair_book as book
    from cffair import reporting
    from cffair_book import pages

    records = [json.loads(p.read_text(encoding="utf-8")) for p in sorted(RECORDS.glob("*.json"))]
    box = pages.results_box(book.evaluate_claims(reporting.paired_folds(records)), claims_page="claims.html").html
    words = {"holds": None, "does not hold": "does not hold", "inconclusive": "is inconclusive"}
    mine = _plain_records()
    checked = 0
    for key in ("Q1.1", "Q2.1"):
        verdict = recompute(key, mine)
        if verdict is None:
            continue
        line = next(li for li in re.findall(r"<li>(.*?)</li>", box) if f">{key}</a>" in li)
        if words[verdict] is None:
            assert re.search(r"\bholds? here\b", line) and "does not hold" not in line, line
        else:
            assert f">{key}</a> {words[verdict]}" in line, line
        checked += 1
    if not checked:
        pytest.skip("the committed records decide no headline claim yet")


def test_the_recomputation_averages_a_folds_seeds(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Three training seeds of a fold are one fold with their mean, as in the book's tests."""
    for seed, cf in enumerate((0.1, 0.3, 0.5)):
        rec = {
            "config": {"dataset": "compas", "setting": "ltn_acc", "fold": 2, "seed": seed},
            "metrics": {"cf_mse": cf},
        }
        (tmp_path / f"r{seed}.json").write_text(json.dumps(rec), encoding="utf-8")
    monkeypatch.setitem(globals(), "RECORDS", tmp_path)
    assert _plain_records() == {("compas", "ltn_acc", 0, 2): {"cf_mse": pytest.approx(0.3)}}


#: The claims whose notes count runs (a seed is another run), not folds.
_COUNT_RUNS = ("Q3.1", "Q3.2", "Q3.3", "Q3.4")


def test_a_folds_seeds_leave_every_verdict_and_note_as_their_mean_would() -> None:
    """Invariance: every LTN record of the committed COMPAS folds copied twice as seeds 1 and 2 (the
    protocol's three seeds, all equal to the committed one) changes no verdict, and no note but the
    counts of runs: every test and finding reads a fold once, with the mean over its seeds."""
    if not any(RECORDS.glob("*.json")):
        pytest.skip("no committed full records")
    import copy

    import cffair_book as book
    from cffair import reporting

    records = [json.loads(p.read_text(encoding="utf-8")) for p in sorted(RECORDS.glob("full__compas__*.json"))]
    one = reporting.paired_folds([r for r in records if int(r["config"].get("seed") or 0) == 0])
    three = [*one]
    for r in one:
        if r["config"]["setting"].startswith("ltn"):
            for seed in (1, 2):
                three.append(copy.deepcopy(r))
                three[-1]["config"]["seed"] = seed
    a = {c.key: c for c in book.evaluate_claims(one)}
    b = {c.key: c for c in book.evaluate_claims(three)}
    assert a.keys() == b.keys() and any(c.verdict != "pending" for c in a.values())
    for key in a:
        assert a[key].verdict == b[key].verdict, key
        if key not in _COUNT_RUNS:
            assert a[key].note == b[key].note, key
