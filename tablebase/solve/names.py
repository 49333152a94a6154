"""Move names by code, each spelt once per game and kept.

A level's best moves may hold hundreds of distinct codes (Wythoff's do), and a
table thousands of small levels: asking the game for every name of every
level, one Python call each, and handing Arrow a list of Python strings, cost
more than solving. Names depend on the code alone, so each game object keeps
them in a table of UTF-8 bytes indexed by code, and a level's names are
gathered from it with numpy.
"""

from __future__ import annotations

import weakref
from typing import Any

from tablebase.games import KeyedForm
from tablebase.lazy import np, pa

DENSE_CODES = 1 << 20  # codes below this are kept in the table; larger ones are spelt each time


class _Table:
    """Names of codes 0..len-1: the bytes of each, padded to a common width, and their lengths."""

    def __init__(self) -> None:
        self.text = np.zeros((0, 8), dtype=np.uint8)
        self.length = np.zeros(0, dtype=np.int32)
        self.known = np.zeros(0, dtype=np.bool_)

    def spell(self, game: KeyedForm, codes: np.ndarray) -> None:
        """Make sure the names of ``codes`` (non-negative, distinct, ascending) are in the table."""
        if len(codes) and codes[-1] >= len(self.known):
            size = max(int(codes[-1]) + 1, 2 * len(self.known), 64)
            grow = size - len(self.known)
            self.text = np.concatenate([self.text, np.zeros((grow, self.text.shape[1]), dtype=np.uint8)])
            self.length = np.concatenate([self.length, np.zeros(grow, dtype=np.int32)])
            self.known = np.concatenate([self.known, np.zeros(grow, dtype=np.bool_)])
        new = codes[~self.known[codes]]
        if not len(new):
            return
        spelt = [game.move_name(int(c)).encode() for c in new]
        width = max(len(b) for b in spelt)
        if width > self.text.shape[1]:
            wider = np.zeros((len(self.text), width), dtype=np.uint8)
            wider[:, : self.text.shape[1]] = self.text
            self.text = wider
        for c, b in zip(new, spelt):
            self.text[c, : len(b)] = np.frombuffer(b, dtype=np.uint8)
            self.length[c] = len(b)
        self.known[new] = True

    def gather(self, codes: np.ndarray, empty_first: bool) -> pa.Array:
        """The names of ``codes`` as an Arrow string array, after one "" if ``empty_first``."""
        length = self.length[codes]
        if empty_first:
            length = np.concatenate([np.zeros(1, dtype=np.int32), length])
        offsets = np.zeros(len(length) + 1, dtype=np.int32)
        np.cumsum(length, out=offsets[1:])
        data = self.text[codes][np.arange(self.text.shape[1]) < self.length[codes][:, None]]
        return pa.StringArray.from_buffers(len(length), pa.py_buffer(offsets), pa.py_buffer(data))


_tables: weakref.WeakKeyDictionary[Any, _Table] = weakref.WeakKeyDictionary()


def move_names(game: KeyedForm, codes: np.ndarray) -> pa.Array:
    """The names of ``codes`` (ascending and distinct; -1, no move, is named "") as Arrow strings."""
    codes = np.asarray(codes, dtype=np.int64)
    if len(codes) == 0:
        return pa.array([])  # as an empty list of names always was
    if codes[-1] >= DENSE_CODES:
        # An explicit type: inferring it imports optional modules on every call.
        return pa.array([game.move_name(int(c)) if c >= 0 else "" for c in codes], type=pa.string())
    present = codes[1:] if codes[0] < 0 else codes  # -1 can only come first
    table = _tables.get(game)
    if table is None:
        table = _tables[game] = _Table()
    table.spell(game, present)
    return table.gather(present, empty_first=len(present) < len(codes))
