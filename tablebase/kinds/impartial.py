"""Impartial tables read: Grundy value, outcome, remoteness, best move (and misère outcomes).

A game may declare a position's components (``sums``): its table then stores
components only, with the figures a sum determines (Grundy value, outcome, a
won position's best move), and lookups answer for any sum by XOR
(``sum_lookups.py``). An impartial table's probe index leaves its best move
to the children (``children.py``).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cached_property, partial
from typing import Any

from tablebase.games import Children, Game, ImpartialGame, SumMoves, Texts
from tablebase.kinds.children import best_move, best_moves
from tablebase.kinds.kind import Kind, StoredTable
from tablebase.kinds.lookups import Listed, row_with_moves
from tablebase.kinds.sum_lookups import sum_lookup
from tablebase.lazy import np, pa
from tablebase.listed import ListedPlainGame, one_part
from tablebase.schema import IMPARTIAL


def declares_components(game: object) -> bool:
    """Whether a plain impartial game (or its class) gives its positions' components."""
    cls = game if isinstance(game, type) else type(game)
    return issubclass(cls, ImpartialGame) and cls.components is not ImpartialGame.components


def in_components(game: Game | type[Game]) -> bool:
    """Whether a game's moves lead to sums of stored components (a plain game's ``components``, a keyed one's
    ``sums``): its table stores components only. Not where misère figures are kept: a sum's are not found from
    its parts', so such a table holds whole positions (a keyed game with sums refuses ``--misere``)."""
    if game.misere:
        return False
    return declares_components(game) or bool(game.keyed and game.sums)


class ListedImpartialGame(ListedPlainGame):
    """A plain impartial game in keyed form, over its listing."""

    queen = None
    bites = None

    @property
    def misere(self) -> bool:
        return self.game.misere

    @property
    def sums(self) -> bool:
        return in_components(self.game)

    def plays(self) -> list[Callable[[Any], Any]]:
        game = self.game
        if self.sums:
            return [lambda p: ((m, tuple(game.components(c))) for m, c in game.moves(p))]
        return [lambda p: ((m, (c,)) for m, c in game.moves(p))]

    def children(self, keys: np.ndarray) -> Children:
        return one_part(self.side(keys, 0))

    def sum_moves(self, keys: np.ndarray) -> SumMoves:
        return self.side(keys, 0)

    def parse_parts(self, text: str) -> list[int]:
        position = self.game.read(text)
        return [self.key_of(part, text) for part in self.game.components(position)]


class Impartial(Kind):
    name = "impartial"
    listed_class = ListedImpartialGame

    @cached_property
    def sums(self) -> bool:
        """Whether the game's moves lead to sums of stored components (asked once: a probe asks it, and
        asking a class whether it overrides a method costs more than the rest of a probe's arithmetic)."""
        return in_components(self.game)

    @classmethod
    def columns_of(cls, game: Game | type[Game]) -> list[str]:
        # A table of components holds what a sum of them determines: neither remoteness nor misère figures; an
        # octal table built with --misere adds its heaps' genus symbols (its quotient lies beside, not in, its rows).
        sums = in_components(game)
        genus = bool(getattr(game, "misere_quotient", False) and getattr(game, "params", {}).get("misere"))
        return IMPARTIAL.names(text=True, whole=not sums, misere=bool(game.misere) and not sums, genus=genus)

    def by_children(self, index: Any, wanted: frozenset[str] | None = None
                    ) -> Callable[[int, dict[str, Any]], dict[str, Any]] | None:
        if "best_move" not in getattr(index, "by_children", ()) or (wanted is not None and "best_move" not in wanted):
            return None
        game, row = self.keyed, index.index.row_reader()
        return lambda key, found: {"best_move": best_move(game, row, key, found)}

    def derive(self) -> Callable[[Any, np.ndarray], dict[str, pa.Array]] | None:
        return partial(best_moves, self.keyed)

    def lookup(self, table: StoredTable, text: str) -> dict[str, Any]:
        if self.sums:
            return sum_lookup(table, text)
        return row_with_moves(table, text, _best_first)

    def prober(self, table: StoredTable, wanted: frozenset[str] | None = None) -> Callable[[str], dict[str, Any]]:
        if self.sums:
            whole = partial(sum_lookup, table, moves=False)
            return whole if wanted is None else lambda text: {k: v for k, v in whole(text).items() if k in wanted}
        return super().prober(table, wanted)

    def lookup_many(self, table: StoredTable, texts: Texts, positions: bool,
                    wanted: set[str] | None = None) -> pa.Table:
        if not self.sums:
            return super().lookup_many(table, texts, positions, wanted)
        rows = [self.probe(table, t) for t in texts.to_strings()]
        return pa.Table.from_pylist([{k: v for k, v in row.items() if positions or k != "position"} for row in rows])


def _best_first(listed: Listed) -> Listed:
    """As the solver chooses: moves to lost positions, quickest win first; then the longest defences."""
    return sorted(listed, key=lambda m: (m[1]["outcome"] != "P",
                                         m[1]["remoteness"] if m[1]["outcome"] == "P" else -m[1]["remoteness"],
                                         m[0]))
