"""The engine's search of a plain game: every position from the start positions, numbered, with its moves.

A ``Search`` holds the positions found so far (each numbered once, in the
order found) and, for every position expanded, each side's moves. It is
expanded in one process (``everything``: the order found is the order
expanded), or level by level from the top with the larger levels dealt to
workers: a worker plays a batch of positions (``expand_chunk``), keeps each
child and move it meets once, spells its positions, and the search merges
what it found (``merge``) in a fixed order, so that the result does not
depend on the workers.

At the end (``listing``) every move is checked to lower the level (or keep
it, for scored games), moves are ranked in their own order (the code of a
move; ties between equally good moves go to the smallest), and positions
are numbered by level and then by notation: keys that no search order or
cluster changes, so that a rebuild gives the same files.
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from itertools import repeat
from typing import Any

import numpy as np
import pyarrow as pa

from tablebase.errors import TablebaseError
from tablebase.games import PlainGame
from tablebase.kinds.listing import Listing, Progress, distinct
from tablebase.kinds.numbering import number, view

# A side's moves of a position: (move, position) pairs.
Moves = Callable[[Any], Iterable[tuple[Any, Any]]]
TICK = 4096  # positions between looks at the clock


@dataclass(frozen=True)
class PlainRules:
    """What a search needs of a plain game, as its kind puts it.

    ``sides``: each side's moves; ``split``: the parts a position reached falls
    into (None: it stays whole); ``result_of``: how a position without moves
    ended, (outcome, score) (None: the kind has no such results); ``same_level``:
    moves may keep their level.
    """

    sides: tuple[Moves, ...]
    split: Callable[[Any], Sequence[Any]] | None = None
    result_of: Callable[[Any], tuple[int, int]] | None = None
    same_level: bool = False


@dataclass
class SideMoves:
    """One side's moves as the search records them, in the order positions are expanded.

    The moves themselves come in segments, in order: a list of moves as the
    game gave them (positions expanded here), or a worker's (local numbers,
    its distinct moves) (positions expanded there); they are ranked at the end.
    """

    count: array = field(default_factory=lambda: array("q"))  # per position expanded: its number of moves
    segments: list = field(default_factory=list)
    parts: array | None = None  # per move: its first part (None: one part per move)
    part: array = field(default_factory=lambda: array("q"))  # per part: the position's number

    def raw(self) -> list:
        """The list that moves of positions expanded here go on."""
        if not self.segments or not isinstance(self.segments[-1], list):
            self.segments.append([])
        return self.segments[-1]

    def moves(self) -> int:
        return len(self.part) if self.parts is None else len(self.parts)


@dataclass
class Chunk:
    """What a worker found expanding a batch of positions: moves and children as numbers into its own lists."""

    counts: list[np.ndarray]  # per side: each position's number of moves
    moves: list[np.ndarray]  # per side: each move, as an index into ``distinct_moves``
    part_counts: list[np.ndarray | None]  # per side: each move's number of parts (games that split)
    parts: list[np.ndarray]  # per side: each part, as an index into ``found``
    distinct_moves: list
    found: list | np.ndarray  # the positions the moves lead to, each once (whole numbers travel as an array)
    found_levels: np.ndarray
    texts: pa.Array  # the notation of each position expanded
    results: dict[int, tuple[int, int]]  # the batch's finished positions: their results


def expand_chunk(game: PlainGame, rules: PlainRules, positions: list) -> Chunk:
    """Play a batch of positions (on a worker): every side's moves, children and moves each kept once."""
    found: dict[Any, int] = {}
    levels = array("q")
    move_ids: dict[Any, int] = {}
    counts = [array("q") for _ in rules.sides]
    moves = [array("q") for _ in rules.sides]
    part_counts = [array("q") for _ in rules.sides] if rules.split else None
    parts = [array("q") for _ in rules.sides]
    results: dict[int, tuple[int, int]] = {}
    try:
        if len(rules.sides) == 1 and rules.split is None:
            _expand_one_part(game, rules, positions, found, levels, move_ids, counts[0], moves[0], parts[0], results)
        else:
            _expand_sides(game, rules, positions, found, levels, move_ids, counts, moves, part_counts, parts, results)
    except Exception as e:
        raise _game_failed(game, e) from None
    children: list | np.ndarray = list(found)
    as_numbers = _whole_numbers(children)
    return Chunk([_numpy(c) for c in counts], [_numpy(m) for m in moves],
                 [_numpy(c) for c in part_counts] if part_counts else [None] * len(rules.sides),
                 [_numpy(p) for p in parts], list(move_ids), as_numbers if as_numbers is not None else children,
                 _numpy(levels), pa.array([game.format(p) for p in positions], pa.string()), results)


