"""Partizan tables read: canonical values, outcome classes, temperatures, each side's best move, a values table.

Lookups take a position of the table; a game with the ``Boards`` capability
(Domineering) takes any board: its parts are read from the table (a part
stored as its mirror image is worth the negative), and a part larger than
the table is valued by searching its moves down to parts the table holds,
within a budget of time and memory (``budget.py``).
Values are read by key as a search meets them (from the probe index in
place, or from the rows in memory for a table without one), each distinct
value parsed once: a search asks no SQL.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from typing import Any

from tablebase.cgt import Value
from tablebase.cgt.form_figures import OUTCOMES, best_move, move_rank
from tablebase.errors import PositionError
from tablebase.games import Game, PartizanForm, SumMoves, Texts
from tablebase.kinds.budget import budget_of
from tablebase.kinds.kind import Kind, StoredTable
from tablebase.kinds.lines import Choose, by_side
from tablebase.kinds.searches import BoardValues
from tablebase.kinds.stored_values import StoredValues
from tablebase.kinds.values import ValuesTable
from tablebase.lazy import np, pa
from tablebase.listed import ListedPlainGame
from tablebase.schema import PARTIZAN


class ListedPartizanGame(ListedPlainGame):
    """A plain partizan game in keyed form, over its listing."""

    boards = None

    def plays(self) -> list[Callable[[Any], Any]]:
        game = self.game

        def parts(moves: Any) -> Any:
            return ((m, game.components(c)) for m, c in moves)

        return [lambda p: parts(game.left_moves(p)), lambda p: parts(game.right_moves(p))]

    def left_right_moves(self, keys: np.ndarray) -> tuple[SumMoves, SumMoves]:
        return self.side(keys, 0), self.side(keys, 1)


class Partizan(Kind):
    name = "partizan"
    listed_class = ListedPartizanGame
    sides = 2
    artifacts = (ValuesTable(),)

    @classmethod
    def columns_of(cls, game: Game | type[Game]) -> list[str]:
        return PARTIZAN.names(text=True)

    # -- lookups --------------------------------------------------------------------
    def lookup(self, table: StoredTable, text: str) -> dict[str, Any]:
        """A position's value, outcome and figures, and every move of each side with its result's value."""
        game: PartizanForm = self.keyed
        stored = _stored_values(table)
        if game.boards is not None:
            return _lookup_board(stored, table, game, text)
        key = game.parse(text)
        g = stored.value(key)
        if g is None:
            raise PositionError(f"{table.name}: position {text!r} is not stored (this table holds {game.bounds})")
        sides: list[list[tuple[str, str, int]]] = []
        for side in game.left_right_moves(np.array([key], dtype=np.int64)):
            listed = []
            spelt = _spell(game, side.keys)
            for j in range(len(side.moves)):
                a, b = int(side.starts[j]), int(side.starts[j + 1])
                parts = [stored.signed(int(k), bool(n)) for k, n in zip(side.keys[a:b], side.negate[a:b])]
                listed.append((game.move_name(int(side.moves[j])), " + ".join(spelt[a:b]) or "0", stored.sum(parts)))
            sides.append(listed)
        moves, best = _listing(stored, g, sides)
        return {"table": table.name, "position": _spell(game, np.array([key]))[0], "key": key,
                "level": game.level_of(key), **_figures_of(stored, g), **best, "moves": moves}

    def prober(self, table: StoredTable, wanted: frozenset[str] | None = None) -> Callable[[str], dict[str, Any]]:
        """A position's figures: a lookup without the moves (a board may be a sum of parts)."""
        return lambda text: {k: v for k, v in self.lookup(table, text).items()
                             if not k.endswith("moves") and (wanted is None or k in wanted)}

    def line_choice(self) -> Choose:
        return by_side  # the sides take turns, each playing its own best move

    def lookup_many(self, table: StoredTable, texts: Texts, positions: bool,
                    wanted: set[str] | None = None) -> pa.Table:
        """Rows of many positions as an Arrow table: exact figures as doubles, and each side's number of moves,
        as SQL has them (a board the table does not store, a sum of parts, has them too)."""
        rows = []
        for text in texts.to_strings():
            found = self.lookup(table, text)
            moves = found.pop("moves")
            found["left_moves"] = sum(m["side"] == "Left" for m in moves)
            found["right_moves"] = len(moves) - found["left_moves"]
            if not positions:
                del found["position"]
            rows.append({k: float(v) if isinstance(v, Fraction) else v for k, v in found.items()})
        return pa.Table.from_pylist(rows)

