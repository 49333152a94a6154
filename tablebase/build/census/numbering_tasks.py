"""A plain game's listing numbered on the workers in ranges of notation (``tablebase.listing.ranges``).

Once the search has found every level in shares by hash (``rounds.py``), each
level is numbered and written without any process holding all of it, in the
steps ``RangeNumbering`` submits. A task reads only the files it is given the
records of (``store.work``) and returns the records of those it writes; files
are written atomically and the steps are deterministic, so a resumed build
numbers again to the same files.
"""

from __future__ import annotations

from functools import partial
from typing import Any

from tablebase.build.census.share_tasks import item, rss
from tablebase.build.cluster.start import least_limit
from tablebase.build.write_behind import WriteBehind
from tablebase.lazy import np, pa
from tablebase.listing.levels import level_table
from tablebase.listing.numbering import named_moves, sorted_moves
from tablebase.listing.ranges import (
    answered,
    asked,
    assembled,
    by_hash,
    in_order,
    keyed,
    merged,
    one_shape,
    range_of,
    splitters,
    surveyed,
)
from tablebase.listing.shares import coded, reads_back, split_by
from tablebase.store import write_listing_blocks, write_listing_level
from tablebase.store.location import Location
from tablebase.store.work import (
    Records,
    block_name,
    places_name,
    range_name,
    read_work,
    read_work_described,
    recorded,
    routed_name,
    routed_records,
    share_records,
    write_work,
)

RANGE_ROWS = 50_000  # positions of a level a range holds at most: a range is a task
# A range's task holds its rows several times over while it sorts them, keys them and looks up their
# children (RANGE_COPIES times their Arrow bytes at its peak: docs/scale.md, "Numbering"). A range takes at
# most this share of the least worker's memory limit at its peak.
RANGE_COPIES = 5
RANGE_SHARE = 0.2
# and at most this many bytes of rows in Arrow whatever the limit, so that what a worker holds to number
# a level does not grow with the level (nor with a large limit): a few tasks more for a large level
RANGE_BYTES = 64 * 2**20
# A listing of at most this many bytes of rows in Arrow is numbered by one task, a level at a time: its
# levels' ranges are few and small, and the tasks and files between the steps took longer than the steps
# (docs/scale.md, "A small listing, numbered by one task").
WHOLE_BYTES = 512 * 2**20
# Levels ordered at once at least (each waits for the level this many above it), and more while they hold
# no more than this many ranges' bytes together: a game of many small levels orders them side by side.
LEVELS_AT_ONCE = 2


# -- the tasks ---------------------------------------------------------------------------
def survey(root: Location, table: str, level: int, partition: int, shares: Records) -> dict[str, Any]:
    """Dask task: ``surveyed`` of a share's rows of a level (``shares``: its files' records), read from its
    files, and the worker's memory. The search hands the driver this of the shares it played, unread; this
    task surveys the others (a resumed search's, a serial task's)."""
    described = read_work_described(root, table, shares, ["text"])
    survey_ = surveyed([rows.column("text") for rows, _, _ in described], [metadata for _, metadata, _ in described],
                       sum(held for _, _, held in described))
    del described
    return {**survey_, "rss": rss()}


def _coded_shares(root: Location, table: str, shares: Records, ranked: list) -> list[pa.Table]:
    """Shares' rows (``shares``: their files' records), each's moves as codes, their metadata dropped."""
    code_of = {move: code for code, move in enumerate(ranked)}
    return [coded(t, code_of).replace_schema_metadata(None) for t in read_work(root, table, shares)]


def route(root: Location, table: str, level: int, partition: int, ranked: list, cuts: list[str], shares: Records,
          after: Any = None) -> dict[str, Any]:
    """Dask task: a share's rows of a level (``shares``: its files' records), moves as codes, split by range of
    notation and written, a file for each range and each of the share's files (``routed_name``); each range's
    count, and the files' records. ``after``: a level above's, to wait for (a few levels at a time).

    A file at a time, and written rather than handed to the ranges as results: a worker holds one batch's
    copies, never its share of a level, which, held as results until its ranges ran, took a worker past its
    limit (docs/scale.md)."""
    code_of = {move: code for code, move in enumerate(ranked)}
    counts = [0] * (len(cuts) + 1)
    files: Records = {}
    for batch, (name, record) in enumerate(shares.items()):
        rows = coded(read_work(root, table, {name: record})[0], code_of).replace_schema_metadata(None)
        for range_, piece in enumerate(split_by(rows, range_of(rows.column("text").combine_chunks(), cuts),
                                                len(cuts) + 1)):
            if piece.num_rows:
                files.update(write_work(piece, root, table, routed_name(level, range_, partition, batch)))
                counts[range_] += piece.num_rows
        del rows
    return {"counts": counts, "rss": rss(), "files": files}


