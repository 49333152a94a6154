"""A plain game's positions listed in shares: each partition finds, expands and numbers its own.

A position belongs to the partition its text's hash names (``hashing.py``),
so that every host agrees without asking. The search goes level by level from
the top: a partition's share of a level is what reached it from the levels
above, each position once (``fresh``); it plays their moves (``expand``),
recording each move with its child's level and hash, and sends each child,
as its notation, to the child's owner (``routed``). A level's positions are
numbered once all are found, in ranges of notation (``ranges.py``): by
notation, as the engine has always numbered them, so that keys are the same
whatever the partitions.

A position travels, and is kept in the work files, as its notation only:
its owner reads it back with the game's ``read``, which must undo ``format``
(checked on every position played: ``read_all`` spells each again), and
positions found side by side must be spelt apart (``apart``; copies that
meet at their owner must agree on their level, ``fresh``). A share's moves
are kept as JSON (``encoded.py``). Nothing is pickled: what a folder holds
is data, never code (docs/security.md).

These are functions of Arrow tables: where the tables live, and how they
travel, is the caller's (``tablebase.build.census.share_tasks``).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from tablebase.errors import StoreError, TablebaseError
from tablebase.games import KEY_BITS, PlainGame
from tablebase.lazy import np, pa, pc
from tablebase.listed import level_of
from tablebase.listing.checked import apart, game_failed, read_all, read_back, spelt
from tablebase.listing.encoded import decoded_moves, encoded_moves
from tablebase.listing.expand import Chunk, expand_chunk
from tablebase.listing.game_limits import too_many, watched
from tablebase.listing.hashing import owners, text_hashes
from tablebase.listing.rules import PlainRules

START_BATCH = 20_000  # start positions a table of them holds: the start task holds one at a time
MOVES_KEY = b"tablebase.moves"  # a share's metadata: its distinct moves, that moves{s} number, as JSON
FIRST_KEY = b"tablebase.first"  # and its first text by notation (UTF-8)


def travelling(game: PlainGame, positions: list, levels: np.ndarray, seconds: float | None) -> pa.Table:
    """Distinct positions as they travel to their owners: hash, level and notation (all that travels: two
    positions spelt alike are refused)."""
    with watched(game, "format", seconds) as watch:
        try:
            texts = spelt(game, positions, watch)
        except Exception as e:
            raise game_failed(game, e, watch.at) from None
    if len(pc.unique(texts)) != len(texts):  # Arrow's hashing rather than a Python set of every text
        apart(game, texts.to_pylist(), positions)
    return pa.table({"hash": pa.array(text_hashes(texts), pa.uint64()), "level": pa.array(levels, pa.int64()),
                     "text": texts})


def routed(positions: pa.Table, partitions: int) -> list[pa.Table]:
    """The positions split by owner, in their order: one table per partition."""
    return split_by(positions, owners(positions.column("hash").to_numpy(), partitions), partitions)


def split_by(rows: pa.Table, which: np.ndarray, parts: int) -> list[pa.Table]:
    """Rows split by ``which`` (each row's part, 0 .. parts - 1), each part in the rows' order.

    Each part is taken into buffers of its own, not sliced from one table of
    them all: Dask sizes an Arrow slice by its whole buffers, so each of a
    task's parts counted as all of them, and a task waiting for one of
    Kayles' 44-pin ranges on two hosts was refused for its "801 MiB worth of
    input dependencies" by a worker limited to 600 MiB.
    """
    order = np.argsort(which, kind="stable")
    cuts = np.searchsorted(which[order], np.arange(parts + 1))
    return [rows.take(pa.array(order[a:b])) for a, b in zip(cuts[:-1], cuts[1:])]


def starting(game: PlainGame, seconds: float | None, limit: int | None, batch: int = START_BATCH,
             rules: PlainRules | None = None, share: tuple[int, int] = (0, 1)) -> Iterator[pa.Table]:
    """The start positions as they travel (``travelling``), in tables of up to ``batch``, each once in its
    table: a game may start from millions, which no one process need hold at once. A position given in two
    tables travels twice, and its owner keeps it once (``fresh``), as it does a position reached twice: to
    tell it here, this process would hold the hash of every position before it, and look each table up
    among them. The game's code is watched while it gives a table, not while the caller writes it. ``rules``:
    where reduced, each start position is taken to its representative. ``share``: (part, parts), only the
    positions whose level is ``part`` modulo ``parts``, as one of ``parts`` processes that share the start
    (each is given every start position, and only a position's level tells them apart whatever order
    each is given them in)."""
    part, parts = share
    given, total = None, 0
    while True:
        found: dict[Any, int] = {}
        with watched(game, "start_positions", seconds) as watch:
            try:
                if given is None:
                    given = iter(game.start_positions() if rules is None else rules.start_positions(game))
                for p in given:
                    if p not in found:
                        watch.at = p
                        found[p] = level_of(game, p)
                        if len(found) == batch:
                            break
            except Exception as e:
                raise game_failed(game, e) from None
        total += len(found)  # each share counts, and is timed on, every position given, as one alone
        if limit is not None and total > limit:
            raise too_many(game.name, limit)
        mine = found if parts == 1 else {p: level for p, level in found.items() if level % parts == part}
        if mine:
            yield travelling(game, list(mine), np.fromiter(mine.values(), dtype=np.int64, count=len(mine)), seconds)
        if len(found) < batch:
            break
    if not total:
        raise TablebaseError(f"{game.name}: start_positions() gave no position")


def fresh(game: PlainGame, inbox: pa.Table, seen: np.ndarray) -> pa.Table:
    """A share's positions of a level, each once, by hash: what reached it less what it has ``seen``.

    Copies of a position carry the same text and level; two texts with one
    hash, or one text at two levels (``format`` giving two positions one
    text), are refused.
    """
    inbox = inbox.select(["hash", "level", "text"])
    inbox = inbox.take(pc.sort_indices(inbox, [("hash", "ascending")]))
    hashes = inbox.column("hash").to_numpy()
    same = hashes[1:] == hashes[:-1]
    if same.any():
        pairs = np.flatnonzero(same)
        texts, next_texts = inbox.column("text").take(pairs), inbox.column("text").take(pairs + 1)
        clash = np.flatnonzero(~pc.equal(texts, next_texts).to_numpy(zero_copy_only=False))
        if len(clash):
            a, b = texts[int(clash[0])].as_py(), next_texts[int(clash[0])].as_py()
            raise TablebaseError(f"{game.name}: the notations {a!r} and {b!r} share a 64-bit hash; the engine "
                                 "cannot list this game (spell one of them otherwise)")
        levels = inbox.column("level").to_numpy()
        clash = np.flatnonzero(levels[pairs] != levels[pairs + 1])
        if len(clash):
            j = int(pairs[clash[0]])
            raise TablebaseError(f"{game.name}: format() gives {inbox.column('text')[j].as_py()!r} for two different "
                                 f"positions, of levels {levels[j]} and {levels[j + 1]}")
    keep = np.ones(len(hashes), dtype=np.bool_)
    keep[1:] = ~same
    if len(seen):
        keep &= ~np.isin(hashes, seen)
    return inbox.filter(pa.array(keep)).drop_columns(["level"])


def expand(game: PlainGame, rules: PlainRules, level: int, share: pa.Table,
           seconds: float | None) -> tuple[pa.Table, pa.Table]:
    """Play a share of a level: its rows (hash, text, each side's moves with their children's hashes and
    levels, results) and its children, each once, as they travel. Its positions are read from their text."""
    with watched(game, "read", seconds) as watch:
        try:
            positions = read_all(game, share.column("text").to_pylist(), watch)
        except TablebaseError:
            raise
        except Exception as e:
            raise game_failed(game, e) from None
    chunk = expand_chunk(game, rules, positions, seconds, spell=False)
    children = chunk.found.tolist() if isinstance(chunk.found, np.ndarray) else chunk.found
    _check_levels(game, rules, level, positions, children, chunk)
    reached = travelling(game, children, chunk.found_levels, seconds)
    return _rows(game, share, chunk, reached, rules.result_of is not None), reached


def _check_levels(game: PlainGame, rules: PlainRules, level: int, positions: list, children: list,
                  chunk: Chunk) -> None:
    """Every move must lower the level (or, with ``same_level``, keep it): one line naming the first that does not."""
    levels = chunk.found_levels
    bad = levels > level if rules.same_level else levels >= level  # indexed by child number (no extra-turn mark)
    if not bad.any():
        return
    for s, parts in enumerate(chunk.parts):
        hits = np.flatnonzero(bad[parts & KEY_BITS]) if len(parts) else []
        if len(hits):
            part = int(hits[0])
            per_move = chunk.part_counts[s] if chunk.part_counts[s] is not None else np.ones(len(chunk.moves[s]), int)
            move = int(np.searchsorted(np.cumsum(per_move), part, side="right"))
            parent = int(np.searchsorted(np.cumsum(chunk.counts[s]), move, side="right"))
            child = int(parts[part]) & KEY_BITS
            raise TablebaseError(
                f"{game.name}: a move from {game.format(positions[parent])!r} (level {level}) leads to "
                f"{game.format(children[child])!r} (level {int(levels[child])}); every move must lower the level"
                + (" or keep it" if rules.same_level else ""))


def _lists(offsets: np.ndarray, values: pa.Array) -> pa.ListArray:
    return pa.ListArray.from_arrays(pa.array(offsets.astype(np.int32)), values)


def _firsts(counts: np.ndarray) -> np.ndarray:
    out = np.zeros(len(counts) + 1, dtype=np.int64)
    np.cumsum(counts, out=out[1:])
    return out


def _rows(game: PlainGame, share: pa.Table, chunk: Chunk, reached: pa.Table, results: bool) -> pa.Table:
    """A share's rows as stored until its level is assembled (``assemble`` reads them). Each move's
    children (``parts{s}``, their hashes, and ``levels{s}``) are a list of the move's parts where a game's
    positions split into parts, else the child itself: every move's bytes pass through the work files
    several times before the listing's level files, and a list of one for each made them twice as large."""
    hashes, levels = reached.column("hash").to_numpy(), reached.column("level").to_numpy()
    columns: dict[str, pa.Array] = {"hash": share.column("hash").combine_chunks(),
                                    "text": share.column("text").combine_chunks()}
    if results:
        outcome = np.full(share.num_rows, -1, dtype=np.int8)
        score = np.zeros(share.num_rows, dtype=np.int64)
        for j, (o, s) in chunk.results.items():
            outcome[j], score[j] = o, s
        columns["outcome"], columns["score"] = pa.array(outcome), pa.array(score)
    for s, counts in enumerate(chunk.counts):
        offsets = _firsts(counts)
        parts = np.asarray(chunk.parts[s], dtype=np.int64)
        children, marks = parts & KEY_BITS, parts & ~KEY_BITS
        # A child's level carries the extra-turn mark (``AGAIN``) its key will carry: a hash has no room for it.
        child_hashes = pa.array(hashes[children], pa.uint64())
        child_levels = pa.array(levels[children] | marks, pa.int64())
        if chunk.part_counts[s] is not None:  # a move's parts, each a list of its own
            starts = _firsts(chunk.part_counts[s])
            child_hashes, child_levels = _lists(starts, child_hashes), _lists(starts, child_levels)
        columns[f"moves{s}"] = _lists(offsets, pa.array(chunk.moves[s], pa.int64()))
        columns[f"parts{s}"] = _lists(offsets, child_hashes)
        columns[f"levels{s}"] = _lists(offsets, child_levels)
    table = pa.table(columns)
    metadata = {MOVES_KEY: encoded_moves(game.name, list(chunk.distinct_moves))}
    if share.num_rows:  # the share's first by notation: perhaps its level's first
        metadata[FIRST_KEY] = pc.min(share.column("text")).as_py().encode()
    return table.replace_schema_metadata(metadata)


def moves_of(table: pa.Table) -> list:
    """The distinct moves a share's rows number (``moves{s}`` index them)."""
    return share_moves(table.schema.metadata or {})


def share_moves(metadata: dict[bytes, bytes]) -> list:
    """The distinct moves a share's metadata names; StoreError if it names none."""
    if MOVES_KEY not in metadata:
        raise StoreError("a share of the listing names no moves")
    return decoded_moves(metadata[MOVES_KEY])


def share_first(metadata: dict[bytes, bytes]) -> str | None:
    """A share's first text by notation, if it has any rows."""
    first = metadata.get(FIRST_KEY)
    try:
        return None if first is None else first.decode()
    except UnicodeError:
        raise StoreError("a share of the listing names a first text that is not UTF-8") from None


def reads_back(game: PlainGame, firsts: list[str], seconds: float | None) -> None:
    """``read`` must undo ``format``: tried once more, as a listing in one process does, on the first position
    by notation of a level (the least of its shares' ``FIRST_KEY``), so that no table is built whose lookups
    cannot read its own positions."""
    text = min(firsts)
    with watched(game, "read", seconds) as watch:
        watch.at = text
        problem = read_back(game, text)
    if problem is not None:
        raise TablebaseError(problem)


def looked_up(keys: pa.Table, hashes: np.ndarray) -> np.ndarray:
    """The keys of these hashes, from a level's (hash, key) table sorted by hash (every hash must be there)."""
    known = keys.column("hash").to_numpy()
    where = np.minimum(np.searchsorted(known, hashes), max(len(known) - 1, 0))
    if not len(known) or not np.array_equal(known[where], hashes):
        raise TablebaseError("the listing lost a position on the way (a share was not written whole); "
                             "build the table again into a fresh folder")
    return keys.column("key").to_numpy()[where]


def coded(table: pa.Table, code_of: dict[Any, int]) -> pa.Table:
    """A share's rows with each side's moves as the game's move codes (their rank among all its moves)."""
    local = np.array([code_of[m] for m in moves_of(table)] or [0], dtype=np.int64)
    s = 0
    while f"moves{s}" in table.column_names:
        column = table.column(f"moves{s}").combine_chunks()
        values = column.flatten().to_numpy()
        offsets = column.offsets.to_numpy()
        index = table.column_names.index(f"moves{s}")
        table = table.set_column(index, f"moves{s}", _lists(offsets - offsets[0], pa.array(local[values])))
        s += 1
    return table