def _stored_values(table: StoredTable) -> StoredValues:
    if "values" not in table.loaded:
        table.loaded["values"] = StoredValues(table)
    return table.loaded["values"]


def _spell(game: PartizanForm, keys: np.ndarray) -> list[str]:
    return game.format_positions(np.asarray(keys, dtype=np.int64)).to_strings() if len(keys) else []


def _figures_of(stored: StoredValues, g: int) -> dict[str, Any]:
    f = stored.figures(g)
    return {"value": f.text, "value_id": f.stable, "outcome": OUTCOMES[f.outcome], "mean": f.mean,
            "temperature": f.temperature, "left_stop": f.left_stop, "right_stop": f.right_stop}


def _listing(stored: StoredValues, g: int, sides: list[list[tuple[str, str, int]]]) -> tuple[list[dict], dict]:
    """Moves (side, name, resulting position, value) best first per side, and each side's best move."""
    f = stored.figures(g)
    moves, best = [], {}
    for side, options, left in (("Left", f.left_options, True), ("Right", f.right_options, False)):
        listed = sides[0 if left else 1]
        values = [v for _, _, v in listed]
        chosen = best_move(stored.figures, options, values, list(range(len(listed))), left)
        best["best_left" if left else "best_right"] = listed[chosen][0] if chosen >= 0 else None
        for i in best_first(stored, options, values, chosen, left):
            name, position, v = listed[i]
            moves.append({"side": side, "move": name, "position": position, **_figures_of(stored, v)})
    return moves, best


def best_first(stored: StoredValues, options: frozenset, values: list[int], chosen: int, left: bool) -> list[int]:
    """The order of one side's moves (their results' value ids), best first: the chosen best move, then
    the others so that none comes after a move whose result is strictly better for the side (larger for
    Left, smaller for Right), and otherwise as the solver ranks moves (``move_rank``: canonical options,
    then wins for the side, then stops).

    Values are only partially ordered (for Left a move to ^ beats one to 0, while * is neither better
    nor worse than either), so this is a linear extension: each time, the first move in rank order that
    no move still waiting beats.
    """
    games = {v: Value(v) for v in set(values)}
    beaten = {v: {w for w in games if (games[v] < games[w] if left else games[v] > games[w])} for v in games}
    ranked = sorted(range(len(values)), reverse=True,
                    key=lambda i: move_rank(stored.figures(values[i]), values[i] in options, i, left))
    order = [] if chosen < 0 else [chosen]
    waiting = [i for i in ranked if i != chosen]
    while waiting:
        present = {values[i] for i in waiting}
        j = next(j for j, i in enumerate(waiting) if not beaten[values[i]] & present)
        order.append(waiting.pop(j))
    return order


def _lookup_board(stored: StoredValues, table: StoredTable, game: PartizanForm, text: str) -> dict[str, Any]:
    boards = game.boards
    board = boards.read_board(text)
    values = BoardValues(game, stored, budget_of(table.search))
    parts = boards.board_parts(board)
    g = values.board(board)
    sides = [[(game.move_name(code), boards.spell_board(after), values.board(after)) for code, after in side]
             for side in boards.board_moves(board)]
    moves, best = _listing(stored, g, sides)
    named = [("-" if negated else "") + f"[{boards.spell_board(part)}]" for part, _, negated in parts]
    single = len(parts) == 1 and parts[0][1] is not None
    result: dict[str, Any] = {
        "table": table.name,
        "position": boards.spell_board(board),
        "key": parts[0][1] if single else None,  # the stored part's, even where the board is its mirror image
        "level": boards.board_level(board),
        **_figures_of(stored, g),
        **best,
        # Each part in its stored orientation; "-" where the board holds its mirror image, worth the negative.
        "regions": " + ".join(named) or "none",
        "searched": any(key is None for _, key, _ in parts),
    }
    if result["searched"]:
        large = sum(key is None for _, key, _ in parts)
        which = ("the board is one part, larger" if len(parts) == 1 else
                 f"{large} of its {len(parts)} parts {'is' if large == 1 else 'are'} larger")
        result["note"] = (f"{which} than the table ({game.bounds}): valued by search over the moves, down to "
                          "parts the table holds")
    result["moves"] = moves
    return result
