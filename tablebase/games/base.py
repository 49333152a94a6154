"""The narrow interface every game implements, and nothing else.

A game module knows the rules: how to spell a position, its integer key, its
level (the solve order: every move goes to a strictly lower level), and its
moves. It knows nothing of Dask, Parquet or DuckDB. The solvers call it in
vectorised form (arrays of keys in, arrays out) so that no Python loop runs per
position on the hot path of games whose positions rank densely.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar, NamedTuple

import numpy as np

from tablebase.errors import PositionError, TablebaseError


@dataclass(frozen=True)
class Option:
    """One build option of a game, as it appears on the command line and in job specs."""

    name: str  # spelled with dashes on the command line, underscores in params
    kind: type  # int or str
    help: str
    required: bool = True

    @property
    def key(self) -> str:
        return self.name.replace("-", "_")


class Children(NamedTuple):
    """The moves of a batch of positions in compressed-row form.

    The moves of position ``i`` are ``keys[offsets[i]:offsets[i+1]]`` (the child
    positions' keys) and ``moves[...]`` (the game's integer move codes).
    """

    offsets: np.ndarray  # int64, len(positions) + 1
    keys: np.ndarray  # int64
    moves: np.ndarray  # int64


class SumMoves(NamedTuple):
    """One side's moves of a batch of partizan positions, each leading to a sum.

    A move may split a position into independent parts (a Domineering region
    falling apart), so it leads to a list of stored positions whose values
    add up; an empty list is the zero game. The moves of position ``i`` are
    ``moves[offsets[i]:offsets[i+1]]``; move ``j`` leads to the sum of the
    components ``keys[starts[j]:starts[j+1]]``, each negated where ``negate``
    says so (a stored position standing for its mirror image with the roles
    of Left and Right swapped, such as a transposed Domineering region).
    """

    offsets: np.ndarray  # int64, len(positions) + 1
    moves: np.ndarray  # int64 move codes, one per move
    starts: np.ndarray  # int64, len(moves) + 1
    keys: np.ndarray  # int64 component keys
    negate: np.ndarray  # bool, one per component key


@dataclass(frozen=True)
class QueenMoves:
    """A structural property a game may declare: its moves are a chess queen's toward the corner.

    A position is a pair a <= b of whole numbers up to ``top`` (the board is
    symmetric: ``b a`` is the same position). A move lowers one coordinate by any
    d >= 1, or both by the same d, and nothing else; the level is a + b. Move codes
    are ``smaller + d`` (d taken from the smaller coordinate), ``larger + d`` (from
    the larger one) and ``both + d``. ``pairs(keys)`` gives the (n, 2) int64 array
    of each key's a and b. Solvers that know such boards need nothing more.
    """

    top: int
    smaller: int
    larger: int
    both: int
    pairs: Callable[[np.ndarray], np.ndarray]


@dataclass(frozen=True)
class DiagramBites:
    """A structural property a game may declare: its moves are bites out of a Young diagram.

    A position is a Young diagram in a ``rows`` x ``cols`` box keyed by its
    lattice-path rank (``young.rank``). A move picks a square (r, c) of the
    diagram other than the corner (0, 0) and removes every square (i, j) with
    i >= r and j >= c; its code is ``r * cols + c``. The level is the number of
    squares. Solvers that know such games walk the bites themselves.
    """

    rows: int
    cols: int


class Texts(NamedTuple):
    """A batch of strings as one UTF-8 buffer and offsets (Arrow's layout, numpy's types)."""

    offsets: np.ndarray  # int64, len + 1
    data: np.ndarray  # uint8

    @classmethod
    def from_strings(cls, strings: list[str]) -> "Texts":
        encoded = [s.encode() for s in strings]
        offsets = np.zeros(len(encoded) + 1, dtype=np.int64)
        np.cumsum([len(b) for b in encoded], out=offsets[1:])
        return cls(offsets, np.frombuffer(b"".join(encoded), dtype=np.uint8))

    def to_strings(self) -> list[str]:
        raw = self.data.tobytes()
        o = self.offsets
        return [raw[o[i] : o[i + 1]].decode() for i in range(len(o) - 1)]


class Game(ABC):
    """A game with fixed parameters: the set of positions one table holds."""

    name: ClassVar[str]
    kind: ClassVar[str] = "impartial"
    summary: ClassVar[str]
    notation: ClassVar[str]  # how a position is written, with an example
    move_notation: ClassVar[str]
    options: ClassVar[tuple[Option, ...]]
    #: Also store the outcome under misère play (the player who cannot move wins).
    misere: ClassVar[bool] = False
    #: Size of the key space when keys are dense ranks 0..key_space-1, else None.
    key_space: int | None = None

    def __init__(self, **params: Any) -> None:
        self.params = self.check_params(params)

    # -- parameters -----------------------------------------------------------
    @classmethod
    def check_params(cls, params: dict[str, Any]) -> dict[str, Any]:
        """Validate and normalise build options; raise TablebaseError naming the problem."""
        known = {o.key for o in cls.options}
        unknown = sorted(set(params) - known)
        if unknown:
            raise TablebaseError(
                f"{cls.name}: unknown option {unknown[0]!r}; options are "
                + ", ".join("--" + o.name for o in cls.options)
            )
        out = {}
        for o in cls.options:
            if params.get(o.key) is None:
                if o.required:
                    raise TablebaseError(f"{cls.name}: missing option --{o.name} ({o.help})")
                continue
            value = params[o.key]
            if o.kind is int:
                if isinstance(value, bool) or not isinstance(value, (int, str)):
                    raise TablebaseError(f"{cls.name}: --{o.name} must be an integer, got {value!r}")
                try:
                    value = int(value)
                except ValueError:
                    raise TablebaseError(
                        f"{cls.name}: --{o.name} must be an integer, got {value!r}"
                    ) from None
            else:
                value = str(value)
            out[o.key] = value
        return out

    def int_param(self, key: str, low: int, high: int) -> int:
        value = self.params[key]
        if not low <= value <= high:
            raise TablebaseError(
                f"{self.name}: --{key.replace('_', '-')} must be between {low} and {high}, got {value}"
            )
        return value

    @property
    @abstractmethod
    def table(self) -> str:
        """The default table name: a SQL identifier derived from the parameters."""

    @property
    def bounds(self) -> str:
        """What the table holds, in words, for error messages."""
        return ", ".join(f"{k.replace('_', '-')} {v}" for k, v in self.params.items())

    # -- levels -----------------------------------------------------------------
    @property
    @abstractmethod
    def max_level(self) -> int:
        """The highest level; levels run from 0 to max_level."""

    @abstractmethod
    def level_size(self, level: int) -> int:
        """How many positions the level holds."""

    @abstractmethod
    def level_keys(self, level: int, start: int, stop: int) -> np.ndarray:
        """Keys ``start..stop-1`` of the level, in ascending key order (int64)."""

    @property
    def whole_levels(self) -> bool:
        """Whether a level must be solved in one piece: moves within a level (a
        loopy game's passes) tie its positions together."""
        return self.kind == "loopy"

    def child_levels(self, level: int) -> range:
        """The levels a move from this level can reach (all lower ones unless narrower)."""
        return range(level)

    # -- positions and moves ----------------------------------------------------------
    #: For games with dense keys: a numba-compiled ``moves(key, args, out_keys,
    #: out_moves) -> count`` writing one position's moves into the buffers, the
    #: ``args`` tuple it needs, and a bound on the number of moves of a position.
    moves_kernel: Any = None
    max_moves: int = 0
    #: Set by games whose moves are queen moves on pairs a <= b (see QueenMoves).
    queen: QueenMoves | None = None
    #: Set by games whose moves are bites out of a Young diagram (see DiagramBites).
    bites: DiagramBites | None = None

    def kernel_args(self) -> tuple:
        raise NotImplementedError

    def children(self, keys: np.ndarray) -> Children:
        """Every move of every position in ``keys`` (for lookups and sparse games)."""
        keys = np.asarray(keys, dtype=np.int64)
        args = self.kernel_args()
        buf_keys = np.empty(self.max_moves, dtype=np.int64)
        buf_moves = np.empty(self.max_moves, dtype=np.int64)
        offsets = [0]
        child_keys: list[np.ndarray] = []
        moves: list[np.ndarray] = []
        for key in keys:
            n = self.moves_kernel(key, args, buf_keys, buf_moves)
            child_keys.append(buf_keys[:n].copy())
            moves.append(buf_moves[:n].copy())
            offsets.append(offsets[-1] + n)
        empty = np.empty(0, dtype=np.int64)
        return Children(
            np.array(offsets, dtype=np.int64),
            np.concatenate(child_keys) if child_keys else empty,
            np.concatenate(moves) if moves else empty,
        )

    def left_right_moves(self, keys: np.ndarray) -> tuple[SumMoves, SumMoves]:
        """Partizan games only: Left's and Right's moves of every position in ``keys``."""
        raise NotImplementedError(f"{self.name} is not a partizan game")

    @abstractmethod
    def format_positions(self, keys: np.ndarray) -> Texts:
        """The canonical notation of each key."""

    @abstractmethod
    def parse(self, text: str) -> int:
        """The key of a position written in the game's notation (any spelling of it)."""

    def parse_many(self, texts: Texts) -> np.ndarray:
        """Keys of many positions (int64); raises PositionError naming the first bad one.

        Games with dense keys override this with a compiled reader.
        """
        return np.array([self.parse(t) for t in texts.to_strings()], dtype=np.int64)

    def parse_rest(self, texts: Texts, keys: np.ndarray, ok: np.ndarray) -> np.ndarray:
        """Fill in, one by one with parse(), the texts a compiled reader did not accept.

        parse() either reads an unusual spelling or raises the precise error.
        """
        raw = texts.data.tobytes()
        for i in np.flatnonzero(~ok):
            keys[i] = self.parse(raw[texts.offsets[i] : texts.offsets[i + 1]].decode(errors="replace"))
        return keys

    @abstractmethod
    def level_of(self, key: int) -> int:
        """The level of a position."""

    @abstractmethod
    def move_name(self, move: int) -> str:
        """The notation of a move code (codes name moves independently of the position)."""

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

    # -- helpers for subclasses -----------------------------------------------------
    def position_error(self, text: str, why: str) -> PositionError:
        return PositionError(
            f"{self.name}: bad position {text!r}: {why} "
            f"(notation: {self.notation}; this table holds {self.bounds})"
        )

    def parse_ints(self, text: str, separators: str = " ,") -> list[int]:
        cleaned = text
        for sep in separators:
            cleaned = cleaned.replace(sep, " ")
        try:
            return [int(t) for t in cleaned.split()]
        except ValueError:
            raise self.position_error(text, "expected whole numbers") from None