def order_range(root: Location, table: str, level: int, range_: int, ranked: list, counts: list[list[int]],
                sources: list[Records], first: int, reaches: list[int], partitions: int,
                after: Any = None) -> dict[str, Any]:
    """Dask task: a range of a level in key order, written; its keys by owner, its questions by (level, owner),
    the records of the files it wrote.

    ``ranked``: the game's moves in order. ``counts``: each share's counts by range (its ``route`` task's),
    so the range's first key is ``first`` (the level's) plus the positions of the ranges before it, and the
    range reads the rows the shares routed to it (``sources``: the records of the files each ``route`` task
    wrote); none (a level in one range): the range reads every share itself (``sources``: the records of the
    level's shares). Every range holds a position (the text it begins at, or the least). ``after``: a level
    above's, to wait for (a few levels at a time)."""
    given = recorded({"files": source} for source in sources)
    if counts:
        pieces = read_work(root, table, routed_records(given, level, range_))
    else:
        pieces = _coded_shares(root, table, dict(sorted(given.items())), ranked)
    rows = in_order(pa.concat_tables(one_shape(pieces)))
    del pieces
    files = write_work(rows, root, table, range_name(level, range_))
    start = first + sum(sum(share[:range_]) for share in counts)
    keys, (questions, places) = keyed(rows, start, partitions), asked(rows, reaches, partitions)
    del rows
    files.update(write_work(pa.table({"place": places.astype(np.int32) if len(places) < 1 << 31 else places}), root,
                            table, places_name(level, range_)))
    return {"keys": keys, "questions": questions, "rss": rss(), "files": files}


def answer(level: int, keys: list[pa.Table], questions: list[np.ndarray]) -> list[np.ndarray]:
    """Dask task: an owner's answers to the ranges that ask it for keys of a level, from its keys of that
    level (``keys``: a piece from each of the level's ranges)."""
    answers = answered(by_hash(keys), questions)
    del keys
    rss()  # Arrow's freed memory handed back
    return answers


def assemble_range(root: Location, table: str, level: int, range_: int, answers: list[tuple[int, int, np.ndarray]],
                   written: Records, whole: bool) -> dict[str, Any]:
    """Dask task: a range's rows as the level's file holds them (children as keys, from the owners'
    ``answers``, each at the place ``order_range`` wrote), once the range is ``written`` (its files' records):
    the level's file if the range is ``whole`` level, else its block. The most moves of a position on one
    side, the parts, and the file's record."""
    names = [range_name(level, range_), places_name(level, range_)]
    rows, places = read_work(root, table, {name: written[name] for name in names})
    block, most, parts = assembled(rows, places.column("place").to_numpy(),
                                   {(lv, p): keys for lv, p, keys in answers})
    del rows, places
    done = {"max_moves": most, "parts": parts, "rss": rss()}
    if whole:
        return {**write_listing_level(level_table(block), root, table, level), **done}
    return {**done, "files": write_work(level_table(block), root, table, block_name(level, range_))}


