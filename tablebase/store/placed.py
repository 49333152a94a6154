"""A table's files at its place (a folder, or an object store), by the records a manifest keeps of them: written
(``put_file``), read whole and checked (``open_file``), read as Parquet (``read_files``), opened for reads by
ranges (``source``), looked for (``file_there``), listed under their plain names (``names_under``).

In a folder a file lies under its name. On an object store, which has no rename, it lies under its name with
the first ``HASH_DIGITS`` of its sha256 (``stored_name``), so that a name is never written with other bytes;
whoever reads it there needs its record, or finds it by its plain name in a listing (``read_found``).
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from tablebase.errors import DamagedTable, StoreError
from tablebase.lazy import pa, pq
from tablebase.store.files import (
    intact,
    parquet_bytes,
    read_parquet,
    record_problems,
    sha256_of,
    table_dir,
    write_atomic,
)
from tablebase.store.layout import Layout
from tablebase.store.location import Folder, Location, located

HASH_DIGITS = 16  # of the sha256 in a stored name: 64 bits, no two files of a table alike by chance
Place = str | os.PathLike | Location
Record = Mapping[str, Any]
_HASHED = re.compile(rf"^(?P<stem>.*)\.(?P<digest>[0-9a-f]{{{HASH_DIGITS}}})(?P<extension>\.[^./]+)?$")


def stored_name(location: Location, name: str, record: Record) -> str:
    """Where a recorded file lies, relative to its table's folder: its name, or on an object store its name
    with the first ``HASH_DIGITS`` of its sha256 before the extension. With no rename, a name is so never
    written with other bytes: a file a reader was told of stays as it was, whatever a later build writes."""
    if not location.hashed_names:
        return name
    folder, slash, leaf = name.rpartition("/")
    stem, dot, extension = leaf.rpartition(".")
    digest = record["sha256"][:HASH_DIGITS]
    leaf = f"{stem}.{digest}.{extension}" if dot else f"{leaf}.{digest}"
    return f"{folder}{slash}{leaf}"


def plain_name(location: Location, stored: str) -> str:
    """The name a manifest records of a file as it lies (``stored_name`` undone)."""
    if not location.hashed_names:
        return stored
    folder, slash, leaf = stored.rpartition("/")
    found = _HASHED.match(leaf)
    if found is None:
        return stored
    return f"{folder}{slash}{found['stem']}{found['extension'] or ''}"


def put_file(place: Place, table: str, name: str, data: Any, rows: int = 0, durable: bool = True) -> dict[str, Any]:
    """Write one file of a table whole (bytes, or any buffer), where its record says it lies; its record
    (``rows`` as the caller counted them). ``durable=False``: the caller ``flush``es it before recording it."""
    location = located(place)
    record = {"rows": rows, "bytes": len(data), "sha256": hashlib.sha256(data).hexdigest()}
    location.write(f"{table_prefix(table)}/{stored_name(location, name, record)}", data, durable)
    return record


def put_rows(rows: pa.Table, place: Place, table: str, name: str, durable: bool = True) -> dict[str, Any]:
    """Write rows (sorted by level, then key) as one Parquet file of a table; its record (rows, bytes, sha256).
    Statistics of ``key`` and ``level`` let readers skip row groups by either (``files.write_table``)."""
    return put_file(place, table, name, parquet_bytes(rows, "key", statistics=["key", "level"]), rows.num_rows,
                    durable)


def put_written(place: Place, table: str, name: str, write: Any, rows: int | None = None,
                durable: bool = True, record: Record | None = None) -> dict[str, Any]:
    """Write one file of a table that ``write(path)`` writes to a local path (a stream of blocks, too large to
    hold at once): in a folder atomically in place; for an object store to a local file first, then sent.
    Its record (``record``, where the writer counted it as it went); ``rows``, if not given, read from the
    file's Parquet footer."""
    import tempfile  # only where a file is written

    location = located(place)
    if isinstance(location, Folder):
        path = table_dir(location.root, table) / name
        write_atomic(path, write, durable)
        return dict(record) if record is not None else _record_of(path, rows)
    with tempfile.TemporaryDirectory(prefix="tablebase-staged-") as staging:
        path = Path(staging) / "file"
        write(path)
        record = dict(record) if record is not None else _record_of(path, rows)
        location.upload(f"{table_prefix(table)}/{stored_name(location, name, record)}", path)
    return record


