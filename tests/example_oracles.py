"""The rules of the three example games (examples/*.py), written again from scratch for the tests.

Nothing here imports the example files or the engine's solvers: each game is
plain Python over plain values, and the figures come from the definitions.

* Cram: a board is the frozenset of its filled (row, column) cells; the
  Grundy value and remoteness come from ``oracles.Oracle`` (mex and Winning
  Ways' remoteness over the children).
* Toads and Frogs: a position is the row itself, 'T', 'F' and '.'; who wins
  moving first is a plain search, and ``mover_wins`` plays the row together
  with any short game given by its options (the value side of a difference).
* Tic-tac-toe: a board is a string of nine cells read row by row; ``minimax``
  gives the outcome and plies for the player to move.
"""

from __future__ import annotations

from functools import cache

# -- Cram --------------------------------------------------------------------------------


def cell_name(r: int, c: int) -> str:
    """Column letter and row number, both from the top left: (0, 0) is 'a1', (1, 2) is 'c2'."""
    return f"{'abcdefgh'[c]}{r + 1}"


def cell_of(name: str) -> tuple[int, int]:
    return int(name[1:]) - 1, "abcdefgh".index(name[0])


class CramRules:
    """Place a domino on two empty cells side by side (either way round); who cannot, loses."""

    def __init__(self, rows: int, cols: int):
        self.rows, self.cols = rows, cols
        self.spots = [
            ((r, c), (r + dr, c + dc))
            for r in range(rows)
            for c in range(cols)
            for dr, dc in ((0, 1), (1, 0))
            if r + dr < rows and c + dc < cols
        ]

    def moves(self, filled: frozenset) -> dict[str, frozenset]:
        """Each domino that fits, by the name of its two cells ('a1-b1'), and the board it leaves."""
        return {
            f"{cell_name(*a)}-{cell_name(*b)}": filled | {a, b}
            for a, b in self.spots
            if a not in filled and b not in filled
        }

    def children(self, filled: frozenset) -> list[frozenset]:
        return list(self.moves(filled).values())

    def play(self, filled: frozenset, name: str) -> frozenset:
        """The board a named move leaves; fails unless it names two adjacent empty cells."""
        a, b = (cell_of(part) for part in name.split("-"))
        assert abs(a[0] - b[0]) + abs(a[1] - b[1]) == 1, name
        assert a not in filled and b not in filled, name
        return filled | {a, b}

    def read(self, text: str) -> frozenset:
        rows = text.split("|")
        assert len(rows) == self.rows and all(len(row) == self.cols for row in rows), text
        return frozenset((r, c) for r, row in enumerate(rows) for c, ch in enumerate(row) if ch == "#")

    def spell(self, filled: frozenset) -> str:
        return "|".join(
            "".join("#" if (r, c) in filled else "." for c in range(self.cols)) for r in range(self.rows)
        )

    def empty_cells(self, filled: frozenset) -> int:
        return self.rows * self.cols - len(filled)

    def reachable(self) -> set[frozenset]:
        """Every board reachable from the empty one."""
        seen = {frozenset()}
        todo = [frozenset()]
        while todo:
            for child in self.children(todo.pop()):
                if child not in seen:
                    seen.add(child)
                    todo.append(child)
        return seen


# -- Toads and Frogs ---------------------------------------------------------------------


def hops(row: str, left: bool) -> list[tuple[str, str]]:
    """One side's moves as (name, row after): Left's toads go right, Right's frogs go left,
    one cell into an empty cell or two over a piece of the other side into an empty cell.
    A move is named by the piece, its cell and the cell it lands on, counted from 1: 'T1-2'."""
    mine, theirs, step = ("T", "F", 1) if left else ("F", "T", -1)
    out = []
    for i, piece in enumerate(row):
        if piece != mine:
            continue
        for j in (i + step, i + 2 * step):
            if not 0 <= j < len(row) or row[j] != ".":
                continue
            if j == i + 2 * step and row[i + step] != theirs:
                continue
            cells = list(row)
            cells[i], cells[j] = ".", mine
            out.append((f"{mine}{i + 1}-{j + 1}", "".join(cells)))
    return out


@cache
def wins_moving_first(row: str, left: bool) -> bool:
    """Whether the side to move (Left if ``left``) wins the row, by plain search."""
    return any(not wins_moving_first(child, not left) for _, child in hops(row, left))


def outcome_class(row: str) -> str:
    """L: Left wins whoever starts; R: Right does; N: whoever moves first; P: whoever moves second."""
    left_first, right_first = wins_moving_first(row, True), wins_moving_first(row, False)
    return {(True, False): "L", (False, True): "R", (True, True): "N", (False, False): "P"}[
        (left_first, right_first)
    ]


@cache
def mover_wins(row: str, g, left: bool) -> bool:
    """Whether the side to move wins the sum of the row and the short game ``g`` (anything with
    ``left_options`` and ``right_options``): a move is made in the row or in ``g``."""
    rest = [(child, g) for _, child in hops(row, left)]
    rest += [(row, x) for x in (g.left_options if left else g.right_options)]
    return any(not mover_wins(r, x, not left) for r, x in rest)


def every_row(cells: int) -> list[str]:
    """Every row of 1 to ``cells`` cells."""
    rows = [""]
    out = []
    for _ in range(cells):
        rows = [r + c for r in rows for c in "TF."]
        out += rows
    return out


# -- Tic-tac-toe -------------------------------------------------------------------------

LINES = [(0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6)]


def three_in_a_row(board: str) -> str | None:
    """'X' or 'O' if that mark has a line, else None."""
    for a, b, c in LINES:
        if board[a] != "." and board[a] == board[b] == board[c]:
            return board[a]
    return None


def ttt_moves(board: str) -> dict[str, str]:
    """The cells the player to move may take ('b2' is the centre), each with the board after;
    none once someone has three in a row or the board is full. X moves first."""
    if three_in_a_row(board):
        return {}
    mark = "X" if board.count("X") == board.count("O") else "O"
    return {
        cell_name(i // 3, i % 3): board[:i] + mark + board[i + 1 :] for i, c in enumerate(board) if c == "."
    }


def ttt_read(text: str) -> str:
    rows = text.split("|")
    assert len(rows) == 3 and all(len(r) == 3 for r in rows), text
    return "".join(rows)


def ttt_spell(board: str) -> str:
    return "|".join(board[r : r + 3] for r in (0, 3, 6))


def ttt_reachable() -> set[str]:
    seen = {"." * 9}
    todo = ["." * 9]
    while todo:
        for child in ttt_moves(todo.pop()).values():
            if child not in seen:
                seen.add(child)
                todo.append(child)
    return seen


@cache
def minimax(board: str) -> tuple[str, int | None]:
    """(outcome for the player to move: N win, P loss, D draw; plies to the end or None for a draw).

    A finished board is lost for the player to move if the last move made three in a
    row, else drawn. The winner plays to end soonest, the loser to last longest."""
    moves = ttt_moves(board)
    if not moves:
        return ("P", 0) if three_in_a_row(board) else ("D", None)
    children = [minimax(child) for child in moves.values()]
    lost = [plies for outcome, plies in children if outcome == "P"]
    if lost:
        return "N", 1 + min(lost)
    if any(outcome == "D" for outcome, _ in children):
        return "D", None
    return "P", 1 + max(plies for _, plies in children)
