"""The oracles of the misère tests, from the definition alone: a position is a multiset of heaps, its
moves are read from the code's digits again (``octal_oracles.oracle_moves``), and in misère play a
position is lost for the player to move (P) exactly when it has a move and every move leads to a
position won for the player then to move. Nothing here imports tablebase."""

from __future__ import annotations

from functools import lru_cache

from octal_oracles import oracle_moves


def sums(total: int, largest: int) -> list[tuple[int, ...]]:
    """Every sum of heaps 1..``largest`` of at most ``total`` tokens, largest heap first (the empty sum too)."""
    out: list[tuple[int, ...]] = []

    def grow(left: int, top: int, heaps: list[int]) -> None:
        out.append(tuple(heaps))
        for h in range(min(left, top), 0, -1):
            heaps.append(h)
            grow(left - h, h, heaps)
            heaps.pop()

    grow(total, largest, [])
    return out


class Misere:
    """Misère outcomes of sums of one code's heaps, by recursion over every move."""

    def __init__(self, code: str) -> None:
        self.code = code
        self.lost = lru_cache(maxsize=None)(self._lost)

    def moves(self, heaps: tuple[int, ...]) -> list[tuple[int, ...]]:
        """Every position one move away, each as its sorted heaps (largest first, no zeros)."""
        found = []
        for i, h in enumerate(heaps):
            rest = heaps[:i] + heaps[i + 1:]
            for left in oracle_moves(self.code, h):
                found.append(tuple(sorted(rest + tuple(x for x in left if x), reverse=True)))
        return found

    def _lost(self, heaps: tuple[int, ...]) -> bool:
        options = self.moves(heaps)
        return bool(options) and not any(self.lost(o) for o in options)

    def outcome(self, heaps: tuple[int, ...]) -> str:
        return "P" if self.lost(tuple(sorted(heaps, reverse=True))) else "N"


def bouton_misere(heaps: tuple[int, ...]) -> str:
    """Misère Nim (Bouton, 1902): play as in normal Nim unless every heap is of size 0 or 1, when the
    player to move loses exactly when an odd number of heaps of 1 are left."""
    x = 0
    for h in heaps:
        x ^= h
    if all(h <= 1 for h in heaps):
        return "P" if x == 1 else "N"
    return "P" if x == 0 else "N"


def misere_grundy_with_twos(code: str, heap: int, twos: int) -> int:
    """The misère Grundy value of one heap of ``code`` plus ``twos`` nim-heaps of 2, from the definition
    (1 for a game without moves, else the least value no move reaches)."""

    @lru_cache(maxsize=None)
    def value(heaps: tuple[int, ...], nim: tuple[int, ...]) -> int:
        reached = set()
        for i, h in enumerate(heaps):
            rest = heaps[:i] + heaps[i + 1:]
            for left in oracle_moves(code, h):
                reached.add(value(tuple(sorted(rest + tuple(x for x in left if x))), nim))
        for i, h in enumerate(nim):
            for smaller in range(h):
                reached.add(value(heaps, tuple(sorted(nim[:i] + nim[i + 1:] + ((smaller,) if smaller else ())))))
        if not reached:
            return 1
        m = 0
        while m in reached:
            m += 1
        return m

    return value((heap,) if heap else (), (2,) * twos)
