"""Progress of a build on stderr: per level and per partition, with an ETA, and never a long silence.

``Progress`` prints as partitions finish and as the workers tell what happens
inside a task (worker_events.py): how far a part's solving has got, so that
the count moves between parts and the ETA (eta.py) rests on the work done; the
reading back of lower levels before a task solves anything; numba compiling
at its first use on a machine. ``Ticker`` speaks from a thread of its own while
a step's pieces are long, so that no work is silent for more than a line's
interval (``interval``).
"""

from __future__ import annotations

import contextlib
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import TextIO

from tablebase.build.progress.eta import Work
from tablebase.spelling import counted

TERMINAL_EVERY = 1.0  # seconds between status lines at a terminal
LOG_EVERY = 10.0  # in a log or a pipe, where a line a second of an hour's build would be thousands of lines


def interval(quiet: bool = False, asked: float | None = None, stream: TextIO | None = None) -> float:
    """Seconds between status lines: none if ``quiet``; ``asked`` if given (``--progress-every``); else
    ``TERMINAL_EVERY`` where ``stream`` (stderr by default) is a terminal and ``LOG_EVERY`` where it is not."""
    if quiet:
        return float("inf")
    if asked is not None:
        return asked
    stream = stream if stream is not None else sys.stderr
    try:
        terminal = stream.isatty()
    except (AttributeError, ValueError):  # closed, or not a file
        terminal = False
    return TERMINAL_EVERY if terminal else LOG_EVERY


def _duration(seconds: float) -> str:
    if seconds < 60:
        return f"{seconds:.1f}s"
    minutes, secs = divmod(int(seconds), 60)
    if minutes < 60:
        return f"{minutes}m{secs:02d}s"
    return f"{minutes // 60}h{minutes % 60:02d}m"


def throttled(say: Callable[[str], None], every: float,
              clock: Callable[[], float] = time.perf_counter) -> Callable[[str], None]:
    """``say`` for status lines said more often than the interval (a count's, once a second): each line
    said only if ``every`` seconds have gone since the last one said."""
    last = [float("-inf")]

    def said(text: str) -> None:
        if clock() - last[0] >= every:
            last[0] = clock()
            say(text)

    return said


@dataclass
class _Reading:
    """One task's reading back of lower levels, as its worker last said."""

    read: int
    total: int
    began: float  # on this process's clock
    parts: int  # the parts finished when it began (``Progress.parts``)
    what: str | None = None  # the work, if it is not reading back

    def left(self, now: float) -> float:
        """Seconds still to go at the rate so far; infinite before a first measurement."""
        rate = self.read / max(now - self.began, 1e-9)
        return (self.total - self.read) / rate if self.read > 0 else float("inf")


@dataclass
class _Compiling:
    """One task's compiling, as its worker last said."""

    began: float  # on this process's clock
    functions: int  # compiled so far
    heard: float  # when it was last said


