"""Where a tablebase lies, and the store's operations there: a ``Location`` (a pyarrow filesystem, a base path,
and write whole, read, list, delete, size, and the conditional create and replace of commits and locks); a
``Folder`` does them as the store always did. The object store is ``bucket.py``; ``places.py`` reads which a
user named.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tablebase.errors import StoreError
from tablebase.store.files import flush_to_disk, fsync_path, write_atomic


class Conflict(StoreError):
    """A conditional write refused: something is already there (``create``), or what is there is no longer
    the version read (``replace``)."""


class Unanswered(StoreError):
    """The store did not answer for as long as it is waited for (``retry_seconds``)."""


@dataclass(frozen=True)
class Entry:
    """A listed file: its size in bytes and its age in seconds (since it was last written)."""

    size: int
    age: float


@dataclass(frozen=True)
class Tagged:
    """A file read with its version's tag (what ``replace`` is conditional on) and its age in seconds, by the
    store's own clock where it has one."""

    data: bytes
    tag: str
    age: float


class Location:
    """A tablebase's place: names are relative to its base, ``/``-separated."""

    url: str  # as the user gave it, for messages
    #: whether files are stored under names that carry their content's hash (an object store: no rename)
    hashed_names: bool = False

    def where(self, name: str = "") -> str:
        """A name as the user would spell it, for messages."""
        return f"{self.url.rstrip('/')}/{name}" if name else self.url

    @property
    def fs(self) -> Any:
        """The pyarrow filesystem that reads it."""
        raise NotImplementedError

    def path(self, name: str) -> str:
        """A name's path in ``fs``."""
        raise NotImplementedError

    def write(self, name: str, data: bytes, durable: bool = True) -> None:
        """Write a file whole: no reader sees part of it. ``durable``: on disk before this returns (a writer of
        many files may instead ``flush`` them all at once, before anything records them)."""
        raise NotImplementedError

    def flush(self, names: list[str]) -> None:
        """Make files written with ``durable=False`` durable, before anything records them."""

    def upload(self, name: str, path: Path) -> None:
        """Write a file whole from a local file (one too large to hold in memory)."""
        raise NotImplementedError

    def read(self, name: str) -> bytes:
        """A file's bytes; StoreError in one line if there is none."""
        data = self.read_if_there(name)
        if data is None:
            raise StoreError(f"{self.where(name)}: no such file")
        return data

    def read_if_there(self, name: str) -> bytes | None:
        """A file's bytes, None if there is none."""
        raise NotImplementedError

    def read_range(self, name: str, offset: int, length: int) -> bytes:
        """``length`` bytes of a file from ``offset`` (fewer at its end)."""
        with self.input_file(name) as source:
            return source.read_at(length, offset)

    def folders(self, prefix: str = "") -> list[str]:
        """The names of the folders right under a prefix (a folder's name ending in ``/``, or empty for the top)."""
        raise NotImplementedError

    def input_file(self, name: str) -> Any:
        """A file opened for reads at any offset (pyarrow's ``RandomAccessFile``): its footer, or some of its row
        groups, read without the rest. FileNotFoundError if there is none."""
        raise NotImplementedError

    def read_tagged(self, name: str) -> Tagged | None:
        """A file with its version's tag; None if there is none."""
        raise NotImplementedError

    def create(self, name: str, data: bytes) -> str:
        """Write a file only if there is none of that name (else ``Conflict``); its tag."""
        raise NotImplementedError

    def replace(self, name: str, data: bytes, tag: str) -> str:
        """Write a file only if it is still the version of ``tag`` (else ``Conflict``); its new tag."""
        raise NotImplementedError

    def list(self, prefix: str = "") -> dict[str, Entry]:
        """Every file under a prefix (a folder's name, or empty for all), by name; none if there is none."""
        raise NotImplementedError

    def delete(self, names: list[str]) -> None:
        """Delete these files; one already gone is no error."""
        raise NotImplementedError

    def exists(self, name: str) -> bool:
        return self.size(name) is not None

    def size(self, name: str) -> int | None:
        """A file's size in bytes, None if there is none."""
        raise NotImplementedError

    def modified(self, name: str) -> float | None:
        """When a file was last written (seconds since the epoch), None if there is none."""
        raise NotImplementedError

    def check(self) -> None:
        """StoreError in one line unless the place can be used: the bucket is there and the credentials are
        taken. A folder that does not exist yet is no error: a build makes it."""


