"""Connect-Four on a small board: drop a disc into a column; four in a row wins.

X moves first and the players take turns dropping a disc into a column that
is not full; it falls to the lowest empty cell. A player who makes a line of
``--connect`` discs (four by default) across, up or along a diagonal wins:
the player to move then has lost. A full board with no line is a draw. The
table holds every position reachable from the empty board, with its outcome
for the player to move (N win, P loss, D draw), the plies to the end and a
best move. The empty 4 x 4 board is a draw (161,029 positions, about half
a minute to build on two cores; a size smaller by a row or a column, or
``--connect 3``, is quicker).

    tablebase build --game examples/connect_four.py:ConnectFour --rows 4 --cols 4 --table c4 --out tb
    tablebase lookup --db tb --game examples/connect_four.py:ConnectFour c4 "....|....|....|.X.."

The board's left-right mirror is its symmetry (``canonical``): ``--symmetry``
keeps one board of each mirrored pair, about half of them.

A position is the rows, top first, of 'X', 'O' and '.' joined by '|'; a move
is the column's letter, 'a' the leftmost.
"""

from tablebase.games import Option, Outcome, Result, ScoredGame
from tablebase.games.drawing import board


class ConnectFour(ScoredGame):
    name = "connectfour"
    summary = "Connect-Four on a small board: drop discs, a line of four wins, a full board draws"
    notation = "the rows, top first, of 'X', 'O' and '.' joined by '|', e.g. '....|....|....|.X..'"
    move_notation = "the column's letter: 'a' is the leftmost"
    options = (Option("rows", int, "rows of the board (4)", required=False),
               Option("cols", int, "columns of the board (4)", required=False),
               Option("connect", int, "the discs in a row that win (4)", required=False))

    def __init__(self, **params):
        super().__init__(**params)
        self.params = {"rows": 4, "cols": 4, "connect": 4, **self.params}  # the defaults are named in the table too
        self.rows = self.int_param("rows", 1, 6)
        self.cols = self.int_param("cols", 1, 7)
        self.connect = self.int_param("connect", 2, max(self.rows, self.cols))
        # Every line of ``connect`` cells (indices of the board string, row by row from the top).
        self.lines = []
        for r in range(self.rows):
            for c in range(self.cols):
                for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
                    end_r, end_c = r + dr * (self.connect - 1), c + dc * (self.connect - 1)
                    if 0 <= end_r < self.rows and 0 <= end_c < self.cols:
                        self.lines.append([(r + dr * k) * self.cols + c + dc * k for k in range(self.connect)])

    def start_positions(self):
        return ["." * (self.rows * self.cols)]

    def level(self, cells):
        return cells.count(".")  # every move fills a cell

    def moves(self, cells):
        if self.line_made(cells):
            return
        disc = "X" if cells.count("X") == cells.count("O") else "O"
        for col in range(self.cols):
            empty = [r for r in range(self.rows) if cells[r * self.cols + col] == "."]
            if empty:
                at = empty[-1] * self.cols + col  # the lowest empty cell of the column
                yield col, cells[:at] + disc + cells[at + 1:]

    def line_made(self, cells):
        return any(cells[line[0]] != "." and all(cells[i] == cells[line[0]] for i in line) for line in self.lines)

    def canonical(self, cells):
        """The board or its left-right mirror, whichever spells first: a mirrored board is played as the board
        is, column for column, so a table built with --symmetry keeps one of the two."""
        mirror = "".join(cells[r * self.cols:(r + 1) * self.cols][::-1] for r in range(self.rows))
        return min(cells, mirror)

    def result(self, cells):
        # No moves: the last disc made a line (the player to move has lost), or the board is full.
        return Result(Outcome.LOSS if self.line_made(cells) else Outcome.DRAW)

    def move_name(self, col):
        return "abcdefg"[col]

    def format(self, cells):
        return "|".join(cells[r * self.cols:(r + 1) * self.cols] for r in range(self.rows))

    def read(self, text):
        rows = text.upper().replace("/", "|").replace(" ", "").split("|")
        if len(rows) != self.rows or any(len(row) != self.cols or set(row) - set("XO.") for row in rows):
            raise self.position_error(text, f"expected {self.rows} rows of {self.cols} cells of 'X', 'O' or '.'")
        cells = "".join(rows)
        floating = any(cells[i] != "." and cells[i + self.cols] == "." for i in range(len(cells) - self.cols))
        if floating:
            raise self.position_error(text, "a disc cannot rest above an empty cell")
        return cells

    def draw(self, position):
        """The board with its discs, columns lettered as moves name them; a click on a cell puts the next
        of '.', 'X', 'O' there that the table holds."""
        return board(position.split("|"), f"Connect-Four {position}", {"X": "#2563eb", "O": "#dc2626"}, cycle=".XO")
