"""The last step of a build: the table's probe index, written on a worker once the table is whole.

Other programs probe a table through this file by memory-mapping it
(``tablebase.probe``, ``docs/format.md``). It is made from the table's own
Parquet files, a batch at a time (``tablebase.store.probe``), so a worker
writes it in bounded memory; the driver only records it in the manifest.
Tables built before it existed get theirs from ``tablebase index``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tablebase.store import Manifest, table_dir
from tablebase.store.probe import write_index


def index_table(root: str, table: str) -> dict[str, dict[str, Any]]:
    """A task: write a complete table's probe index; the manifest's record of it (name -> rows, bytes, sha256)."""
    return write_index(root, Manifest.load(root, table))


def index_whole(root: Path, manifest: Manifest) -> bool:
    """Whether the manifest records a probe index whose file is there at its recorded size."""
    folder = table_dir(root, manifest.table)
    return bool(manifest.probe) and all((folder / name).is_file() and (folder / name).stat().st_size == r["bytes"]
                                        for name, r in manifest.probe.items())