def number_whole(root: Location, table: str, ranked: list, shares: dict[int, Records], firsts: dict[int, int],
                 reaches: dict[int, list[int]]) -> list[dict[str, Any]]:
    """Dask task: a small listing numbered whole (``shares``: each level's shares' records; ``firsts``: each
    level's first key), each level's file written; their records, as ``assemble_range`` gives them.

    The steps ``RangeNumbering`` spreads over tasks, in one process, a level at a time from the bottom (a
    level's children are below it, or in it): what is held of the levels below is their keys. The next
    level's shares are read on a thread beside it, and each level's file written by a ``WriteBehind``, one
    at a time (Arrow's reading, encoding and hashing let go of the interpreter's lock)."""
    from concurrent.futures import ThreadPoolExecutor

    def read(level: int) -> list[pa.Table]:
        return _coded_shares(root, table, dict(sorted(shares[level].items())), ranked)

    def write(block: Any, most: int, parts: int, level: int) -> list[dict[str, Any]]:
        return [{**write_listing_level(level_table(block), root, table, level), "max_moves": most, "parts": parts}]

    levels, keys, writer = sorted(shares), {}, WriteBehind()
    try:
        with ThreadPoolExecutor(1) as thread:
            reading = thread.submit(read, levels[0]) if levels else None
            for i, level in enumerate(levels):
                pieces = reading.result()
                if i + 1 < len(levels):
                    reading = thread.submit(read, levels[i + 1])
                rows = in_order(pa.concat_tables(one_shape(pieces)))
                del pieces
                (keys[level],) = keyed(rows, firsts[level], 1)
                questions, places = asked(rows, reaches.get(level, []), 1)
                answers = {(lower, 0): answered(keys[lower], [hashes])[0] for (lower, _), hashes in questions.items()}
                writer.put(partial(write, *assembled(rows, places, answers), level))
                del rows, questions, places, answers
        written = writer.drained()
    finally:
        writer.close()
    peak = rss()
    return [{**record, "rss": peak} for record in written]


def write_level(root: Location, table: str, level: int, ranges: int, blocks: list[dict[str, Any]]) -> dict[str, Any]:
    """Dask task: a level's listing file from its blocks (their records in the ``blocks`` results), in order;
    its record, the most moves, the parts."""
    given = recorded(blocks)
    record = write_listing_blocks((read_work(root, table, {name: given[name]})[0]
                                   for name in (block_name(level, r) for r in range(ranges))), root, table, level)
    return {**record, "max_moves": max(b["max_moves"] for b in blocks), "parts": sum(b["parts"] for b in blocks),
            "rss": max([rss(), *(b["rss"] for b in blocks)])}


