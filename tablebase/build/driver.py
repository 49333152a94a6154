"""The build driver: a job becomes levels, levels become partitions, partitions become Dask tasks.

A level's partitions (or a run of small levels) form a step; each step's tasks
wait for the step below inside the scheduler, dealt to the workers in turn. The driver collects each partition's file record into the manifest
(saved as it goes, so a killed build resumes where it stopped) and reports
progress.
"""

from __future__ import annotations

import logging
import os
import time
import uuid
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

import dask
from distributed import Client, LocalCluster, as_completed

import tablebase
from tablebase.build import shared
from tablebase.build import values as values_table
from tablebase.build.memory import plan_memory
from tablebase.build.progress import Progress
from tablebase.build.tasks import solve_slices, warm_up
from tablebase.errors import StoreError, TablebaseError
from tablebase.games import Game
from tablebase.store import Manifest, remove_leftovers, table_dir

DEFAULT_PARTITION_ROWS = 65_536  # at least; large tables get larger partitions
PARTITIONS_PER_TABLE = 512  # about; each task costs the scheduler a round trip and the store a file
MANIFEST_EVERY = 1.0  # seconds between manifest saves while a table builds


@dataclass(frozen=True)
class TableSpec:
    """One table to build: a game with its parameters, under a name."""

    game: Game
    name: str
    #: False: files leave out the position text, which views and lookups spell from the key
    position_text: bool = True


@contextmanager
def dask_client(scheduler: str | None = None, workers: int | None = None) -> Iterator[Client]:
    """A client of the given scheduler, or of a LocalCluster of worker processes started for the run."""
    if scheduler:
        try:
            client = Client(scheduler, timeout="10s")
        except (OSError, TimeoutError) as e:
            raise TablebaseError(f"cannot reach the Dask scheduler at {scheduler}: {e}") from None
        with client:
            yield client
        return
    n = workers or min(2, os.cpu_count() or 1)
    settings = {
        "distributed.scheduler.worker-saturation": "inf",
        # The statistical profiler samples each worker's thread every 10 ms; a
        # build has no use for it and its tasks pay for every sample.
        "distributed.worker.profile.enabled": False,
    }
    with dask.config.set(settings):
        cluster = LocalCluster(
            n_workers=n,
            threads_per_worker=1,
            processes=True,
            dashboard_address=":0",
            silence_logs=logging.CRITICAL,
        )
    with cluster, Client(cluster) as client:
        yield client


def default_partition_rows(game: Game) -> int:
    """A power of two, so that a table has about PARTITIONS_PER_TABLE partitions and tasks last long enough."""
    total = sum(game.level_size(k) for k in range(game.max_level + 1))
    rows = DEFAULT_PARTITION_ROWS
    while rows * PARTITIONS_PER_TABLE < total:
        rows *= 2
    return rows


