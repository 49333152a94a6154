"""A job's tables built in turn on one Dask cluster."""

from __future__ import annotations

import errno
import queue
import sys
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tablebase.build.cluster.failures import RESUME, disk_full
from tablebase.build.cluster.memory_plan import MemoryPlan, shareable_bytes
from tablebase.build.cluster.start import (
    cluster_workers,
    dashboard_url,
    dask_client,
    local_workers,
)
from tablebase.build.driver import build_table, plan_table
from tablebase.build.jobs import TableSpec, is_small
from tablebase.build.progress.display import interval
from tablebase.build.resume import resumable
from tablebase.build.summary import BuildSummary
from tablebase.errors import TablebaseError, UsageError
from tablebase.kinds import kind_named
from tablebase.store import Manifest, list_tables
from tablebase.store.location import Folder, Location, Unanswered, located
from tablebase.store.lock import lock_at


def build_tables(
    specs: list[TableSpec],
    out: str | Path | Location,
    scheduler: str | None = None,
    workers: int | None = None,
    partition_rows: int | None = None,
    quiet: bool = False,
    every: float | None = None,
    small: bool | None = None,
    dashboard: Callable[[str], None] | None = None,
    scratch: Path | None = None,
    dry_run: bool = False,
) -> Iterator[BuildSummary | PlanSummary]:
    """Build each table in turn on one Dask cluster, yielding each run's summary.

    ``every``: seconds between status lines (``display.interval``: by default one a second at a
    terminal, every ten seconds in a log or a pipe; none if ``quiet``). ``small``: whether a local
    cluster's workers are threads of this process; by default the job's size decides
    (``jobs.is_small``). ``dashboard``: serve the local cluster's dashboard (on loopback), and call this
    with its URL.
    ``out``: a folder, or an object store's ``Location`` (``store.places``).
    ``scratch``: the folder for values too large for memory (default: under
    ``out``, or this machine's temporary folder for an object store).
    ``dry_run``: plan each table on the cluster and yield its plan
    (``PlanSummary``) instead of building it.
    """
    out = output_place(out)
    prepare_out(specs, out, scheduler, workers, partition_rows, bool(dashboard), scratch)
    with ExitStack() as held:
        # Every table is claimed before the cluster starts, so a clash is refused at once.
        for spec in specs:
            held.enter_context(lock_at(out, spec.name))
            resumable(out, spec, partition_rows)  # a table begun otherwise is refused before a cluster starts
        # Only a local cluster started here is shaped by the job.
        local = scheduler is None
        shared_bytes = max((shareable_bytes(s.builder) for s in specs), default=0) if local else 0
        threads = local and (is_small(specs) if small is None else small)
        if not quiet:
            _say_where(scheduler, threads, workers)
        with dask_client(scheduler, workers, shared_bytes, small=threads, dashboard=bool(dashboard)) as client:
            if dashboard:
                dashboard(dashboard_url(client))
            if dry_run:
                for spec in specs:
                    yield PlanSummary(spec.name, plan_table(client, out, spec, partition_rows, scratch))
                return
            every = interval(quiet, every)

            def one(spec: TableSpec, worker: int | None = None) -> BuildSummary:
                try:
                    return build_table(client, out, spec, partition_rows, every=every, scratch=scratch,
                                       worker=worker)
                except OSError as e:  # a worker's writes or the driver's own (the manifest, a values table)
                    if e.errno == errno.ENOSPC:
                        raise disk_full(e, spec.name, out.url) from None
                    raise
                except Unanswered as e:  # a worker's request or the driver's, past the wait for the store
                    raise Unanswered(f"{e}; {RESUME}") from None

            # Workers in threads of this process share one solver's state: no use building side by side.
            side = 1 if threads else _side_by_side(specs, len(cluster_workers(client).addresses))
            if side < 2:
                for spec in specs:
                    yield one(spec)
            else:
                yield from _in_lanes(specs, side, one)


def output_place(out: str | Path | Location) -> Location:
    """Where a build writes: a folder by its absolute path (its workers may run elsewhere on the machine), or
    an object store."""
    place = located(out)
    return Folder(Path(place.root).resolve()) if isinstance(place, Folder) else place


def prepare_out(specs: list[TableSpec], out: Location, scheduler: str | None = None, workers: int | None = None,
                partition_rows: int | None = None, dashboard: bool = False, scratch: Path | None = None) -> None:
    """Refuse what the options cannot do, in one line, then make the output folder (or find that the object
    store takes the credentials and has the bucket): before anything else is done. The command calls it before
    it counts positions (a count of more than a second is said as it goes, and a refusal must stay the one line
    there is)."""
    _check_options(out, scheduler, workers, partition_rows, dashboard, scratch)
    if not isinstance(out, Folder):
        out.check()
    _refuse_view_names(out, specs)
    if isinstance(out, Folder):
        _make_folder(out.root)


def _check_options(out: Location, scheduler: str | None, workers: int | None, partition_rows: int | None,
                   dashboard: bool, scratch: Path | None) -> None:
    """Refuse options that cannot go together, in one line, before anything is written or started."""
    if partition_rows is not None and partition_rows < 1:
        raise UsageError("--partition-rows must be at least 1")
    if workers is not None and workers < 1:
        raise UsageError("--workers must be at least 1")
    if dashboard and scheduler:
        raise UsageError("--dashboard serves a local cluster's; a running scheduler serves its own")
    if isinstance(out, Folder) and out.root.exists() and not out.root.is_dir():
        raise UsageError(f"--out {out.url} is a file, not a folder")
    if scratch is not None and scratch.exists() and not scratch.is_dir():
        raise UsageError(f"--scratch {scratch} is a file, not a folder")


