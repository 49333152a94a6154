"""Lookups of an impartial game with components: any sum of stored parts, answered by XOR.

A table of such a game stores components only (Kayles' single rows, a
take-and-break game's heaps); a position that falls apart is the sum of its
parts, and its Grundy value is the XOR of theirs. A lookup reads the parts
from the table and answers for the sum: its Grundy value and outcome, and
every move (a move in one part), with the Grundy value of the sum it leaves.
A sum is written as its parts' notation joined by " + ", which reads back;
a game may also read a sum in its own notation (Kayles' "5 3").

What a sum does not determine is absent, not guessed: remoteness and a
lost position's best move. An octal table that keeps a misère quotient
answers the sum's misère outcome and a winning misère move beside
(``misere_sums.py``).
"""

from __future__ import annotations

from typing import Any

from tablebase.errors import PositionError
from tablebase.games import ImpartialForm
from tablebase.kinds.misere_sums import Rest, misere_answer, quotient_of, winning_move
from tablebase.lazy import np

SEPARATOR = " + "
ONE_BY_ONE = 16  # parts probed one at a time (microseconds each) rather than as a batch (a millisecond)


def parts_of(game: ImpartialForm, text: str) -> list[int]:
    """The keys of the stored parts a sum is written with ("a + b", or the game's own notation)."""
    keys: list[int] = []
    for piece in text.split("+") if "+" in text else [text]:
        keys += game.parse_parts(piece.strip())
    return keys


def spell_sum(game: ImpartialForm, keys: list[int]) -> str:
    """A sum's notation: its parts' joined by " + " (the empty sum, a finished game, is "0")."""
    if not keys:
        return "0"
    return SEPARATOR.join(game.format_positions(np.asarray(keys, dtype=np.int64)).to_strings())


def grundy_of(table: Any, name: str, keys: list[int], bounds: str, text: str) -> list[int]:
    """The stored Grundy value of each part; PositionError if a part is not stored."""
    if not keys:
        return []
    index = table.rows()
    if len(keys) <= ONE_BY_ONE:
        level_of = table.keyed.level_of
        values = [None if row is None else row["grundy"] for row in (index.row(k, level_of(k)) for k in keys)]
    else:
        values = index.rows(np.asarray(keys, dtype=np.int64), with_positions=False).column("grundy").to_pylist()
    if any(v is None for v in values):
        raise PositionError(f"{name}: position {text!r} has a part that is not stored (this table holds {bounds})")
    return [int(v) for v in values]


def sum_lookup(table: Any, text: str, moves: bool = True) -> dict[str, Any]:
    """A sum's figures, and (``moves``) every move with the Grundy value of the sum it leaves, best first."""
    game: ImpartialForm = table.keyed
    parts = parts_of(game, text)
    values = grundy_of(table, table.name, parts, game.bounds, text)
    total = 0
    for v in values:
        total ^= v
    single = len(parts) == 1
    result: dict[str, Any] = {
        "table": table.name, "position": spell_sum(game, parts), "key": parts[0] if single else None,
        "level": game.level_of(parts[0]) if single else None, "grundy": total, "outcome": "N" if total else "P",
    }
    if single:
        row = table.rows().row(parts[0], result["level"])
        result["best_move"] = row.get("best_move")
        if "genus" in row:  # an octal table built with --misere
            result["genus"] = row["genus"]
    else:
        result["parts"] = len(parts)
    quotient = quotient_of(table)
    if quotient is not None:
        result.update(misere_answer(quotient, parts))
        won = winning_move(quotient, parts)
        if won is not None:
            result["misere_best_move"] = _move_leaving(game, parts, *won)
    if not moves and single:
        return result
    listed = []
    misere_rest = None if quotient is None else Rest(quotient, parts)
    for i, (part, value) in enumerate(zip(parts, values)):
        side = game.sum_moves(np.array([part], dtype=np.int64))
        rest = total ^ value
        children = side.keys.tolist()
        child_values = grundy_of(table, table.name, children, game.bounds, text)
        for j in range(len(side.moves)):
            a, b = int(side.starts[j]), int(side.starts[j + 1])
            left = rest
            for v in child_values[a:b]:
                left ^= v
            after = parts[:i] + children[a:b] + parts[i + 1:]
            entry = {"move": _move_name(game, parts, i, int(side.moves[j])), "position": spell_sum(game, after),
                     "grundy": left, "outcome": "N" if left else "P"}
            misere = None if misere_rest is None else misere_rest.outcome(i, children[a:b])
            if misere is not None:
                entry["misere_outcome"] = misere
            listed.append(((left != 0, i, int(side.moves[j])), entry))
    # Best first: the moves that leave a sum of value 0 (they win), then the rest; each in move order.
    result["moves"] = [entry for _, entry in sorted(listed, key=lambda m: m[0])]
    if not single:  # a won sum's best move: the first that wins; a lost one has none worth naming
        result["best_move"] = result["moves"][0]["move"] if total and result["moves"] else None
    if not moves:
        del result["moves"]
    return result


def _move_name(game: ImpartialForm, parts: list[int], i: int, move: int) -> str:
    """A move in part ``i`` of a sum: its name, and in a sum of several parts the part it is made in."""
    name = game.move_name(move)
    if len(parts) == 1:
        return name
    return f"{name} in {game.format_positions(np.array([parts[i]], dtype=np.int64)).to_strings()[0]}"


def _move_leaving(game: ImpartialForm, parts: list[int], i: int, left: list[int]) -> str | None:
    """The name of the move in part ``i`` that leaves the parts ``left`` (sorted), or None if none does."""
    side = game.sum_moves(np.array([parts[i]], dtype=np.int64))
    children = side.keys.tolist()
    for j in range(len(side.moves)):
        if sorted(children[int(side.starts[j]):int(side.starts[j + 1])]) == left:
            return _move_name(game, parts, i, int(side.moves[j]))
    return None
