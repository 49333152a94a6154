"""The work files of a plain game listed in shares (``tablebase.build.census``),
kept beside the listing's levels in ``_listing/`` until the table is built.

What reached each partition's share of a level (inbox), each share's rows
(share), and, to number them, the rows routed to ranges of notation (routed),
a range's rows (range) and each range's rows as the listing holds them
(block): a ``*_name`` function each. A folder is data, and so are these files
(docs/security.md): numbers and text only, each read only by the record its
writer gave (``read_work``), never found by a glob of the folder.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from tablebase.errors import StoreError
from tablebase.lazy import pa
from tablebase.store.listing_files import LISTING
from tablebase.store.location import located
from tablebase.store.placed import Place, put_file, stored_name, table_prefix

SUFFIX = ".arrow"
_BYTES_KEY = b"tablebase.arrow_bytes"  # a file's rows' bytes in Arrow, for a step that sizes them unread
Records = dict[str, dict[str, Any]]  # a work file's name (relative to its table's folder) -> rows, bytes, sha256


def inbox_name(level: int, partition: int, round_: int, source: str) -> str:
    """Positions of a level that reached a partition from ``source`` (a step of the search, or the start)."""
    return f"{_inbox(level, partition, round_)}{source}{SUFFIX}"


def _inbox(level: int, partition: int, round_: int) -> str:
    return f"{LISTING}/inbox-{level:06d}-{partition:04d}-{round_:04d}-"


def share_name(level: int, partition: int, round_: int, batch: int = 0) -> str:
    """A partition's share of a level (found in one round of it): positions and their moves, a file for each
    batch they were played in."""
    return f"{_share(level, partition)}{round_:04d}{f'-{batch:04d}' if batch else ''}{SUFFIX}"


def _share(level: int, partition: int | None = None) -> str:
    return f"{LISTING}/share-{level:06d}-" + ("" if partition is None else f"{partition:04d}-")


def routed_name(level: int, range_: int, partition: int, batch: int) -> str:
    """A share's rows of a level (one batch of them) that fall in one range of the level's notation."""
    return f"{_routed(level, range_)}{partition:04d}-{batch:04d}{SUFFIX}"


def _routed(level: int, range_: int) -> str:
    return f"{LISTING}/routed-{level:06d}-{range_:04d}-"


def range_name(level: int, range_: int) -> str:
    """A range of a level's positions by notation, in order, with their moves and their children's hashes."""
    return f"{LISTING}/range-{level:06d}-{range_:04d}{SUFFIX}"


def places_name(level: int, range_: int) -> str:
    """Where each child of a range (``range_name``) finds its key among the answers to the range's questions."""
    return f"{LISTING}/places-{level:06d}-{range_:04d}{SUFFIX}"


def block_name(level: int, range_: int) -> str:
    """A range of a level's rows as the listing's level file holds them (children as keys)."""
    return f"{LISTING}/block-{level:06d}-{range_:04d}{SUFFIX}"


def inbox_records(records: Records, level: int, partition: int, round_: int) -> Records:
    """Of these records, what reached a partition's share of a level for one round of it, by name."""
    return _starting(records, _inbox(level, partition, round_))


def share_records(records: Records, level: int, partition: int | None = None, before: int | None = None) -> Records:
    """Of these records, the shares of a level (of one partition; of its rounds before ``before``), by name."""
    found = _starting(records, _share(level, partition))
    return {name: r for name, r in found.items() if before is None or int(Path(name).stem.split("-")[3]) < before}


def routed_records(records: Records, level: int, range_: int) -> Records:
    """Of these records, the rows routed to a range of a level from every share, by name."""
    return _starting(records, _routed(level, range_))


def _starting(records: Records, prefix: str) -> Records:
    return {name: records[name] for name in sorted(records) if name.startswith(prefix) and name.endswith(SUFFIX)}


def write_work(rows: pa.Table, root: Place, table: str, name: str, durable: bool = False) -> Records:
    """Write a work file of the listing atomically: fast rather than small, its schema's metadata kept;
    ``durable`` if the manifest will record it as done. Its record, by its name.

    Arrow's own files (IPC) with LZ4, not Parquet: a file is read once, by the next step, and removed with
    the rest when the table is built, and Parquet's encoding of the nested lists of moves was a noticeable
    share of a listed game's build (docs/scale.md). Its name says which step made it, so a step run again
    writes the same files. A position is the game's notation, a move a plain value in JSON
    (``tablebase.listing.encoded``): nothing in a work file is run or unpickled."""
    sized = rows.replace_schema_metadata({**(rows.schema.metadata or {}), _BYTES_KEY: str(rows.nbytes).encode()})
    sink = pa.BufferOutputStream()
    with pa.ipc.new_file(sink, sized.schema, options=pa.ipc.IpcWriteOptions(compression="lz4")) as writer:
        writer.write_table(sized)
    return {name: put_file(root, table, name, sink.getvalue(), rows.num_rows, durable)}


