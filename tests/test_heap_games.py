"""The heap games' shared notation and pair ranking (games/heaps.py), against their definitions.

Each game's rows are checked against solvers in test_games.py; here, what
the heap base gives all of them: a position is written as whole numbers
separated by single spaces, any spelling of it (commas, tabs, spaces, and
where the notation allows, another order, missing empty heaps or a lone
heap) reads as that position one at a time and in batches, and a bad one
is refused with one line naming the reason, the notation and the bounds.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from tablebase.errors import PositionError
from tablebase.games import Texts, make_game
from tablebase.games.heaps import pair_count, pair_key, pair_keys, pair_of_key, pairs_of_keys


def nim_spellings(p: tuple[int, ...]) -> list[str]:
    """Another order, commas and tabs, and the empty heaps left out."""
    rest = [h for h in p if h]
    return [",".join(map(str, reversed(p))), "\t".join(map(str, p)), " ".join(map(str, rest)) + "  "]


def pair_spellings(p: tuple[int, int]) -> list[str]:
    a, b = p
    return [f"{b},{a}", f" {a}\t{b} ", f"{a}, {b}"]


def fibonacci_spellings(p: tuple[int, int]) -> list[str]:
    n, k = p
    out = [f"{n},{k}", f"{n}\t{k}", f"{n} {k + 7}" if k == n else f"{n}  {k}"]  # k above n means n
    if k == max(n - 1, 0):
        out.append(f" {n} ")  # a lone heap is the start position
    return out


# game, options, every position of the table, its spelling by the definition, other spellings of it, bounds
CASES = {
    "nim": (
        "nim", dict(heaps=3, max_heap=4), list(itertools.combinations_with_replacement(range(5), 3)),
        lambda p: " ".join(map(str, p)), nim_spellings, "3 heaps of at most 4 tokens",
    ),
    "subtraction": (
        "subtraction", {"set": "1,3", "max": 30}, [(n,) for n in range(31)],
        lambda p: str(p[0]), lambda p: [f" {p[0]}", f"{p[0]}\t", f"{p[0]},"], "heaps of 0..30 tokens",
    ),
    "wythoff": (
        "wythoff", {"max": 9}, [(a, b) for b in range(10) for a in range(b + 1)],
        lambda p: f"{p[0]} {p[1]}", pair_spellings, "heaps of 0..9 tokens",
    ),
    "fibonacci-nim": (
        "fibonacci-nim", {"max": 9}, [(n, k) for n in range(10) for k in range(n + 1)],
        lambda p: f"{p[0]} {p[1]}", fibonacci_spellings, "0 <= k <= n <= 9",
    ),
}


def every_key(game) -> np.ndarray:
    return np.concatenate([game.level_keys(level, 0, game.level_size(level)) for level in range(game.max_level + 1)])


@pytest.mark.parametrize("case", sorted(CASES))
def test_every_position_is_written_and_read_back_in_any_spelling(case):
    ref, params, positions, spell, others, _ = CASES[case]
    game = make_game(ref, params)
    keys = every_key(game)
    texts = game.format_positions(keys).to_strings()
    assert sorted(texts) == sorted(spell(p) for p in positions)
    key_of = dict(zip(texts, keys.tolist()))
    for p in positions:
        text = spell(p)
        spellings = [text] + others(p)
        assert [game.parse(s) for s in spellings] == [key_of[text]] * len(spellings), spellings
        assert game.parse_many(Texts.from_strings(spellings)).tolist() == [key_of[text]] * len(spellings)


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_bad_position_is_one_line_with_the_reason_the_notation_and_the_bounds(case):
    ref, params, positions, spell, _, bounds = CASES[case]
    game = make_game(ref, params)
    top = max(max(p) for p in positions)
    too_big = " ".join([str(top + 1)] + [str(v) for v in positions[0][1:]])
    for text, why in (("3 x", "expected whole numbers"), (too_big, "outside the table")):
        expected = f"{ref}: bad position {text!r}: {why} (notation: {game.notation}; this table holds {bounds})"
        with pytest.raises(PositionError) as one:
            game.parse(text)
        assert str(one.value) == expected
        with pytest.raises(PositionError) as batch:
            game.parse_many(Texts.from_strings([spell(positions[0]), text]))
        assert str(batch.value) == expected


def test_pairs_rank_densely_by_the_larger_number_then_the_smaller():
    top = 40
    pairs = sorted(((a, b) for b in range(top + 1) for a in range(b + 1)), key=lambda p: (p[1], p[0]))
    assert [pair_key(a, b) for a, b in pairs] == list(range(pair_count(top)))
    assert [pair_key(b, a) for a, b in pairs] == list(range(pair_count(top)))  # either order
    small, large = np.array(pairs).T
    assert pair_keys(small, large).tolist() == list(range(pair_count(top)))
    assert [tuple(pair_of_key(k)) for k in range(pair_count(top))] == pairs
    assert [tuple(p) for p in pairs_of_keys(np.arange(pair_count(top), dtype=np.int64)).tolist()] == pairs
