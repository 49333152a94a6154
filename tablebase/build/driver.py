"""The build driver: a job becomes levels, levels become partitions, partitions become Dask tasks.

A game that does not list its levels is listed first, on a worker
(build/listing.py). A level's partitions (or a run of small levels) form a
step; each step's tasks wait for the step below inside the scheduler, dealt to
the workers in turn. The driver collects each partition's file record into
the manifest (saved as it goes, so a killed build resumes where it stopped),
finishes the kind's artifacts (a partizan table's values table), and reports
progress.
"""

from __future__ import annotations

import errno
import logging
import os
import time
import uuid
from collections import Counter
from concurrent.futures import CancelledError
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator

import dask
from distributed import Client, LocalCluster, as_completed
from distributed.comm import CommClosedError
from distributed.scheduler import KilledWorker
from distributed.system import MEMORY_LIMIT

import tablebase
from tablebase import fork_server
from tablebase.build import shared
from tablebase.build.jobs import TableSpec
from tablebase.build.listing import list_on_cluster, stored_view
from tablebase.build.memory import MIB, Workers, local_worker_limit, notation_bytes, plan_memory
from tablebase.build.plan import deal, default_partition_rows, level_sizes, plan, schedule
from tablebase.build.progress import Progress
from tablebase.build.tasks import measure_notation, solve_slices, warm_up
from tablebase.errors import BuildError, StoreError, TablebaseError
from tablebase.kinds import Artifact, kind_of
from tablebase.store import Layout, Manifest, remove_leftovers, remove_listing, table_dir
from tablebase.words import counted

MANIFEST_EVERY = 1.0  # seconds between manifest saves while a table builds
WAIT_FOR_WORKERS = 60.0  # seconds a build waits for a scheduler's first worker (containers start together)


@contextmanager
def dask_client(scheduler: str | None = None, workers: int | None = None, shared_bytes: int = 0,
                small: bool = False) -> Iterator[Client]:
    """A client of the given scheduler, or of a LocalCluster started for the run.

    The local workers are processes, forked from the fork server
    (``tablebase.fork_server``) with the build's modules imported; a
    ``small`` job's workers are threads of this process instead, which start
    in a tenth of a second: forked processes take a quarter of a second once
    the server has its imports, and about a second before, more than such a
    job's whole work. ``shared_bytes``: the most values the local workers
    will share in memory (build/memory.py plans them once per machine).
    """
    if scheduler:
        try:
            client = Client(scheduler, timeout="10s")
        except (OSError, TimeoutError) as e:
            raise TablebaseError(f"cannot reach the Dask scheduler at {scheduler}: {e}") from None
        # The client's reconnecting, and failing to, is logged with tracebacks: the
        # build says in one line what happened instead.
        quiet = logging.getLogger("distributed.client")
        level = quiet.level
        quiet.setLevel(logging.CRITICAL)
        try:
            with client:
                try:  # a scheduler without workers would be given no task at all
                    client.wait_for_workers(1, timeout=WAIT_FOR_WORKERS)
                except TimeoutError:
                    raise TablebaseError(f"no Dask worker joined the scheduler at {scheduler} within "
                                         f"{WAIT_FOR_WORKERS:.0f} s; start some (dask worker {scheduler})") from None
                yield client
        finally:
            quiet.setLevel(level)
        return
    n = workers or min(2, os.cpu_count() or 1)
    settings = {
        "distributed.scheduler.worker-saturation": "inf",
        # The statistical profiler samples each worker's thread every 10 ms; a
        # build has no use for it and its tasks pay for every sample.
        "distributed.worker.profile.enabled": False,
    }
    processes: dict[str, Any] = {}
    if not small:
        settings["distributed.worker.multiprocessing-method"] = fork_server.start()
        # A forked worker starts with the environment the fork server had; a spawned one
        # would have this process's.
        processes["env"] = dict(os.environ)
    with dask.config.set(settings):
        cluster = LocalCluster(
            n_workers=n,
            threads_per_worker=1,
            processes=not small,
            dashboard_address=":0",
            silence_logs=logging.CRITICAL,
            memory_limit=local_worker_limit(MEMORY_LIMIT, n, shared_bytes),
            **processes,
        )
    with cluster, Client(cluster) as client:
        yield client