class Progress:
    """Counts positions done against the total and prints at most every ``every`` seconds.

    Called from three threads (the driver's, the ``Ticker``'s, and the Dask
    client's event loop with workers' reports), so its state and lines go
    under one lock. ``sizes``: the positions of each level, so that the ETA
    weighs them by what one costs there (``eta.Work``); without them, the ETA
    counts positions alone.
    """

    def __init__(self, table: str, total: int, levels: int, stream: TextIO | None = None, every: float = 1.0,
                 clock: Callable[[], float] = time.perf_counter, sizes: list[int] | None = None):
        self.clock = clock  # seconds; a test gives its own, so that rates and ETAs are exact
        self.table = table
        self.total = max(total, 1)
        self.levels = levels
        self.stream = stream if stream is not None else sys.stderr
        self.every = every
        self.done = 0
        self.skipped = 0
        self.started = self.clock()
        self.last_print = 0.0
        self.level = -1  # the levels done, as far as they go in order
        self.parts = 0  # parts finished by this run
        self.readings: dict[str, _Reading] = {}  # by task
        self.solving_parts: dict[str, tuple[int, int, float]] = {}  # by part: its level, positions done, seconds
        self.finished: set[str] = set()  # parts finished, whose late reports are not counted again
        self.compiles: dict[str, _Compiling] = {}  # by task
        self.compile_said = False
        self.work = Work(sizes)
        self._lock = threading.RLock()

    def say(self, text: str) -> None:
        if self.every == float("inf"):
            return
        # One write: lines said from several threads never run into each other.
        self.stream.write(f"[{self.table}] {text}\n")
        self.stream.flush()

    def resumed(self, positions: int, planned: Iterable[int] = (), done: Iterable[int] = ()) -> None:
        """What an earlier run built: its positions do not count toward the ETA's rate, and the levels done
        (of those ``planned``, ascending) below the first one left, so that the status names the level being
        solved from the first second rather than level 0 until a part of this run finishes."""
        done = set(done)
        left = next((level for level in planned if level not in done), self.levels + 1)
        with self._lock:
            self.skipped += positions
            self.done += positions
            self.level = max(self.level, left - 1)
            self.work.resumed(sorted(done))

    def part_done(self, level: int, rows: int, parts_done: int, parts: int, level_done: bool,
                  first: int | None = None, seconds: float | None = None, name: str | None = None) -> None:
        """A part of levels ``first`` (``level`` if None) to ``level`` finished: ``rows`` positions, solved in
        ``seconds`` of its worker's time; ``name`` ends the count of it its worker told as it went."""
        with self._lock:
            if name is not None:
                self.solving_parts.pop(name, None)
                self.finished.add(name)
            self.done += rows
            self.parts += 1
            self.level = level if level_done else level - 1
            self.work.finished(level if first is None else first, level, rows, seconds)
            last = self.done >= self.total
            if not last and self.clock() - self.last_print < self.every:
                return
            self._status(f"level {level}/{self.levels}" + ("" if level_done else f" part {parts_done}/{parts}"))

    def solving(self, part: str, level: int, done: int, seconds: float, over: bool = False) -> None:
        """A worker's report that it has solved ``done`` positions of ``part`` (a part of ``level``), ``seconds``
        after it began solving it; ``over`` once it has stopped without finishing (it failed)."""
        with self._lock:
            if over or part in self.finished:
                self.solving_parts.pop(part, None)
                return
            self.solving_parts[part] = (level, done, seconds)
            if self.clock() - self.last_print >= self.every:
                self._status_now()

    def compiling(self, task: str, seconds: float, functions: int, over: bool = False) -> None:
        """A worker's report that ``task`` is compiling the game's functions (numba, at their first use on its
        machine): ``functions`` compiled so far, ``seconds`` after it began; ``over`` once it has stopped."""
        with self._lock:
            now = self.clock()
            if over:
                self.compiles.pop(task, None)
                return
            if not self.compile_said:  # said at once, the first time: the status then says how long it has taken
                self.compile_said = True
                self.say("compiling the game's functions with numba (their first use on this machine: kept for "
                         "later builds); solving goes on once they are")
            self.compiles[task] = _Compiling(now - seconds, functions, now)
            if now - self.last_print >= self.every:
                self._status_now()

    def reading(self, task: str, read: int, total: int, seconds: float, over: bool = False,
                what: str | None = None) -> None:
        """A worker's report that ``task`` has taken in ``read`` of the ``total`` positions of lower levels
        it needs, ``seconds`` after it began; ``over`` once it has stopped (done or failed). ``what``: other
        work told the same way, by its name (``total`` then counts its steps)."""
        with self._lock:
            now = self.clock()
            if over:
                self.readings.pop(task, None)
                return
            known = self.readings.get(task)
            if known is None or read < known.read:  # begun, or begun again on another worker (one was lost)
                known = _Reading(read, total, now - seconds, self.parts, what)
            # The worker's clock says when it began; each report reaches this process late by a little,
            # so the earliest of their estimates is the best.
            known.read, known.total, known.began = read, total, min(known.began, now - seconds)
            self.readings[task] = known
            if now - self.last_print >= self.every:
                self._status_now()

    def heartbeat(self) -> None:
        """The status, if nothing was said for a while: the work goes on, and how far it is."""
        with self._lock:
            if self.clock() - self.last_print >= self.every:
                self._status_now()

    def _status_now(self) -> None:
        """The compiling, while a worker compiles; the reading back, while one holds up the step (``_slowest``);
        else the level being solved."""
        now = self.clock()
        # A report not renewed for a few lines' time is a worker's that was lost.
        compiling = [c for c in self.compiles.values() if now - c.heard <= 3 * self.every + 1]
        if compiling:
            longest = min(c.began for c in compiling)
            self.last_print = now
            functions = sum(c.functions for c in compiling)
            so_far = f"{counted(functions, 'function')} compiled so far, " if functions else ""
            self.say(f"compiling the game's functions: {so_far}elapsed {_duration(now - longest)}")
            return
        reading = self._slowest(now)
        if reading is not None:
            self._reading_status(reading)
        else:
            self._status(f"solving level {min(self.level + 1, self.levels)}/{self.levels}")

    def _slowest(self, now: float) -> _Reading | None:
        """The reading back that will end last, among those begun since the last part finished.

        Each worker takes in the same lower levels for itself: a sum over workers
        would count a position once per worker, and an average would hide the one
        the step waits for. So the status shows the worker that will end last (one
        not yet measured counts as last: its ETA is unknown, and so is the step's).
        Once a part has finished since a reading began, parts are being solved
        again and the status says so; a report lost with its worker then shows no longer.
        """
        waiting = [r for r in self.readings.values() if r.parts == self.parts]
        return max(waiting, key=lambda r: (r.left(now), -r.read / max(r.total, 1)), default=None)

    def _reading_status(self, reading: _Reading) -> None:
        now = self.last_print = self.clock()
        elapsed = now - reading.began
        rate = reading.read / elapsed if elapsed > 0 else 0.0
        # Unlike solving, reading goes at much the same rate per position at every level: the first
        # measurement already tells the ETA.
        left = reading.left(now)
        done = f"{reading.read:,}" if reading.what is None else f"{reading.read:,}/{reading.total:,}"
        self.say(
            (reading.what or f"reading {reading.total:,} solved positions back into the workers' memory")
            + f": {done} ({100 * reading.read / max(reading.total, 1):.1f}%)  {rate:,.0f}/s"
            f"  elapsed {_duration(elapsed)}  ETA {_duration(left) if left != float('inf') else '-'}"
        )

    def _status(self, where: str) -> None:
        now = self.last_print = self.clock()
        elapsed = now - self.started
        parts = list(self.solving_parts.values())
        done = min(self.done + sum(n for _, n, _ in parts), self.total)
        fresh = done - self.skipped
        rate = fresh / elapsed if elapsed > 0 else 0.0
        left = self.work.eta(done, self.total, fresh, elapsed, parts)
        # Before 1% of the work is done, the rate so far gives only a rough ETA (too long, as a rule: the
        # first parts pay for starting), marked "~"; before anything is done, there is none.
        eta = _duration(left) if left != float("inf") else "-"
        if left != float("inf") and fresh < 0.01 * (self.total - self.skipped):
            eta = "~" + eta
        self.say(
            f"{where}  {done:,}/{self.total:,} positions ({100 * done / self.total:.1f}%)"
            f"  {rate:,.0f}/s  elapsed {_duration(elapsed)}  ETA {eta}"
        )


