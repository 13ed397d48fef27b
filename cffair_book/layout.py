"""Where the book's files are: the checkout's folders (each question group's page is :mod:`cffair_book.chapters`).

The installed library never knows these paths; the book package does. They exist in a checkout
(an editable install); installed from the wheel (a chapter run on a notebook host) the package has
no ``results/``, ``benchmarks/`` or ``notebooks/`` beside it, and the chapters compute their records
in quick mode instead of reading committed ones. Every function that reads one of these files
takes its path as an argument and defaults to the constant here.
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["BENCHMARK_RESULTS", "RESULTS", "ROOT"]

#: The checkout's root (the folder that holds the book's ``conf.py`` and ``_toc.yml``).
ROOT: Path = Path(__file__).resolve().parents[1]

#: The committed experiment records (``results/full``, ``results/quick``).
RESULTS: Path = ROOT / "results"

#: What ``benchmarks/bench_*.py`` write (``regenerate.json``, ``full_run.json``, ...).
BENCHMARK_RESULTS: Path = ROOT / "benchmarks" / "results"
