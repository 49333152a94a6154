"""A job's tables built in turn on one Dask cluster."""

from __future__ import annotations

import errno
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from pathlib import Path

from tablebase.build.cluster import dashboard_url, dask_client
from tablebase.build.driver import BuildSummary, build_table
from tablebase.build.failures import disk_full
from tablebase.build.jobs import TableSpec, is_small
from tablebase.build.memory import shared_values
from tablebase.build.resume import resumed
from tablebase.errors import TablebaseError
from tablebase.store import BuildLock, table_dir


def build_tables(
    specs: list[TableSpec],
    out: Path,
    scheduler: str | None = None,
    workers: int | None = None,
    partition_rows: int | None = None,
    quiet: bool = False,
    small: bool | None = None,
    dashboard: Callable[[str], None] | None = None,
) -> Iterator[BuildSummary]:
    """Build each table in turn on one Dask cluster, yielding each run's summary.

    ``small``: whether a local cluster's workers are threads of this process;
    by default the job's size decides (``jobs.is_small``). ``dashboard``: serve
    the local cluster's dashboard (on loopback), and call this with its URL.
    """
    if partition_rows is not None and partition_rows < 1:
        raise TablebaseError("--partition-rows must be at least 1")
    if workers is not None and workers < 1:
        raise TablebaseError("--workers must be at least 1")
    if dashboard and scheduler:
        raise TablebaseError("--dashboard serves a local cluster's; a running scheduler serves its own")
    if out.exists() and not out.is_dir():
        raise TablebaseError(f"--out {out} is a file, not a folder")
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as e:  # under /proc, below a file, no permission, a read-only file system
        raise TablebaseError(f"--out {out}: cannot make the folder ({e.strerror})") from None
    with ExitStack() as held:
        # Every table is claimed before the cluster starts, so a clash is refused at once.
        for spec in specs:
            held.enter_context(BuildLock(table_dir(out, spec.name)))
            resumed(out.resolve(), spec, partition_rows)  # a table begun otherwise is refused before a cluster starts
        # Only a local cluster started here is shaped by the job.
        local = scheduler is None
        shared_bytes = max((shared_values(s.kind) for s in specs), default=0) if local else 0
        threads = local and (is_small(specs) if small is None else small)
        with dask_client(scheduler, workers, shared_bytes, small=threads, dashboard=bool(dashboard)) as client:
            if dashboard:
                dashboard(dashboard_url(client))
            for spec in specs:
                try:
                    summary = build_table(client, out.resolve(), spec, partition_rows,
                                          every=float("inf") if quiet else 1.0)
                except OSError as e:  # a worker's writes or the driver's own (the manifest, a values table)
                    if e.errno == errno.ENOSPC:
                        raise disk_full(e, spec.name, out.resolve()) from None
                    raise
                yield summary
