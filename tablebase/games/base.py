"""What every game says about itself, whatever its kind: name, options, notation.

A game class is one of the kinds' classes (``plain.py`` for positions as
Python values, ``keyed.py`` for positions as integer keys handled in numpy
batches). This module holds what they share: build options and their
checking, the table's name, error messages, and ``Texts``, the batch of
strings that keyed games read and write.
"""

from __future__ import annotations

import re
from abc import ABC
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, ClassVar, NamedTuple

from tablebase.errors import PositionError, UsageError
from tablebase.games.drawing import Picture, changed, text_box
from tablebase.games.shapes import Box
from tablebase.lazy import np

# Numbers 0..1023 are read by a dict from their usual spelling: every row of a Chomp bar, every heap of
# most tables; made at the first position read, where making many more would delay it.
SMALL_NUMBERS = 1024


@lru_cache(maxsize=1)
def small_numbers() -> dict[str, int]:
    """``{"0": 0, ..., "1023": 1023}``: made at the first position read (a fraction of a millisecond)."""
    return {str(n): n for n in range(SMALL_NUMBERS)}


@dataclass(frozen=True)
class Option:
    """One build option of a game, as it appears on the command line and in job specs."""

    name: str  # spelled with dashes on the command line, underscores in params
    type: type  # int or str: what the value is read as (not the game's kind)
    help: str
    required: bool = True

    @property
    def key(self) -> str:
        return self.name.replace("-", "_")


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

    @classmethod
    def of(cls, positions: Any) -> "Texts":
        """Positions given as a list of str, an Arrow string array, or a pandas or numpy column.

        ValueError or TypeError if they are not all text.
        """
        import pyarrow as pa

        if isinstance(positions, pa.ChunkedArray):
            positions = positions.combine_chunks()
        if not isinstance(positions, pa.Array):
            positions = pa.array(positions if isinstance(positions, list) else list(positions), pa.string())
        if not pa.types.is_string(positions.type):
            positions = positions.cast(pa.string())
        if positions.null_count:
            raise ValueError("a position is null")
        start = positions.offset
        offsets = np.frombuffer(positions.buffers()[1], dtype=np.int32)[start : start + len(positions) + 1]
        data = positions.buffers()[2]
        return cls(offsets.astype(np.int64), np.frombuffer(data, dtype=np.uint8) if data else np.empty(0, np.uint8))

    @classmethod
    def empty(cls) -> "Texts":
        return cls(np.zeros(1, dtype=np.int64), np.empty(0, dtype=np.uint8))

    def __len__(self) -> int:  # type: ignore[override]  # the number of strings, not of fields
        return len(self.offsets) - 1

    def to_arrow(self) -> Any:
        """The strings as an Arrow string array, without Python strings on the way."""
        import pyarrow as pa

        n = len(self.offsets) - 1
        data = pa.py_buffer(np.ascontiguousarray(self.data))
        if self.offsets[-1] < 2**31:
            return pa.StringArray.from_buffers(n, pa.py_buffer(self.offsets.astype(np.int32)), data)
        return pa.LargeStringArray.from_buffers(n, pa.py_buffer(np.ascontiguousarray(self.offsets)), data)

    def to_strings(self) -> list[str]:
        raw = self.data.tobytes()
        o = self.offsets
        return [raw[o[i] : o[i + 1]].decode() for i in range(len(o) - 1)]


_NOT_IN_NAMES = re.compile(r"[^a-z0-9]+")

#: The highest level a game the engine lists may have. The engine keeps a count of positions for
#: every level from 0 to the top (in the manifest, in every worker's keyed form), so a level is
#: refused above this: a game with a million levels is already one with a million steps of solving.
MAX_LEVEL = 2**20 - 1

#: the option every impartial game takes without declaring it: keep misère figures beside normal play's
#: (``--misere``, docs/misere.md). Kept in ``params`` only where asked, so that it travels to the workers
#: and into the manifest with the game's own options; it names no part of the table.
MISERE = "misere"


def table_name(parts: Iterable[str]) -> str:
    """A SQL identifier of these parts: lower case, each run of other characters one underscore."""
    name = _NOT_IN_NAMES.sub("_", "_".join(parts).lower()).strip("_")
    return name if name[:1].isalpha() else f"t_{name}"


