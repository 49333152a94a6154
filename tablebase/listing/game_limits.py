"""Bounds on a game's own code while the engine lists its positions: time per position, positions, levels.

A plain game is its author's Python, called millions of times by the
listing, in this process (``explore.py``) and in Dask worker threads
(``expand.py``). A ``moves()`` that loops, a ``start_positions()`` that never
ends or a game whose positions never end would hold a build for ever; these
bounds end it with one line instead.

**Time.** A loop that calls the game marks the position it is at
(``watch.at = p``: one attribute store, nothing more per call), and one
watchdog thread per process looks at every marked loop a few times a second:
a loop still at the same position after ``seconds`` gets an asynchronous
exception (``PyThreadState_SetAsyncExc``), raised the next time that thread
runs Python bytecode, and the watched region turns it into one line naming
the method and the position. ``signal.setitimer`` would be the other way to
stop Python code, but it reaches only the main thread, and the game also
runs in worker threads. Code that runs no bytecode (a compiled numba loop, a
blocking call in C) is not interrupted until it returns.

**Positions.** A listing refuses to find more than ``Limits.positions``
(``--max-positions``); a plain game's listing holds every position as a
Python object, about a kilobyte each with its moves, so by default it stops
at ``PLAIN_POSITIONS``.

**Levels.** A level is an ``int`` from 0 to ``games.base.MAX_LEVEL``
(``checked.level_of``).

The limits of a listing come from the command's options through
``limits_set``, so that the kinds, which start listings, need not carry them;
tasks on Dask workers are given them as arguments.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Iterator
from contextlib import AbstractContextManager as ContextManager
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from types import TracebackType
from typing import Any

from tablebase.errors import TablebaseError
from tablebase.lazy import import_all
from tablebase.scoped import scoped
from tablebase.spelling import shown

SECONDS = 10.0  # a position's share of the game's code, by default: far above any sane game's, below a user's patience
PLAIN_POSITIONS = 20_000_000  # about 20 GB of a plain game's listing: the most a large laptop holds
LOOKS_PER_LIMIT = 4  # the watchdog looks this often within one limit (and at least once a second)
IDLE_LOOKS = 5  # looks with nothing to watch before the watchdog's thread ends


@dataclass(frozen=True)
class Limits:
    """How long the game's code may take per position, and how many positions a listing may find.

    ``positions`` None: ``PLAIN_POSITIONS`` for a plain game, no bound for a keyed game's listing (8
    bytes a key).
    """

    seconds: float = SECONDS
    positions: int | None = None

    def __post_init__(self) -> None:
        if not self.seconds > 0:
            raise TablebaseError(f"--position-seconds must be more than 0, got {self.seconds:g}")
        if self.positions is not None and self.positions < 1:
            raise TablebaseError(f"--max-positions must be at least 1, got {self.positions}")

    def positions_for(self, plain: bool) -> int | None:
        return PLAIN_POSITIONS if self.positions is None and plain else self.positions


_LIMITS: ContextVar[Limits] = ContextVar("tablebase_listing_limits", default=Limits())


def current_limits() -> Limits:
    """The limits of listings started in this context (``limits_set``), else the defaults."""
    return _LIMITS.get()


def limits_set(limits: Limits) -> ContextManager[Limits]:
    """Listings started inside use these limits."""
    return scoped(_LIMITS, limits)


class LimitReached(TablebaseError):
    """A listing stopped by one of its limits (not a defect found in the game's rules)."""


def too_many(name: str, limit: int) -> LimitReached:
    return LimitReached(f"{name}: the listing found more than {limit:,} positions (--max-positions {limit:,}); "
                        "give options for a smaller table, or a larger --max-positions")


# -- the watchdog ----------------------------------------------------------------------------
class _Late(BaseException):
    """Raised in a thread whose watched position ran out of time. A BaseException, so that a game's
    own ``except Exception`` does not swallow it."""


def _raise_in(thread: int, exception: type[BaseException] | None) -> None:
    """Have ``thread`` raise ``exception`` at its next bytecode (None: withdraw one not yet raised).
    ctypes is imported by the watchdog that fires, not by every program that imports the listing."""
    import ctypes

    ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(thread),
                                               None if exception is None else ctypes.py_object(exception))


class Watch:
    """One thread's watched loop: the game, the method it drives, and the position it is at (``at``)."""

    __slots__ = ("at", "game", "method", "seconds", "thread", "seen", "since", "late", "fired", "active", "lock")

    def __init__(self, game: Any, method: str, seconds: float) -> None:
        self.at: Any = None
        self.game, self.method, self.seconds = game, method, seconds
        self.thread = threading.get_ident()
        self.seen: Any = self  # no position: the first look starts the clock
        self.since = 0.0
        self.late: Any = None  # the position found over its time
        self.fired = False
        self.active = True
        self.lock = threading.Lock()

    def look(self, now: float) -> None:
        """The watchdog's look: a loop at the same position for ``seconds`` gets ``_Late``."""
        at = self.at
        if at is not self.seen:
            self.seen, self.since = at, now
            return
        if now - self.since < self.seconds:
            return
        with self.lock:
            if self.active and self.at is at:
                self.late, self.fired = at, True
                self.since = now  # a game that swallows it gets it again after another limit
                _raise_in(self.thread, _Late)

    def stop(self) -> bool:
        """Stop watching; whether the position ran out of time. Once this returns, nothing can be raised
        in the thread any more: an exception sent and not yet raised is withdrawn."""
        with self.lock:
            self.active = False
            if self.fired:
                _raise_in(self.thread, None)
            return self.fired


