"""``numba.njit``, deferred: a game's compiled functions stay plain Python until a build compiles them.

A program that only reads a table calls a game's move generators, ranks and
spellings for a position or a few, where plain Python is quick enough and
numba's import and compilation are not; an install without the ``build``
extra has no numba at all. So ``njit`` marks a function without importing
numba, and the function runs as Python until ``compile_all()``.
"""

from __future__ import annotations

import contextlib
import functools
import importlib
import os
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any


def cache_folder() -> Path:
    """Where compiled code is kept between runs: ``$TABLEBASE_CACHE``, else ``~/.cache/tablebase``."""
    return Path(os.environ.get("TABLEBASE_CACHE") or Path.home() / ".cache" / "tablebase")


def write_cached(path: Path, text: str) -> None:
    """Write one file of the cache folder whole or not at all (OSError if it cannot be written): other
    processes may read it at any moment."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.{os.getpid()}")
    temporary.write_text(text)
    os.replace(temporary, path)


def numba_cache_outside_package() -> None:
    """Numba's cache in the cache folder, unless the user named one (``NUMBA_CACHE_DIR``).

    By default numba writes a cached function beside its source, in the
    installed package's ``__pycache__`` folders. ``pip uninstall`` leaves
    those behind, and the folder they keep alive shadows a later editable
    install as an empty namespace package. Numba reads the variable when it
    is first imported and a function's cache place when it is decorated, so
    the package's ``__init__`` calls this, before any module imports numba.
    """
    folder = str(cache_folder() / "numba")
    os.environ.setdefault("NUMBA_CACHE_DIR", folder)
    numba = sys.modules.get("numba")  # imported by the program before tablebase
    if numba is not None and not numba.config.CACHE_DIR:
        numba.config.CACHE_DIR = os.environ["NUMBA_CACHE_DIR"]


_marked: list[Deferred] = []
_compiled = False
_lock = threading.Lock()
_heard: list[Callable[[bool], None]] = []  # told as numba begins and ends compiling (``compiling_heard``)
_functions = 0  # functions numba compiled in this process, not finding them in its cache


class Deferred:
    """A function marked for numba: plain Python until ``compile_all()``, then its compiled form."""

    def __init__(self, function: Callable[..., Any], options: dict[str, Any]) -> None:
        functools.update_wrapper(self, function)
        self.py_func, self.options = function, options  # ``py_func``: as numba's dispatchers name it
        self.target: Callable[..., Any] = function

    def __call__(self, *args: Any) -> Any:
        return self.target(*args)

    def __reduce__(self) -> tuple[Any, tuple[str, str]]:
        return _named, (self.py_func.__module__, self.py_func.__qualname__)  # pickled by name, as functions are


def _named(module: str, name: str) -> Any:
    return getattr(importlib.import_module(module), name)


def njit(function: Callable[..., Any] | None = None, **options: Any) -> Any:
    """``numba.njit(**options)``, deferred until ``compile_all()`` (at once if that has run)."""

    def mark(f: Callable[..., Any]) -> Any:
        with _lock:
            if _compiled:
                import numba

                return numba.njit(**options)(f)
            deferred = Deferred(f, options)
            _marked.append(deferred)
            return deferred

    return mark if function is None else mark(function)


def compiled() -> bool:
    """Whether ``compile_all()`` has run in this process."""
    return _compiled


def compile_all() -> None:
    """Compile every marked function with numba from now on, and name it so in every module that names it.

    The solvers, the workers and the batch loops call it. Compilation itself happens at each function's
    first call (numba's own laziness, cached on disk); this imports numba and swaps the names, once per
    process: at the top of every module a marked function is then named by its compiled form, which is
    what compiled code calling it must find there.
    """
    global _compiled
    with _lock:
        if _compiled:
            return
        import numba

        _listen()
        for deferred in _marked:
            deferred.target = numba.njit(**deferred.options)(deferred.py_func)
        for module in list(sys.modules.values()):
            names = getattr(module, "__dict__", None)
            if not names:
                continue
            for name, value in list(names.items()):
                if type(value) is Deferred:
                    setattr(module, name, value.target)
        _compiled = True


def _listen() -> None:
    """Numba's events of compiling heard, and passed on to ``compiling_heard``'s callbacks. Numba says
    nothing when it finds a function in its cache: only a first use on the machine (or after the source
    changed) is heard, of the functions it keeps there."""
    from numba.core import event
    from numba.core.caching import NullCache

    def kept(ev: Any) -> bool:
        # Numba's own helpers (its typed list's) have no cache: compiled in every process, never a first use.
        return not isinstance(getattr(ev.data.get("dispatcher"), "_cache", None), NullCache)

    class Heard(event.Listener):
        depth = 0  # a function's compiling compiles those it calls: the outermost begins and ends the spell

        def on_start(self, ev: Any) -> None:
            global _functions
            if not kept(ev):
                return
            _functions += 1
            self.depth += 1
            if self.depth == 1:
                _tell(True)

        def on_end(self, ev: Any) -> None:
            if not kept(ev):
                return
            self.depth -= 1
            if self.depth == 0:
                _tell(False)

    event.register("numba:compile", Heard())


def _tell(begins: bool) -> None:
    for callback in list(_heard):
        try:
            callback(begins)
        except Exception:  # noqa: BLE001 - a report that fails must not fail the compiling it reports
            pass


def functions_compiled() -> int:
    """How many functions numba has compiled in this process (not found in its cache)."""
    return _functions


@contextlib.contextmanager
def compiling_heard(callback: Callable[[bool], None]) -> Iterator[None]:
    """While the block runs, ``callback(True)`` as numba begins compiling a function it did not find in its
    cache, and ``callback(False)`` once it is done (with the functions that one calls), in the compiling thread."""
    _heard.append(callback)
    try:
        yield
    finally:
        _heard.remove(callback)


def resolved(function: Any) -> Any:
    """The compiled form of a marked function once ``compile_all()`` has run; anything else as it is."""
    return function.target if type(function) is Deferred else function


def compile_if_installed() -> None:
    """``compile_all()`` where numba is installed (a large batch pays for it); else leave everything Python.
    The first time numba then compiles a function it did not find in its cache, the ``tablebase`` logger
    says so (a warning: Python prints it on stderr unless the program says otherwise), since a batch that
    waits seconds for it would otherwise wait without a word."""
    global _noticed
    try:
        compile_all()
    except ImportError:
        return
    with _lock:
        if not _noticed:
            _noticed = True
            _heard.append(_notice)


_noticed = False  # whether ``_notice`` listens


def _notice(begins: bool) -> None:
    """Said once, as numba begins compiling for a batch: the first use of the functions on this machine."""
    if begins and _notice in _heard:
        _heard.remove(_notice)
        import logging

        logging.getLogger("tablebase").warning(
            "tablebase: compiling the game's functions with numba (their first use on this machine: kept for "
            "later runs); the batch goes on once they are")


def array_list() -> Any:
    """A list of arrays a compiled function can take (numba's typed list once ``compile_all()`` has run;
    a plain list, which the functions run as Python take, before)."""
    if not _compiled:
        return []
    from numba.typed import List

    return List()
