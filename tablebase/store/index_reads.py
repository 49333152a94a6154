"""A table's probe index on an object store, read where lookups run (docs/scale.md, *Object stores*).

Its directory (``probe.tbi``, small) is fetched into a local cache, in a
folder named by the sha256 of every file of the index, and checked against
the manifest's record; its segment files are then read in one of two ways,
``TABLEBASE_INDEX_READS`` says which:

- ``cache`` (the default): a segment file is fetched whole into the cache
  the first time a probe touches it, checked against its record, and mapped
  from there as a folder's is. A table's later lookups, in this process or
  any other on the machine, make no request at all.
- ``ranges``: each segment a probe touches is read by one ranged GET into a
  sparse copy of its file, private to the process, and checked by its CRC-32
  as every segment is: a one-off lookup fetches a few segments, not files of
  64 of them.

The cache is ``indexes/`` in the folder compiled code is kept in
(``TABLEBASE_CACHE``, else ``~/.cache/tablebase``: ``jit.cache_folder``).
Nothing in it is trusted that was not checked: a file is put there by a
rename once its bytes were those its record names.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

from tablebase.errors import UsageError
from tablebase.jit import cache_folder
from tablebase.probe import FILE_NAME, ProbeIndex
from tablebase.probe.format import SEGMENTS_FOLDER
from tablebase.store.files import write_atomic
from tablebase.store.location import Location
from tablebase.store.manifest import Manifest
from tablebase.store.placed import open_file, stored_name, table_prefix

READS_VARIABLE = "TABLEBASE_INDEX_READS"
CACHE, RANGES = "cache", "ranges"


def index_reads() -> str:
    """How segment files are read: ``cache`` or ``ranges`` (``TABLEBASE_INDEX_READS``); UsageError otherwise."""
    reads = os.environ.get(READS_VARIABLE, CACHE)
    if reads not in (CACHE, RANGES):
        raise UsageError(f"{READS_VARIABLE}={reads!r}: give {CACHE} or {RANGES}")
    return reads


def stored_index(location: Location, manifest: Manifest) -> ProbeIndex:
    """The table's probe index, read as ``index_reads`` says; its directory fetched (once) into the cache."""
    said = "".join(f"{name}\0{record['sha256']}\0" for name, record in sorted(manifest.probe.items()))
    folder = cache_folder() / "indexes" / _digest(location.url) / manifest.table / _digest(said)
    fetch(location, manifest, FILE_NAME, folder)
    kind = CachedIndex if index_reads() == CACHE else RangedIndex
    return kind(location, manifest, folder)


def fetch(location: Location, manifest: Manifest, name: str, folder: Path) -> Path:
    """A recorded file of the table in the cache folder, fetched and checked against its record if it is not
    there yet (put in place by a rename: a file there was checked whole)."""
    path = folder / name
    record = manifest.probe.get(name)
    if record is None:
        raise UsageError(f"{location.where(manifest.table)}: the probe index names {name}, which its manifest "
                         "does not record")
    if not path.is_file():
        data = open_file(location, manifest.table, name, record)
        write_atomic(path, lambda tmp: Path(tmp).write_bytes(data), durable=False)
    return path


class CachedIndex(ProbeIndex):
    """The index read from the cache, each segment file fetched whole the first time a probe touches it."""

    def __init__(self, location: Location, manifest: Manifest, folder: Path) -> None:
        self.location, self.manifest, self.cached = location, manifest, folder
        super().__init__(folder / FILE_NAME)

    def file(self, number: int) -> Any:
        if number not in self._files:
            fetch(self.location, self.manifest, f"{SEGMENTS_FOLDER}/{self.directory.names[number]}", self.cached)
        return super().file(number)


class RangedIndex(ProbeIndex):
    """The index whose segments are each read by one ranged GET as a probe first touches them, into sparse
    copies of their files in a folder of the process's own (removed on ``close``)."""

    def __init__(self, location: Location, manifest: Manifest, folder: Path) -> None:
        self.location, self.manifest = location, manifest
        super().__init__(folder / FILE_NAME)
        self._own = Path(tempfile.mkdtemp(prefix="tablebase-index-"))
        self._folder = str(self._own)  # where ``file`` maps segment files from
        self._read: set[int] = set()  # segments whose bytes are in their file's copy

    def file(self, number: int) -> Any:
        if number not in self._files:
            name = self.directory.names[number]
            with open(os.path.join(self._folder, name), "wb") as f:  # sparse: holes read as zeros
                f.truncate(self._record(name)["bytes"])
        return super().file(number)

    def segment(self, i: int) -> Any:
        if i not in self._read:
            _, offset, length, number, _ = self.directory.entry(self._data, i)
            name = self.directory.names[number]
            record = self._record(name)
            self.file(number)
            if offset + length <= record["bytes"]:  # else the reader says the segment lies outside its file
                stored = stored_name(self.location, f"{SEGMENTS_FOLDER}/{name}", record)
                data = self.location.read_range(f"{table_prefix(self.manifest.table)}/{stored}", offset, length)
                with open(os.path.join(self._folder, name), "r+b") as f:
                    os.pwrite(f.fileno(), data, offset)
            self._read.add(i)
        return super().segment(i)

    def _record(self, name: str) -> dict[str, Any]:
        record = self.manifest.probe.get(f"{SEGMENTS_FOLDER}/{name}")
        if record is None:
            raise UsageError(f"{self.location.where(self.manifest.table)}: the probe index names {name}, which its "
                             "manifest does not record")
        return record

    def close(self) -> None:
        super().close()
        shutil.rmtree(self._own, ignore_errors=True)


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:16]
