"""The GAN baseline of Grari et al. (2023) on one fold, and its counterfactuals (appendix A)."""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import numpy as np

from cffair._support.devices import current_device
from cffair._support.utils import seed_everything, stable_hash
from cffair.errors import ParameterError
from cffair.experiments._config import ExperimentConfig
from cffair.experiments._pipeline.fold import FoldData

if TYPE_CHECKING:
    from cffair.baselines._gan import GANBaseline, GANConfig
    from cffair.causal._cfset import CFPairs

__all__ = [
    "GAN_FULL_CHANGES",
    "QUICK_GAN",
    "RELEASED",
    "fit_seeds",
    "gan_config",
    "model",
    "pairs",
    "pairs_hash",
    "run",
    "run_seeds",
]

#: The quick profile's GAN (a few epochs: enough to exercise every path).
QUICK_GAN = {
    "inference_epochs": 2,
    "predictor_epochs": 5,
    "inner_steps": 3,
    "first_epoch_inner_steps": 3,
    "n_cf_samples": 2,
}
#: The full profile's GAN: the paper's settings except these. One latent sample per row in the
#: predictor's penalty (the release: 20) and early stopping of the predictor on a validation
#: split (patience 20, best weights kept): on COMPAS fold 0 this changed accuracy 0.670 → 0.682
#: and CF-MSE 0.028 → 0.017 and cut the predictor from 300 s to 3 s
#: (benchmarks/results/baselines_gan_variants_compas.json); at the paper's settings the GAN
#: alone would take about 11 hours for the 5 folds of the 4 datasets here.
GAN_FULL_CHANGES: dict[str, Any] = {"n_cf_samples": 1, "predictor_patience": 20}

#: Option ``gan_variant="released"``: the two behaviours of the authors' release that the
#: re-implementation changes in counterfactual inference (the deviations table of the Reproducing page).
RELEASED: dict[str, Any] = {"encoder_sees_counterfactual": True, "leak_adversary_grad": True}

_CACHE: dict[tuple, Any] = {}


def gan_config(cfg: ExperimentConfig) -> GANConfig:
    """The GAN baseline's settings for a config's dataset, profile, seed and ``gan_variant`` (a
    dataset the paper does not use gets the batch size of its smaller datasets, 512)."""
    from cffair.baselines._gan import PAPER_BATCH_SIZE, GANConfig, paper_config

    changes = dict(QUICK_GAN if cfg.profile == "quick" else GAN_FULL_CHANGES)
    if cfg.option_map.get("gan_variant") == "released":
        changes.update(RELEASED)
    if cfg.dataset not in PAPER_BATCH_SIZE:
        return GANConfig(batch_size=512, seed=cfg.seed, **changes)
    return paper_config(cfg.dataset, seed=cfg.seed, **changes)


def _key(cfg: ExperimentConfig) -> tuple:
    """The cache key of a (source) GAN config: its fold, seed and settings."""
    return (cfg.dataset, cfg.fold, cfg.profile, cfg.repeat, cfg.n_folds, cfg.seed, gan_config(cfg))


def _keep_fold(key: tuple) -> None:
    """Drop the cached GANs of every other fold than ``key``'s."""
    for k in [k for k in _CACHE if k[:5] != key[:5]]:
        del _CACHE[k]


def model(fd: FoldData, cfg: ExperimentConfig | None = None) -> GANBaseline:
    """The GAN baseline of ``cfg`` (default the fold's config) on this fold, fitted once per process:
    every seed and variant of the fold's GANs is kept until another fold asks for one
    (:func:`fit_seeds` fills the same cache with seeds trained together)."""
    from cffair.baselines._gan import GANBaseline

    cfg = (cfg or fd.config).gan_source
    key = _key(cfg)
    if key not in _CACHE:
        _keep_fold(key)
        seed_everything(cfg.seed)
        _CACHE[key] = GANBaseline(gan_config(cfg), device=current_device()).fit(fd.frame.iloc[fd.train], fd.encoder)
    return _CACHE[key]


