"""What a file of rows says of itself in its footer, checked before its rows are read: small files can expand.

A Parquet file of a few kilobytes may hold a great many rows of one repeated
value, or a long text that zstd squeezes to nothing, and whoever wrote a
folder can record such a file in its manifest. So what a reader loads is
bounded by what the footer says, not by the file's size (docs/security.md,
"Small files that expand"): the rows it holds, its text a row, and the memory
its rows take once read, weighed against the reader's budget before it reads.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tablebase.errors import DamagedTable, OverLimit
from tablebase.lazy import pa, pc, pq
from tablebase.store.manifest import Manifest
from tablebase.store.placed import Place, source

TEXT_PER_ROW = 4096  # bytes of a text column a row may take on average ...
TEXT_SLACK = 1 << 20  # ... beyond this much in each row group
MEMORY_CAP = 4 * 2**30  # bytes a reader loads of a table, unless it is told another memory limit
VALUE_BYTES = 8  # the least a value of a column takes once read (a key, a code into a dictionary, a figure)


def footer(path: Any, name: object = None) -> pq.FileMetaData:
    """A file's footer (from a path, or a file opened by ranges: ``placed.source``); DamagedTable naming the file
    (``name``, else its path) if it cannot be read."""
    try:
        return pq.read_metadata(path)
    except (OSError, pa.ArrowException) as e:
        raise DamagedTable(f"cannot read {name or path}: {str(e).splitlines()[0]}") from None


def footer_problem(metadata: pq.FileMetaData, record: dict | None = None) -> str | None:
    """What in a file's footer keeps it from being read, or None: rows other than its record's (if one is
    given), or a text column of more than ``TEXT_PER_ROW`` bytes a row on average beyond ``TEXT_SLACK`` (no
    position or figure of any game comes near)."""
    if record is not None and metadata.num_rows != record["rows"]:
        return f"holds {metadata.num_rows:,} rows by its footer, its manifest records {record['rows']:,}"
    for g in range(metadata.num_row_groups):
        group = metadata.row_group(g)
        for c in range(group.num_columns):
            column = group.column(c)
            if column.physical_type == "BYTE_ARRAY" and \
                    column.total_uncompressed_size > group.num_rows * TEXT_PER_ROW + TEXT_SLACK:
                return (f"its column {column.path_in_schema!r} holds {column.total_uncompressed_size:,} bytes of "
                        f"text in {group.num_rows:,} rows, more than a table's text may")
    return None


def expanded(metadata: pq.FileMetaData) -> int:
    """About the bytes a file's rows take once read, text kept in dictionaries: each value of each column at
    ``VALUE_BYTES``, and each column's uncompressed bytes."""
    size = metadata.num_rows * VALUE_BYTES * metadata.num_columns
    return size + sum(metadata.row_group(g).total_byte_size for g in range(metadata.num_row_groups))


def checked_footers(root: Place, manifest: Manifest) -> int:
    """The bytes a table's rows take loaded (``expanded``), from each file's footer; DamagedTable, in one line,
    unless every footer holds the rows its record says and no longer text than a table's (``footer_problem``)."""
    size = 0
    for name, record in sorted(manifest.files.items()):
        try:
            metadata = footer(source(root, manifest.table, name, record), name)
        except DamagedTable:
            raise refused(root, manifest.table, f"its file {name} has no footer that can be read") from None
        problem = footer_problem(metadata, record)
        if problem is not None:
            raise refused(root, manifest.table, f"its file {name} {problem}")
        size += expanded(metadata)
    return size


def refused(root: object, table: str, why: str) -> DamagedTable:
    """The one line that refuses a damaged table, saying why and what says more (``root``: where the tables are,
    a folder's path, a URL or a ``Location``)."""
    where = getattr(root, "url", root)
    return DamagedTable(f"table {table} is damaged and refused: {why}; tablebase verify --db {where} {table} says "
                        "what else")


def read_decoded(path: Path, budget: int, what: str) -> pa.Table:
    """A file of rows read whole, its text read into dictionaries first and decoded only if the rows then
    take at most ``budget`` bytes (OverLimit, naming ``what``, if not); DamagedTable if it cannot be read."""
    try:
        texts = _dictionary_texts(footer(path))
        rows = pq.read_table(path, read_dictionary=texts)
    except (OSError, pa.ArrowException) as e:
        raise DamagedTable(f"cannot read {path}: {str(e).splitlines()[0]}") from None
    size = rows.nbytes
    for name in texts:
        column = rows.column(name)
        size += sum(_decoded(chunk) - chunk.nbytes for chunk in column.chunks)
    if size > budget:
        raise OverLimit(f"{what} would take {size / 2**20:,.0f} MiB read, more than the {budget / 2**20:,.0f} MiB "
                        "allowed")
    for name in texts:
        at = rows.schema.get_field_index(name)
        rows = rows.set_column(at, name, rows.column(name).cast(rows.schema.field(at).type.value_type))
    return rows


def _dictionary_texts(metadata: pq.FileMetaData) -> list[str]:
    """The top-level text columns whose values are held in dictionaries: the others' decoded bytes are their
    uncompressed ones (and Arrow reads a column of prefix-encoded text into no dictionary)."""
    schema = metadata.schema.to_arrow_schema()
    found = []
    for c in range(metadata.num_columns):
        name = metadata.schema.column(c).path
        if name not in schema.names or not (pa.types.is_string(schema.field(name).type)
                                            or pa.types.is_large_string(schema.field(name).type)):
            continue
        encodings = {e for g in range(metadata.num_row_groups) for e in metadata.row_group(g).column(c).encodings}
        if encodings & {"PLAIN_DICTIONARY", "RLE_DICTIONARY"} and not any(e.startswith("DELTA") for e in encodings):
            found.append(name)
    return found


def _decoded(chunk: pa.DictionaryArray) -> int:
    """The bytes a dictionary-encoded text array takes decoded: each value's text as often as it is used."""
    if not len(chunk):
        return 0
    lengths = pc.binary_length(chunk.dictionary)
    used = pc.sum(pc.take(lengths, chunk.indices)).as_py() or 0
    return used + 4 * (len(chunk) + 1)
