"""A game's moves of one position in plain Python (``moves_of``, ``spell``, ``level_of``; Chomp and Nim):
what a lookup uses so that it imports no NumPy. They must say what the definition says and what the compiled batch
functions say, position for position, and a lookup through them must read as one through the batches."""

from __future__ import annotations

import numpy as np
import pytest
from oracles import chomp_board, chomp_boards, chomp_moves, nim_moves, nim_positions

import tablebase
from tablebase.games import KEY_BITS
from tablebase.games.loops import children_of
from tablebase.games.registry import find_game

BOXES = [(1, 1), (1, 6), (6, 1), (2, 5), (3, 4), (4, 4), (5, 3)]
HEAPS = [(1, 5), (2, 4), (3, 3), (4, 2), (5, 1)]  # heaps, largest heap


def chomp(rows: int, cols: int):
    cls, _ = find_game("chomp")
    return cls(rows=rows, cols=cols)


def nim(heaps: int, top: int):
    cls, _ = find_game("nim")
    return cls(heaps=heaps, max_heap=top)


@pytest.mark.parametrize("rows, cols", BOXES)
def test_chomp_spells_and_levels_every_position_as_the_batches_do(rows, cols):
    game = chomp(rows, cols)
    keys = np.arange(1, game.key_space, dtype=np.int64)  # key 0, the empty bar, is no position
    assert [game.spell(k) for k in keys.tolist()] == game.format_positions(keys).to_strings()
    assert [game.level_of(k) for k in keys.tolist()] == game.levels_of(keys).tolist()
    assert [game.box.lengths_of(k) for k in keys.tolist()] == game.box.lengths(keys).tolist()


@pytest.mark.parametrize("rows, cols", BOXES)
def test_chomp_moves_of_one_position_are_the_bites_of_its_bar(rows, cols):
    """Against the definition (``oracles.chomp_moves``: every square but the poisoned one, bitten with all
    below and right of it) on every diagram, and against the compiled generator, move for move in order."""
    game = chomp(rows, cols)
    boards = chomp_boards(rows, cols)
    assert len(boards) == game.key_space - 1
    for board in boards:
        text = " ".join(str(n) for n in (sum(1 for r, _ in board if r == i) for i in range(rows)) if n)
        key = game.parse(text)
        moves = game.moves_of(key)
        children = {chomp_board(game.spell(child)) for _, child in moves}
        assert len(children) == len(moves) and children == set(chomp_moves(board)), text
        for code, child in moves:  # the move's name says which square is bitten
            r, c = (int(n) - 1 for n in game.move_name(code).strip("()").split(","))
            assert chomp_board(game.spell(child)) == frozenset((x, y) for x, y in board if x < r or y < c)
        _, marked, codes = children_of(game, np.array([key], dtype=np.int64))
        assert moves == list(zip(codes.tolist(), (marked & KEY_BITS).tolist())), text


@pytest.mark.parametrize("heaps, top", HEAPS)
def test_nim_spells_and_levels_every_position_as_the_batches_do(heaps, top):
    game = nim(heaps, top)
    keys = np.arange(game.key_space, dtype=np.int64)
    assert [game.spell(k) for k in keys.tolist()] == game.format_positions(keys).to_strings()
    assert [game.level_of(k) for k in keys.tolist()] == game.levels_of(keys).tolist()


@pytest.mark.parametrize("heaps, top", HEAPS)
def test_nim_moves_of_one_position_lower_one_heap(heaps, top):
    """Against the definition (``oracles.nim_moves``: any heap lowered to any smaller size) on every
    position, and against the compiled generator, move for move in order."""
    game = nim(heaps, top)
    for sizes in nim_positions(heaps, top):
        key = game.parse(" ".join(map(str, sizes)))
        moves = game.moves_of(key)
        children = [tuple(int(n) for n in game.spell(child).split()) for _, child in moves]
        assert len(set(children)) == len(children) and set(children) == set(nim_moves(sizes)), sizes
        for (code, _), child in zip(moves, children):  # the move's name says which heap is left with what
            h, v = map(int, game.move_name(code).split("->"))
            assert sorted(child) != sorted(sizes) and sorted(list(child) + [h]) == sorted(list(sizes) + [v])
        _, marked, codes = children_of(game, np.array([key], dtype=np.int64))
        assert moves == list(zip(codes.tolist(), (marked & KEY_BITS).tolist())), sizes


@pytest.fixture(scope="module")
def chomp_table(built):
    return built("chomp", rows=5, cols=4)


@pytest.fixture(scope="module")
def nim_table(built):
    return built("nim", heaps=3, max_heap=5)


@pytest.mark.parametrize("which", ["chomp_table", "nim_table"])
def test_a_lookup_through_plain_moves_reads_as_one_through_the_batches(which, request, monkeypatch):
    root, table = request.getfixturevalue(which)
    with tablebase.open(root) as tb:
        game = tb._game(table)
        texts = game.format_positions(np.arange(1, game.key_space, dtype=np.int64)).to_strings()
        plain = [tb.lookup(table, t) for t in texts]
        monkeypatch.setattr(type(game), "moves_of", lambda self, key: None)
        batched = [tb.lookup(table, t) for t in texts]
    assert plain == batched
    assert sum(len(found["moves"]) for found in plain) > len(texts)  # they list moves
