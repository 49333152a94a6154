"""The values table of a partizan table: each canonical form once, in files of its own.

While a table builds, the task that writes a file of rows also writes a
*piece* (``piece_name``): every form that is the value of one of its rows,
with its options, recursively, so that the piece is closed under options.
When every partition is built, the pieces are merged by id into buckets
(``bucket_name``, ``merge_values``), the values table, and deleted. Nothing
here knows what a form is: the merge works on the columns ``id``, ``value``,
``positions`` and ``first_level``, of the types ``tablebase.schema.VALUES`` gives.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from tablebase.errors import StoreError
from tablebase.lazy import np, pa, pc, pq
from tablebase.schema import VALUES
from tablebase.store.files import ROW_GROUP, table_dir
from tablebase.store.location import Folder, located
from tablebase.store.placed import Place, names_under, put_written, read_files, table_prefix

FOLDER = "values"
ID_SPACE = 1 << 63  # stable ids are 63-bit


def piece_name(rows: str) -> str:
    """The piece of the values table made from one file of rows (named as ``layout.Piece.name``)."""
    return f"{FOLDER}/pieces/{Path(rows).name}"


def bucket_name(bucket: int) -> str:
    """One file of the merged values table, relative to the table's folder."""
    return f"{FOLDER}/part-{bucket:05d}.parquet"


def bucket_range(bucket: int, buckets: int) -> tuple[int, int]:
    """The ids ``[low, high)`` that one bucket holds: its equal slice of ``[0, ID_SPACE)``."""
    return bucket * ID_SPACE // buckets, (bucket + 1) * ID_SPACE // buckets


def write_values(rows: pa.Table, root: Place, table: str, name: str, durable: bool = True) -> dict:
    """Write values rows (sorted by id) whole; return the file's record (rows, bytes, sha256)."""

    def write(tmp: Path) -> None:
        pq.write_table(
            rows,
            tmp,
            compression="zstd",
            compression_level=9,
            row_group_size=ROW_GROUP,
            # Ids are hashes: a dictionary cannot shrink them, and sorted they delta-encode.
            use_dictionary=[f.name for f in rows.schema if f.name != "id"],
            column_encoding={"id": "DELTA_BINARY_PACKED"},
            write_statistics=["id"],
            store_schema=False,
        )

    return put_written(root, table, name, write, rows.num_rows, durable)


def values_on_disk(root: Place, table: str) -> set[str]:
    """The names of every values file of a table that is where it lies (pieces and merged files)."""
    return {name for name in names_under(root, table, FOLDER) if name.endswith(".parquet")}


def remove_pieces(root: Place, table: str) -> None:
    """Delete the pieces once the merged files are recorded."""
    location = located(root)
    if not isinstance(location, Folder):
        location.delete(sorted(location.list(f"{table_prefix(table)}/{FOLDER}/pieces/")))
        return
    folder = table_dir(location.root, table)
    for path in sorted(folder.glob(f"{FOLDER}/pieces/*")):
        path.unlink()
    if (folder / FOLDER / "pieces").is_dir():
        (folder / FOLDER / "pieces").rmdir()


def merged_files(values: dict[str, Any]) -> list[str] | None:
    """The merged files of a manifest's ``values`` record, in order, or None unless all are recorded."""
    buckets, files = values.get("buckets"), values.get("files", {})
    names = [bucket_name(b) for b in range(buckets or 0)]
    return names if names and all(n in files for n in names) else None


def read_values(root: Place, table: str, records: Mapping[str, Any], low: int | None = None,
                high: int | None = None) -> pa.Table:
    """Values rows of these recorded files, only ids in ``[low, high)`` if given."""
    filters = []
    if low:
        filters.append(("id", ">=", low))
    if high is not None and high < ID_SPACE:  # 2**63 itself is no int64
        filters.append(("id", "<", high))
    return read_files(root, table, records, filters=filters or None)


def merge_values(pieces: list[pa.Table]) -> pa.Table:
    """Pieces (or merged files) as one table: each id once, sorted, ``positions`` added up and the least
    ``first_level`` kept. Pieces overlap (small forms are everyone's options).

    Rows of one id must agree on the form's text; if they do not, two forms
    share a stable id (a hash collision) and the merge refuses.
    """
    if not pieces:
        raise StoreError("no values to merge")
    rows = pa.concat_tables(pieces)
    if not rows.num_rows:
        return rows
    rows = rows.take(pc.sort_indices(rows, [("id", "ascending")]))
    ids = rows.column("id").to_numpy()
    starts = np.flatnonzero(np.r_[True, ids[1:] != ids[:-1]])
    owner = np.repeat(starts, np.diff(np.r_[starts, len(ids)]))
    if not pc.all(pc.equal(rows.column("value"), rows.column("value").take(owner))).as_py():
        raise StoreError("two different forms share a stable id; the values table cannot hold both")
    positions = np.add.reduceat(rows.column("positions").to_numpy(), starts)
    levels = pc.fill_null(rows.column("first_level"), np.iinfo(np.int32).max).to_numpy()
    first = np.minimum.reduceat(levels, starts)
    merged = rows.take(starts)
    merged = merged.set_column(merged.schema.get_field_index("positions"), "positions",
                               pa.array(positions, type=VALUES["positions"].arrow()))
    return merged.set_column(merged.schema.get_field_index("first_level"), "first_level",
                             pa.array(first, type=VALUES["first_level"].arrow(), mask=first == np.iinfo(np.int32).max))
