"""docs/format.md says how each dense built-in game ranks a position to its key, so that other programs
compute keys themselves: those formulas, written again here from the page, against each game's parse."""

from __future__ import annotations

import itertools
import random
from math import comb

import pytest

from tablebase.games import load_game


# -- the formulas of docs/format.md, "Keys of the dense built-in games" -------------------------
def C(n: int, k: int) -> int:
    return comb(n, k) if 0 <= k <= n else 0


def diagram_key(lengths: list[int], rows: int) -> int:
    """Chomp's rows (top first), or Nim's heaps sorted in decreasing order, padded with zeros."""
    padded = lengths + [0] * (rows - len(lengths))
    return sum(C(padded[j] + rows - 1 - j, rows - j) for j in range(rows))


def chomp_key(lengths: list[int], rows: int) -> int:
    return diagram_key(lengths, rows)


def nim_key(heaps: list[int], count: int) -> int:
    return diagram_key(sorted(heaps, reverse=True), count)


def wythoff_key(a: int, b: int) -> int:
    a, b = min(a, b), max(a, b)
    return b * (b + 1) // 2 + a


def fibonacci_nim_key(n: int, k: int | None = None) -> int:
    k = max(n - 1, 0) if k is None else k
    return n * (n + 1) // 2 + min(k, n)


def subtraction_key(n: int) -> int:
    return n
# -------------------------------------------------------------------------------------------------


def diagrams(rows: int, cols: int) -> list[list[int]]:
    """Every non-empty Young diagram in the box, as row lengths top row first."""
    return [list(d) for d in itertools.product(range(cols + 1), repeat=rows)
            if all(a >= b for a, b in itertools.pairwise(d)) and d[0] >= 1]


@pytest.mark.parametrize("rows, cols", [(1, 6), (4, 5), (5, 3)])
def test_chomp_keys_of_every_diagram(rows, cols):
    game, _ = load_game("chomp", {"rows": rows, "cols": cols})
    every = diagrams(rows, cols)
    keys = [chomp_key(d, rows) for d in every]
    assert keys == [game.parse(" ".join(map(str, d))) for d in every]
    assert sorted(keys) == list(range(1, comb(rows + cols, rows)))  # dense; key 0 is the empty bar
    for d, key in zip(every, keys):
        assert game.level_of(key) == sum(d)


def test_chomp_keys_of_random_diagrams_in_a_large_bar():
    game, _ = load_game("chomp", {"rows": 13, "cols": 13})
    rng = random.Random(13)
    for _ in range(3000):
        lengths = sorted((rng.randint(0, 13) for _ in range(rng.randint(1, 13))), reverse=True)
        lengths[0] = max(lengths[0], 1)
        assert chomp_key(lengths, 13) == game.parse(" ".join(map(str, lengths)))
    assert chomp_key([13] * 13, 13) == game.key_space - 1


@pytest.mark.parametrize("heaps, top", [(1, 9), (3, 6), (4, 63)])
def test_nim_keys(heaps, top):
    game, _ = load_game("nim", {"heaps": heaps, "max_heap": top})
    rng = random.Random(heaps * 100 + top)
    for _ in range(2000):
        sizes = [rng.randint(0, top) for _ in range(rng.randint(1, heaps))]
        rng.shuffle(sizes)
        key = nim_key(sizes, heaps)
        assert key == game.parse(" ".join(map(str, sizes)))
        assert game.level_of(key) == sum(sizes)
    assert nim_key([top] * heaps, heaps) == game.key_space - 1


def test_wythoff_fibonacci_nim_and_subtraction_keys():
    wythoff, _ = load_game("wythoff", {"max": 40})
    fibonacci, _ = load_game("fibonacci-nim", {"max": 40})
    subtraction, _ = load_game("subtraction", {"set": "1,3,4", "max": 40})
    for a in range(41):
        assert subtraction.parse(str(a)) == subtraction_key(a)
        assert fibonacci.parse(str(a)) == fibonacci_nim_key(a)
        for b in range(41):
            assert wythoff.parse(f"{a} {b}") == wythoff_key(a, b)
            assert wythoff.level_of(wythoff_key(a, b)) == a + b
            assert fibonacci.parse(f"{a} {b}") == fibonacci_nim_key(a, b)
            assert fibonacci.level_of(fibonacci_nim_key(a, b)) == a
    assert wythoff_key(40, 40) == wythoff.key_space - 1 and fibonacci_nim_key(40, 40) == fibonacci.key_space - 1