def fit_seeds(fd: FoldData, cfgs: Sequence[ExperimentConfig]) -> list[GANBaseline]:
    """The GANs of several configs of this fold, the seeds of one configuration trained together.

    The configs' GANs (:attr:`~cffair.experiments.ExperimentConfig.gan_source`) are grouped by everything but the seed; each group
    of two or more not yet fitted in this process is trained as one stacked network
    (:func:`cffair.baselines.fit_stacked`: each member with its own initialisation,
    batches, noise and Adam state, equal to a single run up to float rounding), a group of one as
    :func:`model` would. The members go into :func:`model`'s cache, so :func:`run` (and the LTN
    trained on a GAN's twins) then finds each one; a member's ``timings_`` hold its share of the
    stacked stage and ``stacked_`` the seeds it was trained with.

    This is the grid's integration point for training seeds together: a task whose configs are the
    seeds of one GAN configuration calls ``fit_seeds(fd, task.configs)`` once, then :func:`run`
    per config, and writes each config's record as usual (its own seed, config and fingerprint).

    Args:
        fd: the fold's data (every config must be of this fold).
        cfgs: the configs (a GAN's, or an LTN's trained on a GAN's twins), in any order.

    Returns:
        The fitted GAN of each config, in the order of ``cfgs``.
    """
    from cffair.baselines._gan_stacked import fit_stacked

    sources = [c.gan_source for c in cfgs]
    groups: dict[tuple, list[ExperimentConfig]] = {}
    for src in sources:
        key = _key(src)
        if key[:5] != _key(fd.config.gan_source)[:5]:
            raise ParameterError(
                f"fit_seeds: {src} is not a config of this fold ({fd.config}); pass one fold's configs."
            )
        if key not in _CACHE and all(_key(o) != key for o in groups.get(_unseeded(key), [])):
            groups.setdefault(_unseeded(key), []).append(src)
    for group in groups.values():
        _keep_fold(_key(group[0]))
        if len(group) == 1:
            model(fd, group[0])
            continue
        seed_everything(group[0].seed)
        members = fit_stacked(
            fd.frame.iloc[fd.train],
            fd.encoder,
            gan_config(group[0]),
            seeds=[c.seed for c in group],
            device=current_device(),
        )
        for c, m in zip(group, members):
            _CACHE[_key(c)] = m
    return [model(fd, src) for src in sources]


def _unseeded(key: tuple) -> tuple:
    """A cache key without its seed (what the seeds of one configuration share)."""
    return (*key[:5], replace(key[6], seed=0))


def pairs(fd: FoldData, test: bool = False, cfg: ExperimentConfig | None = None) -> CFPairs:
    """The GAN's own counterfactual pairs of the training (or test) rows (of ``cfg``'s GAN, default the fold's)."""
    rows = fd.test if test else fd.train
    return fd.pairs(rows, cfset=model(fd, cfg).counterfactuals(fd.frame, rows=rows))


def pairs_hash(p: CFPairs) -> str:
    """Content hash of counterfactual pairs (the GAN's twins, as an LTN input)."""
    return stable_hash(np.asarray(p.row_id).tobytes(), np.ascontiguousarray(p.x_cf).tobytes())


def run(cfg: ExperimentConfig, fd: FoldData) -> tuple[dict[str, Any], dict[str, float], dict[str, Any]]:
    """Fit (or reuse) the fold's GAN and evaluate it on the CNF and on its own test pairs: ``(metrics, timings, extra)``."""
    t0 = time.perf_counter()
    gan = model(fd, cfg)
    fit_time = time.perf_counter() - t0
    extra: dict[str, Any] = {
        "metrics_own_counterfactuals": fd.evaluate(gan.predict_score, pairs(fd, test=True, cfg=cfg)),
        "timings_detail": {k: round(float(v), 2) for k, v in getattr(gan, "timings_", {}).items()},
    }
    stacked = getattr(gan, "stacked_", None)
    if stacked is not None:  # trained with other seeds (fit_seeds): its share of the stacked stage, and with whom
        fit_time = sum(float(v) for v in gan.timings_.values())
        extra["stacked_seeds"] = list(stacked["seeds"])
    return fd.evaluate(gan.predict_score), {"total": round(fit_time, 2)}, extra


def run_seeds(
    cfgs: Sequence[ExperimentConfig], fd: FoldData
) -> list[tuple[dict[str, Any], dict[str, float], dict[str, Any]]]:
    """:func:`run` for each of ``cfgs`` (e.g. the seeds of one GAN configuration on this fold), their
    GANs trained together first (:func:`fit_seeds`): one ``(metrics, timings, extra)`` per config, in order."""
    fit_seeds(fd, cfgs)
    return [run(c, fd) for c in cfgs]
