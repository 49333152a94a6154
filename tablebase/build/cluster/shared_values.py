"""One copy of the lower levels' values for all the workers of a build on one machine.

Workers on one machine map a dense game's value arrays from files in shared
memory (``/dev/shm``), or on local disk where the plan found them too large
for memory (``folder_for``), instead of each holding its own: a part one worker
solved is known to the others at once, without reading its Parquet file back,
and the machine holds one copy. Where shared memory is missing or too small,
or ``TABLEBASE_SHARED_MEMORY=0``, each worker keeps its own arrays.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import shutil
import socket
import tempfile
import time
from pathlib import Path
from typing import Any

from tablebase.store.location import Folder, Location

SHARED_MEMORY = Path("/dev/shm")
PREFIX = "tablebase-"
HEADROOM = 1.25  # free space wanted over the arrays' size: other programs use shared memory too
YOUNG = 60.0  # seconds: a folder without its lock file may be still being made
_locks: dict[str, int] = {}  # run -> the open lock file by which this process holds its folder


def _turned_off() -> bool:
    return os.environ.get("TABLEBASE_SHARED_MEMORY") == "0"


def memory_cap() -> int | None:
    """The most bytes of a build's values a machine may keep in memory (``TABLEBASE_VALUES_MEMORY``), if set:
    so that a small table can be built from disk too."""
    cap = os.environ.get("TABLEBASE_VALUES_MEMORY", "").strip()
    return int(cap) if cap.isdigit() else None


def room() -> int:
    """Bytes free in this machine's shared memory for builds' values (0 where it is not used)."""
    if _turned_off():
        return 0
    try:
        free = shutil.disk_usage(SHARED_MEMORY).free
    except OSError:
        return 0
    cap = memory_cap()
    return free if cap is None else min(free, cap)


def disk_room(disk: str | Path) -> int:
    """Bytes free on the file system that holds (or will hold) the folder ``disk``."""
    path = Path(disk).absolute()
    while not path.exists() and path != path.parent:
        path = path.parent
    try:
        return shutil.disk_usage(path).free
    except OSError:
        return 0


VALUES_FOLDER = ".values"  # under the output folder: values too large for memory, while a build runs
# ... or, for a build on an object store, under each machine's temporary folder: values stay on each host's disk
STORE_VALUES_FOLDER = "tablebase-values"


def disk_folder(root: Location) -> Path:
    """Where values too large for memory are mapped from by default (``--scratch`` names another): under the
    output folder (each machine its own copy there), or for an object store under each machine's temporary
    folder."""
    if isinstance(root, Folder):
        return Path(root.root) / VALUES_FOLDER
    return Path(tempfile.gettempdir()) / STORE_VALUES_FOLDER


def values_name(root: str, table: str, digest: str, params: dict[str, Any], wide: list[str]) -> str:
    """The name of a build's values folders on every run of it: what decides the values they hold.

    Named for the build, not for one run of it: a resumed build maps the values a killed run left on the
    machine and reads back only the parts they lack, where reading every solved level back is the longest
    step of a resume (docs/scale.md). Folders of other builds that nobody holds are removed (``remove_unused``).
    ``root``: where the table is written, a folder's absolute path or an object store's URL."""
    said = json.dumps([str(root), table, digest, params, sorted(wide)], sort_keys=True, default=str)
    return hashlib.sha256(said.encode()).hexdigest()[:32]


def folder_for(run: str, size: int, disk: str | Path | None = None) -> Path | None:
    """This machine's folder for the run's values (made if missing), or None if ``size`` bytes do not fit:
    under ``disk`` if given (the plan put the values on disk: a folder under the build's output folder, or
    the one ``--scratch`` names, whose pages in use the page cache holds), else in shared memory."""
    if disk is not None:
        # Named for this machine: under an output folder that machines share, each maps its own copy.
        return _folder(Path(disk), f"{run}-{machine()}", size, disk_room(disk))
    return None if _turned_off() else _folder(SHARED_MEMORY, run, size, room())


def machine() -> str:
    """This machine's name for its copy of the values: its kernel's boot id (processes of one kernel see one
    page cache, so they can share a file's pages; another machine cannot, over a network file system).
    A folder on disk is named for the boot, so that one a reboot may have cut short is never taken up."""
    try:
        return Path("/proc/sys/kernel/random/boot_id").read_text().strip().replace("-", "")[:16]
    except OSError:
        return socket.gethostname()


def _folder(where: Path, run: str, size: int, free: int) -> Path | None:
    """The run's folder in ``where``, with this process's lock on it; None if it is missing and does not fit.

    Each user holds a shared lock on its folder, so that a later build can tell a folder that a killed build
    left behind (nobody holds it) from one in use."""
    folder = where / f"{PREFIX}{run}"
    try:
        if not folder.is_dir() and free < HEADROOM * size:
            return None
        (folder / "parts").mkdir(parents=True, exist_ok=True)
        if run not in _locks:
            lock = os.open(folder / "lock", os.O_RDONLY | os.O_CREAT, 0o600)
            fcntl.flock(lock, fcntl.LOCK_SH)  # until the run is over or the process ends
            _locks[run] = lock
    except OSError:
        return None
    return folder


def remove(run: str, disk: str | Path | None = None) -> None:
    """Remove the run's folders on this machine (mappings stay valid until their processes let go)."""
    for held in (run, f"{run}-{machine()}"):
        if held in _locks:
            os.close(_locks.pop(held))
    shutil.rmtree(SHARED_MEMORY / f"{PREFIX}{run}", ignore_errors=True)
    if disk is not None:
        shutil.rmtree(Path(disk) / f"{PREFIX}{run}-{machine()}", ignore_errors=True)
    if disk is not None:
        try:
            Path(disk).rmdir()  # made for the build, if it is empty now
        except OSError:
            pass


def _kept(keep: str | None, disk: str | Path | None) -> list[Path]:
    """Where the folders of the build named ``keep`` are on this machine, in shared memory and on disk."""
    if keep is None:
        return []
    return [SHARED_MEMORY / f"{PREFIX}{keep}"] + ([Path(disk) / f"{PREFIX}{keep}-{machine()}"] if disk else [])


def remove_unused(disk: str | Path | None = None, keep: str | None = None) -> int:
    """Remove folders of earlier builds that no process holds any more (in shared memory, and under
    ``disk``), but those of the build named ``keep``; return how many."""
    removed, kept = 0, _kept(keep, disk)
    places = [SHARED_MEMORY] + ([Path(disk)] if disk is not None else [])
    for folder in [f for where in places if where.is_dir() for f in where.glob(f"{PREFIX}*") if f not in kept]:
        try:
            lock = os.open(folder / "lock", os.O_RDONLY)
        except FileNotFoundError:
            if time.time() - folder.stat().st_mtime > YOUNG:
                shutil.rmtree(folder, ignore_errors=True)
                removed += 1
            continue
        except OSError:
            continue
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            continue  # in use
        finally:
            os.close(lock)  # also drops the lock, if taken
        shutil.rmtree(folder, ignore_errors=True)
        removed += 1
    return removed


def clear_room(disk: str | Path | None = None, keep: str | None = None) -> tuple[int, int, int]:
    """Remove folders that killed builds left (``remove_unused``) but those of the build named ``keep``;
    return the ``room`` there is for that build in shared memory and on the disk that holds ``disk`` (0 if
    none is named), its kept folders' room counted in, and how many parts they hold."""
    remove_unused(disk, keep)
    kept = _kept(keep, disk)
    held = [_allocated(folder) for folder in kept] or [0]  # in shared memory, then on disk
    parts = sum(len(list((folder / "parts").glob("*"))) for folder in kept if folder.is_dir())
    return room() + held[0], disk_room(disk) + sum(held[1:]) if disk is not None else 0, parts


def _allocated(folder: Path) -> int:
    """Bytes a folder's files take where they are (a values file fills as its parts come in)."""
    return sum(f.stat().st_blocks * 512 for f in folder.glob("*") if f.is_file()) if folder.is_dir() else 0


class Holding:
    """Which pieces of the table's rows (``store.Piece``) a worker's solver holds.

    With a shared folder: every piece any worker of this machine put into the
    shared arrays, one empty file per piece (a span of a thousand levels is one
    file, not a thousand). Without: the pieces this process took in itself.
    The pieces a folder marks are whole whatever killed the process, as the
    machine's page cache keeps a mapped file's pages.
    """

    def __init__(self, folder: Path | None) -> None:
        self.folder = folder
        self.mine: set[str] = set()

    @staticmethod
    def _mark_name(piece: Any) -> str:
        return f"{piece.first}-{piece.last}.{piece.part}"

    def has(self, piece: Any) -> bool:
        if self.folder is None:
            return self._mark_name(piece) in self.mine
        return (self.folder / "parts" / self._mark_name(piece)).exists()

    def mark(self, piece: Any) -> None:
        """Record a piece once its values are in place (never before: others trust the mark)."""
        if self.folder is None:
            self.mine.add(self._mark_name(piece))
        else:
            (self.folder / "parts" / self._mark_name(piece)).touch()
