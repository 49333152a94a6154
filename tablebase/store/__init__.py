"""The on-disk layout: Parquet per table, a manifest, a lock; the only place that spells paths.

``files.part_name`` names the file of one partition of one level, rows sorted
by key; ``<root>/<table>/_manifest.json`` says what was built and how; a
partizan table's values table is ``<root>/<table>/values/`` (see
``tablebase.store.values``); games whose positions the engine lists keep the
listing in ``_listing/`` while they build. ``index`` reads a table into
memory for lookups. This layer knows files and columns, never the rules of a game.
"""

from tablebase.store.files import (
    flush_to_disk,
    level_files,
    level_of_name,
    level_parts,
    part_name,
    part_of_name,
    part_path,
    read_listing_level,
    read_parquet,
    remove_leftovers,
    remove_listing,
    row_files_on_disk,
    row_files_pattern,
    sha256_of,
    table_dir,
    write_listing_level,
    write_parquet,
)
from tablebase.store.index import TableIndex
from tablebase.store.lock import BuildLock
from tablebase.store.manifest import Manifest, list_tables

__all__ = [
    "BuildLock",
    "Manifest",
    "TableIndex",
    "flush_to_disk",
    "level_files",
    "level_of_name",
    "level_parts",
    "list_tables",
    "part_name",
    "part_of_name",
    "part_path",
    "read_listing_level",
    "read_parquet",
    "remove_leftovers",
    "remove_listing",
    "row_files_on_disk",
    "row_files_pattern",
    "sha256_of",
    "table_dir",
    "write_listing_level",
    "write_parquet",
]
