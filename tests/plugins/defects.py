"""Fixture games for tests/test_bounded_games.py: one correct game, and one game for each defect.

``Fan`` is correct: the start 2.0 fans out to WIDTH positions 1.i of the
middle level, each of which leads to the end 0.0. A middle level of 20,000
positions or more is played on the workers of a build; a smaller one in the
command's own process. Each game below it breaks one thing the engine relies
on, at the position 1.7 (``BAD``) unless it says otherwise: its code never
returns, or its positions never end, or a method returns what it must not.
"""

import itertools
import threading

from tablebase.games import ImpartialGame, Option, Outcome, Result, ScoredGame

BAD = (1, 7)


class FanRules:
    """The rules of Fan, for an impartial and a scored game alike. A position is (level, i)."""

    summary = "the start fans out to WIDTH positions, each one move from the end"
    notation = "level.i, e.g. '1.7'"
    options = (Option("width", int, "positions of the middle level"),)

    def start_positions(self):
        return [(2, 0)]

    def level(self, p):
        return p[0]

    def moves(self, p):
        level, _ = p
        if level == 2:
            return [(i, (1, i)) for i in range(self.params["width"])]
        return [(0, (0, 0))] if level == 1 else []

    def format(self, p):
        return f"{p[0]}.{p[1]}"

    def read(self, text):
        try:
            level, i = (int(x) for x in text.split("."))
        except ValueError:
            raise self.position_error(text, "expected level.i") from None
        return level, i


class Fan(FanRules, ImpartialGame):
    name = "fan"


# -- code that never returns ---------------------------------------------------------------
class LoopingMoves(Fan):
    name = "looping-moves"

    def moves(self, p):
        while p == BAD:
            pass
        return super().moves(p)


class EndlessMoves(Fan):
    name = "endless-moves"

    def moves(self, p):
        if p == BAD:
            return itertools.repeat((0, (0, 0)))  # the same move, for ever
        return super().moves(p)


class LoopingFormat(Fan):
    name = "looping-format"

    def format(self, p):
        while p == BAD:
            pass
        return super().format(p)


class LoopingLevel(Fan):
    name = "looping-level"

    def level(self, p):
        while p == BAD:
            pass
        return super().level(p)


class EndlessStart(Fan):
    name = "endless-start"

    def start_positions(self):
        return itertools.repeat((2, 0))  # the start, again and again


# -- positions that never end ----------------------------------------------------------------
class CountlessStart(Fan):
    name = "countless-start"

    def start_positions(self):
        return ((1, i) for i in itertools.count())  # a new start position each time


class Climbing(Fan):
    name = "climbing"

    def moves(self, p):
        return [(0, (p[0] + 1, 0))]  # every move a level higher: each level new


# -- what a method returns -------------------------------------------------------------------
class HugeLevel(Fan):
    name = "huge-level"

    def level(self, p):
        return 2**60 if p == BAD else super().level(p)


class FloatLevel(Fan):
    name = "float-level"

    def level(self, p):
        return float(super().level(p))


class BoolLevel(Fan):
    name = "bool-level"

    def level(self, p):
        return p != (0, 0)


class IntFormat(Fan):
    name = "int-format"

    def format(self, p):
        return 17 if p == BAD else super().format(p)


class NoneRead(Fan):
    name = "none-read"

    def read(self, text):
        return None


class OtherRead(Fan):
    name = "other-read"

    def read(self, text):
        level, i = super().read(text)
        return level, i + 1  # not the position format() spelt


class NotPairs(Fan):
    name = "not-pairs"

    def moves(self, p):
        return [(0, (0, 0), "to the end")] if p == BAD else super().moves(p)  # a triple where a pair belongs


class NumberedMoveNames(Fan):
    name = "numbered-move-names"

    def move_name(self, move):
        return move


class ScoredFan(FanRules, ScoredGame):
    name = "scored-fan"
    scores = True

    def result(self, p):
        return Result(Outcome.LOSS, 1)


class BareOutcome(ScoredFan):
    name = "bare-outcome"

    def result(self, p):
        return Outcome.LOSS


class WordResult(ScoredFan):
    name = "word-result"

    def result(self, p):
        return Result("lost")


class HugeScore(ScoredFan):
    name = "huge-score"

    def result(self, p):
        return Result(Outcome.LOSS, 1000)


class LoopingOnWorkers(Fan):
    """Loops at BAD only in a thread other than the main one: a Dask worker's, where a build plays large levels.
    A build that played the level in its own process would finish."""

    name = "looping-on-workers"

    def moves(self, p):
        while p == BAD and threading.current_thread() is not threading.main_thread():
            pass
        return super().moves(p)


class IntFormatOnWorkers(Fan):
    """Spells BAD as an int only in a thread other than the main one (a Dask worker's)."""

    name = "int-format-on-workers"

    def format(self, p):
        if p == BAD and threading.current_thread() is not threading.main_thread():
            return 17
        return super().format(p)


class TopLevel(Fan):
    """Correct: the start is at the highest level a game may have, 2**20 - 1, the levels between empty."""

    name = "top-level"

    def level(self, p):
        return 2**20 - 1 if p == (2, 0) else super().level(p)


class LoopingRead(Fan):
    """Reads every text but one: check-game, which reads them all back, finds it (a build tries one a level)."""

    name = "looping-read"

    def read(self, text):
        while text == "1.7":
            pass
        return super().read(text)
