"""The pre-registered protocol of the replication, read from ``cffair/data/protocol.yaml``.

One file fixes, before the runs, what the full mode runs and how its verdicts are decided:

* the repeated cross-validation: ``k`` folds and, per dataset, how many partitions
  (:attr:`Protocol.repetitions`);
* the training seeds per fold: how many (:attr:`Protocol.seeds`), for which LTN settings and on which
  datasets each baseline (:meth:`Protocol.seeds_for`); the seeds of a fold are averaged before a
  test (:func:`seed_means`) and their sd is reported beside the sd over folds (:func:`seed_spread`);
* the twins as a design factor: the paper's treatment (for the tables beside the paper) and the sound
  default (for the answer) (:attr:`Protocol.twins`);
* the rules of the verdicts: the test, Holm within a claim, α and how COMPAS(age) counts
  (:attr:`Protocol.rules`).

The grid (:mod:`cffair.experiments._grid`) and the claims engine (:mod:`cffair.reporting._verdicts`)
read it through :func:`protocol`; the Reproducing page names the file and the commit that last changed
it (:func:`protocol_commit`). This module imports neither torch nor the pipeline.

>>> p = protocol()
>>> p.folds, p.seeds, p.twins, p.rules.alpha
(5, 3, ('paper', 'default'), 0.05)
>>> p.seeds_for("ltn_acc_cf", "adult"), p.seeds_for("gan", "adult")
((0, 1, 2), (0,))
"""

from __future__ import annotations

import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from types import MappingProxyType
from typing import Any

import numpy as np
import pandas as pd

from cffair.errors import ProtocolError

__all__ = [
    "PROTOCOL_FILE",
    "Protocol",
    "ProtocolRules",
    "load_protocol",
    "protocol",
    "protocol_commit",
    "seed_means",
    "seed_spread",
]

#: Which configs exist and how verdicts are decided change no record's number.
FINGERPRINT_EXEMPT = True

#: The committed protocol.
PROTOCOL_FILE = Path(__file__).resolve().parents[1] / "data" / "protocol.yaml"
_TESTS = ("corrected", "plain")
_TWINS = ("paper", "default")


@dataclass(frozen=True)
class ProtocolRules:
    """How a claim's verdict is decided.

    Attributes:
        test: ``"corrected"`` (the corrected resampled t-test) or ``"plain"``.
        holm: correct a claim's comparisons together with Holm's procedure.
        alpha: the family-wise level.
        count_shared: count COMPAS(age) everywhere (``False``: only where its subgroups make it differ).
    """

    test: str = "corrected"
    holm: bool = True
    alpha: float = 0.05
    count_shared: bool = False


@dataclass(frozen=True)
class Protocol:
    """The protocol file, checked.

    Attributes:
        folds: k of k-fold cross-validation.
        repetitions: ``{dataset: partitions}`` (a dataset not named runs one, the paper's).
        seeds: training seeds per fold (seeds ``0 .. seeds − 1``; 0 is the paper's single seed).
        ltn_seeded: the LTN settings that run every seed.
        baseline_seeded: ``{baseline: datasets}`` where a baseline runs every seed (elsewhere seed 0).
        within_fold: how a fold's seeds enter a test (``"mean"``).
        twins: the twin treatments the settings that learn from the flow's twins are trained on.
        beside_paper: the treatment of the tables beside the paper.
        answer: the treatment of the answer.
        rules: :class:`ProtocolRules`.
        path: the file it was read from.
    """

    folds: int
    repetitions: Mapping[str, int]
    seeds: int
    ltn_seeded: tuple[str, ...]
    baseline_seeded: Mapping[str, tuple[str, ...]]
    within_fold: str
    twins: tuple[str, ...]
    beside_paper: str
    answer: str
    rules: ProtocolRules = field(default_factory=ProtocolRules)
    path: Path = PROTOCOL_FILE

    def repeats(self, dataset: str) -> int:
        """How many partitions of ``dataset``'s rows the protocol runs (1 if the file does not name it)."""
        return self.repetitions.get(dataset, 1)

    def seeds_for(self, setting: str, dataset: str) -> tuple[int, ...]:
        """The training seeds of ``setting`` on ``dataset``: every seed for a seeded LTN setting or a
        baseline on one of its seeded datasets, else ``(0,)``."""
        every = tuple(range(self.seeds))
        if setting in self.ltn_seeded or dataset in self.baseline_seeded.get(setting, ()):
            return every
        return (0,)


