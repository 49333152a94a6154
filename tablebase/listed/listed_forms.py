"""The keyed form of a game whose positions the engine listed (``games.KeyedForm``).

``ListedPlainGame`` stands for a plain game over its ``Listing``: keys are
the listing's numbers, notation and moves come from it. Where a listing
holds only the notation (a built table read back for lookups), moves are
found by playing the rules on the position again. ``ListedKeyedGame`` is a
keyed game whose levels the engine found from ``start_keys()``. Each kind
completes ``ListedPlainGame`` with its own moves (``tablebase.kinds``).
``level_of`` is a plain game's level of a position, checked: the listing
asks it of every position it finds, a lookup of the text it reads.
"""

from __future__ import annotations

import bisect
from collections import OrderedDict
from collections.abc import Callable, Sequence
from typing import Any

from tablebase.errors import PositionError, TablebaseError
from tablebase.games import (
    AGAIN,
    Again,
    Children,
    KeyedGame,
    PlainGame,
    SumMoves,
    Texts,
)
from tablebase.games.base import MAX_LEVEL
from tablebase.lazy import np, pa
from tablebase.listed.level_rows import LevelRows, distinct, gather
from tablebase.spelling import shown

PARTS_KEPT = 2  # parts of a listing kept in memory at once: the solvers need only the part they solve


def level_of(game: PlainGame, p: Any) -> int:
    """The game's level of a position, refused in one line unless it is an int from 0 to MAX_LEVEL."""
    level = game.level(p)
    if type(level) is not int:
        if not isinstance(level, np.integer) or isinstance(level, (bool, np.bool_)):
            raise TablebaseError(f"{game.name}: level({shown(p)}) returned {shown(level)}, of type "
                                 f"{type(level).__name__}; a level is a whole number, an int")
        level = int(level)
    if not 0 <= level <= MAX_LEVEL:
        raise TablebaseError(f"{game.name}: level({shown(p)}) returned {level:,}; levels run from 0 to "
                             f"{MAX_LEVEL:,} (the engine keeps a count of positions for every level below the top)")
    return level


def select(side: SumMoves, rows: np.ndarray) -> SumMoves:
    """The moves of some positions (row numbers) of a side's compressed rows."""
    counts = side.offsets[rows + 1] - side.offsets[rows]
    moves = gather(side.offsets[rows], counts)
    part_counts = side.starts[moves + 1] - side.starts[moves]
    parts = gather(side.starts[moves], part_counts)
    offsets = np.zeros(len(rows) + 1, dtype=np.int64)
    np.cumsum(counts, out=offsets[1:])
    starts = np.zeros(len(moves) + 1, dtype=np.int64)
    np.cumsum(part_counts, out=starts[1:])
    return SumMoves(offsets, side.moves[moves], starts, side.keys[parts], side.negate[parts])


def join(sides: list[SumMoves]) -> SumMoves:
    """Compressed rows of several batches, one after the other."""
    if len(sides) == 1:
        return sides[0]
    offsets = [np.zeros(1, dtype=np.int64)]
    starts = [np.zeros(1, dtype=np.int64)]
    moved = parted = 0
    for s in sides:
        offsets.append(s.offsets[1:] + moved)
        starts.append(s.starts[1:] + parted)
        moved += len(s.moves)
        parted += len(s.keys)
    return SumMoves(np.concatenate(offsets), np.concatenate([s.moves for s in sides]), np.concatenate(starts),
                    np.concatenate([s.keys for s in sides]), np.concatenate([s.negate for s in sides]))


def texts_of(array: pa.Array) -> Texts:
    """An Arrow string array as ``Texts``."""
    array = array.cast(pa.large_string()) if not pa.types.is_large_string(array.type) else array
    array = pa.concat_arrays([array]) if array.offset else array  # buffers from the start
    offsets = np.frombuffer(array.buffers()[1], dtype=np.int64)[: len(array) + 1]
    data = array.buffers()[2]
    return Texts(offsets - offsets[0], np.frombuffer(data, dtype=np.uint8)[offsets[0] : offsets[-1]] if data else
                 np.empty(0, dtype=np.uint8))


class _CountedLevels:
    """Levels as the engine counted them (``sizes``, positions per level), for the keyed forms below."""

    sizes: np.ndarray

    @property
    def max_level(self) -> int:
        return len(self.sizes) - 1

    def level_size(self, level: int) -> int:
        return int(self.sizes[level]) if 0 <= level < len(self.sizes) else 0

    @property
    def max_remoteness(self) -> int:
        return self.max_level

    value_dtype = KeyedGame.value_dtype
    locate = KeyedGame.locate
    locator = KeyedGame.locator
    locate_many = KeyedGame.locate_many
    locate_spelt = KeyedGame.locate_spelt
    spelt_alike = KeyedGame.spelt_alike


