"""Reading a built table: a position's row with every move's figures.

Impartial and scored lookups are the same walk (the row, then each move's
child row), differing only in how moves are ordered best first; partizan
lookups are their own (``partizan.py``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from tablebase.errors import PositionError
from tablebase.games import AGAIN, KEY_BITS
from tablebase.kinds.base import StoredTable
from tablebase.solve.kernels import children_of

IDENTITY = ("key", "position")
Listed = list[tuple[int, dict[str, Any]]]  # (move code, the move with its child's figures)


def row_with_moves(table: StoredTable, text: str, order: Callable[[Listed], Listed]) -> dict[str, Any]:
    """A position's stored row and every move with its child's stored figures, in ``order``."""
    game, index = table.game, table.index()
    key = game.parse(text)
    rows = index.rows(np.array([key], dtype=np.int64)).to_pylist()
    if rows[0].get("level") is None:
        raise PositionError(f"{table.name}: position {text!r} is not stored (this table holds {game.bounds})")
    found = rows[0]
    result: dict[str, Any] = {"table": table.name, "position": found["position"], "key": key,
                              "level": found["level"]}
    result.update({f: v for f, v in found.items() if f not in (*IDENTITY, "level")})
    _, marked, codes = children_of(game, np.array([key], dtype=np.int64))
    child_keys = marked & KEY_BITS  # a scored game's extra turn is marked on its child's key
    listed = []
    for code, row, again in zip(codes.tolist(), index.rows(child_keys).to_pylist(), (marked >= AGAIN).tolist()):
        entry = {"move": game.move_name(code), "position": row["position"], "key": row["key"]}
        if again:  # the same player moves again: the figures that follow are the mover's own
            entry["again"] = True
        entry.update({f: v for f, v in row.items() if f not in IDENTITY and not f.startswith("best_")})
        listed.append((code, entry))
    result["moves"] = [entry for _, entry in order(listed)]
    return result
