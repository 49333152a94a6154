"""A range of a level asks the owners of its children for their keys, then puts each answer in its child's
place: checked against the keys themselves, on made-up rows of two sides, moves of several parts, extra
turns, and one to seven partitions."""

import numpy as np
import pyarrow as pa
import pytest

from tablebase.errors import TablebaseError
from tablebase.games import AGAIN
from tablebase.listing.distinct import distinct_in_order
from tablebase.listing.hashing import owners
from tablebase.listing.ranges import asked, assembled


def _nested(per_row: list[list[list[int]]], dtype) -> pa.ListArray:
    """Rows of moves of parts, as a share stores them: list<list<value>>."""
    moves = [move for row in per_row for move in row]
    inner = pa.ListArray.from_arrays(pa.array(np.cumsum([0] + [len(m) for m in moves]), pa.int32()),
                                     pa.array([v for m in moves for v in m], dtype))
    return pa.ListArray.from_arrays(pa.array(np.cumsum([0] + [len(r) for r in per_row]), pa.int32()), inner)


def made_up(rng: np.random.Generator, positions: int = 150, children: int = 400, levels: int = 6):
    """A range's rows (two sides) and the truth: each child's hash, level and key."""
    hashes = np.unique(rng.integers(0, 2**64 - 1, children, dtype=np.uint64))
    level_of = {int(h): int(rng.integers(0, levels)) for h in hashes}
    key_of = {int(h): int(k) for h, k in zip(hashes, rng.permutation(len(hashes)) * 3 + 11)}
    columns, truth = {"hash": pa.array(rng.integers(0, 2**63, positions, dtype=np.uint64)),
                      "text": pa.array([f"p{i}" for i in range(positions)])}, []
    for s in range(2):
        parts, lv, expected = [], [], []
        for _ in range(positions):
            row_parts, row_levels = [], []
            for _ in range(int(rng.integers(0, 6))):
                picked = [int(h) for h in rng.choice(hashes, int(rng.integers(0, 3)))]  # 0 to 2 parts
                marks = [AGAIN if rng.random() < 0.1 else 0 for _ in picked]
                row_parts.append(picked)
                row_levels.append([level_of[h] | m for h, m in zip(picked, marks)])
                expected += [key_of[h] | m for h, m in zip(picked, marks)]
            parts.append(row_parts)
            lv.append(row_levels)
        columns[f"moves{s}"] = pa.ListArray.from_arrays(
            pa.array(np.cumsum([0] + [len(r) for r in parts]), pa.int32()),
            pa.array(np.arange(sum(len(r) for r in parts)), pa.int64()))
        columns[f"parts{s}"] = _nested(parts, pa.uint64())
        columns[f"levels{s}"] = _nested(lv, pa.int64())
        truth.append(expected)
    return pa.table(columns), level_of, key_of, truth, sorted(set(level_of.values()))


@pytest.mark.parametrize("partitions", [1, 2, 3, 7])
def test_each_child_is_given_its_own_key(partitions):
    rows, level_of, key_of, truth, levels = made_up(np.random.default_rng(partitions))
    questions, places = asked(rows, levels, partitions)
    assert sorted(questions) == [(level, p) for level in levels for p in range(partitions)]
    for (level, p), hashes in questions.items():
        assert (hashes[1:] > hashes[:-1]).all()  # each once, in order
        assert all(level_of[int(h)] == level for h in hashes)
        assert (owners(hashes, partitions) == p).all()
    reached = {int(h) for s in range(2) for h in rows.column(f"parts{s}").combine_chunks().flatten().flatten()
               .to_numpy()}
    assert {int(h) for hashes in questions.values() for h in hashes} == reached
    answers = {ask: np.array([key_of[int(h)] for h in hashes], dtype=np.int64) for ask, hashes in questions.items()}
    block, most, parts = assembled(rows, places, answers)
    assert [side.keys.tolist() for side in block.sides] == truth
    assert parts == sum(len(t) for t in truth)


def test_a_child_on_a_level_not_asked_about_is_refused():
    rows, _, _, _, levels = made_up(np.random.default_rng(9))
    with pytest.raises(TablebaseError, match="did not record"):
        asked(rows, levels[1:], 2)


@pytest.mark.parametrize("children, distinct", [(0, 1), (1, 1), (5_000, 40), (200_000, 3_000), (100_000, 90_000)])
def test_the_distinct_children_are_those_of_their_definition(children, distinct):
    """``distinct_in_order`` (a compiled hash table where children repeat, a sort of them all where they do not)
    against its definition in plain Python: the set of (group, hash) pairs, sorted, and each child's index
    in it. Children drawn from a pool so that each repeats, or mostly does not; some hashes share their low
    bits (the table's slot) and some pairs share a hash on two levels."""
    rng = np.random.default_rng(children)
    pool = rng.integers(0, 2**64, distinct, dtype=np.uint64)
    pool[: distinct // 4] &= ~np.uint64(0xFFFF)  # the same slots in the table, whatever its size
    levels_of = rng.integers(0, 30, distinct)
    levels_of[: distinct // 8] = 7
    picked = rng.integers(0, distinct, children)
    hashes, levels = pool[picked], levels_of[picked]
    if children:
        hashes[-1], levels[-1] = hashes[0], levels[0] + 1  # one hash on two levels: two distinct children
    partitions = 3
    groups = [int(lv) * partitions + int(h) % partitions for h, lv in zip(hashes.tolist(), levels.tolist())]
    pairs = sorted(set(zip(groups, hashes.tolist())))
    place = {pair: i for i, pair in enumerate(pairs)}
    got_groups, got_hashes, places = distinct_in_order(hashes, levels, partitions)
    assert got_groups.tolist() == [g for g, _ in pairs] and got_hashes.tolist() == [h for _, h in pairs]
    assert places.tolist() == [place[pair] for pair in zip(groups, hashes.tolist())]
