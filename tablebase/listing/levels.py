"""A listing: the engine's own list of a game's positions, level by level, for games that do not list them.

A plain game (positions as Python values) is explored forward from its start
positions (``explore.py``): every position is found, its moves are recorded,
and positions are numbered by level and then by notation (so the numbering
does not depend on the order of the search, and a rebuild gives the same
keys). Keys run densely from 0, level after level. A move is recorded by its
*code*: the rank of the move among all the game's moves in their own order,
so "the smallest code" is "the smallest move".

A keyed game that gives ``start_keys()`` instead of listing its levels is
explored level by level in numpy batches (``list_keys``); only the keys of
each level are kept.

The result, ``Listing``, holds per level (``listed.level_rows.LevelRows``) the
positions' notation and each side's moves in compressed rows (the form of ``SumMoves``: a move leads to
a list of parts; impartial and scored games have one side and one part per
move), and for scored games how finished positions ended.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

from tablebase.errors import TablebaseError
from tablebase.games import KeyedGame, SumMoves
from tablebase.games.base import MAX_LEVEL
from tablebase.lazy import np, pa, psutil
from tablebase.listed.level_rows import LevelRows, distinct
from tablebase.listing.game_limits import current_limits, too_many


@dataclass
class Listing:
    """Every position of a game as the engine found it, by level."""

    sizes: np.ndarray  # positions per level, 0..max_level
    move_names: list[str] = field(default_factory=list)  # plain games: the name of each move code
    levels: dict[int, LevelRows] = field(default_factory=dict)  # the levels that hold positions
    max_moves: int = 0  # plain games: the most moves of one position on one side
    mean_moves: float = 0.0  # plain games: moves per position, all sides
    held: int = 0  # bytes the search added to its process at its peak, as sampled

    @property
    def offsets(self) -> np.ndarray:
        """The first key of each level (plain games), and the total at the end."""
        out = np.zeros(len(self.sizes) + 1, dtype=np.int64)
        np.cumsum(self.sizes, out=out[1:])
        return out


class ListingProgress:
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


CHUNK = 1 << 20  # keys expanded at once when listing a keyed game: bounds the moves held


def list_keys(game: KeyedGame, successors: Callable[[np.ndarray], np.ndarray], same_level: bool,
              say: Callable[[str], None] | None = None) -> Listing:
    """Find every key of a keyed game reachable from ``start_keys()``, level by level from the top (at
    most the current limits' positions, ``limits.current_limits``)."""
    limit = current_limits().positions_for(plain=False)
    start = distinct(np.asarray(game.start_keys(), dtype=np.int64))
    if not len(start):
        raise TablebaseError(f"{game.name}: start_keys() gave no position")
    waiting: dict[int, list[np.ndarray]] = {}
    for level, keys in _by_level(game, start):
        waiting.setdefault(level, []).append(keys)
    found: dict[int, np.ndarray] = {}
    progress = ListingProgress(say)
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
        total = sum(len(k) for k in found.values())
        if limit is not None and total > limit:
            raise too_many(game.name, limit)
        progress.tick(total, sum(len(k) for ks in waiting.values() for k in ks))
    sizes = np.zeros(max(found) + 1, dtype=np.int64)
    for level, keys in found.items():
        sizes[level] = len(keys)
    listing = Listing(sizes)
    for level in sorted(found):
        listing.levels[level] = LevelRows(keys=found[level])
    listing.held = progress.held
    return listing


def _by_level(game: KeyedGame, keys: np.ndarray) -> list[tuple[int, np.ndarray]]:
    if not len(keys):
        return []
    levels = np.asarray(game.levels_of(keys), dtype=np.int64)
    outside = (levels < 0) | (levels > MAX_LEVEL)
    if outside.any():
        j = int(np.flatnonzero(outside)[0])
        raise TablebaseError(f"{game.name}: key {int(keys[j])} has level {int(levels[j]):,}; levels run from 0 to "
                             f"{MAX_LEVEL:,} (the engine keeps a count of positions for every level below the top)")
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


def level_rows(table: pa.Table, first: int = 0) -> LevelRows:
    """The inverse of ``level_table`` (the level's rows from ``first`` on, if not all of it)."""
    if "key" in table.column_names:
        return LevelRows(keys=table.column("key").to_numpy(), first=first)
    rows = LevelRows(texts=table.column("position").combine_chunks(), first=first)
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
