"""A fixture game whose moves may keep their level: take 1 or 2 tokens, or pass, once each turn's heap.

Scored, so moves may keep the level (a pass keeps the tokens): the engine
must find the positions a pass reaches in further rounds of the same level.
A position is (tokens, passed): passing sets ``passed``, taking clears it.
"""

from tablebase.games import Option, Outcome, Result, ScoredGame


class PassOnce(ScoredGame):
    name = "pass_once"
    summary = "take 1 or 2 tokens, or pass once before taking"
    notation = "the tokens, and '*' once passed: '7', '7*'"
    move_notation = "'-1', '-2' or 'pass'"
    options = (Option("heap", int, "tokens in the starting heap"),)

    def __init__(self, **params):
        super().__init__(**params)
        self.heap = self.int_param("heap", 1, 1000)

    def start_positions(self):
        return [(self.heap, 0)]

    def level(self, position):
        return position[0]

    def moves(self, position):
        tokens, passed = position
        for t in (1, 2):
            if t <= tokens:
                yield t, (tokens - t, 0)
        if not passed and tokens:
            yield 0, (tokens, 1)

    def result(self, position):
        return Result(Outcome.LOSS)

    def move_name(self, t):
        return f"-{t}" if t else "pass"

    def format(self, position):
        return f"{position[0]}" + ("*" if position[1] else "")

    def read(self, text):
        text = text.strip()
        passed = text.endswith("*")
        try:
            return int(text.rstrip("*")), int(passed)
        except ValueError:
            raise self.position_error(text, "expected tokens, then '*' if passed") from None
