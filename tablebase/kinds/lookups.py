"""Reading a built table: a position's row with every move's figures.

Impartial and scored lookups are the same walk (the row, then each move's
child row), differing only in how moves are ordered best first; partizan
lookups are their own (``partizan.py``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tablebase.errors import PositionError
from tablebase.games import AGAIN, KEY_BITS, ImpartialForm, ScoredForm
from tablebase.games.loops import children_of
from tablebase.kinds.kind import StoredTable
from tablebase.lazy import np

IDENTITY = ("key", "position")
Listed = list[tuple[int, dict[str, Any]]]  # (move code, the move with its child's figures)


def row_with_moves(table: StoredTable, text: str, order: Callable[[Listed], Listed]) -> dict[str, Any]:
    """A position's stored row and every move with its child's stored figures, in ``order``.

    Row by row from the index (``row``), not as a batch of Arrow rows: a lookup reads a position and its
    moves, a few hundred rows at most, and a program that only looks up imports no Arrow.
    """
    game, index = table.keyed, table.rows()
    key, level = game.locate(text)
    found = index.row(key, level)
    if found is None:
        raise PositionError(f"{table.name}: position {text!r} is not stored (this table holds {game.bounds})")
    # A table of one position an orbit holds the figures of the position's representative, which are its own;
    # its moves are its own too, as asked, each child read through its representative.
    position, moves = game.moves_as_asked(text) if table.kind.symmetry else _moves(game, key)
    result: dict[str, Any] = {"table": table.name, "position": position, "key": key, "level": found["level"]}
    result.update({f: v for f, v in found.items() if f not in (*IDENTITY, "level")})
    unknown = {f: None for f in found if f not in IDENTITY and not f.startswith("best_")}  # a child not stored
    listed = []
    for code, marked, position, level in moves:
        child = marked & KEY_BITS  # a scored game's extra turn is marked on its child's key
        entry = {"move": game.move_name(code), "position": position, "key": child}
        if marked >= AGAIN:  # the same player moves again: the figures that follow are the mover's own
            entry["again"] = True
        row = index.row(child, level) or unknown
        entry.update({f: v for f, v in row.items() if f not in IDENTITY and not f.startswith("best_")})
        listed.append((code, entry))
    ordered = [entry for _, entry in order(listed)]
    if "best_move" in getattr(index, "by_children", ()):  # the index leaves it to the children: the first of them
        result["best_move"] = ordered[0]["move"] if ordered else None
    if table.kind.symmetry and position != game.spell(key):  # the stored best moves are the representative's
        result.update(_best_as_asked(game, key, found, ordered))
    result["moves"] = ordered
    return result


def _best_as_asked(game: Any, key: int, found: dict[str, Any], ordered: list[dict[str, Any]]) -> dict[str, Any]:
    """A position's best moves in its own orientation, where the table holds its representative's: the first
    move in the kind's order for ``best_move``; for another best move (a score's, a count of passes'), the
    first of the position's moves whose child has the stored move's child as its representative."""
    best: dict[str, Any] = {"best_move": ordered[0]["move"] if ordered else None}
    others = [f for f in found if f.startswith("best_") and f != "best_move" and found[f] is not None]
    if others:
        stored = {game.move_name(code): child for code, child, _, _ in _moves(game, key)[1]}
        for figure in others:
            child = stored.get(found[figure])
            best[figure] = next((m["move"] for m in ordered if m["key"] == child & KEY_BITS), None)
    return best


def _moves(game: ImpartialForm | ScoredForm, key: int) -> tuple[str, list[tuple[int, int, str, int]]]:
    """A position's notation and its moves, each (code, child's key as marked, child's notation, child's
    level): in plain Python where the game lists one position's moves so (``moves_of``), else in batches."""
    plain = game.moves_of(key)
    if plain is not None:
        return game.spell(key), [(code, child, game.spell(child & KEY_BITS), game.level_of(child & KEY_BITS))
                                 for code, child in plain]
    _, marked, codes = children_of(game, np.array([key], dtype=np.int64))
    children = marked & KEY_BITS
    positions = game.format_positions(np.concatenate(([key], children))).to_strings()
    return positions[0], list(zip(codes.tolist(), marked.tolist(), positions[1:], game.levels_of(children).tolist()))