def cluster_workers(client: Client) -> Workers:
    """The workers' smallest memory limit, the most on one machine, and the least shared memory one has
    once what builds that were killed left there is removed."""
    info = client.scheduler_info()["workers"]
    limits = [w.get("memory_limit") or 0 for w in info.values()]
    hosts = Counter(w.get("host") for w in info.values())
    rooms = client.run(shared.clear_room, on_error="return")
    return Workers(limit=min(limits) if limits and min(limits) > 0 else None,
                   per_machine=max(hosts.values(), default=1),
                   shared_room=min((r for r in rooms.values() if isinstance(r, int)), default=0),
                   addresses=tuple(sorted(info)))


def _identity(spec: TableSpec, partition_rows: int) -> Manifest:
    """A fresh manifest of the table: what it is, before anything is planned."""
    game = spec.game
    return Manifest(table=spec.name, game=game.name, kind=game.kind, params=game.params,
                    version=tablebase.__version__, partition_rows=partition_rows,
                    source=spec.source.as_record(), compact=spec.compact)


RESUME = "files written so far are kept, run the same command again to resume"
# A finished task's records are small: longer than this to fetch them means the worker that held them
# died and the scheduler cannot compute them again (the tasks below were forgotten on purpose).
GATHER_SECONDS = 60


def _result(future: Any, table: str, levels: list[int] | None = None, limit: int | None = None) -> list[dict[str, Any]]:
    """A task's records; a task that failed (a bug in a game's code, a full disk, workers that
    died, the scheduler lost) is one line saying what to do."""
    where = _levels(levels)
    try:
        return future.result(timeout=GATHER_SECONDS if future.status == "finished" else None)
    except TablebaseError:
        raise
    except TimeoutError:
        raise BuildError(f"{table}: the worker that solved {where} was lost before its records were fetched; "
                         f"{RESUME}") from None
    except KilledWorker:
        most = f"{limit / MIB:,.0f} MiB" if limit else "their memory limit"
        raise BuildError(
            f"{table}: the workers that solved {where} died (a nanny kills a worker that passes {most}); "
            f"give each worker more memory (fewer workers per machine, dask worker --memory-limit) or "
            f"use smaller partitions (--partition-rows); {RESUME}") from None
    except (CancelledError, CommClosedError) as e:  # as when the scheduler is lost
        if isinstance(e, CancelledError) and future.client.status == "running":
            raise BuildError(f"{table}: the task solving {where} was cancelled on the cluster; {RESUME}") from e
        raise BuildError(f"{table}: lost the Dask scheduler at {future.client.scheduler.address} while solving "
                         f"{where}; files written so far are kept: start a scheduler and workers, then "
                         "run the same command again to resume") from None
    except Exception as e:  # raised in a worker, by any code a task runs
        if isinstance(e, OSError) and e.errno == errno.ENOSPC:
            raise  # the caller knows the folder: see disk_full
        raise BuildError(f"{table}: a task failed ({type(e).__name__}: {e}); {RESUME}") from e


def disk_full(e: OSError, table: str, root: Path) -> BuildError:
    """A file system with no room left (on a worker or here): one line naming the folder."""
    writing = f" writing {Path(e.filename).name}" if e.filename else ""
    return BuildError(f"{table}: the file system of {root} is full (no space left{writing}); "
                      f"free some space, then run the same command again to resume (files written so far are kept)")


def _levels(levels: list[int] | None) -> str:
    if not levels:
        return "a task"
    if len(levels) == 1:
        return f"level {levels[0]}"
    return f"levels {levels[0]}-{levels[-1]}"


def resumed(root: Path, spec: TableSpec, partition_rows: int | None) -> Manifest:
    """The manifest to build into: the one an earlier run of the same build left, or a fresh one."""
    old = Manifest.load_if_exists(root, spec.name)
    if old is None:
        return _identity(spec, partition_rows or 0)
    # 0: the earlier run stopped before its partitions were planned.
    fresh = _identity(spec, partition_rows or old.partition_rows)
    if not (old.files or old.listing.get("files") or old.values):
        remove_listing(root, spec.name)  # nothing was kept: whatever game it was, start again
        return fresh
    if old.partition_rows == 0:
        old.partition_rows = fresh.partition_rows
    if not old.same_build(fresh):
        changed = " (the game's source has changed)" if old.source.get("digest") != fresh.source.get("digest") else ""
        raise StoreError(
            f"table {spec.name} in {root} was built as {old.game} {old.params}{changed} "
            f"(version {old.version}, partitions of {old.partition_rows}); "
            "build into another --out or under another --table name"
        )
    folder = table_dir(root, spec.name)
    old.files = {name: rec for name, rec in old.files.items()  # only records whose files are whole
                 if (folder / name).is_file() and (folder / name).stat().st_size == rec["bytes"]}
    return old