def _make_folder(out: Path) -> None:
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as e:  # under /proc, below a file, no permission, a read-only file system
        raise UsageError(f"--out {out}: cannot make the folder ({e.strerror})") from None


def _say_where(scheduler: str | None, threads: bool, workers: int | None) -> None:
    """A cluster takes seconds to start on a loaded machine: a person at a terminal is told before it does.

    Not a log or a pipe, where a refusal that follows must stay the one line there is.
    """
    if not sys.stderr.isatty():
        return
    where = f"the scheduler at {scheduler}" if scheduler else (
        "a local cluster of threads" if threads else f"a local cluster of {local_workers(workers)} worker processes")
    print(f"[tablebase] connecting to {where}", file=sys.stderr, flush=True)


def _side_by_side(specs: list[TableSpec], workers: int) -> int:
    """How many tables to build at once: one per worker when every table is solved as one sequence of
    whole levels (one task at a time, so a table keeps one worker busy and no more) whose values each
    worker holds for itself (values shared in /dev/shm are planned as one copy per machine), else one.
    Games whose positions the engine lists go one at a time: what a worker holds is known once listed."""
    if len(specs) < 2 or workers < 2 or not all(
            s.builder.whole_levels and not s.builder.needs_listing and not s.builder.footprint().dense for s in specs):
        return 1
    return min(workers, len(specs))


def in_groups(specs: list[TableSpec]) -> list[list[TableSpec]]:
    """The tables by their games' ``work_group``, each group where its first table was; a table without one
    alone."""
    groups: dict[Any, list[TableSpec]] = {}
    for i, spec in enumerate(specs):
        group = spec.game.work_group
        groups.setdefault(i if group is None else group, []).append(spec)
    return list(groups.values())


def _in_lanes(specs: list[TableSpec], lanes: int,
              one: Callable[[TableSpec, int], BuildSummary]) -> Iterator[BuildSummary]:
    """Build the tables in ``lanes`` threads, lane i on worker i, each lane taking the next group of tables
    left (``in_groups``: a group's tables one after another on one worker); yield each summary as it comes.
    A failure stops every lane after its current table, then is raised."""
    left = list(reversed(in_groups(specs)))
    lock, stop = threading.Lock(), threading.Event()

    def lane(i: int) -> list[BuildSummary]:
        done = []
        while not stop.is_set():
            with lock:
                if not left:
                    return done
                group = left.pop()
            for spec in group:
                if stop.is_set():
                    break
                try:
                    done.append(one(spec, i))
                except BaseException:
                    stop.set()
                    raise
                results.put(done[-1])
        return done

    results: queue.Queue[BuildSummary] = queue.Queue()
    with ThreadPoolExecutor(lanes, thread_name_prefix="table-lane") as pool:
        running = [pool.submit(lane, i) for i in range(lanes)]
        while any(not f.done() for f in running) or not results.empty():
            try:
                yield results.get(timeout=0.1)
            except queue.Empty:
                continue
        for future in running:
            future.result()  # the first failure, if any


@dataclass(frozen=True)
class PlanSummary:
    """What a dry run says of a table: its memory plan, in words and in bytes."""

    table: str
    plan: MemoryPlan | None  # None: the table is built already, and a build would do nothing

    def as_dict(self) -> dict[str, Any]:
        p = self.plan
        if p is None:
            return {"table": self.table, "plan": "built already: a build would do nothing"}
        return {"table": self.table, "plan": p.describe(), "worker_peak_bytes": p.peak,
                "machine_peak_bytes": p.machine_peak, "values_bytes": p.values, "values_on_disk": p.on_disk,
                "page_cache_bytes": p.values if p.on_disk else 0, "disk_bytes": p.values if p.on_disk else 0,
                "partition_rows": p.partition_rows, "worker_limit_bytes": p.limit}


def _refuse_view_names(out: Location, specs: list[TableSpec]) -> None:
    """Refuse a table named as another's view (a partizan table's ``<table>_values``), either way round:
    in one folder, every table and view is a name of one SQL namespace."""
    kinds = {}
    for name in list_tables(out):  # the tables already there; one that cannot be read claims no view
        try:
            kinds[name] = kind_named(Manifest.load(out, name).kind)
        except TablebaseError:
            continue
    kinds.update((spec.name, spec.builder.kind_class) for spec in specs)
    views = {view: table for table, held in kinds.items() for a in held.artifacts for view in a.view_names(table)}
    for spec in specs:
        if spec.name in views:
            raise UsageError(f"table {spec.name}: its name is that of a view of table {views[spec.name]} "
                                 f"in {out.url}; give it another --table name")
        taken = next((v for a in kinds[spec.name].artifacts for v in a.view_names(spec.name) if v in kinds), None)
        if taken is not None:
            raise UsageError(f"table {spec.name}: its view {taken} would take the name of table {taken} "
                                 f"in {out.url}; give one of them another --table name")
