"""What every kind object answers for the game it is bound to, and the types the answers come in.

A kind (``impartial.py``, ``partizan.py``, ``scored.py``) bound to a game
(``kind_of(game)``) gives: the game's keyed form (listing its positions first
if the game does not list them), a solver, the memory a worker holds per
position, the extra files a table has, lookups and probes, whether compact
files are allowed, and an oracle: a plain recursive search of the rules that
``check-game`` compares the solver with.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, ClassVar

from tablebase.errors import PositionError, TablebaseError
from tablebase.games import Game, KeyedForm, PlainGame, SumMoves, Texts
from tablebase.games.forms import positions_array
from tablebase.games.loops import children_of
from tablebase.games.plain import declares_symmetry
from tablebase.kinds.artifacts import Artifact, Say
from tablebase.kinds.budget import Bounds
from tablebase.kinds.lines import Choose, best_line, by_figure, side_named
from tablebase.lazy import np, pa
from tablebase.listing import (
    LevelRows,
    ListedKeyedGame,
    ListedPlainGame,
    Listing,
    PlainRules,
    list_keys,
)
from tablebase.probe_writer import Rules
from tablebase.solve import Place, Solver
from tablebase.store import Manifest, TableIndex
from tablebase.store.probed import Derive, ProbedRows


@dataclass(frozen=True)
class Footprint:
    """What a worker holds while it solves, for the memory plan."""

    per_key: int  # bytes per key of the key space (dense values), or per position read (sparse)
    per_row: int  # bytes per position of a partition in flight
    read_back: int  # bytes per position of a lower level while it is read back
    dense: bool  # values over the whole key space, else over the positions solved so far
    # Bytes per position of a partition in flight for each byte of a position's notation: the
    # plan measures the notation's mean length (``with_notation``) where this is not 0.
    per_notation_byte: int = 0
    # The values are arrays the solver maps from a folder (``Place``): one copy per machine, in shared
    # memory or, when they do not fit a worker, on local disk (build/cluster/shared_values.py).
    mapped: bool = False

    def with_notation(self, notation_bytes: int) -> Footprint:
        """The footprint with the copies of a position's notation, of that mean length, in ``per_row``."""
        return replace(self, per_row=self.per_row + self.per_notation_byte * notation_bytes, per_notation_byte=0)


