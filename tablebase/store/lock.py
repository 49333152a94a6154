"""One build at a time per table: a lock file that a crashed build cannot leave stuck."""

from __future__ import annotations

import json
import os
from pathlib import Path

from tablebase.errors import StoreError
from tablebase.lazy import psutil

LOCK_NAME = ".lock"


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
        if holder.get("host") != _host():
            return False  # cannot see another machine's processes
        pid = holder.get("pid")
        try:
            proc = psutil.Process(pid)
            return proc.create_time() > holder.get("started", 0) + 1
        except (psutil.NoSuchProcess, TypeError, ValueError):
            return True

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


def _host() -> str:
    import socket  # not for a program that only reads

    return socket.gethostname()
