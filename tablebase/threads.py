"""A batch's work split in consecutive parts, one a core, run on threads.

Compiled readers and numpy's gathers let go of the interpreter's lock, so
the parts run at once. A batch of random keys of an index of gigabytes
waits on memory more than it computes (each key a miss in the processor's
caches and its page tables); two cores wait on two keys at a time.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import TypeVar

# Items a thread takes at least: starting threads costs a fraction of a millisecond; a part of these
# takes tens of milliseconds.
THREAD_SHARE = 250_000
THREADS = os.cpu_count() or 1

Part = TypeVar("Part")


def in_parts(n: int, work: Callable[[int, int], Part]) -> list[Part]:
    """``work(start, stop)`` of consecutive parts of ``range(n)``, one a core, on threads where each part
    has at least ``THREAD_SHARE`` items; what each part gave, in order. A smaller batch is one part,
    done here."""
    parts = min(THREADS, n // THREAD_SHARE)
    if parts < 2:
        return [work(0, n)]
    cuts = [n * i // parts for i in range(parts + 1)]
    # imports logging: not for a program that reads a position or a few
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(parts) as pool:
        return list(pool.map(work, cuts[:-1], cuts[1:]))
