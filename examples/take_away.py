"""Take-away: a pile of tokens; a move takes 1, 2 or 5 of them; who cannot move loses.

A subtraction game written in plain Python, one position a level: the pile
is the position and its level. Build every pile up to 1,000 tokens and
look one up:

    tablebase build --game examples/take_away.py:TakeAway --max 1000 --out tb
    tablebase lookup --db tb --game examples/take_away.py:TakeAway take_away_max1000 17

A position is the number of tokens; a move is the number taken.
"""

from tablebase.games import ImpartialGame, Option


class TakeAway(ImpartialGame):
    name = "take_away"
    summary = "Take-away: take 1, 2 or 5 tokens from a pile; who cannot, loses"
    notation = "the tokens in the pile, e.g. '17'"
    move_notation = "the tokens taken: '1', '2' or '5'"
    numeric = True
    options = (Option("max", int, "the tokens of the largest pile"),)
    takes = (1, 2, 5)

    def __init__(self, **params):
        super().__init__(**params)
        self.max = self.int_param("max", 0, 1_000_000)

    def start_positions(self):
        return [self.max]

    def level(self, tokens):
        return tokens

    def moves(self, tokens):
        return [(take, tokens - take) for take in self.takes if take <= tokens]

    def format(self, tokens):
        return str(tokens)

    def read(self, text):
        words = self.parse_ints(text)
        if len(words) != 1 or not 0 <= words[0] <= self.max:
            raise self.position_error(text, f"one pile of 0 to {self.max} tokens")
        return words[0]
