"""Workflows: what a command runs from start to end: a user's own data (:mod:`cffair.workflows.own`) and the paper's reproduction (:mod:`cffair.workflows.reproduce`).

Each name below is loaded from its module on first use, so importing the part stays light and no
import cycle runs through this face.
"""

from __future__ import annotations

import importlib

FINGERPRINT_EXEMPT = True  # a face only re-exports: it cannot change a number

#: public name -> the module of this part that defines it
_EXPORTS: dict[str, str] = {
    "DEFAULT_BASELINES": "own",
    "Freshness": "reproduce",
    "OwnRun": "own",
    "Plan": "own",
    "SAVABLE_SETTINGS": "own",
    "default_out": "own",
    "fit_models": "own",
    "freshness": "reproduce",
    "normalise_settings": "own",
    "plan": "own",
    "provenance": "reproduce",
    "reproduce": "reproduce",
    "resolve_mode": "reproduce",
    "results_for": "reproduce",
    "results_root": "reproduce",
    "run": "own",
    "run_grid": "reproduce",
    "run_notebooks": "reproduce",
    "status": "reproduce",
    "with_parts": "reproduce",
}
_SUBMODULES = ("own", "reproduce")

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> object:
    if name in _EXPORTS:
        return getattr(importlib.import_module(f"{__name__}.{_EXPORTS[name]}"), name)
    if name in _SUBMODULES:
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*__all__, *_SUBMODULES})
