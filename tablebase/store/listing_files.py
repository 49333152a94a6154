"""The level files of a game's listing (games whose positions the engine lists), kept in ``_listing/`` while its
table builds, at the table's place (a folder or an object store): written, read by their records (a task reads
the row groups of its part only), and removed once the rows hold what they were for.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from tablebase.errors import StoreError
from tablebase.lazy import np, pa, pq
from tablebase.store.files import parquet_bytes, parquet_options, table_dir
from tablebase.store.location import Folder, located
from tablebase.store.placed import Place, put_file, put_written, read_files, source, table_prefix

LISTING = "_listing"
LISTING_GROUP = 4_096  # rows of a listing's level file read at once: a task reads the groups of its part only
# rows of consecutive small levels of a listing in one file at most: a game of a few positions a level would
# otherwise write, sync and read back a file for each of hundreds of thousands of levels
LISTING_SPAN = 65_536
# Each file is read back once or twice and then removed: written fast rather than small (docs/scale.md,
# "Numbering").
LISTING_CODEC = "lz4"
Record = Mapping[str, Any]


def listing_name(level: int) -> str:
    """The listing file of one level, relative to its table's folder."""
    return f"{LISTING}/level-{level:06d}.parquet"


def write_listing_level(rows: pa.Table, root: Place, table: str, level: int) -> dict:
    """Write one level of a listing (its rows in key order) whole; its record (with ``file``)."""
    name = listing_name(level)
    data = parquet_bytes(rows, group=LISTING_GROUP, codec=LISTING_CODEC)
    return {"file": name, **put_file(root, table, name, data, rows.num_rows, durable=False)}


def write_listing_blocks(blocks: Iterable[pa.Table], root: Place, table: str, level: int) -> dict:
    """Write one level of a listing from its blocks (each a run of its rows in key order, in order, read as
    they are taken: one is held at a time); its record (with ``file``), as ``write_listing_level`` gives."""
    name = listing_name(level)

    def write(path: Path) -> None:
        writer = None
        for rows in blocks:
            if writer is None:
                writer = pq.ParquetWriter(path, rows.schema,
                                            **parquet_options(rows.schema, None, None, None, LISTING_CODEC))
            if rows.num_rows:
                writer.write_table(rows, row_group_size=LISTING_GROUP)
        if writer is None:
            raise StoreError(f"no blocks to write {name} of {table}")
        writer.close()

    return {"file": name, **put_written(root, table, name, write, durable=False)}


def write_listing_span(levels: dict[int, pa.Table], root: Place, table: str) -> dict:
    """Write consecutive levels of a listing (each one's rows in key order) in one file, named for the first,
    with a ``level`` column; its record (with ``file``, and ``levels``: the first and the last)."""
    first = min(levels)
    rows = pa.concat_tables([t.append_column("level", pa.array(np.full(t.num_rows, level, dtype=np.int32)))
                             for level, t in sorted(levels.items())])
    name = listing_name(first)
    data = parquet_bytes(rows, group=LISTING_SPAN, codec=LISTING_CODEC)
    return {"file": name, **put_file(root, table, name, data, rows.num_rows, durable=False),
            "levels": [first, max(levels)]}


def read_listing_span(root: Place, table: str, name: str, record: Record | None = None) -> dict[int, pa.Table]:
    """The levels a listing's file of several holds (``write_listing_span``), each one's rows in key order."""
    rows = read_files(root, table, {name: record or {}})
    levels = rows.column("level").to_numpy()
    rows = rows.drop_columns(["level"])
    cuts = np.flatnonzero(np.diff(levels)) + 1
    starts, ends = [0, *cuts.tolist()], [*cuts.tolist(), len(levels)]
    return {int(levels[a]): rows.slice(a, b - a) for a, b in zip(starts, ends) if b > a}


def read_listing_level(root: Place, table: str, level: int, record: Record | None = None) -> pa.Table:
    return read_files(root, table, {listing_name(level): record or {}})


def read_listing_rows(root: Place, table: str, level: int, start: int, stop: int,
                      record: Record | None = None) -> tuple[int, pa.Table]:
    """The row groups of a level's listing that hold its rows ``start`` to ``stop``, and the row the first
    of them begins at: a task reads its part of a level, not the whole of it."""
    name = listing_name(level)
    try:
        file = pq.ParquetFile(source(root, table, name, record))
        sizes = [file.metadata.row_group(g).num_rows for g in range(file.metadata.num_row_groups)]
        if not sizes:
            return 0, file.read()
        ends = np.cumsum(sizes)
        first = min(int(np.searchsorted(ends, start, side="right")), len(sizes) - 1)
        last = min(max(first, int(np.searchsorted(ends, stop - 1, side="right"))), len(sizes) - 1)
        return int(ends[first] - sizes[first]), file.read_row_groups(range(first, last + 1))
    except (OSError, pa.ArrowException) as e:
        raise StoreError(f"cannot read {name} of {table}: {str(e).splitlines()[0]}") from None


def remove_listing(root: Place, table: str) -> None:
    """Delete a table's listing once its rows are built (they hold all it is needed for)."""
    location = located(root)
    if not isinstance(location, Folder):
        location.delete(sorted(location.list(f"{table_prefix(table)}/{LISTING}/")))
        return
    folder = table_dir(location.root, table) / LISTING
    for path in sorted(folder.glob("*")):
        path.unlink()
    if folder.is_dir():
        folder.rmdir()
