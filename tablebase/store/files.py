"""Paths, atomic writes and reads of the Parquet files of a table."""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from tablebase.errors import DamagedTable, StoreError
from tablebase.lazy import np, pa, pq
from tablebase.schema import LEVEL
from tablebase.store.layout import ROWS, Piece

ROW_GROUP = 262_144  # rows; larger groups compress keys and moves better, and DuckDB reads them in parallel
TABLE_NAME = r"^[a-z][a-z0-9_]*$"  # a table's folder: what a table may be called, here and over HTTP
_TABLE_NAME = re.compile(TABLE_NAME)


def table_dir(root: str | os.PathLike, table: str) -> Path:
    if not _TABLE_NAME.match(table):
        raise StoreError(f"bad table name {table!r}: use lower-case letters, digits and '_'")
    return Path(root) / table


def piece_path(root: str | os.PathLike, table: str, piece: Piece) -> Path:
    return table_dir(root, table) / piece.name


def rows_on_disk(root: str | os.PathLike, table: str) -> set[str]:
    """The names of every file of a table's rows that is on disk."""
    folder = table_dir(root, table)
    return {str(p.relative_to(folder)) for p in folder.glob(f"{ROWS}/*.parquet")}


def first_outside(folder: Path, names: Iterable[object]) -> object | None:
    """The first of the file names a manifest records that leaves the table's folder, or None.

    A name must be relative, without ``..``, and name a path that, symlinks
    followed, is still under the folder: a downloaded folder's manifest may
    name anything, and no reader follows it out. Each distinct sub-folder is
    resolved and listed once, and a file resolved only if the listing says it
    is a symlink: a table has thousands of files, opening it reads every
    manifest, and a stat of each file would cost more than the rest of a lookup.
    """
    home = os.path.realpath(folder)
    links: dict[str, set[str] | None] = {}  # sub-folder: the names of the symlinks in it; None if it leaves
    for name in names:
        if escapes(name):
            return name
        parent, _, leaf = _native(name).rpartition(os.sep)
        if parent not in links:
            real = os.path.realpath(os.path.join(home, parent))
            links[parent] = _symlinks(real) if _under(real, home) else None
        found = links[parent]
        if found is None or (leaf in found and not _under(os.path.realpath(os.path.join(home, name)), home)):
            return name
    return None


def escapes(name: object) -> bool:
    """Whether a name a manifest records leaves its table's folder by its text alone: no text, empty, with a
    NUL, absolute, or with a ``..`` part (where the folder is on disk, ``first_outside`` follows its symlinks
    too)."""
    if type(name) is not str or not name or "\0" in name:
        return True
    path = _native(name)
    return os.path.isabs(name) or (".." in path and ".." in path.split(os.sep))


def _native(name: str) -> str:
    return name.replace(os.altsep, os.sep) if os.altsep else name


def _symlinks(folder: str) -> set[str]:
    """The names of the symlinks in a folder, from one listing (none if it cannot be listed: then no file
    in it is read either)."""
    try:
        with os.scandir(folder) as entries:
            return {entry.name for entry in entries if entry.is_symlink()}
    except OSError:
        return set()


def _under(path: str, home: str) -> bool:
    return path == home or path.startswith(home.rstrip(os.sep) + os.sep)


def intact(folder: Path, name: str, record: dict) -> bool:
    """Whether a recorded file is on disk as the manifest records it: its size, then its sha256.

    Costs a read of the file: what a resumed build keeps is checked this way,
    so that flipped bytes are built again rather than kept.
    """
    path = folder / name
    try:
        return path.is_file() and path.stat().st_size == record["bytes"] and sha256_of(path) == record["sha256"]
    except OSError:
        return False


def record_problems(folder: Path, name: str, record: dict) -> list[str]:
    """How a file differs from its manifest record: missing, or its size, sha256 or rows.

    Rows are counted from the file's footer; a footer that cannot be read is
    left to whatever reads the file next, which says so.
    """
    path = folder / name
    if not path.is_file():
        return ["file is missing"]
    problems = []
    size = path.stat().st_size
    if size != record["bytes"]:
        problems.append(f"{size} bytes, the manifest says {record['bytes']}")
    if sha256_of(path) != record["sha256"]:
        problems.append("sha256 differs from the manifest")
    try:
        rows = pq.ParquetFile(path).metadata.num_rows
    except (OSError, pa.ArrowException):
        return problems
    if rows != record["rows"]:
        problems.append(f"{rows:,} rows, the manifest says {record['rows']:,}")
    return problems


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def write_atomic(path: Path, write, durable: bool = True) -> None:
    """Call ``write(tmp_path)``, then rename: readers never see half a file.

    ``durable`` also syncs the file to disk before the rename; a writer of many
    small files may instead call :func:`flush_to_disk` once after all of them
    (and before anything records them as done).
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    try:
        write(tmp)
        if durable:
            fsync_path(tmp)
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()


def flush_to_disk(paths: Iterable[str | os.PathLike]) -> None:
    """Sync these written files to disk, many at once, before anything records them as done.

    Each file is synced by itself: a sync of the whole system (``os.sync``) would
    also wait for every other program's writes, which on a busy disk is long;
    fsyncs of many files at once share the journal's commits, so many small
    files cost little more than one. Each folder they are in is synced
    once after them, since the files came there by renames and a rename is
    the folder's write.
    """
    # imports logging: not for a program that only reads
    from concurrent.futures import ThreadPoolExecutor

    paths = list(paths)
    folders = list(dict.fromkeys(os.path.dirname(os.path.abspath(path)) for path in paths))
    for batch in (paths, folders):
        if len(batch) == 1:
            fsync_path(batch[0])
        elif batch:
            with ThreadPoolExecutor(min(16, len(batch))) as pool:
                list(pool.map(fsync_path, batch))


def fsync_path(path: str | os.PathLike) -> None:
    """Sync one file, or a folder's entries, to disk."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def with_levels(rows: pa.Table, levels: np.ndarray) -> pa.Table:
    """Rows with their ``level`` column (each row's level), as every file of rows holds it."""
    return rows.append_column(LEVEL.name, pa.array(np.asarray(levels), type=LEVEL.arrow()))


