"""Values of boards larger than a table: parts it holds read from it, the others searched, in Python or compiled.

A game with ``Boards`` (Domineering) takes any board. A part the table holds
is read from it; a part it does not hold is worth {Left's moves | Right's
moves}, each move's value the sum of the parts it leaves, searched down to
parts the table holds. The search starts in Python, a part at a time, which
imports nothing and is quick for a few thousand parts. One that has searched
``COMPILE_AFTER`` parts is large enough to pay for numba's import and the
compiled loops it loads (about a second): where numba is installed, the
game's ``part_graph`` lays out every part the search has left in compiled
loops, and Python only adds values and takes canonical forms, a level at a
time over arrays. Where numba is not installed, or the game has no such
loops, the search goes on in Python. Every part searched, either way, is
spent from the budget (``budget.py``).
"""

from __future__ import annotations

from typing import Any

from tablebase.cgt import from_option_ids, sum_ids
from tablebase.games import PartGraph, PartizanForm
from tablebase.kinds.budget import Budget
from tablebase.kinds.stored_values import SEARCHED_KEPT, StoredValues
from tablebase.lazy import np

COMPILE_AFTER = 2000  # parts a search takes in Python before it is handed to compiled loops


class _Large(Exception):
    """The search has taken ``COMPILE_AFTER`` parts in Python."""


class BoardValues:
    """Values of any board of a game with ``Boards``: stored parts from the table, larger ones by search, each
    part searched spent from ``budget``."""

    def __init__(self, game: PartizanForm, stored: StoredValues, budget: Budget) -> None:
        self.boards, self.stored, self.budget = game.boards, stored, budget
        self.memo: dict[Any, int] = {}
        self.known: dict[Any, int] = {}  # parts the compiled search valued that this lookup may ask for
        self.taken = 0  # parts searched in Python
        self.handing = True  # whether a large search is still to be handed to compiled loops

    def board(self, board: Any) -> int:
        """The value id of a board: the sum of its parts' values."""
        while True:
            try:
                return self._board(board)
            except _Large:
                self.handing = self._by_graph(board)

    def _board(self, board: Any) -> int:
        g = self.memo.get(board)
        if g is None:
            parts = [self._part(part, key, negated) for part, key, negated in self.boards.board_parts(board)]
            g = self.memo[board] = self.stored.sum(parts) if parts else sum_ids([])
        return g

    def _part(self, part: Any, key: int | None, negated: bool) -> int:
        if key is not None:
            return self.stored.signed(key, negated)
        searched = self.stored.searched
        g = self.known.get(part)
        if g is None:
            g = searched.get(part)
        if g is None:
            if self.handing and self.taken >= COMPILE_AFTER:
                raise _Large
            self.taken += 1
            self.budget.spend()
            left, right = self.boards.board_moves(part)
            g = from_option_ids([self._board(b) for _, b in left], [self._board(b) for _, b in right])
            _keep(searched, part, g)
        return self.stored.negative(g) if negated else g

    def _by_graph(self, board: Any) -> bool:
        """Value the parts of ``board`` the table does not hold in compiled loops; False where that cannot be
        (no numba, no loops for the game or for these parts)."""
        roots = [part for part, key, _ in self.boards.board_parts(board) if key is None]
        graph = self.boards.part_graph(roots, self.budget.found)
        if graph is None:
            return False
        values = value_graph(graph, self.stored, self.budget)
        # What this lookup asks for next (the moves it lists) and a later lookup may: the parts a move away.
        moves, near = graph.moves, {}
        for root in graph.roots.tolist():
            first, last = moves.starts[moves.offsets[2 * root]], moves.starts[moves.offsets[2 * root + 2]]
            for q in moves.keys[first:last][graph.searched[first:last]].tolist():
                near[graph.part(q)] = int(values[q])
        near.update((part, int(values[root])) for part, root in zip(roots, graph.roots.tolist()))
        for part, g in near.items():
            _keep(self.stored.searched, part, g)
        self.known.update(near)
        return True


def _keep(searched: dict[Any, int], part: Any, g: int) -> None:
    if len(searched) >= SEARCHED_KEPT:  # what lookups searched stays, within a bound
        searched.clear()
    searched[part] = g


def _ranges(first: np.ndarray, last: np.ndarray) -> np.ndarray:
    """The indices ``first[i]:last[i]`` of every ``i``, one after the other."""
    lengths = last - first
    ends = np.cumsum(lengths)
    return np.arange(int(ends[-1]) if len(ends) else 0, dtype=np.int64) + np.repeat(first - (ends - lengths),
                                                                                        lengths)


def _negatives(stored: StoredValues, ids: np.ndarray) -> np.ndarray:
    """The negative of each value id, each distinct one found once."""
    distinct, where = np.unique(ids, return_inverse=True)
    return np.array([stored.negative(g) for g in distinct.tolist()], dtype=np.int64)[where]


def _sums(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The value id of each ``a[i] + b[i]``, each distinct pair added once."""
    pairs = np.minimum(a, b) << 32 | np.maximum(a, b)  # ids index the process's forms: far below 2**31
    distinct, where = np.unique(pairs, return_inverse=True)
    return np.array([sum_ids((x >> 32, x & 0xFFFFFFFF)) for x in distinct.tolist()], dtype=np.int64)[where]


def value_graph(graph: PartGraph, stored: StoredValues, budget: Budget) -> np.ndarray:
    """The value id of every part of ``graph``, its lowest level first, each part spent from ``budget``.

    A level's parts are valued together: their moves' components gathered
    from the values found below, negated where they are mirror images, added
    up where a move leaves more than one, and then each part's canonical form
    from its options.
    """
    moves, searched = graph.moves, graph.searched
    values = np.full(len(graph.levels), -1, dtype=np.int64)
    # Each component: a stored part's value id from the start (negated where it is), else its part's number.
    component = moves.keys.copy()
    held = ~searched
    keys, where = np.unique(component[held], return_inverse=True)
    component[held] = np.array([stored.signed(k, False) for k in keys.tolist()], dtype=np.int64)[where]
    flip = held & moves.negate
    component[flip] = _negatives(stored, component[flip])
    zero = sum_ids([])
    order = np.argsort(graph.levels, kind="stable")
    for group in np.split(order, np.flatnonzero(np.diff(graph.levels[order])) + 1):
        firsts, middles, lasts = moves.offsets[2 * group], moves.offsets[2 * group + 1], moves.offsets[2 * group + 2]
        chosen = _ranges(firsts, lasts)  # every move of the group's parts: a part's Left moves, then its Right
        begins, ends = moves.starts[chosen], moves.starts[chosen + 1]
        parts = _ranges(begins, ends)
        v = component[parts]
        inner = searched[parts]
        v[inner] = values[v[inner]]
        flip = inner & moves.negate[parts]
        if flip.any():
            v[flip] = _negatives(stored, v[flip])
        counts = ends - begins
        at = np.cumsum(counts) - counts
        results = np.full(len(chosen), zero, dtype=np.int64)
        some = counts > 0
        results[some] = v[at[some]]
        for k in range(1, int(counts.max(initial=0))):  # each further component added, each distinct sum once
            more = np.flatnonzero(counts > k)
            results[more] = _sums(results[more], v[at[more] + k])
        listed, i = results.tolist(), 0
        for p, lefts, rights in zip(group.tolist(), (middles - firsts).tolist(), (lasts - middles).tolist()):
            budget.spend()
            values[p] = from_option_ids(listed[i:i + lefts], listed[i + lefts:i + lefts + rights])
            i += lefts + rights
    return values
