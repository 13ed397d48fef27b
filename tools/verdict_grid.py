"""Every claim's verdict on each co-primary score and on both twin treatments: issue 44's table
claim × score × twins, for a closing note or a reviewer.

    python tools/verdict_grid.py [--claims Q1.2 Q2.1] [--json grid.json]

Reads the verdicts' own records (:func:`cffair_book.claims.claim_records` with appendix C's studies, in
render mode: nothing is computed) and decides every claim in six worlds: the **paper's twins** (the
claims table's records: the methods that learn from the flow's twins trained and scored on the twins of
the paper's treatment) and the **sound twins** (appendix C's twins level,
:func:`cffair_book.dependence.factor_world`: those methods trained and scored on the sound default
twins, every other method scored on them), each on CF-MSE, the flip rate and the calibrated CF-MSE
(:func:`cffair_book.score_claims.score_verdicts`: the score in CF-MSE's place, overall and worst
subgroup). A cell shows the verdict's symbol and the p-values its note prints, in the note's order
(one per comparison; the sign-flip companion and the detectable difference are left out).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from cffair.reporting import SCORES  # noqa: E402
from cffair.reporting._verdicts import FAILS, HOLDS, INCONCLUSIVE, PENDING, VACUOUS  # noqa: E402

#: The twin treatments, in the table's order: the claims table's records, then appendix C's twins level.
TWINS = ("paper", "sound")
SYMBOL = {HOLDS: "✔", FAILS: "✘", INCONCLUSIVE: "≈", VACUOUS: "∅", PENDING: "…"}
_P = re.compile(r"(?<![\w-])p (< 0\.001|\d\.\d{3}|—)")


def p_values(note: str) -> list[str]:
    """The comparisons' p-values a claim's note prints, in order (not the sign-flip companion's).

    >>> p_values("COMPAS 0.052 vs 0.061 (p 0.045, sign-flip over 3 partitions 0.250); Adult (p < 0.001)")
    ['0.045', '< 0.001']
    """
    return [m.group(1) for m in _P.finditer(note)]


def worlds(records: Sequence[Mapping[str, Any]]) -> dict[str, Sequence[Mapping[str, Any]]]:
    """``{twins: records}``: the claims table's records and the same read on the sound twins."""
    from cffair_book.dependence import DEPENDENCE_LEVELS, factor_world

    sound = next(lv for lv in DEPENDENCE_LEVELS if lv.factor == "twins" and lv.name == "default")
    return {"paper": records, "sound": factor_world(records, sound)}


def verdict_grid(records: Sequence[Mapping[str, Any]], claims: Sequence[str] | None = None) -> pd.DataFrame:
    """One row per claim, twin treatment and score: ``claim, twins, score, verdict, p`` (``p`` the
    note's p-values, :func:`p_values`), ``note``. A treatment without records gives no rows."""
    from cffair_book.score_claims import score_verdicts

    rows = []
    for twins, recs in worlds(records).items():
        if not recs:
            continue
        for key, decided in score_verdicts(recs).items():
            for c in decided:
                if claims is None or c.key in claims:
                    rows.append(
                        {
                            "claim": c.key,
                            "twins": twins,
                            "score": SCORES[key].label,
                            "verdict": c.verdict,
                            "p": p_values(c.note),
                            "note": c.note,
                        }
                    )
    return pd.DataFrame(rows, columns=["claim", "twins", "score", "verdict", "p", "note"])


def markdown(grid: pd.DataFrame) -> str:
    """The grid as a Markdown table: a row per claim, a column per (twins, score), a cell the verdict's
    symbol and its p-values."""
    cell = grid.assign(cell=[f"{SYMBOL.get(v, v)} {', '.join(p)}".strip() for v, p in zip(grid.verdict, grid.p)])
    wide = cell.pivot(index="claim", columns=["twins", "score"], values="cell")
    order = [(t, SCORES[k].label) for t in TWINS for k in SCORES if (t, SCORES[k].label) in wide.columns]
    wide = wide.reindex(columns=order, index=list(dict.fromkeys(grid.claim)))
    head = "| claim | " + " | ".join(f"{t} twins, {s}" for t, s in order) + " |"
    lines = [head, "|" + "---|" * (len(order) + 1)]
    lines += [f"| {k} | " + " | ".join(str(v) for v in row) + " |" for k, row in wide.fillna("").iterrows()]
    legend = ", ".join(f"{s} {v}" for v, s in SYMBOL.items())
    return "\n".join(lines) + (
        f"\n\n{legend} (no records for that world in the store: still to compute, or not in the protocol); "
        "p: each comparison's corrected p-value, in the note's order."
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--claims", nargs="+", help="only these claims (default: every claim)")
    parser.add_argument("--json", type=Path, help="also write the grid, notes included, to this file")
    args = parser.parse_args(argv)
    import cffair_book as book

    records = book.claim_records("render", ["appendix_c_studies"], missing_ok=True)
    grid = verdict_grid(records, args.claims)
    print(markdown(grid))
    if args.json:
        args.json.write_text(json.dumps(grid.to_dict(orient="records"), indent=1, ensure_ascii=False) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
