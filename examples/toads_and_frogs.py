"""Toads and Frogs: Left's toads hop rightwards, Right's frogs leftwards, along a row of cells.

Partizan, normal play. A toad moves one cell right into an empty cell, or
jumps over one frog into the empty cell beyond; a frog does the same
leftwards over a toad. The table holds every row of 1 to N cells, with each
position's canonical value:

    tablebase build --game examples/toads_and_frogs.py:ToadsAndFrogs --cells 6 --out tb
    tablebase lookup --db tb toadsandfrogs_cells6 "TT..FF"

A position is the row itself: 'T' a toad, 'F' a frog, '.' an empty cell.
"""

from itertools import product

from tablebase.games import Option, PartizanGame
from tablebase.games.drawing import board


class ToadsAndFrogs(PartizanGame):
    name = "toadsandfrogs"
    summary = "Toads and Frogs: toads (Left) hop right, frogs (Right) hop left, sliding or jumping one of the other"
    notation = "the row: 'T' toad, 'F' frog, '.' empty, e.g. 'TT..FF'"
    move_notation = "'T3-4': the toad on cell 3 moves to cell 4 (cells counted from 1 at the left)"
    options = (Option("cells", int, "the longest row"),)

    def __init__(self, **params):
        super().__init__(**params)
        self.cells = self.int_param("cells", 1, 12)

    def start_positions(self):
        return ("".join(row) for n in range(1, self.cells + 1) for row in product("TF.", repeat=n))

    def level(self, row):
        # Each toad's cells still to its right, and each frog's to its left: every move lowers it.
        return sum(len(row) - 1 - i if c == "T" else i if c == "F" else 0 for i, c in enumerate(row))

    def left_moves(self, row):
        return self._hops(row, "T", "F", +1)

    def right_moves(self, row):
        return self._hops(row, "F", "T", -1)

    def _hops(self, row, mine, theirs, step):
        for i, c in enumerate(row):
            if c != mine:
                continue
            for j, over in ((i + step, None), (i + 2 * step, theirs)):
                if 0 <= j < len(row) and row[j] == "." and (over is None or row[i + step] == over):
                    cells = list(row)
                    cells[i], cells[j] = ".", mine
                    yield (i, j), "".join(cells)

    def move_name(self, move):
        i, j = move
        return f"{'T' if j > i else 'F'}{i + 1}-{j + 1}"

    def format(self, row):
        return row

    def read(self, text):
        row = text.strip().upper().replace("_", ".")
        if not row or set(row) - set("TF."):
            raise self.position_error(text, "cells are 'T', 'F' or '.'")
        if len(row) > self.cells:
            raise self.position_error(text, f"rows have at most {self.cells} cells here")
        return row

    def draw(self, position):
        """The row: Left's toads and Right's frogs in their colours; a click on a cell puts the next of '.',
        'T', 'F' there."""
        return board([position], f"Toads and Frogs {position}", {"T": "#2563eb", "F": "#dc2626"}, cycle=".TF")
