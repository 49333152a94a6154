"""A fixture game for the listing in shares: Kayles with rows kept together, not declared as a sum.

Plain Python, as a stranger would write it: a position is the row lengths,
largest first, so the engine lists every multiset of rows that a start row
falls into (for a row of 20 pins, 792 positions over 21 levels), and its
positions and moves spread over every share.
"""

from tablebase.games import ImpartialGame, Option


def _partitions(total, largest):
    """Every way to cut ``total`` pins into rows of at most ``largest``, largest first."""
    if total == 0:
        yield ()
        return
    for first in range(min(total, largest), 0, -1):
        for rest in _partitions(total - first, first):
            yield (first,) + rest


class KaylesRows(ImpartialGame):
    name = "kayles_rows"
    summary = "Kayles, every set of rows a position of its own"
    notation = "row lengths, largest first, e.g. '7 3 1' ('0': no pins)"
    move_notation = "'r:p' knocks pin p of row r down, 'r:p+' pins p and p + 1"
    options = (Option("pins", int, "the pins of the starting row"),
               Option("every", int, "1: start from every set of rows of at most `pins` pins in all", required=False))

    def __init__(self, **params):
        super().__init__(**params)
        self.pins = self.int_param("pins", 1, 60)
        self.every = self.int_param("every", 0, 1) if "every" in self.params else 0

    def start_positions(self):
        if not self.every:
            return [(self.pins,)]
        return [rows for n in range(self.pins + 1) for rows in _partitions(n, n)]

    def level(self, rows):
        return sum(rows)

    def moves(self, rows):
        for r, n in enumerate(rows):
            others = rows[:r] + rows[r + 1:]
            for width in (1, 2):
                for first in range(n - width + 1):
                    rest = tuple(k for k in (first, n - first - width) if k)
                    yield (r, first, width), tuple(sorted(others + rest, reverse=True))

    def move_name(self, move):
        r, first, width = move
        return f"{r + 1}:{first + 1}" + ("+" if width == 2 else "")

    def format(self, rows):
        return " ".join(map(str, rows)) or "0"

    def read(self, text):
        try:
            rows = [int(t) for t in text.split()]
        except ValueError:
            raise self.position_error(text, "row lengths are whole numbers") from None
        if any(n < 0 for n in rows) or sum(rows) > self.pins:
            raise self.position_error(text, f"rows of 0 to {self.pins} pins in all")
        return tuple(sorted((n for n in rows if n), reverse=True))
