"""Numbering what a search found: move codes, keys, and each level's moves in compressed rows.

Moves are ranked in their own order (a move's code; ties between equally
good moves go to the smallest), and positions are numbered by level and then
by notation: keys that no search order or cluster changes, so that a
rebuild gives the same files. Each level's moves become compressed rows of
child keys and codes (``SumMoves``), in key order; levels without positions
get none. What the game's own code gives here is checked: its move names are
strings, its notation strings, and the first text of every level reads back
as its position (``checked.read_back``).
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from tablebase.errors import TablebaseError
from tablebase.games import KEY_BITS, PlainGame, SumMoves
from tablebase.lazy import np, pa, pc
from tablebase.listed import LevelRows, distinct, gather
from tablebase.listing.checked import game_failed, read_back, spelt
from tablebase.listing.game_limits import Watch, watched
from tablebase.listing.levels import Listing
from tablebase.spelling import shown


def int64s(values: array) -> np.ndarray:
    """An array('q')'s numbers as a numpy array, without a copy (while nothing is added to it)."""
    return np.frombuffer(values, dtype=np.int64) if len(values) else np.zeros(0, dtype=np.int64)


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
class Found:
    """What an exploration found, as numbering needs it: positions by number, their levels, each side's
    moves recorded in ``order`` (the positions expanded), the notation workers spelt, finished positions'
    results (``results``: the kind has such results)."""

    positions: list[Any]
    level_of: array
    records: list[SideMoves]
    order: np.ndarray
    spelt: list[tuple[list[int], pa.Array]]
    finished: dict[int, tuple[int, int]]
    results: bool


def _intern(game: PlainGame, records: list[SideMoves]) -> tuple[list[np.ndarray], list[str]]:
    """Each side's move codes (a move's rank among all the game's moves, in their own order) and the names."""
    try:  # whole numbers, the common case: ranked in numpy
        arrays = [np.concatenate([_segment_numbers(g) for g in record.segments] or [np.zeros(0, dtype=np.int64)])
                  for record in records]
        seen = distinct(np.concatenate(arrays))
        codes = [np.searchsorted(seen, a) for a in arrays]
        moves = seen.tolist()
    except (ValueError, TypeError, OverflowError):
        ids: dict[Any, int] = {}
        found = []
        for record in records:
            pieces = []
            for g in record.segments:
                if isinstance(g, list):
                    pieces.append(np.array([ids.setdefault(m, len(ids)) for m in g], dtype=np.int64))
                else:
                    local, distinct_moves = g
                    numbered = np.array([ids.setdefault(m, len(ids)) for m in distinct_moves], dtype=np.int64)
                    pieces.append(numbered[local])
            found.append(np.concatenate(pieces) if pieces else np.zeros(0, dtype=np.int64))
        moves = list(ids)
        ranked = sorted_moves(game, range(len(moves)), key=lambda m: moves[m])
        rank = np.empty(len(moves), dtype=np.int64)
        rank[np.array(ranked, dtype=np.int64)] = np.arange(len(moves), dtype=np.int64)
        codes = [rank[f] for f in found]
        moves = [moves[m] for m in ranked]
    for record in records:
        record.segments = []  # no longer needed: free the moves
    return codes, named_moves(game, moves)


def sorted_moves(game: PlainGame, moves: Iterable, key: Callable | None = None) -> list:
    """Moves in their own order (a move's code is its place in it); one line if they do not sort."""
    try:
        return sorted(moves, key=key)
    except TypeError as e:
        raise TablebaseError(f"{game.name}: moves must sort among themselves (ints, strings or tuples): {e}") from None


def named_moves(game: PlainGame, moves: list) -> list[str]:
    """Each move's name, in order; one line if two moves share one (a lookup could not tell them apart)."""
    names = _names(game, moves)
    if len(set(names)) != len(names):
        raise TablebaseError(f"{game.name}: move_name() gives one name to two different moves")
    return names


def _names(game: PlainGame, moves: list) -> list[str]:
    """Each move's name, ``move_name()`` watched and refused in one line unless it gives a str."""
    names = []
    with watched(game, "move_name") as watch:
        for move in moves:
            watch.at = move
            name = game.move_name(move)
            if not isinstance(name, str):
                raise TablebaseError(f"{game.name}: move_name({shown(move)}) returned {shown(name)}, "
                                     f"of type {type(name).__name__}, not a str")
            names.append(name)
    return names


def _segment_numbers(segment: list | tuple) -> np.ndarray:
    """A segment's moves as int64, or ValueError if they are not all whole numbers."""
    if isinstance(segment, list):
        values = np.array(segment) if segment else np.zeros(0, dtype=np.int64)
    else:
        local, distinct_moves = segment
        values = np.array(distinct_moves) if distinct_moves else np.zeros(0, dtype=np.int64)
        values = values[local] if values.ndim == 1 else values
    if values.ndim != 1 or values.dtype.kind not in "iu" or (len(values) and isinstance(values[0], np.bool_)):
        raise ValueError("not all whole numbers")
    return values.astype(np.int64)


def number(game: PlainGame, search: Found) -> Listing:
    """Keys by level then notation; move codes by the moves' own order; moves per level in key order."""
    with watched(game, "format") as watch:
        try:
            return _numbered(game, search, watch)
        except Exception as e:
            raise game_failed(game, e, watch.at) from None


