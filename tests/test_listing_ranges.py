"""A range of a level asks the owners of its children for their keys, then puts each answer in its child's
place: checked against the keys themselves, on made-up rows of two sides, moves of several parts or of one
child each, extra turns, and one to seven partitions. And a share's survey, as the search hands it over, is
the one read back from its files; and a level waits, before it is ordered, for the level its definition names."""

from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest

from tablebase.build.census.numbering_tasks import LEVELS_AT_ONCE, survey, waited_for
from tablebase.builders import builder_of
from tablebase.errors import TablebaseError
from tablebase.games import AGAIN, find_game
from tablebase.listing.distinct import distinct_in_order
from tablebase.listing.hashing import owners
from tablebase.listing.ranges import SAMPLES, asked, assembled, merged, one_shape, surveyed
from tablebase.listing.shares import expand, travelling
from tablebase.store.work import share_name, write_work


def _nested(per_row: list[list[list[int]]], dtype) -> pa.ListArray:
    """Rows of moves of parts, as a share stores them: list<list<value>>."""
    moves = [move for row in per_row for move in row]
    inner = pa.ListArray.from_arrays(pa.array(np.cumsum([0] + [len(m) for m in moves]), pa.int32()),
                                     pa.array([v for m in moves for v in m], dtype))
    return pa.ListArray.from_arrays(pa.array(np.cumsum([0] + [len(r) for r in per_row]), pa.int32()), inner)


def _flat(per_row: list[list[list[int]]], dtype) -> pa.ListArray:
    """Rows of moves of one child each, as a share stores them where positions do not split: list<value>."""
    return pa.ListArray.from_arrays(pa.array(np.cumsum([0] + [len(r) for r in per_row]), pa.int32()),
                                    pa.array([v for row in per_row for (v,) in row], dtype))


def made_up(rng: np.random.Generator, positions: int = 150, children: int = 400, levels: int = 6,
            one_part: bool = False):
    """A range's rows (two sides) and the truth: each child's hash, level and key. ``one_part``: every move
    leads to one child, stored as itself rather than as a list of parts."""
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
                picked = [int(h) for h in rng.choice(hashes, 1 if one_part else int(rng.integers(0, 3)))]
                marks = [AGAIN if rng.random() < 0.1 else 0 for _ in picked]
                row_parts.append(picked)
                row_levels.append([level_of[h] | m for h, m in zip(picked, marks)])
                expected += [key_of[h] | m for h, m in zip(picked, marks)]
            parts.append(row_parts)
            lv.append(row_levels)
        columns[f"moves{s}"] = pa.ListArray.from_arrays(
            pa.array(np.cumsum([0] + [len(r) for r in parts]), pa.int32()),
            pa.array(np.arange(sum(len(r) for r in parts)), pa.int64()))
        shaped = _flat if one_part else _nested
        columns[f"parts{s}"] = shaped(parts, pa.uint64())
        columns[f"levels{s}"] = shaped(lv, pa.int64())
        truth.append(expected)
    return pa.table(columns), level_of, key_of, truth, sorted(set(level_of.values()))


@pytest.mark.parametrize("one_part", [False, True])
@pytest.mark.parametrize("partitions", [1, 2, 3, 7])
def test_each_child_is_given_its_own_key(partitions, one_part):
    rows, level_of, key_of, truth, levels = made_up(np.random.default_rng(partitions), one_part=one_part)
    questions, places = asked(rows, levels, partitions)
    assert sorted(questions) == [(level, p) for level in levels for p in range(partitions)]
    for (level, p), hashes in questions.items():
        assert (hashes[1:] > hashes[:-1]).all()  # each once, in order
        assert all(level_of[int(h)] == level for h in hashes)
        assert (owners(hashes, partitions) == p).all()
    flat = [rows.column(f"parts{s}").combine_chunks().flatten() for s in range(2)]
    reached = {int(h) for side in flat for h in (side if one_part else side.flatten()).to_numpy()}
    assert {int(h) for hashes in questions.values() for h in hashes} == reached
    answers = {ask: np.array([key_of[int(h)] for h in hashes], dtype=np.int64) for ask, hashes in questions.items()}
    block, most, parts = assembled(rows, places, answers)
    assert [side.keys.tolist() for side in block.sides] == truth
    assert parts == sum(len(t) for t in truth)


