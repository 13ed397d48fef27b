"""The tests of the benchmarks' own helpers (see the conftest.py beside this file)."""
