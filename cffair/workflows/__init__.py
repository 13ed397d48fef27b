"""Workflows: what a command runs from start to end: a user's own data (:mod:`cffair.workflows._own`) and the paper's reproduction (:mod:`cffair.workflows._reproduce`).

Each name below is loaded from its module on first use, so that importing the part stays light and no
import cycle runs through this face; type checkers read the imports under ``TYPE_CHECKING``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from cffair._support.faces import lazy_face

FINGERPRINT_EXEMPT = True  # a face only re-exports: it cannot change a number

if TYPE_CHECKING:
    from cffair.workflows._own import (
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
    from cffair.workflows._own_cost import (
        SECONDS_PER_FOLD,
        estimate_seconds,
        estimate_text,
    )
    from cffair.workflows._own_options import DEFAULT_PATIENCE, RunOptions
    from cffair.workflows._reproduce import (
        Freshness,
        freshness,
        provenance,
        reproduce_steps,
        resolve_mode,
        results_for,
        results_root,
        run_grid,
        status,
        with_parts,
    )

#: public name -> the module of this part that defines it
_EXPORTS: dict[str, str] = {
    "DEFAULT_BASELINES": "_own",
    "DEFAULT_PATIENCE": "_own_options",
    "Freshness": "_reproduce",
    "OwnRun": "_own",
    "Plan": "_own",
    "RunOptions": "_own_options",
    "SAVABLE_SETTINGS": "_own",
    "SECONDS_PER_FOLD": "_own_cost",
    "default_out": "_own",
    "estimate_seconds": "_own_cost",
    "estimate_text": "_own_cost",
    "fit_models": "_own",
    "freshness": "_reproduce",
    "normalise_settings": "_own",
    "plan": "_own",
    "provenance": "_reproduce",
    "reproduce_steps": "_reproduce",
    "resolve_mode": "_reproduce",
    "results_for": "_reproduce",
    "results_root": "_reproduce",
    "run": "_own",
    "run_grid": "_reproduce",
    "status": "_reproduce",
    "with_parts": "_reproduce",
}

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
    "reproduce_steps",
    "results_root",
    "run",
    "run_grid",
    "status",
    "with_parts",
]

__getattr__, __dir__ = lazy_face(__name__, _EXPORTS, __all__)
