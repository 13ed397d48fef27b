"""The runner of each method, typed: what a runner module offers, and the one place that loads it.

A method's runner is a module of :mod:`cffair.experiments._pipeline` named by the registry
(:func:`cffair.experiments._registry.runners`, :data:`cffair.experiments._pipeline.keys.RUNNERS`). It is imported by name,
when a task needs it, so that a record's fingerprint covers only the code its own method runs;
:func:`load_runner` is that import, and the protocols below say what each kind of runner offers,
so that mypy follows the pipeline through it.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Literal, Protocol, cast, overload, runtime_checkable

from cffair.experiments._pipeline.keys import RUNNERS

if TYPE_CHECKING:
    from cffair.causal._cfset import CFPairs
    from cffair.experiments._config import ExperimentConfig
    from cffair.experiments._pipeline.fold import FoldData
    from cffair.experiments._pipeline.stages import StageStore
    from cffair.experiments._store import ResultsStore

__all__ = ["GanRunner", "LtnRunner", "MethodRunner", "RunResult", "load_runner"]

FINGERPRINT_EXEMPT = True  # loads a runner; changes no number

#: ``(metrics, timings, extra fields of the record)``: what a method's run on one fold gives.
RunResult = tuple[dict[str, Any], dict[str, float], dict[str, Any]]


@runtime_checkable
class MethodRunner(Protocol):
    """A baseline's runner (and the GAN's): trains and scores one config on one fold."""

    def run(self, cfg: ExperimentConfig, fd: FoldData) -> RunResult: ...


@runtime_checkable
class GanRunner(MethodRunner, Protocol):
    """The GAN's runner: also the fitted GAN of a fold, whose twins an LTN trains on (appendix A)."""

    def model(self, fd: FoldData, cfg: ExperimentConfig | None = None) -> Any: ...

    def pairs_hash(self, p: CFPairs) -> str: ...


@runtime_checkable
class LtnRunner(Protocol):
    """The LTN's runner: one stage of the LTN on one fold (a task of the task graph)."""

    def run_stage(
        self,
        stage: str,
        target: ExperimentConfig,
        configs: Sequence[ExperimentConfig],
        fd: FoldData,
        store: ResultsStore,
        *,
        contents: dict[str, str],
        fingerprint: Callable[[ExperimentConfig, dict[str, str]], dict[str, Any]],
        stages: StageStore,
        key: Callable[[str, ExperimentConfig], str],
        gan_twins: Callable[[ExperimentConfig], tuple[CFPairs, CFPairs, str]] | None = None,
    ) -> list[dict[str, Any]]: ...


@overload
def load_runner(method: Literal["ltn"]) -> LtnRunner: ...  # type: ignore[overload-overlap]
@overload
def load_runner(method: Literal["gan"]) -> GanRunner: ...
@overload
def load_runner(method: str) -> MethodRunner: ...
def load_runner(method: str) -> LtnRunner | GanRunner | MethodRunner:
    """The runner module of ``method`` (``"ltn"`` for every LTN setting, else the baseline's name).

    Raises:
        KeyError: for a method no runner is registered for.
    """
    return cast("LtnRunner | GanRunner | MethodRunner", importlib.import_module(RUNNERS[method]))
