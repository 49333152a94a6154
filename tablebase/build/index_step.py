"""The last step of a build: the probe index's directory, once every segment is written.

The index's segments are written from what the workers hold, never from the
table's Parquet files read back: a dense impartial game's from its values by
one task a range of keys (``tasks.index_values``), any other game's part by
part as it is solved (``tasks._segment``). What is left here is to run the
first, write the segments of parts that have none (a table begun before
segments were written beside its rows), and write the directory that names
them all (``tablebase.probe_writer``).
"""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Callable, Iterator
from functools import partial
from typing import TYPE_CHECKING, Any

from distributed import Client, Future

from tablebase.build.cluster import allocator
from tablebase.build.cluster.failures import RecordsLost, again_key, records_of, submitted_again
from tablebase.build.cluster.lost_workers import finishing
from tablebase.build.progress import worker_events
from tablebase.build.progress.display import Progress, Ticker
from tablebase.build.tasks import index_values
from tablebase.probe.format import FILE_NAME
from tablebase.probe_writer import (
    FILE_SEGMENTS,
    SEGMENT_KEYS,
    index_figures,
    lacking_segments,
    segment_of_file,
    segments_of_table,
    write_index_directory,
)
from tablebase.spelling import counted
from tablebase.store import Manifest
from tablebase.store.location import Location
from tablebase.store.placed import file_sized

if TYPE_CHECKING:
    from tablebase.games import KeyedGame

Done = Callable[[int], None]  # hears keys or rows done
Task = Callable[[Any, Done], Any]  # (item, done) -> the item's result


def key_ranges(key_space: int) -> list[tuple[int, int]]:
    """The ranges of keys the index's tasks take, one segment file each: ``FILE_SEGMENTS`` segments, the
    same whatever the workers, so that the files are too."""
    step = FILE_SEGMENTS * SEGMENT_KEYS
    return [(a, min(a + step, key_space)) for a in range(0, key_space, step)]


def index_whole(root: Location, manifest: Manifest) -> bool:
    """Whether the manifest records a directory and every segment file, each there at its recorded size."""
    return FILE_NAME in manifest.probe and all(file_sized(root, manifest.table, name, r)
                                               for name, r in manifest.probe.items())


def counting(progress: Progress, total: int, what: str) -> Done:
    """What hears the index's work as it is done: ``progress`` shows it against ``total`` with rate and ETA."""
    began, done_so_far, lock = time.perf_counter(), 0, threading.Lock()

    def done(count: int) -> None:
        nonlocal done_so_far
        with lock:
            done_so_far += count
            progress.reading("index", done_so_far, total, time.perf_counter() - began, what=what)

    return done


def tasks_of(function: Callable[..., Any], *args: Any) -> Task:
    """A task of ``OnWorkers``: ``function(*args, item, done)``."""
    return partial(function, *args)


class OnWorkers:
    """Tasks run on the build's workers, as many at once as they have threads. Each tells how far it has got
    through the run's events as it goes (``worker_events.Report``); the rest is counted when it ends. They are
    waited for as the solving tasks are (``lost_workers.finishing``): a worker paused for memory is made to hand
    back what its allocators keep, and restarted if it stays paused. A task whose worker died holding its
    result is submitted once more: it writes the same bytes whenever it runs."""

    def __init__(self, client: Client, table: str, run: str, every: float, limit: int | None = None,
                 say: Callable[[str], None] = lambda line: None) -> None:
        self.client, self.table, self.run, self.every, self.limit, self.say = client, table, run, every, limit, say
        self.width = max(1, sum(client.nthreads().values()))

    def __call__(self, task: Task, items: list[Any], done: Done, work: str = "the probe index"
                 ) -> Iterator[tuple[int, Any]]:
        summed = _Summed(done)
        name = f"index-{self.table}-{uuid.uuid4().hex[:8]}"
        workers = sorted(self.client.scheduler_info().get("workers", {}))
        with worker_events.listening(self.client, self.run, summed):
            keys = [f"{name}-{i}-{self.run}" for i in range(len(items))]
            # Dealt to the workers in turn, as the solving tasks are; any worker takes one if its own dies.
            futures = [self.client.submit(_reported, task, item, run=self.run, every=self.every, pure=False, key=key,
                                          workers=[workers[i % len(workers)]] if workers else None,
                                          allow_other_workers=True)
                       for i, (item, key) in enumerate(zip(items, keys))]
            index = dict(zip(keys, range(len(items))))
            pending = dict(zip(keys, futures))
            del futures
            try:
                for future in finishing(self.client, pending, self.run, self.say):
                    del pending[future.key]
                    part = index[future.key]
                    try:
                        result, count = records_of(future, self.table, limit=self.limit,
                                                   work=f"writing part {part + 1} of {len(items)} of {work}")
                    except RecordsLost:
                        if submitted_again(future.key, self.run):
                            raise
                        again = self._submitted_again(future, task, items[part], summed)
                        pending[again.key], index[again.key] = again, part
                        continue
                    future.release()
                    summed.reading(future.key, count, count, 0.0)
                    yield part, result
            finally:
                left = [f for f in pending.values() if not f.done()]
                if left and self.client.status == "running":
                    self.client.cancel(left)

    def _submitted_again(self, lost: Future, task: Task, item: Any, summed: _Summed) -> Future:
        self.say("a worker holding a part of the probe index was lost: writing that part again")
        summed.forget(lost.key)
        lost.cancel()
        return self.client.submit(_reported, task, item, run=self.run, every=self.every, pure=False,
                                  key=again_key(lost.key, self.run))


