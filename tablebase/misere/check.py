"""Marking and checking a candidate presentation of a misère quotient.

A candidate is a commutative monoid (given by ``times``), the element each heap pretends to be, and
for each heap the elements its options reach. A position (a sum of heaps) maps to the product of its
heaps' elements; the options of a position X map to its *transition set* T(X). Adding a heap h to X
gives T(X + h) = T(X)·h ∪ X·T(h), so the pairs (element, transition set) of all positions are found
by a finite search from the empty sum (Plambeck and Siegel, JCTA 115 (2008)): ``mark`` gives each
element its P-status, and ``first_failure`` proves the candidate or finds where it fails.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

Times = Callable[[int, int], int]


class SearchTooLarge(Exception):
    """The check's pairs (element, transition set) held more elements than its bound allows."""


def transitions(times: Times, identity: int, images: Sequence[int],
                options: Sequence[Sequence[tuple[int, ...]]], heap: int) -> frozenset[int]:
    """The elements the options of one heap map to."""
    found = set()
    for left in options[heap]:
        x = identity
        for h in left:
            x = times(x, images[h])
        found.add(x)
    return frozenset(found)


def mark(times: Times, identity: int, images: Sequence[int], moves: Sequence[frozenset[int]],
         movers: Sequence[int], keep_sets: bool = False) -> tuple[dict[int, bool], dict[int, frozenset[int]]]:
    """The P-status of every element the heaps reach, from each element's lex-least position.

    Positions are ordered lexicographically by the number of copies of the largest heap, then the next
    largest, and so on; a move replaces a heap by smaller ones, so every option of a position comes
    earlier, and its element has been marked. ``movers`` are the heaps that have options, largest first
    (a heap without options is the empty game). Returns the status and, with ``keep_sets``, the
    transition set of the lex-least position of each element (else an empty dict: they are large).
    """
    status: dict[int, bool] = {}
    first_t: dict[int, frozenset[int]] = {}

    def visit(depth: int, x: int, t: frozenset[int]) -> None:
        if depth == len(movers):
            if x not in status:
                status[x] = bool(t) and not any(status[y] for y in t)
                if keep_sets:
                    first_t[x] = t
            return
        h = movers[depth]
        g, th = images[h], moves[h]
        while True:
            visit(depth + 1, x, t)
            nx = times(x, g)
            if nx in status:
                return
            t = frozenset([times(y, g) for y in t] + [times(x, y) for y in th])
            x = nx

    visit(0, identity, frozenset())
    return status, first_t


def first_failure(times: Times, identity: int, images: Sequence[int], moves: Sequence[frozenset[int]],
                  movers: Sequence[int], p_status: dict[int, bool], limit: int) -> dict[int, int] | None:
    """The lex-least position (heap -> copies) whose element's P-status breaks the misère rule given its
    options' elements, or None when there is none. ``limit`` bounds the elements the pairs met hold
    together (each pair counts one more than its set's size), and so the check's memory.

    ``mark`` gives each element its P-status from the options of the first position that reaches it, in
    an order where every option of a position comes before it; ``first_failure`` then checks every
    reachable pair against the misère rule (a position is P exactly when it has an option and every
    option is N). When no pair fails, induction on the game shows that every position's outcome is the
    P-status of its element: the candidate gives the right outcome for every sum of heaps 0..N.

    Positions are met in the order ``mark`` uses, and a search goes no further from a pair (element,
    transition set) met before, since what follows a position depends on its pair alone. Every option of
    the position returned comes before it, and so does every position below them: their outcomes are
    right, and the position's true outcome is the opposite of its element's status.
    """
    seen: set[tuple[int, frozenset[int]]] = set()
    held = [0]
    counts = [0] * len(movers)

    def bad(x: int, t: frozenset[int]) -> bool:
        return p_status.get(x, False) != (bool(t) and not any(p_status.get(y, False) for y in t))

    def visit(depth: int, x: int, t: frozenset[int]) -> bool:
        if depth == len(movers):
            if (x, t) in seen:
                return False
            held[0] += 1 + len(t)
            if held[0] > limit:
                raise SearchTooLarge(limit)
            seen.add((x, t))
            return bad(x, t)
        h = movers[depth]
        g, th = images[h], moves[h]
        counts[depth] = 0
        while True:
            if visit(depth + 1, x, t):
                return True
            nx = times(x, g)
            nt = frozenset([times(y, g) for y in t] + [times(x, y) for y in th])
            if (nx, nt) in seen:
                counts[depth] = 0
                return False
            x, t = nx, nt
            counts[depth] += 1

    if visit(0, identity, frozenset()):
        return {h: k for h, k in zip(movers, counts) if k}
    return None
