"""The work a Dask worker does: solve one partition of one level and write it.

A task reads the lower levels it needs from the store, never from the driver,
and keeps them in a per-process solver so that each level is read once per
worker. Parts a worker solved itself it keeps instead of reading them back;
workers on one machine share the values of dense games (build/shared.py), so
there a part solved by any of them is read by none. The solver belongs to one
build run at a time: it is the worker process's state between tasks.
"""

from __future__ import annotations

import bisect
import sys
import threading
import time
from typing import Any

from tablebase.build import shared
from tablebase.build.listing import stored_view
from tablebase.games import load_game
from tablebase.kinds import Artifact, kind_of
from tablebase.solve import Solver
from tablebase.store import Manifest, flush_to_disk, level_parts, part_name, part_path, read_parquet, write_parquet

_state: dict[str, tuple[Solver, shared.Holding, tuple[Artifact, ...]]] = {}
_known_below = {"level": 0}  # every level below this one is in the current solver's memory
# A worker started with several threads runs tasks side by side; the solver's
# memory of lower levels is shared, so a process solves one slice at a time.
_one_at_a_time = threading.Lock()
# A task waits for the step below through the scheduler, which hears of it
# from the worker's event loop: with the solving thread holding the GIL, that
# loop would wait up to Python's default 5 ms for each turn.
GIL_SWITCH_SECONDS = 0.0002


def _solver(run: str, root: str, table: str, ref: str,
            params: dict[str, Any]) -> tuple[Solver, shared.Holding, tuple[Artifact, ...]]:
    if run not in _state:
        _state.clear()  # one build at a time per worker: free the last one's memory
        sys.setswitchinterval(GIL_SWITCH_SECONDS)
        game, _ = load_game(ref, params)
        kind = kind_of(game)
        listing = Manifest.load(root, table).listing if kind.needs_listing(game) else {}
        view = stored_view(game, root, table, listing)
        solver = kind.solver(view, lambda size: shared.folder_for(run, size))
        _state[run] = solver, shared.Holding(solver.shared), kind.artifacts()
        _known_below["level"] = 0
    return _state[run]


def warm_up(run: str, root: str, table: str, ref: str, params: dict[str, Any]) -> None:
    """Make the run's solver (loading compiled code) before the first slice needs it."""
    with _one_at_a_time:
        _solver(run, root, table, ref, params)


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


def _take_in(solver: Solver, held: shared.Holding, root: str, table: str, level: int) -> None:
    """Give the solver a whole lower level, reading from the store only the parts it does not hold."""
    parts = [(part, path) for part, path in level_parts(root, table, level) if not held.has(level, part)]
    solver.remember(level, read_parquet([path for _, path in parts], solver.columns) if parts else None)
    for part, _ in parts:
        held.mark(level, part)


def solve_slices(
    run: str,
    root: str,
    table: str,
    ref: str,
    params: dict[str, Any],
    slices: list[tuple[int, int, int, int]],
    compact: bool = False,
    after: list | None = None,
) -> list[dict[str, Any]]:
    """Solve each slice (level, part, start, stop) in order and write it as one Parquet file.

    Slices of one task are consecutive small levels or a worker's share of the
    partitions of a large level; every level below them is already stored.
    ``compact`` files leave out the positions' notation (the key determines it).
    ``after`` holds the records of the step below: passing them makes the
    scheduler wait for it; they are not used.
    """
    with _one_at_a_time:
        return _solve_slices(run, root, table, ref, params, slices, compact)


def _solve_slices(run, root, table, ref, params, slices, compact) -> list[dict[str, Any]]:
    solver, held, artifacts = _solver(run, root, table, ref, params)
    game = solver.game
    records = []
    for level, part, start, stop in slices:
        began = time.perf_counter()
        for lower in _lacking(solver, game.child_levels(level)):
            _take_in(solver, held, root, table, lower)
        read = time.perf_counter()
        rows = solver.solve(game.level_keys(level, start, stop), compact=compact)
        # Solved here, so known here (and on a shared machine, to its other workers):
        # no need to read it back.
        solver.remember(level, rows.select(solver.columns), whole=start == 0 and stop == game.level_size(level))
        held.mark(level, part)
        solved = time.perf_counter()
        path = part_path(root, table, level, part)
        record = write_parquet(rows, path, durable=len(slices) == 1)
        # Files beside the rows, made from them (a partizan table's values table).
        pieces = [a.piece(solver, rows, root, table, level, part, len(slices) == 1) for a in artifacts]
        records.append(
            {"file": part_name(level, part), "level": level, **record, "pieces": pieces,
             "seconds": {"read": read - began, "solve": solved - read, "write": time.perf_counter() - solved}}
        )
    if len(slices) > 1:
        flush_to_disk()  # once for many small files, before the driver records them
    return records
