"""Experiments as data: configs (:mod:`.config`) and the grid (:mod:`.grid`), the results store
(:mod:`.store`) and record fingerprints (:mod:`.fingerprint`).

What runs one fold is :mod:`cffair.pipeline`; what runs the grid, the notebooks and
``cffair reproduce`` is :mod:`cffair.reproduce`. Imports run one way: this package ← pipeline ←
reproduce.
"""

from __future__ import annotations

from cffair.experiments import config
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
from cffair.experiments.fingerprint import SourceTree, diff, normalised_code, package_versions
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
from cffair.experiments.store import Corrupt, Record, ResultsStore, checksum, make_record


def __getattr__(name: str) -> tuple[str, ...]:
    """The registry's lists (``BASELINES``, ``GROUPS`` …), read when asked for (:mod:`.config`)."""
    if name in config._LIVE:
        return config._LIVE[name]()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "CKE_ALL_FOLDS",
    "OPTIONS",
    "PRETRAIN_OPTIONS",
    "PROFILES",
    "Q2_ADULT",
    "Q2_VARIANTS",
    "REPEATS",
    "STUDIES",
    "STUDY_GAN_SEEDS",
    "STUDY_LOGICS",
    "WEIGHT_GRID",
    "WEIGHT_GRID_FINE",
    "ConfigError",
    "Corrupt",
    "ExperimentConfig",
    "Mode",
    "Profile",
    "ResultsStore",
    "SourceTree",
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
    *config._LIVE,
]
