"""The exercises' self-checks: ``book.check("Q2.3", answer)`` in a chapter's notebook says whether
an answer is right without showing the right one.

Each exercise of the book has one key in ``selfcheck.yaml``: what to answer (``ask``), in which form
(``kind``: ``choice`` among ``options``, or ``number`` within a tolerance ``step``), and a salted
SHA-256 digest of the right answer, never the answer itself. A number is quantised to its step
before hashing, and an answer within one step either side of the right one is accepted, so the
tolerance band is checked without being stored in clear text. The keys of answers read from the
committed records (``from: records``) are computed from those records by :data:`RECORD_ANSWERS`
and written by ``python -m cffair_book.selfcheck --write``; ``tests/book/test_selfcheck.py`` fails when
the records and the keys no longer agree, and checks a right and a wrong answer of every exercise.

The check is part of the exercise's text, so it is in both editions; the student edition removes the
solutions only.
"""

from __future__ import annotations

import hashlib
import math
import re
import sys
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

from cffair.errors import DataError

if TYPE_CHECKING:
    from cffair.experiments import Record

__all__ = ["KEYS_FILE", "RECORD_ANSWERS", "Result", "check", "digest", "keys", "number_digest", "write_keys"]

#: Where the keys are (shipped with the package, beside ``claims.yaml``).
KEYS_FILE = Path(__file__).with_name("selfcheck.yaml")
_SALT = "cffair-selfcheck-1"
_YES = {"yes", "y", "true", "1"}
_NO = {"no", "n", "false", "0"}


def _normal(answer: Any) -> str:
    """An answer as the key hashes it: yes/no for booleans and their spellings, lower case with
    single spaces for text (quotes and a final full stop dropped), sorted items for a collection."""
    if isinstance(answer, bool):
        return "yes" if answer else "no"
    if isinstance(answer, (int, float)) and not isinstance(answer, bool):
        return f"{answer:g}"
    if isinstance(answer, str):
        text = re.sub(r"\s+", " ", answer.strip().strip("\"'“”").rstrip(".").lower())
        return "yes" if text in _YES else "no" if text in _NO else text
    if isinstance(answer, Mapping):
        return ";".join(sorted(f"{_normal(k)}={_normal(v)}" for k, v in answer.items()))
    if isinstance(answer, Iterable):
        return ",".join(sorted(_normal(a) for a in answer))
    raise DataError(f"an answer of type {type(answer).__name__} cannot be checked; give a number, a word or a list.")


def digest(exercise: str, answer: Any) -> str:
    """The salted digest of one answer to ``exercise`` (what a key stores instead of the answer)."""
    return hashlib.sha256(f"{_SALT}|{exercise}|{_normal(answer)}".encode()).hexdigest()[:24]


def number_digest(exercise: str, value: float, step: float) -> str:
    """The digest of a number quantised to ``step`` (``round(value / step)``)."""
    return digest(exercise, int(round(value / step)))


@dataclass(frozen=True)
class Result:
    """What :func:`check` found: ``right``, and the line it shows."""

    exercise: str
    right: bool
    message: str

    def __bool__(self) -> bool:
        return self.right

    def _repr_html_(self) -> str:
        colour = "cffair-holds" if self.right else "cffair-fails"
        return f'<p class="{colour}">{self.message}</p>'

    def __repr__(self) -> str:
        return self.message


def keys(path: str | Path | None = None) -> dict[str, dict[str, Any]]:
    """Every exercise's key, by its number ("Q2.3", "LTN.1", "Beyond.2").

    Raises:
        DataError: if the file is missing or a key lacks its kind or digest.
    """
    file = Path(path) if path is not None else KEYS_FILE
    try:
        data = yaml.safe_load(file.read_text(encoding="utf-8")) or {}
    except FileNotFoundError:
        raise DataError(f"{file} does not exist; it ships with cffair_book (reinstall the package).") from None
    for ex, key in data.items():
        if key.get("kind") not in ("choice", "number") or not key.get("digest"):
            raise DataError(f"{file}: the key of exercise {ex} needs kind (choice or number) and digest.")
    return data


