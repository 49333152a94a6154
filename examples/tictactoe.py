"""Tic-tac-toe: a win, a loss or a draw for the player to move, not normal play.

X moves first. A game ends when a player has three in a row (the player to
move has then lost) or the board is full (a draw). The table holds every
position reachable from the empty board, with its outcome for the player to
move (N win, P loss, D draw), the plies to the end and a best move:

    tablebase build --game examples/tictactoe.py:TicTacToe --out tb
    tablebase lookup --db tb tictactoe "X..|.O.|..."

A position is three rows of 'X', 'O' and '.' joined by '|'; a move is the
cell played, column letter and row number: 'b2' is the centre.
"""

from tablebase.games import Outcome, Result, ScoredGame
from tablebase.games.drawing import board

LINES = [(0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6)]


class TicTacToe(ScoredGame):
    name = "tictactoe"
    summary = "Tic-tac-toe from the empty board: three in a row wins, a full board is a draw"
    notation = "three rows of 'X', 'O' and '.' joined by '|', e.g. 'X..|.O.|...'"
    move_notation = "the cell played, column letter and row number: 'b2' is the centre"

    def start_positions(self):
        return ["." * 9]

    def level(self, board):
        return board.count(".")  # every move fills a cell

    def moves(self, board):
        if self.three_in_a_row(board):
            return
        mark = "X" if board.count("X") == board.count("O") else "O"
        for cell, c in enumerate(board):
            if c == ".":
                yield cell, board[:cell] + mark + board[cell + 1:]

    def result(self, board):
        # No moves: the last player made three in a row, or the board is full.
        return Result(Outcome.LOSS if self.three_in_a_row(board) else Outcome.DRAW)

    @staticmethod
    def three_in_a_row(board):
        return any(board[a] != "." and board[a] == board[b] == board[c] for a, b, c in LINES)

    def move_name(self, cell):
        return "abc"[cell % 3] + str(cell // 3 + 1)

    def format(self, board):
        return "|".join(board[r:r + 3] for r in (0, 3, 6))

    def read(self, text):
        board = text.upper().replace("|", "").replace("/", "").replace(" ", "").replace("_", ".")
        if len(board) != 9 or set(board) - set("XO."):
            raise self.position_error(text, "expected 9 cells of 'X', 'O' or '.'")
        return board

    def draw(self, position):
        """The board with its X's and O's, cells named as moves name them; a click on a cell puts the next of
        '.', 'X', 'O' there that the table holds."""
        return board(position.split("|"), f"Tic-tac-toe {position}", {"X": "#2563eb", "O": "#dc2626"}, cycle=".XO")