def plan(game: Game, partition_rows: int) -> dict[str, dict[str, int]]:
    """Levels with positions, each with its size and number of partitions.

    A level of a quarter partition or more is cut into an even number of parts:
    every level waits for the one below, so a level solved by one task leaves
    a second worker idle. The plan never depends on the number of workers, so
    any cluster writes the same files.
    """
    out = {}
    for level in range(game.max_level + 1):
        size = game.level_size(level)
        if not size:
            continue
        parts = 1
        if not game.whole_levels and size >= max(2, partition_rows // 4):
            parts = 2 * -(-size // (2 * partition_rows))
        out[str(level)] = {"positions": size, "parts": parts}
    return out


def _start_manifest(root: Path, spec: TableSpec, partition_rows: int, old: Manifest | None) -> Manifest:
    """The manifest to build into: a fresh one, or the one an earlier run of the same build left."""
    fresh = Manifest(
        table=spec.name,
        game=spec.game.name,
        kind=spec.game.kind,
        params=spec.game.params,
        version=tablebase.__version__,
        partition_rows=partition_rows,
        plan=plan(spec.game, partition_rows),
        position_text=spec.position_text,
    )
    if old is None:
        return fresh
    if not old.same_build(fresh):
        raise StoreError(
            f"table {spec.name} in {root} was built as {old.game} {old.params} "
            f"(version {old.version}, partitions of {old.partition_rows}); "
            "build into another --out or under another --table name"
        )
    # Keep only records whose files are still there, whole.
    old.files = {
        name: rec
        for name, rec in old.files.items()
        if (table_dir(root, spec.name) / name).is_file()
        and (table_dir(root, spec.name) / name).stat().st_size == rec["bytes"]
    }
    old.plan = fresh.plan
    return old


Slice = tuple[int, int, int, int]  # level, part, first position, end position


def schedule(manifest: Manifest) -> list[list[list[Slice]]]:
    """Steps of tasks of slices, leaving out the partitions already built.

    A step's tasks run in parallel once the step before is done. A large level
    is one step of one task per partition; a run of small consecutive levels
    is one task, solved in order, so that tiny levels do not cost a task each.
    """
    steps: list[list[list[Slice]]] = []
    group: list[Slice] = []
    group_rows = 0
    for level in sorted(int(k) for k in manifest.plan):
        size = manifest.plan[str(level)]["positions"]
        parts = manifest.plan[str(level)]["parts"]
        todo = [
            (level, part, part * size // parts, (part + 1) * size // parts)
            for part in range(parts)
            if f"level={level}/part-{part:05d}.parquet" not in manifest.files
        ]
        if not todo:
            continue
        if parts == 1 and group_rows + size <= manifest.partition_rows:
            group += todo
            group_rows += size
            continue
        if group:
            steps.append([group])
            group, group_rows = [], 0
        if parts == 1:
            group, group_rows = todo, size
        else:
            steps.append([[s] for s in todo])
    if group:
        steps.append([group])
    return steps


def deal(step: list[list[Slice]], workers: int) -> list[list[Slice]]:
    """The tasks of a step: its partitions dealt to the workers in turn, one task per worker.

    A task per partition would cost the scheduler, the driver and the workers a
    round trip each; on a 2-core machine that time comes out of the solving.
    """
    if len(step) <= workers:
        return step
    return [[s for task in step[w::workers] for s in task] for w in range(workers)]


def worker_memory_limit(client: Client) -> int | None:
    """The smallest memory limit among the cluster's workers, if they have one."""
    limits = [w.get("memory_limit") or 0 for w in client.scheduler_info()["workers"].values()]
    return min(limits) if limits and min(limits) > 0 else None


def build_table(
    client: Client, root: Path, spec: TableSpec, partition_rows: int | None = None, every: float = 1.0
) -> dict:
    """Build (or finish building) one table; return the summary of the run.

    ``partition_rows`` fixes the partition size; by default it is planned from
    the workers' memory. A table being resumed keeps the size it was begun with.
    The caller holds the table's build lock.
    """
    began = time.perf_counter()
    old = Manifest.load_if_exists(root, spec.name)
    requested = partition_rows or (old.partition_rows if old else default_partition_rows(spec.game))
    biggest = max((spec.game.level_size(k) for k in range(spec.game.max_level + 1)), default=0)
    memory = plan_memory(spec.game, requested, bool(partition_rows or old), worker_memory_limit(client), biggest)
    manifest = _start_manifest(root, spec, memory.partition_rows, old)
    remove_leftovers(table_dir(root, spec.name))
    values_table.prepare(root, manifest, spec.game)
    manifest.complete = False
    total = sum(v["positions"] for v in manifest.plan.values())
    n_parts = sum(v["parts"] for v in manifest.plan.values())
    skipped = len(manifest.files)
    progress = Progress(spec.name, total, spec.game.max_level, every=every)
    progress.resumed(sum(f["rows"] for f in manifest.files.values()))
    progress.say(
        f"{total:,} positions in {len(manifest.plan)} levels, {n_parts} partitions"
        + (f" ({skipped} already built, skipped)" if skipped else "")
        + f", {len(client.scheduler_info()['workers'])} workers"
    )
    progress.say(memory.describe())
    run = uuid.uuid4().hex
    client.run(shared.remove_unused, on_error="ignore")  # left by builds that were killed
    collector = _Collector(root, manifest, progress)
    workers = sorted(client.scheduler_info()["workers"])
    warming = [
        client.submit(
            warm_up, run, spec.game.name, spec.game.params,
            key=f"warm-up-{spec.name}-{i}-{run}", workers=[worker], allow_other_workers=True, pure=False,
        )
        for i, worker in enumerate(workers)
    ]
    # Every step is submitted at once, each task taking the tasks of the step
    # below as arguments: the scheduler starts a step as soon as the one below
    # is done, without a round trip through this process. Tasks are dealt to the
    # workers in turn (the scheduler would otherwise run them where their
    # arguments are, all on one worker); any worker takes them if one dies.
    pending: dict[str, Any] = {}
    below: list = []
    try:
        for number, step in enumerate(schedule(manifest)):
            below = [
                client.submit(
                    solve_slices, run, str(root), spec.name, spec.game.name, spec.game.params, slices,
                    spec.position_text, below, key=f"solve-{spec.name}-{number}.{i}-{run}", pure=False,
                    workers=[workers[i % len(workers)]], allow_other_workers=True,
                )
                for i, slices in enumerate(deal(step, len(workers)))
            ]
            pending.update((f.key, f) for f in below)
        below = []
        for future in as_completed(list(pending.values())):
            collector.add(future.result())
            # Forgotten once the step above has started, so that a worker lost
            # later does not make the scheduler compute it again.
            del pending[future.key]
        if values_table.wanted(spec.game):
            manifest.levels_done = collector.finished()
            values_table.merge(client, root, manifest, run, progress.say)
        remove_leftovers(table_dir(root, spec.name))
    finally:
        manifest.levels_done = collector.finished()
        manifest.complete = len(manifest.levels_done) == len(manifest.plan) and (
            not values_table.wanted(spec.game) or values_table.merged(manifest))
        manifest.save(root)
        unfinished = [f for f in [*pending.values(), *warming] if not f.done()]
        if unfinished:
            client.cancel(unfinished)
        client.run(shared.remove, run, on_error="ignore")
    return {
        "table": spec.name,
        "positions": manifest.positions,
        "levels": len(manifest.plan),
        "seconds": round(time.perf_counter() - began, 3),
        "partitions": n_parts,
        "skipped_partitions": skipped,
        "bytes": manifest.bytes,
        "memory_estimate_mib": round(memory.peak / 2**20),
        "worker_seconds": {phase: round(seconds, 3) for phase, seconds in collector.busy.items()},
    }


class _Collector:
    """Records finished partitions in the manifest (saved now and then), reports progress,
    and adds up the seconds the workers spent reading lower levels, solving and writing."""

    def __init__(self, root: Path, manifest: Manifest, progress: Progress) -> None:
        self.root, self.manifest, self.progress = root, manifest, progress
        self.busy = {"read": 0.0, "solve": 0.0, "write": 0.0}
        self.done_in_level: dict[int, int] = {}
        for name in manifest.files:
            level = int(name.split("/")[0].split("=")[1])
            self.done_in_level[level] = self.done_in_level.get(level, 0) + 1
        self.last_save = time.perf_counter()
        self.save_seconds = 0.0

    def finished(self) -> list[int]:
        plan = self.manifest.plan
        return sorted(lvl for lvl, n in self.done_in_level.items() if n == plan[str(lvl)]["parts"])

    def add(self, records: list[dict]) -> None:
        for record in records:
            level = record.pop("level")
            for phase, seconds in record.pop("seconds").items():  # not in the manifest: not reproducible
                self.busy[phase] += seconds
            values_table.record_piece(self.manifest, record.pop("values"))
            self.manifest.files[record.pop("file")] = record
            done = self.done_in_level[level] = self.done_in_level.get(level, 0) + 1
            parts = self.manifest.plan[str(level)]["parts"]
            self.progress.part_done(level, record["rows"], done, parts, done == parts)
        if time.perf_counter() - self.last_save > max(MANIFEST_EVERY, 10 * self.save_seconds):
            # A table of thousands of files takes a while to save: never more
            # than a tenth of the time, which the workers' cores share.
            began = time.perf_counter()
            self.manifest.levels_done = self.finished()
            self.manifest.save(self.root)
            self.last_save = time.perf_counter()
            self.save_seconds = self.last_save - began