class Timings:
    """The seconds of one table's build and of its steps, each measured once: the build's lines and its
    summary (``BuildSummary``) say the same figures. A build begun again (a figure held wide, solve/figures.py)
    adds to the steps it does again, and its whole counts from the first beginning."""

    STEPS = ("listing", "numbering", "solving", "index")  # numbering: the last part of a plain game's listing

    def __init__(self, clock: Callable[[], float] = time.perf_counter) -> None:
        self.clock = clock
        self.began = clock()
        self.ended: float | None = None
        self.spent = dict.fromkeys(self.STEPS, 0.0)

    @contextlib.contextmanager
    def step(self, name: str) -> Iterator[None]:
        """Time the block as the step ``name`` (one of ``STEPS``)."""
        began = self.clock()
        try:
            yield
        finally:
            self.spent[name] += self.clock() - began

    def add(self, name: str, seconds: float) -> None:
        self.spent[name] += seconds

    def stop(self) -> None:
        """The whole build's end: its seconds are fixed from here on."""
        self.ended = self.clock()

    def seconds(self, name: str | None = None) -> float:
        """A step's seconds, or the whole build's (``None``: to its end, or to now if not ended), to the ms."""
        if name is not None:
            return round(self.spent[name], 3)
        return round((self.ended if self.ended is not None else self.clock()) - self.began, 3)

    def line(self) -> str:
        """The build's last line: its seconds and its steps', as its summary has them."""
        steps = []
        for name in ("listing", "solving", "index"):  # numbering is said within the listing, its last part
            if self.spent[name] > 0:
                step = f"{'probe index' if name == 'index' else name} {self.seconds(name):.1f}s"
                if name == "listing" and self.spent["numbering"] > 0:
                    step += f" (numbering {self.seconds('numbering'):.1f}s)"
                steps.append(step)
        return f"built in {self.seconds():.1f}s" + (f" ({', '.join(steps)})" if steps else "")


class Ticker:
    """Calls ``tick`` every ``every`` seconds from a thread of its own while the block runs."""

    def __init__(self, tick: Callable[[], None], every: float = 1.0) -> None:
        self.tick, self.every = tick, every
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="tablebase-ticker", daemon=True)

    def _run(self) -> None:
        while not self._stop.wait(self.every):
            self.tick()

    def __enter__(self) -> Ticker:
        if self.every != float("inf"):
            self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join()
