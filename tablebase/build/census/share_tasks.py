"""What a Dask worker does to list a plain game in shares (``tablebase.listing.shares``), and its files.

A step of the search is one round of one level: each partition's
``expand_share`` plays what reached its share and returns its children split
by owner, and each owner's ``receive`` writes its pieces to its inbox. Every
file is written atomically under a name that says which step made it, so a
step run again after a kill writes the same files; a task reads only the
files it is given the records of (``store.work``) and returns those it writes.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tablebase.build.cluster import allocator
from tablebase.build.progress.worker_events import Report
from tablebase.build.worker_game import builder_of_run
from tablebase.builders import Builder
from tablebase.lazy import np, pa, pc, psutil
from tablebase.listing import Limits, limits_set
from tablebase.listing.hashing import owners
from tablebase.listing.ranges import surveyed
from tablebase.listing.shares import expand, fresh, routed
from tablebase.store.location import Location
from tablebase.store.work import Records, inbox_name, inbox_records, read_work, recorded, share_name, write_work

START = "start"  # the source of the start positions in inbox names (``build/census/small_levels.py`` takes them)
# A share's positions are played in batches of about this many moves (the first batch's positions are
# counted, the next ones' sized by the moves a position had so far), and at most this many positions.
SHARE_BATCH_MOVES = 1_000_000
SHARE_BATCH_FIRST = 4_096
SHARE_BATCH_MOST = 1_000_000

TRAVELLING = pa.schema([("hash", pa.uint64()), ("level", pa.int64()), ("text", pa.string())])


def rss() -> int:
    """The process's memory once Arrow has handed back what it no longer holds. Its allocator keeps freed
    memory for reuse, which Dask counts as the worker's (and a worker over its limit is restarted): a task
    that read a level would otherwise leave the worker holding that level's worth."""
    allocator.hand_back_arrow_memory()
    return psutil.Process().memory_info().rss


def expand_share(run: str, ref: str, params: dict[str, Any], root: Location, table: str, level: int, partition: int,
                 round_: int, partitions: int, limits: Limits, inbox: Records, seen: Records,
                 above: tuple[int, list[dict[str, Any]]] | None = None,
                 prior: list[dict[str, Any]] = (), every: float = float("inf"),
                 small: tuple[int, int, list[dict[str, Any]]] | None = None, symmetry: bool = False) -> dict[str, Any]:
    """Dask task: one partition's share of one round of a level, played; its rows written; its children
    split by owner (``pieces``), how many positions it found, the process's memory, its files' records.

    ``inbox``: the records of what reached the share in the steps the manifest holds, and ``prior`` what
    this partition's ``receive`` tasks of this run's steps before this one wrote (their results): the
    share reads those of its level and round, and no other file. ``seen``: the records of its earlier
    rounds' rows. ``above``: the step submitted before this one (its level, what its owners received),
    which must be received first. If its moves kept their level (or it did nothing), that level needs
    another round before this one: this step does nothing (``skipped``) and is submitted again later.
    ``every``: how often the driver speaks; the positions played are told to it a few times as often.
    ``small``: (the positions the manifest had waiting at this level's first round when the chain was
    submitted, the most one task plays by itself, what every partition's ``receive`` of the chain's steps
    before this one wrote): a level found to hold no more, and something, is skipped too, and played by one
    task (a level that holds nothing, as every other level of a game whose moves take two cells, does not end
    the chain). Every share counts the same, so all skip or none.
    ``symmetry``: the table keeps one position of each orbit.
    """
    if above is not None:
        above_level, received = above
        if any(r["skipped"] or above_level in r["levels"] for r in received):
            return _skipped(partitions)
    if small is not None:
        known, most, received = small
        if 0 < known + sum(r["levels"].get(level, 0) for r in received) <= most:  # an empty level goes on
            return _skipped(partitions)
    builder = builder_of_run(run, ref, params, symmetry)
    given = {**inbox, **inbox_records(recorded(prior), level, partition, round_)}
    arrived = read_work(root, table, dict(sorted(given.items())), schema=TRAVELLING)
    if not arrived:  # nothing reached this share of the level
        return {"pieces": [TRAVELLING.empty_table()] * partitions, "found": 0, "rss": rss(), "skipped": False,
                "files": {}}
    before = [t.column("hash").to_numpy() for t in read_work(root, table, seen, ["hash"])]
    # A share plays the positions it owns, whatever else a file names: another's position played here too
    # would be a row twice in its level (its owner plays it, or would have played it from elsewhere).
    inbox = pa.concat_tables(arrived)
    inbox = inbox.filter(pa.array(owners(inbox.column("hash").to_numpy(), partitions) == partition))
    share = fresh(builder.game, inbox, np.concatenate(before) if before else np.zeros(0, np.uint64))
    del arrived, inbox
    files: Records = {}
    metadata: list[dict[bytes, bytes]] = []
    held = 0

    def write(rows: pa.Table, batch: int) -> None:
        nonlocal held
        files.update(write_work(rows, root, table, share_name(level, partition, round_, batch), durable=True))
        metadata.append(rows.schema.metadata or {})
        held += rows.nbytes

    with Report(run, share.num_rows, every, report="listing", level=level) as told:
        reached = _played_in_batches(builder, level, share, limits, write, told.add)
    # What numbering the level will ask of these rows, said now that they are held: no task reads them for it.
    survey = surveyed([share.column("text")], metadata, held)
    return {"pieces": routed(reached, partitions), "found": share.num_rows, "rss": rss(), "skipped": False,
            "files": files, "survey": survey}


