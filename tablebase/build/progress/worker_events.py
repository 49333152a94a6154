"""What happens inside a worker's task, told to the driver as it goes: reading back, solving, compiling.

A driver that counts finished parts would have nothing to say while a task
reads back the lower levels its solver lacks (``Report``), solves a part of a
large level (``solve_part_told``) or has numba compile the game's functions
(``Compiling``). Workers tell it through Dask's events (``Worker.log_event``),
not through results, which come only when a task ends; ``listening`` hands each
report to ``Progress``. The topic is named by the build's run, so that two
builds on one cluster each hear their own workers.
"""

from __future__ import annotations

import bisect
import contextlib
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any, Protocol, Self

from distributed import Client, get_worker
from distributed.client import ClosedClientError

from tablebase import jit
from tablebase.lazy import pa
from tablebase.store import Plan

# A worker says how far it has got this many times for each line the driver prints (once a second:
# four a second), so that each line is fresh, whatever the number of levels.
SHARE = 4


def topic(run: str) -> str:
    """The events' topic for one build run (``TableBuild.run``)."""
    return f"tablebase-reading-{run}"


def positions_of(plan: Plan, levels: list[int]) -> list[int]:
    """The positions of each level (ascending; 0 for a level without any), span by span: a subtraction
    game lacks a million levels at its first task, too many to ask the plan for one at a time."""
    counts: list[int] = []
    at = 0
    for first, _, sizes in plan.spans:
        below = bisect.bisect_left(levels, first, at)
        ends = bisect.bisect_left(levels, first + len(sizes), below)
        counts += [0] * (below - at) + [sizes[level - first] for level in levels[below:ends]]
        at = ends
    return counts + [0] * (len(levels) - at)


class Reporter(Protocol):
    """What hears the reports (``Progress``): named here so that display.py need know nothing of Dask."""

    def reading(self, task: str, read: int, total: int, seconds: float, over: bool = False,
                what: str | None = None) -> None: ...

    def solving(self, part: str, level: int, done: int, seconds: float, over: bool = False) -> None: ...

    def compiling(self, task: str, seconds: float, functions: int, over: bool = False) -> None: ...

    def listing(self, task: str, level: int, played: int, over: bool = False) -> None: ...


def _on_worker(every: float) -> tuple[Any, str] | None:
    """This task's worker and its name, if it runs on one and the driver prints anything."""
    if every == float("inf"):
        return None
    try:
        worker = get_worker()
        return worker, str(worker.get_current_task())
    except (ValueError, KeyError):  # not in a worker's task
        return None


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

    def __init__(self, run: str, total: int, every: float, report: str = "reading", **about: Any) -> None:
        self.topic, self.total, self.read, self.every = topic(run), total, 0, every / SHARE
        self.report, self.about = report, about  # ``listing``: positions a listing's task played (``about``: where)
        self.began = self.last = time.perf_counter()
        self.said = self.over = False
        self._lock = threading.Lock()  # the timer's thread and the task's both say things
        self.worker: Any = None
        found = _on_worker(every) if total > 0 else None
        if found is not None:
            self.worker, self.task = found
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
        self.worker.log_event(self.topic, {**self.about, "report": self.report, "task": self.task,
                                           "read": int(self.read), "total": int(self.total),
                                           "seconds": self.last - self.began, "over": over})


# A part's positions solved at a time: each step's are told. Fixed, so that a part's rows (their dictionaries'
# order) are the same whoever builds it and whether anyone is told; a step of Chomp costs what a part's call does.
STEP = 8_192


def solve_part_told(solve: Callable[[int, int], pa.Table], start: int, stop: int, run: str, part: str, level: int,
                    every: float) -> pa.Table:
    """The rows of positions ``start``..``stop``-1 of a level, ``solve(a, b)`` giving those of a..b-1, solved
    ``STEP`` positions at a time (positions of one level do not depend on each other). On a worker whose
    driver prints, the positions solved are told as the steps end, at most every ``every / SHARE`` seconds
    and not in the first such interval (as ``Report`` does), so that the count moves within the part."""
    found = _on_worker(every)
    told = topic(run)
    between = every / SHARE
    began = last = time.perf_counter()
    said = False
    steps = []
    try:
        for at in range(start, stop, STEP):
            steps.append(solve(at, min(at + STEP, stop)))
            now = time.perf_counter()
            if found is not None and at + STEP < stop and now - last >= between:
                said, last = True, now
                found[0].log_event(told, {"report": "solving", "part": part, "level": level,
                                          "done": at + STEP - start, "seconds": now - began, "over": False})
    except BaseException:
        if said:  # the driver stops counting what this part had done
            found[0].log_event(told, {"report": "solving", "part": part, "level": level, "done": 0, "seconds": 0.0,
                                      "over": True})
        raise
    if not steps:
        return solve(start, stop)
    return pa.concat_tables(steps).combine_chunks() if len(steps) > 1 else steps[0]


class Compiling:
    """While the block runs, numba's compiling of functions not in its cache (``jit.compiling_heard``) is told
    to the driver: at once as it begins, then every ``every / SHARE`` seconds with the functions compiled so
    far, and as it ends. Nothing is said outside a worker, or to a driver that prints nothing."""

    def __init__(self, run: str, every: float) -> None:
        self.topic, self.every = topic(run), every / SHARE
        self.found = _on_worker(every)
        self._compiling = threading.Event()
        self._ended = threading.Event()
        self._held: contextlib.ExitStack = contextlib.ExitStack()
        self.began, self.first = 0.0, 0

    def __enter__(self) -> Self:
        if self.found is not None:
            self._held.enter_context(jit.compiling_heard(self._heard))
        return self

    def __exit__(self, *exc: object) -> None:
        self._held.close()
        if self._compiling.is_set():  # the task failed while compiling
            self._heard(False)

    def _heard(self, begins: bool) -> None:
        if begins:
            self.began, self.first = time.perf_counter(), jit.functions_compiled()
            self._compiling.set()
            self._ended.clear()
            self._send(False)
            threading.Thread(target=self._tick, name="tablebase-compiling", daemon=True).start()
        else:
            self._compiling.clear()
            self._ended.set()
            self._send(True)

    def _tick(self) -> None:
        while not self._ended.wait(self.every):
            self._send(False)

    def _send(self, over: bool) -> None:
        worker, task = self.found
        worker.log_event(self.topic, {"report": "compiling", "task": task, "seconds": time.perf_counter() - self.began,
                                      "functions": jit.functions_compiled() - self.first, "over": over})


@contextlib.contextmanager
def listening(client: Client, run: str, progress: Reporter) -> Iterator[None]:
    """While the block runs, the run's workers' reports go to ``progress`` (from the client's event loop).

    Subscribed before any task is submitted: the scheduler sends a topic's events
    only to those subscribed when they come.
    """
    name = topic(run)

    def heard(event: tuple[float, dict[str, Any]]) -> None:
        said = event[1]
        report = said.get("report")
        if report == "solving":
            progress.solving(said["part"], said["level"], said["done"], said["seconds"], said["over"])
        elif report == "compiling":
            progress.compiling(said["task"], said["seconds"], said["functions"], said["over"])
        elif report == "listing":
            progress.listing(said["task"], said["level"], said["read"], said["over"])
        else:
            progress.reading(said["task"], said["read"], said["total"], said["seconds"], said["over"])

    client.subscribe_topic(name, heard)
    try:
        yield
    finally:
        # A client already closed or a scheduler lost leaves nothing to hear: the build's own error says more.
        with contextlib.suppress(ClosedClientError, OSError, ValueError):
            client.unsubscribe_topic(name)
