"""A game's moves as a listing's work files hold them: plain values in JSON, read back without running anything.

A plain game's move is a value that sorts among its others: an int, a
string, a tuple (docs/games.md); a float, a bool and None are taken too, and
NumPy's numbers as the Python numbers they equal. Each is written as JSON, a
tuple as an array (nothing else becomes one), so that reading gives back an
equal value of the same type. A move of any other type is refused in one
line when its share is written: no codec here can make an object, so no
bytes from a folder can run code. Positions are not encoded at all: they
travel as their notation, read back by the game's ``read``.
"""

from __future__ import annotations

import json
from typing import Any

from tablebase.errors import StoreError, TablebaseError
from tablebase.lazy import np
from tablebase.spelling import shown

_PLAIN = (int, float, str, bool, type(None))


def encoded_moves(name: str, moves: list[Any]) -> bytes:
    """The moves as JSON (``name``: the game's, for the line that refuses a move of another type)."""
    return json.dumps([_plain(name, move) for move in moves], separators=(",", ":"), allow_nan=True).encode()


def decoded_moves(data: bytes) -> list[Any]:
    """The moves ``encoded_moves`` wrote; StoreError if the bytes are not such a list."""
    try:
        values = json.loads(data, object_pairs_hook=_no_objects)
        if not isinstance(values, list):
            raise ValueError("not a list")
        return [_tuples(v) for v in values]
    except (ValueError, RecursionError, TypeError) as e:
        raise StoreError(f"a listing's moves are not a JSON list of plain values: {str(e)[:200]}") from None


def _plain(name: str, move: Any) -> Any:
    kind = type(move)
    if kind in _PLAIN:
        return move
    if kind is tuple:
        return [_plain(name, part) for part in move]
    if isinstance(move, (np.integer, np.floating, np.bool_)):
        return move.item()
    raise TablebaseError(f"{name}: a move is {shown(move)}, of type {kind.__name__}; a game listed on the workers "
                         "moves by ints, floats, strings, or tuples of them (docs/games.md)")


def _tuples(value: Any) -> Any:
    if isinstance(value, list):
        return tuple(_tuples(v) for v in value)
    return value


def _no_objects(pairs: list) -> Any:
    raise ValueError("an object where a move was expected")
