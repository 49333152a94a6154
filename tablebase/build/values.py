"""Building the values table of a partizan table: pieces per partition, then a merge.

Each solving task writes, beside its rows, the piece of the values table
that its rows need (``tablebase.store.values``); the manifest records it
under ``values.pieces``. Once every partition is built, one Dask task per
bucket merges the pieces (and merged files that are already there) into
``values/part-<b>.parquet``, recorded under ``values.files``; then the
pieces are deleted. The number of buckets follows from the pieces' row
counts (recorded in the manifest, and the same whatever the cluster, as the
pieces are), so the files are the same whatever the cluster.

Resuming: while the merge is not done, a partition counts as built only if
its piece is there too (otherwise it is solved again, which writes both).
Once every bucket is merged, a partition solved again changes nothing in
the values table (a build is deterministic), so its piece is just dropped.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pyarrow as pa
from distributed import Client, as_completed

from tablebase.games import Game
from tablebase.store import Manifest, table_dir
from tablebase.store.values import (
    FOLDER,
    bucket_name,
    bucket_range,
    merge_values,
    merged_files,
    piece_name,
    read_values,
    write_values,
)

MERGE_ROWS = 2_000_000  # piece rows per merge task: a few hundred MiB of Arrow rows to sort


def wanted(game: Game) -> bool:
    """Whether the game's tables have a values table (partizan games do)."""
    return game.kind == "partizan"


def buckets_for(manifest: Manifest) -> int:
    """How many merged files: one per MERGE_ROWS rows of the pieces (their total is deterministic)."""
    rows = sum(p["rows"] for p in manifest.values.get("pieces", {}).values())
    return max(1, -(-rows // MERGE_ROWS))


def merged(manifest: Manifest) -> bool:
    """Whether every bucket of the values table is recorded."""
    return merged_files(manifest.values) is not None


def prepare(root: Path, manifest: Manifest, game: Game) -> None:
    """Before a build (or a resumed one): keep the values records whose files are whole,
    and forget built partitions whose piece is lost while the merge still needs it."""
    if not wanted(game):
        return
    folder = table_dir(root, manifest.table)
    for leftover in list(folder.glob(f"{FOLDER}/**/.*.tmp-*")):
        leftover.unlink(missing_ok=True)  # a killed writer's temporary file

    def whole(records: dict[str, dict]) -> dict[str, dict]:
        return {n: r for n, r in records.items()
                if (folder / n).is_file() and (folder / n).stat().st_size == r["bytes"]}

    old = manifest.values
    files = whole(old.get("files", {}))
    # The number of buckets is fixed by the first merge; it stays while any merged file does.
    buckets = old.get("buckets") if files else None
    manifest.values = {"buckets": buckets, "files": files, "pieces": whole(old.get("pieces", {}))}
    if merged(manifest):
        return
    for name in list(manifest.files):
        level, part = name.split("/")
        piece = piece_name(int(level.split("=")[1]), int(part[5:10]))
        if piece not in manifest.values["pieces"]:
            del manifest.files[name]


def write_piece(solver: Any, rows: pa.Table, root: str, table: str, level: int, part: int,
                durable: bool) -> dict[str, Any] | None:
    """Write the values piece of one solved partition (if the solver makes values); its record."""
    values_of = getattr(solver, "values_of", None)
    if values_of is None:
        return None
    name = piece_name(level, part)
    return {"file": name, **write_values(values_of(rows, level), root, table, name, durable)}


def record_piece(manifest: Manifest, record: dict[str, Any] | None) -> None:
    """Take a task's piece record into the manifest."""
    if record is not None:
        manifest.values.setdefault("pieces", {})[record.pop("file")] = record


def merge_bucket(root: str, table: str, inputs: list[str], bucket: int, buckets: int) -> dict[str, Any]:
    """Dask task: merge the ids of one bucket from these files; the merged file's record."""
    folder = table_dir(root, table)
    low, high = bucket_range(bucket, buckets)
    rows = merge_values([read_values([folder / name], low, high) for name in inputs])
    return {"file": bucket_name(bucket), **write_values(rows, root, table, bucket_name(bucket))}


def merge(client: Client, root: Path, manifest: Manifest, run: str, say) -> None:
    """After every partition is built: merge what is not merged yet, then delete the pieces."""
    v = manifest.values
    if not v.get("buckets"):
        v["buckets"] = buckets_for(manifest)
    todo = [b for b in range(v["buckets"]) if bucket_name(b) not in v["files"]]
    if todo:
        began = time.perf_counter()
        inputs = sorted(v["pieces"]) + sorted(v["files"])
        futures = [
            client.submit(merge_bucket, str(root), manifest.table, inputs, b, v["buckets"],
                          key=f"values-{manifest.table}-{b}-{run}", pure=False)
            for b in todo
        ]
        for future in as_completed(futures):
            record = future.result()
            v["files"][record.pop("file")] = record
        manifest.save(root)  # the merged files are recorded before any piece goes
        say(f"values table: {sum(r['rows'] for r in v['files'].values()):,} forms in {len(v['files'])} files, "
            f"merged from {len(v['pieces'])} pieces in {time.perf_counter() - began:.1f}s")
    v["pieces"] = {}
    manifest.save(root)
    folder = table_dir(root, manifest.table)
    for path in sorted(folder.glob(f"{FOLDER}/level=*/*")):
        path.unlink()
    for path in sorted(folder.glob(f"{FOLDER}/level=*")):
        path.rmdir()
