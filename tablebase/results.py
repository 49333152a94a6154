"""What lookups and probes return, as types a type checker knows.

A result is a plain dict (it goes to JSON as it is), typed as a
``TypedDict``: every figure a kind may give is named here (``Figures``), and a
result holds those of its table's kind (``total=False``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NamedTuple, TypedDict

if TYPE_CHECKING:
    from fractions import Fraction

    import pyarrow as pa

    from tablebase.cgt import Value


class Figures(TypedDict, total=False):
    """A position's stored figures, those of its table's kind.

    Impartial rows give ``grundy``, ``outcome``, ``remoteness``, ``best_move`` (and, in a table built with
    ``--misere`` or of Nim, ``misere_outcome``, ``misere_remoteness``, ``misere_best_move``); a sum of parts
    gives no remoteness, and an octal table built with ``--misere`` answers a sum's ``misere_outcome`` and
    ``misere_best_move`` from its misère quotient (null, with ``misere_note``, beyond its heaps) and a heap's
    ``genus``; partizan rows give the CGT ``value`` in CGSuite notation with its exact ``mean``,
    ``temperature`` and stops as ``Fraction``s (``lookup_many`` and SQL give them as doubles), and ``exact()``
    turns any row with a value into the value as a ``tablebase.cgt`` game; scored rows give ``outcome``,
    ``score``, ``plies`` and passes.
    """

    key: int | None  # None for a sum of several stored parts
    position: str
    level: int | None
    outcome: str  # impartial and scored: N (the mover wins), P (loses), D (drawn); partizan: L, R, N, P
    # impartial
    grundy: int
    remoteness: int
    best_move: str | None
    misere_outcome: str
    misere_remoteness: int
    misere_best_move: str | None
    misere_note: str | None  # a sum beyond the heaps of an octal table's misère quotient: why it has no outcome
    genus: str | None  # an octal heap's genus symbol, in a table built with --misere (null beyond its bound)
    parts: int  # a sum of this many stored parts
    # partizan
    value: str
    value_id: int
    mean: Fraction | float  # exact from probe and lookup, a double from lookup_many and SQL
    temperature: Fraction | float
    left_stop: Fraction
    right_stop: Fraction
    best_left: str | None
    best_right: str | None
    left_moves: int
    right_moves: int
    regions: str
    searched: bool
    note: str
    side: str  # of a move: the side (Left or Right) that makes it
    # scored
    score: int
    plies: int | None
    mover_passes: int
    opponent_passes: int
    best_score_move: str | None
    best_mover_passes_move: str | None
    best_opponent_passes_move: str | None


class Move(Figures, total=False):
    """One move of a lookup: its name and the figures of the position it leads to."""

    move: str


class Probe(Figures, total=False):
    """``Tablebase.probe``: one position's figures."""

    table: str
    warning: str  # the game's source is not the one the table was built from


class Lookup(Probe, total=False):
    """``Tablebase.lookup``: a position's figures and every move, best first."""

    moves: list[Move]


class Step(Figures, total=False):
    """One position of a line of best play, with the move that left it (None at the end)."""

    move: str | None
    mover: str  # partizan lines: the side to move here, Left or Right


class Line(TypedDict, total=False):
    """``Tablebase.line``: best play from a position to the end, each position with its figures."""

    table: str
    position: str
    first: str  # partizan lines: the side to move first
    steps: list[Step]
    ended: str  # why the line stops: "no moves", or that the steps ran out
    warning: str


@dataclass(frozen=True)
class Exact:
    """A partizan position's figures exactly: its value as a game, and the numbers as fractions."""

    value: Value
    mean: Fraction
    temperature: Fraction
    left_stop: Fraction
    right_stop: Fraction


def exact(row: Figures | dict[str, Any]) -> Exact:
    """The exact figures of any row with a CGT ``value`` (a probe, a lookup, a move, a row of SQL)."""
    from fractions import Fraction

    from tablebase.cgt import parse

    if not isinstance(row.get("value"), str):
        raise ValueError("the row has no CGT value (only partizan tables have one)")
    game = parse(row["value"])
    return Exact(game, Fraction(game.mean), Fraction(game.temperature), Fraction(game.left_stop),
                 Fraction(game.right_stop))


class Statistic(NamedTuple):
    """One named statistic of a table: ``name`` is the query file's (``queries/<name>.sql``), a key that
    stays; ``title`` says it in words; ``rows`` are its result."""

    name: str
    title: str
    rows: "pa.Table"
    chart: str = ""  # how a page draws it, where its query says ("-- chart: Y by X")