def _numbered(game: PlainGame, search: Found, watch: Watch) -> Listing:
    levels = int64s(search.level_of)
    codes, names = _intern(game, search.records)
    texts = _texts(game, search, watch)
    top = int(levels.max())
    sizes = np.bincount(levels, minlength=top + 1).astype(np.int64)
    ordered = _by_level_and_text(game, levels, texts)
    in_order = texts.take(pa.array(ordered))
    key_of = np.empty(len(texts), dtype=np.int64)
    key_of[ordered] = np.arange(len(texts), dtype=np.int64)
    row_of = np.empty(len(texts), dtype=np.int64)  # where each position's moves were recorded
    row_of[search.order] = np.arange(len(search.order), dtype=np.int64)
    most = max((int(int64s(record.count).max(initial=0)) for record in search.records), default=0)
    mean = sum(len(record.part) for record in search.records) / max(len(texts), 1)
    listing = Listing(sizes, names, max_moves=most, mean_moves=mean)
    offsets = listing.offsets
    recorded = [SideRows(record, side_codes, key_of) for record, side_codes in zip(search.records, codes)]
    for level in np.flatnonzero(sizes).tolist():
        members = ordered[offsets[level] : offsets[level + 1]]  # numbers in key order
        rows = LevelRows(texts=in_order[offsets[level] : offsets[level + 1]])
        _reads_back(game, rows.texts[0].as_py(), search.positions[members[0]], watch)
        rows.sides = [side.rows(row_of[members]) for side in recorded]
        if search.results:
            rows.outcome = np.full(len(members), -1, dtype=np.int8)
            rows.score = np.zeros(len(members), dtype=np.int64)
            for j, i in enumerate(members.tolist()):
                if i in search.finished:
                    rows.outcome[j], rows.score[j] = search.finished[i]
        listing.levels[level] = rows
    return listing


def _reads_back(game: PlainGame, text: str, position: Any, watch: Watch) -> None:
    """``read`` must undo ``format``: tried on one position of each level, so that a table is not built
    whose lookups cannot read its own positions."""
    with watched(game, "read"):
        watch.at = text
        problem = read_back(game, text, position)
    if problem is not None:
        raise TablebaseError(problem)


def _texts(game: PlainGame, search: Found, watch: Watch) -> pa.Array:
    """Every position's notation, by number: as the workers spelt them, the rest spelt here."""
    by_workers = np.zeros(len(search.positions), dtype=np.bool_)
    numbers, pieces = [], []
    for ids, texts in search.spelt:
        numbers.append(np.asarray(ids, dtype=np.int64))
        pieces.append(texts)
    if numbers:
        by_workers[np.concatenate(numbers)] = True
    here = np.flatnonzero(~by_workers)
    numbers.append(here)
    positions = search.positions
    pieces.append(spelt(game, [positions[i] for i in here.tolist()], watch))
    order = np.argsort(np.concatenate(numbers), kind="stable")
    return pa.concat_arrays([piece.cast(pa.string()) for piece in pieces]).take(pa.array(order))


def _by_level_and_text(game: PlainGame, levels: np.ndarray, texts: pa.Array) -> np.ndarray:
    """Position numbers in key order: by level, then by notation (sorted a level at a time: a sort on one
    key is several times faster than on two). Two positions of a level spelt alike are refused here;
    alike across levels, ``check-game`` finds them."""
    by_level = np.argsort(levels, kind="stable")
    cuts = np.flatnonzero(np.diff(levels[by_level])) + 1
    pieces = []
    for members in np.split(by_level, cuts):
        level_texts = texts.take(pa.array(members))
        order = pc.sort_indices(level_texts).to_numpy()
        pieces.append(members[order])
        in_order = level_texts.take(pa.array(order))
        same = pc.equal(in_order[1:], in_order[:-1]) if len(in_order) > 1 else None
        if same is not None and pc.any(same).as_py():
            twice = in_order[int(np.flatnonzero(same.to_numpy(zero_copy_only=False))[0])].as_py()
            raise TablebaseError(f"{game.name}: format() gives {twice!r} for two different positions")
    return np.concatenate(pieces) if pieces else np.zeros(0, dtype=np.int64)


class SideRows:
    """One side's recorded moves as numpy arrays, made once for all levels: child keys, codes, where each starts."""

    def __init__(self, side: SideMoves, codes: np.ndarray, key_of: np.ndarray) -> None:
        self.counts = int64s(side.count)
        self.firsts = np.cumsum(self.counts) - self.counts
        self.codes = codes
        part = int64s(side.part)  # an extra turn's child keeps its mark on its key
        self.child = key_of[part & KEY_BITS] | (part & ~KEY_BITS) if len(part) else np.zeros(0, dtype=np.int64)
        self.part_firsts = None if side.parts is None else np.append(int64s(side.parts), len(side.part))

    def rows(self, rows: np.ndarray) -> SumMoves:
        """The moves of the positions recorded at ``rows`` (in this order) as compressed rows of keys and codes."""
        counts = self.counts[rows]
        moves = gather(self.firsts[rows], counts)
        if self.part_firsts is None:
            part_starts, part_counts = moves, np.ones(len(moves), dtype=np.int64)
        else:
            # A move's parts end where the next move's begin (moves were recorded in order).
            part_starts = self.part_firsts[moves]
            part_counts = self.part_firsts[moves + 1] - part_starts
        parts = gather(part_starts, part_counts)
        offsets = np.zeros(len(rows) + 1, dtype=np.int64)
        np.cumsum(counts, out=offsets[1:])
        starts = np.zeros(len(moves) + 1, dtype=np.int64)
        np.cumsum(part_counts, out=starts[1:])
        child = self.child[parts]
        return SumMoves(offsets, self.codes[moves], starts, child, np.zeros(len(child), dtype=np.bool_))
