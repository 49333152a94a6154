"""The format of a table's files, spelt once: the columns of each kind's rows and of the values table, and
the manifest's fields and format.

Each column has its Arrow type as pyarrow reads it from the file, the tables
that hold it and what it means; each manifest field its JSON type and what
it means. It sits in the foundation so that every room that writes or reads
files (the kinds, the store, the solvers) can take its names from here; a
build's files are read back against it (``tests/test_format_files.py``), and
docs/format.md says the same for a reader (``tests/test_format_doc.py``).

Types are spelt as pyarrow spells them, so that the doc shows them as they
are: a file is written without Arrow's schema, so a text written
dictionary-encoded reads as ``string``. Nothing here imports Arrow until a
type is asked for as one (``arrow_type``): a program that only reads a
table's probe index never does.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Any

#: the manifest's ``format``: 2 recorded the game's source, ``compact`` and the listing of positions; 3, runs
#: of small levels sharing a file of rows. A reader refuses a table of any other format in one line.
FORMAT = 3

#: which tables hold a column: the condition's name in ``Column.held``, and the doc's words for it
HELD = {
    "": "every table",
    "text": "all but compact tables",
    "whole": "all but tables of components",
    "misere": "tables built with `--misere`, and Nim's",
    "genus": "octal tables built with `--misere`",
    "scores": "games that score",
    "passes": "games that pass",
}


@dataclass(frozen=True)
class Column:
    """One column of a table's files."""

    name: str
    #: its Arrow type as read from the file; several where the build picks the narrowest for the game
    types: tuple[str, ...]
    meaning: str
    #: the condition (a key of ``HELD``) under which a table holds it
    held: str = ""
    #: the texts it may hold, where they are few (null aside)
    values: tuple[str, ...] = ()

    @property
    def type(self) -> str:
        """The one type of a column that has one."""
        if len(self.types) != 1:
            raise ValueError(f"column {self.name!r} is one of {', '.join(self.types)}, as the game needs")
        return self.types[0]

    def arrow(self) -> Any:
        """The one type, as a ``pyarrow.DataType``."""
        return arrow_type(self.type)


@dataclass(frozen=True)
class Columns:
    """The columns of one sort of file, in their order."""

    name: str
    columns: tuple[Column, ...]

    def __getitem__(self, name: str) -> Column:
        for column in self.columns:
            if column.name == name:
                return column
        raise KeyError(name)

    def names(self, **held: bool) -> list[str]:
        """The columns a table holds, in order, given which of this sort's conditions hold for it (each
        condition its columns name must be given: a table that forgets one is an error, not a guess)."""
        return [c.name for c in self.columns if not c.held or held[c.held]]


_KEY = Column("key", ("int64",), "the position's key: the game's rank of it, or the engine's number of a listed "
              "game's position (by level, then notation)")
_POSITION = Column("position", ("string",), "the position in the game's canonical notation", "text")
_MOVE = "the move's name in the game's notation, null where there is none"
_FIGURE = ("uint8", "uint16", "uint32")  # the narrowest above the game's bound; an octal table's Grundy values: uint32

IMPARTIAL = Columns("impartial", (
    _KEY,
    _POSITION,
    Column("grundy", _FIGURE, "the Grundy value (mex of the children's)"),
    Column("outcome", ("string",), "`P`: the player to move loses; `N`: wins", values=("P", "N")),
    Column("misere_outcome", ("string",), "the outcome in misère play (who cannot move wins): `P` or `N`",
           "misere", ("P", "N")),
    Column("remoteness", _FIGURE, "moves to the end, the winner hurrying and the loser delaying", "whole"),
    Column("best_move", ("string",), "a quickest win, or a longest defence (ties to the smallest move code); in a "
           "table of components, a won position's first move by code to a sum of value 0; null where there is none"),
    Column("misere_remoteness", _FIGURE, "`remoteness` in misère play, where a position without moves is won in 0 "
           "moves: even exactly where the player to move wins", "misere"),
    Column("misere_best_move", ("string",), "`best_move` in misère play: a quickest misère win, or a longest "
           "defence (ties to the smallest move code); null where there is no move", "misere"),
    Column("genus", ("string",), "the heap's genus symbol (Conway's g^γ0γ1...: its Grundy value, then the misère "
           "Grundy values of it plus 0, 1, 2... nim-heaps of 2, to where they alternate) for heaps 0..G (G the least "
           "of 20 and the misère quotient's heaps, docs/misere.md); null beyond", "genus"),
))

PARTIZAN = Columns("partizan", (
    _KEY,
    _POSITION,
    Column("value", ("string",), "the canonical form in CGSuite's notation"),
    Column("value_id", ("int64",), "the form's stable id: a 63-bit hash of it, the `id` of its row in the values "
           "table"),
    Column("outcome", ("string",), "`L`: Left wins, `R`: Right, `N`: the player to move, `P`: the other player",
           values=("L", "R", "N", "P")),
    Column("mean", ("double",), "the form's mean value"),
    Column("temperature", ("double",), "the form's temperature (CGSuite's: -1 for an integer)"),
    Column("best_left", ("string",), f"Left's best move: {_MOVE}"),
    Column("best_right", ("string",), f"Right's best move: {_MOVE}"),
    Column("left_moves", ("uint16",), "how many moves Left has"),
    Column("right_moves", ("uint16",), "how many moves Right has"),
))

