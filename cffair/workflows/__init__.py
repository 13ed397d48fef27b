"""Workflows: what a command runs from start to end: a user's own data (:mod:`cffair.workflows.own`) and the paper's reproduction (:mod:`cffair.workflows.reproduce`).

Each name below is loaded from its module on first use, so that importing the part stays light and no
import cycle runs through this face; type checkers read the imports under ``TYPE_CHECKING``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from cffair._support.faces import lazy_face

FINGERPRINT_EXEMPT = True  # a face only re-exports: it cannot change a number

if TYPE_CHECKING:
    from cffair.workflows.own import (
        DEFAULT_BASELINES,
        SAVABLE_SETTINGS,
        OwnRun,
        Plan,
        default_out,
        fit_models,
        normalise_settings,
        plan,
        run,
    )
    from cffair.workflows.own_cost import (
        SECONDS_PER_FOLD,
        estimate_seconds,
        estimate_text,
    )
    from cffair.workflows.own_options import DEFAULT_PATIENCE, RunOptions
    from cffair.workflows.reproduce import (
        Freshness,
        freshness,
        provenance,
        resolve_mode,
        results_for,
        results_root,
        run_grid,
        run_notebooks,
        status,
        with_parts,
    )

#: public name -> the module of this part that defines it
_EXPORTS: dict[str, str] = {
    "DEFAULT_BASELINES": "own",
    "DEFAULT_PATIENCE": "own_options",
    "Freshness": "reproduce",
    "OwnRun": "own",
    "Plan": "own",
    "RunOptions": "own_options",
    "SAVABLE_SETTINGS": "own",
    "SECONDS_PER_FOLD": "own_cost",
    "default_out": "own",
    "estimate_seconds": "own_cost",
    "estimate_text": "own_cost",
    "fit_models": "own",
    "freshness": "reproduce",
    "normalise_settings": "own",
    "plan": "own",
    "provenance": "reproduce",
    "resolve_mode": "reproduce",
    "results_for": "reproduce",
    "results_root": "reproduce",
    "run": "own",
    "run_grid": "reproduce",
    "run_notebooks": "reproduce",
    "status": "reproduce",
    "with_parts": "reproduce",
}
_SUBMODULES = ("own", "own_cost", "own_options", "reproduce")

__all__ = [
    "DEFAULT_BASELINES",
    "DEFAULT_PATIENCE",
    "Freshness",
    "OwnRun",
    "Plan",
    "RunOptions",
    "SAVABLE_SETTINGS",
    "SECONDS_PER_FOLD",
    "default_out",
    "estimate_seconds",
    "estimate_text",
    "fit_models",
    "freshness",
    "normalise_settings",
    "plan",
    "provenance",
    "resolve_mode",
    "results_for",
    "results_root",
    "run",
    "run_grid",
    "run_notebooks",
    "status",
    "with_parts",
]

__getattr__, __dir__ = lazy_face(__name__, _EXPORTS, _SUBMODULES, __all__)
