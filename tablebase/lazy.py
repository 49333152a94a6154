"""The large libraries, imported where they are first used rather than where they are named.

A program that opens a folder and probes a position needs no Arrow and no
NumPy, whose imports cost more than a whole cold lookup may take
(docs/probe.md). So modules take them from here: ``from tablebase.lazy import
np, pa``. Each name is a module that imports the real library, under a lock,
at its first attribute, and then holds the library's own attributes, so that
code which uses it (numba's compiled functions too) reads it as a module.
"""

from __future__ import annotations

import importlib
import sys
import threading
import types
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

__all__ = ["exports", "import_all", "np", "pa", "pc", "pq", "psutil"]


class OnFirstUse(types.ModuleType):
    """A module that becomes the library it names at its first attribute."""

    def __init__(self, name: str) -> None:
        super().__init__(name)
        self._lock = threading.Lock()

    def __getattr__(self, attribute: str) -> Any:  # only for names not (yet) copied from the library
        with self._lock:
            library = importlib.import_module(self.__name__)
            if "__file__" not in vars(self):
                vars(self).update(vars(library))
        return getattr(library, attribute)  # an attribute the library itself makes on demand


if TYPE_CHECKING:
    import numpy as np
    import psutil
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.parquet as pq
else:
    np, pa, pc, pq, psutil = (OnFirstUse(name) for name in
                              ("numpy", "pyarrow", "pyarrow.compute", "pyarrow.parquet", "psutil"))


def import_all() -> None:
    """Import every library named here now, where nothing can interrupt it: a region whose thread may be
    interrupted (a game's code under a time limit, listing/game_limits.py) calls this first, since an
    exception raised into a thread halfway through importing a compiled library would leave it unusable
    for the whole process."""
    for library in (np, pa, pc, pq, psutil):
        getattr(library, "__version__", None)  # the first attribute: imports it, and copies its own in


def exports(package: str, names: dict[str, tuple[str, ...]]) -> Callable[[str], Any]:
    """A package's ``__getattr__`` (PEP 562) for the names its submodules define (``{submodule: names}``).

    A name is imported from its submodule when it is first asked for, so that
    importing one submodule, or one name, does not import its siblings: a
    program that only looks positions up names a kind's rules, never runs
    the listing that follows them. The package lists the same names under
    ``TYPE_CHECKING`` for type checkers.
    """
    where = {name: module for module, defined in names.items() for name in defined}

    def __getattr__(name: str) -> Any:
        if name not in where:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f"{package}.{where[name]}"), name)
        setattr(sys.modules[package], name, value)  # asked once: the next lookup is the module's own
        return value

    return __getattr__