@dataclass
class StoredTable:
    """A built table as lookups see it: where it is, its manifest, its kind bound to its game, its index.

    ``held`` is where a kind keeps what it loaded of the table (the values of
    a partizan table), for as long as the table is open.
    """

    root: Path
    name: str
    manifest: Manifest
    kind: Kind  # bound to the game's keyed form
    index: Callable[[], TableIndex | ProbedRows]  # the probe index read in place, else rows loaded
    held: dict[str, Any] = field(default_factory=dict)
    #: the game's source is not the one the table was built from
    changed: bool = False
    #: what a lookup may search beyond the table, unless its caller set a budget (``budget.searching``)
    search: Bounds = Bounds()

    @property
    def game(self) -> KeyedForm:
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
    """What is special about one kind of game, bound to one game: ``kind_of(game)``.

    It holds the game as written (``game``: plain or keyed) and, once known,
    its keyed form (``keyed``): the game itself when it lists its own levels,
    else a form over the engine's listing of its positions (``listed``). What
    holds for the kind whatever the game (its sides, how its levels are
    solved, its artifacts) is on the class, so that a table's files can be
    read without its game.
    """

    name: ClassVar[str]
    #: the number of sides of moves (partizan games: Left and Right)
    sides: ClassVar[int] = 1
    #: levels are solved in one piece: moves within a level (passes) tie their positions together
    whole_levels: ClassVar[bool] = False
    #: moves may stay in their level
    same_level: ClassVar[bool] = False
    #: files its tables have beside their rows
    artifacts: ClassVar[tuple[Artifact, ...]] = ()
    #: a plain game's keyed form over its listing: ``ListedPlainGame`` completed with the kind's moves
    listed_class: ClassVar[type[ListedPlainGame]]
    #: which figures a dense solver holds at their bound's type, the others in one byte (a build's
    #: choice, solve/figures.py); None: all at their bound's type. Kinds without such figures ignore it.
    wide: frozenset[str] | None = None

    def __init__(self, game: Game | type[Game], keyed: KeyedForm | None = None, symmetry: bool = False) -> None:
        self.game: Any = game
        self._keyed = keyed if keyed is not None else None if self.needs_listing else game
        #: the table keeps one position of each orbit under the game's symmetry (``PlainGame.canonical``)
        self.symmetry = symmetry

    # -- positions ---------------------------------------------------------------
    @property
    def needs_listing(self) -> bool:
        """Whether the engine must list the game's positions before solving it."""
        return not (self.game.keyed and self.game.lists_levels)

    @property
    def keyed(self) -> Any:
        """The game in keyed form (a ``KeyedForm`` of the kind's own protocol)."""
        if self._keyed is None:
            raise TablebaseError(f"{self.game.name}: its positions must be listed first")
        return self._keyed

    def list_positions(self, say: Say | None = None, limit: int | None = None,
                       memory: int | None = None) -> Listing:
        """The engine's listing of the game's positions (games that do not list their levels).

        ``limit``: refuse more positions; ``memory``: refuse to hold more bytes.
        """
        if isinstance(self.game, PlainGame):
            from tablebase.listing.explore import (
                Exploration,  # the engine a reader of tables never runs
            )

            return Exploration(self.game, self.plain_rules(), limit, memory, say).everything()
        return list_keys(self.game, self.successors(), self.same_level, say)

    def plain_rules(self) -> PlainRules:
        """What an exploration of a plain game needs of it (its sides of moves, parts, results): the game's
        rules, their moves leading to their children's representatives where the table keeps one position
        of each orbit."""
        rules = self.game_rules()
        return rules.reduced(self.game.canonical) if self.symmetry else rules

    @abstractmethod
    def game_rules(self) -> PlainRules:
        """``plain_rules`` as the game gives them, each position as it is."""

    def symmetry_refusal(self) -> str | None:
        """Why a table of the game cannot keep one position of each orbit (``--symmetry``), or None if it can."""
        if not declares_symmetry(self.game):
            return "the game declares no symmetry (a plain game's canonical(position), docs/games.md)"
        return None

    def successors(self) -> Callable[[np.ndarray], np.ndarray]:
        """Every position a batch of keys leads to (for listing keyed games): each part of each move's result."""
        game = self.game

        def parts(keys: np.ndarray) -> np.ndarray:
            return np.concatenate([side.keys for side in self.moves_of(keys, game)])

        return parts

    def moves_of(self, keys: np.ndarray, game: Any = None) -> list[SumMoves]:
        """Each side's moves of a batch of keys (of ``game``, by default the keyed form), each move leading to
        a sum of parts: by default one side whose moves lead to one position each."""
        offsets, children, codes = children_of(self.keyed if game is None else game, keys)
        return [SumMoves(offsets, codes, np.arange(len(children) + 1, dtype=np.int64), children,
                         np.zeros(len(children), dtype=np.bool_))]

    def listed(self, sizes: Any, move_names: list[str] | None = None,
               rows: Callable[[int, int, int], LevelRows] | None = None, max_moves: int = 0,
               mean_moves: float = 0.0, kept: list[int] | None = None) -> Kind:
        """This kind bound to the game's keyed form over a listing of its positions (``sizes`` per
        level, ``rows(level, start, stop)``: rows of a level that hold those, perhaps more; lookups of a
        built plain game give only each level's notation; ``kept``: the levels some move keeps, where
        the listing says, None where it does not).

        A game that lists its own levels is its own keyed form: the kind is returned as it is.
        """
        if not self.needs_listing:
            return self
        if sizes is None:
            raise TablebaseError(f"{self.game.name}: its positions must be listed first")
        if isinstance(self.game, PlainGame):
            keyed: Any = self.listed_class(self.game, sizes, move_names or [], rows, max_moves, mean_moves, kept,
                                           self.game.canonical if self.symmetry else None)
        else:
            keys = None if rows is None else (lambda level: rows(level, 0, int(sizes[level])).keys)
            keyed = ListedKeyedGame(self.game, sizes, keys)
        return type(self)(self.game, keyed, self.symmetry)

    def over_listing(self, listing: Listing) -> Kind:
        """This kind bound to the game's keyed form over a listing held in memory."""
        return self.listed(listing.sizes, listing.move_names, lambda level, start, stop: listing.levels[level],
                           listing.max_moves, listing.mean_moves)

    # -- rows -----------------------------------------------------------------------
    @abstractmethod
    def columns(self) -> list[str]:
        """The columns of the game's rows, in their order (bound to a game class will do: only
        declarations count). Every table's view adds ``level`` after ``position``."""

    def spell(self, keys: np.ndarray) -> pa.Array:
        """The notation of positions given by key, as Arrow strings (compact tables spell them when read)."""
        return positions_array(self.keyed, keys)

    # -- solving -----------------------------------------------------------------
    @abstractmethod
    def solver(self, place: Place | None = None, fresh: bool = False) -> Solver:
        """The solver of the game's keyed form. ``fresh``: compile its loops anew, reusing no cache."""

    def compact_refusal(self) -> str | None:
        """Why the game's tables cannot leave the position text out of their files, or None if they can."""
        if not self.game.keyed:
            return "the keys of a plain game are the engine's numbers and do not spell positions"
        return None

    @abstractmethod
    def footprint(self) -> Footprint:
        """What a worker holds while it solves the game (in keyed form)."""

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
        index = table.index()
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

    # -- the probe index ----------------------------------------------------------
    def index_rules(self) -> Rules:
        """Which of the rows' figures the probe index derives rather than stores (docs/format.md)."""
        return self.rules_for(self.columns())

    @classmethod
    def rules_for(cls, columns: list[str]) -> Rules:
        """``index_rules`` of a table of these columns (a kind's rules follow from its columns): none by
        default."""
        return {}

    @property
    def parts_in_key_order(self) -> bool:
        """Whether each part of a level holds a range of keys of its own, ascending with the levels, so that
        each part's segment of the probe index is written beside its rows: a plain game's, whose keys the
        engine numbers level by level. Else the index is written once the table is whole, from its rows
        put in key order (``store.probe.index_from_files``)."""
        return not self.game.keyed

    @property
    def indexed_from_values(self) -> bool:
        """Whether the probe index is written from the values the workers hold in key order once the last
        level is solved (``store.probe.segment_of_values``), rather than each part's segment beside its rows."""
        return False

    def by_children(self, index: TableIndex | ProbedRows, wanted: frozenset[str] | None = None
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
            return table.index().rows(keys, False, levels, wanted)
        keys, levels, spelt = self.keyed.locate_spelt(texts)
        if not spelt:
            return table.index().rows(keys, True, levels, wanted)
        # The texts are the positions' notation already: spelling a million keys again took a third of a second.
        return table.index().rows(keys, False, levels, wanted).add_column(1, "position", texts.to_arrow())

    def line_choice(self) -> Choose:
        """Which move a line of best play takes from a lookup (``lines.py``): by default ``best_move``."""
        return by_figure("best_move")

    # -- checking ----------------------------------------------------------------
    @abstractmethod
    def oracle(self) -> Callable[[int], dict[str, Any]]:
        """A plain recursive search of the rules, sharing nothing with the solver (``check-game``
        compares the two): a position's figures by key."""
