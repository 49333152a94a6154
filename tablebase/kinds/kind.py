"""What every kind answers of a table of one game when it is read, and the table as lookups see it.

A kind is bound to a game and its keyed form, which it always has (a plain
game's over the listing its table records): it gives the rows' columns, the
notation of keys, lookups, probes, a line's choice of move and what the probe
index leaves to the children. What building asks of a kind is ``tablebase.builders``.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar

from tablebase.errors import PositionError, TablebaseError
from tablebase.games import Game, KeyedForm, PlainGame, Texts
from tablebase.games.forms import positions_array
from tablebase.kinds.artifacts import Artifact
from tablebase.kinds.budget import Bounds
from tablebase.kinds.lines import Choose, best_line, by_figure, side_named
from tablebase.lazy import np, pa
from tablebase.listed import LevelRows, ListedKeyedGame, ListedPlainGame
from tablebase.store import LoadedRows, Manifest
from tablebase.store.location import Location
from tablebase.store.probed import Derive, ProbedRows

#: the rows of a level of a listing from ``start`` to ``stop`` (perhaps more): a built table's notation
Rows = Callable[[int, int, int], LevelRows]


@dataclass
class StoredTable:
    """A built table as lookups see it: where it is, its manifest, its kind bound to its game, its rows.

    ``loaded`` is where a kind keeps what it loaded of the table (the values of
    a partizan table), for as long as the table is open.
    """

    root: Location  # where the table lies: a folder or an object store
    name: str
    manifest: Manifest
    kind: Kind  # bound to the game's keyed form
    rows: Callable[[], LoadedRows | ProbedRows]  # the probe index read in place, else rows loaded
    loaded: dict[str, Any] = field(default_factory=dict)
    #: the game's source is not the one the table was built from
    changed: bool = False
    #: what a lookup may search beyond the table, unless its caller set a budget (``budget.searching``)
    search: Bounds = Bounds()

    @property
    def keyed(self) -> KeyedForm:
        """The table's game in keyed form."""
        return self.kind.keyed

    def lookup(self, text: str) -> dict[str, Any]:
        return self.kind.lookup(self, text)

    def probe(self, text: str) -> dict[str, Any]:
        return self.kind.probe(self, text)

    def lookup_many(self, texts: Texts, positions: bool, wanted: set[str] | None = None) -> pa.Table:
        return self.kind.lookup_many(self, texts, positions, wanted)

    def line(self, text: str, first: str | None = None) -> dict[str, Any]:
        return best_line(self.lookup, text, self.kind.line_choice(), side_named(first, self.kind.sides))