def read_work(root: Place, table: str, records: Records, columns: list[str] | None = None,
              schema: pa.Schema | None = None) -> list[pa.Table]:
    """The work files these records name, in the order given, each a table (of ``columns`` only, if
    named; of ``schema``'s fields only, of their types, if given); a file missing, of other bytes than its
    record's, damaged, or without those fields is a StoreError naming it. The step that wrote a file hands
    its record to the steps that read it, and the manifest keeps it once the step is recorded: a file nobody
    recorded is never read."""
    tables = [_read_one(_checked(root, table, name, record), columns, name) for name, record in records.items()]
    if schema is None:
        return tables
    for name, rows in zip(records, tables):
        for field in schema:
            if rows.schema.get_field_index(field.name) < 0 or rows.schema.field(field.name).type != field.type:
                raise StoreError(f"work file {name} of {table} has no column {field.name!r} of {field.type}")
    return [rows.select(schema.names) for rows in tables]


def read_work_described(root: Place, table: str, records: Records,
                        columns: list[str] | None = None) -> list[tuple[pa.Table, dict[bytes, bytes], int]]:
    """``read_work`` of these files, each with its schema metadata and its rows' bytes in Arrow (all its
    columns', whichever are read): each file read and checked once."""
    described = []
    for name, record in records.items():
        data = _checked(root, table, name, record)
        metadata = _opened(data, name).schema.metadata or {}
        try:
            held = int(metadata[_BYTES_KEY])
        except (KeyError, ValueError):
            raise StoreError(f"work file {name} of {table} does not say its rows' size") from None
        described.append((_read_one(data, columns, name), _without_bytes(metadata), held))
    return described


def work_problem(root: Place, table: str, name: str, record: dict[str, Any]) -> str | None:
    """Why a recorded work file cannot be read as recorded (missing, other bytes), or None."""
    try:
        _checked(root, table, name, record)
    except StoreError as e:
        return str(e)
    return None


def recorded(results: Iterable[dict[str, Any]], key: str = "files") -> Records:
    """The records of the files some steps wrote, from their results (each's ``key``, if it has one)."""
    out: Records = {}
    for result in results:
        out.update((result or {}).get(key) or {})
    return out


def _checked(root: Place, table: str, name: str, record: dict[str, Any]) -> pa.Buffer:
    """A recorded work file's bytes, if they are those its record names (their size, then their sha256)."""
    location = located(root)
    try:
        data = location.read_if_there(f"{table_prefix(table)}/{stored_name(location, name, record)}")
    except OSError as e:
        raise StoreError(f"work file {name} of {table} cannot be read: {e.strerror or e}") from None
    if data is None:
        raise StoreError(f"work file {name} of {table} cannot be read: it is not there")
    if len(data) != record["bytes"] or hashlib.sha256(data).hexdigest() != record["sha256"]:
        raise StoreError(f"work file {name} of {table} is not the one its record names ({len(data):,} bytes, "
                         f"the record says {record['bytes']:,}, or other bytes)")
    return pa.py_buffer(data)


def _opened(data: pa.Buffer, name: str) -> pa.ipc.RecordBatchFileReader:
    try:
        return pa.ipc.open_file(data)
    except (OSError, pa.ArrowException, ValueError) as e:
        raise StoreError(f"cannot read work file {name}: {str(e).splitlines()[0] if str(e) else type(e).__name__}") \
            from None


def _read_one(data: pa.Buffer, columns: list[str] | None, name: str = "") -> pa.Table:
    reader = _opened(data, name)
    try:
        if columns is not None:  # only their buffers are uncompressed
            fields = [reader.schema.get_field_index(column) for column in columns]
            if -1 in fields:
                raise StoreError(f"work file {name} has no column {columns[fields.index(-1)]!r}")
            reader = pa.ipc.open_file(data, options=pa.ipc.IpcReadOptions(included_fields=fields))
        rows = reader.read_all()
        rows.validate(full=True)  # offsets and lengths within their buffers before anything reads them
    except (OSError, pa.ArrowException, ValueError) as e:
        raise StoreError(f"cannot read work file {name}: {str(e).splitlines()[0] if str(e) else type(e).__name__}") \
            from None
    return rows.replace_schema_metadata(_without_bytes(rows.schema.metadata))


def _without_bytes(metadata: dict[bytes, bytes] | None) -> dict[bytes, bytes]:
    return {key: value for key, value in (metadata or {}).items() if key != _BYTES_KEY}
