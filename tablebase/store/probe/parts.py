"""A probe index's passes in parts at once: how parts are run, and how their CRCs become one.

Each pass over a table's rows is cut into parts that need nothing of one
another: the survey and the distinct tuples file by file, a dense index's
records by ranges of keys, each written at its own place in the file. A
``Parallel`` runs them: ``InProcesses`` in processes of its own
(``tablebase index``), ``InThreads`` in this process, a build on its
cluster's workers (``tablebase.build.indexing``). A section written in
parts gets its CRC-32 from the parts' CRCs (``crc32_joined``), without
reading it again.
"""

from __future__ import annotations

import multiprocessing
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, ThreadPoolExecutor, wait
from typing import Any, Protocol, Self

Done = Callable[[int], None]  # hears rows read
Task = Callable[[Any, Done], Any]  # (item, done) -> the item's result

__all__ = ["Done", "InProcesses", "InThreads", "Parallel", "Task", "crc32_joined"]


class Parallel(Protocol):
    """Runs ``task(item, done)`` on each item, as many at once as it has room for (``width``), yielding
    (the item's index, its result) as each ends; ``done`` hears the rows the tasks read as they read them.
    Leaving the loop early cancels the tasks not yet begun."""

    width: int

    def __call__(self, task: Task, items: list[Any], done: Done) -> Iterator[tuple[int, Any]]: ...


class InThreads:
    """A ``Parallel`` of this process's threads: Parquet's decoding and numpy's work on whole arrays let
    go of the GIL, so the passes' parts run side by side."""

    def __init__(self, width: int = 1) -> None:
        self.width = max(1, width)

    def __call__(self, task: Task, items: list[Any], done: Done) -> Iterator[tuple[int, Any]]:
        lock = threading.Lock()

        def told(rows: int) -> None:
            with lock:
                done(rows)

        if self.width == 1:
            for index, item in enumerate(items):
                yield index, task(item, told)
            return
        pool = ThreadPoolExecutor(self.width, thread_name_prefix="probe-index")
        try:
            yield from _as_they_end({pool.submit(task, item, told): i for i, item in enumerate(items)})
        finally:
            pool.shutdown(wait=True, cancel_futures=True)


class InProcesses:
    """A ``Parallel`` of processes started for it (spawned: this process may hold threads of Arrow's),
    kept for every pass while it is open (``with``). Each process adds the rows it reads to one shared
    counter, which is read while the parts run: threads share the GIL in numpy's and Python's own steps,
    and two of them gave 1.5 cores' work."""

    def __init__(self, width: int) -> None:
        self.width = max(1, width)
        context = multiprocessing.get_context("spawn")
        self._rows = context.Value("q", 0)
        self._told = 0
        self._pool = ProcessPoolExecutor(self.width, mp_context=context, initializer=_count_into,
                                         initargs=(self._rows,))

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self._pool.shutdown(wait=True, cancel_futures=True)

    def __call__(self, task: Task, items: list[Any], done: Done) -> Iterator[tuple[int, Any]]:
        futures = {self._pool.submit(_counted, task, item): i for i, item in enumerate(items)}
        try:
            yield from _as_they_end(futures, lambda: self._tell(done), every=0.25)
        finally:
            self._tell(done)

    def _tell(self, done: Done) -> None:
        read = self._rows.value
        if read > self._told:
            done(read - self._told)
            self._told = read


def _as_they_end(futures: dict[Future, int], tick: Callable[[], None] = lambda: None,
                 every: float | None = None) -> Iterator[tuple[int, Any]]:
    """(index, result) of each future as it ends (of those ending together, in index order); ``tick``
    called as each ends, and every ``every`` seconds meanwhile. Left early, the futures not begun are
    cancelled."""
    left = set(futures)
    try:
        while left:
            ended, left = wait(left, timeout=every, return_when=FIRST_COMPLETED)
            tick()
            for future in sorted(ended, key=futures.__getitem__):
                yield futures[future], future.result()
    finally:
        for future in left:
            future.cancel()


_shared_rows: Any = None  # in a process of ``InProcesses``: the counter of rows read


def _count_into(rows: Any) -> None:
    global _shared_rows
    _shared_rows = rows


def _add_rows(rows: int) -> None:
    with _shared_rows.get_lock():
        _shared_rows.value += rows


def _counted(task: Task, item: Any) -> Any:
    return task(item, _add_rows)


POLYNOMIAL = 0xEDB88320  # CRC-32's (zlib's), bits reflected: bit 31 is x^0


def _times(a: int, b: int) -> int:
    """a(x) b(x) modulo CRC-32's polynomial, both in its reflected form."""
    product, bit = 0, 1 << 31
    while a:
        if a & bit:
            product ^= b
            a ^= bit
        bit >>= 1
        b = (b >> 1) ^ POLYNOMIAL if b & 1 else b >> 1
    return product


def _shift(length: int) -> int:
    """x^(8 length) modulo the polynomial: what ``length`` bytes after a CRC multiply it by."""
    power, square = 1 << 31, 1 << 23  # x^0, and x^8 (one byte)
    while length:
        if length & 1:
            power = _times(square, power)
        square = _times(square, square)
        length >>= 1
    return power


def crc32_joined(parts: list[tuple[int, int]]) -> int:
    """The CRC-32 (``zlib.crc32``) of parts' bytes one after another, from each part's (CRC, length).

    A CRC-32 is linear in its message once its starting and final inversions
    are taken into account: the CRC of A then B is the CRC of A carried
    through len(B) zero bytes (a multiplication by x^(8 len(B)) modulo the
    polynomial) plus the CRC of B.
    """
    crc = 0
    for part, length in parts:
        crc = _times(_shift(length), crc) ^ part if length else crc
    return crc
