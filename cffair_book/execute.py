"""Running the chapters' notebooks: the step ``cffair reproduce`` runs after the grid.

The book package installs :func:`reproduce_step` as the entry point ``notebooks`` of group
``cffair.reproduce`` (``pyproject.toml``); the library finds it there
(:func:`cffair.workflows.reproduce_steps`) and never imports the book.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from cffair_book.chapters import notebooks
from cffair_book.layout import ROOT

__all__ = ["reproduce_step", "run_notebooks"]


def run_notebooks(
    mode: str, only: Sequence[str] | None = None, out_dir: Path | None = None, *, results: Path | None = None
) -> list[Path]:
    """Execute the chapters' paired notebooks with papermill (parameter ``mode``) into ``out_dir``
    (default ``_build/executed`` of the checkout); each notebook once, whichever groups ask for it.
    ``results``: the results folder the notebooks read (default :func:`cffair_book.results.results_root`)."""
    import jupytext
    import papermill as pm
    from tqdm.auto import tqdm

    from cffair._support.io import ensure_dir, write_text_atomic
    from cffair.workflows._reproduce import pin_results_root

    out_dir = ensure_dir(Path(out_dir or ROOT / "_build" / "executed"), what="folder of executed notebooks")
    wanted = notebooks()
    outs = []
    before = os.environ.get("CFFAIR_RESULTS")
    pin_results_root(results)  # the kernels run in notebooks/: they read the folder named here
    try:
        for name in tqdm(list(dict.fromkeys(wanted[g] for g in only or wanted if g in wanted)), desc="notebooks"):
            src, ipynb = ROOT / "notebooks" / f"{name}.md", out_dir / f"{name}.input.ipynb"
            write_text_atomic(ipynb, jupytext.writes(jupytext.read(src), fmt="ipynb") + "\n", what="notebook")
            out = out_dir / f"{name}.ipynb"
            pm.execute_notebook(
                str(ipynb),
                str(out),
                parameters={"mode": mode},
                cwd=str(src.parent),
                progress_bar=False,
                kernel_name="python3",
            )
            outs.append(out)
    finally:  # the caller's process reads what it read before (a notebook calling reproduce() goes on)
        if before is None:
            os.environ.pop("CFFAIR_RESULTS", None)
        else:
            os.environ["CFFAIR_RESULTS"] = before
    return outs


def reproduce_step(mode: str, only: Sequence[str] | None, root: Path) -> None:
    """The step ``cffair reproduce`` runs after the grid (entry point ``cffair.reproduce: notebooks``):
    the notebooks of the groups asked for, reading the records the run wrote under ``root``."""
    run_notebooks(mode, only, results=root)
