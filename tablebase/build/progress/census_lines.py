"""What a plain game's listing in shares says as it goes: never silent for longer than a line's interval.

The search (``census/rounds.py``) waits for whole chains of steps at a time,
and a resumed one first checks every work file it recorded: minutes in which
no step is recorded. ``ListingStatus`` says what it is doing as it begins,
then, from a ``Ticker``, the positions found so far every ``every`` seconds:
those of the steps recorded, and those the shares being played have played
as their workers last said (``worker_events.Report``, its report ``listing``), with
the rate of this run. A step's own line comes at most once an interval too.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from tablebase.build.progress.display import _duration


class ListingStatus:
    """The listing's lines: what it does, the positions found so far, the rate. Called from the search's
    thread, its ``Ticker``'s and the Dask client's (the workers' reports), so under one lock."""

    def __init__(self, say: Callable[[str], None], every: float, found: int = 0,
                 clock: Callable[[], float] = time.perf_counter) -> None:
        self._say, self.every, self.clock = say, every, clock
        self.began = self.last = clock()
        self.before = found  # found by earlier runs: not this run's rate
        self.recorded = found  # found in the steps recorded
        self.doing, self.counting = "listing positions", True
        self.playing: dict[str, tuple[int, int]] = {}  # by task: its level, positions played so far
        self._lock = threading.RLock()

    def say(self, text: str) -> None:
        with self._lock:
            self.last = self.clock()
            self._say(text)

    def now_doing(self, doing: str, counting: bool = True) -> None:
        """What the search waits on from now, said in the status lines (with the positions found so far, if
        ``counting``: not while the levels found are numbered)."""
        with self._lock:
            self.doing, self.counting = doing, counting

    def found(self, total: int, levels: set[int], line: str | None = None) -> None:
        """Steps of these levels recorded: ``total`` positions found in all, those of the levels' running shares
        now among them; ``line`` said if an interval has gone since the last (else a status line says it)."""
        with self._lock:
            self.recorded = total
            self.playing = {task: p for task, p in self.playing.items() if p[0] not in levels}
            if line is not None and self.clock() - self.last >= self.every:
                self.say(f"{line}, {self._counts()}")

    def listing(self, task: str, level: int, played: int, over: bool = False) -> None:
        """A worker's report: ``task``, playing its share of ``level``, has played ``played`` positions. Kept
        once it is over, until its step is recorded (``found``): the count never goes back meanwhile."""
        with self._lock:
            self.playing[task] = (level, played)

    def heartbeat(self) -> None:
        with self._lock:
            if self.clock() - self.last < self.every:
                return
            if not self.counting:
                self.say(f"{self.doing}: elapsed {_duration(self.clock() - self.began)}")
                return
            levels = [level for level, _ in self.playing.values() if level >= 0]
            self.say(self.doing + (f", playing level {min(levels)}" if levels else "") + f": {self._counts()}")

    def _counts(self) -> str:
        found = self.recorded + sum(n for _, n in self.playing.values())
        elapsed = self.clock() - self.began
        rate = (found - self.before) / elapsed if elapsed > 0 else 0.0
        return f"{found:,} positions found so far, {rate:,.0f}/s, elapsed {_duration(elapsed)}"
