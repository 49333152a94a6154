"""The engine's own list of a game's positions, for games that do not list their levels.

A plain game (positions as Python values) is explored forward from its start
positions, once, in one process: every position is found, its moves are
recorded, and positions are numbered by level and then by notation (so the
numbering does not depend on the order of the search, and a rebuild gives
the same keys). Keys run densely from 0, level after level. A move is
recorded by its *code*: the rank of the move among all the game's moves in
their own order, so "the smallest code" is "the smallest move".

A keyed game that gives ``start_keys()`` instead of listing its levels is
explored the same way in numpy batches; only the keys of each level are kept.

The result, ``Listing``, holds per level the positions' notation and each
side's moves in compressed rows (the form of ``SumMoves``: a move leads to
a list of parts; impartial and scored games have one side and one part per
move), and for scored games how finished positions ended.
"""

from __future__ import annotations

import time
from array import array
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import psutil
import pyarrow as pa
import pyarrow.compute as pc

from tablebase.errors import TablebaseError
from tablebase.games import KeyedGame, PlainGame, SumMoves

# A side's moves of a position: (move, position) pairs.
Moves = Callable[[Any], Iterable[tuple[Any, Any]]]
TICK = 4096  # positions between looks at the clock


@dataclass
class LevelRows:
    """One level of a listing, positions in key order."""

    texts: pa.Array | None = None  # plain games: the notation of each position
    sides: list[SumMoves] = field(default_factory=list)  # plain games: each side's moves
    outcome: np.ndarray | None = None  # scored plain games: a finished position's Outcome, -1 if not finished
    score: np.ndarray | None = None
    keys: np.ndarray | None = None  # keyed games: the level's keys, ascending


@dataclass
class Listing:
    """Every position of a game as the engine found it, by level."""

    sizes: np.ndarray  # positions per level, 0..max_level
    move_names: list[str] = field(default_factory=list)  # plain games: the name of each move code
    levels: dict[int, LevelRows] = field(default_factory=dict)
    max_moves: int = 0  # plain games: the most moves of one position on one side
    held: int = 0  # bytes the search added to its process at its peak, as sampled

    @property
    def offsets(self) -> np.ndarray:
        """The first key of each level (plain games), and the total at the end."""
        out = np.zeros(len(self.sizes) + 1, dtype=np.int64)
        np.cumsum(self.sizes, out=out[1:])
        return out


class Progress:
    """Reports a search every ``every`` seconds through ``say``, and stops it before memory runs out.

    ``memory`` is the most this process may hold (bytes), if known: a search
    that grows past it ends with one line instead of being killed.
    """

    def __init__(self, say: Callable[[str], None] | None, memory: int | None = None, every: float = 1.0) -> None:
        self.say, self.every, self.memory = say, every, memory
        self.began = self.last = time.perf_counter()
        self.process = psutil.Process()
        self.start_rss = self.peak_rss = self.process.memory_info().rss

    def tick(self, found: int, waiting: int) -> None:
        now = time.perf_counter()
        if now - self.last < self.every:
            return
        self.last = now
        rss = self.process.memory_info().rss
        self.peak_rss = max(self.peak_rss, rss)
        if self.memory is not None and rss > self.memory:
            raise TablebaseError(
                f"listing the positions needs more than the {self.memory / 2**20:,.0f} MiB one worker may hold "
                f"({found:,} found so far); give workers more memory (fewer of them, or --memory-limit) "
                "or give the game a keyed form that lists its own levels"
            )
        if self.say is not None:
            rate = found / max(now - self.began, 1e-9)
            self.say(f"listing positions: {found:,} found, {waiting:,} to expand, {rate:,.0f}/s, "
                     f"{(rss - self.start_rss) / 2**20:,.0f} MiB held")

    @property
    def held(self) -> int:
        """The most memory the search added to this process, as sampled."""
        return max(self.peak_rss, self.process.memory_info().rss) - self.start_rss


