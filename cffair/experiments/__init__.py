"""Experiments as data: configs (:mod:`._config`) and the grid (:mod:`._grid`), the results store
(:mod:`._store`) and record fingerprints (:mod:`._fingerprint`).

What runs one fold is :mod:`cffair.experiments._pipeline`; what runs the grid, the notebooks and
``cffair reproduce`` is :mod:`cffair.workflows._reproduce`. Imports run one way: this package ← pipeline ←
reproduce.

The names below are loaded from their modules on first use (``import cffair.experiments._registry`` loads
neither the grid nor torch); type checkers read the imports under ``TYPE_CHECKING``.
"""

from __future__ import annotations

import importlib
import importlib.util
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from cffair.experiments._config import (
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
    from cffair.experiments._fingerprint import (
        SourceTree,
        diff,
        normalised_code,
        package_versions,
    )
    from cffair.experiments._grid import (
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
    from cffair.experiments._pipeline.counterfactuals import ruler_sets
    from cffair.experiments._pipeline.fold import FoldData
    from cffair.experiments._registry import QuestionGroup, extra_baselines, groups, ltn_settings, paper_baselines
    from cffair.experiments._store import (
        Corrupt,
        Record,
        ResultsStore,
        checksum,
        make_record,
    )

#: public name -> the module of this part that defines it
_EXPORTS: dict[str, str] = {
    "CKE_ALL_FOLDS": "_grid",
    "ConfigError": "_config",
    "Corrupt": "_store",
    "ExperimentConfig": "_config",
    "FoldData": "_pipeline.fold",
    "Mode": "_config",
    "OPTIONS": "_config",
    "PRETRAIN_OPTIONS": "_config",
    "PROFILES": "_config",
    "Profile": "_config",
    "QuestionGroup": "_registry",
    "Q2_ADULT": "_grid",
    "Q2_VARIANTS": "_grid",
    "REPEATS": "_grid",
    "Record": "_store",
    "ResultsStore": "_store",
    "STUDIES": "_grid",
    "STUDY_GAN_SEEDS": "_grid",
    "STUDY_LOGICS": "_grid",
    "SourceTree": "_fingerprint",
    "WEIGHT_GRID": "_grid",
    "WEIGHT_GRID_FINE": "_grid",
    "checksum": "_store",
    "diff": "_fingerprint",
    "extra_baselines": "_registry",
    "groups": "_registry",
    "investigation_grid": "_grid",
    "ltn_settings": "_registry",
    "make_record": "_store",
    "normalised_code": "_fingerprint",
    "option_text": "_config",
    "package_versions": "_fingerprint",
    "paper_baselines": "_registry",
    "paper_grid": "_grid",
    "profile": "_config",
    "repeat_grid": "_grid",
    "ruler_sets": "_pipeline.counterfactuals",
    "study_grid": "_grid",
    "with_weights": "_config",
}


def __getattr__(name: str) -> Any:
    """A public name from its module; the registry's lists (``BASELINES``, ``GROUPS`` …) read when asked for
    (:mod:`._config`)."""
    if name in _EXPORTS:
        return getattr(importlib.import_module(f"{__name__}.{_EXPORTS[name]}"), name)
    if (
        importlib.util.find_spec(f"{__name__}.{name}") is not None
    ):  # a submodule (``from cffair.experiments import _registry``)
        return importlib.import_module(f"{__name__}.{name}")
    config = importlib.import_module(f"{__name__}._config")
    if name in config._LIVE:
        return config._LIVE[name]()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "CKE_ALL_FOLDS",
    "ConfigError",
    "Corrupt",
    "ExperimentConfig",
    "FoldData",
    "Mode",
    "OPTIONS",
    "PRETRAIN_OPTIONS",
    "PROFILES",
    "Profile",
    "Q2_ADULT",
    "QuestionGroup",
    "Q2_VARIANTS",
    "REPEATS",
    "Record",
    "ResultsStore",
    "STUDIES",
    "STUDY_GAN_SEEDS",
    "STUDY_LOGICS",
    "SourceTree",
    "WEIGHT_GRID",
    "WEIGHT_GRID_FINE",
    "checksum",
    "diff",
    "extra_baselines",
    "groups",
    "investigation_grid",
    "ltn_settings",
    "make_record",
    "normalised_code",
    "option_text",
    "package_versions",
    "paper_baselines",
    "paper_grid",
    "profile",
    "repeat_grid",
    "ruler_sets",
    "study_grid",
    "with_weights",
]