def _expand_sides(game, rules, positions, found, levels, move_ids, counts, moves, part_counts, parts, results):
    """``expand_chunk`` of games with several sides, or whose positions split into parts."""
    for j, p in enumerate(positions):
        any_move = False
        for s, moves_of in enumerate(rules.sides):
            n = 0
            for move, child in moves_of(p):
                m = move_ids.get(move)
                moves[s].append(len(move_ids) if m is None else m)
                if m is None:
                    move_ids[move] = len(move_ids)
                pieces = rules.split(child) if rules.split else (child,)
                for piece in pieces:
                    c = found.get(piece)
                    if c is None:
                        c = found[piece] = len(found)
                        levels.append(_level(game, piece))
                    parts[s].append(c)
                if part_counts is not None:
                    part_counts[s].append(len(pieces))
                n += 1
            counts[s].append(n)
            any_move = any_move or n > 0
        if not any_move and rules.result_of is not None:
            results[j] = rules.result_of(p)


def _expand_one_part(game, rules, positions, found, levels, move_ids, counts, moves, parts, results) -> None:
    """``expand_chunk`` for one side whose moves lead to one position each: once per move, no more than it must.

    Moves are kept as given and numbered once at the end, in one numpy pass when they are whole numbers.
    """
    get, count, part = found.get, counts.append, parts.append
    raw: list = []
    keep = raw.append
    moves_of, result_of = rules.sides[0], rules.result_of
    for j, p in enumerate(positions):
        before = len(raw)
        for move, child in moves_of(p):
            keep(move)
            c = get(child)
            if c is None:
                c = found[child] = len(found)
                levels.append(_level(game, child))
            part(c)
        count(len(raw) - before)
        if len(raw) == before and result_of is not None:
            results[j] = result_of(p)
    numbers = _whole_numbers(raw)
    if numbers is not None:
        seen = distinct(numbers)
        moves.frombytes(np.searchsorted(seen, numbers).astype(np.int64).tobytes())
        move_ids.update((m, i) for i, m in enumerate(seen.tolist()))
    else:
        moves.extend(move_ids.setdefault(m, len(move_ids)) for m in raw)


def _whole_numbers(values: list) -> np.ndarray | None:
    """The values as an int64 array if they are all whole numbers, else None (bools and floats are not)."""
    if not values or type(values[0]) is not int:
        return None
    try:
        numbers = np.array(values)
    except (ValueError, OverflowError):
        return None
    if numbers.ndim != 1 or numbers.dtype != np.int64 or not all(type(v) is int for v in values):
        return None
    return numbers


def _level(game: PlainGame, p: Any) -> int:
    level = game.level(p)
    if not isinstance(level, (int, np.integer)) or level < 0:
        raise TablebaseError(f"{game.name}: level({p!r}) must be a whole number >= 0, got {level!r}")
    return int(level)


def _numpy(values: array) -> np.ndarray:
    return np.frombuffer(values, dtype=np.int64).copy() if len(values) else np.zeros(0, dtype=np.int64)



