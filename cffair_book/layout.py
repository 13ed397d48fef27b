"""Where the book's files are: the checkout's folders and each question group's page.

The installed library never knows these paths (a wheel has no ``results/``, ``benchmarks/`` or
``notebooks/``); the book package does, because it only ever runs from a checkout. Every
function that reads one of these files takes its path as an argument and defaults to the
constant here.
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["BENCHMARK_RESULTS", "NOTEBOOK_PAGES", "RESULTS", "ROOT"]

#: The checkout's root (the folder that holds ``_config.yml``).
ROOT: Path = Path(__file__).resolve().parents[1]

#: The committed experiment records (``results/full``, ``results/quick``).
RESULTS: Path = ROOT / "results"

#: What ``benchmarks/bench_*.py`` write (``regenerate.json``, ``full_run.json``, ...).
BENCHMARK_RESULTS: Path = ROOT / "benchmarks" / "results"

#: The book's notebook of each question group (file stem under ``notebooks/``) and its link text.
NOTEBOOK_PAGES: dict[str, tuple[str, str]] = {
    "q1": ("q1_counterfactual_fairness", "Q1"),
    "q2": ("q2_baselines", "Q2"),
    "q3": ("q3_knowledge_extraction", "Q3"),
    "q4": ("q4_queries", "Q4"),
    "appendix_a": ("appendix_a_other_counterfactuals", "Appendix A"),
    "appendix_b": ("appendix_b_axiom_weights", "Appendix B"),
}
