"""How the pages write a command: one way everywhere (``.venv/bin/cffair …``, as ``make install`` makes it)."""

from __future__ import annotations

#: How the book writes the project's command line: as run from the checkout after ``make install``
#: (the same on every page, in code blocks, tables and prose).
CLI = ".venv/bin/cffair"


def command(args: str) -> str:
    """A ``cffair`` command as every page writes it (:data:`CLI` and ``args``).

    >>> command("reproduce --only q1 --mode quick")
    '.venv/bin/cffair reproduce --only q1 --mode quick'
    """
    return f"{CLI} {args}"


#: The committed full run's benchmark (``benchmarks/bench_full_run.py``): core-seconds per group.
