"""The keyed form of a game: positions are int64 keys, handled in numpy batches.

This is the form the solvers work in. A plain game (``plain.py``) is turned
into it by the engine; a game written in it directly skips that step and can
declare what makes the fast paths: a dense ranking (``key_space``, levels
listed by ``level_keys``) and the capabilities of ``capabilities.py`` (a
compiled move generator, queen moves, bites out of Young diagrams), each
optional, each saying what happens without it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import ClassVar

from tablebase.games.base import Game, Texts
from tablebase.games.capabilities import Boards, Children, CompiledMoves, DiagramBites, QueenMoves, SumMoves
from tablebase.lazy import np


class KeyedGame(Game):
    """What every keyed game gives, whatever its kind: its levels, keys and notation.

    Batches given to a game's methods are never empty, and every key in them is a position of the table.

    Levels: a game either lists them (``lists_levels = True``: ``max_level``,
    ``level_size`` and ``level_keys``; keys in ascending order) or gives
    ``start_keys()`` and lets the engine find every position reachable from
    them. With ``key_space`` set, every key is below it and the solvers keep
    values in arrays over the key space (a dense ranking); without it they
    keep them sorted by key.
    """

    keyed = True
    #: whether the game lists each level's keys itself; else the engine finds them from start_keys()
    lists_levels: ClassVar[bool] = True
    #: keys are below this (a dense ranking), or None: keys are sparse
    key_space: int | None = None
    #: keys below ``key_space`` that are no position (a dense ranking's holes), ascending
    absent_keys: tuple[int, ...] = ()
    #: a bound on the moves of one position
    max_moves: int = 0
    #: a compiled move generator (impartial and scored games), or None
    compiled_moves: CompiledMoves | None = None
    #: bytes the engine holds per position of a level in flight besides the solver's own (its listing)
    listed_bytes: int = 0

    # -- levels --------------------------------------------------------------
    @property
    def max_level(self) -> int:
        """The highest level; levels run from 0 to max_level (games that list their levels)."""
        raise NotImplementedError(f"{self.name}: a game that lists its levels gives max_level")

    def level_size(self, level: int) -> int:
        """How many positions the level holds (games that list their levels)."""
        raise NotImplementedError(f"{self.name}: a game that lists its levels gives level_size()")

    def level_keys(self, level: int, start: int, stop: int) -> np.ndarray:
        """Keys ``start..stop-1`` of the level, in ascending key order (games that list their levels)."""
        raise NotImplementedError(f"{self.name}: a game that lists its levels gives level_keys()")

    def start_keys(self) -> np.ndarray:
        """Where play starts (games that do not list their levels): the engine finds the rest."""
        raise NotImplementedError(f"{self.name}: a game that does not list its levels gives start_keys()")

    def level_of(self, key: int) -> int:
        """The level of a position (the engine lists levels up to ``base.MAX_LEVEL`` from ``start_keys()``)."""
        raise NotImplementedError(f"{self.name}: a keyed game gives level_of()")

    def levels_of(self, keys: np.ndarray) -> np.ndarray:
        """The levels of many positions (int64); override with numpy for speed."""
        return np.array([self.level_of(int(k)) for k in keys], dtype=np.int64)

    def child_levels(self, level: int) -> Sequence[int]:
        """The levels a move from this level can reach (all lower ones unless narrower)."""
        return range(level)

    # -- notation -----------------------------------------------------------------
    def format_positions(self, keys: np.ndarray) -> Texts:
        """The canonical notation of each key."""
        raise NotImplementedError(f"{self.name}: a keyed game gives format_positions()")

    def spell(self, key: int) -> str:
        """The notation of one position: ``format_positions`` of one key, unless the game spells it in plain
        Python (see ``moves_of``)."""
        return self.format_positions(np.array([key], dtype=np.int64)).to_strings()[0]

    def moves_of(self, key: int) -> list[tuple[int, int]] | None:
        """One position's moves as (move code, child's key), in plain Python; None: the game has no such list.

        A lookup lists a position's moves with each child's figures. By default it plays the game's
        batch functions (the compiled move generator run as Python, ``format_positions``, ``levels_of``),
        which need NumPy, whose import takes longer than all the rest of a cold lookup. A game that lists
        one position's moves here, and gives ``spell`` and ``level_of`` in plain Python too, is looked up
        without it (Chomp, Nim). The moves are the generator's, in any order; a test holds them to it.
        """
        return None

    def parse(self, text: str) -> int:
        """The key of a position written in the game's notation (any spelling of it)."""
        raise NotImplementedError(f"{self.name}: a keyed game gives parse()")

    def parse_many(self, texts: Texts) -> np.ndarray:
        """Keys of many positions (int64); raises PositionError naming the first bad one."""
        return np.array([self.parse(t) for t in texts.to_strings()], dtype=np.int64)

    def locate(self, text: str) -> tuple[int, int]:
        """A position's key and level, as ``parse`` and ``level_of`` give them: what a probe needs.

        A game whose notation shows the level (Chomp's squares, Nim's tokens) overrides it to read both
        in one pass, in plain Python arithmetic: a probe of one position then costs microseconds.
        """
        key = self.parse(text)
        return key, self.level_of(key)

    def locator(self) -> Callable[[str], tuple[int, int]]:
        """``locate``, bound once for many calls (a probe's): a game may give a function that keeps what it
        reads in locals, where ``locate`` looks each up on the game."""
        return self.locate

    def locate_many(self, texts: Texts) -> tuple[np.ndarray, np.ndarray]:
        """Keys and levels of many positions, as ``parse_many`` and ``levels_of`` give them (``locate``'s
        batch twin: a game whose notation shows the level overrides it to keep the level it read)."""
        keys = self.parse_many(texts)
        return keys, self.levels_of(keys)

    def locate_spelt(self, texts: Texts) -> tuple[np.ndarray, np.ndarray, bool]:
        """``locate_many`` and ``spelt_alike`` at once, for ``lookup_many``: a game that reads its texts in a
        compiled pass tells in that pass whether they are written plainly."""
        keys, levels = self.locate_many(texts)
        return keys, levels, self.spelt_alike(texts)

    def spelt_alike(self, texts: Texts) -> bool:
        """Whether every text is written as ``format_positions`` writes its position, byte for byte (the
        texts of positions ``locate_many`` read). A lookup of many positions then gives the texts back as
        the positions' notation instead of spelling each key again, which costs more than reading it. No,
        unless a game knows its notation well enough to tell."""
        return False

    def parse_rest(self, texts: Texts, keys: np.ndarray, ok: np.ndarray) -> np.ndarray:
        """Fill in, one by one with parse(), the texts a compiled reader did not accept.

        parse() either reads an unusual spelling or raises the precise error.
        """
        if ok.all():
            return keys
        raw = texts.data.tobytes()
        for i in np.flatnonzero(~ok):
            keys[i] = self.parse(raw[texts.offsets[i] : texts.offsets[i + 1]].decode(errors="replace"))
        return keys

    def read_rest(self, texts: Texts, keys: np.ndarray, levels: np.ndarray,
                  ok: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Keys and levels of texts a compiled reader read where ``ok``, the others read one by one."""
        if not ok.all():
            keys = self.parse_rest(texts, keys, ok)
            levels[~ok] = self.levels_of(keys[~ok])
        return keys, levels

    def read_rest_spelt(self, texts: Texts, keys: np.ndarray, levels: np.ndarray, ok: np.ndarray,
                        plain: bool) -> tuple[np.ndarray, np.ndarray, bool]:
        """``read_rest``, and whether every text is written as the table writes it: ``plain``, which a compiled
        reader said of the texts it read, where it read them all; else ``spelt_alike`` (``locate_spelt``)."""
        keys, levels = self.read_rest(texts, keys, levels, ok)
        return keys, levels, plain if ok.all() else self.spelt_alike(texts)

    def move_name(self, move: int) -> str:
        """The notation of a move code (codes name moves independently of the position)."""
        raise NotImplementedError(f"{self.name}: a keyed game gives move_name()")

    # -- bounds ----------------------------------------------------------------------
    @property
    def max_remoteness(self) -> int:
        """A bound on remoteness: every move lowers the level, so at most the highest level."""
        return self.max_level

    @property
    def value_dtype(self) -> type:
        """The narrowest unsigned type that holds every Grundy value and remoteness.

        A Grundy value is at most the number of moves; a narrow type keeps the
        solved values of big tables in the processor's cache.
        """
        bound = max(self.max_remoteness, self.max_moves)
        return np.uint8 if bound < 2**8 else np.uint16 if bound < 2**16 else np.uint32


class KeyedImpartialGame(KeyedGame):
    """An impartial game in keyed form (see ``plain.ImpartialGame`` for what its table holds).

    Moves: ``compiled_moves``, or else ``children(keys)``.
    """

    kind = "impartial"
    misere: ClassVar[bool] = False
    #: declared by games whose moves are a queen's toward the corner (Wythoff)
    queen: QueenMoves | None = None
    #: declared by games whose moves are bites out of a Young diagram (Chomp)
    bites: DiagramBites | None = None

    #: moves lead to sums of stored parts (``sum_moves``), whose value is the XOR of theirs
    sums: ClassVar[bool] = False

    def children(self, keys: np.ndarray) -> Children:
        """Every move of every position in ``keys``; by default from ``compiled_moves``."""
        return _from_kernel(self, keys)

    def sum_moves(self, keys: np.ndarray) -> SumMoves:
        """Games with ``sums``: every move of every position in ``keys``, each to a sum of stored parts."""
        raise NotImplementedError(f"{self.name}: a keyed game with sums gives sum_moves()")

    def parse_parts(self, text: str) -> list[int]:
        """Games with ``sums``: the keys of the stored parts a position written in the game's notation
        falls into (by default the position is one part)."""
        return [self.parse(text)]


class KeyedPartizanGame(KeyedGame):
    """A short partizan game in keyed form (see ``plain.PartizanGame``)."""

    kind = "partizan"
    #: declared by games whose boards are sums of stored parts (see Boards)
    boards: Boards | None = None

    def left_right_moves(self, keys: np.ndarray) -> tuple[SumMoves, SumMoves]:
        """Left's and Right's moves of every position in ``keys``."""
        raise NotImplementedError(f"{self.name}: a keyed partizan game gives left_right_moves()")


#: Added to a scored game's child key: after this move the same player moves again (Kalah's extra turn).
#: Keys are below it; ``key & KEY_BITS`` is the child itself.
AGAIN = 1 << 62
KEY_BITS = AGAIN - 1


class KeyedScoredGame(KeyedGame):
    """A scored game in keyed form (see ``plain.ScoredGame``).

    Moves: ``compiled_moves``, or else ``children(keys)``; a move whose child
    is in the same level stays in it (a pass), and only ``pass_move`` is
    counted as one. A child key with ``AGAIN`` added is a move after which
    the same player moves again. ``results(keys)`` says how positions without
    moves ended.
    """

    kind = "scored"
    scores: ClassVar[bool] = False
    #: the code of the move that passes, or None
    pass_move: int | None = None

    def children(self, keys: np.ndarray) -> Children:
        """Every move of every position in ``keys``; by default from ``compiled_moves``."""
        return _from_kernel(self, keys)

    def results(self, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """For positions without moves: each one's ``Outcome`` for the player to move (int8)
        and score (int64, in the winner's favour, from -MAX_SCORE to MAX_SCORE of ``plain.py``).
        By default: lost, score 0."""
        n = len(keys)
        return np.zeros(n, dtype=np.int8), np.zeros(n, dtype=np.int64)


def _from_kernel(game: KeyedImpartialGame | KeyedScoredGame, keys: np.ndarray) -> Children:
    """The moves of a batch, one call of the compiled generator per position (the solvers use a
    compiled loop instead; this serves everyone else)."""
    if game.compiled_moves is None:
        raise NotImplementedError(f"{game.name}: give compiled_moves or children()")
    kernel, args = game.compiled_moves.kernel, game.compiled_moves.make_args()
    buf_keys = np.empty(max(game.max_moves, 1), dtype=np.int64)
    buf_moves = np.empty(max(game.max_moves, 1), dtype=np.int64)
    offsets = [0]
    child_keys: list[np.ndarray] = []
    moves: list[np.ndarray] = []
    for key in np.asarray(keys, dtype=np.int64):
        n = kernel(key, args, buf_keys, buf_moves)
        child_keys.append(buf_keys[:n].copy())
        moves.append(buf_moves[:n].copy())
        offsets.append(offsets[-1] + n)
    empty = np.empty(0, dtype=np.int64)
    return Children(np.array(offsets, dtype=np.int64), np.concatenate(child_keys) if child_keys else empty,
                    np.concatenate(moves) if moves else empty)