def _reported(task: Task, item: Any, run: str, every: float) -> tuple[Any, int]:
    """On a worker: the task's result, and what it did, told to the driver as it goes; Arrow's freed memory
    handed back after it, which Dask would count as the worker's."""
    try:
        with worker_events.Report(run, 1, every) as report:
            return task(item, report.add), report.read
    finally:
        allocator.hand_back_arrow_memory()


class _Summed:
    """Each task's count so far (its reports say its running total), their growth told to ``done``."""

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
        with self.lock:
            taken = self.heard.pop(task, 0)
            if taken:
                self.done(-taken)


def write_index(build: Any) -> float | None:
    """The probe index of the driver's ``TableBuild``: the segments the values give (a dense impartial
    game's), or those of parts that have none, written by the workers; then the directory. Kept when this
    run built nothing and the one recorded is whole. Its seconds, or None if it was kept."""
    manifest, builder = build.manifest, build.builder
    if not build.whole() or (build.skipped == len(build.layout.pieces) and index_whole(build.root, manifest)):
        return None
    manifest.probe.pop(FILE_NAME, None)
    figures = index_figures(build.root, manifest, builder.index_rules())
    from_values = builder.indexed_from_values and _keys_are_positions(builder.keyed, build.sizes)
    workers = OnWorkers(build.client, build.spec.name, build.run, build.every, build.memory.limit, build.progress.say)
    if from_values or not builder.parts_in_key_order:
        manifest.probe = {}  # what an earlier build of other segments left is written again
    if from_values:
        ranges: list = key_ranges(builder.keyed.key_space)
        task = tasks_of(index_values, *build.task_args, build.values, build.every, figures)
        total, what = builder.keyed.key_space, "writing the probe index from the values held"
    elif builder.parts_in_key_order:
        ranges = lacking_segments(manifest)
        task = tasks_of(segment_of_file, build.root, build.spec.name, figures, dict(manifest.files))
        total, what = sum(manifest.files[n]["rows"] for n in ranges), "writing the probe index of older parts"
    else:  # keys that do not come level by level: the rows put in key order, on one worker
        ranges = [None]
        task = tasks_of(segments_of_table, build.root, build.spec.name, figures, dict(manifest.files))
        total, what = manifest.positions, "writing the probe index from the rows put in key order"
    build.progress.say(f"{what}: {counted(len(ranges), 'task')}")
    began = time.perf_counter()
    with Ticker(build.progress.heartbeat, build.every):
        for _, record in workers(task, ranges, counting(build.progress, max(total, 1), what)):
            manifest.probe.update(record)
    write_index_directory(build.root, manifest, figures)
    seconds = time.perf_counter() - began
    size = sum(r["bytes"] for r in manifest.probe.values())
    build.progress.say(f"probe index: {size:,} bytes, {size / max(manifest.positions, 1):.2f} bytes a position, "
                      f"{seconds:.1f}s")
    return seconds


def _keys_are_positions(game: KeyedGame, sizes: list[int]) -> bool:
    """Whether every key of the game's dense ranking is a position but those it names as none."""
    return sum(sizes) + len(game.absent_keys) == game.key_space