class _Watchdog:
    """The thread that looks at every watched loop of this process; it runs while there are any, and a
    little after (a listing watches each level's loop in turn: one thread serves them all)."""

    def __init__(self) -> None:
        self.forked()

    def forked(self) -> None:
        """A fresh start (in a forked child the thread is gone, and its lock may have been held)."""
        self.watches: set[Watch] = set()
        self.lock = threading.Lock()
        self.thread: threading.Thread | None = None

    def add(self, watch: Watch) -> None:
        with self.lock:
            self.watches.add(watch)
            if self.thread is None:
                self.thread = threading.Thread(target=self._run, name="tablebase-watchdog", daemon=True)
                self.thread.start()

    def remove(self, watch: Watch) -> None:
        with self.lock:
            self.watches.discard(watch)

    def _run(self) -> None:
        idle = 0  # looks in a row with nothing to watch
        while True:
            with self.lock:
                watches = list(self.watches)
                idle = 0 if watches else idle + 1
                if idle > IDLE_LOOKS:
                    self.thread = None
                    return
            now = time.monotonic()
            for watch in watches:
                watch.look(now)
            time.sleep(min([1.0] + [w.seconds / LOOKS_PER_LIMIT for w in watches]))


_DOG = _Watchdog()
os.register_at_fork(after_in_child=_DOG.forked)
_watching = threading.local()  # the watch of this thread's region, if it is in one


@contextmanager
def watched(game: Any, method: str, seconds: float | None = None) -> Iterator[Watch]:
    """A region whose loop marks each position it gives the game's code (``watch.at = p``): a position
    that takes more than ``seconds`` (default: the current limits') ends it with ``LimitReached``.

    ``method`` is the game's method the loop drives, named when the time runs out outside the game's
    own frames. Regions nest: an inner one drives another method of the same watch.
    """
    import_all()  # never under the watchdog: an import it interrupts would break the library for the process
    outer: Watch | None = getattr(_watching, "watch", None)
    if outer is not None:
        driven, at = outer.method, outer.at
        outer.method = method
        try:
            yield outer
        finally:
            outer.method, outer.at = driven, at
        return
    watch = Watch(game, method, current_limits().seconds if seconds is None else seconds)
    _watching.watch = watch
    _DOG.add(watch)
    try:
        try:
            yield watch
        finally:
            late = _stopped(watch)
            _watching.watch = None
            _DOG.remove(watch)
    except _Late as e:
        raise _too_slow(watch, e.__traceback__) from None
    if late:  # it ran out of time just as the loop ended
        raise _too_slow(watch, None)


def _stopped(watch: Watch) -> bool:
    """``watch.stop()``, done however often an exception sent before it lands on the way."""
    late = False
    while True:
        try:
            return watch.stop() or late
        except _Late:
            late = True


def _too_slow(watch: Watch, trace: TracebackType | None) -> LimitReached:
    """One line for a position that ran out of time: the method and position, as the traceback shows them."""
    game, late, seconds = watch.game, watch.late, watch.seconds
    method, argument, has_argument = watch.method, late, True
    frame = game_frame(game, trace)
    if frame is not None:
        code = frame.f_code
        method = code.co_name
        has_argument = code.co_argcount >= 2
        argument = frame.f_locals.get(code.co_varnames[1]) if has_argument else None
    name = getattr(game, "name", "the game")
    tail = f"a game's methods must return in bounded time (--position-seconds raises the limit of {seconds:g} s)"
    if not has_argument or method == "start_positions":
        return LimitReached(f"{name}: {method}() did not finish within {seconds:g} s; {tail}")
    if argument is late:
        return LimitReached(f"{name}: {method}({shown(argument)}) did not return within {seconds:g} s; {tail}")
    return LimitReached(f"{name}: position {shown(late)} took more than {seconds:g} s (stopped in "
                        f"{method}({shown(argument)})); {tail}")


def game_frame(game: Any, trace: TracebackType | None) -> Any:
    """The outermost frame of a traceback that runs a method of the game (its ``self`` is the game), or None."""
    while trace is not None:
        frame = trace.tb_frame
        code = frame.f_code
        if code.co_argcount and code.co_varnames[0] == "self" and frame.f_locals.get("self") is game:
            return frame
        trace = trace.tb_next
    return None