def position_text(game: Any, position: object) -> str:
    """``Game.position_text`` of any game or form that says its ``name``, ``notation`` and ``numeric``."""
    if isinstance(position, str):
        return position
    numeric = bool(getattr(game, "numeric", False))
    if numeric and _whole(position):
        return str(position)
    if numeric and isinstance(position, (tuple, list)) and all(_whole(n) for n in position):
        return " ".join(map(str, position))
    may = "text, or whole numbers: an int, or a tuple or list of them" if numeric else "text"
    raise PositionError(f"{game.name}: a position is {may} ({game.notation or 'see the game'}), "
                        f"not {type(position).__name__} {position!r:.80}")


def _whole(n: object) -> bool:
    return isinstance(n, int) and not isinstance(n, bool)


class Game(ABC):
    """A game with fixed parameters: the set of positions one table holds.

    Subclass one of the kinds' classes, not this one: ``ImpartialGame``,
    ``PartizanGame`` or ``ScoredGame`` (positions as Python values), or their
    keyed forms ``KeyedImpartialGame``, ``KeyedPartizanGame``,
    ``KeyedScoredGame`` (positions as integer keys). docs/games.md says how.
    """

    #: the game's name in ``tablebase games`` and in table manifests
    name: ClassVar[str]
    #: which kind of game: "impartial", "partizan" or "scored" (set by the kinds' classes)
    kind: ClassVar[str]
    #: whether positions are integer keys in numpy batches (the keyed classes) or Python values
    keyed: ClassVar[bool]
    summary: ClassVar[str] = ""
    notation: ClassVar[str] = ""  # how a position is written, with an example
    #: the notation is whole numbers apart: a position may also be given as an int, or a tuple or list of them
    numeric: ClassVar[bool] = False
    move_notation: ClassVar[str] = ""
    options: ClassVar[tuple[Option, ...]] = ()
    #: the table keeps misère figures beside normal play's: an impartial game's own (Nim), or its table's
    #: (``misere`` among the options, ``misere_option``); never another kind's
    misere: bool = False
    #: a game whose table holds parts of sums answers ``--misere`` with a misère quotient of its parts kept
    #: beside its rows (the octal games, docs/misere.md), not with misère figures in its rows
    misere_quotient: ClassVar[bool] = False

    def __init__(self, **params: Any) -> None:
        self.params = self.check_params(params)
        if self.params.get(MISERE) and not self.misere_quotient:
            self.misere = True  # this table's, over the class's default

    # -- parameters -----------------------------------------------------------
    @classmethod
    def check_params(cls, params: dict[str, Any]) -> dict[str, Any]:
        """Validate and normalise build options; raise TablebaseError naming the problem."""
        params = {k.replace("-", "_"): v for k, v in params.items()}
        misere = cls.misere_option(params.pop(MISERE, None))
        known = {o.key for o in cls.options}
        unknown = sorted(set(params) - known)
        if unknown:
            listed = ", ".join("--" + o.name for o in cls.options) or "none"
            raise UsageError(f"{cls.name}: unknown option {unknown[0]!r}; options are {listed}")
        out = {}
        for o in cls.options:
            if params.get(o.key) is None:
                if o.required:
                    raise UsageError(f"{cls.name}: missing option --{o.name} ({o.help})")
                continue
            value = params[o.key]
            if o.type is int:
                if isinstance(value, bool) or not isinstance(value, (int, str)):
                    raise UsageError(f"{cls.name}: --{o.name} must be an integer, got {value!r}")
                try:
                    value = int(value)
                except ValueError:
                    raise UsageError(
                        f"{cls.name}: --{o.name} must be an integer, got {value!r}"
                    ) from None
            else:
                value = str(value)
            out[o.key] = value
        return {**out, **misere}

    @classmethod
    def misere_option(cls, value: Any) -> dict[str, bool]:
        """The ``misere`` option as ``params`` keeps it: ``{"misere": True}``, or nothing where it is not asked
        or the game keeps misère figures anyway (Nim); refused in one line for a game that cannot have them."""
        if value is None or value is False:
            return {}
        if value is not True:
            raise UsageError(f"{cls.name}: misere must be true or false, got {value!r}")
        if cls.kind != "impartial":
            raise UsageError(f"{cls.name}: --misere is for impartial games, and this game is {cls.kind}")
        if cls.keyed and getattr(cls, "sums", False) and not cls.misere_quotient:
            raise UsageError(f"{cls.name}: --misere is refused: its table holds parts of sums, and a sum's misère "
                             "outcome is not found from its parts' (an octal game's sums in misère play: "
                             "tablebase misere CODE, docs/misere.md)")
        return {} if cls.misere else {MISERE: True}

    @classmethod
    def variants(cls, params: dict[str, Any]) -> list[dict[str, Any]]:
        """The tables one entry of a job file stands for, each by its options: one, unless the game reads
        a set of tables from an option of its own (the octal game's ``codes``)."""
        return [params]

    @property
    def work_group(self) -> str | None:
        """Tables whose games give the same group (not None) share work: a job that builds tables side by
        side builds a group's one after another on one worker, where a solver may take up what the one
        before it found (octal codes whose moves differ in none of their values). None: no group."""
        return None

    def int_param(self, key: str, low: int, high: int) -> int:
        """An integer option, refused with a one-line error outside ``low..high``."""
        value = self.params[key]
        if not low <= value <= high:
            raise UsageError(
                f"{self.name}: --{key.replace('_', '-')} must be between {low} and {high}, got {value}"
            )
        return value

    @property
    def table(self) -> str:
        """The default table name, a SQL identifier: the game's name and its options."""
        return table_name([self.name] + [f"{k}{v}" for k, v in self.params.items() if k != MISERE])

    @property
    def bounds(self) -> str:
        """What the table holds, in words, for error messages."""
        said = [f"{k.replace('_', '-')} {v}" for k, v in self.params.items() if k != MISERE]
        return ", ".join(said) or "every position"

    # -- pictures -------------------------------------------------------------------
    def draw(self, position: str) -> Picture:
        """A picture of a position given in the table's notation (the explorer and ``tablebase plot`` show it).

        Games override it to draw their board; by default the notation is shown in a box.
        """
        return text_box(position)

    def highlight(self, position: str, move: str, after: str) -> list[Box]:
        """Where ``move`` (by its name) changes the picture of ``position``, leading to ``after``: the boxes of
        ``draw(position)`` that the explorer outlines.

        By default the cells the two pictures draw differently (the shared ``board`` and ``heaps``
        pictures name their cells; ``drawing.changed``). A game whose pictures move cells about (a board
        cropped after the move, heaps sorted again) says it itself; one whose pictures name no cells
        (trees, a text box) has no highlight.
        """
        return changed(self.draw(position), self.draw(after))

    def position_text(self, position: object) -> str:
        """A position given as text, or as the game's own value where its notation is numbers (``3``,
        ``(3, 5)``, ``[7, 7, 5, 3]``), as the text the table reads; one PositionError saying what a
        position may be otherwise."""
        return position_text(self, position)

    # -- helpers for subclasses -----------------------------------------------------
    def position_error(self, text: str, why: str) -> PositionError:
        """The error for a position that cannot be read or is not in the table."""
        return PositionError(
            f"{self.name}: bad position {text!r}: {why} "
            f"(notation: {self.notation or 'see the game'}; this table holds {self.bounds})"
        )

    def parse_ints(self, text: str, separators: str = " ,") -> list[int]:
        """Whole numbers separated by spaces or commas, or a position error."""
        cleaned = text
        for sep in separators:
            if sep != " ":  # split() splits at spaces already: a probe of one position counts every call
                cleaned = cleaned.replace(sep, " ")
        words = cleaned.split()
        try:
            return list(map(small_numbers().__getitem__, words))  # a fourth of int()'s time
        except KeyError:  # a larger number, or one spelt otherwise ("07", "+7"): int() reads it alike
            pass
        try:
            return list(map(int, words))
        except ValueError:
            raise self.position_error(text, "expected whole numbers") from None
