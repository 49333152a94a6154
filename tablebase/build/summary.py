"""What one run of a table's build did (``BuildSummary``), and a job's summary table: one row per table
it built, of the figures each manifest records.

A job entry that stands for many tables (the octal game's ``codes``) may name
a summary, written once the job is built as ``<out>/_summaries/<name>.parquet``;
every folder of tables shows each summary as a view of that name
(``query/views.py``).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from tablebase.errors import StoreError
from tablebase.lazy import pa
from tablebase.store import Manifest
from tablebase.store.files import parquet_bytes
from tablebase.store.location import Location, located

FOLDER = "_summaries"


@dataclass(frozen=True)
class BuildSummary:
    """What one run of a table's build did (the build command prints it as one JSON line). Its seconds are
    those its lines say (``display.Timings``): ``seconds`` the whole run's, the others its steps'."""

    table: str
    positions: int
    levels: int
    seconds: float
    partitions: int
    skipped_partitions: int  # built by an earlier run, kept
    bytes: int
    memory_estimate_mib: int  # a worker's planned peak
    worker_seconds: dict[str, float]  # the workers' time reading lower levels, solving and writing
    index_seconds: float = 0.0  # the wall time of the build's last step: the probe index's segments left, its directory
    listing_seconds: float = 0.0  # the wall time of listing the positions of a game that does not list its own
    numbering_seconds: float = 0.0  # the listing's last part: its positions numbered by notation, level by level
    solving_seconds: float = 0.0  # the wall time of the solving tasks, their reading back included

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

# (column, type) of every summary, whatever its tables hold: null where a table has no such figure.
COLUMNS = [("table", pa.string()), ("game", pa.string()), ("code", pa.string()), ("max", pa.int64()),
           ("heaps", pa.int64()), ("complete", pa.bool_()), ("preperiod", pa.int64()), ("period", pa.int64()),
           ("proven_at", pa.int64()), ("stopped_at", pa.int64()), ("largest", pa.int64()),
           ("largest_heap", pa.int64()), ("rare_count", pa.int64()), ("rare_mask", pa.string())]


def summary_row(m: Manifest) -> dict[str, Any]:
    """A table's row of a summary, from its manifest: its name, its options (``code``, ``max``), the heaps it
    holds, and its figures (an octal table's period, preperiod, proof heap, largest value, rare heaps and
    mask). A table whose period is proven before its last heap says so: ``stopped_at`` is the proof heap,
    past which its values were copied from the period rather than computed."""
    figures = m.figures
    period, rare = figures.get("period") or {}, figures.get("rare") or {}
    heaps = figures.get("heaps", m.positions)
    proven = period.get("proven_at")
    return {"table": m.table, "game": m.game, "code": m.params.get("code"), "max": m.params.get("max"),
            "heaps": heaps, "complete": m.complete, "preperiod": period.get("preperiod"),
            "period": period.get("period"), "proven_at": proven,
            "stopped_at": proven if proven is not None and proven < heaps - 1 else None,
            "largest": figures.get("largest"), "largest_heap": figures.get("largest_heap"),
            "rare_count": rare.get("count"), "rare_mask": rare.get("mask")}


def write_summary(out: str | Path | Location, name: str, tables: list[str]) -> str:
    """Write the summary ``name`` of these tables of ``out`` (a folder or an object store), whole; where it is."""
    rows = []
    for table in tables:
        try:
            rows.append(summary_row(Manifest.load(out, table)))
        except StoreError:
            continue  # a table the job did not get to: left out, the others summed up
    schema = pa.schema(COLUMNS)
    # Under its own name, whole: one object store PUT replaces an object whole, as a rename does a file.
    where = f"{FOLDER}/{name}.parquet"
    location = located(out)
    location.write(where, parquet_bytes(pa.Table.from_pylist(rows, schema=schema)))
    return location.where(where)
