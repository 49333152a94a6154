"""Turn solved arrays into rows, as Arrow: an impartial table's, and every kind's positions and moves.

docs/format.md gives the columns a table's files hold and ``schema.py``
spells them, with their types; tests/test_format_files.py reads real builds'
files back against it.
"""

from __future__ import annotations

from tablebase.games import ImpartialForm, KeyedForm, Texts
from tablebase.games.forms import positions_array
from tablebase.lazy import np, pa
from tablebase.solve.names import move_names


def outcome_array(won: np.ndarray) -> pa.Array:
    return pa.DictionaryArray.from_arrays(pa.array(won.astype(np.int8)), pa.array(["P", "N"]))


def move_array(game: KeyedForm, codes: np.ndarray) -> pa.Array:
    """Move names, dictionary-encoded: few distinct moves name many positions."""
    shifted = codes + 1  # -1 (no move) becomes 0
    top = int(shifted.max(initial=0))
    if top > 4 * len(codes) + 4096:
        distinct, index = np.unique(codes, return_inverse=True)
    else:
        # Codes are small: a table beats sorting.
        present = np.zeros(top + 1, dtype=np.bool_)
        present[shifted] = True
        distinct = np.flatnonzero(present) - 1
        index = (np.cumsum(present) - 1)[shifted]
    indices = pa.array(index.astype(np.int32), mask=codes < 0)
    return pa.DictionaryArray.from_arrays(indices, move_names(game, distinct))


def impartial_rows(game: ImpartialForm, keys: np.ndarray, solved: dict[str, np.ndarray], compact: bool = False,
                   texts: Texts | None = None) -> pa.Table:
    """The rows of solved positions; ``texts``: their notation, where the solver spelt it already."""
    columns = {"key": pa.array(keys, type=pa.int64())}
    if not compact:
        columns["position"] = texts.to_arrow() if texts is not None else positions_array(game, keys)
    columns["grundy"] = pa.array(solved["grundy"])
    columns["outcome"] = outcome_array(solved["grundy"] > 0)
    if "misere_remoteness" in solved:  # even where the player to move wins
        columns["misere_outcome"] = outcome_array(solved["misere_remoteness"] % 2 == 0)
    columns["remoteness"] = pa.array(solved["remoteness"])
    columns["best_move"] = move_array(game, solved["best_move"])
    if "misere_remoteness" in solved:
        columns["misere_remoteness"] = pa.array(solved["misere_remoteness"])
        columns["misere_best_move"] = move_array(game, solved["misere_best_move"])
    return pa.table(columns)


def part_rows(game: KeyedForm, keys: np.ndarray, grundy: np.ndarray, best: np.ndarray,
              compact: bool = False) -> pa.Table:
    """The rows of a table of parts of sums (what a sum of them does not spoil): key, position, Grundy value
    (stored in ``grundy``'s type), outcome and best move."""
    columns = {"key": pa.array(keys, type=pa.int64())}
    if not compact:
        columns["position"] = positions_array(game, keys)
    columns["grundy"] = pa.array(grundy)
    columns["outcome"] = outcome_array(grundy > 0)
    columns["best_move"] = move_array(game, best)
    return pa.table(columns)