class Search:
    """The positions of a plain game found so far, and the moves of those expanded.

    ``limit`` stops a search that finds more positions, ``memory`` one that
    holds more bytes; ``say`` hears of its progress.
    """

    def __init__(self, game: PlainGame, rules: PlainRules, limit: int | None = None, memory: int | None = None,
                 say: Callable[[str], None] | None = None, track: bool = False) -> None:
        self.game, self.rules, self.limit = game, rules, limit
        self.ids: dict[Any, int] = {}
        self.positions: list[Any] = []
        self.level_of = array("q")
        self.spelt: list[tuple[list[int], pa.Array]] = []  # positions spelt by workers, and their texts
        self.records = [SideMoves(parts=None if rules.split is None else array("q")) for _ in rules.sides]
        self.order = array("q")  # the positions expanded, in the order they were
        self.done = bytearray()
        self.finished: dict[int, tuple[int, int]] = {}
        self.progress = Progress(say, memory)
        #: per level, positions found and not yet expanded (kept when ``track`` is set)
        self.pending: dict[int, list[int]] = {}
        self.track = track
        self._at: Any = None  # the position being expanded, to name in errors of the game's code
        try:
            for p in game.start_positions():
                if p not in self.ids:
                    self.new(p)
        except Exception as e:
            raise _game_failed(game, e) from None
        if not self.positions:
            raise TablebaseError(f"{game.name}: start_positions() gave no position")

    def new(self, p: Any, level: int | None = None) -> int:
        """Number a position met for the first time (levels are checked once the search is over)."""
        level = _level(self.game, p) if level is None else level
        i = self.ids[p] = len(self.positions)
        self.positions.append(p)
        self.level_of.append(level)
        self.done.append(0)
        if self.track:
            self.pending.setdefault(level, []).append(i)
        if self.limit is not None and i >= self.limit:
            raise TablebaseError(f"{self.game.name}: more than {self.limit:,} positions")
        return i

    # -- expanding in this process ----------------------------------------------------
    def everything(self) -> Listing:
        """Expand every position here, in the order found, and give the listing."""
        try:
            if len(self.records) == 1 and self.rules.split is None:
                self._one_part()
            else:
                self._expand(range(len(self.positions)), to_the_end=True)
        except Exception as e:
            raise _game_failed(self.game, e, self._at) from None
        return self.listing()

    def _one_part(self) -> None:
        """The search of games with one side whose moves lead to one position each (impartial, scored).

        This loop runs once for every move of the whole game, so it does no more than it must.
        """
        get, new, positions, record = self.ids.get, self.new, self.positions, self.records[0]
        moves_of, result_of = self.rules.sides[0], self.rules.result_of
        raw, part, count = record.raw().append, record.part.append, record.count.append
        expanded = 0
        while expanded < len(positions):
            p = self._at = positions[expanded]
            before = len(record.part)
            for move, child in moves_of(p):
                raw(move)
                c = get(child)
                part(new(child) if c is None else c)
            n = len(record.part) - before
            count(n)
            if not n and result_of is not None:
                self.finished[expanded] = result_of(p)
            expanded += 1
            if not expanded % TICK:
                self.progress.tick(len(positions), len(positions) - expanded)
        self.order = array("q", range(expanded))
        self.done = bytearray(b"\x01" * expanded)

    def expand(self, ids: Iterable[int], to_the_end: bool = False) -> None:
        """Expand these positions here (and, ``to_the_end``, every one found after them too)."""
        try:
            self._expand(ids, to_the_end)
        except Exception as e:
            raise _game_failed(self.game, e, self._at) from None

    def _expand(self, ids: Iterable[int], to_the_end: bool) -> None:
        get, new, rules = self.ids.get, self.new, self.rules
        pending = iter(ids)
        i = next(pending, None)
        while i is not None:
            if not self.done[i]:
                self.done[i] = 1
                self.order.append(i)
                p = self._at = self.positions[i]
                any_move = False
                for record, moves_of in zip(self.records, rules.sides):
                    raw = record.raw()
                    before = record.moves()
                    for move, child in moves_of(p):
                        raw.append(move)
                        if rules.split is None:
                            c = get(child)
                            record.part.append(new(child) if c is None else c)
                        else:
                            record.parts.append(len(record.part))
                            for piece in rules.split(child):
                                c = get(piece)
                                record.part.append(new(piece) if c is None else c)
                    record.count.append(record.moves() - before)
                    any_move = any_move or record.moves() > before
                if not any_move and rules.result_of is not None:
                    self.finished[i] = rules.result_of(p)
                if not len(self.order) % TICK:
                    self.progress.tick(len(self.positions), len(self.positions) - len(self.order))
            i = next(pending, None)
            if i is None and to_the_end and len(self.order) < len(self.positions):
                i = len(self.order)

    # -- expanding on workers -----------------------------------------------------------
    def merge(self, ids: list[int], chunk: Chunk) -> None:
        """Record what a worker found expanding these positions (``expand_chunk`` of them, in this order)."""
        numbers = self._number_found(chunk.found.tolist() if isinstance(chunk.found, np.ndarray) else chunk.found,
                                     chunk.found_levels)
        for s, record in enumerate(self.records):
            record.count.frombytes(chunk.counts[s].astype(np.int64).tobytes())
            record.segments.append((chunk.moves[s], chunk.distinct_moves))
            if record.parts is not None:
                firsts = len(record.part) + np.cumsum(chunk.part_counts[s]) - chunk.part_counts[s]
                record.parts.frombytes(firsts.astype(np.int64).tobytes())
            record.part.frombytes(numbers[chunk.parts[s]].astype(np.int64).tobytes())
        for i in ids:
            self.done[i] = 1
        self.spelt.append((ids, chunk.texts))
        self.order.frombytes(np.asarray(ids, dtype=np.int64).tobytes())
        for j, result in chunk.results.items():
            self.finished[ids[j]] = result
        self.progress.tick(len(self.positions), len(self.positions) - len(self.order))

    def _number_found(self, found: list, levels: np.ndarray) -> np.ndarray:
        """The numbers of positions a worker found (each once): old ones looked up, new ones numbered in a batch."""
        try:
            numbers = np.fromiter(map(self.ids.get, found, repeat(-1)), dtype=np.int64, count=len(found))
        except TypeError as e:
            raise _game_failed(self.game, e) from None
        missing = np.flatnonzero(numbers < 0)
        if not len(missing):
            return numbers
        start = len(self.positions)
        fresh = np.arange(start, start + len(missing), dtype=np.int64)
        numbers[missing] = fresh
        new_positions = [found[j] for j in missing.tolist()]
        self.ids.update(zip(new_positions, fresh.tolist()))
        self.positions.extend(new_positions)
        new_levels = levels[missing].astype(np.int64)
        self.level_of.frombytes(new_levels.tobytes())
        self.done.extend(bytes(len(missing)))
        if self.track:
            for level in distinct(new_levels).tolist():
                self.pending.setdefault(level, []).extend(fresh[new_levels == level].tolist())
        if self.limit is not None and len(self.positions) > self.limit:
            raise TablebaseError(f"{self.game.name}: more than {self.limit:,} positions")
        return numbers

    # -- the listing --------------------------------------------------------------------------
    def listing(self) -> Listing:
        """Levels checked, moves ranked, positions numbered: the listing of what was found."""
        order = view(self.order)
        for record in self.records:
            self._check_levels(order, record)
        listing = number(self.game, self, order)
        self.progress.tick(len(self.positions), 0)
        listing.held = self.progress.held
        return listing

    def _check_levels(self, order: np.ndarray, side: SideMoves) -> None:
        """Every move must lower the level (or, with ``same_level``, keep it): one line naming the first that does not."""
        levels = view(self.level_of)
        counts = view(side.count)
        parent = np.repeat(order, counts)
        if side.parts is not None:
            parent = np.repeat(parent, np.diff(np.append(view(side.parts), len(side.part))))
        child = view(side.part)
        same = self.rules.same_level
        bad = levels[child] > levels[parent] if same else levels[child] >= levels[parent]
        if bad.any():
            j = int(np.flatnonzero(bad)[0])
            p, c = self.positions[parent[j]], self.positions[child[j]]
            raise TablebaseError(
                f"{self.game.name}: a move from {self.game.format(p)!r} (level {levels[parent[j]]}) leads to "
                f"{self.game.format(c)!r} (level {levels[child[j]]}); every move must lower the level"
                + (" or keep it" if same else "")
            )


def _game_failed(game: PlainGame, e: Exception, position: Any = None) -> TablebaseError:
    """One line for an error raised by the game's own code while it is searched."""
    if isinstance(e, TablebaseError):
        return e
    if isinstance(e, TypeError) and "unhashable" in str(e):
        return TablebaseError(f"{game.name}: positions must be hashable (use tuples, not lists): {e}")
    at = "" if position is None else f" at position {position!r}"
    return TablebaseError(f"{game.name}: the game's code failed{at}: {type(e).__name__}: {e}")
