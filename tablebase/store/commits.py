"""A table's commit, where a rename is no commit: the manifest, written last and conditionally.

A folder commits as it always did: each file under a temporary name, synced,
renamed; the manifest the same way, last. An object store has no rename,
may list what was deleted or miss what was just written, and a reader may
be reading while a build writes. There:

- every file lies under its name with its content's hash in it
  (``stored_name``: ``rows/0000003-0000003.00000.<16 hex>.parquet``), so a
  name is never used for other bytes: a file a reader was told of is never
  replaced under it, and a file written again alike is the same object;
- the manifest, ``_manifest.json`` as in a folder, is the one object
  written over, and only conditionally: the first with ``If-None-Match: *``,
  each next with ``If-Match`` on the ETag of the version this writer read or
  wrote last (``Head``), so a build whose lock was taken from it (a lease
  run out) cannot write over its successor's commit, and a PUT is whole or
  absent;
- a reader reads the manifest in one GET and then only the files it records,
  under their stored names (``Head.load``, ``open_file``); it lists
  nothing, so a stale listing cannot show it a file, and a file written by a
  build that died before its commit is never one it counts.

What a killed build leaves (files its manifest never named) is garbage for
``tablebase gc`` (``tablebase.store.garbage``).
"""

from __future__ import annotations

import hashlib
from typing import Any

from tablebase.errors import DamagedTable, StoreError
from tablebase.store.files import escapes, first_outside, table_dir
from tablebase.store.location import Conflict, Folder, Location
from tablebase.store.manifest import FILE_NAME, Manifest, refused_outside

HASH_DIGITS = 16  # of the sha256 in a stored name: 64 bits, no two files of a table alike by chance


def stored_name(location: Location, name: str, record: dict[str, Any]) -> str:
    """Where a recorded file lies, relative to its table's folder: its name, or on an object store its name
    with the first ``HASH_DIGITS`` of its sha256 before the extension."""
    if not location.hashed_names:
        return name
    folder, slash, leaf = name.rpartition("/")
    stem, dot, extension = leaf.rpartition(".")
    digest = record["sha256"][:HASH_DIGITS]
    leaf = f"{stem}.{digest}.{extension}" if dot else f"{leaf}.{digest}"
    return f"{folder}{slash}{leaf}"


def put_file(location: Location, table: str, name: str, data: bytes, rows: int = 0,
             durable: bool = True) -> dict[str, Any]:
    """Write one file of a table whole, where its record says it lies; its record (``rows`` as the caller
    counted them)."""
    record = {"rows": rows, "bytes": len(data), "sha256": hashlib.sha256(data).hexdigest()}
    location.write(f"{_folder(table)}/{stored_name(location, name, record)}", data, durable)
    return record


def open_file(location: Location, table: str, name: str, record: dict[str, Any]) -> bytes:
    """A recorded file's bytes, checked against its record: DamagedTable in one line if they differ."""
    data = location.read(f"{_folder(table)}/{stored_name(location, name, record)}")
    if len(data) != record["bytes"] or hashlib.sha256(data).hexdigest() != record["sha256"]:
        raise DamagedTable(f"{location.where(table)}: {name} is not the file the manifest records")
    return data


class Head:
    """A table's manifest as one writer holds it: loaded with its version's tag, and saved only over that
    version (``Conflict``, in one line, if another build committed in between)."""

    def __init__(self, location: Location, table: str) -> None:
        self.location = location
        self.table = table
        self.name = f"{_folder(table)}/{FILE_NAME}"
        self.tag: str | None = None  # of the version read or written last; None: there was none

    def load(self) -> Manifest | None:
        """The table's manifest as it is committed, None if there is none."""
        found = self.location.read_tagged(self.name)
        if found is None:
            self.tag = None
            return None
        manifest = Manifest.parse(found.data, self.location.url, self.table, self.location.where(self.name))
        _check_names(self.location, self.table, manifest)
        self.tag = found.tag
        return manifest

    def save(self, manifest: Manifest) -> None:
        """Commit: every file the manifest records must be written already (``put_file``)."""
        if manifest.table != self.table:
            raise StoreError(f"the manifest of {manifest.table} is not {self.table}'s")
        data = manifest.text().encode()
        try:
            if self.tag is None:
                self.tag = self.location.create(self.name, data)
            else:
                self.tag = self.location.replace(self.name, data, self.tag)
        except Conflict:
            raise Conflict(f"{self.location.where(self.table)} was committed by another build since this one "
                           "read it; this one stops (run it again to go on from that commit)") from None


def load(location: Location, table: str) -> Manifest | None:
    """A reader's view of a table: its committed manifest, None if it has none."""
    return Head(location, table).load()


def _folder(table: str) -> str:
    table_dir("", table)  # a table's name is checked before it names anything
    return table


def _check_names(location: Location, table: str, manifest: Manifest) -> None:
    """Every name the manifest records lies inside the table's folder: in a folder, symlinks followed too."""
    names = manifest.records()
    if isinstance(location, Folder):  # nor is the table's folder a symlink out of the tablebase's
        outside = first_outside(location.root, [table]) or first_outside(table_dir(location.root, table), names)
    else:
        outside = next((name for name in names if escapes(name)), None)
    if outside is not None:
        raise refused_outside(location.url, table, outside)
