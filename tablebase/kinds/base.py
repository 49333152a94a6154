"""What every kind object answers, and the types the answers come in.

A kind (``impartial.py``, ``partizan.py``, ``scored.py``) gives: the game in
keyed form (listing its positions first if the game does not list them),
a solver, the memory a worker holds per position, the extra files a table
has, lookups and probes, whether compact files are allowed, and a plain
recursive search to check a game by.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa

from tablebase.errors import GameUnavailable, PositionError, TablebaseError
from tablebase.games import Game, GameSource, KeyedGame, PlainGame, Texts, load_game
from tablebase.kinds.listing import LevelRows, Listing, list_keys
from tablebase.kinds.search import PlainRules, Search
from tablebase.kinds.views import ListedKeys, PlainView
from tablebase.solve import Place, Solver
from tablebase.solve.kernels import children_of
from tablebase.store import Manifest, Piece, TableIndex

Say = Callable[[str], None]


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

    def with_notation(self, notation_bytes: int) -> Footprint:
        """The footprint with the copies of a position's notation, of that mean length, in ``per_row``."""
        return replace(self, per_row=self.per_row + self.per_notation_byte * notation_bytes, per_notation_byte=0)


@dataclass
class StoredTable:
    """A built table as lookups see it: where it is, its manifest, its game in keyed form, its index.

    ``held`` is where a kind keeps what it loaded of the table (the values of
    a partizan table), for as long as the table is open.
    """

    root: Path
    name: str
    manifest: Manifest
    game: Any  # the keyed form
    index: Callable[[], TableIndex]
    held: dict[str, Any] = field(default_factory=dict)
    #: the game's source is not the one the table was built from
    changed: bool = False


class Artifact(ABC):
    """Files a table has beside its rows, made from them (the values table of partizan tables).

    Each solving task writes a piece for its partition (``piece``); once every
    partition is built the pieces are merged by tasks of their own
    (``finishing_tasks``); verify derives them again (``checker``); the query
    layer shows them as views (``views``).
    """

    @abstractmethod
    def prepare(self, root: Path, manifest: Manifest) -> None:
        """Before a build or a resumed one: forget records of damaged files and partitions whose piece is lost."""

    @abstractmethod
    def piece(self, solver: Solver, rows: pa.Table, root: str, table: str, piece: Piece, durable: bool) -> dict | None:
        """On a worker: write the piece made from one solved file of rows (a store ``Piece``); its record."""

    @abstractmethod
    def record(self, manifest: Manifest, record: dict | None) -> None:
        """On the driver: take a piece's record into the manifest."""

    @abstractmethod
    def finishing_tasks(self, root: Path, manifest: Manifest) -> list[tuple[str, Callable, tuple]]:
        """After every partition: (name, function, arguments) of the tasks that finish the artifact."""

    @abstractmethod
    def finished(self, root: Path, manifest: Manifest, records: list[dict], say: Say) -> None:
        """Record what the finishing tasks wrote, and clean up."""

    @abstractmethod
    def complete(self, manifest: Manifest) -> bool:
        """Whether the artifact is whole."""

    @abstractmethod
    def checker(self, solver: Solver) -> "ArtifactCheck":
        """For verify: derives the artifact again from re-solved rows and compares."""

    @abstractmethod
    def views(self, root: Path, table: str, manifest: Manifest) -> list[str]:
        """DuckDB statements that make its views."""

    @abstractmethod
    def files(self, manifest: Manifest) -> dict[str, dict]:
        """Its finished files (name -> rows, bytes, sha256), for the table's storage figures."""


class ArtifactCheck(ABC):
    @abstractmethod
    def add(self, derived: pa.Table, stored: pa.Table, level: int) -> None:
        """One level's rows as verify derives them again, and as stored (where the files could be read)."""

    @abstractmethod
    def problems(self, root: Path, manifest: Manifest) -> list[tuple[str, str]]:
        """(file, what) of every difference once all levels are added."""


