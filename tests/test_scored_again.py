"""A scored game's move after which the same player moves again (``Again``), solved by the engine.

The game below has extra turns of every sort the solver meets: to a lower
level (taking two from an even heap), inside a level (lighting the lamp, a
move that keeps the level), next to ordinary moves and to a pass whose
count is kept. Every position's outcome, plies, score and pass counts are
compared with a plain recursive minimax written here from the rules, which
shares no code with the engine: it walks its own positions, turning a
child's figures round after an ordinary move and taking them as they are
after an extra turn. The same game written with a forced pass of the
opponent instead of the extra turn (the old way) shows the difference: its
table counts one more ply per extra turn.
"""

from __future__ import annotations

from functools import cache

import pytest

from tablebase.builders import builder_of
from tablebase.errors import TablebaseError
from tablebase.games import Again, ImpartialGame, Option, Outcome, Result, ScoredGame

TOP = 7  # the largest heap


class Lamp(ScoredGame):
    """A heap; take 1, or 2 (another turn if the heap was even), or once light the lamp (another turn,
    the level kept), or once pass. Taking 2 earns the mover a point; with no tokens left the player with
    more points wins by the difference, and the player to move loses a tie."""

    name = "lamp"
    options = (Option("top", int, "the largest heap"),)
    scores = True
    pass_move = "pass"
    forced_pass = False  # the old way: an extra turn as a move and a forced pass of the opponent

    def start_positions(self):
        return [(n, False, False, 0, False) for n in range(self.params["top"] + 1)]

    def level(self, p):
        return p[0]

    def moves(self, p):
        n, lit, passed, lead, waiting = p  # lead: the mover's points less the opponent's
        if waiting:  # the forced pass of the old way
            yield "wait", (n, lit, passed, -lead, False)
            return
        if n == 0:
            return
        yield "take1", (n - 1, lit, passed, -lead, False)
        if n >= 2:
            yield "take2", self.again(n % 2 == 0, (n - 2, lit, passed, lead + 1, False))
        if not lit:
            yield "light", self.again(True, (n, True, passed, lead, False))
        if not passed:
            yield "pass", (n, lit, True, -lead, False)

    def again(self, extra, p):
        if not extra:
            return p[:3] + (-p[3], False)
        return (*p[:3], -p[3], True) if self.forced_pass else Again(p)  # waiting: the opponent's view

    def result(self, p):
        lead = p[3]
        return Result(Outcome.WIN, lead) if lead > 0 else Result(Outcome.LOSS, -lead)

    def format(self, p):
        return " ".join(map(str, (p[0], int(p[1]), int(p[2]), p[3], int(p[4]))))

    def read(self, text):
        n, lit, passed, lead, waiting = map(int, text.split())
        return n, bool(lit), bool(passed), lead, bool(waiting)


class LampOldWay(Lamp):
    name = "lampold"
    forced_pass = True


# -- the oracle, from the rules alone ------------------------------------------------------------


def rules(n: int, lit: bool, passed: bool, lead: int) -> list[tuple[str, tuple, bool]]:
    """(move, position after it, the same player moves again) of a position; positions are
    (heap, lamp lit, passed, the mover's lead)."""
    if n == 0:
        return []
    out = [("take1", (n - 1, lit, passed, -lead), False)]
    if n >= 2:
        even = n % 2 == 0
        out.append(("take2", (n - 2, lit, passed, lead + 1 if even else -(lead + 1)), even))
    if not lit:
        out.append(("light", (n, True, passed, lead), True))
    if not passed:
        out.append(("pass", (n, lit, True, -lead), False))
    return out


