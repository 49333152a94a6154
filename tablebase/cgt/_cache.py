"""Bounded caches for everything the algebra derives from canonical forms.

The intern table (``_table``) keeps each canonical form once, for good: ids
are plain ints that solvers hold in their own dicts, so a form may not be
dropped while anybody could still hold its id. Everything computed *from*
forms (sums, comparisons, negatives, thermographs, printed texts) can always
be computed again, and lives in the caches made here (``BoundedCache``), each
with a fixed limit, so that a long-running ``tablebase serve`` stays bounded.
"""

from __future__ import annotations

import threading
from itertools import islice
from typing import Any

#: held by whatever adds to the algebra's shared state (the intern table, a cache), so that threads that
#: meet new forms at once (a server's requests) never see a half-made entry; lookups take no lock
LOCK = threading.RLock()

# name -> cache; a registry rather than loose globals so that the sizes can
# be reported and every derived result dropped at once.
_REGISTRY: dict[str, "BoundedCache"] = {}


class BoundedCache(dict):
    """A dict that forgets its oldest half whenever it would exceed ``limit`` entries.

    A cache is a plain ``dict`` subclass, so a lookup is the C-level
    ``dict.get`` that the hot paths (sums, ``<=``) depend on. An insertion past
    the limit first forgets the oldest half of the entries (dicts keep their
    insertion order), which keeps the recent working set, costs amortised O(1)
    per insertion and never lets the cache exceed its limit. CGSuite bounds its
    operation table the same way in spirit (a fixed-size table whose slots are
    overwritten); forgetting the oldest half loses fewer useful entries than
    overwriting by hash.

    Threads share the caches: an insertion (and forgetting) holds ``LOCK``, a
    lookup does not (a dict's ``get`` is safe beside another thread's changes).
    """

    __slots__ = ("limit", "name")

    def __init__(self, name: str, limit: int) -> None:
        super().__init__()
        if limit < 2:
            raise ValueError("a cache needs room for at least two entries")
        self.name = name
        self.limit = limit

    def put(self, key: Any, value: Any) -> Any:
        """Store ``value`` under ``key`` (making room first) and return it."""
        with LOCK:
            if len(self) >= self.limit:
                self.forget_oldest_half()
            self[key] = value
        return value

    def forget_oldest_half(self) -> None:
        for key in list(islice(self, len(self) // 2)):
            del self[key]


def cache(name: str, limit: int) -> BoundedCache:
    """The bounded cache called ``name`` (made once; modules share it by name)."""
    c = _REGISTRY.get(name)
    if c is None:
        c = _REGISTRY[name] = BoundedCache(name, limit)
    return c


def cache_info() -> dict[str, tuple[int, int]]:
    """``{name: (entries, limit)}`` of every derived-result cache."""
    return {name: (len(c), c.limit) for name, c in sorted(_REGISTRY.items())}


def clear_caches() -> None:
    """Drop every derived result (canonical forms and their ids stay valid)."""
    with LOCK:
        for c in _REGISTRY.values():
            c.clear()