SCORED = Columns("scored", (
    _KEY,
    _POSITION,
    Column("outcome", ("string",), "`N`: the player to move wins, `P`: loses, `D`: a draw (a drawn end, or a cycle "
           "neither side can leave to win)", values=("P", "N", "D")),
    Column("score", ("int8",), "the size of the win with best play, positive where the player to move wins, "
           "negative where it loses, 0 for a draw", "scores"),
    Column("plies", ("int16",), "moves to the end, the winner hurrying and the loser delaying; null for a draw"),
    Column("mover_passes", ("int8",), "passes the player to move makes before the end, it making as few and the "
           "opponent forcing as many as they can; null where endless", "passes"),
    Column("opponent_passes", ("int8",), "passes the opponent makes before the end, it making as few and the player "
           "to move forcing as many as they can; null where endless", "passes"),
    Column("best_move", ("string",), f"a move that keeps the outcome with the best plies: {_MOVE}"),
    Column("best_score_move", ("string",), f"a move that keeps the score: {_MOVE}", "scores"),
    Column("best_mover_passes_move", ("string",), f"a move that keeps `mover_passes`: {_MOVE}", "passes"),
    Column("best_opponent_passes_move", ("string",), f"a move that keeps `opponent_passes`: {_MOVE}", "passes"),
))

#: each kind's rows as solved, by the kind's name; every file of rows adds ``LEVEL`` after them
ROWS = {rows.name: rows for rows in (IMPARTIAL, PARTIZAN, SCORED)}

LEVEL = Column("level", ("int32",), "the position's level: the order levels are solved in")
FILES = Columns("files", (LEVEL,))

VALUES = Columns("values", (
    Column("id", ("int64",), "the form's stable id, which a row's `value_id` names"),
    Column("value", ("string",), "the form in CGSuite's notation"),
    Column("left_ids", ("list<int64>",), "the ids of its canonical Left options, in CGSuite's order"),
    Column("right_ids", ("list<int64>",), "the ids of its canonical Right options, in CGSuite's order"),
    Column("is_number", ("bool",), "whether the form is a number"),
    Column("mean", ("double",), "its mean value"),
    Column("temperature", ("double",), "its temperature"),
    Column("left_stop", ("double",), "its Left stop"),
    Column("right_stop", ("double",), "its Right stop"),
    Column("birthday", ("int32",), "its birthday"),
    Column("atomic_weight", ("string",), "its atomic weight, null where it has none (not an infinitesimal, or "
           "not atomic)"),
    Column("reduced_canonical_form", ("string",), "its reduced canonical form (infinitesimals ignored)"),
    Column("positions", ("int64",), "how many of the table's positions have it as their value (0: an option only)"),
    Column("first_level", ("int32",), "the lowest level of such a position; null for an option only"),
))

#: every sort of file's columns, by the name the doc gives it
GROUPS = {columns.name: columns for columns in (*ROWS.values(), FILES, VALUES)}


def file_columns(kind: str, **held: bool) -> list[str]:
    """The columns of a file of a kind's rows, in order: its figures (``held`` as ``Columns.names`` takes it),
    then the level."""
    return [*ROWS[kind].names(**held), LEVEL.name]


@dataclass(frozen=True)
class Field:
    """One field of the manifest."""

    name: str
    type: str  # its JSON type: string, integer, boolean, object or array
    meaning: str


MANIFEST = (
    Field("table", "string", "the table's name, its folder's"),
    Field("game", "string", "the game's name"),
    Field("kind", "string", "the game's kind: `impartial`, `partizan` or `scored`"),
    Field("params", "object", "the game's options, by name"),
    Field("version", "string", "the version of tablebase that built the table"),
    Field("partition_rows", "integer", "the most positions of a part: a larger level is cut into parts"),
    Field("source", "object", "where the game comes from: `ref`, `origin`, `version`, `digest` of its source"),
    Field("plan", "array", "the levels, in spans: [first level, parts, [positions of each level]]"),
    Field("files", "object", "each file of rows by name: its `rows`, `bytes` and `sha256`"),
    Field("levels_done", "array", "the levels built, as [first, last] ranges"),
    Field("complete", "boolean", "whether every level is built, and every file made from the rows"),
    Field("values", "object", "a partizan table's values table: `buckets`, and `files` and `pieces` recorded by "
          "name"),
    Field("format", "integer", "the format of the table's files"),
    Field("compact", "boolean", "whether the files leave out the position text"),
    Field("listing", "object", "a game the engine lists: its levels' sizes, move names and work files"),
    Field("probe", "object", "the probe index: each file by name, with its `rows`, `bytes`, `sha256` (and a "
          "segment file's `segments` until the directory is written)"),
    Field("figures", "object", "what the rows say of the game as a whole (an octal table's period and rare values; "
          "`misere`: the misère P-positions' `p_positions` and `p_share`)"),
    Field("symmetry", "boolean", "whether the table keeps one position of each orbit; saved only where true"),
    Field("misere", "boolean", "whether the rows hold misère figures beside normal play's (`--misere`, or Nim); "
          "saved only where true"),
    Field("quotient", "object", "an octal table built with `--misere`: its misère quotient's file (`files`, by "
          "name: `rows`, `bytes`, `sha256`), the heaps `asked` for and the `heaps` it covers, its `order`, "
          "`p_portion_size`, `stable_from`, and why it stops short of the heaps asked for (`refused`, else null); "
          "saved only where built"),
)

#: the Python type each JSON type is read as
JSON_TYPES: dict[str, type] = {"string": str, "integer": int, "boolean": bool, "object": dict, "array": list}


@cache
def arrow_type(spelt: str) -> Any:
    """A type as this module spells it (``list<int64>`` for a list), as a ``pyarrow.DataType``."""
    from tablebase.lazy import pa

    if spelt.startswith("list<") and spelt.endswith(">"):
        return pa.list_(arrow_type(spelt[len("list<"):-1]))
    return pa.type_for_alias(spelt)
