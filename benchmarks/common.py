"""Small helpers shared by the benchmarks: peak memory of a process tree, and printing."""

from __future__ import annotations

import threading
import time

import psutil


class PeakMemory:
    """Samples the resident memory of this process and all its children (Dask workers included),
    and their CPU time (``cpu_seconds``: the last sample of each process, added up).

    Memory is the proportional set size: pages that workers share (the values
    they map from /dev/shm) count once in the total, not once per worker.
    """

    def __init__(self, every: float = 0.05) -> None:
        self.every = every
        self.peak = 0
        self._cpu: dict[int, float] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        me = psutil.Process()
        while not self._stop.is_set():
            total = 0
            for p in [me] + me.children(recursive=True):
                try:
                    total += p.memory_full_info().pss
                    t = p.cpu_times()
                    self._cpu[p.pid] = t.user + t.system
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
    def mib(self) -> float:
        return self.peak / 2**20


def report(name: str, **figures) -> None:
    def show(v) -> str:
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            return str(v)
        return f"{v:,.3f}" if isinstance(v, float) else f"{v:,}"

    parts = [f"{k}={show(v)}" for k, v in figures.items()]
    print(f"{name:<28} " + "  ".join(parts), flush=True)
