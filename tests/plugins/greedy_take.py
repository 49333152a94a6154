"""A fixture game for tests/test_hosts.py: WIDTH heaps side by side, one of which wants far too much memory.

Level n holds WIDTH positions (keys n*WIDTH .. n*WIDTH + WIDTH-1), each a heap of n
tokens from which one or two may be taken. Listing the keys of level ``greedy``
takes and holds a gigabyte, as a game with a careless solver might: a worker
under a memory limit is killed by its nanny there.
"""

import time

import numba
import numpy as np

from tablebase.games import CompiledMoves, KeyedImpartialGame, Option, Texts

WIDTH = 2048
HOG = 1 << 30


@numba.njit(cache=True)
def take_moves(key, args, out_keys, out_moves):
    width = args[0]
    level, i = key // width, key % width
    n = 0
    for t in (1, 2):
        if t <= level:
            out_keys[n] = (level - t) * width + i
            out_moves[n] = t
            n += 1
    return n


class GreedyTake(KeyedImpartialGame):
    name = "greedy-take"
    summary = "heaps side by side; one level's keys take a gigabyte to list"
    notation = "level.heap, e.g. '7.3'"
    move_notation = "'-t': take t tokens"
    options = (Option("top", int, "largest heap"), Option("greedy", int, "the level that hogs memory"))

    def __init__(self, **params):
        super().__init__(**params)
        self.top = self.int_param("top", 0, 10_000)
        self.greedy = self.int_param("greedy", 0, 10_000)
        self.key_space = (self.top + 1) * WIDTH
        self.max_moves = 2
        self.compiled_moves = CompiledMoves(take_moves, self._args)

    def _args(self):
        return (np.int64(WIDTH),)

    @property
    def max_level(self):
        return self.top

    def level_size(self, level):
        return WIDTH

    def level_keys(self, level, start, stop):
        if level == self.greedy:
            hog = b"\1" * HOG  # written, so really held
            time.sleep(30)  # the nanny looks every 100 ms
            del hog
        return np.arange(level * WIDTH + start, level * WIDTH + stop, dtype=np.int64)

    def level_of(self, key):
        return int(key) // WIDTH

    def levels_of(self, keys):
        return np.asarray(keys, dtype=np.int64) // WIDTH

    def format_positions(self, keys):
        return Texts.from_strings([f"{int(k) // WIDTH}.{int(k) % WIDTH}" for k in keys])

    def parse(self, text):
        try:
            level, i = (int(x) for x in text.strip().split("."))
        except ValueError:
            raise self.position_error(text, "expected level.heap") from None
        if not (0 <= level <= self.top and 0 <= i < WIDTH):
            raise self.position_error(text, "outside the table")
        return level * WIDTH + i

    def move_name(self, move):
        return f"-{move}"