def _need(d: Mapping[str, Any], key: str, where: str) -> Any:
    if not isinstance(d, Mapping) or key not in d:
        raise ProtocolError(f"{where}: the protocol file needs {key!r}; see the committed cffair/data/protocol.yaml.")
    return d[key]


def _whole(value: Any, where: str, low: int = 1) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < low:
        raise ProtocolError(f"{where} must be a whole number >= {low}, got {value!r}.")
    return value


def _names(value: Any, where: str) -> tuple[str, ...]:
    if not isinstance(value, Sequence) or isinstance(value, str) or not all(isinstance(v, str) for v in value):
        raise ProtocolError(f"{where} must be a list of names, got {value!r}.")
    return tuple(value)


def load_protocol(path: str | Path | None = None) -> Protocol:
    """The protocol in ``path`` (default :data:`PROTOCOL_FILE`), checked; a :class:`~cffair.errors.ProtocolError`
    says which entry is wrong and how."""
    import yaml

    p = Path(path) if path is not None else PROTOCOL_FILE
    try:
        raw = yaml.safe_load(p.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ProtocolError(f"cannot read the protocol file {p}: {exc.strerror or exc}.") from None
    except yaml.YAMLError as exc:
        raise ProtocolError(f"the protocol file {p} is not valid YAML: {exc}.") from None
    where = str(p)
    cv, seeds, twins, rules = (_need(raw, k, where) for k in ("cross_validation", "seeds", "twins", "rules"))
    reps = _need(cv, "repetitions", f"{where}: cross_validation")
    if not isinstance(reps, Mapping):
        raise ProtocolError(f"{where}: cross_validation.repetitions must map datasets to counts, got {reps!r}.")
    baselines = _need(seeds, "baselines", f"{where}: seeds")
    if not isinstance(baselines, Mapping):
        raise ProtocolError(f"{where}: seeds.baselines must map baselines to datasets, got {baselines!r}.")
    treatments = _names(_need(twins, "treatments", f"{where}: twins"), f"{where}: twins.treatments")
    for t in (*treatments, twins.get("beside_paper", "paper"), twins.get("answer", "default")):
        if t not in _TWINS:
            raise ProtocolError(f"{where}: twin treatment {t!r} is unknown; the treatments are {', '.join(_TWINS)}.")
    test = _need(rules, "test", f"{where}: rules")
    if test not in _TESTS:
        raise ProtocolError(f"{where}: rules.test must be one of {', '.join(_TESTS)}, got {test!r}.")
    alpha = _need(rules, "alpha", f"{where}: rules")
    if isinstance(alpha, bool) or not isinstance(alpha, (int, float)) or not 0 < alpha < 1:
        raise ProtocolError(f"{where}: rules.alpha must be a number in (0, 1), got {alpha!r}.")
    flags = {k: _need(rules, k, f"{where}: rules") for k in ("holm", "count_shared")}
    for k, v in flags.items():
        if not isinstance(v, bool):
            raise ProtocolError(f"{where}: rules.{k} must be true or false, got {v!r}.")
    within = seeds.get("within_fold", "mean")
    if within != "mean":
        raise ProtocolError(
            f"{where}: seeds.within_fold must be 'mean' (the seeds of a fold averaged), got {within!r}."
        )
    return Protocol(
        folds=_whole(_need(cv, "folds", f"{where}: cross_validation"), f"{where}: cross_validation.folds", 2),
        repetitions=MappingProxyType(
            {str(d): _whole(n, f"{where}: cross_validation.repetitions.{d}") for d, n in reps.items()}
        ),
        seeds=_whole(_need(seeds, "count", f"{where}: seeds"), f"{where}: seeds.count"),
        ltn_seeded=_names(_need(seeds, "ltn", f"{where}: seeds"), f"{where}: seeds.ltn"),
        baseline_seeded=MappingProxyType(
            {str(b): _names(ds, f"{where}: seeds.baselines.{b}") for b, ds in baselines.items()}
        ),
        within_fold=within,
        twins=treatments,
        beside_paper=twins.get("beside_paper", "paper"),
        answer=twins.get("answer", "default"),
        rules=ProtocolRules(test=test, holm=flags["holm"], alpha=float(alpha), count_shared=flags["count_shared"]),
        path=p,
    )


@cache
def protocol() -> Protocol:
    """The committed protocol (:data:`PROTOCOL_FILE`), read once per process."""
    return load_protocol()


def protocol_commit(root: str | Path | None = None, path: str | Path | None = None) -> str | None:
    """The commit that last changed the protocol file (full hash), from git; ``None`` outside a git checkout
    or for a file git does not track."""
    p = Path(path) if path is not None else PROTOCOL_FILE
    cwd = Path(root) if root is not None else p.parent
    try:
        out = subprocess.run(
            ["git", "log", "-1", "--format=%H", "--", str(p)], cwd=cwd, capture_output=True, text=True, check=False
        )
    except OSError:
        return None
    return (out.stdout.strip() or None) if out.returncode == 0 else None


# ---------------------------------------------------------------------------- seeds within a fold
_FOLD = ["dataset", "method", "repeat", "fold"]


def _with_seed(frame: pd.DataFrame) -> pd.DataFrame:
    return frame if "seed" in frame else frame.assign(seed=0)


def seed_means(frame: pd.DataFrame, metric: str) -> pd.Series:
    """``metric`` averaged over the seeds of each fold: the unit of a test (:attr:`Protocol.within_fold`).

    ``frame`` has one row per record (:func:`cffair.reporting.records_frame`: ``dataset, method,
    repeat, fold`` and ``seed``, 0 where absent); a seed whose value is NaN (a collapsed model) is left out
    of its fold's mean, and a fold with no value left is NaN. Indexed by ``(dataset, method, repeat, fold)``.

    >>> f = pd.DataFrame({"dataset": "d", "method": "m", "repeat": 0, "fold": [0, 0, 1, 1],
    ...                   "seed": [0, 1, 0, 1], "cf_mse": [0.1, 0.3, 0.2, float("nan")]})
    >>> seed_means(f, "cf_mse").round(3).tolist()
    [0.2, 0.2]
    """
    f = _with_seed(frame)
    return f.groupby(_FOLD)[metric].mean().rename(metric)


def seed_spread(frame: pd.DataFrame, metric: str) -> pd.DataFrame:
    """The sd over seeds beside the sd over folds, per ``(dataset, method)``.

    Columns: ``folds`` (folds with a value, over every repetition), ``seeds`` (the most seeds a fold has),
    ``mean`` (over the seed-averaged folds), ``fold_sd`` (sd over folds of the seed means: what the test
    sees), ``seed_sd`` (the within-fold sd over seeds, pooled: the root of the mean over folds of each
    fold's variance between its seeds, NaN with one seed) and ``seed_to_fold`` (their ratio).

    >>> f = pd.DataFrame({"dataset": "d", "method": "m", "repeat": 0, "fold": [0, 0, 1, 1],
    ...                   "seed": [0, 1, 0, 1], "cf_mse": [0.1, 0.3, 0.5, 0.7]})
    >>> seed_spread(f, "cf_mse").round(4).iloc[0].tolist()
    [2.0, 2.0, 0.4, 0.2828, 0.1414, 0.5]
    """
    f = _with_seed(frame)
    means = seed_means(f, metric).reset_index()
    within = f.groupby(_FOLD)[metric].agg(["var", "count"]).reset_index()
    rows = []
    for (d, m), fm in means.groupby(["dataset", "method"], sort=False):
        w = within[(within["dataset"] == d) & (within["method"] == m)]
        multi = w[w["count"] > 1]["var"].dropna()
        vals = fm[metric].dropna()
        fold_sd = float(vals.std(ddof=1)) if len(vals) > 1 else float("nan")
        seed_sd = float(np.sqrt(multi.mean())) if len(multi) else float("nan")
        rows.append(
            {
                "dataset": d,
                "method": m,
                "folds": float(len(vals)),
                "seeds": float(w["count"].max()) if len(w) else 0.0,
                "mean": float(vals.mean()) if len(vals) else float("nan"),
                "fold_sd": fold_sd,
                "seed_sd": seed_sd,
                "seed_to_fold": seed_sd / fold_sd if fold_sd else float("nan"),
            }
        )
    return pd.DataFrame(rows).set_index(["dataset", "method"])
