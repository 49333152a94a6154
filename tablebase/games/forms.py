"""What the solvers, verifier and readers need of a game in keyed form, as protocols.

A game written in keyed form (``keyed.KeyedGame``) satisfies them itself; a
plain game gets an object that does from the engine (``tablebase.listed``).
Each kind asks for its own: ``ImpartialForm``, ``PartizanForm``, ``ScoredForm``.
``positions_array`` spells a batch of keys of any of them as Arrow strings.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol

from tablebase.games.base import Texts
from tablebase.games.capabilities import Boards, Children, CompiledMoves, DiagramBites, QueenMoves, SumMoves
from tablebase.lazy import np, pa


class KeyedForm(Protocol):
    """A game in the form the solvers and lookups work in: positions as int64 keys in numpy batches.

    A game written in keyed form (``KeyedGame``) is its own keyed form. A plain
    game, or a keyed one that gives only ``start_keys()``, gets one from the
    engine over the listing of its positions (``tablebase.listing``). Whatever
    solves, verifies or reads a table works with this, never with how the game
    was written; each kind adds its moves (``ImpartialForm``, ``PartizanForm``,
    ``ScoredForm``).
    """

    name: str
    kind: str
    params: dict[str, Any]
    key_space: int | None
    absent_keys: tuple[int, ...]  # keys below key_space that are no position
    max_moves: int
    compiled_moves: CompiledMoves | None
    listed_bytes: int

    @property
    def table(self) -> str: ...

    @property
    def bounds(self) -> str: ...

    @property
    def max_level(self) -> int: ...

    def level_size(self, level: int) -> int: ...

    def level_keys(self, level: int, start: int, stop: int) -> np.ndarray: ...

    def level_of(self, key: int) -> int: ...

    def levels_of(self, keys: np.ndarray) -> np.ndarray: ...

    def child_levels(self, level: int) -> Sequence[int]: ...

    def format_positions(self, keys: np.ndarray) -> Texts: ...

    def spell(self, key: int) -> str: ...

    def moves_of(self, key: int) -> list[tuple[int, int]] | None: ...

    def parse(self, text: str) -> int: ...

    def parse_many(self, texts: Texts) -> np.ndarray: ...

    def locate(self, text: str) -> tuple[int, int]: ...

    def locator(self) -> Callable[[str], tuple[int, int]]: ...

    def locate_many(self, texts: Texts) -> tuple[np.ndarray, np.ndarray]: ...

    def locate_spelt(self, texts: Texts) -> tuple[np.ndarray, np.ndarray, bool]: ...

    def spelt_alike(self, texts: Texts) -> bool: ...

    def move_name(self, move: int) -> str: ...

    @property
    def max_remoteness(self) -> int: ...

    @property
    def value_dtype(self) -> type: ...


class ImpartialForm(KeyedForm, Protocol):
    """An impartial game's keyed form: one side's moves, and the capabilities with solvers of their own."""

    misere: bool
    queen: QueenMoves | None
    bites: DiagramBites | None
    sums: bool

    def children(self, keys: np.ndarray) -> Children: ...

    def sum_moves(self, keys: np.ndarray) -> SumMoves: ...

    def parse_parts(self, text: str) -> list[int]: ...


class PartizanForm(KeyedForm, Protocol):
    """A partizan game's keyed form: Left's and Right's moves, each to a sum of stored parts."""

    boards: Boards | None

    def left_right_moves(self, keys: np.ndarray) -> tuple[SumMoves, SumMoves]: ...


class ScoredForm(KeyedForm, Protocol):
    """A scored game's keyed form: its moves, and how positions without moves ended."""

    scores: bool
    pass_move: int | None

    def children(self, keys: np.ndarray) -> Children: ...

    def results(self, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]: ...


def positions_array(game: KeyedForm, keys: np.ndarray) -> pa.Array:
    """The positions' notation as Arrow strings (a game is never asked to spell an empty batch)."""
    keys = np.asarray(keys, dtype=np.int64)
    return (game.format_positions(keys) if len(keys) else Texts.empty()).to_arrow()
