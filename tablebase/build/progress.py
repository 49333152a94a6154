"""Progress of a build on stderr: per level and per partition, with an ETA."""

from __future__ import annotations

import sys
import time
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
        now = time.perf_counter()
        last = self.done >= self.total
        if not last and now - self.last_print < self.every:
            return
        self.last_print = now
        elapsed = now - self.started
        fresh = self.done - self.skipped
        rate = fresh / elapsed if elapsed > 0 else 0.0
        # Too little done says nothing of the rest (levels grow): no ETA before 1% of the work.
        known = rate > 0 and fresh >= 0.01 * (self.total - self.skipped)
        eta = _duration((self.total - self.done) / rate) if known else "-"
        where = f"level {level}/{self.levels}" + ("" if level_done else f" part {parts_done}/{parts}")
        self.say(
            f"{where}  {self.done:,}/{self.total:,} positions ({100 * self.done / self.total:.1f}%)"
            f"  {rate:,.0f}/s  elapsed {_duration(elapsed)}  ETA {eta}"
        )
