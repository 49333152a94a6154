"""A fixture game for tests/test_plugins.py: take one of AMOUNTS tokens from a heap.

Plain Python, as a stranger would write it. With AMOUNTS = (1, 2) the Grundy
value of a heap of n tokens is n mod 3; the tests edit AMOUNTS in a copy of
this file to change the rules.
"""

from tablebase.games import ImpartialGame, Option

__version__ = "0.3"
AMOUNTS = (1, 2)


class Take(ImpartialGame):
    name = "take"
    summary = "take some tokens from one heap; who cannot, loses"
    notation = "the number of tokens, e.g. '7'"
    move_notation = "'-t': take t tokens"
    options = (Option("heap", int, "tokens in the starting heap"),)

    def __init__(self, **params):
        super().__init__(**params)
        self.heap = self.int_param("heap", 0, 10_000)

    def start_positions(self):
        return [self.heap]

    def level(self, n):
        return n

    def moves(self, n):
        for t in AMOUNTS:
            if t <= n:
                yield t, n - t

    def move_name(self, t):
        return f"-{t}"

    def format(self, n):
        return str(n)

    def read(self, text):
        try:
            n = int(text.strip())
        except ValueError:
            raise self.position_error(text, "expected a whole number") from None
        if not 0 <= n <= self.heap:
            raise self.position_error(text, "outside the table")
        return n
