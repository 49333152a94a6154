"""A fixture game for tests/test_symmetry.py: two heaps, and the heaps' swap as its symmetry.

Take 1 to 3 tokens from the first heap or the second, or 1 or 2 from both
at once; who cannot move loses. Swapping the heaps swaps the moves on them
(``a-t`` and ``b-t``) and keeps the moves on both, so ``(a, b)`` and
``(b, a)`` have the same figures: ``canonical`` gives the pair with the
smaller heap first. Play starts from every pair of heaps up to ``--max``.
"""

from tablebase.games import ImpartialGame, Option


class TwoHeaps(ImpartialGame):
    name = "twoheaps"
    summary = "take from one heap or from both; the heaps' swap is a symmetry"
    notation = "the two heaps, e.g. '5 3'"
    move_notation = "'a-t' or 'b-t': take t from the first or the second heap; 'ab-t': from both"
    options = (Option("max", int, "the largest heap at the start"),)

    def __init__(self, **params):
        super().__init__(**params)
        self.most = self.int_param("max", 0, 200)

    def start_positions(self):
        return [(a, b) for a in range(self.most + 1) for b in range(self.most + 1)]

    def level(self, heaps):
        return heaps[0] + heaps[1]

    def moves(self, heaps):
        a, b = heaps
        for t in range(1, 4):
            if t <= a:
                yield ("a", t), (a - t, b)
            if t <= b:
                yield ("b", t), (a, b - t)
        for t in range(1, 3):
            if t <= min(a, b):
                yield ("ab", t), (a - t, b - t)

    def canonical(self, heaps):
        return tuple(sorted(heaps))

    def move_name(self, move):
        return f"{move[0]}-{move[1]}"

    def format(self, heaps):
        return f"{heaps[0]} {heaps[1]}"

    def read(self, text):
        try:
            a, b = (int(n) for n in text.split())
        except ValueError:
            raise self.position_error(text, "expected two whole numbers") from None
        if not (0 <= a <= self.most and 0 <= b <= self.most):
            raise self.position_error(text, f"heaps are 0 to {self.most}")
        return a, b
