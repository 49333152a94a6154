"""A worker's allocator keeps the memory its tasks free, for the next task to reuse.

The C library's malloc is set as glibc would set itself at most (``keep_freed_memory``);
Arrow's allocator, which keeps what it freed too, is made to hand it back
once a task is done and the worker holds a share of its limit
(``hand_back_arrow_memory``). Where the C library is not glibc, nothing changes.
"""

from __future__ import annotations

import ctypes
from typing import Any

from tablebase.lazy import pa, psutil

FROM_MALLOC = 32 * 2**20  # glibc's own ceiling for its mmap threshold on 64-bit machines
KEPT = 2 * FROM_MALLOC  # as glibc keeps when it raises the threshold itself
_M_TRIM_THRESHOLD = -1  # glibc's mallopt parameters (malloc.h)
_M_MMAP_THRESHOLD = -3


def keep_freed_memory() -> bool:
    """Set this process's malloc to keep freed memory; whether the C library took the settings.

    Dask starts its workers with ``MALLOC_TRIM_THRESHOLD_`` set, and setting it
    also stops glibc from raising its mmap threshold as a program's allocations
    show it should: every larger array is then mapped fresh from the kernel and
    handed back when freed, so each partition's keys, figures and text pay a
    page fault per page, task after task. A build's worker allocates much the
    same sizes in every task, and its memory plan counts its peak anyway
    (build/cluster/memory_plan.py), so arrays of up to ``FROM_MALLOC`` bytes come
    from malloc's arenas and up to ``KEPT`` freed bytes are kept there.
    """
    try:
        mallopt = ctypes.CDLL(None).mallopt  # the C library the interpreter runs on
    except (OSError, AttributeError):
        return False  # not glibc
    return bool(mallopt(_M_MMAP_THRESHOLD, FROM_MALLOC)) and bool(mallopt(_M_TRIM_THRESHOLD, KEPT))


# What Arrow freed is kept for the next task while the worker holds less than this share of its memory limit:
# a small share, and a worker Dask pauses for memory is made to hand back everything it keeps (lost_workers.py).
KEEP_UNDER = 0.1


def hand_back_arrow_memory() -> None:
    """Return the memory Arrow's allocator freed but kept for reuse (a level read back, a table written), once
    this process holds ``KEEP_UNDER`` of its worker's memory limit or more (always outside a worker with a
    limit).

    Without it a worker holds, after each task, the most its Arrow tables ever held, and a worker over its
    limit is restarted by its nanny. Below that share the next task takes the kept memory again, where
    memory handed back to the system costs a page fault a page when it is taken again (docs/scale.md).
    """
    limit = _worker_limit()
    if limit is None or psutil.Process().memory_info().rss >= KEEP_UNDER * limit:
        pa.default_memory_pool().release_unused()


def _worker_limit() -> int | None:
    """The memory limit of the Dask worker this runs in; None outside a worker or for one without a limit."""
    try:
        from distributed import get_worker

        return get_worker().memory_manager.memory_limit or None
    except (ImportError, ValueError, AttributeError):
        return None


def keep_freed_memory_on(client: Any) -> None:
    """``keep_freed_memory`` on every worker of the cluster, as a build begins: its listing allocates and
    frees as much as its solve (a worker its nanny restarts later sets it at its first solve)."""
    try:
        client.run(keep_freed_memory, on_error="ignore")
    except Exception:  # noqa: BLE001 - a speed-up, never a reason to stop a build
        pass


def hand_back_freed_memory() -> None:
    """Return every freed byte this process keeps, Arrow's and malloc's (``KEPT`` and the holes below it).

    For a worker Dask paused for memory: a paused worker runs no task, so what
    its allocator keeps for the next task would otherwise keep it paused for ever.
    """
    pa.default_memory_pool().release_unused()
    try:
        ctypes.CDLL(None).malloc_trim(0)
    except (OSError, AttributeError):
        pass  # not glibc


def held_at_rest() -> int:
    """This process's resident bytes once it has handed back every freed byte it keeps: what a worker
    holds between tasks. A worker that listed a plain game keeps more than a fresh one (malloc's
    fragments, the game's code and objects), and the memory plan of the solve counts it."""
    hand_back_freed_memory()
    return psutil.Process().memory_info().rss
