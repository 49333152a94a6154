"""The diagram-bite solver (Chomp) against the generic dense solver and the plain oracle.

The generic path is forced by making ImpartialSolver directly: it takes every
move from Chomp's own move generator, so equal rows (every column, and the
same Parquet bytes) mean equal move codes and tie-breaks too.
"""

from __future__ import annotations

import numpy as np
import pytest
from helpers import (
    assert_slices_and_stored_levels_alike,
    levels_solved,
    parquet_sha,
)
from oracles import Oracle, chomp_board, chomp_moves

from tablebase.builders import builder_of
from tablebase.errors import TablebaseError
from tablebase.games import make_game
from tablebase.solve.bites import BiteSolver
from tablebase.solve.impartial import ImpartialSolver

BOXES = [(1, 1), (1, 7), (7, 1), (2, 2), (3, 5), (5, 3), (4, 4), (2, 12), (6, 7), (8, 8)]


def test_chomp_gets_the_bite_solver_and_other_games_do_not():
    assert isinstance(builder_of(make_game("chomp", {"rows": 3, "cols": 4})).solver(), BiteSolver)
    assert not isinstance(builder_of(make_game("nim", {"heaps": 3, "max_heap": 4})).solver(), BiteSolver)
    with pytest.raises(TablebaseError, match="bites"):
        BiteSolver(make_game("nim", {"heaps": 3, "max_heap": 4}))


@pytest.mark.parametrize("rows,cols", BOXES)
def test_rows_equal_the_generic_dense_solver(rows, cols):
    game = make_game("chomp", {"rows": rows, "cols": cols})
    generic = levels_solved(ImpartialSolver(game), game)
    bites = levels_solved(BiteSolver(game), game)
    assert len(generic) == len(bites) == rows * cols + 1
    for level, (g, b) in enumerate(zip(generic, bites)):
        assert b.schema == g.schema, level
        for column in g.column_names:
            assert b.column(column).equals(g.column(column)), (rows, cols, level, column)



