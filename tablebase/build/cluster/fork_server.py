"""Local worker processes forked from a server that has already imported the build.

A spawned Dask worker is a new interpreter that imports Dask, numpy, numba,
pyarrow and the solvers again on every build; a forked one has them from the
server, which imports them once. The build command starts the server as it
begins, so that its imports run on a second core beside the command's own.
Where the platform has no fork server, workers are spawned as before.
"""

from __future__ import annotations

import multiprocessing
import multiprocessing.forkserver
import os
import signal

METHOD = "forkserver" if "forkserver" in multiprocessing.get_all_start_methods() else "spawn"
PRELOAD = ["tablebase.build.cluster.preload"]
# Dask sets these in the environment before it spawns a worker (its
# distributed.nanny.pre-spawn-environ): they act only before numpy is imported
# or before the process starts, so the server must have them from its start.
BEFORE_START = {"OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1",
                "MALLOC_TRIM_THRESHOLD_": "65536"}


def start() -> str:
    """Start the fork server if it is not running, without waiting for its imports; return
    the start method for a local cluster's workers."""
    if METHOD == "forkserver":
        for name, value in BEFORE_START.items():
            os.environ.setdefault(name, value)
        multiprocessing.get_context("forkserver").set_forkserver_preload(PRELOAD)
        multiprocessing.forkserver.ensure_running()
    return METHOD


def stop() -> None:
    """Stop the fork server if it is running, in the middle of its imports if need be: a job found small
    enough for workers in threads stops it at once, so that on a machine with one free core its imports do
    not take turns with the job."""
    server = getattr(multiprocessing.forkserver, "_forkserver", None)
    pid = getattr(server, "_forkserver_pid", None)
    if pid is None:
        return
    # Asked through its pipe, the server would only answer once its imports are done.
    try:
        os.kill(pid, signal.SIGTERM)
    except ProcessLookupError:
        pass
    server._stop()  # reaps it and forgets it, so that start() would begin a new one