def build_table(
    client: Client, root: Path, spec: TableSpec, partition_rows: int | None = None, every: float = 1.0
) -> dict:
    """Build (or finish building) one table; return the summary of the run.

    ``partition_rows`` fixes the partition size; by default it is planned from
    the workers' memory. A table being resumed keeps the size it was begun with.
    The caller holds the table's build lock.
    """
    began = time.perf_counter()
    kind = kind_of(spec.game)
    manifest = resumed(root, spec, partition_rows)
    fixed = bool(partition_rows or manifest.partition_rows)
    remove_leftovers(table_dir(root, spec.name))
    say = Progress(spec.name, 1, 0, every=every).say
    if kind.needs_listing(spec.game):
        manifest.complete = False
        manifest.save(root)
        list_on_cluster(client, root, manifest, spec.game, spec.source.ref, say)
    view = stored_view(spec.game, root, spec.name, manifest.listing)
    sizes = level_sizes(view)
    footprint, cluster = kind.footprint(view), cluster_workers(client)
    if footprint.per_notation_byte:
        # A listed game's notation is read from its listing here; any other game's is spelt by its own,
        # often compiled, code: on a worker, which has numba ready, while this process never starts it.
        if kind.needs_listing(spec.game):
            notation = notation_bytes(view)
        else:
            measuring = client.submit(measure_notation, spec.source.ref, spec.game.params, pure=False,
                                      key=f"notation-{spec.name}-{uuid.uuid4().hex}")
            notation = _result(measuring, spec.name, [view.max_level // 2], cluster.limit)  # the level sampled
        footprint = footprint.with_notation(notation)
    memory = plan_memory(view, footprint, manifest.partition_rows or default_partition_rows(sizes),
                         fixed, cluster, max(sizes, default=0), sum(sizes), kind.whole_levels)
    manifest.partition_rows = memory.partition_rows
    manifest.plan = plan(sizes, memory.partition_rows, kind.whole_levels)
    artifacts = kind.artifacts()
    for artifact in artifacts:
        artifact.prepare(root, manifest)
    manifest.complete = False
    manifest.save(root)  # the workers read the plan's layout from it
    total = sum(sizes)
    layout = manifest.layout()
    n_parts = len(layout.pieces)
    skipped = len(manifest.files)
    progress = Progress(spec.name, total, view.max_level, every=every)
    progress.resumed(sum(f["rows"] for f in manifest.files.values()))
    progress.say(
        f"{counted(total, 'position')} in {counted(len(manifest.plan), 'level')}, {counted(n_parts, 'file')}"
        + (f" ({skipped:,} already built, skipped)" if skipped else "")
        + f", {counted(len(cluster.addresses), 'worker')}"
    )
    progress.say(memory.describe())
    run = uuid.uuid4().hex
    collector = _Collector(root, manifest, layout, progress, artifacts)
    workers = list(cluster.addresses)
    task_args = (run, str(root), spec.name, spec.source.ref, spec.game.params)
    warming = [
        client.submit(warm_up, *task_args, key=f"warm-up-{spec.name}-{i}-{run}", workers=[worker],
                      allow_other_workers=True, pure=False)
        for i, worker in enumerate(workers)
    ]
    # Every step is submitted at once, each task taking the tasks of the step
    # below as arguments: the scheduler starts a step as soon as the one below
    # is done, without a round trip through this process. Tasks are dealt to the
    # workers in turn (the scheduler would otherwise run them where their
    # arguments are, all on one worker); any worker takes them if one dies.
    pending: dict[str, Any] = {}
    solving: dict[str, list[int]] = {}  # task -> its levels, to name them if it fails
    below: list = []
    try:
        for number, step in enumerate(schedule(manifest, layout)):
            dealt = deal(step, len(workers))
            below = [
                client.submit(
                    solve_slices, *task_args, slices, spec.compact, below,
                    key=f"solve-{spec.name}-{number}.{i}-{run}", pure=False,
                    workers=[workers[i % len(workers)]], allow_other_workers=True,
                )
                for i, slices in enumerate(dealt)
            ]
            pending.update((f.key, f) for f in below)
            solving.update((f.key, sorted({level for s in slices for level in (s[0].first, s[0].last)}))
                           for f, slices in zip(below, dealt))
        below = []
        for future in as_completed(list(pending.values())):
            try:
                records = _result(future, spec.name, solving[future.key], memory.limit)
            except BuildError:
                # Another task's failure (a worker killed for memory) says more than a lost record.
                for other in pending.values():
                    if other.status == "error":
                        _result(other, spec.name, solving[other.key], memory.limit)
                raise
            collector.add(records)
            # Forgotten once the step above has started, so that a worker lost
            # later does not make the scheduler compute it again.
            del pending[future.key]
        manifest.levels_done = collector.finished()
        for artifact in artifacts:
            _finish(client, root, manifest, artifact, run, progress.say)
        remove_leftovers(table_dir(root, spec.name))
    finally:
        manifest.levels_done = collector.finished()
        manifest.complete = len(manifest.levels_done) == len(manifest.plan) and all(
            a.complete(manifest) for a in artifacts)
        if manifest.complete and manifest.listing.get("files"):
            manifest.listing["files"] = {}  # the rows hold all that lookups need of it
        manifest.save(root)
        if manifest.complete:
            remove_listing(root, spec.name)
        if client.status == "running":  # not after the scheduler was lost
            unfinished = [f for f in [*pending.values(), *warming] if not f.done()]
            try:
                if unfinished:
                    client.cancel(unfinished)
                client.run(shared.remove, run, on_error="ignore")
            except (OSError, TimeoutError):
                pass  # lost on the way: the next build removes what the workers keep
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


def _finish(client: Client, root: Path, manifest: Manifest, artifact: Artifact, run: str, say: Any) -> None:
    """Run an artifact's finishing tasks on the cluster, then let it record what they wrote."""
    tasks = artifact.finishing_tasks(root, manifest)
    futures = [client.submit(function, *args, key=f"{name}-{manifest.table}-{run}", pure=False)
               for name, function, args in tasks]
    records = [future.result() for future in as_completed(futures)]
    artifact.finished(root, manifest, records, say)


class _Collector:
    """Records finished partitions in the manifest (saved now and then), reports progress,
    and adds up the seconds the workers spent reading lower levels, solving and writing."""

    def __init__(self, root: Path, manifest: Manifest, layout: Layout, progress: Progress,
                 artifacts: tuple[Artifact, ...]) -> None:
        self.root, self.manifest, self.layout, self.progress, self.artifacts = root, manifest, layout, progress, artifacts
        self.busy = {"read": 0.0, "solve": 0.0, "write": 0.0}
        # Files recorded of each piece's first level: a run's one file, or a level's parts so far.
        self.recorded = Counter(piece.first for piece in map(layout.named, manifest.files) if piece is not None)
        # The first records are saved at once: a disk that fills up within the first second leaves
        # no room to save the manifest at the end, and the files recorded before are then kept.
        self.last_save = float("-inf")
        self.save_seconds = 0.0

    def finished(self) -> list[int]:
        return self.layout.levels_held(self.manifest.files)

    def add(self, records: list[dict]) -> None:
        for record in records:
            name = record.pop("file")
            for phase, seconds in record.pop("seconds").items():  # not in the manifest: not reproducible
                self.busy[phase] += seconds
            for artifact, made in zip(self.artifacts, record.pop("pieces")):
                artifact.record(self.manifest, made)
            self.manifest.files[name] = record
            piece = self.layout.named(name)
            self.recorded[piece.first] += 1
            done = self.recorded[piece.first]
            self.progress.part_done(piece.last, record["rows"], done, piece.parts, done == piece.parts)
        if time.perf_counter() - self.last_save > max(MANIFEST_EVERY, 10 * self.save_seconds):
            # A table of thousands of files takes a while to save: never more
            # than a tenth of the time, which the workers' cores share.
            began = time.perf_counter()
            self.manifest.levels_done = self.finished()
            self.manifest.save(self.root)
            self.last_save = time.perf_counter()
            self.save_seconds = self.last_save - began
