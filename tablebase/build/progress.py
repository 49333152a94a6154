"""Progress of a build on stderr: per level and per partition, with an ETA, and never a silent second.

``Progress`` prints as partitions finish; ``Ticker`` speaks from a thread of
its own while a step runs whose pieces are long (a level counted by listing
it, a level whose every part takes minutes), so that long work is never
silent for more than a second or two.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable
from typing import TextIO


def _duration(seconds: float) -> str:
    if seconds < 60:
        return f"{seconds:.1f}s"
    minutes, secs = divmod(int(seconds), 60)
    if minutes < 60:
        return f"{minutes}m{secs:02d}s"
    return f"{minutes // 60}h{minutes % 60:02d}m"


class Progress:
    """Counts positions done against the total and prints at most every ``every`` seconds."""

    def __init__(self, table: str, total: int, levels: int, stream: TextIO | None = None, every: float = 1.0):
        self.table = table
        self.total = max(total, 1)
        self.levels = levels
        self.stream = stream if stream is not None else sys.stderr
        self.every = every
        self.done = 0
        self.skipped = 0
        self.started = time.perf_counter()
        self.last_print = 0.0

    def say(self, text: str) -> None:
        if self.every == float("inf"):
            return
        print(f"[{self.table}] {text}", file=self.stream, flush=True)

    def resumed(self, positions: int) -> None:
        """Positions already built by an earlier run do not count toward the ETA's rate."""
        self.skipped += positions
        self.done += positions

    def part_done(self, level: int, rows: int, parts_done: int, parts: int, level_done: bool) -> None:
        self.done += rows
        self.level = level if level_done else level - 1  # the levels done, as far as they go in order
        last = self.done >= self.total
        if not last and time.perf_counter() - self.last_print < self.every:
            return
        self._status(f"level {level}/{self.levels}" + ("" if level_done else f" part {parts_done}/{parts}"))

    def heartbeat(self) -> None:
        """The status, if nothing was said for a while: the work goes on, and how far it is."""
        if time.perf_counter() - self.last_print >= self.every:
            self._status(f"solving level {min(getattr(self, 'level', -1) + 1, self.levels)}/{self.levels}")

    def _status(self, where: str) -> None:
        now = self.last_print = time.perf_counter()
        elapsed = now - self.started
        fresh = self.done - self.skipped
        rate = fresh / elapsed if elapsed > 0 else 0.0
        # Too little done says nothing of the rest (levels grow): no ETA before 1% of the work.
        known = rate > 0 and fresh >= 0.01 * (self.total - self.skipped)
        eta = _duration((self.total - self.done) / rate) if known else "-"
        self.say(
            f"{where}  {self.done:,}/{self.total:,} positions ({100 * self.done / self.total:.1f}%)"
            f"  {rate:,.0f}/s  elapsed {_duration(elapsed)}  ETA {eta}"
        )


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
