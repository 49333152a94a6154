"""The work a Dask worker does: solve one partition of one level and write it.

A task reads the lower levels it needs from the store, never from the driver,
and keeps them in a per-process cache so that each level is read once per
worker. The cache belongs to one build run at a time.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np
import pyarrow.compute as pc

from tablebase.games import Game, make_game
from tablebase.solve.impartial import KnownValues, solve
from tablebase.solve.rows import impartial_rows
from tablebase.store import level_files, part_path, read_parquet, write_parquet

_state: dict[str, tuple[Game, KnownValues]] = {}


def _known(run: str, game_name: str, params: dict[str, Any]) -> tuple[Game, KnownValues]:
    if run not in _state:
        _state.clear()  # one build at a time per worker: free the last one's memory
        game = make_game(game_name, params)
        _state[run] = (game, KnownValues(game))
    return _state[run]


def _load_level(root: str, table: str, level: int, game: Game, known: KnownValues) -> None:
    files = level_files(root, table, level)
    if not files:
        known.levels.add(level)
        return
    columns = ["key", "grundy", "remoteness"] + (["misere_outcome"] if game.misere else [])
    data = read_parquet(files, columns)
    misere = (
        pc.equal(data["misere_outcome"].cast("string"), "N").to_numpy(zero_copy_only=False)
        if game.misere
        else np.empty(0, dtype=np.bool_)
    )
    known.add(
        data["key"].to_numpy(),
        data["grundy"].to_numpy(),
        data["remoteness"].to_numpy(),
        misere,
    )
    known.levels.add(level)


def solve_partition(
    run: str,
    root: str,
    table: str,
    game_name: str,
    params: dict[str, Any],
    level: int,
    part: int,
    start: int,
    stop: int,
    after: Any = None,
) -> dict[str, Any]:
    """Solve positions start..stop-1 of a level and write them as one Parquet file.

    ``after`` is the previous level's barrier: Dask runs this task only once it is done.
    """
    began = time.perf_counter()
    game, known = _known(run, game_name, params)
    for lower in game.child_levels(level):
        if lower not in known.levels:
            _load_level(root, table, lower, game, known)
    keys = game.level_keys(level, start, stop)
    rows = impartial_rows(game, keys, solve(game, keys, known))
    path = part_path(root, table, level, part)
    record = write_parquet(rows, path)
    return {
        "file": f"{path.parent.name}/{path.name}",
        "level": level,
        "part": part,
        **record,
        "seconds": time.perf_counter() - began,
    }


def barrier(*records: Any) -> int:
    """Done when every partition of a level is: the next level's tasks wait on it."""
    return len(records)