def _record_of(path: Path, rows: int | None) -> dict[str, Any]:
    if rows is None:
        rows = pq.ParquetFile(path).metadata.num_rows
    return {"rows": rows, "bytes": path.stat().st_size, "sha256": sha256_of(path)}


def flush(place: Place, table: str, names: list[str] | Any) -> None:
    """Make a table's files written with ``durable=False`` durable (a folder's; an object's PUT is)."""
    located(place).flush([f"{table_prefix(table)}/{name}" for name in names])


def open_file(place: Place, table: str, name: str, record: Record) -> bytes:
    """A recorded file's bytes, checked against its record: DamagedTable in one line if they differ."""
    location = located(place)
    data = location.read(f"{table_prefix(table)}/{stored_name(location, name, record)}")
    if len(data) != record["bytes"] or hashlib.sha256(data).hexdigest() != record["sha256"]:
        raise DamagedTable(f"{location.where(table)}: {name} is not the file the manifest records")
    return data


def file_there(place: Place, table: str, name: str, record: Record) -> bool:
    """Whether a recorded file is where its record says, as it says: in a folder, its size and then its
    sha256 (a read of it: a flipped byte keeps the size); on an object store its size, its stored name
    carrying its hash (a PUT is whole or absent, and the store checks what it keeps)."""
    location = located(place)
    if isinstance(location, Folder):
        return intact(table_dir(location.root, table), name, dict(record))
    return file_sized(location, table, name, record)


def file_sized(place: Place, table: str, name: str, record: Record) -> bool:
    """Whether a recorded file is where its record says, of its size (a look, not a read)."""
    location = located(place)
    return location.size(f"{table_prefix(table)}/{stored_name(location, name, record)}") == record["bytes"]


def file_problems(place: Place, table: str, name: str, record: Record) -> list[str]:
    """How a recorded file differs from its record: missing, or its size, sha256 or rows (``files.record_problems``;
    on an object store, read whole)."""
    location = located(place)
    if isinstance(location, Folder):
        return record_problems(table_dir(location.root, table), name, dict(record))
    data = location.read_if_there(f"{table_prefix(table)}/{stored_name(location, name, record)}")
    if data is None:
        return ["file is missing"]
    problems = []
    if len(data) != record["bytes"]:
        problems.append(f"{len(data)} bytes, the manifest says {record['bytes']}")
    if hashlib.sha256(data).hexdigest() != record["sha256"]:
        problems.append("sha256 differs from the manifest")
    try:
        rows = pq.ParquetFile(pa.BufferReader(data)).metadata.num_rows
    except (OSError, pa.ArrowException):
        return problems
    if rows != record["rows"]:
        problems.append(f"{rows:,} rows, the manifest says {record['rows']:,}")
    return problems


def source(place: Place, table: str, name: str, record: Record | None = None) -> Any:
    """What pyarrow's Parquet functions read a recorded file from: a folder's path, or the object opened for
    reads by ranges (its footer, some row groups). A folder needs no record."""
    location = located(place)
    if isinstance(location, Folder):
        return str(table_dir(location.root, table) / name)
    if record is None:
        raise StoreError(f"{location.where(table)}: {name} is read by its record, and none was given")
    try:
        return location.input_file(f"{table_prefix(table)}/{stored_name(location, name, record)}")
    except FileNotFoundError:
        raise DamagedTable(f"{location.where(table)}: {name} is missing (its manifest records it)") from None


def sql_path(place: Place, table: str, name: str, record: Record | None = None) -> str:
    """Where DuckDB reads a recorded file: a folder's path, or ``s3://BUCKET/KEY`` through the filesystem a
    reader's session registers (``query.sql.Session``)."""
    location = located(place)
    if isinstance(location, Folder):
        return str(table_dir(location.root, table) / name)
    return f"s3://{location.path(table_prefix(table) + '/' + stored_name(location, name, record or {}))}"


