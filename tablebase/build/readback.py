"""How far each worker has got in reading solved levels back into memory, told to the driver as it goes.

A task reads every lower level its solver lacks before it solves anything. In
a resumed build the first task on each worker lacks them all: for a large
table, tens of minutes in which no part finishes and the driver, counting
finished parts, would have nothing to say. Workers report through Dask's
events (``Worker.log_event``) rather than through results, which come only
when a task ends; the driver (``listening``) hands each report to
``Progress.reading``, which shows it with an ETA. The topic is named by the
build's run, so that two builds on one cluster each hear their own workers.
"""

from __future__ import annotations

import bisect
import contextlib
import threading
import time
from collections.abc import Iterator
from typing import Any, Protocol, Self

from distributed import Client, get_worker
from distributed.client import ClosedClientError

from tablebase.store import Plan

# A worker says how far it has got this many times for each line the driver prints (once a second:
# four a second), so that each line is fresh, whatever the number of levels.
SHARE = 4


def topic(run: str) -> str:
    """The events' topic for one build run (``TableBuild.run``)."""
    return f"tablebase-reading-{run}"


def positions_of(plan: Plan, levels: list[int]) -> list[int]:
    """The positions of each level (ascending; 0 for a level without any), run by run: a subtraction
    game lacks a million levels at its first task, too many to ask the plan for one at a time."""
    counts: list[int] = []
    at = 0
    for first, _, sizes in plan.runs:
        below = bisect.bisect_left(levels, first, at)
        ends = bisect.bisect_left(levels, first + len(sizes), below)
        counts += [0] * (below - at) + [sizes[level - first] for level in levels[below:ends]]
        at = ends
    return counts + [0] * (len(levels) - at)


class Reporter(Protocol):
    """What hears the reports (``Progress``): named here so that progress.py need know nothing of Dask."""

    def reading(self, task: str, read: int, total: int, seconds: float, over: bool = False,
                what: str | None = None) -> None: ...


class Report:
    """One task's reading back of ``total`` positions, told to the driver, which prints every ``every``
    seconds, ``SHARE`` times as often (or other long work told the same way: the probe index's parts).

    Nothing is said in the first such interval: most tasks take in a level or two
    that other workers just solved, in milliseconds, and the scheduler would keep
    their events for nobody. Then a timer says it, even if the level being read
    takes minutes (a resumed build's first levels read may be large). Once
    anything was said, the end is said too, so that the driver stops showing a
    reading that is over (or failed). Nothing is said outside a Dask worker (a
    task called directly), nor to a driver that prints nothing (``every`` infinite).
    """

    def __init__(self, run: str, total: int, every: float) -> None:
        self.topic, self.total, self.read, self.every = topic(run), total, 0, every / SHARE
        self.began = self.last = time.perf_counter()
        self.said = self.over = False
        self._lock = threading.Lock()  # the timer's thread and the task's both say things
        self.worker: Any = None
        if total > 0 and every != float("inf"):
            try:
                self.worker = get_worker()
                self.task = str(self.worker.get_current_task())
            except (ValueError, KeyError):  # not in a worker's task
                self.worker = None
        self._timer = threading.Timer(self.every, self._say)
        self._timer.daemon = True

    def __enter__(self) -> Self:
        if self.worker is not None:
            self._timer.start()
        return self

    def add(self, positions: int) -> None:
        """Positions taken in (read, or found held by another worker of this machine)."""
        self.read += positions
        if self.said and time.perf_counter() - self.last >= self.every:
            self._say()

    def __exit__(self, *exc: object) -> None:
        self._timer.cancel()
        with self._lock:
            if self.said:
                self._send(over=True)
            self.over = True  # a timer already running says nothing after the end

    def _say(self) -> None:
        with self._lock:
            if not self.over:
                self._send(over=False)

    def _send(self, over: bool) -> None:
        self.said, self.last = True, time.perf_counter()
        self.worker.log_event(self.topic, {"task": self.task, "read": int(self.read), "total": int(self.total),
                                           "seconds": self.last - self.began, "over": over})


@contextlib.contextmanager
def listening(client: Client, run: str, progress: Reporter) -> Iterator[None]:
    """While the block runs, the run's workers' reports go to ``progress`` (from the client's event loop).

    Subscribed before any task is submitted: the scheduler sends a topic's events
    only to those subscribed when they come.
    """
    name = topic(run)

    def heard(event: tuple[float, dict[str, Any]]) -> None:
        said = event[1]
        progress.reading(said["task"], said["read"], said["total"], said["seconds"], said["over"])

    client.subscribe_topic(name, heard)
    try:
        yield
    finally:
        # A client already closed or a scheduler lost leaves nothing to hear: the build's own error says more.
        with contextlib.suppress(ClosedClientError, OSError, ValueError):
            client.unsubscribe_topic(name)
