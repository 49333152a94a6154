"""The on-disk layout: hive-partitioned Parquet per table, a manifest, a lock.

``<root>/<table>/level=<k>/part-<n>.parquet`` holds the rows of one partition of
one level, sorted by key; ``<root>/<table>/_manifest.json`` says what was built
and how; a partizan table's values table is ``<root>/<table>/values/`` (see
``tablebase.store.values``). This layer knows files and columns, never the rules of a game.
"""

from tablebase.store.files import (
    level_files,
    part_path,
    read_parquet,
    remove_leftovers,
    table_dir,
    write_parquet,
)
from tablebase.store.lock import BuildLock
from tablebase.store.manifest import Manifest, list_tables

__all__ = [
    "BuildLock",
    "Manifest",
    "level_files",
    "list_tables",
    "part_path",
    "read_parquet",
    "remove_leftovers",
    "table_dir",
    "write_parquet",
]