# -- the driver --------------------------------------------------------------------------
class RangeNumbering:
    """Numbering a found listing: the search's client, folder and counts (``ShareSearch``), nothing more.

    The steps, level by level from the top:

    1. The survey: each share of each level gives a sample of its texts, the
       moves it recorded, its first position by notation and its bytes (the
       search handed this over as it played the share; a share it played in
       an earlier run, or a serial task's, is read back by a ``survey`` task);
       the driver ranks the moves (there are few: the game's kinds of moves),
       names where each level's ranges split, and reads back each level's
       first position. A level of up to ``RANGE_ROWS`` positions is one range.
    2. ``route``: each share's rows, their moves as codes, split by range and
       written, a file for each range (a level in one range skips it: its
       range reads the shares).
    3. ``order_range``: a range's rows sorted by notation and written; its keys
       follow from the counts of the ranges before it (which it is given, not
       the driver); each position's key sent to its owner by hash, and the
       range's questions (its children's hashes) to theirs; where each child's
       key will be among the answers is written beside the range (``places``).
    4. ``answer``: an owner's answers about a level, from its keys of it.
    5. ``assemble_range``: a range's rows as the level file holds them, each
       child's key taken from its place among the answers, written as the
       level file if the level is one range, else as a block, and
       ``write_level`` writes the level file from its blocks, one at a time.

    Every step's tasks are submitted at once after the survey, each taking what
    it needs from the tasks before it: the scheduler runs a level's steps as
    soon as their inputs are there, and what travels between workers are Dask
    results, but for the rows routed to a range, which are files like the
    shares they come from. A task holds one file of its share or its range of
    one level, and a level is ordered once the level ``LEVELS_AT_ONCE`` above it
    is written (small levels, more at once: ``waited_for``), so that the levels
    pass through the workers' memory a few at a time.

    A small listing (``whole``) skips the steps after the survey: one task,
    ``number_whole``, numbers it a level at a time.
    """

    def __init__(self, search: Any) -> None:
        self.search, self.client = search, search.client
        self.root, self.table, self.run = search.root, search.table, search.run
        self.work = search.work  # the shares' records, each step's
        state = search.state
        self.partitions = state["partitions"]
        self.found = {int(level): n for level, n in state["found"].items() if n}
        self.reaches = {int(level): sorted(set(r)) for level, r in state.get("reaches", {}).items()}
        self.limit = least_limit(self.client.scheduler_info()["workers"])
        self.range_bytes = min(RANGE_SHARE * self.limit / RANGE_COPIES, RANGE_BYTES) if self.limit else RANGE_BYTES

    def _submit(self, fn, *args, name: str, on: int | None = None) -> Any:
        where = self.search._on(on) if on is not None else {"pure": False}
        return self.client.submit(fn, *args, key=f"{name}-{self.table}-{self.run}", **where)

    def numbered(self) -> tuple[list[str], list[dict[str, Any]]]:
        """Every level written as the listing's level file: the move names and each level's record."""
        levels = sorted(self.found, reverse=True)  # from the top: a level's children are below it
        ranked, cuts, held = self._surveyed(levels)
        game = self.search.builder.game
        firsts, first = {}, 0
        for level in sorted(self.found):
            firsts[level], first = first, first + self.found[level]
        if whole(held, self.limit):
            shares = {level: share_records(self.work, level) for level in levels}
            one = self._submit(number_whole, self.root, self.table, ranked, shares, firsts, self.reaches,
                               name="numbering", on=0)
            return named_moves(game, ranked), self.search._results([one], "numbering the positions")[0]
        ordered: dict[int, list] = {}
        written: dict[int, list] = {}  # each range's, once it is written: small, to wait for
        answers: dict[int, dict] = {}
        writing: dict[int, Any] = {}
        for i, level in enumerate(levels):
            # A level is ordered once the level LEVELS_AT_ONCE above it is written (or one further up, where
            # those between are small): so many levels in the workers' memory at a time, one a worker, rather
            # than one level at a time for all of them.
            waits = waited_for([held[lv] for lv in levels], i, LEVELS_AT_ONCE * self.range_bytes)
            above = written[levels[waits]][0] if waits >= 0 else None
            ordered[level] = self._order(level, ranked, cuts[level], firsts[level], above)
            written[level] = [self._item(f, f"w{level}-{r}", "files") for r, f in enumerate(ordered[level])]
            answers[level] = self._answers(level, ordered)
            for done in ordered:  # every level whose children are all answered now
                if done not in writing and all(lv in answers for lv in self.reaches.get(done, [])):
                    writing[done] = self._assemble(done, written[done], answers)
        records = self.search._results(list(writing.values()), "numbering the positions")
        return named_moves(game, ranked), records

    def _item(self, future: Any, name: str, *path: Any) -> Any:
        return self.client.submit(item, future, *path, key=f"item-{name}-{self.table}-{self.run}", pure=False)

    def _surveyed(self, levels: list[int]) -> tuple[list, dict[int, list[str]], dict[int, int]]:
        """The game's moves in order, where each level's ranges split, and each level's rows' bytes in Arrow,
        from the shares' surveys."""
        surveys = {level: [self._surveyed_share(level, p) for p in range(self.partitions)] for level in levels}
        moves: set = set()
        cuts, held = {}, {}
        game = self.search.builder.game
        for level in sorted(surveys):  # from the bottom, as a listing in one process reads them back
            asked_ = [s for s in surveys[level] if not isinstance(s, dict)]
            answers = iter(self.search._results(asked_, f"numbering level {level}"))
            done = [s if isinstance(s, dict) else next(answers) for s in surveys[level]]
            reads_back(game, [s["first"] for s in done if s["first"] is not None], self.search.limits.seconds)
            for survey_ in done:
                moves.update(survey_["moves"])
            held[level] = sum(s["bytes"] for s in done)
            cuts[level] = splitters([text for s in done for text in s["sample"]],
                                    ranges(self.found[level], held[level], self.range_bytes, self.partitions))
        return sorted_moves(game, moves), cuts, held

    def _surveyed_share(self, level: int, partition: int) -> Any:
        """A share's survey of a level: as the search's steps handed it over, if they wrote every file of the
        share, else a task's that reads them."""
        shares = share_records(self.work, level, partition)
        parts = self.search.surveys.get((level, partition), [])
        if set(shares) <= {name for _, names in parts for name in names}:
            return merged([part for part, _ in parts])
        return self._submit(survey, self.root, self.table, level, partition, shares,
                            name=f"survey-{level}-{partition}", on=partition)

    def _order(self, level: int, ranked: list, cuts: list[str], first: int, above: Any) -> list:
        """A level's ranges ordered: its shares routed to them, or read by its one range."""
        args = (first, self.reaches.get(level, []), self.partitions, above)
        if not cuts:
            return [self._submit(order_range, self.root, self.table, level, 0, ranked, [],
                                 [share_records(self.work, level)], *args, name=f"range-{level}-0", on=level)]
        routing = [self._submit(route, self.root, self.table, level, p, ranked, cuts,
                                share_records(self.work, level, p), above, name=f"route-{level}-{p}", on=p)
                   for p in range(self.partitions)]
        counts = [self._item(f, f"c{level}-{p}", "counts") for p, f in enumerate(routing)]
        files = [self._item(f, f"f{level}-{p}", "files") for p, f in enumerate(routing)]
        return [self._submit(order_range, self.root, self.table, level, r, ranked, counts, files, *args,
                             name=f"range-{level}-{r}", on=r)
                for r in range(len(cuts) + 1)]

    def _answers(self, level: int, ordered: dict[int, list]) -> dict[tuple[int, int, int], Any]:
        """Each owner's answers about a level to the ranges (of levels above, or its own) that reach it."""
        asking = [(above, r) for above in sorted(ordered) if level in self.reaches.get(above, [])
                  for r in range(len(ordered[above]))]
        out: dict[tuple[int, int, int], Any] = {}
        if not asking:  # the top levels: no range asks about them
            return out
        for p in range(self.partitions):
            keys = [self._item(f, f"k{level}-{r}-{p}", "keys", p) for r, f in enumerate(ordered[level])]
            questions = [self._item(ordered[above][r], f"q{above}-{r}-{level}-{p}", "questions", (level, p))
                         for above, r in asking]
            answering = self._submit(answer, level, keys, questions, name=f"answer-{level}-{p}", on=p)
            for i, (above, r) in enumerate(asking):
                out[above, r, p] = self._item(answering, f"a{level}-{p}-{above}-{r}", i)
        return out

    def _assemble(self, level: int, written: list, answers: dict[int, dict]) -> Any:
        """A level's ranges assembled, and its file written: by its one range, or from their blocks."""
        blocks, ranges_ = [], len(written)
        for r in range(ranges_):
            given = [(lower, p, answers[lower][level, r, p]) for lower in self.reaches.get(level, [])
                     for p in range(self.partitions)]
            blocks.append(self._submit(assemble_range, self.root, self.table, level, r, given, written[r], ranges_ == 1,
                                       name=f"assemble-{level}-{r}", on=r if ranges_ > 1 else level))
        if ranges_ == 1:
            return blocks[0]
        return self._submit(write_level, self.root, self.table, level, ranges_, blocks, name=f"level-{level}",
                            on=level)


