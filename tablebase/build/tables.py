"""A job's tables built in turn on one Dask cluster."""

from __future__ import annotations

import errno
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tablebase.build.cluster import dashboard_url, dask_client
from tablebase.build.driver import BuildSummary, build_table, plan_table
from tablebase.build.failures import disk_full
from tablebase.build.jobs import TableSpec, is_small
from tablebase.build.memory import MemoryPlan, shared_values
from tablebase.build.resume import resumable
from tablebase.errors import TablebaseError
from tablebase.kinds import kind_named
from tablebase.store import BuildLock, Manifest, list_tables, table_dir


def build_tables(
    specs: list[TableSpec],
    out: Path,
    scheduler: str | None = None,
    workers: int | None = None,
    partition_rows: int | None = None,
    quiet: bool = False,
    small: bool | None = None,
    dashboard: Callable[[str], None] | None = None,
    scratch: Path | None = None,
    dry_run: bool = False,
) -> Iterator[BuildSummary | PlanSummary]:
    """Build each table in turn on one Dask cluster, yielding each run's summary.

    ``small``: whether a local cluster's workers are threads of this process;
    by default the job's size decides (``jobs.is_small``). ``dashboard``: serve
    the local cluster's dashboard (on loopback), and call this with its URL.
    ``scratch``: the folder for values too large for memory (default: under
    ``out``). ``dry_run``: plan each table on the cluster and yield its plan
    (``PlanSummary``) instead of building it.
    """
    if partition_rows is not None and partition_rows < 1:
        raise TablebaseError("--partition-rows must be at least 1")
    if workers is not None and workers < 1:
        raise TablebaseError("--workers must be at least 1")
    if dashboard and scheduler:
        raise TablebaseError("--dashboard serves a local cluster's; a running scheduler serves its own")
    if out.exists() and not out.is_dir():
        raise TablebaseError(f"--out {out} is a file, not a folder")
    if scratch is not None and scratch.exists() and not scratch.is_dir():
        raise TablebaseError(f"--scratch {scratch} is a file, not a folder")
    _refuse_view_names(out, specs)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as e:  # under /proc, below a file, no permission, a read-only file system
        raise TablebaseError(f"--out {out}: cannot make the folder ({e.strerror})") from None
    with ExitStack() as held:
        # Every table is claimed before the cluster starts, so a clash is refused at once.
        for spec in specs:
            held.enter_context(BuildLock(table_dir(out, spec.name)))
            resumable(out.resolve(), spec, partition_rows)  # a table begun otherwise is refused before a cluster starts
        # Only a local cluster started here is shaped by the job.
        local = scheduler is None
        shared_bytes = max((shared_values(s.kind) for s in specs), default=0) if local else 0
        threads = local and (is_small(specs) if small is None else small)
        with dask_client(scheduler, workers, shared_bytes, small=threads, dashboard=bool(dashboard)) as client:
            if dashboard:
                dashboard(dashboard_url(client))
            for spec in specs:
                if dry_run:
                    yield PlanSummary(spec.name, plan_table(client, out.resolve(), spec, partition_rows, scratch))
                    continue
                try:
                    summary = build_table(client, out.resolve(), spec, partition_rows,
                                          every=float("inf") if quiet else 1.0, scratch=scratch)
                except OSError as e:  # a worker's writes or the driver's own (the manifest, a values table)
                    if e.errno == errno.ENOSPC:
                        raise disk_full(e, spec.name, out.resolve()) from None
                    raise
                yield summary


@dataclass(frozen=True)
class PlanSummary:
    """What a dry run says of a table: its memory plan, in words and in bytes."""

    table: str
    plan: MemoryPlan

    def as_dict(self) -> dict[str, Any]:
        p = self.plan
        return {"table": self.table, "plan": p.describe(), "worker_peak_bytes": p.peak,
                "machine_peak_bytes": p.machine_peak, "values_bytes": p.values, "values_on_disk": p.on_disk,
                "page_cache_bytes": p.values if p.on_disk else 0, "disk_bytes": p.values if p.on_disk else 0,
                "partition_rows": p.partition_rows, "worker_limit_bytes": p.limit}


def _refuse_view_names(out: Path, specs: list[TableSpec]) -> None:
    """Refuse a table named as another's view (a partizan table's ``<table>_values``), either way round:
    in one folder, every table and view is a name of one SQL namespace."""
    kinds = {}
    for name in list_tables(out):  # the tables already there; one that cannot be read claims no view
        try:
            kinds[name] = kind_named(Manifest.load(out, name).kind)
        except TablebaseError:
            continue
    kinds.update((spec.name, type(spec.kind)) for spec in specs)
    views = {view: table for table, held in kinds.items() for a in held.artifacts for view in a.view_names(table)}
    for spec in specs:
        if spec.name in views:
            raise TablebaseError(f"table {spec.name}: its name is that of a view of table {views[spec.name]} "
                                 f"in {out}; give it another --table name")
        taken = next((v for a in spec.kind.artifacts for v in a.view_names(spec.name) if v in kinds), None)
        if taken is not None:
            raise TablebaseError(f"table {spec.name}: its view {taken} would take the name of table {taken} "
                                 f"in {out}; give one of them another --table name")
