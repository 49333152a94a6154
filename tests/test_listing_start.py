"""The start positions on their way to their owners: each once in its table, and each once at its owner,
however often and however far apart the game gives it."""

import sys
from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest

from tablebase.errors import TablebaseError
from tablebase.listing.shares import fresh, starting

sys.path.insert(0, str(Path(__file__).parent / "plugins"))
from take import Take  # noqa: E402


class GivenThrice(Take):
    """Heaps of 0 to 9 tokens as start positions, each given three times, far apart."""

    def start_positions(self):
        return [n for _ in range(3) for n in range(10)] + [4, 4, 4]


def test_each_start_position_is_kept_once_by_its_owner_though_tables_repeat_it():
    game = GivenThrice(heap=9)
    tables = list(starting(game, None, None, batch=4))
    assert [t.num_rows for t in tables] == [4, 4, 4, 4, 4, 4, 4, 3]  # each table holds a position once
    texts = pa.concat_tables(tables).column("text").to_pylist()
    assert all(len(set(texts[i:i + 4])) == len(texts[i:i + 4]) for i in range(0, 28, 4))
    kept = fresh(game, pa.concat_tables(tables), np.zeros(0, np.uint64))
    assert sorted(kept.column("text").to_pylist(), key=int) == [str(n) for n in range(10)]


def test_the_limit_counts_the_positions_given_and_no_position_is_refused():
    with pytest.raises(TablebaseError):
        list(starting(GivenThrice(heap=9), None, 12, batch=4))
    assert sum(t.num_rows for t in starting(GivenThrice(heap=9), None, 40, batch=4)) == 31

    class NoStart(Take):
        def start_positions(self):
            return []

    with pytest.raises(TablebaseError, match="gave no position"):
        list(starting(NoStart(heap=3), None, None))


def test_shared_start_positions_are_each_taken_by_the_share_of_their_level():
    game = GivenThrice(heap=9)
    alone = {text for t in starting(game, None, None, batch=4) for text in t.column("text").to_pylist()}
    shares = [[text for t in starting(game, None, None, batch=4, share=(part, 3))
               for text in t.column("text").to_pylist()] for part in range(3)]
    for part, texts in enumerate(shares):
        assert texts and all(game.level(game.read(text)) % 3 == part for text in texts)
    taken = [set(texts) for texts in shares]  # a position given in two tables travels twice, as alone
    assert set().union(*taken) == alone and sum(map(len, taken)) == len(alone)  # each in one share only
    assert sorted(alone, key=int) == [str(n) for n in range(10)]


def test_each_share_counts_every_start_position_given_as_one_alone():
    """A share keeps only its levels' positions but counts, and is timed on, all that the game gives: else a
    share that keeps none of an endless start would wait for it for ever (tests/test_bounded_games.py)."""
    for part in range(3):
        with pytest.raises(TablebaseError):
            list(starting(GivenThrice(heap=9), None, 12, batch=4, share=(part, 3)))
