"""Kalah on a small board: sow seeds round the board; a last seed in your store plays again.

South and North each have a row of pits and a store at their right-hand
end. A move takes every seed from one of the mover's pits and sows them one
by one into the following pits, counter-clockwise: the mover's pits, the
mover's store, the opponent's pits (never the opponent's store), and round
again. A last seed in the mover's own store gives the mover another turn
(the move leads to ``Again(child)``: one ply, and the same player moves
next). A last seed in an empty pit of the mover's, opposite a pit with
seeds, captures both into the mover's store. When either row is empty the
game is over: each player adds the seeds left in their own row to their
store, and the larger store wins, by the difference (equal stores draw).

    tablebase build --game examples/kalah.py:Kalah --pits 3 --seeds 2 --out tb
    tablebase lookup --db tb --game examples/kalah.py:Kalah kalah_pits3_seeds2 "0 2 2 2 / 2 2 2 0 S"

A position is written as the board is drawn: North's store and North's pits
(right to left, as South sees them), '/', South's pits (left to right) and
South's store, then who moves, S or N. A move is the cell of the pit sown,
column letter and row number: 'b2' is South's first pit, 'b1' North's last.
"""

from tablebase.games import Again, Option, Outcome, Result, ScoredGame
from tablebase.games.drawing import board

SIDES = "SN"


class Kalah(ScoredGame):
    name = "kalah"
    summary = "Kalah with a few pits a side: sow, capture, a last seed in your store plays again"
    notation = "North's store and pits / South's pits and store, then who moves: '0 2 2 2 / 2 2 2 0 S'"
    move_notation = "the cell of the pit sown: 'b2' is South's first pit, 'b1' North's last"
    options = (Option("pits", int, "pits on each side (3)", required=False),
               Option("seeds", int, "seeds in each pit at the start (2)", required=False))
    scores = True  # the difference of the stores is worth playing for

    def __init__(self, **params):
        super().__init__(**params)
        self.params = {"pits": 3, "seeds": 2, **self.params}  # the defaults are named in the table too
        self.pits = self.int_param("pits", 1, 4)
        self.seeds = self.int_param("seeds", 1, 4)

    # A position is (pits, stores, mover): South's pits then North's, each in sowing order (from its
    # owner's left), the stores (South's, North's) and the side to move (0 South, 1 North).
    def start_positions(self):
        return [((self.seeds,) * (2 * self.pits), (0, 0), 0)]

    def level(self, position):
        return sum(position[0])  # seeds leave the pits for the stores, never come back

    def moves(self, position):
        pits, stores, mover = position
        m = self.pits
        if not any(pits[:m]) or not any(pits[m:]):
            return
        # The ring the mover sows round: own pits, own store, the opponent's pits.
        own, theirs = (pits[:m], pits[m:]) if mover == 0 else (pits[m:], pits[:m])
        start = [*own, stores[mover], *theirs]
        for pit in range(m):
            if start[pit]:
                ring, last = self.sow(start, pit)
                pits_after = ring[:m] + ring[m + 1:] if mover == 0 else ring[m + 1:] + ring[:m]
                stores_after = (ring[m], stores[1]) if mover == 0 else (stores[0], ring[m])
                again = last == m
                child = (tuple(pits_after), stores_after, mover if again else 1 - mover)
                yield self.cell(mover, pit), Again(child) if again else child

    def sow(self, start, pit):
        """The ring after sowing ``pit`` (captures made), and where the last seed fell."""
        ring, m = list(start), self.pits
        seeds, at = ring[pit], pit
        ring[pit] = 0
        for _ in range(seeds):
            at = (at + 1) % len(ring)
            ring[at] += 1
        opposite = 2 * m - at
        if at < m and ring[at] == 1 and ring[opposite]:
            ring[m] += 1 + ring[opposite]
            ring[at] = ring[opposite] = 0
        return ring, at

    def result(self, position):
        pits, stores, mover = position
        m = self.pits
        south, north = stores[0] + sum(pits[:m]), stores[1] + sum(pits[m:])
        lead = south - north if mover == 0 else north - south
        return Result(Outcome.WIN if lead > 0 else Outcome.LOSS if lead < 0 else Outcome.DRAW, abs(lead))

    def cell(self, side, pit):
        """The board cell of a side's pit: South's row 2 from column b, North's row 1 from the right."""
        column = pit + 1 if side == 0 else self.pits - pit
        return "abcdef"[column] + str(2 - side)

    def format(self, position):
        pits, stores, mover = position
        m = self.pits
        north = [stores[1], *reversed(pits[m:])]
        return " ".join(map(str, [*north, "/", *pits[:m], stores[0], SIDES[mover]]))

    def read(self, text):
        words = text.upper().replace("/", " / ").split()
        m = self.pits
        if len(words) != 2 * m + 4 or words[m + 1] != "/" or words[-1] not in SIDES:
            raise self.position_error(text, f"expected {m + 1} numbers, '/', {m + 1} numbers and S or N")
        numbers = words[:m + 1] + words[m + 2:-1]
        if not all(w.isdigit() for w in numbers):
            raise self.position_error(text, "seeds are counted in whole numbers")
        north_store, *north, = map(int, numbers[:m + 1])
        *south, south_store = map(int, numbers[m + 1:])
        if sum(north) + sum(south) + north_store + south_store != 2 * m * self.seeds:
            raise self.position_error(text, f"the board holds {2 * m * self.seeds} seeds in all")
        return tuple(south + north[::-1]), (south_store, north_store), SIDES.index(words[-1])

    def draw(self, position):
        """The board as the notation writes it: North's store at the top left, South's at the bottom
        right, each pit's seeds counted in its cell."""
        words = position.split()
        m = self.pits
        top, bottom = words[:m + 1], words[m + 2:-1]
        rows = ["." * (m + 1) + "#", "#" + "." * (m + 1)]
        picture = board(rows, f"Kalah {position}: {'South' if words[-1] == 'S' else 'North'} to move")
        for i, (row, first) in enumerate(((top, 0), (bottom, 1))):
            for j, seeds in enumerate(row):
                picture.text(1.4 + first + j, 1.62 + i, seeds, 0.5, cell=(i, first + j))
        return picture