def test_rows_of_both_shapes_are_put_in_one():
    """A level whose files hold a move's one child as a list of one part, and as itself (a build resumed
    across the change), is read as the latter; rows of moves of several parts are never taken for it."""
    rows = made_up(np.random.default_rng(5), one_part=True)[0]
    nested = rows
    for s in range(2):
        for name in (f"parts{s}", f"levels{s}"):
            column = rows.column(name).combine_chunks()
            one_each = pa.ListArray.from_arrays(pa.array(np.arange(len(column.flatten()) + 1), pa.int32()),
                                                column.flatten())
            nested = nested.set_column(nested.column_names.index(name), name,
                                       pa.ListArray.from_arrays(column.offsets, one_each))
    assert one_shape([rows, nested.slice(3, 40)]) == [rows, rows.slice(3, 40)]
    assert one_shape([nested, nested]) == [nested, nested]
    with pytest.raises(TablebaseError, match="two shapes"):
        one_shape([rows, made_up(np.random.default_rng(6))[0]])


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


def test_a_share_surveyed_as_it_is_played_is_surveyed_as_its_files_read_back(tmp_path):
    """What the search hands the numbering of a share it played (``surveyed`` of the rows it held as it wrote
    them, a batch at a time) is what a task reads back from the share's files (``numbering_tasks.survey``):
    the same sample, moves, first text and bytes."""
    cls, _ = find_game(str(Path(__file__).parent / "plugins" / "kayles_rows.py") + ":KaylesRows")
    game = cls(pins=12, every=1)
    rules, level = builder_of(game).plain_rules(), 12
    positions = [p for p in game.start_positions() if sum(p) == level]
    share = travelling(game, positions, np.full(len(positions), level), None).drop_columns(["level"])
    files, metadata, held = {}, [], 0
    for batch, start in enumerate(range(0, share.num_rows, 17)):
        rows, _ = expand(game, rules, level, share.slice(start, 17), None)
        files.update(write_work(rows, tmp_path, "t", share_name(level, 0, 0, batch)))
        metadata.append(rows.schema.metadata)
        held += rows.nbytes
    assert len(files) > 3
    handed = merged([surveyed([share.column("text")], metadata, held)])
    read = survey(tmp_path, "t", level, 0, files)
    assert handed["sample"] == read["sample"] and len(handed["sample"]) == SAMPLES
    assert sorted(handed["moves"]) == sorted(read["moves"]) and handed["moves"]
    assert handed["first"] == read["first"] == min(game.format(p) for p in positions)
    assert handed["bytes"] == read["bytes"] > 0


@pytest.mark.parametrize("seed", range(20))
def test_a_level_is_ordered_beside_as_many_levels_above_it_as_its_budget_holds(seed):
    """``waited_for`` against its definition, by brute force: a level waits for the nearest level above it
    (at least ``LEVELS_AT_ONCE`` up) that, ordered beside it, would take it and the levels in between past
    the budget; none if there is no such level. Big levels keep the rule of two at a time."""
    rng = np.random.default_rng(seed)
    held = rng.choice([1, 5, 40, 90], size=int(rng.integers(1, 30))).tolist()
    budget = 100
    for i in range(len(held)):
        over = [k for k in range(i - LEVELS_AT_ONCE + 1) if sum(held[k:i + 1]) > budget]
        assert waited_for(held, i, budget) == max(over, default=-1)
    assert [waited_for([90] * 6, i, budget) for i in range(6)] == [-1, -1, 0, 1, 2, 3]
    assert [waited_for([1] * 6, i, budget) for i in range(6)] == [-1] * 6
