"""Oracles for the explorer's tests, independent of the solvers and of the pages; and the pages read back."""

from __future__ import annotations

import math
import re
import xml.etree.ElementTree as ET
from html import unescape
from urllib.parse import parse_qs, urlsplit

PHI = (1 + math.sqrt(5)) / 2
SVG = "{http://www.w3.org/2000/svg}"


def wythoff_p_positions(top: int) -> set[tuple[int, int]]:
    """Wythoff's P-positions with both heaps at most ``top``, smaller first: (floor(k phi), floor(k phi^2))."""
    found = set()
    for k in range(top + 1):
        a, b = math.floor(k * PHI), math.floor(k * PHI * PHI)
        if b <= top:
            found.add((a, b))
    return found


def wythoff_outcome(position: str, top: int) -> str:
    a, b = sorted(int(t) for t in position.split())
    return "P" if (a, b) in wythoff_p_positions(top) else "N"


# -- what the position pages say and draw, from a row's figures and the rules, sharing no code with the pages ----
def said_of_position(row: dict) -> str:
    """The outcome of a looked-up row in words, as a player wants it said."""
    o = row["outcome"]
    if "best_left" in row:  # two sides: the outcome class
        return {"L": "Left wins, whoever moves first.", "R": "Right wins, whoever moves first.",
                "N": "The player to move wins: Left if Left moves first, Right if Right moves first.",
                "P": "The player to move loses: Right wins if Left moves first, Left wins if Right moves first."}[o]
    if o == "D":
        return "A draw: neither player can force a win."
    n, unit = (row["remoteness"], "move") if "remoteness" in row else (row.get("plies"), "ply")
    winner = o == "N"
    if n == 0:
        return "The player to move has " + ("won" if winner else "lost") + ": the game is over."
    text = "The player to move " + ("wins" if winner else "loses")
    if n is not None:
        text += f" in {n} " + (unit if n == 1 else {"move": "moves", "ply": "plies"}[unit])
    if row.get("score"):
        text += f", by a score of {abs(row['score'])}"
    return text + "."


def said_of_move(move: dict) -> str:
    """A move in words for the player making it: the position it leads to is seen from the other side."""
    o = move["outcome"]
    if "side" in move:
        mine = move["side"][0]  # L or R
        return "wins" if o == mine or o == "P" else "loses"
    if o == "D":
        return "draw"
    text = "wins" if o == "P" else "loses"
    n, unit = (move["remoteness"], "move") if "remoteness" in move else (move.get("plies"), "ply")
    if n is not None:
        text += f" in {n + 1} " + (unit + "s" if unit == "move" else "plies")
    if move.get("score"):
        text += f", by a score of {abs(move['score'])}"
    if "misere_outcome" in move:
        text += " (misère: " + ("wins" if move["misere_outcome"] == "P" else "loses")
        if "misere_remoteness" in move:  # the count after the move: one more than the child's
            n = move["misere_remoteness"] + 1
            text += f" in {n} move" + ("s" if n != 1 else "")
        text += ")"
    return text


def chomp_squares(lengths: list[int]) -> set[tuple[int, int]]:
    return {(r, c) for r, n in enumerate(lengths) for c in range(n)}


def chomp_lengths(squares: set[tuple[int, int]], rows: int) -> list[int]:
    return [n for n in (sum(1 for r2, _ in squares if r2 == r) for r in range(rows)) if n]


def chomp_click(lengths: list[int], r: int, c: int, rows: int) -> list[int] | None:
    """The diagram a click on square (r, c) sets up, by sets of squares: everything up and left of the square
    added, everything right of it in its row and below taken away; if that changes nothing, the square bitten
    off (with all below and right of it). None if the poisoned square would go."""
    have = chomp_squares(lengths)
    up_left = {(i, j) for i in range(r + 1) for j in range(c + 1)}
    ended = (have | up_left) - {(i, j) for i, j in have if i >= r and j > c}
    if ended == have:
        ended = have - {(i, j) for i, j in have if i >= r and j >= c}
    return chomp_lengths(ended, rows) if (0, 0) in ended else None


def tictactoe_reachable(board: str) -> bool:
    """Whether a board arises in play from the empty one, X first, play stopping at three in a row."""
    cells = board.replace("|", "")
    lines = [(0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6)]
    won = {p: any(all(cells[i] == p for i in line) for line in lines) for p in "XO"}
    x, o = cells.count("X"), cells.count("O")
    if x not in (o, o + 1) or (won["X"] and won["O"]):
        return False
    return not (won["X"] and x != o + 1) and not (won["O"] and x != o)


def tictactoe_clicks(position: str) -> dict[str, str]:
    """Cell "r c" -> the board a click on it sets up: the next of '.', 'X', 'O' after the cell's own that
    gives a board arising in play (none if neither does)."""
    cells, found = position.replace("|", ""), {}
    for i, here in enumerate(cells):
        for step in (1, 2):
            edited = cells[:i] + ".XO"[(".XO".index(here) + step) % 3] + cells[i + 1:]
            if tictactoe_reachable(edited):
                found[f"{i // 3} {i % 3}"] = "|".join(edited[k:k + 3] for k in (0, 3, 6))
                break
    return found


# -- the pages read back -----------------------------------------------------------------------------------
def board_of(html: str) -> ET.Element:
    return ET.fromstring(re.search(r'<div id="board">(<svg.*?</svg>)</div>', html, re.DOTALL).group(1))


def links_of(board: ET.Element) -> dict[str, str]:
    """The board's links: the cell clicked (or the link's name, where it is no cell) -> the position it sets up."""
    found = {}
    for a in board.iter(SVG + "a"):
        shape = next(e for e in a if e.tag != SVG + "title")
        found[shape.get("data-cell") or a.get("aria-label")] = parse_qs(urlsplit(a.get("href")).query)["position"][0]
    return found


def marks_of(board: ET.Element) -> list[tuple[str, bool, set[str]]]:
    """Each outline: its colour, whether dashed, and the cells it goes round."""
    return [(m.get("stroke"), m.get("stroke-dasharray") is not None, set(m.get("data-cells").split(";")))
            for m in board.iter(SVG + "rect") if m.get("class") == "mark"]


def domino_cells(move: str) -> set[str]:
    """A Domineering move's two cells, 'b1-b2' -> {'0 1', '1 1'}, as the pictures name cells."""
    return {f"{int(row) - 1} {ord(col) - ord('a')}" for col, row in re.findall(r"([a-z])(\d+)", move)}


def reason_of(html: str) -> str:
    return unescape(re.search(r'<p class="error" id="reason">(.*?)</p>', html, re.DOTALL).group(1))
