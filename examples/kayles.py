"""Kayles: knock down one pin, or two touching pins, from a row; the row may fall apart in two.

Impartial, normal play: who cannot move loses. A position is several rows,
and rows are played independently, so the game declares its components: the
table stores single rows only, and any set of rows is looked up as their sum,
its Grundy value the XOR of theirs.

    tablebase build --game examples/kayles.py:Kayles --max 40 --out tb
    tablebase lookup --db tb kayles_max40 "13 7 4"        # or "13 + 7 + 4"

A position is the row lengths, largest first ("0" is no pins left); a move is
written as the pins it knocks down, counted from the left of its row: "3" or
"3-4" (in a position of several rows, "row 2: 3-4").
"""

from tablebase.games import ImpartialGame, Option
from tablebase.games.drawing import heaps


class Kayles(ImpartialGame):
    name = "kayles"
    summary = "Kayles: knock down one pin or two touching pins from a row; rows are played as a sum"
    notation = "row lengths, e.g. '13 7 4' (several rows are a sum: '13 + 7 + 4' reads too)"
    move_notation = "the pins knocked down, counted from the left: '3' or '3-4'"
    options = (Option("max", int, "the longest row"),)

    def __init__(self, **params):
        super().__init__(**params)
        self.longest = self.int_param("max", 1, 2000)

    def start_positions(self):
        return [(n,) for n in range(1, self.longest + 1)]

    def level(self, rows):
        return sum(rows)

    def components(self, rows):
        return [(n,) for n in rows]

    def moves(self, rows):
        for r, n in enumerate(rows):
            others = rows[:r] + rows[r + 1:]
            for width in (1, 2):
                for first in range(n - width + 1):
                    rest = tuple(k for k in (first, n - first - width) if k)
                    yield (r, first + 1, width), tuple(sorted(others + rest, reverse=True))

    def move_name(self, move):
        r, pin, width = move
        knocked = str(pin) if width == 1 else f"{pin}-{pin + 1}"
        return knocked if r == 0 else f"row {r + 1}: {knocked}"

    def format(self, rows):
        return " ".join(map(str, rows)) or "0"

    def read(self, text):
        try:
            rows = [int(t) for t in text.replace(",", " ").split()]
        except ValueError:
            raise self.position_error(text, "row lengths are whole numbers") from None
        if any(n < 0 for n in rows):
            raise self.position_error(text, "a row cannot be shorter than 0 pins")
        return tuple(sorted((n for n in rows if n), reverse=True))

    def draw(self, position):
        """Each row as a column of pins, the first pin at the bottom; a click on a pin or above a row
        resizes that row (up to the longest row of the table)."""
        rows = [int(t) for t in position.split() if t.isdigit() and int(t)]

        def resize(row, size):
            return " ".join(map(str, rows[:row] + [size] + rows[row + 1:])) if size <= self.longest else None

        return heaps(rows, f"Kayles {position}", resize=resize)

    def highlight(self, position, move, after):
        """The pins knocked down, read from the move's name ("row 2: 3-4"): a row that falls apart is
        drawn as two, so the pictures before and after do not share their cells."""
        row, _, pins = move.rpartition(": ")
        heap = int(row.split()[-1]) - 1 if row else 0
        first, _, last = pins.partition("-")
        knocked = range(int(first) - 1, int(last or first))
        return self.draw(position).boxes(("token", heap, pin) for pin in knocked)
