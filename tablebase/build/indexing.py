"""The last step of a build: the table's probe index, written by the cluster's workers once the table is whole.

Other programs probe a table through this file by memory-mapping it
(``tablebase.probe``, ``docs/format.md``). It is made from the table's own
Parquet files, a batch at a time (``tablebase.store.probe``): the driver
plans it, and the workers do each pass's parts at once (``OnWorkers``): the
files surveyed one by one, a dense index's records written by ranges of
keys straight into the file. Tables built before it existed get theirs from
``tablebase index``, which runs the same parts on processes of its own.
"""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from distributed import Client, Future

from tablebase.build import heap, readback
from tablebase.build.failures import RecordsLost, again_key, records_of, submitted_again
from tablebase.build.placing import finishing
from tablebase.build.progress import Progress
from tablebase.store import Manifest, table_dir
from tablebase.store.probe import PASSES, WEIGHTS, WORK
from tablebase.store.probe.parts import Done, Task


def index_work(manifest: Manifest) -> tuple[int, str]:
    """The index's work in all (``write_index``'s ``done`` counts it: rows read, each pass's weighted), and
    what the progress calls it."""
    rows = sum(r["rows"] for r in manifest.files.values())
    return WORK * rows, (f"writing the probe index, {PASSES} passes over {rows:,} rows "
                         f"(a row counted {', '.join(map(str, WEIGHTS))} times in each)")


def counting(progress: Progress, total: int, what: str) -> Done:
    """What hears the index's rows read: ``progress`` shows them against ``total`` with the rate and ETA."""
    began, read, lock = time.perf_counter(), 0, threading.Lock()

    def done(rows: int) -> None:
        nonlocal read
        with lock:
            read += rows
            progress.reading("index", read, total, time.perf_counter() - began, what=what)

    return done


def index_whole(root: Path, manifest: Manifest) -> bool:
    """Whether the manifest records a probe index whose file is there at its recorded size."""
    folder = table_dir(root, manifest.table)
    return bool(manifest.probe) and all((folder / name).is_file() and (folder / name).stat().st_size == r["bytes"]
                                        for name, r in manifest.probe.items())


class OnWorkers:
    """The index's parts run as tasks on the build's workers (a ``Parallel``), as many at once as they have
    threads. Each task tells how many rows it has read through the run's events as it goes
    (``readback.Report``); the rest is counted when it ends. They are waited for as the solving tasks are
    (``placing.finishing``): a worker paused for memory is made to hand back what its allocators keep, and
    restarted if it stays paused, where it would otherwise hold the index's tasks for ever."""

    def __init__(self, client: Client, table: str, run: str, every: float, limit: int | None = None,
                 say: Callable[[str], None] = lambda line: None) -> None:
        self.client, self.table, self.run, self.every, self.limit, self.say = client, table, run, every, limit, say
        self.width = max(1, sum(client.nthreads().values()))

    def __call__(self, task: Task, items: list[Any], done: Done) -> Iterator[tuple[int, Any]]:
        summed = _Summed(done)
        name = f"index-{self.table}-{uuid.uuid4().hex[:8]}"
        with readback.listening(self.client, self.run, summed):
            keys = [f"{name}-{i}-{self.run}" for i in range(len(items))]
            futures = self.client.map(_reported, [task] * len(items), items, run=self.run, every=self.every,
                                      pure=False, key=keys)
            index = dict(zip(keys, range(len(items))))
            # Only the tasks not yet gathered are held: a result held by the client stays in its worker's
            # memory, and a pass's results (each file's distinct tuples) would add up there.
            pending = dict(zip(keys, futures))
            del futures
            try:
                for future in finishing(self.client, pending, self.run, self.say):
                    del pending[future.key]
                    part = index[future.key]
                    try:
                        result, rows = records_of(future, self.table, limit=self.limit,
                                                  work=f"writing part {part + 1} of {len(items)} of the probe index")
                    except RecordsLost:
                        if submitted_again(future.key, self.run):
                            raise
                        again = self._submitted_again(future, task, items[part], summed)
                        pending[again.key], index[again.key] = again, part
                        continue
                    future.release()
                    summed.reading(future.key, rows, rows, 0.0)
                    yield part, result
            finally:
                left = [f for f in pending.values() if not f.done()]
                if left and self.client.status == "running":
                    self.client.cancel(left)

    def _submitted_again(self, lost: Future, task: Task, item: Any, summed: _Summed) -> Future:
        """A part whose records were lost with its worker, submitted once more under a key of its own, as the
        solve does (``driver.TableBuild._submit_again``): a part writes the same bytes whenever it runs. The
        rows it was heard to read are taken back, since it reads them again."""
        self.say("a worker holding a part of the probe index was lost: writing that part again")
        summed.forget(lost.key)
        lost.cancel()
        return self.client.submit(_reported, task, item, run=self.run, every=self.every, pure=False,
                                  key=again_key(lost.key, self.run))


def _reported(task: Task, item: Any, run: str, every: float) -> tuple[Any, int]:
    """On a worker: the task's result, and the rows it read, told to the driver as it reads them; Arrow's
    freed memory handed back after it, which Dask would count as the worker's."""
    try:
        with readback.Report(run, 1, every) as report:
            return task(item, report.add), report.read
    finally:
        heap.hand_back_arrow_memory()


class _Summed:
    """Each task's rows read so far (its reports say its running total), their growth told to ``done``."""

    def __init__(self, done: Done) -> None:
        self.done, self.heard, self.lock = done, dict[str, int](), threading.Lock()

    def reading(self, task: str, read: int, total: int, seconds: float, over: bool = False,
                what: str | None = None) -> None:
        with self.lock:
            more = read - self.heard.get(task, 0)
            if more > 0:
                self.heard[task] = read
                self.done(more)

    def forget(self, task: str) -> None:
        """The rows heard from a task that will run again, taken back from the count."""
        with self.lock:
            taken = self.heard.pop(task, 0)
            if taken:
                self.done(-taken)