def whole(held: dict[int, int], limit: int | None) -> bool:
    """Whether a listing whose levels hold ``held`` bytes of rows in Arrow is numbered by one task
    (``number_whole``): it holds at most ``WHOLE_BYTES`` in all, and a level's copies as it is numbered,
    with the next level read beside it, take at most ``RANGE_SHARE`` of the least worker's ``limit``."""
    largest = max(held.values(), default=0)
    return sum(held.values()) <= WHOLE_BYTES and (not limit or (RANGE_COPIES + 1) * largest <= RANGE_SHARE * limit)


def waited_for(held: list[int], i: int, budget: float) -> int:
    """Of levels from the top holding ``held`` bytes each, the index of the level the ``i``-th waits for,
    written, before it is ordered; -1: none. The ``LEVELS_AT_ONCE`` - 1 levels above it are ordered beside
    it, and so are the levels above those while all of them hold at most ``budget`` bytes together."""
    waits = i - LEVELS_AT_ONCE
    together = sum(held[max(waits + 1, 0):i + 1])
    while waits >= 0 and together + held[waits] <= budget:
        together += held[waits]
        waits -= 1
    return max(waits, -1)


def ranges(positions: int, held: int, room: float | None, partitions: int) -> int:
    """How many ranges a level of so many positions, ``held`` bytes in Arrow, is numbered in: one for each
    ``RANGE_ROWS`` positions, at most one a partition, and more if each range's rows are to take at most
    ``room`` bytes (None: any)."""
    by_bytes = int(-(-held // room)) if room else 1
    return max(1, min(partitions, -(-positions // RANGE_ROWS)), by_bytes)
