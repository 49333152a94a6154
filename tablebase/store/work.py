"""The work files of a plain game listed in shares (``tablebase.build.shares``, ``tablebase.build.ranges``),
kept beside the listing's levels in ``_listing/`` until the table is built.

What reached each partition's share of a level (inbox); each share's rows, a
file for each batch they were played in (share); then, to number them, each
share's rows routed to the ranges of notation its level is cut in (routed),
a level's rows in ranges (range) and each range's rows as the listing holds
them (block). Every file is written atomically under a name that says which
step made it, so a step run again writes the same files.

They are Arrow's own files (IPC), compressed with LZ4, not Parquet: a file is
read once, by the next step, and removed with the rest when the table is
built, and Parquet's encoding of the nested lists of moves cost a listed
game's build about a twelfth of its CPU (Kayles with 40 pins: 12 s of
writing and 2.6 s of reading, of 185 s). Arrow's files take a quarter of that
time, for about twice the bytes on disk.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tablebase.errors import StoreError
from tablebase.lazy import pa
from tablebase.store.files import LISTING, table_dir, write_atomic

SUFFIX = ".arrow"
_BYTES_KEY = b"tablebase.arrow_bytes"  # a file's rows' bytes in Arrow, for a step that sizes them unread


def inbox_name(level: int, partition: int, round_: int, source: str) -> str:
    """Positions of a level that reached a partition from ``source`` (a step of the search, or the start)."""
    return f"{LISTING}/inbox-{level:06d}-{partition:04d}-{round_:04d}-{source}{SUFFIX}"


def share_name(level: int, partition: int, round_: int, batch: int = 0) -> str:
    """A partition's share of a level (found in one round of it): positions and their moves, a file for each
    batch they were played in."""
    return f"{LISTING}/share-{level:06d}-{partition:04d}-{round_:04d}{f'-{batch:04d}' if batch else ''}{SUFFIX}"


def routed_name(level: int, range_: int, partition: int, batch: int) -> str:
    """A share's rows of a level (one batch of them) that fall in one range of the level's notation."""
    return f"{LISTING}/routed-{level:06d}-{range_:04d}-{partition:04d}-{batch:04d}{SUFFIX}"


def routed_files(root: str | os.PathLike, table: str, level: int, range_: int | None = None,
                 partition: int | None = None) -> list[Path]:
    """The rows routed to a range of a level (or to any: None) from every share (or one), sorted."""
    range_part = "*" if range_ is None else f"{range_:04d}"
    share_part = "*" if partition is None else f"{partition:04d}"
    return sorted((table_dir(root, table) / LISTING).glob(f"routed-{level:06d}-{range_part}-{share_part}-*{SUFFIX}"))


def range_name(level: int, range_: int) -> str:
    """A range of a level's positions by notation, in order, with their moves and their children's hashes."""
    return f"{LISTING}/range-{level:06d}-{range_:04d}{SUFFIX}"


def places_name(level: int, range_: int) -> str:
    """Where each child of a range (``range_name``) finds its key among the answers to the range's questions."""
    return f"{LISTING}/places-{level:06d}-{range_:04d}{SUFFIX}"


def block_name(level: int, range_: int) -> str:
    """A range of a level's rows as the listing's level file holds them (children as keys)."""
    return f"{LISTING}/block-{level:06d}-{range_:04d}{SUFFIX}"


def inbox_files(root: str | os.PathLike, table: str, level: int, partition: int, round_: int) -> list[Path]:
    """What reached a partition's share of a level for one round of it, from every source, sorted."""
    return sorted((table_dir(root, table) / LISTING).glob(f"inbox-{level:06d}-{partition:04d}-{round_:04d}-*{SUFFIX}"))


def share_files(root: str | os.PathLike, table: str, level: int, partition: int | None = None,
                before: int | None = None) -> list[Path]:
    """The shares of a level (of one partition; of its rounds before ``before``), sorted."""
    which = "*" if partition is None else f"{partition:04d}"
    paths = sorted((table_dir(root, table) / LISTING).glob(f"share-{level:06d}-{which}-*{SUFFIX}"))
    return [p for p in paths if before is None or int(p.stem.split("-")[3]) < before]


def write_work(rows: pa.Table, root: str | os.PathLike, table: str, name: str, durable: bool = False) -> None:
    """Write a work file of the listing atomically: fast rather than small, its schema's metadata kept;
    ``durable`` if the manifest will record it as done."""
    sized = rows.replace_schema_metadata({**(rows.schema.metadata or {}), _BYTES_KEY: str(rows.nbytes).encode()})

    def write(tmp: Path) -> None:
        options = pa.ipc.IpcWriteOptions(compression="lz4")
        with pa.OSFile(str(tmp), "wb") as sink, pa.ipc.new_file(sink, sized.schema, options=options) as writer:
            writer.write_table(sized)

    write_atomic(table_dir(root, table) / name, write, durable)


def read_work(paths: list[Path], columns: list[str] | None = None) -> list[pa.Table]:
    """Work files of the listing, each a table (of ``columns`` only, if named); a damaged one is a StoreError
    naming it."""
    return [_read_one(path, columns) for path in paths]


def work_metadata(path: Path) -> tuple[dict[bytes, bytes], int]:
    """A work file's schema metadata and its rows' bytes in Arrow, its rows unread."""
    with _opened(path) as (_, reader):
        metadata = reader.schema.metadata
        return _without_bytes(metadata), int(metadata[_BYTES_KEY])


def _read_one(path: Path, columns: list[str] | None) -> pa.Table:
    with _opened(path) as (source, reader):
        if columns is not None:  # only their buffers are read and uncompressed
            fields = [reader.schema.get_field_index(name) for name in columns]
            reader = pa.ipc.open_file(source, options=pa.ipc.IpcReadOptions(included_fields=fields))
        rows = reader.read_all()
    return rows.replace_schema_metadata(_without_bytes(rows.schema.metadata))


@contextmanager
def _opened(path: Path) -> Iterator[tuple[pa.NativeFile, pa.ipc.RecordBatchFileReader]]:
    """A work file open, and its reader; a damaged file is a StoreError naming it."""
    try:
        with pa.OSFile(str(path), "rb") as source:
            yield source, pa.ipc.open_file(source)
    except (OSError, pa.ArrowException, KeyError, ValueError) as e:
        raise StoreError(f"cannot read {path}: {str(e).splitlines()[0] if str(e) else type(e).__name__}") from None


def _without_bytes(metadata: dict[bytes, bytes] | None) -> dict[bytes, bytes]:
    return {key: value for key, value in (metadata or {}).items() if key != _BYTES_KEY}
