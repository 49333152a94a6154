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


def solve_slices(
    run: str,
    root: str,
    table: str,
    game_name: str,
    params: dict[str, Any],
    slices: list[tuple[int, int, int, int]],
    after: Any = None,
) -> list[dict[str, Any]]:
    """Solve each slice (level, part, start, stop) in order and write it as one Parquet file.

    Slices of one task are consecutive small levels or one partition of a large
    level. ``after`` is the previous step's barrier: Dask runs this task only
    once it is done.
    """
    game, known = _known(run, game_name, params)
    records = []
    for level, part, start, stop in slices:
        began = time.perf_counter()
        for lower in game.child_levels(level):
            if lower not in known.levels:
                _load_level(root, table, lower, game, known)
        keys = game.level_keys(level, start, stop)
        solved = solve(game, keys, known)
        if start == 0 and stop == game.level_size(level):
            # A whole level solved here is known here: no need to read it back.
            known.add(keys, solved["grundy"], solved["remoteness"], solved.get("misere_win"))
            known.levels.add(level)
        path = part_path(root, table, level, part)
        record = write_parquet(impartial_rows(game, keys, solved), path)
        records.append(
            {"file": f"{path.parent.name}/{path.name}", "level": level, **record,
             "seconds": round(time.perf_counter() - began, 3)}
        )
    return records


def barrier(*records: Any) -> int:
    """Done when every task of a step is: the next step's tasks wait on it."""
    return len(records)
