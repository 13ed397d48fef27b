"""The lazy faces of the package's parts: a part's ``__init__`` names what it exports and loads each name's
module on first use, so that importing a part stays light and no import cycle runs through its face.

A face lists ``_EXPORTS`` (public name → the private module of the part that defines it) and ``__all__``,
imports them under ``TYPE_CHECKING`` for type checkers, and ends with
``__getattr__, __dir__ = lazy_face(__name__, _EXPORTS, __all__)``. The modules themselves are private
(``cffair.scores._metrics``): what a user imports comes from the face.

>>> getattr_, dir_ = lazy_face("cffair.scores", {"cf_mse": "_metrics"}, ["cf_mse"])
>>> getattr_("cf_mse").__module__, dir_()
('cffair.scores._metrics', ['cf_mse'])
>>> getattr_("nope")
Traceback (most recent call last):
...
AttributeError: module 'cffair.scores' has no attribute 'nope'
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable, Mapping

__all__ = ["lazy_face"]

FINGERPRINT_EXEMPT = True  # loads modules by name: it changes no number


def lazy_face(
    package: str, exports: Mapping[str, str], public: Iterable[str], *, submodules: Iterable[str] = ()
) -> tuple[Callable[[str], object], Callable[[], list[str]]]:
    """The module-level ``__getattr__`` and ``__dir__`` of the face of ``package``.

    Args:
        package: the part (``__name__`` of its ``__init__``).
        exports: public name → the module of the part that defines it.
        public: the face's ``__all__``.
        submodules: modules of the part reachable as attributes of the face (the private support part's).
    """
    subs = frozenset(submodules)
    names = sorted({*public, *subs})

    def __getattr__(name: str) -> object:
        if name in exports:
            return getattr(importlib.import_module(f"{package}.{exports[name]}"), name)
        if name in subs:
            return importlib.import_module(f"{package}.{name}")
        raise AttributeError(f"module {package!r} has no attribute {name!r}")

    def __dir__() -> list[str]:
        return list(names)

    return __getattr__, __dir__
