"""SQL over a folder, bounded: one DuckDB database in a sandbox, with limits on memory, threads, spill and time.

A query may be anything a user types, or a page of the server asks for, so
each one runs under ``Limits`` in a ``Session`` whose sandbox lets DuckDB read
only the tablebase folder and write nothing (docs/security.md).
"""

from __future__ import annotations

import os
import re
import threading
import time
import weakref
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from tablebase.errors import DamagedTable, StoreError, TablebaseError, UsageError
from tablebase.lazy import pa, psutil
from tablebase.query import DEFAULT_TIMEOUT
from tablebase.store.footers import refused
from tablebase.store.location import Folder, Location

if TYPE_CHECKING:
    import duckdb  # imported by a session's methods: a program that only probes never pays for its import

MEMORY_SHARE, MEMORY_CAP = 0.25, 4 * 2**30  # of the machine's memory, and at most this, by default
MIN_MEMORY = 16 * 2**20
SPILL_PER_MEMORY = 10  # what a query may spill to disk, in memory limits
BATCH_ROWS = 65_536  # rows of a result read at a time
WAKE = 0.1  # seconds between looks at a running query, for Ctrl-C
_UNITS = {"": 1, "b": 1, "kb": 10**3, "mb": 10**6, "gb": 10**9, "tb": 10**12,
          "k": 2**10, "m": 2**20, "g": 2**30, "t": 2**40, "kib": 2**10, "mib": 2**20, "gib": 2**30, "tib": 2**40}
_ALLOWED = {"SELECT", "EXPLAIN"}  # the statement types a query may be


class QueryError(UsageError):
    """SQL that DuckDB rejects, that would change something, or that passed its limits."""


def parse_size(size: int | str) -> int:
    """Bytes from ``4GiB``, ``512MB``, ``2G`` (binary) or a plain number of bytes; TablebaseError otherwise."""
    if isinstance(size, int) and not isinstance(size, bool):
        return size
    found = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([a-zA-Z]*)\s*", str(size))
    if found is None or found.group(2).lower() not in _UNITS:
        raise UsageError(f"memory limit {size!r}: give a size such as 4GiB, 512MB or 2G")
    return int(float(found.group(1)) * _UNITS[found.group(2).lower()])


@dataclass(frozen=True)
class Limits:
    """What one query may take: ``memory`` bytes, ``threads``, ``timeout`` seconds (None: no limit), and
    where its private spill folder is made (``temp_root``; None: the system's temporary folder).

    The spill folder is the query's own, removed on close: never the working directory, where DuckDB would
    put ``.tmp``; what it spills is bounded too. A query runs on a thread of its own while the caller waits,
    so that the time limit and Ctrl-C both reach it (DuckDB's ``interrupt()`` stops it wherever it is); its
    result is read in batches and refused once it outgrows the memory limit."""

    memory: int
    threads: int
    timeout: float | None
    temp_root: Path | None = None

    @classmethod
    def of(cls, memory_limit: int | str | None = None, threads: int | None = None,
           timeout: float | None = DEFAULT_TIMEOUT, temp_directory: str | os.PathLike | None = None) -> "Limits":
        """Limits from what a user gives, defaults a laptop survives for the rest; one line if one is wrong."""
        memory = parse_size(memory_limit) if memory_limit is not None else \
            min(int(MEMORY_SHARE * total_memory()), MEMORY_CAP)
        if memory < MIN_MEMORY:
            raise UsageError(f"memory limit {memory_limit}: give at least {MIN_MEMORY // 2**20} MiB")
        cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
        if threads is not None and (isinstance(threads, bool) or not isinstance(threads, int) or threads < 1):
            raise UsageError(f"threads must be a whole number of at least 1, got {threads!r}")
        if timeout is not None and not (isinstance(timeout, (int, float)) and 0 < timeout < float("inf")):
            raise UsageError(f"time limit must be a number of seconds above 0, got {timeout!r}")
        root = None if temp_directory is None else Path(temp_directory)
        if root is not None and not root.is_dir():
            raise UsageError(f"no folder {root} for temporary files")
        return cls(memory, threads or cores, None if timeout is None else float(timeout), root)


def total_memory() -> int:
    """Bytes of memory this machine has: from sysconf where there is one, which imports nothing."""
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, ValueError, OSError):
        return psutil.virtual_memory().total


def sql_text(text: str) -> str:
    """A string as a SQL literal: quoted, its quotes doubled."""
    return "'" + text.replace("'", "''") + "'"


def glob_escaped(path: str | os.PathLike) -> str:
    """A path as DuckDB's file readers read it literally: each glob character in brackets of its own."""
    return re.sub(r"([\[*?])", r"[\1]", str(path))


