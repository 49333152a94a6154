"""The build driver: a job becomes levels, levels become partitions, partitions become Dask tasks.

Every task of a level waits on a barrier task of the level below, so the whole
table is submitted at once and the scheduler, not a driver round trip, starts
each level. The driver only collects each partition's file record into the
manifest (saved as it goes, so a killed build resumes where it stopped) and
reports progress.
"""

from __future__ import annotations

import logging
import os
import time
import uuid
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

import dask
from distributed import Client, LocalCluster, as_completed

import tablebase
from tablebase.build.progress import Progress
from tablebase.build.tasks import barrier, solve_partition
from tablebase.errors import StoreError, TablebaseError
from tablebase.games import Game
from tablebase.store import BuildLock, Manifest, table_dir

DEFAULT_PARTITION_ROWS = 65_536
MANIFEST_EVERY = 1.0  # seconds between manifest saves while a table builds


@dataclass(frozen=True)
class TableSpec:
    """One table to build: a game with its parameters, under a name."""

    game: Game
    name: str


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
    with dask.config.set({"distributed.scheduler.worker-saturation": "inf"}):
        cluster = LocalCluster(
            n_workers=n,
            threads_per_worker=1,
            processes=True,
            dashboard_address=":0",
            silence_logs=logging.ERROR,
        )
    with cluster, Client(cluster) as client:
        yield client


def plan(game: Game, partition_rows: int) -> dict[str, dict[str, int]]:
    """Levels with positions, each with its size and number of partitions."""
    out = {}
    for level in range(game.max_level + 1):
        size = game.level_size(level)
        if size:
            out[str(level)] = {"positions": size, "parts": -(-size // partition_rows)}
    return out


def _start_manifest(root: Path, spec: TableSpec, partition_rows: int) -> Manifest:
    fresh = Manifest(
        table=spec.name,
        game=spec.game.name,
        kind=spec.game.kind,
        params=spec.game.params,
        version=tablebase.__version__,
        partition_rows=partition_rows,
        plan=plan(spec.game, partition_rows),
    )
    old = Manifest.load_if_exists(root, spec.name)
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


def build_table(client: Client, root: Path, spec: TableSpec, partition_rows: int, every: float = 1.0) -> dict:
    """Build (or finish building) one table; return the summary of the run."""
    began = time.perf_counter()
    lock = BuildLock(table_dir(root, spec.name))
    with lock:
        manifest = _start_manifest(root, spec, partition_rows)
        manifest.complete = False
        levels = sorted(int(k) for k in manifest.plan)
        total = sum(v["positions"] for v in manifest.plan.values())
        progress = Progress(spec.name, total, spec.game.max_level, every=every)
        run = uuid.uuid4().hex
        futures = []
        barriers = []
        after = None
        skipped = 0
        for level in levels:
            size = manifest.plan[str(level)]["positions"]
            parts = manifest.plan[str(level)]["parts"]
            level_futures = []
            for part in range(parts):
                name = f"level={level}/part-{part:05d}.parquet"
                if name in manifest.files:
                    skipped += 1
                    progress.resumed(manifest.files[name]["rows"])
                    continue
                start = part * size // parts
                stop = (part + 1) * size // parts
                level_futures.append(
                    client.submit(
                        solve_partition, run, str(root), spec.name, spec.game.name, spec.game.params,
                        level, part, start, stop, after,
                        key=f"solve-{spec.name}-{level}-{part}-{run}", pure=False,
                    )
                )
            if level_futures:
                futures.extend(level_futures)
                after = client.submit(barrier, *level_futures, key=f"level-{spec.name}-{level}-{run}", pure=False)
                barriers.append(after)
        n_parts = sum(v["parts"] for v in manifest.plan.values())
        progress.say(
            f"{total:,} positions in {len(levels)} levels, {n_parts} partitions"
            + (f" ({skipped} already built, skipped)" if skipped else "")
            + f", {len(client.scheduler_info()['workers'])} workers"
        )
        done_in_level: dict[int, int] = {}
        for name in manifest.files:
            level = int(name.split("/")[0].split("=")[1])
            done_in_level[level] = done_in_level.get(level, 0) + 1
        last_save = time.perf_counter()
        try:
            for future in as_completed(futures):
                record = future.result()
                level = record.pop("level")
                record.pop("part")
                record.pop("seconds")
                manifest.files[record.pop("file")] = record
                done_in_level[level] = done_in_level.get(level, 0) + 1
                parts = manifest.plan[str(level)]["parts"]
                progress.part_done(level, record["rows"], done_in_level[level], parts, done_in_level[level] == parts)
                if time.perf_counter() - last_save > MANIFEST_EVERY:
                    manifest.levels_done = sorted(l for l, n in done_in_level.items() if n == manifest.plan[str(l)]["parts"])
                    manifest.save(root)
                    last_save = time.perf_counter()
        finally:
            manifest.levels_done = sorted(l for l, n in done_in_level.items() if n == manifest.plan[str(l)]["parts"])
            manifest.complete = len(manifest.levels_done) == len(levels)
            manifest.save(root)
            unfinished = [f for f in futures + barriers if not f.done()]
            if unfinished:
                client.cancel(unfinished)
    return {
        "table": spec.name,
        "positions": manifest.positions,
        "levels": len(levels),
        "seconds": round(time.perf_counter() - began, 3),
        "partitions": n_parts,
        "skipped_partitions": skipped,
        "bytes": manifest.bytes,
    }