def _skipped(partitions: int) -> dict[str, Any]:
    """What a step that did nothing returns: its pieces None, so that the steps after it do nothing either."""
    return {"pieces": [None] * partitions, "found": 0, "rss": rss(), "skipped": True, "files": {}}


def _played_in_batches(builder: Builder, level: int, share: pa.Table, limits: Limits,
                       write: Callable[[pa.Table, int], None], played: Callable[[int], None]) -> pa.Table:
    """A share played a batch of positions at a time, each batch's rows written as it ends (``write(rows,
    batch)``) and its positions counted (``played``): what a task holds follows a batch's moves, not its
    share's (a level's share of many moves, played at once, took a worker past its limit: docs/scale.md).
    The children reached, each once, in the order they were first met: as one batch of the
    whole share would give them."""
    reached, seen = [], np.zeros(0, np.uint64)
    start, size = 0, SHARE_BATCH_FIRST
    while True:  # once at least: a share with nothing new writes its empty rows, as its step's record
        batch = share.slice(start, size)
        with limits_set(limits):
            rows, children = expand(builder.game, builder.plain_rules(), level, batch, limits.seconds)
        write(rows, len(reached))
        played(batch.num_rows)
        hashes = children.column("hash").to_numpy()
        reached.append(children.filter(pa.array(~np.isin(hashes, seen))) if len(seen) else children)
        moves = sum(pc.sum(pc.list_value_length(rows.column(name))).as_py() or 0
                    for name in rows.column_names if name.startswith("moves"))
        del rows, children
        start += batch.num_rows
        if start >= share.num_rows:
            break
        seen = np.union1d(seen, hashes)  # the last batch's are never looked up: a share's sort saved
        size = max(1, min(SHARE_BATCH_MOVES * batch.num_rows // max(moves, 1), SHARE_BATCH_MOST))
    return pa.concat_tables(reached) if len(reached) > 1 else reached[0]


def item(result: Any, *path: Any) -> Any:
    """Dask task, run where ``result`` is: the part of it that ``path`` names (one owner's piece of it, say),
    so that only that part travels."""
    for step in path:
        result = result[step]
    return result


def counted(result: dict[str, Any]) -> dict[str, Any]:
    """Dask task, run where ``result`` is: what the driver counts of a step, and the records of its files."""
    return {key: result.get(key, False) for key in ("found", "rss", "skipped", "files", "survey")}


def receive(root: Location, table: str, partition: int, level: int, round_: int,
            pieces: list[pa.Table | None]) -> dict[str, Any]:
    """Dask task: an owner's pieces of one step (from every partition, in order) written to its inbox, a file
    per level reached; the rows of each, and the files' records. Positions of the level the step played go
    to its next round. A skipped step (its pieces None) writes nothing, and says so to the step after it."""
    if any(piece is None for piece in pieces):
        return {"levels": {}, "skipped": True, "files": {}}
    arrived = pa.concat_tables(pieces) if pieces else TRAVELLING.empty_table()
    levels, files = _to_inbox(arrived, root, table, partition, level, round_, f"{level:06d}-{round_:04d}")
    del arrived, pieces
    return {"levels": levels, "skipped": False, "rss": rss(), "files": files}


def _to_inbox(arrived: pa.Table, root: Location, table: str, partition: int, level: int, round_: int,
              source: str) -> tuple[dict[int, int], Records]:
    """Positions that reached a partition from ``source`` (a step that played ``level``, or the start),
    written to its inbox, a file per level reached; the rows of each, and the files' records. Positions of
    the level played go to its next round."""
    levels = arrived.column("level").to_numpy()
    rows, files = {}, {}
    for reached in np.unique(levels).tolist():
        part = arrived.filter(pa.array(levels == reached))
        files.update(write_work(part, root, table,
                                inbox_name(reached, partition, round_ + 1 if reached == level else 0, source),
                                durable=True))
        rows[reached] = part.num_rows
    return rows, files