def check(exercise: str, answer: Any, *, path: str | Path | None = None) -> Result:
    """Whether ``answer`` is right for ``exercise``, shown as one line (✔ or ✘ and what was asked).

    ``answer``: for a ``choice`` one of the key's options (yes/no also as True/False); for a
    ``number`` a number, right within one tolerance step either side.

    Raises:
        DataError: for an exercise without a key (naming those there are), or an answer of the wrong form.
    """
    all_keys = keys(path)
    key = all_keys.get(str(exercise))
    if key is None:
        raise DataError(f"no self-check for exercise {exercise!r}; the exercises with one are {', '.join(all_keys)}.")
    ask = key.get("ask", "")
    if key["kind"] == "number":
        try:
            value = float(answer)
        except (TypeError, ValueError):
            raise DataError(f"exercise {exercise} asks for a number ({ask}); got {answer!r}.") from None
        if not math.isfinite(value):
            raise DataError(f"exercise {exercise} asks for a finite number; got {answer!r}.")
        step = float(key["step"])
        n = int(round(value / step))
        right = any(digest(exercise, n + k) == key["digest"] for k in (-1, 0, 1))
        tolerance = f" (accepted within ±{step:g})"
    else:
        options = [_normal(o) for o in key.get("options", [])]
        if options and _normal(answer) not in options:
            raise DataError(
                f"exercise {exercise} asks: {ask} Answer one of: {', '.join(map(str, key['options']))}; got {answer!r}."
            )
        right = digest(exercise, answer) == key["digest"]
        tolerance = ""
    where = " (the key reads the committed records: run with mode = 'render')" if key.get("from") == "records" else ""
    if right:
        return Result(str(exercise), True, f"✔ Exercise {exercise}: right{tolerance}.")
    hint = f" {key['hint']}" if key.get("hint") else ""
    return Result(str(exercise), False, f"✘ Exercise {exercise}: not yet{tolerance}{where}.{hint}")


# ---------------------------------------------------------------------------- keys read from the records
def _render_records(groups: list[str]) -> list[Record]:
    from cffair_book.results import results_for

    return results_for("render", groups)


def _q2_unaware_share() -> float:
    """Q2.3: the share of LTN(acc)'s CF-MSE on COMPAS's fold 0 that dropping the column removes."""
    from cffair import reporting

    frame = reporting.records_frame(_render_records(["q2"]))
    fold0 = frame[(frame["fold"] == 0) & (frame["repeat"] == 0) & (frame["dataset"] == "compas")]
    cf = fold0.groupby("method")["cf_mse"].mean()
    return float(1 - cf["unaware"] / cf["ltn_acc"])


def _a_gap() -> float:
    """A.1: on COMPAS, LTN(acc+CF) trained on the GAN's twins: CF-MSE on the CNF pairs minus on the GAN's."""
    from cffair import reporting

    recs = _render_records(["appendix_a"])
    own = reporting.records_frame(recs, own_counterfactuals=True)
    cnf = reporting.records_frame(recs)
    pick = lambda f: f[(f["method"] == "ltn_acc_cf@gan") & (f["dataset"] == "compas") & (f["repeat"] == 0)]  # noqa: E731
    return float(pick(cnf)["cf_mse"].mean() - pick(own)["cf_mse"].mean())


#: The answers read from the committed records, by exercise: each a function of no argument.
RECORD_ANSWERS: dict[str, Callable[[], float]] = {"Q2.3": _q2_unaware_share, "A.1": _a_gap}


def write_keys(path: str | Path | None = None) -> dict[str, str]:
    """Recompute the digests of :data:`RECORD_ANSWERS` from the committed records and write them into
    the keys file; returns the new digests."""
    file = Path(path) if path is not None else KEYS_FILE
    text = file.read_text(encoding="utf-8")
    data = keys(file)
    new = {}
    for ex, answer in RECORD_ANSWERS.items():
        new[ex] = number_digest(ex, answer(), float(data[ex]["step"]))
        text = text.replace(data[ex]["digest"], new[ex])
    file.write_text(text, encoding="utf-8")
    return new


if __name__ == "__main__":  # python -m cffair_book.selfcheck --write
    if sys.argv[1:] != ["--write"]:
        sys.exit("usage: python -m cffair_book.selfcheck --write")
    print(write_keys())
