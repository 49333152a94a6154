"""Solving partizan games: the canonical form of every position, and what follows from it.

A position's value is ``{ values of Left's moves | values of Right's moves }``
brought to canonical form by ``tablebase.cgt``. A move may lead to a sum of
stored positions (a Domineering region that falls apart), some of them
negated (a stored region standing for its transpose); the sum's value is the
sum of the stored values. Each side's best move is ranked by ``cgt.form_figures.move_rank``.
"""

from __future__ import annotations

from typing import Any

from tablebase.cgt import Value, from_option_ids, parse, sum_ids
from tablebase.cgt.form_figures import OUTCOMES, Figures, best_move
from tablebase.games import PartizanForm, SumMoves
from tablebase.games.forms import positions_array
from tablebase.lazy import np, pa
from tablebase.solve import LevelByLevel
from tablebase.solve.rows import move_array


class PartizanSolver(LevelByLevel):
    """Solves a partizan game's levels in order, keeping each known position's value id.

    The ids are process-local. Lower levels read back from the store come in as ``value_id`` (the stable
    id) and ``value`` (CGSuite text): a stable id met before maps straight to its local id, and only a
    value never seen in this process is parsed. ``values_of`` gives the values-table rows that a
    partition's rows need: their values and, recursively, those values' canonical options, each once.
    """

    def __init__(self, game: PartizanForm) -> None:
        self.game = game
        self.columns = ["key", "value_id", "value"]
        self.values: dict[int, int] = {}  # position key -> local value id
        self._levels: set[int] = set()
        self._local: dict[int, int] = {}  # stable id -> local id
        self._figures: dict[int, Figures] = {}
        self._negatives: dict[int, int] = {}
        self._sums: dict[tuple[int, ...], int] = {}

    shared = None  # keeps its values in this process

    @property
    def levels(self) -> set[int]:
        return self._levels

    # -- what is known -----------------------------------------------------------
    def remember(self, level: int, rows: pa.Table | None, whole: bool = True) -> None:
        """Take in stored rows of a level (None: none); ``whole``: the level is now complete."""
        if rows is not None and rows.num_rows:
            local = self._local
            for key, vid, text in zip(
                rows["key"].to_pylist(), rows["value_id"].to_pylist(), rows["value"].to_pylist()
            ):
                g = local.get(vid)
                if g is None:
                    g = local[vid] = parse(text).id
                self.values[key] = g
        if whole:
            self._levels.add(level)

    def figures(self, g: int) -> Figures:
        f = self._figures.get(g)
        if f is None:
            f = self._figures[g] = Figures(g)
            self._local[f.stable] = g
        return f

    def _negative(self, g: int) -> int:
        n = self._negatives.get(g)
        if n is None:
            n = self._negatives[g] = (-Value(g)).id
        return n

    def move_values(self, side: SumMoves) -> list[int]:
        """The value id of each move's result: the sum of its (possibly negated) components."""
        values, sums, negative = self.values, self._sums, self._negative
        keys = side.keys.tolist()
        negate = side.negate.tolist()
        starts = side.starts.tolist()
        out = []
        for j in range(len(starts) - 1):
            a, b = starts[j], starts[j + 1]
            if b - a == 1 and not negate[a]:
                out.append(values[keys[a]])
                continue
            parts = tuple(sorted(negative(values[keys[i]]) if negate[i] else values[keys[i]] for i in range(a, b)))
            g = sums.get(parts)
            if g is None:
                g = sums[parts] = sum_ids(parts)
            out.append(g)
        return out

    # -- solving ---------------------------------------------------------------------
    def solve_values(self, keys: np.ndarray) -> dict[str, list]:
        """Value id, best moves and move counts of each position, as lists."""
        left, right = self.game.left_right_moves(np.asarray(keys, dtype=np.int64))
        lvals, rvals = self.move_values(left), self.move_values(right)
        lo, ro = left.offsets.tolist(), right.offsets.tolist()
        lcodes, rcodes = left.moves.tolist(), right.moves.tolist()
        out: dict[str, list] = {"value": [], "best_left": [], "best_right": [], "left_moves": [], "right_moves": []}
        for i in range(len(keys)):
            ls, rs = lvals[lo[i] : lo[i + 1]], rvals[ro[i] : ro[i + 1]]
            g = from_option_ids(ls, rs)
            f = self.figures(g)
            out["value"].append(g)
            out["best_left"].append(best_move(self.figures, f.left_options, ls, lcodes[lo[i] : lo[i + 1]], True))
            out["best_right"].append(best_move(self.figures, f.right_options, rs, rcodes[ro[i] : ro[i + 1]], False))
            out["left_moves"].append(len(ls))
            out["right_moves"].append(len(rs))
        return out

    def solve(self, keys: np.ndarray, compact: bool = False) -> pa.Table:
        """The rows of these positions of one level, in key order."""
        keys = np.asarray(keys, dtype=np.int64)
        solved = self.solve_values(keys)
        figs = [self.figures(g) for g in solved["value"]]

        def column(name: str, type_: Any) -> pa.Array:
            return _column(figs, name, type_)

        outcome = pa.DictionaryArray.from_arrays(column("outcome", pa.int8()), pa.array(OUTCOMES))
        # The value's other figures and options live once per form in the values table.
        rows = pa.table(
            {
                "key": pa.array(keys, type=pa.int64()),
                "position": positions_array(self.game, keys),
                "value": column("text", pa.string()),
                "value_id": column("stable", pa.int64()),
                "outcome": outcome,
                "mean": column("mean", pa.float64()),
                "temperature": column("temperature", pa.float64()),
                "best_left": move_array(self.game, np.array(solved["best_left"], dtype=np.int64)),
                "best_right": move_array(self.game, np.array(solved["best_right"], dtype=np.int64)),
                "left_moves": pa.array(solved["left_moves"], type=pa.uint16()),
                "right_moves": pa.array(solved["right_moves"], type=pa.uint16()),
            }
        )
        return rows.drop_columns(["position"]) if compact else rows

    # -- the values table ------------------------------------------------------------
    def values_of(self, rows: pa.Table, level: int) -> pa.Table:
        """The values-table rows of these rows' values and of their options, recursively.

        Each form once, sorted by stable id, with ``positions`` (how many of
        these rows have it as their value) and ``first_level`` (``level`` if
        any does, else null). Pieces of several partitions merge by id
        (``tablebase.store.values_files.merge_values``).
        """
        counts: dict[int, int] = {}
        for vid, text in zip(rows["value_id"].to_pylist(), rows["value"].to_pylist()):
            if vid not in counts:
                counts[vid] = 0
                if vid not in self._local:
                    self._local[vid] = parse(text).id
            counts[vid] += 1
        todo = [self._local[vid] for vid in counts]
        seen = set(todo)
        forms = []
        while todo:
            f = self.figures(todo.pop())
            forms.append(f)
            for option in f.left_options | f.right_options:
                if option not in seen:
                    seen.add(option)
                    todo.append(option)
        forms.sort(key=lambda f: f.stable)
        return values_table(forms, [counts.get(f.stable, 0) for f in forms], level)


