"""Experiments as data: configs (:mod:`.config`) and the grid (:mod:`.grid`), the results store
(:mod:`.store`) and record fingerprints (:mod:`.fingerprint`).

What runs one fold is :mod:`cffair.experiments.pipeline`; what runs the grid, the notebooks and
``cffair reproduce`` is :mod:`cffair.workflows.reproduce`. Imports run one way: this package ← pipeline ←
reproduce.

The names below are loaded from their modules on first use (``import cffair.experiments.registry`` loads
neither the grid nor torch); type checkers read the imports under ``TYPE_CHECKING``.
"""

from __future__ import annotations

import importlib
import importlib.util
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from cffair.experiments.config import (
        OPTIONS,
        PRETRAIN_OPTIONS,
        PROFILES,
        ConfigError,
        ExperimentConfig,
        Mode,
        Profile,
        option_text,
        profile,
        with_weights,
    )
    from cffair.experiments.fingerprint import (
        SourceTree,
        diff,
        normalised_code,
        package_versions,
    )
    from cffair.experiments.grid import (
        CKE_ALL_FOLDS,
        Q2_ADULT,
        Q2_VARIANTS,
        REPEATS,
        STUDIES,
        STUDY_GAN_SEEDS,
        STUDY_LOGICS,
        WEIGHT_GRID,
        WEIGHT_GRID_FINE,
        investigation_grid,
        paper_grid,
        repeat_grid,
        study_grid,
    )
    from cffair.experiments.store import (
        Corrupt,
        Record,
        ResultsStore,
        checksum,
        make_record,
    )

#: public name -> the module of this part that defines it
_EXPORTS: dict[str, str] = {
    "CKE_ALL_FOLDS": "grid",
    "ConfigError": "config",
    "Corrupt": "store",
    "ExperimentConfig": "config",
    "Mode": "config",
    "OPTIONS": "config",
    "PRETRAIN_OPTIONS": "config",
    "PROFILES": "config",
    "Profile": "config",
    "Q2_ADULT": "grid",
    "Q2_VARIANTS": "grid",
    "REPEATS": "grid",
    "Record": "store",
    "ResultsStore": "store",
    "STUDIES": "grid",
    "STUDY_GAN_SEEDS": "grid",
    "STUDY_LOGICS": "grid",
    "SourceTree": "fingerprint",
    "WEIGHT_GRID": "grid",
    "WEIGHT_GRID_FINE": "grid",
    "checksum": "store",
    "diff": "fingerprint",
    "investigation_grid": "grid",
    "make_record": "store",
    "normalised_code": "fingerprint",
    "option_text": "config",
    "package_versions": "fingerprint",
    "paper_grid": "grid",
    "profile": "config",
    "repeat_grid": "grid",
    "study_grid": "grid",
    "with_weights": "config",
}


def __getattr__(name: str) -> Any:
    """A public name from its module; the registry's lists (``BASELINES``, ``GROUPS`` …) read when asked for
    (:mod:`.config`)."""
    if name in _EXPORTS:
        return getattr(importlib.import_module(f"{__name__}.{_EXPORTS[name]}"), name)
    if (
        importlib.util.find_spec(f"{__name__}.{name}") is not None
    ):  # a submodule (``from cffair.experiments import registry``)
        return importlib.import_module(f"{__name__}.{name}")
    config = importlib.import_module(f"{__name__}.config")
    if name in config._LIVE:
        return config._LIVE[name]()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "CKE_ALL_FOLDS",
    "ConfigError",
    "Corrupt",
    "ExperimentConfig",
    "Mode",
    "OPTIONS",
    "PRETRAIN_OPTIONS",
    "PROFILES",
    "Profile",
    "Q2_ADULT",
    "Q2_VARIANTS",
    "REPEATS",
    "ResultsStore",
    "STUDIES",
    "STUDY_GAN_SEEDS",
    "STUDY_LOGICS",
    "SourceTree",
    "WEIGHT_GRID",
    "WEIGHT_GRID_FINE",
    "checksum",
    "diff",
    "investigation_grid",
    "make_record",
    "Record",
    "normalised_code",
    "option_text",
    "package_versions",
    "paper_grid",
    "profile",
    "repeat_grid",
    "study_grid",
    "with_weights",
]
