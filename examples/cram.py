"""Cram: players take turns placing a domino on two empty cells, either way round.

Impartial, normal play: who cannot place a domino loses. Build a table of a
3 x 4 board and every position reachable from it:

    tablebase build --game examples/cram.py:Cram --rows 3 --cols 4 --out tb
    tablebase lookup --db tb cram_rows3_cols4 "....|....|...."

A position is the set of filled cells as a bit mask (cell r, c is bit
r * cols + c), written as rows of '.' (empty) and '#' (filled) joined by '|'.
"""

from tablebase.games import ImpartialGame, Option
from tablebase.games.drawing import board


class Cram(ImpartialGame):
    name = "cram"
    summary = "Cram: place a domino on two empty cells, either way round; who cannot, loses"
    notation = "rows of '.' (empty) and '#' (filled) joined by '|', e.g. '..#|...'"
    move_notation = "the domino's two cells, column letter and row number: 'a1-b1'"
    options = (Option("rows", int, "rows of the board"), Option("cols", int, "columns of the board"))

    def __init__(self, **params):
        super().__init__(**params)
        self.rows = self.int_param("rows", 1, 8)
        self.cols = self.int_param("cols", 1, 8)
        # Every place a domino can go: its two cells as a mask, and its name. A move is
        # the domino's number in these lists.
        self.masks, self.names = [], []
        for r in range(self.rows):
            for c in range(self.cols):
                for r2, c2 in ((r, c + 1), (r + 1, c)):
                    if r2 < self.rows and c2 < self.cols:
                        self.masks.append(self.cell(r, c) | self.cell(r2, c2))
                        self.names.append(f"{chr(97 + c)}{r + 1}-{chr(97 + c2)}{r2 + 1}")
        # The text of every row, by its cells as bits, and where each row's bits start.
        self.row_text = ["".join("#" if bits >> c & 1 else "." for c in range(self.cols))
                         for bits in range(1 << self.cols)]
        self.row_shifts = [r * self.cols for r in range(self.rows)]

    def cell(self, r, c):
        return 1 << (r * self.cols + c)

    def start_positions(self):
        return [0]  # the empty board

    def level(self, filled):
        return self.rows * self.cols - filled.bit_count()  # empty cells: every move fills two

    def moves(self, filled):
        return [(move, filled | cells) for move, cells in enumerate(self.masks) if not filled & cells]

    def move_name(self, move):
        return self.names[move]

    def format(self, filled):
        row = (1 << self.cols) - 1
        return "|".join([self.row_text[filled >> shift & row] for shift in self.row_shifts])

    def read(self, text):
        rows = text.replace("/", "|").split("|")
        if len(rows) != self.rows or any(len(row) != self.cols for row in rows):
            raise self.position_error(text, f"expected {self.rows} rows of {self.cols} cells")
        if set("".join(rows)) - set(".#"):
            raise self.position_error(text, "cells are '.' (empty) or '#' (filled)")
        return sum(self.cell(r, c) for r, row in enumerate(rows) for c, ch in enumerate(row) if ch == "#")

    def draw(self, position):
        """The board, filled cells dark, columns lettered and rows numbered as moves name them; a click on
        a cell fills or empties it (where the table holds the board that makes)."""
        return board(position.split("|"), f"Cram {position}", cycle=".#")
