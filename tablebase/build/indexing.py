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

from tablebase.build import readback
from tablebase.store import Manifest, table_dir
from tablebase.store.probe import PASSES, write_index


def index_table(root: str, table: str, run: str = "", every: float = float("inf")) -> dict[str, dict[str, Any]]:
    """A task: write a complete table's probe index; the manifest's record of it (name -> rows, bytes, sha256).
    How far its passes over the rows have got is told to the build ``run``'s driver (``readback.Report``):
    Chomp 17x17's take tens of minutes."""
    manifest = Manifest.load(root, table)
    total, what = index_work(manifest)
    with readback.Report(run, total, every, what) as report:
        return write_index(root, manifest, done=report.add)


def index_work(manifest: Manifest) -> tuple[int, str]:
    """The rows the index's passes read in all, and what the progress calls that work."""
    rows = sum(r["rows"] for r in manifest.files.values())
    return PASSES * rows, f"writing the probe index, {PASSES} passes over {rows:,} rows"


def index_whole(root: Path, manifest: Manifest) -> bool:
    """Whether the manifest records a probe index whose file is there at its recorded size."""
    folder = table_dir(root, manifest.table)
    return bool(manifest.probe) and all((folder / name).is_file() and (folder / name).stat().st_size == r["bytes"]
                                        for name, r in manifest.probe.items())
