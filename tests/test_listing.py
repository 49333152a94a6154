"""The engine's listing of a game's positions is the same however it is found.

A plain game may be explored in one process, or by the Dask workers in
shares owned by the hash of each position's notation: the listing (its
levels, each position's text and key, every move's code and child) must not
depend on which, nor on the number of shares. A keyed game that gives start keys is listed in numpy batches: its
levels must hold exactly the keys a plain breadth-first search reaches.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from distributed import Client, get_task_stream

from tablebase.build.census import numbering_tasks, rounds, share_tasks
from tablebase.build.census.rounds import ShareSearch
from tablebase.build.jobs import TableSpec
from tablebase.build.resume import fresh_manifest
from tablebase.builders import builder_of
from tablebase.games import find_game
from tablebase.listing import Listing, level_rows
from tablebase.store import read_listing_level, read_listing_span, table_dir

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
PLUGINS = Path(__file__).resolve().parent / "plugins"
GAMES = [
    ("cram.py:Cram", {"rows": 3, "cols": 4}),
    ("toads_and_frogs.py:ToadsAndFrogs", {"cells": 5}),
    ("tictactoe.py:TicTacToe", {}),
    (f"{PLUGINS / 'pass_once.py'}:PassOnce", {"heap": 9}),  # a pass keeps the level: rounds of a level
    ("kalah.py:Kalah", {"pits": 3, "seeds": 2}),  # extra turns: marked child keys
]


def same_listing(a, b) -> None:
    assert a.sizes.tolist() == b.sizes.tolist()
    assert a.move_names == b.move_names
    assert a.max_moves == b.max_moves
    for level in range(len(a.sizes)):
        assert (level in a.levels) == (level in b.levels) == bool(a.sizes[level]), level  # only levels with positions
        if level not in a.levels:
            continue
        x, y = a.levels[level], b.levels[level]
        assert x.texts.to_pylist() == y.texts.to_pylist(), level
        assert len(x.sides) == len(y.sides)
        for s, t in zip(x.sides, y.sides):
            for field in ("offsets", "moves", "starts", "keys", "negate"):
                assert np.array_equal(getattr(s, field), getattr(t, field)), (level, field)
        for field in ("outcome", "score"):
            assert (getattr(x, field) is None) == (getattr(y, field) is None)
            if getattr(x, field) is not None:
                assert np.array_equal(getattr(x, field), getattr(y, field)), (level, field)


def listed_in_shares(client: Client, builder, source, root: Path, partitions: int | None = None) -> Listing:
    """The game listed by the workers in shares into ``root``, read back from its level files."""
    return searched_in_shares(client, builder, source, root, partitions)[0]


def searched_in_shares(client: Client, builder, source, root: Path,
                       partitions: int | None = None) -> tuple[Listing, ShareSearch]:
    """``listed_in_shares``, and the search that listed it (its chains of steps and serial tasks counted)."""
    manifest = fresh_manifest(TableSpec(builder.game, source, "t", False), 0)
    table_dir(root, "t").mkdir(parents=True)
    search = ShareSearch(client, root, manifest, builder, source.ref, "test-run", lambda text: None, partitions)
    record = search.listing()
    listing = Listing(np.array(record["sizes"]), record["move_names"], max_moves=record["max_moves"],
                      mean_moves=record["mean_moves"])
    runs = {}  # levels written together in one file, by level
    for name, file in record["files"].items():
        if "levels" in file:
            runs.update(read_listing_span(root, "t", name))
    for level, size in enumerate(record["sizes"]):
        if size:
            listing.levels[level] = level_rows(runs[level] if level in runs else read_listing_level(root, "t", level))
    return listing, search


@pytest.mark.parametrize("ref, params", GAMES)
@pytest.mark.parametrize("partitions", [1, 3])
@pytest.mark.parametrize("serial", [rounds.SERIAL_LEVEL, 4, 0], ids=["serial", "both", "shares"])
def test_a_listing_in_shares_is_the_listing_in_one_process(scheduler, tmp_path, monkeypatch, ref, params, partitions,
                                                          serial):
    """Positions found by the workers in shares, against the whole exploration in one process; in three
    shares, each share played a few positions at a time (a file of rows for each batch). ``serial``: the most
    positions of a level played one after another with the levels around it by one task: here every level
    (the games are small), the listing numbered there; levels of 4 positions or fewer, the others in shares;
    none. A listing in shares is small, so one task numbers it, but in three shares with no serial task:
    there every level of more than one position is numbered in more than one range of notation."""
    monkeypatch.setattr(rounds, "SERIAL_LEVEL", serial)
    if partitions > 1 and serial == 0:
        monkeypatch.setattr(numbering_tasks, "RANGE_ROWS", 1)
        monkeypatch.setattr(numbering_tasks, "WHOLE_BYTES", 0)
    cls, source = find_game(f"{EXAMPLES / ref}")
    game = cls(**params)
    builder = builder_of(game)
    here = builder.list_positions()

    def batches_of(first: int, moves: int) -> None:  # on the workers, which play the shares
        share_tasks.SHARE_BATCH_FIRST, share_tasks.SHARE_BATCH_MOVES = first, moves

    with Client(scheduler) as client, get_task_stream(client=client) as stream:
        if partitions > 1:
            client.run(batches_of, 2, 7)
        try:
            there = listed_in_shares(client, builder, source, tmp_path, partitions)
        finally:
            client.run(batches_of, share_tasks.SHARE_BATCH_FIRST, share_tasks.SHARE_BATCH_MOVES)
    same_listing(here, there)
    steps = {str(task["key"]).split("-")[0] for task in stream.data}
    if serial != rounds.SERIAL_LEVEL:  # numbered by one task (the listing is small), or in ranges where told to
        assert ("numbering" in steps, "range" in steps) == ((False, True) if partitions > 1 and serial == 0
                                                            else (True, False)), steps
    batches = [p.stem.split("-")[4:] for p in (tmp_path / "t").rglob("share-*.arrow")]
    if serial == 0:  # a serial task leaves a level that a move keeps (a pass, an extra turn) to the shares
        assert any(batches) == (partitions > 1 and max(here.sizes) > 6)
    assert there.mean_moves == here.mean_moves


@pytest.mark.parametrize("ref, params, serial, chains, serials", [
    ("cram.py:Cram", {"rows": 3, "cols": 4}, 0, 1, 0),
    (f"{PLUGINS / 'kayles_rows.py'}:KaylesRows", {"pins": 30, "every": 1}, rounds.SERIAL_LEVEL, 1, 1),
], ids=["empty levels", "small levels"])
def test_a_chain_of_steps_ends_at_a_small_level_not_at_an_empty_one(scheduler, tmp_path, monkeypatch, ref, params,
                                                                    serial, chains, serials):
    """The search's chains of steps and its serial tasks, on two partitions. Cram: every move fills two cells,
    so every other level holds nothing, and with no level small enough for one task the whole search is one
    chain from the top (an empty level does not end it). Kayles, every set of rows of at most 30 pins a start
    position: the top level holds 5,604 positions, so a chain plays the levels from the top in shares until
    one is found small once the levels above have sent it their children; the levels shrink to the bottom,
    so one serial task then plays every level left. Either way, the listing in one process; and no task
    surveys a share for the numbering, since the steps and the serial task said what it asks of their rows."""
    monkeypatch.setattr(rounds, "SERIAL_LEVEL", serial)
    cls, source = find_game(ref if ref.startswith("/") else f"{EXAMPLES / ref}")
    builder = builder_of(cls(**params))
    with Client(scheduler) as client, get_task_stream(client=client) as stream:
        listing, search = searched_in_shares(client, builder, source, tmp_path, 2)
    same_listing(builder.list_positions(), listing)
    assert (search.chains, search.serials) == (chains, serials)
    assert not [task["key"] for task in stream.data if str(task["key"]).startswith("survey-")]


def test_a_keyed_game_is_listed_as_far_as_its_moves_reach():
    """Cram in keyed form from the empty board: each level holds the boards a plain search reaches."""
    cls, _ = find_game(f"{EXAMPLES / 'cram_compiled.py'}:CramCompiled")
    game = cls(rows=3, cols=4)
    listing = builder_of(game).list_positions()
    masks = [m for m in game.dominoes.tolist()]
    seen, todo = {0}, [0]
    while todo:
        board = todo.pop()
        for m in masks:
            if not board & m and board | m not in seen:
                seen.add(board | m)
                todo.append(board | m)
    by_level: dict[int, list[int]] = {}
    for board in seen:
        by_level.setdefault(12 - bin(board).count("1"), []).append(board)
    assert {level: rows.keys.tolist() for level, rows in listing.levels.items() if len(rows.keys)} == {
        level: sorted(boards) for level, boards in by_level.items()}


def test_a_part_of_a_level_is_read_from_the_row_groups_that_hold_it(tmp_path, monkeypatch):
    """A worker solving part of a level reads only the listing's row groups around that part (groups of 5 rows
    here); what it reads for any part is what the whole level, held in memory, says of those positions."""
    from tablebase.build.census.entry import listed_from_store
    from tablebase.listing import level_table
    from tablebase.store import listing_files, read_listing_rows, write_listing_level

    monkeypatch.setattr(listing_files, "LISTING_GROUP", 5)
    cls, _ = find_game(f"{EXAMPLES / 'cram.py'}:Cram")
    builder = builder_of(cls(rows=3, cols=4))
    listing = builder.list_positions()
    table_dir(tmp_path, "t").mkdir(parents=True)
    for level, rows in listing.levels.items():
        write_listing_level(level_table(rows), tmp_path, "t", level)
    record = {"sizes": listing.sizes.tolist(), "move_names": listing.move_names, "max_moves": listing.max_moves}
    stored, held = listed_from_store(builder, tmp_path, "t", record).keyed, builder.over_listing(listing).keyed
    level = int(np.argmax(listing.sizes))
    size = int(listing.sizes[level])
    assert size > 20
    for start, stop in [(0, 1), (4, 6), (7, 13), (size - 3, size), (0, size)]:
        first, part = read_listing_rows(tmp_path, "t", level, start, stop)
        assert first == start // 5 * 5 and first + part.num_rows == min(size, -(-stop // 5) * 5)
        keys = stored.level_keys(level, start, stop)
        here, there = held.side(keys, 0), stored.side(keys, 0)
        for field in ("offsets", "moves", "starts", "keys"):
            assert np.array_equal(getattr(here, field), getattr(there, field)), (start, stop, field)
        assert stored.format_positions(keys).to_strings() == held.format_positions(keys).to_strings()


def test_the_parts_a_level_is_split_into_hold_their_own_rows_only():
    """Dask counts what a task's result holds by its buffers: parts sliced from one table would each count as
    the whole, and a task needing one range's parts was refused as too large for its worker."""
    import pyarrow as pa
    from dask.sizeof import sizeof

    from tablebase.listing.shares import split_by

    rows = pa.table({"hash": np.arange(100_000, dtype=np.uint64), "text": [f"{i} {i % 7}" for i in range(100_000)]})
    which = np.arange(100_000) % 10
    parts = split_by(rows, which, 10)
    assert [part.column("hash").to_pylist() for part in parts] == [list(range(k, 100_000, 10)) for k in range(10)]
    assert sum(sizeof(part) for part in parts) < 1.2 * sizeof(rows)
