"""tablebase: build, store and query position databases of combinatorial games.

    >>> import tablebase
    >>> tb = tablebase.open("tb")                 # a folder built by `tablebase build`
    >>> tb.lookup("chomp_4x4", "4 4 3 1")["outcome"]   # a typed dict: tablebase.Lookup
    >>> tb.sql("SELECT count(*) FROM chomp_4x4 WHERE outcome = 'P'")
    >>> tablebase.open("tb", games=["examples/cram.py:Cram"])   # a game from a file, trusted by name

Opening a folder runs none of its code: a game from a file or module serves only when named (docs/security.md).
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import TYPE_CHECKING

from tablebase.errors import (
    DamagedTable,
    GameUnavailable,
    PositionError,
    StoreError,
    TablebaseError,
    TableNotFound,
    UsageError,
)
from tablebase.jit import numba_cache_outside_package as _numba_cache  # before any module imports numba
from tablebase.query import DEFAULT_TIMEOUT
from tablebase.results import Exact, Figures, Line, Lookup, Move, Probe, Statistic, Step, exact
from tablebase.version import VERSION as __version__

if TYPE_CHECKING:
    from typing import Any

    from tablebase.query import Tablebase

_numba_cache()


def open(root: "str | os.PathLike", games: "Iterable[str]" = (), *,  # noqa: A001 - mirrors the built-in on purpose
         memory_limit: "int | str | None" = None, threads: "int | None" = None,
         timeout: "float | None" = DEFAULT_TIMEOUT, temp_directory: "str | os.PathLike | None" = None,
         storage_options: "dict[str, Any] | None" = None) -> "Tablebase":
    """Open the tables under ``root`` for SQL (:meth:`Tablebase.sql`) and lookups: a folder, or an object
    store's ``s3://BUCKET/PREFIX`` (its address, region and credentials from the standard AWS variables and
    files, or ``storage_options``: ``endpoint_url``, ``region``, ``access_key``, ... as ``--storage-option``).

    ``games``: games to trust for the folder's tables, each a reference as
    ``--game`` takes it (``path/to/file.py:Class``, ``module:Class``, a
    name); built-in games and installed plugins need none. ``memory_limit``
    (bytes or "4GiB"; default a quarter of the memory, at most 4 GiB),
    ``threads`` (default: the cores), ``timeout`` (seconds a query may run;
    None for no limit) and ``temp_directory`` (where DuckDB's private spill
    folder is made) bound SQL.
    """
    from tablebase.query import Tablebase

    return Tablebase(root, games, memory_limit=memory_limit, threads=threads, timeout=timeout,
                     temp_directory=temp_directory, storage_options=storage_options)


def __getattr__(name: str):
    if name == "Tablebase":
        from tablebase.query import Tablebase

        return Tablebase
    raise AttributeError(name)


__all__ = ["DEFAULT_TIMEOUT", "DamagedTable", "Exact", "Figures", "GameUnavailable", "Line", "Lookup", "Move",
           "PositionError", "Probe", "Statistic", "Step", "StoreError", "TableNotFound", "Tablebase", "TablebaseError",
           "UsageError", "__version__", "exact", "open"]