def parquet_source(paths: Iterable[Path]) -> str:
    """``read_parquet([...])`` of exactly these files: quoted, and no glob in them."""
    return "read_parquet([" + ", ".join(sql_text(glob_escaped(p)) for p in paths) + "])"


class Session:
    """One DuckDB database in a sandbox, for the tables of one folder or object store; queries run under
    ``limits``.

    ``files`` are the exact files views may read, with their sizes (beside
    everything inside ``root``). An object store's files DuckDB reads through a filesystem
    registered with it (``store_files.py``, ``s3://`` paths): the reader's
    own client, address, credentials and retries, and nothing to download
    at run time, as DuckDB's httpfs would be.
    ``broken`` maps a view that could not be made to why: a query that
    names it gets that reason instead of "does not exist". ``owners`` maps
    each file a view reads to its table (``own``): an error DuckDB meets
    while it reads a file refuses that file's table in one line.

    The sandbox is set before any view is made: DuckDB may read only inside the tablebase folder (and the
    exact files the views name), write nothing, and change none of these settings. Paths reach SQL only
    quoted, with DuckDB's glob characters escaped (``parquet_source``), so a folder's name can neither end
    a string nor match other files.
    """

    def __init__(self, root: Location, files: dict[str, int], limits: Limits) -> None:
        import tempfile  # with random and more, as DuckDB below: not for a program that only looks positions up

        self.limits = limits
        self.temp = Path(tempfile.mkdtemp(prefix="tablebase-sql-", dir=limits.temp_root))
        self.root = root
        self.broken: dict[str, StoreError] = {}
        self.owners: dict[str, str] = {}
        self.failed: TablebaseError | None = None  # what a Python function of a view last raised
        import shutil  # with its archive libraries, not for a program that only looks positions up

        import duckdb

        try:
            self.con = duckdb.connect(":memory:", config={
                "memory_limit": f"{limits.memory}B", "threads": limits.threads,
                "temp_directory": str(self.temp), "max_temp_directory_size": f"{SPILL_PER_MEMORY * limits.memory}B"})
        except BaseException as e:  # Ctrl-C too: the folder is not left behind
            shutil.rmtree(self.temp, ignore_errors=True)
            if isinstance(e, duckdb.Error):
                raise QueryError(f"cannot start DuckDB: {_first_line(e)}") from None
            raise
        # Removed at exit at the latest (also if what follows is interrupted), the connection closed first.
        self._finalizer = weakref.finalize(self, _close, self.con, self.temp)
        # Globs read through brackets are checked by their pattern too: those patterns are allowed exactly.
        patterns = sorted({glob_escaped(p) for p in files} - {str(p) for p in files})
        self.con.execute("SET allowed_directories = $1", [[_top(root, self.con, files)]])
        if patterns:
            self.con.execute("SET allowed_paths = $1", [patterns])
        self.con.execute("SET enable_external_access = false")
        self.con.execute("SET lock_configuration = true")

    def own(self, table: str, paths: Iterable[Path]) -> None:
        """Say that a view of ``table`` reads these files (as DuckDB's errors spell them: quoted, escaped)."""
        for path in paths:
            self.owners[str(path)] = self.owners[glob_escaped(path)] = table

    def run(self, query: str, timeout: float | None, rows: int | None = None) -> pa.Table:
        """One read-only statement (SELECT or EXPLAIN), within the limits; an Arrow table (of its first
        ``rows`` rows at most, read no further: a query's first rows come without the rest)."""
        import duckdb

        cursor = self.con.cursor()
        try:
            try:
                statements = cursor.extract_statements(query)
            except duckdb.Error as e:
                raise QueryError(f"SQL error: {_first_line(e)}") from None
            if len(statements) != 1:
                raise QueryError(f"give exactly one SQL statement, got {len(statements)}")
            if statements[0].type.name not in _ALLOWED:
                raise QueryError(
                    f"only SELECT queries are allowed (tables are read-only), got {statements[0].type.name}")
            return self._bounded(cursor, query, timeout, rows)
        finally:
            cursor.close()

    def _bounded(self, cursor: duckdb.DuckDBPyConnection, query: str, timeout: float | None,
                 rows: int | None) -> pa.Table:
        """Run on a thread of its own; stopped by the time limit, by Ctrl-C, or by its result's size."""
        outcome: dict[str, object] = {}
        done = threading.Event()

        def work() -> None:
            try:
                outcome["table"] = self._fetch(cursor, query, rows)
            except BaseException as e:  # handed to the waiting thread
                outcome["error"] = e
            finally:
                done.set()

        threading.Thread(target=work, name="tablebase-sql", daemon=True).start()
        try:
            finished = _waited(done, timeout)  # Ctrl-C raises KeyboardInterrupt here, in the main thread
        except KeyboardInterrupt:
            _stop(cursor, done)
            raise
        if not finished:
            _stop(cursor, done)
            raise QueryError(f"the query was stopped at its time limit of {timeout:g} s; give more time "
                             "(--timeout SECONDS, or timeout= in Python) or ask for less")
        import duckdb

        error = outcome.get("error")
        if isinstance(error, (duckdb.Error, pa.ArrowException)):  # Arrow's: DuckDB's, met reading the batches
            raise self._explained(error) from None
        if error is not None:
            raise error  # type: ignore[misc]
        return outcome["table"]  # type: ignore[return-value]

    def _fetch(self, cursor: duckdb.DuckDBPyConnection, query: str, rows: int | None) -> pa.Table:
        relation = cursor.sql(query)
        if relation is None:
            return pa.table({})
        batches, held, count = [], 0, 0
        reader = relation.to_arrow_reader(BATCH_ROWS)
        for batch in reader:
            held += batch.nbytes
            if held > self.limits.memory:
                cursor.interrupt()
                raise QueryError(f"the query's result passed the memory limit of {self.limits.memory / 2**20:,.0f} "
                                 "MiB; ask for fewer rows (LIMIT, or an aggregate) or a higher --memory-limit")
            batches.append(batch)
            count += batch.num_rows
            if rows is not None and count >= rows:
                break
        table = pa.Table.from_batches(batches, reader.schema)
        return table if rows is None else table.slice(0, rows)

    def _explained(self, error: Exception) -> TablebaseError:
        """A DuckDB error as one line, or what the error stands for (a broken view, a failed function)."""
        import duckdb

        text = _first_line(error)
        if "executing the UDF" in text and self.failed is not None:
            return self.failed
        if isinstance(error, duckdb.CatalogException):
            for view, why in self.broken.items():
                if re.search(rf"\b{re.escape(view)}\b", text):
                    return type(why)(str(why))
        if isinstance(error, duckdb.InterruptException):
            return QueryError("the query was interrupted")
        owner = next((self.owners[f] for f in re.findall(r"""["']([^"']+)["']""", text) if f in self.owners), None)
        if owner is not None:  # a file DuckDB found damaged only as it read it: its table refuses itself
            return damaged(owner, text, self.root)
        return QueryError(f"SQL error: {text}")

    def close(self) -> None:
        self._finalizer()