@dataclass
class _Side:
    """One side's moves as the search records them, position by position."""

    count: array = field(default_factory=lambda: array("q"))  # per position: its number of moves
    raw: list = field(default_factory=list)  # per move: the move, as the game gave it
    parts: array | None = None  # per move: its first part (None: one part per move)
    part: array = field(default_factory=lambda: array("q"))  # per part: the position's id


def list_plain(game: PlainGame, sides: list[Moves], split: Callable[[Any], Sequence[Any]] | None,
               result_of: Callable[[Any], tuple[int, int]] | None, same_level: bool,
               limit: int | None = None, say: Callable[[str], None] | None = None,
               memory: int | None = None) -> Listing:
    """Find every position of a plain game from its start positions; number them; record their moves.

    ``sides``: each side's moves of a position, (move, position) pairs;
    ``split(q)`` the parts a position reached falls into (None: it stays
    whole); ``result_of(p)`` how a position without moves ended (scored
    games); ``same_level``: moves may stay in their level. ``limit`` stops a
    search that finds more positions, ``memory`` one that holds more bytes.
    """
    ids: dict[Any, int] = {}
    positions: list[Any] = []
    level_of = array("q")
    records = [_Side(parts=None if split is None else array("q")) for _ in sides]
    finished: dict[int, tuple[int, int]] = {}
    progress = Progress(say, memory)
    level = game.level

    def new(p: Any) -> int:
        """Number a position met for the first time (levels are checked once the search is over)."""
        lp = level(p)
        if not isinstance(lp, (int, np.integer)) or lp < 0:
            raise TablebaseError(f"{game.name}: level({p!r}) must be a whole number >= 0, got {lp!r}")
        i = ids[p] = len(positions)
        positions.append(p)
        level_of.append(int(lp))
        if limit is not None and i >= limit:
            raise TablebaseError(f"{game.name}: more than {limit:,} positions")
        return i

    try:
        for p in game.start_positions():
            if p not in ids:
                new(p)
        if not positions:
            raise TablebaseError(f"{game.name}: start_positions() gave no position")
        if len(sides) == 1 and split is None:
            _search_one_part(positions, ids, new, sides[0], records[0], result_of, finished, progress)
        else:
            _search(positions, ids, new, sides, records, split, result_of, finished, progress)
    except TypeError as e:
        if "unhashable" in str(e):
            raise TablebaseError(f"{game.name}: positions must be hashable (use tuples, not lists): {e}") from None
        raise
    for record in records:
        _check_levels(game, positions, level_of, record, same_level)
    listing = _number(game, positions, level_of, records, finished if result_of else None)
    progress.tick(len(positions), 0)
    listing.held = progress.held
    return listing


def _search_one_part(positions: list, ids: dict, new: Callable[[Any], int], moves_of: Moves, record: _Side,
                     result_of: Any, finished: dict, progress: Progress) -> None:
    """The search for games with one side whose moves lead to one position each (impartial, scored).

    Every position is expanded once, in the order it was numbered; this loop
    runs once per move of the whole game, so it does no more than it must.
    """
    get = ids.get
    raw, part, count = record.raw.append, record.part.append, record.count.append
    expanded = 0
    while expanded < len(positions):
        p = positions[expanded]
        before = len(record.part)
        for move, child in moves_of(p):
            raw(move)
            c = get(child)
            part(new(child) if c is None else c)
        n = len(record.part) - before
        count(n)
        if not n and result_of is not None:
            finished[expanded] = result_of(p)
        expanded += 1
        if not expanded % TICK:
            progress.tick(len(positions), len(positions) - expanded)


def _search(positions: list, ids: dict, new: Callable[[Any], int], sides: list[Moves], records: list[_Side],
            split: Callable[[Any], Sequence[Any]] | None, result_of: Any, finished: dict, progress: Progress) -> None:
    """The search for any game: several sides (partizan), moves leading to sums of parts."""
    get = ids.get
    expanded = 0
    while expanded < len(positions):
        p = positions[expanded]
        any_move = False
        for record, moves_of in zip(records, sides):
            before = len(record.raw)
            for move, child in moves_of(p):
                record.raw.append(move)
                if split is None:
                    c = get(child)
                    record.part.append(new(child) if c is None else c)
                else:
                    record.parts.append(len(record.part))
                    for piece in split(child):
                        c = get(piece)
                        record.part.append(new(piece) if c is None else c)
            record.count.append(len(record.raw) - before)
            any_move = any_move or len(record.raw) > before
        if not any_move and result_of is not None:
            finished[expanded] = result_of(p)
        expanded += 1
        if not expanded % TICK:
            progress.tick(len(positions), len(positions) - expanded)