class Folder(Location):
    """A folder on a file system: what the store always wrote to."""

    def __init__(self, root: str | os.PathLike) -> None:
        self.root = Path(root)
        self.url = str(root)

    @property
    def fs(self) -> Any:
        import pyarrow.fs  # only where a filesystem is asked for

        return pyarrow.fs.LocalFileSystem()

    def path(self, name: str) -> str:
        return os.path.abspath(self.root / name)  # pyarrow's local filesystem takes absolute paths only

    def write(self, name: str, data: bytes, durable: bool = True) -> None:
        write_atomic(self.root / name, lambda tmp: Path(tmp).write_bytes(data), durable)

    def flush(self, names: list[str]) -> None:
        flush_to_disk(self.root / name for name in names)

    def upload(self, name: str, path: Path) -> None:
        import shutil  # only where a file is written from another

        write_atomic(self.root / name, lambda tmp: shutil.copyfile(path, tmp))

    def read_if_there(self, name: str) -> bytes | None:
        try:
            return (self.root / name).read_bytes()
        except (FileNotFoundError, NotADirectoryError):
            return None

    def folders(self, prefix: str = "") -> list[str]:
        top = self.root / prefix
        return sorted(p.name for p in top.iterdir() if p.is_dir()) if top.is_dir() else []

    def input_file(self, name: str) -> Any:
        import pyarrow  # only where a file is read

        return pyarrow.OSFile(self.path(name))

    def read_tagged(self, name: str) -> Tagged | None:
        path = self.root / name
        try:
            data = path.read_bytes()
            age = time.time() - path.stat().st_mtime
        except FileNotFoundError:
            return None
        return Tagged(data, _tag(data), age)

    def create(self, name: str, data: bytes) -> str:
        """Written under a temporary name, synced, then linked to its name: a link, unlike a rename, fails
        where the name is taken, so the file appears whole or not at all."""
        path = self.root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
        try:
            tmp.write_bytes(data)
            fsync_path(tmp)
            os.link(tmp, path)
        except FileExistsError:
            raise Conflict(f"{self.where(name)} is already there") from None
        finally:
            tmp.unlink(missing_ok=True)
        fsync_path(path.parent)
        return _tag(data)

    def replace(self, name: str, data: bytes, tag: str) -> str:
        """Compared and renamed while this process holds the folder's lock (``flock``), which every
        ``replace`` in the folder takes: no other replace comes between the two."""
        path = self.root / name
        fd = os.open(path.parent, os.O_RDONLY) if path.parent.is_dir() else None
        if fd is None:
            raise Conflict(f"{self.where(name)} is not there")
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            found = self.read_tagged(name)
            if found is None or found.tag != tag:
                raise Conflict(f"{self.where(name)} was changed since it was read")
            self.write(name, data)
        finally:
            os.close(fd)  # and with it the lock
        return _tag(data)

    def list(self, prefix: str = "") -> dict[str, Entry]:
        top = self.root / prefix if prefix else self.root
        found = {}
        now = time.time()
        for folder, _, files in os.walk(top):
            for leaf in files:
                path = os.path.join(folder, leaf)
                try:
                    stat = os.lstat(path)
                except FileNotFoundError:  # deleted since the folder was read
                    continue
                found[os.path.relpath(path, self.root).replace(os.sep, "/")] = Entry(stat.st_size, now - stat.st_mtime)
        return found

    def delete(self, names: list[str]) -> None:
        for name in names:
            (self.root / name).unlink(missing_ok=True)

    def size(self, name: str) -> int | None:
        try:
            return (self.root / name).stat().st_size
        except (FileNotFoundError, NotADirectoryError):
            return None

    def modified(self, name: str) -> float | None:
        try:
            return (self.root / name).stat().st_mtime
        except (FileNotFoundError, NotADirectoryError):
            return None


def located(place: str | os.PathLike | Location) -> Location:
    """A place as a ``Location``: one already, or a folder's path (what the store's functions took before
    object stores; ``places.location_of`` reads what a user typed, URLs included)."""
    return place if isinstance(place, Location) else Folder(place)


def _tag(data: bytes) -> str:
    """A folder's version tag of a file: its content's hash (a file written again alike is the same version)."""
    return hashlib.sha256(data).hexdigest()