class ListedPlainGame(_CountedLevels):
    """A plain game in keyed form, over the engine's listing of its positions."""

    keyed = True
    lists_levels = True
    compiled_moves = None  # the solvers read moves from the listing
    moves_of = KeyedGame.moves_of  # None: a lookup reads the listing's moves in batches too
    spell = KeyedGame.spell

    def __init__(self, game: PlainGame, sizes: np.ndarray, move_names: list[str],
                 rows: Callable[[int, int, int], LevelRows], max_moves: int = 0, mean_moves: float = 0.0,
                 kept: list[int] | None = None, canonical: Callable[[Any], Any] | None = None) -> None:
        self.game = game
        #: where the listing keeps one position of each orbit: a position's representative, whose key it has
        self.canonical = canonical
        # The levels some move keeps (None: not known, as in a listing recorded before it was counted).
        self.kept_levels: frozenset[int] | None = None if kept is None else frozenset(kept)
        self.sizes = np.asarray(sizes, dtype=np.int64)
        self.offsets = np.zeros(len(self.sizes) + 1, dtype=np.int64)
        np.cumsum(self.sizes, out=self.offsets[1:])
        self.key_space = int(self.offsets[-1])
        self.absent_keys: tuple[int, ...] = ()
        self.move_names = list(move_names)
        self._codes = {name: code for code, name in enumerate(self.move_names)}
        self._load = rows
        self._rows: OrderedDict[tuple[int, int], LevelRows] = OrderedDict()
        self._sorted: dict[int, list[str]] = {}
        self.max_moves = max_moves
        # A part's listing in memory: its text (about 32 bytes), each move's code, child and
        # where its parts start (24 bytes), three times over while it is read, converted and sliced.
        self.listed_bytes = int(3 * (32 + 24 * mean_moves))

    # What the game says of itself.
    name = property(lambda self: self.game.name)
    kind = property(lambda self: self.game.kind)
    params = property(lambda self: self.game.params)
    table = property(lambda self: self.game.table)
    bounds = property(lambda self: self.game.bounds)
    notation = property(lambda self: self.game.notation)
    numeric = property(lambda self: self.game.numeric)
    move_notation = property(lambda self: self.game.move_notation)
    options = property(lambda self: self.game.options)
    draw = property(lambda self: self.game.draw)

    def rows(self, level: int, start: int = 0, stop: int | None = None) -> LevelRows:
        """The listing's rows of a level from ``start`` to ``stop`` (the whole level by default), and
        perhaps more around them: their ``first`` says which row they begin at."""
        stop = int(self.sizes[level]) if stop is None else stop
        for (held, first), found in self._rows.items():
            if held == level and found.holds(start, stop):
                self._rows.move_to_end((held, first))
                return found
        found = self._load(level, start, stop)
        self._rows[(level, found.first)] = found
        if len(self._rows) > PARTS_KEPT:
            self._rows.popitem(last=False)
        return found

    def _part(self, level: int, rows: np.ndarray) -> tuple[LevelRows, np.ndarray]:
        """The listing's rows holding these rows of a level, and where in them each is."""
        if not len(rows):
            return self.rows(level, 0, 0), rows
        found = self.rows(level, int(rows.min()), int(rows.max()) + 1)
        return found, rows - found.first

    # -- levels --------------------------------------------------------------
    def level_keys(self, level: int, start: int, stop: int) -> np.ndarray:
        return self.offsets[level] + np.arange(start, stop, dtype=np.int64)

    def level_of(self, key: int) -> int:
        return int(np.searchsorted(self.offsets, key, side="right") - 1)

    def levels_of(self, keys: np.ndarray) -> np.ndarray:
        return np.searchsorted(self.offsets, keys, side="right").astype(np.int64) - 1

    def child_levels(self, level: int) -> Sequence[int]:
        return range(level)

    def _by_level(self, keys: np.ndarray) -> list[tuple[int, np.ndarray, np.ndarray]]:
        """(level, where in ``keys``, row numbers in the level) for each level the keys belong to."""
        keys = np.asarray(keys, dtype=np.int64)
        levels = self.levels_of(keys)
        out = []
        for level in distinct(levels).tolist():
            where = np.flatnonzero(levels == level)
            out.append((level, where, keys[where] - self.offsets[level]))
        return out

    # -- notation -----------------------------------------------------------------
    def format_positions(self, keys: np.ndarray) -> Texts:
        keys = np.asarray(keys, dtype=np.int64)
        pieces = []
        order = []
        for level, where, rows in self._by_level(keys):
            found, rows = self._part(level, rows)
            pieces.append(found.texts.take(pa.array(rows)))
            order.append(where)
        if not pieces:
            return Texts.empty()
        texts = pa.concat_arrays(pieces)
        where = np.concatenate(order)
        if not np.array_equal(where, np.arange(len(keys))):
            texts = texts.take(pa.array(np.argsort(where, kind="stable")))
        return texts_of(texts)

    def text(self, key: int) -> str:
        level = self.level_of(key)
        row = int(key - self.offsets[level])
        found = self.rows(level, row, row + 1)
        return found.texts[row - found.first].as_py()

    def key_of(self, position: Any, text: str | None = None) -> int:
        """The key of a position of the table (PositionError if it is not one): its representative's, where
        the listing keeps one position of each orbit."""
        game = self.game
        if position is None:  # read() gave nothing: the game's defect, not the text's
            raise TablebaseError(f"{game.name}: read({text!r}) returned None; read() must return a position "
                                 "or raise position_error")
        if self.canonical is not None:
            position = self.canonical(position)
        level = level_of(game, position)
        spelt = game.format(position)
        if not 0 <= level <= self.max_level or not self.sizes[level]:
            raise game.position_error(text or spelt, "not a position of this table")
        listed = self._sorted.get(level)
        if listed is None:
            listed = self._sorted[level] = self._load(level, 0, int(self.sizes[level])).texts.to_pylist()
        i = bisect.bisect_left(listed, spelt)
        if i == len(listed) or listed[i] != spelt:
            raise game.position_error(text or spelt, "not a position of this table (not reached from its start)")
        return int(self.offsets[level] + i)

    def parse(self, text: str) -> int:
        return self.key_of(self.game.read(text), text)

    def parse_many(self, texts: Texts) -> np.ndarray:
        return np.array([self.parse(t) for t in texts.to_strings()], dtype=np.int64)

    def move_name(self, move: int) -> str:
        return self.move_names[move]

    # -- moves --------------------------------------------------------------------
    def plays(self) -> list[Callable[[Any], Any]]:
        """Each side's moves of a position by the rules, as (move, parts) pairs (each kind's listed form says how)."""
        raise NotImplementedError

    def side(self, keys: np.ndarray, s: int) -> SumMoves:
        """Side ``s``'s moves of the keys: from the listing, or by playing the rules when it has none."""
        pieces, order = [], []
        for level, where, rows in self._by_level(keys):
            found, rows = self._part(level, rows)
            pieces.append(select(found.sides[s], rows) if found.sides else self.played(keys[where], s))
            order.append(where)
        if not pieces:
            return SumMoves(*(np.zeros(1, np.int64), np.zeros(0, np.int64), np.zeros(1, np.int64),
                              np.zeros(0, np.int64), np.zeros(0, np.bool_)))
        joined = join(pieces)
        where = np.concatenate(order)
        if np.array_equal(where, np.arange(len(where))):
            return joined
        return select(joined, np.argsort(where, kind="stable"))

    def moves_as_asked(self, text: str) -> tuple[str, list[tuple[int, int, str, int]]]:
        """A position's notation and its own moves by the rules, as the text gives it (not its representative's),
        each (code, the key of its child's representative with an extra turn's mark, the child's notation as
        the move leads to it, the child's level): one side whose moves lead to one position each."""
        game = self.game
        position = game.read(text)
        found = []
        for move, (child,) in self.plays()[0](position):
            name = game.move_name(move)
            if name not in self._codes:
                raise PositionError(f"{self.name}: move {name!r} is not one of the table's (the rules changed?)")
            mark = 0
            if isinstance(child, Again):
                child, mark = child.position, AGAIN
            key = self.key_of(child)
            found.append((self._codes[name], key | mark, game.format(child), self.level_of(key)))
        return game.format(position), found

    def played(self, keys: np.ndarray, s: int, watch: Any = None) -> SumMoves:
        """Side ``s``'s moves of the keys by the rules, each position read back from its text and played
        (``watch``: a ``listing.game_limits.Watch`` marked at each position's text, for the time the game's
        code takes on it, where the game's code runs under the listing's limits)."""
        play = self.plays()[s]
        offsets, codes, starts, parts = [0], [], [0], []
        for key in np.asarray(keys).tolist():
            text = self.text(key)
            if watch is not None:
                watch.at = text
            position = self.game.read(text)
            for move, children in play(position):
                name = self.game.move_name(move)
                if name not in self._codes:
                    raise PositionError(f"{self.name}: move {name!r} is not one of the table's (the rules changed?)")
                codes.append(self._codes[name])
                parts.extend(self.key_of(c.position) | AGAIN if isinstance(c, Again) else self.key_of(c)
                             for c in children)
                starts.append(len(parts))
            offsets.append(len(codes))
        return SumMoves(np.array(offsets, np.int64), np.array(codes, np.int64), np.array(starts, np.int64),
                        np.array(parts, np.int64), np.zeros(len(parts), np.bool_))


def one_part(side: SumMoves) -> Children:
    """The moves of a side whose every move leads to one position, as ``Children``."""
    return Children(side.offsets, side.keys, side.moves)


class ListedKeyedGame(_CountedLevels):
    """A keyed game with the levels the engine listed for it; everything else is the game's."""

    lists_levels = True
    listed_bytes = 16  # a level's keys, read and kept

    def __init__(self, game: KeyedGame, sizes: np.ndarray, keys: Callable[[int], np.ndarray] | None) -> None:
        self.game = game
        self.sizes = np.asarray(sizes, dtype=np.int64)
        self._keys = keys

    def __getattr__(self, name: str) -> Any:
        return getattr(self.game, name)

    def level_keys(self, level: int, start: int, stop: int) -> np.ndarray:
        if not self.level_size(level):  # a listing keeps no rows of a level without positions
            return np.zeros(0, dtype=np.int64)
        if self._keys is None:
            raise RuntimeError(f"{self.game.name}: the listing of its levels is not at hand")
        return self._keys(level)[start:stop]
