"""Building tables: job specs, the Dask driver, the tasks its workers run, and the build's start-up.

Nothing is imported until first used: the build command starts the fork
server (``build/cluster/fork_server.py``) before it imports anything heavy, then reads
its job (``jobs``) and decides whether the job needs worker processes before
it pays for Dask's imports.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tablebase.build.cluster.start import dask_client
    from tablebase.build.driver import build_table
    from tablebase.build.jobs import TableSpec, read_job, spec_for
    from tablebase.build.plan import DEFAULT_PARTITION_ROWS
    from tablebase.build.summary import BuildSummary
    from tablebase.build.tables import build_tables

__all__ = ["DEFAULT_PARTITION_ROWS", "BuildSummary", "TableSpec", "build_table", "build_tables", "dask_client",
           "read_job", "spec_for"]

_LATER = {"build_table": "driver", "BuildSummary": "summary", "dask_client": "cluster.start", "build_tables": "tables",
          "TableSpec": "jobs", "read_job": "jobs", "spec_for": "jobs", "DEFAULT_PARTITION_ROWS": "plan"}


def __getattr__(name: str) -> Any:
    if name in _LATER:
        return getattr(import_module(f"tablebase.build.{_LATER[name]}"), name)
    raise AttributeError(f"module 'tablebase.build' has no attribute {name!r}")


__all__ = sorted(_LATER)