class Kind(ABC):
    """What is special about one kind of game. One instance per kind (``KINDS``)."""

    name: str
    #: the number of sides of moves (partizan games: Left and Right)
    sides: int = 1
    #: levels are solved in one piece: moves within a level (passes) tie their positions together
    whole_levels: bool = False
    #: moves may stay in their level
    same_level: bool = False

    # -- positions ---------------------------------------------------------------
    def needs_listing(self, game: Game) -> bool:
        """Whether the engine must list the game's positions before solving it."""
        return not (game.keyed and game.lists_levels)

    def list_positions(self, game: Game, say: Say | None = None, limit: int | None = None,
                       memory: int | None = None) -> Listing:
        """The engine's listing of a game's positions (games that do not list their levels).

        ``limit``: refuse more positions; ``memory``: refuse to hold more bytes.
        """
        if isinstance(game, PlainGame):
            return Search(game, self.plain_rules(game), limit, memory, say).everything()
        return list_keys(game, self.successors(game), self.same_level, say)

    @abstractmethod
    def plain_rules(self, game: PlainGame) -> PlainRules:
        """What a search of a plain game needs of it (its sides of moves, parts, results)."""

    def successors(self, game: KeyedGame) -> Callable[[np.ndarray], np.ndarray]:
        """Every position a batch of keys leads to (for listing keyed games): by default, its children."""
        return lambda keys: children_of(game, keys).keys

    def view(self, game: Game, sizes: np.ndarray | None = None, move_names: list[str] | None = None,
             rows: Callable[[int], LevelRows] | None = None, max_moves: int = 0, mean_moves: float = 0.0) -> Any:
        """The game in keyed form: itself, or over the listing of its positions (``sizes`` per level,
        ``rows(level)``; lookups of a built plain game give only each level's notation)."""
        if not self.needs_listing(game):
            return game
        if sizes is None:
            raise TablebaseError(f"{game.name}: its positions must be listed first")
        if isinstance(game, PlainGame):
            return self.plain_view(game, sizes, move_names or [], rows, max_moves, mean_moves)
        return ListedKeys(game, sizes, None if rows is None else (lambda level: rows(level).keys))

    #: the class of a plain game's keyed form over its listing (``views.PlainView`` with the kind's moves)
    view_class: type[PlainView]

    def plain_view(self, game: PlainGame, sizes: np.ndarray, move_names: list[str],
                   rows: Callable[[int], LevelRows] | None, max_moves: int, mean_moves: float = 0.0) -> PlainView:
        """A plain game in keyed form over its listing."""
        return self.view_class(game, sizes, move_names, rows, max_moves, mean_moves)

    def view_of_listing(self, game: Game, listing: Listing) -> Any:
        """The game in keyed form over a listing held in memory."""
        return self.view(game, listing.sizes, listing.move_names, listing.levels.__getitem__, listing.max_moves,
                         listing.mean_moves)

    # -- rows -----------------------------------------------------------------------
    @abstractmethod
    def columns(self, game: Any) -> list[str]:
        """The columns of the game's rows, in their order (a game class will do: only declarations count).

        Every table's view adds ``level`` after ``position``.
        """

    # -- solving -----------------------------------------------------------------
    @abstractmethod
    def solver(self, game: Any, place: Place | None = None, fresh: bool = False) -> Solver:
        """The solver of a game in keyed form. ``fresh``: compile its loops anew, reusing no cache."""

    def compact_refusal(self, game: Game) -> str | None:
        """Why the game's tables cannot leave the position text out of their files, or None if they can."""
        if not game.keyed:
            return "the keys of a plain game are the engine's numbers and do not spell positions"
        return None

    @abstractmethod
    def footprint(self, game: Any) -> Footprint:
        """What a worker holds while it solves this game (in keyed form)."""

    def artifacts(self) -> tuple[Artifact, ...]:
        """Files its tables have beside their rows."""
        return ()

    # -- reading -----------------------------------------------------------------
    @abstractmethod
    def lookup(self, table: StoredTable, text: str) -> dict[str, Any]:
        """A position's stored row and every move with its result's figures, best first."""

    def probe(self, table: StoredTable, text: str) -> dict[str, Any]:
        """A position's stored row only, from memory."""
        game = table.game
        key = game.parse(text)
        row = table.index().row(key)
        if row is None:
            raise PositionError(f"{table.name}: position {text!r} is not stored (this table holds {game.bounds})")
        return row

    def lookup_many(self, table: StoredTable, texts: Texts, positions: bool) -> pa.Table:
        """Stored rows of many positions, in order (null figures where a position is not stored)."""
        return table.index().rows(table.game.parse_many(texts), positions)

    # -- checking ----------------------------------------------------------------
    @abstractmethod
    def search(self, game: Any) -> Callable[[int], dict[str, Any]]:
        """A plain recursive search of the rules (for ``check-game``): a position's figures by key."""


def table_game(manifest: Manifest) -> tuple[Game, GameSource]:
    """A built table's game, imported again from where its manifest says it came from.

    GameUnavailable, one line naming the table and the game, if it cannot be.
    """
    try:
        return load_game(manifest.source.get("ref", manifest.game), manifest.params)
    except TablebaseError as e:
        raise GameUnavailable(f"table {manifest.table}: its game cannot be loaded ({e}); install it, "
                              "or build the table again") from None


SOURCE_CHANGED = ("the game's source has changed since this table was built: its moves are those of the rules "
                  "as they are now; tablebase verify says whether the table still holds")

IDENTITY = ("key", "position")
Listed = list[tuple[int, dict[str, Any]]]  # (move code, the move with its child's figures)


def row_with_moves(table: StoredTable, text: str, order: Callable[[Listed], Listed]) -> dict[str, Any]:
    """A position's stored row and every move with its child's stored figures, in ``order``."""
    game, index = table.game, table.index()
    key = game.parse(text)
    rows = index.rows(np.array([key], dtype=np.int64)).to_pylist()
    if rows[0].get("level") is None:
        raise PositionError(f"{table.name}: position {text!r} is not stored (this table holds {game.bounds})")
    found = rows[0]
    result: dict[str, Any] = {"table": table.name, "position": found["position"], "key": key,
                              "level": found["level"]}
    result.update({f: v for f, v in found.items() if f not in (*IDENTITY, "level")})
    _, child_keys, codes = children_of(game, np.array([key], dtype=np.int64))
    listed = []
    for code, row in zip(codes.tolist(), index.rows(child_keys).to_pylist()):
        entry = {"move": game.move_name(code), "position": row["position"], "key": row["key"]}
        entry.update({f: v for f, v in row.items() if f not in IDENTITY and not f.startswith("best_")})
        listed.append((code, entry))
    result["moves"] = [entry for _, entry in order(listed)]
    return result