def read_files(place: Place, table: str, records: Mapping[str, Record], columns: list[str] | None = None,
               filters: Any = None, dictionary: list[str] | None = None) -> pa.Table:
    """Recorded files of rows read and put together, in the order given (``files.read_parquet``); on an object
    store each is read whole by one GET and checked against its record first."""
    location = located(place)
    if isinstance(location, Folder):
        folder = table_dir(location.root, table)
        return read_parquet([folder / name for name in records], columns, filters, dictionary)
    return _parquet_of(records, lambda name: open_file(location, table, name, records[name]), columns, filters,
                       dictionary)


def read_level(place: Place, table: str, layout: Layout, level: int, records: Mapping[str, Record] | None = None,
               columns: list[str] | None = None) -> pa.Table:
    """The stored rows of one level, from the pieces that hold it (``records``: the manifest's files, which an
    object store's are read by)."""
    held = layout.of_level(level)
    files = {piece.name: (records or {}).get(piece.name, {}) for piece in held}
    if held[0].first == held[0].last:
        return read_files(place, table, files, columns)
    return read_files(place, table, files, columns, filters=[("level", "=", level)])


def read_found(place: Place, table: str, names: list[str], columns: list[str] | None = None,
               filters: Any = None) -> pa.Table:
    """Files of rows that no record at hand names (a worker's lower levels, written by another worker since
    it last heard), found by their plain names in one listing of their folders: each must lie there once,
    under a name whose digits are its bytes' sha256."""
    location = located(place)
    if isinstance(location, Folder):
        return read_files(location, table, {name: {} for name in names}, columns, filters)
    found: dict[str, list[str]] = {}
    for folder in sorted({name.rpartition("/")[0] for name in names}):
        for path in location.list(f"{table_prefix(table)}/{folder}/"):
            stored = path[len(table) + 1:]
            found.setdefault(plain_name(location, stored), []).append(stored)

    def read(name: str) -> bytes:
        lying = found.get(name, [])
        if len(lying) != 1:
            raise StoreError(f"{location.where(table)}: {name} " + (
                "is missing" if not lying else f"lies under {len(lying)} names ({', '.join(sorted(lying))})"))
        data = location.read(f"{table}/{lying[0]}")
        if not hashlib.sha256(data).hexdigest().startswith(_HASHED.match(lying[0].rpartition("/")[2])["digest"]):
            raise DamagedTable(f"{location.where(table)}: {lying[0]} is not the file its name says")
        return data

    return _parquet_of(dict.fromkeys(names), read, columns, filters, None)


def _parquet_of(names: Mapping[str, Any], read: Any, columns: list[str] | None, filters: Any,
                dictionary: list[str] | None) -> pa.Table:
    tables = []
    for name in names:
        data = read(name)
        try:
            tables.append(pq.read_table(pa.BufferReader(data), columns=columns, filters=filters,
                                        read_dictionary=dictionary))
        except (OSError, pa.ArrowException) as e:
            raise DamagedTable(f"cannot read {name}: {str(e).splitlines()[0]}") from None
    if not tables:
        raise StoreError("no files to read")
    return pa.concat_tables(tables)


def names_under(place: Place, table: str, folder: str) -> set[str]:
    """The plain names of every file that lies under a folder of a table (``rows``, ``values``...), recorded or
    not: what verify weighs against the manifest."""
    location = located(place)
    return {plain_name(location, path[len(table) + 1:]) for path in location.list(f"{table_prefix(table)}/{folder}/")}


def delete_files(place: Place, table: str, names: list[str]) -> None:
    """Delete files of a table by the names they lie under (a folder's temporary names included)."""
    located(place).delete([f"{table_prefix(table)}/{name}" for name in names])


def table_prefix(table: str) -> str:
    """A table's folder as the start of its files' names, its name checked first."""
    table_dir("", table)  # a table's name is checked before it names anything
    return table
