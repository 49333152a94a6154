"""A table's commit where there is no rename: files under names that carry their hash (``stored_name``), then
the manifest, written over only on the version its writer read (``Head``); a reader reads the manifest, then
only what it records (``load``, ``open_file``), and lists nothing (docs/format.md, *On an object store*).
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
    with the first ``HASH_DIGITS`` of its sha256 before the extension. With no rename, a name is so never
    written with other bytes: a file a reader was told of stays as it was, whatever a later build writes."""
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
    version (``Conflict``, in one line, if another build committed in between).

    On an object store the first save is a PUT with ``If-None-Match: *`` and
    each next one with ``If-Match`` on the ETag: whole or absent to a reader,
    and refused to a build whose lock's lease ran out while it stalled, so it
    cannot write over its successor's commit.
    """

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
