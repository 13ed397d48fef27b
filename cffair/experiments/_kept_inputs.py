"""The flows and twins a reproduction used, kept beside its records (``<results>/inputs/``).

A flow fitted with one seed gives the same twins on every run on one machine, but not always on
another: floating-point kernels round differently on different CPUs, and the many steps of a
flow's fit can carry a last-bit difference into visibly different twins (in this project, Adult's
and Lawschool's twins refitted on another machine differed while COMPAS's were equal to the bit).
A record is fresh only while the content of its twins is unchanged, so a reproduction resumed on
another machine would recompute every record of such a dataset, and a grid run in parts on two
machines would mix twins.

:func:`cffair.workflows._reproduce.reproduce` therefore keeps, in the results folder, the cached files
of the flows and twins it used (:func:`keep`), and puts them back into the cache before the
next invocation fits anything (:func:`restore`). A file keeps its cache name, a hash of everything
that determines it (the generator's normalised code, the data, the flow settings, the seed,
:mod:`cffair.causal._cache`), so only a run whose code and settings would make that very file
finds it; a run whose generator code changed fits afresh and keeps its own files instead.
Nothing is trusted that the readers do not check: twins are parquet files verified against the
content hash stored in them, flows are read without running code (:mod:`cffair._support.artefacts`).
"""

from __future__ import annotations

import shutil
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from pathlib import Path

from cffair._support.io import atomic_path

__all__ = ["KINDS", "Kept", "keep", "restore"]

#: The cache's sub-folders a reproduction keeps, with their file suffix.
KINDS: Mapping[str, str] = {"flows": ".pt", "counterfactuals": ".parquet"}


@dataclass(frozen=True)
class Kept:
    """What :func:`keep` did: the file names it kept (written or already there) and removed."""

    kept: tuple[str, ...]
    removed: tuple[str, ...]


def _dataset_of(name: str) -> str:
    """The dataset of a cache file name ``{dataset}-{key}.{suffix}``."""
    return name.rsplit("-", 1)[0]


def _copy(src: Path, dst: Path) -> None:
    with atomic_path(dst, what="kept input") as tmp:
        shutil.copyfile(src, tmp)


def restore(store: str | Path, cache: str | Path) -> set[str]:
    """Copy each kept file of ``store`` into ``cache`` where the cache lacks it; the names copied.

    A file already in the cache is left alone: under one name both hold what the same code,
    data and settings make.
    """
    store, cache = Path(store), Path(cache)
    copied: set[str] = set()
    for kind, suffix in KINDS.items():
        folder = store / kind
        if not folder.is_dir():
            continue
        for src in sorted(folder.glob(f"*{suffix}")):
            dst = cache / kind / src.name
            if not dst.exists():
                _copy(src, dst)
                copied.add(f"{kind}/{src.name}")
    return copied


def keep(
    store: str | Path,
    cache: str | Path,
    contents: Mapping[str, Mapping[str, str]],
    *,
    since: float,
    restored: Collection[str] = (),
) -> Kept:
    """Keep in ``store`` the cache files of the run's flows and twins; drop the rest of its datasets'.

    Twins are found by content: a parquet file of a run's dataset is kept when its rows' hash
    (:func:`cffair.experiments._pipeline.counterfactuals.content_hash`) is one of ``contents[dataset]``, the
    hashes :func:`cffair.experiments._pipeline.prepare_inputs` returned; other twins of its datasets (older
    code, other settings) are removed from the store. Flows carry no content hash the grid knows,
    and a flow read from the cache leaves no trace, so a flow is kept when this invocation wrote it
    (modified after ``since``, a ``time.time()``, less two seconds for file systems that store
    coarse times), when :func:`restore` brought it from the store, or when the store already holds
    it; flows are never removed (they are small, and an invocation that found them in its cache
    cannot tell that the twins of another part of the grid did not come from them). Files of
    datasets the run did not touch are left alone.

    Args:
        store: the results folder's ``inputs/``.
        cache: the cache folder the run used (:func:`cffair.causal._cache.cache_dir`).
        contents: ``{dataset: {input name: content hash}}``.
        since: when the invocation started fitting (seconds since the epoch).
        restored: names ``"{kind}/{file}"`` :func:`restore` copied in.
    """
    from cffair.causal._cfset import CounterfactualSet
    from cffair.errors import CounterfactualError
    from cffair.experiments._pipeline.counterfactuals import content_hash

    store, cache = Path(store), Path(cache)
    kept: list[str] = []
    for kind, suffix in KINDS.items():
        for src in sorted((cache / kind).glob(f"*{suffix}")) if (cache / kind).is_dir() else []:
            dataset = _dataset_of(src.name)
            if dataset not in contents:
                continue
            name = f"{kind}/{src.name}"
            if kind == "counterfactuals":
                try:
                    wanted = content_hash(CounterfactualSet.load(src)) in set(contents[dataset].values())
                except CounterfactualError:  # a damaged cache file: the run did not use it
                    wanted = False
            else:
                wanted = src.stat().st_mtime >= since - 2.0 or name in restored or (store / name).exists()
            if wanted:
                kept.append(name)
                if not (store / name).exists():
                    _copy(src, store / name)
    removed = [
        f"{kind}/{f.name}"
        for kind, suffix in KINDS.items()
        for f in (sorted((store / kind).glob(f"*{suffix}")) if (store / kind).is_dir() else [])
        if kind != "flows" and _dataset_of(f.name) in contents and f"{kind}/{f.name}" not in kept
    ]
    for name in removed:
        (store / name).unlink()
    return Kept(tuple(kept), tuple(removed))
