"""The oracle of the octal tests: the rules read again from a code's text, and the Grundy values by the
definition (a mex over every move), sharing nothing with the solver or the game."""

from __future__ import annotations

from functools import cache


def oracle_moves(code: str, n: int):
    """Every move of a heap of n as the tuple of heaps it leaves, read from the digits:
    digit d_k, bit 1: take k leaving nothing; 2: one heap; 4: two heaps; 8: three heaps."""
    if code == "grundy":
        for a in range(1, n):
            if a != n - a:
                yield (a, n - a)
        return
    lead, _, rest = code.partition(".")
    digits = [int(lead or "0", 16)] + [int(c, 16) for c in rest]
    for k, d in enumerate(digits):
        left = n - k
        if left < 0:
            break
        if d & 1 and left == 0:
            yield ()
        if d & 2 and left >= 1:
            yield (left,)
        if d & 4:
            for a in range(1, left):
                yield (a, left - a)
        if d & 8:
            for a in range(1, left):
                for b in range(1, left - a):
                    yield (a, b, left - a - b)


def mex(values) -> int:
    values = set(values)
    m = 0
    while m in values:
        m += 1
    return m


def brute_heaps(code: str, n_max: int) -> list[int]:
    """G(n) = mex over the moves of the XOR of the heaps left (Sprague-Grundy), by recursion."""

    @cache
    def g(n: int) -> int:
        options = []
        for heaps in oracle_moves(code, n):
            x = 0
            for h in heaps:
                x ^= g(h)
            options.append(x)
        return mex(options)

    return [g(n) for n in range(n_max + 1)]


def brute_position(code: str, heaps: tuple[int, ...]) -> int:
    """The Grundy value of a position of several heaps by the definition alone: mex over every
    move in any heap, positions as sorted tuples, no XOR."""

    @cache
    def value(position: tuple[int, ...]) -> int:
        options = set()
        for i, n in enumerate(position):
            rest = position[:i] + position[i + 1:]
            for left in oracle_moves(code, n):
                options.add(value(tuple(sorted(rest + left))))
        return mex(options)

    return value(tuple(sorted(heaps)))
