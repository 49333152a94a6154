"""The distinct children of a range's moves, found by a compiled hash table.

A range of a level asks the owners of its children for their keys
(``ranges.asked``). Its children are its positions' moves, dozens a position
in a game like Kayles, but they reach far fewer distinct positions: each is
reached from many parents. Sorting every move's child to find the distinct
ones made this a large share of a listed game's numbering; a hash table of
the distinct ones finds them in one pass, and only they are sorted.
"""

from __future__ import annotations

import numba
import numpy as np

from tablebase.listing.hashing import owners

# Slots of the table to begin with: four a pair, between these two powers of two (it doubles past half full).
# A table of many more slots than distinct pairs is looked up all over memory, and a range's moves may hold
# many times more pairs than distinct ones.
_FIRST_SLOTS = 1 << 12
_MOST_FIRST_SLOTS = 1 << 16
_DISTINCT_MOST = 4  # once more than a quarter of all children are distinct, every child is sorted instead,
_TRIED = 1 << 16  # and so at once if more than three quarters of the first so many are


@numba.njit(cache=True, nogil=True)
def _numbered(hashes: np.ndarray, levels: np.ndarray) -> tuple[np.ndarray, np.ndarray, bool]:
    """Each (hash, level) pair's number among the distinct ones (in the order first met), where each distinct
    one is first met, and True; or, as soon as more than a quarter of all the pairs are found distinct (or
    more than three quarters of the first ``_TRIED``), False (the caller sorts them all). The hashes are
    already spread evenly (a hash of the notation): their low bits pick the slot, which keeps its pair's
    hash and level beside its number, so that another pair's slot is passed at one look.

    How many repeat is known only at the end: a level's first positions by notation share few children, so
    the first children of a level may be mostly distinct where all of them are not (docs/scale.md, "The
    distinct children")."""
    n = len(hashes)
    numbers = np.empty(n, dtype=np.int64)
    firsts = np.empty(max(n, 1), dtype=np.int64)
    size = _FIRST_SLOTS
    while size < 4 * n and size < _MOST_FIRST_SLOTS:
        size *= 2
    slots = np.full(size, -1, dtype=np.int64)  # a distinct pair's number, or -1
    held = np.zeros(size, dtype=np.uint64)  # its hash
    held_level = np.zeros(size, dtype=np.int64)  # and its level
    mask = size - 1
    found = 0
    for i in range(n):
        if i == _TRIED and 4 * found > 3 * _TRIED:
            return numbers, firsts[:found], False
        h, lv = hashes[i], levels[i]
        s = np.int64(h & np.uint64(mask))
        while True:
            j = slots[s]
            if j < 0:
                if _DISTINCT_MOST * found >= n:
                    return numbers, firsts[:found], False
                slots[s], held[s], held_level[s] = found, h, lv
                firsts[found] = i
                numbers[i] = found
                found += 1
                break
            if held[s] == h and held_level[s] == lv:
                numbers[i] = j
                break
            s = (s + 1) & mask
        if 2 * found > size:  # past half full: twice the slots, each pair placed again
            size *= 2
            mask = size - 1
            slots = np.full(size, -1, dtype=np.int64)
            held = np.zeros(size, dtype=np.uint64)
            held_level = np.zeros(size, dtype=np.int64)
            for j in range(found):
                k = hashes[firsts[j]]
                s = np.int64(k & np.uint64(mask))
                while slots[s] >= 0:
                    s = (s + 1) & mask
                slots[s], held[s], held_level[s] = j, k, levels[firsts[j]]
    return numbers, firsts[:found], True


def distinct_in_order(hashes: np.ndarray, levels: np.ndarray, partitions: int) -> tuple[np.ndarray, np.ndarray,
                                                                                        np.ndarray]:
    """The distinct children, by their hashes and levels, sorted by group (level and owner: ``level *
    partitions + owner``), then hash: their groups, their hashes, and each child's place among them.

    Where most children are distinct (a game of few moves a position), the table's looks all over memory cost
    more than sorting every child: the table gives up once a quarter of them are found distinct."""
    hashes = np.ascontiguousarray(hashes, dtype=np.uint64)
    levels = np.ascontiguousarray(levels, dtype=np.int64)
    numbers, firsts, repeated = _numbered(hashes, levels)
    if not repeated:
        return _sorted_whole(hashes, levels * partitions + owners(hashes, partitions))
    kept_hashes = hashes[firsts]
    kept_groups = levels[firsts] * partitions + owners(kept_hashes, partitions)  # the owner follows from the hash
    order = _by_group_then_hash(kept_hashes, kept_groups)
    rank = np.empty(len(order), dtype=np.int64)
    rank[order] = np.arange(len(order), dtype=np.int64)
    return kept_groups[order], kept_hashes[order], rank[numbers]


def _sorted_whole(hashes: np.ndarray, groups: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``distinct_in_order`` by sorting every pair."""
    order = _by_group_then_hash(hashes, groups)
    groups, hashes = groups[order], hashes[order]
    first = np.ones(len(hashes), dtype=np.bool_)
    first[1:] = (groups[1:] != groups[:-1]) | (hashes[1:] != hashes[:-1])
    places = np.empty(len(hashes), dtype=np.int64)
    places[order] = np.cumsum(first) - 1
    return groups[first], hashes[first], places


def _by_group_then_hash(hashes: np.ndarray, groups: np.ndarray) -> np.ndarray:
    """The order that sorts pairs by group, then hash."""
    order = np.argsort(hashes)
    by_group = groups[order]  # a stable sort by group keeps each group's hashes in order: in 16 bits, a radix sort
    return order[np.argsort(by_group.astype(np.uint16) if by_group.max(initial=0) < 1 << 16 else by_group,
                            kind="stable")]
