"""Point lookups: a position's stored row and the rows of all its children."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from typing import Any, Callable

import numpy as np
import pyarrow as pa

from tablebase.errors import PositionError, StoreError
from tablebase.games import Game
from tablebase.store import Manifest, level_files, read_parquet

IDENTITY = ("key", "position")


def rows_by_key(root: Path, table: str, manifest: Manifest, level: int, keys: list[int]) -> dict[int, dict]:
    """Stored rows of some keys of one level (row-group statistics skip most of the file)."""
    if level not in manifest.levels_done:
        raise StoreError(f"level {level} of table {table} is not built yet; finish the build first")
    files = level_files(root, table, level)
    data = read_parquet(files, filters=[("key", "in", pa.array(keys, pa.int64()))])
    return {row["key"]: row for row in data.to_pylist()}


Fetch = Callable[[np.ndarray], dict[int, dict]]  # keys (of any levels) -> stored rows by key


def rows_from_files(root: Path, table: str, manifest: Manifest, game: Game) -> Fetch:
    """Fetch rows straight from the levels' files, one read per level."""

    def fetch(keys: np.ndarray) -> dict[int, dict]:
        by_level: dict[int, list[int]] = defaultdict(list)
        for key in keys.tolist():
            by_level[game.level_of(key)].append(key)
        rows: dict[int, dict] = {}
        for level, some in by_level.items():
            rows.update(rows_by_key(root, table, manifest, level, sorted(set(some))))
        return rows

    return fetch


def lookup_position(
    root: Path, table: str, manifest: Manifest, game: Game, text: str, fetch: Fetch | None = None
) -> dict[str, Any]:
    """The row of a position and every move with its child's row.

    ``fetch`` reads stored rows; by default straight from the levels' files.
    """
    if game.kind == "partizan":
        from tablebase.query.partizan import lookup_partizan

        return lookup_partizan(root, table, manifest, game, text)
    if fetch is None:
        fetch = rows_from_files(root, table, manifest, game)
    key = game.parse(text)
    level = game.level_of(key)
    found = fetch(np.array([key], dtype=np.int64)).get(key)
    if found is None:
        raise PositionError(f"{table}: position {text!r} is not stored (this table holds {game.bounds})")
    result: dict[str, Any] = {"table": table, "position": found["position"], "key": key, "level": level}
    result.update({f: v for f, v in found.items() if f not in IDENTITY})
    offsets, child_keys, moves = game.children(np.array([key]))
    rows = fetch(child_keys)
    listed = []
    for child, move in zip(child_keys.tolist(), moves.tolist()):
        row = rows[child]
        entry = {"move": game.move_name(move), "position": row["position"], "key": child}
        entry.update({f: v for f, v in row.items() if f not in IDENTITY and not f.startswith("best_")})
        listed.append((move, entry))
    if "remoteness" in result:
        # Best first, as the solver chooses: moves to lost positions, quickest
        # win first; then the longest defences; ties by move code.
        listed.sort(
            key=lambda m: (
                m[1]["outcome"] != "P",
                m[1]["remoteness"] if m[1]["outcome"] == "P" else -m[1]["remoteness"],
                m[0],
            )
        )
    result["moves"] = [entry for _, entry in listed]
    return result
