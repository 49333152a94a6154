"""Lookups in partizan tables: a position's value, outcome and both sides' moves.

Hackenbush positions are stored one to a key. A Domineering board may be
anything: several regions, a region in another orientation or transposed
(then worth the negative of the stored region), or holding a region larger
than the table. Its value is the sum of its regions' values; a region the
table holds is read from it, a larger one is valued by search whose every
smaller region the table answers, and the result says so.

The table's values are read into memory once per process (keys, stable ids
and texts; each distinct value is parsed once), so a search asks no SQL.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from tablebase.cgt import Game, from_option_ids, parse, sum_ids
from tablebase.errors import PositionError, StoreError
from tablebase.games import Game as Rules
from tablebase.games import regions as R
from tablebase.solve.partizan import OUTCOMES, Figures, best_move
from tablebase.store import Manifest, read_parquet, table_dir


class StoredValues:
    """Every stored position's value of one table, as process-local value ids."""

    def __init__(self, root: Path, table: str, manifest: Manifest) -> None:
        names = sorted(manifest.files)
        if not names:
            raise StoreError(f"table {table} has no rows yet")
        data = read_parquet([table_dir(root, table) / n for n in names], ["key", "value_id", "value"])
        self.levels = set(manifest.levels_done)
        self._rows = dict(zip(data["key"].to_pylist(), zip(data["value_id"].to_pylist(), data["value"].to_pylist())))
        self._local: dict[int, int] = {}
        self._figures: dict[int, Figures] = {}

    def value(self, key: int) -> int | None:
        """The local value id of a stored position, or None if it is not stored."""
        row = self._rows.get(key)
        if row is None:
            return None
        g = self._local.get(row[0])
        if g is None:
            g = self._local[row[0]] = parse(row[1]).id
        return g

    def figures(self, g: int) -> Figures:
        f = self._figures.get(g)
        if f is None:
            f = self._figures[g] = Figures(g)
        return f


_loaded: dict[tuple[str, str], tuple[tuple, StoredValues]] = {}


def stored_values(root: Path, table: str, manifest: Manifest) -> StoredValues:
    """The table's values, loaded once per process (again if the table has changed)."""
    stamp = (manifest.positions, manifest.bytes, tuple(manifest.levels_done))
    cached = _loaded.get((str(Path(root).resolve()), table))
    if cached is None or cached[0] != stamp:
        cached = (stamp, StoredValues(root, table, manifest))
        _loaded[(str(Path(root).resolve()), table)] = cached
    return cached[1]


class RegionValues:
    """Values of Domineering boards: stored regions from the table, larger ones by search."""

    def __init__(self, game: Rules, stored: StoredValues) -> None:
        self.game = game
        self.stored = stored
        self.searched: dict[tuple[int, int, int], int] = {}  # normal forms too large for the table
        self._boards: dict[int, int] = {}  # boards met in the search, as placed
        self._regions: dict[int, int] = {}  # regions met in the search, moved to the origin
        self._negatives: dict[int, int] = {}

    def region(self, region: int) -> int:
        """The value id of one connected region (a board mask)."""
        region = R.at_origin(region)
        g = self._regions.get(region)
        if g is None:
            g = self._regions[region] = self._normal_region(region)
        return g

    def _normal_region(self, region: int) -> int:
        h, w, m, flip = R.normal_form(region)
        if self.game.holds(h, w, m.bit_count()):
            g = self.stored.value(R.pack(h, w, m))
            if g is None:
                raise StoreError(f"{self.game.name}: region {R.spell(region)!r} should be stored but is not")
        else:
            g = self.searched.get((h, w, m))
            if g is None:
                board = R.board_of(h, w, m)
                lefts = [self.board(board ^ b ^ b << R.STRIDE) for b in _bits(R.vertical_spots(board))]
                rights = [self.board(board ^ b ^ b << 1) for b in _bits(R.horizontal_spots(board))]
                g = self.searched[(h, w, m)] = from_option_ids(lefts, rights)
        return self.negative(g) if flip else g

    def board(self, board: int) -> int:
        """The value id of a board: the sum of its regions' values."""
        g = self._boards.get(board)
        if g is None:
            parts = [self.region(c) for c in R.live_components(board)]
            g = self._boards[board] = parts[0] if len(parts) == 1 else sum_ids(parts)
        return g

    def negative(self, g: int) -> int:
        n = self._negatives.get(g)
        if n is None:
            n = self._negatives[g] = (-Game(g)).id
        return n


def _bits(mask: int):
    while mask:
        b = mask & -mask
        mask ^= b
        yield b


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
        order = sorted(range(len(listed)), key=lambda i: (i != chosen, i))
        for i in order:
            name, position, v = listed[i]
            moves.append({"side": side, "move": name, "position": position, **_figures_of(stored, v)})
    return moves, best


def lookup_partizan(root: Path, table: str, manifest: Manifest, game: Rules, text: str) -> dict[str, Any]:
    """A position's value, outcome and figures, and every move of each side with its result's value."""
    stored = stored_values(root, table, manifest)
    if hasattr(game, "read_board"):
        return _lookup_board(stored, table, game, text)
    key = game.parse(text)
    g = stored.value(key)
    if g is None:
        raise PositionError(f"{table}: position {text!r} is not stored (this table holds {game.bounds})")
    sides: list[list[tuple[str, str, int]]] = []
    for side in game.left_right_moves(np.array([key])):
        children = side.keys.tolist()
        names = [game.move_name(m) for m in side.moves.tolist()]
        spelt = game.format_positions(side.keys).to_strings()
        sides.append([(n, p, stored.value(c)) for n, p, c in zip(names, spelt, children)])
    moves, best = _listing(stored, g, sides)
    position = game.format_positions(np.array([key])).to_strings()[0]
    return {"table": table, "position": position, "key": key, "level": game.level_of(key),
            **_figures_of(stored, g), **best, "moves": moves}


def _lookup_board(stored: StoredValues, table: str, game: Rules, text: str) -> dict[str, Any]:
    board = game.read_board(text)
    values = RegionValues(game, stored)
    parts = []
    for comp in R.live_components(board):
        key, flip, held = game.key_of_board(comp)
        parts.append((R.spell(comp), key if held else None, flip))
    g = values.board(board)
    sides = []
    for spots, step, vertical in ((R.vertical_spots(board), R.STRIDE, 1), (R.horizontal_spots(board), 1, 0)):
        listed = []
        for b in _bits(spots):
            after = board ^ b ^ b << step
            # Move codes name cells of any board, so the names are those of the board as written.
            name = game.move_name((b.bit_length() - 1) << 1 | vertical)
            listed.append((name, R.spell(after) or "(empty)", values.board(after)))
        sides.append(listed)
    moves, best = _listing(stored, g, sides)
    single = len(parts) == 1 and parts[0][1] is not None
    result: dict[str, Any] = {
        "table": table,
        "position": R.spell(board) or "(empty)",
        "key": parts[0][1] if single else None,
        "level": board.bit_count(),
        **_figures_of(stored, g),
        **best,
        # Each region: its stored key (None: larger than the table), and whether
        # it is the stored region's transpose, worth the negative.
        "regions": " + ".join(("-" if flip else "") + f"[{p}]" for p, _, flip in parts) or "none",
        "searched": any(k is None for _, k, _ in parts),
    }
    if result["searched"]:
        result["note"] = (f"a region is larger than the table ({game.bounds}): valued by search over "
                          f"{len(values.searched)} regions, every smaller region read from the table")
    result["moves"] = moves
    return result
