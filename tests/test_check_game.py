"""`tablebase check-game` finds the mistakes a game author makes before a big table is built of them.

Each defective game below breaks one rule the engine relies on; check-game
must name the defect in one line and exit 1. A correct game passes with exit
0, and bad usage (an unknown game, a table too large to check) is exit 2.
"""

from __future__ import annotations

import textwrap

import pytest
from helpers import assert_clean_error, tablebase

pytestmark = pytest.mark.slow  # the command, as a user runs it: see conftest.py

HEADER = """
from tablebase.games import ImpartialGame, KeyedImpartialGame, Children, Option, Texts
import numpy as np
"""

# The keyed games below: one position per level, a heap of n tokens being key n and level n, spelt n.
KEYED_LEVELS = """
    @property
    def max_level(self):
        return self.top

    def level_size(self, level):
        return 1

    def level_keys(self, level, start, stop):
        return np.arange(level + start, level + stop, dtype=np.int64)

    def level_of(self, key):
        return int(key)

    def format_positions(self, keys):
        return Texts.from_strings([str(k) for k in keys.tolist()])

    def parse(self, text):
        return int(text)

    def move_name(self, move):
        return f"-{move}"
"""

# A heap of n tokens; take 1 or 2. Correct, and the base of the broken ones.
TAKE = """
class Take(ImpartialGame):
    name = "take"
    options = (Option("max", int, "largest heap"),)

    def start_positions(self):
        return [self.params["max"]]

    def level(self, n):
        return n

    def moves(self, n):
        return [(t, n - t) for t in (1, 2) if t <= n]

    def format(self, n):
        return str(n)

    def read(self, text):
        try:
            return int(text)
        except ValueError:
            raise self.position_error(text, "expected a number") from None
"""

BROKEN = {
    # A move to a higher level: the solve order breaks.
    "climbs": "    def moves(self, n):\n        return [(1, n - 1)] + ([(9, n + 1)] if n == 3 else []) if n else []\n",
    # Two positions with one spelling.
    "same_text": "    def format(self, n):\n        return str(min(n, 4))\n",
    # A spelling that reads back as another position.
    "bad_read": "    def read(self, text):\n        return max(int(text) - 1, 0)\n",
    # Two moves with one name.
    "same_name": "    def move_name(self, move):\n        return 'take'\n",
}


def game_file(tmp_path, body: str, name: str = "game.py") -> str:
    path = tmp_path / name
    path.write_text(HEADER + textwrap.dedent(body))
    return f"{path}:Take"


def test_a_correct_game_passes(tmp_path):
    result = tablebase("check-game", game_file(tmp_path, TAKE), "--max", 20, "--quiet")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "21 positions checked, no defects" in result.stdout


@pytest.mark.parametrize("broken, words", [
    ("climbs", ["leads to '4' (level 4)", "must lower the level"]),
    ("same_text", ["'4'", "two different positions"]),
    ("bad_read", ["reads back as another position"]),
    ("same_name", ["move_name() gives one name to two different moves"]),
])
def test_each_defect_is_named_on_one_line(tmp_path, broken, words):
    result = tablebase("check-game", game_file(tmp_path, TAKE + BROKEN[broken]), "--max", 6, "--quiet")
    assert result.returncode == 1, result.stdout + result.stderr
    assert "Traceback" not in result.stderr
    lines = result.stdout.strip().splitlines()
    assert lines and any(all(w in line for w in words) for line in lines), lines


# A keyed game whose moves break the table: a child outside it, and a child at the same level.
KEYED = """
class Take(KeyedImpartialGame):
    name = "keyed-take"
    options = (Option("max", int, "largest heap"), Option("fault", str, "what to break", required=False))

    def __init__(self, **params):
        super().__init__(**params)
        self.top = self.params["max"]
        self.key_space = self.top + 1
        self.max_moves = 2

""" + KEYED_LEVELS + """

    def children(self, keys):
        offsets, child, moves = [0], [], []
        for n in keys.tolist():
            for t in (1, 2):
                if t <= n:
                    c = n - t
                    if self.params.get("fault") == "outside" and n == 3:
                        c = self.top + 5
                    if self.params.get("fault") == "flat" and n == 3 and t == 1:
                        c = n
                    child.append(c)
                    moves.append(t)
            offsets.append(len(child))
        return Children(np.array(offsets), np.array(child, dtype=np.int64), np.array(moves, dtype=np.int64))

"""


