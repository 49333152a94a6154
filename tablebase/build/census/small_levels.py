"""What a Dask worker does to play a plain game's small levels one after another (``tablebase.listing.serial``).

The search in shares (``rounds.py``) begins here, and comes back here whenever
the level waiting at the top is small: one task (``play_serially``) plays
level after level in one process, where a step in shares would cost every
level a round of tasks, its files and a save of the manifest. It leaves what
it did as the steps in shares would have, read only by their records
(``store.work``); a search it plays whole is numbered and written by it too.
"""

from __future__ import annotations

from typing import Any

from tablebase.build.census.share_tasks import START, TRAVELLING, rss
from tablebase.build.progress.worker_events import Report
from tablebase.build.worker_game import builder_of_run
from tablebase.lazy import np, pa, pc
from tablebase.listing import Limits, limits_set
from tablebase.listing.game_limits import too_many
from tablebase.listing.levels import Listing, level_table
from tablebase.listing.ranges import surveyed
from tablebase.listing.serial import SerialPlay, numbered
from tablebase.listing.shares import FIRST_KEY, routed, starting
from tablebase.store import write_listing_level, write_listing_span
from tablebase.store.listing_files import LISTING_GROUP, LISTING_SPAN
from tablebase.store.location import Location
from tablebase.store.placed import flush
from tablebase.store.work import Records, inbox_name, read_work, share_name, write_work

SERIAL_LEVEL = 2_048  # the most positions waiting at a level (copies counted) that the task plays by itself
SERIAL_BYTES = 64 * 2**20  # the most bytes of rows (in Arrow) one task plays before the manifest records them
SERIAL_HELD = 200_000  # start positions held in memory at most: beyond, they go to the inboxes as they come
SERIAL = "serial"  # the source of what a serial task leaves in the inboxes


def play_serially(run: str, ref: str, params: dict[str, Any], root: Location, table: str, partitions: int,
                  limits: Limits, inboxes: dict[int, Records], found: int, begin: bool,
                  level_most: int = SERIAL_LEVEL, every: float = float("inf"),
                  symmetry: bool = False) -> dict[str, Any]:
    """Dask task: play the small levels at the top, one after another, from the start positions or what
    waits in the shares' inboxes.

    It stops at the first level that is not small (``level_most`` positions: the shares play it), after a
    level whose moves keep it (its next round is the shares'), or once it holds ``SERIAL_BYTES`` of rows
    played (the manifest then records how far it got); it leaves each level's rows in its owners' share
    files and what still waits in its owners' inboxes. A search that plays every level here, from the
    start positions (its own, or the start's inboxes with nothing found before), is a whole listing: the
    task numbers it and writes the listing's level files, and the shares are never used (a game of one
    position a level is listed by one task).

    ``inboxes``: the records of what waits in the inboxes (round 0), by level; ``found``: the positions the
    search found before; ``begin``: take the start positions first (on several partitions, the partitions
    take them, side by side: ``start_share``). Returns the listing's record if the task played every
    level, from the start positions and nothing found before (``listing``), else what the search records
    of it: each level played, with the positions it found and the levels its children are on (``played``),
    the inboxes' records it read (``read``), what it left waiting, by level and round (``waiting``), the
    records of the files it wrote (``files``), and the process's memory (``rss``). ``every``: how often the
    driver speaks; the positions played are told to it a few times as often. ``symmetry``: the table keeps
    one position of each orbit.
    """
    builder = builder_of_run(run, ref, params, symmetry)
    game = builder.game
    play = SerialPlay(game, builder.plain_rules(), limits.seconds)
    limit = limits.positions_for(plain=True)
    waiting = {level: dict(records) for level, records in inboxes.items()}
    files: Records = {}
    with limits_set(limits), Report(run, 1, every, report="listing", level=-1) as told:
        if begin:
            _started(play, starting(game, limits.seconds, limit, rules=play.rules), root, table, partitions, waiting,
                     files)
        read: Records = {}
        # What this task leaves in the inboxes is named by the level it begins at: another serial task of the
        # search, begun lower, leaves its own beside it (each level's first round is played once).
        source = f"{SERIAL}-{max(set(play.waiting) | set(waiting), default=-1):06d}"
        while play.bytes < SERIAL_BYTES:
            levels = set(play.waiting) | set(waiting)
            if not levels:
                break
            level = max(levels)
            if play.rows_waiting(level) + sum(r["rows"] for r in waiting.get(level, {}).values()) > level_most:
                break
            given = waiting.pop(level, {})
            read.update((name, record) for name, record in given.items() if name not in files)
            told.add(play.play(level, read_work(root, table, given, schema=TRAVELLING)))
            if limit is not None and found + play.positions > limit:
                raise too_many(game.name, limit)
            if play.kept is not None:
                break
    if (begin or not found) and not play.waiting and not waiting:
        return {"listing": _listed(game, play, root, table, limits.seconds), "rss": rss()}
    return _left(play, root, table, partitions, files, waiting, read, source)


def start_share(run: str, ref: str, params: dict[str, Any], root: Location, table: str, partitions: int,
                limits: Limits, part: int, symmetry: bool = False) -> dict[str, Any]:
    """Dask task: one of ``partitions`` shares of the start positions written to their owners' inboxes: those
    whose level is ``part`` modulo ``partitions`` (``shares.starting``). Where a game starts from every
    position, the start is the game's code of every position once more, and a task a partition does it
    side by side. Returns what the search records, as ``play_serially`` does (no level played)."""
    builder = builder_of_run(run, ref, params, symmetry)
    play = SerialPlay(builder.game, builder.plain_rules(), limits.seconds)
    waiting: dict[int, Records] = {}
    files: Records = {}
    source = f"{START}-{part:04d}-"
    with limits_set(limits):
        _started(play, starting(builder.game, limits.seconds, limits.positions_for(plain=True), rules=play.rules,
                                share=(part, partitions)), root, table, partitions, waiting, files, source)
        _held_to_inboxes(play, root, table, partitions, waiting, files, source)
    return _left(play, root, table, partitions, files, waiting, {}, f"{SERIAL}-{source}")


