"""The work a Dask worker does: solve one partition of one level and write it.

A task reads the lower levels it needs from the store, never from the driver,
and keeps them in a per-process cache so that each level is read once per
worker; the parts a worker solved itself it keeps instead of reading them
back. The cache belongs to one build run at a time.
"""

from __future__ import annotations

import bisect
import threading
import time
from typing import Any

import pyarrow as pa

from tablebase.build.values import write_piece
from tablebase.games import make_game
from tablebase.solve import Solver, solver_for
from tablebase.store import level_files, part_path, read_parquet, write_parquet
from tablebase.store.files import flush_to_disk

_state: dict[str, Solver] = {}
_known_below = {"level": 0}  # every level below this one is in the current solver's memory
# Rows of parts of levels this process solved itself, by level and part, kept
# until the level is taken in whole: only the other workers' parts are read back.
_own_parts: dict[int, dict[int, pa.Table]] = {}
# A worker started with several threads runs tasks side by side; the solver's
# memory of lower levels is shared, so a process solves one slice at a time.
_one_at_a_time = threading.Lock()


def _solver(run: str, game_name: str, params: dict[str, Any]) -> Solver:
    if run not in _state:
        _state.clear()  # one build at a time per worker: free the last one's memory
        _state[run] = solver_for(make_game(game_name, params))
        _known_below["level"] = 0
        _own_parts.clear()
    return _state[run]


def warm_up(run: str, game_name: str, params: dict[str, Any]) -> None:
    """Make the run's solver (loading compiled code) before the first slice needs it."""
    with _one_at_a_time:
        _solver(run, game_name, params)


def _lacking(solver: Solver, needed: range) -> list[int]:
    """The levels of ``needed`` (ascending) that the solver has not taken in.

    Asking for each lower level of each of thousands of small levels (Wythoff has
    8,193) cost seconds; levels are taken in from the bottom up, so only those
    above the first one missing need a look.
    """
    below = _known_below["level"]
    while below in solver.levels:
        below += 1
    _known_below["level"] = below
    return [lvl for lvl in needed[bisect.bisect_left(needed, below):] if lvl not in solver.levels]


def _take_in(solver: Solver, root: str, table: str, level: int) -> None:
    """Give the solver a whole lower level: the parts other workers solved from the store, its own from memory."""
    mine = _own_parts.pop(level, {})
    files = [path for path in level_files(root, table, level) if int(path.stem.split("-")[1]) not in mine]
    if files or not mine:
        solver.remember(level, read_parquet(files, solver.columns) if files else None)
    for rows in mine.values():
        solver.remember(level, rows)


def solve_slices(
    run: str,
    root: str,
    table: str,
    game_name: str,
    params: dict[str, Any],
    slices: list[tuple[int, int, int, int]],
    position_text: bool = True,
    after: list | None = None,
) -> list[dict[str, Any]]:
    """Solve each slice (level, part, start, stop) in order and write it as one Parquet file.

    Slices of one task are consecutive small levels or one partition of a large
    level; every level below them is already stored. Without ``position_text``
    the files leave out the positions' notation (the key determines it).
    ``after`` holds the records of the step below: passing them makes the
    scheduler wait for it; they are not used.
    """
    with _one_at_a_time:
        return _solve_slices(run, root, table, game_name, params, slices, position_text)


def _solve_slices(run, root, table, game_name, params, slices, position_text) -> list[dict[str, Any]]:
    solver = _solver(run, game_name, params)
    game = solver.game
    records = []
    for level, part, start, stop in slices:
        began = time.perf_counter()
        for lower in _lacking(solver, game.child_levels(level)):
            _take_in(solver, root, table, lower)
        read = time.perf_counter()
        rows = solver.solve(game.level_keys(level, start, stop), with_positions=position_text)
        # Solved here, so known here: no need to read it back.
        if start == 0 and stop == game.level_size(level):
            solver.remember(level, rows)
        else:
            _own_parts.setdefault(level, {})[part] = rows.select(solver.columns)
        solved = time.perf_counter()
        path = part_path(root, table, level, part)
        record = write_parquet(rows, path, durable=len(slices) == 1)
        # Partizan rows: the part of the values table they need (build/values.py).
        piece = write_piece(solver, rows, root, table, level, part, durable=len(slices) == 1)
        records.append(
            {"file": f"{path.parent.name}/{path.name}", "level": level, **record, "values": piece,
             "seconds": {"read": read - began, "solve": solved - read, "write": time.perf_counter() - solved}}
        )
    if len(slices) > 1:
        flush_to_disk()  # once for many small files, before the driver records them
    return records
