"""A fixture game for tests/test_plugins.py: a keyed subtraction game with a compiled move generator.

A position is the number of tokens n, its own key and level. The amounts
that may be taken are written into the compiled generator itself (numba
freezes the global AMOUNTS when it compiles), so a change of rules is a
change of compiled code. With AMOUNTS = (1, 2) the Grundy value of n is n mod 3.
"""

import numba
import numpy as np

from tablebase.games import CompiledMoves, KeyedImpartialGame, Option, Texts

AMOUNTS = (1, 2)


@numba.njit(cache=True)
def take_moves(key, args, out_keys, out_moves):
    n = 0
    for t in AMOUNTS:
        if t <= key:
            out_keys[n] = key - t
            out_moves[n] = t
            n += 1
    return n


class KeyedTake(KeyedImpartialGame):
    name = "keyed-take"
    summary = "take some tokens from one heap (keyed, compiled moves)"
    notation = "the number of tokens, e.g. '7'"
    move_notation = "'-t': take t tokens"
    options = (Option("top", int, "largest heap"),)

    def __init__(self, **params):
        super().__init__(**params)
        self.top = self.int_param("top", 0, 1_000_000)
        self.key_space = self.top + 1
        self.max_moves = len(AMOUNTS)
        self.compiled_moves = CompiledMoves(take_moves, self._args)

    def _args(self):
        return (np.int64(self.top),)

    @property
    def max_level(self):
        return self.top

    def level_size(self, level):
        return 1

    def level_keys(self, level, start, stop):
        return np.arange(level + start, level + stop, dtype=np.int64)

    def level_of(self, key):
        return int(key)

    def levels_of(self, keys):
        return np.asarray(keys, dtype=np.int64).copy()

    def format_positions(self, keys):
        return Texts.from_strings([str(int(k)) for k in keys])

    def parse(self, text):
        try:
            n = int(text.strip())
        except ValueError:
            raise self.position_error(text, "expected a whole number") from None
        if not 0 <= n <= self.top:
            raise self.position_error(text, "outside the table")
        return n

    def move_name(self, move):
        return f"-{move}"