@pytest.mark.parametrize("fault, words", [
    ("outside", ["'3'", "leads to key 11", "not a position of the table"]),
    ("flat", ["'3'", "leads to '3' (level 3)", "not below level 3"]),
])
def test_a_keyed_games_moves_are_checked(tmp_path, fault, words):
    result = tablebase("check-game", game_file(tmp_path, KEYED), "--max", 6, "--fault", fault, "--quiet")
    assert result.returncode == 1, result.stdout + result.stderr
    assert any(all(w in line for w in words) for line in result.stdout.splitlines()), result.stdout


# Moves that depend on something besides the position: the engine and a plain search then disagree.
FICKLE = """
import itertools
_calls = itertools.count()


class Take(ImpartialGame):
    name = "fickle"
    options = (Option("max", int, "largest heap"),)

    def start_positions(self):
        return [self.params["max"]]

    def level(self, n):
        return n

    def moves(self, n):
        allowed = (1, 2) if next(_calls) % 3 else (1,)
        return [(t, n - t) for t in allowed if t <= n]

    def format(self, n):
        return str(n)

    def read(self, text):
        return int(text)
"""


def test_rules_that_depend_on_more_than_the_position_are_caught(tmp_path):
    """The listing records the moves once; reading a position back and playing it again gives other moves."""
    result = tablebase("check-game", game_file(tmp_path, FICKLE), "--max", 12, "--quiet")
    assert result.returncode == 1, result.stdout + result.stderr
    assert result.stdout.strip(), result.stderr


def test_bad_usage_is_one_line_and_exit_2(tmp_path):
    assert_clean_error(tablebase("check-game", "no-such-game"), "unknown game")
    assert_clean_error(tablebase("check-game", game_file(tmp_path, TAKE), "--max", 50, "--max-positions", 10,
                                 "--quiet"), "more than 10", "--max-positions")
    assert_clean_error(tablebase("check-game", game_file(tmp_path, TAKE)), "--max")


# A keyed game with a compiled move generator, broken on request.
COMPILED = """
import numba
from tablebase.games import CompiledMoves


@numba.njit(cache=True)
def take(key, args, out_keys, out_moves):
    n = 0
    for t in (1, 2, 3):
        if t <= key:
            out_keys[n] = key - t
            out_moves[n] = t
            n += 1
    return n


class Take(KeyedImpartialGame):
    name = "compiled-take"
    options = (Option("max", int, "largest heap"), Option("fault", str, "what to break", required=False))

    def __init__(self, **params):
        super().__init__(**params)
        self.top = self.params["max"]
        fault = self.params.get("fault")
        self.key_space = self.top if fault == "space" else self.top + 1
        self.max_moves = 2 if fault == "max_moves" else 3
        kernel = take
        if fault == "nested":
            @numba.njit
            def kernel(key, args, out_keys, out_moves):
                return take(key, args, out_keys, out_moves)
        self.compiled_moves = CompiledMoves(kernel, tuple)

""" + KEYED_LEVELS + """

    def child_levels(self, level):
        if self.params.get("fault") == "child_levels":
            return [level - 1] if level else []
        return range(level)

"""


@pytest.mark.parametrize("fault, words", [
    ("max_moves", ["'3'", "wrote 3 moves", "more than max_moves 2"]),
    ("child_levels", ["'3'", "leads to level 1", "child_levels(3) leaves out"]),
    ("space", ["keys outside", "key_space 8"]),
])
def test_a_compiled_generator_and_its_declarations_are_checked(tmp_path, fault, words):
    """A generator writing more moves than max_moves would overrun its buffers in a compiled loop; levels
    that child_levels leaves out are never read by the solvers; keys beyond key_space overrun its arrays.
    Each would give a wrong table or a crash, so check-game names it instead."""
    result = tablebase("check-game", game_file(tmp_path, COMPILED), "--max", 8, "--fault", fault, "--quiet")
    assert result.returncode == 1, result.stdout + result.stderr
    assert any(all(w in line for w in words) for line in result.stdout.splitlines()), result.stdout


def test_a_generator_must_be_importable_by_a_compiled_loop(tmp_path):
    result = tablebase("check-game", game_file(tmp_path, COMPILED), "--max", 8, "--fault", "nested", "--quiet")
    assert_clean_error(result, "must be a function at the top of its module")