@cache
def minimax(p: tuple) -> dict:
    """Outcome (N/P, no draws: every line ends), plies (winner hurrying, loser delaying), score (the
    mover's final lead, maximised by each player) and pass counts, by recursion over the rules."""
    moves = rules(*p)
    if not moves:
        return {"outcome": "N" if p[3] > 0 else "P", "plies": 0, "score": p[3], "mover_passes": 0,
                "opponent_passes": 0}
    seen = []  # each child's figures from the view of the player who made the move
    for move, child, again in moves:
        c = minimax(child)
        mine, theirs = (c["mover_passes"], c["opponent_passes"]) if again else (c["opponent_passes"], c["mover_passes"])
        wins = (c["outcome"] == "N") == again
        seen.append({"wins": wins, "plies": c["plies"] + 1, "score": c["score"] if again else -c["score"],
                     "mine": mine + (move == "pass"), "theirs": theirs})
    won = [s["plies"] for s in seen if s["wins"]]
    return {"outcome": "N" if won else "P", "plies": min(won) if won else max(s["plies"] for s in seen),
            "score": max(s["score"] for s in seen), "mover_passes": min(s["mine"] for s in seen),
            "opponent_passes": max(s["theirs"] for s in seen)}


def solved(game) -> dict[str, dict]:
    """Every row of the game's table, by position, solved by the engine level by level."""
    builder = builder_of(game)
    builder = builder.over_listing(builder.list_positions())
    solver = builder.solver(fresh=True)
    rows = {}
    for level in range(builder.keyed.max_level + 1):
        keys = builder.keyed.level_keys(level, 0, builder.keyed.level_size(level))
        table = solver.solve(keys)
        solver.remember(level, table.select(solver.columns))
        rows.update({r["position"]: r for r in table.to_pylist()})
    return rows


# -- the tests ------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def lamp() -> dict[str, dict]:
    return solved(Lamp(top=TOP))


def test_every_position_against_minimax(lamp):
    assert len(lamp) > 80
    for text, row in lamp.items():
        n, lit, passed, lead, _ = map(int, text.split())
        expected = minimax((n, bool(lit), bool(passed), lead))
        got = {f: row[f] for f in expected}
        assert got == expected, text


def test_best_moves_lead_where_minimax_says(lamp):
    """The quickest win (or longest defence) and the best score, checked by where the move leads."""
    for text, row in lamp.items():
        n, lit, passed, lead, _ = map(int, text.split())
        p = (n, bool(lit), bool(passed), lead)
        value = minimax(p)
        after = {move: (child, again) for move, child, again in rules(*p)}
        if not after:
            assert row["best_move"] is None
            continue
        child, again = after[row["best_move"]]
        assert minimax(child)["plies"] + 1 == value["plies"], text
        assert ((minimax(child)["outcome"] == "N") == again) == (value["outcome"] == "N"), text
        child, again = after[row["best_score_move"]]
        assert (minimax(child)["score"] if again else -minimax(child)["score"]) == value["score"], text


def test_an_extra_turn_counts_one_ply_where_a_forced_pass_counted_two(lamp):
    """The old way's table agrees on every outcome and score, and counts one more ply per extra turn."""
    old = solved(LampOldWay(top=TOP))
    for text, row in lamp.items():  # every position both tables hold: the same outcome and score
        assert (old[text]["outcome"], old[text]["score"]) == (row["outcome"], row["score"]), text
    # Heap 2, lamp lit, passed: take 2 and win, one move; the old way adds the opponent's forced pass.
    assert (lamp["2 1 1 0 0"]["plies"], old["2 1 1 0 0"]["plies"]) == (1, 2)
    # Heap 3, lamp unlit, passed: the mover wins in 3 plies (minimax says so); the old way counts 4.
    assert minimax((3, False, True, 0))["plies"] == lamp["3 0 1 0 0"]["plies"] == 3
    assert old["3 0 1 0 0"]["plies"] == 4


class Refused(ImpartialGame):
    name = "refused"

    def start_positions(self):
        return [2]

    def level(self, n):
        return n

    def moves(self, n):
        if n:
            yield 1, Again(n - 1)

    def format(self, n):
        return str(n)

    def read(self, text):
        return int(text)


def test_an_extra_turn_in_a_game_of_another_kind_is_refused_in_one_line():
    with pytest.raises(TablebaseError, match="refused: moves\\(\\) gave Again.*only scored games"):
        builder_of(Refused()).list_positions()
