"""``tablebase gc``: the files of a table that its manifest does not record, removed once no reader can still
want them (``collect``).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field

from tablebase.store.commits import Head
from tablebase.store.files import TABLE_NAME
from tablebase.store.location import Folder, Location
from tablebase.store.lock import LEASE, lock_at
from tablebase.store.manifest import FILE_NAME, Manifest
from tablebase.store.placed import stored_name

GRACE = 3600.0  # seconds: a reader that read the manifest before a commit has long finished with its files
_OURS = re.compile(r"^(rows|values|probe|_listing|misere)/|^probe(\.[0-9a-f]+)?\.tbi$|(^|/)\.[^/]+\.tmp-[^/]+$")
_TABLE = re.compile(TABLE_NAME)


@dataclass
class Collected:
    """What ``collect`` found in one table: the names removed (or, in a dry run, to remove), their bytes,
    the unrecorded files kept for being younger than the grace, and the uploads aborted."""

    table: str
    removed: list[str] = field(default_factory=list)
    bytes: int = 0
    kept: int = 0
    uploads: int = 0


def tables_at(location: Location) -> list[str]:
    """The tables a place holds, or whose files it holds: each folder named as a table is, with its manifest
    or any file the store writes."""
    found = set()
    for name in location.list():
        table, slash, rest = name.partition("/")
        if slash and _TABLE.match(table) and (rest == FILE_NAME or _OURS.search(rest)):
            found.add(table)
    return sorted(found)


def collect(location: Location, table: str, grace: float = GRACE, dry_run: bool = False,
            lease: float = LEASE) -> Collected:
    """Remove a table's unrecorded files (``dry_run``: only say which), holding its build lock (StoreError in
    one line if a build holds it; a dry run takes nothing, and only checks).

    A file goes when the manifest does not record it, the store writes such
    names (under ``rows/``, ``values/``, ``probe/``, ``_listing/``, ``misere/``, the probe
    index's directory, or a temporary name; a person's own file stays), it
    is older than ``grace``, and so is the manifest: a reader that read the
    manifest before the last commit may still be reading what it named. On
    an object store, uploads older than ``grace`` and never completed (a
    writer killed while it sent a large file) are aborted too.
    """
    lock = lock_at(location, table, lease)
    if dry_run:
        lock.check()
    else:
        lock.acquire()
    try:
        return _collect(location, table, grace, dry_run)
    finally:
        if not dry_run:
            lock.release()


def clear_unrecorded(location: Location, table: str, manifest: Manifest) -> Collected:
    """What a killed run of a build left, removed whatever its age: the files of the table that the store
    writes and ``manifest`` (the one the build goes on from) does not record, and the uploads never completed.
    Only under the table's build lock: no reader reads a file no manifest records, and no other build writes."""
    return _collect(location, table, 0.0, False, manifest)


def _collect(location: Location, table: str, grace: float, dry_run: bool,
             manifest: Manifest | None = None) -> Collected:
    if manifest is None:
        manifest = Head(location, table).load()
    recorded = {stored_name(location, n, r) for n, r in manifest.records().items()} if manifest else set()
    files = location.list(f"{table}/")
    committed = files.get(f"{table}/{FILE_NAME}")
    recent = grace > 0 and committed is not None and committed.age < grace
    found = Collected(table)
    for path, entry in sorted(files.items()):
        name = path[len(table) + 1:]
        if name in recorded or not _OURS.search(name):
            continue
        if recent or (grace > 0 and entry.age < grace):
            found.kept += 1
            continue
        found.removed.append(name)
        found.bytes += entry.size
    uploads = getattr(location, "uploads", None)
    stale = [(n, u) for n, u, age in uploads(f"{table}/") if grace <= 0 or age >= grace] if uploads else []
    found.uploads = len(stale)
    if dry_run:
        return found
    location.delete([f"{table}/{name}" for name in found.removed])
    for name, upload in stale:
        location.abort(name, upload)  # type: ignore[attr-defined]
    if isinstance(location, Folder):
        _prune(location.root / table)
    return found


def _prune(folder: os.PathLike) -> None:
    """Remove the empty sub-folders of a table's folder (the folder itself goes with its lock, if empty)."""
    for parent, children, _ in os.walk(folder, topdown=False):
        for child in children:
            try:
                os.rmdir(os.path.join(parent, child))
            except OSError:  # not empty
                pass