def write_parquet(table: pa.Table, path: Path, durable: bool = True) -> dict:
    """Write rows (sorted by level, then key) atomically; return the file's record (rows, bytes, sha256).

    Statistics of ``key`` and ``level`` let readers skip row groups by either.
    """
    return write_table(table, path, durable, sort_key="key", statistics=["key", "level"])


# zstd levels: position text is the largest column and repays a high level; keys,
# values and move codes gain little from one and would pay its time (README.md
# says what the two levels write against level 9 for everything).
TEXT_LEVEL = 9
NUMBER_LEVEL = 1


def write_table(table: pa.Table, path: Path, durable: bool = True, sort_key: str | None = None,
                level: int | None = None, statistics: list[str] | None = None, group: int = ROW_GROUP) -> dict:
    """Write any table atomically; ``sort_key`` names its sorted column of unique integers, if any.

    Keys are unique and sorted, so delta encoding beats a dictionary for them;
    text columns use prefix (delta byte array) encoding, which suits sorted
    positions. Narrow integers (Grundy values, remoteness, counts) are stored
    as 32-bit integers, so their bytes are split into streams: zstd then
    squeezes the streams of high bytes to nothing and the low bytes better
    than a dictionary's bit-packed indexes (Chomp's remoteness: 1.7 bits a
    position instead of 2.7). Everything is zstd-compressed in row groups of
    256K rows (or ``group``); ``level`` sets one zstd level for every column instead of
    ``TEXT_LEVEL`` for text and ``NUMBER_LEVEL`` for the rest.
    """
    # Encoded in memory, then written in one go and hashed there: for thousands of
    # small files this saves opening each through Arrow's filesystem layer and
    # reading it back to hash it.
    data = parquet_bytes(table, sort_key, level, statistics, group)
    write_atomic(path, lambda tmp: Path(tmp).write_bytes(data), durable)
    return {"rows": table.num_rows, "bytes": data.size, "sha256": hashlib.sha256(data).hexdigest()}


def parquet_bytes(table: pa.Table, sort_key: str | None = None, level: int | None = None,
                  statistics: list[str] | None = None, group: int = ROW_GROUP, codec: str = "zstd") -> pa.Buffer:
    """A table's Parquet file, in memory, as ``write_table`` writes it (``codec``: as ``parquet_options``)."""
    sink = pa.BufferOutputStream()
    pq.write_table(table, sink, row_group_size=group,
                   **parquet_options(table.schema, sort_key, level, statistics, codec))
    return sink.getvalue()


def parquet_options(schema: pa.Schema, sort_key: str | None, level: int | None,
                     statistics: list[str] | None, codec: str = "zstd") -> dict[str, Any]:
    """The writer's options for a table of this schema (``write_table`` says why each). ``codec``: zstd, at
    ``level``, or "lz4" for a file read back soon and removed (``level`` then unused)."""
    encodings = {}
    for field in schema:
        if field.name == sort_key:
            encodings[field.name] = "DELTA_BINARY_PACKED"
        elif field.name == "position":
            encodings[field.name] = "DELTA_BYTE_ARRAY"
        elif pa.types.is_integer(field.type) and field.type.bit_width <= 16:
            encodings[field.name] = "BYTE_STREAM_SPLIT"
    # Nested columns (a listing's moves) keep the writer's defaults.
    dictionary = [f.name for f in schema if f.name not in encodings and not pa.types.is_nested(f.type)]
    levels = {f.name: level or (TEXT_LEVEL if pa.types.is_string(f.type) else NUMBER_LEVEL) for f in schema}
    return {"compression": codec, "compression_level": levels if codec == "zstd" else None,
            "use_dictionary": dictionary,
            "column_encoding": encodings, "write_statistics": statistics or ([sort_key] if sort_key else False),
            "store_schema": False}


def read_parquet(
    paths: list[Path], columns: list[str] | None = None, filters=None, dictionary: list[str] | None = None
) -> pa.Table:
    """Read and concatenate files; a damaged file is a DamagedTable (a StoreError) naming it.

    Columns named in ``dictionary`` come back dictionary-encoded.
    """
    tables = []
    for path in paths:
        try:
            tables.append(pq.read_table(path, columns=columns, filters=filters, read_dictionary=dictionary))
        except (OSError, pa.ArrowException) as e:
            raise DamagedTable(f"cannot read {path}: {str(e).splitlines()[0]}") from None
    if not tables:
        raise StoreError("no files to read")
    return pa.concat_tables(tables)