def _top(root: Location, con: duckdb.DuckDBPyConnection, files: dict[str, int]) -> str:
    """The one directory DuckDB may read under: the folder, or the object store's prefix (its filesystem
    registered with the connection)."""
    if isinstance(root, Folder):
        return str(Path(root.root).resolve()) + os.sep
    try:
        from tablebase.query.store_files import StoreFiles  # fsspec: a dependency of Dask, and of the s3 extra
    except ImportError:
        raise UsageError("SQL over an object store needs fsspec: pip install 'tablebase[s3]'") from None
    con.register_filesystem(StoreFiles(root, files))
    return f"s3://{root.path('')}"


def damaged(table: str, why: str, root: object) -> DamagedTable:
    """The one line that refuses a table (or a summary) whose files DuckDB cannot read as they are."""
    return refused(root, table, _first_line(why))


def _waited(done: threading.Event, timeout: float | None) -> bool:
    """Wait for the query in short slices: a Ctrl-C the system gave to one of DuckDB's threads
    does not wake this one, and is only acted on once this thread runs again."""
    end = None if timeout is None else time.monotonic() + timeout
    while not done.wait(WAKE if end is None else max(0.0, min(WAKE, end - time.monotonic()))):
        if end is not None and time.monotonic() >= end:
            return False
    return True


def _stop(cursor: duckdb.DuckDBPyConnection, done: threading.Event) -> None:
    """Interrupt a query until its thread says it ended (an interrupt before it starts would be lost)."""
    cursor.interrupt()
    while not done.wait(0.05):
        cursor.interrupt()


def _close(con: duckdb.DuckDBPyConnection, temp: Path) -> None:
    """Close the connection and remove the spill folder, even if a query still runs (a server that stops while
    a thread of it waits on DuckDB): DuckDB then refuses to close, and the process's end closes it."""
    import shutil  # imported by the session that made ``temp``

    import duckdb

    try:
        con.interrupt()
        con.close()
    except duckdb.Error:
        pass
    finally:
        shutil.rmtree(temp, ignore_errors=True)


def _first_line(error: Exception | str) -> str:
    return " ".join(str(error).split("\n")[0].split())
