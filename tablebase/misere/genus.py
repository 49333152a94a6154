"""Conway's genus symbols of an octal game's heaps, from their definition (``genera``).

Each γ is found by playing the sum out, so this is for the small heaps of a game (the sums below a
heap of n are the partitions of n or fewer tokens).
"""

from __future__ import annotations

from functools import lru_cache

from tablebase.errors import UsageError
from tablebase.games.octal_code import OctalCode, parse_code
from tablebase.misere.quotient import heap_options

MAX_GENUS_HEAP = 40  # the sums below a heap of 40 number some tens of thousands
TWOS = 6  # γ0..γ6 computed: enough to see the alternation of every heap we have met


def nim_genus(g: int, count: int) -> list[int]:
    """The γ's of the nim-heap of size g: 1,2,0,2,0,... for 0; 0,3,1,3,1,... for 1; g, g xor 2, g, ...
    for g >= 2 (Winning Ways' 2^20, 3^31, 4^46)."""
    if g > 1:
        return [g ^ (2 * (k % 2)) for k in range(count)]
    first, pair = (1, (2, 0)) if g == 0 else (0, (3, 1))
    return [first] + [pair[k % 2] for k in range(count - 1)]


def genus_text(g: int, gammas: list[int]) -> str:
    """g^γ0γ1... with the γ's shown up to the first place (at least γ1) from which they alternate, as
    Winning Ways writes 0^120; commas between the γ's when one has two digits."""
    shown = 2
    while shown < len(gammas) and any(gammas[k] != gammas[k - 2] for k in range(shown, len(gammas))):
        shown += 1
    parts = [str(x) for x in gammas[:shown]]
    return f"{g}^" + ("," if any(len(p) > 1 for p in parts) else "").join(parts)


def genera(code: str | OctalCode, heaps: int, twos: int = TWOS) -> list[dict[str, object]]:
    """Each heap 0..``heaps``: its genus as text, g, the γ's, and whether it is a nim-heap's genus.

    The genus of a game G is g^(γ0 γ1 γ2 ...): g is G's normal-play Grundy value, and γk the misère Grundy
    value of G + 2 + ... + 2 (k nim-heaps of size 2), where the misère Grundy value of a game without
    moves is 1 and of any other game the least number that is no option's (Conway, On Numbers and Games,
    ch. 12; Winning Ways, ch. 13). The sequence of γ's ends alternating between two values; a symbol is
    written up to where it was seen to alternate, as Winning Ways writes 0^120 for the empty game and
    1^031 for a heap of one in Nim; ``nim_like`` says whether a heap's genus is a nim-heap's (0^120,
    1^031, 2^20, 3^31, 4^46, ...), as every position of misère Nim's own games has.
    """
    rules = parse_code(code)
    if not isinstance(heaps, int) or isinstance(heaps, bool) or not 0 <= heaps <= MAX_GENUS_HEAP:
        raise UsageError(f"heaps {heaps!r}: genus symbols are computed for heaps 0 to {MAX_GENUS_HEAP}")
    options = [heap_options(rules, n) for n in range(heaps + 1)]
    live = [bool(o) for o in options]  # a heap without moves is the empty game: left out of every sum
    options = [[tuple(h for h in left if live[h]) for left in opts] for opts in options]

    normal: list[int] = []
    for n in range(heaps + 1):
        seen = set()
        for left in options[n]:
            x = 0
            for h in left:
                x ^= normal[h]
            seen.add(x)
        normal.append(_mex(seen))

    @lru_cache(maxsize=None)
    def misere(position: tuple[int, ...], ones: int, twos_left: int) -> int:
        """The misère Grundy value of the sum of the heaps ``position`` (largest first), ``ones`` nim-heaps
        of 1 and ``twos_left`` nim-heaps of 2."""
        seen = set()
        for i, h in enumerate(position):
            if i and position[i - 1] == h:
                continue
            rest = position[:i] + position[i + 1:]
            for left in options[h]:
                seen.add(misere(tuple(sorted(rest + left, reverse=True)), ones, twos_left))
        if ones:
            seen.add(misere(position, ones - 1, twos_left))
        if twos_left:
            seen.add(misere(position, ones + 1, twos_left - 1))
            seen.add(misere(position, ones, twos_left - 1))
        return _mex(seen) if seen else 1

    rows = []
    for n in range(heaps + 1):
        start = (n,) if live[n] else ()
        gammas = [misere(start, 0, k) for k in range(twos + 1)]
        rows.append({"heap": n, "genus": genus_text(normal[n], gammas), "g": normal[n], "gammas": gammas,
                     "nim_like": gammas == nim_genus(normal[n], len(gammas))})
    misere.cache_clear()
    return rows


def _mex(values: set[int]) -> int:
    m = 0
    while m in values:
        m += 1
    return m