def _check_levels(game: PlainGame, positions: list, level_of: array, side: _Side, same_level: bool) -> None:
    """Every move must lower the level (or, with ``same_level``, keep it): one line naming the first that does not."""
    levels = _as_numpy(level_of)
    counts = _as_numpy(side.count)
    if side.parts is None:
        parent = np.repeat(np.arange(len(counts)), counts)
    else:
        per_move = np.diff(np.append(_as_numpy(side.parts), len(side.part)))
        parent = np.repeat(np.repeat(np.arange(len(counts)), counts), per_move)
    child = _as_numpy(side.part)
    bad = levels[child] > levels[parent] if same_level else levels[child] >= levels[parent]
    if bad.any():
        j = int(np.flatnonzero(bad)[0])
        p, c = positions[parent[j]], positions[child[j]]
        raise TablebaseError(
            f"{game.name}: a move from {game.format(p)!r} (level {levels[parent[j]]}) leads to "
            f"{game.format(c)!r} (level {levels[child[j]]}); every move must lower the level"
            + (" or keep it" if same_level else "")
        )


def _intern(game: PlainGame, records: list[_Side]) -> tuple[list[np.ndarray], list[str]]:
    """Each side's move codes (a move's rank among all the game's moves, in their own order) and the names."""
    raws = [record.raw for record in records]
    try:  # whole numbers, the common case: ranked in one numpy pass
        arrays = [np.array(raw) if raw else np.zeros(0, dtype=np.int64) for raw in raws]
        if not all(a.ndim == 1 and a.dtype.kind in "iu" for a in arrays):
            raise ValueError("not all whole numbers")
        seen = distinct(np.concatenate(arrays).astype(np.int64))
        codes = [np.searchsorted(seen, a) for a in arrays]
        moves = seen.tolist()
    except (ValueError, TypeError, OverflowError):
        ids: dict[Any, int] = {}
        found = [np.array([ids.setdefault(m, len(ids)) for m in raw], dtype=np.int64) for raw in raws]
        moves = list(ids)
        try:
            ranked = sorted(range(len(moves)), key=lambda m: moves[m])
        except TypeError as e:
            raise TablebaseError(f"{game.name}: moves must sort among themselves (ints, strings or tuples): {e}") from None
        rank = np.empty(len(moves), dtype=np.int64)
        rank[np.array(ranked, dtype=np.int64)] = np.arange(len(moves), dtype=np.int64)
        codes = [rank[f] for f in found]
        moves = [moves[m] for m in ranked]
    for record in records:
        record.raw = []  # no longer needed: free the moves
    names = [game.move_name(m) for m in moves]
    if len(set(names)) != len(names):
        raise TablebaseError(f"{game.name}: move_name() gives one name to two different moves")
    return codes, names


