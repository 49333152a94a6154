"""Verify the values table of a partizan table (see tablebase.store.values).

The merged files are checked against the manifest (present, size, sha256,
nothing on disk that the manifest does not name), each file's ids against
its bucket (sorted, each once), the whole table for closure (every option id
of every form is a form of the table, and so is every row's ``value_id``),
and finally against the values table re-derived from the re-solved rows.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from tablebase.errors import StoreError
from tablebase.store import Manifest, table_dir
from tablebase.store.files import sha256_of
from tablebase.store.values import (
    FOLDER,
    bucket_name,
    bucket_range,
    merge_values,
    read_values,
)

MAX_LISTED = 5  # problems of one kind named one by one; the count says how many more


class Derived:
    """The values table re-derived piece by piece, merged as it grows so that memory stays small."""

    def __init__(self) -> None:
        self.pieces: list[pa.Table] = []

    def add(self, piece: pa.Table) -> None:
        self.pieces.append(piece)
        if len(self.pieces) >= 16:
            self.pieces = [merge_values(self.pieces)]

    def table(self) -> pa.Table | None:
        return merge_values(self.pieces) if self.pieces else None


def _listed(what: str, items: list) -> list[str]:
    out = [f"{what} {x}" for x in items[:MAX_LISTED]]
    if len(items) > MAX_LISTED:
        out.append(f"{len(items) - MAX_LISTED} more: {what}")
    return out


def check_values(root: Path, m: Manifest, derived: Derived, value_ids: np.ndarray) -> list[tuple[str, str]]:
    """Problems of the values table as (file, what); ``value_ids``: the rows' value ids."""
    folder = table_dir(root, m.table)
    records = m.values.get("files", {})
    buckets = m.values.get("buckets", 0)
    problems: list[tuple[str, str]] = []
    on_disk = {str(p.relative_to(folder)) for p in folder.glob(f"{FOLDER}/**/*.parquet")}
    for name in sorted(on_disk - set(records)):
        problems.append((name, "file is not in the manifest"))
    names = [bucket_name(b) for b in range(buckets)]
    if not buckets or not all(n in records for n in names):
        return problems + [(FOLDER, "the values table is not merged (the build did not finish)")]
    parts = []
    for b, name in enumerate(names):
        path = folder / name
        if not path.is_file():
            problems.append((name, "file is missing"))
            continue
        if path.stat().st_size != records[name]["bytes"]:
            problems.append((name, f"{path.stat().st_size} bytes, the manifest says {records[name]['bytes']}"))
        if sha256_of(path) != records[name]["sha256"]:
            problems.append((name, "sha256 differs from the manifest"))
        try:
            part = read_values([path])
        except StoreError as e:
            problems.append((name, str(e)))
            continue
        ids = part.column("id").to_numpy()
        low, high = bucket_range(b, buckets)
        if len(ids) and (np.any(np.diff(ids) <= 0) or ids[0] < low or ids[-1] >= high):
            problems.append((name, "ids are not sorted, not unique or outside the file's bucket"))
        parts.append(part)
    if not parts:
        return problems
    stored = pa.concat_tables(parts)
    ids = stored.column("id").to_numpy()
    options = np.concatenate([pc.list_flatten(stored.column(c)).to_numpy() for c in ("left_ids", "right_ids")])
    missing = np.setdiff1d(options, ids)
    problems += [(FOLDER, x) for x in _listed("an option id is not a form of the table:", missing.tolist())]
    missing = np.setdiff1d(value_ids, ids)
    problems += [(FOLDER, x) for x in _listed("a row's value_id is not a form of the table:", missing.tolist())]
    expected = derived.table()
    if expected is not None and not stored.equals(expected):
        problems += [(FOLDER, x) for x in _differences(stored, expected)]
    return problems


def _differences(stored: pa.Table, derived: pa.Table) -> list[str]:
    """What differs between the stored and the re-derived values table, form by form."""
    a = {r["id"]: r for r in stored.to_pylist()}
    b = {r["id"]: r for r in derived.to_pylist()}
    out = _listed("a form is missing:", [b[i]["value"] for i in sorted(b.keys() - a.keys())])
    out += _listed("a form should not be there:", [a[i]["value"] for i in sorted(a.keys() - b.keys())])
    changed = [f"{b[i]['value']}: {c} stored {a[i][c]}, derived {b[i][c]}"
               for i in sorted(a.keys() & b.keys()) for c in b[i] if a[i][c] != b[i][c]]
    out += _listed("", changed)
    return [x.strip() for x in out] or ["the stored values table differs from the re-derived one"]
