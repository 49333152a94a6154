"""One build at a time per table: a lock that a crashed build cannot leave stuck, a file in a folder
(``BuildLock``) or a leased object in an object store (``LeasedLock``); ``lock_at`` gives the one a place needs.
"""

from __future__ import annotations

import json
import os
import threading
import uuid
from pathlib import Path

from tablebase.errors import StoreError
from tablebase.lazy import psutil
from tablebase.store.files import table_dir
from tablebase.store.location import Conflict, Folder, Location, Tagged

LOCK_NAME = ".lock"
LEASE = 120.0  # seconds an object store's lock holds without renewal; its holder renews it every quarter of that


class BuildLock:
    """Held while a build writes a table. A lock whose process is gone is stale and taken over."""

    def __init__(self, directory: Path) -> None:
        self.path = Path(directory) / LOCK_NAME
        self.held = False

    def _holder(self) -> dict | None:
        try:
            return json.loads(self.path.read_text())
        except (OSError, ValueError):
            return None

    def _stale(self, holder: dict | None) -> bool:
        if holder is None:
            return True  # unreadable: written by a build killed mid-write
        return _gone(holder)

    def check(self) -> None:
        """StoreError if a build that is still running holds the lock; nothing is taken (a build checks
        before it counts a table's positions, which may take seconds)."""
        if not self.path.exists():
            return
        holder = self._holder()
        if not self._stale(holder):
            who = f"process {holder.get('pid')} on {holder.get('host')}" if holder else "another build"
            raise StoreError(f"{self.path.parent} is being built by {who}; wait for it or stop it") from None

    def acquire(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        me = {"pid": os.getpid(), "host": _host(), "started": psutil.Process().create_time()}
        for _ in range(2):
            try:
                fd = os.open(self.path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
            except FileExistsError:
                self.check()
                self.path.unlink(missing_ok=True)
                continue
            with os.fdopen(fd, "w") as f:
                json.dump(me, f)
            self.held = True
            return
        raise StoreError(f"cannot take the build lock {self.path}")

    def release(self) -> None:
        if self.held:
            self.path.unlink(missing_ok=True)
            self.held = False
            try:
                self.path.parent.rmdir()  # a build that wrote nothing leaves nothing
            except OSError:
                pass

    def __enter__(self) -> "BuildLock":
        self.acquire()
        return self

    def __exit__(self, *exc) -> None:
        self.release()


def _gone(holder: dict) -> bool:
    """Whether the process a lock names is known to be gone: it ran on this machine and is no longer there (or
    its number is another's now). Another machine's processes cannot be seen."""
    if holder.get("host") != _host():
        return False
    pid = holder.get("pid")
    try:
        proc = psutil.Process(pid)
        return proc.create_time() > holder.get("started", 0) + 1
    except (psutil.NoSuchProcess, TypeError, ValueError):
        return True


def _host() -> str:
    import socket  # not for a program that only reads

    return socket.gethostname()


class LeasedLock:
    """The build lock of a table on an object store: ``.lock``, JSON ``{"pid", "host", "started", "run",
    "lease"}``, held while its holder renews it.

    A build on another host that died cannot be seen to have died, so its
    lock is stale once it is ``lease`` seconds old by the store's clock
    (the holder renews it every quarter of that, from a thread). Taking a
    stale lock over is an ``If-Match`` on the ETag it was found with: of two
    builds that find it stale, one wins. The first lock a process creates
    in a store is also a test of the store: a second create of it must be
    refused, else the store ignores conditional writes and no lock or
    commit there would hold.
    """

    def __init__(self, location: Location, table: str, lease: float = LEASE) -> None:
        self.location = location
        self.table = table
        self.name = f"{table_dir('', table)}/{LOCK_NAME}"
        self.lease = lease
        me = {"pid": os.getpid(), "host": _host(), "started": psutil.Process().create_time(),
              "run": uuid.uuid4().hex, "lease": lease}
        self.data = json.dumps(me).encode()
        self.tag: str | None = None
        self.lost = False  # another build took the lock over while this one held it
        self._stop = threading.Event()
        self._renewing: threading.Thread | None = None

    def check(self) -> None:
        """StoreError if a build that is still running holds the lock; nothing is taken."""
        found = self.location.read_tagged(self.name)
        if found is not None and not self._stale(found):
            raise self._busy(found)

    def acquire(self) -> None:
        for _ in range(3):
            try:
                self.tag = self.location.create(self.name, self.data)
                self._test_store()
            except Conflict:
                found = self.location.read_tagged(self.name)
                if found is None:  # released since
                    continue
                if not self._stale(found):
                    raise self._busy(found) from None
                try:
                    self.tag = self.location.replace(self.name, self.data, found.tag)
                except Conflict:  # another build took it over, or its holder renewed it
                    continue
            self._stop.clear()
            self._renewing = threading.Thread(target=self._renew, name=f"lease of {self.name}", daemon=True)
            self._renewing.start()
            return
        raise StoreError(f"cannot take the build lock {self.location.where(self.name)}")

    def release(self) -> None:
        if self._renewing is None:
            return
        self._stop.set()
        self._renewing.join()
        self._renewing = None
        found = self.location.read_tagged(self.name)
        if found is not None and found.tag == self.tag and found.data == self.data:
            self.location.delete([self.name])

    def __enter__(self) -> "LeasedLock":
        self.acquire()
        return self

    def __exit__(self, kind, *exc) -> None:
        try:
            self.release()
        except StoreError:
            if kind is None:
                raise
            # After a failure (the store away, say), the failure is what is said: the lock left behind is
            # stale once its process is gone, or its lease is out.

    def _renew(self) -> None:
        while not self._stop.wait(self.lease / 4):
            try:
                self.tag = self.location.replace(self.name, self.data, self.tag or "")
            except Conflict:
                self.lost = True
                return
            except StoreError:  # the store does not answer: tried again at the next turn
                continue

    def _test_store(self) -> None:
        """A second create of the lock just made must be refused (``Conflict``); if it is not, the store ignores
        ``If-None-Match`` and the lock is given up."""
        try:
            self.location.create(self.name, self.data + b" ")
        except Conflict:
            return
        self.location.delete([self.name])
        raise StoreError(f"{self.location.url}: the store does not honour conditional writes (a second create of "
                         f"{self.name} went through); tablebase cannot lock or commit a table there")

    def _stale(self, found: Tagged) -> bool:
        holder = _holder(found.data)
        if holder is None:
            return found.age > self.lease
        lease = holder.get("lease")
        lease = lease if isinstance(lease, (int, float)) and not isinstance(lease, bool) else self.lease
        return found.age > lease or _gone(holder)

    def _busy(self, found: Tagged) -> StoreError:
        holder = _holder(found.data) or {}
        who = f"process {holder.get('pid')} on {holder.get('host')}" if holder else "another build"
        return StoreError(f"{self.location.where(self.table)} is being built by {who} (its lock renewed "
                          f"{max(found.age, 0):.0f} s ago); wait for it or stop it")


def _holder(data: bytes) -> dict | None:
    try:
        holder = json.loads(data)
    except ValueError:
        return None
    return holder if isinstance(holder, dict) else None


def lock_at(location: Location, table: str, lease: float = LEASE) -> BuildLock | LeasedLock:
    """The build lock of a table where it lies: a file in a folder, a leased object in an object store."""
    if isinstance(location, Folder):
        return BuildLock(table_dir(location.root, table))
    return LeasedLock(location, table, lease)
