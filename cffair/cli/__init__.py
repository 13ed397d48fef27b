"""The ``cffair`` command line: ``cffair data|counterfactuals|train|query|cke|reproduce|results|run|audit|fit|predict|twins|study``.

One module per command group, each adding its sub-commands through ``register(subparsers)``;
this module only assembles them (:func:`build_parser`) and runs one (:func:`main`).

Errors: a user's mistake (a bad option, a missing or malformed file, data that does not match
its spec) or a fault of the environment (a read-only or full disk, no permission, a file where a
folder should be: :class:`~cffair.errors.StorageError`) prints one line ``cffair: error: ...``
on stderr, naming the path and the fix, and exits with status 2, never a traceback; options are checked while they are parsed (:mod:`cffair.cli._options`), before any
work starts. So is every file a command will write (the outputs it declares,
:func:`cffair.cli._common.check_outputs`): an empty path, a folder, a device such as ``/dev/null``
(``-`` prints a table instead), or one of the command's own input files is refused at once. Set ``CFFAIR_DEBUG=1`` to see the traceback of such an error. Warnings print as one
line ``cffair: warning: ...``.
"""

from __future__ import annotations

__all__ = ["COMMAND_MODULES", "build_parser", "main"]

import argparse
import errno
import importlib
import os
import sys
import warnings
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType
from typing import Any, NoReturn

from cffair.errors import UsageError

#: Modules that add sub-commands (each has ``register(subparsers)``); for a tuple, the first
#: of its modules that exists and has ``register`` is used.
COMMAND_MODULES: tuple[str | tuple[str, ...], ...] = (
    "cffair.cli._data",  # data describe
    "cffair.cli._counterfactuals",  # counterfactuals generate
    "cffair.cli._train",  # train, query, cke
    "cffair.cli._recourse",  # recourse
    ("cffair.cli._reproduce", "cffair.experiments"),  # reproduce, results
    "cffair.cli._run",  # run (your own data, end to end)
    "cffair.cli._audit",  # audit (a model trained elsewhere)
    "cffair.cli._model",  # fit, predict, twins (a self-contained model)
    "cffair.cli._study",  # study baseline-gap (appendix C)
)


class _Parser(argparse.ArgumentParser):
    """An argument parser whose errors are exceptions, so that :func:`main` prints them as one
    line (argparse itself prints the usage and exits)."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{message} (see `{self.prog} --help`)")


def _import_first(names: str | tuple[str, ...]) -> ModuleType | None:
    """The first of ``names`` that exists and has ``register`` (None if none does)."""
    for name in (names,) if isinstance(names, str) else names:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:  # this command group is not in this checkout
            if exc.name != name:
                raise
            continue
        if hasattr(module, "register"):
            return module
    return None


def build_parser() -> argparse.ArgumentParser:
    """The ``cffair`` argument parser with every command group of :data:`COMMAND_MODULES`."""
    parser = _Parser(
        prog="cffair", description="cffair: counterfactual fairness with Logic Tensor Networks (Heilmann et al.)."
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for names in COMMAND_MODULES:
        module = _import_first(names)
        if module is not None:
            module.register(sub)
    return parser


def _one_line(text: object) -> str:
    """``text`` on one line: its lines stripped and joined with "; "."""
    return "; ".join(line.strip() for line in str(text).splitlines() if line.strip())


def _user_error_types() -> tuple[type[BaseException], ...]:
    import yaml

    from cffair.errors import CffairError

    # OSError: a read-only or full disk, a file in the way, ... (what the environment did, not a bug)
    return (CffairError, ValueError, OSError, yaml.YAMLError)


def _message(exc: BaseException) -> str:
    """One line saying what went wrong, for an error the user can fix."""
    import yaml

    from cffair.errors import CffairError, StorageError

    if isinstance(exc, StorageError):
        return _one_line(exc) + _cache_hint(exc.path, str(exc))
    if isinstance(exc, CffairError):
        return _one_line(exc)
    if isinstance(exc, UnicodeDecodeError):
        return (
            f"a file is not UTF-8 text ({exc.reason} at byte {exc.start}: {exc.object[exc.start : exc.end]!r}); "
            "save it as UTF-8 and try again"
        )
    if isinstance(exc, OSError) and exc.filename is not None:
        from cffair._support.io import storage_error

        err = storage_error(exc, exc.filename) if exc.errno not in (errno.ENOENT, None) else None
        return _message(err) if err is not None else f"{exc.filename}: {exc.strerror or exc}"
    if isinstance(exc, yaml.YAMLError):
        return f"invalid YAML: {_one_line(exc)}"
    return _one_line(exc) or type(exc).__name__


def _cache_hint(path: object, message: str) -> str:
    """How to get around the cache, when ``path`` lies in it and ``message`` does not say so yet (``""`` otherwise)."""
    from cffair.causal._cache import cache_dir
    from cffair.cli._common import CACHE_FIX

    if path is None or CACHE_FIX in message:
        return ""
    try:
        inside = Path(str(path)).resolve().is_relative_to(cache_dir().resolve())
    except (OSError, ValueError):
        return ""
    return f"; it is in the cache: {CACHE_FIX}" if inside else ""


@contextmanager
def _one_line_warnings() -> Iterator[None]:
    """Show warnings as ``cffair: warning: ...`` on stderr, one line each, each message once per
    command (the same check can be reached along several paths, e.g. the graph read by the loader
    and again by the flow)."""
    shown: set[str] = set()

    def show(
        message: Warning | str,
        category: type[Warning],
        filename: str,
        lineno: int,
        file: Any = None,
        line: str | None = None,
    ) -> None:
        text = _one_line(message)
        if text not in shown:
            shown.add(text)
            print(f"cffair: warning: {text}", file=sys.stderr)

    with warnings.catch_warnings():
        warnings.showwarning = show
        yield


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``cffair`` console script; returns the exit status.

    0 on success; 2 for a user error (printed as one line ``cffair: error: ...``).
    """
    errors = _user_error_types()
    with _one_line_warnings():
        try:
            try:
                args = build_parser().parse_args(argv)
            except SystemExit as exc:  # --help
                return exc.code if isinstance(exc.code, int) else 0
            check: Callable[[argparse.Namespace], None] | None = getattr(args, "check", None)
            if check is not None:  # options that are only wrong together, before any work
                check(args)
            from cffair.cli._common import check_outputs

            check_outputs(args)  # every file it will write: writable, and none of its inputs
            return int(args.func(args) or 0)
        except UsageError as exc:
            print(f"cffair: error: {_one_line(exc)}", file=sys.stderr)
            return 2
        except BrokenPipeError:  # the reader went away (`cffair results | head`)
            sys.stderr.close()
            return 0
        except errors as exc:
            if os.environ.get("CFFAIR_DEBUG"):
                raise
            print(f"cffair: error: {_message(exc)}", file=sys.stderr)
            return 2
        except KeyboardInterrupt:
            print("cffair: interrupted", file=sys.stderr)
            return 130
