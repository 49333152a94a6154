"""What a plain game's listing keeps in its work files is data: positions as their notation, moves as JSON.

A move of the kinds docs/games.md allows comes back from JSON equal and of its type; any other is refused in
one line when its share is written, and bytes that are not such a list are refused when read. A position
travels as its notation alone, read back where it is played and spelt again: a game whose ``read`` does not undo
``format``, or that spells two positions alike where the listing meets them, stops it in one line.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest

from tablebase.builders import builder_of
from tablebase.errors import StoreError, TablebaseError
from tablebase.listing.encoded import decoded_moves, encoded_moves
from tablebase.listing.hashing import text_hashes
from tablebase.listing.shares import expand, fresh, travelling

sys.path.insert(0, str(Path(__file__).parent / "plugins"))
from take import Take  # noqa: E402


@pytest.mark.parametrize("moves", [[1, 2, -3, 2**70], ["a", "é", "\ud800"], [(1, "x", (2.5, None)), (0,)],
                                   [True, False, 0.1, float("inf")], []])
def test_moves_come_back_equal_and_of_their_type(moves):
    back = decoded_moves(encoded_moves("g", moves))
    assert back == moves and [repr(m) for m in back] == [repr(m) for m in moves]


def test_numpy_numbers_come_back_as_the_numbers_they_equal():
    assert decoded_moves(encoded_moves("g", [np.int64(3), (np.int8(-1), np.float64(0.5))])) == [3, (-1, 0.5)]


@pytest.mark.parametrize("move", [frozenset({1}), [1, 2], b"x", object(), {"a": 1}])
def test_a_move_of_another_type_is_refused_in_one_line(move):
    with pytest.raises(TablebaseError, match=r"^g: a move is .*of type .*ints, floats, strings, or tuples") as caught:
        encoded_moves("g", [1, (2, move)])
    assert "\n" not in str(caught.value)


@pytest.mark.parametrize("data", [b'{"a": 1}', b"[1, {}]", b"1", b"not json", b"[" * 100_000 + b"]" * 100_000,
                                  b"\xff\xfe"])
def test_bytes_that_are_no_list_of_moves_are_refused(data):
    with pytest.raises(StoreError):
        decoded_moves(data)


class SameText(Take):
    """Two heaps spelt alike: the engine could not tell them apart."""

    def format(self, n):
        return str(min(n, 4))


class OtherRead(Take):
    def read(self, text):
        return max(int(text) - 1, 0)


def test_two_positions_spelt_alike_are_refused_as_they_travel():
    with pytest.raises(TablebaseError, match="format\\(\\) gives '4' for two different positions"):
        travelling(SameText(heap=9), [4, 5], np.array([4, 5]), None)


def test_a_read_that_does_not_undo_format_is_refused_where_the_position_is_played():
    game = OtherRead(heap=9)
    texts = pa.array(["5"])
    share = pa.table({"hash": pa.array(text_hashes(texts), pa.uint64()), "text": texts})
    with pytest.raises(TablebaseError, match="'5' reads back as another position"):
        expand(game, builder_of(game).plain_rules(), 5, share, None)


def test_copies_of_a_text_at_two_levels_are_refused_where_they_meet():
    texts = pa.array(["4", "4"])
    inbox = pa.table({"hash": pa.array(text_hashes(texts), pa.uint64()), "level": pa.array([4, 5], pa.int64()),
                      "text": texts})
    with pytest.raises(TablebaseError, match="format\\(\\) gives '4' for two different positions, of levels 4 and 5"):
        fresh(SameText(heap=9), inbox, np.zeros(0, np.uint64))


def test_a_share_is_played_from_its_notation_alone():
    """No column but the hash and the text: the positions are the game's reading of the text."""
    game = Take(heap=9)
    texts = pa.array(["7", "5"])
    share = pa.table({"hash": pa.array(text_hashes(texts), pa.uint64()), "text": texts})
    rows, children = expand(game, builder_of(game).plain_rules(), 7, share.slice(0, 1), None)
    assert rows.column("text").to_pylist() == ["7"]
    assert sorted(children.column("text").to_pylist(), key=int) == ["5", "6"]
    assert children.column_names == ["hash", "level", "text"]
