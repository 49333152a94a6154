"""What building a table asks of a game's kind: its listing, its solver, its memory, its artifacts, an oracle.

A builder is bound to a game as written. A game the engine lists is listed
first (``list_positions``, or on the workers); the builder over the listing
(``listed``) holds the reading kind bound to the listed form (``kind``).
Which figures a dense solver holds wide is an argument, never state.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any, ClassVar

from tablebase.builders.artifact_build import ArtifactBuild, Say
from tablebase.errors import TablebaseError
from tablebase.games import Game, PlainGame, SumMoves
from tablebase.games.loops import children_of
from tablebase.games.plain import declares_symmetry
from tablebase.kinds import Kind
from tablebase.kinds.kind import Rows
from tablebase.lazy import np
from tablebase.listing.explore import Exploration
from tablebase.listing.levels import Listing, list_keys
from tablebase.listing.rules import PlainRules
from tablebase.probe_writer import Rules
from tablebase.solve import Place, Solver

#: which figures a dense solver holds at their bound's type, the others in one byte (a build's choice,
#: solve/figures.py); None: all at their bound's type. Kinds without such figures ignore it.
Wide = frozenset[str] | None


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


class Builder(ABC):
    """What building a table of one game asks of its kind, bound to the game: ``builder_of(game)``.

    ``game`` is the game as written (plain or keyed); ``kind`` the reading
    kind bound to its keyed form, there from the start where the game lists
    its own levels and once listed otherwise. What holds for the kind
    whatever the game (how its levels are solved, its artifacts) is on the
    class.
    """

    #: the reading kind of the games this builder builds
    kind_class: ClassVar[type[Kind]]
    #: levels are solved in one piece: moves within a level (passes) tie their positions together
    whole_levels: ClassVar[bool] = False
    #: moves may stay in their level
    same_level: ClassVar[bool] = False
    #: how its tables' files beside their rows are made
    artifacts: ClassVar[tuple[ArtifactBuild, ...]] = ()

    def __init__(self, game: Game, symmetry: bool = False, kind: Kind | None = None) -> None:
        self.game: Any = game
        #: the table keeps one position of each orbit under the game's symmetry (``PlainGame.canonical``)
        self.symmetry = symmetry
        self._kind = kind if kind is not None or self.needs_listing else self.kind_class.bound(game, symmetry)

    # -- positions ---------------------------------------------------------------
    @property
    def needs_listing(self) -> bool:
        """Whether the engine must list the game's positions before solving it."""
        return not (self.game.keyed and self.game.lists_levels)

    @property
    def kind(self) -> Kind:
        """The reading kind bound to the game's keyed form (a game the engine lists: once listed)."""
        if self._kind is None:
            raise TablebaseError(f"{self.game.name}: its positions must be listed first")
        return self._kind

    @property
    def keyed(self) -> Any:
        """The game in keyed form (a ``KeyedForm`` of the kind's own protocol)."""
        return self.kind.keyed

    def list_positions(self, say: Say | None = None, limit: int | None = None,
                       memory: int | None = None) -> Listing:
        """The engine's listing of the game's positions (games that do not list their levels).

        ``limit``: refuse more positions; ``memory``: refuse to hold more bytes.
        """
        if isinstance(self.game, PlainGame):
            return Exploration(self.game, self.plain_rules(), limit, memory, say).everything()
        return list_keys(self.game, self.successors(), self.same_level, say)

    def listed(self, sizes: Any, move_names: list[str] | None = None, rows: Rows | None = None,
               max_moves: int = 0, mean_moves: float = 0.0, kept: list[int] | None = None) -> Builder:
        """This builder over a listing of the game's positions (``Kind.bound`` says what each argument is).

        A game that lists its own levels is its own keyed form: the builder is returned as it is.
        """
        if not self.needs_listing:
            return self
        kind = self.kind_class.bound(self.game, self.symmetry, sizes, move_names, rows, max_moves, mean_moves, kept)
        return type(self)(self.game, self.symmetry, kind)

    def over_listing(self, listing: Listing) -> Builder:
        """This builder over a listing held in memory."""
        return self.listed(listing.sizes, listing.move_names, lambda level, start, stop: listing.levels[level],
                           listing.max_moves, listing.mean_moves)

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

    # -- solving -----------------------------------------------------------------
    @abstractmethod
    def solver(self, place: Place | None = None, fresh: bool = False, wide: Wide = None) -> Solver:
        """The solver of the game's keyed form. ``fresh``: compile its loops anew, reusing no cache; ``wide``:
        the figures a dense solver holds at their bound's type."""

    def compact_refusal(self) -> str | None:
        """Why the game's tables cannot leave the position text out of their files, or None if they can."""
        if not self.game.keyed:
            return "the keys of a plain game are the engine's numbers and do not spell positions"
        return None

    @abstractmethod
    def footprint(self, wide: Wide = None) -> Footprint:
        """What a worker holds while it solves the game (in keyed form), its dense figures as ``wide`` says."""

    # -- the probe index ----------------------------------------------------------
    def index_rules(self) -> Rules:
        """Which of the rows' figures the probe index derives rather than stores (docs/format.md): the
        writer's choice, which the index records for its readers."""
        return self.rules_for(self.kind.columns())

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
        put in key order (``probe_writer.index_from_files``)."""
        return not self.game.keyed

    @property
    def indexed_from_values(self) -> bool:
        """Whether the probe index is written from the values the workers hold in key order once the last
        level is solved (``probe_writer.segment_of_values``), rather than each part's segment beside its rows."""
        return False

    # -- checking ----------------------------------------------------------------
    @abstractmethod
    def oracle(self) -> Callable[[int], dict[str, Any]]:
        """A plain recursive search of the rules, sharing nothing with the solver (``check-game``
        compares the two): a position's figures by key."""