def _number(game: PlainGame, positions: list, level_of: array, records: list[_Side],
            finished: dict[int, tuple[int, int]] | None) -> Listing:
    """Keys by level then notation; move codes by the moves' own order; moves per level in key order."""
    levels = _as_numpy(level_of)
    codes, names = _intern(game, records)
    texts = pa.array([game.format(p) for p in positions], pa.string())
    top = int(levels.max())
    sizes = np.bincount(levels, minlength=top + 1).astype(np.int64)
    order = pc.sort_indices(pa.table({"level": levels, "text": texts}), [("level", "ascending"), ("text", "ascending")])
    ordered = order.to_numpy()
    in_order = texts.take(order)
    if pc.count_distinct(texts).as_py() < len(positions):  # lookups read positions by their text
        by_text = texts.take(pc.sort_indices(texts))
        twice = by_text[int(np.flatnonzero(pc.equal(by_text[1:], by_text[:-1]).to_numpy(zero_copy_only=False))[0])]
        raise TablebaseError(f"{game.name}: format() gives {twice.as_py()!r} for two different positions")
    key_of = np.empty(len(positions), dtype=np.int64)
    key_of[ordered] = np.arange(len(positions), dtype=np.int64)
    most = max((int(_as_numpy(record.count).max(initial=0)) for record in records), default=0)
    listing = Listing(sizes, names, max_moves=most)
    offsets = listing.offsets
    for level in range(top + 1):
        members = ordered[offsets[level] : offsets[level + 1]]  # ids in key order
        rows = LevelRows(texts=in_order[offsets[level] : offsets[level + 1]])
        rows.sides = [_side_rows(members, record, side_codes, key_of) for record, side_codes in zip(records, codes)]
        if finished is not None:
            rows.outcome = np.full(len(members), -1, dtype=np.int8)
            rows.score = np.zeros(len(members), dtype=np.int64)
            for j, i in enumerate(members.tolist()):
                if i in finished:
                    rows.outcome[j], rows.score[j] = finished[i]
        listing.levels[level] = rows
    return listing