def _started(play: SerialPlay, batches: Any, root: Location, table: str, partitions: int,
             waiting: dict[int, Records], files: Records, source: str = f"{START}-") -> None:
    """The start positions, kept to be played here; beyond ``SERIAL_HELD`` of them, every one is written to its
    owner's inbox as it comes (``waiting``: their records, by level, are read when their level is played;
    ``source``: the inbox files' names begin so)."""
    held = 0
    for b, batch in enumerate(batches):
        if held + batch.num_rows <= SERIAL_HELD:
            play.add(batch)
            held += batch.num_rows
            continue
        _held_to_inboxes(play, root, table, partitions, waiting, files, source)  # what was held goes first
        held = SERIAL_HELD + 1
        levels = batch.column("level").to_numpy()
        for level in np.unique(levels).tolist():
            written = _to_inboxes(batch.filter(pa.array(levels == level)), root, table, partitions, level, 0,
                                  f"{source}{b:06d}")
            waiting.setdefault(level, {}).update(written)
            files.update(written)


def _held_to_inboxes(play: SerialPlay, root: Location, table: str, partitions: int, waiting: dict[int, Records],
                     files: Records, source: str) -> None:
    """The start positions held to be played here written to their owners' inboxes instead, a file a level and
    owner."""
    for level, tables in sorted(play.waiting.items()):
        written = _to_inboxes(pa.concat_tables(tables), root, table, partitions, level, 0, f"{source}held")
        waiting.setdefault(level, {}).update(written)
        files.update(written)
    play.waiting.clear()


def _to_inboxes(positions: pa.Table, root: Location, table: str, partitions: int, level: int, round_: int,
                source: str) -> Records:
    """Positions of one level written to their owners' inboxes; the files' records."""
    files: Records = {}
    for owner, piece in enumerate(routed(positions, partitions)):
        if piece.num_rows:
            files.update(write_work(piece, root, table, inbox_name(level, owner, round_, source)))
    return files


def _left(play: SerialPlay, root: Location, table: str, partitions: int, files: Records, waiting: dict[int, Records],
          read: Records, source: str) -> dict[str, Any]:
    """What the search records of a serial task that did not play every level: the levels played, their rows in
    their owners' share files, with what numbering asks of each (``surveys``: level, owner, survey, the file's
    name); the positions still waiting, in their owners' inboxes (files named after ``source``)."""
    left: dict[tuple[int, int], int] = {}
    written: Records = {}
    surveys = []  # what numbering asks of each share file written, said now that its rows are held
    for level, rows in play.played.items():
        for owner, piece in enumerate(routed(rows, partitions)):
            if piece.num_rows:
                metadata = {**(rows.schema.metadata or {}), FIRST_KEY: pc.min(piece.column("text")).as_py().encode()}
                share = write_work(piece.replace_schema_metadata(metadata), root, table, share_name(level, owner, 0))
                written.update(share)
                surveys.append([level, owner, surveyed([piece.column("text")], [metadata], piece.nbytes), list(share)])
    for level, tables in play.waiting.items():
        round_ = 1 if level == play.kept else 0
        inbox = _to_inboxes(pa.concat_tables(tables), root, table, partitions, level, round_, source)
        written.update(inbox)
        left[level, round_] = sum(r["rows"] for r in inbox.values())
    # What the task wrote to the inboxes for a level it did not play waits there too: kept, and counted.
    for level, records in waiting.items():
        mine = {name: r for name, r in records.items() if name in files}
        written.update(mine)
        if mine:
            left[level, 0] = left.get(level, 0) + sum(r["rows"] for r in mine.values())
    flush(root, table, list(written))  # durable before the manifest records them
    return {"played": {level: {"found": play.played[level].num_rows, "reaches": play.reaches[level]}
                       for level in play.played},
            "read": sorted(read), "waiting": [[level, r, n] for (level, r), n in sorted(left.items())],
            "files": written, "surveys": surveys, "rss": rss()}


def _listed(game: Any, play: SerialPlay, root: Location, table: str, seconds: float | None) -> dict[str, Any]:
    """Every level played here, numbered and written as the listing's level files: the listing's record."""
    listing = numbered(game, play.played, play.reaches, seconds)
    return {"sizes": listing.sizes.tolist(), "move_names": listing.move_names, "kept": [],
            "max_moves": listing.max_moves, "mean_moves": listing.mean_moves,
            "files": written_levels(listing, root, table), "complete": True}


def written_levels(listing: Listing, root: Location, table: str) -> dict[str, dict[str, Any]]:
    """A listing's levels written through the store, synced: a level of more than ``LISTING_GROUP`` positions in
    a file of its own, consecutive smaller ones together in files of at most ``LISTING_SPAN``. The files' records."""
    files: dict[str, dict[str, Any]] = {}
    run: dict[int, Any] = {}

    def close_span() -> None:
        if run:
            record = write_listing_span(run, root, table)
            files[record.pop("file")] = record
            run.clear()

    for level in sorted(listing.levels):
        rows = level_table(listing.levels[level])
        if rows.num_rows > LISTING_GROUP:
            close_span()
            record = write_listing_level(rows, root, table, level)
            files[record.pop("file")] = record
            continue
        if sum(t.num_rows for t in run.values()) + rows.num_rows > LISTING_SPAN:
            close_span()
        run[level] = rows
    close_span()
    flush(root, table, list(files))
    return files
