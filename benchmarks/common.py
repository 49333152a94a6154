"""Small helpers shared by the benchmarks: peak memory of a process tree, printing figures, and each run's log."""

from __future__ import annotations

import atexit
import datetime
import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import psutil

from tablebase.build.cluster import shared_values


def _rss_shmem(pid: int) -> int:
    """Resident pages of shared memory a process maps (Linux; elsewhere 0)."""
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("RssShmem:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def _minor_faults(pid: int) -> int:
    """The page faults a process took that read nothing from disk (Linux; elsewhere 0): each a page the
    kernel gave it, cleared."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return int(f.read().rpartition(")")[2].split()[7])
    except (OSError, ValueError, IndexError):
        return 0


def _shared_files_bytes() -> int:
    """Memory taken by the builds' shared values (build/cluster/shared_values.py)."""
    total = 0
    try:
        paths = list(shared_values.SHARED_MEMORY.glob(f"{shared_values.PREFIX}*/*"))
    except OSError:  # a build's folder removed while it was listed: the next sample counts the rest
        return 0
    for path in paths:
        try:
            total += path.stat().st_blocks * 512
        except OSError:
            pass
    return total


class PeakMemory:
    """Samples the resident memory of this process and all its children (Dask workers included),
    and their CPU time (``cpu_seconds``: the last sample of each process, added up; ``system_seconds``, the
    kernel's share of it, and ``minor_faults``, the pages the kernel gave them, of its children alone).

    Pages that workers share (the values they map from /dev/shm) count once in
    the total, not once per worker: each process counts its resident memory less
    its shared-memory pages, and the shared files count by their own size. (The
    proportional set size would say the same, but reading it walks a process's
    page tables: 15 ms for a 16x16 worker, which slowed the workers measured.)
    """

    def __init__(self, every: float = 0.05) -> None:
        self.every = every
        self.peak = 0
        #: the largest resident memory of one process (shared pages included): what a per-worker plan predicts
        self.largest = 0
        #: the largest peak resident memory of a process at each depth below this one (1: a command it
        #: ran, 2: that command's children, such as a local cluster's workers)
        self.by_depth: dict[int, int] = {}
        self._cpu: dict[int, float] = {}
        self._system: dict[int, float] = {}
        self._faults: dict[int, int] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        me = psutil.Process()
        depth: dict[int, int] = {me.pid: 0}
        while not self._stop.is_set():
            total = _shared_files_bytes()
            for p in [me] + me.children(recursive=True):
                try:
                    rss = p.memory_info().rss
                    total += rss - _rss_shmem(p.pid)
                    if p.pid not in depth:
                        depth[p.pid] = depth.get(p.ppid(), 0) + 1
                    if p.pid != me.pid:
                        self.largest = max(self.largest, rss)
                        self.by_depth[depth[p.pid]] = max(self.by_depth.get(depth[p.pid], 0), rss)
                    t = p.cpu_times()
                    self._cpu[p.pid] = t.user + t.system
                    if p.pid != me.pid:
                        self._system[p.pid] = t.system
                        self._faults[p.pid] = _minor_faults(p.pid)
                except psutil.Error:
                    pass
            self.peak = max(self.peak, total)
            time.sleep(self.every)

    def __enter__(self) -> "PeakMemory":
        t = psutil.Process().cpu_times()
        self._before = t.user + t.system  # this process's CPU time so far is not the measured work's
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()

    @property
    def cpu_seconds(self) -> float:
        return sum(self._cpu.values()) - self._before

    @property
    def system_seconds(self) -> float:
        return sum(self._system.values())

    @property
    def minor_faults(self) -> int:
        return sum(self._faults.values())

    @property
    def mib(self) -> float:
        return self.peak / 2**20


def report(name: str, **figures) -> None:
    """Print one line of figures, and keep them for the run's log (``log_run``)."""
    print(f"{name:<28} " + "  ".join(f"{k}={_shown(v)}" for k, v in figures.items()), flush=True)
    record(name, **figures)


def record(name: str, **figures) -> None:
    """Keep figures for the run's log (``log_run``) without printing them."""
    _RUN.figures[name] = {k: v if isinstance(v, (int, float, str, bool)) or v is None else str(v)
                          for k, v in figures.items()}


def _shown(v) -> str:
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return str(v)
    return f"{v:,.3f}" if isinstance(v, float) else f"{v:,}"


class _Run:
    """The figures a benchmark run reported, written to its log when the run ends (``log_run``)."""

    def __init__(self) -> None:
        self.figures: dict[str, dict] = {}
        self.began = time.time()
        self.load = os.getloadavg()
        self.written = False


_RUN = _Run()
RESULTS = Path(__file__).resolve().parent / "results"


def log_run(**extra) -> Path | None:
    """Append one JSON line for this run to ``benchmarks/results/<benchmark>.jsonl``: the command, the
    commit (``+changes`` where the checkout differs from it), the date, the load average at the start and the
    end on how many cores, the seconds it took, and every figure reported. Called at exit once anything was
    reported; a long run calls it itself for each of its parts."""
    if not _RUN.figures and not extra:
        return None
    RESULTS.mkdir(exist_ok=True)
    line = {"command": " ".join([Path(sys.argv[0]).name, *sys.argv[1:]]), "commit": _commit(),
            "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
            "load": {"start": [round(x, 2) for x in _RUN.load], "end": [round(x, 2) for x in os.getloadavg()],
                     "cores": os.cpu_count()},
            "seconds": round(time.time() - _RUN.began, 3), **extra, "figures": _RUN.figures}
    path = RESULTS / f"{Path(sys.argv[0]).stem}.jsonl"
    with open(path, "a") as f:
        f.write(json.dumps(line, sort_keys=False) + "\n")
    _RUN.written = True
    return path


def _commit() -> str:
    root = Path(__file__).resolve().parent.parent
    try:
        head = subprocess.run(["git", "rev-parse", "--short=12", "HEAD"], cwd=root, capture_output=True,
                              text=True, check=True).stdout.strip()
        changed = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=root,
                                 capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return head + ("+changes" if changed else "")


@atexit.register
def _log_at_exit() -> None:
    if not _RUN.written and _RUN.figures:
        path = log_run()
        if path is not None:
            print(f"logged to {path.relative_to(path.parent.parent.parent)}", flush=True)


def load_grundy_values(path, program: str, mmap: bool = False):
    """A .npy file of Grundy values G(0..N), or the program's exit (status 2) with one line on stderr where the
    file cannot be read or is not one dimension of integers."""
    import sys

    import numpy as np

    try:
        values = np.load(path, mmap_mode="r" if mmap else None)
    except (OSError, ValueError, EOFError) as err:
        print(f"{program}: cannot read {path}: {err}", file=sys.stderr)
        raise SystemExit(2) from None
    if values.ndim != 1 or values.dtype.kind not in "iu" or values.size < 2:
        print(f"{program}: {path} is not a list of Grundy values (one dimension of integers)", file=sys.stderr)
        raise SystemExit(2)
    return values