def gather(starts: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """The indices ``starts[i] .. starts[i] + counts[i] - 1`` of every i, one run after another."""
    total = int(counts.sum())
    if not total:
        return np.zeros(0, dtype=np.int64)
    run_starts = np.repeat(starts - np.concatenate([[0], np.cumsum(counts)[:-1]]), counts)
    return run_starts + np.arange(total, dtype=np.int64)


def _as_numpy(values: array) -> np.ndarray:
    return np.frombuffer(values, dtype=np.int64) if len(values) else np.zeros(0, dtype=np.int64)


def _side_rows(members: np.ndarray, side: _Side, codes: np.ndarray, key_of: np.ndarray) -> SumMoves:
    all_counts = _as_numpy(side.count)
    firsts = np.cumsum(all_counts) - all_counts
    firsts, counts = firsts[members], all_counts[members]
    moves = gather(firsts, counts)
    if side.parts is None:
        part_starts, part_counts = moves, np.ones(len(moves), dtype=np.int64)
    else:
        all_parts = _as_numpy(side.parts)
        part_starts = all_parts[moves]
        # A move's parts end where the next move's begin (moves were recorded in order).
        part_counts = np.append(all_parts, len(side.part))[moves + 1] - part_starts
    parts = gather(part_starts, part_counts)
    offsets = np.zeros(len(members) + 1, dtype=np.int64)
    np.cumsum(counts, out=offsets[1:])
    starts = np.zeros(len(moves) + 1, dtype=np.int64)
    np.cumsum(part_counts, out=starts[1:])
    child = key_of[_as_numpy(side.part)[parts]] if len(parts) else np.zeros(0, dtype=np.int64)
    return SumMoves(offsets, codes[moves], starts, child, np.zeros(len(child), dtype=np.bool_))


CHUNK = 1 << 20  # keys expanded at once when listing a keyed game: bounds the moves held


def distinct(keys: np.ndarray) -> np.ndarray:
    """The distinct keys, ascending (numpy's unique takes seconds for a few million keys here; sorting does not)."""
    if not len(keys):
        return keys.astype(np.int64)
    ordered = np.sort(keys)
    keep = np.empty(len(ordered), dtype=np.bool_)
    keep[0] = True
    np.not_equal(ordered[1:], ordered[:-1], out=keep[1:])
    return ordered[keep]


def list_keys(game: KeyedGame, successors: Callable[[np.ndarray], np.ndarray], same_level: bool,
              say: Callable[[str], None] | None = None) -> Listing:
    """Find every key of a keyed game reachable from ``start_keys()``, level by level from the top."""
    start = distinct(np.asarray(game.start_keys(), dtype=np.int64))
    if not len(start):
        raise TablebaseError(f"{game.name}: start_keys() gave no position")
    waiting: dict[int, list[np.ndarray]] = {}
    for level, keys in _by_level(game, start):
        waiting.setdefault(level, []).append(keys)
    found: dict[int, np.ndarray] = {}
    progress = Progress(say)
    while waiting:
        level = max(waiting)
        keys = distinct(np.concatenate(waiting.pop(level)))
        fresh = keys
        while len(fresh):  # moves that stay in the level may reach more of it
            reached = []
            for begin in range(0, len(fresh), CHUNK):
                for child_level, child_keys in _by_level(game, successors(fresh[begin:begin + CHUNK])):
                    if child_level > level or (child_level == level and not same_level):
                        raise TablebaseError(f"{game.name}: a move from level {level} leads to level {child_level}; "
                                             "every move must lower the level")
                    if child_level == level:
                        reached.append(child_keys)
                    else:
                        waiting.setdefault(child_level, []).append(child_keys)
                # Merged as they come, so a level's children are held once each.
                for child_level in list(waiting):
                    if len(waiting[child_level]) > 8:
                        waiting[child_level] = [distinct(np.concatenate(waiting[child_level]))]
            grown = distinct(np.concatenate([keys, *reached])) if reached else keys
            fresh = np.setdiff1d(grown, keys, assume_unique=True)
            keys = grown
        found[level] = keys
        progress.tick(sum(len(k) for k in found.values()), sum(len(k) for ks in waiting.values() for k in ks))
    top = max(found)
    listing = Listing(np.array([len(found.get(level, ())) for level in range(top + 1)], dtype=np.int64))
    for level in range(top + 1):
        listing.levels[level] = LevelRows(keys=found.get(level, np.zeros(0, dtype=np.int64)))
    listing.held = progress.held
    return listing


def _by_level(game: KeyedGame, keys: np.ndarray) -> list[tuple[int, np.ndarray]]:
    if not len(keys):
        return []
    levels = np.asarray(game.levels_of(keys), dtype=np.int64)
    order = np.argsort(levels, kind="stable")
    levels, keys = levels[order], keys[order]
    cuts = np.flatnonzero(np.diff(levels)) + 1
    return [(int(ls[0]), distinct(ks)) for ls, ks in zip(np.split(levels, cuts), np.split(keys, cuts))]


# -- a listing level as a table, for the store --------------------------------------
def level_table(rows: LevelRows) -> pa.Table:
    """One level of a listing as an Arrow table: keys, or notation and each side's moves (and results)."""
    if rows.keys is not None:
        return pa.table({"key": pa.array(rows.keys, pa.int64())})
    columns: dict[str, pa.Array] = {"position": rows.texts}
    for s, side in enumerate(rows.sides):
        offsets = pa.array(side.offsets.astype(np.int32))
        columns[f"moves{s}"] = pa.ListArray.from_arrays(offsets, pa.array(side.moves, pa.int64()))
        parts = pa.ListArray.from_arrays(pa.array(side.starts.astype(np.int32)), pa.array(side.keys, pa.int64()))
        columns[f"parts{s}"] = pa.ListArray.from_arrays(offsets, parts)
    if rows.outcome is not None:
        columns["outcome"] = pa.array(rows.outcome, pa.int8())
        columns["score"] = pa.array(rows.score, pa.int64())
    return pa.table(columns)


def level_rows(table: pa.Table) -> LevelRows:
    """The inverse of ``level_table``."""
    if "key" in table.column_names:
        return LevelRows(keys=table.column("key").to_numpy())
    rows = LevelRows(texts=table.column("position").combine_chunks())
    s = 0
    while f"moves{s}" in table.column_names:
        moves = table.column(f"moves{s}").combine_chunks()
        parts = table.column(f"parts{s}").combine_chunks()
        offsets = moves.offsets.to_numpy().astype(np.int64)
        inner = parts.flatten()
        starts = inner.offsets.to_numpy().astype(np.int64)
        keys = inner.flatten().to_numpy()
        rows.sides.append(SumMoves(offsets - offsets[0], moves.flatten().to_numpy(), starts - starts[0], keys,
                                   np.zeros(len(keys), dtype=np.bool_)))
        s += 1
    if "outcome" in table.column_names:
        rows.outcome = table.column("outcome").to_numpy()
        rows.score = table.column("score").to_numpy()
    return rows
