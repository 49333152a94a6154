"""Building tables: job specs, the Dask driver, and the tasks its workers run.

The driver imports Dask, a third of a second, so its names are imported when
first used: the build command reads its job (``jobs``) and decides whether the
job needs worker processes before it pays for Dask.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

from tablebase.build.jobs import TableSpec, read_job, spec_for
from tablebase.build.plan import DEFAULT_PARTITION_ROWS

if TYPE_CHECKING:
    from tablebase.build.driver import build_table, dask_client
    from tablebase.build.tables import build_tables

_LATER = {"build_table": "driver", "dask_client": "driver", "build_tables": "tables"}


def __getattr__(name: str) -> Any:
    if name in _LATER:
        return getattr(import_module(f"tablebase.build.{_LATER[name]}"), name)
    raise AttributeError(f"module 'tablebase.build' has no attribute {name!r}")


__all__ = ["DEFAULT_PARTITION_ROWS", "TableSpec", "build_table", "build_tables", "dask_client", "read_job", "spec_for"]
