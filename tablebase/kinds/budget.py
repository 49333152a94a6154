"""How much a lookup may search beyond its table: its time, its memory, and whether its asker still waits.

A board larger than a table (any Domineering board can be looked up) is
valued by searching its moves down to parts the table holds; the search
grows about fivefold with each row, and a 15x15 board would run for good.
Every such search spends a ``Budget``: a deadline, a number of parts
(about ``PART_BYTES`` each, with the forms they make, which the process
keeps), and ``stop``, asked at each part (a server's client that left, a
server that stops). Past any of them the search ends with ``OverLimit`` in
one line, as it does once the process holds ``FORMS_CAP`` forms.

A caller sets the budget of what it runs (``searching``: the server, one a
request); otherwise a table's reader gives its own ``Bounds`` (its time and
memory limits). A batch of lookups is weighed before it is read
(``batch_fits``).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from contextlib import AbstractContextManager as ContextManager
from contextvars import ContextVar
from dataclasses import dataclass

from tablebase.errors import OverLimit
from tablebase.scoped import scoped

PART_BYTES = 2048  # what a part searched holds: its board and value remembered, the new forms it makes
FORMS_CAP = 1 << 22  # forms the process may hold (about 350 bytes each) before searches add no more
DEFAULT_SECONDS, DEFAULT_MEMORY = 60.0, 1 << 30  # a table's bounds where its reader gives none
BATCH_BYTES = 8  # bytes of each column of a batch's rows, a position's text counted as a column
HINT = "look up a smaller board, or build a table of larger parts"


@dataclass(frozen=True)
class Bounds:
    """What one search may take: ``seconds`` (None: no limit) and ``memory`` bytes."""

    seconds: float | None = DEFAULT_SECONDS
    memory: int = DEFAULT_MEMORY

    def budget(self, stop: Callable[[], bool] | None = None) -> Budget:
        """A budget of these bounds, starting now; ``stop()`` says when to give up whatever is left."""
        return Budget(self, stop)


class Budget:
    """What is left of a search's bounds: ``spend`` once a part."""

    def __init__(self, bounds: Bounds, stop: Callable[[], bool] | None = None) -> None:
        self.bounds, self.stop = bounds, stop
        self.deadline = None if bounds.seconds is None else time.monotonic() + bounds.seconds
        self.parts = max(1, bounds.memory // PART_BYTES)
        self.spent = 0

    def spend(self) -> None:
        """One more part searched; OverLimit once a bound is passed."""
        self.spent += 1
        self._check(self.spent)
        if self.spent % 256 == 0 and _forms_held() > FORMS_CAP:
            raise OverLimit(f"this process holds {_forms_held():,} game values, more than searches may add to "
                            f"({FORMS_CAP:,}); {HINT}")

    def found(self, parts: int) -> None:
        """A search has found ``parts`` more parts, each to be spent once valued (a compiled search lays
        them out first); OverLimit if they would pass the memory bound, or a bound is passed already."""
        self._check(self.spent + parts)

    def _check(self, parts: int) -> None:
        if parts > self.parts:
            raise OverLimit(f"the search beyond the table passed its memory bound ({self.parts:,} parts, "
                            f"{self.bounds.memory / 2**20:,.0f} MiB); {HINT}")
        if self.deadline is not None and time.monotonic() > self.deadline:
            raise OverLimit(f"the search beyond the table passed its time limit of {self.bounds.seconds:g} s "
                            f"({parts:,} parts searched); {HINT}")
        if self.stop is not None and self.stop():
            raise OverLimit(f"the search beyond the table was stopped after {parts:,} parts: its asker left")


def _forms_held() -> int:
    from tablebase.cgt import forms_held  # only a search asks: a program that only probes imports no algebra

    return forms_held()


_CURRENT: ContextVar[Budget | None] = ContextVar("the search budget", default=None)


def searching(budget: Budget) -> ContextManager[Budget]:
    """Run what follows (in this context, and the threads it hands work to) on ``budget``."""
    return scoped(_CURRENT, budget)


def budget_of(bounds: Bounds) -> Budget:
    """The budget a caller set (``searching``), or a new one of ``bounds``."""
    return _CURRENT.get() or bounds.budget()


def batch_fits(table: str, count: int, columns: int, memory: int) -> None:
    """OverLimit, in one line, unless the rows of ``count`` positions of a table of ``columns`` columns (with a
    level, and what finding them holds a position) fit ``memory`` bytes."""
    size = count * BATCH_BYTES * (columns + 4)
    if size > memory:
        raise OverLimit(f"{table}: the rows of {count:,} positions would take about {size / 2**20:,.0f} MiB, more "
                        f"than the memory limit of {memory / 2**20:,.0f} MiB; ask for them in batches, or give a "
                        "higher memory limit")
