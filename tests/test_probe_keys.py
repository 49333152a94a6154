"""docs/format.md says how each dense built-in game ranks a position to its key, so that other programs
compute keys themselves: those formulas, written again here from the page, against each game's parse."""

from __future__ import annotations

import itertools
import random
from math import comb

import pytest

from tablebase.errors import PositionError
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


def octal_key_and_level(n: int) -> tuple[int, int]:
    return n, n // 65536


def tanhinmin_key(mover: list[int], opponent: list[int], field: int, cards: int, most: int) -> int:
    def rank(hand: list[int]) -> int:
        down, s = sorted(hand, reverse=True), len(hand)
        return sum(C(t + cards - 1, t) for t in range(s)) + sum(C(c - 1 + s - 1 - j, s - j) for j, c in enumerate(down))

    hands = sum(C(s + cards - 1, s) for s in range(most + 1))
    return (rank(mover) * hands + rank(opponent)) * (cards + 1) + field
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
    assert list(zip(keys, map(sum, every))) == [game.locate(" ".join(map(str, d))) for d in every]
    assert sorted(keys) == list(range(1, comb(rows + cols, rows)))  # dense; key 0 is the empty bar
    for d, key in zip(every, keys):
        assert game.level_of(key) == sum(d)


def test_chomp_reads_every_short_list_of_numbers_as_the_rules_say():
    """Every list of up to four numbers 0..4 in a 3 x 3 bar, as a probe reads it: the diagram's key and
    squares where the numbers are row lengths that fit, the longest first (empty rows at the end left
    out), and a PositionError otherwise."""
    game, _ = load_game("chomp", {"rows": 3, "cols": 3})
    for count in range(5):
        for numbers in itertools.product(range(5), repeat=count):
            lengths = list(numbers)
            while lengths and lengths[-1] == 0:
                lengths.pop()
            fits = (lengths and len(lengths) <= 3 and lengths[0] <= 3
                    and all(a >= b for a, b in itertools.pairwise(lengths)))
            text = " ".join(map(str, numbers))
            if fits:
                assert game.locate(text) == (chomp_key(lengths, 3), sum(lengths)), text
            else:
                with pytest.raises(PositionError):
                    game.locate(text)


def test_chomp_keys_of_random_diagrams_in_a_large_bar():
    game, _ = load_game("chomp", {"rows": 13, "cols": 13})
    rng = random.Random(13)
    for _ in range(3000):
        lengths = sorted((rng.randint(0, 13) for _ in range(rng.randint(1, 13))), reverse=True)
        lengths[0] = max(lengths[0], 1)
        assert (chomp_key(lengths, 13), sum(lengths)) == game.locate(" ".join(map(str, lengths)))
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
        assert game.locate(",".join(map(str, sizes))) == (key, sum(sizes))
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
            assert wythoff.locate(f"{a} {b}") == (wythoff_key(a, b), a + b)
            assert fibonacci.locate(f"{a} {b}") == (fibonacci_nim_key(a, b), a)
            assert wythoff.level_of(wythoff_key(a, b)) == a + b
            assert fibonacci.parse(f"{a} {b}") == fibonacci_nim_key(a, b)
            assert fibonacci.level_of(fibonacci_nim_key(a, b)) == a
    assert wythoff_key(40, 40) == wythoff.key_space - 1 and fibonacci_nim_key(40, 40) == fibonacci.key_space - 1


def test_octal_keys_and_levels():
    octal, _ = load_game("octal", {"code": "0.137", "max": 200_000})
    for n in (0, 1, 17, 65_535, 65_536, 131_071, 200_000):
        assert octal.locate(str(n)) == octal_key_and_level(n)


@pytest.mark.parametrize("cards, most", [(3, 3), (13, 6)])
def test_tanhinmin_keys(cards, most):
    game, _ = load_game("tanhinmin", {"max_card": cards, "max_hand": most})
    rng = random.Random(cards)
    for _ in range(2000):
        mover, opponent = ([rng.randint(1, cards) for _ in range(rng.randint(0, most))] for _ in range(2))
        field = rng.randint(0, cards)
        key = tanhinmin_key(mover, opponent, field, cards, most)
        text = f"{' '.join(map(str, mover)) or '-'} / {' '.join(map(str, opponent))} / {field}"
        assert game.parse(text) == key
        assert game.locate(text) == (key, len(mover) + len(opponent)) == (key, game.level_of(key))
    assert tanhinmin_key([cards] * most, [cards] * most, cards, cards, most) == game.key_space - 1