class Kind(ABC):
    """What is special about one kind of game when its table is read, bound to one game: ``kind_of``.

    It holds the game as written (``game``: plain or keyed) and its keyed
    form (``keyed``): the game itself when it lists its own levels, else a
    form over the engine's listing of its positions. What holds for the kind
    whatever the game (its sides, its artifacts) is on the class, so that a
    table's files can be read without its game.
    """

    name: ClassVar[str]
    #: the number of sides of moves (partizan games: Left and Right)
    sides: ClassVar[int] = 1
    #: files its tables have beside their rows, as SQL sees them
    artifacts: ClassVar[tuple[Artifact, ...]] = ()
    #: a plain game's keyed form over its listing: ``ListedPlainGame`` completed with the kind's moves
    listed_class: ClassVar[type[ListedPlainGame]]

    def __init__(self, game: Game, keyed: KeyedForm, symmetry: bool = False) -> None:
        self.game: Any = game
        self.keyed: Any = keyed  # a ``KeyedForm`` of the kind's own protocol
        #: the table keeps one position of each orbit under the game's symmetry (``PlainGame.canonical``)
        self.symmetry = symmetry

    @classmethod
    def bound(cls, game: Game, symmetry: bool = False, sizes: Any = None, move_names: list[str] | None = None,
              rows: Rows | None = None, max_moves: int = 0, mean_moves: float = 0.0,
              kept: list[int] | None = None) -> Kind:
        """The kind bound to the game's keyed form: the game itself where it lists its own levels, else its form
        over a listing of its positions (``sizes`` per level, ``rows(level, start, stop)``: rows of a level
        that hold those, perhaps more; lookups of a built plain game give only each level's notation;
        ``kept``: the levels some move keeps, where the listing says, None where it does not).
        TablebaseError where the game needs a listing and none is given."""
        if game.keyed and game.lists_levels:
            return cls(game, game, symmetry)
        if sizes is None:
            raise TablebaseError(f"{game.name}: its positions must be listed first")
        if isinstance(game, PlainGame):
            keyed: Any = cls.listed_class(game, sizes, move_names or [], rows, max_moves, mean_moves, kept,
                                          game.canonical if symmetry else None)
        else:
            keys = None if rows is None else (lambda level: rows(level, 0, int(sizes[level])).keys)
            keyed = ListedKeyedGame(game, sizes, keys)
        return cls(game, keyed, symmetry)

    # -- rows -----------------------------------------------------------------------
    @classmethod
    @abstractmethod
    def columns_of(cls, game: Game | type[Game]) -> list[str]:
        """The columns of a game's rows, in their order (a game class will do: only its declarations count).
        Every table's view adds ``level`` after ``position``."""

    def columns(self) -> list[str]:
        """The columns of the game's rows, in their order (``columns_of``)."""
        return self.columns_of(self.game)

    def spell(self, keys: np.ndarray) -> pa.Array:
        """The notation of positions given by key, as Arrow strings (compact tables spell them when read)."""
        return positions_array(self.keyed, keys)

    # -- reading -----------------------------------------------------------------
    @abstractmethod
    def lookup(self, table: StoredTable, text: str) -> dict[str, Any]:
        """A position's stored row and every move with its result's figures, best first."""

    def probe(self, table: StoredTable, text: str) -> dict[str, Any]:
        """A position's stored row only, from memory."""
        return self.prober(table)(text)

    def prober(self, table: StoredTable, wanted: frozenset[str] | None = None) -> Callable[[str], dict[str, Any]]:
        """``probe`` of the table, bound once: the game's reading and the table's rows are looked up now, not
        at each probe (a warm probe takes microseconds, a tenth of one each call saved). ``wanted``: the
        figures asked for, where not all; a figure the probe index leaves to the children (an impartial
        table's best move) is found only if asked, since it costs a probe of each child up to the one it
        names. A kind whose probe differs overrides this, not ``probe``."""
        index = table.rows()
        locate, row, name, bounds = self.keyed.locator(), index.row_reader(), table.name, self.keyed.bounds
        by_children = self.by_children(index, wanted)

        def probe(text: str) -> dict[str, Any]:
            key, level = locate(text)
            found = row(key, level)
            if found is None:
                raise PositionError(f"{name}: position {text!r} is not stored (this table holds {bounds})")
            if by_children is not None:
                found.update(by_children(key, found))
            return found

        asked = self._as_asked(table, probe) if self.symmetry else probe
        if wanted is None:
            return asked
        return lambda text: {k: v for k, v in asked(text).items() if k in wanted}

    def _as_asked(self, table: StoredTable, probe: Callable[[str], dict[str, Any]]) -> Callable[[str], dict[str, Any]]:
        """``probe`` of a table of one position an orbit: a position that is not its representative gets the
        figures stored for it, and its best moves in its own orientation, as its lookup finds them."""
        game = self.game

        def as_asked(text: str) -> dict[str, Any]:
            found = probe(text)
            best = [f for f in found if f.startswith("best_")]
            position = game.read(text)
            if best and game.format(game.canonical(position)) != game.format(position):
                looked = self.lookup(table, text)
                found.update({f: looked[f] for f in best})
            return found

        return as_asked

    # -- what the probe index leaves to the children ----------------------------------
    def by_children(self, index: LoadedRows | ProbedRows, wanted: frozenset[str] | None = None
                    ) -> Callable[[int, dict[str, Any]], dict[str, Any]] | None:
        """What finds, for one stored key and its stored figures, the figures the table's probe index leaves to
        the children (docs/format.md) of those ``wanted`` (all if None); None where it leaves none of them (a
        kind whose index stores every figure)."""
        return None

    def derive(self) -> Derive | None:
        """``by_children`` for many keys at once (``ProbedRows.rows``), or None."""
        return None

    def lookup_many(self, table: StoredTable, texts: Texts, positions: bool,
                    wanted: set[str] | None = None) -> pa.Table:
        """Stored rows of many positions, in order (null figures where a position is not stored); ``wanted``:
        the columns asked for, where not all (a figure the index leaves to the children is found only if asked)."""
        if not positions:
            keys, levels = self.keyed.locate_many(texts)
            return table.rows().rows(keys, False, levels, wanted)
        keys, levels, spelt = self.keyed.locate_spelt(texts)
        if not spelt:
            return table.rows().rows(keys, True, levels, wanted)
        # The texts are the positions' notation already: spelling a million keys again took a third of a second.
        return table.rows().rows(keys, False, levels, wanted).add_column(1, "position", texts.to_arrow())

    def line_choice(self) -> Choose:
        """Which move a line of best play takes from a lookup (``lines.py``): by default ``best_move``."""
        return by_figure("best_move")