def values_table(forms: list[Figures], positions: list[int], level: int) -> pa.Table:
    """Values-table rows of these forms (in this order)."""

    def column(name: str, type_: Any) -> pa.Array:
        return _column(forms, name, type_)

    return pa.table(
        {
            "id": column("stable", pa.int64()),
            "value": column("text", pa.string()),
            "left_ids": column("left_ids", pa.list_(pa.int64())),
            "right_ids": column("right_ids", pa.list_(pa.int64())),
            "is_number": column("is_number", pa.bool_()),
            "mean": column("mean", pa.float64()),
            "temperature": column("temperature", pa.float64()),
            "left_stop": column("left_stop", pa.float64()),
            "right_stop": column("right_stop", pa.float64()),
            "birthday": column("birthday", pa.int32()),
            # Null where the form has no atomic weight (not infinitesimal, or not atomic).
            "atomic_weight": column("atomic_weight", pa.string()),
            "reduced_canonical_form": column("reduced", pa.string()),
            "positions": pa.array(positions, type=pa.int64()),
            "first_level": pa.array([level if n else None for n in positions], type=pa.int32()),
        }
    )


def _column(forms: list[Figures], name: str, type_: Any) -> pa.Array:
    """One figure of each form as an Arrow column (exact fractions as doubles: dyadic, so exact there too)."""
    values = [getattr(f, name) for f in forms]
    if pa.types.is_floating(type_):
        values = [float(v) for v in values]
    return pa.array(values, type=type_)
