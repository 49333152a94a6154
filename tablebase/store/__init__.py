"""The on-disk layout: Parquet per table, a manifest, a lock; the only place that spells paths.

``layout.Piece`` names the files of a table's rows (a span of small levels,
or a part of a large one; rows sorted by level, then key);
``<root>/<table>/_manifest.json`` says what was built and how; a
partizan table's values table is ``<root>/<table>/values/`` (see
``tablebase.store.values_files``); games whose positions the engine lists keep the
listing in ``_listing/`` while they build. ``loaded_rows`` reads a table into
memory for lookups. This layer knows files and columns, never the rules of a game.
What only a build uses is imported from its own module, not from here: the
build lock (``lock.py``) and a listing's work files (``work.py``), so that a
program that only reads imports neither.
"""

from tablebase.store.files import (
    first_outside,
    flush_to_disk,
    intact,
    piece_path,
    read_parquet,
    record_problems,
    rows_on_disk,
    sha256_of,
    table_dir,
    with_levels,
    write_parquet,
)
from tablebase.store.layout import Layout, Piece, Plan
from tablebase.store.listing_files import (
    read_listing_level,
    read_listing_rows,
    read_listing_span,
    remove_listing,
    write_listing_blocks,
    write_listing_level,
    write_listing_span,
)
from tablebase.store.loaded_rows import LoadedRows
from tablebase.store.manifest import Manifest, list_tables
from tablebase.store.placed import file_there, put_rows, read_files, read_level

__all__ = [
    "Layout",
    "Plan",
    "Manifest",
    "Piece",
    "LoadedRows",
    "first_outside",
    "flush_to_disk",
    "file_there",
    "intact",
    "list_tables",
    "piece_path",
    "read_level",
    "read_listing_level",
    "read_listing_rows",
    "read_listing_span",
    "put_rows",
    "read_files",
    "read_parquet",
    "record_problems",
    "remove_listing",
    "rows_on_disk",
    "sha256_of",
    "table_dir",
    "with_levels",
    "write_listing_blocks",
    "write_listing_level",
    "write_listing_span",
    "write_parquet",
]
