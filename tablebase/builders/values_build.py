"""The values table of a partizan table as it is built: each canonical form once, in pieces, then merged.

Each solving task writes, beside its rows, the piece of the values table
that its rows need (``tablebase.store.values_files``); the manifest records it
under ``values.pieces``. Once every partition is built, one task per bucket
merges the pieces (and merged files that are already there) into
``values/part-<b>.parquet``, recorded under ``values.files``; then the
pieces are deleted. The number of buckets follows from the pieces' row
counts (recorded in the manifest, and the same whatever the cluster, as the
pieces are), so the files are the same whatever the cluster.

Resuming: while the merge is not done, a partition counts as built only if
its piece is there too (otherwise it is solved again, which writes both).
Once every bucket is merged, a partition solved again changes nothing in
the values table (a build is deterministic), so its piece is just dropped.

Verify checks the merged files against the manifest (present, size, sha256,
nothing on disk that the manifest does not name), each file's ids against
its bucket (sorted, each once), the whole table for closure (every option id
of every form is a form of the table, and so is every row's ``value_id``),
and finally against the values table re-derived from the re-solved rows.
How a reader sees the merged files is ``tablebase.kinds.values``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tablebase.builders.artifact_build import ArtifactBuild, ArtifactCheck, Say
from tablebase.errors import StoreError
from tablebase.lazy import np, pa, pc
from tablebase.spelling import counted
from tablebase.store import Manifest, Piece, file_there
from tablebase.store.placed import Place, file_problems
from tablebase.store.values_files import (
    FOLDER,
    bucket_name,
    bucket_range,
    merge_values,
    merged_files,
    piece_name,
    read_values,
    remove_pieces,
    values_on_disk,
    write_values,
)

MERGE_ROWS = 2_000_000  # piece rows per merge task: a few hundred MiB of Arrow rows to sort
MAX_LISTED = 5  # problems of one kind named one by one; the count says how many more


def merge_bucket(root: Place, table: str, inputs: dict[str, dict], bucket: int, buckets: int) -> dict[str, Any]:
    """A finishing task: merge the ids of one bucket from these recorded files; the merged file's record."""
    low, high = bucket_range(bucket, buckets)
    rows = merge_values([read_values(root, table, {name: record}, low, high) for name, record in inputs.items()])
    return {"file": bucket_name(bucket), **write_values(rows, root, table, bucket_name(bucket))}


class ValuesBuild(ArtifactBuild):
    """A partizan table's values table made: pieces written beside the rows, merged once every partition is
    built, derived again by verify."""

    def prepare(self, root: Place, manifest: Manifest) -> None:
        # (a killed writer's temporary files went with the build's leftovers, ``garbage.clear_unrecorded``)
        def whole(records: dict[str, dict]) -> dict[str, dict]:
            return {n: r for n, r in records.items() if file_there(root, manifest.table, n, r)}

        old = manifest.values
        files = whole(old.get("files", {}))
        # The number of buckets is fixed by the first merge; it stays while any merged file does.
        buckets = old.get("buckets") if files else None
        manifest.values = {"buckets": buckets, "files": files, "pieces": whole(old.get("pieces", {}))}
        if self.complete(manifest):
            return
        for name in list(manifest.files):
            if piece_name(name) not in manifest.values["pieces"]:
                del manifest.files[name]

    def piece(self, solver: Any, rows: pa.Table, root: Place, table: str, piece: Piece, durable: bool) -> dict | None:
        name = piece_name(piece.name)
        marks = rows.column("level").to_numpy()
        cuts = np.flatnonzero(np.diff(marks)) + 1
        starts, ends = np.r_[0, cuts], np.r_[cuts, len(marks)]
        forms = [solver.values_of(rows.slice(a, b - a), int(marks[a])) for a, b in zip(starts, ends)]
        return {"file": name, **write_values(merge_values(forms), root, table, name, durable)}

    def record(self, manifest: Manifest, record: dict | None) -> None:
        if record is not None:
            manifest.values.setdefault("pieces", {})[record.pop("file")] = record

    def finishing_tasks(self, root: Place, manifest: Manifest) -> list[tuple[str, Callable, tuple]]:
        v = manifest.values
        if not v.get("buckets"):
            rows = sum(p["rows"] for p in v.get("pieces", {}).values())
            v["buckets"] = max(1, -(-rows // MERGE_ROWS))
        inputs = {name: records[name] for records in (v["pieces"], v["files"]) for name in sorted(records)}
        return [(f"values-{b}", merge_bucket, (root, manifest.table, inputs, b, v["buckets"]))
                for b in range(v["buckets"]) if bucket_name(b) not in v["files"]]

    def finished(self, root: Place, manifest: Manifest, records: list[dict], say: Say) -> None:
        v = manifest.values
        for record in records:
            v["files"][record.pop("file")] = record
        if records:
            manifest.save(root)  # the merged files are recorded before any piece goes
            say(f"values table: {counted(sum(r['rows'] for r in v['files'].values()), 'form')} in "
                f"{counted(len(v['files']), 'file')}, merged from {counted(len(v['pieces']), 'piece')}")
        v["pieces"] = {}
        manifest.save(root)
        remove_pieces(root, manifest.table)

    def complete(self, manifest: Manifest) -> bool:
        return merged_files(manifest.values) is not None

    def checker(self, solver: Any) -> "ValuesCheck":
        return ValuesCheck(solver)


class ValuesCheck(ArtifactCheck):
    """The values table re-derived piece by piece, merged as it grows so that memory stays small."""

    def __init__(self, solver: Any) -> None:
        self.solver = solver
        self.pieces: list[pa.Table] = []
        self.value_ids: list[np.ndarray] = []

    def add(self, derived: pa.Table, stored: pa.Table, level: int) -> None:
        self.pieces.append(self.solver.values_of(derived, level))
        self.value_ids.append(stored.column("value_id").to_numpy())
        if len(self.pieces) >= 16:
            self.pieces = [merge_values(self.pieces)]

    def problems(self, root: Place, manifest: Manifest) -> list[tuple[str, str]]:
        """Problems of the values table as (file, what)."""
        records = manifest.values.get("files", {})
        buckets = manifest.values.get("buckets", 0)
        unknown = sorted(values_on_disk(root, manifest.table) - set(records))
        problems = [(name, "file is not in the manifest") for name in unknown]
        names = [bucket_name(b) for b in range(buckets or 0)]
        if not buckets or not all(n in records for n in names):
            return problems + [(FOLDER, "the values table is not merged (the build did not finish)")]
        parts = []
        for b, name in enumerate(names):
            found = file_problems(root, manifest.table, name, records[name])
            problems += [(name, what) for what in found]
            if found == ["file is missing"]:
                continue
            try:
                part = read_values(root, manifest.table, {name: records[name]})
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
        value_ids = np.concatenate(self.value_ids) if self.value_ids else np.array([], dtype=np.int64)
        problems += [(FOLDER, x) for x in _listed("an option id is not a form of the table:",
                                                  np.setdiff1d(options, ids).tolist())]
        problems += [(FOLDER, x) for x in _listed("a row's value_id is not a form of the table:",
                                                  np.setdiff1d(value_ids, ids).tolist())]
        expected = merge_values(self.pieces) if self.pieces else None
        if expected is not None and not stored.equals(expected):
            problems += [(FOLDER, x) for x in _differences(stored, expected)]
        return problems


def _listed(what: str, items: list) -> list[str]:
    out = [f"{what} {x}" for x in items[:MAX_LISTED]]
    if len(items) > MAX_LISTED:
        out.append(f"{len(items) - MAX_LISTED} more: {what}")
    return out


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