@pytest.mark.parametrize("rows,cols", [(1, 7), (3, 5), (6, 7), (8, 8)])
@pytest.mark.parametrize("compact", [False, True])
def test_parts_found_and_taken_in_as_they_are_solved_are_the_rows_of_their_keys(rows, cols, compact):
    """``solve_part`` finds a part's keys, solves them and writes their figures into the values held, in one
    pass: the same rows as solving the keys ``level_keys`` gives, and the same values held after."""
    game = make_game("chomp", {"rows": rows, "cols": cols})
    by_keys, by_parts = BiteSolver(game), BiteSolver(game)
    for level in range(game.max_level + 1):
        size = game.level_size(level)
        cuts = sorted({0, size // 3, size // 2, size})
        for a, b in zip(cuts, cuts[1:]):
            want = by_keys.solve(game.level_keys(level, a, b), compact)
            by_keys.remember(level, want.select(by_keys.columns), whole=False)
            got = by_parts.solve_part(level, a, b, compact)
            assert got.equals(want), (level, a, b)
        by_keys.remember(level, None)
        by_parts.remember(level, None)
    for name in ("grundy", "remoteness"):
        assert np.array_equal(getattr(by_parts.known, name), getattr(by_keys.known, name)), name


def test_keys_of_a_level_in_any_order_get_the_rows_of_the_whole_level():
    """A level's keys are solved (and spelt) in rank order by stepping from diagram to
    diagram; keys shuffled, or with gaps, must get the same figures and notation."""
    game = make_game("chomp", {"rows": 5, "cols": 6})
    # Keys are places in the lexicographic order of the row lengths (see the spelling tests).
    diagram_text = [" ".join(str(v) for v in p if v) for p in sorted(p + (0,) * (5 - len(p)) for p in _diagrams(5, 6))]
    solver = BiteSolver(game)
    for level, rows in enumerate(levels_solved(solver, game)):
        keys = rows.column("key").to_numpy()
        order = np.random.default_rng(level).permutation(len(keys))
        for picked in (order, np.sort(order[: max(1, len(order) // 3)])):
            again = solver.solve_arrays(keys[picked], spell=True)
            for column in ("grundy", "remoteness"):
                assert again[column].tolist() == rows.column(column).to_numpy()[picked].tolist(), (level, column)
            assert again["texts"].to_strings() == [diagram_text[k] for k in keys[picked]], level

def test_values_of_128_and_more_and_ties_with_planted_values():
    """Values planted below the top levels of a 12x12 box reach past the two
    register masks (real Chomp values do so only in boxes too large for a test),
    and remoteness ties often; each mex is checked against its definition over
    the game's own move list."""
    game = make_game("chomp", {"rows": 12, "cols": 12})
    keys = np.concatenate([game.level_keys(level, 0, game.level_size(level)) for level in (140, 143, 144)])
    offsets, children, _ = game.children(keys)
    rng = np.random.default_rng(11)
    grundy = rng.integers(0, 40, game.key_space).astype(np.uint8)
    for t in range(len(keys)):  # the full box last: its 143 children take 0..143 but 130
        values = np.delete(np.arange(144), 130)
        grundy[children[offsets[t] : offsets[t + 1]]] = rng.permutation(values)[: offsets[t + 1] - offsets[t]]
    remoteness = rng.integers(0, 3, game.key_space).astype(np.uint8)
    solved = []
    for solver in (ImpartialSolver(game), BiteSolver(game)):
        solver.known.grundy[:] = grundy
        solver.known.remoteness[:] = remoteness
        solved.append(solver.solve(keys))
    generic, bites = solved
    assert bites.equals(generic)
    found = bites["grundy"].to_pylist()
    for t in range(len(keys)):
        seen = set(grundy[children[offsets[t] : offsets[t + 1]]].tolist())
        assert found[t] == next(v for v in range(len(seen) + 1) if v not in seen)
    assert found[-1] == 130


def test_files_are_byte_identical_to_the_generic_solvers(tmp_path):
    game = make_game("chomp", {"rows": 6, "cols": 6})
    generic = levels_solved(ImpartialSolver(game), game)
    bites = levels_solved(BiteSolver(game), game)
    for level in (1, 2, 9, 18, 30, 36):
        assert parquet_sha(bites[level], tmp_path / f"b{level}.parquet") == parquet_sha(
            generic[level], tmp_path / f"g{level}.parquet"
        ), level


def test_slices_of_levels_and_levels_read_back_from_parquet(tmp_path):
    game = make_game("chomp", {"rows": 5, "cols": 7})
    generic = levels_solved(ImpartialSolver(game), game)
    assert_slices_and_stored_levels_alike(BiteSolver, game, generic, pieces=4, cut=20, folder=tmp_path)


def test_every_figure_against_the_plain_recursive_oracle():
    game = make_game("chomp", {"rows": 4, "cols": 5})
    oracle = Oracle(chomp_moves)
    for rows in levels_solved(BiteSolver(game), game):
        for row in rows.to_pylist():
            board = chomp_board(row["position"])
            assert row["grundy"] == oracle.grundy(board), row
            assert row["remoteness"] == oracle.remoteness(board), row
            if row["best_move"] is None:
                assert chomp_moves(board) == [], row
                continue
            r, c = (int(t) - 1 for t in row["best_move"].strip("()").split(","))
            child = frozenset((i, j) for i, j in board if i < r or j < c)
            assert child in oracle.optimal_children(board), row


def test_keys_outside_the_table_are_refused():
    game = make_game("chomp", {"rows": 3, "cols": 3})
    with pytest.raises(TablebaseError, match="outside"):
        BiteSolver(game).solve(np.array([game.key_space], dtype=np.int64))


def test_one_byte_holds_every_value_of_a_16x16_box():
    """The full box has rows x cols - 1 moves (the poisoned square is never bitten) and
    every game ends at level 1, so Grundy values and remoteness stay below 256."""
    for rows, cols in [(3, 4), (16, 16)]:
        game = make_game("chomp", {"rows": rows, "cols": cols})
        full = game.level_keys(game.max_level, 0, 1)
        offsets, _, _ = game.children(full)
        assert offsets[-1] == game.max_moves == rows * cols - 1
    assert make_game("chomp", {"rows": 16, "cols": 16}).value_dtype == np.uint8
    assert make_game("chomp", {"rows": 16, "cols": 17}).value_dtype == np.uint16


@pytest.mark.parametrize("rows,cols", [(1, 1), (3, 4), (5, 5), (2, 12), (4, 11)])
def test_every_diagram_is_spelt_once(rows, cols):
    """The texts of all keys are exactly the diagrams, found by enumerating sequences (no ranks)."""
    game = make_game("chomp", {"rows": rows, "cols": cols})
    texts = game.format_positions(np.arange(1, game.key_space)).to_strings()
    assert sorted(texts) == sorted(" ".join(map(str, p)) for p in _diagrams(rows, cols) if p)


@pytest.mark.parametrize("rows,cols", [(12, 12), (5, 30), (30, 3), (16, 16)])
def test_positions_are_spelt_from_their_keys(rows, cols):
    """Random keys of large boxes: row lengths, empty rows left out, that parse back to the key."""
    game = make_game("chomp", {"rows": rows, "cols": cols})
    keys = np.unique(np.random.default_rng(rows * 100 + cols).integers(1, game.key_space, 3000))
    for key, text in zip(keys.tolist(), game.format_positions(keys).to_strings()):
        lengths = [int(t) for t in text.split()]
        assert lengths == sorted(lengths, reverse=True) and 0 < lengths[-1] and lengths[0] <= cols
        assert len(lengths) <= rows and game.parse(text) == key



@pytest.mark.parametrize("rows,cols", [(1, 6), (4, 5), (5, 5), (3, 9)])
def test_keys_are_ranks_in_lexicographic_order_and_spelt_level_by_level(rows, cols):
    """A diagram's key is its place among all diagrams in the lexicographic order of
    their row lengths; the keys of a level (a whole level, a part of one, or shuffled)
    spell the diagrams of that many squares."""
    everything = sorted(p + (0,) * (rows - len(p)) for p in _diagrams(rows, cols))
    key_of = {p: k for k, p in enumerate(everything)}
    game = make_game("chomp", {"rows": rows, "cols": cols})

    def text(p):
        return " ".join(str(v) for v in p if v)

    for level in range(1, rows * cols + 1):
        diagrams = [p for p in everything if sum(p) == level]
        assert game.level_size(level) == len(diagrams)
        keys = game.level_keys(level, 0, len(diagrams))
        assert keys.tolist() == [key_of[p] for p in diagrams]
        assert game.format_positions(keys).to_strings() == [text(p) for p in diagrams]
        middle = slice(len(diagrams) // 3, len(diagrams) // 3 + 5)
        part = game.level_keys(level, middle.start, min(middle.stop, len(diagrams)))
        assert game.format_positions(part).to_strings() == [text(p) for p in diagrams[middle]]
    shuffled = np.random.default_rng(rows * cols).permutation(np.arange(1, len(everything)))
    assert game.format_positions(shuffled).to_strings() == [text(everything[k]) for k in shuffled]

def _diagrams(rows: int, cols: int):
    """Non-increasing sequences of at most ``rows`` positive parts, each at most ``cols``."""
    yield ()
    if rows == 0:
        return
    for first in range(1, cols + 1):
        for rest in _diagrams(rows - 1, first):
            yield (first, *rest)
