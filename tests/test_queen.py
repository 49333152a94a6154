"""The queen-move solver (Wythoff) against the generic dense solver, the plain oracle and the store.

The generic path is forced by making ImpartialSolver directly: it enumerates
every move with the game's own move generator, so equal rows (every column,
and the same Parquet bytes) mean equal move codes and tie-breaks too.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest
from helpers import (
    assert_slices_and_stored_levels_alike,
    levels_solved,
    parquet_sha,
    plain,
)
from oracles import Oracle, wythoff_moves, wythoff_p_positions

from tablebase.build.plan import level_sizes, plan, schedule
from tablebase.build.tasks import solve_slices
from tablebase.builders import builder_of
from tablebase.errors import TablebaseError
from tablebase.games import make_game
from tablebase.solve.impartial import ImpartialSolver
from tablebase.solve.names import move_names
from tablebase.solve.queen import QueenSolver
from tablebase.store import Manifest, read_level
from tablebase.store.places import location_of


def test_wythoff_gets_the_queen_solver_and_other_games_do_not():
    assert isinstance(builder_of(make_game("wythoff", {"max": 5})).solver(), QueenSolver)
    assert isinstance(builder_of(make_game("nim", {"heaps": 2, "max_heap": 5})).solver(), ImpartialSolver)
    assert not isinstance(builder_of(make_game("chomp", {"rows": 3, "cols": 3})).solver(), QueenSolver)


@pytest.mark.parametrize("top", range(81))
def test_rows_equal_the_generic_dense_solver(top):
    game = make_game("wythoff", {"max": top})
    generic = levels_solved(ImpartialSolver(game), game)
    queen = levels_solved(QueenSolver(game), game)
    assert len(generic) == len(queen) == 2 * top + 1
    for level, (g, q) in enumerate(zip(generic, queen)):
        assert q.schema == g.schema, level
        for column in g.column_names:
            assert q.column(column).equals(g.column(column)), (top, level, column)


def test_files_are_byte_identical_to_the_generic_solvers(tmp_path):
    game = make_game("wythoff", {"max": 40})
    generic = levels_solved(ImpartialSolver(game), game)
    queen = levels_solved(QueenSolver(game), game)
    for level in (0, 1, 7, 40, 41, 79, 80):
        assert parquet_sha(queen[level], tmp_path / f"q{level}.parquet") == parquet_sha(
            generic[level], tmp_path / f"g{level}.parquet"
        ), level


def test_slices_of_levels_and_levels_read_back_from_parquet(tmp_path):
    """Partial slices give the same rows; a solver fed rows read back from files solves on alike."""
    top = 45
    game = make_game("wythoff", {"max": top})
    generic = levels_solved(ImpartialSolver(game), game)
    assert_slices_and_stored_levels_alike(QueenSolver, game, generic, pieces=3, cut=50, folder=tmp_path)


def test_a_level_below_one_taken_in_is_refused():
    game = make_game("wythoff", {"max": 6})
    solver = QueenSolver(game)
    for level in range(5):
        solver.remember(level, solver.solve(game.level_keys(level, 0, game.level_size(level))))
    with pytest.raises(RuntimeError, match="before any level above"):
        solver.solve(game.level_keys(3, 0, game.level_size(3)))


def test_rows_of_another_level_are_refused():
    game = make_game("wythoff", {"max": 6})
    solver = QueenSolver(game)
    rows = solver.solve(game.level_keys(4, 0, game.level_size(4)))
    with pytest.raises(TablebaseError, match="level 5"):
        solver.remember(5, rows)


def test_every_figure_against_the_plain_recursive_oracle():
    top = 24
    game = make_game("wythoff", {"max": top})
    oracle = Oracle(wythoff_moves)
    for rows in levels_solved(QueenSolver(game), game):
        for row in rows.to_pylist():
            p = tuple(int(t) for t in row["position"].split())
            assert row["grundy"] == oracle.grundy(p), row
            assert row["outcome"] == ("N" if oracle.grundy(p) else "P"), row
            assert row["remoteness"] == oracle.remoteness(p), row
            if p == (0, 0):
                assert row["best_move"] is None
                continue
            which, d = row["best_move"].split("-")
            a, b = p[0] - int(d) * ("a" in which), p[1] - int(d) * ("b" in which)
            assert tuple(sorted((a, b))) in oracle.optimal_children(p), row


def test_p_positions_are_the_golden_pairs_at_a_thousand():
    top = 1000
    game = make_game("wythoff", {"max": top})
    solver = QueenSolver(game)
    lost = set()
    for level in range(game.max_level + 1):
        keys = game.level_keys(level, 0, game.level_size(level))
        rows = solver.solve(keys)
        solver.remember(level, rows)
        lost |= {p for p, g in zip(rows["position"].to_pylist(), rows["grundy"].to_pylist()) if g == 0}
    assert lost == wythoff_p_positions(top)


def _planned(root, game, partition_rows):
    """A manifest with the plan of a build, as the driver saves it before any task runs."""
    manifest = Manifest(table=game.table, game="wythoff", kind=game.kind, params=game.params, version="test",
                        partition_rows=partition_rows, plan=plan(level_sizes(game), partition_rows))
    manifest.save(root)
    return manifest


def test_a_worker_that_did_not_solve_the_lower_levels_reads_them_from_the_store(place):
    """Through the task code: a second run (a fresh solver) reads levels another run wrote, from runs of small
    levels and from parts of large ones; on an object store, by their plain names in a listing, no record of
    them having reached it."""
    top = 30
    game = make_game("wythoff", {"max": top})
    table = game.table
    generic = levels_solved(ImpartialSolver(game), game)
    location = location_of(place.url)
    manifest = _planned(location, game, partition_rows=40)
    layout = manifest.layout()
    assert any(len(p.levels) > 1 for p in layout.pieces) and any(p.parts > 1 for p in layout.pieces)
    tasks = [task for step in schedule(manifest, layout) for task in step]
    half = next(i for i, task in enumerate(tasks) if task[0][1] >= 33)
    first = solve_slices("first", location, table, "wythoff", {"max": top}, [s for t in tasks[:half] for s in t])
    records = solve_slices("second", location, table, "wythoff", {"max": top},
                           [s for t in tasks[half:] for s in t])
    solved = {lvl for r in records for lvl in layout.named(r["file"]).levels}
    assert sorted(solved) == list(range(33, game.max_level + 1))
    written = {r["file"]: r for r in first + records}
    for level in range(game.max_level + 1):
        stored = read_level(location, table, layout, level, written).drop_columns(["level"])
        assert stored.equals(plain(generic[level])), level


def test_a_failed_write_fails_the_task(tmp_path):
    game = make_game("wythoff", {"max": 3})
    manifest = _planned(tmp_path, game, partition_rows=40)
    tasks = [task for step in schedule(manifest, manifest.layout()) for task in step]
    (tmp_path / game.table / "rows").write_text("")  # where the folder of rows would be
    with pytest.raises(OSError):
        solve_slices("broken", str(tmp_path), game.table, "wythoff", {"max": 3}, tasks[0])


def test_move_names_are_the_games_own():
    game = make_game("wythoff", {"max": 300})
    codes = np.unique(np.random.default_rng(5).integers(0, 3 * 301, 200))
    for batch in (codes, np.concatenate([[-1], codes]), codes[:3], np.array([-1]), codes):
        expected = [game.move_name(int(c)) if c >= 0 else "" for c in batch]
        assert move_names(game, batch).equals(pa.array(expected, type=pa.string()))
    assert move_names(game, np.empty(0, dtype=np.int64)).equals(pa.array([]))


def test_move_names_of_codes_too_large_for_the_table(monkeypatch):
    from tablebase.solve import names

    monkeypatch.setattr(names, "DENSE_CODES", 10)
    game = make_game("wythoff", {"max": 300})
    codes = np.array([-1, 3, 20, 700])
    assert names.move_names(game, codes).to_pylist() == ["", "a-3", "a-20", "ab-98"]
